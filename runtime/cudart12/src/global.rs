// Copied by `cargo xtask codegen` from the generator's codegen/template/src/global.rs:
// edit the template, not this copy.

//! Typed device globals: a module's `__device__`, `__constant__` and `__managed__`
//! variables ([`DeviceGlobal`], from [`Module::global`](crate::Module::global),
//! [`Module::global_array`](crate::Module::global_array) and
//! [`Module::managed_global`](crate::Module::managed_global)), read and written through
//! copies like any device memory.
//!
//! A global lives as long as its module is loaded: a `DeviceGlobal` keeps the module, and a
//! capture that copies to or from it makes the graph keep the module too. Its address is
//! the one the runtime gives for the device current at the lookup (each device has its own
//! copy of a module's globals); the global remembers that device and its copies run there.
//!
//! Not here: loading modules and launching their kernels ([`crate::kernel`]).

use crate::error::{status, Error, Result};
use crate::kernel::{Module, ModuleRef};
use crate::memory::{AsDeviceSlice, AsDeviceSliceMut, DeviceCopy, DevicePtr, DeviceSlice};
use crate::memory::{DeviceSliceMut, Mem};
use crate::stream::Stream;
use crate::sys;

/// A module's global variable of `len` values of `T` on one device (see the
/// [module documentation](self)). Blocking copies run on the device's legacy default
/// stream; the views ([`as_slice`](DeviceGlobal::as_slice),
/// [`as_slice_mut`](DeviceGlobal::as_slice_mut)) take any stream of the device for
/// asynchronous copies.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::Module;
/// # let ptx = "";
/// // __constant__ float coeffs[4]; __device__ unsigned counter;
/// let module = Module::from_ptx(ptx)?;
/// let mut coeffs = module.global_array::<f32>("coeffs")?;
/// coeffs.copy_from_host(&[0.5, 0.25, 0.125, 0.0625])?;
/// let mut counter = module.global::<u32>("counter")?;
/// counter.write(&0)?;
/// // … launch kernels of `module` that read `coeffs` and count into `counter` …
/// println!("{}", counter.read()?);
/// # Ok(()) }
/// ```
pub struct DeviceGlobal<T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    device: i32,
    module: ModuleRef,
    stream: Stream,
}

// SAFETY: a device address the host never dereferences, a module handle that may be used
// from any thread, and a stream.
unsafe impl<T: DeviceCopy + Send> Send for DeviceGlobal<T> {}
// SAFETY: as above; `&DeviceGlobal` only enqueues reads.
unsafe impl<T: DeviceCopy + Sync> Sync for DeviceGlobal<T> {}

impl<T: DeviceCopy> DeviceGlobal<T> {
    /// Looks `name` up in `module` on the current device: `elems` elements of `T` exactly
    /// (`Some`), or as many as its size holds (`None`); a `__managed__` variable when
    /// `managed`.
    pub(crate) fn find(
        module: ModuleRef,
        name: &str,
        elems: Option<usize>,
        managed: bool,
    ) -> Result<DeviceGlobal<T>> {
        let c_name = std::ffi::CString::new(name)
            .map_err(|_| Error::InvalidArgument("a global's name with a NUL byte".into()))?;
        let device = crate::lifetime::current::current_ordinal()?;
        let mut ptr: *mut std::ffi::c_void = std::ptr::null_mut();
        let mut bytes = 0usize;
        // SAFETY: the library is alive; a pointer and a size are written; the name is
        // NUL-terminated.
        status(unsafe {
            if managed {
                sys::cudaLibraryGetManaged(&mut ptr, &mut bytes, module.raw, c_name.as_ptr())
            } else {
                sys::cudaLibraryGetGlobal(&mut ptr, &mut bytes, module.raw, c_name.as_ptr())
            }
        })?;
        let size = std::mem::size_of::<T>();
        let len = match elems {
            _ if size == 0 => None,
            Some(n) => (n.checked_mul(size) == Some(bytes)).then_some(n),
            None => (bytes % size == 0).then_some(bytes / size),
        }
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the global `{name}` is {bytes} bytes: not {} of {size}-byte elements",
                elems.map_or_else(|| "a whole number".to_string(), |n| n.to_string())
            ))
        })?;
        Ok(DeviceGlobal {
            ptr: ptr.cast(),
            len,
            device,
            module,
            stream: Stream::legacy(),
        })
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device whose copy of the global this is.
    pub fn device(&self) -> crate::Device {
        crate::Device::from_ordinal(self.device)
    }

    /// The global's device address.
    pub fn as_device_ptr(&self) -> DevicePtr {
        DevicePtr::from_raw(self.ptr.cast())
    }

    fn mem(&self) -> Mem<'_> {
        Mem {
            stream: &self.stream,
            device: Some(self.device),
            alloc: Some(&self.module.life),
        }
    }

    /// A view of the global, for copies out of it on any stream of its device.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        // SAFETY: `len` elements of device memory that live while the module is loaded,
        // which `self` (and a capture of the view's work) keeps.
        unsafe { DeviceSlice::from_tracked(self.ptr, self.len, self.mem()) }
    }

    /// A mutable view of the global, for copies into it on any stream of its device.
    pub fn as_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        // SAFETY: as above, borrowed exclusively.
        unsafe { DeviceSliceMut::from_tracked(self.ptr, self.len, self.mem()) }
    }

    /// Copies `src` (same length) into the global and waits for the copy
    /// (`cudaMemcpyAsync` on the device's legacy stream, then a wait).
    #[doc(alias = "cudaMemcpyToSymbol")]
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        self.as_slice_mut().copy_from_host(src)
    }

    /// Sets a one-element global to `value` (a blocking copy).
    #[doc(alias = "cudaMemcpyToSymbol")]
    pub fn write(&mut self, value: &T) -> Result<()> {
        self.copy_from_host(std::slice::from_ref(value))
    }

    /// The global's elements (a blocking copy).
    #[doc(alias = "cudaMemcpyFromSymbol")]
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.as_slice().to_vec()
    }

    /// The first element (a blocking copy); [`Error::InvalidArgument`] for an empty global.
    #[doc(alias = "cudaMemcpyFromSymbol")]
    pub fn read(&self) -> Result<T> {
        let first = self
            .as_slice()
            .slice(..1.min(self.len))?
            .to_vec()?
            .first()
            .copied();
        first.ok_or_else(|| Error::InvalidArgument("an empty global has no value".into()))
    }
}

impl<T: DeviceCopy> AsDeviceSlice<T> for DeviceGlobal<T> {
    fn as_device_slice(&self) -> DeviceSlice<'_, T> {
        self.as_slice()
    }
}

impl<T: DeviceCopy> AsDeviceSliceMut<T> for DeviceGlobal<T> {
    fn as_device_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        self.as_slice_mut()
    }
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceGlobal<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceGlobal")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("device", &self.device)
            .finish()
    }
}

/// The globals of a module (with the globals, so that kernels need not know them).
impl Module {
    /// Available since CUDA 12.8 (calls `cudaLibraryGetGlobal`, `cudaLibraryGetManaged`).
    ///
    /// The module's `__device__` or `__constant__` variable called `name`, of type `T`
    /// (`cudaLibraryGetGlobal`); its size must be `size_of::<T>()`
    /// ([`Error::InvalidArgument`] otherwise). See [`DeviceGlobal`].
    #[doc(alias = "cudaLibraryGetGlobal")]
    pub fn global<T: DeviceCopy>(&self, name: &str) -> Result<DeviceGlobal<T>> {
        DeviceGlobal::find(
            self.module_ref().clone(),
            self.resolve(name),
            Some(1),
            false,
        )
    }

    /// Available since CUDA 12.8 (calls `cudaLibraryGetGlobal`, `cudaLibraryGetManaged`).
    ///
    /// The module's array variable called `name` (`__device__ T name[N];`), of as many
    /// elements of `T` as its size holds (`cudaLibraryGetGlobal`; a size that is not a
    /// whole number of `T` is [`Error::InvalidArgument`]).
    #[doc(alias = "cudaLibraryGetGlobal")]
    pub fn global_array<T: DeviceCopy>(&self, name: &str) -> Result<DeviceGlobal<T>> {
        DeviceGlobal::find(self.module_ref().clone(), self.resolve(name), None, false)
    }

    /// Available since CUDA 12.8 (calls `cudaLibraryGetGlobal`, `cudaLibraryGetManaged`).
    ///
    /// The module's `__managed__` variable called `name` (`cudaLibraryGetManaged`), reached
    /// as device memory through copies like [`global_array`](Module::global_array).
    #[doc(alias = "cudaLibraryGetManaged")]
    pub fn managed_global<T: DeviceCopy>(&self, name: &str) -> Result<DeviceGlobal<T>> {
        DeviceGlobal::find(self.module_ref().clone(), self.resolve(name), None, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globals_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<DeviceGlobal<f32>>();
    }
}
