//! One NVRTC crate for every minor of CUDA 13, against a real older NVRTC without a GPU: with
//! the `nvidia-cuda-nvrtc` 13.2 wheel's library (`NVRTC_OLDER_LIB`; `cargo xtask test` fetches
//! it and sets it), a function added in 13.3 is `Error::NotInRuntime` naming both releases,
//! without being called, the probes say so beforehand, and the rest of the crate (a kernel
//! compiled through `Program`) works. In a process of its own (the loaded library is
//! process-wide): see [`crate::in_own_process`].

use nvrtc13::{CudaVersion, Error, Program};

/// A function NVRTC 13.2 lacks (first declared by the 13.3 header).
const NEWER: &str = "nvrtcGetBundledHeadersInfo";

#[test]
fn a_function_newer_than_the_loaded_nvrtc_is_refused_without_a_call() {
    crate::in_own_process("older::child_on_nvrtc_13_2");
}

#[test]
#[ignore = "run in a process of its own by a_function_newer_than_the_loaded_nvrtc_is_refused_without_a_call"]
fn child_on_nvrtc_13_2() {
    if !crate::is_child() {
        return;
    }
    let lib = match std::env::var_os("NVRTC_OLDER_LIB") {
        Some(p) if !p.is_empty() => p,
        _ => panic!(
            "NVRTC_OLDER_LIB is not set: run `cargo xtask test`, which fetches the \
             nvidia-cuda-nvrtc 13.2 wheel and sets it"
        ),
    };
    std::env::set_var(nvrtc13::loader::PATH_VAR, &lib);

    let loaded = nvrtc13::runtime_version().expect("NVRTC 13.2 loads");
    assert_eq!(loaded, CudaVersion::new(13, 2));
    assert_eq!(
        nvrtc13::function_since(NEWER),
        Some(CudaVersion::new(13, 3))
    );
    assert_eq!(nvrtc13::function_since("nvrtcCompileProgram"), None);
    assert!(!nvrtc13::has_function(NEWER));
    assert!(nvrtc13::has_function("nvrtcCompileProgram"));

    let err = nvrtc13::api::get_bundled_headers_info().expect_err("called on NVRTC 13.2");
    assert_eq!(
        err,
        Error::NotInRuntime {
            function: NEWER.to_string(),
            since: CudaVersion::new(13, 3),
            loaded,
        }
    );
    assert_eq!(
        err.to_string(),
        "nvrtcGetBundledHeadersInfo needs NVRTC of CUDA 13.3; the loaded NVRTC is 13.2"
    );

    // What 13.2 has works as ever.
    let compiled = Program::new("extern \"C\" __global__ void k(int *x) { *x = 1; }", "k.cu")
        .and_then(|p| p.compile(["--gpu-architecture=compute_75"]))
        .expect("NVRTC 13.2 compiles");
    assert!(compiled.ptx().expect("PTX").contains(".entry k("));
}
