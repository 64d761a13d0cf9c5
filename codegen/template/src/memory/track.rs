//! Stream-ordered lifetimes, the core of the [safety model](super#safety-model): what an
//! allocation knows about the streams that used it since the host last waited for them
//! ([`Uses`]), the operation wrapper that records those uses and hands captured work's
//! memory to the capturing graph ([`enqueue`]), and the waits that fail closed
//! ([`wait_stream`]).
//!
//! Not here: the allocations themselves (`buffer`, `pinned`, `managed`) and how a graph
//! keeps memory alive (`release` and [`crate::graph`]).

use std::ffi::c_uint;
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use crate::device;
use crate::error::{report_drop_error, status, Error, Result};
use crate::stream::{Stream, NOT_READY};
use crate::sys;

/// What an operation does with a piece of memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// The device reads it.
    Read,
    /// The device writes it (or may).
    Write,
}

/// The CUDA stream a [`Stream`] value names at the moment an operation is enqueued: a
/// handle, or the legacy default stream of a device, or the per-thread default stream of a
/// device and a host thread (the same `Stream` value names a different stream on every
/// thread and device).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StreamKey {
    /// A created (or borrowed) stream.
    Handle(usize),
    /// `cudaStreamLegacy` (or NULL) of this device.
    Legacy(i32),
    /// `cudaStreamPerThread` of this thread and device.
    PerThread(ThreadId, i32),
}

impl StreamKey {
    /// The stream `stream` names when used from this thread with `device` current.
    pub(crate) fn of(stream: &Stream, device: i32) -> StreamKey {
        match stream.as_raw().0 as usize {
            0 | 1 => StreamKey::Legacy(device),
            2 => StreamKey::PerThread(std::thread::current().id(), device),
            handle => StreamKey::Handle(handle),
        }
    }

    /// Whether work of another host thread cannot be ordered on this stream (a per-thread
    /// default stream): every use of memory homed there must be recorded.
    pub(crate) fn is_per_thread(self) -> bool {
        matches!(self, StreamKey::PerThread(..))
    }
}

/// A byte range of an allocation, `start..end`: the part an operation used (pinned chunks
/// are used one at a time; device allocations always whole).
pub(crate) type Bytes = (usize, usize);

/// The whole of an allocation.
pub(crate) const WHOLE: Bytes = (0, usize::MAX);

fn overlap(a: Bytes, b: Bytes) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// One stream's use of a range of an allocation: an event recorded after the last operation
/// on that range there.
#[derive(Debug)]
struct Use {
    key: StreamKey,
    range: Bytes,
    event: sys::cudaEvent_t,
    device: i32,
    write: bool,
}

/// Uses of distinct ranges kept per stream at most; one more merges them into one use of
/// the range covering them all, recorded after all of them (stream order): memory stays
/// bounded when a stream goes through many chunks between host waits.
const RANGES_PER_STREAM: usize = 16;

/// The streams other than its home that used an allocation since the host last waited for
/// them, each with an event recorded after its last operation; or "poisoned" when an
/// operation was enqueued that could not be recorded (the allocation is then never freed
/// and never handed to the host: failing closed), with the error that prevented it.
#[derive(Debug, Default)]
pub(crate) struct Uses {
    list: Vec<Use>,
    /// Why it is poisoned (`None`: it is not); dropped by hand, on the cold path, so that
    /// dropping the common, unpoisoned uses stays small.
    poisoned: std::mem::ManuallyDrop<Option<Box<Error>>>,
}

// SAFETY: event handles may be used from any thread.
unsafe impl Send for Uses {}

impl Uses {
    /// Nothing recorded.
    pub(crate) const fn new() -> Uses {
        Uses {
            list: Vec::new(),
            poisoned: std::mem::ManuallyDrop::new(None),
        }
    }

    /// Whether nothing is recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Marks the allocation as used by work that could not be recorded, because of `cause`
    /// (the first cause is kept).
    pub(crate) fn poison(&mut self, cause: Error) {
        self.poisoned.get_or_insert_with(|| Box::new(cause));
    }

    /// The error for host access to, or a free of, poisoned memory.
    pub(crate) fn poisoned_error(&self) -> Option<Error> {
        self.poisoned
            .as_ref()
            .map(|cause| Error::Unsettled(cause.clone()))
    }

    /// Records the use of `range` by `key` (`stream` with `device` current) after the work
    /// enqueued so far: the event of the same stream and range is recorded again (stream
    /// order makes the later record cover the earlier work), or a pooled event of that
    /// device is recorded; past [`RANGES_PER_STREAM`] ranges of one stream, its uses merge
    /// into one.
    fn note(
        &mut self,
        stream: &Stream,
        key: StreamKey,
        device: i32,
        access: Access,
        range: Bytes,
    ) -> Result<()> {
        let write = access == Access::Write;
        if let Some(u) = self
            .list
            .iter_mut()
            .find(|u| u.key == key && u.range == range)
        {
            // SAFETY: a live event of this device and a live stream.
            status(unsafe { sys::cudaEventRecord(u.event, stream.as_raw()) })?;
            u.write |= write;
            return Ok(());
        }
        let same_stream = self.list.iter().filter(|u| u.key == key).count();
        let (range, write) = if same_stream >= RANGES_PER_STREAM {
            // Merge: one record now covers every earlier use on this stream.
            let mut hull = range;
            let mut any_write = write;
            for u in self.list.iter().filter(|u| u.key == key) {
                hull = (hull.0.min(u.range.0), hull.1.max(u.range.1));
                any_write |= u.write;
            }
            (hull, any_write)
        } else {
            (range, write)
        };
        let event = take_event(device)?;
        // SAFETY: as above.
        if let Err(e) = status(unsafe { sys::cudaEventRecord(event, stream.as_raw()) }) {
            give_event(device, event);
            return Err(e);
        }
        if same_stream >= RANGES_PER_STREAM {
            // The new record follows every earlier use of this stream: they are covered.
            self.retire(|u| u.key == key);
        }
        self.list.push(Use {
            key,
            range,
            event,
            device,
            write,
        });
        Ok(())
    }

    /// Makes `stream`'s later work wait for every recorded use (`cudaStreamWaitEvent`; the
    /// host does not wait). On success the uses are forgotten: the stream now covers them.
    pub(crate) fn order_before(&mut self, stream: sys::cudaStream_t) -> Result<()> {
        for u in &self.list {
            // SAFETY: live handles; waiting on another device's event is allowed.
            status(unsafe { sys::cudaStreamWaitEvent(stream, u.event, 0) })?;
        }
        self.retire(|_| true);
        Ok(())
    }

    /// Waits on the host for the uses a host access of this kind to `range` conflicts
    /// with: writes of an overlapping range for a read, every use of one for a write. A
    /// failed wait keeps the uses and returns the error.
    pub(crate) fn wait_host(&mut self, access: Access, range: Bytes) -> Result<()> {
        if let Some(e) = self.poisoned_error() {
            return Err(e);
        }
        let conflicts = |u: &Use| overlap(u.range, range) && (access == Access::Write || u.write);
        if !self.list.iter().any(conflicts) {
            return Ok(());
        }
        relaxed(|| {
            for u in self.list.iter().filter(|u| conflicts(u)) {
                wait_event(u.event)?;
            }
            Ok(())
        })?;
        self.retire(conflicts);
        Ok(())
    }

    /// Whether every recorded use has completed (or can no longer run), without waiting;
    /// never for poisoned uses.
    pub(crate) fn all_done(&self) -> bool {
        self.poisoned.is_none()
            && self.list.iter().all(|u| {
                // SAFETY: a live event handle.
                match status(unsafe { sys::cudaEventQuery(u.event) }) {
                    Ok(()) => true,
                    Err(e) => e.cuda_code().is_some_and(work_cannot_run),
                }
            })
    }

    /// Forgets the uses `which` selects (their events go back to the pool).
    fn retire(&mut self, which: impl Fn(&Use) -> bool) {
        let mut i = 0;
        while i < self.list.len() {
            if which(&self.list[i]) {
                let u = self.list.swap_remove(i);
                give_event(u.device, u.event);
            } else {
                i += 1;
            }
        }
    }
}

impl Drop for Uses {
    fn drop(&mut self) {
        // Pending records complete on their own; CUDA releases a destroyed event after them.
        for u in self.list.drain(..) {
            give_event(u.device, u.event);
        }
        if self.poisoned.is_some() {
            drop_cause(&mut self.poisoned);
        }
    }
}

#[cold]
fn drop_cause(cause: &mut std::mem::ManuallyDrop<Option<Box<Error>>>) {
    // SAFETY: dropped once, here, by the `Uses` that owns it.
    unsafe { std::mem::ManuallyDrop::drop(cause) }
}

/// How an operation's stream stood right after the operation was enqueued.
pub(crate) struct Enqueued<'s> {
    pub(crate) stream: &'s Stream,
    pub(crate) key: StreamKey,
    pub(crate) device: i32,
    /// Whether the operation was captured, and into which graph; `Err` when the capture
    /// status could not be read (the operation may or may not have been captured).
    pub(crate) capture: Result<Capture>,
}

/// A stream's capture status as the bookkeeping needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Capture {
    /// Not capturing: work runs when the stream reaches it.
    No,
    /// Capturing into this graph (the capture's unique id second).
    Into(sys::cudaGraph_t, u64),
    /// The capture was invalidated: enqueued work never runs.
    Dead,
}

impl Enqueued<'_> {
    /// Records what the operation did with an allocation whose home stream is `home`:
    /// outside a capture, `access` is noted in `uses` when the operation ran on another
    /// stream (or on a per-thread home: see [`StreamKey::is_per_thread`]); inside a capture,
    /// `keep` makes the capturing graph keep the allocation alive. Fails closed: when a
    /// record fails the host waits for the stream instead, and when that fails too, or the
    /// capture status could not be read, or the graph could not take the allocation, `uses`
    /// is poisoned (never freed, never handed to the host).
    pub(crate) fn track(
        &self,
        uses: &mut Uses,
        home: StreamKey,
        access: Access,
        range: Bytes,
        keep: impl FnOnce(sys::cudaGraph_t, u64) -> Result<()>,
    ) {
        match &self.capture {
            Ok(Capture::No) => {
                if self.key == home && !home.is_per_thread() {
                    return;
                }
                if let Err(e) = uses.note(self.stream, self.key, self.device, access, range) {
                    if wait_stream(self.stream.as_raw()).is_err() {
                        uses.poison(e);
                    }
                }
            }
            Ok(Capture::Into(graph, id)) => {
                if let Err(e) = keep(*graph, *id) {
                    uses.poison(e);
                }
            }
            Ok(Capture::Dead) => {}
            Err(e) => uses.poison(e.clone()),
        }
    }
}

impl Enqueued<'_> {
    /// Records, outside a capture, that the work just enqueued (a graph launch) must finish
    /// before what `uses` guards is released; fails closed as [`Enqueued::track`].
    pub(crate) fn record_launch(&self, uses: &mut Uses) {
        if self.capture.as_ref().is_ok_and(|c| *c == Capture::Dead) {
            return;
        }
        if let Err(e) = uses.note(self.stream, self.key, self.device, Access::Write, WHOLE) {
            if wait_stream(self.stream.as_raw()).is_err() {
                uses.poison(e);
            }
        }
    }
}

/// Records in `events` the point `stream` (named by `key`, of `device`) has reached, for
/// work enqueued there before (by any thread) to be waited for later; `false` while the
/// stream is being captured (a record would be captured, not run: try again later). When
/// the record fails, `events` is poisoned (what it guards is never let go).
pub(crate) fn record_after(
    stream: &Stream,
    key: StreamKey,
    device: i32,
    events: &mut Uses,
) -> bool {
    let _gate = stream.gate_shared();
    let record = |events: &mut Uses| -> Result<bool> {
        if crate::graph::capture_graph(stream)? != Capture::No {
            return Ok(false);
        }
        events.note(stream, key, device, Access::Write, WHOLE)?;
        Ok(true)
    };
    let recorded = match key {
        StreamKey::Legacy(d) => device::with_device(d, || record(events)),
        _ => record(events),
    };
    match recorded {
        Ok(done) => done,
        Err(e) => {
            events.poison(e);
            true
        }
    }
}

/// Memory whose uses are tracked: a device allocation, a pinned block (or a range of one),
/// a module's globals.
pub(crate) trait Tracked {
    /// Records what an operation that was just enqueued did with this memory (see
    /// [`Enqueued::track`]).
    fn track(&self, done: &Enqueued<'_>, access: Access);

    /// What a graph or an executable graph holds to keep this memory alive (for an explicit
    /// node, or a node's new parameters).
    fn keeper(&self) -> crate::graph::Kept;

    /// Makes `graph` keep this memory alive (for an explicit node that uses it).
    fn keep_in(&self, graph: sys::cudaGraph_t) -> Result<()> {
        crate::graph::keep_in_graph(graph, self.keeper())
    }
}

/// Runs `op`, which enqueues work on `stream`, with the stream's device current (`device`
/// for the default streams, whose device is the current one), and then `track` with where
/// the work went: the stream's capture status is read after the work was enqueued, under
/// the stream's gate, so that no capture of this crate's can begin or end in between.
/// `track` records the uses (and, for captured work, keeps the memory alive in the graph).
pub(crate) fn enqueue<R>(
    stream: &Stream,
    device: i32,
    op: impl FnOnce() -> Result<R>,
    track: impl FnOnce(&Enqueued<'_>),
) -> Result<R> {
    let _gate = stream.gate_shared();
    let device = stream.ordinal().unwrap_or(device);
    device::with_device(device, || {
        // A failed call is tracked too: it may have enqueued its work all the same.
        let value = op();
        let done = Enqueued {
            stream,
            key: StreamKey::of(stream, device),
            device,
            capture: crate::graph::capture_of(stream),
        };
        track(&done);
        value
    })
}

/// Fails with `cudaErrorStreamCaptureUnsupported` (without enqueuing) when `stream` is being
/// captured: for operations whose work must run now (blocking copies into borrowed memory).
/// Call under the stream's gate.
pub(crate) fn refuse_capture(stream: &Stream) -> Result<()> {
    match crate::graph::capture_of(stream)? {
        Capture::No => Ok(()),
        _ => Err(Error::from_code(CAPTURE_UNSUPPORTED)),
    }
}

/// `cudaErrorStreamCaptureUnsupported`.
const CAPTURE_UNSUPPORTED: i32 = 900;

/// Waits on the host until every operation enqueued on `stream` so far has finished, and
/// fails closed: a failed `cudaStreamSynchronize` is followed by polling
/// `cudaStreamQuery` until the work is done (the original error is returned) or CUDA says
/// the work can no longer run (a context-killing error). Runs in relaxed capture mode, so
/// that another thread's global capture neither fails this wait nor is invalidated by it.
pub(crate) fn wait_stream(stream: sys::cudaStream_t) -> Result<()> {
    relaxed(|| {
        // SAFETY: a live stream handle.
        let first = match status(unsafe { sys::cudaStreamSynchronize(stream) }) {
            Ok(()) => return Ok(()),
            Err(e) => e,
        };
        // SAFETY: as above.
        poll_until_done(first, || unsafe { sys::cudaStreamQuery(stream) })
    })
}

/// Waits on the host for `event`'s last record, failing closed as [`wait_stream`].
fn wait_event(event: sys::cudaEvent_t) -> Result<()> {
    // SAFETY: a live event handle.
    let first = match status(unsafe { sys::cudaEventSynchronize(event) }) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    // SAFETY: as above.
    poll_until_done(first, || unsafe { sys::cudaEventQuery(event) })
}

/// After a failed wait: polls `query` until the work is done (`Err(first)`: the wait failed
/// but nothing is running any more) or the answer is an error after which CUDA runs no more
/// work (that error). A query that keeps failing otherwise for a minute ends the process:
/// returning would hand memory to the host (or free it) while a copy may still use it.
fn poll_until_done(
    first: Error,
    query: impl Fn() -> crate::Result<sys::cudaError_t>,
) -> Result<()> {
    let started = Instant::now();
    let mut pause = Duration::from_micros(20);
    loop {
        match status(query()) {
            Ok(()) => return Err(first),
            Err(e) if e.cuda_code() == Some(NOT_READY) => {}
            Err(e) if e.cuda_code().is_some_and(work_cannot_run) => return Err(e),
            Err(e) if started.elapsed() > Duration::from_secs(60) => {
                report_drop_error(
                    "waiting for work that uses borrowed or owned memory (the process ends: \
                     CUDA neither finishes the work nor says it stopped)",
                    &e,
                );
                std::process::abort();
            }
            Err(_) => {}
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(2));
    }
}

/// Whether CUDA runs no more work of the context after this error: the "sticky" errors that
/// leave the context unusable, and the runtime's own shutdown.
pub(crate) fn work_cannot_run(code: i32) -> bool {
    matches!(code, 4 | 214 | 700 | 702 | 710 | 714..=719)
}

/// Runs `f` with the calling thread's capture interaction mode relaxed
/// (`cudaThreadExchangeStreamCaptureMode`), restoring it afterwards: waits and event
/// creation made for the crate's bookkeeping neither fail because of, nor invalidate, a
/// capture in global mode.
pub(crate) fn relaxed<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    let mut mode = sys::cudaStreamCaptureMode::RELAXED;
    // SAFETY: one mode value is read and written.
    status(unsafe { sys::cudaThreadExchangeStreamCaptureMode(&mut mode) })?;
    let result = f();
    // SAFETY: as above; restores the previous mode.
    if let Err(e) = status(unsafe { sys::cudaThreadExchangeStreamCaptureMode(&mut mode) }) {
        report_drop_error("restoring the thread's capture mode", &e);
    }
    result
}

/// Pooled events (without timing), by device: recording uses creates an event per stream
/// and allocation, and creating one costs far more than recording it.
static EVENTS: Mutex<Vec<(i32, usize)>> = Mutex::new(Vec::new());
/// Events kept in the pool at most; more are destroyed.
const POOLED_EVENTS: usize = 256;

fn take_event(device: i32) -> Result<sys::cudaEvent_t> {
    {
        let mut pool = EVENTS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = pool.iter().position(|(d, _)| *d == device) {
            let (_, raw) = pool.swap_remove(i);
            return Ok(sys::cudaEvent_t(raw as *mut _));
        }
    }
    device::with_device(device, || {
        relaxed(|| {
            let mut raw = sys::cudaEvent_t::null();
            // SAFETY: one handle is written.
            status(unsafe {
                sys::cudaEventCreateWithFlags(
                    &mut raw,
                    sys::EventFlags::DISABLE_TIMING.bits() as c_uint,
                )
            })?;
            Ok(raw)
        })
    })
}

fn give_event(device: i32, event: sys::cudaEvent_t) {
    let mut pool = EVENTS.lock().unwrap_or_else(|e| e.into_inner());
    if pool.len() < POOLED_EVENTS {
        pool.push((device, event.0 as usize));
        return;
    }
    drop(pool);
    // SAFETY: an event of the pool's, destroyed once; CUDA releases it after pending records.
    if let Err(e) = status(unsafe { sys::cudaEventDestroy(event) }) {
        report_drop_error("bookkeeping event", &e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_streams_are_keyed_by_device_and_thread() {
        let legacy = Stream::legacy();
        assert_eq!(StreamKey::of(&legacy, 1), StreamKey::Legacy(1));
        assert_ne!(StreamKey::of(&legacy, 1), StreamKey::of(&legacy, 0));
        let pt = Stream::per_thread();
        let here = StreamKey::of(&pt, 0);
        assert!(here.is_per_thread());
        let there = std::thread::spawn(move || StreamKey::of(&Stream::per_thread(), 0))
            .join()
            .expect("thread");
        assert_ne!(here, there, "each thread has its own per-thread stream");
    }

    #[test]
    fn only_context_killing_errors_end_a_wait() {
        assert!(work_cannot_run(700) && work_cannot_run(719) && work_cannot_run(4));
        assert!(!work_cannot_run(1) && !work_cannot_run(600) && !work_cannot_run(900));
    }

    #[test]
    fn a_failed_wait_polls_until_the_work_is_done() {
        use std::cell::Cell;
        let calls = Cell::new(0);
        let query = || {
            calls.set(calls.get() + 1);
            Ok(sys::cudaError_t::from_raw(if calls.get() < 3 {
                600
            } else {
                0
            }))
        };
        let e = poll_until_done(Error::from_code(999), query).expect_err("the first error");
        assert_eq!(e.cuda_code(), Some(999));
        assert_eq!(calls.get(), 3);
        let dead = || Ok(sys::cudaError_t::from_raw(700));
        assert_eq!(
            poll_until_done(Error::from_code(999), dead)
                .expect_err("dead")
                .cuda_code(),
            Some(700)
        );
    }
}
