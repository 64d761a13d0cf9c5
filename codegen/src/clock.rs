//! CPU time of the calling thread, for the checks that work must grow linearly with its input
//! (the red-team tests, `cargo xtask fuzz`, the scaling benchmark's notes).
//!
//! Wall-clock time on a shared machine grows with whatever else runs; the time this thread
//! spent on a CPU does not. Unix systems report it with `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`
//! (to the nanosecond, unlike the tick-granular `/proc` counters); elsewhere, or when the call
//! fails, the functions here fall back to wall-clock time. Nothing here measures anything by
//! itself.

use std::time::{Duration, Instant};

/// A point in time of the calling thread: CPU time where the system reports it, else a
/// wall-clock instant.
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch {
    cpu: Option<Duration>,
    wall: Instant,
}

impl Stopwatch {
    /// Starts measuring now.
    pub fn start() -> Stopwatch {
        Stopwatch {
            cpu: thread_cpu_time(),
            wall: Instant::now(),
        }
    }

    /// CPU time of this thread since [`Stopwatch::start`] (wall-clock time where the CPU time
    /// cannot be read). Must be read on the thread that started it.
    pub fn elapsed(&self) -> Duration {
        match (self.cpu, thread_cpu_time()) {
            (Some(a), Some(b)) if b >= a => b - a,
            _ => self.wall.elapsed(),
        }
    }
}

/// The CPU time the calling thread has used, where the system reports it.
#[cfg(unix)]
pub fn thread_cpu_time() -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `timespec`; the call writes only into it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return None;
    }
    let secs = u64::try_from(ts.tv_sec).ok()?;
    let nanos = u32::try_from(ts.tv_nsec).ok()?;
    Some(Duration::new(secs, nanos))
}

/// CPU time: not reported here.
#[cfg(not(unix))]
pub fn thread_cpu_time() -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_work_takes_time() {
        let watch = Stopwatch::start();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(watch.elapsed() > Duration::ZERO);
        if cfg!(unix) {
            assert!(thread_cpu_time().is_some());
        }
    }
}
