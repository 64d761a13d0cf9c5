//! Which release a page describes, from its items alone ([`codegen::diff::identify`]): each
//! real page of the workspace's documents matches the committed snapshot of its own release
//! and no other, whatever its manifest entry says (the release it states is not read).

use std::path::PathBuf;

use codegen::abi::{snapshot, Abi};
use codegen::diff::identify::identify;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn snapshots() -> Vec<Abi> {
    snapshot::list_in(&root().join("abi"))
        .into_iter()
        .map(|(_, p)| snapshot::load(&p).unwrap())
        .collect()
}

fn page(rel: &str) -> codegen::ir::Api {
    let path = root().join("docs-src").join(rel);
    codegen::merge::merge(codegen::load::load_all(&[path], None).unwrap())
}

#[test]
fn every_real_page_matches_its_own_release_alone() {
    let abis = snapshots();
    let refs: Vec<&Abi> = abis.iter().collect();
    for (rel, want) in [
        ("nvidia-cuda-bindings-12.8.0/runtime.txt", "12.8"),
        ("nvidia-cuda-bindings-13.1.1/runtime.txt", "13.1"),
        ("nvidia-cuda-bindings-13.3.0/runtime.txt", "13.3"),
        ("nvidia-cuda-bindings-13.4.4/runtime.txt", "13.4"),
        ("nvidia-cuda-bindings-13.4.4/runtime.html", "13.4"),
    ] {
        let id = identify(&page(rel), &refs);
        let matched: Vec<String> = id
            .matches()
            .iter()
            .map(|f| snapshot::short_release(f.release.as_ref().unwrap()))
            .collect();
        let nearest: Vec<String> = id
            .fits
            .iter()
            .take(4)
            .map(|f| {
                format!(
                    "{:?} foreign {} lacking {}",
                    f.release.as_ref().map(ToString::to_string),
                    f.foreign,
                    f.lacking
                )
            })
            .collect();
        assert_eq!(matched, [want], "{rel}: {nearest:?}");
    }
}

#[test]
fn a_handful_of_items_or_a_mixture_matches_nothing() {
    let abis = snapshots();
    let refs: Vec<&Abi> = abis.iter().collect();
    // Two functions every release has: too few to tell a release.
    let mut few = codegen::ir::Api::default();
    let full = page("nvidia-cuda-bindings-13.1.1/runtime.txt");
    few.functions = full
        .functions
        .iter()
        .filter(|f| f.name == "cudaMalloc" || f.name == "cudaFree")
        .cloned()
        .collect();
    assert_eq!(few.functions.len(), 2);
    assert_eq!(identify(&few, &refs).matched, 0);
    // The 12.8 page with one function of 13.0 on: no release declares all of it.
    let mut mixed = page("nvidia-cuda-bindings-12.8.0/runtime.txt");
    let newer = full
        .functions
        .iter()
        .find(|f| f.name == "cudaDeviceGetExecutionCtx")
        .unwrap()
        .clone();
    mixed.functions.push(newer);
    let id = identify(&mixed, &refs);
    assert_eq!(id.matched, 0, "{:?}", &id.fits[..2]);
    assert!(id.fits[0].foreign >= 1);
}
