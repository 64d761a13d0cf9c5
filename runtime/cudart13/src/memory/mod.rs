// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/mod.rs:
// edit the template, not this copy.

//! Memory: device buffers (stream-ordered by default), views into them, pinned host
//! buffers, managed memory, the runtime's memory pools, a Rust-side pinned host pool, and
//! the allocator and hook traits through which applications plug in their own allocation.
//!
//! - [`DeviceBuffer<T>`]: owned device memory of `len` elements, allocated with
//!   `cudaMallocAsync` on a stream (or from a [`MemPool`], or through a
//!   [`DeviceAllocator`]) and freed on that stream when dropped. [`DeviceSlice`] and
//!   [`DeviceSliceMut`] are borrowed views of a range of it.
//! - [`PinnedBuffer<T>`]: page-locked host memory that dereferences to `[T]`; the source or
//!   destination of copies that are asynchronous *and* safe (the buffer waits for them
//!   before the host touches it).
//! - [`ManagedBuffer<T>`]: unified memory (`cudaMallocManaged`) that dereferences to `[T]`.
//! - [`MemPool`]: a `cudaMemPool_t` (created, or a device's default), with its release
//!   threshold, trimming, statistics and a size limit. [`PinnedPool`]: a cache of pinned
//!   host blocks, as CuPy's `PinnedMemoryPool`.
//! - [`DeviceAllocator`], [`set_allocator`], [`using_allocator`], [`MemoryHook`]: CuPy's
//!   `set_allocator` / `using_allocator` / memory hooks.
//!
//! Element types are [`DeviceCopy`]: plain data for which every bit pattern is a value.
//!
//! # Safety model
//!
//! Host memory is what Rust must protect: a copy that reads or writes a borrowed host slice
//! asynchronously is `unsafe` (`copy_from_host_async`), because the borrow ends before the
//! copy does; blocking copies and copies to and from a [`PinnedBuffer`] are safe. Device
//! memory is only ever touched by the device: the ordering of work on several streams (an
//! event between a kernel on one stream and a copy on another) is the application's to
//! arrange, as in CUDA C; a mistake there gives wrong results, not host memory corruption.
//! A graph replays the device addresses it captured: buffers a graph uses must outlive its
//! launches.

mod allocator;
mod buffer;
mod managed;
mod pinned;
mod pool;

use std::ffi::c_void;

pub use allocator::{
    allocator, set_allocator, set_pinned_allocator, using_allocator, DebugPrintHook,
    DeviceAllocator, HookedAllocator, MemoryHook, PoolAllocator, RuntimeAllocator,
};
pub use buffer::{AsDeviceSlice, AsDeviceSliceMut, DeviceBuffer, DeviceSlice, DeviceSliceMut};
pub use managed::ManagedBuffer;
pub use pinned::{HostAllocator, PinnedBuffer, PinnedPool, RuntimeHostAllocator};
pub use pool::{MemPool, MemPoolStats};

/// Plain data that can be copied to and from the device byte for byte.
///
/// # Safety
/// Implementors are `Copy`, hold no references or host pointers whose validity Rust
/// relies on, and every bit pattern of their size is a valid value (device memory and
/// fresh allocations hold arbitrary bytes). `bool`, `char`, references and enums with
/// unused discriminants are not `DeviceCopy`. A `#[repr(C)]` struct of `DeviceCopy` fields
/// may implement it (`unsafe impl DeviceCopy for MyRecord {}`).
pub unsafe trait DeviceCopy: Copy + 'static {}

macro_rules! device_copy {
    ($($t:ty),*) => {
        $(
            // SAFETY: every bit pattern is a value of this primitive type.
            unsafe impl DeviceCopy for $t {}
        )*
    };
}
device_copy!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);
// SAFETY: an array of `DeviceCopy` values is `DeviceCopy` (no padding between elements).
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}
// SAFETY: a device address is an integer-like value; every bit pattern is one.
unsafe impl DeviceCopy for DevicePtr {}

/// A device address, as CUDA returns it (`void*` in device or unified address space). Only
/// a value: nothing is freed when it is dropped, and the host never dereferences it.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DevicePtr(*mut c_void);

// SAFETY: an address value, never dereferenced on the host.
unsafe impl Send for DevicePtr {}
// SAFETY: as above.
unsafe impl Sync for DevicePtr {}

impl DevicePtr {
    /// The null address.
    pub const fn null() -> DevicePtr {
        DevicePtr(std::ptr::null_mut())
    }

    /// Wraps a raw device address.
    pub const fn from_raw(ptr: *mut c_void) -> DevicePtr {
        DevicePtr(ptr)
    }

    /// The raw address.
    pub const fn as_raw(self) -> *mut c_void {
        self.0
    }

    /// Whether this is the null address.
    pub fn is_null(self) -> bool {
        self.0.is_null()
    }

    /// The address `bytes` further on (wrapping; nothing is checked).
    pub fn byte_add(self, bytes: usize) -> DevicePtr {
        DevicePtr(self.0.cast::<u8>().wrapping_add(bytes).cast())
    }

    /// The address as an integer.
    pub fn addr(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Debug for DevicePtr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DevicePtr({:p})", self.0)
    }
}

/// `len` elements of `T` in bytes, or an error when that overflows.
pub(crate) fn bytes_of<T>(len: usize) -> crate::Result<usize> {
    len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
        crate::Error::InvalidArgument(format!(
            "{len} elements of {} bytes overflow usize",
            std::mem::size_of::<T>()
        ))
    })
}

/// The error for two lengths that must agree.
pub(crate) fn length_mismatch(what: &str, expected: usize, found: usize) -> crate::Error {
    crate::Error::InvalidArgument(format!(
        "{what}: lengths differ ({expected} elements expected, {found} given)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_ptr_is_an_address() {
        let p = DevicePtr::from_raw(0x1000 as *mut c_void);
        assert_eq!(p.byte_add(0x10).addr(), 0x1010);
        assert!(DevicePtr::null().is_null());
        assert_eq!(format!("{p:?}"), "DevicePtr(0x1000)");
    }

    #[test]
    fn byte_counts_overflow_into_errors() {
        assert_eq!(bytes_of::<u32>(4).unwrap(), 16);
        assert!(matches!(
            bytes_of::<u64>(usize::MAX),
            Err(crate::Error::InvalidArgument(_))
        ));
    }
}
