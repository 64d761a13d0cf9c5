//! The doxygen-header front end on NVIDIA's headers (committed under `docs-src/`): what the
//! 13.2 headers hold, `cudaLaunchKernel` and the rendered note aliases, the merge with the
//! 13.2 page (the page wins an item, the headers fill what it lacks), the typed wrappers the
//! headers give to functions the page leaves out, the 12.8 ↔ 13.5 header diff and coverage
//! with headers as the documents, and damaged input (diagnostics, never a panic).

use std::collections::BTreeSet;
use std::path::PathBuf;

use codegen::diag::Severity;
use codegen::ir::{Api, Direction, Format, Release};
use proptest::prelude::*;

fn docs_src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs-src")
}

/// The merged IR of the documents under `rel` (a file or folder of docs-src).
fn load(rel: &[&str]) -> Api {
    let paths: Vec<PathBuf> = rel.iter().map(|r| docs_src().join(r)).collect();
    codegen::merge::merge(codegen::load::load_all(&paths, None).expect("documents load"))
}

fn headers(release: &str) -> Api {
    load(&[&format!("nvidia-cuda-headers-{release}")])
}

const PAGE_13_2: &str = "nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt";

fn messages(api: &Api, severity: Severity) -> Vec<String> {
    api.diagnostics
        .iter()
        .filter(|d| d.severity == severity)
        .map(ToString::to_string)
        .collect()
}

/// The number of comment lines a diagnostic says were not read (`N line(s) not read`).
fn unread_lines(message: &str) -> usize {
    message
        .split(" line(s)")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[test]
fn counts_read_from_the_13_2_headers() {
    let api = headers("13.2");
    assert!(api
        .documents
        .iter()
        .all(|d| d.format == Format::DoxygenHeader && d.release == Release::parse("13.2")));
    assert_eq!(api.documents.len(), 10);
    let counts = (
        api.functions.len(),
        api.param_count(),
        api.enums.len(),
        api.variant_count(),
        api.structs.len(),
        api.field_count(),
        api.typedefs.len(),
        api.constants.len(),
        api.aliases.len(),
        api.sections.len(),
    );
    println!("13.2 headers: functions, params, enums, members, structs, fields, typedefs, constants, aliases, sections = {counts:?}");
    assert_eq!(counts, (368, 1134, 84, 804, 68, 385, 41, 62, 9, 37));
    // Every section has the title a header gives it (none is left named by its group id).
    assert!(api
        .sections
        .iter()
        .all(|s| s.id.as_deref() != Some(&s.name)));
    assert!(messages(&api, Severity::Error).is_empty());
    // Warnings: one free-standing comment, and documented parameters that name no C
    // parameter (NVIDIA's typos, paired by position and reported).
    let warnings = messages(&api, Severity::Warning);
    let (orphans, positional): (Vec<&String>, Vec<&String>) = warnings
        .iter()
        .partition(|w| w.contains("documents no declaration"));
    assert_eq!(orphans.len(), 1, "{warnings:#?}");
    assert!(orphans[0].contains("cuda_runtime_api.h:121:"));
    assert_eq!(positional.len(), 14, "{warnings:#?}");
    assert!(positional
        .iter()
        .all(|w| w.contains("the C parameter in its place")));
    // Unread comment lines, each explained: the LaTeX-only page, two comments on
    // preprocessor lines, the free-standing comment.
    let unread: Vec<(String, usize)> = api
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("not read"))
        .map(|d| (d.to_string(), unread_lines(&d.message)))
        .collect();
    let total: usize = unread.iter().map(|(_, n)| n).sum();
    println!("unread comment lines: {total}: {unread:#?}");
    assert_eq!(unread.len(), 4, "{unread:#?}");
    assert_eq!(total, 41 + 1 + 1 + 12);
    assert!(api.diagnostics.iter().all(|d| d.line > 0));
}

#[test]
fn cuda_launch_kernel_with_its_parameters_and_error_codes() {
    let api = headers("13.2");
    let f = api.function("cudaLaunchKernel").expect("documented");
    assert_eq!(f.section.as_deref(), Some("Execution Control"));
    assert_eq!(
        f.rtype.as_ref().map(|t| t.text.as_str()),
        Some("cudaError_t")
    );
    let params: Vec<(&str, &str, &str)> = f
        .params
        .as_ref()
        .expect("params")
        .iter()
        .map(|p| {
            assert_eq!(p.direction, Direction::Unstated);
            (
                p.name.as_str(),
                p.ty.as_ref().map_or("", |t| t.text.as_str()),
                p.doc.as_str(),
            )
        })
        .collect();
    assert_eq!(
        params,
        [
            ("func", "const void*", "Device function symbol"),
            ("gridDim", "dim3", "Grid dimentions"),
            ("blockDim", "dim3", "Block dimentions"),
            ("args", "void**", "Arguments"),
            ("sharedMem", "size_t", "Shared memory"),
            ("stream", "cudaStream_t", "Stream identifier"),
        ]
    );
    // Success and eleven error codes.
    assert_eq!(f.errors.len(), 12, "{:?}", f.errors);
    assert_eq!(f.errors[0], "cudaSuccess");
    assert_eq!(f.errors[11], "cudaErrorJitCompilationDisabled");
    assert_eq!(f.see_also, ["cudaLaunchKernel (C++ API)", "cuLaunchKernel"]);
    assert!(f.doc.contains(
        "If the kernel has N parameters the ``args`` should point to array of N pointers."
    ));
    assert!(f.source.file.ends_with("cuda_runtime_api.h") && f.source.line > 0);
}

#[test]
fn note_aliases_are_rendered_from_the_table() {
    let api = headers("13.2");
    let memcpy = api.function("cudaMemcpy").expect("cudaMemcpy");
    for text in [
        "may also return error codes from previous, asynchronous launches",
        "if this call tries to initialize internal CUDA RT state",
        "no CUDA function may be called from callback",
        "`synchronous <https://docs.nvidia.com/cuda/cuda-runtime-api/api-sync-behavior.html#api-sync-behavior__memcpy-sync>`_ behavior",
        "Memory regions requested must be either entirely registered with CUDA",
    ] {
        assert!(memcpy.doc.contains(text), "{text}: {}", memcpy.doc);
    }
    // No alias is left unexpanded anywhere.
    let all_docs = api.functions.iter().map(|f| f.doc.as_str());
    assert!(all_docs.clone().all(|d| !d.contains("\\note")));
    // The one alias whose text was not found is rendered neutrally and reported.
    let legacy = api
        .constants
        .iter()
        .find(|c| c.name == "cudaStreamLegacy")
        .expect("cudaStreamLegacy");
    assert_eq!(legacy.value, 1);
    assert!(legacy
        .doc
        .contains("See details of the stream synchronization behavior"));
    let notes = messages(&api, Severity::Note);
    assert_eq!(
        notes
            .iter()
            .filter(|n| n.contains("`\\link_sync_behavior`: the publisher's text was not found"))
            .count(),
        2
    );
}

#[test]
fn the_page_wins_and_the_headers_fill_and_add() {
    let page = load(&[PAGE_13_2]);
    let both = load(&[PAGE_13_2, "nvidia-cuda-headers-13.2"]);
    let heads = headers("13.2");
    // Documented by both: the page is the item's source, both are its sources.
    let malloc = both.function("cudaMalloc").expect("cudaMalloc");
    assert!(malloc.source.file.ends_with("cuda.bindings.runtime.txt"));
    assert_eq!(malloc.sources.len(), 2);
    assert!(malloc.sources[1].file.ends_with("cuda_runtime_api.h"));
    assert_eq!(
        malloc.params,
        page.function("cudaMalloc").expect("page").params
    );
    // What the page leaves empty inside an item comes from the headers.
    let page_memcpy = page.function("cudaMemcpy").expect("page cudaMemcpy");
    assert!(page_memcpy.errors.is_empty());
    let memcpy = both.function("cudaMemcpy").expect("cudaMemcpy");
    assert!(memcpy.source.file.ends_with("cuda.bindings.runtime.txt"));
    assert_eq!(
        memcpy.errors,
        heads.function("cudaMemcpy").expect("h").errors
    );
    let dst = memcpy
        .params
        .as_ref()
        .expect("params")
        .iter()
        .find(|p| p.name == "dst");
    assert_eq!(
        dst.map(|p| p.doc.as_str()),
        Some("Destination memory address")
    );
    // Functions only the headers document are added, from the headers.
    let page_names: BTreeSet<&str> = page.functions.iter().map(|f| f.name.as_str()).collect();
    let header_only: Vec<&str> = heads
        .functions
        .iter()
        .map(|f| f.name.as_str())
        .filter(|n| !page_names.contains(n))
        .collect();
    println!(
        "documented by the 13.2 headers, not by the page: {} functions",
        header_only.len()
    );
    assert_eq!(header_only.len(), 74, "{header_only:?}");
    for name in [
        "cudaLaunchKernel",
        "cudaLaunchKernelExC",
        "cudaLaunchCooperativeKernel",
        "cudaMemcpyToSymbol",
        "cudaMemcpyFromSymbol",
        "cudaGetSymbolAddress",
        "cudaGetSymbolSize",
        "cudaFuncGetName",
        "cudaOccupancyMaxActiveClusters",
        "cudaMemcpyArrayToArray",
    ] {
        assert!(header_only.contains(&name), "{name}");
        let f = both.function(name).expect("merged");
        assert!(f.source.file.ends_with(".h"), "{name}: {}", f.source);
    }
    assert_eq!(
        both.functions.len(),
        page.functions.len() + header_only.len()
    );
    // The group id of a section the page also has is kept.
    let device = both
        .sections
        .iter()
        .find(|s| s.name == "Device Management")
        .expect("section");
    assert_eq!(device.id.as_deref(), Some("CUDART_DEVICE"));
}

/// Binds the 13.2 page with the 13.2 headers against `abi` and checks what the headers add:
/// every header-only function the ABI declares is bound, the typed wrappers and the rule
/// applications. Returns (bound, typed) for the header-only functions.
fn header_only_bindings(abi: &codegen::abi::Abi) -> (usize, usize) {
    use codegen::bind::{Role, Typed};
    let page = load(&[PAGE_13_2]);
    let both = load(&[PAGE_13_2, "nvidia-cuda-headers-13.2"]);
    let b = codegen::bind::bind(&both, abi);
    let page_names: BTreeSet<&str> = page.functions.iter().map(|f| f.name.as_str()).collect();
    let header_only: Vec<&codegen::bind::BoundFunction> = b
        .functions
        .iter()
        .filter(|f| f.documented && !page_names.contains(f.name.as_str()))
        .collect();
    // Independent count: the header-only names the ABI declares.
    let declared = both
        .functions
        .iter()
        .filter(|f| !page_names.contains(f.name.as_str()) && abi.functions.contains_key(&f.name))
        .count();
    assert_eq!(header_only.len(), declared);
    let typed = header_only
        .iter()
        .filter(|f| matches!(f.typed, Typed::Wrapper { .. }))
        .count();
    // Every unstated direction was decided by a listed rule, or is why a function has no
    // wrapper.
    let ids: BTreeSet<&str> = codegen::bind::directions::RULES
        .iter()
        .map(|r| r.id)
        .collect();
    assert!(b
        .direction_rulings
        .iter()
        .all(|r| ids.contains(r.rule.as_str())));
    for f in &header_only {
        if let Typed::Skipped { reason } = &f.typed {
            assert!(
                reason.contains("direction is not stated") || reason.contains("list"),
                "{}: {reason}",
                f.name
            );
        }
    }
    let launch = b
        .functions
        .iter()
        .find(|f| f.name == "cudaLaunchKernel")
        .expect("bound");
    let Typed::Wrapper {
        roles, rust_name, ..
    } = &launch.typed
    else {
        panic!("cudaLaunchKernel has no typed wrapper: {:?}", launch.typed);
    };
    assert_eq!(rust_name, "launch_kernel");
    assert_eq!(
        roles,
        &[
            Role::RawPointer,
            Role::Value,
            Role::Value,
            Role::PointerArray,
            Role::Value,
            Role::Handle
        ]
    );
    let get_name = b
        .functions
        .iter()
        .find(|f| f.name == "cudaFuncGetName")
        .expect("bound");
    // The name lives as long as the function's module: copied, not `'static`.
    assert!(
        matches!(&get_name.typed, Typed::Wrapper { roles, .. } if roles[0] == Role::OutCStr { lifetime: codegen::bind::StrLifetime::Copied })
    );
    println!(
        "{}: header-only functions bound: {}, with a typed wrapper: {typed}; direction rulings: {}",
        abi.origin,
        header_only.len(),
        b.direction_rulings.len()
    );
    (header_only.len(), typed)
}

fn snapshot_13_2() -> codegen::abi::Abi {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    codegen::abi::load_snapshot(&root, &Release(vec![13, 2]))
        .expect("the 13.2 snapshot is committed")
}

#[test]
fn header_only_functions_get_typed_wrappers() {
    // The ABI `cargo xtask codegen` reads: the 13.2 headers' own (it declares the OpenGL
    // interop functions too). Every one has a typed wrapper: the three the direction rules
    // once left undecided (`cudaSetValidDevices`, `cudaFuncGetParamInfo`,
    // `cudaGraphAddMemAllocNode`) are decided by `given-list`, `described-output` and
    // `field-returned`.
    assert_eq!(header_only_bindings(&snapshot_13_2()), (73, 73));
}

#[test]
fn header_only_functions_against_the_cudarc_abi() {
    // The cross-check ABI: cudarc leaves the interop functions out.
    let abi = codegen::abi::load_cudarc(&Release(vec![13, 2])).expect("cudarc is pinned");
    assert_eq!(header_only_bindings(&abi), (65, 65));
}

#[test]
fn the_typed_launch_wrapper_carries_nvidias_text() {
    let docs = vec![
        docs_src().join(PAGE_13_2),
        docs_src().join("nvidia-cuda-headers-13.2"),
    ];
    let out = std::env::temp_dir().join(format!("codegen-doxygen-{}", std::process::id()));
    let report = codegen::pipeline::run(&codegen::pipeline::Options::standalone(docs, out.clone()))
        .expect("codegen runs");
    let api_rs = std::fs::read_to_string(out.join("src/api.rs")).expect("api.rs written");
    let _ = std::fs::remove_dir_all(&out);
    assert!(report.doc_problems.is_empty(), "{:?}", report.doc_problems);
    let at = api_rs
        .find("pub unsafe fn launch_kernel(")
        .expect("the typed wrapper");
    let doc_start = api_rs[..at]
        .rfind("/// Launches a device function")
        .expect("its rustdoc");
    let doc = &api_rs[doc_start..at];
    for text in [
        "If the kernel has N parameters the `args` should point to array of N pointers.",
        "Note that this function may also return error codes from previous, asynchronous launches.",
        "[default stream](https://docs.nvidia.com/cuda/cuda-runtime-api/stream-sync-behavior.html#stream-sync-behavior__default-stream)",
        "ERROR_JIT_COMPILATION_DISABLED",
        "`args` must hold exactly one valid pointer per parameter of the kernel",
    ] {
        assert!(doc.contains(text), "{text}\n{doc}");
    }
    assert!(api_rs[at..].starts_with("pub unsafe fn launch_kernel(\n    func: *const c_void,\n    grid_dim: dim3,\n    block_dim: dim3,\n    args: &mut [*mut c_void],"));
}

#[test]
fn diff_of_the_12_8_and_13_5_headers() {
    let old = headers("12.8");
    let new = headers("13.5");
    let d = codegen::diff::diff(&old, &new);
    let summary = codegen::diff::render::summary(&d);
    println!("{summary}");
    let names = |items: &[codegen::diff::ItemRef]| -> BTreeSet<String> {
        items
            .iter()
            .filter(|i| i.kind == codegen::diff::ItemKind::Function)
            .map(|i| i.name.clone())
            .collect()
    };
    let (added, removed) = (names(&d.added), names(&d.removed));
    // Independent count: the set differences of the two function lists.
    let o: BTreeSet<&str> = old.functions.iter().map(|f| f.name.as_str()).collect();
    let n: BTreeSet<&str> = new.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(added.len(), n.difference(&o).count());
    assert_eq!(removed.len(), o.difference(&n).count());
    assert_eq!((old.functions.len(), new.functions.len()), (349, 370));
    assert_eq!((added.len(), removed.len()), (41, 20));
    for name in [
        "cudaLaunchHostFunc_v2",
        "cudaExecutionCtxSynchronize",
        "cudaGreenCtxCreate",
        "cudaStreamBeginRecaptureToGraph",
        "cudaMemcpyWithAttributesAsync",
    ] {
        assert!(added.contains(name), "{name} added");
    }
    for name in [
        "cudaThreadExit",
        "cudaSetDoubleForDevice",
        "cudaLaunchCooperativeKernelMultiDevice",
        "cudaStreamGetCaptureInfo_v3",
        "cudaMemPrefetchAsync_v2",
    ] {
        assert!(removed.contains(name), "{name} removed");
    }
    // A signature change the headers state: cudaMemAdvise takes a location since 13.0.
    let advise = d.changes_of(codegen::diff::ItemKind::Function, "cudaMemAdvise");
    assert!(
        advise.iter().any(|c| c.part.as_deref() == Some("location")),
        "{advise:?}"
    );
}

#[test]
fn coverage_with_headers_as_the_documents() {
    let api = headers("13.2");
    let abi = snapshot_13_2();
    // A library exporting what the ABI declares: every documented ABI function is bound.
    let exports =
        codegen::coverage::Exports::from_names("libcudart.so.13", abi.functions.keys().cloned());
    let c = codegen::coverage::audit(&api, &abi, &exports, None);
    let bound = c.totals.count(codegen::coverage::Class::Bound);
    let no_abi = c.totals.count(codegen::coverage::Class::NoAbi);
    println!(
        "coverage, 13.2 headers as the documents: bound {bound}, documented without ABI {no_abi}"
    );
    assert_eq!(bound + no_abi, api.functions.len());
    assert_eq!(
        bound,
        api.functions
            .iter()
            .filter(|f| abi.functions.contains_key(&f.name))
            .count()
    );
    assert!(c.row("cudaLaunchKernel").is_some());
}

#[test]
fn damaged_headers_give_diagnostics_not_panics() {
    let text =
        std::fs::read_to_string(docs_src().join("nvidia-cuda-headers-13.2/driver_functions.h"))
            .expect("header");
    // Truncated in the middle of a comment and in the middle of a declaration.
    let in_comment = text.find("Returns a ::cudaPos").expect("comment");
    let api = codegen::parse::parse_document(
        "t.h",
        &text.as_bytes()[..in_comment],
        Some(Format::DoxygenHeader),
    );
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error && d.message.contains("unterminated comment")));
    let in_decl = text.find("make_cudaPos(size_t").expect("declaration") + 10;
    let api = codegen::parse::parse_document(
        "t.h",
        &text.as_bytes()[..in_decl],
        Some(Format::DoxygenHeader),
    );
    assert!(
        api.diagnostics
            .iter()
            .any(|d| d.message.contains("ends inside a declaration")),
        "{:#?}",
        api.diagnostics
    );
    // Detected from content.
    let api = codegen::parse::parse_document("t.h", text.as_bytes(), None);
    assert_eq!(api.documents[0].format, Format::DoxygenHeader);
    assert_eq!(api.functions.len(), 3);
    // Deep nesting, stray brackets and long runs of markup characters.
    let nasty = format!(
        "#define X 1\n/** {} \\p */\nstruct S {{ {} }};\n/** <a href=\"x\"> {} */\nint f({});\n}}}}}}\n/**< stray */\n",
        "<ol><li>".repeat(200),
        "struct { int a; ".repeat(300),
        "&&&&<<<<\\\\@@".repeat(500),
        "(".repeat(1000)
    );
    let api = codegen::parse::parse_document("n.h", nasty.as_bytes(), None);
    assert!(!api.diagnostics.is_empty());
}

#[test]
fn megabytes_of_pathological_input_are_read_in_one_pass() {
    // Quadratic work on any of these would take minutes, not the test's few seconds.
    let input = format!(
        "{}\n/** {} {} {} */\nint f(void);\n{}\n",
        "{}".repeat(500_000),
        "<".repeat(500_000),
        "&".repeat(500_000),
        "\\ref a(".repeat(100_000),
        "(".repeat(500_000),
    );
    let api =
        codegen::parse::parse_document("big.h", input.as_bytes(), Some(Format::DoxygenHeader));
    // The unclosed `(` run at the end is said not read: as too long a statement (it is
    // longer than the bound on one statement) or as input ending inside a declaration.
    assert!(api.diagnostics.iter().any(|d| d.line == 4
        && (d.message.contains("ends inside a declaration")
            || d.message.contains("a statement longer than"))));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn any_text_parses_without_panic(s in "(\\PC|/\\*\\*|\\*/|\\\\[a-z]+|[{}();#<>&@]|\n){0,400}") {
        let api = codegen::parse::parse_document("p.h", s.as_bytes(), Some(Format::DoxygenHeader));
        for d in &api.diagnostics {
            prop_assert!(d.line >= 1);
        }
    }

    #[test]
    fn any_bytes_parse_without_panic(b in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let _ = codegen::parse::parse_document("b.h", &b, Some(Format::DoxygenHeader));
    }
}
