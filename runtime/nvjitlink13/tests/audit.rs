// Copied by `cargo xtask codegen` from the generator's codegen/template/tests/audit.rs:
// edit the template, not this copy.

//! The crate audited against its CUDA release's own `nvJitLink.h` and `libnvJitLink`.
//!
//! `cargo xtask codegen` writes the tables of `audit/tables.rs` and the C++ probe
//! `audit/layout_probe.cpp` from the same list of entries: the probe prints the values of
//! `nvJitLinkResult` and `nvJitLinkInputType` as the C++ compiler sees them in the header, the
//! Rust table computes `as_raw()` on this crate (`audit/probe.rs` compiles, runs and compares,
//! as for every generated crate). The tests then open the release's `libnvJitLink` and check
//! that every raw function resolves, that its version is of this crate's major, and that the
//! safe layer links PTX into a cubin and reports an unresolved symbol with the error log
//! (nvJitLink runs on the CPU).
//!
//! They need the release's include folder and library, named by the variables
//! [`tables::INCLUDE_VAR`] and [`tables::LIB_VAR`] (`cargo xtask test` fetches NVIDIA's
//! `nvidia-nvjitlink` wheel and sets them). Without them each test says what to set and
//! passes, unless `CUDART_AUDIT_REQUIRED=1` (set by `cargo xtask test`) makes that a failure.

use std::ffi::CString;
use std::path::PathBuf;

#[macro_use]
#[path = "audit/probe.rs"]
#[rustfmt::skip] // formatted on its own: the template keeps it in another folder
mod probe;

#[path = "audit/tables.rs"]
#[rustfmt::skip]
mod tables;

use tables::krate::sys::nvJitLinkResult;
use tables::krate::{Error, Library};
use tables::krate::{InputKind, LinkOptions, Linker};
use tables::{FUNCTIONS, LAYOUT, SKIPPED};

/// The path a variable names, or `None` (with a message) when the audit cannot run here.
fn path_from(var: &str, what: &str) -> Option<PathBuf> {
    probe::path_from(var, what, tables::krate::CUDA_RELEASE)
}

#[test]
fn enum_values_match_the_c_header() {
    let Some(includes) = path_from(tables::INCLUDE_VAR, "the include folder") else {
        return;
    };
    let c = probe::run_probe(&includes, "nvJitLink.h");
    let m = probe::compare(&c, LAYOUT, SKIPPED);
    // The handle is an opaque record: nvJitLink has only enums to compare.
    assert!(m.values > 0, "compared no enum value: {m:?}");
}

fn open_library() -> Option<Library> {
    let path = path_from(tables::LIB_VAR, "the libnvJitLink file")?;
    // SAFETY: the audit's library is NVIDIA's nvJitLink of this crate's release, named by the
    // variable `cargo xtask audit` sets.
    let lib = unsafe { Library::open(&path) };
    Some(lib.unwrap_or_else(|e| panic!("opening {}: {e}", path.display())))
}

#[test]
fn every_emitted_function_resolves_in_the_library() {
    let Some(lib) = open_library() else {
        return;
    };
    assert!(
        !FUNCTIONS.is_empty(),
        "the generated table lists no function"
    );
    let absent: Vec<&str> = FUNCTIONS
        .iter()
        .copied()
        .filter(|name| {
            let c = CString::new(*name).expect("a C name has no NUL");
            !lib.has_symbol(&c)
        })
        .collect();
    println!(
        "{} of {} emitted functions resolve in {} (nvJitLinkVersion: {})",
        FUNCTIONS.len() - absent.len(),
        FUNCTIONS.len(),
        lib.path(),
        lib.runtime_version()
    );
    assert!(
        absent.is_empty(),
        "{} emitted function(s) are not exported by {}: {}",
        absent.len(),
        lib.path(),
        absent.join(", ")
    );
}

/// A PTX kernel calling a function that a second PTX input defines.
const KERNEL_PTX: &str = ".version 7.0\n.target sm_75\n.address_size 64\n\
    .extern .func (.param .b32 r) twice(.param .b32 x);\n\
    .visible .entry k(.param .u64 p) {\n\
    .reg .b32 %r<3>; .reg .b64 %rd<2>;\n\
    ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;\n\
    ld.global.u32 %r1, [%rd1];\n\
    { .param .b32 a; .param .b32 r; st.param.b32 [a], %r1;\n\
      call.uni (r), twice, (a); ld.param.b32 %r2, [r]; }\n\
    st.global.u32 [%rd1], %r2; ret; }\n";
const HELPER_PTX: &str = ".version 7.0\n.target sm_75\n.address_size 64\n\
    .visible .func (.param .b32 r) twice(.param .b32 x) {\n\
    .reg .b32 %r<3>; ld.param.b32 %r1, [x]; add.s32 %r2, %r1, %r1;\n\
    st.param.b32 [r], %r2; ret; }\n";

/// Everything that goes through the process-wide library, in one test so that it is the
/// first and only user of `NVJITLINK_PATH` in this process.
#[test]
fn the_global_library_links_through_the_safe_layer() {
    let Some(path) = path_from(tables::LIB_VAR, "the libnvJitLink file") else {
        return;
    };
    std::env::set_var("NVJITLINK_PATH", &path);
    use tables::krate::sys;

    let (mut major, mut minor) = (0, 0);
    let status = unsafe { sys::nvJitLinkVersion(&mut major, &mut minor) }
        .expect("nvJitLinkVersion resolves");
    assert_eq!(status, nvJitLinkResult::SUCCESS);
    assert_eq!(
        major,
        tables::krate::CUDA_MAJOR,
        "nvJitLinkVersion gave {major}.{minor}"
    );

    // Two PTX inputs, one calling the other: a cubin (an ELF file) for sm_75.
    let mut linker = Linker::new(&LinkOptions::new("sm_75")).expect("a linker");
    linker
        .add(InputKind::Ptx, KERNEL_PTX.as_bytes(), "kernel.ptx")
        .expect("the kernel's PTX is added");
    linker
        .add(InputKind::Ptx, HELPER_PTX.as_bytes(), "helper.ptx")
        .expect("the helper's PTX is added");
    let linked = linker.complete().expect("the two inputs link");
    let cubin = linked.cubin().expect("a cubin");
    assert_eq!(&cubin[..4], b"\x7fELF", "a cubin is an ELF file");
    println!(
        "nvJitLink {major}.{minor}: two PTX inputs linked into {} bytes of cubin",
        cubin.len()
    );

    // The kernel alone: the call is unresolved, and the error log says so.
    let mut linker = Linker::new(&LinkOptions::new("sm_75")).expect("a linker");
    linker
        .add(InputKind::Ptx, KERNEL_PTX.as_bytes(), "kernel.ptx")
        .expect("the kernel's PTX is added");
    match linker.complete() {
        Err(Error::Link { step, log, .. }) => {
            assert_eq!(step, "nvJitLinkComplete");
            assert!(
                log.contains("twice"),
                "the error log names the symbol: {log}"
            );
        }
        other => panic!("an unresolved call linked: {other:?}"),
    }

    // An option nvJitLink does not know: an error, not a crash.
    let err = Linker::new(["-arch=sm_75", "-no-such-option"]).expect_err("an unknown option");
    assert!(matches!(err, Error::Link { .. }), "{err:?}");

    // A symbol the loaded library does not have: an error naming it.
    let lib = Library::get().expect("the global library");
    type Version = unsafe extern "C" fn(*mut u32, *mut u32) -> nvJitLinkResult;
    let err = unsafe { lib.symbol::<Version>(c"nvJitLinkNoSuchFunction") }
        .expect_err("resolved a function that does not exist");
    assert!(matches!(err, Error::SymbolNotFound { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("`nvJitLinkNoSuchFunction` is not exported") && text.contains(lib.path()),
        "{text}"
    );
    std::env::remove_var("NVJITLINK_PATH");
}
