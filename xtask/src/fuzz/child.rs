//! The child side of `cargo xtask fuzz`: runs cases one after the other and tells the parent
//! about each on standard output, one line per event.
//!
//! Protocol (one line each): `ready CAP_MS` once the seeds are read and the time model is
//! calibrated; `start CASE` before a case; `done CASE MICROS INPUT_BYTES IR_JSON_BYTES
//! RATIO_TO_MODEL` after it; `fail CASE KIND MESSAGE` when it broke a property (`panic`,
//! `size`, `loss`, `slow`). A stack overflow or any other abort ends the process: the parent sees the
//! `start` without an answer and the exit status. The child stops starting cases at its
//! deadline. Times are CPU time of the thread running the cases.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Result;
use codegen::clock::Stopwatch;

use super::target::{self, Context, Seed};
use super::{make_case, CaseShape};

/// Stack of the thread that runs the cases: the 2 MiB a test thread gets, so that recursion
/// deep enough to overflow there is found here too.
const STACK: usize = 2 << 20;

/// A case may take this many times what the linear model predicts before it is a time-out.
pub const SLOW_FACTOR: f64 = 10.0;

/// The last panic's message and place, set by the panic hook.
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

/// What one seed costs: a fixed part (an empty input, still compared with the whole seed), a
/// part per input byte and a part per output byte (both from samples of the real documents).
///
/// The output part is there because a mutant may be far denser in items than any real
/// document (a 126 KB line of `es;` is 42,000 struct fields): such a case costs more per input
/// byte, in proportion to what it produces, and what it produces is itself bounded linearly
/// by the size check ([`target::SIZE_FACTOR`]), so the prediction stays linear in the input.
#[derive(Clone, Copy, Debug)]
pub struct Model {
    fixed: f64,
    per_byte: f64,
    per_out_byte: f64,
    /// Added when a case also emits the crate.
    emit: f64,
}

impl Model {
    /// Predicted seconds for `bytes` of input that produced `out` bytes (the largest of its IR
    /// JSON and reports), at least a millisecond.
    pub fn predict(&self, bytes: usize, out: usize, emit: bool) -> f64 {
        let work = (self.per_byte * bytes as f64).max(self.per_out_byte * out as f64);
        let t = self.fixed + work + if emit { self.emit } else { 0.0 };
        t.max(1e-3)
    }

    /// The time past which a case is a time-out.
    pub fn limit(&self, bytes: usize, out: usize, emit: bool) -> f64 {
        SLOW_FACTOR * self.predict(bytes, out, emit) + 0.1
    }
}

/// Seconds of this thread's CPU time `f` takes (other work on the machine does not count).
fn time(f: impl FnOnce()) -> f64 {
    let t = Stopwatch::start();
    f();
    t.elapsed().as_secs_f64()
}

/// Seeds smaller than this say nothing about the cost per byte (their time is all overhead).
const MEASURABLE: usize = 64 << 10;
/// The cost per byte is measured on this much of each large seed (whole lines from its middle).
const SAMPLE: usize = 256 << 10;

/// Measures every seed empty (the fixed part: an empty input is still compared with the whole
/// seed) and a sample of every large seed. The cost per byte is the largest any sample shows,
/// for every seed: a mutant may hold any content (lines of an HTML page spliced into a text
/// page, a 23-byte seed repeated into megabytes), so the dearest content is the fair model.
pub fn calibrate(ctx: &Context, seeds: &[Seed]) -> Vec<Model> {
    let once = |seed: usize, input: &[u8], emit: bool| {
        let mut out = 0;
        let t = time(|| {
            out = target::run(ctx, seeds, seed, input, emit).map_or(0, |o| o.largest());
        });
        (t, out)
    };
    let fixed: Vec<f64> = (0..seeds.len()).map(|k| once(k, b"", false).0).collect();
    let emit = if seeds.is_empty() {
        0.0
    } else {
        (once(0, b"", true).0 - fixed[0]).max(0.0)
    };
    let (mut per_byte, mut per_out_byte) = (0.0f64, 0.0f64);
    for k in (0..seeds.len()).filter(|&k| seeds[k].bytes.len() >= MEASURABLE) {
        let sample = middle_lines(&seeds[k].bytes, SAMPLE);
        let (t, out) = once(k, sample, false);
        let work = (t - fixed[k]).max(0.0);
        per_byte = per_byte.max(work / sample.len().max(1) as f64);
        per_out_byte = per_out_byte.max(work / out.max(1) as f64);
    }
    fixed
        .into_iter()
        .map(|fixed| Model {
            fixed,
            per_byte,
            per_out_byte,
            emit,
        })
        .collect()
}

/// About `len` bytes of whole lines from the middle of `doc` (all of it when shorter).
fn middle_lines(doc: &[u8], len: usize) -> &[u8] {
    if doc.len() <= len {
        return doc;
    }
    let line_start = |at: usize| {
        doc[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(doc.len(), |k| at + k + 1)
    };
    let start = line_start((doc.len() - len) / 2);
    let end = line_start((start + len).min(doc.len() - 1));
    &doc[start..end.max(start)]
}

/// Runs cases `from..` of the run seeded `seed` until `deadline` (or `count` cases).
pub fn run(root: &Path, seed: u64, from: u64, deadline: Instant, count: Option<u64>) -> Result<()> {
    let root = root.to_path_buf();
    let worker = std::thread::Builder::new()
        .name("fuzz-cases".into())
        .stack_size(STACK)
        .spawn(move || cases(&root, seed, from, deadline, count))?;
    match worker.join() {
        Ok(result) => result,
        Err(_) => anyhow::bail!("the fuzz worker thread panicked outside a case"),
    }
}

fn cases(root: &Path, seed: u64, from: u64, deadline: Instant, count: Option<u64>) -> Result<()> {
    let seeds = target::seeds(root)?;
    let ctx = Context::new(root, &seeds);
    let models = calibrate(&ctx, &seeds);
    let shape = CaseShape::for_build();
    let largest = models
        .iter()
        .map(|m| {
            let out = shape.max_input * target::SIZE_FACTOR + target::SIZE_SLACK;
            m.limit(shape.max_input, out, true)
        })
        .fold(0.0, f64::max);
    // The watchdog: a case that has not answered by then is a time-out whatever its size (the
    // limit of the largest input there can be, rerun included).
    let cap = Duration::from_secs_f64((2.0 * largest).max(10.0));
    outln!("ready {}", cap.as_millis())?;
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = info.to_string().replace('\n', " ");
        }
    }));
    let mut case = from;
    while Instant::now() < deadline && count.is_none_or(|n| case < from + n) {
        outln!("start {case}")?;
        let c = make_case(&seeds, seed, case, &shape);
        let model = models[c.seed];
        let limit_for = |out: usize| model.limit(c.input.len(), out, c.emit);
        let out_of = |r: &std::thread::Result<Result<target::Outcome, target::Broken>>| match r {
            Ok(Ok(o)) => o.largest(),
            _ => 0,
        };
        let attempt = || {
            let t = Stopwatch::start();
            let r = catch_unwind(AssertUnwindSafe(|| {
                target::run(&ctx, &seeds, c.seed, &c.input, c.emit)
            }));
            (r, t.elapsed().as_secs_f64())
        };
        let (mut result, mut secs) = attempt();
        if matches!(result, Ok(Ok(_))) && secs > limit_for(out_of(&result)) {
            // Once more before calling it slow: the machine may have been busy.
            (result, secs) = attempt();
        }
        let out = out_of(&result);
        let limit = limit_for(out);
        match result {
            Err(_) => {
                let msg = LAST_PANIC.lock().map(|m| m.clone()).unwrap_or_default();
                outln!("fail {case} panic {msg}")?;
            }
            Ok(Err(target::Broken::Size(msg))) => outln!("fail {case} size {msg}")?,
            Ok(Err(target::Broken::Loss(msg))) => {
                outln!("fail {case} loss {}", msg.replace('\n', " "))?
            }
            Ok(Ok(_)) if secs > limit => outln!(
                "fail {case} slow {secs:.3} s for {} bytes ({out} bytes out) where the linear model of its seed predicts {:.3} s (limit {SLOW_FACTOR}× + 0.1 s)",
                c.input.len(),
                model.predict(c.input.len(), out, c.emit)
            )?,
            Ok(Ok(outcome)) => outln!(
                "done {case} {} {} {} {:.3} {:.3} {} {} {} {}",
                (secs * 1e6) as u64,
                c.input.len(),
                outcome.ir_json,
                secs / model.predict(c.input.len(), out, c.emit),
                secs / limit,
                c.seed,
                u8::from(c.whole),
                u8::from(c.emit),
                c.mutations.join("+")
            )?,
        }
        case += 1;
    }
    Ok(())
}
