//! The crate audited against its CUDA release's own `nvrtc.h` and `libnvrtc`.
//!
//! `cargo xtask codegen` writes the tables of `audit/tables.rs` and the C++ probe
//! `audit/layout_probe.cpp` from the same list of entries: the probe prints the values of
//! `nvrtcResult` as the C++ compiler sees them in the header, the Rust table computes
//! `as_raw()` on this crate (`audit/probe.rs` compiles, runs and compares, as for every
//! generated crate). The tests then open the release's `libnvrtc` and check that every raw
//! function resolves, that `nvrtcGetErrorString` names every status constant as the header
//! does, and that the library compiles a kernel through this crate's raw layer.
//!
//! They need the release's include folder and library, named by the variables
//! [`tables::INCLUDE_VAR`] and [`tables::LIB_VAR`] (`cargo xtask test` fetches NVIDIA's
//! `nvidia-cuda-nvrtc` wheel and sets them). Without them each test says what to set and
//! passes, unless `CUDART_AUDIT_REQUIRED=1` (set by `cargo xtask test`) makes that a failure.

use std::ffi::{CStr, CString};
use std::path::PathBuf;

#[macro_use]
#[path = "audit/probe.rs"]
#[rustfmt::skip] // formatted on its own: the template keeps it in another folder
mod probe;

#[path = "audit/tables.rs"]
#[rustfmt::skip]
mod tables;

use tables::krate::sys::nvrtcResult;
use tables::krate::{Error, Library};
use tables::{ERRORS, FUNCTIONS, LAYOUT, SKIPPED};

/// The path a variable names, or `None` (with a message) when the audit cannot run here.
fn path_from(var: &str, what: &str) -> Option<PathBuf> {
    probe::path_from(var, what, tables::krate::CUDA_RELEASE)
}

#[test]
fn enum_values_match_the_c_header() {
    let Some(includes) = path_from(tables::INCLUDE_VAR, "the include folder") else {
        return;
    };
    let c = probe::run_probe(&includes, "nvrtc.h");
    let m = probe::compare(&c, LAYOUT, SKIPPED);
    // The program is an opaque record; the records with a layout (13.3's
    // `nvrtcBundledHeadersInfo`) have a size, an alignment and fields.
    assert_eq!(m.records, m.aligns, "{m:?}");
    assert!(m.fields >= m.records, "{m:?}");
    assert!(m.values > 0, "compared no enum value: {m:?}");
}

fn open_library() -> Option<Library> {
    let path = path_from(tables::LIB_VAR, "the libnvrtc file")?;
    // SAFETY: the audit's library is NVIDIA's NVRTC of this crate's release, named by the
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
        "{} of {} emitted functions resolve in {} (nvrtcVersion: {})",
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

/// Everything that goes through the process-wide library, in one test so that it is the
/// first and only user of `NVRTC_PATH` in this process.
#[test]
fn the_global_library_answers_through_sys() {
    let Some(path) = path_from(tables::LIB_VAR, "the libnvrtc file") else {
        return;
    };
    std::env::set_var("NVRTC_PATH", &path);
    use tables::krate::sys;

    let (mut major, mut minor) = (0, 0);
    let status =
        unsafe { sys::nvrtcVersion(&mut major, &mut minor) }.expect("nvrtcVersion resolves");
    assert_eq!(status, nvrtcResult::SUCCESS);
    assert_eq!(
        u32::try_from(major).ok(),
        Some(tables::krate::CUDA_MAJOR),
        "nvrtcVersion gave {major}.{minor}"
    );

    // nvrtcGetErrorString for every emitted status constant: the library's string is the C
    // name.
    assert!(!ERRORS.is_empty(), "the generated table lists no status");
    let mut differ = Vec::new();
    for (code, c_name) in ERRORS {
        let ptr = unsafe { sys::nvrtcGetErrorString(*code) }.expect("nvrtcGetErrorString resolves");
        assert!(
            !ptr.is_null(),
            "nvrtcGetErrorString({code:?}) returned NULL"
        );
        let name = unsafe { CStr::from_ptr(ptr) }.to_string_lossy();
        if name != *c_name {
            differ.push(format!("{} ({c_name}): library says {name}", code.as_raw()));
        }
    }
    println!(
        "nvrtcGetErrorString agrees on {} of {} nvrtcResult constants (NVRTC {major}.{minor})",
        ERRORS.len() - differ.len(),
        ERRORS.len()
    );
    assert!(differ.is_empty(), "names differ:\n{}", differ.join("\n"));

    // A kernel compiled through the safe layer: NVRTC runs on the CPU.
    let compiled = tables::krate::Program::new(
        "extern \"C\" __global__ void k(int *x) { x[threadIdx.x] += 1; }",
        "audit.cu",
    )
    .and_then(|p| p.compile(["--gpu-architecture=compute_75"]))
    .expect("a kernel compiles");
    assert!(compiled.ptx().expect("PTX").contains(".entry k"));

    // A symbol the loaded library does not have: an error naming it.
    let lib = Library::get().expect("the global library");
    type Version = unsafe extern "C" fn(*mut i32, *mut i32) -> nvrtcResult;
    let err = unsafe { lib.symbol::<Version>(c"nvrtcNoSuchFunction") }
        .expect_err("resolved a function that does not exist");
    assert!(matches!(err, Error::SymbolNotFound { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("`nvrtcNoSuchFunction` is not exported") && text.contains(lib.path()),
        "{text}"
    );
    std::env::remove_var("NVRTC_PATH");
}
