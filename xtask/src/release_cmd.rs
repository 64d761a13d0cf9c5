//! `cargo xtask release X.Y [--page FILE…]`: release day in one command. For CUDA `X.Y` and
//! every `[[crate]]` of its major (the runtime's, then NVRTC's) it fetches NVIDIA's wheels of
//! the release, makes the crate's library's ABI snapshot (`abi/X.Y.json`,
//! `abi/nvrtc/X.Y.json`; kept when it is committed already), copies the release's
//! documentation headers into `docs-src/nvidia-cuda-headers-X.Y/` (`nvidia-nvrtc-headers-X.Y/`;
//! byte for byte, with their `[[document]]` entry in `docs-src/manifest.toml`), points the
//! crate at them (the runtime's also at the pages given) when `X.Y` is its newest release,
//! regenerates the crate with its since-marks, builds it, runs its audit (`cargo xtask
//! audit`) and writes a short release report — what changed since the previous minor, from
//! the ABI diff of the two releases — to `target/release-X.Y/report.md`, with the whole
//! diffs beside it (`changes.md`, `changes-nvrtc.md`).
//!
//! What it writes in the repository is only what it makes: the snapshot, the header copies, copies
//! of the pages given from outside `docs-src/`, the manifest entries and the crate. Downloads and
//! builds stay under `target/`. This module wires the steps together; each lives in its own module.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use codegen::abi::{snapshot, Abi};
use codegen::diff::{self, AbiPair};
use codegen::ir::{Api, Release};
use codegen::library::Library;
use codegen::report::OutputFormat;
use toml_edit::Value;

use crate::manifest_edit::Manifest;
use crate::{abi_cmd, audit_cmd, wheel};

/// The headers whose Doxygen comments document the CUDA Runtime (the source of NVIDIA's
/// published reference), copied into `docs-src/nvidia-cuda-headers-X.Y/`.
pub const DOC_HEADERS: [&str; 10] = [
    "cuda_egl_interop.h",
    "cuda_gl_interop.h",
    "cuda_profiler_api.h",
    "cuda_runtime_api.h",
    "cuda_vdpau_interop.h",
    "driver_functions.h",
    "driver_types.h",
    "library_types.h",
    "surface_types.h",
    "texture_types.h",
];

/// Where `library`'s documentation headers of a release go under `docs-src/` (`X.Y` stands
/// for the release), the module their manifest entry names, and the headers copied.
fn doc_headers(library: Library) -> (&'static str, &'static str, &'static [&'static str]) {
    match library {
        Library::Cudart => (
            "nvidia-cuda-headers-X.Y",
            "cuda_runtime_api.h",
            &DOC_HEADERS,
        ),
        Library::Nvrtc => ("nvidia-nvrtc-headers-X.Y", "nvrtc.h", &["nvrtc.h"]),
        Library::Nvjitlink => (
            "nvidia-nvjitlink-headers-X.Y",
            "nvJitLink.h",
            &["nvJitLink.h"],
        ),
    }
}

#[derive(clap::Args)]
pub struct ReleaseArgs {
    /// The CUDA release, major and minor (`13.5`).
    release: String,
    /// A page of the release's documentation to make the crate from, in place of the crate's
    /// current pages: NVIDIA's `cuda.bindings.runtime` page (its HTML, in any Sphinx theme, or
    /// a text rendering of it). A file under docs-src/ with a manifest entry stating a release
    /// of the same major is used as it is; any other is taken as the page of this release:
    /// copied into docs-src/nvidia-cuda-bindings-X.Y/ (beside a different file of its name, as
    /// NAME-2, never over it) with its manifest entry. Repeatable.
    #[arg(long)]
    page: Vec<PathBuf>,
}

/// Runs the command from the workspace `root`.
pub fn run(args: ReleaseArgs, root: &Path) -> Result<ExitCode> {
    let started = Instant::now();
    let release = Release::parse(&args.release)
        .filter(|r| r.0.len() == 2)
        .with_context(|| format!("`{}` is not a release such as 13.5", args.release))?;
    let major = release.0[0];
    let short = snapshot::short_release(&release);
    let docs_src = root.join("docs-src");
    let crates = crates_of_major(&docs_src, major)?;
    if !args.page.is_empty() && !crates.iter().any(|c| c.library.is_cudart()) {
        bail!("--page: CUDA {major} has no runtime crate to read a page");
    }
    let out_dir = root.join("target").join(format!("release-{short}"));
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let mut sections = Vec::new();
    for krate in &crates {
        println!("release {short}: crate {} ({})", krate.name, krate.dir);
        let pages: &[PathBuf] = if krate.library.is_cudart() {
            &args.page
        } else {
            &[]
        };
        sections.push(release_crate(root, krate, &release, pages, &out_dir)?);
    }
    let text = format!(
        "# CUDA {short}: release report\n\n{}{:.1} s in all.\n",
        sections.concat(),
        started.elapsed().as_secs_f64(),
    );
    let file = out_dir.join("report.md");
    std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;
    println!(
        "release {short}: done in {:.1} s; report {}",
        started.elapsed().as_secs_f64(),
        file.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Release day for one crate of the major: its library's snapshot and wheels, its
/// documentation headers (and `pages`), the crate regenerated, built and audited, and the
/// changes since the previous minor (the whole diff in `out_dir`). Returns its section of the
/// report.
fn release_crate(
    root: &Path,
    krate: &codegen::load::CrateEntry,
    release: &Release,
    pages: &[PathBuf],
    out_dir: &Path,
) -> Result<String> {
    let mut timings: Vec<(&str, f64)> = Vec::new();
    let mut lap = {
        let mut t = Instant::now();
        move |name: &'static str, timings: &mut Vec<(&'static str, f64)>| {
            timings.push((name, t.elapsed().as_secs_f64()));
            t = Instant::now();
        }
    };
    let library = krate.library;
    let committed = snapshot::library_path(root, library, release);
    let (abi, made, w) = snapshot_and_wheels(root, library, release, &committed)?;
    lap("wheels and snapshot", &mut timings);
    let folder = documentation(&root.join("docs-src"), &w, krate, release, pages)?;
    lap("documentation headers", &mut timings);
    let summary = regenerate(root, krate)?;
    lap("regenerate", &mut timings);
    cargo(root, &["build", "-p", &krate.name])?;
    lap("build", &mut timings);
    audit_cmd::audit(root, &root.join(&krate.dir))?;
    lap("audit", &mut timings);
    let changes_file = out_dir.join(if library.is_cudart() {
        "changes.md".to_string()
    } else {
        format!("changes-{}.md", library.name())
    });
    let changes = changes_since_previous(root, library, &abi, release, &committed, &changes_file)?;
    lap("report", &mut timings);
    let origin: Vec<String> = abi
        .packages
        .iter()
        .map(|(n, v)| format!("{n} {v}"))
        .collect();
    Ok(format!(
        "## {} ({})\n\n\
         - wheels: {}\n- ABI snapshot: `{}` ({})\n- documentation headers: `docs-src/{folder}/`\n\
         - crate: `{}` ({}), built and audited against the release's headers and library\n\n\
         ### What changed\n\n{changes}\n### The crate\n\n```text\n{summary}```\n\n\
         Steps: {}.\n\n",
        krate.name,
        library.title(),
        origin.join(", "),
        shown(root, &committed),
        if made { "made now" } else { "committed before" },
        krate.name,
        krate.dir,
        timings
            .iter()
            .map(|(n, s)| format!("{n} {s:.1} s"))
            .collect::<Vec<_>>()
            .join(", "),
    ))
}

/// The snapshot of `release` (loaded from `committed`, else made there), whether it was made
/// now, and the very wheels it was made from.
fn snapshot_and_wheels(
    root: &Path,
    library: Library,
    release: &Release,
    committed: &Path,
) -> Result<(Abi, bool, wheel::Wheel)> {
    let (abi, made) = if committed.is_file() {
        (snapshot::load(committed)?, false)
    } else {
        let abi = abi_cmd::make_library_snapshot(root, library, release, &[])?;
        if let Some(dir) = committed.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        abi_cmd::write_out(committed, &snapshot::to_json(&abi), &abi_cmd::summary(&abi))?;
        (abi, true)
    };
    let pins: Vec<(String, String)> = abi.packages.clone().into_iter().collect();
    let w = wheel::fetch_library(root, library, release, &pins)?;
    println!(
        "snapshot: {} ({}; {})",
        shown(root, committed),
        if made { "made" } else { "kept" },
        abi.origin
    );
    Ok((abi, made, w))
}

/// Copies the documentation headers of wheel `w` into their folder of `docs-src/`
/// ([`doc_headers`]), gives them their `[[document]]` entry and points `krate` at its
/// documents (`pages`, when given). Returns the folder's name.
fn documentation(
    docs_src: &Path,
    w: &wheel::Wheel,
    krate: &codegen::load::CrateEntry,
    release: &Release,
    pages: &[PathBuf],
) -> Result<String> {
    let short = snapshot::short_release(release);
    let (folder, module, headers) = doc_headers(krate.library);
    let folder = folder.replace("X.Y", &short);
    let copied = copy_headers(w, headers, &docs_src.join(&folder))?;
    println!(
        "documentation headers: docs-src/{folder}/ ({})",
        if copied.is_empty() {
            "up to date".to_string()
        } else {
            format!("wrote {}", copied.join(", "))
        }
    );
    let pages = adopt_pages(docs_src, release, pages)?;
    let mut manifest = Manifest::open(docs_src)?;
    manifest.ensure_document(
        &folder,
        &[
            ("publisher", Value::from("NVIDIA")),
            ("module", Value::from(module)),
            ("release", Value::from(short.as_str())),
            ("format", Value::from("doxygen-header")),
            ("default", Value::from(false)),
        ],
    )?;
    let docs = crate_documents(docs_src, krate, release, &folder, &pages)?;
    manifest.set_crate_docs(&krate.name, &docs)?;
    if manifest.save()? {
        println!(
            "docs-src/manifest.toml: {} reads {}",
            krate.name,
            docs.join(", ")
        );
    }
    Ok(folder)
}

/// The pages given, each as a file under `docs_src` with a manifest entry: a page already
/// there with an entry stays as it is; any other is taken as `release`'s page of
/// `cuda.bindings.runtime` (checked to be one: HTML or its text rendering), copied into
/// `docs-src/nvidia-cuda-bindings-X.Y/` unless it is there already (beside a different file
/// of its name, never over it: [`free_name`]), and given its `[[document]]` entry.
fn adopt_pages(docs_src: &Path, release: &Release, pages: &[PathBuf]) -> Result<Vec<PathBuf>> {
    use codegen::ir::Format;
    let short = snapshot::short_release(release);
    let entries = Entries::read(docs_src)?;
    let base = std::fs::canonicalize(docs_src)?;
    let mut manifest = Manifest::open(docs_src)?;
    let mut out = Vec::new();
    for p in pages {
        let full = std::fs::canonicalize(p).with_context(|| format!("--page {}", p.display()))?;
        let inside = full
            .strip_prefix(&base)
            .ok()
            .map(|r| r.to_string_lossy().into_owned());
        if let Some(rel) = &inside {
            if entries.get(rel).is_some() {
                out.push(full);
                continue;
            }
        }
        let bytes =
            codegen::load::read_input(&full).with_context(|| format!("--page {}", p.display()))?;
        let text = String::from_utf8_lossy(&bytes);
        match codegen::parse::detect::detect(&text) {
            Some(Format::Html | Format::BindingsText) => {}
            other => bail!(
                "--page {}: not a page of cuda.bindings.runtime (its HTML or a text rendering of it); read as {}",
                p.display(),
                other.map_or("no known format".to_string(), |f| format!("{f:?}"))
            ),
        }
        let rel = match inside {
            Some(rel) => rel,
            None => {
                let name = full
                    .file_name()
                    .with_context(|| format!("--page {}: no file name", p.display()))?;
                let folder = format!("nvidia-cuda-bindings-{short}");
                let rel = free_name(docs_src, &folder, name, &bytes)?;
                let dest = docs_src.join(&rel);
                if !dest.exists() {
                    std::fs::create_dir_all(dest.parent().expect("a folder"))
                        .with_context(|| format!("creating {}", dest.display()))?;
                    codegen::output::write_file(&dest, &bytes)
                        .with_context(|| format!("writing {}", dest.display()))?;
                    println!("--page {}: copied to docs-src/{rel}", p.display());
                }
                rel
            }
        };
        manifest.ensure_document(
            &rel,
            &[
                ("publisher", Value::from("NVIDIA")),
                ("module", Value::from("cuda.bindings.runtime")),
                ("release", Value::from(short.as_str())),
                ("default", Value::from(false)),
            ],
        )?;
        out.push(docs_src.join(&rel));
    }
    manifest.save()?;
    Ok(out)
}

/// Where under `docs_src` a page `name` of `bytes` goes in `folder`: `folder/name` when that
/// is free or holds these very bytes, else the first free (or identical) `folder/stem-N.ext`,
/// so that pages of one name given one after the other (`runtime.html` of two themes) are
/// each kept, and no file is ever written over.
fn free_name(
    docs_src: &Path,
    folder: &str,
    name: &std::ffi::OsStr,
    bytes: &[u8],
) -> Result<String> {
    let name = Path::new(name);
    let stem = name.file_stem().unwrap_or_default().to_string_lossy();
    let ext = name
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    for n in 1..=1000 {
        let file = if n == 1 {
            format!("{stem}{ext}")
        } else {
            format!("{stem}-{n}{ext}")
        };
        let rel = format!("{folder}/{file}");
        match std::fs::read(docs_src.join(&rel)) {
            Ok(there) if there == bytes => return Ok(rel),
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(rel),
            Err(e) => bail!("docs-src/{rel}: {e}"),
        }
    }
    bail!("docs-src/{folder}/: a thousand other pages named {stem}{ext} already")
}

/// Regenerates `krate`; returns the generator's summary (printed too).
fn regenerate(root: &Path, krate: &codegen::load::CrateEntry) -> Result<String> {
    let opts = codegen::pipeline::Options::workspace(root, false)?
        .into_iter()
        .find(|o| o.crate_name.as_deref() == Some(krate.name.as_str()))
        .with_context(|| format!("no [[crate]] {}", krate.name))?;
    let report = match codegen::pipeline::run(&opts) {
        Ok(r) => r,
        Err(codegen::pipeline::PipelineError::Errors { report, .. }) => {
            print!("{}", codegen::pipeline::render(&report));
            bail!("{}: error diagnostics: nothing was written", krate.name);
        }
        Err(e) => return Err(e.into()),
    };
    let summary = codegen::pipeline::render(&report);
    print!("{summary}");
    Ok(summary)
}

/// The report's "What changed" text: the ABI diff of `library` against the previous minor of
/// the major with a snapshot (the whole diff written to `file`), or a line saying there is
/// none.
fn changes_since_previous(
    root: &Path,
    library: Library,
    abi: &Abi,
    release: &Release,
    committed: &Path,
    file: &Path,
) -> Result<String> {
    let major = release.0[0];
    let folder = committed.parent().unwrap_or(root);
    let previous = snapshot::list_in(folder)
        .into_iter()
        .rfind(|(r, _)| r.0.first() == Some(&major) && r < release);
    Ok(match &previous {
        Some((prev, path)) => {
            let old = snapshot::load(path)?;
            let d = release_diff(&old, abi, &shown(root, path), &shown(root, committed));
            std::fs::write(file, diff::render::render(&d, OutputFormat::Markdown))
                .with_context(|| format!("writing {}", file.display()))?;
            format!(
                "Since CUDA {prev} (`{}` against `{}`; every row in `{}`):\n\n```text\n{}```\n",
                shown(root, path),
                shown(root, committed),
                file.file_name().unwrap_or_default().to_string_lossy(),
                diff::render::summary(&d)
            )
        }
        None => format!(
            "CUDA {} is the first release of CUDA {major} with a snapshot of {}.\n",
            snapshot::short_release(release),
            library.name()
        ),
    })
}

/// The manifest's `[[document]]` entries by file (as the `[[crate]]` entries name them).
struct Entries(Vec<codegen::load::ManifestEntry>);

impl Entries {
    fn read(docs_src: &Path) -> Result<Entries> {
        Ok(Entries(codegen::load::documents(docs_src)?))
    }

    fn get(&self, file: &str) -> Option<&codegen::load::ManifestEntry> {
        let file = file.trim_end_matches('/');
        self.0.iter().find(|e| e.file.trim_end_matches('/') == file)
    }

    /// The release the entry of `file` states, when it states a minor of `major`.
    fn minor_of(&self, file: &str, major: u32) -> Option<Release> {
        self.get(file)
            .and_then(|e| e.release.as_deref().and_then(Release::parse))
            .filter(|r| r.0.first() == Some(&major) && r.0.len() > 1)
    }

    fn is_headers(&self, file: &str) -> bool {
        self.get(file).and_then(|e| e.format.as_deref()) == Some("doxygen-header")
    }

    /// The newest release the entries of `docs` state (what the crate is generated for).
    fn release_of(&self, docs: &[String]) -> Option<Release> {
        docs.iter()
            .filter_map(|d| self.get(d)?.release.as_deref().and_then(Release::parse))
            .max()
    }
}

/// The `[[crate]]`s whose documents are of `major` (by their manifest entries; the files
/// need not be there yet), one per library, the runtime's first.
fn crates_of_major(docs_src: &Path, major: u32) -> Result<Vec<codegen::load::CrateEntry>> {
    let crates = codegen::load::crates(docs_src)?;
    let entries = Entries::read(docs_src)?;
    let mut found: Vec<codegen::load::CrateEntry> = crates
        .iter()
        .filter(|c| {
            entries
                .release_of(&c.docs)
                .and_then(|r| r.0.first().copied())
                == Some(major)
        })
        .cloned()
        .collect();
    if found.is_empty() {
        bail!(
            "docs-src/manifest.toml has no [[crate]] for CUDA {major} (its crates: {}): add one",
            crates
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    found.sort_by_key(|c| Library::ALL.iter().position(|l| *l == c.library));
    if let Some(pair) = found.windows(2).find(|w| w[0].library == w[1].library) {
        bail!(
            "docs-src/manifest.toml has several [[crate]]s of {} for CUDA {major}: {} and {}",
            pair[0].library.name(),
            pair[0].name,
            pair[1].name
        );
    }
    Ok(found)
}

/// The crate's documents after this release: its header folder of the major becomes
/// `folder` when `release` is at least the crate's release now (added after its pages when
/// it had none), and `pages`, when given, take the place of its pages of the major
/// (documents stating a minor release of it). Other documents stay as they are, in order.
fn crate_documents(
    docs_src: &Path,
    krate: &codegen::load::CrateEntry,
    release: &Release,
    folder: &str,
    pages: &[PathBuf],
) -> Result<Vec<String>> {
    let major = release.0[0];
    let entries = Entries::read(docs_src)?;
    let newest = !matches!(entries.release_of(&krate.docs), Some(r) if r > *release);
    let mut given = Vec::new();
    for p in pages {
        let full = std::fs::canonicalize(p).with_context(|| format!("--page {}", p.display()))?;
        let base = std::fs::canonicalize(docs_src)?;
        let rel = full
            .strip_prefix(&base)
            .with_context(|| format!("--page {}: not a file under docs-src/", p.display()))?
            .to_string_lossy()
            .into_owned();
        if entries.minor_of(&rel, major).is_none() || entries.is_headers(&rel) {
            bail!(
                "--page {}: docs-src/manifest.toml has no [[document]] entry stating a CUDA \
                 {major} release for it: add one (file, publisher, module, release)",
                p.display()
            );
        }
        given.push(rel);
    }
    let replace_pages = !given.is_empty();
    let mut out: Vec<String> = Vec::new();
    let (mut pages_in, mut headers_in) = (false, false);
    for d in &krate.docs {
        let of_major = entries.minor_of(d, major).is_some();
        let headers = of_major && entries.is_headers(d);
        if of_major && !headers && replace_pages {
            if !pages_in {
                out.extend(given.iter().cloned());
                pages_in = true;
            }
            continue;
        }
        if headers {
            out.push(if newest {
                folder.to_string()
            } else {
                d.clone()
            });
            headers_in = true;
            continue;
        }
        if !of_major {
            // Documents of other majors fill gaps only: this major's come first.
            if replace_pages && !pages_in {
                out.extend(given.iter().cloned());
                pages_in = true;
            }
            if newest && !headers_in {
                out.push(folder.to_string());
                headers_in = true;
            }
        }
        out.push(d.clone());
    }
    if replace_pages && !pages_in {
        out.extend(given.iter().cloned());
    }
    if newest && !headers_in {
        out.push(folder.to_string());
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| seen.insert(d.clone()));
    Ok(out)
}

/// Copies the documentation headers from the unpacked wheels into `dest`, writing only the
/// files that differ; returns the names written.
fn copy_headers(w: &wheel::Wheel, headers: &[&str], dest: &Path) -> Result<Vec<String>> {
    std::fs::create_dir_all(dest).with_context(|| format!("creating {}", dest.display()))?;
    let mut written = Vec::new();
    for &name in headers {
        let from = w
            .include_dirs
            .iter()
            .map(|d| d.join(name))
            .find(|p| p.is_file())
            .with_context(|| {
                format!(
                    "the wheels in {} hold no {name} (documentation header)",
                    w.root.display()
                )
            })?;
        let bytes = std::fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
        let to = dest.join(name);
        if std::fs::read(&to).ok().as_deref() == Some(bytes.as_slice()) {
            continue;
        }
        std::fs::write(&to, &bytes).with_context(|| format!("writing {}", to.display()))?;
        written.push(name.to_string());
    }
    Ok(written)
}

/// The C-level diff of two releases' snapshots.
fn release_diff(old: &Abi, new: &Abi, old_file: &str, new_file: &str) -> diff::ApiDiff {
    let mut d = diff::diff_with_abi(
        &Api::default(),
        &Api::default(),
        AbiPair {
            old,
            new,
            old_file: Some(old_file),
            new_file: Some(new_file),
        },
        None,
    );
    d.old.label = Some(old_file.to_string());
    d.new.label = Some(new_file.to_string());
    d
}

fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn cargo(root: &Path, args: &[&str]) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    println!("$ cargo {}", args.join(" "));
    let status = Command::new(cargo)
        .args(args)
        .current_dir(root)
        .status()
        .with_context(|| format!("running cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("`cargo {}` failed ({status})", args.join(" "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = "[[crate]]\nname = \"c13\"\ndir = \"runtime/c13\"\n\
        docs = [\"p-13.4.txt\", \"h-13.4\", \"old-12.txt\"]\n\n\
        [[document]]\nfile = \"p-13.4.txt\"\nrelease = \"13.4\"\n\n\
        [[document]]\nfile = \"p-13.5.txt\"\nrelease = \"13.5\"\n\n\
        [[document]]\nfile = \"h-13.4\"\nrelease = \"13.4\"\nformat = \"doxygen-header\"\n\n\
        [[document]]\nfile = \"old-12.txt\"\nrelease = \"12\"\n";

    #[test]
    fn the_crate_follows_the_newest_release_and_the_pages_given() {
        let dir = std::env::temp_dir().join(format!("xtask-release-docs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("manifest.toml"), MANIFEST).unwrap();
        std::fs::write(dir.join("p-13.5.txt"), "page").unwrap();
        std::fs::write(dir.join("stray.txt"), "page").unwrap();
        let krate = crates_of_major(&dir, 13).unwrap().remove(0);
        assert_eq!(krate.name, "c13");
        assert!(crates_of_major(&dir, 11).is_err());
        let r = |s: &str| Release::parse(s).unwrap();
        let docs = |release: &str, pages: &[&str]| {
            let pages: Vec<PathBuf> = pages.iter().map(|p| dir.join(p)).collect();
            crate_documents(&dir, &krate, &r(release), &format!("h-{release}"), &pages)
        };
        // A newer minor: its headers replace the old ones; the page stays.
        assert_eq!(
            docs("13.5", &[]).unwrap(),
            ["p-13.4.txt", "h-13.5", "old-12.txt"]
        );
        // With its page.
        assert_eq!(
            docs("13.5", &["p-13.5.txt"]).unwrap(),
            ["p-13.5.txt", "h-13.5", "old-12.txt"]
        );
        // An older minor leaves the crate's documents as they are.
        assert_eq!(
            docs("13.3", &[]).unwrap(),
            ["p-13.4.txt", "h-13.4", "old-12.txt"]
        );
        // A page without a manifest entry is refused, naming what to add.
        let err = docs("13.5", &["stray.txt"]).unwrap_err().to_string();
        assert!(err.contains("no [[document]] entry"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn every_crate_of_the_major_is_released_the_runtimes_first() {
        let dir = std::env::temp_dir().join(format!("xtask-release-crates-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let nvrtc = "[[crate]]\nname = \"n13\"\nlibrary = \"nvrtc\"\ndir = \"runtime/n13\"\n\
            docs = [\"n-13.4\"]\n\n[[document]]\nfile = \"n-13.4\"\nrelease = \"13.4\"\n\
            format = \"doxygen-header\"\n\n";
        std::fs::write(dir.join("manifest.toml"), format!("{nvrtc}{MANIFEST}")).unwrap();
        let crates = crates_of_major(&dir, 13).unwrap();
        let names: Vec<_> = crates
            .iter()
            .map(|c| (c.name.as_str(), c.library))
            .collect();
        assert_eq!(names, [("c13", Library::Cudart), ("n13", Library::Nvrtc)]);
        // The NVRTC crate's headers follow the release too.
        let r = Release::parse("13.5").unwrap();
        assert_eq!(
            crate_documents(&dir, &crates[1], &r, "n-13.5", &[]).unwrap(),
            ["n-13.5"]
        );
        assert_eq!(doc_headers(Library::Nvrtc).2, ["nvrtc.h"]);
        // Two crates of one library for a major: which to release is not clear.
        let twice = MANIFEST.replacen("name = \"c13\"", "name = \"c13b\"", 1);
        std::fs::write(dir.join("manifest.toml"), format!("{MANIFEST}{twice}")).unwrap();
        let err = crates_of_major(&dir, 13).unwrap_err().to_string();
        assert!(err.contains("several [[crate]]s of cudart"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_page_from_elsewhere_is_copied_in_with_its_entry_and_never_over_another_file() {
        let tmp = std::env::temp_dir().join(format!("xtask-release-adopt-{}", std::process::id()));
        let (docs_src, elsewhere) = (tmp.join("docs-src"), tmp.join("downloads"));
        std::fs::create_dir_all(&docs_src).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(docs_src.join("manifest.toml"), MANIFEST).unwrap();
        std::fs::write(docs_src.join("p-13.4.txt"), "page").unwrap();
        let themes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/tests/themes/13.4.4");
        let page = std::fs::read(themes.join("furo.txt")).unwrap();
        let html = std::fs::read(themes.join("rtd.html")).unwrap();
        std::fs::write(elsewhere.join("runtime.txt"), &page).unwrap();
        std::fs::write(elsewhere.join("runtime.html"), &html).unwrap();
        std::fs::write(elsewhere.join("notes.txt"), "just some notes\n").unwrap();
        let r = Release::parse("13.5").unwrap();
        let entry_count = |file: &str| {
            Entries::read(&docs_src)
                .unwrap()
                .0
                .iter()
                .filter(|e| e.file == file)
                .count()
        };

        // Copied in, with an entry stating the release; the one under docs-src with an entry
        // is kept as it is.
        let given = [
            elsewhere.join("runtime.txt"),
            elsewhere.join("runtime.html"),
            docs_src.join("p-13.4.txt"),
        ];
        let got = adopt_pages(&docs_src, &r, &given).unwrap();
        let folder = docs_src.join("nvidia-cuda-bindings-13.5");
        assert_eq!(
            got,
            [
                folder.join("runtime.txt"),
                folder.join("runtime.html"),
                std::fs::canonicalize(docs_src.join("p-13.4.txt")).unwrap()
            ]
        );
        assert_eq!(std::fs::read(folder.join("runtime.txt")).unwrap(), page);
        assert_eq!(std::fs::read(folder.join("runtime.html")).unwrap(), html);
        let entries = Entries::read(&docs_src).unwrap();
        let entry = entries
            .get("nvidia-cuda-bindings-13.5/runtime.txt")
            .unwrap();
        assert_eq!(entry.release.as_deref(), Some("13.5"));
        assert_eq!(
            entries.minor_of("nvidia-cuda-bindings-13.5/runtime.html", 13),
            Some(r.clone())
        );
        // The crate then reads them.
        let krate = crates_of_major(&docs_src, 13).unwrap().remove(0);
        assert_eq!(
            crate_documents(&docs_src, &krate, &r, "h-13.5", &got[..1]).unwrap(),
            [
                "nvidia-cuda-bindings-13.5/runtime.txt",
                "h-13.5",
                "old-12.txt"
            ]
        );

        // Given again: nothing new, one entry.
        adopt_pages(&docs_src, &r, &given[..1]).unwrap();
        assert_eq!(entry_count("nvidia-cuda-bindings-13.5/runtime.txt"), 1);

        // Another page of that name (another theme's) goes beside it, never over it.
        let other = [&page[..], b"\n"].concat();
        std::fs::write(elsewhere.join("runtime.txt"), &other).unwrap();
        let got = adopt_pages(&docs_src, &r, &given[..1]).unwrap();
        assert_eq!(got, [folder.join("runtime-2.txt")]);
        assert_eq!(std::fs::read(folder.join("runtime.txt")).unwrap(), page);
        assert_eq!(std::fs::read(folder.join("runtime-2.txt")).unwrap(), other);
        assert_eq!(entry_count("nvidia-cuda-bindings-13.5/runtime-2.txt"), 1);
        // And again: the same copy, no third.
        adopt_pages(&docs_src, &r, &given[..1]).unwrap();
        assert!(!folder.join("runtime-3.txt").exists());

        // What is not a page is refused, and nothing is copied.
        let err = adopt_pages(&docs_src, &r, &[elsewhere.join("notes.txt")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a page of cuda.bindings.runtime"), "{err}");
        assert!(!folder.join("notes.txt").exists());
        std::fs::remove_dir_all(&tmp).ok();
    }
}
