// Copied by `cargo xtask codegen` from the generator's codegen/template/src/library.rs:
// edit the template, not this copy.

//! Which C library this crate loads and how the loader recognises it: NVIDIA's CUDA runtime,
//! `libcudart.so.12`, which identifies itself by `cudaRuntimeGetVersion`.
//!
//! The loader ([`crate::loader`], the same in every crate the generator writes) searches,
//! checks and opens; this module only names what it looks for.

use std::ffi::{c_int, c_void};

use crate::loader::Library;

/// Environment variable naming the library file, or a folder holding it.
pub const PATH_VAR: &str = "CUDART_PATH";

/// The folder of NVIDIA's CUDA 12 wheel of the library in `site-packages/nvidia/` (from
/// CUDA 13 on, every wheel of a major shares `nvidia/cu<major>/`).
pub(crate) const WHEEL_FOLDER_12: &str = "cuda_runtime";

/// What the library is, in messages (`not a CUDA runtime library`).
pub(crate) const KIND: &str = "CUDA runtime";

/// The library names given to the system loader, in order: the major release's file, then
/// (not on Windows) the unversioned development link.
pub(crate) fn system_names() -> Vec<String> {
    let major = crate::sys::CUDA_MAJOR;
    if cfg!(windows) {
        vec![format!("cudart64_{major}.dll")]
    } else {
        vec![format!("libcudart.so.{major}"), "libcudart.so".to_string()]
    }
}

/// How the library's DLLs of this crate's major start (`cudart64_13`), lower case.
pub(crate) fn windows_prefix() -> String {
    format!("cudart64_{}", crate::sys::CUDA_MAJOR)
}

/// What to point [`PATH_VAR`] at, in the message refusing a library of another major.
pub(crate) fn of_major(major: u32) -> String {
    format!("a CUDA {major} runtime")
}

/// The version `lib` reports through `cudaRuntimeGetVersion` (`1000 * major + 10 * minor`),
/// called once right after opening; a library without that function is not a CUDA runtime.
pub(crate) fn version(lib: &Library) -> Result<i32, String> {
    let get_version = lib
        .raw_symbol(c"cudaRuntimeGetVersion")
        .map_err(|why| format!("not a {KIND} library: {why}"))?;
    type GetVersion = unsafe extern "C" fn(*mut c_int) -> c_int;
    // SAFETY: `cudaError_t cudaRuntimeGetVersion(int*)` in every CUDA runtime, and the symbol
    // is a function the library defines; the pointer is non-null.
    let get_version = unsafe { std::mem::transmute::<*mut c_void, GetVersion>(get_version) };
    let mut version: c_int = 0;
    // SAFETY: the function writes one int through a valid pointer.
    crate::error::check(unsafe { get_version(&mut version) })
        .map_err(|e| format!("its cudaRuntimeGetVersion failed: {e}"))?;
    Ok(version)
}

#[cfg(test)]
mod tests {
    use crate::error::{Error, Result};
    use crate::loader::{callback_scope, in_callback};

    #[test]
    fn calls_inside_a_callback_scope_are_refused_without_calling_cuda() {
        fn refused(result: Result<impl std::fmt::Debug>, function: &str) {
            match result {
                Err(Error::InCallback { function: f }) => assert_eq!(f, function),
                other => panic!("{function}: expected InCallback, got {other:?}"),
            }
        }
        assert!(!in_callback());
        callback_scope(|| {
            assert!(in_callback());
            refused(crate::api::get_device_count(), "cudaGetDeviceCount");
            let mut n = 0;
            // SAFETY: one int is written, if anything is called at all.
            refused(
                unsafe { crate::sys::cudaGetDeviceCount(&mut n) },
                "cudaGetDeviceCount",
            );
            // Nested scopes, and a panic inside one, leave the outer scope in force.
            let caught = std::panic::catch_unwind(|| callback_scope(|| panic!("in a callback")));
            assert!(caught.is_err());
            assert!(in_callback());
            refused(crate::api::runtime_get_version(), "cudaRuntimeGetVersion");
            let err = crate::api::runtime_get_version().unwrap_err();
            assert_eq!(
                err.to_string(),
                "cudaRuntimeGetVersion was called from inside a CUDA host callback, where CUDA forbids CUDA calls"
            );
        });
        assert!(!in_callback());
        // Outside, the call goes its ordinary way (a library, or the loader's error).
        assert!(!matches!(
            crate::api::get_device_count(),
            Err(Error::InCallback { .. })
        ));
        // Other threads never were inside.
        let other = std::thread::spawn(|| callback_scope(in_callback));
        assert!(other.join().expect("no panic"));
        assert!(!in_callback());
    }
}
