//! `nvrtc13` in a process where NVRTC cannot be loaded (`NVRTC_PATH` names an empty folder,
//! which is then the only place looked at): every call is an error naming what was tried,
//! none panics, and the probes say so. In a process of its own (the global library is loaded
//! once per process): see [`crate::in_own_process`].

use nvrtc13::{CompileOptions, Error, Program};

#[test]
fn without_the_library_every_call_is_an_error_not_a_panic() {
    crate::in_own_process("no_library::child_without_the_library");
}

#[test]
#[ignore = "run in a process of its own by without_the_library_every_call_is_an_error_not_a_panic"]
fn child_without_the_library() {
    if !crate::is_child() {
        return;
    }
    let empty = std::env::temp_dir().join(format!("nvrtc13-none-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("a temporary folder");
    std::env::set_var(nvrtc13::loader::PATH_VAR, &empty);

    assert!(!nvrtc13::is_available());
    assert!(!nvrtc13::has_function("nvrtcVersion"));
    let err = Program::new("__global__ void k() {}", "k.cu").expect_err("a program without NVRTC");
    let Error::LibraryNotFound { tried } = &err else {
        panic!("not LibraryNotFound: {err:?}");
    };
    assert_eq!(tried.len(), 1, "only NVRTC_PATH is tried: {tried:?}");
    assert!(tried[0].0.starts_with("NVRTC_PATH="), "{tried:?}");
    assert!(tried[0].1.contains("libnvrtc.so.13"), "{tried:?}");
    let text = err.to_string();
    assert!(
        text.contains("NVRTC library (libnvrtc) could not be loaded"),
        "{text}"
    );
    assert!(text.contains("nvidia-cuda-nvrtc"), "{text}");
    // The same answer again (the failure is kept), from every layer.
    assert_eq!(nvrtc13::runtime_version().expect_err("a version"), err);
    assert_eq!(nvrtc13::supported_architectures().expect_err("archs"), err);
    assert_eq!(
        nvrtc13::api::get_num_supported_archs().expect_err("typed"),
        err
    );
    let mut major = 0;
    let mut minor = 0;
    // SAFETY: two ints are written, if anything is called at all.
    let raw = unsafe { nvrtc13::sys::nvrtcVersion(&mut major, &mut minor) };
    assert_eq!(raw.expect_err("raw"), err);
    // Options are plain data: they need no library.
    assert_eq!(
        CompileOptions::new().arch("sm_90").as_slice(),
        ["--gpu-architecture=sm_90"]
    );
    std::fs::remove_dir_all(&empty).ok();
}
