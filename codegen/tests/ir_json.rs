//! The IR's JSON shape (a contract other tools read) and the merge rules of several sources.

use std::path::PathBuf;

use codegen::ir::{Api, Detail};

fn docs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs-src")
}

fn keys(v: &serde_json::Value) -> Vec<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

fn has(v: &serde_json::Value, wanted: &[&str]) {
    let k = keys(v);
    for w in wanted {
        assert!(k.iter().any(|x| x == w), "missing key `{w}` in {k:?}");
    }
}

#[test]
fn ir_json_keys() {
    let api =
        codegen::merge::merge(codegen::load::load_all(&[docs()], None).expect("docs-src loads"));
    let v = serde_json::to_value(&api).expect("serialises");
    has(
        &v,
        &[
            "functions",
            "enums",
            "structs",
            "typedefs",
            "constants",
            "aliases",
            "sections",
            "diagnostics",
        ],
    );
    let f = &v["functions"].as_array().expect("array")[0];
    has(
        f,
        &["name", "section", "params", "doc", "see_also", "source"],
    );
    has(&f["source"], &["file", "line"]);
    let with_params = v["functions"]
        .as_array()
        .expect("array")
        .iter()
        .find(|f| f["params"].as_array().is_some_and(|p| !p.is_empty()))
        .expect("a function with params");
    let p = &with_params["params"][0];
    has(p, &["name", "type", "direction", "doc"]);
    assert!(p["direction"] == "in" || p["direction"] == "out");
    // Names-only sources state no parameters: `null`, not an empty list.
    assert!(v["functions"]
        .as_array()
        .expect("array")
        .iter()
        .any(|f| f["params"].is_null()));
    has(&v["enums"][0], &["name", "variants"]);
    has(
        &v["enums"]
            .as_array()
            .expect("array")
            .iter()
            .find(|e| !e["variants"].as_array().expect("array").is_empty())
            .expect("an enum with members")["variants"][0],
        &["name", "value", "doc"],
    );
    has(&v["structs"][0], &["name", "fields"]);
    has(&v["structs"][0]["fields"][0], &["name", "type", "doc"]);
    has(&v["typedefs"][0], &["name", "fields", "doc"]);
    has(&v["constants"][0], &["name", "value", "doc"]);
    has(&v["sections"][0], &["name", "doc"]);
    // The JSON reads back into the same IR.
    let back: Api = serde_json::from_value(v).expect("deserialises");
    assert_eq!(back.functions.len(), api.functions.len());
}

#[test]
fn merge_newest_wins_older_fills_and_sources_are_listed() {
    let apis = codegen::load::load_all(&[docs()], None).expect("docs-src loads");
    let per_file: Vec<(String, usize)> = apis
        .iter()
        .map(|a| (a.documents[0].file.clone(), a.functions.len()))
        .collect();
    let merged = codegen::merge::merge(apis);
    // The 13.2 page is the newest: it wins for functions it describes…
    let malloc = merged.function("cudaMalloc").expect("documented");
    assert!(
        malloc.source.file.contains("13.2"),
        "{}",
        malloc.source.file
    );
    assert!(malloc.params.is_some());
    // …and every document that mentions it is listed (the 12.x autodoc page and rendered page).
    assert!(malloc.sources.len() >= 2, "{:?}", malloc.sources);
    assert!(malloc
        .sources
        .iter()
        .any(|s| s.file.contains("cuda.cudart.autodoc.rst")));
    // Functions only the 12.x pages describe are filled in from them, marked by provenance.
    let only_old: Vec<_> = merged
        .functions
        .iter()
        .filter(|f| f.source.file.contains("nvidia-cuda-python-12"))
        .collect();
    assert!(
        !only_old.is_empty(),
        "no function filled from the 12.x pages: {per_file:?}"
    );
    // Between the two 12.x pages, the one stating parameters wins over the names-only one.
    for f in &only_old {
        let stated_elsewhere = f
            .sources
            .iter()
            .any(|s| s.file.ends_with("cuda.cudart.txt"));
        if stated_elsewhere {
            assert_eq!(f.detail, Detail::Full, "{}", f.name);
        }
    }
    // No function is lost or duplicated.
    let mut names: Vec<&str> = merged.functions.iter().map(|f| f.name.as_str()).collect();
    names.sort();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len());
}

#[test]
fn a_single_file_gives_that_files_items_only() {
    let one = docs().join("cupy/cupy.cuda.low-level.rst");
    let api = codegen::merge::merge(codegen::load::load_all(&[one], None).expect("loads"));
    assert_eq!(api.documents.len(), 1);
    assert!(api
        .functions
        .iter()
        .all(|f| f.source.file.ends_with("cupy.cuda.low-level.rst")));
    assert_eq!(api.entries.len(), 98);
}

#[test]
fn missing_paths_are_errors_not_panics() {
    let err =
        codegen::load::load_all(&[docs().join("no-such-file.txt")], None).expect_err("missing");
    assert!(err.to_string().contains("no such file"), "{err}");
}
