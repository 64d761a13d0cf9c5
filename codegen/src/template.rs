//! The hand-written files of every emitted crate, kept in `codegen/template/` and embedded
//! in the generator, so that `cargo xtask codegen --out DIR` writes a complete crate from any
//! checkout. They may hold the placeholders `@CRATE@`, `@MAJOR@`, `@RELEASE@`, `@VERSION@`,
//! `@ABI@`, `@LIBRARY@`, `@LIBFILE@`, `@PATHVAR@`, `@EXAMPLEFN@` and `@WHEELDIR12@` (in
//! comments and Markdown only), which [`render`] fills in; nothing else changes between the
//! template and its copies.
//!
//! Each library has its own set ([`files_for`]): the runtime's crates get [`COPIED`] and
//! [`CRATE_DOCS`], NVRTC's get [`NVRTC_COPIED`] and [`NVRTC_CRATE_DOCS`] (its files are in
//! `codegen/template/nvrtc/`). The loader, the ELF check, the search and the macros are not
//! copied: they are the `cuda-loader` crate (`runtime/cuda-loader`), which every emitted crate
//! depends on; the thin `loader.rs` and `version.rs` wrappers keep each crate's public names,
//! and `src/library.rs`, the facts the loader looks for, is generated
//! (`emit::package`, from [`crate::library`]).

/// `(path in the emitted crate, template text)` of every file copied into the crate.
pub const COPIED: &[(&str, &str)] = &[
    ("README.md", include_str!("../template/README.md")),
    ("NOTICE", include_str!("../template/NOTICE")),
    ("src/error.rs", include_str!("../template/src/error.rs")),
    ("src/loader.rs", include_str!("../template/src/loader.rs")),
    ("src/version.rs", include_str!("../template/src/version.rs")),
    ("src/device.rs", include_str!("../template/src/device.rs")),
    ("src/stream.rs", include_str!("../template/src/stream.rs")),
    (
        "src/graph/conditional.rs",
        include_str!("../template/src/graph/conditional.rs"),
    ),
    (
        "src/graph/nodes.rs",
        include_str!("../template/src/graph/nodes.rs"),
    ),
    ("src/event.rs", include_str!("../template/src/event.rs")),
    (
        "src/memory/mod.rs",
        include_str!("../template/src/memory/mod.rs"),
    ),
    (
        "src/memory/allocator.rs",
        include_str!("../template/src/memory/allocator.rs"),
    ),
    (
        "src/memory/buffer.rs",
        include_str!("../template/src/memory/buffer.rs"),
    ),
    (
        "src/memory/managed.rs",
        include_str!("../template/src/memory/managed.rs"),
    ),
    (
        "src/memory/pinned.rs",
        include_str!("../template/src/memory/pinned.rs"),
    ),
    (
        "src/memory/pinned_block.rs",
        include_str!("../template/src/memory/pinned_block.rs"),
    ),
    (
        "src/memory/pinned_slice.rs",
        include_str!("../template/src/memory/pinned_slice.rs"),
    ),
    (
        "src/memory/ipc.rs",
        include_str!("../template/src/memory/ipc.rs"),
    ),
    (
        "src/memory/pointer.rs",
        include_str!("../template/src/memory/pointer.rs"),
    ),
    (
        "src/memory/pool.rs",
        include_str!("../template/src/memory/pool.rs"),
    ),
    (
        "src/memory/pool_ipc.rs",
        include_str!("../template/src/memory/pool_ipc.rs"),
    ),
    (
        "src/memory/graph_buffer.rs",
        include_str!("../template/src/memory/graph_buffer.rs"),
    ),
    (
        "src/lifetime/mod.rs",
        include_str!("../template/src/lifetime/mod.rs"),
    ),
    (
        "src/lifetime/capture.rs",
        include_str!("../template/src/lifetime/capture.rs"),
    ),
    (
        "src/lifetime/current.rs",
        include_str!("../template/src/lifetime/current.rs"),
    ),
    (
        "src/lifetime/deferred.rs",
        include_str!("../template/src/lifetime/deferred.rs"),
    ),
    (
        "src/lifetime/holdings.rs",
        include_str!("../template/src/lifetime/holdings.rs"),
    ),
    (
        "src/lifetime/queue.rs",
        include_str!("../template/src/lifetime/queue.rs"),
    ),
    (
        "src/lifetime/uses.rs",
        include_str!("../template/src/lifetime/uses.rs"),
    ),
    ("src/kernel.rs", include_str!("../template/src/kernel.rs")),
    ("src/global.rs", include_str!("../template/src/global.rs")),
    ("src/graph.rs", include_str!("../template/src/graph.rs")),
    ("src/texture.rs", include_str!("../template/src/texture.rs")),
    (
        "src/profiler.rs",
        include_str!("../template/src/profiler.rs"),
    ),
    ("src/nvtx.rs", include_str!("../template/src/nvtx.rs")),
    ("tests/audit.rs", include_str!("../template/tests/audit.rs")),
    (
        "tests/audit/probe.rs",
        include_str!("../template/tests/audit/probe.rs"),
    ),
];

/// The workspace's licence texts (the crates are MIT OR Apache-2.0), copied as they are into
/// every emitted crate, whose package must carry them.
pub const LICENCES: &[(&str, &str)] = &[
    ("LICENSE-MIT", include_str!("../../LICENSE-MIT")),
    ("LICENSE-APACHE", include_str!("../../LICENSE-APACHE")),
];

/// The crate documentation (the body of the generated `src/lib.rs`'s `//!` comment).
pub const CRATE_DOCS: &str = include_str!("../template/lib.md");

/// `(path in the emitted crate, template text)` of every file copied into an NVRTC crate: the
/// loader and version wrappers of the runtime's crates, and its own files.
pub const NVRTC_COPIED: &[(&str, &str)] = &[
    ("README.md", include_str!("../template/nvrtc/README.md")),
    ("NOTICE", include_str!("../template/nvrtc/NOTICE")),
    ("src/loader.rs", include_str!("../template/src/loader.rs")),
    ("src/version.rs", include_str!("../template/src/version.rs")),
    (
        "src/error.rs",
        include_str!("../template/nvrtc/src/error.rs"),
    ),
    (
        "src/program.rs",
        include_str!("../template/nvrtc/src/program.rs"),
    ),
    (
        "tests/audit.rs",
        include_str!("../template/nvrtc/tests/audit.rs"),
    ),
    (
        "tests/audit/probe.rs",
        include_str!("../template/tests/audit/probe.rs"),
    ),
];

/// The crate documentation of an NVRTC crate.
pub const NVRTC_CRATE_DOCS: &str = include_str!("../template/nvrtc/lib.md");

/// `(path in the emitted crate, template text)` of every file copied into an nvJitLink crate:
/// the loader and version wrappers of the others, and its own files.
pub const NVJITLINK_COPIED: &[(&str, &str)] = &[
    ("README.md", include_str!("../template/nvjitlink/README.md")),
    ("NOTICE", include_str!("../template/nvjitlink/NOTICE")),
    ("src/loader.rs", include_str!("../template/src/loader.rs")),
    ("src/version.rs", include_str!("../template/src/version.rs")),
    (
        "src/error.rs",
        include_str!("../template/nvjitlink/src/error.rs"),
    ),
    (
        "src/linker.rs",
        include_str!("../template/nvjitlink/src/linker.rs"),
    ),
    (
        "tests/audit.rs",
        include_str!("../template/nvjitlink/tests/audit.rs"),
    ),
    (
        "tests/audit/probe.rs",
        include_str!("../template/tests/audit/probe.rs"),
    ),
];

/// The crate documentation of an nvJitLink crate.
pub const NVJITLINK_CRATE_DOCS: &str = include_str!("../template/nvjitlink/lib.md");

/// The files copied into a crate of `library`, and its crate documentation.
pub fn files_for(library: Library) -> (&'static [(&'static str, &'static str)], &'static str) {
    match library {
        Library::Cudart => (COPIED, CRATE_DOCS),
        Library::Nvrtc => (NVRTC_COPIED, NVRTC_CRATE_DOCS),
        Library::Nvjitlink => (NVJITLINK_COPIED, NVJITLINK_CRATE_DOCS),
    }
}

/// The values of the placeholders for one emitted crate.
#[derive(Clone, Debug)]
pub struct Values<'a> {
    pub crate_name: &'a str,
    pub major: u32,
    pub release: &'a str,
    pub version: &'a str,
    pub abi: &'a str,
    /// The library the crate binds.
    pub library: Library,
}

/// `text` with every placeholder replaced.
pub fn render(text: &str, v: &Values<'_>) -> String {
    let (kind, example, wheel_dir_12) = (
        v.library.kind(),
        v.library.example_function(),
        v.library.wheel_dir_12(),
    );
    text.replace("@CRATE@", v.crate_name)
        .replace("@MAJOR@", &v.major.to_string())
        .replace("@RELEASE@", v.release)
        .replace("@VERSION@", v.version)
        .replace("@ABI@", v.abi)
        .replace("@LIBRARY@", kind)
        .replace("@LIBFILE@", v.library.file_stem())
        .replace("@PATHVAR@", &v.library.path_var())
        .replace("@EXAMPLEFN@", example)
        .replace("@WHEELDIR12@", wheel_dir_12)
}

use crate::library::Library;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_file_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("template");
        let mut on_disk = Vec::new();
        let mut stack = vec![dir.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("template folder").flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(&dir).expect("inside").to_string_lossy();
                    on_disk.push(rel.replace('\\', "/"));
                }
            }
        }
        on_disk.sort();
        let mut embedded: Vec<String> = COPIED.iter().map(|(p, _)| p.to_string()).collect();
        embedded.push("lib.md".into());
        // Each other library's own files are under <library>/; the files it shares with the
        // runtime's crates are the runtime's.
        for (folder, files) in [("nvrtc", NVRTC_COPIED), ("nvjitlink", NVJITLINK_COPIED)] {
            for (path, text) in files {
                if !COPIED.iter().any(|(p, t)| p == path && t == text) {
                    embedded.push(format!("{folder}/{path}"));
                }
            }
            embedded.push(format!("{folder}/lib.md"));
        }
        embedded.sort();
        assert_eq!(
            on_disk, embedded,
            "codegen/template/ and template::COPIED differ"
        );
    }

    #[test]
    fn template_sources_are_rustfmt_clean() {
        // The copies are checked by `cargo fmt --all --check`; checking the template itself
        // says which file to format (`rustfmt --edition 2021 codegen/template/...`).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("template");
        let nvrtc = [("nvrtc", NVRTC_COPIED), ("nvjitlink", NVJITLINK_COPIED)]
            .into_iter()
            .flat_map(|(folder, files)| {
                files
                    .iter()
                    .filter(|(p, t)| !COPIED.iter().any(|(q, u)| q == p && u == t))
                    .map(move |(p, _)| format!("{folder}/{p}"))
            });
        let files: Vec<std::path::PathBuf> = COPIED
            .iter()
            .map(|(p, _)| p.to_string())
            .chain(nvrtc)
            .filter(|p| p.ends_with(".rs"))
            .map(|p| dir.join(p))
            .collect();
        let out = std::process::Command::new("rustfmt")
            .args(["--edition", "2021", "--check"])
            .args(&files)
            .output();
        match out {
            Ok(out) => assert!(
                out.status.success(),
                "template files need `rustfmt --edition 2021`:\n{}",
                String::from_utf8_lossy(&out.stdout)
            ),
            Err(e) => println!("skipped: rustfmt is not available ({e})"),
        }
    }

    #[test]
    fn placeholders_are_filled() {
        for library in Library::ALL {
            let v = Values {
                crate_name: "cudart12",
                major: 12,
                release: "12.8",
                version: "0.2.0",
                abi: "x",
                library,
            };
            let (files, docs) = files_for(library);
            for (path, text) in files.iter().chain([&("lib.md", docs)]) {
                let out = render(text, &v);
                // `@NAME@` with NAME in capitals: a placeholder `render` does not know.
                let left = out.split('@').skip(1).find(|part| {
                    !part.is_empty()
                        && part.bytes().all(|b| b.is_ascii_uppercase())
                        && out.contains(&format!("@{part}@"))
                });
                assert_eq!(left, None, "{path} ({library}) keeps a placeholder");
            }
        }
    }
}
