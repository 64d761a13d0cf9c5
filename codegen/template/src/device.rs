//! Devices: counting, listing and selecting them, a guard that restores the current device,
//! their properties as a Rust struct, attributes, memory information, peer access (for
//! stream-ordered memory too), the graph memory pool's statistics, synchronising and
//! resetting.
//!
//! A [`Device`] is only an ordinal (`Copy`, `Send`, `Sync`); nothing is created or destroyed.
//! The CUDA runtime keeps one *current device per host thread*: functions that act on "the
//! current device" (`cudaDeviceSynchronize`, `cudaMemGetInfo`, allocations, stream creation)
//! are run here with a [`DeviceGuard`] that selects this device and restores the previous
//! one, so that a method of `Device` always acts on that device whichever thread calls it.
//!
//! Device ordinals are `i32` everywhere in the safe layer (the C `int`): [`Device::get`],
//! [`Device::from_ordinal`], [`Device::ordinal`] and [`Device::count`]; the `device()` of a
//! stream, event, buffer or pool is a [`Device`].
//!
//! Not here: the `cudaDeviceProp` record itself (its fields differ between CUDA majors; the
//! typed layer's `api::get_device_properties` returns it), device flags and the
//! execution-context API (in [`crate::api`]).

use std::ffi::{c_char, c_int, CStr};
use std::marker::PhantomData;

use crate::error::{status, Error, Result};
use crate::sys;

/// A device attribute (`cudaDeviceAttr`), for [`Device::attribute`].
pub use crate::sys::cudaDeviceAttr as DeviceAttribute;
/// A device resource limit (`cudaLimit`), for [`Device::limit`] and [`Device::set_limit`].
pub use crate::sys::cudaLimit as Limit;

/// `cudaErrorInvalidDevice`: the error for an ordinal past the last device.
const INVALID_DEVICE: i32 = 101;

/// A CUDA device, by ordinal (`0..Device::count()`).
///
/// Creating a `Device` with [`Device::get`] checks the ordinal; every method checks the
/// CUDA status and returns an [`Error`] for a device that has gone away. Methods act on this
/// device whichever device is current, and leave the current device as it was.
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::Device;
/// for device in Device::all()? {
///     let props = device.properties()?;
///     println!("{}: {} ({} SMs)", device.ordinal(), props.name, props.multiprocessor_count);
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Device {
    ordinal: c_int,
}

impl Device {
    /// The number of CUDA devices (`cudaGetDeviceCount`).
    ///
    /// Without a driver this is an error (`cudaErrorInsufficientDriver` or
    /// `cudaErrorNoDevice`), and without the runtime library [`Error::LibraryNotFound`];
    /// it never panics.
    #[doc(alias = "cudaGetDeviceCount")]
    pub fn count() -> Result<i32> {
        let mut n: c_int = 0;
        // SAFETY: one int is written through a valid pointer.
        status(unsafe { sys::cudaGetDeviceCount(&mut n) })?;
        Ok(n.max(0))
    }

    /// Every device, in ordinal order (`cudaGetDeviceCount`).
    #[doc(alias = "cudaGetDeviceCount")]
    pub fn all() -> Result<Vec<Device>> {
        Ok((0..Device::count()?)
            .map(|ordinal| Device { ordinal })
            .collect())
    }

    /// The device with this ordinal, or `cudaErrorInvalidDevice` when there is none
    /// (a negative ordinal, or one past the last device).
    #[doc(alias = "cudaGetDeviceCount")]
    pub fn get(ordinal: i32) -> Result<Device> {
        if ordinal < 0 || ordinal >= Device::count()? {
            return Err(Error::from_code(INVALID_DEVICE));
        }
        Ok(Device { ordinal })
    }

    /// The calling thread's current device (`cudaGetDevice`).
    #[doc(alias = "cudaGetDevice")]
    pub fn current() -> Result<Device> {
        let mut ordinal: c_int = 0;
        // SAFETY: one int is written through a valid pointer.
        status(unsafe { sys::cudaGetDevice(&mut ordinal) })?;
        Ok(Device { ordinal })
    }

    /// A device by ordinal without checking it; a wrong one gives `cudaErrorInvalidDevice`
    /// from the first call that uses it.
    pub const fn from_ordinal(ordinal: i32) -> Device {
        Device { ordinal }
    }

    /// The device's ordinal.
    pub const fn ordinal(self) -> i32 {
        self.ordinal
    }

    /// Makes this the calling thread's current device (`cudaSetDevice`).
    #[doc(alias = "cudaSetDevice")]
    pub fn set_current(self) -> Result<()> {
        // SAFETY: a value-only call.
        status(unsafe { sys::cudaSetDevice(self.ordinal) })
    }

    /// Makes this the current device until the guard is dropped, which restores the device
    /// that was current before.
    #[doc(alias = "cudaGetDevice")]
    #[doc(alias = "cudaSetDevice")]
    pub fn guard(self) -> Result<DeviceGuard> {
        let previous = Device::current()?;
        if previous != self {
            self.set_current()?;
        }
        Ok(DeviceGuard {
            previous,
            switched: previous != self,
            _not_send: PhantomData,
        })
    }

    /// One attribute (`cudaDeviceGetAttribute`), e.g. [`DeviceAttribute::WARP_SIZE`].
    #[doc(alias = "cudaDeviceGetAttribute")]
    pub fn attribute(self, attr: DeviceAttribute) -> Result<i32> {
        let mut value: c_int = 0;
        // SAFETY: one int is written through a valid pointer.
        status(unsafe { sys::cudaDeviceGetAttribute(&mut value, attr, self.ordinal) })?;
        Ok(value)
    }

    /// The compute capability `(major, minor)`.
    #[doc(alias = "cudaDeviceGetAttribute")]
    pub fn compute_capability(self) -> Result<(i32, i32)> {
        Ok((
            self.attribute(sys::cudaDeviceAttr::COMPUTE_CAPABILITY_MAJOR)?,
            self.attribute(sys::cudaDeviceAttr::COMPUTE_CAPABILITY_MINOR)?,
        ))
    }

    /// The device's name (`"NVIDIA H100 80GB HBM3"`).
    #[doc(alias = "cudaGetDeviceProperties")]
    pub fn name(self) -> Result<String> {
        Ok(self.properties()?.name)
    }

    /// The device's properties: name, UUID and total memory from `cudaGetDeviceProperties`,
    /// everything else from `cudaDeviceGetAttribute` (the `cudaDeviceProp` record differs
    /// between CUDA majors; the attributes do not).
    #[doc(alias = "cudaGetDeviceProperties")]
    #[doc(alias = "cudaDeviceGetAttribute")]
    pub fn properties(self) -> Result<DeviceProperties> {
        let mut raw = sys::cudaDeviceProp::default();
        let get = get_device_properties()?;
        // SAFETY: the function fills this crate's release's `cudaDeviceProp` layout (see
        // `get_device_properties`).
        status(Ok(unsafe { get(&mut raw, self.ordinal) }))?;
        let name_bytes: Vec<u8> = raw
            .name
            .iter()
            .take_while(|c| **c != 0)
            .map(|c| *c as u8)
            .collect();
        let uuid = raw.uuid.bytes.map(|b| b as u8);
        use sys::cudaDeviceAttr as A;
        let a = |attr| self.attribute(attr);
        Ok(DeviceProperties {
            name: String::from_utf8_lossy(&name_bytes).into_owned(),
            uuid,
            total_global_mem: raw.totalGlobalMem,
            compute_capability: (
                a(A::COMPUTE_CAPABILITY_MAJOR)?,
                a(A::COMPUTE_CAPABILITY_MINOR)?,
            ),
            multiprocessor_count: a(A::MULTI_PROCESSOR_COUNT)?,
            max_threads_per_block: a(A::MAX_THREADS_PER_BLOCK)?,
            max_block_dim: [
                a(A::MAX_BLOCK_DIM_X)?,
                a(A::MAX_BLOCK_DIM_Y)?,
                a(A::MAX_BLOCK_DIM_Z)?,
            ],
            max_grid_dim: [
                a(A::MAX_GRID_DIM_X)?,
                a(A::MAX_GRID_DIM_Y)?,
                a(A::MAX_GRID_DIM_Z)?,
            ],
            warp_size: a(A::WARP_SIZE)?,
            max_threads_per_multiprocessor: a(A::MAX_THREADS_PER_MULTI_PROCESSOR)?,
            max_blocks_per_multiprocessor: a(A::MAX_BLOCKS_PER_MULTIPROCESSOR)?,
            shared_mem_per_block: a(A::MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_mem_per_block_optin: a(A::MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            shared_mem_per_multiprocessor: a(A::MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            registers_per_block: a(A::MAX_REGISTERS_PER_BLOCK)?,
            total_constant_memory: a(A::TOTAL_CONSTANT_MEMORY)?,
            l2_cache_size: a(A::L2_CACHE_SIZE)?,
            memory_bus_width: a(A::GLOBAL_MEMORY_BUS_WIDTH)?,
            clock_rate_khz: a(A::CLOCK_RATE)?,
            memory_clock_rate_khz: a(A::MEMORY_CLOCK_RATE)?,
            pci_domain_id: a(A::PCI_DOMAIN_ID)?,
            pci_bus_id: a(A::PCI_BUS_ID)?,
            pci_device_id: a(A::PCI_DEVICE_ID)?,
            async_engine_count: a(A::ASYNC_ENGINE_COUNT)?,
            integrated: a(A::INTEGRATED)? != 0,
            can_map_host_memory: a(A::CAN_MAP_HOST_MEMORY)? != 0,
            concurrent_kernels: a(A::CONCURRENT_KERNELS)? != 0,
            ecc_enabled: a(A::ECC_ENABLED)? != 0,
            unified_addressing: a(A::UNIFIED_ADDRESSING)? != 0,
            managed_memory: a(A::MANAGED_MEMORY)? != 0,
            concurrent_managed_access: a(A::CONCURRENT_MANAGED_ACCESS)? != 0,
            cooperative_launch: a(A::COOPERATIVE_LAUNCH)? != 0,
            cluster_launch: a(A::CLUSTER_LAUNCH)? != 0,
            memory_pools_supported: a(A::MEMORY_POOLS_SUPPORTED)? != 0,
            stream_priorities_supported: a(A::STREAM_PRIORITIES_SUPPORTED)? != 0,
        })
    }

    /// Free and total device memory in bytes (`cudaMemGetInfo` on this device).
    #[doc(alias = "cudaMemGetInfo")]
    pub fn mem_info(self) -> Result<MemInfo> {
        let _guard = self.guard()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: two size_t values are written through valid pointers.
        status(unsafe { sys::cudaMemGetInfo(&mut free, &mut total) })?;
        Ok(MemInfo { free, total })
    }

    /// Whether this device can access `peer`'s memory directly
    /// (`cudaDeviceCanAccessPeer`).
    #[doc(alias = "cudaDeviceCanAccessPeer")]
    pub fn can_access_peer(self, peer: Device) -> Result<bool> {
        let mut can: c_int = 0;
        // SAFETY: one int is written through a valid pointer.
        status(unsafe { sys::cudaDeviceCanAccessPeer(&mut can, self.ordinal, peer.ordinal) })?;
        Ok(can != 0)
    }

    /// A new stream of this device with these flags
    /// ([`Stream::on_device`](crate::Stream::on_device)); the current device is unchanged.
    #[doc(alias = "cudaStreamCreateWithFlags")]
    pub fn stream(self, flags: crate::StreamFlags) -> Result<crate::Stream> {
        crate::Stream::on_device(self, flags)
    }

    /// Waits until all work on this device has finished (`cudaDeviceSynchronize`).
    #[doc(alias = "cudaDeviceSynchronize")]
    pub fn synchronize(self) -> Result<()> {
        let _guard = self.guard()?;
        // SAFETY: value-only call.
        status(unsafe { sys::cudaDeviceSynchronize() })
    }

    /// Destroys every allocation and resets all state of this device in this process
    /// (`cudaDeviceReset`).
    ///
    /// # Safety
    /// Every stream, event, buffer, pool, module, graph and texture this process created on
    /// the device is destroyed: none of this crate's objects for the device may be used or
    /// dropped afterwards (their handles would name freed or reused resources).
    #[doc(alias = "cudaDeviceReset")]
    pub unsafe fn reset(self) -> Result<()> {
        let _guard = self.guard()?;
        // SAFETY: the caller promises no object of the device outlives the reset.
        status(unsafe { sys::cudaDeviceReset() })
    }

    /// The stream priorities this device supports, `(least, greatest)`: numerically
    /// `greatest <= least`, lower numbers mean higher priority
    /// (`cudaDeviceGetStreamPriorityRange`).
    #[doc(alias = "cudaDeviceGetStreamPriorityRange")]
    pub fn stream_priority_range(self) -> Result<(i32, i32)> {
        let _guard = self.guard()?;
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: two ints are written through valid pointers.
        status(unsafe { sys::cudaDeviceGetStreamPriorityRange(&mut least, &mut greatest) })?;
        Ok((least, greatest))
    }

    /// A resource limit of this device (`cudaDeviceGetLimit`), e.g. [`Limit::STACK_SIZE`].
    #[doc(alias = "cudaDeviceGetLimit")]
    pub fn limit(self, limit: Limit) -> Result<usize> {
        let _guard = self.guard()?;
        let mut value = 0usize;
        // SAFETY: one size_t is written through a valid pointer.
        status(unsafe { sys::cudaDeviceGetLimit(&mut value, limit) })?;
        Ok(value)
    }

    /// Sets a resource limit of this device (`cudaDeviceSetLimit`).
    #[doc(alias = "cudaDeviceSetLimit")]
    pub fn set_limit(self, limit: Limit, value: usize) -> Result<()> {
        let _guard = self.guard()?;
        // SAFETY: value-only call.
        status(unsafe { sys::cudaDeviceSetLimit(limit, value) })
    }

    /// The PCI bus id, `domain:bus:device.function` (`cudaDeviceGetPCIBusId`).
    #[doc(alias = "cudaDeviceGetPCIBusId")]
    pub fn pci_bus_id(self) -> Result<String> {
        let mut buf = [0 as c_char; 64];
        // SAFETY: the runtime writes at most `len` bytes, NUL included.
        status(unsafe { sys::cudaDeviceGetPCIBusId(buf.as_mut_ptr(), 64, self.ordinal) })?;
        // SAFETY: the buffer was zeroed and the runtime writes a NUL-terminated string.
        let id = unsafe { CStr::from_ptr(buf.as_ptr()) };
        Ok(id.to_string_lossy().into_owned())
    }

    /// The device with this PCI bus id (`cudaDeviceGetByPCIBusId`).
    #[doc(alias = "cudaDeviceGetByPCIBusId")]
    pub fn by_pci_bus_id(id: &str) -> Result<Device> {
        let id = std::ffi::CString::new(id)
            .map_err(|_| Error::InvalidArgument("a PCI bus id with a NUL byte".into()))?;
        let mut ordinal: c_int = 0;
        // SAFETY: `id` is NUL-terminated; one int is written.
        status(unsafe { sys::cudaDeviceGetByPCIBusId(&mut ordinal, id.as_ptr()) })?;
        Ok(Device { ordinal })
    }
}

/// The CUDA version the installed driver supports (`cudaDriverGetVersion`): `1000 * major +
/// 10 * minor` (13.0 is `13000`); 0 without a driver.
#[doc(alias = "cudaDriverGetVersion")]
pub fn driver_version() -> Result<i32> {
    let mut v: c_int = 0;
    // SAFETY: one int is written through a valid pointer.
    status(unsafe { sys::cudaDriverGetVersion(&mut v) })?;
    Ok(v)
}

/// The loaded runtime's version (`cudaRuntimeGetVersion`), as [`driver_version`].
#[doc(alias = "cudaRuntimeGetVersion")]
pub fn runtime_version() -> Result<i32> {
    let mut v: c_int = 0;
    // SAFETY: one int is written through a valid pointer.
    status(unsafe { sys::cudaRuntimeGetVersion(&mut v) })?;
    Ok(v)
}

type GetDeviceProperties =
    unsafe extern "C" fn(*mut sys::cudaDeviceProp, c_int) -> sys::cudaError_t;

/// The runtime's `cudaGetDeviceProperties` for this crate's `cudaDeviceProp` layout. CUDA 12
/// headers define `cudaGetDeviceProperties` as `cudaGetDeviceProperties_v2` (the symbol
/// without the suffix fills the older CUDA 11 layout); CUDA 13 exports only the unsuffixed
/// name, with the new layout. The raw layer binds one or the other depending on the release,
/// so the symbol is chosen here by the crate's major.
fn get_device_properties() -> Result<GetDeviceProperties> {
    // SAFETY: both have the C signature `cudaError_t (struct cudaDeviceProp*, int)`, with
    // the layout of their release's header.
    static V13: crate::loader::LazySymbol<GetDeviceProperties> =
        unsafe { crate::loader::LazySymbol::new(c"cudaGetDeviceProperties", 0) };
    // SAFETY: as above.
    static V2: crate::loader::LazySymbol<GetDeviceProperties> =
        unsafe { crate::loader::LazySymbol::new(c"cudaGetDeviceProperties_v2", 0) };
    if sys::CUDA_MAJOR >= 13 {
        V13.get()
    } else {
        V2.get()
    }
}

/// Restores the previously current device when dropped (see [`Device::guard`]).
///
/// The current device is per host thread, so the guard is neither `Send` nor `Sync`.
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::Device;
/// {
///     let _on_1 = Device::get(1)?.guard()?; // device 1 is current here
///     // … calls that act on the current device …
/// } // the previous device is current again
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[must_use = "the previous device is restored when the guard is dropped"]
pub struct DeviceGuard {
    previous: Device,
    switched: bool,
    _not_send: PhantomData<*const ()>,
}

impl DeviceGuard {
    /// The device that will be current again after the guard.
    pub fn previous(&self) -> Device {
        self.previous
    }
}

impl Drop for DeviceGuard {
    fn drop(&mut self) {
        if self.switched {
            if let Err(e) = self.previous.set_current() {
                crate::error::report_drop_error("device guard", &e);
            }
        }
    }
}

/// Free and total memory of a device, in bytes.
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// let info = @CRATE@::Device::get(0)?.mem_info()?;
/// println!("{} of {} MiB free", info.free >> 20, info.total >> 20);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemInfo {
    /// Bytes free now.
    pub free: usize,
    /// Bytes in total.
    pub total: usize,
}

/// A device's properties (see [`Device::properties`]).
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// let props = @CRATE@::Device::get(0)?.properties()?;
/// let (major, minor) = props.compute_capability;
/// println!("{}: sm_{major}{minor}, {} SMs", props.name, props.multiprocessor_count);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceProperties {
    /// The device's name (`"NVIDIA H100 80GB HBM3"`).
    pub name: String,
    /// The device's UUID.
    pub uuid: [u8; 16],
    /// Global memory, bytes.
    pub total_global_mem: usize,
    /// `(major, minor)`.
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub multiprocessor_count: i32,
    /// Threads per block.
    pub max_threads_per_block: i32,
    /// Block dimensions.
    pub max_block_dim: [i32; 3],
    /// Grid dimensions.
    pub max_grid_dim: [i32; 3],
    /// Threads per warp.
    pub warp_size: i32,
    /// Resident threads per multiprocessor.
    pub max_threads_per_multiprocessor: i32,
    /// Resident blocks per multiprocessor.
    pub max_blocks_per_multiprocessor: i32,
    /// Shared memory per block, bytes (without opt-in).
    pub shared_mem_per_block: i32,
    /// Shared memory per block a kernel can opt in to, bytes.
    pub shared_mem_per_block_optin: i32,
    /// Shared memory per multiprocessor, bytes.
    pub shared_mem_per_multiprocessor: i32,
    /// 32-bit registers per block.
    pub registers_per_block: i32,
    /// Constant memory, bytes.
    pub total_constant_memory: i32,
    /// L2 cache, bytes.
    pub l2_cache_size: i32,
    /// Memory bus width, bits.
    pub memory_bus_width: i32,
    /// Peak clock, kHz.
    pub clock_rate_khz: i32,
    /// Peak memory clock, kHz.
    pub memory_clock_rate_khz: i32,
    /// PCI domain.
    pub pci_domain_id: i32,
    /// PCI bus.
    pub pci_bus_id: i32,
    /// PCI device.
    pub pci_device_id: i32,
    /// Copy engines that can run concurrently with kernels.
    pub async_engine_count: i32,
    /// An integrated (shared-memory) GPU.
    pub integrated: bool,
    /// Host memory can be mapped into the device's address space.
    pub can_map_host_memory: bool,
    /// Kernels can run concurrently.
    pub concurrent_kernels: bool,
    /// ECC is on.
    pub ecc_enabled: bool,
    /// Shares a unified address space with the host.
    pub unified_addressing: bool,
    /// Supports managed memory.
    pub managed_memory: bool,
    /// Host and device can access managed memory concurrently.
    pub concurrent_managed_access: bool,
    /// Supports cooperative launches.
    pub cooperative_launch: bool,
    /// Supports thread-block clusters.
    pub cluster_launch: bool,
    /// Supports the stream-ordered allocator (`cudaMallocAsync`, memory pools).
    pub memory_pools_supported: bool,
    /// Streams can have priorities.
    pub stream_priorities_supported: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn devices_are_plain_values() {
        assert_send_sync::<Device>();
        assert_send_sync::<DeviceProperties>();
        let d = Device::from_ordinal(3);
        assert_eq!(d.ordinal(), 3);
        assert_eq!(d, Device::from_ordinal(3));
    }
}
