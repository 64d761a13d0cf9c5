//! Tests of the autodoc reStructuredText parser on the seeds `000_…` and `003_…` and on bad
//! input. The expected counts are facts of the input files (checked by grep when written).

use codegen::diag::Severity;
use codegen::doctype::TypeExpr;
use codegen::ir::{Api, Detail, Direction, Format, TypedefKind};
use codegen::parse::{autodoc, detect::detect};
use proptest::prelude::*;

const CUDART: &str = "docs-src/nvidia-cuda-python-12/cuda.cudart.autodoc.rst";
const CUPY: &str = "docs-src/cupy/cupy.cuda.low-level.rst";

fn read(rel: &str) -> String {
    let path = format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn errors(api: &Api) -> Vec<String> {
    api.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

/// Every diagnostic names the file and a line inside it.
fn assert_diags_in_range(api: &Api, file: &str, text: &str) {
    let max = text.lines().count().max(1) as u32;
    for d in &api.diagnostics {
        assert_eq!(d.file, file);
        assert!(
            d.line >= 1 && d.line <= max,
            "diagnostic outside 1..={max}: {d}"
        );
    }
}

#[test]
fn detects_both_seeds_as_autodoc() {
    assert_eq!(detect(&read(CUDART)), Some(Format::AutodocRst));
    assert_eq!(detect(&read(CUPY)), Some(Format::AutodocRst));
}

#[test]
fn cudart_autodoc_counts_and_sections() {
    let text = read(CUDART);
    let api = autodoc::parse(CUDART, &text);
    assert!(errors(&api).is_empty(), "{:?}", errors(&api));
    assert_eq!(api.functions.len(), 268);
    assert_eq!(api.typedefs.len(), 26);
    assert_eq!(api.enums.len(), 4);
    assert!(api
        .functions
        .iter()
        .all(|f| f.params.is_none() && f.detail == Detail::NamesOnly));
    assert!(api
        .functions
        .iter()
        .all(|f| f.qualified_name == format!("cuda.cudart.{}", f.name)));
    assert!(api
        .typedefs
        .iter()
        .all(|t| t.kind == TypedefKind::Unknown && t.detail == Detail::NamesOnly));
    assert!(api
        .enums
        .iter()
        .all(|e| e.variants.is_empty() && e.detail == Detail::NamesOnly));

    // Every item sits in a section, and every section named by an item exists.
    let names: Vec<&str> = api.sections.iter().map(|s| s.name.as_str()).collect();
    let sections_of = api
        .functions
        .iter()
        .map(|f| &f.section)
        .chain(api.typedefs.iter().map(|t| &t.section))
        .chain(api.enums.iter().map(|e| &e.section));
    for s in sections_of {
        let s = s.as_deref().expect("item without a section");
        assert!(names.contains(&s), "unknown section {s}");
    }
    // The page title `cudart` (overlined, nothing under it but sections) is not a section.
    assert!(!names.contains(&"cudart"));
    assert_eq!(names.len(), 27);
    assert_eq!(names[0], "Profiler Control");

    let f = api.function("cudaMemcpy").unwrap();
    assert_eq!(f.section.as_deref(), Some("Memory Management"));
    let f = api.function("cudaProfilerStart").unwrap();
    assert_eq!(
        (f.section.as_deref(), f.source.line),
        (Some("Profiler Control"), 16)
    );
    let cb = api
        .typedefs
        .iter()
        .find(|t| t.name == "cudaStreamCallback_t")
        .unwrap();
    assert_eq!(cb.section.as_deref(), Some("Stream Management"));
    let e = api.enum_("cudaEglColorFormat").unwrap();
    assert_eq!(
        e.section.as_deref(),
        Some("Data types used by CUDA Runtime")
    );

    // Section intro text is the section's doc; item-free sections keep their text.
    let s = api
        .sections
        .iter()
        .find(|s| s.name == "Unified Addressing")
        .unwrap();
    assert!(s
        .doc
        .starts_with("This section describes the unified addressing functions"));
    assert!(s.doc.contains("**Supported Platforms**"));
    let s = api
        .sections
        .iter()
        .find(|s| s.name == "C++ API Routines")
        .unwrap();
    assert!(s.doc.starts_with("C++-style interface"));
    // Sections with nothing in them are still sections.
    let s = api
        .sections
        .iter()
        .find(|s| s.name == "Direct3D 9 Interoperability")
        .unwrap();
    assert!(s.doc.is_empty());
}

#[test]
fn cupy_entries_and_c_functions() {
    let text = read(CUPY);
    let api = autodoc::parse(CUPY, &text);
    assert!(errors(&api).is_empty(), "{:?}", errors(&api));
    let cupy: Vec<_> = api
        .entries
        .iter()
        .filter(|e| e.name.starts_with("cupy."))
        .collect();
    assert_eq!(cupy.len(), 98);
    assert_eq!(api.entries.len(), 98);
    let runtime: Vec<_> = cupy
        .iter()
        .filter(|e| e.name.starts_with("cupy.cuda.runtime."))
        .collect();
    assert_eq!(runtime.len(), 53);
    assert!(runtime
        .iter()
        .all(|e| e.section.as_deref() == Some("Runtime API")));
    assert!(api
        .entries
        .iter()
        .all(|e| e.directive == "autosummary" && e.section.is_some()));
    let dev = api
        .entries
        .iter()
        .find(|e| e.name == "cupy.cuda.Device")
        .unwrap();
    assert_eq!(
        (dev.section.as_deref(), dev.source.line),
        (Some("Device management"), 11)
    );
    let last = api.entries.last().unwrap();
    assert_eq!(last.name, "cupy.cuda.runtime.eventSynchronize");

    assert_eq!(api.functions.len(), 4);
    let names: Vec<&str> = api.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "get_cupy_allocator_handle",
            "destroy_cupy_allocator_handle",
            "cupy_malloc",
            "cupy_free"
        ]
    );
    assert!(api
        .functions
        .iter()
        .all(|f| f.section.as_deref() == Some("Memory management")));
    let m = api.function("cupy_malloc").unwrap();
    assert_eq!(m.source.line, 58);
    assert_eq!(m.rtype.as_ref().unwrap().expr, TypeExpr::parse("void*"));
    let ps = m.params.as_ref().unwrap();
    assert_eq!(
        ps.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["handle", "size"]
    );
    assert!(ps.iter().all(|p| p.direction == Direction::In));
    assert!(matches!(
        ps[0].ty.as_ref().unwrap().expr,
        TypeExpr::Pointer { .. }
    ));
    assert_eq!(
        ps[1].ty.as_ref().unwrap().expr,
        TypeExpr::Primitive {
            name: "size_t".into()
        }
    );
    assert!(m.doc.starts_with("This function returns a device pointer"));
    assert!(m
        .doc
        .contains("\n\nThis function can only be called on the host"));
    assert_eq!(
        api.function("get_cupy_allocator_handle")
            .unwrap()
            .params
            .as_ref()
            .map(Vec::len),
        Some(0)
    );

    let mem = api
        .sections
        .iter()
        .find(|s| s.name == "Memory management")
        .unwrap();
    assert!(mem.doc.contains("CuPy provides C API"));
    let names: Vec<&str> = api.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), 8);
    assert!(!names.contains(&"Low-Level CUDA Support"));
}

#[test]
fn unknown_directive_is_reported_unread() {
    let text = "Sec\n===\n\n.. a comment\n.. note:: hello\n\n   body\n\n.. autofunction:: m.f\n";
    let api = autodoc::parse("x.rst", text);
    assert_eq!(api.functions.len(), 1);
    assert_eq!(api.functions[0].section.as_deref(), Some("Sec"));
    let d = &api.diagnostics[0];
    assert_eq!((d.severity, d.line, d.unread), (Severity::Warning, 5, 2));
    assert!(api.sections[0].doc.is_empty());
    assert!(d.message.contains("directive `note`"), "{}", d.message);
}

#[test]
fn page_structure_directives_are_notes_and_stray_text_is_unread() {
    let text = "stray\ntext\n\nSec\n===\n\n.. module:: m\n\n.. autofunction:: m.f\n";
    let api = autodoc::parse("x.rst", text);
    assert_eq!(api.functions.len(), 1);
    let got: Vec<(Severity, u32, u32)> = api
        .diagnostics
        .iter()
        .map(|d| (d.severity, d.line, d.unread))
        .collect();
    assert_eq!(got, [(Severity::Note, 7, 0), (Severity::Warning, 1, 2)]);
}

#[test]
fn duplicates_are_reported_and_first_kept() {
    let text = "A\n---\n\n.. autofunction:: m.f\n.. autofunction:: m.f\n.. autosummary::\n\n   m.g\n   m.g\n";
    let api = autodoc::parse("d.rst", text);
    assert_eq!(api.functions.len(), 1);
    assert_eq!(api.entries.len(), 1);
    let w: Vec<u32> = api
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.line)
        .collect();
    assert_eq!(w, [5, 9]);
}

#[test]
fn bad_c_declaration_and_missing_name() {
    let text = "S\n---\n\n.. c:function:: this is not C\n\n.. autoclass::\n";
    let api = autodoc::parse("c.rst", text);
    assert!(api.functions.is_empty() && api.typedefs.is_empty());
    let e: Vec<u32> = api
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.line)
        .collect();
    assert_eq!(e, [4, 6]);
}

#[test]
fn short_underline_is_a_warning() {
    let api = autodoc::parse("u.rst", "Long title\n---\n\n.. autoenum:: m.E\n");
    assert_eq!(api.enums[0].section.as_deref(), Some("Long title"));
    assert_eq!(api.diagnostics.len(), 1);
    assert_eq!(
        (api.diagnostics[0].severity, api.diagnostics[0].line),
        (Severity::Warning, 2)
    );
}

#[test]
fn truncated_and_garbage_input() {
    let text = read(CUDART);
    let cut = &text[..text.len() / 2];
    let api = autodoc::parse(CUDART, cut);
    assert!(!api.functions.is_empty() && api.functions.len() < 268);
    assert_diags_in_range(&api, CUDART, cut);

    let garbage: String = (0u32..4000)
        .map(|i| char::from_u32((i * 7919) % 0x2FF).unwrap_or('?'))
        .collect();
    let api = autodoc::parse("g.rst", &garbage);
    assert_diags_in_range(&api, "g.rst", &garbage);
    let api = autodoc::parse("e.rst", "");
    assert!(api.diagnostics.is_empty() && api.functions.is_empty());
}

fn shuffled_lines(text: &str, picks: &[usize]) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    for &p in picks {
        out.push_str(lines[p % lines.len()]);
        out.push('\n');
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let text = String::from_utf8_lossy(&bytes);
        let api = autodoc::parse("r.rst", &text);
        assert_diags_in_range(&api, "r.rst", &text);
    }

    #[test]
    fn shuffled_real_lines_never_panic(picks in proptest::collection::vec(0usize..10_000, 0..400), cupy in any::<bool>()) {
        let (file, text) = if cupy { (CUPY, read(CUPY)) } else { (CUDART, read(CUDART)) };
        let mixed = shuffled_lines(&text, &picks);
        let api = autodoc::parse(file, &mixed);
        assert_diags_in_range(&api, file, &mixed);
    }
}
