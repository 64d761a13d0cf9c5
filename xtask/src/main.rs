//! `cargo xtask`: the command line over `codegen`: `ir`, `abi`, `codegen`, `diff`,
//! `coverage`, `timeline`, `release`, `fetch-wheel`, `fuzz` and `test`. Each command's logic lives in its own module.

#[macro_use]
mod out;

mod abi_cmd;
mod allocator;
mod audit_cmd;
mod codegen_cmd;
mod coverage_cmd;
mod diff_cmd;
mod fuzz;
mod libclang;
mod manifest_edit;
mod regenerate;
mod release_cmd;
mod test_cmd;
mod themes;
mod timeline_cmd;
mod wheel;

/// mimalloc instead of the C library's allocator: the generator builds and drops millions of
/// small token and string values, and glibc's `malloc` and `free` are about a sixth of a
/// `cargo xtask codegen --check` run without it (`perf record`, 2026-11-26): the piece of the
/// speed work that `codegen --check` against bindgen needs most (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: allocator::Mimalloc = allocator::Mimalloc;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use codegen::diag::Counts;
use codegen::ir::Format;

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Developer commands of the CUDA Runtime bindings generator"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read documentation files into the IR and write it as JSON.
    Ir(IrArgs),
    /// Regenerate the generated crates (`runtime/*`, listed in `docs-src/manifest.toml`) from the
    /// docs and the ABI snapshots, or check that they are fresh.
    Codegen(codegen_cmd::CodegenArgs),
    /// Read one CUDA release's headers (NVIDIA's wheels, bindgen) into the committed ABI
    /// snapshot abi/<X.Y>.json, or check it (`--check`); `--cudarc` reads cudarc's bindings.
    Abi(abi_cmd::AbiArgs),
    /// Compare two API descriptions (documents, IR JSON, ABI snapshots or releases) and report
    /// what changed, each difference classed from C compatibility.
    Diff(diff_cmd::DiffArgs),
    /// Audit docs × ABI × a live libcudart's exports: what is documented, bound, exported.
    Coverage(coverage_cmd::CoverageArgs),
    /// The API timeline of every release with an ABI snapshot: item × release (added,
    /// changed, deprecated, removed), each event classed from C compatibility.
    Timeline(timeline_cmd::TimelineArgs),
    /// Release day: for every crate of the major (the runtime's, then NVRTC's), the release's
    /// wheels → its ABI snapshot → its documentation headers → the crate regenerated with
    /// since-marks, built and audited → a release report (target/release-X.Y/report.md).
    Release(release_cmd::ReleaseArgs),
    /// Download and unpack a release's NVIDIA wheels (runtime, crt/ headers, profiler API:
    /// headers and libcudart) into target/cuda-wheel-<X.Y>/.
    FetchWheel(FetchWheelArgs),
    /// Audit a generated crate against its CUDA release's headers and library (layout probe,
    /// symbols, error names): the workspace's, or one `codegen --out DIR` wrote.
    Audit(audit_cmd::AuditArgs),
    /// Run everything CI checks: fmt, wheel, clippy, tests, docs, a one-minute fuzz run
    /// (what `.ci/run` calls).
    Test,
    /// Mutants of the real documents through every front end and the commands' library calls:
    /// no panic, no abort, time and output size linear in the input.
    Fuzz(fuzz::FuzzArgs),
    /// The process `fuzz` runs its cases in (internal).
    #[command(hide = true)]
    FuzzChild(fuzz::ChildArgs),
}

#[derive(clap::Args)]
struct FetchWheelArgs {
    /// CUDA release (default: the release of the workspace's generated crate of the library,
    /// e.g. 13.5 for cudart13).
    #[arg(long)]
    release: Option<String>,
    /// The library whose wheels to fetch: `cudart` (the runtime's set), `nvrtc` (the
    /// `nvidia-cuda-nvrtc` wheel, into `target/nvrtc-wheel-<X.Y>/`) or `nvjitlink` (the
    /// `nvidia-nvjitlink` wheel, into `target/nvjitlink-wheel-<X.Y>/`).
    #[arg(long, default_value = "cudart", value_parser = abi_cmd::parse_library)]
    library: codegen::library::Library,
}

#[derive(clap::Args)]
struct IrArgs {
    /// Files or folders to read (default: docs-src/).
    paths: Vec<PathBuf>,
    /// Where to write the IR JSON (default: target/ir.json; `-` for standard output).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Force a format instead of detecting it: bindings-text, autodoc-rst, cudart-text, html.
    #[arg(long)]
    format: Option<String>,
    /// `--deny warnings` fails on warnings as well as errors.
    #[arg(long, value_name = "LEVEL")]
    deny: Option<String>,
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            errln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<ExitCode> {
    codegen::output::fail_at_file_size_limit();
    let cli = Cli::parse();
    match cli.command {
        Command::Ir(args) => ir(args),
        Command::Codegen(args) => codegen_cmd::run(args, &workspace_root()),
        Command::Abi(args) => abi_cmd::run(args, &workspace_root()),
        Command::Diff(args) => diff_cmd::run(args, &workspace_root()),
        Command::Coverage(args) => coverage_cmd::run(args, &workspace_root()),
        Command::Timeline(args) => timeline_cmd::run(args, &workspace_root()),
        Command::Release(args) => release_cmd::run(args, &workspace_root()),
        Command::FetchWheel(args) => fetch_wheel(args),
        Command::Audit(args) => audit_cmd::run(args, &workspace_root()),
        Command::Test => test_cmd::run(&workspace_root()),
        Command::Fuzz(args) => fuzz::run(args, &workspace_root()),
        Command::FuzzChild(args) => fuzz::run_child(args, &workspace_root()),
    }
}

/// The workspace root (this crate's parent folder).
fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(PathBuf::from)
        .unwrap_or_default()
}

fn ir(args: IrArgs) -> Result<ExitCode> {
    let forced = match args.format.as_deref() {
        None => None,
        Some(name) => Some(Format::from_name(name).with_context(|| {
            format!(
                "unknown format `{name}` (known: bindings-text, autodoc-rst, cudart-text, html)"
            )
        })?),
    };
    let deny_warnings = match args.deny.as_deref() {
        None => false,
        Some("warnings") => true,
        Some(other) => bail!("--deny takes `warnings`, not `{other}`"),
    };
    let paths = if args.paths.is_empty() {
        vec![workspace_root().join("docs-src")]
    } else {
        args.paths
    };
    let out = args
        .out
        .unwrap_or_else(|| workspace_root().join("target/ir.json"));
    if out.as_os_str() != "-" {
        codegen::output::refuse_inputs(&out, &paths)?;
    }
    let apis = codegen::load::load_all(&paths, forced)?;
    let api = codegen::merge::merge(apis);
    let json = serde_json::to_string_pretty(&api)?;
    if out.as_os_str() == "-" {
        outln!("{json}")?;
        err!("{}", codegen::summary::render(&api));
    } else {
        codegen::output::write_file(&out, json.as_bytes())?;
        out!("{}", codegen::summary::render(&api))?;
        outln!("IR written to {}", out.display())?;
    }
    let c = Counts::of(&api.diagnostics);
    Ok(if c.errors > 0 || (deny_warnings && c.warnings > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn fetch_wheel(args: FetchWheelArgs) -> Result<ExitCode> {
    let root = workspace_root();
    let release = match args.release.as_deref() {
        Some(text) => codegen::ir::Release::parse(text)
            .with_context(|| format!("--release `{text}` is not a release such as 13.2"))?,
        None => wheel::crate_release(&root.join("docs-src"), args.library)?,
    };
    let w = wheel::fetch_library(&root, args.library, &release, &[])?;
    for line in w.describe(&release) {
        outln!("{line}")?;
    }
    Ok(ExitCode::SUCCESS)
}
