//! The red-team inputs (`codegen/tests/redteam/`, see its README) and the cases it did not
//! store, replayed: each is now read correctly or refused with a named problem, in time and
//! output size linear in the input. Timing checks compare a case with the same case four times
//! as large (linear work grows 4×, quadratic 16×), in CPU time of the test's thread (so other
//! work on the machine does not count), the best of three runs.

use std::path::{Path, PathBuf};

use codegen::diag::Severity;
use codegen::doctype::{TypeExpr, MAX_NESTING};
use codegen::ir::{Api, Format};
use codegen::parse::parse_document;

fn redteam(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/redteam")
        .join(name)
}

fn read(name: &str) -> Api {
    let bytes = std::fs::read(redteam(name)).expect("red-team input present");
    parse_document(name, &bytes, None)
}

fn docs_src(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../docs-src")
            .join(rel),
    )
    .expect("document present")
}

fn messages(api: &Api, severity: Severity) -> Vec<String> {
    api.diagnostics
        .iter()
        .filter(|d| d.severity == severity)
        .map(|d| d.to_string())
        .collect()
}

use crate::common::assert_linear;

#[test]
fn no_break_space_before_a_parameter_name_is_read_as_a_space() {
    // Each once panicked slicing at `rfind(..) + 1` inside the two-byte U+00A0.
    for (file, format) in [
        ("bindings-text-nbsp-param-panic.txt", Format::BindingsText),
        ("cudart-text-nbsp-param-panic.txt", Format::CudartText),
    ] {
        let api = read(file);
        assert_eq!(api.documents[0].format, format, "{file}");
        let f = api.function("cudaMalloc").expect("the function is read");
        let p = &f.params.as_ref().expect("parameters")[0];
        assert_eq!(p.name, "size", "{file}");
        assert_eq!(
            p.ty.as_ref().map(|t| &t.expr),
            Some(&TypeExpr::Primitive {
                name: "size_t".into()
            }),
            "{file}"
        );
        assert!(messages(&api, Severity::Error).is_empty(), "{file}");
    }
    let api = read("autodoc-nbsp-name-panic.rst");
    let f = api.function("cupy_free").expect("the C function is read");
    assert_eq!(f.rtype.as_ref().map(|t| t.text.as_str()), Some("void"));
    let api = read("autodoc-nbsp-param-panic.rst");
    let f = api.function("cupy_free").expect("the C function is read");
    let p = &f.params.as_ref().expect("parameters")[0];
    assert_eq!(
        (p.name.as_str(), p.ty.as_ref().map(|t| t.text.as_str())),
        ("ptr", Some("void*"))
    );
}

#[test]
fn any_non_ascii_character_before_a_name_never_splits_a_character() {
    // Every character class the audit found at a `+ 1` site, in every front end.
    let chars = [
        '\u{a0}', '\u{3000}', '\u{fffd}', 'é', '😀', '\u{301}', '\u{2028}', '\u{85}',
    ];
    for c in chars {
        let docs = [
            format!("cuda.bindings.runtime.cudaF(size_t{c}size, char*{c}p, int{c})#\nSummary.\n"),
            format!("cuda.cudart.cudaF(size_t{c}size, int{c}*p)#\n\nSummary.\n\nParameters\n\nsize (size_t) \u{2013} x\n\nReturns\n\ncudaSuccess\n"),
            format!(".. c:function:: void{c}f(void*{c}ptr, int{c}n{c})\n.. c:function:: {c}g({c})\n"),
            format!("<!DOCTYPE html><html><body><article><section id=\"s\"><h2>S{c}</h2><dl class=\"py function\"><dt class=\"sig sig-object py\" id=\"m.f\"><span class=\"sig-prename\">m.</span><span class=\"sig-name\">f{c}</span><span class=\"sig-paren\">(</span><em class=\"sig-param\">size_t{c}size</em><span class=\"sig-paren\">)</span></dt><dd><p>x{c}</p></dd></dl></section></article></body></html>"),
        ];
        for doc in &docs {
            for format in std::iter::once(None).chain(Format::ALL.map(Some)) {
                let api = parse_document("nbsp", doc.as_bytes(), format);
                assert!(api.documents.len() == 1, "{c:?} {format:?}");
            }
        }
        // Invalid UTF-8 right before a name becomes U+FFFD, a three-byte character.
        let mut bytes = b"cuda.bindings.runtime.cudaF(size_t".to_vec();
        bytes.push(0xff);
        bytes.extend_from_slice(b"size)#\nSummary.\n");
        let api = parse_document("bad-utf8", &bytes, None);
        assert!(messages(&api, Severity::Error)
            .iter()
            .any(|m| m.contains("not valid UTF-8")));
    }
}

#[test]
fn pointer_stars_past_the_bound_are_a_warning_and_linear_json() {
    for file in [
        "types-stars-28000-stack-overflow.txt",
        "types-stars-20000-1.6GB-json.txt",
    ] {
        let bytes = std::fs::read(redteam(file)).expect("present");
        // 28,000 stars once overflowed the stack (on the main thread's 8 MiB; tests have 2).
        let api = parse_document(file, &bytes, None);
        let f = api.function("cudaFoo").expect("the function is still read");
        let ty = f.params.as_ref().expect("params")[0]
            .ty
            .as_ref()
            .expect("a type");
        assert!(matches!(ty.expr, TypeExpr::Unknown { .. }), "{file}");
        assert!(
            messages(&api, Severity::Warning)
                .iter()
                .any(|m| m.contains(&format!("nested more than {MAX_NESTING} levels deep"))),
            "{file}: {:?}",
            api.diagnostics
        );
        // Once 1.6 GB of IR JSON for 20 KB.
        let json = serde_json::to_string_pretty(&api).expect("json");
        assert!(
            json.len() < 4 * bytes.len() + 16 * 1024,
            "{file}: {} bytes of JSON for {} bytes",
            json.len(),
            bytes.len()
        );
    }
    // The other front ends that read types say so too (they keep other unreadable types as
    // written, without a word, as before).
    let stars = "*".repeat(10_000);
    for (doc, format) in [
        (
            format!(".. c:function:: void f(int{stars} p)\n"),
            Format::AutodocRst,
        ),
        (
            format!("cuda.cudart.cudaF(int{stars} size)#\n\nSummary.\n\nParameters\n\nsize (int{stars}) \u{2013} x\n\nReturns\n\ncudaSuccess\n"),
            Format::CudartText,
        ),
    ] {
        let api = parse_document("deep", doc.as_bytes(), Some(format));
        assert!(
            messages(&api, Severity::Warning)
                .iter()
                .any(|m| m.contains(&format!("nested more than {MAX_NESTING} levels deep"))),
            "{format:?}: {:?}",
            api.diagnostics
        );
    }
    // The bound itself: JSON of types nested exactly to it grows linearly with their number.
    let doc = |n: usize| {
        let mut s =
            String::from("cuda.bindings.runtime.cudaFoo(x)#\nSummary.\n\n:param x: the x\n");
        for _ in 0..n {
            s.push_str(&format!(":type x: int{}\n", "*".repeat(MAX_NESTING)));
        }
        s
    };
    let size = |n: usize| {
        let api = parse_document("t", doc(n).as_bytes(), None);
        serde_json::to_string_pretty(&api).expect("json").len()
    };
    let (one, four) = (size(1), size(4));
    assert!(one < 128 * doc(1).len(), "{one}");
    assert!(four < 5 * one, "{one} then {four}");
}

#[test]
fn deeply_unclosed_html_is_an_error_in_linear_time() {
    let api = read("html-unclosed-div-10000-quadratic.html");
    let errors = messages(&api, Severity::Error);
    assert!(
        errors
            .iter()
            .any(|m| m.contains("nested more than 512 levels deep")),
        "{errors:?}"
    );
    let unclosed = |n: usize| {
        let page = format!(
            "<!DOCTYPE html><html><body><article>\n{}</article></body></html>",
            "<div>x\n".repeat(n)
        );
        let _ = parse_document("deep.html", page.as_bytes(), Some(Format::Html));
    };
    assert_linear("unclosed <div>x lines", 10_000, &unclosed);
    // Under the bound the per-tag cost is bounded by it: many tags below deep nesting.
    let wide = |n: usize| {
        let page = format!(
            "<!DOCTYPE html><html><body><article>{}{}</article></body></html>",
            "<div>".repeat(500),
            "<p>x</p>\n".repeat(n)
        );
        let _ = parse_document("wide.html", page.as_bytes(), Some(Format::Html));
    };
    assert_linear("paragraphs below 500 open elements", 2_000, &wide);
}

#[test]
fn a_signature_with_100000_parameters_is_read_in_linear_time() {
    let doc = |n: usize, repeat: bool| {
        let params: Vec<String> = (0..n)
            .map(|i| format!("int p{}", if repeat { i % 2 } else { i }))
            .collect();
        format!(
            "cuda.bindings.runtime.cudaFoo({})#\nSummary line.\n",
            params.join(", ")
        )
    };
    let api = parse_document("p.txt", doc(100_000, false).as_bytes(), None);
    assert_eq!(
        api.function("cudaFoo")
            .and_then(|f| f.params.as_ref())
            .map(Vec::len),
        Some(100_000)
    );
    assert_linear("distinct parameters", 25_000, &|n| {
        let _ = parse_document("p.txt", doc(n, false).as_bytes(), None);
    });
    // Every repeat is accounted for: the first 100 of each message listed, the rest counted.
    let api = parse_document("r.txt", doc(1000, true).as_bytes(), None);
    let warnings = messages(&api, Severity::Warning);
    let listed = warnings
        .iter()
        .filter(|m| m.ends_with("; keeping the first") && !m.contains("more time(s)"))
        .count();
    let counted: usize = warnings
        .iter()
        .filter_map(|m| m.split(": warning: ").nth(1))
        .filter_map(|m| m.split_once(" more time(s) from here on"))
        .filter_map(|(n, _)| n.parse::<usize>().ok())
        .sum();
    assert_eq!((listed, listed + counted), (200, 998), "{warnings:?}");
    assert_linear("repeated parameters", 25_000, &|n| {
        let _ = parse_document("r.txt", doc(n, true).as_bytes(), None);
    });
}

#[test]
fn the_other_signature_readers_are_linear_and_keep_the_first_of_a_repeat() {
    let params = |n: usize| -> String {
        (0..n)
            .map(|i| format!("int p{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let cudart = |n: usize| {
        let documented: String = (0..n)
            .rev()
            .map(|i| format!("p{i} (int) \u{2013} the p{i}\n\n"))
            .collect();
        format!(
            "cuda.cudart.cudaFoo({})#\n\nSummary.\n\nParameters\n\n{documented}Returns\n\ncudaSuccess\n",
            params(n)
        )
    };
    let autodoc = |n: usize| format!(".. c:function:: void foo({})\n", params(n));
    for (doc, format) in [
        (cudart(2_000), Format::CudartText),
        (autodoc(2_000), Format::AutodocRst),
    ] {
        let api = parse_document("many", doc.as_bytes(), Some(format));
        let f = api.functions.first().expect("the function is read");
        let params = f.params.as_ref().expect("parameters");
        assert_eq!(params.len(), 2_000, "{format:?}");
        if format == Format::CudartText {
            // Documented in reverse order, matched by name.
            assert_eq!(params[7].doc, "the p7");
        }
    }
    assert_linear(
        "cudart text parameters, documented in reverse",
        4_000,
        &|n| {
            let _ = parse_document("c", cudart(n).as_bytes(), Some(Format::CudartText));
        },
    );
    assert_linear("C declaration parameters", 10_000, &|n| {
        let _ = parse_document("a", autodoc(n).as_bytes(), Some(Format::AutodocRst));
    });
    // A repeated name: the first is kept, and the repeat is reported.
    for (doc, format) in [
        (
            "cuda.cudart.cudaFoo(int h, int h)#\n\nSummary.\n\nReturns\n\ncudaSuccess\n",
            Format::CudartText,
        ),
        (
            ".. c:function:: void foo(int h, int h)\n",
            Format::AutodocRst,
        ),
    ] {
        let api = parse_document("repeat", doc.as_bytes(), Some(format));
        assert_eq!(
            api.functions[0].params.as_ref().map(Vec::len),
            Some(1),
            "{format:?}"
        );
        assert!(
            messages(&api, Severity::Warning)
                .iter()
                .any(|m| m.contains("repeats parameter `h`; keeping the first")),
            "{format:?}: {:?}",
            api.diagnostics
        );
    }
}

#[test]
fn many_members_fields_and_codes_are_read_in_linear_time() {
    let enum_doc = |n: usize| {
        let mut s = String::from("class cuda.bindings.runtime.cudaE(value: int)#\n\nAn enum.\n\n");
        for i in 0..n {
            s.push_str(&format!(
                "cudaE{} = <cudaE.cudaE{}: {i}>#\n\nMember.\n\n",
                i % (n / 2 + 1),
                i % (n / 2 + 1)
            ));
        }
        s
    };
    assert_linear("enum members, half repeated", 5_000, &|n| {
        let _ = parse_document("e.txt", enum_doc(n).as_bytes(), Some(Format::BindingsText));
    });
    let struct_doc = |n: usize| {
        let mut s =
            String::from("class cuda.bindings.runtime.cudaS(void_ptr _ptr=0)#\n\nA struct.\n\n");
        for i in 0..n {
            s.push_str(&format!(
                ".. attribute:: f{}\n\n    :type: int\n\n",
                i % (n / 2 + 1)
            ));
        }
        s
    };
    assert_linear("struct fields, half repeated", 5_000, &|n| {
        let _ = parse_document(
            "s.txt",
            struct_doc(n).as_bytes(),
            Some(Format::BindingsText),
        );
    });
}

#[test]
fn a_title_as_long_as_the_document_is_cut_so_the_ir_stays_linear() {
    // Found by `cargo xtask fuzz` (seed 231123, case 5997): a 1 MB heading before 76 items
    // made 77 MB of IR JSON, every item carrying the title; in general the product of the two.
    // (The bindings text reader never took a line longer than 200 characters for a heading.)
    let title = "Graph Management".repeat(60_000);
    let items = |n: usize| -> String {
        (0..n)
            .map(|i| format!(".. autofunction:: cuda.cudart.cudaF{i}\n"))
            .collect()
    };
    let docs = [
        (
            format!(
                "Page\n====\n\n{title}\n{}\n\n{}",
                "-".repeat(16),
                items(300)
            ),
            Format::AutodocRst,
        ),
        (
            format!(
                "{title}#\n\n{}",
                (0..300)
                    .map(|i| format!("cuda.cudart.cudaF{i}(int x)#\n\nSummary.\n\nReturns\n\ncudaSuccess\n\n"))
                    .collect::<String>()
            ),
            Format::CudartText,
        ),
        (
            format!(
                "<!DOCTYPE html><html><body><article><section id=\"s\"><h2>{title}</h2>{}</section></article></body></html>",
                (0..300)
                    .map(|i| format!("<dl class=\"py function\"><dt class=\"sig sig-object py\" id=\"m.f{i}\"><span class=\"sig-prename\">m.</span><span class=\"sig-name\">f{i}</span><span class=\"sig-paren\">(</span><span class=\"sig-paren\">)</span></dt><dd><p>x</p></dd></dl>\n"))
                    .collect::<String>()
            ),
            Format::Html,
        ),
    ];
    for (doc, format) in docs {
        let api = parse_document("long-title", doc.as_bytes(), Some(format));
        assert!(api.functions.len() >= 300, "{format:?}");
        assert!(
            messages(&api, Severity::Warning)
                .iter()
                .any(|m| m.contains("section title of 960000 characters is cut")),
            "{format:?}: {:?}",
            api.diagnostics
        );
        let json = serde_json::to_string_pretty(&api).expect("json");
        assert!(
            json.len() < 2 * doc.len(),
            "{format:?}: {} bytes of JSON for {} bytes",
            json.len(),
            doc.len()
        );
    }
}

/// `text` with every `\n` replaced by `ending`.
fn with_endings(text: &[u8], ending: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 8);
    for &b in text {
        if b == b'\n' {
            out.extend_from_slice(ending);
        } else {
            out.push(b);
        }
    }
    out
}

#[test]
fn cr_only_and_crlf_line_endings_are_read_with_the_same_lines() {
    for rel in [
        "cupy/cupy.cuda.low-level.rst",
        "nvidia-cuda-python-12/cuda.cudart.txt",
        "nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt",
    ] {
        let lf = docs_src(rel);
        let reference = parse_document(rel, &lf, None);
        assert!(reference.item_count() > 0, "{rel}");
        for ending in [&b"\r"[..], b"\r\n"] {
            let api = parse_document(rel, &with_endings(&lf, ending), None);
            assert_eq!(
                api.documents[0].format, reference.documents[0].format,
                "{rel}"
            );
            assert_eq!(api.item_count(), reference.item_count(), "{rel} {ending:?}");
            let lines = |a: &Api| -> Vec<(String, u32)> {
                a.functions
                    .iter()
                    .map(|f| (f.name.clone(), f.source.line))
                    .collect()
            };
            assert_eq!(lines(&api), lines(&reference), "{rel} {ending:?}");
            let note = api
                .diagnostics
                .iter()
                .find(|d| d.message.contains("line endings converted"))
                .expect("a note says the line endings were converted");
            assert_eq!(note.severity, Severity::Note);
            // Everything else is what the LF file gives.
            assert_eq!(
                api.diagnostics.len(),
                reference.diagnostics.len() + 1,
                "{rel}"
            );
        }
    }
}

/// Copies every file of `from` into `to` (one level: the generated folders are flat).
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("temp folder");
    for entry in std::fs::read_dir(from).expect("folder").flatten() {
        if entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
        }
    }
}

/// `(name, contents)` of every file in `dir`, sorted.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("folder")
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn codegen_on_garbage_writes_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = std::env::temp_dir().join(format!("codegen-garbage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    // A copy of a committed crate: the real one is never the target here.
    let out_dir = tmp.join("cudart13");
    copy_folder(&root.join("runtime/cudart13/src"), &out_dir.join("src"));
    std::fs::copy(
        root.join("runtime/cudart13/Cargo.toml"),
        out_dir.join("Cargo.toml"),
    )
    .expect("copy");
    let before = (snapshot(&out_dir), snapshot(&out_dir.join("src")));
    // Adopted: the copy has no generator's manifest, and what is refused here is the input.
    let opts = codegen::pipeline::Options {
        release: Some(codegen::ir::Release(vec![13, 2])),
        adopt: true,
        ..codegen::pipeline::Options::standalone(
            vec![redteam("codegen-garbage-with-manifest")],
            out_dir.clone(),
        )
    };
    let err = codegen::pipeline::run(&opts).expect_err("the run has errors");
    let report = match &err {
        codegen::pipeline::PipelineError::Errors { report, .. }
        | codegen::pipeline::PipelineError::Empty { report } => report,
        other => panic!("not a refusal with a report: {other}"),
    };
    assert!(err.to_string().contains("nothing was written"), "{err}");
    assert!(report.changed.is_empty());
    assert!(report
        .diagnostics()
        .iter()
        .any(|d| d.severity == Severity::Error && d.message.contains("could not recognise")));
    assert_eq!((snapshot(&out_dir), snapshot(&out_dir.join("src"))), before);
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn staged_writes_replace_every_file_or_none() {
    use codegen::emit::files::{write_all, GeneratedFile, Mode};
    const WRITE: Mode = Mode::Write { adopt: false };
    let tmp = std::env::temp_dir().join(format!("codegen-staged-rt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let a = tmp.join("a");
    let file = |name: &str, contents: &str| GeneratedFile {
        name: name.into(),
        contents: contents.into(),
    };
    let changed =
        write_all(&a, &[file("x.rs", "x1"), file("old.rs", "old")], WRITE).expect("writes");
    assert_eq!(changed, ["x.rs", "old.rs", ".codegen-manifest"]);
    let changed = write_all(&a, &[file("x.rs", "x1")], WRITE).expect("writes");
    assert_eq!(
        changed,
        [".codegen-manifest", "old.rs (no longer generated)"]
    );
    let manifest = std::fs::read(a.join(".codegen-manifest")).expect("manifest");
    assert_eq!(
        snapshot(&a),
        [
            (".codegen-manifest".to_string(), manifest.clone()),
            ("x.rs".to_string(), b"x1".to_vec())
        ]
    );
    // One file cannot be written (a file the generator did not write stands where its folder
    // should be): the other is not replaced either, and nothing is left behind.
    std::fs::write(a.join("blocked"), "a file, not a folder").expect("blocker");
    let files = [file("x.rs", "x2"), file("blocked/y.rs", "y1")];
    let err = write_all(&a, &files, WRITE).expect_err("refused");
    assert!(
        err.to_string()
            .contains("`blocked` is not written by the generator"),
        "{err}"
    );
    assert_eq!(
        snapshot(&a),
        [
            (".codegen-manifest".to_string(), manifest),
            ("blocked".to_string(), b"a file, not a folder".to_vec()),
            ("x.rs".to_string(), b"x1".to_vec())
        ]
    );
    assert_eq!(
        std::fs::read_dir(&tmp).expect("tmp").count(),
        1,
        "no leftovers"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Libraries to damage: a system one, and the wheel's libcudart when `CUDART_WHEEL_LIB` is set.
fn libraries() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = crate::mapped_library::mapped_shared_library()
        .into_iter()
        .collect();
    if let Some(p) = std::env::var_os("CUDART_WHEEL_LIB").filter(|p| !p.is_empty()) {
        out.push(PathBuf::from(p));
    }
    out
}

#[test]
fn coverage_names_a_truncated_or_foreign_library() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        println!("skipped: the foreign machine below is AArch64, so this runs on x86-64 Linux");
        return;
    }
    let libs = libraries();
    assert!(!libs.is_empty(), "no shared library mapped in this process");
    for lib in libs {
        let bytes = std::fs::read(&lib).expect("library");
        codegen::coverage::exports_from_bytes("whole", &bytes).expect("the whole file reads");
        let cut = &bytes[..4096];
        let err = codegen::coverage::exports_from_bytes("cut", cut)
            .expect_err("a truncated library")
            .to_string();
        assert!(
            err.contains("truncated") && err.contains("but the file has 4,096 bytes"),
            "{}: {err}",
            lib.display()
        );
        let mut foreign = bytes.clone();
        foreign[18..20].copy_from_slice(&183u16.to_le_bytes()); // EM_AARCH64
        let err = codegen::coverage::exports_from_bytes("arm", &foreign)
            .expect_err("a foreign library")
            .to_string();
        assert!(
            err.contains("built for AArch64, this process is x86-64"),
            "{err}"
        );
    }
}

/// Two mutants of NVIDIA's headers the fuzz run found (a `{` before the `struct` keyword of a
/// statement once sliced backwards): read with diagnostics, no panic, forced to the header
/// format as well as detected.
#[test]
fn doxygen_statements_with_a_brace_before_the_keyword_are_read() {
    for name in [
        "fuzz-doxygen-brace-before-keyword-1.h",
        "fuzz-doxygen-brace-before-keyword-2.h",
    ] {
        let bytes = std::fs::read(redteam(name)).expect("input");
        for format in [None, Some(codegen::ir::Format::DoxygenHeader)] {
            let api = parse_document(name, &bytes, format);
            assert!(
                !api.diagnostics.is_empty(),
                "{name}: the damage is reported"
            );
        }
    }
}

/// A header statement with thousands of declarators and a comment beside each (what repeated
/// lines made of an enum body in the fuzz run): each field keeps its own comment, the one
/// before the statement goes to the first few only, and the IR stays linear in the input
/// (it once copied every comment of the statement into every field: 80 MB from 231 KB).
#[test]
fn header_statements_with_many_declarators_stay_linear() {
    let mut text = String::from("/** \\file x.h */\nstruct S {\n    /** ");
    text.push_str(&"before ".repeat(2_000));
    text.push_str("*/\n    int ");
    let decls: Vec<String> = (0..5_000)
        .map(|i| format!("a{i} /**< field {i} */"))
        .collect();
    text.push_str(&decls.join(", "));
    text.push_str(";\n};\n");
    let api = parse_document(
        "many.h",
        text.as_bytes(),
        Some(codegen::ir::Format::DoxygenHeader),
    );
    let s = api
        .structs
        .iter()
        .find(|s| s.name == "S")
        .expect("struct S");
    assert_eq!(s.fields.len(), 5_000);
    assert!(
        s.fields[1234].doc.contains("field 1234"),
        "{}",
        s.fields[1234].doc
    );
    assert!(!s.fields[1234].doc.contains("field 1235"));
    let json = serde_json::to_string(&api).expect("json");
    assert!(
        json.len() < 20 * text.len(),
        "{} bytes of IR for {} input bytes",
        json.len(),
        text.len()
    );
}

/// The 13.2 text page's documentation of the function `name` alone, and the 13.2 ABI.
fn one_function_of_13_2(name: &str) -> (Api, codegen::abi::Abi) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let abi = codegen::abi::load_snapshot(&root, &codegen::ir::Release(vec![13, 2]))
        .expect("the 13.2 snapshot is committed");
    let page = docs_src("nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt");
    let mut api = parse_document("cuda.bindings.runtime.txt", &page, None);
    api.functions.retain(|f| f.name == name);
    assert_eq!(api.functions.len(), 1, "the seed documents {name}");
    (api, abi)
}

/// A description that names a parameter thousands of times in one paragraph (what repeated
/// lines made of a page in the fuzz run): deciding whether it calls the parameter optional
/// looks at the few words after each mention, not the rest of the paragraph (it once took
/// 24 s on a 7 MB page), and still finds "is optional" at the very end.
#[test]
fn a_parameter_named_thousands_of_times_in_one_paragraph_binds_in_linear_time() {
    let (api, abi) = one_function_of_13_2("cudaStreamSetAttribute");
    let with_mentions = |n: usize| {
        let mut api = api.clone();
        api.functions[0].doc = format!("{}`value` is optional.", "`value` and more. ".repeat(n));
        codegen::bind::bind(&api, &abi)
    };
    let b = with_mentions(2_000);
    let f = b
        .functions
        .iter()
        .find(|f| f.name == "cudaStreamSetAttribute")
        .expect("bound");
    match &f.typed {
        codegen::bind::Typed::Wrapper { roles, .. } => assert_eq!(
            roles[2],
            codegen::bind::Role::OptionalRef { mutable: false },
            "{roles:?}"
        ),
        other => panic!("no wrapper: {other:?}"),
    }
    assert_linear("a parameter named n times in one paragraph", 20_000, &|n| {
        let _ = with_mentions(n);
    });
}

/// A description that names an output thousands of times ("Returns in `*device` …", what
/// repeated lines made of a page in the fuzz run): the typed wrapper's documentation rewrites
/// each mention looking only at the text just before it (it once lowered everything written
/// so far for every mention: 1.9 s on a 2 MB case), and still says "Returns as `device`".
/// The typed layer is built on this thread (`emit::typed::emit`), so the thread's CPU time is
/// all of it.
#[test]
fn an_output_named_thousands_of_times_is_documented_in_linear_time() {
    use codegen::emit::{docs::DocProblems, names::Names};
    let (api, abi) = one_function_of_13_2("cudaGetDevice");
    let bindings = |n: usize| {
        let mut api = api.clone();
        api.functions[0].doc = "Returns in `*device` the device. ".repeat(n);
        codegen::bind::bind(&api, &abi)
    };
    let typed = |b: &codegen::bind::Bindings| {
        let names = Names::for_bindings(b);
        codegen::emit::typed::emit(&b.functions, &names, &mut DocProblems::default())
            .expect("builds")
    };
    let file = typed(&bindings(3));
    let text = codegen::emit::files::print_body(&file);
    assert!(text.contains("Returns as `device`, the device."), "{text}");
    let made: Vec<_> = [4_000, 16_000].iter().map(|&n| (n, bindings(n))).collect();
    assert_linear("an output named n times in its description", 4_000, &|n| {
        let b = &made.iter().find(|(m, _)| *m == n).expect("made").1;
        let _ = typed(b);
    });
}
