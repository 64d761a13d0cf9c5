//! Kernels: a [`Module`] loaded from PTX, cubin or fatbin bytes or a file
//! (`cudaLibraryLoadData` / `cudaLibraryLoadFromFile`, context-independent), [`Kernel`]s
//! found in it by name, their attributes and occupancy, and launches through a builder.
//!
//! A launch is built with [`Stream::launch`] (or [`Launch::new`]): grid, block, dynamic
//! shared memory, arguments in order, optional thread-block clusters, cooperative launch
//! and priority; [`Launch::run`] sends it (`cudaLaunchKernel`, or `cudaLaunchKernelExC`
//! with launch attributes when any is set). `run` is the one `unsafe` step: the caller
//! promises that the arguments match the kernel's parameters in type and that what the
//! kernel reads and writes is valid. What the runtime can say is checked: the number of
//! parameters and the size of each (`cudaFuncGetParamInfo`, read once per kernel and
//! cached), so a launch with an argument missing, extra or of the wrong size is an
//! [`Error::InvalidArgument`] and nothing is launched ([`Launch::run_unchecked`] skips the
//! check).
//!
//! Occupancy: [`Kernel::max_active_blocks_per_multiprocessor`] and
//! [`Kernel::suggested_config`], the block size that keeps the most threads resident
//! (CUDA's `cudaOccupancyMaxPotentialBlockSize`, a header-only helper, computed the same
//! way).
//!
//! Arguments are passed as CUDA expects them (`void** args`, one pointer to each argument
//! value): a [`KernelArg`] gives the address of its value, so building the list copies no
//! argument and allocates nothing for up to [`INLINE_ARGS`] arguments.
//!
//! Modules and kernels are `Send` and `Sync` (library and kernel handles are
//! context-independent and thread-safe). A kernel keeps its module loaded.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CString};
use std::mem::MaybeUninit;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::error::{status, Error, Result};
use crate::lifetime::{self, holdings::Held, Access, Kind, Life, Part, Release};
use crate::memory::{
    DeviceBuffer, DeviceCopy, DeviceSlice, DeviceSliceMut, GraphBuffer, ManagedBuffer,
};
use crate::stream::Stream;
use crate::sys;

/// A kernel attribute (`cudaFuncAttribute`), for [`Kernel::set_attribute`].
pub use crate::sys::cudaFuncAttribute as FuncAttribute;

/// A loaded module of device code (`cudaLibrary_t`): CuPy's / cuda.core's module or
/// `ObjectCode`. Unloaded when the module, every kernel and every global from it are
/// dropped.
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::Module;
/// let module = Module::from_file("kernels.cubin")?;
/// let kernel = module.kernel("saxpy")?;
/// let mut scale = module.global::<f32>("scale")?; // a `__device__ float scale;`
/// scale.write(&2.0)?;
/// println!("{} takes {:?}", kernel.name()?, kernel.params()?);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Module {
    inner: ModuleRef,
    /// Name expressions and the lowered (mangled) names they stand for
    /// ([`Module::with_symbols`]).
    symbols: Arc<HashMap<String, String>>,
}

/// A loaded library and its record in the gate: the module, its kernels and globals share
/// it; the last of them unloads the library once every device has finished its work (kernels
/// and copies of globals are used without records), and a capture that uses them makes the
/// graph hold it.
#[derive(Clone)]
pub(crate) struct ModuleRef {
    pub(crate) raw: sys::cudaLibrary_t,
    pub(crate) life: Life,
}

// SAFETY: library handles are context-independent and may be used from any thread.
unsafe impl Send for ModuleRef {}
// SAFETY: as above; only passed to CUDA.
unsafe impl Sync for ModuleRef {}

impl ModuleRef {
    fn new(raw: sys::cudaLibrary_t) -> ModuleRef {
        let handle = raw.0 as usize;
        // SAFETY: an owned library, unloaded once, by the gate: after its last kernel and
        // global are gone and every device has finished its work.
        let release: Release = Box::new(move || {
            status(unsafe { sys::cudaLibraryUnload(sys::cudaLibrary_t(handle as *mut _)) })
        });
        ModuleRef {
            raw,
            life: Life::new("module", Kind::Everywhere, Some(release)),
        }
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Module").field(&self.inner.raw).finish()
    }
}

/// The first bytes of a cubin (an ELF file).
const ELF_MAGIC: &[u8] = b"\x7fELF";
/// The first bytes of a fatbin (`0xBA55ED50`, little-endian).
const FATBIN_MAGIC: &[u8] = &[0x50, 0xED, 0x55, 0xBA];

impl Module {
    /// Loads PTX source; the driver compiles it for the current device.
    #[doc(alias = "cudaLibraryLoadData")]
    pub fn from_ptx(ptx: &str) -> Result<Module> {
        let text = CString::new(ptx)
            .map_err(|_| Error::InvalidArgument("PTX with an interior NUL byte".into()))?;
        // SAFETY: a NUL-terminated PTX image.
        unsafe { Module::load(text.as_ptr().cast()) }
    }

    /// Loads a cubin, a fatbin or PTX text from bytes (a cubin or fatbin is recognised by
    /// its magic number; anything else is taken as PTX and NUL-terminated when needed).
    /// CUDA is not told an image's length: it reads the extent its own headers state, so a
    /// cubin or fatbin is checked first — every table and section (or every fatbin entry)
    /// its headers describe must lie within `image` — and refused with
    /// [`Error::InvalidArgument`] otherwise.
    #[doc(alias = "cudaLibraryLoadData")]
    pub fn from_bytes(image: &[u8]) -> Result<Module> {
        if image.starts_with(ELF_MAGIC) || image.starts_with(FATBIN_MAGIC) {
            image::check(image).map_err(|why| {
                Error::InvalidArgument(format!(
                    "a cubin or fatbin image of {} bytes: {why}",
                    image.len()
                ))
            })?;
            // SAFETY: a cubin or fatbin whose headers describe only bytes within `image`.
            return unsafe { Module::load(image.as_ptr().cast()) };
        }
        let text = match image.iter().position(|b| *b == 0) {
            Some(end) => &image[..end],
            None => image,
        };
        let text = CString::new(text)
            .map_err(|_| Error::InvalidArgument("PTX with an interior NUL byte".into()))?;
        // SAFETY: a NUL-terminated PTX image.
        unsafe { Module::load(text.as_ptr().cast()) }
    }

    /// Loads a cubin, fatbin or PTX file (`cudaLibraryLoadFromFile`).
    #[doc(alias = "cudaLibraryLoadFromFile")]
    pub fn from_file(path: impl AsRef<Path>) -> Result<Module> {
        let path = path.as_ref();
        let name = path_cstring(path)?;
        let mut raw = sys::cudaLibrary_t::null();
        // SAFETY: a NUL-terminated file name; no options.
        status(unsafe {
            sys::cudaLibraryLoadFromFile(
                &mut raw,
                name.as_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            )
        })?;
        Ok(Module::wrap(raw))
    }

    /// # Safety
    /// `image` is a complete cubin, fatbin, or NUL-terminated PTX image.
    unsafe fn load(image: *const c_void) -> Result<Module> {
        let mut raw = sys::cudaLibrary_t::null();
        // SAFETY: the caller's promise about the image; no options.
        status(unsafe {
            sys::cudaLibraryLoadData(
                &mut raw,
                image,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
            )
        })?;
        Ok(Module::wrap(raw))
    }

    fn wrap(raw: sys::cudaLibrary_t) -> Module {
        Module {
            inner: ModuleRef::new(raw),
            symbols: Arc::default(),
        }
    }

    /// Takes ownership of a loaded library: it is unloaded when the last clone and kernel
    /// are dropped.
    ///
    /// # Safety
    /// `raw` is a live library that nothing else unloads.
    pub unsafe fn from_raw(raw: sys::cudaLibrary_t) -> Module {
        Module::wrap(raw)
    }

    /// The raw handle; valid as long as this value (or a clone, or a kernel) exists.
    pub fn as_raw(&self) -> sys::cudaLibrary_t {
        self.inner.raw
    }

    /// The library and its record in the gate (what a global keeps).
    pub(crate) fn module_ref(&self) -> &ModuleRef {
        &self.inner
    }

    /// Unloads the module now (if no clone, kernel or global of it is left, and no graph
    /// holds it), once every device has finished its work — as dropping does — and returns
    /// the error, where dropping would report it to the hook. With clones, kernels, globals
    /// or graphs holding it nothing is unloaded and this returns `Ok`: the last of them
    /// unloads it.
    #[doc(alias = "cudaLibraryUnload")]
    pub fn close(self) -> Result<()> {
        self.inner.life.close()
    }

    /// This module with a symbol map: name expressions (`"scale<float>"`, `"&ns::f"`) and
    /// the lowered names the compiler gave them (NVRTC's `nvrtcGetLoweredName`, which
    /// `nvrtc`'s `Compiled::lowered_names` returns), so that [`kernel`](Module::kernel) and
    /// [`global`](Module::global) find a C++ symbol by the expression it was compiled with.
    /// The map is kept by every clone; names not in it are looked up as they are.
    ///
    /// ```no_run
    /// # fn main() -> @CRATE@::Result<()> {
    /// # let (ptx, lowered): (String, Vec<(String, String)>) = (String::new(), Vec::new());
    /// // `lowered` from nvrtc: [("scale<float>", "_Z5scaleIfEvPT_j")]
    /// let module = @CRATE@::Module::from_ptx(&ptx)?.with_symbols(lowered);
    /// let kernel = module.kernel("scale<float>")?; // found by its name expression
    /// assert_eq!(module.symbol_for("scale<float>"), Some("_Z5scaleIfEvPT_j"));
    /// # let _ = kernel; Ok(()) }
    /// ```
    pub fn with_symbols(mut self, symbols: impl IntoIterator<Item = (String, String)>) -> Module {
        let mut map = (*self.symbols).clone();
        map.extend(symbols);
        self.symbols = Arc::new(map);
        self
    }

    /// The lowered name a name expression stands for in this module's symbol map
    /// ([`Module::with_symbols`]), if it has one.
    pub fn symbol_for(&self, name_expression: &str) -> Option<&str> {
        self.symbols.get(name_expression).map(String::as_str)
    }

    /// The symbol map's entries (name expression, lowered name).
    pub fn symbols(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.symbols.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The name CUDA knows a symbol by: its lowered name when `name` is a name expression of
    /// the symbol map, else `name` itself.
    pub(crate) fn resolve<'n>(&'n self, name: &'n str) -> &'n str {
        self.symbol_for(name).unwrap_or(name)
    }

    /// The kernel called `name` (its mangled name for C++ kernels without `extern "C"`, or
    /// a name expression of the symbol map, see [`Module::with_symbols`]), or
    /// `cudaErrorSymbolNotFound`.
    #[doc(alias = "cudaLibraryGetKernel")]
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let name = self.resolve(name);
        let c_name = CString::new(name)
            .map_err(|_| Error::InvalidArgument("a kernel name with a NUL byte".into()))?;
        let mut raw = sys::cudaKernel_t::null();
        // SAFETY: the library is alive; the name is NUL-terminated.
        status(unsafe { sys::cudaLibraryGetKernel(&mut raw, self.inner.raw, c_name.as_ptr()) })?;
        Ok(Kernel {
            raw,
            _module: Some(self.inner.clone()),
            params: Arc::default(),
        })
    }
}

#[cfg(unix)]
fn path_cstring(path: &Path) -> Result<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| Error::InvalidArgument("a path with a NUL byte".into()))
}

#[cfg(not(unix))]
fn path_cstring(path: &Path) -> Result<CString> {
    let s = path
        .to_str()
        .ok_or_else(|| Error::InvalidArgument("a path that is not UTF-8".into()))?;
    CString::new(s).map_err(|_| Error::InvalidArgument("a path with a NUL byte".into()))
}

/// A kernel of a [`Module`] (`cudaKernel_t`), which it keeps loaded. Cheap to clone; a
/// clone shares the parameter layout read for the launch check ([`Kernel::params`]).
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::{DeviceBuffer, Module, Stream};
/// # let ptx = "";
/// let kernel = Module::from_ptx(ptx)?.kernel("scale")?;
/// let stream = Stream::non_blocking()?;
/// let data = DeviceBuffer::from_slice(&[1.0f32; 4096], &stream)?;
/// let (n, factor) = (4096u32, 2.0f32);
/// let config = kernel.suggested_config(n, 0)?; // the block size of best occupancy
/// // SAFETY: scale(float* data, unsigned n, float factor) reads and writes `n` elements.
/// unsafe { kernel.launch(&stream, config, (&data, &n, &factor))? };
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Kernel {
    raw: sys::cudaKernel_t,
    _module: Option<ModuleRef>,
    params: Arc<OnceLock<Option<Box<[ParamInfo]>>>>,
}

/// One kernel parameter as the runtime lays it out in the device-side parameter block
/// (`cudaFuncGetParamInfo`).
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// # let kernel = @CRATE@::Module::from_file("kernels.cubin")?.kernel("kernel")?;
/// if let Some(params) = kernel.params()? {
///     for (i, p) in params.iter().enumerate() {
///         println!("parameter {i}: {} bytes at offset {}", p.size, p.offset);
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamInfo {
    /// Offset of the parameter in the parameter block, bytes.
    pub offset: usize,
    /// Size of the parameter, bytes.
    pub size: usize,
}

/// Parameters read at most (a kernel's parameter block holds 32 KiB).
const MAX_PARAMS: usize = 32 * 1024;

// SAFETY: kernel handles are context-independent and may be used from any thread.
unsafe impl Send for Kernel {}
// SAFETY: as above.
unsafe impl Sync for Kernel {}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Kernel").field(&self.raw).finish()
    }
}

/// A kernel's attributes (generated from `cudaFuncAttributes`; see [`Kernel::attributes`]).
pub use crate::records::KernelAttributes;

impl Kernel {
    /// A kernel from a raw handle or function address (a `cudaKernel_t`, or a `__global__`
    /// function's host stub address as `cudaLaunchKernel` accepts).
    ///
    /// # Safety
    /// `raw` names a kernel that stays loaded as long as this value and its clones: a
    /// `cudaKernel_t`, or a function registered with the runtime this crate loaded (CUDA
    /// says that a symbol of another runtime instance, such as one linked statically into
    /// the program, is undefined behaviour in the calls this type makes).
    pub unsafe fn from_raw(raw: sys::cudaKernel_t) -> Kernel {
        Kernel {
            raw,
            _module: None,
            params: Arc::default(),
        }
    }

    /// The raw handle.
    #[inline]
    pub fn as_raw(&self) -> sys::cudaKernel_t {
        self.raw
    }

    #[inline]
    fn func(&self) -> *const c_void {
        self.raw.0.cast_const().cast()
    }

    /// The kernel's parameters, in order, as the runtime lays them out
    /// (`cudaFuncGetParamInfo`): read once for this kernel and its clones, then cached.
    /// `None` when the runtime cannot say (a runtime older than CUDA 12.4, or a function
    /// it does not describe): launches are then not checked.
    #[doc(alias = "cudaFuncGetParamInfo")]
    pub fn params(&self) -> Result<Option<&[ParamInfo]>> {
        if let Some(known) = self.params.get() {
            return Ok(known.as_deref());
        }
        let read = read_params(self.func())?;
        let _ = self.params.set(read);
        Ok(self.params.get().and_then(|p| p.as_deref()))
    }

    /// Fails with [`Error::InvalidArgument`] when the runtime describes the kernel's
    /// parameters and `sizes` (the launch's arguments, in order) differ from them in number
    /// or size.
    #[inline]
    pub(crate) fn check_args(&self, sizes: &[u16]) -> Result<()> {
        let params = match self.params.get() {
            Some(known) => known.as_deref(),
            None => self.params()?,
        };
        match params {
            Some(p)
                if p.len() != sizes.len()
                    || p.iter().zip(sizes).any(|(p, s)| p.size != usize::from(*s)) =>
            {
                Err(self.mismatch(p, sizes))
            }
            _ => Ok(()),
        }
    }

    #[cold]
    fn mismatch(&self, params: &[ParamInfo], sizes: &[u16]) -> Error {
        let name = self.name().unwrap_or_else(|_| "?".into());
        let expected: Vec<usize> = params.iter().map(|p| p.size).collect();
        Error::InvalidArgument(format!(
            "kernel `{name}` takes {} parameters of {expected:?} bytes; the launch gives {} \
             arguments of {sizes:?} bytes (nothing was launched)",
            params.len(),
            sizes.len()
        ))
    }

    /// The kernel's attributes on the current device: every field of `cudaFuncAttributes`
    /// (registers, shared, constant and local memory, PTX and binary versions, cluster
    /// requirements, …).
    #[doc(alias = "cudaFuncGetAttributes")]
    pub fn attributes(&self) -> Result<KernelAttributes> {
        let mut a = sys::cudaFuncAttributes::default();
        // SAFETY: `cudaFuncGetAttributes` accepts a `cudaKernel_t`; one record is written.
        status(unsafe { sys::cudaFuncGetAttributes(&mut a, self.func()) })?;
        Ok(KernelAttributes::from_raw(&a))
    }

    /// Sets an attribute for launches on the current device (`cudaFuncSetAttribute`), e.g.
    /// [`FuncAttribute::MAX_DYNAMIC_SHARED_MEMORY_SIZE`] to allow more dynamic shared
    /// memory than the default 48 KiB.
    #[doc(alias = "cudaFuncSetAttribute")]
    pub fn set_attribute(&self, attr: FuncAttribute, value: i32) -> Result<()> {
        // SAFETY: `cudaFuncSetAttribute` accepts a `cudaKernel_t`.
        status(unsafe { sys::cudaFuncSetAttribute(self.func(), attr, value) })
    }

    /// The most blocks of `block_size` threads (with `dynamic_shared_bytes` of dynamic
    /// shared memory each) that can be resident on one multiprocessor
    /// (`cudaOccupancyMaxActiveBlocksPerMultiprocessor`).
    #[doc(alias = "cudaOccupancyMaxActiveBlocksPerMultiprocessor")]
    pub fn max_active_blocks_per_multiprocessor(
        &self,
        block_size: u32,
        dynamic_shared_bytes: usize,
    ) -> Result<u32> {
        let mut n: c_int = 0;
        let block = c_int::try_from(block_size)
            .map_err(|_| Error::InvalidArgument(format!("block size {block_size}")))?;
        // SAFETY: accepts a `cudaKernel_t`; one int is written.
        status(unsafe {
            sys::cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut n,
                self.func(),
                block,
                dynamic_shared_bytes,
            )
        })?;
        Ok(u32::try_from(n).unwrap_or(0))
    }

    /// The block size that keeps the most threads of this kernel resident on a
    /// multiprocessor of the current device, with `dynamic_shared_bytes` of dynamic shared
    /// memory per block, and the grid to cover `n` elements with it (at least one block):
    /// CUDA's `cudaOccupancyMaxPotentialBlockSize` (a header-only helper), computed the
    /// same way from `cudaFuncGetAttributes`, the device's attributes and
    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`. [`occupancy`](Kernel::occupancy)
    /// gives the whole answer.
    #[doc(alias = "cudaOccupancyMaxPotentialBlockSize")]
    pub fn suggested_config(&self, n: u32, dynamic_shared_bytes: u32) -> Result<LaunchConfig> {
        let best = self.occupancy(dynamic_shared_bytes)?;
        Ok(LaunchConfig::for_num_elems(1)
            .with_block(Dim3::from(best.block_size.max(1)))
            .with_grid(Dim3::from(n.div_ceil(best.block_size.max(1)).max(1)))
            .with_shared_mem(dynamic_shared_bytes))
    }

    /// The block size of best potential occupancy on the current device, with
    /// `dynamic_shared_bytes` of dynamic shared memory per block, and the smallest grid
    /// that fills the device with it (`cudaOccupancyMaxPotentialBlockSize`'s `blockSize`
    /// and `minGridSize`). [`occupancy_limited`](Kernel::occupancy_limited) caps the block
    /// size; [`occupancy_variable_smem`](Kernel::occupancy_variable_smem) lets the shared
    /// memory depend on it.
    #[doc(alias = "cudaOccupancyMaxPotentialBlockSize")]
    pub fn occupancy(&self, dynamic_shared_bytes: u32) -> Result<Occupancy> {
        self.occupancy_variable_smem(|_| dynamic_shared_bytes as usize, 0)
    }

    /// [`occupancy`](Kernel::occupancy) among block sizes of at most `block_size_limit`
    /// threads (`cudaOccupancyMaxPotentialBlockSize`'s `blockSizeLimit`; 0: no limit beyond
    /// the device's and the kernel's).
    ///
    /// ```no_run
    /// # fn main() -> @CRATE@::Result<()> {
    /// # let kernel = @CRATE@::Module::from_file("kernels.cubin")?.kernel("kernel")?;
    /// let best = kernel.occupancy_limited(0, 128)?;
    /// assert!(best.block_size <= 128);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaOccupancyMaxPotentialBlockSize")]
    pub fn occupancy_limited(
        &self,
        dynamic_shared_bytes: u32,
        block_size_limit: u32,
    ) -> Result<Occupancy> {
        self.occupancy_variable_smem(|_| dynamic_shared_bytes as usize, block_size_limit)
    }

    /// [`occupancy`](Kernel::occupancy) for a kernel whose dynamic shared memory per block
    /// depends on the block size: `smem(block_size)` gives the bytes for each size tried, and
    /// the answer's size is at most `block_size_limit` (0: no limit beyond the device's and the
    /// kernel's) (`cudaOccupancyMaxPotentialBlockSizeVariableSMem`, a header-only helper,
    /// computed the same way).
    ///
    /// ```no_run
    /// # fn main() -> @CRATE@::Result<()> {
    /// # let kernel = @CRATE@::Module::from_file("kernels.cubin")?.kernel("kernel")?;
    /// // One float of shared memory per thread.
    /// let best = kernel.occupancy_variable_smem(|block| block as usize * 4, 0)?;
    /// println!("{} threads a block, {} bytes of shared memory", best.block_size, best.block_size * 4);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaOccupancyMaxPotentialBlockSizeVariableSMem")]
    #[doc(alias = "cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags")]
    pub fn occupancy_variable_smem(
        &self,
        mut smem: impl FnMut(u32) -> usize,
        block_size_limit: u32,
    ) -> Result<Occupancy> {
        use sys::cudaDeviceAttr as A;
        let device = crate::Device::current()?;
        let per_sm = device.attribute(A::MAX_THREADS_PER_MULTI_PROCESSOR)?;
        let warp = device.attribute(A::WARP_SIZE)?.max(1);
        let sms = device.attribute(A::MULTI_PROCESSOR_COUNT)?;
        let limit = block_limit(
            device.attribute(A::MAX_THREADS_PER_BLOCK)?,
            self.attributes()?.max_threads_per_block,
            block_size_limit,
        );
        let best = best_block_size(per_sm, warp, limit, |block| {
            self.max_active_blocks_per_multiprocessor(block, smem(block))
        })?;
        Ok(Occupancy {
            block_size: best.0,
            blocks_per_multiprocessor: best.1,
            min_grid_size: best.1.saturating_mul(u32::try_from(sms).unwrap_or(0)),
        })
    }

    /// The dynamic shared memory each block can have when `blocks_per_multiprocessor` blocks
    /// of `block_size` threads are resident on a multiprocessor of the current device
    /// (`cudaOccupancyAvailableDynamicSMemPerBlock`).
    #[doc(alias = "cudaOccupancyAvailableDynamicSMemPerBlock")]
    pub fn available_dynamic_shared_memory(
        &self,
        blocks_per_multiprocessor: u32,
        block_size: u32,
    ) -> Result<usize> {
        let to_int = |v: u32, what: &str| {
            c_int::try_from(v).map_err(|_| Error::InvalidArgument(format!("{what} {v}")))
        };
        let blocks = to_int(blocks_per_multiprocessor, "blocks per multiprocessor")?;
        let size = to_int(block_size, "block size")?;
        let mut bytes = 0usize;
        // SAFETY: accepts a `cudaKernel_t`; one size_t is written.
        status(unsafe {
            sys::cudaOccupancyAvailableDynamicSMemPerBlock(&mut bytes, self.func(), blocks, size)
        })?;
        Ok(bytes)
    }

    /// The most clusters of `config`'s cluster shape that can be resident at once on the
    /// current device (`cudaOccupancyMaxActiveClusters`): the launch configuration is made
    /// here from `config` (grid, block, shared memory, cluster dimensions), no hand-built
    /// `cudaLaunchConfig_t`. A `config` without a cluster shape uses the kernel's
    /// compile-time one (CUDA's error when it has none).
    ///
    /// ```no_run
    /// # fn main() -> @CRATE@::Result<()> {
    /// # let kernel = @CRATE@::Module::from_file("kernels.cubin")?.kernel("kernel")?;
    /// use @CRATE@::LaunchConfig;
    /// let config = LaunchConfig::new(128, 256)?.with_cluster(2)?;
    /// println!("{} clusters of 2 at once", kernel.max_active_clusters(&config)?);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaOccupancyMaxActiveClusters")]
    pub fn max_active_clusters(&self, config: &LaunchConfig) -> Result<u32> {
        self.cluster_query(config, |n, func, raw| {
            // SAFETY: accepts a `cudaKernel_t`; the configuration and its attributes live for
            // the call; one int is written.
            unsafe { sys::cudaOccupancyMaxActiveClusters(n, func, raw) }
        })
    }

    /// The largest cluster size (blocks) `config` could be launched with on the current device
    /// (`cudaOccupancyMaxPotentialClusterSize`; `config`'s own cluster shape is ignored by
    /// CUDA). More than 8 needs [`FuncAttribute::NON_PORTABLE_CLUSTER_SIZE_ALLOWED`].
    ///
    /// ```no_run
    /// # fn main() -> @CRATE@::Result<()> {
    /// # let kernel = @CRATE@::Module::from_file("kernels.cubin")?.kernel("kernel")?;
    /// let config = @CRATE@::LaunchConfig::new(128, 256)?;
    /// println!("clusters of up to {} blocks", kernel.max_potential_cluster_size(&config)?);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaOccupancyMaxPotentialClusterSize")]
    pub fn max_potential_cluster_size(&self, config: &LaunchConfig) -> Result<u32> {
        self.cluster_query(config, |n, func, raw| {
            // SAFETY: as in `max_active_clusters`.
            unsafe { sys::cudaOccupancyMaxPotentialClusterSize(n, func, raw) }
        })
    }

    /// Runs a cluster occupancy query with `config` as a `cudaLaunchConfig_t`.
    fn cluster_query(
        &self,
        config: &LaunchConfig,
        query: impl FnOnce(
            *mut c_int,
            *const c_void,
            *const sys::cudaLaunchConfig_t,
        ) -> Result<sys::cudaError_t>,
    ) -> Result<u32> {
        config.check()?;
        let (mut attrs, n) = config.attributes();
        let raw = config.raw(sys::cudaStream_t::null(), &mut attrs, n);
        let mut out: c_int = 0;
        status(query(&mut out, self.func(), &raw))?;
        Ok(u32::try_from(out).unwrap_or(0))
    }

    /// Launches the kernel on `stream` with `config` and `args` (a tuple of references, in
    /// parameter order): `stream.launch(self).config(config).args(args).run()`, as cudarc's
    /// `launch`, checked as [`Launch::run`]. `config` carries the launch attributes too
    /// (clusters, cooperative launch, programmatic stream serialization, priority: see
    /// [`LaunchConfig`]).
    ///
    /// # Safety
    /// As [`Launch::run`].
    #[inline]
    pub unsafe fn launch<'a>(
        &'a self,
        stream: &'a Stream,
        config: LaunchConfig,
        args: impl KernelArgs<'a>,
    ) -> Result<()> {
        // SAFETY: the caller's promise, passed on.
        unsafe { stream.launch(self).config(config).args(args).run() }
    }

    /// The kernel's name as the module knows it (`cudaFuncGetName`).
    #[doc(alias = "cudaFuncGetName")]
    pub fn name(&self) -> Result<String> {
        let mut name: *const c_char = std::ptr::null();
        // SAFETY: one pointer is written; it names a string owned by the runtime.
        status(unsafe { sys::cudaFuncGetName(&mut name, self.func()) })?;
        if name.is_null() {
            return Ok(String::new());
        }
        // SAFETY: a NUL-terminated string that lives as long as the kernel.
        Ok(unsafe { std::ffi::CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned())
    }
}

/// The answer of [`Kernel::occupancy`].
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// # let kernel = @CRATE@::Module::from_file("kernels.cubin")?.kernel("kernel")?;
/// let best = kernel.occupancy(0)?;
/// println!("blocks of {}: {} per SM, a grid of {} fills the device",
///     best.block_size, best.blocks_per_multiprocessor, best.min_grid_size);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Occupancy {
    /// The block size of best occupancy (a multiple of the warp size unless the kernel's
    /// limit is not).
    pub block_size: u32,
    /// Blocks of that size resident on one multiprocessor.
    pub blocks_per_multiprocessor: u32,
    /// The smallest grid that fills every multiprocessor with them.
    pub min_grid_size: u32,
}

/// The largest block size to try: the device's and the kernel's limits, and the caller's
/// when it is not 0 (as `cudaOccupancyMaxPotentialBlockSize` treats `blockSizeLimit`).
fn block_limit(device_max: i32, kernel_max: i32, caller: u32) -> i32 {
    let mut limit = device_max.min(kernel_max);
    if caller != 0 {
        limit = limit.min(i32::try_from(caller).unwrap_or(i32::MAX));
    }
    limit
}

/// `cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags`'s search: every block size from
/// `limit` (rounded up to the warp, capped at `limit`) down by warps; the one with the most
/// resident threads (`blocks(size) * size`), the largest on a tie, stopping early once a
/// multiprocessor is full. Returns `(block size, blocks per multiprocessor)`.
fn best_block_size(
    per_sm: i32,
    warp: i32,
    limit: i32,
    mut blocks: impl FnMut(u32) -> Result<u32>,
) -> Result<(u32, u32)> {
    let (per_sm, warp, limit) = (
        per_sm.max(0) as u64,
        warp.max(1) as u64,
        limit.max(0) as u64,
    );
    let mut best = (0u32, 0u32);
    let mut best_threads = 0u64;
    let mut aligned = limit.div_ceil(warp) * warp;
    while aligned > 0 {
        let size = aligned.min(limit) as u32;
        let n = blocks(size)?;
        let threads = u64::from(n) * u64::from(size);
        if threads > best_threads {
            best = (size, n);
            best_threads = threads;
        }
        if best_threads == per_sm {
            break;
        }
        aligned -= warp;
    }
    Ok(best)
}

/// Reads a kernel's parameter layout (see [`Kernel::params`]): `None` when the runtime
/// cannot describe it; an error only for what may pass (a call inside a callback).
fn read_params(func: *const c_void) -> Result<Option<Box<[ParamInfo]>>> {
    /// `cudaErrorInvalidValue`: the index is past the last parameter.
    const PAST_THE_END: i32 = 1;
    let mut params = Vec::new();
    for index in 0..MAX_PARAMS {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: a live kernel handle or function; two values are written.
        match status(unsafe { sys::cudaFuncGetParamInfo(func, index, &mut offset, &mut size) }) {
            Ok(()) => params.push(ParamInfo { offset, size }),
            Err(e) if e.cuda_code() == Some(PAST_THE_END) => {
                return Ok(Some(params.into_boxed_slice()))
            }
            Err(e @ Error::InCallback { .. }) => return Err(e),
            Err(_) => return Ok(None),
        }
    }
    Ok(None)
}

/// A grid or block size, `x × y × z`.
///
/// ```
/// use @CRATE@::Dim3;
/// assert_eq!(Dim3::from((16, 16)), Dim3::new(16, 16, 1));
/// assert_eq!(Dim3::from(256).x, 256);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// X extent.
    pub x: u32,
    /// Y extent.
    pub y: u32,
    /// Z extent.
    pub z: u32,
}

impl Dim3 {
    /// `x × y × z`.
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    fn raw(self) -> sys::dim3 {
        sys::dim3 {
            x: self.x,
            y: self.y,
            z: self.z,
        }
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3::new(x, 1, 1)
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3::new(x, y, 1)
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3::new(x, y, z)
    }
}

/// Grid, block and dynamic shared memory of a launch, with its optional launch attributes:
/// thread-block clusters, cooperative launch, programmatic stream serialization and priority
/// (cuda.core's `LaunchConfig`). Every field is readable; [`LaunchConfig::new`] refuses a
/// zero extent, and [`Launch::run`] checks again (the fields are public).
///
/// ```
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::{Dim3, LaunchConfig};
/// let tiles = LaunchConfig::new((64, 64), (16, 16))?.with_shared_mem(4096);
/// assert_eq!(tiles.block, Dim3::new(16, 16, 1));
/// let clustered = LaunchConfig::new(8, 128)?.with_cluster(2)?.with_cooperative(true);
/// assert_eq!(clustered.cluster, Some(Dim3::new(2, 1, 1)));
/// assert!(clustered.cooperative);
/// assert!(LaunchConfig::new(0, 128).is_err());
/// let per_element = LaunchConfig::for_num_elems(1000); // 4 blocks of 256
/// assert_eq!(per_element.grid.x, 4);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[doc(alias = "cudaLaunchConfig_t")]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads in a block.
    pub block: Dim3,
    /// Dynamic shared memory per block, bytes.
    pub shared_mem_bytes: u32,
    /// Thread-block clusters of this shape (`cudaLaunchAttributeClusterDimension`; compute
    /// capability 9.0 and later; the grid is a multiple of it).
    pub cluster: Option<Dim3>,
    /// A cooperative launch (`cudaLaunchAttributeCooperative`): every block is resident at
    /// once, so that blocks can synchronise grid-wide.
    pub cooperative: bool,
    /// Programmatic stream serialization (`cudaLaunchAttributeProgrammaticStreamSerialization`):
    /// the kernel may start before the previous kernel in the stream finishes, overlapping
    /// with it until it waits with `cudaGridDependencySynchronize` (compute capability 9.0
    /// and later).
    pub programmatic_stream_serialization: bool,
    /// The launch's priority (`cudaLaunchAttributePriority`); `None`: the stream's.
    pub priority: Option<i32>,
}

/// `Err` naming `what` when an extent of `d` is zero.
fn nonzero(d: Dim3, what: &str) -> Result<Dim3> {
    if d.x == 0 || d.y == 0 || d.z == 0 {
        return Err(Error::InvalidArgument(format!(
            "a {what} of {} x {} x {} (every extent must be at least 1)",
            d.x, d.y, d.z
        )));
    }
    Ok(d)
}

impl LaunchConfig {
    /// `grid` blocks of `block` threads, no dynamic shared memory and no attributes:
    /// `LaunchConfig::new(64, (16, 16))?`. A zero extent is [`Error::InvalidArgument`].
    #[doc(alias = "cudaLaunchConfig_t")]
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Result<LaunchConfig> {
        Ok(LaunchConfig {
            grid: nonzero(grid.into(), "grid")?,
            block: nonzero(block.into(), "block")?,
            shared_mem_bytes: 0,
            cluster: None,
            cooperative: false,
            programmatic_stream_serialization: false,
            priority: None,
        })
    }

    /// This configuration with `bytes` of dynamic shared memory per block.
    pub fn with_shared_mem(self, bytes: u32) -> LaunchConfig {
        LaunchConfig {
            shared_mem_bytes: bytes,
            ..self
        }
    }

    /// This configuration in clusters of `dims` blocks
    /// (`cudaLaunchAttributeClusterDimension`): a zero extent, or a grid that is not a
    /// multiple of the cluster, is [`Error::InvalidArgument`].
    ///
    /// ```
    /// # fn main() -> @CRATE@::Result<()> {
    /// let c = @CRATE@::LaunchConfig::new(8, 128)?;
    /// assert!(c.with_cluster(2).is_ok());
    /// assert!(c.with_cluster(3).is_err()); // 8 blocks are not clusters of 3
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaLaunchAttributeClusterDimension")]
    pub fn with_cluster(self, dims: impl Into<Dim3>) -> Result<LaunchConfig> {
        let c = nonzero(dims.into(), "cluster")?;
        let g = self.grid;
        if g.x % c.x != 0 || g.y % c.y != 0 || g.z % c.z != 0 {
            return Err(Error::InvalidArgument(format!(
                "a grid of {} x {} x {} is not a whole number of clusters of {} x {} x {}",
                g.x, g.y, g.z, c.x, c.y, c.z
            )));
        }
        Ok(LaunchConfig {
            cluster: Some(c),
            ..self
        })
    }

    /// This configuration as a cooperative launch or not (`cudaLaunchAttributeCooperative`).
    #[doc(alias = "cudaLaunchAttributeCooperative")]
    pub fn with_cooperative(self, cooperative: bool) -> LaunchConfig {
        LaunchConfig {
            cooperative,
            ..self
        }
    }

    /// This configuration with programmatic stream serialization on or off
    /// (`cudaLaunchAttributeProgrammaticStreamSerialization`).
    #[doc(alias = "cudaLaunchAttributeProgrammaticStreamSerialization")]
    pub fn with_programmatic_stream_serialization(self, on: bool) -> LaunchConfig {
        LaunchConfig {
            programmatic_stream_serialization: on,
            ..self
        }
    }

    /// This configuration with a launch priority (`cudaLaunchAttributePriority`).
    #[doc(alias = "cudaLaunchAttributePriority")]
    pub fn with_priority(self, priority: i32) -> LaunchConfig {
        LaunchConfig {
            priority: Some(priority),
            ..self
        }
    }

    /// One thread per element of `n`, in blocks of 256 (a 1-D grid of `ceil(n / 256)`
    /// blocks, at least one).
    pub fn for_num_elems(n: u32) -> LaunchConfig {
        LaunchConfig {
            grid: Dim3::from(n.div_ceil(256).max(1)),
            block: Dim3::from(256),
            shared_mem_bytes: 0,
            cluster: None,
            cooperative: false,
            programmatic_stream_serialization: false,
            priority: None,
        }
    }

    /// Checks the extents (as [`LaunchConfig::new`] and [`LaunchConfig::with_cluster`]).
    fn check(&self) -> Result<()> {
        nonzero(self.grid, "grid")?;
        nonzero(self.block, "block")?;
        if let Some(c) = self.cluster {
            LaunchConfig {
                cluster: None,
                ..*self
            }
            .with_cluster(c)?;
        }
        Ok(())
    }

    /// The launch attributes this configuration sets, in a fixed array and its length.
    fn attributes(&self) -> ([sys::cudaLaunchAttribute; 4], usize) {
        let mut attrs = [sys::cudaLaunchAttribute::default(); 4];
        let mut n = 0;
        if let Some(c) = self.cluster {
            attrs[n].id = sys::cudaLaunchAttributeID::CLUSTER_DIMENSION;
            attrs[n].val.clusterDim.x = c.x;
            attrs[n].val.clusterDim.y = c.y;
            attrs[n].val.clusterDim.z = c.z;
            n += 1;
        }
        if self.cooperative {
            attrs[n].id = sys::cudaLaunchAttributeID::COOPERATIVE;
            attrs[n].val.cooperative = 1;
            n += 1;
        }
        if self.programmatic_stream_serialization {
            attrs[n].id = sys::cudaLaunchAttributeID::PROGRAMMATIC_STREAM_SERIALIZATION;
            attrs[n].val.programmaticStreamSerializationAllowed = 1;
            n += 1;
        }
        if let Some(p) = self.priority {
            attrs[n].id = sys::cudaLaunchAttributeID::PRIORITY;
            attrs[n].val.priority = p;
            n += 1;
        }
        (attrs, n)
    }

    /// The same configuration with another grid (unchecked).
    fn with_grid(self, grid: Dim3) -> LaunchConfig {
        LaunchConfig { grid, ..self }
    }

    /// The same configuration with another block (unchecked: for [`Launch::new`]).
    fn with_block(self, block: Dim3) -> LaunchConfig {
        LaunchConfig { block, ..self }
    }

    /// The `cudaLaunchConfig_t` of this configuration on `stream`, pointing at the first `n`
    /// of `attrs` (which must outlive its use).
    fn raw(
        &self,
        stream: sys::cudaStream_t,
        attrs: &mut [sys::cudaLaunchAttribute; 4],
        n: usize,
    ) -> sys::cudaLaunchConfig_t {
        sys::cudaLaunchConfig_t {
            gridDim: self.grid.raw(),
            blockDim: self.block.raw(),
            dynamicSmemBytes: self.shared_mem_bytes as usize,
            stream,
            attrs: attrs.as_mut_ptr(),
            numAttrs: n as _,
        }
    }

    /// Whether a launch attribute is set.
    fn has_attributes(&self) -> bool {
        self.cluster.is_some()
            || self.cooperative
            || self.programmatic_stream_serialization
            || self.priority.is_some()
    }
}

/// A value that can be a kernel argument: it gives the address of the bytes the kernel
/// receives for it.
///
/// Implemented for every [`DeviceCopy`] value (scalars, arrays, `#[repr(C)]` records the
/// user marked), and for device memory (the kernel receives its device address as a
/// pointer parameter): [`DeviceBuffer`], [`DeviceSlice`], [`DeviceSliceMut`],
/// [`ManagedBuffer`], and texture and surface objects (a 64-bit handle).
///
/// # Safety
/// `arg_ptr` returns the address of [`arg_size`](KernelArg::arg_size) readable bytes that
/// are the argument's value as the kernel's parameter, valid while `self` is borrowed.
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::{DeviceBuffer, DeviceCopy, Stream};
/// /// A record passed by value (`struct Params { float scale; unsigned n; }` in CUDA C).
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Params {
///     scale: f32,
///     n: u32,
/// }
/// // SAFETY: plain data of two 4-byte fields, no padding; every bit pattern is a value.
/// unsafe impl DeviceCopy for Params {}
/// # let kernel = @CRATE@::Module::from_file("kernels.cubin")?.kernel("kernel")?;
/// let stream = Stream::non_blocking()?;
/// let data = DeviceBuffer::<f32>::zeroed(1024, &stream)?;
/// let params = Params { scale: 2.0, n: 1024 };
/// // SAFETY: the kernel takes (float* data, Params params) and touches `n` elements.
/// unsafe { stream.launch(&kernel).grid(4).block(256).arg(&data).arg(&params).run()? };
/// # Ok(()) }
/// ```
pub unsafe trait KernelArg {
    /// The address of the argument's value.
    fn arg_ptr(&self) -> *mut c_void;

    /// The size of the argument's value, bytes: what the launch check compares with the
    /// kernel's parameter ([`Kernel::params`]).
    fn arg_size(&self) -> usize;

    /// The crate's memory behind the argument (device buffers and views of them), whose
    /// bookkeeping a launch updates: a buffer used by a kernel on another stream is freed
    /// after the kernel; one used by captured launches is kept by the graph.
    #[doc(hidden)]
    #[inline]
    fn tracked_memory(&self) -> Option<TrackedMemory<'_>> {
        None
    }
}

/// The crate's memory behind a kernel argument (see [`KernelArg::tracked_memory`]).
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct TrackedMemory<'a>(&'a Life);

impl<'a> TrackedMemory<'a> {
    /// The resource behind an argument, as the gate records it.
    pub(crate) fn of(life: &'a Life) -> TrackedMemory<'a> {
        TrackedMemory(life)
    }
}

// SAFETY: the value itself is the argument.
unsafe impl<T: DeviceCopy> KernelArg for T {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        (self as *const T).cast_mut().cast()
    }

    #[inline]
    fn arg_size(&self) -> usize {
        std::mem::size_of::<T>()
    }
}

// SAFETY: a `bool` is one byte holding 0 or 1, as C++'s `bool` parameter; the value itself
// is the argument (the device only reads it, so no invalid bit pattern can come back).
unsafe impl KernelArg for bool {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        (self as *const bool).cast_mut().cast()
    }

    #[inline]
    fn arg_size(&self) -> usize {
        std::mem::size_of::<bool>()
    }
}

/// The size of a device address parameter.
const POINTER: usize = std::mem::size_of::<*mut c_void>();

// SAFETY: the buffer's pointer field holds the device address the kernel receives.
unsafe impl<T: DeviceCopy> KernelArg for DeviceBuffer<T> {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        DeviceBuffer::arg_ptr(self)
    }

    #[inline]
    fn arg_size(&self) -> usize {
        POINTER
    }

    #[inline]
    fn tracked_memory(&self) -> Option<TrackedMemory<'_>> {
        Some(TrackedMemory(self.life()))
    }
}

// SAFETY: as for `DeviceBuffer`.
unsafe impl<T: DeviceCopy> KernelArg for DeviceSlice<'_, T> {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        DeviceSlice::arg_ptr(self)
    }

    #[inline]
    fn arg_size(&self) -> usize {
        POINTER
    }

    #[inline]
    fn tracked_memory(&self) -> Option<TrackedMemory<'_>> {
        self.life().map(TrackedMemory)
    }
}

// SAFETY: as for `DeviceBuffer`.
unsafe impl<T: DeviceCopy> KernelArg for DeviceSliceMut<'_, T> {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        DeviceSliceMut::arg_ptr(self)
    }

    #[inline]
    fn arg_size(&self) -> usize {
        POINTER
    }

    #[inline]
    fn tracked_memory(&self) -> Option<TrackedMemory<'_>> {
        self.life().map(TrackedMemory)
    }
}

// SAFETY: as for `DeviceBuffer` (the unified address).
unsafe impl<T: DeviceCopy> KernelArg for ManagedBuffer<T> {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        ManagedBuffer::arg_ptr(self)
    }

    #[inline]
    fn arg_size(&self) -> usize {
        POINTER
    }

    #[inline]
    fn tracked_memory(&self) -> Option<TrackedMemory<'_>> {
        Some(TrackedMemory(self.life()))
    }
}

// SAFETY: as for `DeviceBuffer`; the gate refuses a launch outside the buffer's capture.
unsafe impl<T: DeviceCopy> KernelArg for GraphBuffer<'_, T> {
    #[inline]
    fn arg_ptr(&self) -> *mut c_void {
        GraphBuffer::arg_ptr(self)
    }

    #[inline]
    fn arg_size(&self) -> usize {
        POINTER
    }

    #[inline]
    fn tracked_memory(&self) -> Option<TrackedMemory<'_>> {
        Some(TrackedMemory(self.life()))
    }
}

/// A list of kernel arguments at once: `()` and tuples of up to 12 references to
/// [`KernelArg`]s, in the kernel's parameter order (`(&a, &b, &c, &n)`).
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::{DeviceBuffer, LaunchConfig, Stream};
/// # let kernel = @CRATE@::Module::from_file("kernels.cubin")?.kernel("kernel")?;
/// let stream = Stream::non_blocking()?;
/// let (a, b) = (DeviceBuffer::<f32>::zeroed(256, &stream)?, DeviceBuffer::<f32>::zeroed(256, &stream)?);
/// let n = 256u32;
/// // SAFETY: the kernel takes (const float*, float*, unsigned) and touches `n` elements.
/// unsafe { kernel.launch(&stream, LaunchConfig::for_num_elems(n), (&a, &b, &n))? };
/// # Ok(()) }
/// ```
pub trait KernelArgs<'a> {
    /// Appends the arguments to `launch`, in order.
    fn push_onto(self, launch: Launch<'a>) -> Launch<'a>;
}

impl<'a> KernelArgs<'a> for () {
    #[inline]
    fn push_onto(self, launch: Launch<'a>) -> Launch<'a> {
        launch
    }
}

macro_rules! kernel_args_tuple {
    ($($t:ident $v:ident),+) => {
        impl<'a, $($t: KernelArg + ?Sized),+> KernelArgs<'a> for ($(&'a $t,)+) {
            #[inline]
            fn push_onto(self, launch: Launch<'a>) -> Launch<'a> {
                let ($($v,)+) = self;
                launch$(.arg($v))+
            }
        }
    };
}
kernel_args_tuple!(A a);
kernel_args_tuple!(A a, B b);
kernel_args_tuple!(A a, B b, C c);
kernel_args_tuple!(A a, B b, C c, D d);
kernel_args_tuple!(A a, B b, C c, D d, E e);
kernel_args_tuple!(A a, B b, C c, D d, E e, F f);
kernel_args_tuple!(A a, B b, C c, D d, E e, F f, G g);
kernel_args_tuple!(A a, B b, C c, D d, E e, F f, G g, H h);
kernel_args_tuple!(A a, B b, C c, D d, E e, F f, G g, H h, I i);
kernel_args_tuple!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j);
kernel_args_tuple!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k);
kernel_args_tuple!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l);

/// Arguments stored inline, without allocating, up to this many; more spill to a `Vec`.
pub const INLINE_ARGS: usize = 16;

/// The `void*` list of a launch, with the size of each argument (for the launch check):
/// inline and uninitialised past `len` (nothing is zeroed for a launch), spilled to the heap
/// past [`INLINE_ARGS`].
struct ArgList {
    inline: [MaybeUninit<*mut c_void>; INLINE_ARGS],
    /// Sizes in bytes, saturated at `u16::MAX` (a kernel parameter is at most 32 764 bytes,
    /// so a saturated size never matches one).
    inline_sizes: [MaybeUninit<u16>; INLINE_ARGS],
    len: usize,
    spill: Option<Box<Spill>>,
}

/// The arguments of a launch with more than [`INLINE_ARGS`], all of them.
struct Spill {
    ptrs: Vec<*mut c_void>,
    sizes: Vec<u16>,
}

impl ArgList {
    #[inline]
    fn new() -> ArgList {
        ArgList {
            inline: [MaybeUninit::uninit(); INLINE_ARGS],
            inline_sizes: [MaybeUninit::uninit(); INLINE_ARGS],
            len: 0,
            spill: None,
        }
    }

    #[inline]
    fn push(&mut self, p: *mut c_void, size: usize) {
        let size = u16::try_from(size).unwrap_or(u16::MAX);
        if self.len < INLINE_ARGS {
            self.inline[self.len] = MaybeUninit::new(p);
            self.inline_sizes[self.len] = MaybeUninit::new(size);
        } else {
            self.push_spilled(p, size);
        }
        self.len += 1;
    }

    #[cold]
    fn push_spilled(&mut self, p: *mut c_void, size: u16) {
        let (ptrs, sizes) = (self.inline_ptrs().to_vec(), self.inline_sizes().to_vec());
        let spill = self
            .spill
            .get_or_insert_with(|| Box::new(Spill { ptrs, sizes }));
        spill.ptrs.push(p);
        spill.sizes.push(size);
    }

    /// The inline entries written so far.
    #[inline]
    fn inline_ptrs(&self) -> &[*mut c_void] {
        let n = self.len.min(INLINE_ARGS);
        // SAFETY: the first `n` entries were written by `push` (`MaybeUninit<T>` has `T`'s
        // layout).
        unsafe { std::slice::from_raw_parts(self.inline.as_ptr().cast(), n) }
    }

    #[inline]
    fn inline_sizes(&self) -> &[u16] {
        let n = self.len.min(INLINE_ARGS);
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts(self.inline_sizes.as_ptr().cast(), n) }
    }

    #[inline]
    fn as_slice(&self) -> &[*mut c_void] {
        match &self.spill {
            None => self.inline_ptrs(),
            Some(s) => &s.ptrs,
        }
    }

    #[inline]
    fn sizes(&self) -> &[u16] {
        match &self.spill {
            None => self.inline_sizes(),
            Some(s) => &s.sizes,
        }
    }

    /// The list as CUDA takes it (`void**`); only the first `len` entries are initialised.
    #[inline]
    fn as_mut_ptr(&mut self) -> *mut *mut c_void {
        match &mut self.spill {
            None => self.inline.as_mut_ptr().cast(),
            Some(s) => s.ptrs.as_mut_ptr(),
        }
    }
}

/// The crate's memory among a launch's arguments: inline for the first few (no allocation
/// for a launch), spilled to a `Vec` past them.
struct TrackedList<'a> {
    inline: [Option<&'a Life>; INLINE_TRACKED],
    spill: Vec<&'a Life>,
}

/// Buffers among a launch's arguments kept inline.
const INLINE_TRACKED: usize = 4;

impl<'a> TrackedList<'a> {
    #[inline]
    fn new() -> TrackedList<'a> {
        TrackedList {
            inline: [None; INLINE_TRACKED],
            spill: Vec::new(),
        }
    }

    #[inline]
    fn push(&mut self, m: &'a Life) {
        match self.inline.iter_mut().find(|slot| slot.is_none()) {
            Some(slot) => *slot = Some(m),
            None => self.spill.push(m),
        }
    }

    #[inline]
    fn iter(&self) -> impl Iterator<Item = &'a Life> + Clone + '_ {
        self.inline
            .iter()
            .map_while(|m| *m)
            .chain(self.spill.iter().copied())
    }
}

/// A kernel launch being built (see the [module documentation](self)). The arguments are
/// borrowed until the launch is sent.
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::{DeviceBuffer, Stream};
/// # let kernel = @CRATE@::Module::from_file("kernels.cubin")?.kernel("kernel")?;
/// let stream = Stream::non_blocking()?;
/// let out = DeviceBuffer::<u32>::zeroed(1 << 16, &stream)?;
/// let n = 1u32 << 16;
/// // SAFETY: the kernel takes (unsigned* out, unsigned n), one cluster of 2 blocks at a time.
/// unsafe {
///     stream
///         .launch(&kernel)
///         .grid(256)
///         .block(256)
///         .cluster(2)
///         .args((&out, &n))
///         .run()?
/// };
/// # Ok(()) }
/// ```
#[must_use = "a launch does nothing until `run`"]
pub struct Launch<'a> {
    kernel: &'a Kernel,
    stream: Option<&'a Stream>,
    /// Grid, block, shared memory and attributes.
    config: LaunchConfig,
    args: ArgList,
    /// The crate's memory among the arguments (see [`KernelArg::tracked_memory`]).
    memory: TrackedList<'a>,
}

impl<'a> Launch<'a> {
    /// A launch of `kernel` on the legacy default stream, with a 1 × 1 × 1 grid and block,
    /// no shared memory and no arguments yet.
    #[inline]
    pub fn new(kernel: &'a Kernel) -> Launch<'a> {
        Launch {
            kernel,
            stream: None,
            config: LaunchConfig::for_num_elems(1).with_block(Dim3::new(1, 1, 1)),
            args: ArgList::new(),
            memory: TrackedList::new(),
        }
    }

    /// The stream to launch on.
    #[inline]
    pub fn stream(mut self, stream: &'a Stream) -> Self {
        self.stream = Some(stream);
        self
    }

    /// Blocks in the grid.
    #[inline]
    pub fn grid(mut self, grid: impl Into<Dim3>) -> Self {
        self.config.grid = grid.into();
        self
    }

    /// Threads in a block.
    #[inline]
    pub fn block(mut self, block: impl Into<Dim3>) -> Self {
        self.config.block = block.into();
        self
    }

    /// Dynamic shared memory per block, bytes.
    #[inline]
    pub fn shared_mem(mut self, bytes: u32) -> Self {
        self.config.shared_mem_bytes = bytes;
        self
    }

    /// Grid, block, shared memory and launch attributes at once (replacing what was set).
    #[inline]
    pub fn config(mut self, config: LaunchConfig) -> Self {
        self.config = config;
        self
    }

    /// The configuration set so far.
    pub fn launch_config(&self) -> &LaunchConfig {
        &self.config
    }

    /// The next argument, in the kernel's parameter order.
    #[inline]
    pub fn arg<A: KernelArg + ?Sized>(mut self, arg: &'a A) -> Self {
        self.args.push(arg.arg_ptr(), arg.arg_size());
        if let Some(TrackedMemory(m)) = arg.tracked_memory() {
            self.memory.push(m);
        }
        self
    }

    /// Several arguments at once, in order (a tuple of references; see [`KernelArgs`]).
    #[inline]
    pub fn args(self, args: impl KernelArgs<'a>) -> Self {
        args.push_onto(self)
    }

    /// Thread-block clusters of this shape (`cudaLaunchAttributeClusterDimension`; compute
    /// capability 9.0 and later; the grid must be a multiple of it).
    #[inline]
    pub fn cluster(mut self, dims: impl Into<Dim3>) -> Self {
        self.config.cluster = Some(dims.into());
        self
    }

    /// A cooperative launch (`cudaLaunchAttributeCooperative`): all blocks are resident at
    /// once, so they can synchronise grid-wide.
    #[inline]
    pub fn cooperative(mut self, cooperative: bool) -> Self {
        self.config.cooperative = cooperative;
        self
    }

    /// The launch's priority (`cudaLaunchAttributePriority`).
    #[inline]
    pub fn priority(mut self, priority: i32) -> Self {
        self.config.priority = Some(priority);
        self
    }

    /// Programmatic stream serialization
    /// (`cudaLaunchAttributeProgrammaticStreamSerialization`; see
    /// [`LaunchConfig::programmatic_stream_serialization`]).
    #[doc(alias = "cudaLaunchAttributeProgrammaticStreamSerialization")]
    #[inline]
    pub fn programmatic_stream_serialization(mut self, on: bool) -> Self {
        self.config.programmatic_stream_serialization = on;
        self
    }

    /// The argument list as CUDA receives it: one pointer to each argument's value, in
    /// order.
    pub fn arg_pointers(&self) -> &[*mut c_void] {
        self.args.as_slice()
    }

    /// The size of each argument, bytes, in order: what [`run`](Launch::run) compares with
    /// the kernel's parameters (a size past `u16::MAX` is given as `u16::MAX`: no kernel
    /// parameter is that large).
    pub fn arg_sizes(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.args.sizes().iter().map(|s| usize::from(*s))
    }

    /// Whether a launch attribute is set (then the launch goes through
    /// `cudaLaunchKernelExC`).
    pub fn has_attributes(&self) -> bool {
        self.config.has_attributes()
    }

    /// Sends the launch: `cudaLaunchKernel`, or `cudaLaunchKernelExC` when a cluster shape,
    /// cooperative launch or priority was set. Returns when the launch is enqueued.
    ///
    /// First the arguments are checked against the kernel's parameters where the runtime
    /// describes them ([`Kernel::params`], read once per kernel): a different number of
    /// arguments, or one of another size than its parameter, is [`Error::InvalidArgument`]
    /// and nothing is launched.
    ///
    /// # Safety
    /// The arguments match the kernel's parameters in number, order and type (a device
    /// buffer for a pointer parameter of its element type, a scalar of the parameter's
    /// exact type); every memory access the kernel makes with them is in bounds, and ordered
    /// (by the stream, or events) after the work that produces what it reads and before the
    /// work that uses what it writes; no host reference to managed or mapped memory the
    /// kernel writes is used until the stream is synchronised.
    ///
    /// The launch runs with the stream's device current. Buffers among the arguments are
    /// freed after the kernel, whichever stream they belong to, and a capture keeps them
    /// (and the kernel's module) alive for the graph.
    #[doc(alias = "cudaLaunchKernel")]
    #[doc(alias = "cudaLaunchKernelExC")]
    #[inline]
    pub unsafe fn run(mut self) -> Result<()> {
        self.config.check()?;
        self.kernel.check_args(self.args.sizes())?;
        // SAFETY: the caller's promise, passed on.
        unsafe { self.enqueue() }
    }

    /// [`run`](Launch::run) without comparing the arguments with the kernel's parameters.
    ///
    /// # Safety
    /// As [`Launch::run`].
    #[doc(alias = "cudaLaunchKernel")]
    #[doc(alias = "cudaLaunchKernelExC")]
    #[inline]
    pub unsafe fn run_unchecked(mut self) -> Result<()> {
        self.config.check()?;
        // SAFETY: the caller's promise, passed on.
        unsafe { self.enqueue() }
    }

    /// Sends the launch on its stream with the stream's device current, and records what
    /// it does with the crate's memory (see [`Launch::run`]).
    ///
    /// # Safety
    /// As [`Launch::run`].
    #[inline]
    unsafe fn enqueue(&mut self) -> Result<()> {
        let legacy;
        let stream = match self.stream {
            Some(s) => s,
            None => {
                legacy = Stream::legacy();
                &legacy
            }
        };
        let device = match stream.ordinal() {
            Some(d) => d,
            None => crate::lifetime::current::current_ordinal()?,
        };
        let memory = std::mem::replace(&mut self.memory, TrackedList::new());
        let kernel: &Kernel = self.kernel;
        // The arguments' memory is written (or may be); the kernel's module is used too (a
        // capture makes the graph hold it).
        let parts = memory
            .iter()
            .map(|life| Part::whole(life, Access::Write))
            .chain(
                kernel
                    ._module
                    .iter()
                    .map(|m| Part::whole(&m.life, Access::Read)),
            );
        lifetime::enqueue_with(
            stream.queue(),
            device,
            parts,
            // SAFETY: the caller's promise, passed on.
            || unsafe { self.send(stream.as_raw()) },
        )
    }

    /// `cudaLaunchKernel` or `cudaLaunchKernelExC` on `stream`.
    ///
    /// # Safety
    /// As [`Launch::run`].
    #[inline]
    unsafe fn send(&mut self, stream: sys::cudaStream_t) -> Result<()> {
        let func = self.kernel.func();
        let args = self.args.as_mut_ptr();
        if !self.has_attributes() {
            // SAFETY: the caller's promise about the arguments; the kernel and stream are
            // alive for the call; CUDA copies the argument values before returning.
            return status(unsafe {
                sys::cudaLaunchKernel(
                    func,
                    self.config.grid.raw(),
                    self.config.block.raw(),
                    args,
                    self.config.shared_mem_bytes as usize,
                    stream,
                )
            });
        }
        let (mut attrs, n) = self.config.attributes();
        let config = self.config.raw(stream, &mut attrs, n);
        // SAFETY: as above; the configuration and its attributes live for the call.
        status(unsafe { sys::cudaLaunchKernelExC(&config, func, args) })
    }

    /// **hold**: makes `graph` keep the crate's memory among the arguments, and the kernel's
    /// module, alive (for a graph kernel node).
    pub(crate) fn hold_in(&self, graph: sys::cudaGraph_t) -> Result<()> {
        for item in self.holdings()? {
            crate::lifetime::holdings::hold_in_graph(graph, item);
        }
        Ok(())
    }

    /// **hold**: what a graph or executable graph holds to keep the crate's memory among the
    /// arguments, and the kernel's module, alive; an error for memory no graph may hold (a
    /// graph allocation, a texture or surface object).
    pub(crate) fn holdings(&self) -> Result<Vec<Held>> {
        let mut items = Vec::new();
        for life in self.memory.iter() {
            items.push(life.hold()?);
        }
        if let Some(module) = &self.kernel._module {
            items.push(module.life.hold()?);
        }
        Ok(items)
    }

    /// The `cudaKernelNodeParams` of this launch (for a graph kernel node). Its argument
    /// pointers borrow this launch's arguments.
    pub(crate) fn node_params(&mut self) -> Result<sys::cudaKernelNodeParams> {
        self.kernel.check_args(self.args.sizes())?;
        if self.has_attributes() {
            return Err(Error::InvalidArgument(
                "cluster, cooperative, programmatic serialization and priority attributes are \
                 not applied to graph kernel nodes; launch the kernel in a captured stream \
                 instead"
                    .into(),
            ));
        }
        self.config.check()?;
        Ok(sys::cudaKernelNodeParams {
            func: self.kernel.raw.0.cast(),
            gridDim: self.config.grid.raw(),
            blockDim: self.config.block.raw(),
            sharedMemBytes: self.config.shared_mem_bytes,
            kernelParams: self.args.as_mut_ptr(),
            extra: std::ptr::null_mut(),
        })
    }
}

impl Stream {
    /// A launch of `kernel` on this stream (see [`Launch`]).
    #[inline]
    pub fn launch<'a>(&'a self, kernel: &'a Kernel) -> Launch<'a> {
        Launch::new(kernel).stream(self)
    }
}

/// The extent checks of device code images passed by bytes: CUDA reads an image as far as
/// its own headers say, so every part they describe must lie within the bytes given.
mod image {
    /// `Ok` when every table, section and segment (ELF cubin) or every entry (fatbin) the
    /// image's headers describe lies within `image`; otherwise what does not.
    pub(super) fn check(image: &[u8]) -> Result<(), String> {
        if image.starts_with(super::ELF_MAGIC) {
            elf(image)
        } else {
            fatbin(image)
        }
    }

    fn u16_at(b: &[u8], at: usize) -> Result<u64, String> {
        b.get(at..at + 2)
            .map(|s| u64::from(u16::from_le_bytes([s[0], s[1]])))
            .ok_or_else(|| format!("the header field at {at} is past the end"))
    }

    fn u32_at(b: &[u8], at: usize) -> Result<u64, String> {
        b.get(at..at + 4)
            .map(|s| u64::from(u32::from_le_bytes([s[0], s[1], s[2], s[3]])))
            .ok_or_else(|| format!("the header field at {at} is past the end"))
    }

    fn u64_at(b: &[u8], at: usize) -> Result<u64, String> {
        b.get(at..at + 8)
            .map(|s| u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]]))
            .ok_or_else(|| format!("the header field at {at} is past the end"))
    }

    /// Fails unless `[start, start + len)` lies within `total` bytes.
    fn within(what: &str, start: u64, len: u64, total: usize) -> Result<(), String> {
        match start.checked_add(len) {
            Some(end) if end <= total as u64 => Ok(()),
            _ => Err(format!(
                "its {what} ({len} bytes at offset {start}) ends past the image's {total} bytes"
            )),
        }
    }

    /// `n` table entries of `size` bytes at `offset`: bounds-checked, as byte offsets.
    fn table(
        what: &str,
        offset: u64,
        n: u64,
        size: u64,
        total: usize,
    ) -> Result<Vec<usize>, String> {
        let bytes = n
            .checked_mul(size)
            .ok_or_else(|| format!("its {what} overflows"))?;
        within(what, offset, bytes, total)?;
        Ok((0..n).map(|i| (offset + i * size) as usize).collect())
    }

    fn elf(b: &[u8]) -> Result<(), String> {
        if b.len() < 64 {
            return Err("shorter than an ELF64 header".into());
        }
        if b[4] != 2 || b[5] != 1 {
            return Err("not a little-endian 64-bit ELF file".into());
        }
        let (phoff, shoff) = (u64_at(b, 32)?, u64_at(b, 40)?);
        let (phentsize, phnum) = (u16_at(b, 54)?, u16_at(b, 56)?);
        let (shentsize, mut shnum) = (u16_at(b, 58)?, u16_at(b, 60)?);
        if phnum > 0 && phentsize < 56 {
            return Err(format!("program headers of {phentsize} bytes"));
        }
        if shoff != 0 && shentsize < 64 {
            return Err(format!("section headers of {shentsize} bytes"));
        }
        if shnum == 0 && shoff != 0 {
            // Extended numbering: the count is section 0's `sh_size`.
            within("first section header", shoff, 64, b.len())?;
            shnum = u64_at(b, shoff as usize + 32)?;
        }
        for at in table("program header table", phoff, phnum, phentsize, b.len())? {
            let (offset, size) = (u64_at(b, at + 8)?, u64_at(b, at + 32)?);
            within("segment", offset, size, b.len())?;
        }
        if shoff != 0 {
            for at in table("section header table", shoff, shnum, shentsize, b.len())? {
                const NOBITS: u64 = 8;
                if u32_at(b, at + 4)? != NOBITS {
                    let (offset, size) = (u64_at(b, at + 24)?, u64_at(b, at + 32)?);
                    within("section", offset, size, b.len())?;
                }
            }
        }
        Ok(())
    }

    /// The kind of a fatbin entry holding a cubin (1 is PTX).
    const CUBIN_ENTRY: u64 = 2;

    fn fatbin(b: &[u8]) -> Result<(), String> {
        let header = u16_at(b, 6)?;
        let size = u64_at(b, 8)?;
        if header < 16 {
            return Err(format!("a fatbin header of {header} bytes"));
        }
        within("fatbin", header, size, b.len())?;
        let end = header + size;
        let mut at = header;
        while at < end {
            if end - at < 16 {
                return Err(format!("a truncated fatbin entry header at offset {at}"));
            }
            let kind = u16_at(b, at as usize)?;
            let entry_header = u32_at(b, at as usize + 4)?;
            let payload = u64_at(b, at as usize + 8)?;
            let total = entry_header
                .checked_add(payload)
                .filter(|t| *t >= 16)
                .ok_or_else(|| format!("a fatbin entry of impossible size at offset {at}"))?;
            let next = match at.checked_add(total) {
                Some(next) if next <= end => next,
                _ => {
                    return Err(format!(
                        "a fatbin entry at offset {at} ends past the fatbin"
                    ))
                }
            };
            // A cubin entry is read by its own ELF headers: they must describe only the
            // entry's payload (a compressed one does not start with the ELF magic).
            let cubin = &b[(at + entry_header) as usize..next as usize];
            if kind == CUBIN_ENTRY && cubin.starts_with(super::ELF_MAGIC) {
                elf(cubin).map_err(|why| {
                    format!("the cubin of the fatbin entry at offset {at}: {why}")
                })?;
            }
            at = next;
        }
        Ok(())
    }

    #[cfg(test)]
    mod tests {
        use super::check;

        fn elf(shoff: u64, shnum: u16, size: usize) -> Vec<u8> {
            let mut b = vec![0u8; size];
            b[..4].copy_from_slice(b"\x7fELF");
            b[4] = 2;
            b[5] = 1;
            b[40..48].copy_from_slice(&shoff.to_le_bytes());
            b[58..60].copy_from_slice(&64u16.to_le_bytes());
            b[60..62].copy_from_slice(&shnum.to_le_bytes());
            b
        }

        #[test]
        fn elf_tables_and_sections_must_fit() {
            assert!(check(&elf(64, 2, 64 + 128)).is_ok());
            assert!(check(&elf(64, 2, 64 + 127)).is_err(), "a cut section table");
            let mut b = elf(64, 1, 64 + 64 + 16);
            // Section 0: PROGBITS at offset 128, 32 bytes: 16 past the end.
            b[64 + 4..64 + 8].copy_from_slice(&1u32.to_le_bytes());
            b[64 + 24..64 + 32].copy_from_slice(&128u64.to_le_bytes());
            b[64 + 32..64 + 40].copy_from_slice(&32u64.to_le_bytes());
            assert!(check(&b).unwrap_err().contains("section"));
            b[64 + 4..64 + 8].copy_from_slice(&8u32.to_le_bytes());
            assert!(check(&b).is_ok(), "NOBITS takes no bytes");
            assert!(check(&elf(u64::MAX - 8, 2, 64)).is_err(), "overflow");
            assert!(check(b"\x7fELF").is_err());
        }

        #[test]
        fn fatbin_entries_must_fit() {
            let mut b = vec![0u8; 16 + 32];
            b[..4].copy_from_slice(&[0x50, 0xED, 0x55, 0xBA]);
            b[6..8].copy_from_slice(&16u16.to_le_bytes());
            b[8..16].copy_from_slice(&32u64.to_le_bytes());
            // One entry: a 16-byte header and 16 bytes of payload.
            b[16 + 4..16 + 8].copy_from_slice(&16u32.to_le_bytes());
            b[16 + 8..16 + 16].copy_from_slice(&16u64.to_le_bytes());
            assert!(check(&b).is_ok());
            assert!(check(&b[..40]).is_err(), "a cut fatbin");
            b[16 + 8..16 + 16].copy_from_slice(&17u64.to_le_bytes());
            assert!(check(&b).is_err(), "an entry past the fatbin");
        }

        #[test]
        fn a_cubin_inside_a_fatbin_must_fit_its_entry() {
            // One cubin entry whose ELF has a section table of 2 entries at offset 64: 128
            // bytes past its 64-byte header, in a payload of `payload` bytes.
            let fatbin = |payload: usize| {
                let mut b = vec![0u8; 16 + 16 + payload];
                b[..4].copy_from_slice(&[0x50, 0xED, 0x55, 0xBA]);
                b[6..8].copy_from_slice(&16u16.to_le_bytes());
                b[8..16].copy_from_slice(&((16 + payload) as u64).to_le_bytes());
                b[16..18].copy_from_slice(&2u16.to_le_bytes());
                b[16 + 4..16 + 8].copy_from_slice(&16u32.to_le_bytes());
                b[16 + 8..16 + 16].copy_from_slice(&(payload as u64).to_le_bytes());
                let e = &mut b[32..];
                e[..4].copy_from_slice(b"\x7fELF");
                e[4] = 2;
                e[5] = 1;
                e[40..48].copy_from_slice(&64u64.to_le_bytes());
                e[58..60].copy_from_slice(&64u16.to_le_bytes());
                e[60..62].copy_from_slice(&2u16.to_le_bytes());
                b
            };
            assert!(check(&fatbin(64 + 128)).is_ok());
            let short = fatbin(64 + 64);
            let why = check(&short).expect_err("the cubin's section table ends past its entry");
            assert!(why.contains("cubin of the fatbin entry"), "{why}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dummy_kernel() -> Kernel {
        // SAFETY: never launched; the handle is only stored.
        unsafe { Kernel::from_raw(sys::cudaKernel_t::null()) }
    }

    #[test]
    fn arguments_are_pointers_to_each_value_in_order() {
        let kernel = dummy_kernel();
        let stream = Stream::legacy();
        let buf = DeviceBuffer::<f32>::new(0, &stream).expect("empty buffer");
        let n = 7u32;
        let scale = 2.5f64;
        let pair = [1u8, 2];
        let launch = stream
            .launch(&kernel)
            .grid(4)
            .block((32, 2))
            .arg(&buf)
            .arg(&n)
            .arg(&scale)
            .arg(&pair);
        let ptrs = launch.arg_pointers();
        assert_eq!(ptrs.len(), 4);
        assert_eq!(ptrs[0], buf.arg_ptr());
        // SAFETY: each pointer is the address of the borrowed value.
        unsafe {
            assert_eq!(
                *ptrs[0].cast::<*mut f32>(),
                buf.as_device_ptr().as_raw().cast()
            );
            assert_eq!(*ptrs[1].cast::<u32>(), 7);
            assert_eq!(*ptrs[2].cast::<f64>(), 2.5);
            assert_eq!(*ptrs[3].cast::<[u8; 2]>(), [1, 2]);
        }
        assert!(!launch.has_attributes());
        let tupled = stream.launch(&kernel).args((&buf, &n, &scale, &pair));
        assert_eq!(tupled.arg_pointers(), ptrs);
        assert_eq!(launch.launch_config().grid, Dim3::new(4, 1, 1));
        assert_eq!(launch.launch_config().block, Dim3::new(32, 2, 1));
        let launch = launch.cluster(2).cooperative(true);
        assert!(launch.has_attributes());
        assert_eq!(launch.launch_config().cluster, Some(Dim3::new(2, 1, 1)));
        assert!(launch.launch_config().cooperative);
        let yes = true;
        let with_bool = stream.launch(&kernel).arg(&yes);
        assert_eq!(with_bool.arg_sizes().collect::<Vec<_>>(), [1]);
        // SAFETY: a pointer to the borrowed bool.
        assert_eq!(unsafe { *with_bool.arg_pointers()[0].cast::<u8>() }, 1);
    }

    #[test]
    fn more_than_the_inline_arguments_spill_in_order() {
        let kernel = dummy_kernel();
        let values: Vec<u64> = (0..40).collect();
        let mut launch = Launch::new(&kernel);
        for v in &values {
            launch = launch.arg(v);
        }
        let ptrs = launch.arg_pointers();
        assert_eq!(ptrs.len(), 40);
        for (i, p) in ptrs.iter().enumerate() {
            // SAFETY: pointers to the borrowed values.
            assert_eq!(unsafe { *p.cast::<u64>() }, i as u64);
        }
    }

    #[test]
    fn buffers_past_the_inline_ones_are_tracked_too() {
        let kernel = dummy_kernel();
        let stream = Stream::legacy();
        let buffers: Vec<DeviceBuffer<u8>> = (0..INLINE_TRACKED + 2)
            .map(|_| DeviceBuffer::new(0, &stream).expect("empty buffer"))
            .collect();
        let mut launch = Launch::new(&kernel);
        for b in &buffers {
            launch = launch.arg(b);
        }
        let n = 3u32;
        launch = launch.arg(&n);
        assert_eq!(launch.memory.iter().count(), buffers.len());
        assert_eq!(
            launch.arg_sizes().collect::<Vec<_>>().len(),
            buffers.len() + 1
        );
        assert_eq!(launch.arg_sizes().last(), Some(4));
    }

    #[test]
    fn launch_config_covers_every_element() {
        let c = LaunchConfig::for_num_elems(1000);
        assert_eq!((c.grid.x, c.block.x), (4, 256));
        assert_eq!(LaunchConfig::for_num_elems(0).grid.x, 1);
        assert_eq!(Dim3::from((2, 3)), Dim3::new(2, 3, 1));
    }

    #[test]
    fn launch_configs_refuse_zero_extents_and_partial_clusters() {
        for (grid, block) in [((0, 1, 1), (1, 1, 1)), ((1, 1, 1), (32, 0, 1))] {
            assert!(matches!(
                LaunchConfig::new(grid, block),
                Err(Error::InvalidArgument(_))
            ));
        }
        let c = LaunchConfig::new((8, 4), 128).expect("valid");
        assert_eq!((c.cluster, c.cooperative, c.priority), (None, false, None));
        assert!(!c.programmatic_stream_serialization && !c.has_attributes());
        assert!(c.with_cluster((3, 1)).is_err());
        assert!(c.with_cluster((2, 0)).is_err());
        let full = c
            .with_cluster((4, 2))
            .expect("8 x 4 is clusters of 4 x 2")
            .with_cooperative(true)
            .with_programmatic_stream_serialization(true)
            .with_priority(-1)
            .with_shared_mem(256);
        assert_eq!(full.cluster, Some(Dim3::new(4, 2, 1)));
        let (attrs, n) = full.attributes();
        assert_eq!(n, 4);
        assert_eq!(attrs[0].id, sys::cudaLaunchAttributeID::CLUSTER_DIMENSION);
        assert_eq!(
            attrs[2].id,
            sys::cudaLaunchAttributeID::PROGRAMMATIC_STREAM_SERIALIZATION
        );
        // A zero grid set through the public field is refused at launch, before CUDA.
        let kernel = dummy_kernel();
        let mut zero = c;
        zero.grid.x = 0;
        // SAFETY: refused before anything is launched.
        let r = unsafe { Launch::new(&kernel).config(zero).run_unchecked() };
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    }

    #[test]
    fn occupancy_respects_the_block_size_limit() {
        assert_eq!(block_limit(1024, 768, 0), 768);
        assert_eq!(block_limit(1024, 1024, 100), 100);
        assert_eq!(block_limit(1024, 512, 4096), 512);
        // A device of 2048 threads per SM, warps of 32: every size fits 2048 / size blocks.
        let blocks = |size: u32| Ok(2048 / size);
        let limited = best_block_size(2048, 32, block_limit(1024, 1024, 100), blocks);
        let (size, _) = limited.expect("search");
        assert!(size <= 100, "{size}");
        // With shared memory growing with the block, fewer blocks of a larger size fit.
        let by_smem = best_block_size(2048, 32, 1024, |size: u32| {
            let smem = size as usize * 64; // 64 bytes a thread, 96 KiB a multiprocessor
            Ok(((96 * 1024) / smem.max(1)).min(2048 / size as usize) as u32)
        })
        .expect("search");
        assert_eq!(by_smem.0 as usize * by_smem.1 as usize, 1536);
    }

    #[test]
    fn graph_nodes_refuse_launch_attributes() {
        let kernel = dummy_kernel();
        let mut launch = Launch::new(&kernel).cooperative(true);
        assert!(matches!(
            launch.node_params(),
            Err(Error::InvalidArgument(_))
        ));
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Module>();
        assert_send_sync::<Kernel>();
    }

    #[test]
    fn bad_images_are_refused_before_cuda() {
        assert!(matches!(
            Module::from_ptx("a\0b"),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            Module::from_file("a\0b"),
            Err(Error::InvalidArgument(_))
        ));
    }
}
