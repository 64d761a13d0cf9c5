//! The CUDA emulator of `tests/emulator/` (a stand-in `libcudart.so.13` written in C) for the
//! safe layer's ordering tests: building it with the system C compiler against NVIDIA's
//! headers, its control functions (fault injection, configuration, the hazard log, host
//! views), and running one test of the current test binary in a child process against it,
//! under AddressSanitizer (the default), plain, or under valgrind.
//!
//! A test written with [`run`] runs twice: in the test process it only starts a child (the
//! same test binary, `--exact NAME`) with `CUDART_PATH` pointing at the emulator and
//! [`CHILD_VAR`] naming the test; in the child the body runs, then the child waits for the
//! emulator's queues to drain and prints the hazard log. The parent gets an [`Outcome`]: exit
//! status, signal, output and the hazards. What a test expects of the outcome is the test's
//! business, not this module's.
//!
//! Environment: [`CHILD_VAR`] (set for children), [`VARIANT_VAR`] (`asan` or `plain`),
//! [`VALGRIND_VAR`] (`1`: children run under `valgrind --error-exitcode=99`, with the plain
//! build), [`INCLUDE_VAR`] (NVIDIA's headers, set by `cargo xtask test`), `CC` (the compiler,
//! default `cc`), and [`REQUIRED_VAR`] (`1`: a missing compiler or header is a failure rather
//! than a skipped test).

use std::ffi::{c_char, c_int, c_longlong, c_void, CString};
use std::fmt::{self, Display};
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Set in a child process: the name of the test it runs.
pub const CHILD_VAR: &str = "CUDA_EMU_CHILD";
/// `asan` (default) or `plain`: which build of the emulator children load.
pub const VARIANT_VAR: &str = "CUDA_EMU_VARIANT";
/// `1`: children run under valgrind (with the plain build).
pub const VALGRIND_VAR: &str = "CUDA_EMU_VALGRIND";
/// NVIDIA's include folder holding `cuda_runtime_api.h` (set by `cargo xtask test`).
pub const INCLUDE_VAR: &str = "CUDA_WHEEL_INCLUDE";
/// `1` (set by `cargo xtask test`): a missing C compiler or header fails the test.
pub const REQUIRED_VAR: &str = "CUDART_AUDIT_REQUIRED";

/// How much slower children run in this mode: 10 under valgrind, else 1. Tests scale the
/// emulator's delays by it, so that a host step meant to come before queued work does.
pub fn time_scale() -> u32 {
    if std::env::var(VALGRIND_VAR).is_ok_and(|v| v == "1") {
        10
    } else {
        1
    }
}

/// Lines framing the hazard log a child prints at its end.
const LOG_BEGIN: &str = "cuda-emu hazard log begin";
const LOG_END: &str = "cuda-emu hazard log end";
/// The prefix of the line the emulator prints on stderr for each hazard as it happens.
const HAZARD_PREFIX: &str = "cuda-emu hazard: ";

/// Why the emulator cannot be built or run here.
#[derive(Clone, Debug)]
pub struct Unavailable(pub String);

impl Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A build of the emulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `-O1 -g`.
    Plain,
    /// As `Plain`, with `-fsanitize=address -fno-omit-frame-pointer`.
    Asan,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Plain => "plain",
            Variant::Asan => "asan",
        }
    }

    fn flags(self) -> &'static [&'static str] {
        match self {
            Variant::Plain => &[],
            Variant::Asan => &["-fsanitize=address", "-fno-omit-frame-pointer"],
        }
    }
}

/// The folder of the emulator's C sources.
pub fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("emulator")
}

/// The workspace's `target/` folder: above the `deps/` folder of the running test binary, else
/// beside this package.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().ok();
    exe.as_deref()
        .and_then(|e| {
            e.ancestors()
                .find(|a| a.file_name().is_some_and(|n| n == "deps"))
        })
        .and_then(|deps| deps.parent()?.parent())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target")
        })
}

fn compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "cc".into())
}

/// NVIDIA's include folders: the one holding `cuda_runtime_api.h` ([`INCLUDE_VAR`]) and every
/// `nvidia/*/include` beside it (the `crt/` headers may come from another wheel).
fn include_dirs() -> Result<Vec<PathBuf>, Unavailable> {
    let include = std::env::var_os(INCLUDE_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| {
            Unavailable(format!(
                "{INCLUDE_VAR} is not set (run `cargo xtask test`, or `cargo xtask fetch-wheel` \
                 and set it to the include folder it prints)"
            ))
        })?;
    if !include.join("cuda_runtime_api.h").is_file() {
        return Err(Unavailable(format!(
            "{INCLUDE_VAR}={} holds no cuda_runtime_api.h",
            include.display()
        )));
    }
    let mut dirs = vec![include.clone()];
    if let Some(nvidia) = include.parent().and_then(Path::parent) {
        let mut more: Vec<PathBuf> = std::fs::read_dir(nvidia)
            .map(|rd| {
                rd.filter_map(|e| Some(e.ok()?.path().join("include")))
                    .filter(|p| p.is_dir() && *p != include)
                    .collect()
            })
            .unwrap_or_default();
        more.sort();
        dirs.extend(more);
    }
    Ok(dirs)
}

/// The emulator's sources (`*.c` and `*.h`), sorted.
fn sources() -> Result<Vec<PathBuf>, Unavailable> {
    let dir = source_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| Unavailable(format!("{}: {e}", dir.display())))?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c" || x == "h"))
        .collect();
    files.sort();
    Ok(files)
}

fn run_output(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Builds the emulator (once per build: a stamp of the sources, flags, compiler and headers
/// says when the library is current) into `target/emulator/<variant>/libcudart.so.13`, and
/// returns its path. The library is built under a temporary name and renamed into place, so
/// test processes racing to build it each see a whole library.
pub fn build(variant: Variant) -> Result<PathBuf, Unavailable> {
    static BUILT: [OnceLock<Result<PathBuf, Unavailable>>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = &BUILT[variant as usize];
    slot.get_or_init(|| build_now(variant)).clone()
}

fn build_now(variant: Variant) -> Result<PathBuf, Unavailable> {
    let cc = compiler();
    let version = run_output(Command::new(&cc).arg("--version"))
        .map_err(|e| Unavailable(format!("no C compiler: {e}")))?;
    let includes = include_dirs()?;
    let files = sources()?;
    let mut args: Vec<String> = [
        "-std=gnu11",
        "-O1",
        "-g",
        "-fPIC",
        "-shared",
        "-pthread",
        "-fvisibility=hidden",
        "-Wall",
        "-Wextra",
        "-Wl,-soname,libcudart.so.13",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(variant.flags().iter().map(|s| s.to_string()));
    args.extend(includes.iter().map(|d| format!("-I{}", d.display())));

    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (&cc, &version, &args).hash(&mut hasher);
    for f in &files {
        f.file_name().hash(&mut hasher);
        std::fs::read(f)
            .map_err(|e| Unavailable(format!("{}: {e}", f.display())))?
            .hash(&mut hasher);
    }
    for d in &includes {
        if let Ok(bytes) = std::fs::read(d.join("cuda_runtime_api.h")) {
            bytes.hash(&mut hasher);
        }
    }
    let stamp = format!("{:016x}\n", hasher.finish());

    let dir = target_dir().join("emulator").join(variant.name());
    let lib = dir.join("libcudart.so.13");
    let stamp_file = dir.join("stamp");
    if lib.is_file() && std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return Ok(lib);
    }
    std::fs::create_dir_all(&dir).map_err(|e| Unavailable(format!("{}: {e}", dir.display())))?;
    let unique = format!("{}-{:?}", std::process::id(), std::thread::current().id())
        .replace(|c: char| !c.is_ascii_alphanumeric(), "");
    let tmp = dir.join(format!("libcudart.so.13.tmp{unique}"));
    let c_files = files
        .iter()
        .filter(|f| f.extension().is_some_and(|x| x == "c"));
    let built = run_output(
        Command::new(&cc)
            .args(&args)
            .arg("-o")
            .arg(&tmp)
            .args(c_files),
    );
    if let Err(e) = built {
        let _ = std::fs::remove_file(&tmp);
        // A compiler that cannot build the sources is a failure of this change, not of the
        // machine: reported as such, never skipped.
        panic!("building the CUDA emulator failed: {e}");
    }
    let tmp_stamp = dir.join(format!("stamp.tmp{unique}"));
    std::fs::write(&tmp_stamp, &stamp)
        .and_then(|()| std::fs::rename(&tmp, &lib))
        .and_then(|()| std::fs::rename(&tmp_stamp, &stamp_file))
        .map_err(|e| Unavailable(format!("{}: {e}", dir.display())))?;
    Ok(lib)
}

/// The compiler's AddressSanitizer runtime (`cc -print-file-name=libasan.so`), which a child
/// loading the ASan build preloads.
pub fn libasan() -> Result<PathBuf, Unavailable> {
    let out = run_output(Command::new(compiler()).arg("-print-file-name=libasan.so"))
        .map_err(Unavailable)?;
    let path = PathBuf::from(out.trim());
    if path.is_absolute() && path.exists() {
        Ok(path)
    } else {
        Err(Unavailable(format!(
            "the C compiler has no AddressSanitizer runtime (it printed {:?})",
            out.trim()
        )))
    }
}

/// What a fault injected with [`Emulator::inject_fault`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultMode {
    /// The call returns the error without doing anything.
    Refuse = 0,
    /// A synchronising call returns the error at once while the work keeps running (a failed
    /// wait).
    FailedWait = 1,
    /// The call does its work, then returns the error.
    AfterWork = 2,
}

type InjectFault = unsafe extern "C" fn(*const c_char, c_int, c_int, c_int) -> c_int;
type Configure = unsafe extern "C" fn(*const c_char, c_longlong) -> c_int;
type Count = unsafe extern "C" fn() -> usize;
type Text = unsafe extern "C" fn(*mut c_char, usize) -> usize;
type Clear = unsafe extern "C" fn();
type Quiesce = unsafe extern "C" fn(c_int) -> c_int;
type View = unsafe extern "C" fn(*const c_void, usize, c_int);
type ViewEnd = unsafe extern "C" fn(*const c_void);

/// The emulator's control functions (the `cudaEmu*` exports), from the library a process
/// loaded: opening the path the crate loaded gives the same library and state.
pub struct Emulator {
    inject_fault: InjectFault,
    configure: Configure,
    hazard_count: Count,
    hazard_text: Text,
    clear_hazards: Clear,
    quiesce: Quiesce,
    host_view: View,
    host_view_end: ViewEnd,
    _lib: libloading::Library,
}

impl Emulator {
    /// Opens the emulator at `path` (already loaded by the crate, or loaded now).
    pub fn open(path: &Path) -> Result<Emulator, String> {
        // SAFETY: the library is this package's emulator, whose constructors do nothing
        // (it initialises itself on first call).
        let lib = unsafe { libloading::Library::new(path) }
            .map_err(|e| format!("{}: {e}", path.display()))?;
        /// A symbol of `lib` as a function pointer of type `T`.
        ///
        /// # Safety
        /// `T` is the C prototype of `name` in the emulator (tests/emulator/core.c, memory.c).
        unsafe fn sym<T: Copy>(lib: &libloading::Library, name: &str) -> Result<T, String> {
            // SAFETY: the caller's promise about the type.
            unsafe { lib.get::<T>(name.as_bytes()) }
                .map(|s| *s)
                .map_err(|e| format!("{name}: {e}"))
        }
        // SAFETY: each type below is the C prototype of the function it names; the pointers are
        // used only while `_lib` keeps the library loaded.
        unsafe {
            Ok(Emulator {
                inject_fault: sym(&lib, "cudaEmuInjectFault")?,
                configure: sym(&lib, "cudaEmuConfigure")?,
                hazard_count: sym(&lib, "cudaEmuHazardCount")?,
                hazard_text: sym(&lib, "cudaEmuHazardText")?,
                clear_hazards: sym(&lib, "cudaEmuClearHazards")?,
                quiesce: sym(&lib, "cudaEmuQuiesce")?,
                host_view: sym(&lib, "cudaEmuHostView")?,
                host_view_end: sym(&lib, "cudaEmuHostViewEnd")?,
                _lib: lib,
            })
        }
    }

    /// Makes the `nth_call`-th later call (1: the next) of `function` fail with `code`.
    pub fn inject_fault(
        &self,
        function: &str,
        nth_call: u32,
        code: i32,
        mode: FaultMode,
    ) -> Result<(), String> {
        let name = CString::new(function).map_err(|e| e.to_string())?;
        let nth = c_int::try_from(nth_call).map_err(|e| e.to_string())?;
        // SAFETY: a NUL-terminated name, read during the call.
        match unsafe { (self.inject_fault)(name.as_ptr(), nth, code, mode as c_int) } {
            0 => Ok(()),
            _ => Err(format!(
                "cudaEmuInjectFault refused {function} #{nth_call} ({code})"
            )),
        }
    }

    /// Sets a run-time setting: `delay_us`, `concurrent_managed` (0 or 1, every device),
    /// `runtime_version`, `driver_version`.
    pub fn configure(&self, key: &str, value: i64) -> Result<(), String> {
        let c_key = CString::new(key).map_err(|e| e.to_string())?;
        // SAFETY: a NUL-terminated key, read during the call.
        match unsafe { (self.configure)(c_key.as_ptr(), value) } {
            0 => Ok(()),
            _ => Err(format!("cudaEmuConfigure refused {key} = {value}")),
        }
    }

    /// How many hazards were logged.
    pub fn hazard_count(&self) -> usize {
        // SAFETY: no arguments.
        unsafe { (self.hazard_count)() }
    }

    /// The hazard log, one hazard each.
    pub fn hazards(&self) -> Vec<String> {
        // SAFETY: a null buffer of length 0 is only measured.
        let len = unsafe { (self.hazard_text)(std::ptr::null_mut(), 0) };
        let mut buf = vec![0u8; len + 1];
        // SAFETY: the buffer holds `len + 1` bytes; the emulator writes at most that many.
        unsafe { (self.hazard_text)(buf.as_mut_ptr().cast(), buf.len()) };
        String::from_utf8_lossy(&buf[..len])
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Empties the hazard log.
    pub fn clear_hazards(&self) {
        // SAFETY: no arguments.
        unsafe { (self.clear_hazards)() }
    }

    /// Waits until every stream's queue is empty and every pending user-object destructor
    /// has run; `false` when `timeout` passed first.
    pub fn quiesce(&self, timeout: Duration) -> bool {
        let ms = c_int::try_from(timeout.as_millis()).unwrap_or(c_int::MAX);
        // SAFETY: a value argument.
        unsafe { (self.quiesce)(ms) == 0 }
    }

    /// Marks `data` as borrowed by the host until the guard is dropped: an emulated write
    /// into it (or, when `writable`, a read of it) is the hazard `host-view`.
    pub fn host_view<T>(&self, data: &[T], writable: bool) -> HostView<'_> {
        let ptr = data.as_ptr().cast::<c_void>();
        // SAFETY: the emulator records the address range only; it never dereferences it.
        unsafe { (self.host_view)(ptr, std::mem::size_of_val(data), c_int::from(writable)) };
        HostView { emu: self, ptr }
    }
}

/// A live host view marked with [`Emulator::host_view`]; ends when dropped.
pub struct HostView<'e> {
    emu: &'e Emulator,
    ptr: *const c_void,
}

impl Drop for HostView<'_> {
    fn drop(&mut self) {
        // SAFETY: the address is only compared with recorded views.
        unsafe { (self.emu.host_view_end)(self.ptr) }
    }
}

/// How a child ended.
#[derive(Debug)]
pub struct Outcome {
    /// `asan`, `plain` or `valgrind`.
    pub mode: &'static str,
    /// The exit code, when the child exited.
    pub code: Option<i32>,
    /// The signal that ended the child, when one did.
    pub signal: Option<i32>,
    /// Whether it was killed after the time limit.
    pub timed_out: bool,
    /// Whether the test harness in the child reported running the test.
    pub ran: bool,
    /// The hazards the emulator logged.
    pub hazards: Vec<String>,
    /// The child's standard output.
    pub stdout: String,
    /// The child's standard error.
    pub stderr: String,
}

impl Outcome {
    /// Exit 0 after running the test, no signal, no hazard.
    pub fn is_clean(&self) -> bool {
        self.code == Some(0) && self.ran && !self.timed_out && self.hazards.is_empty()
    }

    /// One line: how the child ended and what the emulator logged.
    pub fn summary(&self) -> String {
        let end = if self.timed_out {
            "timed out".to_string()
        } else if let Some(s) = self.signal {
            format!("killed by signal {s}")
        } else {
            format!(
                "exit code {}",
                self.code.map_or("?".into(), |c| c.to_string())
            )
        };
        let sanitizer = ["ERROR: AddressSanitizer", "Invalid read", "Invalid write"]
            .iter()
            .find_map(|m| self.stderr.lines().find(|l| l.contains(m)))
            .map(|l| format!("; {}", l.trim()))
            .unwrap_or_default();
        format!(
            "{} ({}): {} hazard(s){sanitizer}{}",
            end,
            self.mode,
            self.hazards.len(),
            self.hazards
                .first()
                .map(|h| format!("; first: {h}"))
                .unwrap_or_default()
        )
    }

    /// Panics with the child's output unless [`is_clean`](Self::is_clean).
    pub fn assert_clean(&self) {
        assert!(
            self.is_clean(),
            "the child was not clean: {}\n--- hazards ---\n{}\n--- stdout ---\n{}\n--- stderr (last 60 lines) ---\n{}",
            self.summary(),
            self.hazards.join("\n"),
            self.stdout,
            tail(&self.stderr, 60)
        );
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn parse_hazards(stdout: &str, stderr: &str) -> Vec<String> {
    let mut inside = false;
    let mut framed = None::<Vec<String>>;
    for line in stdout.lines() {
        if line == LOG_BEGIN {
            inside = true;
            framed = Some(Vec::new());
        } else if line == LOG_END {
            inside = false;
        } else if inside {
            if let Some(v) = framed.as_mut() {
                v.push(line.to_string());
            }
        }
    }
    framed.unwrap_or_else(|| {
        stderr
            .lines()
            .filter_map(|l| l.strip_prefix(HAZARD_PREFIX))
            .map(str::to_string)
            .collect()
    })
}

/// What this process is for the test `name`: the child that runs it (with the emulator the
/// crate loads), or the parent that starts the child.
pub enum Role {
    /// Run the body.
    Child(Emulator),
    /// Start a child.
    Parent,
}

/// This process's role for the test `name`.
pub fn role(name: &str) -> Role {
    if std::env::var(CHILD_VAR).ok().as_deref() != Some(name) {
        return Role::Parent;
    }
    let path = std::env::var_os("CUDART_PATH").map(PathBuf::from);
    let emu = path
        .ok_or_else(|| "CUDART_PATH is not set in the child".to_string())
        .and_then(|p| Emulator::open(&p));
    match emu {
        Ok(e) => Role::Child(e),
        Err(e) => panic!("the emulator child cannot open the emulator: {e}"),
    }
}

/// Ends a child's run: waits for the emulator to go quiet, prints the hazard log, and panics
/// when the body failed (the parent sees exit code 101 and the message).
pub fn finish_child(emu: &Emulator, result: Result<(), String>) {
    let quiet = emu.quiesce(Duration::from_secs(30));
    let hazards = emu.hazards();
    println!("{LOG_BEGIN}");
    for h in &hazards {
        println!("{h}");
    }
    println!("{LOG_END}");
    if !quiet {
        panic!("the emulator did not go quiet within 30 s (a stream left waiting)");
    }
    if let Err(e) = result {
        panic!("the test body failed: {e}");
    }
}

/// How children run: the build, its path and the runtime to preload.
struct Setup {
    mode: &'static str,
    lib: PathBuf,
    preload: Option<PathBuf>,
    valgrind: bool,
}

fn setup() -> Result<Setup, Unavailable> {
    if std::env::var(VALGRIND_VAR).is_ok_and(|v| v == "1") {
        run_output(Command::new("valgrind").arg("--version"))
            .map_err(|e| Unavailable(format!("{VALGRIND_VAR}=1 but no valgrind: {e}")))?;
        return Ok(Setup {
            mode: "valgrind",
            lib: build(Variant::Plain)?,
            preload: None,
            valgrind: true,
        });
    }
    match std::env::var(VARIANT_VAR).as_deref() {
        Ok("plain") => Ok(Setup {
            mode: "plain",
            lib: build(Variant::Plain)?,
            preload: None,
            valgrind: false,
        }),
        Ok("asan") | Err(_) => Ok(Setup {
            mode: "asan",
            preload: Some(libasan()?),
            lib: build(Variant::Asan)?,
            valgrind: false,
        }),
        Ok(other) => Err(Unavailable(format!(
            "{VARIANT_VAR}={other}: expected `asan` or `plain`"
        ))),
    }
}

/// Runs the test `name` of this test binary in a child against the emulator, with
/// `extra_env`, and reports how it ended. A child running longer than `limit` is killed.
pub fn run_child(
    name: &str,
    extra_env: &[(&str, &str)],
    limit: Duration,
) -> Result<Outcome, Unavailable> {
    let setup = setup()?;
    let limit = limit * time_scale();
    let exe = std::env::current_exe().map_err(|e| Unavailable(e.to_string()))?;
    let test_args = [name, "--exact", "--nocapture", "--test-threads", "1"];
    let mut cmd = if setup.valgrind {
        let mut c = Command::new("valgrind");
        c.args(["--error-exitcode=99", "--quiet"]).arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    cmd.args(test_args)
        .env("CUDART_PATH", &setup.lib)
        .env(CHILD_VAR, name)
        .envs(extra_env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(asan) = &setup.preload {
        cmd.env("LD_PRELOAD", asan)
            .env("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1");
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| Unavailable(format!("cannot start {}: {e}", exe.display())))?;
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = child.stdout.take().map(|s| reader(Box::new(s)));
    let err = child.stderr.take().map(|s| reader(Box::new(s)));
    let started = Instant::now();
    let mut timed_out = false;
    let status: ExitStatus = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > limit => {
                timed_out = true;
                let _ = child.kill();
                match child.wait() {
                    Ok(s) => break s,
                    Err(e) => return Err(Unavailable(format!("waiting for the child: {e}"))),
                }
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(Unavailable(format!("waiting for the child: {e}"))),
        }
    };
    let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    // The harness prints `test NAME ... `, then whatever the test prints, then the verdict.
    let ran = stdout.contains(&format!("test {name} ... "))
        && (stdout.contains(". 1 passed;") || stdout.contains("; 1 failed;"));
    Ok(Outcome {
        mode: setup.mode,
        code: status.code(),
        signal,
        timed_out,
        ran,
        hazards: parse_hazards(&stdout, &stderr),
        stdout,
        stderr,
    })
}

/// Reports that the emulator is unavailable: a failure when [`REQUIRED_VAR`] is `1`, a skip
/// (said on stderr) otherwise.
pub fn unavailable(test: &str, why: &Unavailable) {
    if std::env::var(REQUIRED_VAR).is_ok_and(|v| v == "1") {
        panic!("{test}: the CUDA emulator is required ({REQUIRED_VAR}=1) but unavailable: {why}");
    }
    eprintln!("{test}: skipped, the CUDA emulator is unavailable: {why}");
}

/// Runs the test `name`: in the child, `body` against the emulator (then [`finish_child`])
/// and `None`; in the parent, a child and its [`Outcome`] (`None` when the emulator is
/// unavailable and not required).
pub fn run<E: Display>(
    name: &str,
    limit: Duration,
    body: impl FnOnce(&Emulator) -> Result<(), E>,
) -> Option<Outcome> {
    match role(name) {
        Role::Child(emu) => {
            let result = body(&emu).map_err(|e| e.to_string());
            finish_child(&emu, result);
            None
        }
        Role::Parent => match run_child(name, &[], limit) {
            Ok(outcome) => Some(outcome),
            Err(why) => {
                unavailable(name, &why);
                None
            }
        },
    }
}
