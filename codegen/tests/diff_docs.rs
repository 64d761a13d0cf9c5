//! `cargo xtask diff` facts on the real documents: 12.x `cuda.cudart` (autodoc names, seed 000;
//! rendered page, seed 002) against 13.2 `cuda.bindings.runtime` (seed 001).

use std::path::PathBuf;

use codegen::diff::{diff, ItemKind};
use codegen::ir::Api;

fn load(rel: &str) -> Api {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../docs-src")
        .join(rel);
    codegen::merge::merge(vec![codegen::load::load_document(&p, None).expect("loads")])
}

fn names(items: &[codegen::diff::ItemRef], kind: ItemKind) -> Vec<&str> {
    items
        .iter()
        .filter(|i| i.kind == kind)
        .map(|i| i.name.as_str())
        .collect()
}

#[test]
fn cudart_12_names_against_bindings_13_2() {
    let old = load("nvidia-cuda-python-12/cuda.cudart.autodoc.rst");
    let new = load("nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt");
    let d = diff(&old, &new);
    let removed = names(&d.removed, ItemKind::Function);
    let added = names(&d.added, ItemKind::Function);
    // Independent count: the set differences of the two name lists.
    let old_names: std::collections::BTreeSet<&str> =
        old.functions.iter().map(|f| f.name.as_str()).collect();
    let new_names: std::collections::BTreeSet<&str> =
        new.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(removed.len(), old_names.difference(&new_names).count());
    assert_eq!(added.len(), new_names.difference(&old_names).count());
    assert_eq!(removed.len(), 42, "{removed:?}");
    assert_eq!(added.len(), 69);
    // Four of the added are helpers (three `make_*` and `getLocalRuntimeVersion`), not `cuda*`.
    assert_eq!(
        added.iter().filter(|n| !n.starts_with("cuda")).count(),
        4,
        "{added:?}"
    );
    assert_eq!(added.iter().filter(|n| n.starts_with("make_")).count(), 3);
    // The older side states names only: parameter comparisons are reported impossible, not as
    // changes.
    assert!(
        d.changes.iter().all(|c| c.kind != ItemKind::Function),
        "false changes: {:?}",
        d.changes.first()
    );
    assert!(d
        .not_comparable
        .iter()
        .any(|n| n.kind == ItemKind::Function));
}

#[test]
fn cudart_12_page_against_bindings_13_2_reports_signature_changes() {
    let old = load("nvidia-cuda-python-12/cuda.cudart.txt");
    let new = load("nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt");
    let d = diff(&old, &new);
    let changed: std::collections::BTreeSet<&str> = d
        .changes
        .iter()
        .filter(|c| c.kind == ItemKind::Function)
        .map(|c| c.name.as_str())
        .collect();
    println!(
        "{} functions with signature changes, e.g. {:?}",
        changed.len(),
        changed.iter().take(5).collect::<Vec<_>>()
    );
    assert!(!changed.is_empty());
    // Every change concerns a function both pages describe.
    let old_names: std::collections::BTreeSet<&str> =
        old.functions.iter().map(|f| f.name.as_str()).collect();
    let new_names: std::collections::BTreeSet<&str> =
        new.functions.iter().map(|f| f.name.as_str()).collect();
    assert!(changed
        .iter()
        .all(|n| old_names.contains(n) && new_names.contains(n)));
}

#[test]
fn self_diff_is_empty_and_swapping_swaps_added_and_removed() {
    let a = load("nvidia-cuda-python-12/cuda.cudart.txt");
    let b = load("nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt");
    assert!(diff(&b, &b).is_unchanged());
    assert!(diff(&a, &a).is_unchanged());
    let ab = diff(&a, &b);
    let ba = diff(&b, &a);
    let key = |v: &[codegen::diff::ItemRef]| -> Vec<(ItemKind, String)> {
        let mut k: Vec<_> = v.iter().map(|i| (i.kind, i.name.clone())).collect();
        k.sort_by(|x, y| x.1.cmp(&y.1));
        k
    };
    assert_eq!(key(&ab.added), key(&ba.removed));
    assert_eq!(key(&ab.removed), key(&ba.added));
}
