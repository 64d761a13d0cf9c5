//! The shared libraries this process has mapped, read from `/proc/self/maps`: real ELF files
//! (the C library among them) for the tests that check or damage copies of a library. Shared
//! by `workspace-tests` (as this module) and by the test binaries of `codegen` and `xtask`,
//! which include this file with `#[path]` (neither depends on this crate).

use std::collections::BTreeSet;
use std::path::PathBuf;

/// Every regular file whose name contains `.so` that this process maps, once each, in the
/// order of `/proc/self/maps`; empty where that file cannot be read (not Linux).
pub fn mapped_shared_libraries() -> Vec<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let mut seen = BTreeSet::new();
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .map(PathBuf::from)
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(".so"))
                && p.is_file()
        })
        .filter(|p| seen.insert(p.clone()))
        .collect()
}

/// The first of [`mapped_shared_libraries`] (on Linux, one is always mapped).
pub fn mapped_shared_library() -> Option<PathBuf> {
    mapped_shared_libraries().into_iter().next()
}
