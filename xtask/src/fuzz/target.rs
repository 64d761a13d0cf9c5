//! One fuzz case: a mutant through every front end and the library calls behind the commands.
//!
//! The seeds are the real documents of `docs-src/` (every format, HTML included, default or
//! not), the red-team inputs kept in `codegen/tests/redteam/`, the pages of other Sphinx
//! themes (`codegen/tests/themes/13.4.4/`, their text also without permalink marks), and the IR JSON of two small
//! documents (what `diff` accepts instead of a document). A case runs `parse_document` with
//! format detection and with each format forced, `merge`, the IR JSON and summary of
//! `cargo xtask ir`, the usable-input check of `diff`/`coverage`, `diff` against the seed's
//! own reading with its three renderings, `coverage` against the ABI, `bind::join`, and now and
//! then `emit::generate`. It checks what can be checked without a reference answer: output
//! sizes linear in the input, and no silent loss: every object the census counts in the
//! mutant (`codegen::parse::census`) is in each reading and in the merge of them, or a
//! diagnostic of it names the object. Panics and time are watched by the caller.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use codegen::abi::Abi;
use codegen::coverage::Exports;
use codegen::ir::{Api, Format, Release};
use codegen::parse::permalink::{self, Permalink};
use codegen::report::OutputFormat;

/// Output may be at most this many bytes per input byte (plus [`SIZE_SLACK`]). Pretty IR JSON
/// of a type nested to the bound (64 levels, indented) is the largest legitimate ratio.
pub const SIZE_FACTOR: usize = 512;
/// Fixed allowance of [`SIZE_FACTOR`]: headers, the documents list, an empty report.
pub const SIZE_SLACK: usize = 4 << 20;

/// How a seed is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedKind {
    /// A document (its format as detected from the whole file).
    Document(Format),
    /// IR JSON, as `diff` reads a `.json` side.
    IrJson,
}

impl SeedKind {
    pub fn name(self) -> &'static str {
        match self {
            SeedKind::Document(f) => f.name(),
            SeedKind::IrJson => "ir-json",
        }
    }
}

/// One seed: a real input, and what the tools read from it unmutated.
pub struct Seed {
    /// Path relative to the workspace.
    pub name: String,
    pub kind: SeedKind,
    pub bytes: Vec<u8>,
}

/// The pages of other Sphinx themes (`codegen/tests/themes.rs`), relative to the workspace.
const THEME_PAGES: &str = "codegen/tests/themes/13.4.4";

/// Lists the seeds under the workspace `root`.
pub fn seeds(root: &Path) -> Result<Vec<Seed>> {
    let mut files = Vec::new();
    collect(&root.join("docs-src"), &mut files)?;
    collect(&root.join("codegen/tests/redteam"), &mut files)?;
    collect(&root.join(THEME_PAGES), &mut files)?;
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let name = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let format = codegen::parse::detect::detect(&String::from_utf8_lossy(&bytes))
            .unwrap_or(Format::BindingsText);
        out.push(Seed {
            name,
            kind: SeedKind::Document(format),
            bytes,
        });
    }
    // The theme pages' text renderings without their permalink marks (read by shape, their
    // headings by place).
    let unmarked: Vec<Seed> = out
        .iter()
        .filter(|s| s.name.starts_with(THEME_PAGES) && s.name.ends_with(".txt"))
        .filter_map(|s| {
            let text = std::str::from_utf8(&s.bytes).ok()?;
            let Permalink::Mark(mark) = permalink::of_lines(text.split('\n')) else {
                return None;
            };
            let bytes = text
                .split('\n')
                .map(|l| l.strip_suffix(mark).unwrap_or(l))
                .collect::<Vec<_>>()
                .join("\n")
                .into_bytes();
            Some(Seed {
                name: format!("{} without marks", s.name),
                kind: s.kind,
                bytes,
            })
        })
        .collect();
    out.extend(unmarked);
    // IR JSON of the two smallest documents.
    let mut small: Vec<&Seed> = out
        .iter()
        .filter(|s| s.name.starts_with("docs-src"))
        .collect();
    small.sort_by_key(|s| s.bytes.len());
    let json: Vec<Seed> = small
        .iter()
        .take(2)
        .map(|s| {
            let api = codegen::parse::parse_document(&s.name, &s.bytes, None);
            Seed {
                name: format!("{}.ir.json", s.name),
                kind: SeedKind::IrJson,
                bytes: serde_json::to_vec_pretty(&api).unwrap_or_default(),
            }
        })
        .collect();
    out.extend(json);
    Ok(out)
}

/// Documentation files under `dir` (READMEs, manifests, C sources and hidden files left out).
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in rd.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.')
            || name.to_ascii_uppercase().starts_with("README")
            || name == "FOUND.md"
            || name.ends_with(".toml")
            || name.ends_with(".c")
        {
            continue;
        }
        if path.is_dir() {
            collect(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// What every case compares with: the ABI and an export list standing for a library.
pub struct Context {
    pub abi: Option<Abi>,
    pub exports: Exports,
    /// Each seed read unmutated (the old side of `diff`).
    pub originals: Vec<Api>,
}

impl Context {
    /// Reads the seeds once; the ABI of the documents' release when it can be located (a
    /// missing one leaves `coverage` and `join` out, which the caller reports).
    pub fn new(root: &Path, seeds: &[Seed]) -> Context {
        let release = codegen::load::default_release(&root.join("docs-src"))
            .ok()
            .flatten()
            .unwrap_or(Release(vec![13, 2]));
        let abi = codegen::abi::load_snapshot(root, &release).ok();
        let exports = Exports::from_names(
            "fuzz-exports",
            abi.iter()
                .flat_map(|a| a.functions.keys().cloned())
                .collect::<Vec<_>>(),
        );
        let originals = seeds.iter().map(|s| read(s, &s.bytes).0).collect();
        Context {
            abi,
            exports,
            originals,
        }
    }
}

/// Sizes of what a case produced.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcome {
    /// Pretty IR JSON of the merged reading (what `cargo xtask ir` writes).
    pub ir_json: usize,
    /// The largest report (diff or coverage, any rendering).
    pub report: usize,
}

impl Outcome {
    /// The largest output of the case, in bytes.
    pub fn largest(&self) -> usize {
        self.ir_json.max(self.report)
    }
}

/// Reads `input` as seed `seed` is read: IR JSON, or a document with format detection.
fn read(seed: &Seed, input: &[u8]) -> (Api, Vec<Api>) {
    match seed.kind {
        SeedKind::IrJson => {
            let api = serde_json::from_slice::<Api>(input).unwrap_or_default();
            (api, Vec::new())
        }
        SeedKind::Document(_) => {
            let detected = codegen::parse::parse_document(&seed.name, input, None);
            let forced = Format::ALL
                .iter()
                .map(|&f| codegen::parse::parse_document(&seed.name, input, Some(f)))
                .collect();
            (detected, forced)
        }
    }
}

/// A property a case broke.
#[derive(Debug)]
pub enum Broken {
    /// An output larger than [`SIZE_FACTOR`] bytes per input byte.
    Size(String),
    /// An object the census counts that a reading holds not and no diagnostic names.
    Loss(String),
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Broken::Size(m) => write!(f, "output size: {m}"),
            Broken::Loss(m) => write!(f, "silent loss: {m}"),
        }
    }
}

/// The census errors a reading of `text` does not carry: objects lost without a word.
fn silent_losses(file: &str, text: &str, api: &Api, what: &str) -> Result<(), Broken> {
    let formats: Vec<Format> = api.documents.iter().map(|d| d.format).collect();
    for format in formats {
        let lost = codegen::parse::census::unreported(file, format, text, api);
        if let Some(first) = lost.first() {
            return Err(Broken::Loss(format!(
                "{what} ({}): {} object(s) lost without a diagnostic, the first: {first}",
                format.name(),
                lost.len()
            )));
        }
    }
    Ok(())
}

/// Runs one case. `Err` is a broken property; panics propagate to the caller.
pub fn run(
    ctx: &Context,
    seeds: &[Seed],
    seed: usize,
    input: &[u8],
    emit: bool,
) -> Result<Outcome, Broken> {
    let s = &seeds[seed];
    let (detected, forced) = read(s, input);
    if let SeedKind::Document(_) = s.kind {
        let prepared = codegen::parse::prepare(input);
        for (api, what) in std::iter::once((&detected, "the reading"))
            .chain(forced.iter().map(|a| (a, "a forced reading")))
        {
            silent_losses(&s.name, &prepared.text, api, what)?;
        }
    }
    let own = match s.kind {
        SeedKind::Document(f) => forced
            .iter()
            .find(|a| a.documents.first().is_some_and(|d| d.format == f))
            .cloned(),
        SeedKind::IrJson => None,
    };
    let merged = codegen::merge::merge(std::iter::once(detected).chain(own).collect());
    if let SeedKind::Document(_) = s.kind {
        let prepared = codegen::parse::prepare(input);
        silent_losses(&s.name, &prepared.text, &merged, "the merged reading")?;
    }
    let mut out = Outcome::default();
    let limit = |n: usize| SIZE_FACTOR.saturating_mul(n).saturating_add(SIZE_SLACK);

    // `cargo xtask ir`: IR JSON and the summary, for the merged reading and each forced one.
    for api in std::iter::once(&merged).chain(&forced) {
        let json =
            serde_json::to_string_pretty(api).map_err(|e| Broken::Size(format!("IR JSON: {e}")))?;
        if json.len() > limit(input.len()) {
            return Err(Broken::Size(format!(
                "IR JSON of {} bytes for {} input bytes (more than {SIZE_FACTOR} per byte)",
                json.len(),
                input.len()
            )));
        }
        out.ir_json = out.ir_json.max(json.len());
        let _ = codegen::summary::render(api);
    }
    // `diff` and `coverage` refuse unusable inputs; the library calls run anyway here.
    let _ = codegen::load::check_usable(&s.name, &merged);
    let original = &ctx.originals[seed];
    let d = codegen::diff::diff(original, &merged);
    let base = input.len() + s.bytes.len();
    for format in [
        OutputFormat::Markdown,
        OutputFormat::Json,
        OutputFormat::Html,
    ] {
        let text = codegen::diff::render::render(&d, format);
        if text.len() > limit(base) {
            return Err(Broken::Size(format!(
                "diff report of {} bytes for {base} input bytes",
                text.len()
            )));
        }
        out.report = out.report.max(text.len());
    }
    let _ = codegen::diff::render::summary(&d);
    if let Some(abi) = &ctx.abi {
        let c = codegen::coverage::audit(&merged, abi, &ctx.exports, Some(13020));
        for format in [
            OutputFormat::Markdown,
            OutputFormat::Json,
            OutputFormat::Html,
        ] {
            let text = codegen::coverage::render::render(&c, format);
            if text.len() > limit(input.len() + (1 << 20)) {
                return Err(Broken::Size(format!(
                    "coverage report of {} bytes for {} input bytes",
                    text.len(),
                    input.len()
                )));
            }
            out.report = out.report.max(text.len());
        }
        let bindings = codegen::bind::bind(&merged, abi);
        if emit {
            let package = codegen::emit::package::Package {
                name: "cudart-fuzz".into(),
                version: codegen::emit::package::version_for(&codegen::ir::Release(vec![13, 2])),
                release: "13.2".into(),
                major: 13,
                standalone: true,
                library: codegen::library::Library::Cudart,
            };
            let _ = codegen::emit::generate(&bindings, &package, std::slice::from_ref(&s.name));
        }
    }
    Ok(out)
}
