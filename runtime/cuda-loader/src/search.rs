//! Where the loader looks for a library, in order ([`search`]):
//!
//! 1. the spec's variable ([`Spec::path_var`], `CUDART_PATH`), when set and not empty: a
//!    library file, or a folder holding one. It is authoritative: when it is set, nothing else
//!    is tried, so a wrong setting is an error rather than a silent fallback;
//! 2. the Python environment the user activated: NVIDIA's wheels of the library in
//!    `$VIRTUAL_ENV`'s and `$CONDA_PREFIX`'s `site-packages` (`nvidia/<wheel dir>/lib`), then
//!    `$CONDA_PREFIX/lib` ([`crate::python_env`]; Python itself is never run);
//! 3. the system loader, with the spec's names (`libcudart.so.13`, then `libcudart.so`;
//!    Windows: the DLL of the major);
//! 4. NVIDIA's wheels in the other Python environments in reach: `PYTHONPATH`, `PYTHONHOME`,
//!    the user site, the interpreters on `PATH`, pyenv's selected version;
//! 5. the usual install folders: `/usr/local/cuda/lib64`, `$CUDA_PATH/lib64`,
//!    `$CUDA_HOME/lib64`, `/usr/local/cuda-<major>*/lib64` (newest first),
//!    `/usr/lib/<arch>-linux-gnu` (Windows: `%CUDA_PATH%\bin\x64`, `%CUDA_PATH%\bin` and
//!    `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v<major>*\bin[\x64]`).

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::library::Library;
use crate::python_env::Place;
use crate::spec::Spec;

/// Runs the search without caching anything and returns the first library that opens and is
/// `spec`'s, or [`Error::LibraryNotFound`] listing every candidate tried.
pub fn search(spec: &Spec) -> Result<Library, Error> {
    let mut tried = Vec::new();
    let path_var = std::env::var_os(spec.path_var).filter(|v| !v.is_empty());
    if let Some(value) = path_var {
        let path = PathBuf::from(value);
        let label = format!("{}={}", spec.path_var, path.display());
        if path.is_dir() {
            if let Some(lib) = try_folder(spec, &path, &mut tried) {
                return Ok(lib);
            }
            if tried.is_empty() {
                tried.push((
                    label,
                    format!("folder holds no {}", library_file_kinds(spec)),
                ));
            }
        } else {
            match Library::try_open(spec, &path) {
                Ok(lib) => return Ok(lib),
                Err(why) => tried.push((label, why)),
            }
        }
        return Err(Error::LibraryNotFound { tried });
    }
    if let Some(lib) = try_places(spec, crate::python_env::active(spec), &mut tried) {
        return Ok(lib);
    }
    for name in spec.system_names() {
        match Library::try_open(spec, Path::new(name)) {
            Ok(lib) => return Ok(lib),
            Err(why) => tried.push((format!("{name} (system loader)"), why)),
        }
    }
    if let Some(lib) = try_places(spec, crate::python_env::others(spec), &mut tried) {
        return Ok(lib);
    }
    let installs = install_folders(spec.major).into_iter().map(|dir| Place {
        dir,
        why: String::new(),
    });
    if let Some(lib) = try_places(spec, installs.collect(), &mut tried) {
        return Ok(lib);
    }
    Err(Error::LibraryNotFound { tried })
}

/// Tries each folder of `places` in order; records each failure (a missing folder, one
/// without a library file, each file that does not open) in `tried`, with why the folder
/// was a candidate.
fn try_places(
    spec: &Spec,
    places: Vec<Place>,
    tried: &mut Vec<(String, String)>,
) -> Option<Library> {
    for place in places {
        let label = if place.why.is_empty() {
            place.dir.display().to_string()
        } else {
            format!("{} ({})", place.dir.display(), place.why)
        };
        if !place.dir.is_dir() {
            tried.push((label, "no such folder".to_string()));
            continue;
        }
        let before = tried.len();
        if let Some(lib) = try_folder(spec, &place.dir, tried) {
            return Some(lib);
        }
        if tried.len() == before {
            tried.push((
                label,
                format!("folder holds no {}", library_file_kinds(spec)),
            ));
        }
    }
    None
}

/// Tries each library file in `dir`; records each failure in `tried`.
fn try_folder(spec: &Spec, dir: &Path, tried: &mut Vec<(String, String)>) -> Option<Library> {
    for file in library_files_in(spec, dir) {
        match Library::try_open(spec, &file) {
            Ok(lib) => return Some(lib),
            Err(why) => tried.push((file.display().to_string(), why)),
        }
    }
    None
}

/// What a library file is called here, for messages.
fn library_file_kinds(spec: &Spec) -> String {
    if cfg!(windows) {
        format!("{}*.dll", spec.windows_prefix)
    } else {
        spec.unix_names.join(" or ")
    }
}

/// The library files of `spec` present in `dir`, best first.
fn library_files_in(spec: &Spec, dir: &Path) -> Vec<PathBuf> {
    if cfg!(windows) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .map(|n| n.to_ascii_lowercase())
                    .is_some_and(|n| n.starts_with(spec.windows_prefix) && n.ends_with(".dll"))
            })
            .collect();
        files.sort();
        files.reverse();
        files
    } else {
        spec.unix_names
            .iter()
            .map(|name| dir.join(name))
            .filter(|p| p.is_file())
            .collect()
    }
}

/// The usual install folders of CUDA `major`, in search order, without duplicates.
fn install_folders(major: u32) -> Vec<PathBuf> {
    let env_dir = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let mut dirs = Vec::new();
    if cfg!(windows) {
        for root in [env_dir("CUDA_PATH")].into_iter().flatten() {
            dirs.push(root.join("bin").join("x64"));
            dirs.push(root.join("bin"));
        }
        let toolkits = Path::new(r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA");
        for root in versioned_children(toolkits, &format!("v{major}")) {
            dirs.push(root.join("bin").join("x64"));
            dirs.push(root.join("bin"));
        }
    } else {
        dirs.push(PathBuf::from("/usr/local/cuda/lib64"));
        for root in [env_dir("CUDA_PATH"), env_dir("CUDA_HOME")]
            .into_iter()
            .flatten()
        {
            dirs.push(root.join("lib64"));
        }
        for root in versioned_children(Path::new("/usr/local"), &format!("cuda-{major}")) {
            dirs.push(root.join("lib64"));
        }
        dirs.push(PathBuf::from(format!(
            "/usr/lib/{}-linux-gnu",
            std::env::consts::ARCH
        )));
    }
    let mut unique = Vec::new();
    for d in dirs {
        if !unique.contains(&d) {
            unique.push(d);
        }
    }
    unique
}

/// Children of `parent` whose names start with `prefix` (`cuda-13`, `cuda-13.2`, …), the
/// highest version first.
fn versioned_children(parent: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut found: Vec<(Vec<u32>, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let rest = name.strip_prefix(prefix)?;
            if !(rest.is_empty() || rest.starts_with('.')) {
                return None;
            }
            let key = rest.split('.').filter_map(|p| p.parse().ok()).collect();
            Some((key, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().rev().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versioned_children_sorts_numerically_newest_first() {
        let dir = std::env::temp_dir().join(format!("cuda-loader-vc-{}", std::process::id()));
        for name in [
            "cuda-13.2",
            "cuda-13.10",
            "cuda-13",
            "cuda-12.9",
            "cuda-130x",
        ] {
            std::fs::create_dir_all(dir.join(name)).unwrap();
        }
        let names: Vec<String> = versioned_children(&dir, "cuda-13")
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(names, ["cuda-13.10", "cuda-13.2", "cuda-13"]);
    }

    #[test]
    fn install_folders_start_with_the_toolkit_and_have_no_duplicates() {
        let dirs = install_folders(13);
        if cfg!(target_os = "linux") {
            assert_eq!(dirs[0], Path::new("/usr/local/cuda/lib64"));
        }
        for (i, d) in dirs.iter().enumerate() {
            assert!(!dirs[i + 1..].contains(d), "duplicate {}", d.display());
        }
    }
}
