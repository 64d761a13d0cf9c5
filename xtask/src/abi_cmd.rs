//! `cargo xtask abi`: reads cudarc's runtime bindings for one CUDA release into the ABI model,
//! prints counts, timings and diagnostics, and writes the model as JSON.
//!
//! The release defaults to the newest one `docs-src/manifest.toml` states, so it stays a
//! setting of the docs source. Reading itself lives in `codegen::abi`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use codegen::diag::{Counts, Severity};
use codegen::ir::Release;

#[derive(clap::Args)]
pub struct AbiArgs {
    /// CUDA release to evaluate cudarc's `#[cfg]`s for, e.g. `13.2` (default: the newest release
    /// docs-src/manifest.toml states).
    #[arg(long)]
    release: Option<String>,
    /// Where to write the JSON (default: target/abi-<release>.json; `-` for standard output).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Runs the command; `root` is the workspace root.
pub fn run(args: AbiArgs, root: &Path) -> Result<ExitCode> {
    let release = match args.release.as_deref() {
        Some(text) => Release::parse(text)
            .with_context(|| format!("`{text}` is not a release such as 13.2"))?,
        None => docs_release(&root.join("docs-src"))?,
    };
    let start = Instant::now();
    let source = codegen::abi::locate_cudarc_runtime(&root.join("Cargo.toml"))?;
    let located = start.elapsed();
    let text = std::fs::read_to_string(&source.path)
        .with_context(|| format!("reading {}", source.path.display()))?;
    let start = Instant::now();
    let mut abi = codegen::abi::read_abi(&text, &source.path.display().to_string(), &release);
    let read = start.elapsed();
    abi.cudarc_version = Some(source.cudarc_version.clone());

    let json = serde_json::to_string_pretty(&abi)?;
    let mut report = String::new();
    report.push_str(&format!(
        "ABI source: cudarc {} {} ({} lines)\n",
        source.cudarc_version,
        source.path.display(),
        text.lines().count()
    ));
    report.push_str(&format!("release {release} (feature {}): ", abi.feature));
    report.push_str(&format!(
        "{} functions, {} structs, {} unions, {} enums, {} typedefs, {} constants\n",
        abi.functions.len(),
        abi.struct_count(),
        abi.union_count(),
        abi.enums.len(),
        abi.typedefs.len(),
        abi.constants.len()
    ));
    report.push_str(&format!(
        "cargo metadata {:.0} ms, parse + read {:.1} ms\n",
        located.as_secs_f64() * 1e3,
        read.as_secs_f64() * 1e3
    ));
    let c = Counts::of(&abi.diagnostics);
    report.push_str(&format!(
        "diagnostics: {} errors, {} warnings, {} notes\n",
        c.errors, c.warnings, c.notes
    ));
    for d in abi
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Note)
        .take(20)
    {
        report.push_str(&format!("  {d}\n"));
    }

    let out = args
        .out
        .unwrap_or_else(|| root.join(format!("target/abi-{release}.json")));
    if out.as_os_str() == "-" {
        outln!("{json}")?;
        err!("{report}");
    } else {
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&out, json).with_context(|| format!("writing {}", out.display()))?;
        out!("{report}")?;
        outln!("ABI written to {}", out.display())?;
    }
    Ok(if c.errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The newest release any document under `docs` states in its manifest.
fn docs_release(docs: &Path) -> Result<Release> {
    let mut newest: Option<Release> = None;
    for file in codegen::load::list_documents(&[docs.to_path_buf()])? {
        let stated = codegen::load::manifest_entry(&file)?
            .and_then(|e| e.release)
            .and_then(|r| Release::parse(&r));
        if let Some(r) = stated {
            if newest.as_ref().is_none_or(|n| r > *n) {
                newest = Some(r);
            }
        }
    }
    match newest {
        Some(r) => Ok(r),
        None => bail!(
            "no document under {} states a release; pass --release",
            docs.display()
        ),
    }
}
