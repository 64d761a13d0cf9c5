//! Walks the doc comments of every generated file (`src/sys/*.rs`, `src/api.rs` of `cudart13`
//! and `nvrtc13`) and
//! fails on
//! reStructuredText left over from the documentation: roles (`:py:obj:`, `:obj:`,
//! `:py:func:`), field lists (`:param`, `:type`, `:returns:`) and directives (`.. seealso`,
//! `.. note`).

use std::path::PathBuf;

const LEFTOVERS: &[&str] = &[
    ":py:obj:",
    ":obj:",
    ":py:func:",
    ":py:class:",
    ":param",
    ":type ",
    ":returns:",
    ":rtype:",
    ".. seealso",
    ".. note",
    ".. attribute",
];

fn generated_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for krate in ["cudart13", "nvrtc13"] {
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../runtime")
            .join(krate)
            .join("src");
        files.extend(
            std::fs::read_dir(src.join("sys"))
                .expect("src/sys of a generated crate")
                .map(|e| e.expect("dir entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "rs")),
        );
        files.push(src.join("api.rs"));
    }
    files.sort();
    files
}

/// Whether `doc` has `pattern` as RST: not inside a Rust path (`Params::params::x` holds
/// `:param` but is no field list), i.e. not preceded by `:` or a word character.
fn is_rst(doc: &str, pattern: &str) -> bool {
    doc.match_indices(pattern).any(|(at, _)| {
        !doc[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c == ':' || c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn the_leftover_check_tells_rst_from_rust_paths() {
    assert!(is_rst("see :py:obj:`~.cudaMalloc`", ":py:obj:"));
    assert!(is_rst(":param devPtr: pointer", ":param"));
    assert!(is_rst("text .. seealso:: x", ".. seealso"));
    assert!(!is_rst("[`X`](crate::sys::X)::params::fence", ":param"));
    assert!(!is_rst("cudaMemLocation::type to", ":type "));
}

#[test]
fn generated_docs_have_no_leftover_rst() {
    let files = generated_files();
    assert!(files.len() >= 7, "only {} generated files", files.len());
    let mut doc_lines = 0;
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read generated file");
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            let Some(doc) = t.strip_prefix("///").or_else(|| t.strip_prefix("//!")) else {
                continue;
            };
            doc_lines += 1;
            for bad in LEFTOVERS {
                if is_rst(doc, bad) {
                    found.push(format!(
                        "{}:{}: `{bad}` in {}",
                        f.file_name().unwrap_or_default().to_string_lossy(),
                        i + 1,
                        doc.trim()
                    ));
                }
            }
        }
    }
    assert!(doc_lines > 10_000, "only {doc_lines} doc lines read");
    assert!(
        found.is_empty(),
        "{} leftover RST fragment(s):\n{}",
        found.len(),
        found.join("\n")
    );
}
