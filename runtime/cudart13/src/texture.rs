// Copied by `cargo xtask codegen` from the generator's codegen/template/src/texture.rs:
// edit the template, not this copy.

//! Textures and surfaces, as CuPy's `cupy.cuda.texture`: a [`ChannelFormat`]
//! (`ChannelFormatDescriptor`), a [`CudaArray`] (`CUDAarray`) with 2-D copies, a
//! [`ResourceDesc`] (`ResourceDescriptor`: an array, linear or pitched device memory), a
//! [`TextureDesc`] (`TextureDescriptor`), and [`TextureObject`] / [`SurfaceObject`] handles
//! to pass to kernels.
//!
//! Arrays and objects are owned and destroyed on drop; an object borrows the memory it
//! reads (`TextureObject<'a>`), so the memory cannot be freed while the object exists. A
//! launch with an object among its arguments is a use of the object and of its memory (the
//! gate records it, the crate-private `lifetime` module): the object is destroyed, and the memory freed, only
//! after such launches have run. An object cannot be captured into a graph (the graph would
//! outlive the borrow). All are `Send` and `Sync` (handles and values). Texture references (`cudaBindTexture`,
//! CuPy's `TextureReference`) were removed in CUDA 12 and are not offered.

use std::marker::PhantomData;

use crate::error::{status, Error, Result};
use crate::kernel::{KernelArg, TrackedMemory};
use crate::lifetime::{Kind, Life, Release};
use crate::memory::{bytes_of, AsDeviceSlice, DeviceCopy};
use crate::sys;

/// The kind of a texel's channels (`cudaChannelFormatKind`: signed, unsigned, float, …).
pub use crate::sys::cudaChannelFormatKind as ChannelFormatKind;
/// What a resource description names (`cudaResourceType`: array, linear, pitch 2-D, …).
pub use crate::sys::cudaResourceType as ResourceType;
/// How out-of-range coordinates are read (`cudaTextureAddressMode`: wrap, clamp, …).
pub use crate::sys::cudaTextureAddressMode as AddressMode;
/// Point or linear filtering (`cudaTextureFilterMode`).
pub use crate::sys::cudaTextureFilterMode as FilterMode;
/// Whether a texture read returns the element type or a normalised float
/// (`cudaTextureReadMode`).
pub use crate::sys::cudaTextureReadMode as ReadMode;
/// Texture and surface array flags (`cudaArraySurfaceLoadStore`, …), for [`CudaArray::new`].
pub use crate::sys::ArrayFlags;

/// The format of one texel: bits per channel (x, y, z, w) and their kind
/// (`cudaChannelFormatDesc`).
///
/// ```
/// use cudart13::texture::{ChannelFormat, ChannelFormatKind};
/// let rgba = ChannelFormat::of::<[f32; 4]>();
/// assert_eq!((rgba.bits(), rgba.kind()), ([32; 4], ChannelFormatKind::FLOAT));
/// assert_eq!(rgba.texel_bytes(), 16);
/// ```
#[derive(Clone, Copy)]
pub struct ChannelFormat(sys::cudaChannelFormatDesc);

impl ChannelFormat {
    /// Bits of each channel and their kind, as `cudaCreateChannelDesc`.
    pub fn new(x: i32, y: i32, z: i32, w: i32, kind: ChannelFormatKind) -> ChannelFormat {
        ChannelFormat(sys::cudaChannelFormatDesc {
            x,
            y,
            z,
            w,
            f: kind,
        })
    }

    /// The format of texels of type `T` (`f32`, `[f32; 4]`, `u8`, `[u16; 2]`, …).
    pub fn of<T: ChannelElement>() -> ChannelFormat {
        T::format()
    }

    /// Bits of the x, y, z and w channels.
    pub fn bits(&self) -> [i32; 4] {
        [self.0.x, self.0.y, self.0.z, self.0.w]
    }

    /// The channels' kind.
    pub fn kind(&self) -> ChannelFormatKind {
        self.0.f
    }

    /// Bytes per texel.
    pub fn texel_bytes(&self) -> usize {
        self.bits()
            .iter()
            .map(|b| (*b).max(0) as usize)
            .sum::<usize>()
            / 8
    }

    /// The raw record.
    pub fn as_raw(&self) -> sys::cudaChannelFormatDesc {
        self.0
    }
}

impl std::fmt::Debug for ChannelFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelFormat")
            .field("bits", &self.bits())
            .field("kind", &self.kind())
            .finish()
    }
}

impl PartialEq for ChannelFormat {
    fn eq(&self, other: &ChannelFormat) -> bool {
        self.bits() == other.bits() && self.kind() == other.kind()
    }
}

/// A texel type with a channel format.
///
/// ```
/// use cudart13::texture::{ChannelElement, ChannelFormat};
/// fn texel_bytes<T: ChannelElement>() -> usize {
///     ChannelFormat::of::<T>().texel_bytes()
/// }
/// assert_eq!(texel_bytes::<[u16; 2]>(), 4);
/// ```
pub trait ChannelElement: DeviceCopy {
    /// Its format.
    fn format() -> ChannelFormat;
}

macro_rules! channel_element {
    ($($t:ty => $kind:ident),*) => {
        $(
            impl ChannelElement for $t {
                fn format() -> ChannelFormat {
                    let bits = (std::mem::size_of::<$t>() * 8) as i32;
                    ChannelFormat::new(bits, 0, 0, 0, ChannelFormatKind::$kind)
                }
            }
            impl ChannelElement for [$t; 2] {
                fn format() -> ChannelFormat {
                    let bits = (std::mem::size_of::<$t>() * 8) as i32;
                    ChannelFormat::new(bits, bits, 0, 0, ChannelFormatKind::$kind)
                }
            }
            impl ChannelElement for [$t; 4] {
                fn format() -> ChannelFormat {
                    let bits = (std::mem::size_of::<$t>() * 8) as i32;
                    ChannelFormat::new(bits, bits, bits, bits, ChannelFormatKind::$kind)
                }
            }
        )*
    };
}
channel_element!(
    u8 => UNSIGNED, u16 => UNSIGNED, u32 => UNSIGNED,
    i8 => SIGNED, i16 => SIGNED, i32 => SIGNED,
    f32 => FLOAT
);

/// A CUDA array (`cudaArray_t`): texel memory laid out for texture fetches, 1-D (`height`
/// 0) or 2-D. Freed on drop (`cudaFreeArray`).
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::texture::{ArrayFlags, ChannelFormat, CudaArray};
/// let mut image = CudaArray::new(ChannelFormat::of::<f32>(), 640, 480, ArrayFlags::DEFAULT)?;
/// image.copy_from_host(&vec![0.5f32; 640 * 480])?;
/// let mut back = vec![0f32; 640 * 480];
/// image.copy_to_host(&mut back)?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct CudaArray {
    raw: sys::cudaArray_t,
    format: ChannelFormat,
    width: usize,
    height: usize,
    /// The gate's record: freed after the launches of texture and surface objects that read
    /// the array.
    life: Life,
}

// SAFETY: an array handle may be used from any thread.
unsafe impl Send for CudaArray {}
// SAFETY: as above; `&self` methods only read it.
unsafe impl Sync for CudaArray {}

impl CudaArray {
    /// A `width × height` array of `format` texels (`cudaMallocArray`); `height` 0 makes a
    /// 1-D array. `flags`: `SURFACE_LOAD_STORE` to bind a surface, `TEXTURE_GATHER`, ….
    #[doc(alias = "cudaMallocArray")]
    pub fn new(
        format: ChannelFormat,
        width: usize,
        height: usize,
        flags: ArrayFlags,
    ) -> Result<CudaArray> {
        let mut raw = sys::cudaArray_t::null();
        let desc = format.as_raw();
        // SAFETY: one handle is written; the descriptor is read.
        status(unsafe { sys::cudaMallocArray(&mut raw, &desc, width, height, flags.bits() as _) })?;
        Ok(CudaArray {
            raw,
            format,
            width,
            height,
            life: Life::new("CUDA array", Kind::Host, Some(array_free(raw))),
        })
    }

    /// The raw handle; valid as long as this value exists.
    pub fn as_raw(&self) -> sys::cudaArray_t {
        self.raw
    }

    /// The texel format.
    pub fn format(&self) -> ChannelFormat {
        self.format
    }

    /// Width in texels.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in texels (0 for a 1-D array).
    pub fn height(&self) -> usize {
        self.height
    }

    fn rows(&self) -> usize {
        self.height.max(1)
    }

    fn check_len<T>(&self, what: &str, len: usize) -> Result<usize> {
        let row = self.width * self.format.texel_bytes();
        let expected = row * self.rows();
        let given = bytes_of::<T>(len)?;
        if given != expected {
            return Err(Error::InvalidArgument(format!(
                "{what}: the array holds {expected} bytes, the slice {given}"
            )));
        }
        Ok(row)
    }

    /// Copies row-major texels from the host into the whole array (`cudaMemcpy2DToArray`;
    /// blocking). `src` must hold exactly the array's bytes.
    #[doc(alias = "cudaMemcpy2DToArray")]
    pub fn copy_from_host<T: DeviceCopy>(&mut self, src: &[T]) -> Result<()> {
        let row = self.check_len::<T>("copy_from_host", src.len())?;
        // SAFETY: `src` holds `rows` rows of `row` bytes; the array as many.
        status(unsafe {
            sys::cudaMemcpy2DToArray(
                self.raw,
                0,
                0,
                src.as_ptr().cast(),
                row,
                row,
                self.rows(),
                sys::cudaMemcpyKind::HOST_TO_DEVICE,
            )
        })
    }

    /// Copies the whole array to the host, row-major (`cudaMemcpy2DFromArray`; blocking).
    #[doc(alias = "cudaMemcpy2DFromArray")]
    pub fn copy_to_host<T: DeviceCopy>(&self, dst: &mut [T]) -> Result<()> {
        let row = self.check_len::<T>("copy_to_host", dst.len())?;
        // SAFETY: `dst` holds `rows` rows of `row` bytes; the array as many.
        status(unsafe {
            sys::cudaMemcpy2DFromArray(
                dst.as_mut_ptr().cast(),
                row,
                sys::cudaArray_const_t(self.raw.0.cast_const()),
                0,
                0,
                row,
                self.rows(),
                sys::cudaMemcpyKind::DEVICE_TO_HOST,
            )
        })
    }

    /// What CUDA says about the array: its format, extent (depth 0 for 1-D and 2-D) and
    /// flags (`cudaArrayGetInfo`).
    #[doc(alias = "cudaArrayGetInfo")]
    pub fn info(&self) -> Result<(ChannelFormat, [usize; 3], u32)> {
        let mut desc = sys::cudaChannelFormatDesc::default();
        let mut extent = sys::cudaExtent::default();
        let mut flags = 0u32;
        // SAFETY: the handle is alive; three outputs are written.
        status(unsafe { sys::cudaArrayGetInfo(&mut desc, &mut extent, &mut flags, self.raw) })?;
        Ok((
            ChannelFormat(desc),
            [extent.width, extent.height, extent.depth],
            flags,
        ))
    }

    /// Frees the array now and returns the error, where dropping would report it to the
    /// hook.
    #[doc(alias = "cudaFreeArray")]
    pub fn close(self) -> Result<()> {
        self.life.close()
    }
}

/// The gate's record of a texture or surface object `raw` reading `resource`, destroyed
/// with `destroy`.
fn handle_life(
    what: &'static str,
    raw: u64,
    destroy: unsafe fn(u64) -> Result<sys::cudaError_t>,
    resource: &ResourceDesc<'_>,
) -> Life {
    // SAFETY: an owned object, destroyed once, by the gate, after every recorded use.
    let release: Release = Box::new(move || status(unsafe { destroy(raw) }));
    Life::over(what, Kind::Borrowing, Some(release), resource.life.cloned())
}

/// `cudaDestroyTextureObject`.
///
/// # Safety
/// `raw` is a texture object, destroyed once.
unsafe fn destroy_texture(raw: u64) -> Result<sys::cudaError_t> {
    // SAFETY: the caller's promise.
    unsafe { sys::cudaDestroyTextureObject(raw) }
}

/// `cudaDestroySurfaceObject`.
///
/// # Safety
/// `raw` is a surface object, destroyed once.
unsafe fn destroy_surface(raw: u64) -> Result<sys::cudaError_t> {
    // SAFETY: the caller's promise.
    unsafe { sys::cudaDestroySurfaceObject(raw) }
}

/// What a texture or surface reads (`cudaResourceDesc`), borrowing it for `'a`.
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::texture::{ArrayFlags, ChannelFormat, CudaArray, ResourceDesc};
/// use cudart13::{DeviceBuffer, Stream};
/// let array = CudaArray::new(ChannelFormat::of::<f32>(), 256, 256, ArrayFlags::DEFAULT)?;
/// let of_array = ResourceDesc::array(&array);
/// let data = DeviceBuffer::<f32>::zeroed(4096, &Stream::legacy())?;
/// let of_memory = ResourceDesc::linear(&data, ChannelFormat::of::<f32>());
/// # let _ = (of_array, of_memory); Ok(()) }
/// ```
#[derive(Clone, Copy)]
pub struct ResourceDesc<'a> {
    raw: sys::cudaResourceDesc,
    /// The record of the memory read, in the gate.
    life: Option<&'a Life>,
}

// SAFETY: a record of handles and addresses, never dereferenced on the host.
unsafe impl Send for ResourceDesc<'_> {}
// SAFETY: as above.
unsafe impl Sync for ResourceDesc<'_> {}

impl<'a> ResourceDesc<'a> {
    /// A CUDA array.
    pub fn array(array: &'a CudaArray) -> ResourceDesc<'a> {
        let mut raw = sys::cudaResourceDesc {
            resType: ResourceType::ARRAY,
            ..Default::default()
        };
        raw.res.array.array = array.raw;
        ResourceDesc {
            raw,
            life: Some(&array.life),
        }
    }

    /// Linear device memory read as `format` texels (1-D fetches by index).
    pub fn linear<T: DeviceCopy>(
        memory: &'a impl AsDeviceSlice<T>,
        format: ChannelFormat,
    ) -> ResourceDesc<'a> {
        let view = memory.as_device_slice();
        let mut raw = sys::cudaResourceDesc {
            resType: ResourceType::LINEAR,
            ..Default::default()
        };
        raw.res.linear.devPtr = view.as_device_ptr().as_raw();
        raw.res.linear.desc = format.as_raw();
        raw.res.linear.sizeInBytes = view.size_bytes();
        ResourceDesc {
            raw,
            life: view.life(),
        }
    }

    /// Pitched 2-D device memory: `height` rows of `pitch_bytes` bytes, of which the first
    /// `width` texels are used. The memory must hold `height × pitch_bytes` bytes.
    pub fn pitch2d<T: DeviceCopy>(
        memory: &'a impl AsDeviceSlice<T>,
        format: ChannelFormat,
        width: usize,
        height: usize,
        pitch_bytes: usize,
    ) -> Result<ResourceDesc<'a>> {
        let view = memory.as_device_slice();
        let needed = height.checked_mul(pitch_bytes);
        if needed.map_or(true, |n| n > view.size_bytes())
            || width * format.texel_bytes() > pitch_bytes
        {
            return Err(Error::InvalidArgument(format!(
                "pitch2d: {height} rows of {pitch_bytes} bytes ({width} texels each) do not fit \
                 in {} bytes",
                view.size_bytes()
            )));
        }
        let mut raw = sys::cudaResourceDesc {
            resType: ResourceType::PITCH2_D,
            ..Default::default()
        };
        raw.res.pitch2D.devPtr = view.as_device_ptr().as_raw();
        raw.res.pitch2D.desc = format.as_raw();
        raw.res.pitch2D.width = width;
        raw.res.pitch2D.height = height;
        raw.res.pitch2D.pitchInBytes = pitch_bytes;
        Ok(ResourceDesc {
            raw,
            life: view.life(),
        })
    }

    /// The kind of resource.
    pub fn kind(&self) -> ResourceType {
        self.raw.resType
    }

    /// The raw record.
    pub fn as_raw(&self) -> &sys::cudaResourceDesc {
        &self.raw
    }
}

impl std::fmt::Debug for ResourceDesc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceDesc")
            .field("kind", &self.kind())
            .finish()
    }
}

/// How a texture is sampled (`cudaTextureDesc`): address mode per dimension, filtering,
/// read mode, normalised coordinates, border colour. Default: wrap, point sampling,
/// element type, unnormalised coordinates.
///
/// ```
/// use cudart13::texture::{AddressMode, FilterMode, TextureDesc};
/// let desc = TextureDesc::new()
///     .address_mode(AddressMode::CLAMP)
///     .filter_mode(FilterMode::LINEAR)
///     .normalized_coords(true);
/// assert_eq!(desc.filter(), FilterMode::LINEAR);
/// ```
#[derive(Clone, Copy, Default)]
pub struct TextureDesc(sys::cudaTextureDesc);

impl TextureDesc {
    /// The default description.
    pub fn new() -> TextureDesc {
        TextureDesc::default()
    }

    /// The address mode of all three dimensions (`WRAP`, `CLAMP`, `MIRROR`, `BORDER`).
    pub fn address_mode(mut self, mode: AddressMode) -> Self {
        self.0.addressMode = [mode; 3];
        self
    }

    /// `POINT` or `LINEAR` filtering.
    pub fn filter_mode(mut self, mode: FilterMode) -> Self {
        self.0.filterMode = mode;
        self
    }

    /// `ELEMENT_TYPE` or `NORMALIZED_FLOAT` reads.
    pub fn read_mode(mut self, mode: ReadMode) -> Self {
        self.0.readMode = mode;
        self
    }

    /// Coordinates in `[0, 1)` instead of texels.
    pub fn normalized_coords(mut self, yes: bool) -> Self {
        self.0.normalizedCoords = i32::from(yes);
        self
    }

    /// The colour returned outside the texture in `BORDER` mode.
    pub fn border_color(mut self, rgba: [f32; 4]) -> Self {
        self.0.borderColor = rgba;
        self
    }

    /// The raw record.
    pub fn as_raw(&self) -> &sys::cudaTextureDesc {
        &self.0
    }

    /// The address modes.
    pub fn address_modes(&self) -> [AddressMode; 3] {
        self.0.addressMode
    }

    /// The filter mode.
    pub fn filter(&self) -> FilterMode {
        self.0.filterMode
    }
}

impl std::fmt::Debug for TextureDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextureDesc")
            .field("address_mode", &self.0.addressMode)
            .field("filter_mode", &self.0.filterMode)
            .field("read_mode", &self.0.readMode)
            .field("normalized_coords", &self.0.normalizedCoords)
            .finish()
    }
}

/// A texture object (`cudaTextureObject_t`), passed to kernels as a 64-bit handle;
/// destroyed on drop. Borrows the memory it reads.
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::texture::{ArrayFlags, ChannelFormat, CudaArray, ResourceDesc, TextureDesc, TextureObject};
/// use cudart13::{DeviceBuffer, Stream};
/// let mut array = CudaArray::new(ChannelFormat::of::<f32>(), 64, 64, ArrayFlags::DEFAULT)?;
/// array.copy_from_host(&vec![1.0f32; 64 * 64])?;
/// let tex = TextureObject::new(&ResourceDesc::array(&array), &TextureDesc::new())?;
/// # let kernel = cudart13::Module::from_file("kernels.cubin")?.kernel("kernel")?;
/// let stream = Stream::non_blocking()?;
/// let out = DeviceBuffer::<f32>::zeroed(64 * 64, &stream)?;
/// // SAFETY: the kernel takes (cudaTextureObject_t, float* out) and writes 64 × 64 floats.
/// unsafe { stream.launch(&kernel).grid(64).block(64).args((&tex, &out)).run()? };
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct TextureObject<'a> {
    raw: sys::cudaTextureObject_t,
    /// The gate's record: destroyed after the launches that used it, which are uses of the
    /// memory it reads too.
    life: Life,
    _memory: PhantomData<&'a ()>,
}

impl<'a> TextureObject<'a> {
    /// A texture over `resource` sampled as `desc` describes (`cudaCreateTextureObject`).
    #[doc(alias = "cudaCreateTextureObject")]
    pub fn new(resource: &ResourceDesc<'a>, desc: &TextureDesc) -> Result<TextureObject<'a>> {
        let mut raw: sys::cudaTextureObject_t = 0;
        // SAFETY: both records are complete; the resource is borrowed for `'a`; no view.
        status(unsafe {
            sys::cudaCreateTextureObject(&mut raw, &resource.raw, &desc.0, std::ptr::null())
        })?;
        Ok(TextureObject {
            raw,
            life: handle_life("texture object", raw, destroy_texture, resource),
            _memory: PhantomData,
        })
    }

    /// The handle a kernel receives.
    pub fn as_raw(&self) -> sys::cudaTextureObject_t {
        self.raw
    }

    /// The resource description CUDA keeps (`cudaGetTextureObjectResourceDesc`).
    #[doc(alias = "cudaGetTextureObjectResourceDesc")]
    pub fn resource_desc(&self) -> Result<sys::cudaResourceDesc> {
        let mut desc = sys::cudaResourceDesc::default();
        // SAFETY: the object is alive; one record is written.
        status(unsafe { sys::cudaGetTextureObjectResourceDesc(&mut desc, self.raw) })?;
        Ok(desc)
    }

    /// The texture description CUDA keeps (`cudaGetTextureObjectTextureDesc`).
    #[doc(alias = "cudaGetTextureObjectTextureDesc")]
    pub fn texture_desc(&self) -> Result<TextureDesc> {
        let mut desc = sys::cudaTextureDesc::default();
        // SAFETY: the object is alive; one record is written.
        status(unsafe { sys::cudaGetTextureObjectTextureDesc(&mut desc, self.raw) })?;
        Ok(TextureDesc(desc))
    }

    /// Destroys the object now (once the launches that used it have run, as dropping does)
    /// and returns the error, where dropping would report it to the hook.
    #[doc(alias = "cudaDestroyTextureObject")]
    pub fn close(self) -> Result<()> {
        self.life.close()
    }
}

// SAFETY: the handle field is the 64-bit value the kernel receives.
unsafe impl KernelArg for TextureObject<'_> {
    fn arg_ptr(&self) -> *mut std::ffi::c_void {
        std::ptr::addr_of!(self.raw).cast_mut().cast()
    }

    fn arg_size(&self) -> usize {
        std::mem::size_of_val(&self.raw)
    }

    fn tracked_memory(&self) -> Option<TrackedMemory<'_>> {
        Some(TrackedMemory::of(&self.life))
    }
}

/// A surface object (`cudaSurfaceObject_t`) over a CUDA array made with
/// `ArrayFlags::SURFACE_LOAD_STORE`, passed to kernels as a 64-bit handle; destroyed on
/// drop.
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::texture::{ArrayFlags, ChannelFormat, CudaArray, ResourceDesc, SurfaceObject};
/// let array = CudaArray::new(ChannelFormat::of::<u32>(), 32, 32, ArrayFlags::SURFACE_LOAD_STORE)?;
/// let surface = SurfaceObject::new(&ResourceDesc::array(&array))?;
/// // … pass `&surface` to a kernel that writes it with surf2Dwrite …
/// # let _ = surface; Ok(()) }
/// ```
#[derive(Debug)]
pub struct SurfaceObject<'a> {
    raw: sys::cudaSurfaceObject_t,
    /// The gate's record: destroyed after the launches that used it, which are uses of the
    /// memory it reads too.
    life: Life,
    _memory: PhantomData<&'a ()>,
}

impl<'a> SurfaceObject<'a> {
    /// A surface over `resource` (an array resource) (`cudaCreateSurfaceObject`).
    #[doc(alias = "cudaCreateSurfaceObject")]
    pub fn new(resource: &ResourceDesc<'a>) -> Result<SurfaceObject<'a>> {
        let mut raw: sys::cudaSurfaceObject_t = 0;
        // SAFETY: a complete record, borrowed for `'a`.
        status(unsafe { sys::cudaCreateSurfaceObject(&mut raw, &resource.raw) })?;
        Ok(SurfaceObject {
            raw,
            life: handle_life("surface object", raw, destroy_surface, resource),
            _memory: PhantomData,
        })
    }

    /// The handle a kernel receives.
    pub fn as_raw(&self) -> sys::cudaSurfaceObject_t {
        self.raw
    }

    /// The resource description CUDA keeps (`cudaGetSurfaceObjectResourceDesc`).
    #[doc(alias = "cudaGetSurfaceObjectResourceDesc")]
    pub fn resource_desc(&self) -> Result<sys::cudaResourceDesc> {
        let mut desc = sys::cudaResourceDesc::default();
        // SAFETY: the object is alive; one record is written.
        status(unsafe { sys::cudaGetSurfaceObjectResourceDesc(&mut desc, self.raw) })?;
        Ok(desc)
    }

    /// Destroys the object now (once the launches that used it have run, as dropping does)
    /// and returns the error, where dropping would report it to the hook.
    #[doc(alias = "cudaDestroySurfaceObject")]
    pub fn close(self) -> Result<()> {
        self.life.close()
    }
}

// SAFETY: the handle field is the 64-bit value the kernel receives.
unsafe impl KernelArg for SurfaceObject<'_> {
    fn arg_ptr(&self) -> *mut std::ffi::c_void {
        std::ptr::addr_of!(self.raw).cast_mut().cast()
    }

    fn arg_size(&self) -> usize {
        std::mem::size_of_val(&self.raw)
    }

    fn tracked_memory(&self) -> Option<TrackedMemory<'_>> {
        Some(TrackedMemory::of(&self.life))
    }
}

/// The gate's release of an owned CUDA array: `cudaFreeArray`.
fn array_free(raw: sys::cudaArray_t) -> Release {
    let handle = raw.0 as usize;
    // SAFETY: the gate calls this once, after every recorded use of the array, which nothing
    // else frees.
    Box::new(move || status(unsafe { sys::cudaFreeArray(sys::cudaArray_t(handle as *mut _)) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_formats_of_rust_types() {
        let f = ChannelFormat::of::<[f32; 4]>();
        assert_eq!(f.bits(), [32, 32, 32, 32]);
        assert_eq!(f.kind(), ChannelFormatKind::FLOAT);
        assert_eq!(f.texel_bytes(), 16);
        assert_eq!(ChannelFormat::of::<u8>().bits(), [8, 0, 0, 0]);
        assert_eq!(
            ChannelFormat::of::<[i16; 2]>().kind(),
            ChannelFormatKind::SIGNED
        );
    }

    #[test]
    fn descriptors_hold_what_they_were_given() {
        let t = TextureDesc::new()
            .address_mode(AddressMode::CLAMP)
            .filter_mode(FilterMode::LINEAR)
            .normalized_coords(true);
        assert_eq!(t.address_modes(), [AddressMode::CLAMP; 3]);
        assert_eq!(t.filter(), FilterMode::LINEAR);
        assert_eq!(t.as_raw().normalizedCoords, 1);
        let stream = crate::stream::Stream::legacy();
        let buf = crate::memory::DeviceBuffer::<f32>::new(0, &stream).expect("empty");
        let r = ResourceDesc::linear(&buf, ChannelFormat::of::<f32>());
        assert_eq!(r.kind(), ResourceType::LINEAR);
        assert!(ResourceDesc::pitch2d(&buf, ChannelFormat::of::<f32>(), 4, 4, 16).is_err());
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<CudaArray>();
        assert_send_sync::<TextureObject<'static>>();
        assert_send_sync::<SurfaceObject<'static>>();
    }
}
