//! Which C library this crate loads and how the loader recognises it: nvJitLink, NVIDIA's CUDA
//! JIT linker, `libnvJitLink.so.@MAJOR@`, which identifies itself by `nvJitLinkVersion`.
//!
//! The loader ([`crate::loader`], the same in every crate the generator writes) searches,
//! checks and opens; this module only names what it looks for.

use std::ffi::{c_uint, c_void};

use crate::loader::Library;

/// Environment variable naming the library file, or a folder holding it.
pub const PATH_VAR: &str = "NVJITLINK_PATH";

/// The folder of NVIDIA's CUDA 12 wheel of the library in `site-packages/nvidia/` (from
/// CUDA 13 on, every wheel of a major shares `nvidia/cu<major>/`).
pub(crate) const WHEEL_FOLDER_12: &str = "nvjitlink";

/// What the library is, in messages (`not a nvJitLink library`).
pub(crate) const KIND: &str = "nvJitLink";

/// The library names given to the system loader, in order: the major release's file, then
/// (not on Windows) the unversioned development link. NVIDIA names the Windows DLL after the
/// major and a zero minor (`nvJitLink_130_0.dll`).
pub(crate) fn system_names() -> Vec<String> {
    let major = crate::sys::CUDA_MAJOR;
    if cfg!(windows) {
        vec![format!("nvJitLink_{major}0_0.dll")]
    } else {
        vec![
            format!("libnvJitLink.so.{major}"),
            "libnvJitLink.so".to_string(),
        ]
    }
}

/// How the library's DLLs of this crate's major start (`nvjitlink_13`), lower case.
pub(crate) fn windows_prefix() -> String {
    format!("nvjitlink_{}", crate::sys::CUDA_MAJOR)
}

/// What to point [`PATH_VAR`] at, in the message refusing a library of another major.
pub(crate) fn of_major(major: u32) -> String {
    format!("the nvJitLink library of CUDA {major}")
}

/// The version `lib` reports through `nvJitLinkVersion` (`1000 * major + 10 * minor`, as the
/// runtime's versions are written), called once right after opening. nvJitLink of CUDA 12.0
/// to 12.2 has no `nvJitLinkVersion` and exports only versioned entry points
/// (`__nvJitLinkCreate_12_0`, what its header's `static inline` functions call), not the
/// names this crate binds: such a library is refused, with a message saying so. A library
/// with neither is not nvJitLink.
pub(crate) fn version(lib: &Library) -> Result<i32, String> {
    let get_version = match lib.raw_symbol(c"nvJitLinkVersion") {
        Ok(f) => f,
        Err(why) => {
            return Err(match lib.raw_symbol(c"__nvJitLinkCreate_12_0") {
                Ok(_) => "nvJitLink of CUDA 12.0, 12.1 or 12.2: it exports only versioned \
                          entry points (`__nvJitLinkCreate_12_0`, …), not the functions this \
                          crate binds; use nvJitLink 12.3 or later"
                    .to_string(),
                Err(_) => format!("not a {KIND} library: {why}"),
            })
        }
    };
    type GetVersion = unsafe extern "C" fn(*mut c_uint, *mut c_uint) -> i32;
    // SAFETY: `nvJitLinkResult nvJitLinkVersion(unsigned int *major, unsigned int *minor)` in
    // every nvJitLink, and the symbol is a function the library defines; the pointer is
    // non-null.
    let get_version = unsafe { std::mem::transmute::<*mut c_void, GetVersion>(get_version) };
    let (mut major, mut minor): (c_uint, c_uint) = (0, 0);
    // SAFETY: the function writes one unsigned int through each valid pointer.
    crate::error::check(unsafe { get_version(&mut major, &mut minor) })
        .map_err(|e| format!("its nvJitLinkVersion failed: {e}"))?;
    if major > 1000 || minor > 99 {
        return Err(format!(
            "its nvJitLinkVersion reports {major}.{minor}, not a version"
        ));
    }
    Ok(1000 * major as i32 + 10 * minor as i32)
}
