//! What the bookkeeping knows of a stream: its handle, whether this crate owns it, its
//! device, and its gate (the lock under which work is enqueued and its capture status read);
//! and [`StreamKey`], which CUDA stream a handle names from a given thread and device.
//! [`crate::Stream`] is a shared handle to a [`Queue`].
//!
//! Not here: the stream's operations ([`crate::stream`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::thread::ThreadId;

use crate::error::{report_drop_error, status};
use crate::sys;

/// A CUDA stream as the bookkeeping holds it: destroyed with its last reference when owned.
pub(crate) struct Queue {
    raw: sys::cudaStream_t,
    owned: bool,
    /// The stream's device; `None` for the legacy and per-thread default streams, which
    /// are a different stream on every device.
    device: Option<i32>,
    /// Held shared while an operation of the crate enqueues work and reads where it went
    /// (the capture status), exclusively while the crate begins or ends a capture: so that
    /// no capture begins, ends or joins this stream between an operation and its
    /// bookkeeping.
    gate: RwLock<()>,
    /// How many captures of the crate's began on the stream: an operation that must not be
    /// captured but cannot hold the gate (a user's allocator runs meanwhile) compares it
    /// before and after.
    captures: AtomicU64,
}

// SAFETY: a CUDA stream handle may be used from any host thread; the runtime synchronises
// its own state (CUDA Runtime API, "Thread safety" and the Programming Guide's streams).
unsafe impl Send for Queue {}
// SAFETY: as above; every method takes `&self` and only passes the handle to CUDA.
unsafe impl Sync for Queue {}

impl Queue {
    pub(crate) fn new(raw: sys::cudaStream_t, owned: bool, device: Option<i32>) -> Queue {
        Queue {
            raw,
            owned,
            device,
            gate: RwLock::new(()),
            captures: AtomicU64::new(0),
        }
    }

    #[inline]
    pub(crate) fn raw(&self) -> sys::cudaStream_t {
        self.raw
    }

    #[inline]
    pub(crate) fn owned(&self) -> bool {
        self.owned
    }

    /// The stream's device; `None` for a default stream (the current device's).
    #[inline]
    pub(crate) fn device(&self) -> Option<i32> {
        self.device
    }

    /// The gate held while an operation enqueues work and reads where it went.
    #[inline]
    pub(crate) fn gate_shared(&self) -> RwLockReadGuard<'_, ()> {
        self.gate.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The gate held while the stream's capture state may change.
    pub(crate) fn gate_exclusive(&self) -> RwLockWriteGuard<'_, ()> {
        self.gate.write().unwrap_or_else(|e| e.into_inner())
    }

    /// How many captures of the crate's began on the stream so far.
    pub(crate) fn capture_epoch(&self) -> u64 {
        self.captures.load(Ordering::SeqCst)
    }

    /// Counts a capture beginning (under the exclusive gate).
    pub(crate) fn count_capture(&self) {
        self.captures.fetch_add(1, Ordering::SeqCst);
    }

    /// Destroys an owned stream now and returns the error (for `Stream::close`); afterwards
    /// `Drop` destroys nothing.
    pub(crate) fn destroy(mut self) -> crate::Result<()> {
        if !std::mem::replace(&mut self.owned, false) {
            return Ok(());
        }
        // SAFETY: owned, the last reference, destroyed once.
        status(unsafe { sys::cudaStreamDestroy(self.raw) })
    }
}

/// An owned stream handle destroyed when dropped: what a stream dropped inside a CUDA
/// callback hands to the release thread (no CUDA call is allowed there).
struct DestroyLater(sys::cudaStream_t);

// SAFETY: a stream handle may be destroyed from any thread.
unsafe impl Send for DestroyLater {}

impl Drop for DestroyLater {
    fn drop(&mut self) {
        // SAFETY: an owned stream, destroyed once.
        if let Err(e) = status(unsafe { sys::cudaStreamDestroy(self.0) }) {
            report_drop_error("stream", &e);
        }
    }
}

impl Drop for Queue {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        if crate::loader::in_callback() {
            super::deferred::release_later(Box::new(DestroyLater(self.raw)));
            return;
        }
        // Pending work completes first; CUDA releases the stream afterwards.
        drop(DestroyLater(self.raw));
    }
}

/// The CUDA stream a stream handle names at the moment an operation is enqueued: a handle,
/// or the legacy default stream of a device, or the per-thread default stream of a device
/// and a host thread (the same handle names a different stream on every thread and device).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum StreamKey {
    /// A created (or borrowed) stream.
    Handle(usize),
    /// `cudaStreamLegacy` (or NULL) of this device.
    Legacy(i32),
    /// `cudaStreamPerThread` of this thread and device.
    PerThread(ThreadId, i32),
}

impl StreamKey {
    /// The stream `queue` names when used from this thread with `device` current.
    #[inline]
    pub(crate) fn of(queue: &Queue, device: i32) -> StreamKey {
        match queue.raw.0 as usize {
            0 | 1 => StreamKey::Legacy(device),
            2 => StreamKey::PerThread(std::thread::current().id(), device),
            handle => StreamKey::Handle(handle),
        }
    }

    /// Whether work of another host thread cannot be ordered on this stream (a per-thread
    /// default stream): every use of memory homed there must be recorded.
    #[inline]
    pub(crate) fn is_per_thread(self) -> bool {
        matches!(self, StreamKey::PerThread(..))
    }

    /// Whether this is a default stream (whose device is the current one).
    #[inline]
    pub(crate) fn is_default(self) -> bool {
        !matches!(self, StreamKey::Handle(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_streams_are_keyed_by_device_and_thread() {
        let legacy = Queue::new(sys::cudaStream_t(1 as *mut _), false, None);
        assert_eq!(StreamKey::of(&legacy, 1), StreamKey::Legacy(1));
        assert_ne!(StreamKey::of(&legacy, 1), StreamKey::of(&legacy, 0));
        let pt = Queue::new(sys::cudaStream_t(2 as *mut _), false, None);
        let here = StreamKey::of(&pt, 0);
        assert!(here.is_per_thread() && here.is_default());
        let there = std::thread::spawn(move || {
            let pt = Queue::new(sys::cudaStream_t(2 as *mut _), false, None);
            StreamKey::of(&pt, 0)
        })
        .join()
        .expect("thread");
        assert_ne!(here, there, "each thread has its own per-thread stream");
    }
}
