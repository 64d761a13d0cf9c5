// Copied by `cargo xtask codegen` from the generator's codegen/template/src/lifetime/current.rs:
// edit the template, not this copy.

//! The calling thread's current device: reading it, and running a step with another device
//! current (the safe layer's rule 4, device affinity). On a machine with one device the
//! current device can only be 0, so neither is a CUDA call there.
//!
//! Not here: which device an object belongs to (each type remembers its own).

use std::ffi::c_int;
use std::sync::atomic::{AtomicI32, Ordering};

use crate::error::{report_drop_error, status, Result};
use crate::sys;

/// The number of devices once known (`cudaGetDeviceCount` succeeded), or -1.
static DEVICES: AtomicI32 = AtomicI32::new(-1);

/// Whether the process sees exactly one device (asked once; `false` while the count cannot
/// be read, so that the slow path is taken).
#[inline]
fn single_device() -> bool {
    match DEVICES.load(Ordering::Relaxed) {
        -1 => count_devices() == Some(1),
        n => n == 1,
    }
}

#[cold]
fn count_devices() -> Option<i32> {
    let mut n: c_int = 0;
    // SAFETY: one int is written.
    status(unsafe { sys::cudaGetDeviceCount(&mut n) }).ok()?;
    DEVICES.store(n, Ordering::Relaxed);
    Some(n)
}

/// The calling thread's current device ordinal (`cudaGetDevice`; 0 without a call where the
/// process sees one device).
#[inline]
pub(crate) fn current_ordinal() -> Result<i32> {
    if single_device() {
        return Ok(0);
    }
    let mut ordinal: c_int = 0;
    // SAFETY: one int is written through a valid pointer.
    status(unsafe { sys::cudaGetDevice(&mut ordinal) })?;
    Ok(ordinal)
}

/// Runs `f` with `device` current on the calling thread, and makes the previous device
/// current again afterwards. A failed restore is reported through the drop-error hook, not
/// returned: `f` may have enqueued work, whose bookkeeping must not be skipped.
#[inline]
pub(crate) fn with_device<R>(device: i32, f: impl FnOnce() -> Result<R>) -> Result<R> {
    let previous = current_ordinal()?;
    if previous == device {
        return f();
    }
    switched(previous, device, f)
}

#[inline(never)]
fn switched<R>(previous: i32, device: i32, f: impl FnOnce() -> Result<R>) -> Result<R> {
    // SAFETY: a value-only call.
    status(unsafe { sys::cudaSetDevice(device) })?;
    let result = f();
    // SAFETY: as above.
    if let Err(e) = status(unsafe { sys::cudaSetDevice(previous) }) {
        report_drop_error("restoring the current device", &e);
    }
    result
}
