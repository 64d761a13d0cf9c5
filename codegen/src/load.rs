//! Finding and reading input documents: files, folders, and the `manifest.toml` that states
//! each document's publisher, module and CUDA release.
//!
//! A folder is read recursively in sorted order; `README*`, `NOTICE*`, `LICENSE*`, `*.toml`
//! (the manifest and other settings) and hidden files are skipped, and so are documents whose
//! manifest entry says `default = false` when the folder read holds the manifest (they are
//! read when their file, or a folder below the manifest's that holds them, is named). A
//! manifest entry may name a folder: it then describes every file in it (a set of headers).
//! The release of a document is a setting of the docs source (its manifest entry), never a
//! constant in the code.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::diag::{Diagnostic, Severity};
use crate::ir::{Api, Format, Release};
use crate::parse::parse_document;

/// A failure to read the inputs at all (as opposed to a diagnostic about their content).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: no such file or folder")]
    Missing { path: PathBuf },
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: invalid manifest: {message}")]
    Manifest { path: PathBuf, message: String },
    #[error("{path}: holds no documents")]
    Empty { path: PathBuf },
}

/// Why an API read from documents cannot stand for them: reading failed in part, or found
/// nothing. `diff`, `coverage` and `codegen` refuse such an input rather than treat an
/// unreadable document as an empty API.
#[derive(Debug, thiserror::Error)]
pub enum Unusable {
    #[error("{what}: {} error diagnostic(s) while reading it:\n{}\nfix the input and run again (`cargo xtask ir FILE` lists every diagnostic)", .errors.len(), render_list(.errors))]
    Errors {
        what: String,
        errors: Vec<Diagnostic>,
    },
    #[error("{what}: no API item was read (no function, enum, struct, typedef, constant, alias or listed name); is it a CUDA Runtime documentation page? Known formats: bindings-text, autodoc-rst, cudart-text, html")]
    Empty { what: String },
}

/// Most error diagnostics quoted by [`Unusable::Errors`].
const QUOTED_ERRORS: usize = 20;

fn render_list(errors: &[Diagnostic]) -> String {
    let mut lines: Vec<String> = errors
        .iter()
        .take(QUOTED_ERRORS)
        .map(|d| format!("  {d}"))
        .collect();
    if errors.len() > QUOTED_ERRORS {
        lines.push(format!("  … and {} more", errors.len() - QUOTED_ERRORS));
    }
    lines.join("\n")
}

/// Checks that `api` (read from `what`) has no error diagnostic and at least one item.
pub fn check_usable(what: &str, api: &Api) -> Result<(), Unusable> {
    let errors: Vec<Diagnostic> = api
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect();
    if !errors.is_empty() {
        return Err(Unusable::Errors {
            what: what.to_string(),
            errors,
        });
    }
    if api.item_count() == 0 {
        return Err(Unusable::Empty {
            what: what.to_string(),
        });
    }
    Ok(())
}

/// One `[[document]]` entry of a `manifest.toml`.
#[derive(Clone, Debug, Deserialize)]
pub struct ManifestEntry {
    /// Path relative to the manifest's folder: a file, or a folder whose files it describes.
    pub file: String,
    pub publisher: Option<String>,
    pub module: Option<String>,
    pub release: Option<String>,
    /// Forces a format (otherwise detected from the content).
    pub format: Option<String>,
    /// `false`: skipped when the manifest's folder is read, read only when the file (or a
    /// folder below the manifest's holding it) is named: a newer release, or another source,
    /// kept beside the default inputs. Absent means `true`.
    #[serde(default)]
    pub default: Option<bool>,
}

/// One `[[crate]]` entry of `docs-src/manifest.toml`: a crate of the workspace that
/// `cargo xtask codegen` writes.
#[derive(Clone, Debug, Deserialize)]
pub struct CrateEntry {
    /// Package and library name (`cudart13`).
    pub name: String,
    /// The C library it binds (`library = "nvrtc"`; absent: the runtime, `cudart`).
    #[serde(default)]
    pub library: crate::library::Library,
    /// The crate folder, relative to the workspace root (`runtime/cudart13`).
    pub dir: String,
    /// Its documents, relative to the manifest's folder; the newest release they state is the
    /// crate's release.
    pub docs: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Manifest {
    #[serde(default)]
    document: Vec<ManifestEntry>,
    #[serde(default, rename = "crate")]
    crates: Vec<CrateEntry>,
}

fn read_manifest(path: &Path) -> Result<Manifest, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    toml::from_str(&text).map_err(|e| LoadError::Manifest {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// The crates `docs_src/manifest.toml` lists (`[[crate]]` entries), in order.
pub fn crates(docs_src: &Path) -> Result<Vec<CrateEntry>, LoadError> {
    Ok(read_manifest(&docs_src.join("manifest.toml"))?.crates)
}

/// The `[[document]]` entries of `docs_src/manifest.toml`, in order (whether or not the files
/// they name exist).
pub fn documents(docs_src: &Path) -> Result<Vec<ManifestEntry>, LoadError> {
    Ok(read_manifest(&docs_src.join("manifest.toml"))?.document)
}

/// The newest CUDA release stated by the documents a default run reads (entries of
/// `docs_src/manifest.toml` not marked `default = false`): the release the generated crate,
/// the ABI and the test wheel are for.
pub fn default_release(docs_src: &Path) -> Result<Option<Release>, LoadError> {
    let manifest = read_manifest(&docs_src.join("manifest.toml"))?;
    Ok(manifest
        .document
        .iter()
        .filter(|d| d.default != Some(false))
        .filter_map(|d| d.release.as_deref().and_then(Release::parse))
        .max())
}

/// The release [`load_all`] will give the documents under `paths`, known before reading them
/// when a manifest entry describes every one (the entry's release then replaces whatever the
/// document says): the newest release those entries state. `None` when a document has no
/// entry, when none states a release, or when the listing fails (reading them says why).
/// A document that turns out to hold no API item does not count once read, so this is a
/// forecast: the pipeline uses it to read the ABI snapshot early and checks it afterwards.
pub fn manifest_release(paths: &[PathBuf]) -> Option<Release> {
    let manifests = Manifests::default();
    let documents = list_documents_in(paths, &manifests).ok()?;
    let mut newest = None;
    for d in &documents {
        let (entry, _) = manifest_entry_at(d, &manifests).ok()??;
        newest = newest.max(entry.release.as_deref().and_then(Release::parse));
    }
    newest
}

/// Lists the document files under `paths` (files as given, folders recursively, sorted;
/// in a folder holding their manifest, documents marked `default = false` are left out).
pub fn list_documents(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    list_documents_in(paths, &Manifests::default())
}

/// [`list_documents`], reading each manifest once through `manifests`.
fn list_documents_in(paths: &[PathBuf], manifests: &Manifests) -> Result<Vec<PathBuf>, LoadError> {
    let mut out = Vec::new();
    for p in paths {
        if !p.exists() {
            return Err(LoadError::Missing { path: p.clone() });
        }
        if p.is_dir() {
            let before = out.len();
            let mut found = Vec::new();
            walk(p, &mut found)?;
            for f in found {
                let skipped = match manifest_entry_at(&f, manifests)? {
                    Some((entry, dir)) if entry.default == Some(false) => holds(p, &dir),
                    _ => false,
                };
                if !skipped {
                    out.push(f);
                }
            }
            if out.len() == before {
                return Err(LoadError::Empty { path: p.clone() });
            }
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), LoadError> {
    let rd = std::fs::read_dir(dir).map_err(|source| LoadError::Io {
        path: dir.into(),
        source,
    })?;
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        let name = e.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let upper = name.to_ascii_uppercase();
        if name.starts_with('.')
            || upper.starts_with("README")
            || upper.starts_with("NOTICE")
            || upper.starts_with("LICENSE")
            || upper.ends_with(".TOML")
        {
            continue;
        }
        if e.is_dir() {
            walk(&e, out)?;
        } else {
            out.push(e);
        }
    }
    Ok(())
}

/// Finds the manifest entry describing `file`, searching its folder and up to three parents.
/// An entry naming the file wins over one naming a folder that holds it.
pub fn manifest_entry(file: &Path) -> Result<Option<ManifestEntry>, LoadError> {
    Ok(manifest_entry_at(file, &Manifests::default())?.map(|(e, _)| e))
}

/// The `[[document]]` entries of a manifest, each with the canonical path it names and
/// whether that is a folder.
type Entries = Vec<(ManifestEntry, PathBuf, bool)>;

/// The manifests read so far by one [`load_all`] (or one look-up), by folder: a crate's
/// documents share one manifest, which is then read and its paths resolved once, not once
/// per document. Shared by the threads that read the documents.
#[derive(Default)]
struct Manifests(std::sync::Mutex<foldhash::HashMap<PathBuf, std::sync::Arc<Entries>>>);

impl Manifests {
    /// The entries of the manifest `m` in folder `d`.
    fn entries(&self, d: &Path, m: &Path) -> Result<std::sync::Arc<Entries>, LoadError> {
        let cached = self
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(d)
            .cloned();
        if let Some(entries) = cached {
            return Ok(entries);
        }
        let entries: Entries = read_manifest(m)?
            .document
            .into_iter()
            .map(|entry| {
                let candidate = std::fs::canonicalize(d.join(&entry.file))
                    .unwrap_or_else(|_| d.join(&entry.file));
                let is_dir = candidate.is_dir();
                (entry, candidate, is_dir)
            })
            .collect();
        let entries = std::sync::Arc::new(entries);
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(d.to_path_buf(), entries.clone());
        Ok(entries)
    }
}

/// [`manifest_entry`] and the folder of the manifest it is in.
fn manifest_entry_at(
    file: &Path,
    manifests: &Manifests,
) -> Result<Option<(ManifestEntry, PathBuf)>, LoadError> {
    let abs = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut dir = abs.parent();
    for _ in 0..4 {
        let Some(d) = dir else { break };
        let m = d.join("manifest.toml");
        if m.is_file() {
            let entries = manifests.entries(d, &m)?;
            let mut folder_entry = None;
            for (entry, candidate, is_dir) in entries.iter() {
                if *candidate == abs {
                    return Ok(Some((entry.clone(), d.to_path_buf())));
                }
                if folder_entry.is_none() && *is_dir && abs.starts_with(candidate) {
                    folder_entry = Some(entry.clone());
                }
            }
            return Ok(folder_entry.map(|e| (e, d.to_path_buf())));
        }
        dir = d.parent();
    }
    Ok(None)
}

/// Whether folder `read` is `dir` or one of its parents.
fn holds(read: &Path, dir: &Path) -> bool {
    let read = std::fs::canonicalize(read).unwrap_or_else(|_| read.to_path_buf());
    dir.starts_with(&read)
}

/// Reads and parses one document; `forced` overrides the manifest's and detected format.
pub fn load_document(path: &Path, forced: Option<Format>) -> Result<Api, LoadError> {
    load_document_in(path, forced, &Manifests::default())
}

/// [`load_document`], reading its manifest through `manifests`.
fn load_document_in(
    path: &Path,
    forced: Option<Format>,
    manifests: &Manifests,
) -> Result<Api, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: path.into(),
        source,
    })?;
    let entry = manifest_entry_at(path, manifests)?.map(|(e, _)| e);
    let manifest_format = entry
        .as_ref()
        .and_then(|e| e.format.as_deref())
        .and_then(Format::from_name);
    let display = path.to_string_lossy().replace('\\', "/");
    let mut api = parse_document(&display, &bytes, forced.or(manifest_format));
    if let (Some(entry), Some(doc)) = (entry, api.documents.first_mut()) {
        doc.release = entry.release.as_deref().and_then(Release::parse);
        doc.publisher = match (entry.publisher, entry.module) {
            (Some(p), Some(m)) => Some(format!("{p}/{m}")),
            (p, m) => p.or(m),
        };
    }
    Ok(api)
}

/// Reads every document under `paths`, in order.
pub fn load_all(paths: &[PathBuf], forced: Option<Format>) -> Result<Vec<Api>, LoadError> {
    let manifests = Manifests::default();
    let documents = list_documents_in(paths, &manifests)?;
    // Documents are independent: read them on several threads (a panic is passed on as it
    // would be on one), in the order listed.
    let timed = std::env::var_os("CODEGEN_TIMES").is_some();
    // The biggest documents first: a big one started last would be read alone at the end.
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    crate::parallel::map_largest_first(&documents, size, |p| {
        let watch = crate::clock::Stopwatch::start();
        let from = crate::clock::run_ms();
        let api = load_document_in(p, forced, &manifests);
        if timed {
            let ms = watch.elapsed().as_secs_f64() * 1e3;
            let to = crate::clock::run_ms();
            eprintln!(
                "codegen time: {}: {ms:.1} ms (CPU), at {from:.1}–{to:.1} ms",
                p.display()
            );
        }
        api
    })
    .into_iter()
    .map(|r| r.unwrap_or_else(|payload| std::panic::resume_unwind(payload)))
    .collect()
}
