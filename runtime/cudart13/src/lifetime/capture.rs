// Copied by `cargo xtask codegen` from the generator's codegen/template/src/lifetime/capture.rs:
// edit the template, not this copy.

//! Where work enqueued on a stream goes: run, or captured into a graph (and which), as the
//! bookkeeping needs to know it; and the count of captures begun through this crate, so
//! that operations skip the question while there are none.
//!
//! Not here: beginning and ending captures ([`crate::graph`] does, through
//! [`capture_begun`] / [`capture_ended`]).

use std::ffi::{c_ulonglong, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::queue::Queue;
use crate::error::{status, Error, Result};
use crate::sys;

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

/// Captures begun through this crate and not yet ended, process-wide: while there are none,
/// no stream is capturing in a way the crate must see (a capture begun through the typed
/// layer is the caller's to account for), and operations skip the capture query.
static CAPTURES_ACTIVE: AtomicUsize = AtomicUsize::new(0);

/// Brief windows ([`brief_window`]) open now: calls made without relaxing the calling
/// thread's capture mode, because no capture of the crate's was active when they began.
static BRIEF_WINDOWS: AtomicUsize = AtomicUsize::new(0);

/// Counts a capture about to begin (undone by [`capture_ended`] when beginning fails), then
/// waits for the brief windows that opened while none was active: their calls, made in the
/// thread's default (global) capture mode, must not run once the capture has begun (CUDA
/// would refuse them and invalidate it). A window that opens after the count sees it.
pub(crate) fn capture_begun() {
    CAPTURES_ACTIVE.fetch_add(1, Ordering::SeqCst);
    while BRIEF_WINDOWS.load(Ordering::SeqCst) != 0 {
        std::thread::yield_now();
    }
}

/// An open brief window; closed when dropped (also by a panic).
pub(crate) struct BriefWindow(());

impl Drop for BriefWindow {
    fn drop(&mut self) {
        BRIEF_WINDOWS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Opens a brief window while no capture of the crate's is active (`None` otherwise): for a
/// few stream-ordered calls that never block (event waits, a free), which may then skip
/// relaxing the thread's capture mode — a capture of the crate's that begins meanwhile
/// waits for the window to close ([`capture_begun`]). The counter and the check are both
/// sequentially consistent, so either the window sees the capture or the capture sees the
/// window.
pub(crate) fn brief_window() -> Option<BriefWindow> {
    BRIEF_WINDOWS.fetch_add(1, Ordering::SeqCst);
    let window = BriefWindow(());
    (!any_capture()).then_some(window)
}

/// Counts a capture that ended (or failed to begin).
pub(crate) fn capture_ended() {
    let _ = CAPTURES_ACTIVE.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
}

/// Whether a capture begun through this crate may be going on anywhere in the process.
#[inline]
pub(crate) fn any_capture() -> bool {
    CAPTURES_ACTIVE.load(Ordering::SeqCst) != 0
}

/// The capture status the bookkeeping needs: [`capture_graph`] while a capture of this
/// crate's is active anywhere, otherwise [`Capture::No`] without asking CUDA. Read under the
/// stream's gate, so that no capture of this crate's begins on or joins the stream meanwhile.
#[inline]
pub(crate) fn capture_of(queue: &Queue) -> Result<Capture> {
    if !any_capture() {
        return Ok(Capture::No);
    }
    capture_graph(queue.raw())
}

/// Fails with `cudaErrorStreamCaptureUnsupported` (without enqueuing) when `queue` is being
/// captured: for operations whose work must run now (blocking copies into borrowed memory).
/// Call under the stream's gate.
pub(crate) fn refuse_capture(queue: &Queue) -> Result<()> {
    match capture_of(queue)? {
        Capture::No => Ok(()),
        _ => Err(Error::from_code(CAPTURE_UNSUPPORTED)),
    }
}

/// `cudaErrorStreamCaptureUnsupported`.
pub(crate) const CAPTURE_UNSUPPORTED: i32 = 900;

/// The 13.x `cudaStreamGetCaptureInfo` (12.3+: `cudaStreamGetCaptureInfo_v3`).
type CaptureInfoV3 = unsafe extern "C" fn(
    sys::cudaStream_t,
    *mut sys::cudaStreamCaptureStatus,
    *mut c_ulonglong,
    *mut sys::cudaGraph_t,
    *mut *const sys::cudaGraphNode_t,
    *mut *const c_void,
    *mut usize,
) -> sys::cudaError_t;
/// 12.0-12.2's `cudaStreamGetCaptureInfo_v2` (no edge data).
type CaptureInfoV2 = unsafe extern "C" fn(
    sys::cudaStream_t,
    *mut sys::cudaStreamCaptureStatus,
    *mut c_ulonglong,
    *mut sys::cudaGraph_t,
    *mut *const sys::cudaGraphNode_t,
    *mut usize,
) -> sys::cudaError_t;

/// Whether `stream` is capturing, and into which graph (`cudaStreamGetCaptureInfo`): how the
/// crate finds the graph that captured work goes into, whichever stream of a fork-join
/// capture the work was enqueued on.
pub(crate) fn capture_graph(stream: sys::cudaStream_t) -> Result<Capture> {
    // SAFETY: the C signatures of their releases.
    static V3: crate::loader::LazySymbol<CaptureInfoV3> = unsafe {
        crate::loader::LazySymbol::new(
            if sys::CUDA_MAJOR >= 13 {
                c"cudaStreamGetCaptureInfo"
            } else {
                c"cudaStreamGetCaptureInfo_v3"
            },
            0,
        )
    };
    // SAFETY: as above.
    static V2: crate::loader::LazySymbol<CaptureInfoV2> =
        unsafe { crate::loader::LazySymbol::new(c"cudaStreamGetCaptureInfo_v2", 0) };
    let mut st = sys::cudaStreamCaptureStatus::NONE;
    let mut id: c_ulonglong = 0;
    let mut graph = sys::cudaGraph_t::null();
    let code = match V3.get() {
        // SAFETY: the outputs are valid; the optional ones are NULL.
        Ok(f) => unsafe {
            f(
                stream,
                &mut st,
                &mut id,
                &mut graph,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        },
        Err(e) if sys::CUDA_MAJOR >= 13 => return Err(e),
        // SAFETY: as above.
        Err(_) => unsafe {
            V2.get()?(
                stream,
                &mut st,
                &mut id,
                &mut graph,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        },
    };
    status(Ok(code))?;
    Ok(match st {
        sys::cudaStreamCaptureStatus::NONE => Capture::No,
        sys::cudaStreamCaptureStatus::ACTIVE if !graph.is_null() => Capture::Into(graph, id),
        _ => Capture::Dead,
    })
}
