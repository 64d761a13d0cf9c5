//! Tests of the coverage classifier on hand-built documentation, ABI and export sets: every
//! class, the grouping of `_ptsz`/`_ptds`, `_vN` and `__cuda` names, per-section counts,
//! coverage of a name set against itself, the ELF reader's errors, the renderers and the
//! committed JSON schema.

use crate::common;

use codegen::abi::{self, Abi, AbiType};
use codegen::coverage::{self, group, Class, Coverage, ExportError, Exports};
use codegen::ir::{Api, Detail, Document, Format, Function, Release, Section, Source};
use codegen::report::OutputFormat;

fn doc_fn(name: &str, section: Option<&str>, line: u32) -> Function {
    Function {
        name: name.into(),
        qualified_name: format!("runtime.{name}"),
        section: section.map(String::from),
        params: None,
        rtype: None,
        errors: vec![],
        doc: String::new(),
        see_also: vec![],
        detail: Detail::Full,
        source: Source::new("/somewhere/docs-src/pub/doc.txt", line),
        sources: vec![],
    }
}

fn api(functions: Vec<Function>, sections: &[&str]) -> Api {
    Api {
        documents: vec![Document {
            file: "/somewhere/docs-src/pub/doc.txt".into(),
            format: Format::BindingsText,
            release: Release::parse("13.2"),
            publisher: None,
        }],
        sections: sections
            .iter()
            .enumerate()
            .map(|(i, s)| Section {
                name: (*s).into(),
                doc: String::new(),
                source: Source::new("doc.txt", i as u32 + 1),
                id: None,
            })
            .collect(),
        functions,
        ..Api::default()
    }
}

fn abi_of(names: &[&str]) -> Abi {
    let mut abi = Abi {
        file: "/home/u/.cargo/registry/src/x/cudarc-0.19.10/src/runtime/sys/mod.rs".into(),
        origin: "cudarc 0.19.10 `src/runtime/sys/mod.rs`, feature `cuda-13020`".into(),
        release: Release::parse("13.2"),
        ..Abi::default()
    };
    for (i, n) in names.iter().enumerate() {
        let f = abi::Function {
            name: (*n).into(),
            params: vec![],
            ret: AbiType::void(),
            header: None,
            line: 100 + i as u32,
        };
        abi.functions.insert((*n).into(), f);
    }
    abi
}

const MEM: &str = "Memory Management";
const STREAM: &str = "Stream Management";

/// A fixture with at least one name of every class.
fn fixture() -> Coverage {
    let docs = api(
        vec![
            doc_fn("cudaMalloc", Some(MEM), 10),
            doc_fn("cudaFree", Some(MEM), 20),
            doc_fn("cudaStreamCreate", Some(STREAM), 30),
            doc_fn("cudaLaunchHostFunc", Some(STREAM), 35),
            doc_fn("cudaNewerThing", Some(STREAM), 40),
            doc_fn("cudaGLRegisterBuffer", Some("OpenGL Interoperability"), 50),
            doc_fn("make_cudaPos", None, 60),
        ],
        // Declared out of alphabetical order: the report keeps the documentation's order.
        &[STREAM, MEM, "OpenGL Interoperability", "Unused Section"],
    );
    let abi = abi_of(&[
        "cudaMalloc",
        "cudaFree",
        "cudaStreamCreate",
        "cudaLaunchHostFunc",
        "cudaNewerThing",
        "cudaLaunchHostFunc_v2",
        "cudaAbiOnlyThing",
    ]);
    let exports = Exports::from_names(
        "/opt/lib/libcudart.so.13",
        [
            "cudaMalloc",
            "cudaFree",
            "cudaStreamCreate",
            "cudaLaunchHostFunc",
            "cudaGLRegisterBuffer",
            "cudaMemcpy_ptds",
            "cudaStreamCreate_ptsz",
            "cudaStreamGetCaptureInfo_v2_ptsz",
            "cudaLaunchHostFunc_v2",
            "cudaGetDeviceProperties_v12",
            "__cudaRegisterFatBinary",
            "__cudaLaunchKernel_ptsz",
            "cudaSecretHelper",
            "cudaProfilerVersion",
        ],
    );
    coverage::audit(&docs, &abi, &exports, Some(13020))
}

fn class_of(c: &Coverage, name: &str) -> Class {
    c.row(name)
        .unwrap_or_else(|| panic!("no row for {name}"))
        .class
}

#[test]
fn every_name_of_the_union_is_classified_exactly_once() {
    let c = fixture();
    // 7 documented + 2 undocumented ABI names (v2, AbiOnlyThing; v2 is exported too) + 8
    // exported names neither documented nor in the ABI (ptds, 2 ptsz, v12, 2 __cuda, 2 other).
    let mut names: Vec<&str> = c.rows.iter().map(|r| r.name.as_str()).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n, "a name appears twice");
    assert_eq!(n, 17);
    assert_eq!(c.totals.names, 17);
    assert_eq!(c.totals.documented, 7);
    assert_eq!(c.totals.in_abi, 7);
    assert_eq!(c.totals.exported, 14);
    let sum: usize = c.totals.classes.iter().map(|cc| cc.count).sum();
    assert_eq!(sum, 17);
    assert_eq!(c.totals.classes.len(), Class::ALL.len());
}

#[test]
fn documented_functions_are_bound_not_exported_or_without_abi() {
    let c = fixture();
    for n in [
        "cudaMalloc",
        "cudaFree",
        "cudaStreamCreate",
        "cudaLaunchHostFunc",
    ] {
        assert_eq!(class_of(&c, n), Class::Bound, "{n}");
    }
    assert_eq!(class_of(&c, "cudaNewerThing"), Class::NotExported);
    let gl = c.row("cudaGLRegisterBuffer").unwrap();
    assert_eq!(gl.class, Class::NoAbi);
    assert!(gl.exported && !gl.in_abi && !gl.bound);
    assert!(
        gl.note
            .as_deref()
            .is_some_and(|n| n.contains("not declared by the ABI")),
        "{:?}",
        gl.note
    );
    let helper = c.row("make_cudaPos").unwrap();
    assert_eq!(helper.class, Class::NoAbi);
    assert!(!helper.exported);
    assert!(
        helper
            .note
            .as_deref()
            .is_some_and(|n| n.contains("inline helper")),
        "{:?}",
        helper.note
    );
    assert_eq!(helper.section.as_deref(), Some(coverage::NO_SECTION));
    assert_eq!(c.totals.bound, 5, "bound + not-exported");
    assert_eq!(c.totals.bound_percent, 57.1, "4 of 7");
}

#[test]
fn undocumented_exports_are_grouped_by_name_shape() {
    let c = fixture();
    assert_eq!(
        class_of(&c, "cudaMemcpy_ptds"),
        Class::UndocumentedPerThread
    );
    assert_eq!(
        class_of(&c, "cudaStreamCreate_ptsz"),
        Class::UndocumentedPerThread
    );
    assert_eq!(
        class_of(&c, "cudaStreamGetCaptureInfo_v2_ptsz"),
        Class::UndocumentedPerThread
    );
    assert_eq!(
        class_of(&c, "cudaLaunchHostFunc_v2"),
        Class::UndocumentedVersioned
    );
    assert_eq!(
        class_of(&c, "cudaGetDeviceProperties_v12"),
        Class::UndocumentedVersioned
    );
    assert_eq!(
        class_of(&c, "__cudaRegisterFatBinary"),
        Class::UndocumentedInternal
    );
    // `__cuda` wins over the per-thread suffix.
    assert_eq!(
        class_of(&c, "__cudaLaunchKernel_ptsz"),
        Class::UndocumentedInternal
    );
    assert_eq!(class_of(&c, "cudaSecretHelper"), Class::UndocumentedOther);
    // `_version`-like words are not `_vN`.
    assert_eq!(
        class_of(&c, "cudaProfilerVersion"),
        Class::UndocumentedOther
    );
    let t = &c.totals;
    assert_eq!(t.count(Class::UndocumentedPerThread), 3);
    assert_eq!(t.count(Class::UndocumentedVersioned), 2);
    assert_eq!(t.count(Class::UndocumentedInternal), 2);
    assert_eq!(t.count(Class::UndocumentedOther), 2);
    // Variants point at the documented function they vary.
    assert_eq!(
        c.row("cudaStreamCreate_ptsz")
            .unwrap()
            .variant_of
            .as_deref(),
        Some("cudaStreamCreate")
    );
    assert_eq!(
        c.row("cudaLaunchHostFunc_v2")
            .unwrap()
            .variant_of
            .as_deref(),
        Some("cudaLaunchHostFunc")
    );
    assert_eq!(
        c.row("cudaMemcpy_ptds").unwrap().variant_of,
        None,
        "cudaMemcpy is not documented here"
    );
    // An exported ABI function without docs is an undocumented export, with in_abi set.
    let v2 = c.row("cudaLaunchHostFunc_v2").unwrap();
    assert!(v2.in_abi && v2.exported && !v2.documented);
    assert_eq!(c.totals.abi_undocumented, 2);
}

#[test]
fn abi_only_is_declared_but_neither_documented_nor_exported() {
    let c = fixture();
    let r = c.row("cudaAbiOnlyThing").unwrap();
    assert_eq!(r.class, Class::AbiOnly);
    assert_eq!(r.source, "cudarc-0.19.10/src/runtime/sys/mod.rs:106");
    assert_eq!(c.totals.count(Class::AbiOnly), 1);
}

#[test]
fn sources_sections_and_order() {
    let c = fixture();
    assert_eq!(c.row("cudaFree").unwrap().source, "docs-src/pub/doc.txt:20");
    assert_eq!(c.row("cudaFree").unwrap().section.as_deref(), Some(MEM));
    assert_eq!(c.row("cudaSecretHelper").unwrap().source, "libcudart.so.13");
    assert_eq!(c.row("cudaSecretHelper").unwrap().section, None);
    assert_eq!(c.documents[0].file, "docs-src/pub/doc.txt");
    // Rows sorted by class order, then name.
    let keys: Vec<(usize, &str)> = c
        .rows
        .iter()
        .map(|r| {
            (
                Class::ALL.iter().position(|k| *k == r.class).unwrap(),
                r.name.as_str(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    // Sections in documentation order, empty ones left out, the unsectioned last.
    let names: Vec<&str> = c.sections.iter().map(|s| s.section.as_str()).collect();
    assert_eq!(
        names,
        [STREAM, MEM, "OpenGL Interoperability", coverage::NO_SECTION]
    );
    let stream = &c.sections[0];
    assert_eq!(
        (
            stream.documented,
            stream.bound,
            stream.not_exported,
            stream.no_abi
        ),
        (3, 2, 1, 0)
    );
    assert_eq!(stream.bound_percent, 66.7);
    let mem = &c.sections[1];
    assert_eq!(
        (mem.documented, mem.bound, mem.bound_percent),
        (2, 2, 100.0)
    );
    assert_eq!(c.sections[2].no_abi, 1);
    assert_eq!(c.library.version_text.as_deref(), Some("13.2"));
    assert_eq!(c.library.exported_functions, 14);
}

#[test]
fn coverage_of_a_name_set_against_itself_is_all_bound() {
    let names = [
        "cudaMalloc",
        "cudaFree",
        "cudaMemcpy_v2",
        "cudaStreamCreate_ptsz",
    ];
    let docs = api(
        names
            .iter()
            .enumerate()
            .map(|(i, n)| doc_fn(n, Some(MEM), i as u32 + 1))
            .collect(),
        &[MEM],
    );
    let abi = abi_of(&names);
    let exports = Exports::from_names("libcudart.so", names);
    let c = coverage::audit(&docs, &abi, &exports, None);
    assert_eq!(c.rows.len(), names.len());
    assert!(
        c.rows.iter().all(|r| r.class == Class::Bound),
        "{:?}",
        c.rows
    );
    assert_eq!(c.totals.bound_percent, 100.0);
    assert_eq!(c.sections.len(), 1);
    assert_eq!(c.sections[0].bound_percent, 100.0);
    assert_eq!(c.library.version_text, None);
}

#[test]
fn empty_inputs_give_an_empty_report() {
    let c = coverage::audit(&Api::default(), &Abi::default(), &Exports::default(), None);
    assert!(c.rows.is_empty());
    assert_eq!(c.totals.bound_percent, 0.0);
    assert!(c.sections.is_empty());
    // Renderers do not fail on it.
    for f in [
        OutputFormat::Markdown,
        OutputFormat::Html,
        OutputFormat::Json,
    ] {
        assert!(!coverage::render::render(&c, f).is_empty());
    }
}

#[test]
fn name_shapes() {
    assert_eq!(
        group::per_thread_base("cudaMemcpy_ptds"),
        Some("cudaMemcpy")
    );
    assert_eq!(group::per_thread_base("_ptsz"), None);
    assert_eq!(group::per_thread_base("cudaMemcpy_ptdsx"), None);
    assert_eq!(group::versioned_base("cudaX_v2"), Some("cudaX"));
    assert_eq!(group::versioned_base("cudaX_v12"), Some("cudaX"));
    assert_eq!(group::versioned_base("cudaX_v"), None);
    assert_eq!(group::versioned_base("cudaX_version"), None);
    assert_eq!(group::versioned_base("cudaX_v2a"), None);
    assert_eq!(group::bases("f_v2_ptsz"), ["f_v2", "f"]);
    assert!(group::bases("f").is_empty());
}

#[test]
fn class_names_and_fail_on_selectors() {
    for c in Class::ALL {
        assert_eq!(Class::from_name(c.name()), Some(c));
        let json = serde_json::to_value(c).unwrap();
        assert_eq!(json, c.name(), "serde name equals Class::name");
        assert!(c.title().chars().count() <= 40, "{}", c.title());
    }
    assert_eq!(Class::select("undocumented").unwrap().len(), 4);
    assert_eq!(Class::select("no-abi"), Some(vec![Class::NoAbi]));
    assert_eq!(Class::select("nonsense"), None);
}

#[test]
fn non_elf_input_is_an_error_not_a_panic() {
    for (label, bytes) in [
        ("empty", &b""[..]),
        ("text", &b"[package]\nname = \"x\"\n"[..]),
        (
            "truncated ELF",
            &b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0"[..],
        ),
    ] {
        // The headers are checked first: what is cut short is named as such before anything
        // parses the rest.
        match coverage::exports_from_bytes(label, bytes) {
            Err(ExportError::NotElf { path, .. }) if label != "truncated ELF" => {
                assert_eq!(path, label)
            }
            Err(e @ ExportError::NotLoadable { .. }) if label == "truncated ELF" => {
                assert!(e.to_string().contains("the file is truncated"), "{e}")
            }
            other => panic!("{label}: got {other:?}"),
        }
    }
    let missing = std::path::Path::new("/no/such/dir/libcudart.so.13");
    match coverage::read_exports(missing) {
        Err(e @ ExportError::Read { .. }) => assert!(e
            .to_string()
            .starts_with("/no/such/dir/libcudart.so.13: cannot read")),
        other => panic!("expected Read error, got {other:?}"),
    }
}

#[test]
fn this_test_binary_is_elf_but_exports_are_read_without_panicking() {
    // The running test executable is a real ELF file; whatever it exports, reading it must
    // either succeed or fail with a typed error (it is not necessarily a shared object).
    let exe = std::env::current_exe().unwrap();
    match coverage::read_exports(&exe) {
        Ok(e) => assert!(e
            .functions
            .iter()
            .all(|n| !n.is_empty() && !n.contains('@'))),
        Err(ExportError::NotElf { why, .. }) => {
            assert!(why.contains("not a shared object"), "{why}")
        }
        Err(other) => panic!("unexpected error {other}"),
    }
}

#[test]
fn reports_show_totals_sections_and_rows() {
    let c = fixture();
    let md = coverage::render::render(&c, OutputFormat::Markdown);
    assert!(md.starts_with("# API coverage: libcudart.so.13 (CUDA runtime 13.2)"));
    assert!(md.contains("| not-exported | 1 |"), "{md}");
    assert!(
        md.contains("| `cudaNewerThing` | not-exported | Stream Management |"),
        "{md}"
    );
    assert!(
        md.contains("| Stream Management | 3 | 2 | 1 | 0 | 66.7 |"),
        "{md}"
    );
    let html = coverage::render::render(&c, OutputFormat::Html);
    assert!(html.contains("<tr data-name=\"cudaMemcpy_ptds\">"));
    assert!(html.contains("<table id=\"t-undocumented-per-thread\""));
    let summary = coverage::render::summary(&c);
    assert!(summary.lines().count() <= 40, "one screen:\n{summary}");
    assert!(
        summary.contains("!! Not exported (needs a newer runtime) (1):"),
        "{summary}"
    );
    assert!(summary.contains("cudaNewerThing"));
}

// --- JSON schema -----------------------------------------------------------------------

use common::check;

#[test]
fn json_matches_the_committed_schema() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/coverage-report.schema.json"
    );
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(
        schema["properties"]["schema_version"]["const"],
        coverage::SCHEMA_VERSION
    );
    let classes: Vec<&str> = schema["$defs"]["class"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    let ours: Vec<&str> = Class::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(
        classes, ours,
        "the schema lists every class, in report order"
    );

    let c = fixture();
    // The fixture has every optional key at least once.
    assert!(
        c.rows.iter().any(|r| r.note.is_some()) && c.rows.iter().any(|r| r.variant_of.is_some())
    );
    let json: serde_json::Value = serde_json::from_str(&coverage::render::to_json(&c)).unwrap();
    check(&schema, &schema, &json, "$").unwrap();
    // The checker rejects what the schema forbids.
    let mut bad = json.clone();
    bad["rows"][0]["class"] = "covered".into();
    assert!(check(&schema, &schema, &bad, "$").is_err());
    let mut bad = json.clone();
    bad["rows"][0].as_object_mut().unwrap().remove("exported");
    assert!(check(&schema, &schema, &bad, "$").is_err());
    let mut bad = json;
    bad["totals"]["bound_percent"] = 101.into();
    assert!(check(&schema, &schema, &bad, "$").is_err());
    // The JSON reads back into the same coverage.
    let back: Coverage = serde_json::from_str(&coverage::render::to_json(&c)).unwrap();
    assert_eq!(back, c);
}

/// What coverage counts as bound is what the committed crate declares: with the documents of
/// the manifest's first `[[crate]]` (headers included), every function of the crate's raw
/// layer is documented and bound, and nothing else is.
#[test]
fn coverage_of_the_crate_documents_matches_the_committed_crate() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let docs_src = root.join("docs-src");
    let entry = codegen::load::crates(&docs_src).unwrap().remove(0);
    let docs: Vec<std::path::PathBuf> = entry.docs.iter().map(|d| docs_src.join(d)).collect();
    let api = codegen::merge::merge(codegen::load::load_all(&docs, None).unwrap());
    let release = codegen::pipeline::release_of(&api).unwrap();
    let abi = codegen::abi::load_snapshot(&root, &release).unwrap();
    let exports = Exports::from_names("libcudart.so", abi.functions.keys().cloned());
    let c = coverage::audit(&api, &abi, &exports, None);
    let crate_fns: std::collections::BTreeSet<String> =
        codegen::diff::RustdocLinks::read(&root.join(&entry.dir), &entry.name, "")
            .unwrap()
            .items
            .into_iter()
            .filter(|(_, kind)| *kind == "fn")
            .map(|(name, _)| name)
            .collect();
    let bound: std::collections::BTreeSet<String> = c
        .rows
        .iter()
        .filter(|r| r.documented && r.bound)
        .map(|r| r.name.clone())
        .collect();
    let only_crate: Vec<&String> = crate_fns.difference(&bound).collect();
    let only_coverage: Vec<&String> = bound.difference(&crate_fns).collect();
    // The crate also binds the functions only the ABI declares (`cudaGetExportTable`).
    for name in &only_crate {
        let row = c
            .row(name)
            .unwrap_or_else(|| panic!("{name} not in the report"));
        assert!(!row.documented && row.in_abi, "{row:?}");
    }
    assert!(
        only_coverage.is_empty(),
        "bound by coverage only: {only_coverage:?}"
    );
    assert!(c.totals.documented > 360, "{:?}", c.totals);
}
