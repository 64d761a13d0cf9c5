//! Finding and opening the live `libcudart` the coverage audit reads: a given file, or the one
//! the generated crate's loader would find (`runtime/cuda-loader/src/search.rs`, the same order:
//! `CUDART_PATH` — a file, or a folder holding one, and then the only place looked at — the
//! system loader's `libcudart.so.<major>` and `libcudart.so`, the usual install folders),
//! and then the NVIDIA wheels `cargo xtask fetch-wheel` unpacked under `target/`. Every place
//! tried is in the error when none opens.
//!
//! A file named by path gets the loader's own checks before anything maps it
//! ([`super::loadable`], the template's `elf.rs`: a regular file, ELF of this machine, its
//! segments, dynamic section and tables inside the file), so a truncated, damaged or foreign
//! library is an error naming the problem, never a `SIGBUS`. A name without a folder given as a file (`--lib NAME`) is
//! the file `./NAME`, never a search. The version comes from `cudaRuntimeGetVersion`, the
//! only function called; the exports are read from the same file by [`super::exports`].

use std::ffi::c_int;
use std::path::{Path, PathBuf};

use crate::library::Library;

/// An opened runtime library: the file it is, and its version when it answered.
#[derive(Debug)]
pub struct Live {
    /// The library file.
    pub path: PathBuf,
    /// Where it was found (`CUDART_PATH`, `system loader`, a folder), for messages.
    pub found_by: String,
    /// `cudaRuntimeGetVersion` (`13020` for 13.2), when the call succeeded.
    pub version: Option<i32>,
    // Kept open while the audit runs.
    _lib: libloading::Library,
}

/// Why no library could be opened.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The given file could not be used.
    #[error("{path}: {why}")]
    File { path: PathBuf, why: String },
    /// The search found nothing that opens.
    #[error("no CUDA {major} runtime library found (give one with --lib, set CUDART_PATH, or unpack NVIDIA's wheel under target/ with `cargo xtask fetch-wheel`); tried: {}", .tried.iter().map(|(p, w)| format!("{p}: {w}")).collect::<Vec<_>>().join("; "))]
    NotFound {
        major: u32,
        tried: Vec<(String, String)>,
    },
}

/// Where to look besides the crate's own places: the folders holding unpacked wheels'
/// libraries (`target/cuda-wheel-13.2/nvidia/cu13/lib`), best first.
#[derive(Clone, Debug, Default)]
pub struct Search {
    /// The CUDA major of the crate audited (`libcudart.so.<major>`).
    pub major: u32,
    /// Extra folders tried last, in order.
    pub wheel_dirs: Vec<PathBuf>,
}

/// Opens the CUDA runtime library file `path` (see the module comment for the checks).
pub fn open_file(path: &Path) -> Result<Live, LiveError> {
    open_file_of(Library::Cudart, path)
}

/// Opens the file `path` of `library`, whose version comes from its
/// [`Library::version_function`].
pub fn open_file_of(library: Library, path: &Path) -> Result<Live, LiveError> {
    let path = if path.parent().is_none_or(|p| p.as_os_str().is_empty()) {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    };
    try_open_of(library, &path, "given").map_err(|why| LiveError::File { path, why })
}

/// Finds and opens the library as described in the module comment.
pub fn find(search: &Search) -> Result<Live, LiveError> {
    let major = search.major;
    let mut tried: Vec<(String, String)> = Vec::new();
    if let Some(value) = std::env::var_os("CUDART_PATH").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(value);
        let label = format!("CUDART_PATH={}", path.display());
        if path.is_dir() {
            if let Some(live) = try_folder(&path, major, "CUDART_PATH", &mut tried) {
                return Ok(live);
            }
            if tried.is_empty() {
                tried.push((label, format!("folder holds no {}", file_kinds(major))));
            }
        } else {
            match try_open(&path, "CUDART_PATH") {
                Ok(live) => return Ok(live),
                Err(why) => tried.push((label, why)),
            }
        }
        return Err(LiveError::NotFound { major, tried });
    }
    for name in system_names(major) {
        match open_by_name(&name) {
            Ok(live) => return Ok(live),
            Err(why) => tried.push((format!("{name} (system loader)"), why)),
        }
    }
    let folders = install_folders(major);
    let wheels = search.wheel_dirs.iter().map(|d| (d, "wheel"));
    for (dir, what) in folders.iter().map(|d| (d, "install folder")).chain(wheels) {
        if !dir.is_dir() {
            tried.push((dir.display().to_string(), "no such folder".into()));
            continue;
        }
        let before = tried.len();
        if let Some(live) = try_folder(dir, major, what, &mut tried) {
            return Ok(live);
        }
        if tried.len() == before {
            tried.push((
                dir.display().to_string(),
                format!("folder holds no {}", file_kinds(major)),
            ));
        }
    }
    Err(LiveError::NotFound { major, tried })
}

/// The library folders of the NVIDIA wheels unpacked under `target` (`cuda-wheel-<X.Y>/
/// nvidia/*/lib`), the one of `release` first, then the others newest first.
pub fn wheel_dirs(target: &Path, release: Option<&str>) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(target) else {
        return Vec::new();
    };
    let mut sets: Vec<(bool, Vec<u32>, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let r = name.strip_prefix("cuda-wheel-")?;
            let key: Vec<u32> = r
                .split('.')
                .map(|p| p.parse().ok())
                .collect::<Option<_>>()?;
            Some((Some(r) != release, key, e.path()))
        })
        .collect();
    // Wanted release first, then newest first.
    sets.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut out = Vec::new();
    for (_, _, root) in sets {
        let Ok(vendors) = std::fs::read_dir(root.join("nvidia")) else {
            continue;
        };
        let mut libs: Vec<PathBuf> = vendors
            .filter_map(Result::ok)
            .map(|e| e.path().join("lib"))
            .filter(|p| p.is_dir())
            .collect();
        libs.sort();
        out.extend(libs);
    }
    out
}

/// The system loader's names for a major's runtime, as the crate's loader gives them.
fn system_names(major: u32) -> Vec<String> {
    vec![format!("libcudart.so.{major}"), "libcudart.so".to_string()]
}

fn file_kinds(major: u32) -> String {
    format!("libcudart.so.{major} or libcudart.so")
}

/// The crate's loader's install folders (Linux), in its order.
fn install_folders(major: u32) -> Vec<PathBuf> {
    let env_dir = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let mut dirs = vec![PathBuf::from("/usr/local/cuda/lib64")];
    for root in [env_dir("CUDA_PATH"), env_dir("CUDA_HOME")]
        .into_iter()
        .flatten()
    {
        dirs.push(root.join("lib64"));
    }
    let prefix = format!("cuda-{major}");
    let mut versioned: Vec<(Vec<u32>, PathBuf)> = std::fs::read_dir("/usr/local")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let rest = name.strip_prefix(&prefix)?;
            if !(rest.is_empty() || rest.starts_with('.')) {
                return None;
            }
            Some((
                rest.split('.').filter_map(|p| p.parse().ok()).collect(),
                e.path(),
            ))
        })
        .collect();
    versioned.sort();
    dirs.extend(versioned.into_iter().rev().map(|(_, p)| p.join("lib64")));
    dirs.push(PathBuf::from(format!(
        "/usr/lib/{}-linux-gnu",
        std::env::consts::ARCH
    )));
    let mut unique: Vec<PathBuf> = Vec::new();
    for d in dirs {
        if !unique.contains(&d) {
            unique.push(d);
        }
    }
    unique
}

/// Tries the library files of `dir`; records each failure in `tried`.
fn try_folder(
    dir: &Path,
    major: u32,
    what: &str,
    tried: &mut Vec<(String, String)>,
) -> Option<Live> {
    for name in system_names(major) {
        let file = dir.join(name);
        if !file.exists() {
            continue;
        }
        match try_open(&file, what) {
            Ok(live) => return Some(live),
            Err(why) => tried.push((file.display().to_string(), why)),
        }
    }
    None
}

/// Checks and opens the file `path`.
fn try_open(path: &Path, found_by: &str) -> Result<Live, String> {
    try_open_of(Library::Cudart, path, found_by)
}

/// [`try_open`] of a file of `library`.
fn try_open_of(library: Library, path: &Path, found_by: &str) -> Result<Live, String> {
    if !path.exists() {
        return Err("no such file".into());
    }
    if path.is_dir() {
        return Err("is a folder; give the library file (libcudart.so.<major>)".into());
    }
    // The loader's checks before the system loader maps the file.
    super::loadable::inspect_library(path)?;
    // SAFETY: opening a shared library runs its initialisers; the file is the one the user
    // named for the audit, or the CUDA runtime the crate's search order finds.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| e.to_string())?;
    finish(library, lib, path.to_path_buf(), found_by)
}

/// Opens a bare name through the system loader; the file is the one it mapped.
fn open_by_name(name: &str) -> Result<Live, String> {
    // SAFETY: as in `try_open`; the name is the CUDA runtime's own.
    let lib = unsafe { libloading::Library::new(name) }.map_err(|e| e.to_string())?;
    let file = mapped_file(name)
        .ok_or_else(|| "opened, but the file it maps is not in /proc/self/maps".to_string())?;
    finish(Library::Cudart, lib, file, "system loader")
}

fn finish(
    library: Library,
    lib: libloading::Library,
    path: PathBuf,
    found_by: &str,
) -> Result<Live, String> {
    let (function, apart) = library.version_function();
    let symbol = format!("{function}\0");
    let not_it = || format!("not a {} library: it exports no {function}", library.kind());
    let version = if apart {
        type GetVersion = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;
        // SAFETY: `status f(int*, int*)` (or `unsigned int*`, the same size): the library's
        // version query (Library::version_function).
        let get: libloading::Symbol<GetVersion> =
            unsafe { lib.get(symbol.as_bytes()) }.map_err(|_| not_it())?;
        let (mut major, mut minor): (c_int, c_int) = (0, 0);
        // SAFETY: the function writes one int through each valid pointer.
        let status = unsafe { get(&mut major, &mut minor) };
        (status == 0 && (0..=1000).contains(&major) && (0..=99).contains(&minor))
            .then_some(1000 * major + 10 * minor)
    } else {
        type GetVersion = unsafe extern "C" fn(*mut c_int) -> c_int;
        // SAFETY: `status f(int*)`: the library's version query (Library::version_function).
        let get: libloading::Symbol<GetVersion> =
            unsafe { lib.get(symbol.as_bytes()) }.map_err(|_| not_it())?;
        let mut version: c_int = 0;
        // SAFETY: the function writes one int through a valid pointer.
        let status = unsafe { get(&mut version) };
        (status == 0).then_some(version)
    };
    Ok(Live {
        path,
        found_by: found_by.to_string(),
        version,
        _lib: lib,
    })
}

/// The file the system loader mapped for a bare library name, from `/proc/self/maps`.
fn mapped_file(name: &str) -> Option<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .map(PathBuf::from)
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(name))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_a_folder_and_a_foreign_library_are_named() {
        let missing = Path::new("/nonexistent/libcudart.so.13");
        let e = open_file(missing).unwrap_err().to_string();
        assert!(e.contains("no such file"), "{e}");
        let e = open_file(&std::env::temp_dir()).unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        // A bare name is a file of the current folder, never a search.
        let e = open_file(Path::new("libc.so.6")).unwrap_err().to_string();
        assert!(e.starts_with("./libc.so.6: no such file"), "{e}");
    }

    #[test]
    fn every_place_tried_is_named() {
        let nowhere = std::env::temp_dir().join("live-no-wheel/nvidia/cu99/lib");
        let search = Search {
            major: 99,
            wheel_dirs: vec![nowhere.clone()],
        };
        let err = find(&search).map(|l| l.path).unwrap_err();
        let LiveError::NotFound { tried, .. } = &err else {
            panic!("{err}");
        };
        let places: Vec<&str> = tried.iter().map(|(p, _)| p.as_str()).collect();
        if std::env::var_os("CUDART_PATH").is_some_and(|v| !v.is_empty()) {
            // Set: it is the only place looked at.
            assert!(
                places.iter().all(|p| p.starts_with("CUDART_PATH=")),
                "{places:?}"
            );
        } else {
            // The crate's order, then the wheels.
            assert_eq!(places[0], "libcudart.so.99 (system loader)");
            assert!(places.contains(&"/usr/local/cuda/lib64"), "{places:?}");
            assert_eq!(places.last().copied(), Some(nowhere.to_str().unwrap()));
        }
        assert!(err.to_string().contains("cargo xtask fetch-wheel"));
    }

    #[test]
    fn wheel_folders_put_the_wanted_release_first() {
        let t = std::env::temp_dir().join(format!("live-wheels-{}", std::process::id()));
        for r in ["12.8", "13.2", "13.5"] {
            std::fs::create_dir_all(t.join(format!("cuda-wheel-{r}/nvidia/cu1x/lib"))).unwrap();
        }
        std::fs::create_dir_all(t.join("cuda-wheel-13.2.partial/nvidia/cu13/lib")).unwrap();
        let dirs = wheel_dirs(&t, Some("13.2"));
        std::fs::remove_dir_all(&t).ok();
        let names: Vec<String> = dirs
            .iter()
            .map(|d| d.strip_prefix(&t).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "cuda-wheel-13.2/nvidia/cu1x/lib",
                "cuda-wheel-13.5/nvidia/cu1x/lib",
                "cuda-wheel-12.8/nvidia/cu1x/lib"
            ]
        );
    }
}
