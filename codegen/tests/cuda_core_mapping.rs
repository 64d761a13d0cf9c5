//! `docs/cuda-core-mapping.md` against the generated crates: every item of cuda.core 1.2 (the
//! list `scripts/cuda_core_items.py` made from its wheel, `docs/cuda-core-1.2-items.tsv`) has a
//! row, every row says where the item is, why it is not provided, or which issue plans it, and
//! every crate path in a row (`cudart13::Device::arch`, `nvrtc13::Program::compile`) still
//! names an item of the generated crate's sources. Renaming or removing a mapped item fails
//! here until the row follows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace holds codegen/")
        .to_path_buf()
}

/// Every `.rs` file's text under `dir`, concatenated.
fn sources(dir: &Path) -> String {
    let mut out = String::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push_str(&std::fs::read_to_string(&p).unwrap_or_default());
                out.push('\n');
            }
        }
    }
    out
}

/// Whether `word` occurs in `text` as a whole word right after one of the keywords `before`
/// (`fn arch`, `struct Device`, `pub grid:`), or, when `before` has `use`, in a `use` list
/// (`pub use device::{Device, …}`).
fn defines(text: &str, before: &[&str], word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    for (at, _) in text.match_indices(word) {
        if text[at + word.len()..].chars().next().is_some_and(is_word)
            || text[..at].chars().next_back().is_some_and(is_word)
        {
            continue;
        }
        let head = text[..at].trim_end_matches([' ', '\t']);
        let token_start = head
            .char_indices()
            .rev()
            .find(|(_, c)| !is_word(*c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        if before.contains(&&head[token_start..]) {
            return true;
        }
        if before.contains(&"use")
            && (head.ends_with('{') || head.ends_with(',') || head.ends_with("::"))
        {
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let line = &text[line_start..at];
            if line.contains("use ") || line.trim_start().starts_with(|c: char| c.is_uppercase()) {
                return true;
            }
        }
    }
    false
}

/// Whether `path` (`cudart13::Device::arch`) names an item of the crate sources in `crates`.
fn resolves(path: &str, crates: &BTreeMap<String, String>) -> Result<(), String> {
    let mut segments = path.split("::");
    let krate = segments.next().unwrap_or_default();
    let Some(text) = crates.get(krate) else {
        return Err(format!("{path}: no generated crate `{krate}`"));
    };
    let rest: Vec<&str> = segments.collect();
    if rest.is_empty() {
        return Err(format!("{path}: names only a crate"));
    }
    let types = ["struct", "enum", "trait", "type", "use", "as"];
    let members = ["fn", "const", "pub", "static"];
    let mut seen_type = false;
    for (i, seg) in rest.iter().enumerate() {
        let last = i + 1 == rest.len();
        let upper_camel = seg.starts_with(|c: char| c.is_ascii_uppercase())
            && seg.chars().any(|c| c.is_ascii_lowercase());
        let ok = if upper_camel {
            seen_type = true;
            defines(text, &types, seg)
        } else if !seen_type && !last {
            // A module: `pub mod texture` (or `mod` re-exported).
            defines(text, &["mod"], seg)
        } else {
            defines(text, &members, seg)
        };
        if !ok {
            return Err(format!(
                "{path}: `{seg}` is not defined in {krate}'s sources"
            ));
        }
    }
    Ok(())
}

/// The generated crates of the newest majors, by name.
fn crates() -> BTreeMap<String, String> {
    let runtime = workspace().join("runtime");
    ["cudart13", "nvrtc13", "nvjitlink13"]
        .into_iter()
        .map(|c| (c.to_string(), sources(&runtime.join(c).join("src"))))
        .collect()
}

/// The rows of the document's complete table: item → the "here" cell.
fn rows(doc: &str) -> BTreeMap<String, String> {
    let table = doc
        .split("## Every item of cuda.core")
        .nth(1)
        .expect("the document has its complete table");
    let mut out = BTreeMap::new();
    for line in table.lines().filter(|l| l.starts_with("| `cuda.core")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells.len(), 3, "a row of three cells: {line}");
        let item = cells[0].trim_matches('`').to_string();
        assert!(
            out.insert(item.clone(), cells[2].to_string()).is_none(),
            "{item} has two rows"
        );
    }
    out
}

/// The crate paths a cell names (each backtick span starting with a crate name).
fn paths(cell: &str) -> Vec<&str> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| {
            ["cudart13::", "nvrtc13::", "nvjitlink13::"]
                .iter()
                .any(|c| s.starts_with(c))
        })
        .collect()
}

#[test]
fn every_cuda_core_item_has_a_row_whose_paths_exist() {
    let root = workspace();
    let doc = std::fs::read_to_string(root.join("docs/cuda-core-mapping.md")).expect("the mapping");
    let items =
        std::fs::read_to_string(root.join("docs/cuda-core-1.2-items.tsv")).expect("the items");
    let rows = rows(&doc);
    let crates = crates();
    let mut problems = Vec::new();
    let mut listed = 0;
    for line in items.lines().filter(|l| !l.is_empty()) {
        listed += 1;
        let item = line.split('\t').next().unwrap_or_default();
        let Some(cell) = rows.get(item) else {
            problems.push(format!("{item}: no row"));
            continue;
        };
        let found = paths(cell);
        if found.is_empty()
            && !cell.starts_with("not provided:")
            && !cell.starts_with("planned (issue")
        {
            problems.push(format!(
                "{item}: neither a crate path, a reason nor a plan: {cell}"
            ));
        }
        for p in found {
            if let Err(why) = resolves(p, &crates) {
                problems.push(format!("{item}: {why}"));
            }
        }
    }
    assert!(listed > 400, "the item list has {listed} lines");
    assert_eq!(rows.len(), listed, "one row per listed item");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn a_path_that_stopped_existing_is_caught() {
    let crates = crates();
    assert!(resolves("cudart13::Device::arch", &crates).is_ok());
    assert!(resolves("cudart13::texture::CudaArray::new", &crates).is_ok());
    assert!(resolves("cudart13::LaunchConfig::grid", &crates).is_ok());
    assert!(resolves("cudart13::StreamFlags::NON_BLOCKING", &crates).is_ok());
    assert!(resolves("nvrtc13::Compiled::lowered_names", &crates).is_ok());
    assert!(resolves("cudart13::Device::no_such_method", &crates).is_err());
    assert!(resolves("cudart13::NoSuchType::new", &crates).is_err());
    assert!(resolves("cudart13::nosuchmodule::Device", &crates).is_err());
    assert!(resolves("cudart99::Device", &crates).is_err());
}
