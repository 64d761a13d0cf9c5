// Copied by `cargo xtask codegen` from the generator's codegen/template/src/stream.rs:
// edit the template, not this copy.

//! Streams: owned streams with flags and priorities, the legacy and per-thread default
//! streams, foreign streams wrapped without being owned; synchronising, querying, waiting
//! on an event, and host callbacks that run Rust closures.
//!
//! A [`Stream`] is a shared handle (`Clone` is a reference count, not a new stream): the
//! CUDA stream is destroyed when the last clone of an owned stream is dropped, so device
//! buffers can keep the stream they free on alive without lifetimes. Streams are `Send` and
//! `Sync`: the CUDA runtime API is thread-safe and a stream handle may be used from any
//! host thread (the CUDA Programming Guide, "Streams"; the per-thread default stream is
//! the calling thread's own, whichever thread that is).
//!
//! Stream capture into graphs ([`Stream::begin_capture`]) is in [`crate::graph`]; kernel
//! launches ([`Stream::launch`]) are in [`crate::kernel`]; copies and allocations are methods
//! of the memory types, which take the stream they are ordered on.

use std::collections::HashMap;
use std::ffi::{c_int, c_uint, c_ulonglong, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLockWriteGuard};

use crate::error::{status, Error, Result};
use crate::lifetime::capture::{capture_graph, Capture};
use crate::lifetime::deferred::run_caught;
use crate::lifetime::holdings::hold_in_graph;
use crate::lifetime::queue::Queue;
use crate::lifetime::NOT_READY;
use crate::sys;

/// A stream's capture status (`cudaStreamCaptureStatus`: `NONE`, `ACTIVE`, `INVALIDATED`).
pub use crate::sys::cudaStreamCaptureStatus as CaptureStatus;
/// Stream creation flags (`cudaStreamDefault`, `cudaStreamNonBlocking`).
pub use crate::sys::StreamFlags;

/// A CUDA stream (see the [module documentation](self)).
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{DeviceBuffer, Stream};
/// let upload = Stream::non_blocking()?;
/// let compute = upload.clone(); // the same CUDA stream, reference-counted
/// let buf = DeviceBuffer::from_slice(&[1u8, 2, 3], &upload)?;
/// compute.launch_host_func(|| println!("the upload is done"))?;
/// compute.synchronize()?;
/// # let _ = buf; Ok(()) }
/// ```
#[derive(Clone)]
pub struct Stream {
    inner: Arc<Queue>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("raw", &self.inner.raw())
            .field("owned", &self.inner.owned())
            .finish()
    }
}

impl PartialEq for Stream {
    fn eq(&self, other: &Stream) -> bool {
        self.inner.raw() == other.inner.raw()
    }
}

impl Eq for Stream {}

/// Hashes the raw handle, as [`PartialEq`] compares it: two clones of one stream (or two
/// wrappers of one handle) are one key.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use std::collections::HashMap;
/// let s = cudart12::Stream::non_blocking()?;
/// let mut work: HashMap<cudart12::Stream, u32> = HashMap::new();
/// *work.entry(s.clone()).or_default() += 1;
/// *work.entry(s).or_default() += 1;
/// assert_eq!(work.len(), 1);
/// # Ok(()) }
/// ```
impl std::hash::Hash for Stream {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.inner.raw().hash(state);
    }
}

/// `priority` within the range `greatest..=least` (numerically; `greatest <= least`), or an
/// error naming the range.
fn check_priority(priority: i32, least: i32, greatest: i32) -> Result<()> {
    let (lo, hi) = (greatest.min(least), greatest.max(least));
    if (lo..=hi).contains(&priority) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "stream priority {priority} is outside the device's range {least} (least) to \
             {greatest} (greatest)"
        )))
    }
}

impl Stream {
    /// A new stream that synchronises with the legacy default stream
    /// (`cudaStreamCreateWithFlags(cudaStreamDefault)`), on the current device.
    #[doc(alias = "cudaStreamCreateWithFlags")]
    pub fn new() -> Result<Stream> {
        Stream::with_flags(StreamFlags::DEFAULT)
    }

    /// A new stream that does not synchronise with the legacy default stream
    /// (`cudaStreamNonBlocking`).
    #[doc(alias = "cudaStreamCreateWithFlags")]
    pub fn non_blocking() -> Result<Stream> {
        Stream::with_flags(StreamFlags::NON_BLOCKING)
    }

    /// A new stream with these flags (`cudaStreamCreateWithFlags`).
    #[doc(alias = "cudaStreamCreateWithFlags")]
    #[doc(alias = "cudaStreamCreate")]
    pub fn with_flags(flags: StreamFlags) -> Result<Stream> {
        let mut raw = sys::cudaStream_t::null();
        // SAFETY: one handle is written through a valid pointer.
        status(unsafe { sys::cudaStreamCreateWithFlags(&mut raw, flags.bits() as c_uint) })?;
        Ok(Stream::owning(
            raw,
            crate::lifetime::current::current_ordinal(),
        ))
    }

    /// A new stream of `device` with these flags, whichever device is current (which stays
    /// current).
    #[doc(alias = "cudaStreamCreateWithFlags")]
    pub fn on_device(device: crate::Device, flags: StreamFlags) -> Result<Stream> {
        crate::lifetime::current::with_device(device.ordinal(), || Stream::with_flags(flags))
    }

    /// A new stream of `device` with these flags and a priority, whichever device is
    /// current (which stays current); see [`Stream::with_priority`].
    #[doc(alias = "cudaStreamCreateWithPriority")]
    pub fn on_device_with_priority(
        device: crate::Device,
        flags: StreamFlags,
        priority: i32,
    ) -> Result<Stream> {
        crate::lifetime::current::with_device(device.ordinal(), || {
            Stream::with_priority(flags, priority)
        })
    }

    /// A new stream with these flags and a priority (`cudaStreamCreateWithPriority`), on the
    /// current device. Lower numbers are higher priorities; a priority outside the device's
    /// [`Device::stream_priority_range`](crate::device::Device::stream_priority_range) is an
    /// [`Error::InvalidArgument`] (CUDA itself would clamp it silently).
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::{Device, Stream, StreamFlags};
    /// let (_least, greatest) = Device::current()?.stream_priority_range()?;
    /// let urgent = Stream::with_priority(StreamFlags::NON_BLOCKING, greatest)?;
    /// assert_eq!(urgent.priority()?, greatest);
    /// assert!(Stream::with_priority(StreamFlags::NON_BLOCKING, greatest - 1).is_err());
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaStreamCreateWithPriority")]
    #[doc(alias = "cudaDeviceGetStreamPriorityRange")]
    pub fn with_priority(flags: StreamFlags, priority: i32) -> Result<Stream> {
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: two ints are written through valid pointers.
        status(unsafe { sys::cudaDeviceGetStreamPriorityRange(&mut least, &mut greatest) })?;
        check_priority(priority, least, greatest)?;
        let mut raw = sys::cudaStream_t::null();
        // SAFETY: one handle is written through a valid pointer.
        status(unsafe {
            sys::cudaStreamCreateWithPriority(&mut raw, flags.bits() as c_uint, priority)
        })?;
        Ok(Stream::owning(
            raw,
            crate::lifetime::current::current_ordinal(),
        ))
    }

    /// An owned stream of `device` (`None` when the current device could not be read).
    fn owning(raw: sys::cudaStream_t, device: Result<i32>) -> Stream {
        let device = device.ok();
        Stream {
            inner: Arc::new(Queue::new(raw, true, device)),
        }
    }

    /// The device of a stream made elsewhere: `cudaStreamGetDevice`, or the current device
    /// where the runtime is older than that function.
    fn device_of(raw: sys::cudaStream_t) -> Option<i32> {
        if matches!(raw.0 as usize, 0..=2) {
            return None;
        }
        let mut device: c_int = 0;
        // SAFETY: a live stream handle (the caller's promise); one int is written.
        match status(unsafe { sys::cudaStreamGetDevice(raw, &mut device) }) {
            Ok(()) => Some(device),
            Err(_) => crate::lifetime::current::current_ordinal().ok(),
        }
    }

    /// The legacy default stream (`cudaStreamLegacy`), which synchronises with every
    /// blocking stream of the device. Never destroyed. Creating it calls nothing.
    #[doc(alias = "cudaStreamLegacy")]
    pub fn legacy() -> Stream {
        static LEGACY: OnceLock<Stream> = OnceLock::new();
        LEGACY
            .get_or_init(|| Stream {
                inner: Arc::new(Queue::new(sys::cudaStream_t(1 as *mut _), false, None)),
            })
            .clone()
    }

    /// The per-thread default stream (`cudaStreamPerThread`): the calling thread's own
    /// implicit stream, which does not synchronise with other threads' streams. Work
    /// enqueued on this value goes to the stream of the thread that enqueues it. Never
    /// destroyed.
    #[doc(alias = "cudaStreamPerThread")]
    pub fn per_thread() -> Stream {
        static PER_THREAD: OnceLock<Stream> = OnceLock::new();
        PER_THREAD
            .get_or_init(|| Stream {
                inner: Arc::new(Queue::new(sys::cudaStream_t(2 as *mut _), false, None)),
            })
            .clone()
    }

    /// Wraps a stream created elsewhere (another library, C code) without owning it: it is
    /// not destroyed when the last clone is dropped (CuPy's `ExternalStream`).
    ///
    /// # Safety
    /// `raw` is a live stream handle (or `cudaStreamLegacy` / `cudaStreamPerThread` / null)
    /// that stays alive as long as this value, its clones, and every object that keeps it
    /// (device buffers allocated on it) exist.
    #[doc(alias = "cudaStreamGetDevice")]
    pub unsafe fn borrowed(raw: sys::cudaStream_t) -> Stream {
        Stream {
            inner: Arc::new(Queue::new(raw, false, Stream::device_of(raw))),
        }
    }

    /// Takes ownership of a stream handle: it is destroyed when the last clone is dropped.
    ///
    /// # Safety
    /// `raw` is a live stream created with `cudaStreamCreate*` that nothing else destroys.
    #[doc(alias = "cudaStreamGetDevice")]
    pub unsafe fn from_raw(raw: sys::cudaStream_t) -> Stream {
        Stream {
            inner: Arc::new(Queue::new(raw, true, Stream::device_of(raw))),
        }
    }

    /// The raw handle, for calls into [`crate::api`] or [`crate::sys`]. It stays valid as
    /// long as this value (or a clone) exists.
    #[inline]
    pub fn as_raw(&self) -> sys::cudaStream_t {
        self.inner.raw()
    }

    /// Whether the stream is destroyed when its last clone is dropped.
    pub fn is_owned(&self) -> bool {
        self.inner.owned()
    }

    /// The stream's device, remembered when the stream was made; `None` for the legacy and
    /// per-thread default streams, which name the stream of whichever device is current.
    /// Work this crate enqueues on the stream runs with this device current.
    #[inline]
    pub fn device(&self) -> Option<crate::Device> {
        self.inner.device().map(crate::Device::from_ordinal)
    }

    /// The stream's device ordinal (see [`device`](Stream::device)).
    #[inline]
    pub(crate) fn ordinal(&self) -> Option<i32> {
        self.inner.device()
    }

    /// The stream as the lifetime bookkeeping holds it.
    #[inline]
    pub(crate) fn queue(&self) -> &Arc<Queue> {
        &self.inner
    }

    /// The gate held while the stream's capture state may change.
    pub(crate) fn gate_exclusive(&self) -> RwLockWriteGuard<'_, ()> {
        self.inner.gate_exclusive()
    }

    /// The stream's flags (`cudaStreamGetFlags`).
    #[doc(alias = "cudaStreamGetFlags")]
    pub fn flags(&self) -> Result<StreamFlags> {
        let mut flags: c_uint = 0;
        // SAFETY: the handle is alive (owned by `self`, or promised by `borrowed`).
        status(unsafe { sys::cudaStreamGetFlags(self.as_raw(), &mut flags) })?;
        Ok(StreamFlags::from_bits_retain(flags as _))
    }

    /// The stream's priority (`cudaStreamGetPriority`).
    #[doc(alias = "cudaStreamGetPriority")]
    pub fn priority(&self) -> Result<i32> {
        let mut p: c_int = 0;
        // SAFETY: the handle is alive.
        status(unsafe { sys::cudaStreamGetPriority(self.as_raw(), &mut p) })?;
        Ok(p)
    }

    /// The stream's process-unique id (`cudaStreamGetId`).
    #[doc(alias = "cudaStreamGetId")]
    pub fn id(&self) -> Result<u64> {
        let mut id: c_ulonglong = 0;
        // SAFETY: the handle is alive.
        status(unsafe { sys::cudaStreamGetId(self.as_raw(), &mut id) })?;
        Ok(id)
    }

    /// Waits until all work enqueued on the stream has finished (`cudaStreamSynchronize`).
    #[doc(alias = "cudaStreamSynchronize")]
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: the handle is alive.
        status(unsafe { sys::cudaStreamSynchronize(self.as_raw()) })
    }

    /// Whether all work enqueued on the stream has finished (`cudaStreamQuery`;
    /// `cudaErrorNotReady` is `Ok(false)`).
    #[doc(alias = "cudaStreamQuery")]
    pub fn query(&self) -> Result<bool> {
        // SAFETY: the handle is alive.
        match status(unsafe { sys::cudaStreamQuery(self.as_raw()) }) {
            Ok(()) => Ok(true),
            Err(e) if e.cuda_code() == Some(NOT_READY) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Runs `f` on a CUDA host thread once all work enqueued before it has finished, and
    /// holds back later work of the stream until it returns (`cudaLaunchHostFunc`).
    ///
    /// CUDA forbids CUDA calls inside `f`: every call of this crate made there returns
    /// [`Error::InCallback`] without reaching CUDA (objects of this crate dropped there are
    /// released afterwards on the crate's release thread). A panic in `f` is caught and reported through the hook of
    /// [`set_drop_error_hook`](crate::error::set_drop_error_hook). After a device error
    /// CUDA may not run `f` at all; it is then dropped with the process.
    ///
    /// Not available while the stream is being captured (a graph may run a host function
    /// many times): it returns [`Error::InvalidArgument`] then; use
    /// [`launch_repeatable_host_func`](Stream::launch_repeatable_host_func) or
    /// [`Graph::add_host_node`](crate::graph::Graph::add_host_node).
    #[doc(alias = "cudaLaunchHostFunc")]
    pub fn launch_host_func<F>(&self, f: F) -> Result<()>
    where
        F: FnOnce() + Send + 'static,
    {
        if self.is_capturing()? {
            return Err(Error::InvalidArgument(
                "launch_host_func on a capturing stream: a graph may run the function \
                 more than once; use launch_repeatable_host_func"
                    .into(),
            ));
        }
        // The closure is kept in a table and found by number, never through a pointer, so
        // that a function CUDA runs twice (a capture begun by another thread between the
        // check above and the launch) finds nothing the second time instead of freed memory.
        let id = HOST_FUNCS.insert(Box::new(f));
        // SAFETY: the trampoline matches `cudaHostFn_t`; its argument is a number, not a
        // pointer, and is valid forever.
        let launched = status(unsafe {
            sys::cudaLaunchHostFunc(self.as_raw(), Some(host_func_trampoline), id as *mut c_void)
        });
        if launched.is_err() {
            drop(HOST_FUNCS.take(id));
        }
        launched
    }

    /// Runs `f` on a CUDA host thread once all work enqueued before it has finished, as
    /// [`launch_host_func`](Stream::launch_host_func) does, also while the stream is being
    /// captured (`cudaLaunchHostFunc` into a capture): the function then becomes a host
    /// node of the graph being captured, which runs it once per launch. That graph holds
    /// `f` (as the gate's holdings hold what graphs use) for as long as the graph, and every
    /// executable graph, clone and parent made from it, can run it — so `f` is `Fn` and
    /// `Sync`. The same rule for `f` applies: calls of this crate inside it return
    /// [`Error::InCallback`]. On a stream whose capture was invalidated it returns
    /// `cudaErrorStreamCaptureInvalidated` without enqueuing.
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// use cudart12::{CaptureMode, Stream};
    /// let stream = Stream::non_blocking()?;
    /// let runs = Arc::new(AtomicUsize::new(0));
    /// let seen = runs.clone();
    /// let graph = stream.capture(CaptureMode::THREAD_LOCAL, |s| {
    ///     s.launch_repeatable_host_func(move || {
    ///         seen.fetch_add(1, Ordering::SeqCst);
    ///     })
    /// })?;
    /// let exec = graph.instantiate()?;
    /// drop(graph); // the executable graph still holds the closure
    /// for _ in 0..3 {
    ///     exec.launch(&stream)?;
    /// }
    /// stream.synchronize()?;
    /// assert_eq!(runs.load(Ordering::SeqCst), 3);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaLaunchHostFunc")]
    pub fn launch_repeatable_host_func<F>(&self, f: F) -> Result<()>
    where
        F: Fn() + Send + Sync + 'static,
    {
        {
            // Under the gate no capture of the crate's begins or ends on the stream until the
            // function is in. CUDA is asked directly (not only while a capture of the crate's
            // is active): a capture begun through the typed layer is found too.
            let _gate = self.inner.gate_shared();
            match capture_graph(self.as_raw())? {
                Capture::Into(graph, _) => {
                    let (held, params) = crate::graph::host_closure(f);
                    // The graph holds the closure before CUDA can run it (also when the
                    // launch fails: it is then let go with the graph).
                    hold_in_graph(graph, held);
                    // SAFETY: the trampoline matches `cudaHostFn_t`; its argument lives as
                    // long as the graph's holdings, which outlive every launch of the graph.
                    return status(unsafe {
                        sys::cudaLaunchHostFunc(self.as_raw(), params.fn_, params.userData)
                    });
                }
                Capture::Dead => return Err(Error::from_code(CAPTURE_INVALIDATED)),
                Capture::No => {}
            }
        }
        // Not capturing: once, through the table (which also covers a capture begun by
        // another thread in between: a second run finds nothing).
        self.launch_host_func(f)
    }

    /// Runs `f` with the stream's status once all work enqueued before it has finished
    /// (`cudaStreamAddCallback`, CuPy's `Stream.add_callback`). Unlike
    /// [`launch_host_func`](Stream::launch_host_func), CUDA runs it exactly once, also after
    /// a device error (the error is `f`'s argument), and refuses it while the stream is
    /// being captured. The same rule for `f` applies: calls of this crate inside it return
    /// [`Error::InCallback`].
    #[doc(alias = "cudaStreamAddCallback")]
    pub fn add_callback<F>(&self, f: F) -> Result<()>
    where
        F: FnOnce(Result<()>) + Send + 'static,
    {
        let boxed: Box<StreamCallback> = Box::new(Box::new(f));
        let user = Box::into_raw(boxed);
        // SAFETY: the trampoline matches `cudaStreamCallback_t`; CUDA calls it exactly once
        // with `user`, which it then owns.
        let added = status(unsafe {
            sys::cudaStreamAddCallback(
                self.as_raw(),
                Some(stream_callback_trampoline),
                user.cast(),
                0,
            )
        });
        if added.is_err() {
            // SAFETY: CUDA refused the callback, so `user` was never handed over.
            drop(unsafe { Box::from_raw(user) });
        }
        added
    }

    /// Whether the stream is being captured into a graph (`cudaStreamIsCapturing`:
    /// `cudaStreamCaptureStatusActive`, or `Invalidated` after a failed capture).
    #[doc(alias = "cudaStreamIsCapturing")]
    pub fn is_capturing(&self) -> Result<bool> {
        Ok(self.capture_status()? != CaptureStatus::NONE)
    }

    /// The stream's capture status (`cudaStreamIsCapturing`).
    #[doc(alias = "cudaStreamIsCapturing")]
    pub fn capture_status(&self) -> Result<CaptureStatus> {
        let mut s = CaptureStatus::NONE;
        // SAFETY: the handle is alive.
        status(unsafe { sys::cudaStreamIsCapturing(self.as_raw(), &mut s) })?;
        Ok(s)
    }

    /// Destroys the stream now (if this is the last clone of an owned stream) and returns
    /// the error, where dropping it would report it to the hook. With other clones alive,
    /// or for a stream that is not owned, nothing is destroyed and this returns `Ok`.
    #[doc(alias = "cudaStreamDestroy")]
    pub fn close(self) -> Result<()> {
        match Arc::try_unwrap(self.inner) {
            Ok(queue) => queue.destroy(),
            Err(_) => Ok(()),
        }
    }
}

/// `cudaErrorStreamCaptureInvalidated`.
const CAPTURE_INVALIDATED: i32 = 901;

type HostFunc = Box<dyn FnOnce() + Send>;
type StreamCallback = Box<dyn FnOnce(Result<()>) + Send>;

/// The closures of pending `launch_host_func` calls, by number.
struct HostFuncTable {
    next: AtomicU64,
    pending: Mutex<Option<HashMap<u64, HostFunc>>>,
}

static HOST_FUNCS: HostFuncTable = HostFuncTable {
    next: AtomicU64::new(1),
    pending: Mutex::new(None),
};

impl HostFuncTable {
    fn insert(&self, f: HostFunc) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut map = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        map.get_or_insert_with(HashMap::new).insert(id, f);
        id
    }

    fn take(&self, id: u64) -> Option<HostFunc> {
        let mut map = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        map.as_mut().and_then(|m| m.remove(&id))
    }
}

unsafe extern "C" fn host_func_trampoline(user: *mut c_void) {
    if let Some(f) = HOST_FUNCS.take(user as u64) {
        crate::loader::callback_scope(|| run_caught("host function", f));
    }
}

unsafe extern "C" fn stream_callback_trampoline(
    _stream: sys::cudaStream_t,
    code: sys::cudaError_t,
    user: *mut c_void,
) {
    // SAFETY: `user` is the box leaked by `add_callback`; CUDA calls this exactly once.
    let f = unsafe { Box::from_raw(user.cast::<StreamCallback>()) };
    let result = crate::error::check(code.as_raw() as i32);
    crate::loader::callback_scope(|| run_caught("stream callback", move || f(result)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn streams_are_send_and_sync() {
        assert_send_sync::<Stream>();
    }

    #[test]
    fn streams_key_maps_by_handle() {
        use std::collections::HashSet;
        // The hash is the handle, which never changes (the lint sees the queue's lock).
        #[allow(clippy::mutable_key_type)]
        let set: HashSet<Stream> = [Stream::legacy(), Stream::legacy(), Stream::per_thread()]
            .into_iter()
            .collect();
        assert_eq!(set.len(), 2);
        assert!(set.contains(&Stream::legacy()));
    }

    #[test]
    fn priorities_outside_the_range_are_refused() {
        // An H100's range: least 0, greatest -5.
        assert!(check_priority(0, 0, -5).is_ok());
        assert!(check_priority(-5, 0, -5).is_ok());
        assert!(check_priority(-3, 0, -5).is_ok());
        assert!(matches!(
            check_priority(-6, 0, -5),
            Err(Error::InvalidArgument(_))
        ));
        assert!(check_priority(1, 0, -5).is_err());
    }

    #[test]
    fn default_streams_need_no_library_and_are_not_owned() {
        let legacy = Stream::legacy();
        assert_eq!(legacy.as_raw().as_ptr() as usize, 1);
        assert!(!legacy.is_owned());
        assert_eq!(Stream::per_thread().as_raw().as_ptr() as usize, 2);
        assert_eq!(legacy, Stream::legacy());
        assert!(Stream::legacy().close().is_ok());
    }

    #[test]
    fn host_func_table_hands_each_closure_out_once() {
        use std::sync::atomic::AtomicUsize;
        static RAN: AtomicUsize = AtomicUsize::new(0);
        let id = HOST_FUNCS.insert(Box::new(|| {
            RAN.fetch_add(1, Ordering::SeqCst);
        }));
        // SAFETY: the trampoline only reads the number.
        unsafe { host_func_trampoline(id as *mut c_void) };
        // A second run (a replayed graph) finds nothing.
        // SAFETY: as above.
        unsafe { host_func_trampoline(id as *mut c_void) };
        assert_eq!(RAN.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_panicking_closure_does_not_unwind_into_c() {
        let id = HOST_FUNCS.insert(Box::new(|| panic!("inside a host function")));
        // SAFETY: the trampoline only reads the number.
        unsafe { host_func_trampoline(id as *mut c_void) };
        let user = Box::into_raw(Box::new(Box::new(|r: Result<()>| {
            assert!(r.is_err());
            panic!("inside a stream callback");
        }) as StreamCallback));
        // SAFETY: `user` is a leaked `StreamCallback` box, passed once.
        unsafe {
            stream_callback_trampoline(
                sys::cudaStream_t::null(),
                sys::cudaError_t::from_raw(1),
                user.cast(),
            )
        };
    }
}

#[cfg(test)]
mod callback_tests {
    use crate::error::{Error, Result};
    use crate::loader::{callback_scope, in_callback};

    #[test]
    fn calls_inside_a_callback_scope_are_refused_without_calling_cuda() {
        fn refused(result: Result<impl std::fmt::Debug>, function: &str) {
            match result {
                Err(Error::InCallback { function: f }) => assert_eq!(f, function),
                other => panic!("{function}: expected InCallback, got {other:?}"),
            }
        }
        assert!(!in_callback());
        callback_scope(|| {
            assert!(in_callback());
            refused(crate::api::get_device_count(), "cudaGetDeviceCount");
            let mut n = 0;
            // SAFETY: one int is written, if anything is called at all.
            refused(
                unsafe { crate::sys::cudaGetDeviceCount(&mut n) },
                "cudaGetDeviceCount",
            );
            // Nested scopes, and a panic inside one, leave the outer scope in force.
            let caught = std::panic::catch_unwind(|| callback_scope(|| panic!("in a callback")));
            assert!(caught.is_err());
            assert!(in_callback());
            refused(crate::api::runtime_get_version(), "cudaRuntimeGetVersion");
            let err = crate::api::runtime_get_version().unwrap_err();
            assert_eq!(
                err.to_string(),
                "cudaRuntimeGetVersion was called from inside a CUDA host callback, where CUDA forbids CUDA calls"
            );
        });
        assert!(!in_callback());
        // Outside, the call goes its ordinary way (a library, or the loader's error).
        assert!(!matches!(
            crate::api::get_device_count(),
            Err(Error::InCallback { .. })
        ));
        // Other threads never were inside.
        let other = std::thread::spawn(|| callback_scope(in_callback));
        assert!(other.join().expect("no panic"));
        assert!(!in_callback());
    }
}
