//! `cargo xtask fuzz [--seconds N] [--seed S] [--case N] [--input FILE]`: mutants of the real
//! documents through every front end and the library calls behind the commands, on stable
//! Rust.
//!
//! Properties: no panic (each case under `catch_unwind`), no abort (the cases run in a child
//! process; when it dies, by a stack overflow or anything else, the parent records the case it
//! was running and starts a new child after it), time linear in the input (a case slower than
//! [`child::SLOW_FACTOR`] times what a linear model of its seed predicts, twice, or silent
//! past the watchdog's cap, is a time-out), output size linear in the input
//! ([`target::SIZE_FACTOR`]). A failing input is written to `target/fuzz-failures/` with a
//! one-line reason and the command that replays it. The run's seed is printed; the same seed
//! gives the same cases. [`mutate`] makes the mutants, [`target`] runs one, [`child`] is the
//! process that runs them; this module drives and reports.

mod child;
mod mutate;
mod target;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};

use mutate::Rng;
use target::Seed;

/// Arguments of `cargo xtask fuzz`.
#[derive(clap::Args, Clone, Debug)]
pub struct FuzzArgs {
    /// How long to run (`cargo xtask test` runs 60 s; see TESTING.md for the long run).
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
    /// The run's seed (default: a fixed one, so that CI's run is the same every time and
    /// replayable; printed either way). Pass another to explore other cases.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Replay one case of `--seed` in this process (a panic shows its backtrace) and write its
    /// input to target/fuzz-replay.bin.
    #[arg(long)]
    pub case: Option<u64>,
    /// Run one file (a saved failure) through every entry point, as a mutant of the seed whose
    /// file name ends like `--against` (default: the 13.2 text page).
    #[arg(long, conflicts_with = "case")]
    pub input: Option<PathBuf>,
    /// With `--input`: the seed to compare with (`diff`) and to read it as.
    #[arg(long, requires = "input")]
    pub against: Option<String>,
}

/// The seed a run uses unless `--seed` names another.
pub const DEFAULT_SEED: u64 = 20_261_125;

/// Arguments of the hidden child command.
#[derive(clap::Args, Clone, Debug)]
pub struct ChildArgs {
    #[arg(long)]
    pub seed: u64,
    #[arg(long)]
    pub from: u64,
    /// Milliseconds from start after which no new case starts.
    #[arg(long)]
    pub millis: u64,
}

/// Runs the child side (hidden `fuzz-child` command).
pub fn run_child(args: ChildArgs, root: &Path) -> Result<ExitCode> {
    let deadline = Instant::now() + Duration::from_millis(args.millis);
    child::run(root, args.seed, args.from, deadline, None)?;
    Ok(ExitCode::SUCCESS)
}

/// How cases are shaped: how often a whole document is the base rather than a window of it,
/// how often the crate is emitted too, and the largest input. A debug build takes windows more
/// often and smaller inputs, so that a one-minute run still makes hundreds of cases.
pub struct CaseShape {
    whole: f64,
    emit_every: u64,
    pub max_input: usize,
}

impl CaseShape {
    pub fn for_build() -> CaseShape {
        if cfg!(debug_assertions) {
            CaseShape {
                whole: 0.03,
                emit_every: 64,
                max_input: 1 << 20,
            }
        } else {
            CaseShape {
                whole: 0.15,
                emit_every: 16,
                max_input: mutate::MAX_INPUT,
            }
        }
    }
}

/// One case: its seed, its input and how it was made.
pub struct Case {
    pub seed: usize,
    pub input: Vec<u8>,
    pub whole: bool,
    pub emit: bool,
    pub mutations: Vec<&'static str>,
}

/// Case `case` of the run seeded `run_seed`: seeds in turn, a whole document or a window of
/// it, then 1 to 4 mutations, cut to the shape's largest input.
pub fn make_case(seeds: &[Seed], run_seed: u64, case: u64, shape: &CaseShape) -> Case {
    let mut rng = Rng::for_case(run_seed, case);
    let seed = (case % seeds.len() as u64) as usize;
    let doc = &seeds[seed].bytes;
    let whole = rng.chance(shape.whole);
    let base = if whole {
        doc.clone()
    } else {
        mutate::window(doc, &mut rng)
    };
    let other = &seeds[rng.below(seeds.len())].bytes;
    // Another seed of the same format (another release), for splices of whole objects.
    let same: Vec<&Seed> = seeds
        .iter()
        .filter(|s| s.kind == seeds[seed].kind && s.name != seeds[seed].name)
        .collect();
    let same_format = if same.is_empty() {
        other
    } else {
        &same[rng.below(same.len())].bytes
    };
    let others = mutate::Others {
        any: other,
        same_format,
    };
    let (mut input, mutations) = mutate::mutate(&base, others, &mut rng);
    input.truncate(shape.max_input);
    Case {
        seed,
        input,
        whole,
        emit: case % shape.emit_every == shape.emit_every - 1,
        mutations,
    }
}

/// Counts of a run.
#[derive(Default)]
struct Stats {
    cases: u64,
    whole: u64,
    emitted: u64,
    bytes: u64,
    per_seed: BTreeMap<usize, u64>,
    per_kind: BTreeMap<&'static str, u64>,
    panics: u64,
    aborts: u64,
    timeouts: u64,
    sizes: u64,
    /// Objects the census counted that a reading lost without a diagnostic.
    losses: u64,
    children: u64,
    worst_ratio: f64,
    worst_share: f64,
    /// The case that came closest to its time limit, as `case N (base, mutations)`.
    closest: String,
    worst_json_ratio: f64,
}

/// Runs `cargo xtask fuzz`.
pub fn run(args: FuzzArgs, root: &Path) -> Result<ExitCode> {
    if let Some(path) = &args.input {
        return replay_file(root, path, args.against.as_deref());
    }
    let seed = args.seed;
    if let Some(case) = args.case {
        return replay_case(root, seed, case);
    }
    fuzz(root, seed, Duration::from_secs(args.seconds))
}

/// The folder failing inputs are written to.
pub fn failures_dir(root: &Path) -> PathBuf {
    root.join("target/fuzz-failures")
}

/// The fuzz run: child processes one after another until `length` has passed, each starting
/// at the case after the last one answered, then the report.
fn fuzz(root: &Path, seed: u64, length: Duration) -> Result<ExitCode> {
    let started = Instant::now();
    let deadline = started + length;
    let seeds = target::seeds(root)?;
    if seeds.is_empty() {
        bail!("no seed documents under {}/docs-src", root.display());
    }
    let shape = CaseShape::for_build();
    errln!(
        "fuzz: seed {seed}, {} s, {} seeds; failures go to {}",
        length.as_secs(),
        seeds.len(),
        failures_dir(root).display()
    );
    let mut run = Driver {
        root,
        seeds: &seeds,
        seed,
        shape: &shape,
        started,
        stats: Stats::default(),
        failures: Vec::new(),
        next: 0,
        progress_at: Instant::now(),
    };
    while Instant::now() < deadline {
        run.stats.children += 1;
        let millis = deadline
            .saturating_duration_since(Instant::now())
            .as_millis() as u64;
        let child = spawn_child(seed, run.next, millis)?;
        run.progress_at = Instant::now();
        run.watch(child)?;
    }
    report(&run.stats, &seeds, seed, started.elapsed(), &run.failures)?;
    Ok(if run.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A running fuzz child: the process, its stdout lines, and the last 2000 bytes of its stderr.
struct Child {
    process: std::process::Child,
    lines: mpsc::Receiver<String>,
    stderr_tail: Arc<Mutex<String>>,
}

/// Starts a child that runs the cases of run seed `seed` from case `from` for `millis`.
fn spawn_child(seed: u64, from: u64, millis: u64) -> Result<Child> {
    let exe = std::env::current_exe().context("locating the xtask executable")?;
    if !exe.is_file() {
        bail!(
            "the xtask executable {} is gone (rebuilt while this ran?); run the command again",
            exe.display()
        );
    }
    let mut process = Command::new(exe)
        .args(["fuzz-child", "--seed", &seed.to_string()])
        .args(["--from", &from.to_string(), "--millis", &millis.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting the fuzz child process")?;
    let stdout = process.stdout.take().context("child stdout")?;
    let stderr = process.stderr.take().context("child stderr")?;
    Ok(Child {
        process,
        lines: lines_of(stdout),
        stderr_tail: tail_of(stderr),
    })
}

/// The lines of `stdout`, read on a thread of their own.
fn lines_of(stdout: std::process::ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The last 2000 bytes (cut at a character) of `stderr`, read on a thread of their own.
fn tail_of(mut stderr: std::process::ChildStderr) -> Arc<Mutex<String>> {
    let stderr_tail = Arc::new(Mutex::new(String::new()));
    let tail = Arc::clone(&stderr_tail);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Ok(mut t) = tail.lock() {
                t.push_str(&String::from_utf8_lossy(&buf[..n]));
                let excess = t.len().saturating_sub(2000);
                if excess > 0 {
                    let cut = (excess..t.len())
                        .find(|&i| t.is_char_boundary(i))
                        .unwrap_or(0);
                    t.drain(..cut);
                }
            }
        }
    });
    stderr_tail
}

/// The parent's state across children.
struct Driver<'a> {
    root: &'a Path,
    seeds: &'a [Seed],
    /// The run's seed.
    seed: u64,
    shape: &'a CaseShape,
    started: Instant,
    stats: Stats,
    /// The reason line of each failing case.
    failures: Vec<String>,
    /// The case the next child starts at.
    next: u64,
    /// When progress was last printed (or the current child started).
    progress_at: Instant,
}

impl Driver<'_> {
    /// Follows `child` until it exits or is killed for a case past the watchdog's cap.
    fn watch(&mut self, mut child: Child) -> Result<()> {
        let mut cap: Option<Duration> = None;
        let mut running: Option<(u64, Instant)> = None;
        loop {
            let wait = match (running, cap) {
                (Some((_, since)), Some(cap)) => cap.saturating_sub(since.elapsed()),
                // Reading the seeds and calibrating: generous, but not forever.
                _ => Duration::from_secs(1800),
            };
            match child.lines.recv_timeout(wait) {
                Ok(line) => self.event(&line, &mut cap, &mut running)?,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.process.kill();
                    let _ = child.process.wait();
                    return self.killed(running);
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return self.exited(child, running),
            }
        }
    }

    /// One line of the child: `ready CAP_MS`, `start N`, `done N …` or `fail N KIND MSG`.
    fn event(
        &mut self,
        line: &str,
        cap: &mut Option<Duration>,
        running: &mut Option<(u64, Instant)>,
    ) -> Result<()> {
        let fields: Vec<&str> = line.split(' ').collect();
        let event = fields.first().copied().unwrap_or("");
        let case: u64 = fields.get(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        match event {
            "ready" => *cap = Some(Duration::from_millis(case)),
            "start" => *running = Some((case, Instant::now())),
            "done" => {
                *running = None;
                self.next = case + 1;
                record_done(&mut self.stats, self.seeds, case, &fields[2..]);
            }
            "fail" => {
                *running = None;
                self.next = case + 1;
                let kind = fields.get(2).copied().unwrap_or("panic");
                let msg = fields.get(3..).unwrap_or_default().join(" ");
                match kind {
                    "panic" => self.stats.panics += 1,
                    "slow" => self.stats.timeouts += 1,
                    "loss" => self.stats.losses += 1,
                    _ => self.stats.sizes += 1,
                }
                self.stats.cases += 1;
                self.fail(case, kind, &msg)?;
            }
            _ => {}
        }
        if self.progress_at.elapsed() > Duration::from_secs(60) {
            self.progress_at = Instant::now();
            errln!(
                "fuzz: [{:>5.0}s] {} cases, {} failures",
                self.started.elapsed().as_secs_f64(),
                self.stats.cases,
                self.failures.len()
            );
        }
        Ok(())
    }

    /// The child said nothing past the watchdog's cap and was killed: the running case is a
    /// time-out (with no case running, the child never got ready).
    fn killed(&mut self, running: Option<(u64, Instant)>) -> Result<()> {
        let Some((case, since)) = running else {
            bail!("the fuzz child did not get ready in 30 minutes");
        };
        self.stats.timeouts += 1;
        self.stats.cases += 1;
        self.next = case + 1;
        let msg = format!(
            "no answer after {:.1} s (the watchdog's cap); the child was killed",
            since.elapsed().as_secs_f64()
        );
        self.fail(case, "timeout", &msg)
    }

    /// The child closed its output: the case it was running, if any, aborted it.
    fn exited(&mut self, mut child: Child, running: Option<(u64, Instant)>) -> Result<()> {
        let status = child.process.wait().context("waiting for the fuzz child")?;
        let tail = child
            .stderr_tail
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default();
        match running {
            Some((case, _)) => {
                self.stats.aborts += 1;
                self.stats.cases += 1;
                self.next = case + 1;
                let msg = format!(
                    "the child process died ({status}): {}",
                    tail.trim().replace('\n', " | ")
                );
                self.fail(case, "abort", &msg)
            }
            None if !status.success() => bail!(
                "the fuzz child failed outside any case ({status}): {}",
                tail.trim()
            ),
            None => Ok(()),
        }
    }

    /// Saves failing case `case` and keeps its reason line.
    fn fail(&mut self, case: u64, kind: &str, msg: &str) -> Result<()> {
        let reason = save(
            self.root, self.seeds, self.seed, case, self.shape, kind, msg,
        )?;
        self.failures.push(reason);
        Ok(())
    }
}

fn record_done(stats: &mut Stats, seeds: &[Seed], case: u64, fields: &[&str]) {
    // MICROS INPUT_BYTES IR_JSON_BYTES RATIO_TO_MODEL SHARE_OF_LIMIT SEED WHOLE EMIT MUTATIONS
    let num = |k: usize| {
        fields
            .get(k)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let (input, json, ratio, share) = (num(1), num(2), num(3), num(4));
    stats.cases += 1;
    stats.bytes += input as u64;
    stats.worst_ratio = stats.worst_ratio.max(ratio);
    if share > stats.worst_share {
        stats.worst_share = share;
        let base = seeds.get(num(5) as usize).map_or("?", |s| s.name.as_str());
        stats.closest = format!(
            "case {case}: {:.3} s, {input} bytes, base {base}, mutations {}",
            num(0) / 1e6,
            fields.get(8).copied().unwrap_or("")
        );
    }
    if input > 1024.0 {
        stats.worst_json_ratio = stats.worst_json_ratio.max(json / input);
    }
    *stats.per_seed.entry(num(5) as usize).or_default() += 1;
    stats.whole += num(6) as u64;
    stats.emitted += num(7) as u64;
    for m in fields.get(8).copied().unwrap_or("").split('+') {
        if let Some(kind) = mutate::KINDS.iter().find(|k| **k == m) {
            *stats.per_kind.entry(kind).or_default() += 1;
        }
    }
}

/// Writes a failing case's input and reason; returns the reason line.
fn save(
    root: &Path,
    seeds: &[Seed],
    seed: u64,
    case: u64,
    shape: &CaseShape,
    kind: &str,
    msg: &str,
) -> Result<String> {
    let c = make_case(seeds, seed, case, shape);
    let dir = failures_dir(root);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let base = &seeds[c.seed].name;
    let ext = Path::new(base)
        .extension()
        .map_or("txt".to_string(), |e| e.to_string_lossy().into_owned());
    let stem = format!("{kind}-seed{seed}-case{case}");
    let input = dir.join(format!("{stem}.{ext}"));
    codegen::output::write_file(&input, &c.input)?;
    let reason = format!(
        "{kind}: {msg} [base {base}{}, mutations {}, {} bytes; replay: cargo xtask fuzz --seed {seed} --case {case}]",
        if c.whole { "" } else { " (a window)" },
        c.mutations.join("+"),
        c.input.len()
    );
    codegen::output::write_file(
        &dir.join(format!("{stem}.reason")),
        format!("{reason}\n").as_bytes(),
    )?;
    errln!("fuzz: FAILED case {case}: {reason}");
    Ok(reason)
}

fn report(
    stats: &Stats,
    seeds: &[Seed],
    seed: u64,
    took: Duration,
    failures: &[String],
) -> Result<()> {
    outln!(
        "fuzz: seed {seed}, {:.0} s, {} cases ({} on whole documents, {} with the crate emitted, {:.1} MB of input) in {} child process(es)",
        took.as_secs_f64(),
        stats.cases,
        stats.whole,
        stats.emitted,
        stats.bytes as f64 / 1e6,
        stats.children
    )?;
    outln!(
        "fuzz: {} panics, {} aborts, {} time-outs, {} output-size failures, {} silent losses",
        stats.panics,
        stats.aborts,
        stats.timeouts,
        stats.sizes,
        stats.losses
    )?;
    let mut per_format: BTreeMap<&str, u64> = BTreeMap::new();
    for (&k, &n) in &stats.per_seed {
        *per_format.entry(seeds[k].kind.name()).or_default() += n;
    }
    let formats: Vec<String> = per_format.iter().map(|(f, n)| format!("{f} {n}")).collect();
    outln!("fuzz: cases per seed format: {}", formats.join(", "))?;
    for (&k, &n) in &stats.per_seed {
        outln!("  {:>6}  {} ({})", n, seeds[k].name, seeds[k].kind.name())?;
    }
    let kinds: Vec<String> = stats
        .per_kind
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    outln!("fuzz: mutations applied: {}", kinds.join(", "))?;
    outln!(
        "fuzz: time: the slowest case took {:.2}× its linear model's prediction, the closest to its limit ({}× the prediction + 0.1 s) {:.0} % of it; largest IR JSON {:.1} bytes per input byte (limit {})",
        stats.worst_ratio,
        child::SLOW_FACTOR,
        100.0 * stats.worst_share,
        stats.worst_json_ratio,
        target::SIZE_FACTOR
    )?;
    if !stats.closest.is_empty() {
        outln!("fuzz: closest to its time limit: {}", stats.closest)?;
    }
    for f in failures {
        outln!("  FAILED {f}")?;
    }
    Ok(())
}

/// `--seed S --case N`: one case, in this process.
fn replay_case(root: &Path, seed: u64, case: u64) -> Result<ExitCode> {
    let seeds = target::seeds(root)?;
    let c = make_case(&seeds, seed, case, &CaseShape::for_build());
    let saved = root.join("target/fuzz-replay.bin");
    codegen::output::write_file(&saved, &c.input)?;
    errln!(
        "fuzz: case {case} of seed {seed}: base {}{}, mutations {}, {} bytes (written to {})",
        seeds[c.seed].name,
        if c.whole { "" } else { " (a window)" },
        c.mutations.join("+"),
        c.input.len(),
        saved.display()
    );
    run_one(root, &seeds, c.seed, &c.input, c.emit)
}

/// `--input FILE [--against NAME]`: a file through every entry point.
fn replay_file(root: &Path, path: &Path, against: Option<&str>) -> Result<ExitCode> {
    let input = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let seeds = target::seeds(root)?;
    let wanted = against.unwrap_or("cuda.bindings.runtime.txt");
    let Some(k) = seeds.iter().position(|s| s.name.ends_with(wanted)) else {
        bail!("--against {wanted}: no seed's name ends so");
    };
    run_one(root, &seeds, k, &input, true)
}

fn run_one(root: &Path, seeds: &[Seed], k: usize, input: &[u8], emit: bool) -> Result<ExitCode> {
    let ctx = target::Context::new(root, seeds);
    let t = Instant::now();
    let result = target::run(&ctx, seeds, k, input, emit);
    let secs = t.elapsed().as_secs_f64();
    match result {
        Ok(out) => {
            outln!(
                "fuzz: passed in {secs:.3} s: IR JSON {} bytes, largest report {} bytes, for {} input bytes",
                out.ir_json,
                out.report,
                input.len()
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Err(msg) => {
            outln!("fuzz: FAILED in {secs:.3} s: {msg}")?;
            Ok(ExitCode::FAILURE)
        }
    }
}
