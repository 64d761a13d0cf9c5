//! Facts of the `cuda.bindings.runtime` text pages (13.2 seed, 13.3 release) as the
//! bindings-text parser reads them, cross-checked against plain line counts of the files,
//! plus robustness on damaged input (unit cases and a bounded proptest).

use codegen::diag::{Diagnostic, Severity};
use codegen::doctype::TypeExpr;
use codegen::ir::{Api, Direction, TypedefKind};
use codegen::parse::sphinx_text::parse;
use proptest::prelude::*;

const SEED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../docs-src/nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt"
);
const RELEASE_13_3: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../docs-src/nvidia-cuda-bindings-13.3.0/runtime.txt"
);

fn seed_text() -> String {
    std::fs::read_to_string(SEED).expect("seed document present")
}

fn seed() -> (String, Api) {
    let text = seed_text();
    let api = parse("001.txt", &text);
    (text, api)
}

fn errors(api: &Api) -> Vec<&Diagnostic> {
    api.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect()
}

fn count_lines(text: &str, pred: impl Fn(&str) -> bool) -> usize {
    text.lines().filter(|l| pred(l)).count()
}

/// The 1-based line `n` of `text`.
fn line(text: &str, n: u32) -> &str {
    text.lines().nth(n as usize - 1).unwrap_or("")
}

#[test]
fn seed_counts_match_the_file() {
    let (text, api) = seed();
    assert!(errors(&api).is_empty(), "{:#?}", errors(&api));

    // Functions: single-line `….f(…)#` and multi-line `….f(` signatures.
    let single = count_lines(&text, |l| {
        l.starts_with("cuda.bindings.runtime.") && l.ends_with(")#")
    });
    let multi = count_lines(&text, |l| {
        l.starts_with("cuda.bindings.runtime.") && l.ends_with('(')
    });
    assert_eq!(api.functions.len(), single + multi);
    assert_eq!(api.functions.len(), 295);
    assert_eq!(
        api.functions
            .iter()
            .filter(|f| f.name.starts_with("cuda"))
            .count(),
        291
    );
    let helpers: Vec<&str> = api
        .functions
        .iter()
        .filter(|f| !f.name.starts_with("cuda"))
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        helpers,
        [
            "make_cudaPitchedPtr",
            "make_cudaPos",
            "make_cudaExtent",
            "getLocalRuntimeVersion"
        ]
    );

    // Parameters: 685 inputs (signature) + 190 named `:returns:` outputs.
    let params = || api.functions.iter().flat_map(|f| f.params.iter().flatten());
    let named_outputs = count_lines(&text, |l| l.trim_start().starts_with("* **"));
    assert_eq!(
        params().filter(|p| p.direction == Direction::Out).count(),
        named_outputs
    );
    assert_eq!(
        params().filter(|p| p.direction == Direction::In).count(),
        685
    );
    assert_eq!(api.param_count(), 875);

    // Enums and members.
    assert_eq!(
        api.enums.len(),
        count_lines(&text, |l| l.starts_with("class ")
            && l.ends_with("(value: int)#"))
    );
    assert_eq!(api.enums.len(), 83);
    assert_eq!(
        api.variant_count(),
        count_lines(&text, |l| !l.starts_with(' ')
            && l.contains(" = <")
            && l.ends_with(">#")
            && !l.contains('\''))
    );
    assert_eq!(api.variant_count(), 793);

    // Structs: 69 `(void_ptr _ptr=0)` classes, one of them printed twice.
    assert_eq!(
        count_lines(&text, |l| l.starts_with("class ")
            && l.ends_with("(void_ptr _ptr=0)#")),
        69
    );
    assert_eq!(api.structs.len(), 68);
    assert_eq!(api.field_count(), 401);
    let repeat: Vec<&Diagnostic> = api
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("repeated identically"))
        .collect();
    assert_eq!(repeat.len(), 1);
    assert!(line(&text, repeat[0].line).contains("cudaLaunchAttributeValue(void_ptr _ptr=0)#"));

    // Typedef/handle classes.
    let opaque = count_lines(&text, |l| {
        l.starts_with("class ") && l.ends_with("(*args, **kwargs)#")
    });
    let bare = count_lines(&text, |l| {
        l.starts_with("class ") && l.ends_with('#') && !l.contains('(')
    });
    assert_eq!(
        api.typedefs
            .iter()
            .filter(|t| t.kind == TypedefKind::Opaque)
            .count(),
        opaque
    );
    assert_eq!(
        api.typedefs
            .iter()
            .filter(|t| t.kind == TypedefKind::Class)
            .count(),
        bare
    );
    assert_eq!(api.typedefs.len(), 46);

    // Constants (some without docs, written as a block after an alias line) and aliases.
    let consts = count_lines(&text, |l| {
        l.starts_with("runtime.")
            && l.strip_suffix('#')
                .and_then(|b| b.split_once(" = "))
                .is_some_and(|(_, v)| v.parse::<i64>().is_ok())
    });
    assert_eq!(api.constants.len(), consts);
    assert_eq!(api.constants.len(), 90);
    assert_eq!(api.aliases.len(), 4);
    assert_eq!(
        api.aliases
            .iter()
            .filter(|a| a.target_kind == "enum")
            .count(),
        2
    );

    // Sections: every `Title#` heading but the page title.
    assert_eq!(api.sections.len(), 30);
    assert_eq!(api.sections[0].name, "Data types used by CUDA Runtime");
}

#[test]
fn seed_items_have_sections_docs_and_sources() {
    let (text, api) = seed();
    for f in &api.functions {
        assert!(
            line(&text, f.source.line).starts_with(&format!("{}(", f.qualified_name)),
            "{}",
            f.name
        );
        assert!(f.section.is_some(), "{} has no section", f.name);
        assert!(!f.doc.is_empty(), "{} has no doc", f.name);
    }
    for e in &api.enums {
        assert!(line(&text, e.source.line).starts_with(&format!("class {}(", e.qualified_name)));
        for v in &e.variants {
            assert!(line(&text, v.source.line)
                .starts_with(&format!("{} = <{}.{}: ", v.name, e.name, v.name)));
            assert!(v.value.is_some());
        }
    }
    for s in &api.structs {
        assert_eq!(
            s.section.as_deref(),
            Some("Data types used by CUDA Runtime")
        );
        for fd in &s.fields {
            assert_eq!(
                line(&text, fd.source.line),
                format!(".. attribute:: {}", fd.name)
            );
        }
    }
    for c in &api.constants {
        assert!(line(&text, c.source.line).starts_with(&format!("{} = ", c.qualified_name)));
    }
    let device = api
        .sections
        .iter()
        .find(|s| s.name == "Device Management")
        .expect("section");
    assert!(device
        .doc
        .contains("This section describes the device management functions"));
    // Functions between the `Device Management#` heading and the next heading.
    let start = text.find("\nDevice Management#\n").expect("heading");
    let end = start
        + text[start..]
            .find("\nError Handling#\n")
            .expect("next heading");
    let in_section = text[start..end]
        .lines()
        .filter(|l| {
            l.starts_with("cuda.bindings.runtime.") && (l.ends_with(")#") || l.ends_with('('))
        })
        .count();
    assert_eq!(
        api.functions
            .iter()
            .filter(|f| f.section.as_deref() == Some("Device Management"))
            .count(),
        in_section
    );
    // Items are in document order, so sections never go back.
    let order: Vec<&str> = api.sections.iter().map(|s| s.name.as_str()).collect();
    let mut last = 0;
    for f in &api.functions {
        let pos = order
            .iter()
            .position(|s| Some(*s) == f.section.as_deref())
            .expect("known section");
        assert!(pos >= last, "{} out of section order", f.name);
        last = pos;
    }
}

#[test]
fn seed_function_details() {
    let (_, api) = seed();
    let f = api.function("cudaMemcpy2D").expect("cudaMemcpy2D");
    let names: Vec<&str> = f.params.iter().flatten().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["dst", "dpitch", "src", "spitch", "width", "height", "kind"]
    );
    let kind = &f.params.as_ref().expect("params")[6];
    assert_eq!(
        kind.ty.as_ref().map(|t| &t.expr),
        Some(&TypeExpr::Named {
            name: "cudaMemcpyKind".into()
        })
    );
    assert_eq!(
        f.rtype.as_ref().map(|t| t.text.as_str()),
        Some("cudaError_t")
    );
    assert!(
        f.errors
            .contains(&"cudaErrorInvalidMemcpyDirection".to_string()),
        "{:?}",
        f.errors
    );

    // Outputs follow inputs, in `:returns:` order, with their types.
    let f = api
        .function("cudaGraphicsResourceGetMappedPointer")
        .expect("function");
    let dirs: Vec<(&str, Direction, &str)> = f
        .params
        .iter()
        .flatten()
        .map(|p| {
            (
                p.name.as_str(),
                p.direction,
                p.ty.as_ref().map(|t| t.text.as_str()).unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        dirs,
        [
            (
                "resource",
                Direction::In,
                ":py:obj:`~.cudaGraphicsResource_t`"
            ),
            ("devPtr", Direction::Out, "*Any*"),
            ("size", Direction::Out, "*int*")
        ]
    );

    // Continuation lines of a returns bullet join its doc; seealso names are read.
    let f = api.function("cudaIpcGetEventHandle").expect("function");
    let out = f
        .params
        .iter()
        .flatten()
        .find(|p| p.direction == Direction::Out)
        .expect("output");
    assert_eq!(
        out.doc,
        "Pointer to a user allocated cudaIpcEventHandle in which to return the opaque event handle"
    );
    assert!(f.see_also.iter().any(|s| s == "cuIpcGetEventHandle"));

    // An escaped C star before an output name is not part of the name.
    let f = api.function("cudaGraphNodeGetToolsId").expect("function");
    assert!(f
        .params
        .iter()
        .flatten()
        .any(|p| p.name == "toolsNodeId" && p.direction == Direction::Out));

    // Unnamed value bullets are the C return value.
    let f = api.function("cudaGetErrorName").expect("function");
    assert_eq!(f.rtype.as_ref().map(|t| &t.expr), Some(&TypeExpr::Bytes));
    assert_eq!(f.params.as_ref().map(Vec::len), Some(1));

    // Multi-line signature with a C type and an annotation.
    let f = api.function("cudaIpcOpenEventHandle").expect("function");
    let p = &f.params.as_ref().expect("params")[0];
    assert_eq!(
        (p.name.as_str(), p.doc.as_str()),
        ("handle", "Interprocess handle to open")
    );

    // A renamed `:param` documents the signature parameter at its position; one that does
    // not look like a renaming (another call's docs) is not attached.
    let f = api.function("cudaLaunchHostFunc").expect("function");
    let p = &f.params.as_ref().expect("params")[0];
    assert_eq!(
        (p.name.as_str(), p.doc.as_str()),
        ("stream", "Stream to enqueue function call in")
    );
    let f = api.function("cudaGraphAddMemsetNode").expect("function");
    assert!(f
        .params
        .iter()
        .flatten()
        .filter(|p| p.direction == Direction::In)
        .all(|p| p.doc.is_empty()));

    // Notes follow the description under a rubric.
    let f = api.function("cudaDeviceReset").expect("function");
    assert!(f.doc.contains(".. rubric:: Notes\n\n"));
    assert!(f.doc.starts_with("Destroy all allocations"));
}

#[test]
fn seed_types_details() {
    let (_, api) = seed();
    let e = api.enum_("cudaError_t").expect("enum");
    assert_eq!(e.variants[1].name, "cudaErrorInvalidValue");
    assert_eq!(e.variants[1].value, Some(1));
    assert!(e.variants[0]
        .doc
        .starts_with("The API call returned with no errors."));
    let s = api.struct_("cudaChannelFormatDesc").expect("struct");
    let fields: Vec<(&str, &str)> = s
        .fields
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                f.ty.as_ref().map(|t| t.text.as_str()).unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            ("x", "int"),
            ("y", "int"),
            ("z", "int"),
            ("w", "int"),
            ("f", "cudaChannelFormatKind")
        ]
    );
    assert_eq!(s.fields[4].doc, "Channel format kind");
    assert_eq!(s.doc, "CUDA Channel format descriptor");
    let t = api
        .typedefs
        .iter()
        .find(|t| t.name == "CUuuid")
        .expect("typedef");
    assert_eq!(t.kind, TypedefKind::Class);
    assert_eq!(t.fields.len(), 1);
    let c = api
        .constants
        .iter()
        .find(|c| c.name == "cudaCpuDeviceId")
        .expect("constant");
    assert_eq!(c.value, -1);
    let a = api
        .aliases
        .iter()
        .find(|a| a.name == "cudaStreamAttrValue")
        .expect("alias");
    assert_eq!(
        (a.target.as_str(), a.target_kind.as_str()),
        ("cudaStreamAttrValue", "class")
    );
}

#[test]
fn release_13_3_parses_without_errors() {
    let text =
        std::fs::read_to_string(RELEASE_13_3).expect("the 13.3 page is committed in docs-src");
    let api = parse("13.3.txt", &text);
    assert!(errors(&api).is_empty(), "{:#?}", errors(&api));
    let single = count_lines(&text, |l| {
        l.starts_with("cuda.bindings.runtime.") && l.ends_with(")#")
    });
    let multi = count_lines(&text, |l| {
        l.starts_with("cuda.bindings.runtime.") && l.ends_with('(')
    });
    assert_eq!(api.functions.len(), single + multi);
    assert_eq!(
        api.enums.len(),
        count_lines(&text, |l| l.starts_with("class ")
            && l.ends_with("(value: int)#"))
    );
    assert!(api.sections.len() >= 30);
}

fn bad(text: &str) -> Api {
    let api = parse("bad.txt", text);
    let lines = text.split('\n').count() as u32;
    for d in &api.diagnostics {
        assert!(
            d.line >= 1 && d.line <= lines,
            "diagnostic line {} outside 1..={lines}: {d}",
            d.line
        );
        assert_eq!(d.file, "bad.txt");
    }
    api
}

#[test]
fn unclosed_signatures_are_errors_and_parsing_goes_on() {
    let text =
        "Sec#\n\nm.f(\nint a,\nb,\nDoc of f\n\nm.g(int x, int y\nDoc of g\nm.h(z)#\nDoc of h\n";
    let api = bad(text);
    let errs: Vec<u32> = errors(&api).iter().map(|d| d.line).collect();
    assert_eq!(errs, [3, 8]);
    let names: Vec<&str> = api.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["f", "g", "h"]);
    let f = &api.functions[0];
    assert_eq!(f.params.as_ref().map(Vec::len), Some(2));
    assert_eq!(f.doc, "Doc of f");
    assert_eq!(api.functions[1].params.as_ref().map(Vec::len), Some(2));
}

#[test]
fn non_integer_member_is_an_error_and_the_member_kept() {
    let text = "class m.E(value: int)#\nE doc\nA = <E.A: 1>#\nB = <E.B: two>#\nC = <E.C: 3>#\n";
    let api = bad(text);
    let errs = errors(&api);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].line, 4);
    let values: Vec<Option<i64>> = api.enums[0].variants.iter().map(|v| v.value).collect();
    assert_eq!(values, [Some(1), None, Some(3)]);
}

#[test]
fn duplicates_are_warned_and_the_first_kept() {
    let text = "m.f(a)#\nfirst\nm.f(b)#\nsecond\nclass m.E(value: int)#\nA = <E.A: 1>#\nA = <E.A: 2>#\nruntime.K = 1#\nruntime.K = 2#\n";
    let api = bad(text);
    let warns: Vec<u32> = api
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| d.line)
        .collect();
    assert_eq!(warns, [3, 7, 9]);
    assert_eq!(api.functions.len(), 1);
    assert_eq!(api.functions[0].doc, "first");
    assert_eq!(api.enums[0].variants.len(), 1);
    assert_eq!(api.constants[0].value, 1);
}

#[test]
fn member_outside_enum_and_odd_values() {
    let api = bad("Sec#\n\nA = <E.A: 1>#\nruntime.X = foo#\n");
    assert_eq!(errors(&api).iter().map(|d| d.line).collect::<Vec<_>>(), [3]);
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.line == 4 && d.severity == Severity::Warning));
}

#[test]
fn deep_or_odd_types_are_warned_not_fatal() {
    let deep = format!("m.f(a: {}int{})#\n", "list[".repeat(5000), "]".repeat(5000));
    let api = bad(&deep);
    assert_eq!(api.functions[0].params.as_ref().map(Vec::len), Some(1));
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.line == 1 && d.message.contains("nested more than")));
    let api = bad("m.f(a: list[int)#\n");
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.line == 1 && d.message.contains("cannot read the type")));
    // A multi-byte character next to a separator the type reader looks for.
    let api = bad("m.g(a: é|é or ü)#\n");
    assert_eq!(api.functions.len(), 1);
}

#[test]
fn truncated_seed_parses_what_is_there() {
    let text = seed_text();
    // Cut inside the multi-line signature of cudaMemcpy2D.
    let cut = text.find("size_t spitch,\n").expect("cut point");
    let api = bad(&text[..cut]);
    assert_eq!(errors(&api).len(), 1);
    let last = api.functions.last().expect("functions");
    assert_eq!(last.name, "cudaMemcpy2D");
    assert_eq!(last.params.as_ref().map(Vec::len), Some(3));
    assert!(api.functions.len() > 100);
}

#[test]
fn binary_garbage_does_not_panic() {
    let bytes: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let api = codegen::parse::parse_document(
        "garbage.bin",
        &bytes,
        Some(codegen::ir::Format::BindingsText),
    );
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error));
    let text = String::from_utf8_lossy(&bytes);
    bad(&text);
}

/// Pieces of the page's syntax, for random inputs that reach deep into the parser.
const TOKENS: &[&str] = &[
    "#",
    "(",
    ")",
    ")#",
    " = ",
    "<",
    ">",
    ": ",
    ":",
    "*",
    "**",
    "`",
    ".",
    ",",
    "\n",
    "\n\n",
    " ",
    "   ",
    "\t",
    "a",
    "b1",
    "class ",
    "m.f",
    "runtime.X",
    "<E.A: 1>",
    "<enum 'Y'>",
    "(value: int)",
    "(void_ptr _ptr=0)",
    " -- ",
    "* ",
    ":returns: ",
    ":param ",
    ":type ",
    ":type: ",
    ":rtype: ",
    ".. attribute:: ",
    ".. method:: ",
    ".. seealso:: ",
    ".. rubric:: Notes",
    ":py:obj:`~.",
    "\\",
    "0",
    "-7",
    "x1",
    "\u{0}",
    "é",
    "\u{feff}",
];

fn seed_lines() -> &'static [String] {
    static LINES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    LINES.get_or_init(|| seed_text().lines().map(str::to_string).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_slices_of_the_seed(start in 0usize..18_000, len in 0usize..1_500) {
        let lines = seed_lines();
        let start = start.min(lines.len());
        let end = (start + len).min(lines.len());
        bad(&lines[start..end].join("\n"));
    }

    #[test]
    fn shuffled_lines_of_the_seed(start in 0usize..18_000, order in proptest::collection::vec(0usize..400, 0..400)) {
        let lines = seed_lines();
        let start = start.min(lines.len().saturating_sub(400));
        let window = &lines[start..(start + 400).min(lines.len())];
        let picked: Vec<&str> = order.iter().filter_map(|i| window.get(*i)).map(String::as_str).collect();
        bad(&picked.join("\n"));
    }

    #[test]
    fn random_token_soup(tokens in proptest::collection::vec(prop::sample::select(TOKENS), 0..800)) {
        bad(&tokens.concat());
    }

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..4000)) {
        let api = codegen::parse::parse_document("bad.txt", &bytes, Some(codegen::ir::Format::BindingsText));
        // Lines as the parser numbers them (as an editor shows them): a lone CR (old Mac
        // line endings) ends a line too, and CR LF is one line end.
        let lines = 1 + bytes
            .iter()
            .enumerate()
            .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
            .count() as u32;
        for d in &api.diagnostics {
            prop_assert!(d.line >= 1 && d.line <= lines);
        }
    }
}
