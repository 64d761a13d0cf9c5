// Copied by `cargo xtask codegen` from the generator's codegen/template/tests/audit.rs:
// edit the template, not this copy.

//! The crate audited against its CUDA release's own headers and library.
//!
//! `cargo xtask codegen` writes the tables of `audit/tables.rs` and the C++ probe
//! `audit/layout_probe.cpp` from the same list of entries: the probe prints `sizeof`,
//! `alignof`, `offsetof` and enumerator values as the C++ compiler sees them in the headers,
//! the Rust table computes `size_of`, `align_of`, `offset_of!` and `as_raw()` on this crate.
//! The tests compile and run the probe with the system C++ compiler (`CXX`, else `c++`) and
//! compare entry by entry (`audit/probe.rs`, shared by every generated crate), then open the
//! release's `libcudart` and check that every raw function resolves and that
//! `cudaGetErrorName` agrees with every error constant.
//!
//! They need the release's include folders (a path list) and library, named by the variables
//! [`tables::INCLUDE_VAR`] and [`tables::LIB_VAR`] (`cargo xtask test` fetches NVIDIA's wheels
//! and sets them). Without them each test says what to set and passes, unless
//! `CUDART_AUDIT_REQUIRED=1` (set by `cargo xtask test`) makes that a failure.

use std::ffi::{c_int, CStr, CString};
use std::path::{Path, PathBuf};

#[macro_use]
#[path = "audit/probe.rs"]
#[rustfmt::skip] // formatted on its own: the template keeps it in another folder
mod probe;

#[path = "audit/tables.rs"]
#[rustfmt::skip]
mod tables;

use tables::krate::sys::cudaError_t;
use tables::krate::{Error, LazySymbol, Library};
use tables::{ERRORS, FUNCTIONS, LAYOUT, SKIPPED};

/// The path a variable names, or `None` (with a message) when the audit cannot run here.
fn path_from(var: &str, what: &str) -> Option<PathBuf> {
    probe::path_from(var, what, tables::krate::CUDA_RELEASE)
}

#[test]
fn layouts_and_enum_values_match_the_c_headers() {
    let Some(includes) = path_from(tables::INCLUDE_VAR, "the include folders") else {
        return;
    };
    let c = probe::run_probe(&includes, "cuda_runtime_api.h");
    let m = probe::compare(&c, LAYOUT, SKIPPED);
    assert!(
        m.records > 0 && m.aligns > 0 && m.fields > 0 && m.values > 0,
        "compared nothing of some kind: {m:?}"
    );
}

fn open_library() -> Option<Library> {
    let path = path_from(tables::LIB_VAR, "the libcudart file")?;
    // SAFETY: the audit's library is NVIDIA's runtime of this crate's release, named by the
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
        "{} of {} emitted functions resolve in {} (cudaRuntimeGetVersion: {})",
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
/// first and only user of `CUDART_PATH` in this process.
#[test]
fn the_global_library_answers_through_sys() {
    let Some(path) = path_from(tables::LIB_VAR, "the libcudart file") else {
        return;
    };
    std::env::set_var("CUDART_PATH", &path);
    use tables::krate::sys;

    let mut version: c_int = 0;
    let status = unsafe { sys::cudaRuntimeGetVersion(&mut version) }
        .expect("cudaRuntimeGetVersion resolves");
    assert_eq!(status, cudaError_t::SUCCESS);
    assert_eq!(
        u32::try_from(version / 1000).ok(),
        Some(tables::krate::CUDA_MAJOR),
        "cudaRuntimeGetVersion gave {version}"
    );

    // cudaGetErrorName for every emitted error constant: the library's name is the C name.
    assert!(!ERRORS.is_empty(), "the generated table lists no error");
    let mut differ = Vec::new();
    for (code, c_name) in ERRORS {
        let ptr = unsafe { sys::cudaGetErrorName(*code) }.expect("cudaGetErrorName resolves");
        assert!(!ptr.is_null(), "cudaGetErrorName({code:?}) returned NULL");
        let name = unsafe { CStr::from_ptr(ptr) }.to_string_lossy();
        if name != *c_name {
            differ.push(format!("{} ({c_name}): library says {name}", code.as_raw()));
        }
    }
    println!(
        "cudaGetErrorName agrees on {} of {} cudaError_t constants (CUDA {version})",
        ERRORS.len() - differ.len(),
        ERRORS.len()
    );
    assert!(differ.is_empty(), "names differ:\n{}", differ.join("\n"));

    // cudaGetDeviceCount: a CUDA status, never a panic; an error without a GPU driver.
    let mut count: c_int = -1;
    let status =
        unsafe { sys::cudaGetDeviceCount(&mut count) }.expect("cudaGetDeviceCount resolves");
    println!("cudaGetDeviceCount: {status:?}, count {count}");
    if Path::new("/dev/nvidiactl").exists() {
        assert!(status == cudaError_t::SUCCESS || status.name().is_some());
    } else {
        assert_ne!(
            status,
            cudaError_t::SUCCESS,
            "a device count without a driver"
        );
        assert!(status.name().is_some(), "an unknown status {status:?}");
        let raw = i32::try_from(status.as_raw()).expect("a cudaError_t fits in i32");
        let err = tables::krate::check(raw).expect_err("not success");
        assert_eq!(err.cuda_code(), Some(raw));
    }

    // A symbol the loaded library does not have: an error naming it and the version.
    type Version = unsafe extern "C" fn(*mut c_int) -> cudaError_t;
    static NOTHING: LazySymbol<Version> = unsafe { LazySymbol::new(c"cudaNoSuchFunction", 0) };
    let err = NOTHING
        .get()
        .expect_err("resolved a function that does not exist");
    assert!(matches!(err, Error::SymbolNotFound { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("cudaNoSuchFunction") && text.contains("not exported"),
        "{text}"
    );
    assert!(text.contains(&path.display().to_string()), "{text}");
    std::env::remove_var("CUDART_PATH");
}

#[test]
fn a_symbol_that_does_not_exist_is_an_error_naming_it() {
    let Some(lib) = open_library() else {
        return;
    };
    type Version = unsafe extern "C" fn(*mut c_int) -> c_int;
    let err = unsafe { lib.symbol::<Version>(c"cudaNoSuchFunction") }
        .expect_err("resolved a function that does not exist");
    let text = err.to_string();
    assert!(
        text.contains("`cudaNoSuchFunction` is not exported") && text.contains(lib.path()),
        "{text}"
    );
}
