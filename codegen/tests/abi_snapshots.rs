//! The committed ABI snapshots (`abi/<X.Y>.json`, read from each release's headers by `cargo
//! xtask abi`) and their independent check: cudarc's bindings of the same release (pinned in
//! Cargo.lock, located by `cargo metadata`).
//!
//! Every difference between the two must be explained by a reviewed reason below; an
//! unexplained one fails the test. Freshness (a snapshot equals what the headers give now)
//! is checked by xtask's `committed_snapshots_are_fresh`, which needs libclang and the wheels.

use std::path::{Path, PathBuf};

use codegen::abi::compare::{self, DiffKind, Difference, ItemKind};
use codegen::abi::{self, layout, snapshot, Abi};
use codegen::ir::Release;

/// The snapshots committed with this test.
/// Every committed snapshot's release (`abi/*.json`), oldest first.
fn committed() -> Vec<String> {
    let mut out: Vec<Release> = std::fs::read_dir(root().join("abi"))
        .expect("abi/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter_map(|p| Release::parse(&p.file_stem()?.to_string_lossy()))
        .collect();
    out.sort();
    out.iter().map(ToString::to_string).collect()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn load(release: &str) -> Abi {
    let release = Release::parse(release).expect("a release");
    snapshot::load(&snapshot::path(&root(), &release)).unwrap_or_else(|e| panic!("{e}"))
}

/// The header a difference's item is declared in, per the headers' snapshot.
fn header_of<'a>(abi: &'a Abi, d: &Difference) -> Option<&'a str> {
    match d.item {
        ItemKind::Function => abi.functions.get(&d.name).and_then(|f| f.header.as_deref()),
        ItemKind::Record => abi.records.get(&d.name).and_then(|r| r.header.as_deref()),
        ItemKind::Enum => abi.enums.get(&d.name).and_then(|e| e.header.as_deref()),
        ItemKind::Typedef => abi.typedefs.get(&d.name).and_then(|t| t.header.as_deref()),
        ItemKind::Constant => abi.constants.get(&d.name).and_then(|c| c.header.as_deref()),
    }
}

/// Why the headers' ABI and cudarc's differ, reviewed by hand. `None`: unexplained.
///
/// Sources: cudarc's `src/runtime/sys/wrapper.h` (0.19.10) includes `cuda_runtime.h`,
/// `cuda_runtime_api.h` and `cuda_profiler_api.h` only; its bindings generator
/// (`bindings_generator/src/main.rs` in the cudarc repository) allowlists `^[Cc][Uu][Dd][Aa].*`
/// for the runtime, blocklists `cudaDeviceGetNvSciSyncAttributes` (cudarc issue #397), and
/// reads its own stand-in `include/cuda_profiler_api.h`, which declares `cudaProfilerStop`
/// twice and `cudaProfilerStart` not at all.
fn reason(headers: &Abi, d: &Difference) -> Option<String> {
    if d.kind != DiffKind::OnlyLeft {
        return None;
    }
    let header = header_of(headers, d)?;
    if matches!(
        header,
        "cuda_gl_interop.h" | "cuda_egl_interop.h" | "cuda_vdpau_interop.h"
    ) {
        return Some(format!(
            "interop API: declared in {header}, which cudarc's wrapper.h does not include"
        ));
    }
    if let Some(real) = header.strip_prefix("stand-in/") {
        return Some(format!(
            "platform type the interop headers use (from our stand-in for <{real}>); cudarc \
             reads no interop header"
        ));
    }
    match (d.item, d.name.as_str()) {
        (ItemKind::Function, "cudaDeviceGetNvSciSyncAttributes") => {
            Some("blocklisted by cudarc's bindings generator (cudarc issue #397)".to_string())
        }
        (ItemKind::Function, "cudaProfilerStart") => Some(
            "cudarc's generator reads its own stand-in cuda_profiler_api.h, which declares \
             cudaProfilerStop twice and not cudaProfilerStart"
                .to_string(),
        ),
        (ItemKind::Typedef, "CUuuid") => Some(
            "outside cudarc's type allowlist ^[Cc][Uu][Dd][Aa].* (ours has CU.*); cudarc has \
             the struct CUuuid_st it names"
                .to_string(),
        ),
        _ => None,
    }
}

/// Compares the headers' snapshot of `release` with cudarc's bindings, prints the counts and
/// every difference with its reason, and returns the unexplained ones.
fn cross_check(release: &str) -> (compare::Comparison, Vec<String>) {
    let headers = load(release);
    let rel = Release::parse(release).expect("a release");
    let cudarc = abi::load_cudarc(&rel).expect("cudarc is pinned and readable");
    let c = compare::compare(&headers, &cudarc);
    let n = &c.counts;
    println!(
        "CUDA {release}: headers ({}) vs {}",
        headers.origin, cudarc.origin
    );
    println!(
        "  compared: {} functions ({} parameters), {} records ({} fields; {} layouts, {} of them \
         with cudarc's numbers computed from its field types since its bindings carry no layout \
         tests; {} field offsets), {} enums ({} values), {} typedefs, {} constants",
        n.functions,
        n.parameters,
        n.records,
        n.fields,
        n.layouts,
        n.layouts_computed,
        n.offsets,
        n.enums,
        n.enum_values,
        n.typedefs,
        n.constants
    );
    let mut unexplained = Vec::new();
    let mut by_reason: Vec<(String, Vec<String>)> = Vec::new();
    for d in &c.differences {
        let shown = d.to_string().replace("on the left", "in the headers");
        match reason(&headers, d) {
            Some(r) => match by_reason.iter_mut().find(|(x, _)| *x == r) {
                Some((_, items)) => items.push(shown),
                None => by_reason.push((r, vec![shown])),
            },
            None => unexplained.push(shown),
        }
    }
    println!("  {} differences:", c.differences.len());
    for (r, items) in &by_reason {
        println!("  - {} × {r}:", items.len());
        for i in items {
            println!("      {i}");
        }
    }
    for u in &unexplained {
        println!("  - UNEXPLAINED: {u}");
    }
    (c, unexplained)
}

#[test]
fn cudarc_agrees_with_the_13_2_headers() {
    let (c, unexplained) = cross_check("13.2");
    assert!(
        unexplained.is_empty(),
        "differences without a reviewed reason: {unexplained:#?}"
    );
    // What was compared is the bulk of the API, and every common item agrees.
    assert!(c.counts.functions >= 330, "{:?}", c.counts);
    assert!(
        c.counts.layouts >= 100 && c.counts.offsets >= 400,
        "{:?}",
        c.counts
    );
    assert!(c.counts.enum_values >= 700, "{:?}", c.counts);
    assert!(c.differences.iter().all(|d| d.kind == DiffKind::OnlyLeft));
}

#[test]
fn cudarc_agrees_with_the_other_committed_headers_it_knows() {
    // cudarc 0.19.10 has features cuda-11040 … cuda-13040: 13.5 has no counterpart.
    let known = abi::load_cudarc(&Release(vec![13, 2]))
        .expect("cudarc is pinned and readable")
        .known_features;
    let mut checked = 0;
    for release in committed() {
        let feature = abi::cudarc_feature(&Release::parse(&release).unwrap());
        if release == "13.2" || !known.contains(&feature) {
            continue;
        }
        checked += 1;
        let (_, unexplained) = cross_check(&release);
        assert!(
            unexplained.is_empty(),
            "{release}: differences without a reviewed reason: {unexplained:#?}"
        );
    }
    assert!(checked >= 13, "{checked} releases cross-checked");
}

#[test]
fn snapshots_load_and_carry_header_places_only() {
    for release in committed() {
        let path = snapshot::path(&root(), &Release::parse(&release).unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        for absolute in [
            "/work/",
            "/home/",
            "/tmp/",
            "/root/",
            "/cudart-abi-virtual",
            "target/",
        ] {
            assert!(
                !text.contains(absolute),
                "{release}: {absolute} in the snapshot"
            );
        }
        let abi = load(&release);
        assert_eq!(abi.release, Release::parse(&release));
        assert!(
            abi.origin.starts_with("headers of nvidia-cuda-runtime"),
            "{}",
            abi.origin
        );
        assert!(abi.origin.contains("via bindgen"), "{}", abi.origin);
        assert_eq!(
            snapshot::to_json(&abi),
            text,
            "{release}: not in to_json's form"
        );
        assert!(abi
            .packages
            .keys()
            .any(|p| p.starts_with("nvidia-cuda-runtime")));
        let placed = |h: &Option<String>, line: u32| h.is_some() && line > 0;
        assert!(abi.functions.values().all(|f| placed(&f.header, f.line)));
        assert!(abi.records.values().all(|r| placed(&r.header, r.line)));
        assert!(abi.enums.values().all(|e| placed(&e.header, e.line)));
        assert!(abi.typedefs.values().all(|t| placed(&t.header, t.line)));
        assert!(abi.constants.values().all(|c| placed(&c.header, c.line)));
        let errors: Vec<String> = abi
            .diagnostics
            .iter()
            .filter(|d| d.severity != codegen::diag::Severity::Note)
            .map(|d| d.to_string())
            .collect();
        assert!(errors.is_empty(), "{release}: {errors:#?}");
    }
}

#[test]
fn recorded_layouts_match_the_field_types() {
    // clang's numbers (bindgen's layout tests) against the layout the model's own field
    // types give: checks the reader's type mapping and the layout rules at once.
    for release in committed() {
        let abi = load(&release);
        let mut checked = 0;
        for r in abi.records.values() {
            let Some(size) = r.size else {
                assert!(r.opaque, "{release}: {} has no layout", r.name);
                continue;
            };
            let l = layout::record_layout(&abi, &r.name)
                .unwrap_or_else(|| panic!("{release}: {} not computable", r.name));
            assert_eq!(
                (l.size, Some(l.align)),
                (size, r.align),
                "{release}: {}",
                r.name
            );
            for (f, at) in r.fields.iter().zip(&l.offsets) {
                if let Some(o) = f.offset {
                    assert_eq!(o, *at, "{release}: {}::{}", r.name, f.name);
                }
            }
            checked += 1;
        }
        // 12.0 has 75 records with a layout, 13.x over 100.
        assert!(checked >= 70, "{release}: {checked} layouts");
    }
}

#[test]
fn renames_of_12_8_and_their_functions() {
    let abi = load("12.8");
    let expected = [
        ("cudaGetDeviceProperties", "cudaGetDeviceProperties_v2"),
        (
            "cudaSignalExternalSemaphoresAsync",
            "cudaSignalExternalSemaphoresAsync_v2",
        ),
        ("cudaStreamGetCaptureInfo", "cudaStreamGetCaptureInfo_v2"),
        (
            "cudaWaitExternalSemaphoresAsync",
            "cudaWaitExternalSemaphoresAsync_v2",
        ),
    ];
    let got: Vec<(&str, &str)> = abi
        .renames
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(got, expected);
    let (f, symbol) = abi
        .function_for("cudaGetDeviceProperties")
        .expect("renamed");
    assert_eq!(symbol, "cudaGetDeviceProperties_v2");
    assert_eq!(f.header.as_deref(), Some("cuda_runtime_api.h"));
    assert_eq!(f.params[0].ty.c_text, "cudaDeviceProp*");
    // The per-thread-default-stream variants are not in effect by default.
    assert!(!abi
        .renames
        .values()
        .any(|s| s.ends_with("_ptsz") || s.ends_with("_ptds")));
    assert!(!abi
        .functions
        .keys()
        .any(|s| s.ends_with("_ptsz") || s.ends_with("_ptds")));
    // 13.x exports the plain names.
    let new = load("13.2");
    assert!(new.renames.is_empty());
    assert_eq!(
        new.function_for("cudaGetDeviceProperties").unwrap().1,
        "cudaGetDeviceProperties"
    );
    assert_eq!(
        new.macro_aliases["cudaStreamAttrID"],
        "cudaLaunchAttributeID"
    );
}

#[test]
fn the_13_2_snapshot_has_the_facts_the_docs_need() {
    let abi = load("13.2");
    let malloc = &abi.functions["cudaMalloc"];
    let params: Vec<(&str, &str)> = malloc
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.ty.c_text.as_str()))
        .collect();
    assert_eq!(params, [("devPtr", "void**"), ("size", "size_t")]);
    assert_eq!(malloc.header.as_deref(), Some("cuda_runtime_api.h"));
    let prop = &abi.records["cudaDeviceProp"];
    assert_eq!(prop.header.as_deref(), Some("driver_types.h"));
    assert!(prop.size.is_some_and(|s| s > 500));
    assert_eq!(prop.fields[0].offset, Some(0));
    // The interop and profiler APIs are there, with the stand-in platform types.
    for f in [
        "cudaGraphicsGLRegisterBuffer",
        "cudaEGLStreamConsumerConnect",
        "cudaVDPAUGetDevice",
        "cudaProfilerStart",
        "cudaProfilerStop",
    ] {
        assert!(abi.functions.contains_key(f), "{f}");
    }
    assert_eq!(
        abi.typedefs["GLuint"].header.as_deref(),
        Some("stand-in/GL/gl.h")
    );
    // Anonymous unions are placed inside their record.
    let res = &abi.records["cudaResourceDesc__bindgen_ty_1"];
    assert_eq!(res.header.as_deref(), Some("driver_types.h"));
    assert!(res.line > abi.records["cudaResourceDesc"].line);
    // What the model leaves out is said, not dropped.
    assert!(abi
        .diagnostics
        .iter()
        .any(|d| d.message.contains("cudaStreamLegacy") && d.file == "driver_types.h"));
    assert!(abi
        .diagnostics
        .iter()
        .any(|d| d.message.contains("make_cudaExtent") && d.message.contains("static inline")));
}
