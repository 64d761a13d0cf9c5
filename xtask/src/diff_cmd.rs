//! `cargo xtask diff OLD NEW`: loads two sides, compares them with `codegen::diff`, writes the
//! report and prints the totals.
//!
//! A side is a document file or folder, an IR JSON file (`cargo xtask ir`), an ABI snapshot
//! (`abi/12.8.json`), or a release (`12.8`: its committed snapshot, made from the release's
//! wheels when there is none yet, as `codegen --out` does). A side of documents is
//! joined with the snapshot of the release its documents state (`--old-abi`/`--new-abi`
//! name another; one missing is made from the release's wheels, as `codegen --out` does), so
//! that every class rests on the C headers. A document that states no release (NVIDIA's pages
//! do not) is matched by its item set against every committed snapshot
//! ([`codegen::diff::identify`]); the matched release is printed, and where several cannot be
//! told apart they are named (and used only when their headers declare the same). Where no
//! snapshot can be had for a side, or with `--no-abi`, the documents alone are compared:
//! removals and changed parameters are still breaks, marked as resting on the documents. When a side has no documents (a snapshot or a
//! release), only the ABIs are compared. A side that reads with error diagnostics, or with no
//! item at all, is an error exit that prints them. Items link to their rustdoc page in the
//! workspace's generated crate of the new side's major, where it has them. It holds the
//! command-line plumbing only; comparing and rendering live in codegen.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use codegen::abi::{snapshot, Abi};
use codegen::diff::{self, AbiPair, ApiDiff, RustdocLinks};
use codegen::ir::{Api, Release};
use codegen::report::OutputFormat;

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The old side: a document file or folder, an IR JSON file, an ABI snapshot JSON file, or
    /// a release such as 12.8 (its snapshot abi/12.8.json).
    old: String,
    /// The new side, as OLD.
    new: String,
    /// Report format: md (default), json or html.
    #[arg(long, default_value = "md")]
    format: String,
    /// Where to write the report (`-` for standard output; default: target/diff-report.EXT).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The old side's ABI snapshot (default: abi/X.Y.json of the release its documents state).
    #[arg(long, value_name = "FILE", conflicts_with = "no_abi")]
    old_abi: Option<PathBuf>,
    /// The new side's ABI snapshot (default: abi/X.Y.json of the release its documents state).
    #[arg(long, value_name = "FILE", conflicts_with = "no_abi")]
    new_abi: Option<PathBuf>,
    /// Compare the documents alone: breaks then rest on the documents (removals, parameters
    /// added, removed or retyped), every other difference is of class `docs`.
    #[arg(long)]
    no_abi: bool,
    /// Where the generated crates' rustdoc lives, for the items' links (default: the
    /// workspace's target/doc, relative to the report).
    #[arg(long, value_name = "URL")]
    rustdoc_base: Option<String>,
    /// Exit non-zero when such differences exist: `removed` (items, parameters, members or
    /// fields removed), `changed` (any change to an item both sides have), `break` (items of
    /// class break), `deprecated`. Repeat or separate with commas.
    #[arg(long, value_name = "KIND", value_delimiter = ',')]
    fail_on: Vec<String>,
}

/// One side as read.
struct Side {
    api: Api,
    /// The snapshot and the file it came from, as shown.
    abi: Option<(Abi, String)>,
    /// The files and folders read.
    inputs: Vec<PathBuf>,
    /// What matching its items to a release found, printed once both sides are read.
    note: Option<String>,
}

impl Side {
    fn has_documents(&self) -> bool {
        !self.api.documents.is_empty()
    }
}

/// Runs the command.
pub fn run(args: DiffArgs, root: &Path) -> Result<ExitCode> {
    let format = OutputFormat::from_name(&args.format)
        .with_context(|| format!("unknown --format `{}` (known: md, json, html)", args.format))?;
    for f in &args.fail_on {
        if !matches!(f.as_str(), "removed" | "changed" | "break" | "deprecated") {
            bail!("--fail-on takes removed, changed, break or deprecated, not `{f}`");
        }
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| root.join(format!("target/diff-report.{}", format.extension())));
    let mut old = load_side(&args.old, args.old_abi.as_deref(), args.no_abi, root)?;
    let mut new = load_side(&args.new, args.new_abi.as_deref(), args.no_abi, root)?;
    for note in [&old.note, &new.note].into_iter().flatten() {
        errln!("{note}");
    }
    if out.as_os_str() != "-" {
        let inputs: Vec<PathBuf> = old.inputs.iter().chain(&new.inputs).cloned().collect();
        codegen::output::refuse_inputs(&out, &inputs)?;
    }
    // Documents on one side only: compare the ABIs alone (the other side's documents would
    // all read as removed or added).
    if old.has_documents() != new.has_documents() {
        errln!("diff: one side has no documents: comparing the two releases' ABI snapshots only");
        old.api = Api::default();
        new.api = Api::default();
    }
    let links = links(root, &new, &out, args.rustdoc_base.as_deref());
    let mut d = match (&old.abi, &new.abi) {
        (Some((a, af)), Some((b, bf))) => diff::diff_with_abi(
            &old.api,
            &new.api,
            AbiPair {
                old: a,
                new: b,
                old_file: Some(af),
                new_file: Some(bf),
            },
            links.as_ref(),
        ),
        (a, b) => {
            if !args.no_abi {
                let which = if a.is_none() { &args.old } else { &args.new };
                let _ = b;
                errln!(
                    "diff: no ABI snapshot for {which} (it states no release and its items match no committed snapshot; --old-abi/--new-abi name one): comparing the documents alone; removals and changed parameters are breaks resting on the documents"
                );
            }
            diff::diff(&old.api, &new.api)
        }
    };
    d.old.label = Some(args.old.clone());
    d.new.label = Some(args.new.clone());
    let text = diff::render::render(&d, format);
    if out.as_os_str() == "-" {
        out!("{text}")?;
        err!("{}", diff::render::summary(&d));
    } else {
        codegen::output::write_file(&out, text.as_bytes())?;
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
            "changed" => d
                .items
                .iter()
                .any(|i| i.status == diff::ItemStatus::Changed),
            "break" => d.breaks() > 0,
            "deprecated" => d.items.iter().any(|i| i.impact == diff::Impact::Deprecated),
            _ => false,
        })
        .cloned()
        .collect()
}

/// Whether `text` reads as a release (`12.8`, `13.0.1`) rather than a path.
fn as_release(text: &str) -> Option<Release> {
    let looks = !text.is_empty()
        && text.split('.').count() >= 2
        && text
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    looks.then(|| Release::parse(text)).flatten()
}

/// Reads an ABI snapshot file.
fn read_snapshot(path: &Path) -> Result<Abi> {
    Ok(snapshot::load(path)?)
}

/// Whether a JSON document is an ABI snapshot (rather than an IR).
fn is_snapshot(value: &serde_json::Value) -> bool {
    value.get("origin").is_some() && value.get("records").is_some()
}

fn shown(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Loads one side (see the module comment).
fn load_side(arg: &str, abi_file: Option<&Path>, no_abi: bool, root: &Path) -> Result<Side> {
    let path = PathBuf::from(arg);
    if !path.exists() {
        let Some(release) = as_release(arg) else {
            bail!("{arg}: no such file or folder, and not a release such as 13.0");
        };
        let file = crate::abi_cmd::ensure_snapshot(root, &release).with_context(|| {
            format!(
                "{arg}: no ABI snapshot {}",
                shown(root, &snapshot::path(root, &release))
            )
        })?;
        let abi = read_snapshot(&file)?;
        return Ok(Side {
            api: Api::default(),
            abi: Some((abi, shown(root, &file))),
            inputs: vec![file],
            note: None,
        });
    }
    let mut api = None;
    if path.is_file() {
        let bytes = std::fs::read(&path).with_context(|| format!("{arg}: cannot read"))?;
        let is_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
            || bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        if is_json {
            let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
                anyhow::anyhow!("{arg}: not an IR JSON file (nor an ABI snapshot): {e}")
            })?;
            if is_snapshot(&value) {
                let abi: Abi = serde_json::from_value(value)
                    .map_err(|e| anyhow::anyhow!("{arg}: not an ABI snapshot: {e}"))?;
                return Ok(Side {
                    api: Api::default(),
                    abi: Some((abi, arg.to_string())),
                    inputs: vec![path],
                    note: None,
                });
            }
            api = Some(
                serde_json::from_value(value)
                    .map_err(|e| anyhow::anyhow!("{arg}: not an IR JSON file: {e}"))?,
            );
        }
    }
    let api = match api {
        Some(a) => a,
        None => codegen::merge::merge(codegen::load::load_all(std::slice::from_ref(&path), None)?),
    };
    // An unreadable side is an error, not an empty API that makes everything "added".
    codegen::load::check_usable(arg, &api)?;
    let mut inputs = vec![path];
    let mut note = None;
    let abi = if no_abi {
        None
    } else if let Some(file) = abi_file {
        inputs.push(file.to_path_buf());
        Some((read_snapshot(file)?, file.display().to_string()))
    } else if let Some(release) = codegen::pipeline::release_of(&api) {
        let file = crate::abi_cmd::ensure_snapshot(root, &release).with_context(|| {
            format!("{arg} describes CUDA {release}, which has no ABI snapshot (or pass --no-abi)")
        })?;
        inputs.push(file.clone());
        Some((read_snapshot(&file)?, shown(root, &file)))
    } else {
        let (found, message) = identify_side(arg, &api, root)?;
        note = Some(message);
        found.map(|(abi, file)| {
            let label = shown(root, &file);
            inputs.push(file);
            (abi, label)
        })
    };
    Ok(Side {
        api,
        abi,
        inputs,
        note,
    })
}

/// The snapshot of the release a document that states none describes, matched by its item
/// set against every snapshot of the workspace (the runtime's and the other libraries'),
/// with what was found, to print: the release matched, the ones it cannot tell apart, or that
/// none matches (`None`: the documents alone are compared).
fn identify_side(arg: &str, api: &Api, root: &Path) -> Result<(Option<(Abi, PathBuf)>, String)> {
    let mut files = snapshot::list(root);
    for lib in codegen::library::Library::ALL {
        if !lib.snapshot_folder().is_empty() {
            files.extend(snapshot::list_library(root, lib));
        }
    }
    let mut abis = Vec::with_capacity(files.len());
    for (_, f) in &files {
        abis.push(read_snapshot(f)?);
    }
    let refs: Vec<&Abi> = abis.iter().collect();
    let id = codegen::diff::identify::identify(api, &refs);
    let name = |i: usize| {
        let lib = abis[i].library;
        let r = snapshot::short_release(&files[i].0);
        if lib.is_cudart() {
            r
        } else {
            format!("{} {r}", lib.name())
        }
    };
    match id.matches() {
        [] => {
            let best = id.fits.first();
            let why = best.map_or(String::new(), |b| {
                if b.foreign > 0 {
                    format!(
                        " (nearest: {}, which lacks {} of its items, such as {})",
                        name(b.index),
                        b.foreign,
                        b.foreign_examples.join(", ")
                    )
                } else {
                    format!(
                        " (it describes {} of the {} functions of {}: too few to tell a release)",
                        b.described_functions,
                        b.functions,
                        name(b.index)
                    )
                }
            });
            Ok((
                None,
                format!("diff: {arg} states no release and its items match no committed ABI snapshot{why}"),
            ))
        }
        [one] => {
            let i = one.index;
            let note = format!(
                "diff: {arg} states no release; its items match CUDA {} ({})",
                name(i),
                shown(root, &files[i].1)
            );
            Ok((Some((abis.swap_remove(i), files[i].1.clone())), note))
        }
        many => {
            let names: Vec<String> = many.iter().map(|f| name(f.index)).collect();
            // Interchangeable when their headers declare the same: any of them gives the
            // same diff, so the newest is used.
            let first = many[0].index;
            let same = many.iter().all(|f| {
                codegen::diff::abi::compare(&abis[first], &abis[f.index])
                    .changes
                    .is_empty()
            });
            if same {
                let note = format!(
                    "diff: {arg} states no release; its items cannot tell apart CUDA {}, whose headers declare the same: using {}",
                    names.join(", "),
                    shown(root, &files[first].1)
                );
                Ok((
                    Some((abis.swap_remove(first), files[first].1.clone())),
                    note,
                ))
            } else {
                let note = format!(
                    "diff: {arg} states no release; its items cannot tell apart CUDA {}, whose headers differ (name one with --old-abi/--new-abi)",
                    names.join(", ")
                );
                Ok((None, note))
            }
        }
    }
}

/// The rustdoc links of the workspace's generated crate of the new side's major (`cudart13`
/// for 13.x), relative to the report's folder unless `base` says where the rustdoc is.
fn links(root: &Path, new: &Side, out: &Path, base: Option<&str>) -> Option<RustdocLinks> {
    let release = new
        .abi
        .as_ref()
        .and_then(|(a, _)| a.release.clone())
        .or_else(|| codegen::pipeline::release_of(&new.api))?;
    let major = *release.0.first()?;
    let docs_src = root.join("docs-src");
    let entry = codegen::load::crates(&docs_src)
        .ok()?
        .into_iter()
        .filter(|c| c.library.is_cudart())
        .find(|c| {
            let docs: Vec<PathBuf> = c.docs.iter().map(|d| docs_src.join(d)).collect();
            codegen::load::manifest_release(&docs).and_then(|r| r.0.first().copied()) == Some(major)
        })?;
    let base = match base {
        Some(b) => b.to_string(),
        None => relative_doc_base(root, out),
    };
    RustdocLinks::read(&root.join(&entry.dir), &entry.name, &base).ok()
}

/// `<root>/target/doc` as seen from the folder of `out` (an absolute path for standard
/// output).
pub fn relative_doc_base(root: &Path, out: &Path) -> String {
    let doc = std::path::absolute(root.join("target").join("doc")).unwrap_or_default();
    if out.as_os_str() == "-" {
        return doc.display().to_string();
    }
    let from = std::path::absolute(out)
        .ok()
        .and_then(|o| o.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    let (a, b): (Vec<_>, Vec<_>) = (from.components().collect(), doc.components().collect());
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut rel: Vec<String> = vec!["..".to_string(); a.len() - common];
    rel.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if rel.is_empty() {
        ".".into()
    } else {
        rel.join("/")
    }
}
