//! The whole generator run behind `cargo xtask codegen`: read the docs, merge, pick the CUDA
//! release the docs describe, read the ABI for that release, bind, emit a complete crate, and
//! write it (or check that the committed one is fresh).
//!
//! The release is the newest one the documents state (or `--release`); no release is a
//! constant here. A run with error diagnostics writes nothing. The summary this module renders
//! is what the command prints.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::abi::{self, Abi};
use crate::availability::Availability;
use crate::bind::{self, Bindings};
use crate::diag::{Counts, Diagnostic, Severity};
use crate::emit;
use crate::emit::package::Package;
use crate::ir::{Api, Release};
use crate::library::Library;

/// A failure that stops the run (as opposed to diagnostics, which are reported).
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Load(#[from] crate::load::LoadError),
    #[error("no document states a CUDA release (add `release = \"13.2\"` to its entry in docs-src/manifest.toml, or pass --release)")]
    NoRelease,
    #[error(transparent)]
    Abi(#[from] abi::snapshot::SnapshotError),
    #[error(transparent)]
    Emit(#[from] emit::files::EmitError),
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// `--name` is not a name a crate can have.
    #[error("--name {0:?}: {1}")]
    Name(String, &'static str),
    /// The documents were read but yield no function, type or constant.
    #[error("the documents yield no API item; nothing was written: check that they are CUDA Runtime API documents (the diagnostics say what was not read)")]
    Empty { report: Box<Report> },
    /// The run found errors in its inputs and wrote nothing; the report says what they are.
    #[error("{count} error diagnostic(s) (first: {first}); nothing was written: fix the inputs (all diagnostics: --list-unbound)")]
    Errors {
        count: usize,
        first: String,
        report: Box<Report>,
    },
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Documentation files or folders.
    pub docs: Vec<PathBuf>,
    /// The C library the crate binds: its ABI snapshots, status type and hand-written files.
    pub library: Library,
    /// The crate folder to write.
    pub out_dir: PathBuf,
    /// The crate's name (default: `<library><major>`, `cudart13`).
    pub crate_name: Option<String>,
    /// The CUDA release (default: the newest one the documents state).
    pub release: Option<Release>,
    /// Write a crate outside the generator's workspace (with its own `[workspace]`).
    pub standalone: bool,
    /// Compare instead of writing; stale files are an error.
    pub check: bool,
    /// Write into a folder that has files but no generator's manifest (the generated files
    /// replace theirs; every other file stays). See [`crate::output::folder`].
    pub adopt: bool,
    /// The folder holding `abi/`, the committed ABI snapshots (the workspace root).
    pub abi_root: PathBuf,
}

impl Options {
    /// A crate of its own from `docs` into `out_dir`, its release and name taken from the
    /// documents (what `cargo xtask codegen --docs … --out DIR` does).
    pub fn standalone(docs: Vec<PathBuf>, out_dir: PathBuf) -> Options {
        Options {
            docs,
            library: Library::Cudart,
            out_dir,
            crate_name: None,
            release: None,
            standalone: true,
            check: false,
            adopt: false,
            abi_root: abi::workspace_root(),
        }
    }

    /// The workspace's own runs: one per `[[crate]]` of `docs-src/manifest.toml` under
    /// `root` (what `cargo xtask codegen [--check]` does).
    pub fn workspace(root: &Path, check: bool) -> Result<Vec<Options>, crate::load::LoadError> {
        let docs_src = root.join("docs-src");
        Ok(crate::load::crates(&docs_src)?
            .into_iter()
            .map(|c| Options {
                docs: c.docs.iter().map(|d| docs_src.join(d)).collect(),
                library: c.library,
                out_dir: root.join(&c.dir),
                crate_name: Some(c.name),
                release: None,
                standalone: false,
                check,
                // The manifest's `[[crate]]` entry declares the folder generated.
                adopt: true,
                abi_root: root.to_path_buf(),
            })
            .collect())
    }
}

/// What a run did.
#[derive(Debug)]
pub struct Report {
    pub release: Release,
    /// The crate written (or checked).
    pub package: Package,
    pub api: Api,
    pub bindings: Bindings,
    /// Files written (or, with `check`, none: staleness is an error).
    pub changed: Vec<String>,
    /// Markdown problems found in the generated rustdoc.
    pub doc_problems: Vec<String>,
    /// The releases of the major the since-marks were compared over, oldest first.
    pub releases_compared: Vec<String>,
}

impl Report {
    /// All diagnostics of the run: parsing, merging, ABI, join and roles.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut all = self.api.diagnostics.clone();
        all.extend(self.bindings.diagnostics.iter().cloned());
        all
    }
}

/// The newest release any document states.
pub fn release_of(api: &Api) -> Option<Release> {
    api.documents.iter().filter_map(|d| d.release.clone()).max()
}

/// Checks, before any work, what a run could only find out at its end: the crate name is
/// one, the output folder may be written (not a link, not a folder of someone else's files
/// unless adopted) and is none of the inputs.
pub fn check_options(opts: &Options) -> Result<(), PipelineError> {
    if let Some(name) = &opts.crate_name {
        check_crate_name(name).map_err(|why| PipelineError::Name(name.clone(), why))?;
    }
    if !opts.check {
        crate::output::refuse_inputs(&opts.out_dir, &opts.docs)?;
        crate::output::folder::check_writable(&opts.out_dir, opts.adopt)?;
    }
    Ok(())
}

/// Whether `name` can name a crate (package and library): ASCII letters, digits, `_` and `-`,
/// starting with a letter, at most 64 characters, and no Rust keyword.
pub fn check_crate_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() || name.len() > 64 {
        return Err("a crate name has 1 to 64 characters");
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err("a crate name starts with an ASCII letter");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err("a crate name holds only ASCII letters, digits, `_` and `-`");
    }
    if syn::parse_str::<syn::Ident>(&name.replace('-', "_")).is_err() {
        return Err("a crate name is no Rust keyword");
    }
    Ok(())
}

/// Reads, joins and emits. Formats are detected from content.
pub fn run(opts: &Options) -> Result<Report, PipelineError> {
    check_options(opts)?;
    let docs = crate::load::load_all(&opts.docs, None)?;
    let release = match &opts.release {
        Some(r) => r.clone(),
        None => docs
            .iter()
            .filter_map(release_of)
            .max()
            .ok_or(PipelineError::NoRelease)?,
    };
    let api = crate::merge::merge(docs);
    let abi = abi::load_library_snapshot(&opts.abi_root, opts.library, &release)?;
    run_with(api, &abi, release, opts)
}

/// The crate a run writes: its name, version and release.
pub fn package_for(release: &Release, opts: &Options) -> Package {
    let major = release.0.first().copied().unwrap_or(0);
    Package {
        name: opts
            .crate_name
            .clone()
            .unwrap_or_else(|| format!("{}{major}", opts.library.name())),
        version: emit::package::version_for(release),
        release: release.to_string(),
        major,
        standalone: opts.standalone,
        library: opts.library,
    }
}

/// [`run`] with the IR and ABI already read (for tests and benchmarks).
pub fn run_with(
    api: Api,
    abi: &Abi,
    release: Release,
    opts: &Options,
) -> Result<Report, PipelineError> {
    let package = package_for(&release, opts);
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
    let mut bindings = bind::bind(&api, abi);
    let availability = Availability::load(&opts.abi_root, &release, abi)?;
    availability.annotate(&mut bindings);
    let out = emit::generate(&bindings, &package, &inputs)?;
    let mut report = Report {
        release,
        package,
        api,
        bindings,
        changed: Vec::new(),
        doc_problems: out.doc_problems,
        releases_compared: availability.releases.clone(),
    };
    let errors: Vec<Diagnostic> = report
        .diagnostics()
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    if let Some(first) = errors.first() {
        return Err(PipelineError::Errors {
            count: errors.len(),
            first: first.to_string(),
            report: Box::new(report),
        });
    }
    if report.api.item_count() == 0 {
        return Err(PipelineError::Empty {
            report: Box::new(report),
        });
    }
    let mode = if opts.check {
        emit::files::Mode::Check
    } else {
        emit::files::Mode::Write { adopt: opts.adopt }
    };
    report.changed = emit::files::write_all(&opts.out_dir, &out.files, mode)?;
    Ok(report)
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
/// The one-screen summary of a run.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    binding_lines(&mut s, r);
    item_lines(&mut s, r);
    wrapper_lines(&mut s, &r.bindings);
    release_lines(&mut s, r);
    outcome_lines(&mut s, r);
    s
}

/// The summary's head: the package and its inputs, the functions bound and how, the
/// renamings, decided directions and join conflicts.
fn binding_lines(s: &mut String, r: &Report) {
    let b = &r.bindings;
    let _ = writeln!(
        s,
        "{}: CUDA {} from {} document(s); ABI: {}",
        r.package.name,
        r.release,
        r.api.documents.len(),
        b.abi_source
    );
    let _ = writeln!(
        s,
        "bound functions:              {} ({} documented)",
        b.functions.len(),
        b.functions.iter().filter(|f| f.documented).count()
    );
    let without_abi = b.unbound.iter().filter(|u| u.kind == "function").count();
    let _ = writeln!(s, "documented, without ABI:      {without_abi}");
    let _ = writeln!(s, "{}", documented_reconciliation(&r.api, b));
    let _ = writeln!(
        s,
        "bound from the ABI alone:     {}{}",
        b.abi_only.len(),
        if b.abi_only.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = b.abi_only.iter().map(String::as_str).collect();
            format!(" ({})", names.join(", "))
        }
    );
    let _ = writeln!(s, "parameter renamings applied:  {}", b.renamings.len());
    if !b.direction_rulings.is_empty() {
        let _ = writeln!(
            s,
            "unstated directions decided:  {} (by the rules of bind::directions; see `--list-unbound`)",
            b.direction_rulings.len()
        );
    }
    let conflicts = b
        .diagnostics
        .iter()
        .filter(|d| d.severity <= Severity::Warning)
        .count();
    let _ = writeln!(s, "conflicts (join warnings):    {conflicts}");
}

/// The line that reconciles the documented functions with `cargo xtask coverage`: its
/// "documented" count is the documents' functions; its bound and not-exported classes are the
/// documented functions bound here; its no-abi class is the documented ones without ABI plus
/// those the binder sets aside without a reason of its own (named here: the headers' inline
/// helpers such as `make_cudaExtent`, which no library exports).
pub fn documented_reconciliation(api: &Api, b: &Bindings) -> String {
    let bound: std::collections::BTreeSet<&str> = b
        .functions
        .iter()
        .filter(|f| f.documented)
        .map(|f| f.name.as_str())
        .collect();
    let without: std::collections::BTreeSet<&str> = b
        .unbound
        .iter()
        .filter(|u| u.kind == "function")
        .map(|u| u.name.as_str())
        .collect();
    let mut documented: Vec<&str> = api.functions.iter().map(|f| f.name.as_str()).collect();
    documented.sort_unstable();
    documented.dedup();
    let rest: Vec<&str> = documented
        .iter()
        .copied()
        .filter(|n| !bound.contains(n) && !without.contains(n))
        .collect();
    let tail = if rest.is_empty() {
        String::new()
    } else {
        format!(
            " + {} not C functions of the library ({})",
            rest.len(),
            abbreviate(&rest, 4)
        )
    };
    format!(
        "documented functions:         {} = {} bound + {} without ABI{tail}; coverage's classes: bound + not-exported = {}, no-abi = {}",
        documented.len(),
        bound.len(),
        without.len(),
        bound.len(),
        documented.len() - bound.len()
    )
}

/// The items emitted, and the documented constants emitted or not.
fn item_lines(s: &mut String, r: &Report) {
    let b = &r.bindings;
    let _ = writeln!(
        s,
        "emitted: {} records, {} enums, {} typedefs, {} constants in {} flag types",
        b.records.len(),
        b.enums.len(),
        b.typedefs.len(),
        b.constants.len(),
        b.flag_groups.len()
    );
    let documented_constants = r.api.constants.len();
    let unbound_constants = b.unbound.iter().filter(|u| u.kind == "constant").count();
    let _ = writeln!(
        s,
        "documented constants:         {documented_constants}, emitted {} ({} typed from C macros), not emitted {unbound_constants}",
        documented_constants - unbound_constants,
        b.constants
            .iter()
            .filter(|k| k.from_macro)
            .count()
    );
}

/// The typed wrappers, the functions without one, and the documented items not bound.
fn wrapper_lines(s: &mut String, b: &Bindings) {
    let untyped = b.untyped();
    let typed = b.functions.len() - untyped.len();
    let typed_unsafe = b.functions.iter().filter(|f| f.typed.is_unsafe()).count();
    let _ = writeln!(
        s,
        "typed wrappers:               {typed} ({typed_unsafe} unsafe); without one: {}{}",
        untyped.len(),
        if untyped.is_empty() {
            ""
        } else {
            " (see `--list-unbound`)"
        }
    );
    if !untyped.is_empty() {
        let names: Vec<&str> = untyped.iter().map(|u| u.name).collect();
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
}

/// The releases the since-marks come from, the functions newer than the oldest, and the
/// records whose layout changed between minors.
fn release_lines(s: &mut String, r: &Report) {
    let b = &r.bindings;
    let _ = writeln!(
        s,
        "since-marks from the ABI of:  {}",
        if r.releases_compared.is_empty() {
            "no snapshot".to_string()
        } else {
            r.releases_compared.join(", ")
        }
    );
    let newer = b
        .functions
        .iter()
        .filter(|f| f.since.as_ref().is_some_and(|s| s.runtime_version() > 0))
        .count();
    if newer > 0 {
        let _ = writeln!(
            s,
            "functions newer than {}:      {newer} (NotInRuntime on an older runtime)",
            r.releases_compared.first().map_or("", String::as_str)
        );
    }
    let changed: Vec<&crate::bind::BoundRecord> = b
        .records
        .iter()
        .filter(|r| !r.layout_changes.is_empty())
        .collect();
    if !changed.is_empty() {
        let _ = writeln!(
            s,
            "records whose layout changed between minors: {}",
            changed.len()
        );
        for rec in changed {
            let what: Vec<String> = rec.layout_changes.iter().map(|c| c.sentence()).collect();
            let line = format!("  {}: {}", rec.name, what.join(" "));
            let _ = writeln!(s, "{}", crate::text::abbreviate(&line, 200));
        }
    }
}

/// The summary's tail: documentation problems, diagnostics (errors and unread lines first),
/// and what was written.
fn outcome_lines(s: &mut String, r: &Report) {
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
        "diagnostics: {} error(s), {} warning(s), {} note(s); unread lines: {}",
        c.errors, c.warnings, c.notes, c.unread
    );
    for d in all.iter().filter(|d| d.severity == Severity::Error).take(8) {
        let _ = writeln!(s, "  {d}");
    }
    for d in all.iter().filter(|d| d.unread > 0).take(4) {
        let _ = writeln!(s, "  {d}");
    }
    if r.changed.is_empty() {
        let _ = writeln!(s, "generated files are up to date");
    } else {
        let _ = writeln!(s, "wrote: {}", r.changed.join(", "));
    }
}

fn abbreviate(names: &[&str], n: usize) -> String {
    if names.len() <= n {
        names.join(", ")
    } else {
        format!("{} … and {} more", names[..n].join(", "), names.len() - n)
    }
}
