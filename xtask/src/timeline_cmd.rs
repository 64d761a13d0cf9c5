//! `cargo xtask timeline [--format md|json|html] [--out FILE] [--rustdoc-base URL]`: the API
//! timeline of every release with a committed ABI snapshot (`abi/*.json`), item × release
//! ([`codegen::timeline`]): when each item appeared, changed, was deprecated or removed, each
//! event classed from C compatibility. Items link to their rustdoc page in the workspace's
//! generated crate of their newest release's major, where it has them. This module only wires
//! the steps together.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use codegen::abi::{snapshot, Abi};
use codegen::diff::RustdocLinks;
use codegen::ir::Release;
use codegen::report::OutputFormat;
use codegen::timeline::{self, Snapshot};

#[derive(clap::Args)]
pub struct TimelineArgs {
    /// Report format: md (default), json or html.
    #[arg(long, default_value = "md")]
    format: String,
    /// Where to write it (`-` for standard output; default: target/timeline.EXT).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where the generated crates' rustdoc lives, for the items' links (default: the
    /// workspace's target/doc, relative to the report).
    #[arg(long, value_name = "URL")]
    rustdoc_base: Option<String>,
}

/// Runs the command from the workspace `root`.
pub fn run(args: TimelineArgs, root: &Path) -> Result<ExitCode> {
    let format = OutputFormat::from_name(&args.format)
        .with_context(|| format!("unknown --format `{}` (known: md, json, html)", args.format))?;
    let out = args
        .out
        .unwrap_or_else(|| root.join(format!("target/timeline.{}", format.extension())));
    let dir = root.join("abi");
    if out.as_os_str() != "-" {
        codegen::output::refuse_inputs(&out, std::slice::from_ref(&dir))?;
    }
    let found: Vec<(Release, PathBuf)> = snapshot::list_in(&dir);
    if found.is_empty() {
        bail!(
            "{}: no ABI snapshot (run `cargo xtask abi --release X.Y`)",
            dir.display()
        );
    }
    let abis: Vec<(String, String, Abi)> = found
        .iter()
        .map(|(r, p)| {
            let shown = p.strip_prefix(root).unwrap_or(p).display().to_string();
            Ok((snapshot::short_release(r), shown, snapshot::load(p)?))
        })
        .collect::<Result<_>>()?;
    let snapshots: Vec<Snapshot> = abis
        .iter()
        .map(|(release, file, abi)| Snapshot {
            release: release.clone(),
            file: file.clone(),
            abi,
        })
        .collect();
    let base = args
        .rustdoc_base
        .unwrap_or_else(|| crate::diff_cmd::relative_doc_base(root, &out));
    let crates = crate_links(root, &base);
    let links = |release: &str| {
        let major: u32 = release.split('.').next()?.parse().ok()?;
        crates
            .iter()
            .find(|(m, _)| *m == major)
            .map(|(_, l)| l.clone())
    };
    let t = timeline::build(&snapshots, &links);
    let text = timeline::render::render(&t, format);
    if out.as_os_str() == "-" {
        out!("{text}")?;
        err!("{}", timeline::render::summary(&t));
    } else {
        codegen::output::write_file(&out, text.as_bytes())?;
        out!("{}", timeline::render::summary(&t))?;
        outln!("timeline written to {}", out.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The rustdoc links of each generated runtime crate of the workspace, by CUDA major.
fn crate_links(root: &Path, base: &str) -> Vec<(u32, RustdocLinks)> {
    let docs_src = root.join("docs-src");
    let Ok(crates) = codegen::load::crates(&docs_src) else {
        return Vec::new();
    };
    crates
        .iter()
        .filter(|c| c.library.is_cudart())
        .filter_map(|c| {
            let docs: Vec<PathBuf> = c.docs.iter().map(|d| docs_src.join(d)).collect();
            let major = codegen::load::manifest_release(&docs)?.0.first().copied()?;
            let links = RustdocLinks::read(&root.join(&c.dir), &c.name, base).ok()?;
            Some((major, links))
        })
        .collect()
}
