//! The emitted raw layer against the live `libcudart.so.13` of NVIDIA's `nvidia-cuda-runtime`
//! wheel (`cargo xtask fetch-wheel`; `cargo xtask test` passes its path in
//! `CUDART_WHEEL_LIB`).
//!
//! The lists come from `tests/generated/symbols_table.rs`, which `cargo xtask codegen` writes
//! next to the raw layer: `FUNCTIONS` (every emitted `runtime::sys` function) and `ERRORS`
//! (every emitted `cudaError_t` constant with its C name). Only
//! `the_global_library_answers_through_runtime_sys` sets `CUDART_PATH` and loads the
//! process-wide library; the other tests open the wheel's library explicitly.

use std::ffi::{c_int, CStr, CString};
use std::path::PathBuf;

use runtime::{Error, LazySymbol, Library};

include!("../generated/symbols_table.rs");

/// Functions the bindings declare that this runtime may lawfully lack, with the reason.
/// Each one absent from the library and not listed here fails the test.
const EXPLAINED_ABSENT: &[(&str, &str)] = &[];

fn wheel_lib() -> PathBuf {
    match std::env::var_os("CUDART_WHEEL_LIB") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!(
            "CUDART_WHEEL_LIB is not set: run `cargo xtask test`, or run `cargo xtask \
             fetch-wheel` and set CUDART_WHEEL_LIB to the libcudart.so.13 path it prints"
        ),
    }
}

fn open_wheel() -> Library {
    let path = wheel_lib();
    Library::open(&path).unwrap_or_else(|e| panic!("opening {}: {e}", path.display()))
}

#[test]
fn every_emitted_function_resolves_in_the_library() {
    let lib = open_wheel();
    assert!(
        !FUNCTIONS.is_empty(),
        "the generated table lists no function"
    );
    let mut absent = Vec::new();
    for name in FUNCTIONS {
        let c = CString::new(*name).expect("a C name has no NUL");
        if !lib.has_symbol(&c) {
            absent.push(*name);
        }
    }
    let explained: Vec<&str> = absent
        .iter()
        .copied()
        .filter(|n| EXPLAINED_ABSENT.iter().any(|(e, _)| e == n))
        .collect();
    let unexplained: Vec<&str> = absent
        .iter()
        .copied()
        .filter(|n| !explained.contains(n))
        .collect();
    println!(
        "{} of {} emitted functions resolve in {} (cudaRuntimeGetVersion: {})",
        FUNCTIONS.len() - absent.len(),
        FUNCTIONS.len(),
        lib.path(),
        lib.runtime_version()
            .map_or_else(|e| e.to_string(), |v| v.to_string())
    );
    for (name, why) in EXPLAINED_ABSENT {
        if explained.contains(name) {
            println!("  absent, explained: {name}: {why}");
        }
    }
    for name in &unexplained {
        println!("  ABSENT: {name}");
    }
    assert!(
        unexplained.is_empty(),
        "{} emitted function(s) are not exported by {}: {}",
        unexplained.len(),
        lib.path(),
        unexplained.join(", ")
    );
}

/// Everything that goes through the process-wide library, in one test so that it is the
/// first and only user of `CUDART_PATH` in this process.
#[test]
fn the_global_library_answers_through_runtime_sys() {
    let path = wheel_lib();
    std::env::set_var("CUDART_PATH", &path);
    use runtime::sys::cudaError_t;

    // cudaRuntimeGetVersion.
    let mut version: c_int = 0;
    let status = unsafe { runtime::sys::cudaRuntimeGetVersion(&mut version) }
        .expect("cudaRuntimeGetVersion resolves");
    assert_eq!(status, cudaError_t::SUCCESS);
    assert_eq!(version / 1000, 13, "cudaRuntimeGetVersion gave {version}");

    // cudaGetErrorName for every emitted error constant: the library's name is the C name.
    assert!(!ERRORS.is_empty(), "the generated table lists no error");
    let mut differ = Vec::new();
    for (code, c_name) in ERRORS {
        let ptr =
            unsafe { runtime::sys::cudaGetErrorName(*code) }.expect("cudaGetErrorName resolves");
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
    let status = unsafe { runtime::sys::cudaGetDeviceCount(&mut count) }
        .expect("cudaGetDeviceCount resolves");
    println!("cudaGetDeviceCount: {status:?}, count {count}");
    if std::path::Path::new("/dev/nvidiactl").exists() {
        assert!(status == cudaError_t::SUCCESS || status.name().is_some());
    } else {
        assert_ne!(
            status,
            cudaError_t::SUCCESS,
            "a device count without a driver"
        );
        assert!(status.name().is_some(), "an unknown status {status:?}");
        let raw = i32::try_from(status.as_raw()).expect("a cudaError_t fits in i32");
        let err = runtime::check(raw).expect_err("not success");
        assert_eq!(err.cuda_code(), Some(raw));
    }

    // A symbol the loaded library does not have: an error naming it and the version.
    type Version = unsafe extern "C" fn(*mut c_int) -> cudaError_t;
    static NOTHING: LazySymbol<Version> = unsafe { LazySymbol::new(c"cudaNoSuchFunction") };
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
fn a_library_path_that_does_not_exist_is_an_error_naming_it() {
    let missing = std::env::temp_dir().join("no-such-folder-cudart-rt/libcudart.so.13");
    let err = Library::open(&missing).expect_err("a missing file opened");
    assert!(matches!(err, Error::LibraryNotFound { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(&missing.display().to_string()), "{text}");
    assert!(
        text.to_lowercase().contains("no such file") || text.contains("not found"),
        "the error does not say the file is missing: {text}"
    );
}

#[test]
fn a_symbol_that_does_not_exist_is_an_error_naming_it() {
    let lib = open_wheel();
    type Version = unsafe extern "C" fn(*mut c_int) -> c_int;
    let err = unsafe { lib.symbol::<Version>(c"cudaNoSuchFunction") }
        .expect_err("resolved a function that does not exist");
    let text = err.to_string();
    assert!(
        text.contains("`cudaNoSuchFunction` is not exported") && text.contains(lib.path()),
        "{text}"
    );
}
