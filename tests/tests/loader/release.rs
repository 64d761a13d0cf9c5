//! One crate for every minor of CUDA 13, against real runtimes without a GPU: with NVIDIA's
//! 13.0 runtime (`CUDART_OLDEST_LIB`, the `nvidia-cuda-runtime` 13.0 wheel) a function added
//! in 13.1 is `Error::NotInRuntime` naming both releases, without being called, and the
//! probes say so beforehand; with the crate's own release's runtime (`CUDART13_AUDIT_LIB`)
//! the same function is called and answers with a CUDA status (no driver here).
//! `cargo xtask test` fetches both wheels and sets both variables.
//!
//! Each case runs in a child process with `CUDART_PATH` set: the loaded library is
//! process-wide.

use std::path::PathBuf;

use cudart13::{CudaVersion, Error};

/// A function the 13.0 runtime lacks (first declared by the 13.1 headers).
const NEWER: &str = "cudaDeviceGetExecutionCtx";

fn lib(var: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!("{var} is not set: run `cargo xtask test`, which fetches the wheels"),
    }
}

/// Runs `child` in a child process with `CUDART_PATH=lib`.
fn in_child(child: &str, lib: &PathBuf) {
    workspace_tests::child::run(&format!("release::{child}"), |cmd| {
        cmd.env("CUDART_RELEASE_TEST_CHILD", "1")
            .env("CUDART_PATH", lib);
    });
}

fn is_child() -> bool {
    std::env::var("CUDART_RELEASE_TEST_CHILD").as_deref() == Ok("1")
}

#[test]
fn the_function_is_marked_with_its_first_release() {
    assert_eq!(
        cudart13::function_since(NEWER),
        Some(CudaVersion::new(13, 1))
    );
    assert_eq!(cudart13::function_since("cudaMalloc"), None);
}

#[test]
fn a_newer_function_on_the_13_0_runtime_is_not_in_runtime() {
    in_child("child_on_13_0", &lib("CUDART_OLDEST_LIB"));
}

#[test]
fn a_newer_function_on_the_crates_runtime_is_called() {
    in_child("child_on_newest", &lib("CUDART13_AUDIT_LIB"));
}

#[test]
#[ignore = "run in a child process"]
fn child_on_13_0() {
    assert!(is_child());
    let loaded = cudart13::runtime_version().expect("the 13.0 runtime loads");
    assert_eq!(loaded, CudaVersion::new(13, 0));
    assert!(!cudart13::has_function(NEWER));
    assert!(cudart13::has_function("cudaMalloc"));
    for _ in 0..2 {
        // Decided once, when resolved; the same answer every time.
        match cudart13::api::device_get_execution_ctx(0) {
            Err(e @ Error::NotInRuntime { .. }) => {
                assert_eq!(
                    e.to_string(),
                    "cudaDeviceGetExecutionCtx needs CUDA 13.1; the loaded runtime is 13.0"
                );
                let Error::NotInRuntime {
                    function,
                    since,
                    loaded,
                } = e
                else {
                    unreachable!()
                };
                assert_eq!(function, NEWER);
                assert_eq!(
                    (since, loaded),
                    (CudaVersion::new(13, 1), CudaVersion::new(13, 0))
                );
            }
            other => panic!("expected NotInRuntime, got {other:?}"),
        }
    }
    // A function of every 13.x release goes its ordinary way (a CUDA status without a GPU).
    assert!(!matches!(
        cudart13::api::get_device_count(),
        Err(Error::NotInRuntime { .. }
            | Error::SymbolNotFound { .. }
            | Error::LibraryNotFound { .. })
    ));
}

#[test]
#[ignore = "run in a child process"]
fn child_on_newest() {
    assert!(is_child());
    let loaded = cudart13::runtime_version().expect("the runtime loads");
    assert!(loaded >= CudaVersion::new(13, 1), "{loaded}");
    assert!(cudart13::has_function(NEWER));
    match cudart13::api::device_get_execution_ctx(0) {
        // Called: without a GPU the runtime answers with a status, with one it succeeds.
        Ok(_) | Err(Error::Cuda { .. }) => {}
        other => panic!("expected the call to be made, got {other:?}"),
    }
}
