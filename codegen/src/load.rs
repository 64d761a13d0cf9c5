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
    /// A FIFO, device, socket or folder where a file is read: reading it could block forever
    /// or never end.
    #[error("{path}: not a regular file ({kind}); give a document file")]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("{path}: larger than {limit} MiB, the most an input may hold: is it a documentation file?", limit = MAX_INPUT >> 20)]
    TooLarge { path: PathBuf },
}

/// The largest input read, in bytes (64 MiB; the biggest real page is about 2 MB): a bigger
/// one, or a file that never ends, is [`LoadError::TooLarge`].
pub const MAX_INPUT: u64 = 64 << 20;

/// Reads the regular file `path` whole, at most [`MAX_INPUT`] bytes. Anything else (a FIFO, a
/// device such as `/dev/zero`, a socket, a folder) is [`LoadError::NotRegular`], decided on the
/// opened file itself, without blocking (the file is opened non-blocking, so a FIFO with no
/// writer does not hang the open). A link is followed to what it names.
pub fn read_input(path: &Path) -> Result<Vec<u8>, LoadError> {
    use std::io::Read;
    let (mut file, len) = open_regular(path)?;
    if len > MAX_INPUT {
        return Err(LoadError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    // One byte more than the limit: a file that grew past it while read is refused too.
    (&mut file)
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| LoadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(LoadError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    Ok(bytes)
}

/// Checks, without reading it and without blocking, that `path` names a regular file (for an
/// input that is mapped or loaded rather than read, such as a library).
pub fn check_regular(path: &Path) -> Result<(), LoadError> {
    open_regular(path).map(|_| ())
}

/// `path` opened for reading, with its length, when it is a regular file.
fn open_regular(path: &Path) -> Result<(std::fs::File, u64), LoadError> {
    let io = |source| LoadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = open_nonblocking(path).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            LoadError::Missing {
                path: path.to_path_buf(),
            }
        } else {
            io(source)
        }
    })?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(LoadError::NotRegular {
            path: path.to_path_buf(),
            kind: file_kind(&meta.file_type()),
        });
    }
    Ok((file, meta.len()))
}

/// `path` opened for reading without waiting for a writer (a FIFO) or a carrier (a device).
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// What a file that is not a regular file is, in words.
pub fn file_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
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
    let bytes = read_input(path)?;
    let text = String::from_utf8(bytes).map_err(|e| LoadError::Manifest {
        path: path.to_path_buf(),
        message: format!("not UTF-8: {e}"),
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
            walk(p, &mut found, &mut Visited::default())?;
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

/// Files and folders met by one folder walk, by (device, inode).
#[derive(Default)]
struct Visited(foldhash::HashSet<(u64, u64)>);

impl Visited {
    /// Whether the file or folder `meta` describes is met for the first time.
    fn first(&mut self, meta: &std::fs::Metadata) -> bool {
        match file_id(meta) {
            Some(id) => self.0.insert(id),
            None => true,
        }
    }
}

/// A file's (device, inode): what makes two paths the same file.
pub fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// Lists the documents under `dir` into `out`, sorted, following links to files and folders;
/// a folder or file already met (through a link: `ln -s . a`) is not listed again, so the walk
/// ends, in time linear in what it lists. Anything that is neither a file nor a folder (a FIFO,
/// a device, a socket) is [`LoadError::NotRegular`].
fn walk(dir: &Path, out: &mut Vec<PathBuf>, visited: &mut Visited) -> Result<(), LoadError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LoadError::Io { path, source }
    };
    let meta = std::fs::metadata(dir).map_err(io(dir))?;
    if !visited.first(&meta) {
        return Ok(());
    }
    let rd = std::fs::read_dir(dir).map_err(io(dir))?;
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
        let meta = std::fs::metadata(&e).map_err(io(&e))?;
        if meta.is_dir() {
            walk(&e, out, visited)?;
        } else if !meta.is_file() {
            return Err(LoadError::NotRegular {
                kind: file_kind(&meta.file_type()),
                path: e,
            });
        } else if visited.first(&meta) {
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

/// The `[[document]]` entries of a manifest, found by the canonical path they name.
#[derive(Default)]
struct Entries {
    entries: Vec<ManifestEntry>,
    /// Canonical path of a file entry → its first entry.
    files: foldhash::HashMap<PathBuf, usize>,
    /// Canonical path of a folder entry → its first entry.
    folders: foldhash::HashMap<PathBuf, usize>,
}

impl Entries {
    /// The entry describing the file `abs` (canonical): the one naming it, else the first (in
    /// the manifest's order) naming a folder that holds it. Linear in `abs`'s depth, whatever
    /// the number of entries.
    fn describing(&self, abs: &Path) -> Option<&ManifestEntry> {
        let i = match self.files.get(abs) {
            Some(&i) => i,
            None => abs
                .ancestors()
                .skip(1)
                .filter_map(|a| self.folders.get(a).copied())
                .min()?,
        };
        self.entries.get(i)
    }
}

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
        let mut entries = Entries::default();
        for (i, entry) in read_manifest(m)?.document.into_iter().enumerate() {
            let candidate =
                std::fs::canonicalize(d.join(&entry.file)).unwrap_or_else(|_| d.join(&entry.file));
            let by_path = if candidate.is_dir() {
                &mut entries.folders
            } else {
                &mut entries.files
            };
            by_path.entry(candidate).or_insert(i);
            entries.entries.push(entry);
        }
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
            return Ok(entries
                .describing(&abs)
                .map(|e| (e.clone(), d.to_path_buf())));
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
    let bytes = read_input(path)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("codegen-load-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp folder");
        dir
    }

    #[test]
    fn only_regular_files_of_bounded_size_are_read() {
        let dir = tmp("regular");
        let file = dir.join("page.txt");
        std::fs::write(&file, "text").expect("page");
        assert_eq!(read_input(&file).expect("reads"), b"text");
        let e = read_input(&dir).expect_err("a folder");
        assert!(
            e.to_string().contains("not a regular file (a folder)"),
            "{e}"
        );
        let e = read_input(&dir.join("none")).expect_err("missing");
        assert!(matches!(e, LoadError::Missing { .. }), "{e}");
        // Sparse: no disk is used, the length alone is refused.
        let big = dir.join("big.txt");
        std::fs::File::create(&big)
            .and_then(|f| f.set_len(MAX_INPUT + 1))
            .expect("sparse file");
        let e = read_input(&big).expect_err("too large");
        assert!(matches!(e, LoadError::TooLarge { .. }), "{e}");
        #[cfg(unix)]
        {
            let e = read_input(Path::new("/dev/null")).expect_err("a device");
            assert!(e.to_string().contains("(a device)"), "{e}");
            let fifo = dir.join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                let e = read_input(&fifo).expect_err("a FIFO, refused without blocking");
                assert!(e.to_string().contains("(a FIFO)"), "{e}");
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_walk_lists_each_file_once_and_ends_at_links_back_up() {
        let dir = tmp("walk");
        std::fs::create_dir_all(dir.join("sub")).expect("sub");
        std::fs::write(dir.join("a.txt"), "a").expect("a");
        std::fs::write(dir.join("sub/b.txt"), "b").expect("b");
        std::os::unix::fs::symlink(".", dir.join("self")).expect("self");
        std::os::unix::fs::symlink("..", dir.join("sub/up")).expect("up");
        std::os::unix::fs::symlink("a.txt", dir.join("again.txt")).expect("again");
        let listed = list_documents(std::slice::from_ref(&dir)).expect("lists");
        let names: Vec<String> = listed
            .iter()
            .map(|p| p.strip_prefix(&dir).expect("under").display().to_string())
            .collect();
        assert_eq!(names, ["a.txt", "sub/b.txt"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
