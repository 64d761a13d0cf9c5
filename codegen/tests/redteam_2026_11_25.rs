//! The red team's inputs of 2026-11-25 (`codegen/tests/redteam/2026-11-25/`, copied from the
//! shared folder; the big ones are made here from the committed documents): every item they
//! hid is read, or an error diagnostic names it; names are never cut; time stays linear.

use std::path::{Path, PathBuf};

use codegen::diag::Severity;
use codegen::ir::{Api, Format};
use codegen::parse::parse_document;

use crate::common::assert_linear;

fn input(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/redteam/2026-11-25")
        .join(name)
}

fn docs_src(rel: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../docs-src")
            .join(rel),
    )
    .expect("document present")
}

fn read(name: &str, format: Option<Format>) -> Api {
    let bytes = std::fs::read(input(name)).expect("red-team input present");
    parse_document(name, &bytes, format)
}

fn errors(api: &Api) -> Vec<String> {
    api.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

fn functions(api: &Api) -> Vec<&str> {
    api.functions.iter().map(|f| f.name.as_str()).collect()
}

/// Every item name of `api`, sorted (functions, enums, structs, typedefs, constants).
fn item_names(api: &Api) -> Vec<String> {
    let mut v: Vec<String> = api
        .functions
        .iter()
        .map(|f| format!("fn {}", f.name))
        .chain(
            api.enums
                .iter()
                .map(|e| format!("enum {} {}", e.name, e.variants.len())),
        )
        .chain(
            api.structs
                .iter()
                .map(|s| format!("struct {} {}", s.name, s.fields.len())),
        )
        .chain(api.typedefs.iter().map(|t| format!("type {}", t.name)))
        .chain(api.constants.iter().map(|c| format!("const {}", c.name)))
        .collect();
    v.sort();
    v
}

#[test]
fn names_with_look_alike_or_invisible_characters_are_errors_never_cut() {
    let api = read("doxygen-nonascii-name-cut.h", Some(Format::DoxygenHeader));
    let e = errors(&api);
    assert!(
        e.iter()
            .any(|m| m.contains("`cudаFoo`") && m.contains("U+0430")),
        "{e:?}"
    );
    assert!(api.enums.iter().all(|x| x.name != "cud"), "never cut");
    let api = read("doxygen-zwsp-member-cut.h", Some(Format::DoxygenHeader));
    let e = errors(&api);
    assert!(e.iter().any(|m| m.contains("U+200B")), "{e:?}");
    let names: Vec<&str> = api
        .enums
        .iter()
        .flat_map(|x| {
            std::iter::once(x.name.as_str()).chain(x.variants.iter().map(|v| v.name.as_str()))
        })
        .collect();
    assert!(
        !names.contains(&"cuda") && !names.contains(&"CUDA"),
        "{names:?}"
    );
    // A look-alike in a keyword: the struct is not silently turned into a typedef.
    let api = read(
        "doxygen-nonascii-struct-keyword.h",
        Some(Format::DoxygenHeader),
    );
    let e = errors(&api);
    assert!(e.iter().any(|m| m.contains("`ѕtruct`")), "{e:?}");
    assert!(
        e.iter().any(|m| m.contains("`cudaFoo_st`")),
        "the census names it: {e:?}"
    );
}

#[test]
fn a_group_comment_with_parameters_documents_the_function_after_it() {
    let api = read(
        "doxygen-defgroup-swallows-param-return.h",
        Some(Format::DoxygenHeader),
    );
    assert!(errors(&api).is_empty(), "{:?}", errors(&api));
    let f = &api.functions[0];
    assert_eq!(f.name, "cudaProfilerStart");
    let params: Vec<&str> = f.params.iter().flatten().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["flags"]);
    assert_eq!(f.errors, ["cudaSuccess"]);
    assert_eq!(f.section.as_deref(), Some("Some group"));
    let api = read(
        "doxygen-defgroup-drops-function.h",
        Some(Format::DoxygenHeader),
    );
    assert_eq!(functions(&api), ["cudaProfilerStart", "cudaProfilerStop"]);
}

#[test]
fn a_mistyped_comment_close_loses_nothing() {
    let api = read(
        "doxygen-broken-close-loses-functions.h",
        Some(Format::DoxygenHeader),
    );
    assert_eq!(functions(&api), ["cudaProfilerStart", "cudaProfilerStop"]);
    assert_eq!(api.functions[0].doc, "Enable profiling.");
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Warning
            && d.message.contains("not closed before the `/**` of line 10")));
}

#[test]
fn a_missing_parenthesis_ends_its_declaration_only() {
    let api = read(
        "doxygen-missing-paren-swallows-rest.h",
        Some(Format::DoxygenHeader),
    );
    assert_eq!(
        functions(&api),
        ["cudaFirst", "cudaSecond", "cudaThird", "cudaInlineHelper"]
    );
    // In the real header: the `)` of `cudaDeviceGetByPCIBusId` removed.
    let header = docs_src("nvidia-cuda-headers-13.2/cuda_runtime_api.h");
    let whole = parse_document("a.h", header.as_bytes(), Some(Format::DoxygenHeader));
    let damaged_text = header.replacen(
        "cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);",
        "cudaDeviceGetByPCIBusId(int *device, const char *pciBusId;",
        1,
    );
    assert_ne!(damaged_text, header);
    let damaged = parse_document("a.h", damaged_text.as_bytes(), Some(Format::DoxygenHeader));
    assert_eq!(functions(&damaged), functions(&whole));
    assert!(errors(&damaged).is_empty(), "{:?}", errors(&damaged));
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_document() {
    let header = docs_src("nvidia-cuda-headers-13.2/cuda_runtime_api.h");
    let plain = parse_document("h.h", header.as_bytes(), Some(Format::DoxygenHeader));
    let marked = parse_document(
        "h.h",
        format!("\u{feff}{header}").as_bytes(),
        Some(Format::DoxygenHeader),
    );
    assert!(plain.functions.len() > 300);
    assert_eq!(item_names(&marked), item_names(&plain));
}

#[test]
fn a_run_of_commas_is_one_error_in_linear_time() {
    let header = docs_src("nvidia-cuda-headers-13.2/texture_types.h");
    let anchor = "enum cudaTextureFilterMode  mipmapFilterMode;";
    assert!(header.contains(anchor));
    let with = |n: usize| header.replacen(anchor, &format!("{anchor}\n   {}", ",".repeat(n)), 1);
    let plain = parse_document("t.h", header.as_bytes(), Some(Format::DoxygenHeader));
    let api = parse_document("t.h", with(100_000).as_bytes(), Some(Format::DoxygenHeader));
    let e = errors(&api);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("100000 declarator(s) without a name"),
        "{e:?}"
    );
    assert_eq!(item_names(&api), item_names(&plain), "no field named \"\"");
    assert_linear("a run of commas in a struct", 25_000, &|n| {
        parse_document("t.h", with(n).as_bytes(), Some(Format::DoxygenHeader));
    });
}

#[test]
fn an_rst_directive_with_tabs_is_read_as_docutils_reads_it() {
    let api = read("autodoc-tab-directive-dropped.rst", None);
    assert!(
        functions(&api).contains(&"cudaMemset"),
        "{:?}",
        functions(&api)
    );
    assert!(errors(&api).is_empty(), "{:?}", errors(&api));
}

#[test]
fn an_object_written_indented_is_read_not_swallowed() {
    let api = read("bindings-text-tab-indented-block-vanishes.txt", None);
    assert_eq!(functions(&api), ["cudaFirst", "cudaSecond", "cudaThird"]);
    assert_eq!(api.functions[0].see_also, ["cudaSecond"]);
    assert_eq!(api.functions[1].see_also, ["cudaFirst"]);
    assert_eq!(api.functions[1].doc, "Second function: these lines vanish.");
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Warning && d.message.contains("written indented")));
}

#[test]
fn names_made_unreadable_are_errors_not_an_empty_page() {
    let page = docs_src("nvidia-cuda-python-12/cuda.cudart.txt");
    let mut damaged = String::with_capacity(page.len());
    let mut rest = page.as_str();
    while let Some(at) = rest.find("cuda") {
        damaged.push_str(&rest[..at + 4]);
        rest = &rest[at + 4..];
        if rest.starts_with(|c: char| c.is_ascii_uppercase()) {
            damaged.push('\0');
        }
    }
    damaged.push_str(rest);
    let api = parse_document("cudart.txt", damaged.as_bytes(), None);
    let e = errors(&api);
    assert!(e.len() > 50, "{} errors", e.len());
    assert!(
        e.iter()
            .any(|m| m.contains("`cuda\\0ProfilerStart`") && m.contains("U+0000")),
        "{e:?}"
    );
}

#[test]
fn a_stray_formatting_tag_loses_no_object() {
    let small =
        std::fs::read_to_string(input("html-stray-b-swallows-page-small.html")).expect("page");
    let clean = small.replacen("<dd><b>", "<dd>", 1);
    assert_ne!(clean, small);
    let want = item_names(&parse_document("p.html", clean.as_bytes(), None));
    assert!(want.len() >= 2, "{want:?}");
    for tag in [
        "<b>", "<i>", "<em>", "<strong>", "<code>", "<u>", "<s>", "<font>", "<nobr>", "<b",
    ] {
        let page = clean.replacen("<dd>", &format!("<dd>{tag}"), 1);
        let api = parse_document("p.html", page.as_bytes(), None);
        assert_eq!(item_names(&api), want, "{tag}");
        assert!(errors(&api).is_empty(), "{tag}: {:?}", errors(&api));
    }
    // The real page, with one `<b>` after its first `<dd>`.
    let real = docs_src("nvidia-cuda-bindings-13.4.4/runtime.html");
    let whole = item_names(&parse_document("r.html", real.as_bytes(), None));
    let at = real.find("<dd>").expect("a dd") + 4;
    let damaged = format!("{}<b>{}", &real[..at], &real[at..]);
    let api = parse_document("r.html", damaged.as_bytes(), None);
    assert_eq!(item_names(&api), whole);
}

#[test]
fn a_stray_end_tag_or_an_unclosed_script_loses_no_object_silently() {
    let real = docs_src("nvidia-cuda-bindings-13.4.4/runtime.html");
    let whole = parse_document("r.html", real.as_bytes(), None);
    let functions_whole = functions(&whole).len();
    assert!(functions_whole > 300);
    // Between two top-level objects of the second half.
    let starts: Vec<usize> = real
        .match_indices("\n<dl class=\"py function\"")
        .map(|(i, _)| i)
        .collect();
    let mid = starts[starts.len() / 2];
    for tag in ["</article>", "</main>", &"</div>".repeat(10), "<script>"] {
        let page = format!("{}\n{tag}{}", &real[..mid], &real[mid..]);
        let api = parse_document("r.html", page.as_bytes(), None);
        assert_eq!(item_names(&api), item_names(&whole), "{tag}");
        assert!(
            api.diagnostics
                .iter()
                .any(|d| d.severity == Severity::Warning
                    && (d.message.contains("after the end of the main content")
                        || d.message.contains("is not closed"))),
            "{tag}: said"
        );
    }
    // Anywhere else (inside an enum's members): what is not recovered is an error naming it.
    let any: Vec<usize> = real
        .match_indices("\n<dl class=\"py ")
        .map(|(i, _)| i)
        .collect();
    let mid = any[any.len() / 2];
    let page = format!("{}\n</article>{}", &real[..mid], &real[mid..]);
    let api = parse_document("r.html", page.as_bytes(), None);
    let read = item_names(&api);
    let lost: Vec<String> = item_names(&whole)
        .into_iter()
        .filter(|n| !read.contains(n))
        .collect();
    if !lost.is_empty() {
        assert!(!errors(&api).is_empty(), "lost {lost:?} without an error");
    }
}

#[test]
fn many_attributes_and_runs_of_lt_take_linear_time() {
    let attrs = |n: usize| {
        let a: Vec<String> = (0..n).map(|i| format!("a{i}=\"{i}\"")).collect();
        format!(
            "<!DOCTYPE html>\n<html><body><div {}>x</div></body></html>\n",
            a.join(" ")
        )
    };
    let api = parse_document("a.html", attrs(1000).as_bytes(), Some(Format::Html));
    assert!(api.diagnostics.iter().any(|d| d
        .message
        .contains("the 744 past the first 256 are not read")));
    assert_linear("attributes on one element", 5_000, &|n| {
        parse_document("a.html", attrs(n).as_bytes(), Some(Format::Html));
    });
    let small =
        std::fs::read_to_string(input("html-stray-b-swallows-page-small.html")).expect("page");
    let lt = |n: usize| small.replacen("<dd>", &format!("<dd>{}", "<".repeat(n)), 1);
    let api = parse_document("lt.html", lt(20_000).as_bytes(), Some(Format::Html));
    let note = api
        .diagnostics
        .iter()
        .find(|d| d.message.contains("recovered from"))
        .expect("the parse errors are counted");
    assert!(
        note.message.contains("recovered from 2"),
        "{}",
        note.message
    );
    assert_linear("a run of `<` in a docstring", 20_000, &|n| {
        parse_document("lt.html", lt(n).as_bytes(), Some(Format::Html));
    });
}

#[test]
fn many_manifest_entries_are_found_in_linear_time() {
    let dir = std::env::temp_dir().join(format!("codegen-manifest-{}", std::process::id()));
    let make = |n: usize| {
        let d = dir.join(n.to_string());
        if d.exists() {
            return d;
        }
        std::fs::create_dir_all(&d).expect("dir");
        let mut manifest = String::new();
        for i in 0..n {
            std::fs::write(
                d.join(format!("p{i:05}.txt")),
                format!("runtime#\n\nDevice Management#\n\ncuda.bindings.runtime.cudaF{i}(int device)#\nDoes something.\n"),
            )
            .expect("page");
            manifest.push_str(&format!(
                "[[document]]\nfile = \"p{i:05}.txt\"\nrelease = \"13.2\"\n"
            ));
        }
        std::fs::write(d.join("manifest.toml"), manifest).expect("manifest");
        d
    };
    // Made before timing: only the look-ups are timed.
    make(1_000);
    make(4_000);
    let listed = codegen::load::list_documents(&[make(100)]).expect("lists");
    assert_eq!(listed.len(), 100);
    assert_eq!(
        codegen::load::manifest_release(&[make(100)]),
        codegen::ir::Release::parse("13.2")
    );
    assert_linear("manifest entries", 1_000, &|n| {
        codegen::load::manifest_release(&[make(n)]);
    });
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_census_reads_damaged_input_in_linear_time() {
    // Comment openers inside an unclosed comment or on every line of ordinary comments,
    // openers between declarations that never end, `<dt` with no `>`: each byte of the input is looked at a bounded number of times.
    /// A damaged input of size `n`.
    type Make = fn(usize) -> String;
    let inputs: [(&str, Format, Make); 4] = [
        ("openers", Format::DoxygenHeader, |n| {
            format!("/** a\n{}", "/** b\n".repeat(n))
        }),
        ("openers in comments", Format::DoxygenHeader, |n| {
            "/*/**hello, not a doc\n".repeat(n)
        }),
        ("undeclared", Format::DoxygenHeader, |n| {
            "/** a */ x ".repeat(n)
        }),
        ("dt", Format::Html, |n| {
            format!("<html><body>{}", "<dt id=\"a.b\" ".repeat(n))
        }),
    ];
    for (what, format, make) in inputs {
        assert_linear(what, 20_000, &|n| {
            parse_document("c", make(n).as_bytes(), Some(format));
        });
    }
}
