//! The C libraries the generator binds, and the facts about each that no document states: the
//! prefix of its C names, the type its functions return as status, the headers its ABI is read
//! from, its wheel, the file the emitted crate loads, where its ABI snapshots live.
//!
//! `cudart` (NVIDIA's CUDA Runtime, `libcudart`) and `nvrtc` (NVRTC, the CUDA runtime
//! compiler, `libnvrtc`) are read by the same front ends, joined and bound by the same rules
//! and emitted by the same emitter; a `[[crate]]` entry of `docs-src/manifest.toml` names its
//! library (`library = "nvrtc"`; absent: `cudart`), and so does an ABI snapshot (its `library`
//! key; absent: `cudart`). This module holds facts only: it reads and decides nothing.

use serde::{Deserialize, Serialize};

/// The runtime's headers the ABI is read from, in the order the wrapper includes them: the
/// runtime API, the profiler API, and the OpenGL, EGL and VDPAU interop APIs.
pub const CUDART_API_HEADERS: [&str; 5] = [
    "cuda_runtime_api.h",
    "cuda_profiler_api.h",
    "cuda_gl_interop.h",
    "cuda_egl_interop.h",
    "cuda_vdpau_interop.h",
];

/// A C library the generator binds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Library {
    /// NVIDIA's CUDA Runtime API, `libcudart`.
    #[default]
    Cudart,
    /// NVRTC, the CUDA runtime compilation library, `libnvrtc`.
    Nvrtc,
    /// nvJitLink, the CUDA JIT linker (PTX, cubins, fatbins, objects, libraries and LTO-IR
    /// into a cubin at run time), `libnvJitLink`.
    Nvjitlink,
}

impl Library {
    /// Every library, in the order they are listed.
    pub const ALL: [Library; 3] = [Library::Cudart, Library::Nvrtc, Library::Nvjitlink];

    /// The name a manifest entry or a command line uses (`cudart`, `nvrtc`); also the stem of
    /// the emitted crate's default name (`cudart13`, `nvrtc13`).
    pub fn name(self) -> &'static str {
        match self {
            Library::Cudart => "cudart",
            Library::Nvrtc => "nvrtc",
            Library::Nvjitlink => "nvjitlink",
        }
    }

    /// The library named `name`, if the generator knows it.
    pub fn from_name(name: &str) -> Option<Library> {
        Library::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The known names, for messages (`cudart, nvrtc`).
    pub fn known_names() -> String {
        Library::ALL.map(Library::name).join(", ")
    }

    /// Whether this is the default library (snapshots and manifest entries that name none).
    pub fn is_cudart(&self) -> bool {
        *self == Library::Cudart
    }

    /// The API's name, for descriptions (`CUDA Runtime API`).
    pub fn title(self) -> &'static str {
        match self {
            Library::Cudart => "CUDA Runtime API",
            Library::Nvrtc => "NVRTC (CUDA runtime compilation) API",
            Library::Nvjitlink => "nvJitLink (CUDA JIT linker) API",
        }
    }

    /// The prefix of the library's C function names, dropped from the typed layer's Rust
    /// names (`cudaMalloc` → `malloc`, `nvrtcCreateProgram` → `create_program`).
    pub fn c_prefix(self) -> &'static str {
        match self {
            Library::Cudart => "cuda",
            Library::Nvrtc => "nvrtc",
            Library::Nvjitlink => "nvJitLink",
        }
    }

    /// The enum every function returns as its status; its zero value is success.
    pub fn status_type(self) -> &'static str {
        match self {
            Library::Cudart => "cudaError_t",
            Library::Nvrtc => "nvrtcResult",
            Library::Nvjitlink => "nvJitLinkResult",
        }
    }

    /// The status value of success (the zero member of [`Library::status_type`]).
    pub fn success(self) -> &'static str {
        match self {
            Library::Cudart => "cudaSuccess",
            Library::Nvrtc => "NVRTC_SUCCESS",
            Library::Nvjitlink => "NVJITLINK_SUCCESS",
        }
    }

    /// What the emitted crate's documentation calls the library (`the runtime library or
    /// this function cannot be loaded`).
    pub fn what(self) -> &'static str {
        match self {
            Library::Cudart => "runtime library",
            Library::Nvrtc => "NVRTC library",
            Library::Nvjitlink => "nvJitLink library",
        }
    }

    /// What the documentation calls the loaded library when it compares releases (`the loaded
    /// runtime is older than CUDA 13.4`).
    pub fn loaded(self) -> &'static str {
        match self {
            Library::Cudart => "runtime",
            Library::Nvrtc => "NVRTC",
            Library::Nvjitlink => "nvJitLink",
        }
    }

    /// Who owns the library's handles, in their documentation (`owned by the CUDA runtime`).
    pub fn owner(self) -> &'static str {
        match self {
            Library::Cudart => "the CUDA runtime",
            Library::Nvrtc => "NVRTC",
            Library::Nvjitlink => "nvJitLink",
        }
    }

    /// What the documentation calls a call into the library (`without calling CUDA`).
    pub fn callee(self) -> &'static str {
        match self {
            Library::Cudart => "CUDA",
            Library::Nvrtc => "NVRTC",
            Library::Nvjitlink => "nvJitLink",
        }
    }

    /// The emitted crate's error variant for a failed status (`Error::Cuda`).
    pub fn status_variant(self) -> &'static str {
        match self {
            Library::Cudart => "Cuda",
            Library::Nvrtc => "Nvrtc",
            Library::Nvjitlink => "NvJitLink",
        }
    }

    /// The status the typed layer returns for an argument it refuses before calling C (lists
    /// of different lengths for one count, a length the count's type cannot hold).
    pub fn invalid_value(self) -> &'static str {
        match self {
            Library::Cudart => "cudaErrorInvalidValue",
            Library::Nvrtc => "NVRTC_ERROR_INVALID_INPUT",
            Library::Nvjitlink => "NVJITLINK_ERROR_INVALID_INPUT",
        }
    }

    /// What the library is, in the loader's messages (`not a CUDA runtime library`).
    pub fn kind(self) -> &'static str {
        match self {
            Library::Cudart => "CUDA runtime",
            Library::Nvrtc => "NVRTC",
            Library::Nvjitlink => "nvJitLink",
        }
    }

    /// A function the emitted crate's documentation takes as its example of one newer than
    /// some releases of the major.
    pub fn example_function(self) -> &'static str {
        match self {
            Library::Cudart => "cudaMallocAsync",
            Library::Nvrtc => "nvrtcGetLTOIR",
            Library::Nvjitlink => "nvJitLinkGetLinkedLTOIR",
        }
    }

    /// Whether the library's safe layer asks the CUDA runtime of its major about the current
    /// device (NVRTC: the architecture a program is compiled for by default); its crate then
    /// also states the runtime's spec.
    pub fn reads_the_runtime(self) -> bool {
        match self {
            Library::Cudart | Library::Nvjitlink => false,
            Library::Nvrtc => true,
        }
    }

    /// The environment variable naming the library file or its folder (`CUDART_PATH`).
    pub fn path_var(self) -> String {
        format!("{}_PATH", self.name().to_uppercase())
    }

    /// The folder of NVIDIA's CUDA 12 wheel of the library in `site-packages/nvidia/` (from
    /// CUDA 13 on, every wheel of a major shares `nvidia/cu<major>/`).
    pub fn wheel_dir_12(self) -> &'static str {
        match self {
            Library::Cudart => "cuda_runtime",
            Library::Nvrtc => "cuda_nvrtc",
            Library::Nvjitlink => "nvjitlink",
        }
    }

    /// The DLL of the major on Windows. NVIDIA names NVRTC's after the major and a zero minor
    /// (`nvrtc64_130_0.dll`): every minor of a major keeps its ABI.
    pub fn windows_dll(self, major: u32) -> String {
        match self {
            Library::Cudart => format!("cudart64_{major}.dll"),
            Library::Nvrtc => format!("nvrtc64_{major}0_0.dll"),
            Library::Nvjitlink => format!("nvJitLink_{major}0_0.dll"),
        }
    }

    /// How the library's DLLs of `major` start, lower case (`cudart64_13`).
    pub fn windows_prefix(self, major: u32) -> String {
        match self {
            Library::Cudart => format!("cudart64_{major}"),
            Library::Nvrtc => format!("nvrtc64_{major}"),
            Library::Nvjitlink => format!("nvjitlink_{major}"),
        }
    }

    /// What to point the library's variable at, in the message refusing a library of another
    /// major (`a CUDA 13 runtime`).
    pub fn of_major(self, major: u32) -> String {
        match self {
            Library::Cudart => format!("a CUDA {major} runtime"),
            Library::Nvrtc => format!("the NVRTC library of CUDA {major}"),
            Library::Nvjitlink => format!("the nvJitLink library of CUDA {major}"),
        }
    }

    /// The function the library identifies itself by, and whether it writes the major and
    /// the minor apart (`nvrtcVersion(int*, int*)`) rather than `1000 * major + 10 * minor`
    /// in one int (`cudaRuntimeGetVersion(int*)`).
    pub fn version_function(self) -> (&'static str, bool) {
        match self {
            Library::Cudart => ("cudaRuntimeGetVersion", false),
            Library::Nvrtc => ("nvrtcVersion", true),
            Library::Nvjitlink => ("nvJitLinkVersion", true),
        }
    }

    /// The stem of the shared library's file name (`libcudart` → `libcudart.so.13`).
    pub fn file_stem(self) -> &'static str {
        match self {
            Library::Cudart => "libcudart",
            Library::Nvrtc => "libnvrtc",
            Library::Nvjitlink => "libnvJitLink",
        }
    }

    /// The headers the ABI is read from, in the order the wrapper includes them; the first is
    /// the API's own header (the layout probe of an emitted crate includes them all).
    pub fn api_headers(self) -> &'static [&'static str] {
        match self {
            Library::Cudart => &CUDART_API_HEADERS,
            Library::Nvrtc => &["nvrtc.h"],
            Library::Nvjitlink => &["nvJitLink.h"],
        }
    }

    /// Whether the library exports its header's `static inline` functions under their own
    /// names, so that the ABI reader takes them as the API: nvJitLink's header defines each
    /// function `static inline`, forwarding to a symbol of the header's release
    /// (`nvJitLinkCreate` → `__nvJitLinkCreate_13_0`), and every `libnvJitLink` from 12.3 on
    /// also exports the unversioned `nvJitLinkCreate` (the emitted crate's audit checks that
    /// each resolves; its loader refuses 12.0 to 12.2, which export only versioned names).
    /// Elsewhere a `static inline` function has no symbol and is left out.
    pub fn exports_inline_functions(self) -> bool {
        self == Library::Nvjitlink
    }

    /// Whether the API's headers include the GL, EGL and VDPAU headers the stand-ins of
    /// [`crate::abi::stubs`] replace (the interop headers of the runtime).
    pub fn needs_platform_stand_ins(self) -> bool {
        self == Library::Cudart
    }

    /// The folder under `abi/` holding this library's snapshots: `""` for the runtime (the
    /// snapshots `abi/<X.Y>.json` that every release audit reads), `nvrtc` for NVRTC.
    pub fn snapshot_folder(self) -> &'static str {
        match self {
            Library::Cudart => "",
            Library::Nvrtc => "nvrtc",
            Library::Nvjitlink => "nvjitlink",
        }
    }

    /// The PyPI package of NVIDIA's wheel holding the library and its API header, before the
    /// `-cu<major>` suffix of majors below 13 (`nvidia-cuda-runtime`).
    pub fn wheel_package(self) -> &'static str {
        match self {
            Library::Cudart => "nvidia-cuda-runtime",
            Library::Nvrtc => "nvidia-cuda-nvrtc",
            Library::Nvjitlink => "nvidia-nvjitlink",
        }
    }
}

impl std::fmt::Display for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_none() {
        for l in Library::ALL {
            assert_eq!(Library::from_name(l.name()), Some(l));
            assert_eq!(l.to_string(), l.name());
            assert!(l.status_type().starts_with(l.c_prefix()));
            assert!(l.file_stem().to_lowercase().ends_with(l.name()));
        }
        assert_eq!(Library::from_name("cublas"), None);
        assert_eq!(Library::known_names(), "cudart, nvrtc, nvjitlink");
        assert_eq!(Library::default(), Library::Cudart);
    }

    #[test]
    fn serialises_as_its_name() {
        assert_eq!(serde_json::to_string(&Library::Nvrtc).unwrap(), "\"nvrtc\"");
        let back: Library = serde_json::from_str("\"cudart\"").unwrap();
        assert_eq!(back, Library::Cudart);
    }
}
