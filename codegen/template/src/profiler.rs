//! The CUDA profiler switch (`cudaProfilerStart` / `cudaProfilerStop`, CuPy's
//! `cupy.cuda.profiler.start/stop`) and a guard that profiles a scope (CuPy's
//! `cupy.cuda.profile()`).
//!
//! These only mark what a profiler attached to the process (Nsight Systems with
//! `--capture-range=cudaProfilerApi`, Nsight Compute) collects; without one they do nothing.
//! `cudaProfilerInitialize` (CuPy's `profiler.initialize`) was removed in CUDA 12.

use crate::error::{report_drop_error, status, Result};
use crate::loader::LazySymbol;
use crate::sys;

/// `cudaProfilerStart` and `cudaProfilerStop` are exported by every libcudart but are not
/// in every ABI snapshot the raw layer is generated from (cudarc's bindings lack
/// `cudaProfilerStart`), so both are resolved here through the loader, as the generated
/// functions are.
type ProfilerFn = unsafe extern "C" fn() -> sys::cudaError_t;

/// Starts profile collection (`cudaProfilerStart`).
pub fn start() -> Result<()> {
    // SAFETY: `cudaError_t cudaProfilerStart(void)` in every CUDA release
    // (`cuda_profiler_api.h`).
    static START: LazySymbol<ProfilerFn> = unsafe { LazySymbol::new(c"cudaProfilerStart", 0) };
    let start = START.get()?;
    // SAFETY: a value-only call.
    status(Ok(unsafe { start() }))
}

/// Stops profile collection (`cudaProfilerStop`).
pub fn stop() -> Result<()> {
    // SAFETY: `cudaError_t cudaProfilerStop(void)` in every CUDA release.
    static STOP: LazySymbol<ProfilerFn> = unsafe { LazySymbol::new(c"cudaProfilerStop", 0) };
    let stop = STOP.get()?;
    // SAFETY: a value-only call.
    status(Ok(unsafe { stop() }))
}

/// Profiles until the returned guard is dropped (`cudaProfilerStart` now,
/// `cudaProfilerStop` on drop; a failed stop goes to the hook of
/// [`set_drop_error_hook`](crate::error::set_drop_error_hook)).
pub fn profile() -> Result<Profile> {
    start()?;
    Ok(Profile { stopped: false })
}

/// A profiled scope (see [`profile`]).
///
/// ```no_run
/// # fn main() -> @CRATE@::Result<()> {
/// let profile = @CRATE@::profiler::profile()?; // cudaProfilerStart
/// // … the work to look at in Nsight Systems …
/// profile.stop()?; // cudaProfilerStop (also when dropped)
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[must_use = "profiling stops when the guard is dropped"]
pub struct Profile {
    stopped: bool,
}

impl Profile {
    /// Stops profiling now and returns the error.
    pub fn stop(mut self) -> Result<()> {
        self.stopped = true;
        stop()
    }
}

impl Drop for Profile {
    fn drop(&mut self) {
        if !self.stopped {
            if let Err(e) = stop() {
                report_drop_error("profiler scope", &e);
            }
        }
    }
}
