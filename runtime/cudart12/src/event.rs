// Copied by `cargo xtask codegen` from the generator's codegen/template/src/event.rs:
// edit the template, not this copy.

//! Events: markers recorded in a stream, to wait on (from the host or from another
//! stream), to query, and to time the work between two of them.
//!
//! An [`Event`] is owned and destroyed on drop (`cudaEventDestroy`; CUDA releases it once
//! pending work that records it has completed). Events are `Send` and `Sync`: an event
//! handle may be used from any host thread. An event belongs to the device that was current
//! when it was made ([`Stream::record_event`] makes it on the stream's device); recording
//! it on a stream of another device is refused with a clear error before CUDA is called.

use std::ffi::c_uint;

use crate::error::{report_drop_error, status, Result};
use crate::stream::{Stream, NOT_READY};
use crate::sys;

/// A CUDA event (see the [module documentation](self)).
#[derive(Debug)]
pub struct Event {
    raw: sys::cudaEvent_t,
    /// The device it was made on; `None` for a foreign event ([`Event::from_raw`]).
    device: Option<i32>,
}

// SAFETY: an event handle may be used from any host thread; the runtime synchronises its
// own state.
unsafe impl Send for Event {}
// SAFETY: as above; every method takes `&self` and only passes the handle to CUDA.
unsafe impl Sync for Event {}

impl Event {
    /// A new event with default flags (timing enabled, busy-wait synchronisation), on the
    /// current device.
    pub fn new() -> Result<Event> {
        Event::with_flags(sys::EventFlags::DEFAULT)
    }

    /// A new event with these flags (`cudaEventCreateWithFlags`): `BLOCKING_SYNC`,
    /// `DISABLE_TIMING` (cheaper, for synchronisation only), `INTERPROCESS`.
    pub fn with_flags(flags: sys::EventFlags) -> Result<Event> {
        let mut raw = sys::cudaEvent_t::null();
        // SAFETY: one handle is written through a valid pointer.
        status(unsafe { sys::cudaEventCreateWithFlags(&mut raw, flags.bits() as c_uint) })?;
        let device = crate::device::current_ordinal().ok();
        Ok(Event { raw, device })
    }

    /// A new event with these flags on `device` (the current device is restored).
    pub fn on_device(device: crate::Device, flags: sys::EventFlags) -> Result<Event> {
        crate::device::with_device(device.ordinal(), || Event::with_flags(flags))
    }

    /// The device the event belongs to (its ordinal); `None` for a foreign event.
    pub fn device(&self) -> Option<i32> {
        self.device
    }

    /// Takes ownership of an event handle: it is destroyed when this value is dropped.
    ///
    /// # Safety
    /// `raw` is a live event that nothing else destroys.
    pub unsafe fn from_raw(raw: sys::cudaEvent_t) -> Event {
        Event { raw, device: None }
    }

    /// The raw handle; valid as long as this value exists.
    #[inline]
    pub fn as_raw(&self) -> sys::cudaEvent_t {
        self.raw
    }

    /// Gives up ownership: the handle is no longer destroyed on drop.
    pub fn into_raw(self) -> sys::cudaEvent_t {
        std::mem::ManuallyDrop::new(self).raw
    }

    /// Records the event at this point of `stream` (`cudaEventRecord`); a later record
    /// replaces the earlier one. The stream must be of the event's device
    /// ([`Error::InvalidArgument`](crate::Error::InvalidArgument) otherwise, without calling
    /// CUDA); for the default streams, the event's device is made current for the call.
    #[inline]
    pub fn record(&self, stream: &Stream) -> Result<()> {
        if let (Some(e), Some(s)) = (self.device, stream.device()) {
            if e != s {
                return Err(crate::Error::InvalidArgument(format!(
                    "an event of device {e} cannot be recorded on a stream of device {s}                      (make the event with Stream::record_event or Event::on_device)"
                )));
            }
        }
        let _gate = stream.gate_exclusive();
        let record = || {
            // SAFETY: both handles are alive.
            status(unsafe { sys::cudaEventRecord(self.raw, stream.as_raw()) })
        };
        match (stream.device(), self.device) {
            (None, Some(d)) => crate::device::with_device(d, record),
            _ => record(),
        }
    }

    /// Waits on the host until the work before the last record has completed
    /// (`cudaEventSynchronize`).
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: the handle is alive.
        status(unsafe { sys::cudaEventSynchronize(self.raw) })
    }

    /// Whether the work before the last record has completed (`cudaEventQuery`;
    /// `cudaErrorNotReady` is `Ok(false)`). An event never recorded is complete.
    pub fn query(&self) -> Result<bool> {
        // SAFETY: the handle is alive.
        match status(unsafe { sys::cudaEventQuery(self.raw) }) {
            Ok(()) => Ok(true),
            Err(e) if e.cuda_code() == Some(NOT_READY) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Milliseconds from `start` to this event (`cudaEventElapsedTime(start, self)`), with
    /// a resolution of about half a microsecond. Both must have completed and have timing
    /// enabled (`cudaErrorInvalidResourceHandle` otherwise).
    pub fn elapsed_since(&self, start: &Event) -> Result<f32> {
        Event::elapsed_time(start, self)
    }

    /// Milliseconds from `start` to `end` (`cudaEventElapsedTime`; CuPy's
    /// `get_elapsed_time`).
    pub fn elapsed_time(start: &Event, end: &Event) -> Result<f32> {
        let mut ms = 0f32;
        // SAFETY: both handles are alive; one float is written.
        status(unsafe { sys::cudaEventElapsedTime(&mut ms, start.raw, end.raw) })?;
        Ok(ms)
    }

    /// Destroys the event now and returns the error, where dropping it would report it to
    /// the hook of [`set_drop_error_hook`](crate::error::set_drop_error_hook).
    pub fn close(self) -> Result<()> {
        let raw = self.into_raw();
        // SAFETY: owned handle, given up by `into_raw`.
        status(unsafe { sys::cudaEventDestroy(raw) })
    }
}

/// An owned event handle destroyed when dropped (see the stream's `DestroyLater`).
struct DestroyLater(sys::cudaEvent_t);

// SAFETY: an event handle may be destroyed from any thread.
unsafe impl Send for DestroyLater {}

impl Drop for DestroyLater {
    fn drop(&mut self) {
        // SAFETY: an owned event, destroyed once.
        if let Err(e) = status(unsafe { sys::cudaEventDestroy(self.0) }) {
            report_drop_error("event", &e);
        }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if crate::loader::in_callback() {
            crate::memory::release::release_later(Box::new(DestroyLater(self.raw)));
            return;
        }
        // SAFETY: owned handle, destroyed once.
        if let Err(e) = status(unsafe { sys::cudaEventDestroy(self.raw) }) {
            report_drop_error("event", &e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Event>();
    }
}
