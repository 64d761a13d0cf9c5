//! Finds the libclang that `cargo xtask abi` loads, installing it when there is none: PyPI's
//! `libclang` wheel (a self-contained `libclang.so` needing only the C library), unpacked into
//! `target/libclang/`. Nothing is installed system-wide and no root is needed.
//!
//! Order: `LIBCLANG_PATH` (a file, or a folder holding `libclang.so*`), then
//! `target/libclang/libclang.so`, then the download. The version is pinned so that snapshots
//! made on any machine are the same ([`VERSION`]).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::wheel;

/// The libclang wheel version installed (its clang version; recorded in each snapshot's
/// origin).
pub const VERSION: &str = "18.1.1";

/// `target/libclang/` of the workspace.
pub fn install_dir(workspace: &Path) -> PathBuf {
    workspace.join("target").join("libclang")
}

/// The libclang to use, if one is there: `LIBCLANG_PATH`, else `target/libclang/libclang.so`.
pub fn find(workspace: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LIBCLANG_PATH").map(PathBuf::from) {
        if p.is_file() {
            return Some(p);
        }
        if let Some(f) = in_folder(&p) {
            return Some(f);
        }
    }
    let installed = install_dir(workspace).join("libclang.so");
    installed.is_file().then_some(installed)
}

/// The first `libclang.so*` file in `dir` (sorted by name), if any.
fn in_folder(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libclang.so") || n.starts_with("libclang-"))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// [`find`], else downloads `libclang==VERSION` from PyPI into `target/wheels/` and unpacks its
/// `libclang.so` into `target/libclang/`.
pub fn ensure(workspace: &Path) -> Result<PathBuf> {
    if let Some(p) = find(workspace) {
        return Ok(p);
    }
    let wheels = workspace.join("target").join("wheels");
    let wheel_file = |dir: &Path| -> Option<PathBuf> {
        let prefix = format!("libclang-{VERSION}-");
        std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| {
                p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                    n.starts_with(&prefix) && n.ends_with(".whl") && n.contains("x86_64")
                })
            })
    };
    let file = match wheel_file(&wheels) {
        Some(f) => f,
        None => {
            let spec = format!("libclang=={VERSION}");
            if !wheel::pip_download(&wheels, &spec)? {
                bail!("PyPI has no {spec} wheel for manylinux x86_64; set LIBCLANG_PATH to a libclang.so instead");
            }
            wheel_file(&wheels).with_context(|| {
                format!(
                    "pip reported success but {} holds no libclang-{VERSION} wheel",
                    wheels.display()
                )
            })?
        }
    };
    let dir = install_dir(workspace);
    let tmp = dir.join("unpack.partial");
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).with_context(|| format!("removing {}", tmp.display()))?;
    }
    wheel::unzip(&file, &tmp, Some("*/clang/native/libclang.so"))?;
    let found = find_file(&tmp, "libclang.so")
        .with_context(|| format!("{} holds no clang/native/libclang.so", file.display()))?;
    let target = dir.join("libclang.so");
    std::fs::rename(&found, &target)
        .with_context(|| format!("moving {} to {}", found.display(), target.display()))?;
    std::fs::remove_dir_all(&tmp).ok();
    errln!("libclang: installed {}", target.display());
    Ok(target)
}

/// The first file named `name` under `dir`, depth first.
fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            if let Some(f) = find_file(&p, name) {
                return Some(f);
            }
        } else if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_yields_its_libclang() {
        let dir = std::env::temp_dir().join(format!("xtask-libclang-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("deep/clang/native")).unwrap();
        std::fs::write(dir.join("libclang.so.18"), "").unwrap();
        std::fs::write(dir.join("deep/clang/native/libclang.so"), "").unwrap();
        std::fs::write(dir.join("other.so"), "").unwrap();
        let found = in_folder(&dir);
        let deep = find_file(&dir.join("deep"), "libclang.so");
        std::fs::remove_dir_all(&dir).ok();
        assert!(found.unwrap().ends_with("libclang.so.18"));
        assert!(deep.unwrap().ends_with("deep/clang/native/libclang.so"));
    }
}
