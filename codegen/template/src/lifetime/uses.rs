//! The record of one resource's uses: for each stream other than its home that used it since
//! the host last waited, an event recorded after the last such operation ([`Uses`]); the
//! waits that fail closed ([`wait_stream`], [`Uses::wait_host`]); relaxed capture mode for
//! every call the bookkeeping makes ([`relaxed`]); the pool of bookkeeping events.
//!
//! Not here: deciding when a use is recorded or a free may run ([`super::Life`]).

use std::ffi::c_uint;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::current::with_device;
use super::queue::StreamKey;
use crate::error::{report_drop_error, status, Error, Result};
use crate::sys;

/// `cudaErrorNotReady`: work is still pending (not an error for a query).
pub(crate) const NOT_READY: i32 = 600;

/// What an operation does with a piece of memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// The device reads it.
    Read,
    /// The device writes it (or may).
    Write,
}

/// A byte range of a resource, `start..end`: the part an operation used (pinned chunks are
/// used one at a time; device allocations always whole).
pub(crate) type Bytes = (usize, usize);

/// The whole of a resource.
pub(crate) const WHOLE: Bytes = (0, usize::MAX);

fn overlap(a: Bytes, b: Bytes) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// One stream's use of a range: an event recorded after the last operation on that range
/// there.
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

/// The streams that used a resource since the host last waited for them, each with an event
/// recorded after its last operation; or "poisoned" when an operation was enqueued that could
/// not be recorded (the resource is then never freed and never handed to the host: failing
/// closed), with the error that prevented it.
#[derive(Debug, Default)]
pub(crate) struct Uses {
    list: Vec<Use>,
    /// Why it is poisoned (`None`: it is not).
    poisoned: Option<Box<Error>>,
}

// SAFETY: event handles may be used from any thread.
unsafe impl Send for Uses {}

impl Uses {
    /// Nothing recorded.
    pub(crate) const fn new() -> Uses {
        Uses {
            list: Vec::new(),
            poisoned: None,
        }
    }

    /// Whether nothing is recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Marks the resource as used by work that could not be recorded, because of `cause`
    /// (the first cause is kept).
    pub(crate) fn poison(&mut self, cause: Error) {
        self.poisoned.get_or_insert_with(|| Box::new(cause));
    }

    /// The error for host access to, or a free of, a poisoned resource.
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
    pub(crate) fn note(
        &mut self,
        stream: sys::cudaStream_t,
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
            status(unsafe { sys::cudaEventRecord(u.event, stream) })?;
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
        if let Err(e) = status(unsafe { sys::cudaEventRecord(event, stream) }) {
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

    /// Records `key`'s use, failing closed: when the record fails the host waits for the
    /// stream instead, and when that fails too the record is poisoned.
    pub(crate) fn note_or_wait(
        &mut self,
        stream: sys::cudaStream_t,
        key: StreamKey,
        device: i32,
        access: Access,
        range: Bytes,
    ) {
        if let Err(e) = self.note(stream, key, device, access, range) {
            if wait_stream(stream).is_err() {
                self.poison(e);
            }
        }
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
    /// failed wait keeps the uses and returns the error. Runs in relaxed capture mode.
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
    /// never for poisoned uses. Runs in relaxed capture mode (a query is prohibited while
    /// another thread captures in global mode).
    pub(crate) fn all_done(&self) -> bool {
        self.poisoned.is_none()
            && relaxed(|| {
                Ok(self.list.iter().all(|u| {
                    // SAFETY: a live event handle.
                    match status(unsafe { sys::cudaEventQuery(u.event) }) {
                        Ok(()) => true,
                        Err(e) => e.cuda_code().is_some_and(work_cannot_run),
                    }
                }))
            })
            .unwrap_or(false)
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
    }
}

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
pub(crate) fn poll_until_done(
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
/// (`cudaThreadExchangeStreamCaptureMode`), restoring it afterwards: the calls the
/// bookkeeping makes (waits, queries, frees, event creation) neither fail because of, nor
/// invalidate, another thread's capture in global mode. Where the mode cannot be changed
/// (no runtime: then no capture runs either), `f` runs as it is.
pub(crate) fn relaxed<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    let mut mode = sys::cudaStreamCaptureMode::RELAXED;
    // SAFETY: one mode value is read and written.
    if status(unsafe { sys::cudaThreadExchangeStreamCaptureMode(&mut mode) }).is_err() {
        return f();
    }
    let result = f();
    // SAFETY: as above; restores the previous mode.
    if let Err(e) = status(unsafe { sys::cudaThreadExchangeStreamCaptureMode(&mut mode) }) {
        report_drop_error("restoring the thread's capture mode", &e);
    }
    result
}

/// [`relaxed`] for a few stream-ordered calls that never block (event waits on a stream, a
/// `cudaFreeAsync`): while no capture of the crate's is active they run as they are, in a
/// [brief window](super::capture::brief_window) that a capture of the crate's waits for
/// before it begins — saving the two mode exchanges on the hot path of a free. A capture
/// begun through the typed layer is the caller's to account for, as everywhere in the
/// bookkeeping. (A custom [allocator](crate::memory::DeviceAllocator)'s free runs in the
/// window too: a capture of the crate's begins once it has returned.)
pub(crate) fn relaxed_brief<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    match super::capture::brief_window() {
        Some(_window) => f(),
        None => relaxed(f),
    }
}

/// Pooled events (without timing), by device: recording uses creates an event per stream
/// and resource, and creating one costs far more than recording it.
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
    with_device(device, || {
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
