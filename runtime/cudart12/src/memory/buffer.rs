// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/buffer.rs:
// edit the template, not this copy.

//! [`DeviceBuffer<T>`], owned device memory freed in stream order, and the borrowed views
//! [`DeviceSlice`] / [`DeviceSliceMut`] of a range of it; copies between them and host
//! slices or pinned buffers, blocking and asynchronous; memset.
//!
//! Ranges are checked: a sub-slice out of bounds and a copy whose lengths differ are
//! [`Error::InvalidArgument`](crate::Error::InvalidArgument) (a `Result`, like every other
//! refusal of the crate, so that `?` works where a range comes from input); nothing here
//! panics. Every operation records which stream used the memory (see the
//! [safety model](super#safety-model)), so that the free is ordered after all of them.

use std::ffi::{c_int, c_void};
use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::sync::Arc;

use super::allocator::{self, DeviceAllocator};
use super::pinned_slice::{chunk, chunk_count, AsPinnedSlice, AsPinnedSliceMut};
use super::pool::MemPool;
use super::{bounds, bytes_of, length_mismatch, DeviceCopy, DevicePtr};
use crate::error::{status, Error, Result};
use crate::lifetime::capture::{capture_of, refuse_capture, Capture};
use crate::lifetime::current::{current_ordinal, with_device};
use crate::lifetime::{self, wait_stream, Access, Home, Kind, Life, Part, Release};
use crate::stream::Stream;
use crate::sys;
use crate::sys::cudaMemcpyKind as Kind_;

/// Owned device memory holding `len` values of `T`.
///
/// Allocated in stream order on a [`Stream`] (`cudaMallocAsync`, the memory pool current to
/// the stream's device) unless an allocator was set with
/// [`set_allocator`](super::set_allocator) / [`using_allocator`](super::using_allocator) or
/// given to [`DeviceBuffer::with_allocator`]; freed in stream order on the same stream (its
/// *home*) when dropped, after every other stream that used it (`cudaStreamWaitEvent` on an
/// event recorded after its last operation there), on whatever thread or device the drop
/// runs. A graph that uses the buffer keeps the memory alive until the graph, every
/// executable graph made from it and their launches are gone. Dropping never blocks and
/// never panics (a failure goes to the hook of
/// [`set_drop_error_hook`](crate::error::set_drop_error_hook); [`close`] returns it; memory
/// that may still be in use is leaked, not freed). The buffer keeps its stream alive and
/// remembers its device: its operations run with that device current.
///
/// Fresh memory holds unspecified bytes (any bit pattern is a valid `T`, see
/// [`DeviceCopy`]); [`DeviceBuffer::zeroed`] clears it.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{DeviceBuffer, Stream};
/// let (a, b) = (Stream::non_blocking()?, Stream::non_blocking()?);
/// let src = DeviceBuffer::from_slice(&[1u32, 2, 3], &a)?;
/// let mut dst = DeviceBuffer::<u32>::new(3, &b)?;
/// dst.copy_from_device(&src, &b)?; // reads `src` on stream b
/// drop(src); // freed on stream a after the copy on b
/// assert_eq!(dst.to_vec()?, [1, 2, 3]);
/// # Ok(()) }
/// ```
///
/// `Send` and `Sync` when `T` is: the host only passes its address to CUDA.
///
/// [`close`]: DeviceBuffer::close
pub struct DeviceBuffer<T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    /// The home stream: where the memory was allocated and is freed, and where blocking
    /// copies run.
    stream: Stream,
    device: i32,
    custom_allocator: bool,
    /// The gate's record of the allocation; its last clone's drop frees the memory.
    life: Life,
}

// SAFETY: the buffer owns device memory the host never dereferences; its bookkeeping is
// behind the gate's mutex, its stream is `Send + Sync`, the allocator is `Send + Sync` by its
// trait.
unsafe impl<T: DeviceCopy + Send> Send for DeviceBuffer<T> {}
// SAFETY: `&DeviceBuffer` only reads the address and enqueues reads of the memory.
unsafe impl<T: DeviceCopy + Sync> Sync for DeviceBuffer<T> {}

/// A device address as a value the free can carry to another thread.
#[derive(Clone, Copy)]
struct Addr(usize);

impl Addr {
    fn of(ptr: *mut c_void) -> Addr {
        Addr(ptr as usize)
    }

    fn ptr(self) -> *mut c_void {
        self.0 as *mut c_void
    }
}

/// The error of an allocation refused because its stream is being captured.
fn allocation_in_capture() -> Error {
    Error::InvalidArgument(
        "a device buffer cannot be allocated on a stream being captured (its memory would \
         exist only while the graph runs): allocate it before the capture, or use \
         CaptureGuard::alloc for memory of the graph's own"
            .into(),
    )
}

/// The gate's release of a stream-ordered allocation: `cudaFreeAsync` on `stream`. Only for
/// memory nothing else frees, handed to the buffer's [`Life`].
fn free_async(ptr: DevicePtr, stream: &Stream) -> Release {
    let raw = Addr::of(stream.as_raw().0.cast());
    let addr = Addr::of(ptr.as_raw());
    // SAFETY: the gate calls this once, after every recorded use of the allocation, which
    // nothing else frees.
    Box::new(move || {
        status(unsafe { sys::cudaFreeAsync(addr.ptr(), sys::cudaStream_t(raw.ptr().cast())) })
    })
}

/// Runs `alloc` on `stream` unless the stream is being captured (then the allocation would
/// be a graph allocation, valid only inside the graph): refused before, and when a capture of
/// the crate's began on the stream meanwhile (the allocation may have been captured), the
/// memory is leaked and the allocation refused.
fn outside_capture(
    stream: &Stream,
    alloc: impl FnOnce() -> Result<DevicePtr>,
) -> Result<DevicePtr> {
    let queue = stream.queue();
    let epoch = {
        let _gate = queue.gate_shared();
        if capture_of(queue)? != Capture::No {
            return Err(allocation_in_capture());
        }
        queue.capture_epoch()
    };
    let ptr = alloc()?;
    if queue.capture_epoch() != epoch {
        return Err(allocation_in_capture());
    }
    Ok(ptr)
}

/// A borrowed view of `len` values of device memory (of a [`DeviceBuffer`], or foreign
/// memory through [`DeviceSlice::from_raw_parts`]), with the stream its blocking copies run
/// on.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{DeviceBuffer, Stream};
/// let stream = Stream::non_blocking()?;
/// let buf = DeviceBuffer::from_slice(&[1u32, 2, 3, 4, 5], &stream)?;
/// let middle = buf.slice(1..4)?;
/// assert_eq!(middle.to_vec()?, [2, 3, 4]);
/// assert!(buf.slice(4..9).is_err()); // out of bounds: an error, not a panic
/// # Ok(()) }
/// ```
#[derive(Clone, Copy)]
pub struct DeviceSlice<'a, T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    mem: Mem<'a>,
    _data: PhantomData<&'a [T]>,
}

/// A borrowed mutable view of `len` values of device memory.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{DeviceBuffer, Stream};
/// let (a, b) = (Stream::non_blocking()?, Stream::non_blocking()?);
/// let mut buf = DeviceBuffer::<u8>::new(2048, &a)?;
/// let (mut low, mut high) = buf.split_at_mut(1024)?;
/// low.memset(1, &a)?; // the two halves on two streams at once
/// high.memset(2, &b)?;
/// b.synchronize()?;
/// # Ok(()) }
/// ```
pub struct DeviceSliceMut<'a, T: DeviceCopy> {
    ptr: *mut T,
    len: usize,
    mem: Mem<'a>,
    _data: PhantomData<&'a mut [T]>,
}

/// Whose memory a view is: the owning buffer's allocation (tracked), or foreign memory with
/// the stream its blocking copies run on.
#[derive(Clone, Copy)]
pub(crate) struct Mem<'a> {
    pub(crate) stream: &'a Stream,
    /// The memory's device; `None` for foreign memory on a default stream (the current
    /// device is used).
    pub(crate) device: Option<i32>,
    /// The owner's record in the gate: a buffer's allocation, a module's globals; `None` for
    /// foreign memory.
    pub(crate) alloc: Option<&'a Life>,
}

impl<'a> Mem<'a> {
    /// Foreign memory (nothing tracks it) whose blocking copies run on `stream`.
    fn foreign(stream: &'a Stream) -> Mem<'a> {
        Mem {
            stream,
            device: stream.ordinal(),
            alloc: None,
        }
    }

    fn device(&self) -> Result<i32> {
        match self.device {
            Some(d) => Ok(d),
            None => current_ordinal(),
        }
    }

    /// The part an operation uses, and how (`None` for foreign memory).
    fn part(&self, access: Access) -> Option<Part<'a>> {
        self.alloc.map(|life| Part::whole(life, access))
    }
}

// SAFETY: views hold a device address and shared references to `Sync` bookkeeping.
unsafe impl<T: DeviceCopy + Sync> Send for DeviceSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy + Sync> Sync for DeviceSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy + Send> Send for DeviceSliceMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceCopy + Sync> Sync for DeviceSliceMut<'_, T> {}

/// Device memory that can be read: [`DeviceBuffer`], [`DeviceSlice`], [`DeviceSliceMut`].
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::memory::AsDeviceSlice;
/// use cudart12::{DeviceBuffer, DeviceCopy, Stream};
/// /// The first element of any device memory (a buffer or a view of one).
/// fn first<T: DeviceCopy>(mem: &impl AsDeviceSlice<T>) -> cudart12::Result<T> {
///     Ok(mem.as_device_slice().slice(..1)?.to_vec()?[0])
/// }
/// let buf = DeviceBuffer::from_slice(&[7u16, 8], &Stream::legacy())?;
/// assert_eq!(first(&buf)?, 7);
/// assert_eq!(first(&buf.slice(1..)?)?, 8);
/// # Ok(()) }
/// ```
pub trait AsDeviceSlice<T: DeviceCopy> {
    /// A view of the whole memory.
    fn as_device_slice(&self) -> DeviceSlice<'_, T>;
}

/// Device memory that can be written: [`DeviceBuffer`], [`DeviceSliceMut`].
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::memory::AsDeviceSliceMut;
/// use cudart12::{DeviceBuffer, DeviceCopy, Stream};
/// fn clear<T: DeviceCopy>(mem: &mut impl AsDeviceSliceMut<T>, stream: &Stream) -> cudart12::Result<()> {
///     mem.as_device_slice_mut().fill_zero(stream)
/// }
/// let stream = Stream::legacy();
/// let mut buf = DeviceBuffer::<f64>::new(100, &stream)?;
/// clear(&mut buf, &stream)?;
/// clear(&mut buf.slice_mut(..10)?, &stream)?;
/// # Ok(()) }
/// ```
pub trait AsDeviceSliceMut<T: DeviceCopy>: AsDeviceSlice<T> {
    /// A mutable view of the whole memory.
    fn as_device_slice_mut(&mut self) -> DeviceSliceMut<'_, T>;
}

/// `(start, end)` of `range` within `0..len`, or [`Error::InvalidArgument`].
fn checked_bounds(range: impl RangeBounds<usize>, len: usize) -> Result<(usize, usize)> {
    let shown = (range.start_bound().cloned(), range.end_bound().cloned());
    bounds(range, len).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "the range {shown:?} is out of bounds of {len} elements"
        ))
    })
}

/// `cudaMemcpyAsync` of `bytes` bytes.
///
/// # Safety
/// `dst` and `src` are valid for `bytes` bytes of the kind's sides until the stream reaches
/// the copy.
#[inline]
unsafe fn memcpy_async(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: Kind_,
    stream: &Stream,
) -> Result<()> {
    // SAFETY: the caller's promise.
    status(unsafe { sys::cudaMemcpyAsync(dst, src, bytes, kind, stream.as_raw()) })
}

/// Enqueues `op` on `stream` for memory `parts` (each with what the op does to it), with the
/// right device current, and records the uses (the gate's **use**, [`lifetime::enqueue`]).
fn run_async(
    stream: &Stream,
    device: i32,
    parts: &[Option<Part<'_>>],
    op: impl FnOnce() -> Result<()>,
) -> Result<()> {
    lifetime::enqueue_with(stream.queue(), device, parts.iter().flatten().copied(), op)
}

/// Runs a copy between device memory and borrowed host memory on `mem`'s stream and waits
/// until it cannot run any more (see [`wait_stream`]): refused on a stream being captured;
/// the wait happens also when enqueuing reported an error.
fn run_blocking(mem: Mem<'_>, op: impl FnOnce() -> Result<()>) -> Result<()> {
    let queue = mem.stream.queue();
    let _gate = queue.gate_shared();
    let device = queue.device().map_or_else(|| mem.device(), Ok)?;
    with_device(device, || {
        refuse_capture(queue)?;
        let enqueued = op();
        let waited = wait_stream(queue.raw());
        enqueued.and(waited)
    })
}

/// The methods every readable device memory type has (inherent, so no trait import).
macro_rules! read_methods {
    () => {
        /// The number of elements.
        #[inline]
        pub fn len(&self) -> usize {
            self.len
        }

        /// Whether there are no elements.
        #[inline]
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }

        /// The size in bytes.
        #[inline]
        pub fn size_bytes(&self) -> usize {
            self.len * std::mem::size_of::<T>()
        }

        /// The device address of the first element.
        #[inline]
        pub fn as_device_ptr(&self) -> DevicePtr {
            DevicePtr::from_raw(self.ptr.cast())
        }

        /// The stream that blocking copies of this memory run on (the owning buffer's).
        #[inline]
        pub fn stream(&self) -> &Stream {
            self.mem().stream
        }

        /// A view of elements `range`; [`Error::InvalidArgument`] when the range is out of
        /// bounds.
        pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
            let (start, end) = checked_bounds(range, self.len)?;
            Ok(DeviceSlice::new(
                self.ptr.wrapping_add(start),
                end - start,
                self.mem(),
            ))
        }

        /// Copies everything into `dst` (same length) and waits for the copy: it is
        /// enqueued on [`stream`](Self::stream), after the work already there. It never
        /// returns while the copy can still write `dst` (a failed wait is followed by
        /// polling until the copy is done or cannot run any more). Refused on a stream
        /// being captured.
        #[doc(alias = "cudaMemcpyAsync")]
        #[doc(alias = "cudaMemcpy")]
        pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
            if dst.len() != self.len {
                return Err(length_mismatch("copy_to_host", self.len, dst.len()));
            }
            if self.size_bytes() == 0 {
                return Ok(());
            }
            let (src, bytes) = (self.ptr.cast::<c_void>(), self.size_bytes());
            let out = dst.as_mut_ptr().cast::<c_void>();
            run_blocking(self.mem(), || {
                // SAFETY: `dst` is borrowed until the copy can no longer run; the source is
                // `len` elements of device memory.
                unsafe { memcpy_async(out, src, bytes, Kind_::DEVICE_TO_HOST, self.stream()) }
            })
        }

        /// The elements as a `Vec` (a blocking copy, as [`copy_to_host`](Self::copy_to_host)).
        #[doc(alias = "cudaMemcpyAsync")]
        #[doc(alias = "cudaMemcpy")]
        pub fn to_vec(&self) -> Result<Vec<T>> {
            let mut out: Vec<T> = Vec::with_capacity(self.len);
            if self.size_bytes() > 0 {
                let (src, bytes) = (self.ptr.cast::<c_void>(), self.size_bytes());
                let dst = out.as_mut_ptr().cast::<c_void>();
                run_blocking(self.mem(), || {
                    // SAFETY: the spare capacity holds `len` elements; the copy can no
                    // longer run when `run_blocking` returns.
                    unsafe { memcpy_async(dst, src, bytes, Kind_::DEVICE_TO_HOST, self.stream()) }
                })?;
            }
            // SAFETY: `len` elements written in full by the copy (any bits are a `T`), or
            // zero-sized elements.
            unsafe { out.set_len(self.len) };
            Ok(out)
        }

        /// Enqueues a copy of everything into `dst` on `stream` and returns at once.
        ///
        /// # Safety
        /// `dst` must stay alive, and must not be read or written by the host, until
        /// `stream` has executed the copy (synchronise the stream or an event recorded after
        /// it); a graph capturing the copy writes `dst` again at each launch. Prefer
        /// [`copy_to_pinned_async`](Self::copy_to_pinned_async), which is safe.
        #[doc(alias = "cudaMemcpyAsync")]
        pub unsafe fn copy_to_host_async(&self, dst: &mut [T], stream: &Stream) -> Result<()> {
            if dst.len() != self.len {
                return Err(length_mismatch("copy_to_host_async", self.len, dst.len()));
            }
            if self.size_bytes() == 0 {
                return Ok(());
            }
            let (src, bytes) = (self.ptr.cast::<c_void>(), self.size_bytes());
            let out = dst.as_mut_ptr().cast::<c_void>();
            let mem = self.mem();
            run_async(stream, mem.device()?, &[mem.part(Access::Read)], || {
                // SAFETY: the caller keeps `dst` valid until the copy has run.
                unsafe { memcpy_async(out, src, bytes, Kind_::DEVICE_TO_HOST, stream) }
            })
        }

        /// Enqueues a copy of everything into pinned memory `dst` (a
        /// [`PinnedBuffer`](super::PinnedBuffer) or an exclusive part of one, same length)
        /// on `stream` and returns at once; `dst`'s host views wait for the copy. Can be
        /// captured into a graph.
        #[doc(alias = "cudaMemcpyAsync")]
        pub fn copy_to_pinned_async(
            &self,
            dst: &mut impl AsPinnedSliceMut<T>,
            stream: &Stream,
        ) -> Result<()> {
            let dst = dst.as_pinned_slice_mut();
            if dst.len() != self.len {
                return Err(length_mismatch("copy_to_pinned_async", self.len, dst.len()));
            }
            let (src, bytes) = (self.ptr.cast::<c_void>(), self.size_bytes());
            let mem = self.mem();
            let others = mem.part(Access::Read);
            dst.use_async(stream, Access::Write, mem.device()?, others, |host| {
                // SAFETY: the pinned buffer stays alive and untouched by the host until
                // the copy has run (its views wait; a capturing graph holds it).
                unsafe { memcpy_async(host, src, bytes, Kind_::DEVICE_TO_HOST, stream) }
            })
        }
    };
}

/// The methods every writable device memory type has.
macro_rules! write_methods {
    () => {
        /// A mutable view of elements `range`; [`Error::InvalidArgument`] when the range is
        /// out of bounds.
        pub fn slice_mut(
            &mut self,
            range: impl RangeBounds<usize>,
        ) -> Result<DeviceSliceMut<'_, T>> {
            let (start, end) = checked_bounds(range, self.len)?;
            Ok(DeviceSliceMut::new(
                self.ptr.wrapping_add(start),
                end - start,
                self.mem(),
            ))
        }

        /// Two disjoint mutable views, `[0, mid)` and `[mid, len)`;
        /// [`Error::InvalidArgument`] when `mid > len`.
        pub fn split_at_mut(
            &mut self,
            mid: usize,
        ) -> Result<(DeviceSliceMut<'_, T>, DeviceSliceMut<'_, T>)> {
            if mid > self.len {
                return Err(Error::InvalidArgument(format!(
                    "the split point {mid} is out of bounds of {} elements",
                    self.len
                )));
            }
            let mem = self.mem();
            Ok((
                DeviceSliceMut::new(self.ptr, mid, mem),
                DeviceSliceMut::new(self.ptr.wrapping_add(mid), self.len - mid, mem),
            ))
        }

        /// Disjoint mutable views of `chunk_len` elements each (the last one shorter when
        /// `chunk_len` does not divide the length), to work on with one stream each;
        /// [`Error::InvalidArgument`] for `chunk_len == 0`.
        pub fn chunks_mut(
            &mut self,
            chunk_len: usize,
        ) -> Result<impl ExactSizeIterator<Item = DeviceSliceMut<'_, T>>> {
            let n = chunk_count(self.len, chunk_len)?;
            let (ptr, len, mem) = (self.ptr, self.len, self.mem());
            Ok((0..n).map(move |i| {
                let (start, part) = chunk(i, chunk_len, len);
                DeviceSliceMut::new(ptr.wrapping_add(start), part, mem)
            }))
        }

        /// Copies `src` (same length) here and waits for the copy, which is enqueued on
        /// [`stream`](Self::stream). It never returns while the copy can still read `src`.
        /// Refused on a stream being captured.
        #[doc(alias = "cudaMemcpyAsync")]
        #[doc(alias = "cudaMemcpy")]
        pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
            if src.len() != self.len {
                return Err(length_mismatch("copy_from_host", self.len, src.len()));
            }
            if self.size_bytes() == 0 {
                return Ok(());
            }
            let (dst, bytes) = (self.ptr.cast::<c_void>(), self.size_bytes());
            let input = src.as_ptr().cast::<c_void>();
            run_blocking(self.mem(), || {
                // SAFETY: `src` is borrowed until the copy can no longer run.
                unsafe { memcpy_async(dst, input, bytes, Kind_::HOST_TO_DEVICE, self.stream()) }
            })
        }

        /// Enqueues a copy of `src` here on `stream` and returns at once.
        ///
        /// # Safety
        /// `src` must stay alive, and must not be written by the host, until `stream` has
        /// executed the copy; a graph capturing the copy reads `src` again at each launch.
        /// Prefer [`copy_from_pinned_async`](Self::copy_from_pinned_async), which is safe.
        #[doc(alias = "cudaMemcpyAsync")]
        pub unsafe fn copy_from_host_async(&mut self, src: &[T], stream: &Stream) -> Result<()> {
            if src.len() != self.len {
                return Err(length_mismatch("copy_from_host_async", self.len, src.len()));
            }
            if self.size_bytes() == 0 {
                return Ok(());
            }
            let (dst, bytes) = (self.ptr.cast::<c_void>(), self.size_bytes());
            let input = src.as_ptr().cast::<c_void>();
            let mem = self.mem();
            run_async(stream, mem.device()?, &[mem.part(Access::Write)], || {
                // SAFETY: the caller keeps `src` valid until the copy has run.
                unsafe { memcpy_async(dst, input, bytes, Kind_::HOST_TO_DEVICE, stream) }
            })
        }

        /// Enqueues a copy of pinned memory `src` (a [`PinnedBuffer`](super::PinnedBuffer)
        /// or a part of one, same length) here on `stream` and returns at once; `src` waits
        /// for the copy before the host writes it or frees it. Can be captured into a graph.
        #[doc(alias = "cudaMemcpyAsync")]
        pub fn copy_from_pinned_async(
            &mut self,
            src: &impl AsPinnedSlice<T>,
            stream: &Stream,
        ) -> Result<()> {
            let src = src.as_pinned_slice();
            if src.len() != self.len {
                return Err(length_mismatch(
                    "copy_from_pinned_async",
                    self.len,
                    src.len(),
                ));
            }
            let (dst, bytes) = (self.ptr.cast::<c_void>(), self.size_bytes());
            let mem = self.mem();
            let others = mem.part(Access::Write);
            src.use_async(stream, Access::Read, mem.device()?, others, |host| {
                // SAFETY: the pinned buffer stays alive and unwritten by the host until the
                // copy has run (its views wait; a capturing graph holds it).
                unsafe { memcpy_async(dst, host, bytes, Kind_::HOST_TO_DEVICE, stream) }
            })
        }

        /// Enqueues a device-to-device copy of `src` (same length) here on `stream`.
        #[doc(alias = "cudaMemcpyAsync")]
        #[doc(alias = "cudaMemcpyPeerAsync")]
        pub fn copy_from_device(
            &mut self,
            src: &impl AsDeviceSlice<T>,
            stream: &Stream,
        ) -> Result<()> {
            let src = src.as_device_slice();
            if src.len() != self.len {
                return Err(length_mismatch("copy_from_device", self.len, src.len()));
            }
            if self.size_bytes() == 0 {
                return Ok(());
            }
            let (dst, bytes) = (self.ptr.cast::<c_void>(), self.size_bytes());
            let from = src.ptr.cast::<c_void>();
            let mem = self.mem();
            let parts = [mem.part(Access::Write), src.mem.part(Access::Read)];
            run_async(stream, mem.device()?, &parts, || {
                // SAFETY: both sides are device memory of `len` elements, kept until the
                // copy has run (their frees wait for it; a capturing graph holds them).
                unsafe { memcpy_async(dst, from, bytes, Kind_::DEVICE_TO_DEVICE, stream) }
            })
        }

        /// Enqueues setting every byte to `value` on `stream` (`cudaMemsetAsync`).
        #[doc(alias = "cudaMemsetAsync")]
        pub fn memset(&mut self, value: u8, stream: &Stream) -> Result<()> {
            let bytes = self.size_bytes();
            if bytes == 0 {
                return Ok(());
            }
            let dst = self.ptr.cast::<c_void>();
            let mem = self.mem();
            run_async(stream, mem.device()?, &[mem.part(Access::Write)], || {
                // SAFETY: `bytes` bytes of device memory, kept until the memset has run.
                status(unsafe {
                    sys::cudaMemsetAsync(dst, c_int::from(value), bytes, stream.as_raw())
                })
            })
        }

        /// Enqueues setting every element to zero bits on `stream`.
        #[doc(alias = "cudaMemsetAsync")]
        pub fn fill_zero(&mut self, stream: &Stream) -> Result<()> {
            self.memset(0, stream)
        }
    };
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// `len` elements on `stream`'s device, in stream order (see the type's documentation
    /// for which allocator is used). Contents unspecified. Refused
    /// ([`Error::InvalidArgument`]) on a stream being captured: the allocation would be a node
    /// of the graph, its memory existing only while the graph runs, and this buffer could be
    /// used before that on the host or another stream. A graph's own temporary memory is a
    /// [`GraphBuffer`](crate::memory::GraphBuffer)
    /// ([`CaptureGuard::alloc`](crate::graph::CaptureGuard::alloc)).
    #[doc(alias = "cudaMallocAsync")]
    #[inline]
    pub fn new(len: usize, stream: &Stream) -> Result<DeviceBuffer<T>> {
        match allocator::active() {
            None => Self::alloc_runtime(len, stream, None),
            Some(a) => Self::with_allocator(a, len, stream),
        }
    }

    /// `len` zeroed elements: [`new`](Self::new), then a `cudaMemsetAsync` on `stream`.
    #[doc(alias = "cudaMallocAsync")]
    #[doc(alias = "cudaMemsetAsync")]
    pub fn zeroed(len: usize, stream: &Stream) -> Result<DeviceBuffer<T>> {
        let mut b = Self::new(len, stream)?;
        b.fill_zero(stream)?;
        Ok(b)
    }

    /// A buffer holding a copy of `src` (blocking: returns once the copy is done).
    #[doc(alias = "cudaMallocAsync")]
    #[doc(alias = "cudaMemcpyAsync")]
    pub fn from_slice(src: &[T], stream: &Stream) -> Result<DeviceBuffer<T>> {
        let mut b = Self::new(src.len(), stream)?;
        b.copy_from_host(src)?;
        Ok(b)
    }

    /// `len` elements from `pool`, in stream order (`cudaMallocFromPoolAsync`).
    #[doc(alias = "cudaMallocFromPoolAsync")]
    pub fn new_in(pool: &MemPool, len: usize, stream: &Stream) -> Result<DeviceBuffer<T>> {
        Self::alloc_runtime(len, stream, Some(pool))
    }

    /// The device of memory allocated on `stream`: the stream's, or for a default stream
    /// the current one (0 when the runtime cannot say: then nothing it allocates works).
    #[inline]
    fn home_device(stream: &Stream) -> i32 {
        stream
            .ordinal()
            .or_else(|| current_ordinal().ok())
            .unwrap_or(0)
    }

    #[inline]
    fn alloc_runtime(len: usize, stream: &Stream, pool: Option<&MemPool>) -> Result<Self> {
        let bytes = bytes_of::<T>(len)?;
        let device = Self::home_device(stream);
        if bytes == 0 {
            return Ok(Self::wrap(DevicePtr::null(), len, stream, device, None));
        }
        let ptr = outside_capture(stream, || {
            let mut ptr: *mut c_void = std::ptr::null_mut();
            // SAFETY: one pointer is written; the stream (and pool) handles are alive.
            status(unsafe {
                match pool {
                    None => sys::cudaMallocAsync(&mut ptr, bytes, stream.as_raw()),
                    Some(p) => {
                        sys::cudaMallocFromPoolAsync(&mut ptr, bytes, p.as_raw(), stream.as_raw())
                    }
                }
            })?;
            Ok(DevicePtr::from_raw(ptr))
        })?;
        // The allocation is owned and freed once, by the gate, after every use.
        let free = free_async(ptr, stream);
        Ok(Self::wrap(ptr, len, stream, device, Some((free, false))))
    }

    /// The buffer of `len` elements at `ptr`, homed on `stream`, ended by `free` (`None`:
    /// not freed); the flag says whether a custom allocator frees it.
    #[inline]
    fn wrap(
        ptr: DevicePtr,
        len: usize,
        stream: &Stream,
        device: i32,
        free: Option<(Release, bool)>,
    ) -> DeviceBuffer<T> {
        let custom_allocator = free.as_ref().is_some_and(|(_, custom)| *custom);
        let home = Home::new(stream.queue(), device);
        let per_thread = home.key.is_per_thread();
        let release = if ptr.is_null() {
            None
        } else {
            free.map(|(f, _)| f)
        };
        let life = Life::new("device buffer", Kind::Device(home), release);
        if per_thread {
            // The allocation itself is a use, which another thread's free must follow: that
            // thread's per-thread stream is another stream.
            let _ = lifetime::enqueue(
                stream.queue(),
                device,
                &[Part::whole(&life, Access::Write)],
                || Ok(()),
            );
        }
        DeviceBuffer {
            ptr: ptr.as_raw().cast(),
            len,
            stream: stream.clone(),
            device,
            custom_allocator,
            life,
        }
    }

    /// `len` elements from `allocator`, which also frees them. Refused on a stream being
    /// captured (see [`new`](Self::new)).
    pub fn with_allocator(
        allocator: Arc<dyn DeviceAllocator>,
        len: usize,
        stream: &Stream,
    ) -> Result<DeviceBuffer<T>> {
        let bytes = bytes_of::<T>(len)?;
        let device = Self::home_device(stream);
        if bytes == 0 {
            return Ok(Self::wrap(DevicePtr::null(), len, stream, device, None));
        }
        let ptr = outside_capture(stream, || allocator.alloc(bytes, stream))?;
        let home = stream.clone();
        // SAFETY: from this allocator with this size, freed once, by the gate, after every
        // use was ordered before `home` (the trait's contract).
        let free: Release = Box::new(move || unsafe { allocator.free(ptr, bytes, &home) });
        Ok(Self::wrap(ptr, len, stream, device, Some((free, true))))
    }

    /// Takes ownership of `len` elements at `ptr`, to be freed with `cudaFreeAsync` on
    /// `stream`.
    ///
    /// # Safety
    /// `ptr` is a stream-ordered allocation (`cudaMallocAsync` / `cudaMallocFromPoolAsync`)
    /// of at least `len` elements, usable on `stream`, that nothing else frees, and no work
    /// outside `stream`'s order uses it.
    pub unsafe fn from_raw_parts(
        ptr: DevicePtr,
        len: usize,
        stream: &Stream,
    ) -> Result<DeviceBuffer<T>> {
        bytes_of::<T>(len)?;
        let device = Self::home_device(stream);
        // The caller's promise: a stream-ordered allocation nothing else frees.
        let free = free_async(ptr, stream);
        Ok(Self::wrap(ptr, len, stream, device, Some((free, false))))
    }

    /// Gives up ownership: the memory is no longer freed on drop. Returns its address and
    /// length. Work other streams or graphs still do with it is no longer waited for: who
    /// frees it must order the free after that work.
    pub fn into_raw_parts(self) -> (DevicePtr, usize) {
        let DeviceBuffer { ptr, len, life, .. } = self;
        life.give_up();
        (DevicePtr::from_raw(ptr.cast()), len)
    }

    /// A new buffer with the same contents (allocated and copied on the buffer's stream).
    #[doc(alias = "cudaMemcpyAsync")]
    pub fn try_clone(&self) -> Result<DeviceBuffer<T>> {
        let mut copy = Self::new(self.len, &self.stream)?;
        copy.copy_from_device(self, &self.stream)?;
        Ok(copy)
    }

    /// A view of the whole buffer.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        self.as_device_slice()
    }

    /// A mutable view of the whole buffer.
    pub fn as_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        self.as_device_slice_mut()
    }

    /// The buffer's device: its home stream's, where its operations run and it is freed.
    /// That is where the memory is, unless a pool or allocator of another device gave it
    /// ([`new_in`](Self::new_in) with another device's pool).
    pub fn device(&self) -> crate::Device {
        crate::Device::from_ordinal(self.device)
    }

    /// Frees the memory now (enqueued on the buffer's stream, after the other streams that
    /// used it) and returns the error, where dropping would report it to the hook. While a
    /// graph holds the memory, it is freed when the graph lets go.
    #[doc(alias = "cudaFreeAsync")]
    pub fn close(self) -> Result<()> {
        self.life.close()
    }

    /// The address of the pointer field: what a kernel argument list points to.
    #[inline]
    pub(crate) fn arg_ptr(&self) -> *mut c_void {
        std::ptr::addr_of!(self.ptr).cast_mut().cast()
    }

    /// The allocation's record in the gate, for a kernel launch's bookkeeping.
    #[inline]
    pub(crate) fn life(&self) -> &Life {
        &self.life
    }

    #[inline]
    fn mem(&self) -> Mem<'_> {
        Mem {
            stream: &self.stream,
            device: Some(self.device),
            alloc: Some(&self.life),
        }
    }

    read_methods!();
    write_methods!();
}

/// Allocation from a pool (with the buffers, so that pools need not know them).
impl MemPool {
    /// `len` elements from this pool on `stream` ([`DeviceBuffer::new_in`]).
    #[doc(alias = "cudaMallocFromPoolAsync")]
    pub fn alloc<T: DeviceCopy>(&self, len: usize, stream: &Stream) -> Result<DeviceBuffer<T>> {
        DeviceBuffer::new_in(self, len, stream)
    }
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("device", &self.device)
            .field("stream", &self.stream.as_raw())
            .field("custom_allocator", &self.custom_allocator)
            .finish()
    }
}

/// What views share: the address, the memory and its bookkeeping.
macro_rules! view_methods {
    () => {
        #[inline]
        fn new(ptr: *mut T, len: usize, mem: Mem<'a>) -> Self {
            Self {
                ptr,
                len,
                mem,
                _data: PhantomData,
            }
        }

        #[inline]
        fn mem(&self) -> Mem<'a> {
            self.mem
        }

        #[inline]
        pub(crate) fn arg_ptr(&self) -> *mut c_void {
            std::ptr::addr_of!(self.ptr).cast_mut().cast()
        }

        /// The owner's record in the gate, for a kernel launch's or a graph's bookkeeping
        /// (`None` for foreign memory).
        #[inline]
        pub(crate) fn life(&self) -> Option<&'a Life> {
            self.mem.alloc
        }

        /// **hold**: makes `graph` keep the owner's memory alive (nothing for foreign memory).
        pub(crate) fn hold_in(&self, graph: sys::cudaGraph_t) -> Result<()> {
            match self.mem.alloc {
                Some(life) => life.hold_in(graph),
                None => Ok(()),
            }
        }
    };
}

impl<'a, T: DeviceCopy> DeviceSlice<'a, T> {
    /// A view of `len` elements of foreign device memory at `ptr` (CuPy's
    /// `UnownedMemory`), whose blocking copies run on `stream`.
    ///
    /// # Safety
    /// `ptr` is device (or managed) memory holding `len` elements of `T`, alive for `'a`
    /// and until the work enqueued with this view has run (nothing tracks foreign memory).
    pub unsafe fn from_raw_parts(
        ptr: DevicePtr,
        len: usize,
        stream: &'a Stream,
    ) -> DeviceSlice<'a, T> {
        DeviceSlice::new(ptr.as_raw().cast(), len, Mem::foreign(stream))
    }

    /// A view of memory whose owner's bookkeeping is `mem` (a module's global).
    ///
    /// # Safety
    /// `ptr` is `len` elements of device memory that `mem.alloc` keeps alive for `'a` and,
    /// through the gate's records, until the work enqueued with the view has run.
    pub(crate) unsafe fn from_tracked(ptr: *mut T, len: usize, mem: Mem<'a>) -> DeviceSlice<'a, T> {
        DeviceSlice::new(ptr, len, mem)
    }

    /// **hold**: what a graph holds to keep the owner's memory alive (`None` for foreign
    /// memory; an error for memory no graph may hold).
    pub(crate) fn holding(&self) -> Result<Option<crate::lifetime::holdings::Held>> {
        self.mem.alloc.map(Life::hold).transpose()
    }

    view_methods!();
    read_methods!();
}

impl<'a, T: DeviceCopy> DeviceSliceMut<'a, T> {
    /// A mutable view of memory whose owner's bookkeeping is `mem` (a module's global).
    ///
    /// # Safety
    /// As [`DeviceSlice::from_tracked`], and nothing else writes the memory during `'a`.
    pub(crate) unsafe fn from_tracked(
        ptr: *mut T,
        len: usize,
        mem: Mem<'a>,
    ) -> DeviceSliceMut<'a, T> {
        DeviceSliceMut::new(ptr, len, mem)
    }

    /// A mutable view of `len` elements of foreign device memory at `ptr`.
    ///
    /// # Safety
    /// As [`DeviceSlice::from_raw_parts`], and nothing else writes the memory during `'a`.
    pub unsafe fn from_raw_parts(
        ptr: DevicePtr,
        len: usize,
        stream: &'a Stream,
    ) -> DeviceSliceMut<'a, T> {
        DeviceSliceMut::new(ptr.as_raw().cast(), len, Mem::foreign(stream))
    }

    view_methods!();
    read_methods!();
    write_methods!();
}

impl<T: DeviceCopy> AsDeviceSlice<T> for DeviceBuffer<T> {
    fn as_device_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice::new(self.ptr, self.len, self.mem())
    }
}

impl<T: DeviceCopy> AsDeviceSliceMut<T> for DeviceBuffer<T> {
    fn as_device_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        DeviceSliceMut::new(self.ptr, self.len, self.mem())
    }
}

impl<T: DeviceCopy> AsDeviceSlice<T> for DeviceSlice<'_, T> {
    fn as_device_slice(&self) -> DeviceSlice<'_, T> {
        *self
    }
}

impl<T: DeviceCopy> AsDeviceSlice<T> for DeviceSliceMut<'_, T> {
    fn as_device_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice::new(self.ptr, self.len, self.mem)
    }
}

impl<T: DeviceCopy> AsDeviceSliceMut<T> for DeviceSliceMut<'_, T> {
    fn as_device_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        DeviceSliceMut::new(self.ptr, self.len, self.mem)
    }
}

/// `Debug` of the views: their address and length.
macro_rules! debug_views {
    ($($view:ident),*) => {$(
        impl<T: DeviceCopy> std::fmt::Debug for $view<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($view))
                    .field("ptr", &self.ptr)
                    .field("len", &self.len)
                    .finish()
            }
        }
    )*};
}

debug_views!(DeviceSlice, DeviceSliceMut);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_and_views_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<DeviceBuffer<f32>>();
        assert_send_sync::<DeviceSlice<'static, u8>>();
        assert_send_sync::<DeviceSliceMut<'static, [u32; 4]>>();
    }

    #[test]
    fn empty_buffers_allocate_nothing_and_views_are_bounded() {
        // No CUDA call is made for zero elements, so this works without a GPU.
        let stream = Stream::legacy();
        let mut b = DeviceBuffer::<u32>::new(0, &stream).expect("empty buffer");
        assert!(b.is_empty());
        assert!(b.slice(0..0).is_ok());
        assert!(matches!(
            b.slice(0..1),
            Err(crate::Error::InvalidArgument(_))
        ));
        assert!(b.slice_mut(1..).is_err());
        assert!(b.split_at_mut(0).is_ok() && b.split_at_mut(1).is_err());
        assert_eq!(b.chunks_mut(4).expect("chunks").len(), 0);
        assert!(b.chunks_mut(0).is_err());
        assert_eq!(b.to_vec().expect("nothing to copy"), Vec::<u32>::new());
        let err = b.copy_from_host(&[1]).expect_err("length mismatch");
        assert!(matches!(err, crate::Error::InvalidArgument(_)), "{err}");
        b.close().expect("nothing to free");
    }
}
