//! The whole generator run behind `cargo xtask codegen`: read the docs, merge, pick the CUDA
//! release the docs describe, read the ABI for that release, join, emit, and write (or check)
//! `runtime/src/generated/`, and the verification tables of `tests/generated/`.
//!
//! The release is the newest one the documents' manifest states; no release is a constant
//! here. The summary this module renders is what the command prints.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::abi::{self, Abi};
use crate::bind::{self, Bindings};
use crate::diag::{Counts, Diagnostic, Severity};
use crate::emit;
use crate::ir::{Api, Release};

/// A failure that stops the run (as opposed to diagnostics, which are reported).
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Load(#[from] crate::load::LoadError),
    #[error("no document states a CUDA release (add `release = \"13.2\"` to its entry in docs-src/manifest.toml)")]
    NoRelease,
    #[error(transparent)]
    Abi(#[from] abi::LocateError),
    #[error(transparent)]
    Emit(#[from] emit::files::EmitError),
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Documentation files or folders.
    pub docs: Vec<PathBuf>,
    /// The folder to write (`runtime/src/generated`).
    pub out_dir: PathBuf,
    /// The folder for the verification tables (`tests/generated`); `None` skips them.
    pub tests_out_dir: Option<PathBuf>,
    /// Compare instead of writing; stale files are an error.
    pub check: bool,
}

impl Options {
    /// The workspace's own run: `docs-src/` into `runtime/src/generated/` and
    /// `tests/generated/` under `root` (what `cargo xtask codegen [--check]` does).
    pub fn workspace(root: &Path, check: bool) -> Options {
        Options {
            docs: vec![root.join("docs-src")],
            out_dir: root.join("runtime/src/generated"),
            tests_out_dir: Some(root.join("tests/generated")),
            check,
        }
    }
}

/// What a run did.
#[derive(Debug)]
pub struct Report {
    pub release: Release,
    pub api: Api,
    pub bindings: Bindings,
    /// Files written (or, with `check`, none: staleness is an error).
    pub changed: Vec<String>,
    /// Why nothing was written although files differ: the run has error diagnostics or read
    /// no item. `None` when the files were written (or checked).
    pub withheld: Option<String>,
    pub doc_problems: Vec<String>,
    pub flag_groups: usize,
    /// Typed wrappers emitted, and how many are `unsafe`.
    pub typed: usize,
    pub typed_unsafe: usize,
    /// Bound functions without a typed wrapper, with the reason.
    pub untyped: Vec<emit::typed::Skipped>,
    /// How each list parameter was paired with its count.
    pub list_pairs: Vec<String>,
    /// Role diagnostics of the typed layer.
    pub role_diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// All diagnostics of the run: parsing, merging, ABI, join, and doc problems.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut all = self.api.diagnostics.clone();
        all.extend(self.bindings.diagnostics.iter().cloned());
        all.extend(self.role_diagnostics.iter().cloned());
        all
    }
}

/// The newest release any document states.
pub fn release_of(api: &Api) -> Option<Release> {
    api.documents.iter().filter_map(|d| d.release.clone()).max()
}

/// Reads, joins and emits. Formats are detected from content.
pub fn run(opts: &Options) -> Result<Report, PipelineError> {
    let api = crate::merge::merge(crate::load::load_all(&opts.docs, None)?);
    let release = release_of(&api).ok_or(PipelineError::NoRelease)?;
    let abi = abi::load_abi(&release)?;
    run_with(api, &abi, release, opts)
}

/// [`run`] with the IR and ABI already read (for tests and benchmarks).
pub fn run_with(
    api: Api,
    abi: &Abi,
    release: Release,
    opts: &Options,
) -> Result<Report, PipelineError> {
    let bindings = bind::join(&api, abi);
    let inputs: Vec<String> = api
        .documents
        .iter()
        .map(|d| {
            let file = relative(&d.file);
            match &d.release {
                Some(r) => format!("{file} ({}, CUDA {r})", d.format.name()),
                None => format!("{file} ({})", d.format.name()),
            }
        })
        .collect();
    let out = emit::generate(&bindings, &inputs)?;
    let mut folders = vec![emit::files::Folder {
        dir: &opts.out_dir,
        label: "",
        files: &out.files,
    }];
    if let Some(dir) = &opts.tests_out_dir {
        folders.push(emit::files::Folder {
            dir,
            label: "tests/generated/",
            files: &out.test_files,
        });
    }
    // A run with errors writes nothing: the committed files stay as they were.
    let errors = [&api.diagnostics, &bindings.diagnostics, &out.diagnostics]
        .iter()
        .flat_map(|list| list.iter())
        .filter(|d| d.severity == Severity::Error)
        .count();
    let withheld = if errors > 0 {
        Some(format!(
            "nothing written: the run has {errors} error diagnostic(s); fix them (or the inputs) and run again"
        ))
    } else if api.item_count() == 0 {
        Some("nothing written: the documents yield no API item".to_string())
    } else {
        None
    };
    let changed = match (&withheld, opts.check) {
        (Some(_), false) => Vec::new(),
        _ => emit::files::write_folders(&folders, opts.check)?,
    };
    Ok(Report {
        withheld,
        release,
        api,
        bindings,
        changed,
        doc_problems: out.doc_problems,
        flag_groups: out.flag_groups.len(),
        typed: out.typed,
        typed_unsafe: out.typed_unsafe,
        untyped: out.untyped,
        list_pairs: out.list_pairs,
        role_diagnostics: out.diagnostics,
    })
}

/// A path shown relative to the workspace (`docs-src/…`) so generated files do not depend on
/// where the checkout lives.
fn relative(file: &str) -> String {
    match file.find("docs-src/") {
        Some(at) => file[at..].to_string(),
        None => Path::new(file)
            .file_name()
            .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned()),
    }
}

/// The one-screen summary of a run.
pub fn render(r: &Report) -> String {
    let b = &r.bindings;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "CUDA {} from {} document(s); ABI: {}",
        r.release,
        r.api.documents.len(),
        b.abi_source
    );
    let _ = writeln!(s, "bound functions:              {}", b.functions.len());
    let _ = writeln!(
        s,
        "documented, without ABI:      {}",
        b.unbound.iter().filter(|u| u.kind == "function").count()
    );
    let _ = writeln!(s, "ABI functions without docs:   {}", b.abi_only.len());
    let _ = writeln!(s, "parameter renamings applied:  {}", b.renamings.len());
    let conflicts = b
        .diagnostics
        .iter()
        .filter(|d| d.severity <= Severity::Warning)
        .count();
    let _ = writeln!(s, "conflicts (join warnings):    {conflicts}");
    let _ = writeln!(
        s,
        "emitted: {} records, {} enums, {} typedefs, {} constants in {} flag types",
        b.records.len(),
        b.enums.len(),
        b.typedefs.len(),
        b.constants.len(),
        r.flag_groups
    );
    let _ = writeln!(
        s,
        "typed wrappers:               {} ({} unsafe); without one: {}{}",
        r.typed,
        r.typed_unsafe,
        r.untyped.len(),
        if r.untyped.is_empty() {
            ""
        } else {
            " (see `--list-unbound`)"
        }
    );
    if !r.untyped.is_empty() {
        let names: Vec<&str> = r.untyped.iter().map(|u| u.name.as_str()).collect();
        let _ = writeln!(s, "  without a typed wrapper: {}", abbreviate(&names, 10));
    }
    let unbound_fns: Vec<&str> = b
        .unbound
        .iter()
        .filter(|u| u.kind == "function")
        .map(|u| u.name.as_str())
        .collect();
    if !unbound_fns.is_empty() {
        let _ = writeln!(
            s,
            "not bound (see `cargo xtask codegen --list-unbound` for reasons): {}",
            abbreviate(&unbound_fns, 12)
        );
    }
    let others = b.unbound.iter().filter(|u| u.kind != "function").count();
    if others > 0 {
        let _ = writeln!(s, "other documented items without ABI: {others}");
    }
    if !r.doc_problems.is_empty() {
        let _ = writeln!(
            s,
            "doc problems: {} (first: {})",
            r.doc_problems.len(),
            r.doc_problems[0]
        );
    }
    let all = r.diagnostics();
    let c = Counts::of(&all);
    let _ = writeln!(
        s,
        "diagnostics: {} error(s), {} warning(s), {} note(s)",
        c.errors, c.warnings, c.notes
    );
    for d in all.iter().filter(|d| d.severity == Severity::Error).take(8) {
        let _ = writeln!(s, "  {d}");
    }
    if let Some(why) = &r.withheld {
        let _ = writeln!(s, "{why}");
    } else if r.changed.is_empty() {
        let _ = writeln!(s, "generated files are up to date");
    } else {
        let _ = writeln!(s, "wrote: {}", r.changed.join(", "));
    }
    s
}

fn abbreviate(names: &[&str], n: usize) -> String {
    if names.len() <= n {
        names.join(", ")
    } else {
        format!("{} … and {} more", names[..n].join(", "), names.len() - n)
    }
}
