//! NVIDIA's wheels of one CUDA release, unpacked together under `target/cuda-wheel-<X.Y>/`:
//! the runtime (library and API headers), the `crt/` headers `cuda_runtime_api.h` includes,
//! and the profiler API header — what `cargo xtask abi` reads and what the tests that need the
//! real headers and `libcudart` use (`cargo xtask fetch-wheel`, `cargo xtask test`).
//!
//! The package set is chosen by looking, never by release number: the runtime wheel of the
//! major (`nvidia-cuda-runtime` from 13 on, `nvidia-cuda-runtime-cu12` before: PyPI's
//! `-cu<major>` suffix for majors below 13) is unpacked first; when it holds no
//! `crt/host_defines.h`, the `nvidia-cuda-crt[-cuNN]` wheel of the release is added, or, when
//! PyPI has none, only the `crt/` folder of the major's `nvidia-cuda-nvcc[-cuNN]` wheel; when
//! no `cuda_profiler_api.h` is there, the `nvidia-cuda-profiler-api[-cuNN]` wheel is added.
//! What was used is recorded in `packages.json` beside the headers.
//!
//! Wheels are fetched with `python3 -m pip download` (override the interpreter with `PYTHON`)
//! into `target/wheels/` and unpacked with Python's `zipfile`; a wheel already there is not
//! fetched again, and an unpacked set whose `packages.json` matches is reused as it is. This
//! module does not build or test anything.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use codegen::ir::Release;
use codegen::library::Library;
use serde::{Deserialize, Serialize};

/// The manifest of an unpacked set.
const MANIFEST: &str = "packages.json";

/// One wheel of an unpacked set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    /// PyPI name (`nvidia-cuda-runtime-cu12`).
    pub name: String,
    /// Exact version (`12.8.90`).
    pub version: String,
    /// The wheel's file name.
    pub wheel: String,
    /// Only this part was unpacked (`nvidia/*/include/crt/*` of an nvcc wheel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<String>,
}

/// The unpacked wheels of one release: where their headers and the runtime library are.
#[derive(Debug)]
pub struct Wheel {
    /// The folder the wheels were unpacked into (`target/cuda-wheel-13.2`).
    pub root: PathBuf,
    /// The folder holding `cuda_runtime_api.h` (`…/nvidia/cu13/include`).
    pub include: PathBuf,
    /// Every `nvidia/*/include` folder, sorted: the `-I` folders for the headers.
    pub include_dirs: Vec<PathBuf>,
    /// The runtime library (`…/nvidia/cu13/lib/libcudart.so.13`).
    pub lib: PathBuf,
    /// The wheels unpacked, runtime first.
    pub packages: Vec<Package>,
}

impl Wheel {
    /// What `cargo xtask fetch-wheel` prints: the folder, each package, the include folder
    /// once, the other include folders, the library.
    pub fn describe(&self, release: &Release) -> Vec<String> {
        let mut lines = vec![format!("CUDA {release} wheels in {}", self.root.display())];
        lines.extend(
            self.packages
                .iter()
                .map(|p| format!("package: {} {}", p.name, p.version)),
        );
        lines.push(format!("include: {}", self.include.display()));
        lines.extend(
            self.include_dirs
                .iter()
                .filter(|d| **d != self.include)
                .map(|d| format!("include dir: {}", d.display())),
        );
        lines.push(format!("library: {}", self.lib.display()));
        lines
    }

    /// `(name, version)` of each wheel, for `codegen::abi::headers::HeaderSpec`.
    pub fn versions(&self) -> Vec<(String, String)> {
        self.packages
            .iter()
            .map(|p| (p.name.clone(), p.version.clone()))
            .collect()
    }
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

/// The release of the workspace's generated crate of `library` for the newest major (the
/// `[[crate]]` entries of `docs_src/manifest.toml`: the newest release any such crate's
/// documents state), e.g. 13.5 for `cudart13`: the wheels a user of the crate wants.
pub fn crate_release(docs_src: &Path, library: codegen::library::Library) -> Result<Release> {
    let crates = codegen::load::crates(docs_src)?;
    crates
        .iter()
        .filter(|c| c.library == library)
        .filter_map(|c| {
            let docs: Vec<std::path::PathBuf> = c.docs.iter().map(|d| docs_src.join(d)).collect();
            codegen::load::manifest_release(&docs)
        })
        .max()
        .with_context(|| {
            format!(
                "{}: no [[crate]] of library {} whose documents state a release",
                docs_src.join("manifest.toml").display(),
                library.name()
            )
        })
}

/// The pip version pattern for a release: `13.2` → `13.2.*`, `13` → `13.*` (wheel versions
/// carry NVIDIA's own patch numbers, `13.2.86`, so only major and minor are kept).
pub fn pip_pattern(release: &Release) -> String {
    format!("{}.*", short_release(release))
}

/// `13.2.1` → `13.2`.
pub fn short_release(release: &Release) -> String {
    codegen::abi::snapshot::short_release(release)
}

/// The PyPI name of an NVIDIA CUDA package for a major release: `nvidia-cuda-runtime` from 13
/// on, `nvidia-cuda-runtime-cu12` for 12 (PyPI's convention for majors before 13).
pub fn package_name(base: &str, major: u32) -> String {
    if major < 13 {
        format!("{base}-cu{major}")
    } else {
        base.to_string()
    }
}

/// The folder the wheels of `release` are unpacked into.
pub fn unpack_root(workspace: &Path, release: &Release) -> PathBuf {
    workspace
        .join("target")
        .join(format!("cuda-wheel-{}", short_release(release)))
}

/// The unpacked wheels of `library`'s `release` as they are now, without fetching anything
/// (the snapshot freshness test).
#[cfg_attr(not(test), allow(dead_code))]
pub fn open_library(workspace: &Path, library: Library, release: &Release) -> Result<Wheel> {
    let root = library_unpack_root(workspace, library, release);
    let packages = read_manifest(&root).with_context(|| {
        format!(
            "the CUDA {release} wheels of {library} are not unpacked in {} (run `cargo xtask \
             abi --library {library} --release {release}`)",
            root.display()
        )
    })?;
    match library {
        Library::Cudart => locate(&root, major_of(release), packages),
        other => locate_single(&root, other, major_of(release), packages),
    }
}

/// The wheels of `release` (`==X.Y.*`, the newest), downloaded and unpacked unless already
/// there; each package named in `pins` (`(name, version)`, e.g. from a snapshot's
/// `packages`) is taken at exactly that version, and a pinned crt source is used as it is.
pub fn fetch_pinned(
    workspace: &Path,
    release: &Release,
    pins: &[(String, String)],
) -> Result<Wheel> {
    fetch_library(workspace, Library::Cudart, release, pins)
}

/// The folder the wheels of `library`'s `release` are unpacked into: [`unpack_root`] for the
/// runtime, `target/<library>-wheel-<X.Y>` for another (`target/nvrtc-wheel-13.2`).
pub fn library_unpack_root(workspace: &Path, library: Library, release: &Release) -> PathBuf {
    match library {
        Library::Cudart => unpack_root(workspace, release),
        other => workspace
            .join("target")
            .join(format!("{other}-wheel-{}", short_release(release))),
    }
}

/// [`fetch_pinned`] for the wheels of `library`: the runtime's set, or for NVRTC its one
/// wheel (`nvidia-cuda-nvrtc[-cuNN]`, holding `nvrtc.h` and `libnvrtc.so.<major>`).
pub fn fetch_library(
    workspace: &Path,
    library: Library,
    release: &Release,
    pins: &[(String, String)],
) -> Result<Wheel> {
    let root = library_unpack_root(workspace, library, release);
    let locate = |root: &Path, packages| match library {
        Library::Cudart => locate(root, major_of(release), packages),
        other => locate_single(root, other, major_of(release), packages),
    };
    if let Ok(packages) = read_manifest(&root) {
        let pinned_match = pins
            .iter()
            .all(|(n, v)| packages.iter().any(|p| &p.name == n && &p.version == v))
            && (pins.is_empty() || packages.len() == pins.len());
        if pinned_match {
            if let Ok(w) = locate(&root, packages) {
                return Ok(w);
            }
        }
    }
    let mut source = Pip {
        wheels: workspace.join("target").join("wheels"),
    };
    let mut tmp = root.clone().into_os_string();
    tmp.push(".partial");
    let tmp = PathBuf::from(tmp);
    for dir in [&tmp, &root] {
        if dir.exists() {
            std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
        }
    }
    let packages = match library {
        Library::Cudart => assemble(&mut source, &tmp, release, pins)?,
        other => assemble_single(&mut source, &tmp, other, release, pins)?,
    };
    let manifest = serde_json::to_string_pretty(&packages)? + "\n";
    std::fs::write(tmp.join(MANIFEST), manifest)
        .with_context(|| format!("writing {}", tmp.join(MANIFEST).display()))?;
    std::fs::rename(&tmp, &root)
        .with_context(|| format!("renaming {} to {}", tmp.display(), root.display()))?;
    locate(&root, packages)
}

/// The one wheel of a library other than the runtime (its header and library together),
/// unpacked into `dest`.
fn assemble_single(
    source: &mut dyn Source,
    dest: &Path,
    library: Library,
    release: &Release,
    pins: &[(String, String)],
) -> Result<Vec<Package>> {
    let name = package_name(library.wheel_package(), major_of(release));
    let version = pins
        .iter()
        .find(|(n, _)| *n == name)
        .map_or_else(|| pip_pattern(release), |(_, v)| v.clone());
    let Some(file) = source.wheel(&name, &version)? else {
        bail!(
            "PyPI has no {name}=={version} wheel: {} of CUDA {release} is not published there \
             (or the name changed); check `pip index versions {name}`",
            library.file_stem()
        );
    };
    source.unpack(&file, dest, None)?;
    Ok(vec![Package {
        name,
        version: wheel_version(&file).unwrap_or_default(),
        wheel: file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        only: None,
    }])
}

/// Finds the API header and the library of a library other than the runtime in its unpacked
/// wheel: the `nvidia/*/include` holding its first API header (`nvrtc.h`) and
/// `nvidia/*/lib/<stem>.so.<major>` beside it.
fn locate_single(
    root: &Path,
    library: Library,
    major: u32,
    packages: Vec<Package>,
) -> Result<Wheel> {
    let header = library.api_headers().first().copied().unwrap_or_default();
    let include_dirs = include_dirs(root);
    let include = include_dirs
        .iter()
        .find(|d| d.join(header).is_file())
        .cloned();
    let lib_name = format!("{}.so.{major}", library.file_stem());
    let lib = include
        .as_ref()
        .and_then(|d| d.parent())
        .map(|p| p.join("lib").join(&lib_name))
        .filter(|l| l.is_file());
    match (include, lib) {
        (Some(include), Some(lib)) => Ok(Wheel {
            root: root.to_path_buf(),
            include,
            include_dirs,
            lib,
            packages,
        }),
        _ => bail!(
            "{}: no nvidia/*/include/{header} beside nvidia/*/lib/{lib_name} (found: {})",
            root.display(),
            packages_names(root)
        ),
    }
}

fn major_of(release: &Release) -> u32 {
    release.0.first().copied().unwrap_or_default()
}

/// Where wheels come from (PyPI through pip; a fake in the tests).
trait Source {
    /// The wheel file of `package` at `version` (exact, or a `X.Y.*` pattern), fetching it if
    /// needed; `None` when no such release of the package is published.
    fn wheel(&mut self, package: &str, version: &str) -> Result<Option<PathBuf>>;
    /// Unpacks `wheel` into `dest`; only the members matching `only` when given.
    fn unpack(&mut self, wheel: &Path, dest: &Path, only: Option<&str>) -> Result<()>;
}

/// The part of an nvcc wheel kept: its `crt/` headers.
const NVCC_CRT_ONLY: &str = "nvidia/*/include/crt/*";

/// Unpacks the package set of `release` into `dest`, choosing by what is there (see the
/// module documentation); returns what was unpacked.
fn assemble(
    source: &mut dyn Source,
    dest: &Path,
    release: &Release,
    pins: &[(String, String)],
) -> Result<Vec<Package>> {
    let major = major_of(release);
    let pattern = pip_pattern(release);
    let version_of = |name: &str| {
        pins.iter()
            .find(|(n, _)| n == name)
            .map_or(pattern.clone(), |(_, v)| v.clone())
    };
    let mut packages = Vec::new();
    let mut add = |source: &mut dyn Source, name: &str, only: Option<&str>| -> Result<bool> {
        let Some(file) = source.wheel(name, &version_of(name))? else {
            return Ok(false);
        };
        source.unpack(&file, dest, only)?;
        packages.push(Package {
            name: name.to_string(),
            version: wheel_version(&file).unwrap_or_default(),
            wheel: file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            only: only.map(str::to_string),
        });
        Ok(true)
    };

    let runtime = package_name("nvidia-cuda-runtime", major);
    if !add(source, &runtime, None)? {
        bail!(
            "PyPI has no {runtime}=={} wheel: CUDA {release} is not published there (or the name \
             changed); check `pip index versions {runtime}`",
            version_of(&runtime)
        );
    }
    if !has_header(dest, "crt/host_defines.h") {
        let crt = package_name("nvidia-cuda-crt", major);
        let nvcc = package_name("nvidia-cuda-nvcc", major);
        let pinned_nvcc = pins.iter().any(|(n, _)| *n == nvcc);
        let from_crt = !pinned_nvcc && add(source, &crt, None)?;
        if !from_crt && !add(source, &nvcc, Some(NVCC_CRT_ONLY))? {
            bail!(
                "the {runtime} wheel has no crt/host_defines.h, and PyPI has neither {crt} nor \
                 {nvcc} for {pattern}: the CUDA {release} headers cannot be completed"
            );
        }
        if !has_header(dest, "crt/host_defines.h") {
            bail!(
                "after adding {}, {} still holds no nvidia/*/include/crt/host_defines.h",
                packages_names(dest),
                dest.display()
            );
        }
    }
    if !has_header(dest, "cuda_profiler_api.h") {
        let profiler = package_name("nvidia-cuda-profiler-api", major);
        if !add(source, &profiler, None)? {
            bail!(
                "the {runtime} wheel has no cuda_profiler_api.h and PyPI has no {profiler}=={}",
                version_of(&profiler)
            );
        }
    }
    Ok(packages)
}

fn packages_names(dest: &Path) -> String {
    include_dirs(dest)
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every `nvidia/*/include` folder under `root`, sorted.
fn include_dirs(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root.join("nvidia")) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path().join("include")))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Whether some `nvidia/*/include` under `root` holds `header`.
fn has_header(root: &Path, header: &str) -> bool {
    include_dirs(root).iter().any(|d| d.join(header).is_file())
}

/// The version in a wheel's file name (`nvidia_cuda_runtime-13.2.86-py3-…` → `13.2.86`).
fn wheel_version(file: &Path) -> Option<String> {
    let name = file.file_name()?.to_str()?;
    name.split('-').nth(1).map(str::to_string)
}

fn read_manifest(root: &Path) -> Result<Vec<Package>> {
    let path = root.join(MANIFEST);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a package list", path.display()))
}

/// Finds the headers and the library in the unpacked wheels: the `nvidia/*/include` holding
/// `cuda_runtime_api.h`, and `nvidia/*/lib/libcudart.so.<major>`.
fn locate(root: &Path, major: u32, packages: Vec<Package>) -> Result<Wheel> {
    let include_dirs = include_dirs(root);
    let include = include_dirs
        .iter()
        .find(|d| d.join("cuda_runtime_api.h").is_file())
        .cloned();
    let lib_name = format!("libcudart.so.{major}");
    let lib = include_dirs
        .iter()
        .filter_map(|d| d.parent().map(|p| p.join("lib").join(&lib_name)))
        .find(|l| l.is_file());
    match (include, lib) {
        (Some(include), Some(lib)) if has_header(root, "crt/host_defines.h") => Ok(Wheel {
            root: root.to_path_buf(),
            include,
            include_dirs,
            lib,
            packages,
        }),
        _ => bail!(
            "{}: no nvidia/*/include/ with cuda_runtime_api.h and crt/host_defines.h beside \
             nvidia/*/lib/{lib_name} (found: {})",
            root.display(),
            packages_names(root)
        ),
    }
}

/// PyPI through `pip download`, with `target/wheels/` as the cache.
struct Pip {
    wheels: PathBuf,
}

/// pip's platform tags for Linux x86_64 wheels whatever the host: with `--platform`, pip
/// accepts only the tags listed, and NVIDIA's wheels and libclang's use all four.
const PLATFORMS: [&str; 4] = [
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
    "manylinux_2_12_x86_64",
    "manylinux2010_x86_64",
];

impl Source for Pip {
    fn wheel(&mut self, package: &str, version: &str) -> Result<Option<PathBuf>> {
        let dist = package.replace('-', "_");
        if let Some(f) = find_wheel(&self.wheels, &dist, version)? {
            return Ok(Some(f));
        }
        let spec = format!("{package}=={version}");
        if !pip_download(&self.wheels, &spec)? {
            return Ok(None);
        }
        find_wheel(&self.wheels, &dist, version)?
            .with_context(|| {
                format!(
                    "pip reported success but {} holds no {dist}-{version} manylinux x86_64 wheel",
                    self.wheels.display()
                )
            })
            .map(Some)
    }

    fn unpack(&mut self, wheel: &Path, dest: &Path, only: Option<&str>) -> Result<()> {
        unzip(wheel, dest, only)
    }
}

pub(crate) fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// `pip download --no-deps` of `spec` (`name==version`) into `dir`, Linux x86_64 wheels only.
/// `Ok(false)` when PyPI has no matching release; an error for any other failure.
pub(crate) fn pip_download(dir: &Path, spec: &str) -> Result<bool> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    errln!("wheel: pip download {spec} → {}", dir.display());
    let mut cmd = Command::new(python());
    cmd.args(["-m", "pip", "download", "--no-deps", "--only-binary=:all:"])
        .arg("--disable-pip-version-check");
    for p in PLATFORMS {
        cmd.args(["--platform", p]);
    }
    let out = cmd.arg("-d").arg(dir).arg(spec).output().with_context(|| {
        format!(
            "running `{} -m pip` (is Python 3 with pip installed?)",
            python()
        )
    })?;
    if out.status.success() {
        return Ok(true);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("No matching distribution found")
        || stderr.contains("Could not find a version that satisfies")
    {
        return Ok(false);
    }
    bail!(
        "`pip download {spec}` failed ({}); it needs network access to PyPI:\n{}",
        out.status,
        stderr.trim()
    )
}

/// Extracts `wheel` (a zip) into `dest` with Python's `zipfile`; only the members matching the
/// `fnmatch` pattern `only` when given.
pub(crate) fn unzip(wheel: &Path, dest: &Path, only: Option<&str>) -> Result<()> {
    const SCRIPT: &str = "import sys, zipfile, fnmatch\n\
        whl, dest, pats = sys.argv[1], sys.argv[2], sys.argv[3:]\n\
        with zipfile.ZipFile(whl) as z:\n    \
            names = [n for n in z.namelist() if not pats or any(fnmatch.fnmatch(n, p) for p in pats)]\n    \
            z.extractall(dest, names)\n";
    errln!(
        "wheel: unpacking {}{} → {}",
        wheel.display(),
        only.map(|o| format!(" ({o})")).unwrap_or_default(),
        dest.display()
    );
    let status = Command::new(python())
        .args(["-c", SCRIPT])
        .arg(wheel)
        .arg(dest)
        .args(only)
        .status()
        .with_context(|| format!("running `{} -c <unzip>`", python()))?;
    if !status.success() {
        bail!("unpacking {} failed ({status})", wheel.display());
    }
    Ok(())
}

/// The wheel of `dist` (the package name with underscores, `nvidia_cuda_runtime`) in `dir`
/// matching `version` (exact, or a `X.Y.*` pattern: the newest such), manylinux x86_64 only.
fn find_wheel(dir: &Path, dist: &str, version: &str) -> Result<Option<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let prefix = match version.strip_suffix('*') {
        Some(stem) => format!("{dist}-{stem}"),
        None => format!("{dist}-{version}-"),
    };
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
        if let Some(v) = name.split('-').nth(1).and_then(Release::parse) {
            found.push((v, path));
        }
    }
    found.sort();
    Ok(found.pop().map(|(_, p)| p))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn pip_pattern_keeps_major_and_minor() {
        let r = |s| Release::parse(s).unwrap();
        assert_eq!(pip_pattern(&r("13.2")), "13.2.*");
        assert_eq!(pip_pattern(&r("13.2.1")), "13.2.*");
        assert_eq!(pip_pattern(&r("13")), "13.*");
    }

    #[test]
    fn package_names_follow_pypi_suffix_convention() {
        assert_eq!(
            package_name("nvidia-cuda-runtime", 13),
            "nvidia-cuda-runtime"
        );
        assert_eq!(
            package_name("nvidia-cuda-runtime", 14),
            "nvidia-cuda-runtime"
        );
        assert_eq!(
            package_name("nvidia-cuda-runtime", 12),
            "nvidia-cuda-runtime-cu12"
        );
        assert_eq!(
            package_name("nvidia-cuda-nvcc", 11),
            "nvidia-cuda-nvcc-cu11"
        );
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
    fn fetch_wheel_prints_each_include_folder_once() {
        let w = Wheel {
            root: PathBuf::from("/w"),
            include: PathBuf::from("/w/nvidia/cu13/include"),
            include_dirs: vec![
                PathBuf::from("/w/nvidia/cu13/include"),
                PathBuf::from("/w/nvidia/nvvm/include"),
            ],
            lib: PathBuf::from("/w/nvidia/cu13/lib/libcudart.so.13"),
            packages: Vec::new(),
        };
        let lines = w.describe(&Release::parse("13.5").unwrap());
        let text = lines.join("\n");
        assert_eq!(text.matches("/w/nvidia/cu13/include").count(), 1, "{text}");
        assert!(
            text.contains("include dir: /w/nvidia/nvvm/include"),
            "{text}"
        );
        assert!(lines[0].starts_with("CUDA 13.5 wheels in /w"), "{text}");
    }

    #[test]
    fn the_crate_release_is_the_generated_crates_not_the_seeds() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs-src");
        let crates = codegen::load::crates(&docs).unwrap();
        for library in codegen::library::Library::ALL {
            let release = crate_release(&docs, library).unwrap();
            // The crate of the newest major is generated from documents of this release.
            let entry = crates.iter().filter(|c| c.library == library).find(|c| {
                let d: Vec<_> = c.docs.iter().map(|d| docs.join(d)).collect();
                codegen::load::manifest_release(&d) == Some(release.clone())
            });
            assert!(entry.is_some(), "{library:?} {release}");
        }
        // The runtime crate follows its newest documents (13.5 headers), not the seed page
        // of 13.2 that the manifest's document list holds.
        let cudart = crate_release(&docs, codegen::library::Library::Cudart).unwrap();
        assert!(cudart > newest_release(&docs).unwrap(), "{cudart}");
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
            "nvidia_cuda_runtime_cu12-13.2.99-py3-none-manylinux2014_x86_64.whl",
            "nvidia_cuda_crt-13.2.99-py3-none-manylinux2014_x86_64.whl",
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let name = |f: Option<PathBuf>| {
            f.unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        };
        let newest = name(find_wheel(&dir, "nvidia_cuda_runtime", "13.2.*").unwrap());
        let exact = name(find_wheel(&dir, "nvidia_cuda_runtime", "13.2.51").unwrap());
        let none = find_wheel(&dir, "nvidia_cuda_runtime", "13.2.5").unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert!(newest.starts_with("nvidia_cuda_runtime-13.2.86-") && newest.contains("x86_64"));
        assert!(exact.starts_with("nvidia_cuda_runtime-13.2.51-"));
        assert!(none.is_none());
    }

    /// A fake PyPI: each published package unpacks to a list of files.
    struct Fake {
        published: BTreeMap<String, (String, Vec<&'static str>)>,
        asked: Vec<String>,
    }

    impl Source for Fake {
        fn wheel(&mut self, package: &str, version: &str) -> Result<Option<PathBuf>> {
            self.asked.push(format!("{package}=={version}"));
            Ok(self.published.get(package).map(|(v, _)| {
                PathBuf::from(format!(
                    "{}-{v}-py3-none-manylinux2014_x86_64.whl",
                    package.replace('-', "_")
                ))
            }))
        }

        fn unpack(&mut self, wheel: &Path, dest: &Path, only: Option<&str>) -> Result<()> {
            let name = wheel.to_string_lossy();
            let package = self
                .published
                .keys()
                .find(|p| name.starts_with(&format!("{}-", p.replace('-', "_"))))
                .cloned()
                .unwrap();
            for file in &self.published[&package].1 {
                if only.is_some_and(|_| !file.contains("/include/crt/")) {
                    continue;
                }
                let path = dest.join(file);
                std::fs::create_dir_all(path.parent().unwrap())?;
                std::fs::write(path, "")?;
            }
            Ok(())
        }
    }

    fn choose(
        tag: &str,
        release: &str,
        published: &[(&str, &str, Vec<&'static str>)],
        pins: &[(&str, &str)],
    ) -> (Vec<Package>, Vec<String>, Result<Wheel>) {
        let dir = std::env::temp_dir().join(format!("xtask-choose-{tag}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        let mut fake = Fake {
            published: published
                .iter()
                .map(|(n, v, f)| (n.to_string(), (v.to_string(), f.clone())))
                .collect(),
            asked: Vec::new(),
        };
        let release = Release::parse(release).unwrap();
        let pins: Vec<(String, String)> = pins
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        let packages = assemble(&mut fake, &dir, &release, &pins).unwrap();
        let wheel = locate(&dir, major_of(&release), packages.clone());
        std::fs::remove_dir_all(&dir).ok();
        (packages, fake.asked, wheel)
    }

    const RT13: [&str; 4] = [
        "nvidia/cu13/include/cuda_runtime_api.h",
        "nvidia/cu13/include/cuda_gl_interop.h",
        "nvidia/cu13/lib/libcudart.so.13",
        "nvidia/cu13/include/cudart_platform.h",
    ];

    #[test]
    fn a_runtime_without_crt_takes_the_crt_wheel_when_published() {
        let (packages, asked, wheel) = choose(
            "crt",
            "13.2",
            &[
                ("nvidia-cuda-runtime", "13.2.86", RT13.to_vec()),
                (
                    "nvidia-cuda-crt",
                    "13.2.86",
                    vec!["nvidia/cu13/include/crt/host_defines.h"],
                ),
                (
                    "nvidia-cuda-profiler-api",
                    "13.2.86",
                    vec!["nvidia/cu13/include/cuda_profiler_api.h"],
                ),
                (
                    "nvidia-cuda-nvcc",
                    "13.2.90",
                    vec!["nvidia/cu13/include/crt/host_defines.h"],
                ),
            ],
            &[],
        );
        let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "nvidia-cuda-runtime",
                "nvidia-cuda-crt",
                "nvidia-cuda-profiler-api"
            ]
        );
        assert!(asked.iter().all(|a| a.ends_with("==13.2.*")), "{asked:?}");
        let wheel = wheel.unwrap();
        assert_eq!(wheel.include_dirs.len(), 1);
        assert!(wheel.lib.ends_with("nvidia/cu13/lib/libcudart.so.13"));
    }

    #[test]
    fn without_a_crt_wheel_only_the_crt_folder_of_nvcc_is_taken() {
        let (packages, asked, wheel) = choose(
            "nvcc",
            "12.8",
            &[
                (
                    "nvidia-cuda-runtime-cu12",
                    "12.8.90",
                    vec![
                        "nvidia/cuda_runtime/include/cuda_runtime_api.h",
                        "nvidia/cuda_runtime/lib/libcudart.so.12",
                    ],
                ),
                (
                    "nvidia-cuda-nvcc-cu12",
                    "12.8.93",
                    vec![
                        "nvidia/cuda_nvcc/include/crt/host_defines.h",
                        "nvidia/cuda_nvcc/bin/nvcc",
                    ],
                ),
                (
                    "nvidia-cuda-profiler-api-cu12",
                    "12.8.90",
                    vec!["nvidia/cuda_profiler_api/include/cuda_profiler_api.h"],
                ),
            ],
            &[],
        );
        let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "nvidia-cuda-runtime-cu12",
                "nvidia-cuda-nvcc-cu12",
                "nvidia-cuda-profiler-api-cu12"
            ]
        );
        assert_eq!(packages[1].only.as_deref(), Some(NVCC_CRT_ONLY));
        assert_eq!(packages[1].version, "12.8.93");
        // The crt wheel was looked for first, and found missing.
        assert!(
            asked.contains(&"nvidia-cuda-crt-cu12==12.8.*".to_string()),
            "{asked:?}"
        );
        let wheel = wheel.unwrap();
        assert_eq!(wheel.include_dirs.len(), 3);
        assert!(wheel.include.ends_with("nvidia/cuda_runtime/include"));
    }

    #[test]
    fn a_complete_runtime_wheel_needs_nothing_else_and_pins_are_exact() {
        let (packages, asked, wheel) = choose(
            "complete",
            "14.1",
            &[(
                "nvidia-cuda-runtime",
                "14.1.3",
                vec![
                    "nvidia/cu14/include/cuda_runtime_api.h",
                    "nvidia/cu14/include/crt/host_defines.h",
                    "nvidia/cu14/include/cuda_profiler_api.h",
                    "nvidia/cu14/lib/libcudart.so.14",
                ],
            )],
            &[("nvidia-cuda-runtime", "14.1.3")],
        );
        assert_eq!(packages.len(), 1);
        assert_eq!(asked, ["nvidia-cuda-runtime==14.1.3"]);
        assert!(wheel.is_ok());
    }

    #[test]
    fn a_pinned_nvcc_source_is_used_without_asking_for_crt() {
        let (packages, asked, _) = choose(
            "pinned-nvcc",
            "12.8",
            &[
                (
                    "nvidia-cuda-runtime-cu12",
                    "12.8.90",
                    vec![
                        "nvidia/cuda_runtime/include/cuda_runtime_api.h",
                        "nvidia/cuda_runtime/include/cuda_profiler_api.h",
                        "nvidia/cuda_runtime/lib/libcudart.so.12",
                    ],
                ),
                (
                    "nvidia-cuda-crt-cu12",
                    "12.8.1",
                    vec!["nvidia/x/include/crt/host_defines.h"],
                ),
                (
                    "nvidia-cuda-nvcc-cu12",
                    "12.8.93",
                    vec!["nvidia/y/include/crt/host_defines.h"],
                ),
            ],
            &[("nvidia-cuda-nvcc-cu12", "12.8.93")],
        );
        assert_eq!(packages[1].name, "nvidia-cuda-nvcc-cu12");
        assert!(
            !asked.iter().any(|a| a.starts_with("nvidia-cuda-crt")),
            "{asked:?}"
        );
    }
}
