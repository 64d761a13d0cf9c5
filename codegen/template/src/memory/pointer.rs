//! What CUDA knows of an address ([`PointerInfo`], `cudaPointerGetAttributes`): whether it is
//! device, pinned host, managed or unregistered memory, of which device, and where the
//! device and the host reach it. For classifying memory that came from elsewhere (another
//! library, a foreign allocation) before wrapping it (as the `unsafe` `from_raw_parts` views
//! do).
//!
//! Not here: owning or freeing such memory (a view of foreign memory owns nothing).

use std::ffi::c_void;

use crate::error::{status, Result};
use crate::sys;

/// The kind of memory at an address (`cudaMemoryType`: `UNREGISTERED`, `HOST` — pinned or
/// registered host memory — `DEVICE`, `MANAGED`).
pub type MemoryType = sys::cudaMemoryType;

/// What CUDA knows of an address ([`PointerInfo::of`]).
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::memory::{MemoryType, PointerInfo};
/// use @CRATE@::{DeviceBuffer, PinnedBuffer, Stream};
/// let stream = Stream::non_blocking()?;
/// let dev = DeviceBuffer::<u8>::new(64, &stream)?;
/// let info = PointerInfo::of(dev.as_device_ptr().as_raw())?;
/// assert_eq!(info.memory_type, MemoryType::DEVICE);
/// assert!(info.is_device_accessible() && !info.is_host_accessible());
/// let host = PinnedBuffer::<u8>::new(64)?;
/// assert_eq!(PointerInfo::of(host.as_ptr().cast())?.memory_type, MemoryType::HOST);
/// let heap = vec![0u8; 64];
/// assert_eq!(PointerInfo::of(heap.as_ptr().cast())?.memory_type, MemoryType::UNREGISTERED);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[doc(alias = "cudaPointerAttributes")]
pub struct PointerInfo {
    /// The kind of memory.
    pub memory_type: MemoryType,
    /// The device it belongs to (device memory), or the device current when it was
    /// allocated or registered (host memory); `None` for unregistered memory.
    pub device: Option<i32>,
    /// The address the device reaches it at (0 when it cannot).
    pub device_address: usize,
    /// The address the host reaches it at (0 when it cannot).
    pub host_address: usize,
}

impl PointerInfo {
    /// What CUDA knows of `ptr` (`cudaPointerGetAttributes`): any address may be asked
    /// about (nothing is read or written there); one CUDA does not know is
    /// [`MemoryType::UNREGISTERED`].
    #[doc(alias = "cudaPointerGetAttributes")]
    // The address is looked up by CUDA, never dereferenced: any value is safe to pass.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn of(ptr: *const c_void) -> Result<PointerInfo> {
        let mut attrs = sys::cudaPointerAttributes::default();
        // SAFETY: one record is written; the address is only looked up.
        status(unsafe { sys::cudaPointerGetAttributes(&mut attrs, ptr) })?;
        let known = attrs.type_ != MemoryType::UNREGISTERED;
        Ok(PointerInfo {
            memory_type: attrs.type_,
            device: (known && attrs.device >= 0).then_some(attrs.device),
            device_address: attrs.devicePointer as usize,
            host_address: attrs.hostPointer as usize,
        })
    }

    /// Whether device code can reach the memory (device, managed, or mapped host memory).
    pub fn is_device_accessible(&self) -> bool {
        self.memory_type != MemoryType::UNREGISTERED && self.device_address != 0
    }

    /// Whether the host can reach the memory (host, managed, or unregistered memory).
    pub fn is_host_accessible(&self) -> bool {
        self.memory_type == MemoryType::UNREGISTERED
            || self.memory_type == MemoryType::MANAGED
            || self.host_address != 0
    }
}
