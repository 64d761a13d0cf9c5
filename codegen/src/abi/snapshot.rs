//! The committed ABI snapshots: one JSON file per CUDA release (`abi/13.2.json`), written by
//! `cargo xtask abi --release 13.2` from that release's headers, so that `cargo xtask codegen`
//! needs neither the network nor libclang.
//!
//! This module names the file of a release, reads one back with errors that say what to do,
//! and writes the JSON deterministically (pretty, `\n` line ends, a trailing newline; the
//! model holds no absolute paths or timestamps). It does not make snapshots; see
//! `super::headers` (feature `headers`).

use std::path::{Path, PathBuf};

use super::Abi;
use crate::ir::Release;
use crate::library::Library;

/// Why a snapshot could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// No snapshot for the release.
    #[error(
        "no ABI snapshot {path} for CUDA {release}: run `cargo xtask abi {library}--release \
         {release}` (it downloads the release's wheels from PyPI, reads their headers and writes \
         the file), then commit it"
    )]
    Missing {
        path: PathBuf,
        release: String,
        /// `--library X ` for a snapshot of another library than the runtime, else empty.
        library: String,
    },
    /// The file exists but could not be read.
    #[error("cannot read the ABI snapshot {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not an ABI model.
    #[error(
        "the ABI snapshot {path} is not valid ABI JSON ({source}); it was edited by hand or \
         written by another version: regenerate it with `cargo xtask abi --release {release}`"
    )]
    Invalid {
        path: PathBuf,
        release: String,
        #[source]
        source: serde_json::Error,
    },
    /// The file describes another library than the one asked for.
    #[error(
        "the ABI snapshot {path} describes {found}, not {expected}: it is in the wrong folder \
         (see abi/README.md)"
    )]
    Library {
        path: PathBuf,
        expected: Library,
        found: Library,
    },
}

/// `13.2.1` → `13.2`: snapshots are per minor release, like NVIDIA's wheels (`==13.2.*`).
pub fn short_release(release: &Release) -> String {
    let parts: Vec<String> = release.0.iter().take(2).map(u32::to_string).collect();
    parts.join(".")
}

/// The snapshot of `release` under the workspace `root`: `<root>/abi/<major>.<minor>.json`.
pub fn path(root: &Path, release: &Release) -> PathBuf {
    root.join("abi")
        .join(format!("{}.json", short_release(release)))
}

/// The snapshot of `library`'s `release`: [`path`] for the runtime, and
/// `<root>/abi/<folder>/<major>.<minor>.json` for another library
/// ([`Library::snapshot_folder`]: `abi/nvrtc/13.2.json`).
pub fn library_path(root: &Path, library: Library, release: &Release) -> PathBuf {
    let folder = library.snapshot_folder();
    if folder.is_empty() {
        return path(root, release);
    }
    root.join("abi")
        .join(folder)
        .join(format!("{}.json", short_release(release)))
}

/// Where a snapshot made for a one-off crate (`cargo xtask codegen --release R --out DIR` of
/// a release the repository has no snapshot of) is kept: `<root>/target/abi/<major>.<minor>.json`,
/// a cache, never the committed folder.
pub fn cache_path(root: &Path, release: &Release) -> PathBuf {
    root.join("target")
        .join("abi")
        .join(format!("{}.json", short_release(release)))
}

/// The snapshot of `release` to read: the committed one when there is one, else the cached
/// one ([`cache_path`]); the committed path when neither exists (for the error).
pub fn find(root: &Path, release: &Release) -> PathBuf {
    let committed = path(root, release);
    let cached = cache_path(root, release);
    if !committed.is_file() && cached.is_file() {
        cached
    } else {
        committed
    }
}

/// Every snapshot file in `dir` (`<X.Y>.json`), by release, oldest first.
pub fn list_in(dir: &Path) -> Vec<(Release, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(Release, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
        .filter_map(|p| {
            let r = Release::parse(&p.file_stem()?.to_string_lossy())?;
            Some((r, p))
        })
        .collect();
    found.sort();
    found
}

/// Every snapshot under `root`: the committed ones (`abi/`) and the cached ones
/// (`target/abi/`) of releases nothing is committed for, oldest first.
pub fn list(root: &Path) -> Vec<(Release, PathBuf)> {
    let mut all = list_in(&root.join("abi"));
    for (r, p) in list_in(&root.join("target").join("abi")) {
        if !all
            .iter()
            .any(|(c, _)| short_release(c) == short_release(&r))
        {
            all.push((r, p));
        }
    }
    all.sort();
    all
}

/// [`list`] for `library`'s snapshots: `abi/<folder>/` and `target/abi/<folder>/` for a
/// library other than the runtime.
pub fn list_library(root: &Path, library: Library) -> Vec<(Release, PathBuf)> {
    let folder = library.snapshot_folder();
    if folder.is_empty() {
        return list(root);
    }
    let mut all = list_in(&root.join("abi").join(folder));
    for (r, p) in list_in(&root.join("target").join("abi").join(folder)) {
        if !all
            .iter()
            .any(|(c, _)| short_release(c) == short_release(&r))
        {
            all.push((r, p));
        }
    }
    all.sort();
    all
}

/// Where a snapshot of `library` made for a one-off crate is kept: [`cache_path`] for the
/// runtime, `<root>/target/abi/<folder>/<major>.<minor>.json` for another library.
pub fn library_cache_path(root: &Path, library: Library, release: &Release) -> PathBuf {
    let folder = library.snapshot_folder();
    if folder.is_empty() {
        return cache_path(root, release);
    }
    root.join("target")
        .join("abi")
        .join(folder)
        .join(format!("{}.json", short_release(release)))
}

/// [`find`] for `library`'s snapshots: the committed one ([`library_path`]) when there is
/// one, else the cached one ([`library_cache_path`]); the committed path when neither exists.
pub fn find_library(root: &Path, library: Library, release: &Release) -> PathBuf {
    let committed = library_path(root, library, release);
    let cached = library_cache_path(root, library, release);
    if !committed.is_file() && cached.is_file() {
        cached
    } else {
        committed
    }
}

/// Reads the snapshot at `path` (its release and library, for messages, are taken from the file
/// name and folder).
pub fn load(path: &Path) -> Result<Abi, SnapshotError> {
    let release = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let folder = path.parent().and_then(Path::file_name);
    let library = Library::ALL
        .into_iter()
        .find(|l| !l.snapshot_folder().is_empty() && folder == Some(l.snapshot_folder().as_ref()))
        .map_or_else(String::new, |l| format!("--library {l} "));
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SnapshotError::Missing {
                path: path.to_path_buf(),
                release,
                library,
            })
        }
        Err(source) => {
            return Err(SnapshotError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    serde_json::from_str(&text).map_err(|source| SnapshotError::Invalid {
        path: path.to_path_buf(),
        release,
        source,
    })
}

/// The snapshot text of `abi`: pretty JSON (two-space indent, fields in declaration order,
/// maps in insertion order), ending with a newline. The same model gives the same bytes.
pub fn to_json(abi: &Abi) -> String {
    // Serialising this model cannot fail: every map key is a string and no value is a
    // non-finite float. Fall back to an empty object rather than panic all the same.
    let mut text = serde_json::to_string_pretty(abi).unwrap_or_else(|_| "{}".to_string());
    text.push('\n');
    text
}

/// The first differences between two models, by item (`function cudaMalloc`, `record
/// cudaDeviceProp`, `origin`), at most `limit` of them: what `--check` prints.
pub fn differences(old: &Abi, new: &Abi, limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut scalar = |what: &str, a: String, b: String| {
        if a != b {
            out.push(format!("{what}: `{a}` → `{b}`"));
        }
    };
    scalar("origin", old.origin.clone(), new.origin.clone());
    scalar("file", old.file.clone(), new.file.clone());
    scalar(
        "release",
        format!("{:?}", old.release),
        format!("{:?}", new.release),
    );
    scalar(
        "packages",
        format!("{:?}", old.packages),
        format!("{:?}", new.packages),
    );
    let compared = super::compare::compare(old, new);
    for d in &compared.differences {
        out.push(
            d.to_string()
                .replace("only on the left", "removed")
                .replace("only on the right", "added"),
        );
    }
    let explained = |kind: &str, name: &str| {
        compared
            .differences
            .iter()
            .any(|d| d.item.name() == kind && d.name == name)
    };
    // What `compare` does not look at: places, links, names of second spellings.
    let mut maps = |kind: &str, a: Vec<(&String, String)>, b: Vec<(&String, String)>| {
        for (name, x) in &a {
            if let Some((_, y)) = b.iter().find(|(n, _)| n == name) {
                if x != y && !explained(kind, name) {
                    out.push(format!("{kind} `{name}` changed (place or links)"));
                }
            }
        }
        let order_a: Vec<&&String> = a
            .iter()
            .map(|(n, _)| n)
            .filter(|n| b.iter().any(|(m, _)| m == *n))
            .collect();
        let order_b: Vec<&&String> = b
            .iter()
            .map(|(n, _)| n)
            .filter(|n| a.iter().any(|(m, _)| m == *n))
            .collect();
        if order_a != order_b {
            out.push(format!("{kind}s are in another order"));
        }
    };
    fn dbg<T: std::fmt::Debug>(m: &indexmap::IndexMap<String, T>) -> Vec<(&String, String)> {
        m.iter().map(|(k, v)| (k, format!("{v:?}"))).collect()
    }
    maps("function", dbg(&old.functions), dbg(&new.functions));
    maps("record", dbg(&old.records), dbg(&new.records));
    maps("enum", dbg(&old.enums), dbg(&new.enums));
    maps("typedef", dbg(&old.typedefs), dbg(&new.typedefs));
    maps("constant", dbg(&old.constants), dbg(&new.constants));
    maps("rename", dbg(&old.renames), dbg(&new.renames));
    maps(
        "macro alias",
        dbg(&old.macro_aliases),
        dbg(&new.macro_aliases),
    );
    for (kind, a, b) in [
        ("rename", &old.renames, &new.renames),
        ("macro alias", &old.macro_aliases, &new.macro_aliases),
    ] {
        for name in a.keys().filter(|n| !b.contains_key(*n)) {
            out.push(format!("{kind} `{name}` removed"));
        }
        for name in b.keys().filter(|n| !a.contains_key(*n)) {
            out.push(format!("{kind} `{name}` added"));
        }
    }
    if old.diagnostics != new.diagnostics {
        out.push(format!(
            "diagnostics differ ({} → {})",
            old.diagnostics.len(),
            new.diagnostics.len()
        ));
    }
    out.truncate(limit);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_is_per_minor_release() {
        let root = Path::new("/w");
        assert_eq!(
            path(root, &Release(vec![13, 2])),
            Path::new("/w/abi/13.2.json")
        );
        assert_eq!(
            path(root, &Release(vec![12, 8, 1])),
            Path::new("/w/abi/12.8.json")
        );
    }

    #[test]
    fn committed_snapshots_win_over_cached_ones() {
        let root = std::env::temp_dir().join(format!("abi-snapshot-find-{}", std::process::id()));
        let r = |s: &str| Release::parse(s).unwrap();
        std::fs::create_dir_all(root.join("abi")).unwrap();
        std::fs::create_dir_all(root.join("target/abi")).unwrap();
        for p in [
            "abi/13.0.json",
            "abi/13.2.json",
            "target/abi/13.1.json",
            "target/abi/13.2.json",
        ] {
            std::fs::write(root.join(p), "{}").unwrap();
        }
        std::fs::write(root.join("abi/notes.txt"), "").unwrap();
        assert_eq!(find(&root, &r("13.2")), root.join("abi/13.2.json"));
        assert_eq!(find(&root, &r("13.1")), root.join("target/abi/13.1.json"));
        // Neither: the committed path, for the error.
        assert_eq!(find(&root, &r("13.9")), root.join("abi/13.9.json"));
        assert_eq!(
            cache_path(&root, &r("13.9.1")),
            root.join("target/abi/13.9.json")
        );
        let listed: Vec<PathBuf> = list(&root).into_iter().map(|(_, p)| p).collect();
        let expected: Vec<PathBuf> = ["abi/13.0.json", "target/abi/13.1.json", "abi/13.2.json"]
            .iter()
            .map(|p| root.join(p))
            .collect();
        std::fs::remove_dir_all(&root).ok();
        assert_eq!(listed, expected);
    }

    #[test]
    fn load_errors_say_what_to_do() {
        let dir = std::env::temp_dir().join(format!("abi-snapshot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = load(&dir.join("13.9.json")).unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("run `cargo xtask abi --release 13.9`"),
            "{missing}"
        );
        let bad = dir.join("13.8.json");
        std::fs::write(&bad, "{\"release\": 3").unwrap();
        let invalid = load(&bad).unwrap_err();
        std::fs::remove_dir_all(&dir).ok();
        assert!(
            matches!(invalid, SnapshotError::Invalid { .. }),
            "{invalid}"
        );
        assert!(invalid.to_string().contains("not valid ABI JSON"));
        assert!(invalid.to_string().contains("13.8.json"));
    }

    #[test]
    fn json_is_stable_and_round_trips() {
        let mut abi = Abi {
            release: Some(Release(vec![13, 2])),
            origin: "test".into(),
            ..Abi::default()
        };
        abi.renames.insert("a".into(), "a_v2".into());
        let text = to_json(&abi);
        assert!(text.ends_with("}\n"));
        assert_eq!(text, to_json(&abi));
        let back: Abi = serde_json::from_str(&text).unwrap();
        assert_eq!(back, abi);
        let mut other = abi.clone();
        other.renames.insert("b".into(), "b_v2".into());
        assert_eq!(differences(&abi, &other, 10), ["rename `b` added"]);
        assert!(differences(&abi, &abi, 10).is_empty());
    }
}
