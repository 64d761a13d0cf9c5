//! Opening a live `libcudart` for the coverage audit: find it (a given file, `CUDART_PATH`,
//! or the system loader), open it, and ask its `cudaRuntimeGetVersion`.
//!
//! This is the audit's own small loader, independent of the generated crates (the generator
//! must build and run even when the crates it writes do not). It calls nothing but
//! `cudaRuntimeGetVersion`; the exports are read from the file by [`super::exports`].

use std::ffi::c_int;
use std::path::{Path, PathBuf};

/// An opened runtime library: the file it is, and its version when it answered.
#[derive(Debug)]
pub struct Live {
    /// The library file.
    pub path: PathBuf,
    /// `cudaRuntimeGetVersion` (`13020` for 13.2), when the call succeeded.
    pub version: Option<i32>,
    // Kept open while the audit runs.
    _lib: libloading::Library,
}

/// Why no library could be opened.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("{path}: no such file")]
    Missing { path: PathBuf },
    #[error("{path}: is a folder; give the library file (libcudart.so.<major>)")]
    Folder { path: PathBuf },
    #[error("{path}: cannot open it as a shared library: {why}")]
    Open { path: PathBuf, why: String },
    #[error("{path}: not a CUDA runtime library: it exports no cudaRuntimeGetVersion")]
    NotCudart { path: PathBuf },
    #[error("no CUDA runtime library found (give one with --lib or set CUDART_PATH); tried: {}", .tried.join("; "))]
    NotFound { tried: Vec<String> },
}

/// The system loader's names for the runtime, newest major first.
const SYSTEM_NAMES: &[&str] = &["libcudart.so.13", "libcudart.so.12", "libcudart.so"];

/// Opens `path`, or, when `None`, the library `CUDART_PATH` names, else the first of
/// `libcudart.so.13`, `libcudart.so.12` and `libcudart.so` the system loader finds.
pub fn open(path: Option<&Path>) -> Result<Live, LiveError> {
    if let Some(p) = path {
        return open_file(p);
    }
    if let Some(p) = std::env::var_os("CUDART_PATH").filter(|v| !v.is_empty()) {
        return open_file(Path::new(&p));
    }
    let mut tried = Vec::new();
    for name in SYSTEM_NAMES {
        match open_file(Path::new(name)) {
            Ok(live) => return Ok(live),
            Err(e) => tried.push(e.to_string()),
        }
    }
    Err(LiveError::NotFound { tried })
}

fn open_file(path: &Path) -> Result<Live, LiveError> {
    let bare = path.parent().is_none_or(|p| p.as_os_str().is_empty());
    if !bare {
        if !path.exists() {
            return Err(LiveError::Missing { path: path.into() });
        }
        if path.is_dir() {
            return Err(LiveError::Folder { path: path.into() });
        }
    }
    // SAFETY: opening a shared library runs its initialisers; the file is the one the user
    // named for the audit (or the system's CUDA runtime).
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| LiveError::Open {
        path: path.into(),
        why: e.to_string(),
    })?;
    type GetVersion = unsafe extern "C" fn(*mut c_int) -> c_int;
    // SAFETY: `cudaError_t cudaRuntimeGetVersion(int*)` in every CUDA runtime.
    let get: libloading::Symbol<GetVersion> = unsafe { lib.get(b"cudaRuntimeGetVersion\0") }
        .map_err(|_| LiveError::NotCudart { path: path.into() })?;
    let mut version: c_int = 0;
    // SAFETY: the function writes one int through a valid pointer.
    let status = unsafe { get(&mut version) };
    let file = if bare {
        mapped_file(path).unwrap_or_else(|| path.to_path_buf())
    } else {
        path.to_path_buf()
    };
    Ok(Live {
        path: file,
        version: (status == 0).then_some(version),
        _lib: lib,
    })
}

/// The file the system loader mapped for a bare library name, from `/proc/self/maps`.
fn mapped_file(name: &Path) -> Option<PathBuf> {
    let name = name.to_string_lossy();
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .map(PathBuf::from)
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(name.as_ref()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_a_folder_and_a_foreign_library_are_named() {
        let missing = Path::new("/nonexistent/libcudart.so.13");
        assert!(matches!(
            open(Some(missing)),
            Err(LiveError::Missing { .. })
        ));
        let dir = std::env::temp_dir();
        assert!(matches!(open(Some(&dir)), Err(LiveError::Folder { .. })));
        if cfg!(target_os = "linux") {
            let err = open(Some(Path::new("libc.so.6"))).expect_err("libc is no cudart");
            assert!(
                err.to_string().contains("no cudaRuntimeGetVersion"),
                "{err}"
            );
        }
    }
}
