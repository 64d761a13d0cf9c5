//! The join of the 13.2 documentation (seed 001) with cudarc's ABI for 13.2, and the emitted
//! raw layer: every documented function the ABI declares is bound and emitted, every other
//! one is listed with a reason, renamings are reported, disagreements are diagnostics.

use std::path::PathBuf;

use codegen::diag::Severity;
use codegen::ir::Release;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn seed_001() -> codegen::ir::Api {
    let path = root().join("docs-src/nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt");
    let api = codegen::load::load_document(&path, None).expect("seed 001 loads");
    codegen::merge::merge(vec![api])
}

fn abi_13_2() -> codegen::abi::Abi {
    codegen::abi::load_snapshot(&root(), &Release(vec![13, 2]))
        .expect("the 13.2 snapshot is committed")
}

#[test]
fn every_documented_function_is_bound_or_listed_with_a_reason() {
    let api = seed_001();
    let abi = abi_13_2();
    let b = codegen::bind::join(&api, &abi);
    let mut bound = 0;
    let mut listed = 0;
    for f in &api.functions {
        let is_helper = b.constructors.iter().any(|c| c.name == f.name);
        if is_helper {
            // An inline helper of the headers: emitted as a Rust constructor, no symbol.
            assert!(abi.function_for(&f.name).is_none(), "{}", f.name);
            bound += 1;
            continue;
        }
        let is_bound = b.functions.iter().any(|g| g.name == f.name);
        let unbound = b
            .unbound
            .iter()
            .find(|u| u.kind == "function" && u.name == f.name);
        assert_eq!(
            is_bound,
            abi.function_for(&f.name).is_some(),
            "{}: bound iff the ABI declares it",
            f.name
        );
        match (is_bound, unbound) {
            (true, None) => bound += 1,
            (false, Some(u)) => {
                assert!(
                    !u.reason.is_empty(),
                    "{} is listed without a reason",
                    f.name
                );
                listed += 1;
            }
            (b_, u) => panic!("{}: bound={b_} listed={}", f.name, u.is_some()),
        }
    }
    println!("seed 001: {bound} functions bound, {listed} listed as unbound");
    assert_eq!(bound + listed, api.functions.len());
    assert!(bound > 250, "only {bound} bound");
    // The inline helpers have no symbol: bound as constructors of their records, with the
    // record's fields in order. The interop functions the headers declare (cudarc's bindings
    // left them out) are bound with their types.
    let helper = b
        .constructors
        .iter()
        .find(|c| c.name == "make_cudaPitchedPtr")
        .expect("make_cudaPitchedPtr is a constructor");
    assert_eq!(helper.record, "cudaPitchedPtr");
    let fields: Vec<&str> = helper.params.iter().map(|p| p.1.as_str()).collect();
    assert_eq!(fields, ["ptr", "pitch", "xsize", "ysize"]);
    assert!(!b.unbound.iter().any(|u| u.name == "make_cudaPitchedPtr"));
    for name in [
        "cudaGLGetDevices",
        "cudaVDPAUGetDevice",
        "cudaProfilerStart",
    ] {
        assert!(
            b.functions.iter().any(|f| f.name == name),
            "{name} is not bound"
        );
    }
}

#[test]
fn parameters_follow_c_order_and_renamings_are_reported() {
    let b = codegen::bind::join(&seed_001(), &abi_13_2());
    let f = b
        .functions
        .iter()
        .find(|f| f.name == "cudaMallocPitch")
        .expect("bound");
    let names: Vec<&str> = f.params.iter().map(|p| p.c_name.as_str()).collect();
    assert_eq!(names, ["devPtr", "pitch", "width", "height"]);
    // `devPtr` and `pitch` are `:returns:` outputs in the docs, inputs come from the signature.
    let dirs: Vec<_> = f.params.iter().map(|p| p.direction).collect();
    use codegen::ir::Direction::{In, Out};
    assert_eq!(dirs, [Some(Out), Some(Out), Some(In), Some(In)]);
    assert!(!b.renamings.is_empty(), "no renaming reported");
    for r in &b.renamings {
        assert_ne!(r.rule, codegen::bind::Rule::Exact);
        assert!(
            b.diagnostics
                .iter()
                .any(|d| d.message.contains(&r.doc_name) && d.message.contains(&r.function)),
            "renaming {r:?} has no diagnostic"
        );
    }
    println!(
        "{} renamings, e.g. {:?}",
        b.renamings.len(),
        b.renamings.first()
    );
}

#[test]
fn disagreements_are_diagnostics_with_locations() {
    let b = codegen::bind::join(&seed_001(), &abi_13_2());
    for d in b
        .diagnostics
        .iter()
        .filter(|d| d.severity <= Severity::Warning)
    {
        assert!(
            !d.file.is_empty() && d.line > 0,
            "diagnostic without a location: {d}"
        );
    }
    // Enum values the docs state agree with the ABI for the same release, except where a
    // diagnostic says otherwise.
    let api = seed_001();
    let abi = abi_13_2();
    let mut compared = 0;
    for e in &api.enums {
        let Some(ae) = abi.enum_named(&e.name) else {
            continue;
        };
        for v in &e.variants {
            if let (Some(a), Some(d)) = (ae.value(&v.name), v.value) {
                compared += 1;
                if a != i128::from(d) {
                    assert!(
                        b.diagnostics.iter().any(|x| x.message.contains(&v.name)),
                        "{}::{} differs silently",
                        e.name,
                        v.name
                    );
                }
            }
        }
    }
    println!("{compared} enum values compared");
    assert!(compared > 500);
}

#[test]
fn emitted_raw_layer_has_every_bound_function_with_docs() {
    let api = seed_001();
    let abi = abi_13_2();
    let dir = std::env::temp_dir().join(format!("join-emit-{}", std::process::id()));
    let opts = codegen::pipeline::Options::standalone(vec![], dir.clone());
    let report =
        codegen::pipeline::run_with(api, &abi, Release(vec![13, 2]), &opts).expect("generates");
    let functions = std::fs::read_to_string(dir.join("src/sys/functions.rs")).expect("written");
    for f in &report.bindings.functions {
        assert!(
            functions.contains(&format!("pub unsafe fn {}(", f.name)),
            "{} not emitted",
            f.name
        );
    }
    assert!(report.doc_problems.is_empty(), "{:?}", report.doc_problems);
    let enums = std::fs::read_to_string(dir.join("src/sys/enums.rs")).expect("written");
    assert!(
        enums.contains("#[repr(transparent)]") && enums.contains("c_enum!(cudaMemcpyKind, u32);")
    );
    assert!(enums.contains("#[doc(alias = \"cudaMemcpyHostToDevice\")]"));
    let flags = std::fs::read_to_string(dir.join("src/sys/flags.rs")).expect("written");
    assert!(flags.contains("impl ::bitflags::Flags for HostAllocFlags"));
    assert!(flags.contains("c_flags!(HostAllocFlags, u32);"));
    // A complete crate, named for itself, that builds on its own.
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("written");
    assert!(manifest.contains("name = \"cudart13\"") && manifest.contains("\n[workspace]\n"));
    for f in [
        "src/lib.rs",
        "src/loader.rs",
        "src/error.rs",
        "src/library.rs",
        "tests/audit.rs",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let first = functions.lines().next().unwrap_or("");
    assert!(
        first.starts_with("// @generated by `cargo xtask codegen`"),
        "{first}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
