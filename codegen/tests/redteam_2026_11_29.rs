//! The red team's reproducers of 2026-11-29 (`shared/redteam/2026-11-29/`) that concern
//! reading, rebuilt from the committed documents: `extern"C" {` without the blank, a lost
//! function excused only by a diagnostic about it, and the summary linear in the number of
//! documents. (The folder's reproducers are `codegen/src/output/folder_tests.rs`.)

use std::path::Path;

use codegen::diag::Severity;
use codegen::ir::{Api, Format};
use codegen::parse::parse_document;

fn header() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../docs-src/nvidia-cuda-headers-13.5/cuda_runtime_api.h"),
    )
    .expect("header present")
}

fn read(text: &str) -> Api {
    parse_document(
        "cuda_runtime_api.h",
        text.as_bytes(),
        Some(Format::DoxygenHeader),
    )
}

fn errors(api: &Api) -> Vec<String> {
    api.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

/// `doxygen-extern-c-no-space.py` (S1): `extern"C" {` is read like `extern "C" {`.
#[test]
fn extern_c_without_a_blank_loses_nothing() {
    let text = header();
    let whole = read(&text).functions.len();
    assert!(whole > 300, "{whole}");
    assert!(text.contains("extern \"C\" {"));
    let damaged = text.replace("extern \"C\" {", "extern\"C\"{");
    let api = read(&damaged);
    assert_eq!(api.functions.len(), whole, "{:?}", errors(&api));
}

/// `doxygen-macro-declarator-silent.py` (S4): a declarator through the headers' own macro,
/// `__CUDART_API_PTDS(name)(…)`, is read or an error names it.
#[test]
fn a_declarator_through_a_macro_is_read_or_named() {
    let text = header();
    let decl = "cudaDeviceSynchronize(void);";
    assert!(text.contains(decl));
    let damaged = text.replacen(decl, "__CUDART_API_PTDS(cudaDeviceSynchronize)(void);", 1);
    let api = read(&damaged);
    let read_in = api
        .functions
        .iter()
        .any(|f| f.name == "cudaDeviceSynchronize");
    let named: Vec<String> = api
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("cudaDeviceSynchronize"))
        .map(|d| d.to_string())
        .collect();
    let names: Vec<&str> = api
        .functions
        .iter()
        .map(|f| f.name.as_str())
        .filter(|n| n.contains("PTDS") || n.contains("Synchronize"))
        .collect();
    assert!(
        read_in || named.iter().any(|d| d.contains("error")),
        "lost without an error: {named:?} {names:?}"
    );
}

/// `census-masked-by-a-mention.py` (S3): a function swallowed by a missing `;` is an error,
/// and a stray comment elsewhere mentioning its name does not hide it.
#[test]
fn a_lost_function_is_not_excused_by_a_mention_elsewhere() {
    let text = header();
    let decl =
        "extern __host__ __cudart_builtin__ cudaError_t CUDARTAPI cudaDeviceSynchronize(void);";
    assert!(text.contains(decl));
    let damaged = text.replacen(decl, &decl[..decl.len() - 1], 1);
    let api = read(&damaged);
    let lost = |api: &Api| !api.functions.iter().any(|f| f.name == "cudaDeviceSetLimit");
    let named = |api: &Api| errors(api).iter().any(|e| e.contains("cudaDeviceSetLimit"));
    assert!(!lost(&api) || named(&api), "lost without an error");
    let k = damaged
        .find("/**\n * \\brief Destroy all allocations")
        .expect("cudaDeviceReset's comment");
    let masked = format!(
        "{}/** cudaDeviceSetLimit: see the limits table. */\n{}",
        &damaged[..k],
        &damaged[k..]
    );
    let api = read(&masked);
    assert!(
        !lost(&api) || named(&api),
        "a mention elsewhere hid the loss: {:?}",
        errors(&api)
    );
}

/// `many-documents-quadratic.py` (P1): the summary finds each document's release in
/// constant time (8,000 and 32,000 documents: 4× the documents, under 8× the time).
#[test]
fn the_summary_is_linear_in_the_documents() {
    fn api(n: usize) -> Api {
        let mut api = Api::default();
        for i in 0..n {
            api.documents.push(codegen::ir::Document {
                file: format!("docs/page-{i}.txt"),
                format: Format::BindingsText,
                release: None,
                publisher: None,
            });
        }
        api
    }
    let time = |n: usize| {
        let a = api(n);
        let start = std::time::Instant::now();
        let text = codegen::summary::render(&a);
        assert!(text.lines().count() > n);
        start.elapsed()
    };
    let small = (0..3).map(|_| time(8_000)).min().expect("runs");
    let big = (0..3).map(|_| time(32_000)).min().expect("runs");
    assert!(
        big < small * 8 + std::time::Duration::from_millis(50),
        "8,000 documents {small:?}, 32,000 {big:?}"
    );
}

/// `bindings-text-field-forms.py` (S5): struct fields written `..  attribute::`,
/// `..<TAB>attribute::` or indented are read or reported by an error (the census counts
/// fields); the page as published has no error.
#[test]
fn text_page_fields_in_other_forms_are_read_or_reported() {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../docs-src/nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt"),
    )
    .expect("page present");
    let parse =
        |text: &str| parse_document("page.txt", text.as_bytes(), Some(Format::BindingsText));
    let fields = |api: &Api| -> usize { api.structs.iter().map(|s| s.fields.len()).sum() };
    let base = parse(&page);
    assert!(errors(&base).is_empty(), "{:?}", errors(&base));
    let whole = fields(&base);
    assert!(whole > 300, "{whole}");
    for form in ["..  attribute:: ", "..\tattribute:: ", "   .. attribute:: "] {
        let text: String = page
            .lines()
            .map(|l| match l.strip_prefix(".. attribute:: ") {
                Some(rest) => format!("{form}{rest}\n"),
                None => format!("{l}\n"),
            })
            .collect();
        let api = parse(&text);
        assert!(
            fields(&api) == whole || !errors(&api).is_empty(),
            "{form:?}: {} of {whole} fields, no error",
            fields(&api)
        );
    }
}
