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
//! [`DeviceProperties`] (every field of `cudaDeviceProp`) and [`DeviceAttributes`] (every
//! `cudaDeviceAttr`) are generated from the documentation (`records.rs`) and re-exported
//! here; [`Uuid`] formats the UUID.
//!
//! Not here: device flags and the execution-context API (in [`crate::api`]).

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
///     println!("{}: {} ({} SMs)", device.ordinal(), props.name, props.multi_processor_count);
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

    /// The device's properties: every field of this release's `cudaDeviceProp`
    /// (`cudaGetDeviceProperties`), each documented with its meaning. For one value,
    /// [`Device::attributes`] reads a single attribute, which is much cheaper.
    #[doc(alias = "cudaGetDeviceProperties")]
    pub fn properties(self) -> Result<DeviceProperties> {
        let mut raw = sys::cudaDeviceProp::default();
        let get = get_device_properties()?;
        // SAFETY: the function fills this crate's release's `cudaDeviceProp` layout (see
        // `get_device_properties`).
        status(Ok(unsafe { get(&mut raw, self.ordinal) }))?;
        Ok(DeviceProperties::from_raw(&raw))
    }

    /// Every device attribute (`cudaDeviceAttr`) as a getter with its documented meaning:
    /// `device.attributes().max_threads_per_block()?`. Each getter is one
    /// `cudaDeviceGetAttribute`.
    ///
    /// ```no_run
    /// # fn main() -> @CRATE@::Result<()> {
    /// let attrs = @CRATE@::Device::get(0)?.attributes();
    /// println!("{} SMs, clusters: {}", attrs.multi_processor_count()?, attrs.cluster_launch()?);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaDeviceGetAttribute")]
    pub const fn attributes(self) -> DeviceAttributes {
        DeviceAttributes(self)
    }

    /// The device's architecture as NVCC and NVRTC name it: `"90"` for compute capability
    /// 9.0 (`sm_90`, `compute_90`).
    ///
    /// ```no_run
    /// # fn main() -> @CRATE@::Result<()> {
    /// let arch = @CRATE@::Device::get(0)?.arch()?;
    /// println!("--gpu-architecture=sm_{arch}");
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaDevAttrComputeCapabilityMajor")]
    pub fn arch(self) -> Result<String> {
        let (major, minor) = self.compute_capability()?;
        Ok(format!("{major}{minor}"))
    }

    /// The device's UUID (`cudaDeviceProp::uuid`).
    #[doc(alias = "cudaDeviceProp")]
    pub fn uuid(self) -> Result<Uuid> {
        Ok(self.properties()?.uuid)
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

pub use crate::records::{DeviceAttributes, DeviceProperties};

impl DeviceProperties {
    /// The compute capability `(major, minor)`.
    pub fn compute_capability(&self) -> (i32, i32) {
        (self.major, self.minor)
    }

    /// The architecture as NVCC and NVRTC name it: `"90"` for compute capability 9.0.
    ///
    /// ```
    /// # fn arch(p: &@CRATE@::DeviceProperties) -> String {
    /// p.arch() // "90" on an H100
    /// # }
    /// ```
    pub fn arch(&self) -> String {
        format!("{}{}", self.major, self.minor)
    }
}

/// A device's 16-byte UUID (`cudaUUID_t`). `Display` writes it as NVIDIA's tools do,
/// `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (`nvidia-smi -L`); [`Uuid::hyphenated`]
/// gives the form without the prefix (what cuda.core's `Device.uuid` returns).
///
/// ```
/// let uuid = @CRATE@::Uuid::from_bytes([0xab; 16]);
/// assert_eq!(uuid.to_string(), "GPU-abababab-abab-abab-abab-abababababab");
/// assert_eq!(uuid.hyphenated(), "abababab-abab-abab-abab-abababababab");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[doc(alias = "cudaUUID_t")]
pub struct Uuid([u8; 16]);

impl Uuid {
    /// The UUID with these bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> Uuid {
        Uuid(bytes)
    }

    /// Its bytes.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` (lowercase hex, 8-4-4-4-12).
    pub fn hyphenated(&self) -> String {
        let mut s = String::with_capacity(36);
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                s.push('-');
            }
            s.push_str(&format!("{b:02x}"));
        }
        s
    }
}

impl std::fmt::Display for Uuid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GPU-{}", self.hyphenated())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn devices_are_plain_values() {
        assert_send_sync::<Device>();
        assert_send_sync::<DeviceProperties>();
        assert_send_sync::<DeviceAttributes>();
        let d = Device::from_ordinal(3);
        assert_eq!(d.ordinal(), 3);
        assert_eq!(d, Device::from_ordinal(3));
        assert_eq!(d.attributes().device(), d);
    }

    #[test]
    fn uuid_formats_as_nvidia_tools_do() {
        let mut bytes = [0u8; 16];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = i as u8 * 17;
        }
        let u = Uuid::from_bytes(bytes);
        assert_eq!(u.hyphenated(), "00112233-4455-6677-8899-aabbccddeeff");
        assert_eq!(u.to_string(), "GPU-00112233-4455-6677-8899-aabbccddeeff");
        assert_eq!(u.as_bytes(), &bytes);
    }

    #[test]
    fn properties_carry_every_raw_field() {
        let mut raw = sys::cudaDeviceProp {
            major: 9,
            minor: 0,
            multiProcessorCount: 132,
            clusterLaunch: 1,
            ..Default::default()
        };
        raw.name[..3].copy_from_slice(&[b'H' as c_char, b'1' as c_char, b'0' as c_char]);
        let p = DeviceProperties::from_raw(&raw);
        assert_eq!(p.arch(), "90");
        assert_eq!(p.compute_capability(), (9, 0));
        assert_eq!(p.name, "H10");
        assert_eq!(p.multi_processor_count, 132);
        assert!(p.cluster_launch);
        assert!(!p.integrated);
        let shown = p.to_string();
        assert!(shown.contains("multi_processor_count"), "{shown}");
        assert!(shown.lines().count() > 80, "{shown}");
    }
}
