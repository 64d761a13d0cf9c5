//! `cargo xtask coverage [--lib PATH] [--docs PATH…] [--format md|json|html] [--out FILE]
//! [--fail-on CLASS…]`: audits which documented functions the generated crate binds and the
//! live `libcudart` exports ([`codegen::coverage`]), prints the totals and writes the report.
//!
//! The library is `--lib`, else the first one the runtime crate's search order opens
//! (`CUDART_PATH`, the system loader, the install folders). Its exports are read from the ELF
//! file before it is opened, so a file that is not an ELF shared library is an error without
//! being loaded; its version comes from `cudaRuntimeGetVersion`. Documents that read with
//! error diagnostics, or with no item, are an error exit that prints them. This module only wires the
//! steps together; the audit itself lives in `codegen`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use codegen::coverage::{self, Class, Exports};
use codegen::ir::Release;
use codegen::report::OutputFormat;

/// Arguments of `cargo xtask coverage`.
#[derive(clap::Args)]
pub struct CoverageArgs {
    /// The CUDA runtime library to audit (default: the runtime crate's search order).
    #[arg(long)]
    pub lib: Option<PathBuf>,
    /// Documentation files or folders (default: docs-src/).
    #[arg(long, num_args = 1..)]
    pub docs: Vec<PathBuf>,
    /// Report format: md (default), json or html.
    #[arg(long, default_value = "md")]
    pub format: String,
    /// Where to write the report (default: target/coverage.md, .json or .html after the
    /// format; `-` for standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Exit non-zero when any name falls in one of these classes (bound, not-exported,
    /// no-abi, undocumented-per-thread, undocumented-versioned, undocumented-internal,
    /// undocumented-other, abi-only, or `undocumented` for all four undocumented groups).
    #[arg(long, num_args = 1.., value_name = "CLASS")]
    pub fail_on: Vec<String>,
}

/// Prints a progress line on standard error.
fn progress(started: Instant, what: &str) {
    errln!(
        "coverage: [{:>5.1}s] {what}",
        started.elapsed().as_secs_f64()
    );
}

/// Runs the command from the workspace `root`.
pub fn run(args: CoverageArgs, root: &Path) -> Result<ExitCode> {
    let started = Instant::now();
    let format = OutputFormat::from_name(&args.format)
        .with_context(|| format!("--format takes md, json or html, not `{}`", args.format))?;
    let fail_on = fail_on_classes(&args.fail_on)?;
    let docs = if args.docs.is_empty() {
        vec![root.join("docs-src")]
    } else {
        args.docs
    };
    for d in &docs {
        if !d.exists() {
            bail!("--docs {}: no such file or folder", d.display());
        }
    }

    progress(
        started,
        &format!("reading the documentation ({})", shown_paths(&docs)),
    );
    let api = codegen::merge::merge(codegen::load::load_all(&docs, None)?);
    // Unreadable documents are an error, not an API with nothing documented.
    codegen::load::check_usable(&format!("--docs {}", shown_paths(&docs)), &api)?;
    progress(
        started,
        &format!(
            "{} documents, {} documented functions",
            api.documents.len(),
            api.functions.len()
        ),
    );

    progress(started, "reading the library's exported symbols");
    let (exports, version) = library(args.lib.as_deref())?;
    let version_shown = version.map_or_else(|| "unknown".to_string(), coverage::version_text);
    progress(
        started,
        &format!(
            "{}: CUDA runtime {version_shown}, {} exported functions",
            exports.path,
            exports.functions.len()
        ),
    );

    let release = match (codegen::pipeline::release_of(&api), version) {
        (Some(r), _) => r,
        (None, Some(v)) => {
            let r = Release(vec![(v / 1000) as u32, ((v % 1000) / 10) as u32]);
            progress(
                started,
                &format!("no document states a release; using the library's ({r})"),
            );
            r
        }
        (None, None) => {
            bail!("no document states a CUDA release and the library's version is unknown")
        }
    };
    progress(
        started,
        &format!("reading the ABI snapshot of CUDA {release}"),
    );
    let abi = codegen::abi::load_snapshot(&crate::workspace_root(), &release)?;
    progress(
        started,
        &format!("ABI: {} functions; classifying", abi.functions.len()),
    );
    let report = coverage::audit(&api, &abi, &exports, version);

    let text = coverage::render::render(&report, format);
    let out = args.out.unwrap_or_else(|| {
        root.join("target")
            .join(format!("coverage.{}", format.extension()))
    });
    if out.as_os_str() == "-" {
        out!("{text}")?;
        err!("{}", coverage::render::summary(&report));
    } else {
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&out, text).with_context(|| format!("writing {}", out.display()))?;
        out!("{}", coverage::render::summary(&report))?;
        outln!("report written to {}", out.display())?;
    }

    let failing: Vec<String> = fail_on
        .iter()
        .filter_map(|&c| {
            let n = report.totals.count(c);
            (n > 0).then(|| format!("{} {}", n, c.name()))
        })
        .collect();
    if !failing.is_empty() {
        errln!(
            "coverage: failing because of --fail-on: {}",
            failing.join(", ")
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The classes named by `--fail-on`, or an error naming the unknown word and the known ones.
fn fail_on_classes(words: &[String]) -> Result<Vec<Class>> {
    let mut out = Vec::new();
    for word in words
        .iter()
        .flat_map(|w| w.split(','))
        .map(str::trim)
        .filter(|w| !w.is_empty())
    {
        match Class::select(word) {
            Some(classes) => out.extend(
                classes
                    .into_iter()
                    .filter(|c| !out.contains(c))
                    .collect::<Vec<_>>(),
            ),
            None => {
                let known: Vec<&str> = Class::ALL.iter().map(|c| c.name()).collect();
                bail!(
                    "--fail-on: unknown class `{word}` (known: {}, undocumented)",
                    known.join(", ")
                );
            }
        }
    }
    Ok(out)
}

fn shown_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads the exports of the library (the given file, or the one `CUDART_PATH` or the system
/// loader finds) and its version.
///
/// A given file is read as ELF (its exports) before it is opened, so a file that is no
/// shared library is named as such and never handed to the system loader.
fn library(lib: Option<&Path>) -> Result<(Exports, Option<i32>)> {
    if let Some(path) = lib {
        if path.is_dir() {
            bail!(
                "--lib {}: is a folder; give the library file (libcudart.so.<major>)",
                path.display()
            );
        }
        if !path.exists() {
            bail!("--lib {}: no such file", path.display());
        }
        let exports = coverage::read_exports(path)?;
        let live = coverage::live::open(Some(path)).map_err(|e| anyhow!("--lib: {e}"))?;
        return Ok((exports, live.version));
    }
    let live = coverage::live::open(None)?;
    let exports = coverage::read_exports(&live.path)?;
    Ok((exports, live.version))
}
