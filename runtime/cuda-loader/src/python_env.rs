//! Where NVIDIA's pip wheels and conda put a library, for the loader's search
//! ([`crate::search`]): the wheel folders of its [`Spec`] (`nvidia/cu13/lib`,
//! `nvidia/cuda_runtime/lib`) in the `site-packages` folders of the Python environments in
//! use, and `$CONDA_PREFIX/lib`.
//!
//! Python is never run: the `site-packages` folders are found from the environment, the way
//! the interpreter's own `site` module lays them out — `VIRTUAL_ENV` and `CONDA_PREFIX`
//! (`<prefix>/lib/python3.*/site-packages`; Windows: `<prefix>\Lib\site-packages`), each
//! entry of `PYTHONPATH`, `PYTHONHOME`, the user site (`$PYTHONUSERBASE` or
//! `~/.local/lib/python3.*/site-packages`), the prefix of each `python3` / `python` on `PATH`
//! (the folder above its `bin`, before and after following links, with Debian's
//! `dist-packages` too), and pyenv's selected version (`PYENV_VERSION` or
//! `$PYENV_ROOT/version`). This module only lists folders; it opens nothing.

use std::path::{Path, PathBuf};

use crate::Spec;

/// A folder to look in, and why it is a candidate (for the error that lists every place).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The folder.
    pub dir: PathBuf,
    /// Why it is a candidate (`VIRTUAL_ENV's site-packages`).
    pub why: String,
}

/// The library folders of the environments a user activated (`VIRTUAL_ENV`, then
/// `CONDA_PREFIX`: its wheels, then its `lib`), which the loader tries before the system
/// loader: activating an environment is an explicit choice.
pub fn active(spec: &Spec) -> Vec<Place> {
    let mut out = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(prefix) = env_path(var) {
            for sp in prefix_site_packages(&prefix) {
                wheel_folders(&sp, &format!("{var}'s site-packages"), spec, &mut out);
            }
            if var == "CONDA_PREFIX" {
                let lib = if cfg!(windows) {
                    prefix.join("Library").join("bin")
                } else {
                    prefix.join("lib")
                };
                out.push(Place {
                    dir: lib,
                    why: "CONDA_PREFIX's library folder".to_string(),
                });
            }
        }
    }
    dedup(out)
}

/// The library folders of the other Python environments in reach (`PYTHONPATH`,
/// `PYTHONHOME`, the user site, the interpreters on `PATH`, pyenv's version), tried after
/// the system loader. Only `site-packages` folders that exist are listed.
pub fn others(spec: &Spec) -> Vec<Place> {
    let mut out = Vec::new();
    if let Some(paths) = std::env::var_os("PYTHONPATH") {
        for p in std::env::split_paths(&paths).filter(|p| !p.as_os_str().is_empty()) {
            wheel_folders(&p, "a PYTHONPATH entry", spec, &mut out);
        }
    }
    if let Some(home) = env_path("PYTHONHOME") {
        for sp in prefix_site_packages(&home) {
            wheel_folders(&sp, "PYTHONHOME's site-packages", spec, &mut out);
        }
    }
    let user_base = env_path("PYTHONUSERBASE").or_else(|| {
        if cfg!(windows) {
            env_path("APPDATA").map(|a| a.join("Python"))
        } else {
            env_path("HOME").map(|h| h.join(".local"))
        }
    });
    if let Some(base) = user_base {
        for sp in prefix_site_packages(&base) {
            wheel_folders(&sp, "the user site-packages", spec, &mut out);
        }
    }
    for prefix in interpreter_prefixes() {
        for sp in prefix_site_packages(&prefix) {
            let why = format!("site-packages of the Python in {}", prefix.display());
            wheel_folders(&sp, &why, spec, &mut out);
        }
    }
    for prefix in pyenv_prefixes() {
        for sp in prefix_site_packages(&prefix) {
            wheel_folders(&sp, "pyenv's selected Python", spec, &mut out);
        }
    }
    dedup(out)
}

/// A non-empty environment variable as a path.
fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The library folders NVIDIA's wheels make under `site_packages`, when it exists.
fn wheel_folders(site_packages: &Path, why: &str, spec: &Spec, out: &mut Vec<Place>) {
    if !site_packages.is_dir() {
        return;
    }
    let nvidia = site_packages.join("nvidia");
    for package in spec.wheel_dirs {
        let root = nvidia.join(package);
        let dirs = if cfg!(windows) {
            vec![root.join("bin").join("x64"), root.join("bin")]
        } else {
            vec![root.join("lib")]
        };
        for dir in dirs {
            out.push(Place {
                dir,
                why: format!("NVIDIA's {} wheel in {why}", spec.kind),
            });
        }
    }
}

/// The `site-packages` folders of the Python installed under `prefix`, newest version first.
fn prefix_site_packages(prefix: &Path) -> Vec<PathBuf> {
    if cfg!(windows) {
        return vec![prefix.join("Lib").join("site-packages")];
    }
    let mut out = Vec::new();
    for lib in [prefix.join("lib"), prefix.join("local").join("lib")] {
        for version in python_folders(&lib) {
            out.push(version.join("site-packages"));
            out.push(version.join("dist-packages"));
        }
    }
    // Debian's system Python keeps its packages in `lib/python3/dist-packages`.
    out.push(prefix.join("lib").join("python3").join("dist-packages"));
    // One folder reached two ways (`/lib` linked to `/usr/lib`) is listed once.
    let mut found: Vec<PathBuf> = Vec::new();
    for p in out.into_iter().filter(|p| p.is_dir()) {
        let p = std::fs::canonicalize(&p).unwrap_or(p);
        if !found.contains(&p) {
            found.push(p);
        }
    }
    found
}

/// The `python3.N` folders in `lib`, the highest `N` first.
fn python_folders(lib: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(lib) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let minor = name.strip_prefix("python3.")?.parse().ok()?;
            Some((minor, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().rev().map(|(_, p)| p).collect()
}

/// The prefixes of the `python3` and `python` interpreters on `PATH`: the folder above the
/// one holding each, as found and after following links (a virtual environment's `python`
/// links to its base interpreter; both have packages).
fn interpreter_prefixes() -> Vec<PathBuf> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    let names: &[&str] = if cfg!(windows) {
        &["python.exe", "python3.exe"]
    } else {
        &["python3", "python"]
    };
    let mut out = Vec::new();
    for dir in std::env::split_paths(&path) {
        for name in names {
            let exe = dir.join(name);
            if !exe.is_file() {
                continue;
            }
            let found = if cfg!(windows) {
                Some(dir.clone())
            } else {
                dir.parent().map(Path::to_path_buf)
            };
            out.extend(found);
            if let Ok(real) = std::fs::canonicalize(&exe) {
                out.extend(real.parent().and_then(Path::parent).map(Path::to_path_buf));
            }
        }
    }
    out.dedup();
    out
}

/// The prefixes of the versions pyenv selects (`PYENV_VERSION`, else the first lines of
/// `$PYENV_ROOT/version`; `PYENV_ROOT` defaults to `~/.pyenv`).
fn pyenv_prefixes() -> Vec<PathBuf> {
    let Some(root) = env_path("PYENV_ROOT").or_else(|| env_path("HOME").map(|h| h.join(".pyenv")))
    else {
        return Vec::new();
    };
    let versions = match std::env::var("PYENV_VERSION") {
        Ok(v) if !v.is_empty() => v,
        _ => std::fs::read_to_string(root.join("version")).unwrap_or_default(),
    };
    versions
        .split([':', '\n'])
        .map(str::trim)
        .filter(|v| !v.is_empty() && *v != "system" && !v.contains(['/', '\\']))
        .take(8)
        .map(|v| root.join("versions").join(v))
        .collect()
}

/// `places` without repeated folders (the first reason kept).
fn dedup(places: Vec<Place>) -> Vec<Place> {
    let mut out: Vec<Place> = Vec::new();
    for p in places {
        if !out.iter().any(|q| q.dir == p.dir) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_packages_of_a_prefix_are_found_newest_first() {
        if cfg!(windows) {
            return; // `Lib\site-packages`, no version folders
        }
        let root = std::env::temp_dir().join(format!("cudart-pyenv-{}", std::process::id()));
        for v in ["python3.9", "python3.12", "python3.11x", "python2.7"] {
            std::fs::create_dir_all(root.join("lib").join(v).join("site-packages")).unwrap();
        }
        let root = std::fs::canonicalize(&root).unwrap();
        let found = prefix_site_packages(&root);
        let names: Vec<String> = found
            .iter()
            .map(|p| {
                p.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        assert_eq!(
            names,
            [
                "lib/python3.12/site-packages",
                "lib/python3.9/site-packages"
            ]
        );
        let spec = &crate::spec::tests::CUDART13;
        let mut places = Vec::new();
        wheel_folders(&found[0], "test", spec, &mut places);
        let major = "cu13";
        assert!(places
            .iter()
            .any(|p| p.dir.ends_with(Path::new("nvidia").join(major).join("lib"))));
        let cu12 = Path::new("nvidia").join("cuda_runtime").join("lib");
        assert!(places.iter().any(|p| p.dir.ends_with(&cu12)));
        // A folder that does not exist gives nothing.
        let mut none = Vec::new();
        wheel_folders(&root.join("missing"), "test", spec, &mut none);
        std::fs::remove_dir_all(&root).ok();
        assert!(none.is_empty());
    }

    #[test]
    fn repeated_folders_are_listed_once() {
        let p = |d: &str, why: &str| Place {
            dir: PathBuf::from(d),
            why: why.to_string(),
        };
        let out = dedup(vec![p("/a", "first"), p("/b", "b"), p("/a", "second")]);
        assert_eq!(out, [p("/a", "first"), p("/b", "b")]);
    }
}
