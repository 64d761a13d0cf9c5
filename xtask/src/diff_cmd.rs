//! `cargo xtask diff OLD NEW`: loads two sides (document files or folders, or IR JSON files),
//! compares them with `codegen::diff`, writes the report and prints the totals. A side that
//! reads with error diagnostics, or with no item at all, is an error exit that prints them.
//! It holds the command-line plumbing only; comparing and rendering live in codegen.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use codegen::diff::{self, ApiDiff};
use codegen::ir::Api;
use codegen::report::OutputFormat;

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The old side: a document file or folder, or an IR JSON file (`cargo xtask ir`).
    old: PathBuf,
    /// The new side, as OLD.
    new: PathBuf,
    /// Report format: md (default), json or html.
    #[arg(long, default_value = "md")]
    format: String,
    /// Where to write the report (`-` for standard output; default: target/diff-report.EXT).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Exit non-zero when such differences exist: `removed` (items, parameters, members or
    /// fields removed), `changed` (any change to an item both sides have), `break` (ABI
    /// breaks). Repeat or separate with commas.
    #[arg(long, value_name = "KIND", value_delimiter = ',')]
    fail_on: Vec<String>,
}

/// Runs the command.
pub fn run(args: DiffArgs, workspace_root: &Path) -> Result<ExitCode> {
    let format = OutputFormat::from_name(&args.format)
        .with_context(|| format!("unknown --format `{}` (known: md, json, html)", args.format))?;
    for f in &args.fail_on {
        if !matches!(f.as_str(), "removed" | "changed" | "break") {
            bail!("--fail-on takes removed, changed or break, not `{f}`");
        }
    }
    let old = load_side(&args.old)?;
    let new = load_side(&args.new)?;
    // An unreadable side is an error, not an empty API that makes everything "added".
    for (path, api) in [(&args.old, &old), (&args.new, &new)] {
        codegen::load::check_usable(&path.display().to_string(), api)?;
    }
    let mut d = diff::diff(&old, &new);
    d.old.label = Some(args.old.display().to_string());
    d.new.label = Some(args.new.display().to_string());
    let text = diff::render::render(&d, format);
    let out = args.out.unwrap_or_else(|| {
        workspace_root.join(format!("target/diff-report.{}", format.extension()))
    });
    if out.as_os_str() == "-" {
        out!("{text}")?;
        err!("{}", diff::render::summary(&d));
    } else {
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&out, text).with_context(|| format!("writing {}", out.display()))?;
        out!("{}", diff::render::summary(&d))?;
        outln!("report written to {}", out.display())?;
    }
    let failing = failing_classes(&d, &args.fail_on);
    if failing.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        errln!(
            "error: differences of the kinds named by --fail-on: {}",
            failing.join(", ")
        );
        Ok(ExitCode::FAILURE)
    }
}

/// The `--fail-on` classes that `d` has.
fn failing_classes(d: &ApiDiff, fail_on: &[String]) -> Vec<String> {
    fail_on
        .iter()
        .filter(|f| match f.as_str() {
            "removed" => d.has_removals(),
            "changed" => !d.changes.is_empty(),
            "break" => d.breaks() > 0,
            _ => false,
        })
        .cloned()
        .collect()
}

/// Loads one side: an IR JSON file (by `.json` extension or a leading `{`), or documents.
fn load_side(path: &Path) -> Result<Api> {
    if !path.exists() {
        bail!("{}: no such file or folder", path.display());
    }
    if path.is_file() {
        let bytes =
            std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
            || bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        if is_json {
            return serde_json::from_slice(&bytes)
                .map_err(|e| anyhow::anyhow!("{}: not an IR JSON file: {e}", path.display()));
        }
    }
    let apis = codegen::load::load_all(&[path.to_path_buf()], None)?;
    Ok(codegen::merge::merge(apis))
}
