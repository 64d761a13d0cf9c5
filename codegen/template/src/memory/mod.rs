//! Memory: device buffers (stream-ordered by default), views into them, pinned host
//! buffers, managed memory, the runtime's memory pools, a Rust-side pinned host pool, and
//! the allocator and hook traits through which applications plug in their own allocation.
//!
//! - [`DeviceBuffer<T>`]: owned device memory of `len` elements, allocated with
//!   `cudaMallocAsync` on a stream (or from a [`MemPool`], or through a
//!   [`DeviceAllocator`]) and freed on that stream when dropped. [`DeviceSlice`] and
//!   [`DeviceSliceMut`] are borrowed views of a range of it.
//! - [`PinnedBuffer<T>`]: page-locked host memory reached through views that wait; the source or
//!   destination of copies that are asynchronous *and* safe (the buffer waits for them
//!   before the host touches it).
//! - [`ManagedBuffer<T>`]: unified memory (`cudaMallocManaged`), on the host as `&[T]`.
//! - [`MemPool`]: a `cudaMemPool_t` (created, or a device's default), with its release
//!   threshold, trimming, statistics and a size limit. [`PinnedPool`]: a cache of pinned
//!   host blocks, as CuPy's `PinnedMemoryPool`.
//! - [`DeviceAllocator`], [`set_allocator`], [`using_allocator`], [`MemoryHook`]: CuPy's
//!   `set_allocator` / `using_allocator` / memory hooks.
//!
//! - [`GraphBuffer<T>`]: a graph's own device memory, allocated and freed inside the capture
//!   that makes the graph.
//!
//! Element types are [`DeviceCopy`]: plain data for which every bit pattern is a value.
//!
//! # Safety model
//!
//! A safe function of this crate is safe for every interleaving CUDA allows: other streams,
//! other threads, other devices, failed waits and captures. Five rules make that hold; every
//! one is kept in one place, the gate of the crate-private `lifetime` module, which every allocation,
//! module and handle of the crate speaks to in four verbs (use, hold, host, free) and which
//! is the one road by which anything stops existing.
//!
//! 1. **Stream order is memory order.** Every device, pinned and managed allocation knows
//!    every stream that used it since the host last waited for it: an operation enqueued on
//!    a stream other than the allocation's *home* (the stream a device buffer was allocated
//!    and is freed on; pinned memory has none) records an event after itself, one per
//!    stream and allocation, re-recorded by later operations there. A free is enqueued on
//!    the home stream after `cudaStreamWaitEvent` on each of those events; a re-pool, a host
//!    view and the drop of pinned memory wait for them on the host — on whatever thread or
//!    device the free or drop runs. The legacy and per-thread default streams are a
//!    different stream per device (and host thread), and are told apart as such.
//! 2. **Fail closed.** A wait that fails grants nothing: a host view returns the error;
//!    memory whose work could not be recorded or waited for is leaked, never freed or
//!    re-pooled. A blocking copy into or out of borrowed host memory never returns while the
//!    copy can still run: a failed wait is followed by polling until the copy is done or
//!    CUDA reports an error after which no more work runs. Waits made for bookkeeping run in
//!    relaxed capture mode, so that they neither fail because of, nor spoil, another
//!    thread's capture.
//! 3. **Graphs own what they reference.** Work captured on a stream (whichever stream of a
//!    fork-join capture: the graph is found through the stream's capture info) and explicit
//!    graph nodes make the graph own the memory they use through CUDA user objects, for as
//!    long as the graph and every executable graph, clone and parent made from it, and their
//!    launches, exist. Host memory a graph writes is never read through a live view while an
//!    executable graph may run: a launch of a graph holding a pinned buffer fails while a
//!    host view of that buffer is alive, and such a view waits for every launch made before
//!    it (per buffer: unrelated work never waits). Memory allocated by a capture is a
//!    [`GraphBuffer`], usable only by work of that capture and freed in it; a
//!    [`DeviceBuffer`] cannot be allocated on a stream being captured.
//! 4. **Device affinity.** Streams, events, buffers and pools remember their device; work
//!    this crate enqueues runs with its stream's device current (switched for the call and
//!    back), and bookkeeping events are made on the device of the stream they are recorded
//!    on.
//! 5. **What the crate cannot check is `unsafe`**: kernel launches (the kernel's parameter
//!    list), asynchronous copies of borrowed host slices, foreign handles and memory, and in
//!    the typed layer every function that destroys or invalidates what this layer owns or
//!    changes what a stream's work is captured into or ordered after (`cudaStreamEndCapture`,
//!    `cudaEventRecord`, `cudaGraphLaunch`, …), because this bookkeeping must see those.
//!
//! Ordering *between* streams for correct results (an event between a kernel writing a
//! buffer on one stream and a copy reading it on another) is still the application's to
//! arrange, as in CUDA C: a mistake there gives wrong values (every bit pattern of a
//! [`DeviceCopy`] type is a value), not undefined behaviour.
//!
//! Contracts the borrow checker enforces:
//!
//! ```compile_fail,E0502
//! # fn f(stream: &@CRATE@::Stream, dev: &@CRATE@::DeviceBuffer<u32>) -> @CRATE@::Result<()> {
//! // A host view of a pinned buffer cannot live across a copy that writes the buffer.
//! let mut host = @CRATE@::PinnedBuffer::<u32>::new(4)?;
//! let view = host.as_slice()?;
//! dev.copy_to_pinned_async(&mut host, stream)?;
//! println!("{}", view[0]);
//! # Ok(()) }
//! ```
//!
//! ```compile_fail,E0608
//! # fn f(stream: &@CRATE@::Stream) -> @CRATE@::Result<()> {
//! // Pinned memory is reached through views that wait, never by dereferencing the buffer.
//! let host = @CRATE@::PinnedBuffer::<u32>::new(4)?;
//! let first: u32 = host[0];
//! # Ok(()) }
//! ```
//!
//! ```compile_fail,E0502
//! # fn f(stream: &@CRATE@::Stream, dev: &@CRATE@::DeviceBuffer<u32>) -> @CRATE@::Result<()> {
//! // A part's host view cannot live across a copy into that part.
//! let mut host = @CRATE@::PinnedBuffer::<u32>::new(8)?;
//! let mut part = host.slice_mut(..4)?;
//! let view = part.as_slice()?;
//! dev.slice(..4)?.copy_to_pinned_async(&mut part, stream)?;
//! println!("{}", view[0]);
//! # Ok(()) }
//! ```
//!
//! ```compile_fail,E0502
//! # fn f(stream: &@CRATE@::Stream, dev: &mut @CRATE@::DeviceBuffer<u32>) -> @CRATE@::Result<()> {
//! // While a part of the buffer is borrowed (here: for an upload), the host cannot take a
//! // writable view of the whole buffer.
//! let mut host = @CRATE@::PinnedBuffer::<u32>::new(8)?;
//! let part = host.slice(..4)?;
//! let mut whole = host.as_mut_slice()?;
//! dev.slice_mut(..4)?.copy_from_pinned_async(&part, stream)?;
//! whole[0] = 1;
//! # Ok(()) }
//! ```

mod allocator;
mod buffer;
mod graph_buffer;
mod ipc;
mod managed;
pub(crate) mod pinned;
mod pinned_block;
mod pinned_slice;
mod pointer;
mod pool;
mod pool_ipc;

use std::ffi::c_void;
use std::ops::{Bound, RangeBounds};

pub use allocator::{
    allocator, set_allocator, set_pinned_allocator, using_allocator, DebugPrintHook,
    DeviceAllocator, HookedAllocator, HostAllocator, MemoryHook, PoolAllocator, RuntimeAllocator,
};
pub(crate) use buffer::Mem;
pub use buffer::{AsDeviceSlice, AsDeviceSliceMut, DeviceBuffer, DeviceSlice, DeviceSliceMut};
pub use graph_buffer::GraphBuffer;
pub use ipc::IpcMemHandle;
pub use managed::ManagedBuffer;
pub use pinned::{HostAllocFlags, PinnedBuffer, PinnedPool, RuntimeHostAllocator};
pub use pinned_block::{PinnedMut, PinnedRef};
pub use pinned_slice::{AsPinnedSlice, AsPinnedSliceMut, PinnedSlice, PinnedSliceMut};
pub use pointer::{MemoryType, PointerInfo};
pub use pool::{MemPool, MemPoolStats};
pub use pool_ipc::PoolPointerExport;

/// Plain data that can be copied to and from the device byte for byte.
///
/// # Safety
/// Implementors are `Copy`, hold no references or host pointers whose validity Rust
/// relies on, and every bit pattern of their size is a valid value (device memory and
/// fresh allocations hold arbitrary bytes). `bool`, `char`, references and enums with
/// unused discriminants are not `DeviceCopy`. A `#[repr(C)]` struct of `DeviceCopy` fields
/// may implement it (`unsafe impl DeviceCopy for MyRecord {}`).
///
/// ```
/// use @CRATE@::DeviceCopy;
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Particle {
///     position: [f32; 3],
///     mass: f32,
/// }
/// // SAFETY: four `f32`s without padding; every bit pattern is a value.
/// unsafe impl DeviceCopy for Particle {}
/// ```
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
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::{DeviceBuffer, Stream};
/// let buf = DeviceBuffer::<u64>::new(16, &Stream::legacy())?;
/// let ptr = buf.as_device_ptr(); // for a raw call or a record passed to a kernel
/// println!("{ptr:?}, {} bytes further on: {:?}", 64, ptr.byte_add(64));
/// # Ok(()) }
/// ```
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

/// `(start, end)` of `range` within `0..len`, or `None` when it is out of bounds or
/// decreasing.
pub(crate) fn bounds(range: impl RangeBounds<usize>, len: usize) -> Option<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1)?,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    (start <= end && end <= len).then_some((start, end))
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
    fn ranges_are_checked_like_slice_get() {
        assert_eq!(bounds(.., 10), Some((0, 10)));
        assert_eq!(bounds(2..5, 10), Some((2, 5)));
        assert_eq!(bounds(2..=5, 10), Some((2, 6)));
        assert_eq!(bounds(10.., 10), Some((10, 10)));
        assert_eq!(bounds(11.., 10), None);
        assert_eq!(bounds(..11, 10), None);
        let (high, low) = (5, 2);
        assert_eq!(bounds(high..low, 10), None);
        assert_eq!(bounds(..=usize::MAX, 10), None);
        assert_eq!(
            bounds((Bound::Excluded(usize::MAX), Bound::Unbounded), 10),
            None
        );
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
