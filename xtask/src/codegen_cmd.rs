//! `cargo xtask codegen`: writes the workspace's crates (the `[[crate]]` entries of
//! `docs-src/manifest.toml`) from their documents and the ABI, or checks that the committed
//! ones are fresh; with `--docs … --out DIR`, writes one complete crate anywhere.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use codegen::diag::Counts;
use codegen::ir::Release;
use codegen::pipeline::{Options, PipelineError, Report};

/// Arguments of `cargo xtask codegen`.
#[derive(clap::Args)]
pub struct CodegenArgs {
    /// Fail (without writing) when the committed generated files are stale.
    #[arg(long)]
    pub check: bool,
    /// Documentation files or folders for one crate (with `--out`).
    #[arg(long, num_args = 1..)]
    pub docs: Vec<PathBuf>,
    /// Write one complete crate into this folder (a crate of its own, outside the workspace).
    #[arg(long, requires = "docs")]
    pub out: Option<PathBuf>,
    /// Only this workspace crate (a `[[crate]]` name of `docs-src/manifest.toml`, such as
    /// `cudart13`); every one by default.
    #[arg(long = "crate", value_name = "NAME", conflicts_with = "out")]
    pub krate: Option<String>,
    /// The CUDA release of that crate (default: the newest release its documents state).
    #[arg(long, requires = "out")]
    pub release: Option<String>,
    /// The crate's name (default: `<library><major>`, `cudart13`).
    #[arg(long, requires = "out")]
    pub name: Option<String>,
    /// Write into `--out DIR` although it holds files that the generator did not write (it has
    /// no `.codegen-manifest`): a file of the folder where the crate writes one is set aside
    /// beside it (`NAME.codegen-kept-N`, named in a message), every other file stays.
    #[arg(long, requires = "out")]
    pub adopt: bool,
    /// The C library that crate binds: `cudart` (the runtime), `nvrtc` (the runtime
    /// compiler; its ABI snapshots are `abi/nvrtc/<X.Y>.json`) or `nvjitlink` (the JIT linker,
    /// `abi/nvjitlink/<X.Y>.json`).
    #[arg(long, requires = "out", default_value = "cudart", value_parser = crate::abi_cmd::parse_library)]
    pub library: codegen::library::Library,
    /// Print every documented item that got no binding, with the reason.
    #[arg(long)]
    pub list_unbound: bool,
    /// `--deny warnings` fails on warnings as well as errors.
    #[arg(long, value_name = "LEVEL")]
    pub deny: Option<String>,
    /// Where to write the bindings model as JSON (for review and other tools); with several
    /// crates, `<stem>-<crate>.json` for each.
    #[arg(long)]
    pub bindings_json: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: CodegenArgs, root: &Path) -> Result<ExitCode> {
    let deny_warnings = match args.deny.as_deref() {
        None => false,
        Some("warnings") => true,
        Some(other) => bail!("--deny takes `warnings`, not `{other}`"),
    };
    let runs = match &args.out {
        Some(out) => vec![standalone_options(&args, out, root)?],
        None if !args.docs.is_empty() => {
            bail!("--docs needs --out DIR: the workspace's crates take their documents from docs-src/manifest.toml")
        }
        None => workspace_options(&args, root)?,
    };
    // What would only fail at the end fails now, before any work: the name, the folder, and
    // where the bindings model goes.
    for opts in &runs {
        codegen::pipeline::check_options(opts)?;
    }
    if let Some(path) = &args.bindings_json {
        check_json_path(path, &runs)?;
    }
    if args.out.is_some() {
        ensure_snapshots(root, &runs)?;
    }
    let several = runs.len() > 1;
    let mut failed = false;
    for result in generate(&runs) {
        let report = match result? {
            Ok(report) => report,
            Err(PipelineError::Errors { report, .. }) => {
                failed = true;
                print_report(&report, &args)?;
                outln!(
                    "{}: error diagnostics: nothing was written",
                    report.package.name
                )?;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        print_report(&report, &args)?;
        if let Some(path) = &args.bindings_json {
            let path = if several {
                json_path_for(path, &report.package.name)
            } else {
                path.clone()
            };
            codegen::output::write_file(
                &path,
                serde_json::to_string_pretty(&report.bindings)?.as_bytes(),
            )?;
            outln!("bindings model written to {}", path.display())?;
        }
        let c = Counts::of(&report.diagnostics());
        failed |= c.errors > 0 || (deny_warnings && c.warnings > 0);
        // The process ends after this loop: freeing the model, a few million small
        // allocations, would only make it end later.
        std::mem::forget(report);
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The one run of `--docs … --out DIR`: a crate of its own.
fn standalone_options(args: &CodegenArgs, out: &Path, root: &Path) -> Result<Options> {
    let release = match &args.release {
        Some(r) => Some(
            Release::parse(r)
                .ok_or_else(|| anyhow::anyhow!("--release {r}: not a release such as 13.2"))?,
        ),
        None => None,
    };
    Ok(Options {
        docs: args.docs.clone(),
        library: args.library,
        out_dir: out.to_path_buf(),
        crate_name: args.name.clone(),
        release,
        standalone: true,
        check: args.check,
        adopt: args.adopt,
        abi_root: root.to_path_buf(),
    })
}

/// The runs of the workspace's crates: every one, or the one `--crate` names.
fn workspace_options(args: &CodegenArgs, root: &Path) -> Result<Vec<Options>> {
    let all = Options::workspace(root, args.check)?;
    let Some(name) = &args.krate else {
        return Ok(all);
    };
    let known: Vec<String> = all.iter().filter_map(|o| o.crate_name.clone()).collect();
    let one: Vec<Options> = all
        .into_iter()
        .filter(|o| o.crate_name.as_deref() == Some(name.as_str()))
        .collect();
    if one.is_empty() {
        bail!(
            "--crate {name}: docs-src/manifest.toml has no such crate (it has: {})",
            known.join(", ")
        );
    }
    Ok(one)
}

/// A crate of its own may be for a release the repository has no ABI snapshot of yet: makes
/// it first (fetching that release's wheels), so that any release regenerates with no code
/// change.
fn ensure_snapshots(root: &Path, runs: &[Options]) -> Result<()> {
    for opts in runs {
        let release = match &opts.release {
            Some(r) => r.clone(),
            None => {
                let api = codegen::merge::merge(codegen::load::load_all(&opts.docs, None)?);
                match codegen::pipeline::release_of(&api) {
                    Some(r) => r,
                    None => continue, // the pipeline says what is missing
                }
            }
        };
        crate::abi_cmd::ensure_library_snapshot(root, opts.library, &release)?;
    }
    Ok(())
}

/// The pipeline's result for each of `runs`, in order. The crates are independent: each is
/// made on its own thread (the two workspace crates overlap one's document parsing with the
/// other's emission).
fn generate(runs: &[Options]) -> Vec<Result<Result<Report, PipelineError>>> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .iter()
            .map(|opts| scope.spawn(move || codegen::pipeline::run(opts)))
            .collect();
        handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(result) => Ok(result),
                Err(_) => Err(anyhow::anyhow!(
                    "the generator panicked (a bug: please report it)"
                )),
            })
            .collect()
    })
}

/// Checks that the bindings model can go to `path`: its folder exists, and it is none of the
/// runs' inputs nor inside a crate folder they write.
fn check_json_path(path: &Path, runs: &[Options]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!(
            "--bindings-json {}: the folder {} does not exist",
            path.display(),
            dir.display()
        );
    }
    for opts in runs {
        let mut not_inputs = opts.docs.clone();
        not_inputs.push(opts.out_dir.clone());
        codegen::output::refuse_inputs(path, &not_inputs)
            .with_context(|| format!("--bindings-json {}", path.display()))?;
    }
    Ok(())
}

fn print_report(report: &Report, args: &CodegenArgs) -> Result<()> {
    out!("{}", codegen::pipeline::render(report))?;
    if args.list_unbound {
        let mut lines = Vec::new();
        for u in &report.bindings.unbound {
            lines.push(format!(
                "{} {} ({}): {}",
                u.kind, u.name, u.source, u.reason
            ));
        }
        for l in report.bindings.list_pairs() {
            lines.push(format!("list pair: {l}"));
        }
        for r in &report.bindings.direction_rulings {
            lines.push(format!(
                "direction rule: {}: `{}` is {} by rule `{}` ({})",
                r.function, r.param, r.decided, r.rule, r.source
            ));
        }
        lines.extend(report.bindings.safety_rulings());
        for u in report.bindings.untyped() {
            lines.push(format!(
                "no typed wrapper: {} ({}): {}",
                u.name, u.source, u.reason
            ));
        }
        for d in report.diagnostics() {
            lines.push(d.to_string());
        }
        for l in lines {
            outln!("{l}")?;
        }
    }
    Ok(())
}

/// `bindings.json` + `cudart12` → `bindings-cudart12.json`.
fn json_path_for(path: &Path, crate_name: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "bindings".into(), |s| s.to_string_lossy().into_owned());
    let ext = path
        .extension()
        .map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
    path.with_file_name(format!("{stem}-{crate_name}{ext}"))
}
