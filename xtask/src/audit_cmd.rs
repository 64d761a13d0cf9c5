//! `cargo xtask audit DIR`: audits a generated crate (one of the workspace's, or one written by
//! `cargo xtask codegen --out DIR`) against its own CUDA release: fetches that release's
//! wheels at the versions its ABI snapshot names, and runs the crate's `tests/audit.rs` (the
//! C++ layout probe against the headers, every bound symbol in the library, error names) with
//! `<CRATE>_AUDIT_INCLUDE`, `<CRATE>_AUDIT_LIB` and `CUDART_AUDIT_REQUIRED=1`.
//!
//! The release comes from the crate's `[package.metadata.cudart] release`. Each crate folder
//! builds in a folder of its own under `target/audit-crates/` (crates of one name in two
//! folders — `cudart13` for 13.2 and for 13.4 — would otherwise share one test binary, and
//! cargo, comparing file times, could run the other release's); a crate outside the
//! workspace with no `Cargo.lock` gets a copy of the workspace's, so it builds with the
//! versions the workspace tested and without asking the registry again (a member builds with
//! the workspace's own).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};
use codegen::ir::Release;
use codegen::library::Library;

use crate::wheel;

/// Arguments of `cargo xtask audit`.
#[derive(clap::Args)]
pub struct AuditArgs {
    /// The crate folder (holding its Cargo.toml).
    pub dir: PathBuf,
}

/// What the audit of one crate needs to know about it.
#[derive(Debug)]
pub struct CrateUnderAudit {
    pub name: String,
    pub release: Release,
    /// The library it binds (`[package.metadata.cudart] library`; absent: the runtime).
    pub library: Library,
    pub dir: PathBuf,
}

/// Reads the name and release of the crate in `dir`.
pub fn read_crate(dir: &Path) -> Result<CrateUnderAudit> {
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let value: toml::Value =
        toml::from_str(&text).with_context(|| format!("{} is not TOML", manifest.display()))?;
    let package = value
        .get("package")
        .with_context(|| format!("{} has no [package]", manifest.display()))?;
    let name = package
        .get("name")
        .and_then(toml::Value::as_str)
        .with_context(|| format!("{} has no package name", manifest.display()))?;
    let release = package
        .get("metadata")
        .and_then(|m| m.get("cudart"))
        .and_then(|c| c.get("release"))
        .and_then(toml::Value::as_str)
        .with_context(|| {
            format!(
                "{} has no [package.metadata.cudart] release: is it a crate `cargo xtask \
                 codegen` wrote?",
                manifest.display()
            )
        })?;
    let release = Release::parse(release)
        .with_context(|| format!("{}: `{release}` is not a release", manifest.display()))?;
    let library = match package
        .get("metadata")
        .and_then(|m| m.get("cudart"))
        .and_then(|c| c.get("library"))
    {
        None => Library::Cudart,
        Some(v) => v.as_str().and_then(Library::from_name).with_context(|| {
            format!(
                "{}: [package.metadata.cudart] library is `{v}`, not one of {}",
                manifest.display(),
                Library::known_names()
            )
        })?,
    };
    Ok(CrateUnderAudit {
        name: name.to_string(),
        release,
        library,
        dir: dir.to_path_buf(),
    })
}

/// The wheels of `release` at the package versions its committed ABI snapshot names (so an
/// audit reads the very headers the snapshot was made from), fetched unless already there.
pub fn release_wheel(root: &Path, release: &Release) -> Result<wheel::Wheel> {
    library_wheel(root, Library::Cudart, release)
}

/// [`release_wheel`] for the wheels of `library` (its snapshot under `abi/<library>/`).
pub fn library_wheel(root: &Path, library: Library, release: &Release) -> Result<wheel::Wheel> {
    let path = codegen::abi::snapshot::find_library(root, library, release);
    let snapshot = codegen::abi::snapshot::load(&path)?;
    let pins: Vec<(String, String)> = snapshot.packages.into_iter().collect();
    wheel::fetch_library(root, library, release, &pins)
}

/// The audit variables of crate `c`: its include folders and library, from the wheels of its
/// release ([`release_wheel`]).
pub fn audit_env(root: &Path, c: &CrateUnderAudit) -> Result<Vec<(String, String)>> {
    let w = library_wheel(root, c.library, &c.release)?;
    let includes = std::env::join_paths(&w.include_dirs)?
        .to_string_lossy()
        .into_owned();
    let stem = c.name.to_ascii_uppercase().replace('-', "_");
    Ok(vec![
        (format!("{stem}_AUDIT_INCLUDE"), includes),
        (format!("{stem}_AUDIT_LIB"), w.lib.display().to_string()),
        ("CUDART_AUDIT_REQUIRED".to_string(), "1".to_string()),
    ])
}

/// Builds the crate in `dir` and runs its audit test.
pub fn audit(root: &Path, dir: &Path) -> Result<()> {
    let c = read_crate(dir)?;
    let env = audit_env(root, &c)?;
    let lock = c.dir.join("Cargo.lock");
    if !is_member(root, &c.dir) && !lock.exists() {
        std::fs::copy(root.join("Cargo.lock"), &lock)
            .with_context(|| format!("copying the workspace's Cargo.lock to {}", lock.display()))?;
    }
    let manifest = c.dir.join("Cargo.toml");
    errln!(
        "audit: {} (CUDA {}) in {}",
        c.name,
        c.release,
        c.dir.display()
    );
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    // A crate of its own names the published `cuda-loader`; this workspace's copy stands in
    // for it (the release it was generated with, and one not on the registry yet).
    let loader = root.join("runtime/cuda-loader");
    let patch = format!(
        "patch.crates-io.cuda-loader.path={:?}",
        loader.display().to_string()
    );
    let status = Command::new(cargo)
        .args(["--config", patch.as_str()])
        .arg("test")
        .arg("--manifest-path")
        .arg(&manifest)
        .args(["--test", "audit", "--", "--test-threads=1"])
        .env("CARGO_TARGET_DIR", build_dir(root, &c.dir))
        .envs(env)
        .status()
        .context("running cargo")?;
    if !status.success() {
        bail!(
            "the audit of {} (CUDA {}) failed ({status})",
            c.name,
            c.release
        );
    }
    Ok(())
}

/// Whether `dir` is a member of the workspace at `root` (which then builds it with the
/// workspace's `Cargo.lock`).
fn is_member(root: &Path, dir: &Path) -> bool {
    let (Ok(root), Ok(dir)) = (root.canonicalize(), dir.canonicalize()) else {
        return false;
    };
    let Ok(rel) = dir.strip_prefix(&root) else {
        return false;
    };
    let Ok(text) = std::fs::read_to_string(root.join("Cargo.toml")) else {
        return false;
    };
    let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
        return false;
    };
    doc.get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .is_some_and(|members| {
            members
                .iter()
                .any(|m| m.as_str().is_some_and(|m| Path::new(m) == rel))
        })
}

/// Runs the command.
pub fn run(args: AuditArgs, root: &Path) -> Result<ExitCode> {
    audit(root, &args.dir)?;
    Ok(ExitCode::SUCCESS)
}

/// The build folder of the crate in `dir`: `target/audit-crates/<dir, as a file name>`.
fn build_dir(root: &Path, dir: &Path) -> PathBuf {
    let full = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let name: String = full
        .to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    root.join("target/audit-crates")
        .join(name.trim_start_matches('_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspaces_crates_are_members_and_a_crate_elsewhere_is_not() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        assert!(is_member(&root, &root.join("runtime/cudart13")));
        assert!(is_member(&root, &root.join("runtime/nvrtc13")));
        // Inside the workspace's folder but not a member, and outside it.
        assert!(!is_member(&root, &root.join("docs-src")));
        assert!(!is_member(&root, &std::env::temp_dir()));
    }
}
