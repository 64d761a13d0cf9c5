//! `cargo xtask fetch-wheel`: downloads NVIDIA's `nvidia-cuda-runtime` wheel of the CUDA
//! release the docs describe, with the `nvidia-cuda-crt` wheel of the same release (the
//! `crt/host_defines.h` … headers that `cuda_runtime_api.h` includes live there since CUDA
//! 13), and unpacks both into one folder under `target/`, for the tests that need the real C
//! headers and the real `libcudart`.
//!
//! The release is read from `docs-src/manifest.toml` (the newest `release` of its documents),
//! never a constant here. The wheel is fetched with `python3 -m pip download` (override the
//! interpreter with `PYTHON`) and unpacked with Python's `zipfile`; both steps are skipped when
//! their result is already there. This module does not build or test anything.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use codegen::ir::Release;

/// The wheels unpacked together: the runtime (library and API headers) and the C runtime
/// headers it includes.
pub const PACKAGES: [&str; 2] = ["nvidia-cuda-runtime", "nvidia-cuda-crt"];

/// The unpacked wheels: where their headers and the runtime library are.
#[derive(Debug)]
pub struct Wheel {
    /// The folder the wheels were unpacked into (`target/cuda-wheel-13.2`).
    pub root: PathBuf,
    /// The folder holding `cuda_runtime_api.h` (`…/nvidia/cu13/include`).
    pub include: PathBuf,
    /// The runtime library (`…/nvidia/cu13/lib/libcudart.so.13`).
    pub lib: PathBuf,
}

/// The release the default documents of `docs_src/manifest.toml` describe (the newest of
/// those not marked `default = false`): the release the generated crate is for.
pub fn newest_release(docs_src: &Path) -> Result<Release> {
    codegen::load::default_release(docs_src)?.with_context(|| {
        format!(
            "{}: no default document states a release",
            docs_src.join("manifest.toml").display()
        )
    })
}

/// The pip version pattern for a release: `13.2` → `13.2.*`, `13` → `13.*` (wheel versions
/// carry NVIDIA's own patch numbers, `13.2.86`, so only major and minor are kept).
pub fn pip_pattern(release: &Release) -> String {
    let parts: Vec<String> = release.0.iter().take(2).map(u32::to_string).collect();
    format!("{}.*", parts.join("."))
}

/// Downloads (unless a matching wheel is in `target/wheels`) and unpacks (unless already
/// unpacked) the [`PACKAGES`] wheels of `release`.
pub fn fetch(workspace: &Path, release: &Release) -> Result<Wheel> {
    let short = short_release(release);
    let root = workspace.join("target").join(format!("cuda-wheel-{short}"));
    let major = release.0.first().copied().unwrap_or_default();
    if let Ok(wheel) = locate(&root, major) {
        return Ok(wheel);
    }
    let wheels = workspace.join("target").join("wheels");
    let mut files = Vec::new();
    for package in PACKAGES {
        let dist = package.replace('-', "_");
        let file = match find_wheel(&wheels, &dist, &short)? {
            Some(f) => f,
            None => {
                download(&wheels, package, release)?;
                find_wheel(&wheels, &dist, &short)?.with_context(|| {
                    format!(
                        "pip reported success but {} holds no {dist}-{short}.* \
                         manylinux x86_64 wheel",
                        wheels.display()
                    )
                })?
            }
        };
        files.push(file);
    }
    unpack(&files, &root)?;
    locate(&root, major)
}

/// `13.2.1` → `13.2`.
fn short_release(release: &Release) -> String {
    let parts: Vec<String> = release.0.iter().take(2).map(u32::to_string).collect();
    parts.join(".")
}

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string())
}

fn download(dir: &Path, package: &str, release: &Release) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let spec = format!("{package}=={}", pip_pattern(release));
    errln!("fetch-wheel: pip download {spec} → {}", dir.display());
    let status = Command::new(python())
        .args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
        .args(["--platform", "manylinux_2_17_x86_64"])
        .arg("--disable-pip-version-check")
        .arg("-d")
        .arg(dir)
        .arg(&spec)
        .status()
        .with_context(|| {
            format!(
                "running `{} -m pip` (is Python 3 with pip installed?)",
                python()
            )
        })?;
    if !status.success() {
        bail!("`pip download {spec}` failed ({status}); it needs network access to PyPI");
    }
    Ok(())
}

/// The newest `<dist>-<short>.*` manylinux x86_64 wheel in `dir` (`dist` is the package
/// name with underscores, `nvidia_cuda_runtime`), if any.
fn find_wheel(dir: &Path, dist: &str, short: &str) -> Result<Option<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let prefix = format!("{dist}-{short}.");
    let mut found: Vec<(Release, PathBuf)> = Vec::new();
    for entry in entries {
        let path = entry
            .with_context(|| format!("listing {}", dir.display()))?
            .path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !(name.starts_with(&prefix)
            && name.ends_with(".whl")
            && name.contains("manylinux")
            && name.contains("x86_64"))
        {
            continue;
        }
        // nvidia_cuda_runtime-13.2.86-py3-none-….whl: the second dash-separated field.
        if let Some(version) = name.split('-').nth(1).and_then(Release::parse) {
            found.push((version, path));
        }
    }
    found.sort();
    Ok(found.pop().map(|(_, p)| p))
}

/// Unpacks `wheels` into `root` through a temporary sibling folder, so that an interrupted
/// run never leaves a half-filled `root`.
fn unpack(wheels: &[PathBuf], root: &Path) -> Result<()> {
    let tmp = root.with_extension("partial");
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).with_context(|| format!("removing {}", tmp.display()))?;
    }
    if root.exists() {
        std::fs::remove_dir_all(root).with_context(|| format!("removing {}", root.display()))?;
    }
    for wheel in wheels {
        errln!(
            "fetch-wheel: unpacking {} → {}",
            wheel.display(),
            root.display()
        );
        let status = Command::new(python())
            .args(["-m", "zipfile", "-e"])
            .arg(wheel)
            .arg(&tmp)
            .status()
            .with_context(|| format!("running `{} -m zipfile`", python()))?;
        if !status.success() {
            bail!("unpacking {} failed ({status})", wheel.display());
        }
    }
    std::fs::rename(&tmp, root)
        .with_context(|| format!("renaming {} to {}", tmp.display(), root.display()))
}

/// Finds the headers and the library in the unpacked wheels: `nvidia/<any>/include` holding
/// `cuda_runtime_api.h` and `crt/host_defines.h`, and `nvidia/<any>/lib/libcudart.so.<major>`.
fn locate(root: &Path, major: u32) -> Result<Wheel> {
    let nvidia = root.join("nvidia");
    let mut subdirs: Vec<PathBuf> = std::fs::read_dir(&nvidia)
        .with_context(|| format!("listing {}", nvidia.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort();
    let lib_name = format!("libcudart.so.{major}");
    for sub in &subdirs {
        let include = sub.join("include");
        let lib = sub.join("lib").join(&lib_name);
        if include.join("cuda_runtime_api.h").is_file()
            && include.join("crt/host_defines.h").is_file()
            && lib.is_file()
        {
            return Ok(Wheel {
                root: root.to_path_buf(),
                include,
                lib,
            });
        }
    }
    let names: Vec<String> = subdirs.iter().map(|p| p.display().to_string()).collect();
    bail!(
        "{}: no nvidia/*/include/ with cuda_runtime_api.h and crt/host_defines.h beside \
         nvidia/*/lib/{lib_name} (found: {})",
        root.display(),
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pip_pattern_keeps_major_and_minor() {
        let r = |s| Release::parse(s).unwrap();
        assert_eq!(pip_pattern(&r("13.2")), "13.2.*");
        assert_eq!(pip_pattern(&r("13.2.1")), "13.2.*");
        assert_eq!(pip_pattern(&r("13")), "13.*");
    }

    #[test]
    fn newest_release_of_the_docs_is_the_maximum_of_the_manifest() {
        let dir = std::env::temp_dir().join(format!("xtask-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("manifest.toml"),
            "[[document]]\nfile = \"a\"\nrelease = \"12.9\"\n\
             [[document]]\nfile = \"b\"\nrelease = \"13.10\"\n\
             [[document]]\nfile = \"c\"\nrelease = \"13.2\"\n\
             [[document]]\nfile = \"d\"\n\
             [[document]]\nfile = \"e\"\nrelease = \"14.0\"\ndefault = false\n",
        )
        .unwrap();
        let newest = newest_release(&dir).map(|r| r.to_string());
        std::fs::remove_dir_all(&dir).ok();
        // `e` is read only on request: it does not choose the wheel.
        assert_eq!(newest.unwrap(), "13.10");
    }

    #[test]
    fn the_workspace_docs_name_a_release() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs-src");
        let release = newest_release(&docs).unwrap();
        assert!(release.0.len() >= 2, "{release}");
    }

    #[test]
    fn find_wheel_picks_the_newest_matching_manylinux_x86_64_wheel() {
        let dir = std::env::temp_dir().join(format!("xtask-wheels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "nvidia_cuda_runtime-13.2.51-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
            "nvidia_cuda_runtime-13.2.86-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
            "nvidia_cuda_runtime-13.2.86-py3-none-manylinux2014_aarch64.whl",
            "nvidia_cuda_runtime-13.1.80-py3-none-manylinux2014_x86_64.whl",
            "nvidia_cuda_crt-13.2.99-py3-none-manylinux2014_x86_64.whl",
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let found = find_wheel(&dir, "nvidia_cuda_runtime", "13.2").unwrap();
        std::fs::remove_dir_all(&dir).ok();
        let name = found
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(name.starts_with("nvidia_cuda_runtime-13.2.86-") && name.contains("x86_64"));
    }
}
