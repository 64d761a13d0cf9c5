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
pub fn thread_cpu_time() -> Option<Duration> {
    cpu_time(Clock::Thread)
}

/// The CPU time the whole process (all its threads) has used, where the system reports it.
pub fn process_cpu_time() -> Option<Duration> {
    cpu_time(Clock::Process)
}

/// Whose CPU time [`cpu_time`] reads.
enum Clock {
    Thread,
    Process,
}

#[cfg(unix)]
fn cpu_time(clock: Clock) -> Option<Duration> {
    let id = match clock {
        Clock::Thread => libc::CLOCK_THREAD_CPUTIME_ID,
        Clock::Process => libc::CLOCK_PROCESS_CPUTIME_ID,
    };
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `timespec`; the call writes only into it.
    let rc = unsafe { libc::clock_gettime(id, &mut ts) };
    if rc != 0 {
        return None;
    }
    let secs = u64::try_from(ts.tv_sec).ok()?;
    let nanos = u32::try_from(ts.tv_nsec).ok()?;
    Some(Duration::new(secs, nanos))
}

/// CPU time: not reported here.
#[cfg(not(unix))]
fn cpu_time(_clock: Clock) -> Option<Duration> {
    None
}

/// Wall-clock and CPU time (all threads) of each stage on standard error when
/// `CODEGEN_TIMES` is set (for profiling `cargo xtask codegen`: a stage whose CPU time is
/// close to its wall time used one core; nothing is printed otherwise).
pub struct Span {
    at: Option<(std::time::Instant, Option<std::time::Duration>)>,
}

/// Milliseconds of wall-clock time since the first call (the run's first [`Span`]): where a
/// stage or a task of a parallel stage falls on the run's time line, for `CODEGEN_TIMES`.
pub fn run_ms() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
        * 1e3
}

impl Span {
    pub fn start() -> Span {
        run_ms();
        Span {
            at: std::env::var_os("CODEGEN_TIMES").map(|_| Span::now()),
        }
    }

    fn now() -> (std::time::Instant, Option<std::time::Duration>) {
        (std::time::Instant::now(), process_cpu_time())
    }

    pub fn end(&mut self, what: &str) {
        if let Some((wall, cpu)) = self.at {
            let cpu = match (cpu, process_cpu_time()) {
                (Some(a), Some(b)) => format!(", CPU {:.1} ms", (b - a).as_secs_f64() * 1e3),
                _ => String::new(),
            };
            eprintln!(
                "codegen time: {what}: {:.1} ms{cpu}, ends at {:.1} ms",
                wall.elapsed().as_secs_f64() * 1e3,
                run_ms()
            );
            self.at = Some(Span::now());
        }
    }
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
            assert!(process_cpu_time() >= thread_cpu_time());
        }
    }
}
