//! The typed layer's safety rules over the generated crates (every `[[crate]]` of
//! `docs-src/manifest.toml`): every pointer of every wrapper proven by the storage check or
//! listed as the reason its wrapper is `unsafe`; the rule tables name functions that exist;
//! and the cases that once let safe code write past C storage or keep dangling strings (in
//! the runtime's crates, and in NVRTC's).

use std::collections::BTreeSet;
use std::path::PathBuf;

use codegen::abi::CType;
use codegen::bind::{storage, unsafe_rules, Bindings, BoundFunction, Role, StrLifetime, Typed};
use codegen::library::Library;

/// Every workspace crate of `library`'s (at least two of each: a release of each major).
fn crates_of(library: Library) -> Vec<(String, Bindings)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let runs = codegen::pipeline::Options::workspace(&root, true).expect("the manifest reads");
    let crates: Vec<(String, Bindings)> = runs
        .iter()
        .filter(|opts| opts.library == library)
        .map(|opts| match codegen::pipeline::run(opts) {
            Ok(report) => (report.package.name, report.bindings),
            Err(e) => panic!("{}: {e}", opts.out_dir.display()),
        })
        .collect();
    assert!(
        crates.len() >= 2,
        "the manifest lists {} crates of {library}",
        crates.len()
    );
    crates
}

/// The runtime's crates.
fn crates() -> Vec<(String, Bindings)> {
    crates_of(Library::Cudart)
}

fn wrapper<'a>(b: &'a Bindings, name: &str) -> (&'a BoundFunction, &'a [Role]) {
    let f = b
        .functions
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("{name} is not bound"));
    match &f.typed {
        Typed::Wrapper { roles, .. } => (f, roles),
        Typed::Skipped { reason } => panic!("{name} has no wrapper: {reason}"),
    }
}

#[test]
fn every_pointer_of_every_crate_is_proven_or_listed() {
    for (name, b) in crates().into_iter().chain(crates_of(Library::Nvrtc)) {
        let listed = b.safety_rulings().join("\n");
        let mut counts = [0usize; 3];
        for f in &b.functions {
            let Typed::Wrapper { roles, .. } = &f.typed else {
                counts[2] += 1;
                continue;
            };
            counts[usize::from(f.typed.is_unsafe())] += 1;
            let unproven = storage::check(f, roles);
            assert!(unproven.is_empty(), "{name}: {}: {:?}", f.name, unproven);
            for (p, role) in f.params.iter().zip(roles) {
                // Independently of the check: a safe wrapper never passes one value where C
                // writes a string, nor where a count parameter says C accesses several.
                if let (
                    CType::Pointer {
                        to,
                        is_const: false,
                    },
                    false,
                ) = (&p.ty.c, f.typed.is_unsafe())
                {
                    if matches!(&**to, CType::Primitive { name } if name == "char") {
                        assert!(
                            matches!(role, Role::OutString { .. } | Role::ByteBuffer { .. }),
                            "{name}: {} passes `{}` as {role:?}",
                            f.name,
                            p.c_name
                        );
                    }
                }
                if let Role::Unproven { reason } = role {
                    assert!(f.typed.is_unsafe());
                    assert!(
                        listed.contains(&format!("storage not proven: {} `{}`", f.name, p.c_name)),
                        "{name}: {} `{}` ({reason}) is not listed",
                        f.name,
                        p.c_name
                    );
                }
            }
            if let Typed::Wrapper {
                unsafe_rule: Some(rule),
                ..
            } = &f.typed
            {
                assert!(f.typed.is_unsafe());
                assert!(
                    listed.contains(&format!("unsafe by rule `{}`: {} (", rule.pattern, f.name)),
                    "{name}: {} is not listed",
                    f.name
                );
            }
        }
        println!(
            "{name}: {} safe, {} unsafe, {} without a typed wrapper",
            counts[0], counts[1], counts[2]
        );
        match b.library {
            Library::Cudart => assert!(counts[0] > 50 && counts[1] > 200, "{name}: {counts:?}"),
            Library::Nvrtc => assert!(counts[0] >= 5 && counts[1] >= 15, "{name}: {counts:?}"),
            // Only the version query takes no handle; every other function is unsafe.
            Library::Nvjitlink => assert!(counts[0] >= 1 && counts[1] >= 13, "{name}: {counts:?}"),
        }
    }
}

#[test]
fn nvrtc_outputs_without_a_stated_size_are_raw_and_strings_copied() {
    for (name, b) in crates_of(Library::Nvrtc) {
        // Once `api::get_supported_archs()` let NVRTC write its whole array into one `int`:
        // the parameter's text says "array of", and no parameter is its count.
        let (f, roles) = wrapper(&b, "nvrtcGetSupportedArchs");
        assert!(
            matches!(roles[0], Role::Unproven { .. }),
            "{name}: {roles:?}"
        );
        assert!(f.typed.is_unsafe(), "{name}");
        // PTX, CUBIN, LTO-IR and log buffers are sized by another call: raw, unsafe.
        for get in [
            "nvrtcGetPTX",
            "nvrtcGetCUBIN",
            "nvrtcGetLTOIR",
            "nvrtcGetProgramLog",
        ] {
            let (f, roles) = wrapper(&b, get);
            assert!(
                matches!(roles[1], Role::Unproven { .. }),
                "{name}: {get}: {roles:?}"
            );
            assert!(f.typed.is_unsafe(), "{name}: {get}");
        }
        // The version is two outputs, safe.
        let (f, roles) = wrapper(&b, "nvrtcVersion");
        assert_eq!(roles, [Role::Out, Role::Out], "{name}");
        assert!(!f.typed.is_unsafe(), "{name}");
        // The lowered name lives as long as the program: copied. Error strings are static.
        let (_, roles) = wrapper(&b, "nvrtcGetLoweredName");
        assert_eq!(
            roles[2],
            Role::OutCStr {
                lifetime: StrLifetime::Copied
            },
            "{name}"
        );
        let (f, _) = wrapper(&b, "nvrtcGetErrorString");
        assert!(matches!(
            f.typed,
            Typed::Wrapper {
                ret_string: Some(StrLifetime::Static),
                ..
            }
        ));
    }
}

#[test]
fn string_outputs_are_sized_by_their_length_and_lists_by_their_count() {
    for (name, b) in crates() {
        // Once `api::device_get_pci_bus_id(64, 0)` let CUDA write 13 bytes into one `c_char`.
        let (f, roles) = wrapper(&b, "cudaDeviceGetPCIBusId");
        assert_eq!(
            roles[0],
            Role::OutString { len: 1 },
            "{name}: {}",
            f.params[1].c_name
        );
        assert!(!f.typed.is_unsafe());
        // Once a `&mut cudaGraphicsResource_t` with any `count`.
        let (_, roles) = wrapper(&b, "cudaGraphicsMapResources");
        assert!(
            matches!(roles[1], Role::Slice { count: 0, .. }),
            "{name}: {roles:?}"
        );
        // Once `api::logs_dump_to_memory` let CUDA write `*size` bytes into one `c_char`
        // (the logs API is in 13.x only).
        if b.functions.iter().any(|f| f.name == "cudaLogsDumpToMemory") {
            let (f, roles) = wrapper(&b, "cudaLogsDumpToMemory");
            assert_eq!(roles[1], Role::ByteBuffer { size: 2 }, "{name}");
            assert_eq!(roles[2], Role::ByteBufferSize { of: 1 }, "{name}");
            assert!(!f.typed.is_unsafe());
        }
    }
}

#[test]
fn returned_strings_are_static_only_by_rule() {
    for (name, b) in crates() {
        for f in &b.functions {
            let Typed::Wrapper {
                roles, ret_string, ..
            } = &f.typed
            else {
                continue;
            };
            let ruled = codegen::bind::strings::rule_for(&f.name).is_some();
            let lifetimes = roles
                .iter()
                .filter_map(|r| match r {
                    Role::OutCStr { lifetime } => Some(*lifetime),
                    _ => None,
                })
                .chain(*ret_string);
            for l in lifetimes {
                assert_eq!(l == StrLifetime::Static, ruled, "{name}: {}", f.name);
            }
        }
        let (_, roles) = wrapper(&b, "cudaFuncGetName");
        assert_eq!(
            roles[0],
            Role::OutCStr {
                lifetime: StrLifetime::Copied
            },
            "{name}"
        );
        let (f, _) = wrapper(&b, "cudaGetErrorName");
        assert!(matches!(
            f.typed,
            Typed::Wrapper {
                ret_string: Some(StrLifetime::Static),
                ..
            }
        ));
    }
}

#[test]
fn the_unsafe_rules_name_functions_that_exist_and_make_them_unsafe() {
    let crates = crates();
    let nvrtc = crates_of(Library::Nvrtc);
    let all: BTreeSet<&str> = crates
        .iter()
        .chain(&nvrtc)
        .flat_map(|(_, b)| b.functions.iter().map(|f| f.name.as_str()))
        .collect();
    for rule in unsafe_rules::RULES {
        if let unsafe_rules::Pattern::Name(n) = rule.pattern {
            assert!(all.contains(n), "the rule for {n} names no bound function");
        }
    }
    for (n, _) in unsafe_rules::EXCEPTIONS {
        assert!(all.contains(n), "the exception {n} names no bound function");
    }
    for (name, b) in &crates {
        for must in [
            "cudaDeviceReset",
            "cudaDestroyTextureObject",
            "cudaDestroySurfaceObject",
            "cudaStreamDestroy",
            "cudaEventRecord",
            "cudaStreamWaitEvent",
            "cudaStreamBeginCapture",
            "cudaGraphLaunch",
            "cudaLibraryUnload",
        ] {
            let (f, _) = wrapper(b, must);
            assert!(
                matches!(
                    &f.typed,
                    Typed::Wrapper {
                        unsafe_rule: Some(_),
                        ..
                    }
                ) && f.typed.is_unsafe(),
                "{name}: {must} is not unsafe by rule"
            );
        }
        // A getter that only values go into stays safe.
        let (f, _) = wrapper(b, "cudaGetDeviceCount");
        assert!(!f.typed.is_unsafe(), "{name}");
    }
}
