//! The regeneration check of `cargo xtask test`: releases whose pages are in `docs-src/` are
//! each written, with no code change, into a crate of their own (what `cargo xtask codegen
//! --docs PAGE --release X --out DIR` does), and each crate is built and audited against its
//! release's own headers and library ([`crate::audit_cmd`]).
//!
//! Besides the audit, every function the page documents and the release's library exports must
//! be bound; an exception is printed with the generator's reason and fails the check unless
//! the reason is one of [`ACCEPTED`] (reviewed: the function has no symbol of its own).

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{bail, Context, Result};
use codegen::ir::Release;
use codegen::pipeline::Options;

use crate::{abi_cmd, audit_cmd};

/// The documents regenerated, and the release each states: NVIDIA's `cuda.bindings.runtime`
/// page of the seed and of the corpus releases (HTML where the published page is kept).
pub const RELEASES: &[(&str, &str)] = &[
    (
        "13.2",
        "nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt",
    ),
    ("12.8", "nvidia-cuda-bindings-12.8.0/runtime.html"),
    ("13.1", "nvidia-cuda-bindings-13.1.1/runtime.html"),
    ("13.4", "nvidia-cuda-bindings-13.4.4/runtime.html"),
];

/// Reasons for a documented, exported function to stay unbound that the check accepts: none
/// yet. (A documented function the library exports is always declared by its headers.)
pub const ACCEPTED: &[&str] = &[];

/// Regenerates and audits every release of [`RELEASES`] under `target/regenerated/`.
pub fn check(root: &Path) -> Result<()> {
    for (release, page) in RELEASES {
        let release = Release::parse(release).context("a release")?;
        let page = root.join("docs-src").join(page);
        let dir = root
            .join("target/regenerated")
            .join(codegen::abi::snapshot::short_release(&release));
        abi_cmd::ensure_snapshot(root, &release)?;
        let mut opts = Options::standalone(vec![page.clone()], dir.clone());
        opts.release = Some(release.clone());
        opts.abi_root = root.to_path_buf();
        // The folder under `target/` is this check's own (older runs wrote it without a
        // manifest).
        opts.adopt = true;
        let report = codegen::pipeline::run(&opts)
            .with_context(|| format!("regenerating CUDA {release} from {}", page.display()))?;
        errln!(
            "  CUDA {release}: {} functions bound ({} documented), {} typed, into {}",
            report.bindings.functions.len(),
            report
                .bindings
                .functions
                .iter()
                .filter(|f| f.documented)
                .count(),
            report.bindings.functions.len() - report.bindings.untyped().len(),
            dir.display()
        );
        let w = audit_cmd::release_wheel(root, &release)?;
        let exports = codegen::coverage::read_exports(&w.lib)?;
        let bound: BTreeSet<&str> = report
            .bindings
            .functions
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        let mut unexplained = Vec::new();
        for f in &report.api.functions {
            let exported = report
                .bindings
                .functions
                .iter()
                .find(|b| b.name == f.name)
                .map_or(f.name.as_str(), |b| b.symbol.as_str());
            if bound.contains(f.name.as_str()) || !exports.functions.contains(exported) {
                continue;
            }
            let reason = report
                .bindings
                .unbound
                .iter()
                .find(|u| u.name == f.name)
                .map_or("not listed", |u| u.reason.as_str());
            errln!(
                "    documented and exported, not bound: {}: {reason}",
                f.name
            );
            if !ACCEPTED.iter().any(|a| reason.contains(a)) {
                unexplained.push(f.name.clone());
            }
        }
        if !unexplained.is_empty() {
            bail!(
                "CUDA {release}: {} documented function(s) the library exports are not bound: {}",
                unexplained.len(),
                unexplained.join(", ")
            );
        }
        audit_cmd::audit(root, &dir)?;
    }
    Ok(())
}
