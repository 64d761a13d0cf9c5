//! The in-memory files clang reads besides NVIDIA's headers: the wrapper that includes the API
//! headers, and minimal stand-ins for the platform headers they include (GL, EGL, VDPAU) and
//! for the few C library headers reached in C mode (PyPI's libclang has no resource folder
//! with clang's own `stddef.h`, and the host's headers must not change the result).
//!
//! They live under [`VIRTUAL_ROOT`], a folder that does not exist on disk: clang is given
//! them as unsaved files, so nothing is written and no host header is ever read. Each
//! stand-in declares exactly the types the CUDA headers use, spelled as the real header
//! spells them, behind the real header's include guard.

use crate::library::Library;

/// The folder the in-memory files appear in.
pub const VIRTUAL_ROOT: &str = "/cudart-abi-virtual";

/// The wrapper's path: the translation unit's main file.
pub const WRAPPER_PATH: &str = "/cudart-abi-virtual/cudart_abi_wrapper.h";

/// The stand-ins' include folder (`-I`), and the C library's (`-isystem` after `-nostdinc`).
pub const STAND_IN_DIR: &str = "/cudart-abi-virtual/stand-in";
pub const LIBC_DIR: &str = "/cudart-abi-virtual/stand-in/libc";

/// The runtime's headers the wrapper includes, in order ([`Library::api_headers`]).
pub const API_HEADERS: [&str; 5] = crate::library::CUDART_API_HEADERS;

/// The wrapper's text: `library`'s API headers ([`Library::api_headers`]).
pub fn wrapper(library: Library) -> String {
    let mut text = format!(
        "/* cargo xtask abi: the {}, read as C. */\n",
        library.title()
    );
    if library.exports_inline_functions() {
        // The library exports its header's `static inline` functions under their own names:
        // read them as the external functions they are (`inline` alone is external in C11).
        text.push_str("#define static\n");
    }
    for h in library.api_headers() {
        text.push_str(&format!("#include \"{h}\"\n"));
    }
    text
}

/// The stand-ins: path under [`STAND_IN_DIR`] and text.
pub const STAND_INS: &[(&str, &str)] = &[
    (
        "GL/gl.h",
        "/* Stand-in for <GL/gl.h>: what cuda_gl_interop.h uses (Khronos gl.h types). */\n\
         #ifndef __gl_h_\n\
         #define __gl_h_\n\
         #define GL_VERSION 0x1F02\n\
         typedef unsigned int GLenum;\n\
         typedef unsigned int GLuint;\n\
         #endif\n",
    ),
    (
        "EGL/egl.h",
        "/* Stand-in for <EGL/egl.h>: what cuda_egl_interop.h uses (EGLint is khronos_int32_t). */\n\
         #ifndef __egl_h_\n\
         #define __egl_h_\n\
         typedef int EGLint;\n\
         #endif\n",
    ),
    (
        "EGL/eglext.h",
        "/* Stand-in for <EGL/eglext.h>: the EGL image, stream and sync handle types. */\n\
         #ifndef __eglext_h_\n\
         #define __eglext_h_\n\
         typedef void *EGLImageKHR;\n\
         typedef void *EGLStreamKHR;\n\
         typedef void *EGLSyncKHR;\n\
         #endif\n",
    ),
    (
        "vdpau/vdpau.h",
        "/* Stand-in for <vdpau/vdpau.h>: what cuda_vdpau_interop.h uses (libvdpau's types). */\n\
         #ifndef _VDPAU_H\n\
         #define _VDPAU_H\n\
         #include <stdint.h>\n\
         typedef uint32_t VdpDevice;\n\
         typedef uint32_t VdpVideoSurface;\n\
         typedef uint32_t VdpOutputSurface;\n\
         typedef uint32_t VdpFuncId;\n\
         typedef unsigned int VdpStatus; /* an enum of non-negative values in libvdpau */\n\
         typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id, void **function_pointer);\n\
         #endif\n",
    ),
    (
        "libc/stddef.h",
        "/* Stand-in for <stddef.h>, from the compiler's predefined macros. */\n\
         #ifndef STAND_IN_STDDEF_H\n\
         #define STAND_IN_STDDEF_H\n\
         typedef __SIZE_TYPE__ size_t;\n\
         typedef __PTRDIFF_TYPE__ ptrdiff_t;\n\
         typedef __WCHAR_TYPE__ wchar_t;\n\
         #ifndef NULL\n\
         #define NULL ((void *)0)\n\
         #endif\n\
         #define offsetof(t, m) __builtin_offsetof(t, m)\n\
         #endif\n",
    ),
    (
        "libc/limits.h",
        "/* Stand-in for <limits.h>, from the compiler's predefined macros. */\n\
         #ifndef STAND_IN_LIMITS_H\n\
         #define STAND_IN_LIMITS_H\n\
         #define CHAR_BIT __CHAR_BIT__\n\
         #define SCHAR_MAX __SCHAR_MAX__\n\
         #define SCHAR_MIN (-__SCHAR_MAX__ - 1)\n\
         #define UCHAR_MAX (__SCHAR_MAX__ * 2 + 1)\n\
         #define CHAR_MIN SCHAR_MIN\n\
         #define CHAR_MAX SCHAR_MAX\n\
         #define SHRT_MAX __SHRT_MAX__\n\
         #define SHRT_MIN (-__SHRT_MAX__ - 1)\n\
         #define USHRT_MAX (__SHRT_MAX__ * 2 + 1)\n\
         #define INT_MAX __INT_MAX__\n\
         #define INT_MIN (-__INT_MAX__ - 1)\n\
         #define UINT_MAX (__INT_MAX__ * 2U + 1U)\n\
         #define LONG_MAX __LONG_MAX__\n\
         #define LONG_MIN (-__LONG_MAX__ - 1L)\n\
         #define ULONG_MAX (__LONG_MAX__ * 2UL + 1UL)\n\
         #define LLONG_MAX __LONG_LONG_MAX__\n\
         #define LLONG_MIN (-__LONG_LONG_MAX__ - 1LL)\n\
         #define ULLONG_MAX (__LONG_LONG_MAX__ * 2ULL + 1ULL)\n\
         #endif\n",
    ),
    (
        "libc/stdint.h",
        "/* Stand-in for <stdint.h>, from the compiler's predefined type macros. */\n\
         #ifndef STAND_IN_STDINT_H\n\
         #define STAND_IN_STDINT_H\n\
         typedef __INT8_TYPE__ int8_t;\n\
         typedef __INT16_TYPE__ int16_t;\n\
         typedef __INT32_TYPE__ int32_t;\n\
         typedef __INT64_TYPE__ int64_t;\n\
         typedef __UINT8_TYPE__ uint8_t;\n\
         typedef __UINT16_TYPE__ uint16_t;\n\
         typedef __UINT32_TYPE__ uint32_t;\n\
         typedef __UINT64_TYPE__ uint64_t;\n\
         typedef __INTPTR_TYPE__ intptr_t;\n\
         typedef __UINTPTR_TYPE__ uintptr_t;\n\
         #endif\n",
    ),
    (
        "libc/stdlib.h",
        "/* Stand-in for <stdlib.h>: reached only on device-code paths; nothing is used. */\n\
         #ifndef STAND_IN_STDLIB_H\n\
         #define STAND_IN_STDLIB_H\n\
         #include <stddef.h>\n\
         #endif\n",
    ),
];

/// The stand-ins for the platform headers the interop APIs include (GL, EGL, VDPAU), without
/// the C library ones: what a C or C++ compiler with its own library headers needs to compile
/// [`API_HEADERS`] (the layout probe of an emitted crate).
pub fn platform_stand_ins() -> impl Iterator<Item = (&'static str, &'static str)> {
    STAND_INS
        .iter()
        .copied()
        .filter(|(path, _)| !path.starts_with("libc/"))
}

/// Every in-memory file: absolute (virtual) path and text, the wrapper of `library`'s headers
/// first.
pub fn unsaved_files(library: Library) -> Vec<(String, String)> {
    let mut files = vec![(WRAPPER_PATH.to_string(), wrapper(library))];
    for (path, text) in STAND_INS {
        files.push((format!("{STAND_IN_DIR}/{path}"), text.to_string()));
    }
    files
}

/// The clang arguments besides the CUDA include folders: C11 for x86_64 Linux (the platform
/// of NVIDIA's manylinux wheels), no host headers, the stand-ins first on the include path.
pub fn clang_args() -> Vec<String> {
    [
        "-x",
        "c",
        "-std=c11",
        "--target=x86_64-unknown-linux-gnu",
        "-nostdinc",
        "-isystem",
        LIBC_DIR,
    ]
    .iter()
    .map(|s| s.to_string())
    .chain(std::iter::once(format!("-I{STAND_IN_DIR}")))
    .collect()
}
