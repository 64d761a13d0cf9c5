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
use std::sync::{Arc, Mutex, MutexGuard};

use super::allocator::{self, DeviceAllocator};
use super::pinned_slice::{chunk, chunk_count, AsPinnedSlice, AsPinnedSliceMut};
use super::pool::MemPool;
use super::release::{release_later, retry_later};
use super::track::{self, Access, Capture, Enqueued, StreamKey, Tracked, Uses, WHOLE};
use super::{bounds, bytes_of, length_mismatch, DeviceCopy, DevicePtr};
use crate::device;
use crate::error::{report_drop_error, status, Error, Result};
use crate::stream::Stream;
use crate::sys;
use crate::sys::cudaMemcpyKind as Kind;

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
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::{DeviceBuffer, Stream};
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
    /// Taken out once, by `Drop`, `close` or `into_raw_parts`.
    alloc: std::mem::ManuallyDrop<DeviceAlloc>,
}

// SAFETY: the buffer owns device memory the host never dereferences; its bookkeeping is
// behind a mutex, its stream is `Send + Sync`, the allocator is `Send + Sync` by its trait.
unsafe impl<T: DeviceCopy + Send> Send for DeviceBuffer<T> {}
// SAFETY: `&DeviceBuffer` only reads the address and enqueues reads of the memory.
unsafe impl<T: DeviceCopy + Sync> Sync for DeviceBuffer<T> {}

/// The allocation behind a [`DeviceBuffer`]: its home stream (where it is freed), device,
/// allocator, and what used it.
pub(crate) struct DeviceAlloc {
    ptr: *mut c_void,
    bytes: usize,
    home: Stream,
    home_key: StreamKey,
    device: i32,
    allocator: Option<Arc<dyn DeviceAllocator>>,
    state: Mutex<AllocState>,
}

#[derive(Default)]
struct AllocState {
    uses: Uses,
    /// The capture in which work on another stream than the home used the memory.
    captured_off_home: Option<u64>,
    /// Shared with the graphs that use the memory; set once a graph takes it.
    keeper: Option<Arc<Keeper>>,
    /// The graph (and capture) the memory was last handed to, so that it is held once per
    /// capture.
    kept_in: Option<(usize, u64)>,
}

// SAFETY: device memory the host never dereferences; the state is behind a mutex.
unsafe impl Send for DeviceAlloc {}
// SAFETY: as above.
unsafe impl Sync for DeviceAlloc {}

/// What graphs hold of a device allocation: the free, once the buffer is gone; it runs when
/// the last holder lets go (on the release thread, for a graph).
#[derive(Default)]
struct Keeper {
    free: Mutex<Option<Free>>,
}

impl Drop for Keeper {
    fn drop(&mut self) {
        if let Some(free) = self
            .free
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            if let Err(e) = free.run() {
                report_drop_error("device buffer", &e);
            }
        }
    }
}

/// What dropping a buffer does: free now, or hand the free to the graphs holding the
/// memory.
struct Release {
    free: Free,
    keeper: Option<Arc<Keeper>>,
    captured_off_home: Option<u64>,
}

impl Release {
    fn run(self) -> Result<()> {
        let Some(keeper) = self.keeper else {
            return self.free.run();
        };
        // Dropped during the capture that allocated it (a graph allocation) and used only on
        // its home stream there: the free is captured after those uses, as CUDA's graph
        // memory nodes want. Memory not allocated by the graph cannot be freed in a capture
        // (CUDA refuses): the graphs holding it free it once they let go.
        // (Only the runtime's own allocations: another allocator frees its memory itself.)
        if let (Ok(Capture::Into(_, id)), false, true) = (
            crate::graph::capture_of(&self.free.home),
            self.free.bytes == 0,
            self.free.allocator.is_none(),
        ) {
            if self.captured_off_home != Some(id) {
                let freed = {
                    let _gate = self.free.home.gate_shared();
                    // SAFETY: the allocation is owned and freed once (here, or by the
                    // keeper).
                    status(unsafe { sys::cudaFreeAsync(self.free.ptr, self.free.home.as_raw()) })
                };
                if freed.is_ok() {
                    std::mem::forget(self.free);
                    return Ok(());
                }
            }
        }
        *keeper.free.lock().unwrap_or_else(|e| e.into_inner()) = Some(self.free);
        Ok(())
    }
}

/// A [`Release`] run when dropped (on the release thread).
struct ReleaseOnDrop(Option<Release>);

impl Drop for ReleaseOnDrop {
    fn drop(&mut self) {
        if let Some(r) = self.0.take() {
            if let Err(e) = r.run() {
                report_drop_error("device buffer", &e);
            }
        }
    }
}

/// Freeing a device allocation in stream order on its home stream, after every use.
struct Free {
    ptr: *mut c_void,
    bytes: usize,
    home: Stream,
    home_key: StreamKey,
    device: i32,
    allocator: Option<Arc<dyn DeviceAllocator>>,
    uses: Uses,
}

// SAFETY: as `DeviceAlloc`.
unsafe impl Send for Free {}

/// What a free attempt came to.
enum Freed {
    Done(Result<()>),
    /// The home stream is being captured (a free there would be captured): try later.
    NotYet(Free),
}

impl Free {
    /// Frees now, or later on the release thread while the home stream is being captured.
    /// Memory that may still be in use (a use that could not be recorded or waited for) is
    /// leaked and the error returned.
    fn run(self) -> Result<()> {
        match self.attempt() {
            Freed::Done(result) => result,
            Freed::NotYet(free) => {
                let mut pending = Some(free);
                retry_later(Box::new(move || match pending.take().map(Free::attempt) {
                    None => true,
                    Some(Freed::Done(result)) => {
                        if let Err(e) = result {
                            report_drop_error("device buffer", &e);
                        }
                        true
                    }
                    Some(Freed::NotYet(free)) => {
                        pending = Some(free);
                        false
                    }
                }));
                Ok(())
            }
        }
    }

    fn attempt(mut self) -> Freed {
        if self.bytes == 0 {
            return Freed::Done(Ok(()));
        }
        if let Some(e) = self.uses.poisoned_error() {
            std::mem::forget(self);
            return Freed::Done(Err(e));
        }
        // The legacy and per-thread streams are the current device's: switch to the
        // memory's (when the runtime cannot say which is current, there is nothing to
        // switch; the free goes to the allocator as it is).
        let switch = !matches!(self.home_key, StreamKey::Handle(_))
            && device::current_ordinal().is_ok_and(|current| current != self.device);
        let result = if switch {
            let device = self.device;
            device::with_device(device, || self.enqueue_free())
        } else {
            self.enqueue_free()
        };
        match result {
            Ok(()) => Freed::Done(Ok(())),
            Err(e) if is_capturing_error(&e) => Freed::NotYet(self),
            Err(e) => {
                // The memory may still be in use: leak it (failing closed).
                std::mem::forget(self);
                Freed::Done(Err(e))
            }
        }
    }

    /// Orders the free after every recorded use and enqueues it on the home stream, under
    /// the stream's gate (no capture of the crate's begins meanwhile); the marker error
    /// [`capturing`] while the home stream is being captured (a free there fails, and
    /// waits there would be captured instead of run).
    fn enqueue_free(&mut self) -> Result<()> {
        let home = self.home.as_raw();
        if !self.uses.is_empty() {
            // Under the gate, no capture of the crate's begins on the stream between the
            // check and the waits (which a capture would take in instead of running them).
            let _gate = self.home.gate_shared();
            if crate::graph::capture_graph(&self.home)? != Capture::No {
                return Err(capturing());
            }
            self.uses.order_before(home)?;
        }
        let freed = match &self.allocator {
            // SAFETY: the allocation is owned, freed once, after every recorded use.
            None => status(unsafe { sys::cudaFreeAsync(self.ptr, home) }),
            // SAFETY: from this allocator with this size; work using it is ordered before
            // the free on `home` (the trait's contract).
            Some(a) => unsafe { a.free(DevicePtr::from_raw(self.ptr), self.bytes, &self.home) },
        };
        freed.map_err(|e| match crate::graph::capture_graph(&self.home) {
            Ok(Capture::No) => e,
            _ => capturing(),
        })
    }
}

/// The marker error of a free deferred because its stream is being captured.
fn capturing() -> Error {
    Error::InvalidArgument("the home stream is being captured".into())
}

fn is_capturing_error(e: &Error) -> bool {
    matches!(e, Error::InvalidArgument(m) if m == "the home stream is being captured")
}

impl DeviceAlloc {
    fn new(
        ptr: *mut c_void,
        bytes: usize,
        home: &Stream,
        device: i32,
        allocator: Option<Arc<dyn DeviceAllocator>>,
    ) -> DeviceAlloc {
        DeviceAlloc {
            ptr,
            bytes,
            home: home.clone(),
            home_key: StreamKey::of(home, device),
            device,
            allocator,
            state: Mutex::new(AllocState::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, AllocState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes `graph` keep the memory alive (once per graph and capture id).
    fn keep_in(
        keeper: &mut Option<Arc<Keeper>>,
        kept_in: &mut Option<(usize, u64)>,
        graph: sys::cudaGraph_t,
        id: u64,
    ) -> Result<()> {
        let key = (graph.0 as usize, id);
        if *kept_in == Some(key) {
            return Ok(());
        }
        let keeper = keeper.get_or_insert_with(Arc::default).clone();
        crate::graph::keep_in_graph(graph, Box::new(keeper))?;
        *kept_in = Some(key);
        Ok(())
    }

    /// After a per-thread allocation: the allocation itself is a use, which another thread
    /// must order its free after.
    fn note_allocation(&self) {
        if self.bytes == 0 || !self.home_key.is_per_thread() {
            return;
        }
        let _ = track::enqueue(
            &self.home,
            self.device,
            || Ok(()),
            |done| self.track(done, Access::Write),
        );
    }

    /// Frees the memory (see [`DeviceBuffer`]'s documentation): now, or once the graphs
    /// holding it let go; inside a CUDA callback (where no CUDA call is allowed), on the
    /// release thread.
    fn release(self) -> Result<()> {
        let DeviceAlloc {
            ptr,
            bytes,
            home,
            home_key,
            device,
            allocator,
            state,
        } = self;
        let st = state.into_inner().unwrap_or_else(|e| e.into_inner());
        let release = Release {
            free: Free {
                ptr,
                bytes,
                home,
                home_key,
                device,
                allocator,
                uses: st.uses,
            },
            keeper: st.keeper,
            captured_off_home: st.captured_off_home,
        };
        if crate::loader::in_callback() {
            release_later(Box::new(ReleaseOnDrop(Some(release))));
            return Ok(());
        }
        release.run()
    }
}

impl Tracked for DeviceAlloc {
    fn track(&self, done: &Enqueued<'_>, access: Access) {
        let mut guard = self.lock();
        let AllocState {
            uses,
            captured_off_home,
            keeper,
            kept_in,
        } = &mut *guard;
        done.track(uses, self.home_key, access, WHOLE, |graph, id| {
            if done.key != self.home_key {
                *captured_off_home = Some(id);
            }
            Self::keep_in(keeper, kept_in, graph, id)
        });
    }

    fn keeper(&self) -> crate::graph::Kept {
        Box::new(self.lock().keeper.get_or_insert_with(Arc::default).clone())
    }
}

/// A borrowed view of `len` values of device memory (of a [`DeviceBuffer`], or foreign
/// memory through [`DeviceSlice::from_raw_parts`]), with the stream its blocking copies run
/// on.
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::{DeviceBuffer, Stream};
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
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::{DeviceBuffer, Stream};
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
    /// The owner's bookkeeping: a buffer's allocation, a module's globals; `None` for
    /// foreign memory.
    pub(crate) alloc: Option<&'a dyn Tracked>,
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
            None => device::current_ordinal(),
        }
    }

    fn tracked(&self) -> Option<&dyn Tracked> {
        self.alloc
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
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::memory::AsDeviceSlice;
/// use cudart13::{DeviceBuffer, DeviceCopy, Stream};
/// /// The first element of any device memory (a buffer or a view of one).
/// fn first<T: DeviceCopy>(mem: &impl AsDeviceSlice<T>) -> cudart13::Result<T> {
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
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::memory::AsDeviceSliceMut;
/// use cudart13::{DeviceBuffer, DeviceCopy, Stream};
/// fn clear<T: DeviceCopy>(mem: &mut impl AsDeviceSliceMut<T>, stream: &Stream) -> cudart13::Result<()> {
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
    kind: Kind,
    stream: &Stream,
) -> Result<()> {
    // SAFETY: the caller's promise.
    status(unsafe { sys::cudaMemcpyAsync(dst, src, bytes, kind, stream.as_raw()) })
}

/// Enqueues `op` on `stream` for memory `parts` (each with what the op does to it), with the
/// right device current, and records the uses (see [`track::enqueue`]).
fn run_async(
    stream: &Stream,
    device: i32,
    parts: &[(Option<&dyn Tracked>, Access)],
    op: impl FnOnce() -> Result<()>,
) -> Result<()> {
    track::enqueue(stream, device, op, |done| {
        for (part, access) in parts {
            if let Some(p) = part {
                p.track(done, *access);
            }
        }
    })
}

/// Runs a copy between device memory and borrowed host memory on `mem`'s stream and waits
/// until it cannot run any more (see [`track::wait_stream`]): refused on a stream being
/// captured; the wait happens also when enqueuing reported an error.
fn run_blocking(mem: Mem<'_>, op: impl FnOnce() -> Result<()>) -> Result<()> {
    let stream = mem.stream;
    let _gate = stream.gate_shared();
    let device = stream.ordinal().map_or_else(|| mem.device(), Ok)?;
    device::with_device(device, || {
        track::refuse_capture(stream)?;
        let enqueued = op();
        let waited = track::wait_stream(stream.as_raw());
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
                unsafe { memcpy_async(out, src, bytes, Kind::DEVICE_TO_HOST, self.stream()) }
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
                    unsafe { memcpy_async(dst, src, bytes, Kind::DEVICE_TO_HOST, self.stream()) }
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
            run_async(
                stream,
                mem.device()?,
                &[(mem.tracked(), Access::Read)],
                || {
                    // SAFETY: the caller keeps `dst` valid until the copy has run.
                    unsafe { memcpy_async(out, src, bytes, Kind::DEVICE_TO_HOST, stream) }
                },
            )
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
            let part;
            let others: &[(&dyn Tracked, Access)] = match mem.alloc {
                Some(a) => {
                    part = [(a, Access::Read)];
                    &part
                }
                None => &[],
            };
            dst.use_async(stream, Access::Write, mem.device()?, others, |host| {
                // SAFETY: the pinned buffer stays alive and untouched by the host until
                // the copy has run (its views wait; a capturing graph holds it).
                unsafe { memcpy_async(host, src, bytes, Kind::DEVICE_TO_HOST, stream) }
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
                unsafe { memcpy_async(dst, input, bytes, Kind::HOST_TO_DEVICE, self.stream()) }
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
            run_async(
                stream,
                mem.device()?,
                &[(mem.tracked(), Access::Write)],
                || {
                    // SAFETY: the caller keeps `src` valid until the copy has run.
                    unsafe { memcpy_async(dst, input, bytes, Kind::HOST_TO_DEVICE, stream) }
                },
            )
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
            let part;
            let others: &[(&dyn Tracked, Access)] = match mem.alloc {
                Some(a) => {
                    part = [(a, Access::Write)];
                    &part
                }
                None => &[],
            };
            src.use_async(stream, Access::Read, mem.device()?, others, |host| {
                // SAFETY: the pinned buffer stays alive and unwritten by the host until the
                // copy has run (its views wait; a capturing graph holds it).
                unsafe { memcpy_async(dst, host, bytes, Kind::HOST_TO_DEVICE, stream) }
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
            let parts = [
                (mem.tracked(), Access::Write),
                (src.mem.tracked(), Access::Read),
            ];
            run_async(stream, mem.device()?, &parts, || {
                // SAFETY: both sides are device memory of `len` elements, kept until the
                // copy has run (their frees wait for it; a capturing graph holds them).
                unsafe { memcpy_async(dst, from, bytes, Kind::DEVICE_TO_DEVICE, stream) }
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
            run_async(
                stream,
                mem.device()?,
                &[(mem.tracked(), Access::Write)],
                || {
                    // SAFETY: `bytes` bytes of device memory, kept until the memset has run.
                    status(unsafe {
                        sys::cudaMemsetAsync(dst, c_int::from(value), bytes, stream.as_raw())
                    })
                },
            )
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
    /// for which allocator is used). Contents unspecified. On a stream being captured the
    /// allocation becomes a node of the graph (CUDA's graph memory nodes): its memory is
    /// valid in the graph's work and, once the graph has run, until the buffer is dropped.
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
            .or_else(|| device::current_ordinal().ok())
            .unwrap_or(0)
    }

    #[inline]
    fn alloc_runtime(len: usize, stream: &Stream, pool: Option<&MemPool>) -> Result<Self> {
        let bytes = bytes_of::<T>(len)?;
        let device = Self::home_device(stream);
        let mut ptr: *mut c_void = std::ptr::null_mut();
        if bytes > 0 {
            // SAFETY: one pointer is written; the stream (and pool) handles are alive.
            status(unsafe {
                match pool {
                    None => sys::cudaMallocAsync(&mut ptr, bytes, stream.as_raw()),
                    Some(p) => {
                        sys::cudaMallocFromPoolAsync(&mut ptr, bytes, p.as_raw(), stream.as_raw())
                    }
                }
            })?;
        }
        Ok(Self::wrap(
            DeviceAlloc::new(ptr, bytes, stream, device, None),
            len,
        ))
    }

    #[inline]
    fn wrap(alloc: DeviceAlloc, len: usize) -> DeviceBuffer<T> {
        alloc.note_allocation();
        DeviceBuffer {
            ptr: alloc.ptr.cast(),
            len,
            alloc: std::mem::ManuallyDrop::new(alloc),
        }
    }

    /// `len` elements from `allocator`, which also frees them.
    pub fn with_allocator(
        allocator: Arc<dyn DeviceAllocator>,
        len: usize,
        stream: &Stream,
    ) -> Result<DeviceBuffer<T>> {
        let bytes = bytes_of::<T>(len)?;
        let device = Self::home_device(stream);
        let ptr = if bytes > 0 {
            allocator.alloc(bytes, stream)?
        } else {
            DevicePtr::null()
        };
        let alloc = DeviceAlloc::new(ptr.as_raw(), bytes, stream, device, Some(allocator));
        Ok(Self::wrap(alloc, len))
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
        let bytes = bytes_of::<T>(len)?;
        let device = Self::home_device(stream);
        Ok(Self::wrap(
            DeviceAlloc::new(ptr.as_raw(), bytes, stream, device, None),
            len,
        ))
    }

    /// Gives up ownership: the memory is no longer freed on drop. Returns its address and
    /// length. Work other streams or graphs still do with it is no longer waited for: who
    /// frees it must order the free after that work.
    pub fn into_raw_parts(self) -> (DevicePtr, usize) {
        let mut me = std::mem::ManuallyDrop::new(self);
        // SAFETY: taken once; `me` is never dropped. The allocation's bookkeeping is dropped
        // (events back to the pool, graphs' keepers without a free); nothing is freed.
        drop(unsafe { std::mem::ManuallyDrop::take(&mut me.alloc) });
        (DevicePtr::from_raw(me.ptr.cast()), me.len)
    }

    /// A new buffer with the same contents (allocated and copied on the buffer's stream).
    #[doc(alias = "cudaMemcpyAsync")]
    pub fn try_clone(&self) -> Result<DeviceBuffer<T>> {
        let mut copy = Self::new(self.len, &self.alloc.home)?;
        copy.copy_from_device(self, &self.alloc.home)?;
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
        crate::Device::from_ordinal(self.alloc.device)
    }

    /// Frees the memory now (enqueued on the buffer's stream, after the other streams that
    /// used it) and returns the error, where dropping would report it to the hook. While a
    /// graph holds the memory, it is freed when the graph lets go.
    #[doc(alias = "cudaFreeAsync")]
    pub fn close(self) -> Result<()> {
        let mut me = std::mem::ManuallyDrop::new(self);
        // SAFETY: taken once; `me` is never dropped.
        unsafe { std::mem::ManuallyDrop::take(&mut me.alloc) }.release()
    }

    /// The address of the pointer field: what a kernel argument list points to.
    #[inline]
    pub(crate) fn arg_ptr(&self) -> *mut c_void {
        std::ptr::addr_of!(self.ptr).cast_mut().cast()
    }

    /// The allocation, for a kernel launch's bookkeeping.
    #[inline]
    pub(crate) fn tracked(&self) -> &dyn Tracked {
        &*self.alloc
    }

    #[inline]
    fn mem(&self) -> Mem<'_> {
        Mem {
            stream: &self.alloc.home,
            device: Some(self.alloc.device),
            alloc: Some(&*self.alloc as &dyn Tracked),
        }
    }

    read_methods!();
    write_methods!();
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; the buffer is gone after this.
        let alloc = unsafe { std::mem::ManuallyDrop::take(&mut self.alloc) };
        if let Err(e) = alloc.release() {
            report_drop_error("device buffer", &e);
        }
    }
}

impl<T: DeviceCopy> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("device", &self.alloc.device)
            .field("stream", &self.alloc.home.as_raw())
            .field("custom_allocator", &self.alloc.allocator.is_some())
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

        /// The owning buffer's allocation, for a kernel launch's or a graph's bookkeeping.
        #[inline]
        pub(crate) fn tracked(&self) -> Option<&'a dyn Tracked> {
            self.mem.alloc
        }

        /// Makes `graph` keep the owning buffer's memory alive (nothing for foreign memory).
        pub(crate) fn keep_in(&self, graph: sys::cudaGraph_t) -> Result<()> {
            match self.mem.alloc {
                Some(a) => Tracked::keep_in(a, graph),
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
    /// through its [`Tracked`] records, until the work enqueued with the view has run.
    pub(crate) unsafe fn from_tracked(ptr: *mut T, len: usize, mem: Mem<'a>) -> DeviceSlice<'a, T> {
        DeviceSlice::new(ptr, len, mem)
    }

    /// What a graph holds to keep the owner's memory alive (`None` for foreign memory).
    pub(crate) fn keeper(&self) -> Option<crate::graph::Kept> {
        self.mem.alloc.map(|a| a.keeper())
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
