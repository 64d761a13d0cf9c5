// Copied by `cargo xtask codegen` from the generator's codegen/template/src/library.rs:
// edit the template, not this copy.

//! Which C library this crate loads and how the loader recognises it: NVRTC, NVIDIA's CUDA
//! runtime compiler, `libnvrtc.so.12`, which identifies itself by `nvrtcVersion`.
//!
//! The loader ([`crate::loader`], the same in every crate the generator writes) searches,
//! checks and opens; this module only names what it looks for.

use std::ffi::{c_int, c_void};

use crate::loader::Library;

/// Environment variable naming the library file, or a folder holding it.
pub const PATH_VAR: &str = "NVRTC_PATH";

/// The folder of NVIDIA's CUDA 12 wheel of the library in `site-packages/nvidia/` (from
/// CUDA 13 on, every wheel of a major shares `nvidia/cu<major>/`).
pub(crate) const WHEEL_FOLDER_12: &str = "cuda_nvrtc";

/// What the library is, in messages (`not a NVRTC library`).
pub(crate) const KIND: &str = "NVRTC";

/// The library names given to the system loader, in order: the major release's file, then
/// (not on Windows) the unversioned development link. NVIDIA names the Windows DLL after the
/// major and a zero minor (`nvrtc64_130_0.dll`): every minor of a major keeps its ABI.
pub(crate) fn system_names() -> Vec<String> {
    let major = crate::sys::CUDA_MAJOR;
    if cfg!(windows) {
        vec![format!("nvrtc64_{major}0_0.dll")]
    } else {
        vec![format!("libnvrtc.so.{major}"), "libnvrtc.so".to_string()]
    }
}

/// How the library's DLLs of this crate's major start (`nvrtc64_13`), lower case.
pub(crate) fn windows_prefix() -> String {
    format!("nvrtc64_{}", crate::sys::CUDA_MAJOR)
}

/// What to point [`PATH_VAR`] at, in the message refusing a library of another major.
pub(crate) fn of_major(major: u32) -> String {
    format!("the NVRTC library of CUDA {major}")
}

/// The version `lib` reports through `nvrtcVersion` (`1000 * major + 10 * minor`, as the
/// runtime's versions are written), called once right after opening; a library without that
/// function is not NVRTC.
pub(crate) fn version(lib: &Library) -> Result<i32, String> {
    let get_version = lib
        .raw_symbol(c"nvrtcVersion")
        .map_err(|why| format!("not a {KIND} library: {why}"))?;
    type GetVersion = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;
    // SAFETY: `nvrtcResult nvrtcVersion(int *major, int *minor)` in every NVRTC, and the
    // symbol is a function the library defines; the pointer is non-null.
    let get_version = unsafe { std::mem::transmute::<*mut c_void, GetVersion>(get_version) };
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: the function writes one int through each valid pointer.
    crate::error::check(unsafe { get_version(&mut major, &mut minor) })
        .map_err(|e| format!("its nvrtcVersion failed: {e}"))?;
    if !(0..=1000).contains(&major) || !(0..=99).contains(&minor) {
        return Err(format!(
            "its nvrtcVersion reports {major}.{minor}, not a version"
        ));
    }
    Ok(1000 * major + 10 * minor)
}
