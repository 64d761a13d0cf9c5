//! Finds cudarc's bindgen module for the CUDA Runtime (`src/runtime/sys/mod.rs`) through
//! `cargo metadata` of the workspace, where Cargo.lock pins cudarc's version.
//!
//! cudarc is an optional dependency of `xtask`, so metadata is asked with all features on.
//! Nothing here reads or parses the file; see [`super::read`].

use std::path::{Path, PathBuf};

use cargo_metadata::{CargoOpt, MetadataCommand};

/// Where the ABI source is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbiSource {
    /// `<cudarc>/src/runtime/sys/mod.rs`.
    pub path: PathBuf,
    /// The cudarc version Cargo.lock pins.
    pub cudarc_version: String,
}

/// Why the ABI source could not be found or read.
#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    /// `cargo metadata` did not run or did not answer.
    #[error(
        "`cargo metadata --all-features --manifest-path {manifest}` failed: {source}; run it by \
         hand to see why (cargo must be on PATH, and cudarc must be downloadable or already in \
         the registry cache: `cargo fetch`)"
    )]
    Metadata {
        manifest: PathBuf,
        #[source]
        source: cargo_metadata::Error,
    },
    /// The workspace does not depend on cudarc.
    #[error(
        "package `cudarc` is not in the dependency graph of {manifest}; add it to \
         xtask/Cargo.toml as an optional dependency (`cudarc = {{ version = \"=0.19.10\", \
         optional = true, default-features = false, features = [\"runtime\"] }}`) so that \
         Cargo.lock pins it"
    )]
    CudarcMissing { manifest: PathBuf },
    /// cudarc is there but has no runtime bindings file where expected.
    #[error(
        "cudarc {version} has no {path}; its layout changed: pin a cudarc version that has \
         `src/runtime/sys/mod.rs` in xtask/Cargo.toml"
    )]
    FileMissing { version: String, path: PathBuf },
    /// The file exists but could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The workspace's `Cargo.toml` (the parent of this crate's folder).
pub fn workspace_manifest() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir.parent().unwrap_or(crate_dir).join("Cargo.toml")
}

/// Runs `cargo metadata` on `manifest` (all features on) and returns where cudarc's runtime
/// bindings are.
pub fn locate_cudarc_runtime(manifest: &Path) -> Result<AbiSource, LocateError> {
    let metadata = MetadataCommand::new()
        .manifest_path(manifest)
        .features(CargoOpt::AllFeatures)
        .exec()
        .map_err(|source| LocateError::Metadata {
            manifest: manifest.to_path_buf(),
            source,
        })?;
    let package = metadata
        .packages
        .iter()
        .find(|p| p.name == "cudarc")
        .ok_or_else(|| LocateError::CudarcMissing {
            manifest: manifest.to_path_buf(),
        })?;
    let dir = package
        .manifest_path
        .parent()
        .map(|d| d.as_std_path().to_path_buf())
        .unwrap_or_default();
    let path = dir.join("src").join("runtime").join("sys").join("mod.rs");
    if !path.is_file() {
        return Err(LocateError::FileMissing {
            version: package.version.to_string(),
            path,
        });
    }
    Ok(AbiSource {
        path,
        cudarc_version: package.version.to_string(),
    })
}
