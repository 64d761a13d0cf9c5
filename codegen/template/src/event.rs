//! Events: markers recorded in a stream, to wait on (from the host or from another
//! stream), to query, to time the work between two of them, and to share with another
//! process.
//!
//! An [`Event`] is a shared handle (`Clone` is a reference count, as for a
//! [`Stream`]): the CUDA event is destroyed when the last clone is dropped
//! (`cudaEventDestroy`; CUDA releases it once pending work that records it has completed),
//! so that graphs with event nodes can keep the events they record or wait on. Events are
//! `Send` and `Sync`: an event handle may be used from any host thread. An event belongs to
//! the device that was current when it was made ([`Stream::record_event`] and
//! [`Event::on_device`] make it on a stream's or a given device); recording it on a stream of
//! another device is refused with a clear error before CUDA is called.
//!
//! Interprocess events ([`Event::interprocess`]) hand an [`IpcEventHandle`] to another
//! process, which opens it with [`IpcEventHandle::open`] (`unsafe`: the bytes come from
//! outside the crate) and waits on it like any event.

use std::ffi::c_uint;
use std::sync::Arc;

use crate::error::{report_drop_error, status, Error, Result};
use crate::lifetime::NOT_READY;
use crate::stream::Stream;
use crate::sys;

/// Event creation flags (`cudaEventDefault`, `cudaEventBlockingSync`,
/// `cudaEventDisableTiming`, `cudaEventInterprocess`).
pub use crate::sys::EventFlags;

/// A CUDA event (see the [module documentation](self)).
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::{DeviceBuffer, Event, Stream};
/// let (a, b) = (Stream::non_blocking()?, Stream::non_blocking()?);
/// let mut buf = DeviceBuffer::<f32>::new(1 << 20, &a)?;
/// let start = a.record_event()?;
/// buf.fill_zero(&a)?;
/// let done = a.record_event()?;
/// b.wait_event(&done)?; // b's later work runs after the memset
/// done.synchronize()?;
/// println!("memset: {:.3} ms", done.elapsed_since(&start)?);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Event {
    inner: Arc<EventInner>,
}

struct EventInner {
    raw: sys::cudaEvent_t,
    /// The device it was made on; `None` for a foreign event ([`Event::from_raw`]).
    device: Option<i32>,
    /// Destroyed when the last clone goes (`false` once [`Event::into_raw`] gave it up).
    owned: bool,
    /// The flags it was made with; `None` for a foreign event (CUDA cannot read them back).
    flags: Option<EventFlags>,
    /// The handle it was opened from ([`IpcEventHandle::open`]), given back by
    /// [`Event::ipc_handle`] (CUDA refuses `cudaIpcGetEventHandle` on an opened event).
    opened_from: Option<IpcEventHandle>,
}

// SAFETY: an event handle may be used from any host thread; the runtime synchronises its
// own state.
unsafe impl Send for EventInner {}
// SAFETY: as above; every method takes `&self` and only passes the handle to CUDA.
unsafe impl Sync for EventInner {}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("raw", &self.inner.raw)
            .field("device", &self.inner.device)
            .finish()
    }
}

/// Two `Event`s are equal when they hold the same CUDA event (clones of one another, or
/// wrappers of one handle).
impl PartialEq for Event {
    fn eq(&self, other: &Event) -> bool {
        self.inner.raw == other.inner.raw
    }
}

impl Eq for Event {}

/// Hashes the raw handle, as [`PartialEq`] compares it, so that events can key a map.
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use std::collections::HashSet;
/// let e = @CRATE@::Event::new()?;
/// let set: HashSet<@CRATE@::Event> = [e.clone(), e].into_iter().collect();
/// assert_eq!(set.len(), 1);
/// # Ok(()) }
/// ```
impl std::hash::Hash for Event {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.inner.raw.hash(state);
    }
}

impl Event {
    fn owning(raw: sys::cudaEvent_t, device: Option<i32>, flags: Option<EventFlags>) -> Event {
        Event {
            inner: Arc::new(EventInner {
                raw,
                device,
                owned: true,
                flags,
                opened_from: None,
            }),
        }
    }

    /// The flags the event was made with (`cudaEventCreateWithFlags`' argument; an event
    /// opened from an IPC handle has `INTERPROCESS | DISABLE_TIMING`); `None` for a foreign
    /// event ([`Event::from_raw`]), whose flags CUDA cannot report.
    ///
    /// ```no_run
    /// # fn main() -> @CRATE@::Result<()> {
    /// use @CRATE@::{Event, EventFlags};
    /// let e = Event::with_flags(EventFlags::DISABLE_TIMING)?;
    /// assert_eq!(e.flags(), Some(EventFlags::DISABLE_TIMING));
    /// assert_eq!(e.is_timing_disabled(), Some(true));
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaEventCreateWithFlags")]
    pub fn flags(&self) -> Option<EventFlags> {
        self.inner.flags
    }

    /// Whether timing is disabled (`cudaEventDisableTiming`); `None` for a foreign event.
    #[doc(alias = "cudaEventDisableTiming")]
    pub fn is_timing_disabled(&self) -> Option<bool> {
        self.flags().map(|f| f.contains(EventFlags::DISABLE_TIMING))
    }

    /// Whether the host blocks instead of spinning when it waits (`cudaEventBlockingSync`);
    /// `None` for a foreign event.
    #[doc(alias = "cudaEventBlockingSync")]
    pub fn is_blocking_sync(&self) -> Option<bool> {
        self.flags().map(|f| f.contains(EventFlags::BLOCKING_SYNC))
    }

    /// Whether another process can open it (`cudaEventInterprocess`); `None` for a foreign
    /// event.
    #[doc(alias = "cudaEventInterprocess")]
    pub fn is_ipc_enabled(&self) -> Option<bool> {
        self.flags().map(|f| f.contains(EventFlags::INTERPROCESS))
    }

    /// A new event with default flags (timing enabled, busy-wait synchronisation), on the
    /// current device.
    #[doc(alias = "cudaEventCreate")]
    pub fn new() -> Result<Event> {
        Event::with_flags(EventFlags::DEFAULT)
    }

    /// A new event with these flags (`cudaEventCreateWithFlags`): `BLOCKING_SYNC`,
    /// `DISABLE_TIMING` (cheaper, for synchronisation only), `INTERPROCESS`.
    #[doc(alias = "cudaEventCreateWithFlags")]
    pub fn with_flags(flags: EventFlags) -> Result<Event> {
        let mut raw = sys::cudaEvent_t::null();
        // SAFETY: one handle is written through a valid pointer.
        status(unsafe { sys::cudaEventCreateWithFlags(&mut raw, flags.bits() as c_uint) })?;
        let device = crate::lifetime::current::current_ordinal().ok();
        Ok(Event::owning(raw, device, Some(flags)))
    }

    /// A new event with these flags on `device` (the current device is restored).
    #[doc(alias = "cudaEventCreateWithFlags")]
    pub fn on_device(device: crate::Device, flags: EventFlags) -> Result<Event> {
        crate::lifetime::current::with_device(device.ordinal(), || Event::with_flags(flags))
    }

    /// A new event of `device` that another process can wait on: `INTERPROCESS |
    /// DISABLE_TIMING` (CUDA requires both), handed over with [`ipc_handle`](Event::ipc_handle).
    #[doc(alias = "cudaEventInterprocess")]
    #[doc(alias = "cudaEventCreateWithFlags")]
    pub fn interprocess(device: crate::Device) -> Result<Event> {
        Event::on_device(
            device,
            EventFlags::INTERPROCESS | EventFlags::DISABLE_TIMING,
        )
    }

    /// The device the event belongs to; `None` for a foreign event.
    pub fn device(&self) -> Option<crate::Device> {
        self.inner.device.map(crate::Device::from_ordinal)
    }

    /// Takes ownership of an event handle: it is destroyed when the last clone is dropped.
    ///
    /// # Safety
    /// `raw` is a live event that nothing else destroys.
    pub unsafe fn from_raw(raw: sys::cudaEvent_t) -> Event {
        Event::owning(raw, None, None)
    }

    /// The raw handle; valid as long as this value (or a clone) exists.
    #[inline]
    pub fn as_raw(&self) -> sys::cudaEvent_t {
        self.inner.raw
    }

    /// Gives up ownership: the handle is no longer destroyed on drop. With other clones
    /// alive (a graph node's, say) the event is shared: it is given back as `Err`.
    pub fn into_raw(self) -> std::result::Result<sys::cudaEvent_t, Event> {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => {
                inner.owned = false;
                Ok(inner.raw)
            }
            Err(inner) => Err(Event { inner }),
        }
    }

    /// Records the event at this point of `stream` (`cudaEventRecord`); a later record
    /// replaces the earlier one. The stream must be of the event's device
    /// ([`Error::InvalidArgument`] otherwise, without calling CUDA); for the default
    /// streams, the event's device is made current for the call.
    #[doc(alias = "cudaEventRecord")]
    #[inline]
    pub fn record(&self, stream: &Stream) -> Result<()> {
        let mine = self.inner.device;
        if let (Some(e), Some(s)) = (mine, stream.ordinal()) {
            if e != s {
                return Err(Error::InvalidArgument(format!(
                    "an event of device {e} cannot be recorded on a stream of device {s} \
                     (make the event with Stream::record_event or Event::on_device)"
                )));
            }
        }
        let _gate = stream.gate_exclusive();
        let raw = self.inner.raw;
        let record = || {
            // SAFETY: both handles are alive.
            status(unsafe { sys::cudaEventRecord(raw, stream.as_raw()) })
        };
        match (stream.ordinal(), mine) {
            (None, Some(d)) => crate::lifetime::current::with_device(d, record),
            _ => record(),
        }
    }

    /// Waits on the host until the work before the last record has completed
    /// (`cudaEventSynchronize`).
    #[doc(alias = "cudaEventSynchronize")]
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: the handle is alive.
        status(unsafe { sys::cudaEventSynchronize(self.inner.raw) })
    }

    /// Whether the work before the last record has completed (`cudaEventQuery`;
    /// `cudaErrorNotReady` is `Ok(false)`). An event never recorded is complete.
    #[doc(alias = "cudaEventQuery")]
    pub fn query(&self) -> Result<bool> {
        // SAFETY: the handle is alive.
        match status(unsafe { sys::cudaEventQuery(self.inner.raw) }) {
            Ok(()) => Ok(true),
            Err(e) if e.cuda_code() == Some(NOT_READY) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Milliseconds from `start` to this event (`cudaEventElapsedTime(start, self)`), with
    /// a resolution of about half a microsecond. Both must have completed and have timing
    /// enabled (`cudaErrorInvalidResourceHandle` otherwise).
    #[doc(alias = "cudaEventElapsedTime")]
    pub fn elapsed_since(&self, start: &Event) -> Result<f32> {
        Event::elapsed_time(start, self)
    }

    /// Milliseconds from `start` to `end` (`cudaEventElapsedTime`; CuPy's
    /// `get_elapsed_time`).
    #[doc(alias = "cudaEventElapsedTime")]
    pub fn elapsed_time(start: &Event, end: &Event) -> Result<f32> {
        let mut ms = 0f32;
        // SAFETY: both handles are alive; one float is written.
        status(unsafe { sys::cudaEventElapsedTime(&mut ms, start.inner.raw, end.inner.raw) })?;
        Ok(ms)
    }

    /// The handle another process opens this event with (`cudaIpcGetEventHandle`): 64
    /// bytes to send it any way ([`IpcEventHandle::to_bytes`]). Only for events made with
    /// [`Event::interprocess`] (`cudaErrorInvalidResourceHandle` otherwise). An event opened
    /// from a handle ([`IpcEventHandle::open`]) gives back that handle, so it can be passed on
    /// to a third process.
    #[doc(alias = "cudaIpcGetEventHandle")]
    pub fn ipc_handle(&self) -> Result<IpcEventHandle> {
        if let Some(handle) = self.inner.opened_from {
            return Ok(handle);
        }
        let mut raw = sys::cudaIpcEventHandle_t::default();
        let mut get = || {
            // SAFETY: the event is alive; one 64-byte record is written.
            status(unsafe { sys::cudaIpcGetEventHandle(&mut raw, self.inner.raw) })
        };
        // With the event's device current: the runtime of CUDA 13.0 (driver 580) crashes
        // in `cudaIpcGetEventHandle` for an event of another device than the current one.
        match self.inner.device {
            Some(device) => crate::lifetime::current::with_device(device, get)?,
            None => get()?,
        }
        Ok(IpcEventHandle {
            bytes: raw.reserved.map(|b| b as u8),
        })
    }

    /// Destroys the event now (if this is the last clone) and returns the error, where
    /// dropping it would report it to the hook of
    /// [`set_drop_error_hook`](crate::error::set_drop_error_hook). With other clones alive
    /// nothing is destroyed and this returns `Ok`.
    #[doc(alias = "cudaEventDestroy")]
    pub fn close(self) -> Result<()> {
        match self.into_raw() {
            // SAFETY: owned handle, given up by `into_raw`.
            Ok(raw) => status(unsafe { sys::cudaEventDestroy(raw) }),
            Err(_) => Ok(()),
        }
    }
}

/// An event exported by another process (or to one): the 64 bytes of a
/// `cudaIpcEventHandle_t`, from [`Event::ipc_handle`].
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// use @CRATE@::{Device, Event, IpcEventHandle};
/// // Exporting process:
/// let event = Event::interprocess(Device::get(0)?)?;
/// let bytes: [u8; 64] = event.ipc_handle()?.to_bytes(); // send these to the other process
/// // Importing process:
/// let handle = IpcEventHandle::from_bytes(bytes);
/// // SAFETY: the bytes are an exported event handle whose event the exporter keeps alive.
/// let remote = unsafe { handle.open(Device::get(0)?)? };
/// remote.synchronize()?;
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpcEventHandle {
    bytes: [u8; 64],
}

impl std::fmt::Debug for IpcEventHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IpcEventHandle(")?;
        for b in &self.bytes[..8] {
            write!(f, "{b:02x}")?;
        }
        f.write_str("…)")
    }
}

impl IpcEventHandle {
    /// The handle's bytes, to send to another process.
    pub fn to_bytes(self) -> [u8; 64] {
        self.bytes
    }

    /// A handle from the bytes of [`to_bytes`](IpcEventHandle::to_bytes).
    pub fn from_bytes(bytes: [u8; 64]) -> IpcEventHandle {
        IpcEventHandle { bytes }
    }

    /// Opens the exported event in this process, as an event of `device` (the device the
    /// exporter made it on, as this process numbers it), with `device` current for the call
    /// (`cudaIpcOpenEventHandle`). The returned [`Event`] is this process's own handle,
    /// destroyed when its last clone is dropped; it can be waited on, queried and recorded
    /// like any event.
    ///
    /// # Safety
    /// The bytes are a handle that [`Event::ipc_handle`] (or `cudaIpcGetEventHandle`) made
    /// in another process, of an event of `device` that the exporting process keeps alive
    /// until the returned event and its clones are gone.
    #[doc(alias = "cudaIpcOpenEventHandle")]
    pub unsafe fn open(self, device: crate::Device) -> Result<Event> {
        let handle = sys::cudaIpcEventHandle_t {
            reserved: self.bytes.map(|b| b as _),
        };
        let mut raw = sys::cudaEvent_t::null();
        crate::lifetime::current::with_device(device.ordinal(), || {
            // SAFETY: one handle is written; the caller's promise about the bytes.
            status(unsafe { sys::cudaIpcOpenEventHandle(&mut raw, handle) })
        })?;
        Ok(Event {
            inner: Arc::new(EventInner {
                raw,
                device: Some(device.ordinal()),
                owned: true,
                flags: Some(EventFlags::INTERPROCESS | EventFlags::DISABLE_TIMING),
                opened_from: Some(self),
            }),
        })
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

impl Drop for EventInner {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        if crate::loader::in_callback() {
            crate::lifetime::deferred::release_later(Box::new(DestroyLater(self.raw)));
            return;
        }
        // SAFETY: owned handle, destroyed once, by its last clone.
        if let Err(e) = status(unsafe { sys::cudaEventDestroy(self.raw) }) {
            report_drop_error("event", &e);
        }
    }
}

/// A stream's waits on events and the events it records (with the events, so that streams need
/// not know them).
impl Stream {
    /// Makes later work on this stream wait until `event` has completed
    /// (`cudaStreamWaitEvent`); the host does not wait. Waiting on an event recorded in a
    /// capture joins this stream to that capture.
    #[doc(alias = "cudaStreamWaitEvent")]
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        let _gate = self.gate_exclusive();
        // SAFETY: both handles are alive; flags 0.
        status(unsafe { sys::cudaStreamWaitEvent(self.as_raw(), event.as_raw(), 0) })
    }

    /// Records a new event (default flags), made on the stream's device, at this point of
    /// the stream and returns it.
    #[doc(alias = "cudaEventCreate")]
    #[doc(alias = "cudaEventRecord")]
    pub fn record_event(&self) -> Result<Event> {
        let event = match self.ordinal() {
            Some(d) => crate::lifetime::current::with_device(d, Event::new)?,
            None => Event::new()?,
        };
        event.record(self)?;
        Ok(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Event>();
        assert_send_sync::<IpcEventHandle>();
    }

    #[test]
    fn events_compare_and_hash_by_handle() {
        use std::collections::HashSet;
        // Not owned (`into_raw`-style): nothing is destroyed when they drop.
        let make = |addr: usize, flags| {
            let raw = sys::cudaEvent_t(addr as *mut _);
            let mut e = Event::owning(raw, None, flags);
            Arc::get_mut(&mut e.inner).expect("one clone").owned = false;
            e
        };
        let a = make(0x10, Some(EventFlags::DISABLE_TIMING));
        let b = make(0x20, None);
        assert_eq!(a, a.clone());
        assert_ne!(a, b);
        let set: HashSet<Event> = [a.clone(), a.clone(), b.clone()].into_iter().collect();
        assert_eq!(set.len(), 2);
        assert_eq!(a.flags(), Some(EventFlags::DISABLE_TIMING));
        assert_eq!(a.is_timing_disabled(), Some(true));
        assert_eq!(a.is_ipc_enabled(), Some(false));
        assert_eq!(b.flags(), None);
    }

    #[test]
    fn ipc_event_handles_round_trip_their_bytes() {
        let mut bytes = [0u8; 64];
        bytes[0] = 0xab;
        bytes[63] = 7;
        let h = IpcEventHandle::from_bytes(bytes);
        assert_eq!(h.to_bytes(), bytes);
        assert_eq!(format!("{h:?}"), "IpcEventHandle(ab00000000000000…)");
    }
}
