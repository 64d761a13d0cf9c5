//! `cargo xtask codegen [--check] [--docs PATH…] [--list-unbound] [--deny warnings]`:
//! regenerates `runtime/src/generated/` (and the verification tables in `tests/generated/`)
//! from the documentation and the ABI source, or checks that the committed files are fresh.
//! A run with error diagnostics writes nothing (see `codegen::pipeline`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use codegen::diag::Counts;

/// Arguments of `cargo xtask codegen`.
#[derive(clap::Args)]
pub struct CodegenArgs {
    /// Fail (without writing) when the committed generated files are stale.
    #[arg(long)]
    pub check: bool,
    /// Documentation files or folders (default: docs-src/).
    #[arg(long, num_args = 1..)]
    pub docs: Vec<PathBuf>,
    /// Print every documented item that got no binding, with the reason.
    #[arg(long)]
    pub list_unbound: bool,
    /// `--deny warnings` fails on warnings as well as errors.
    #[arg(long, value_name = "LEVEL")]
    pub deny: Option<String>,
    /// Where to write the bindings model as JSON (for review and other tools).
    #[arg(long)]
    pub bindings_json: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: CodegenArgs, root: &std::path::Path) -> Result<ExitCode> {
    let deny_warnings = match args.deny.as_deref() {
        None => false,
        Some("warnings") => true,
        Some(other) => bail!("--deny takes `warnings`, not `{other}`"),
    };
    let docs = if args.docs.is_empty() {
        vec![root.join("docs-src")]
    } else {
        args.docs
    };
    let opts = codegen::pipeline::Options {
        docs,
        ..codegen::pipeline::Options::workspace(root, args.check)
    };
    let report = codegen::pipeline::run(&opts)?;
    out!("{}", codegen::pipeline::render(&report))?;
    if args.list_unbound {
        for u in &report.bindings.unbound {
            outln!("{} {} ({}): {}", u.kind, u.name, u.source, u.reason)?;
        }
        for l in &report.list_pairs {
            outln!("list pair: {l}")?;
        }
        for u in &report.untyped {
            outln!("no typed wrapper: {} ({}): {}", u.name, u.source, u.reason)?;
        }
        for d in report.diagnostics() {
            outln!("{d}")?;
        }
    }
    if let Some(path) = args.bindings_json {
        if report.withheld.is_some() {
            outln!("bindings model not written to {} either", path.display())?;
        } else {
            std::fs::write(&path, serde_json::to_string_pretty(&report.bindings)?)?;
            outln!("bindings model written to {}", path.display())?;
        }
    }
    let c = Counts::of(&report.diagnostics());
    Ok(if c.errors > 0 || (deny_warnings && c.warnings > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
