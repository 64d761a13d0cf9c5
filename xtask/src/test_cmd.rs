//! `cargo xtask test`: everything CI checks, in order, stopping at the first failure.
//!
//! Steps: make sure `rustfmt` and `clippy` are installed (through `rustup` when they are
//! not); `cargo fmt --all --check`; fetch NVIDIA's wheels ([`crate::wheel`]) of the default
//! documents' release and of each generated crate's release, at the package versions their
//! ABI snapshots name; fetch what the ABI snapshot freshness test needs (libclang, and the
//! wheels of the releases in [`ABI_CHECKED`]); build NVIDIA's 13.4.4 page in other Sphinx themes
//! ([`crate::themes`], cached under `target/`); install Debian's `chromium` for the HTML report
//! browser test when it is missing; `cargo clippy --workspace --all-targets -- -D warnings`;
//! `cargo test --workspace` (the generated crates' freshness is a test there) with
//! `CUDART_WHEEL_LIB` and `CUDA_WHEEL_INCLUDE` pointing into the wheel, `NVRTC_WHEEL_LIB` and
//! `NVRTC_OLDER_LIB` to the `nvidia-cuda-nvrtc` wheels' libraries (13.5, 13.2),
//! `NVJITLINK_WHEEL_LIB` to the `nvidia-nvjitlink` wheel's, each crate's
//! `<CRATE>_AUDIT_INCLUDE`/`<CRATE>_AUDIT_LIB`, `CUDART_AUDIT_REQUIRED=1` and
//! `CUDART_ABI_CHECK=1`, `CUDART_THEME_PAGES` (the theme pages); `cargo doc --no-deps` of the generator and xtask, and of the
//! generated crates with every feature (as docs.rs), with `RUSTDOCFLAGS=-D warnings`;
//! `cargo publish --dry-run` of each generated crate; the regeneration check ([`crate::regenerate`]: releases written into crates of
//! their own from their pages alone, built and audited); a one-minute `cargo xtask fuzz` run
//! (mutants of every document from the fuzzer's fixed seed, so CI's run is the same every
//! time). A final line sums up. This module runs commands; it checks nothing itself.

use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use codegen::library::Library;

use crate::{libclang, wheel};

/// Length of the bounded fuzz run (`cargo xtask fuzz --seconds N` runs longer).
const FUZZ_SECONDS: u64 = 60;

/// Environment variable the tests read: the wheel's `libcudart.so.13`.
pub const WHEEL_LIB_VAR: &str = "CUDART_WHEEL_LIB";
/// Environment variable the tests read: the `libcudart` of the oldest CUDA 13 release with a
/// snapshot (13.0), for the run-time release checks.
pub const OLDEST_LIB_VAR: &str = "CUDART_OLDEST_LIB";
/// Environment variable the tests read: the wheel's include folder.
pub const WHEEL_INCLUDE_VAR: &str = "CUDA_WHEEL_INCLUDE";
/// Environment variable the tests read: the `nvidia-cuda-nvrtc` wheel's `libnvrtc.so.13`.
pub const NVRTC_WHEEL_LIB_VAR: &str = "NVRTC_WHEEL_LIB";
/// Environment variable the tests read: the `nvidia-nvjitlink` wheel's `libnvJitLink.so.13`.
pub const NVJITLINK_WHEEL_LIB_VAR: &str = "NVJITLINK_WHEEL_LIB";
/// Environment variable the tests read: the `libnvrtc.so.13` of NVRTC 13.2 (older than
/// `nvrtc13`'s release), for the run-time release check of the NVRTC crate.
pub const NVRTC_OLDER_LIB_VAR: &str = "NVRTC_OLDER_LIB";
/// Environment variable the ABI snapshot freshness test reads: `1` once its inputs are there.
pub const ABI_CHECK_VAR: &str = "CUDART_ABI_CHECK";
/// Environment variable the ABI snapshot freshness test reads: the libclang to load. (Not
/// `LIBCLANG_PATH`: bindgen's build script reruns when that changes.)
pub const ABI_LIBCLANG_VAR: &str = "CUDART_ABI_LIBCLANG";
/// The releases whose committed ABI snapshots the tests regenerate and compare: those the
/// generated crates are made from (`cudart12`/`nvrtc12`: 12.9, `cudart13`/`nvrtc13`: 13.5),
/// which also cover both package layouts (12.x takes crt/ from the nvcc wheel, 13.x from the
/// crt wheel). A test checks that they follow the manifest's crates.
pub const ABI_CHECKED: [&str; 2] = ["12.9", "13.5"];
/// The older CUDA 13 release whose NVRTC (`NVRTC_OLDER_LIB`) the NVRTC tests load beside the
/// crate's own.
pub const NVRTC_OLDER: &str = "13.2";

/// Runs every step from the workspace `root`.
pub fn run(root: &Path) -> Result<ExitCode> {
    let started = Instant::now();
    let mut timings: Vec<(&str, f64)> = Vec::new();
    const STEPS: usize = 12;
    let mut step = |n: usize, name: &'static str, f: &mut dyn FnMut() -> Result<()>| {
        errln!(
            "xtask test: [{n}/{STEPS}] {name} (started at {:.0} s)",
            started.elapsed().as_secs_f64()
        );
        let t = Instant::now();
        let outcome = f();
        let secs = t.elapsed().as_secs_f64();
        timings.push((name, secs));
        errln!("xtask test: [{n}/{STEPS}] {name}: {secs:.1} s");
        outcome.with_context(|| format!("xtask test: FAILED at step {n}/{STEPS} ({name})"))
    };

    step(1, "toolchain components", &mut || ensure_components())?;
    step(2, "fmt", &mut || {
        cargo(root, &["fmt", "--all", "--check"], &[])
    })?;
    let mut fetched = Fetched::default();
    step(3, "fetch wheels", &mut || {
        fetched = fetch_wheels(root)?;
        Ok(())
    })?;
    let Some(w) = fetched.wheel.take() else {
        bail!("xtask test: the wheel step returned no wheel");
    };
    let mut abi = AbiInputs::default();
    step(4, "abi inputs", &mut || {
        abi = abi_inputs(root)?;
        Ok(())
    })?;
    let mut theme_pages = String::new();
    step(5, "theme pages", &mut || {
        theme_pages = crate::themes::ensure(root)?.display().to_string();
        Ok(())
    })?;
    step(6, "chromium", &mut ensure_chromium)?;
    step(7, "clippy", &mut || {
        let args = [
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ];
        cargo(root, &args, &[])
    })?;
    step(8, "test", &mut || {
        test_workspace(root, &w, &fetched, &abi, &theme_pages)
    })?;
    step(9, "doc", &mut || doc(root, &abi.libclang))?;
    step(10, "publish (dry run)", &mut || publish_dry_run(root))?;
    step(11, "regenerate releases", &mut || {
        crate::regenerate::check(root)
    })?;
    step(12, "fuzz (60 s)", &mut || fuzz(root))?;

    for line in timing_summary(&timings, started.elapsed().as_secs_f64()) {
        outln!("{line}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The closing lines of a run: every step with its seconds, then the slow ones (those that
/// took a tenth of the run or more), slowest first, so that a long first run says where its
/// time went.
pub fn timing_summary(timings: &[(&str, f64)], total: f64) -> Vec<String> {
    let parts: Vec<String> = timings
        .iter()
        .map(|(name, secs)| format!("{name} {secs:.1} s"))
        .collect();
    let mut lines = vec![format!(
        "xtask test: all {} steps passed in {total:.1} s ({})",
        timings.len(),
        parts.join(", ")
    )];
    let mut slow: Vec<&(&str, f64)> = timings.iter().filter(|(_, s)| *s >= total / 10.0).collect();
    slow.sort_by(|a, b| b.1.total_cmp(&a.1));
    if !slow.is_empty() {
        let names: Vec<String> = slow
            .iter()
            .map(|(n, s)| format!("{n} {s:.0} s ({:.0}%)", 100.0 * s / total.max(f64::EPSILON)))
            .collect();
        lines.push(format!("xtask test: slowest: {}", names.join(", ")));
    }
    lines
}

/// What the wheel step fetched for the later steps.
#[derive(Default)]
struct Fetched {
    /// The first runtime crate's (`cudart13`) wheel: the one the workspace's tests use.
    wheel: Option<wheel::Wheel>,
    /// The first NVRTC crate's (`nvrtc13`) library, which `tests/tests/nvrtc/wheel.rs` compiles with.
    nvrtc_lib: String,
    /// The first nvJitLink crate's (`nvjitlink13`) library, which `tests/tests/nvrtc/link.rs`
    /// links with.
    nvjitlink_lib: String,
    /// Each crate's `<CRATE>_AUDIT_INCLUDE`/`<CRATE>_AUDIT_LIB`, and [`OLDEST_LIB_VAR`].
    audits: Vec<(String, String)>,
}

/// Step 3: the wheels of each crate of the workspace, which is audited against its own
/// release's headers and library (`<CRATE>_AUDIT_INCLUDE`, `<CRATE>_AUDIT_LIB`); the first
/// runtime crate's (`cudart13`) is also the wheel the workspace's tests use.
fn fetch_wheels(root: &Path) -> Result<Fetched> {
    let mut fetched = Fetched::default();
    for opts in codegen::pipeline::Options::workspace(root, true)? {
        let docs = codegen::load::load_all(&opts.docs, None)?;
        let api = codegen::merge::merge(docs);
        let release = codegen::pipeline::release_of(&api)
            .with_context(|| format!("{}: no release", opts.out_dir.display()))?;
        let pkg = codegen::pipeline::package_for(&release, &opts);
        let w = crate::audit_cmd::library_wheel(root, opts.library, &release)?;
        if fetched.wheel.is_none() && opts.library.is_cudart() {
            errln!("  include: {}", w.include.display());
            errln!("  library: {}", w.lib.display());
        }
        let includes = std::env::join_paths(&w.include_dirs)?
            .to_string_lossy()
            .into_owned();
        let (include_var, lib_var) = pkg.audit_vars();
        errln!("  {}: CUDA {release}, {}", pkg.name, w.root.display());
        fetched.audits.push((include_var, includes));
        fetched.audits.push((lib_var, w.lib.display().to_string()));
        if opts.library == Library::Nvrtc && fetched.nvrtc_lib.is_empty() {
            fetched.nvrtc_lib = w.lib.display().to_string();
        }
        if opts.library == Library::Nvjitlink && fetched.nvjitlink_lib.is_empty() {
            fetched.nvjitlink_lib = w.lib.display().to_string();
        }
        if fetched.wheel.is_none() && opts.library.is_cudart() {
            fetched.wheel = Some(w);
        }
        // The oldest runtime of the crate's major with a snapshot (13.0): the tests that a
        // function newer than the loaded runtime is refused (`tests/tests/loader/release.rs`).
        if pkg.name == "cudart13" {
            let oldest = codegen::abi::snapshot::list_in(&root.join("abi"))
                .into_iter()
                .map(|(r, _)| r)
                .find(|r| r.0.first() == release.0.first())
                .with_context(|| format!("no ABI snapshot of CUDA {}", pkg.major))?;
            let w = crate::audit_cmd::release_wheel(root, &oldest)?;
            errln!(
                "  oldest CUDA {} runtime: CUDA {oldest}, {}",
                pkg.major,
                w.lib.display()
            );
            fetched
                .audits
                .push((OLDEST_LIB_VAR.to_string(), w.lib.display().to_string()));
        }
    }
    Ok(fetched)
}

/// What the ABI step fetched for the later steps.
#[derive(Default)]
struct AbiInputs {
    /// The libclang the ABI snapshot freshness test loads.
    libclang: String,
    /// The `libnvrtc.so.13` of [`NVRTC_OLDER`].
    nvrtc_older: String,
}

/// Step 4: what the ABI snapshot freshness test needs: libclang, and the wheels (CUDA, NVRTC
/// and nvJitLink) of the releases in [`ABI_CHECKED`] at the versions their snapshots pin.
fn abi_inputs(root: &Path) -> Result<AbiInputs> {
    let lc = libclang::ensure(root)?;
    errln!("  libclang: {}", lc.display());
    for r in ABI_CHECKED {
        let release = codegen::ir::Release::parse(r).context("a release")?;
        let snapshot = codegen::abi::snapshot::load(&codegen::abi::snapshot::path(root, &release))?;
        let pins: Vec<(String, String)> = snapshot.packages.into_iter().collect();
        let w = wheel::fetch_pinned(root, &release, &pins)?;
        errln!("  CUDA {r}: {}", w.root.display());
        let j = crate::audit_cmd::library_wheel(root, Library::Nvjitlink, &release)?;
        errln!("  nvJitLink of CUDA {r}: {}", j.root.display());
        let w = crate::audit_cmd::library_wheel(root, Library::Nvrtc, &release)?;
        errln!("  NVRTC of CUDA {r}: {}", w.root.display());
    }
    let older = codegen::ir::Release::parse(NVRTC_OLDER).context("a release")?;
    let w = crate::audit_cmd::library_wheel(root, Library::Nvrtc, &older)?;
    errln!("  NVRTC of CUDA {NVRTC_OLDER}: {}", w.root.display());
    Ok(AbiInputs {
        libclang: lc.display().to_string(),
        nvrtc_older: w.lib.display().to_string(),
    })
}

/// Step 8: `cargo test --workspace` with the variables pointing into the fetched wheels.
fn test_workspace(
    root: &Path,
    w: &wheel::Wheel,
    fetched: &Fetched,
    abi: &AbiInputs,
    theme_pages: &str,
) -> Result<()> {
    let lib = w.lib.display().to_string();
    let include = w.include.display().to_string();
    let mut env = vec![
        (WHEEL_LIB_VAR, lib.as_str()),
        (WHEEL_INCLUDE_VAR, include.as_str()),
        (NVRTC_WHEEL_LIB_VAR, fetched.nvrtc_lib.as_str()),
        (NVJITLINK_WHEEL_LIB_VAR, fetched.nvjitlink_lib.as_str()),
        (NVRTC_OLDER_LIB_VAR, abi.nvrtc_older.as_str()),
        ("CUDART_AUDIT_REQUIRED", "1"),
        (ABI_CHECK_VAR, "1"),
        (ABI_LIBCLANG_VAR, abi.libclang.as_str()),
        (crate::themes::PAGES_VAR, theme_pages),
    ];
    env.extend(fetched.audits.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    cargo(root, &["test", "--workspace"], &env)
}

/// Step 9: the docs of the generator and this tool, then of the generated crates with every
/// feature, with `RUSTDOCFLAGS=-D warnings`.
fn doc(root: &Path, abi_libclang: &str) -> Result<()> {
    let env = [("RUSTDOCFLAGS", "-D warnings")];
    // The generator and this tool (their docs link each other's modules: a broken or
    // ambiguous link fails here too).
    cargo(
        root,
        &["doc", "--no-deps", "-p", "codegen", "-p", "xtask"],
        &env,
    )?;
    // The generated crates with every feature, as docs.rs builds them: `nvtx` builds
    // NVIDIA's C part and its bindings with bindgen, given the libclang of step 4 and the
    // C compiler's own header folder (`stddef.h`; the libclang wheel ships none).
    let mut args = vec!["doc", "--no-deps", "--all-features"];
    let names = crate_names(root)?;
    for name in &names {
        args.extend(["-p", name.as_str()]);
    }
    let libclang_dir = Path::new(abi_libclang)
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let clang_args = c_header_dir().map(|d| format!("-I{d}")).unwrap_or_default();
    let env = [
        ("RUSTDOCFLAGS", "-D warnings"),
        ("LIBCLANG_PATH", libclang_dir.as_str()),
        ("BINDGEN_EXTRA_CLANG_ARGS", clang_args.as_str()),
    ];
    cargo(root, &args, &env)
}

/// Step 10: packages each generated crate as crates.io would receive it and builds the
/// package (the registry's index is read: the step needs the network, as the wheels do).
/// The generated crates depend on `cuda-loader`, released with them: one dry run of them all
/// together, which resolves it from its own package (not yet on the registry).
/// `--allow-dirty`: a local run may have uncommitted work; CI's checkout is clean.
fn publish_dry_run(root: &Path) -> Result<()> {
    let names = crate_names(root)?;
    let mut args = vec!["publish", "--dry-run", "--allow-dirty", "-p", "cuda-loader"];
    for name in &names {
        args.extend(["-p", name.as_str()]);
    }
    cargo(root, &args, &[])
}

/// Step 12: the bounded fuzz run, through cargo as the other steps: the xtask binary running
/// this may have been rebuilt by the test step, and the fuzz run starts child processes from
/// its file.
fn fuzz(root: &Path) -> Result<()> {
    let seconds = FUZZ_SECONDS.to_string();
    let args = [
        "run",
        "--quiet",
        "-p",
        "xtask",
        "--",
        "fuzz",
        "--seconds",
        &seconds,
    ];
    cargo(root, &args, &[]).with_context(|| {
        format!(
            "the fuzz run found failing inputs (in {})",
            crate::fuzz::failures_dir(root).display()
        )
    })
}

/// The package names of the workspace's generated crates.
fn crate_names(root: &Path) -> Result<Vec<String>> {
    Ok(codegen::load::crates(&root.join("docs-src"))?
        .into_iter()
        .map(|c| c.name)
        .collect())
}

/// The C compiler's own header folder (`cc -print-file-name=include`: `stddef.h` and the
/// like), when there is a C compiler (`CC`, else `cc`) that names one.
fn c_header_dir() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(cc)
        .arg("-print-file-name=include")
        .output()
        .ok()?;
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && Path::new(&dir).join("stddef.h").is_file()).then_some(dir)
}

/// The `cargo` that runs this xtask (`CARGO`), else the one on `PATH`.
fn cargo_bin() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

fn cargo(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<()> {
    let shown = format!("cargo {}", args.join(" "));
    let env_shown: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    errln!("  $ {} {shown}", env_shown.join(" "));
    let status = Command::new(cargo_bin())
        .args(args)
        .envs(env.iter().copied())
        .current_dir(root)
        .status()
        .with_context(|| format!("could not run `{shown}`"))?;
    if !status.success() {
        bail!("`{shown}` failed ({status})");
    }
    Ok(())
}

/// Makes sure `cargo fmt` and `cargo clippy` work, installing the components with `rustup`
/// when they are missing.
fn ensure_components() -> Result<()> {
    let works = |sub: &str| {
        Command::new(cargo_bin())
            .args([sub, "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let missing: Vec<&str> = [("fmt", "rustfmt"), ("clippy", "clippy")]
        .into_iter()
        .filter(|(sub, _)| !works(sub))
        .map(|(_, component)| component)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    errln!("  $ rustup component add {}", missing.join(" "));
    let status = Command::new("rustup")
        .args(["component", "add"])
        .args(&missing)
        .status()
        .with_context(|| {
            format!(
                "{} missing and rustup is not available to install them",
                missing.join(" and ")
            )
        })?;
    if !status.success() {
        bail!(
            "`rustup component add {}` failed ({status})",
            missing.join(" ")
        );
    }
    Ok(())
}

/// Where the HTML report browser test (`tests/tests/checks/html_report_browser.rs`) expects Debian's
/// chromium.
const CHROMIUM: &str = "/usr/bin/chromium";

/// Installs Debian's `chromium` (`apt-get update`, `apt-get install -y chromium`) when
/// [`CHROMIUM`] is absent. Not being root is not an error here: the step says so and the
/// browser test then fails with its own message.
/// Set to `1` to skip installing chromium (not root, or no apt): the HTML browser test then
/// skips itself, saying why, instead of failing.
pub const NO_CHROMIUM_VAR: &str = "XTASK_NO_CHROMIUM";

fn ensure_chromium() -> Result<()> {
    if Path::new(CHROMIUM).is_file() {
        return Ok(());
    }
    if std::env::var(NO_CHROMIUM_VAR).is_ok_and(|v| v == "1") {
        errln!(
            "  {NO_CHROMIUM_VAR}=1: not installing chromium; the HTML browser test skips itself"
        );
        return Ok(());
    }
    let uid = Command::new("id").arg("-u").output().ok();
    let root = uid.is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        bail!("{CHROMIUM} is missing and this is not root: run `sudo apt-get install -y chromium` once, or set {NO_CHROMIUM_VAR}=1 to skip the HTML browser test");
    }
    for args in [&["update"][..], &["install", "-y", "chromium"][..]] {
        errln!("  $ apt-get {}", args.join(" "));
        let status = Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .context("could not run apt-get")?;
        if !status.success() {
            bail!("`apt-get {}` failed ({status})", args.join(" "));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::timing_summary;

    #[test]
    fn the_summary_names_each_step_and_the_slow_ones() {
        let timings = [
            ("fmt", 2.0),
            ("clippy", 475.0),
            ("doc", 233.0),
            ("fuzz (60 s)", 61.0),
        ];
        let lines = timing_summary(&timings, 771.0);
        assert!(
            lines[0].contains("all 4 steps passed in 771.0 s"),
            "{lines:?}"
        );
        assert!(lines[0].contains("clippy 475.0 s") && lines[0].contains("fmt 2.0 s"));
        // Slowest first; the quick ones are not called slow.
        assert_eq!(
            lines[1], "xtask test: slowest: clippy 475 s (62%), doc 233 s (30%)",
            "{lines:?}"
        );
    }
}
