//! `cargo xtask coverage [--crate NAME | --docs PATH…] [--lib PATH] [--format md|json|html]
//! [--out FILE] [--fail-on CLASS…]`: audits which documented functions the generated crate
//! binds and the live `libcudart` exports ([`codegen::coverage`]), prints the totals and
//! writes the report.
//!
//! It reads what `cargo xtask codegen` reads: by default the documents of the first
//! `[[crate]]` entry of `docs-src/manifest.toml` (`--crate` picks another), headers included,
//! so a function only the headers document counts as documented. The library is `--lib` (a
//! file; a bare name is `./NAME`), else the one the crate's loader finds (`CUDART_PATH`, the
//! system loader, the install folders), else the NVIDIA wheel `cargo xtask fetch-wheel`
//! unpacked under `target/`; when none opens, the error lists every place tried. A file is
//! checked as the loader checks it before anything maps it, and its exports are read from
//! that same file; its version comes from `cudaRuntimeGetVersion`. Documents that read with
//! error diagnostics, or with no item, are an error exit that prints them. This module only
//! wires the steps together; the audit itself lives in `codegen`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use codegen::coverage::{self, Class, Exports};
use codegen::ir::Release;
use codegen::library::Library;
use codegen::report::OutputFormat;

/// Arguments of `cargo xtask coverage`.
#[derive(clap::Args)]
pub struct CoverageArgs {
    /// The CUDA runtime library file to audit (default: the crate's loader's search order,
    /// then the wheel unpacked under target/).
    #[arg(long)]
    pub lib: Option<PathBuf>,
    /// The `[[crate]]` entry of docs-src/manifest.toml whose documents are read (default: the
    /// first, as `cargo xtask codegen` reads them).
    #[arg(long = "crate", value_name = "NAME", conflicts_with = "docs")]
    pub crate_name: Option<String>,
    /// Documentation files or folders instead of a crate entry's.
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
    let (docs, lib_kind) = documents(&args, root)?;
    let out = args.out.clone().unwrap_or_else(|| {
        root.join("target")
            .join(format!("coverage.{}", format.extension()))
    });
    if out.as_os_str() != "-" {
        let mut inputs = docs.clone();
        inputs.extend(args.lib.iter().cloned());
        codegen::output::refuse_inputs(&out, &inputs)?;
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
    let doc_release = codegen::pipeline::release_of(&api);

    progress(
        started,
        "finding the library and reading its exported symbols",
    );
    let (exports, version, found_by) =
        library(lib_kind, args.lib.as_deref(), doc_release.as_ref(), root)?;
    let version_shown = version.map_or_else(|| "unknown".to_string(), coverage::version_text);
    progress(
        started,
        &format!(
            "{} ({found_by}): {} {version_shown}, {} exported functions",
            exports.path,
            lib_kind.kind(),
            exports.functions.len()
        ),
    );

    let release = match (doc_release, version) {
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
    let abi = codegen::abi::load_library_snapshot(&crate::workspace_root(), lib_kind, &release)?;
    progress(
        started,
        &format!("ABI: {} functions; classifying", abi.functions.len()),
    );
    let mut report = coverage::audit(&api, &abi, &exports, version);
    // The report names the library without this machine's folders.
    report.library.path = report_path(&crate::workspace_root(), Path::new(&exports.path));

    let text = coverage::render::render(&report, format);
    if out.as_os_str() == "-" {
        out!("{text}")?;
        err!("{}", coverage::render::summary(&report));
    } else {
        codegen::output::write_file(&out, text.as_bytes())?;
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

/// The library as a report names it: relative to the workspace when it lies inside
/// (`target/cuda-wheel-13.5/nvidia/cu13/lib/libcudart.so.13`), else its file name alone
/// (`libcudart.so.13`): a report is shared, the local folders are nobody else's business.
pub fn report_path(root: &Path, path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    match absolute.strip_prefix(&root) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
    }
}

fn shown_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The documents to read: `--docs` (of the runtime), else those of the manifest's `[[crate]]`
/// entry named by `--crate` (default: the first), with the library they document.
fn documents(args: &CoverageArgs, root: &Path) -> Result<(Vec<PathBuf>, Library)> {
    if !args.docs.is_empty() {
        for d in &args.docs {
            if !d.exists() {
                bail!("--docs {}: no such file or folder", d.display());
            }
        }
        return Ok((args.docs.clone(), Library::Cudart));
    }
    let docs_src = root.join("docs-src");
    let crates = codegen::load::crates(&docs_src)?;
    let entry = match &args.crate_name {
        Some(name) => crates.iter().find(|c| &c.name == name).with_context(|| {
            let known: Vec<&str> = crates.iter().map(|c| c.name.as_str()).collect();
            format!(
                "--crate {name}: no such [[crate]] in docs-src/manifest.toml (known: {})",
                known.join(", ")
            )
        })?,
        None => crates
            .first()
            .context("docs-src/manifest.toml lists no [[crate]]: give --docs")?,
    };
    let docs = entry.docs.iter().map(|d| docs_src.join(d)).collect();
    Ok((docs, entry.library))
}

/// Opens the library (`--lib`, or the crate's loader's search, then the wheels under
/// `target/`) and reads its exports from the file it opened; with where it was found.
fn library(
    kind: Library,
    lib: Option<&Path>,
    release: Option<&Release>,
    root: &Path,
) -> Result<(Exports, Option<i32>, String)> {
    let live = match lib {
        Some(path) => coverage::live::open_file_of(kind, path).map_err(|e| anyhow!("--lib {e}"))?,
        None if !kind.is_cudart() => {
            bail!(
                "the {} library is not searched for: give --lib",
                kind.kind()
            )
        }
        None => {
            let major = release.and_then(|r| r.0.first().copied()).context(
                "the documents state no CUDA release, so the library's major is unknown: give --lib",
            )?;
            let short = release.map(codegen::abi::snapshot::short_release);
            let search = coverage::live::Search {
                major,
                wheel_dirs: coverage::live::wheel_dirs(&root.join("target"), short.as_deref()),
            };
            coverage::live::find(&search)?
        }
    };
    let exports = coverage::read_exports(&live.path)?;
    Ok((exports, live.version, live.found_by.clone()))
}

#[cfg(test)]
mod report_path_tests {
    use super::report_path;
    use std::path::Path;

    #[test]
    fn the_report_names_no_absolute_local_folder() {
        let root = Path::new("/home/me/work/cudart");
        assert_eq!(
            report_path(
                root,
                &root.join("target/cuda-wheel-13.5/nvidia/cu13/lib/libcudart.so.13")
            ),
            "target/cuda-wheel-13.5/nvidia/cu13/lib/libcudart.so.13"
        );
        assert_eq!(
            report_path(root, Path::new("/opt/private/cuda/lib64/libcudart.so.13")),
            "libcudart.so.13"
        );
    }
}
