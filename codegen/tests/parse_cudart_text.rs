//! Tests of the rendered `cuda.cudart` page parser on seed `002_…` and on bad input. The
//! expected counts are facts of the input file (checked independently with grep/Python when
//! written: 155 `)#` entry lines, 335 signature parameters, 12 named `Returns` bullets).

use codegen::diag::Severity;
use codegen::doctype::TypeExpr;
use codegen::ir::{Api, Direction, Format, TypedefKind};
use codegen::parse::{cudart_text, detect::detect};
use proptest::prelude::*;

const FILE: &str = "docs-src/nvidia-cuda-python-12/cuda.cudart.txt";

fn read(rel: &str) -> String {
    let path = format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn seed() -> (String, Api) {
    let text = read(FILE);
    let api = cudart_text::parse(FILE, &text);
    (text, api)
}

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

fn names(api: &Api, f: &str, dir: Direction) -> Vec<String> {
    let f = api.function(f).unwrap_or_else(|| panic!("no {f}"));
    f.params
        .as_ref()
        .unwrap()
        .iter()
        .filter(|p| p.direction == dir)
        .map(|p| p.name.clone())
        .collect()
}

#[test]
fn detects_cudart_text() {
    assert_eq!(detect(&read(FILE)), Some(Format::CudartText));
}

#[test]
fn functions_and_sections() {
    let (text, api) = seed();
    assert_diags_in_range(&api, FILE, &text);
    assert!(
        api.diagnostics
            .iter()
            .all(|d| d.severity != Severity::Error),
        "{:?}",
        api.diagnostics
    );
    assert_eq!(api.functions.len(), 155);
    assert_eq!(
        api.functions
            .iter()
            .filter(|f| f.name.starts_with("cuda"))
            .count(),
        152
    );
    assert_eq!(
        api.functions
            .iter()
            .filter(|f| f.name.starts_with("make_"))
            .count(),
        3
    );
    assert!(api
        .functions
        .iter()
        .all(|f| f.qualified_name == format!("cuda.cudart.{}", f.name)));

    // 12 sections (the page title `cudart` is not one), and every function is in one of them.
    assert_eq!(api.sections.len(), 12);
    assert_eq!(api.sections[0].name, "Profiler Control");
    assert!(api.sections[0]
        .doc
        .starts_with("This section describes the profiler control functions"));
    let mut used: Vec<&str> = api
        .functions
        .iter()
        .map(|f| f.section.as_deref().unwrap())
        .collect();
    used.dedup();
    assert_eq!(
        used,
        api.sections
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        api.function("cudaMalloc").unwrap().section.as_deref(),
        Some("Memory Management")
    );

    // Inputs: every signature parameter, in order; outputs: named `Returns` bullets + 4 unnamed.
    let ins: usize = api
        .functions
        .iter()
        .flat_map(|f| f.params.iter().flatten())
        .filter(|p| p.direction == Direction::In)
        .count();
    let outs: Vec<_> = api
        .functions
        .iter()
        .flat_map(|f| f.params.iter().flatten())
        .filter(|p| p.direction == Direction::Out)
        .collect();
    assert_eq!(ins, 335);
    assert_eq!(outs.len(), 16);
    assert_eq!(outs.iter().filter(|p| p.name.is_empty()).count(), 4);

    // The callback class is an opaque typedef.
    assert_eq!(api.typedefs.len(), 1);
    assert_eq!(api.typedefs[0].name, "cudaStreamCallback_t");
    assert_eq!(api.typedefs[0].kind, TypedefKind::Opaque);
}

#[test]
fn parameters_types_and_docs() {
    let (_, api) = seed();
    let f = api.function("cudaDeviceSetLimit").unwrap();
    let ps = f.params.as_ref().unwrap();
    assert_eq!(ps.len(), 2);
    assert_eq!(
        (
            ps[0].name.as_str(),
            ps[0].ty.as_ref().unwrap().text.as_str()
        ),
        ("limit", "cudaLimit")
    );
    assert_eq!(
        ps[1].ty.as_ref().unwrap().expr,
        TypeExpr::Primitive {
            name: "size_t".into()
        }
    );
    assert_eq!(ps[1].doc, "Size of limit");
    assert_eq!(
        f.errors,
        [
            "cudaSuccess",
            "cudaErrorUnsupportedLimit",
            "cudaErrorInvalidValue",
            "cudaErrorMemoryAllocation"
        ]
    );
    assert_eq!(f.rtype.as_ref().unwrap().text, "cudaError_t");
    assert!(f.doc.starts_with("Set resource limits."));
    assert!(f.doc.contains("• cudaLimitStackSize controls"));
    assert_eq!(f.source.line, 83);

    // A single plain (unbulleted) item, and a type given only by the signature's annotation.
    let f = api.function("cudaDeviceGetLimit").unwrap();
    assert_eq!(f.params.as_ref().unwrap()[0].doc, "Limit to query");
    let f = api
        .function("cudaDeviceGetTexture1DLinearMaxWidth")
        .unwrap();
    let ps = f.params.as_ref().unwrap();
    assert_eq!(
        ps.iter()
            .map(|p| p.ty.as_ref().unwrap().text.as_str())
            .collect::<Vec<_>>(),
        ["cudaChannelFormatDesc", "int"]
    );
    assert_eq!(
        names(&api, "cudaDeviceGetTexture1DLinearMaxWidth", Direction::In),
        ["fmtDesc", "device"]
    );

    // Tuple returns: the status codes, then the outputs in order.
    assert_eq!(
        names(&api, "cudaDeviceGetStreamPriorityRange", Direction::Out),
        ["leastPriority", "greatestPriority"]
    );
    assert_eq!(
        names(&api, "cudaStreamGetCaptureInfo_v2", Direction::Out),
        [
            "captureStatus_out",
            "id_out",
            "graph_out",
            "dependencies_out",
            "numDependencies_out"
        ]
    );
    let f = api.function("cudaStreamGetCaptureInfo_v2").unwrap();
    assert_eq!(
        f.errors,
        [
            "cudaSuccess",
            "cudaErrorInvalidValue",
            "cudaErrorStreamCaptureImplicit"
        ]
    );
    let out = f
        .params
        .as_ref()
        .unwrap()
        .iter()
        .find(|p| p.name == "dependencies_out")
        .unwrap();
    assert!(matches!(
        out.ty.as_ref().unwrap().expr,
        TypeExpr::List { .. }
    ));
    let f = api.function("cudaGetErrorName").unwrap();
    let out = f.params.as_ref().unwrap().last().unwrap();
    assert_eq!(
        (out.direction, out.ty.as_ref().unwrap().expr.clone()),
        (Direction::Out, TypeExpr::Bytes)
    );
    assert_eq!(out.doc, "char* pointer to a NULL-terminated string");
    assert_eq!(f.errors, ["cudaSuccess"]);

    // The docs name a parameter differently from the signature: matched by position, reported.
    let f = api.function("cudaMemPoolSetAccess").unwrap();
    assert_eq!(
        f.params.as_ref().unwrap()[1].doc.split('.').next(),
        Some("Array of access descriptors")
    );

    let f = api.function("cudaProfilerStart").unwrap();
    assert_eq!(
        f.see_also,
        [
            "cudaProfilerInitialize",
            "cudaProfilerStop",
            "cuProfilerStart"
        ]
    );
    let f = api.function("cudaDeviceGetCacheConfig").unwrap();
    assert_eq!(
        f.see_also[..2],
        ["cudaDeviceSetCacheConfig", "cudaFuncSetCacheConfig"]
    );
    // Footnote-marked role in a status list.
    assert!(api
        .function("cudaFuncSetCacheConfig")
        .unwrap()
        .errors
        .contains(&"cudaErrorInvalidDeviceFunction".to_string()));
}

#[test]
fn truncation_is_reported_at_the_last_line() {
    let (text, api) = seed();
    let last_line = text.lines().count() as u32;
    let f = api.functions.last().unwrap();
    assert_eq!(f.name, "cudaDeviceEnablePeerAccess");
    assert_eq!(
        names(&api, "cudaDeviceEnablePeerAccess", Direction::In),
        ["peerDevice", "flags"]
    );
    let t: Vec<_> = api
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("ends inside"))
        .collect();
    assert_eq!(t.len(), 1);
    assert_eq!((t[0].severity, t[0].line), (Severity::Warning, last_line));
    assert!(t[0].message.contains("cudaDeviceEnablePeerAccess"));

    // The same page ending cleanly after a complete entry has no such report.
    let cut = text.find("cuda.cudart.cudaDeviceEnablePeerAccess").unwrap();
    let whole = &text[..cut];
    let api = cudart_text::parse(FILE, whole);
    assert!(!api
        .diagnostics
        .iter()
        .any(|d| d.message.contains("ends inside")));
    // Cut in the middle of a description, with a final newline: still detected (mid-sentence).
    let mid = format!("{}\n", &text[..cut + 200]);
    let api = cudart_text::parse(FILE, &mid);
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.message.contains("ends inside")));
}

#[test]
fn unclosed_signature_and_duplicates() {
    let text = "Sec#\n\ncuda.m.f(int a, b\n\nDoes f.\n\nReturns\n\ncudaSuccess\n\ncuda.m.f(int a)#\n\nAgain.\n\nReturns\n\ncudaSuccess\n";
    let api = cudart_text::parse("u.txt", text);
    assert_eq!(api.functions.len(), 1);
    assert_eq!(names(&api, "f", Direction::In), ["a", "b"]);
    let d: Vec<(Severity, u32)> = api
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Note)
        .map(|d| (d.severity, d.line))
        .collect();
    assert_eq!(d, [(Severity::Error, 3), (Severity::Warning, 11)]);

    // A signature spread over lines.
    let text = "S#\n\ncuda.m.g(\n    int a,\n    b: T,\n)#\n\nG.\n\nReturns\n\ncudaSuccess\n";
    let api = cudart_text::parse("m.txt", text);
    assert_eq!(names(&api, "g", Direction::In), ["a", "b"]);
    assert!(
        api.diagnostics.iter().all(|d| d.severity == Severity::Note),
        "{:?}",
        api.diagnostics
    );
}

#[test]
fn garbage_and_empty_input() {
    let garbage: String = (0u32..5000)
        .map(|i| char::from_u32((i * 104_729) % 0x2FF).unwrap_or('#'))
        .collect();
    let api = cudart_text::parse("g.txt", &garbage);
    assert_diags_in_range(&api, "g.txt", &garbage);
    let api = cudart_text::parse("e.txt", "");
    assert!(api.functions.is_empty() && api.diagnostics.is_empty());
    let bytes: Vec<u8> = (0..3000u32).map(|i| (i * 31 % 256) as u8).collect();
    let api = codegen::parse::parse_document("b.txt", &bytes, Some(Format::CudartText));
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..3000)) {
        let text = String::from_utf8_lossy(&bytes);
        let api = cudart_text::parse("r.txt", &text);
        assert_diags_in_range(&api, "r.txt", &text);
    }

    #[test]
    fn real_lines_shuffled_never_panic(picks in proptest::collection::vec(0usize..4000, 0..600)) {
        let text = read(FILE);
        let lines: Vec<&str> = text.lines().collect();
        let mixed: String = picks.iter().map(|&p| format!("{}\n", lines[p % lines.len()])).collect();
        let api = cudart_text::parse(FILE, &mixed);
        assert_diags_in_range(&api, FILE, &mixed);
    }

    #[test]
    fn real_prefixes_never_panic(cut in 0usize..200_000) {
        let text = read(FILE);
        let mut cut = cut.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let api = cudart_text::parse(FILE, &text[..cut]);
        assert_diags_in_range(&api, FILE, &text[..cut]);
    }
}

#[test]
fn stray_text_and_a_repeated_part_are_reported_unread() {
    let text = "stray line\n\nStreams#\n\ncuda.cudart.f(int a)#\n\nDoc.\n\nParameters\n\na (int) – x\n\nReturns\n\ncudaSuccess\n\nParameters\n\nb (int) – y\n";
    let api = cudart_text::parse("u.txt", text);
    assert_eq!(api.functions.len(), 1);
    let unread: Vec<(u32, u32)> = api
        .diagnostics
        .iter()
        .filter(|d| d.unread > 0)
        .map(|d| (d.line, d.unread))
        .collect();
    assert_eq!(unread, [(1, 1), (17, 2)]);
    assert!(api
        .diagnostics
        .iter()
        .filter(|d| d.unread > 0)
        .all(|d| d.severity == Severity::Warning));
}
