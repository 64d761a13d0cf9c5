//! The emitted crate as a whole: `Cargo.toml`, `src/lib.rs`, the hand-written files copied
//! from the template ([`crate::template`]) with their placeholders filled, and the layout of
//! the generated files (`src/sys/…`, `src/api.rs`, `tests/audit/…`) in the crate folder.
//!
//! A crate is named for itself (library name = package name). A workspace member takes its
//! `[workspace]` from the enclosing workspace; a standalone crate (`--out DIR`) gets an empty
//! `[workspace]` table so that it builds on its own wherever DIR is.

use proc_macro2::TokenStream;
use quote::quote;

use super::docs;
use super::files::{format_file, EmitError, GeneratedFile};
use crate::library::Library;
use crate::template::{self, Values};

/// What names and places an emitted crate.
#[derive(Clone, Debug)]
pub struct Package {
    /// Package and library name (`cudart13`).
    pub name: String,
    /// The crate's version.
    pub version: String,
    /// The CUDA release it binds (`13.2`).
    pub release: String,
    /// Its major (`13`): the `libcudart.so.<major>` it opens.
    pub major: u32,
    /// Write an empty `[workspace]` table (a crate outside the generator's workspace).
    pub standalone: bool,
    /// The C library it binds.
    pub library: Library,
}

/// The revision of the generator's output for one CUDA release: the patch part of an emitted
/// crate's version. Bump it when the generator changes what it emits for a release whose
/// crate was published already; [`version_for`] resets nothing by itself.
pub const GENERATION: u32 = 0;

/// The version of the crate generated from CUDA `release`: `0.<major·1000 + minor·10>.<G>`
/// (`0.13050.0` for 13.5, `0.12090.0` for 12.9; G is [`GENERATION`]). The CUDA release is in
/// the version itself, not in build metadata (which crates.io ignores when it compares
/// versions), so two crates generated from different releases of one major never share a
/// name and version; and, the crates being `0.x`, each release's crate is its own
/// semver-compatible line (`cudart13 = "0.13050"`): a newer release's documents may change
/// the typed layer, which cargo must not take as a compatible update.
pub fn version_for(release: &crate::ir::Release) -> String {
    let part = |i: usize| release.0.get(i).copied().unwrap_or(0);
    let encoded = part(0)
        .saturating_mul(1000)
        .saturating_add(part(1).saturating_mul(10));
    format!("0.{encoded}.{GENERATION}")
}

/// The generator's workspace manifest, whose `[workspace.package]` table is the one place of
/// the metadata every emitted crate shares (repository, homepage, licence, minimum Rust).
const WORKSPACE_MANIFEST: &str = include_str!("../../../Cargo.toml");

/// The string `key` of the workspace's `[workspace.package]` (empty when absent: a test
/// checks that each one the crates need is there).
pub fn workspace_package(key: &str) -> String {
    static TABLE: std::sync::OnceLock<toml::Table> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        WORKSPACE_MANIFEST
            .parse::<toml::Table>()
            .ok()
            .and_then(|t| t.get("workspace")?.get("package")?.as_table().cloned())
            .unwrap_or_default()
    });
    table
        .get(key)
        .and_then(toml::Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The keys of `[workspace.package]` every emitted `Cargo.toml` carries.
pub const SHARED_KEYS: [&str; 4] = ["rust-version", "license", "repository", "homepage"];

impl Package {
    fn values<'a>(&'a self, abi: &'a str) -> Values<'a> {
        Values {
            crate_name: &self.name,
            major: self.major,
            release: &self.release,
            version: &self.version,
            abi,
            library: self.library,
        }
    }

    /// The variables naming the release's include folder and library for the audit tests
    /// (`CUDART13_AUDIT_INCLUDE`, `CUDART13_AUDIT_LIB`).
    pub fn audit_vars(&self) -> (String, String) {
        let stem = self.name.to_ascii_uppercase().replace('-', "_");
        (format!("{stem}_AUDIT_INCLUDE"), format!("{stem}_AUDIT_LIB"))
    }
}

/// The files of the crate that are not rendered from the model: `Cargo.toml`, `src/lib.rs`,
/// the template copies. `abi` describes the ABI source (for NOTICE).
pub fn files(
    pkg: &Package,
    preamble: &str,
    abi: &str,
    marks: &super::SafeMarks,
) -> Result<Vec<GeneratedFile>, EmitError> {
    let values = pkg.values(abi);
    let mut out = vec![GeneratedFile {
        name: "Cargo.toml".into(),
        contents: cargo_toml(pkg, preamble),
    }];
    let lib = match pkg.library {
        Library::Cudart => lib_rs(pkg, abi),
        Library::Nvrtc => nvrtc_lib_rs(pkg, abi),
        Library::Nvjitlink => nvjitlink_lib_rs(pkg, abi),
    };
    out.push(format_file("src/lib.rs", preamble, lib)?);
    out.push(format_file("src/library.rs", preamble, library_rs(pkg))?);
    for (path, text) in template::LICENCES {
        out.push(GeneratedFile {
            name: (*path).to_string(),
            contents: (*text).to_string(),
        });
    }
    for (path, text) in template::files_for(pkg.library).0 {
        let mut body = template::render(text, &values);
        if path.ends_with(".rs") {
            // The safe layer's since-marks, from the C functions each function calls.
            body = super::safe_since::mark(&body, &marks.marks());
        }
        let contents = if path.ends_with(".rs") {
            format!(
                "// Copied by `cargo xtask codegen` from the generator's codegen/template/{path}:\n\
                 // edit the template, not this copy.\n\n{body}"
            )
        } else {
            body
        };
        out.push(GeneratedFile {
            name: (*path).to_string(),
            contents,
        });
    }
    Ok(out)
}

fn cargo_toml(pkg: &Package, preamble: &str) -> String {
    let quoted = |s: &str| toml::Value::String(s.to_string()).to_string();
    let mut s = preamble.replace("// ", "# ").replace("//\n", "#\n");
    s.push('\n');
    s.push_str("[package]\n");
    s.push_str(&format!("name = {}\n", quoted(&pkg.name)));
    s.push_str(&format!("version = {}\n", quoted(&pkg.version)));
    s.push_str(&format!(
        "description = {}\n",
        quoted(&format!(
            "{} bindings for every CUDA {}.x release, generated from NVIDIA's documentation of CUDA {}, loaded at run time",
            pkg.library.title(),
            pkg.major,
            pkg.release
        ))
    ));
    s.push_str("edition = \"2021\"\n");
    for key in SHARED_KEYS {
        s.push_str(&format!("{key} = {}\n", quoted(&workspace_package(key))));
    }
    s.push_str(&format!(
        "documentation = {}\nreadme = \"README.md\"\n",
        quoted(&format!("https://docs.rs/{}", pkg.name))
    ));
    let rest_start = s.len();
    if pkg.library == Library::Nvrtc {
        s.push_str(NVRTC_MANIFEST_REST);
    } else if pkg.library == Library::Nvjitlink {
        s.push_str(NVJITLINK_MANIFEST_REST);
    } else {
        s.push_str(
        "keywords = [\"cuda\", \"gpu\", \"ffi\", \"bindings\"]\n\
         categories = [\"external-ffi-bindings\", \"hardware-support\"]\n\
         include = [\"src/**/*.rs\", \"tests/**/*\", \"Cargo.toml\", \"NOTICE\", \"README.md\", \"LICENSE-MIT\", \"LICENSE-APACHE\"]\n\
         \n\
         [dependencies]\n\
         bitflags = \"2\"\n\
         @LOADER@\
         # NVTX marks and ranges (`nvtx` module): NVIDIA's crate, which builds its C part\n\
         # with `cc` and `bindgen` (libclang).\n\
         nvtx = { version = \"2\", optional = true, default-features = false, features = [\"std\"] }\n\
         \n\
         [features]\n\
         # The `nvtx` module (NVIDIA Tools Extension markers for Nsight).\n\
         nvtx = [\"dep:nvtx\"]\n\
         \n\
         # Every feature is documented: `nvtx` builds NVIDIA's C part with `cc` and its bindings\n\
         # with bindgen, which the docs.rs build image provides (libclang), as it does for the\n\
         # `nvtx-sys` crate's own documentation. `cargo xtask test` builds the docs the same way.\n\
         [package.metadata.docs.rs]\n\
         all-features = true\n\
         targets = [\"x86_64-unknown-linux-gnu\"]\n",
    );
    }
    let rest = s.split_off(rest_start);
    s.push_str(&rest.replace("@LOADER@", &loader_dependency(pkg)));
    // What `cargo xtask audit DIR` needs to find the release's headers and library.
    s.push_str(&format!(
        "\n[package.metadata.cudart]\nrelease = {}\n",
        quoted(&pkg.release)
    ));
    if !pkg.library.is_cudart() {
        s.push_str(&format!("library = {}\n", quoted(pkg.library.name())));
    }
    if pkg.standalone {
        s.push_str(
            "\n# A crate of its own, not a member of an enclosing workspace.\n[workspace]\n",
        );
    }
    s
}

/// The rest of an NVRTC crate's `[package]` and its dependencies: the loader alone (no flag
/// type, no NVTX); `[dependencies]` is completed by [`loader_dependency`].
const NVRTC_MANIFEST_REST: &str = "keywords = [\"cuda\", \"nvrtc\", \"gpu\", \"ffi\", \"bindings\"]\n\
     categories = [\"external-ffi-bindings\", \"hardware-support\"]\n\
     include = [\"src/**/*.rs\", \"tests/**/*\", \"Cargo.toml\", \"NOTICE\", \"README.md\", \"LICENSE-MIT\", \"LICENSE-APACHE\"]\n\
     \n\
     [dependencies]\n\
     @LOADER@\n\
     [package.metadata.docs.rs]\n\
     targets = [\"x86_64-unknown-linux-gnu\"]\n";

/// The `cuda-loader` line of `[dependencies]`: the workspace's crate next to the emitted one
/// (`runtime/cuda-loader`), or the published crate for a crate of its own.
fn loader_dependency(pkg: &Package) -> String {
    const MANIFEST: &str = include_str!("../../../runtime/cuda-loader/Cargo.toml");
    let version = MANIFEST
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| {
            t.get("package")?
                .get("version")?
                .as_str()
                .map(str::to_string)
        })
        .unwrap_or_default();
    if pkg.standalone {
        format!("cuda-loader = \"{version}\"\n")
    } else {
        format!("cuda-loader = {{ version = \"{version}\", path = \"../cuda-loader\" }}\n")
    }
}

/// `src/library.rs`: the facts about the library that the loader looks for it by (a
/// [`cuda_loader::Spec`]), the crate's loader, and its callback state; for a library whose
/// safe layer asks the CUDA runtime about the device ([`Library::reads_the_runtime`]), the
/// runtime's spec and loader too (the same search as the runtime crate's).
fn library_rs(pkg: &Package) -> TokenStream {
    let lib = pkg.library;
    let major = pkg.major;
    let doc = format!(
        "Which C library this crate loads and how the loader recognises it: {}, `{}.so.{major}`, which identifies itself by `{}`.\n\nThe `cuda-loader` crate searches, checks and opens; this module only states what it looks for (generated from the generator's `codegen::library`).",
        lib.title(),
        lib.file_stem(),
        lib.version_function().0,
    );
    let doc = docs::inner_attrs(&doc);
    let path_var = lib.path_var();
    let spec = spec_tokens(lib, major, &pkg.name, quote! { describe_own_status });
    let runtime = if lib.reads_the_runtime() {
        let runtime = Library::Cudart;
        let describe = quote! { describe_runtime_status };
        let spec = spec_tokens(runtime, major, &pkg.name, describe);
        let doc = format!(
            "The CUDA runtime ({}), which {} asks about the current device: found as the runtime crate finds it.",
            runtime.of_major(major),
            lib.title(),
        );
        quote! {
            #[doc = #doc]
            pub(crate) static RUNTIME_SPEC: cuda_loader::Spec = #spec;

            /// The runtime, opened on first use.
            pub(crate) static RUNTIME: cuda_loader::Loader = cuda_loader::Loader::new(&RUNTIME_SPEC);

            /// A status of the runtime, in messages.
            fn describe_runtime_status(code: i32) -> String {
                format!("CUDA runtime status {code}")
            }
        }
    } else {
        quote! {}
    };
    quote! {
        #doc

        /// Environment variable naming the library file, or a folder holding it.
        pub const PATH_VAR: &str = #path_var;

        /// What the loader looks for.
        pub(crate) static SPEC: cuda_loader::Spec = #spec;

        /// The process-wide library, opened on first use.
        pub(crate) static LOADER: cuda_loader::Loader = cuda_loader::Loader::new(&SPEC);

        thread_local! {
            /// Whether this thread runs inside a CUDA callback (`loader::callback_scope`).
            pub(crate) static CALLBACKS: cuda_loader::callback::State =
                const { cuda_loader::callback::State::new() };
        }

        /// A status of the library, in messages (`CUDA error 35 (…): …`).
        fn describe_own_status(code: i32) -> String {
            match crate::error::check(code) {
                Ok(()) => format!("status {code}"),
                Err(e) => e.to_string(),
            }
        }

        #runtime
    }
}

/// The `cuda_loader::Spec` literal of `lib`'s `major` release, for the crate `crate_name`,
/// describing statuses with the function `describe`.
fn spec_tokens(lib: Library, major: u32, crate_name: &str, describe: TokenStream) -> TokenStream {
    let stem = lib.file_stem();
    let kind = lib.kind();
    let path_var = lib.path_var();
    let unix = [format!("{stem}.so.{major}"), format!("{stem}.so")];
    let windows = lib.windows_dll(major);
    let prefix = lib.windows_prefix(major);
    let wheels = [format!("cu{major}"), lib.wheel_dir_12().to_string()];
    let of_major = lib.of_major(major);
    let (function, apart) = lib.version_function();
    let function = syn::LitCStr::new(
        &std::ffi::CString::new(function).expect("a C name has no NUL"),
        proc_macro2::Span::call_site(),
    );
    let query = if apart {
        quote! { cuda_loader::VersionQuery::MajorMinor(#function) }
    } else {
        quote! { cuda_loader::VersionQuery::Combined(#function) }
    };
    quote! {
        cuda_loader::Spec {
            crate_name: #crate_name,
            kind: #kind,
            path_var: #path_var,
            major: crate::sys::CUDA_MAJOR,
            release: crate::sys::CUDA_RELEASE,
            unix_names: &[#(#unix),*],
            windows_names: &[#windows],
            windows_prefix: #prefix,
            wheel_dirs: &[#(#wheels),*],
            of_major: #of_major,
            version: #query,
            describe_status: #describe,
        }
    }
}

/// `src/lib.rs` of an NVRTC crate: the crate documentation, the shared loader and version
/// module, the raw and typed layers, and the safe `Program` of the template.
fn nvrtc_lib_rs(pkg: &Package, abi: &str) -> TokenStream {
    let md = template::render(template::files_for(pkg.library).1, &pkg.values(abi));
    let doc = docs::inner_attrs(&md);
    quote! {
        #doc
        #![deny(missing_docs)]

        // The patterns of generated items (`c_enum!`, `dynamic_call!`, …).
        #[macro_use]
        extern crate cuda_loader;

        pub mod error;
        mod library;
        pub mod loader;
        pub mod version;

        /// The raw layer, generated from the documentation: every documented type and
        /// function the ABI declares, under its C name (`sys::nvrtcCompileProgram`,
        /// `sys::nvrtcResult`).
        #[allow(missing_docs)]
        #[rustfmt::skip]
        pub mod sys;

        // Documented by its own `//!` lines (an outer doc here would print before them).
        #[rustfmt::skip]
        pub mod api;

        pub mod program;
        // Generated from `nvrtc.h`'s "Supported Compile Options": `CompileOptions`' methods.
        #[rustfmt::skip]
        mod options;

        pub use error::{check, Error, Result};
        pub use loader::{has_function, is_available, LazySymbol, Library};
        pub use program::{current_device_arch, supported_architectures};
        pub use program::{CompileOptions, Compiled, Header, Program};
        pub use sys::{CUDA_MAJOR, CUDA_RELEASE};
        pub use version::{function_since, runtime_version, CudaVersion};
    }
}

/// The rest of an nvJitLink crate's `[package]` and its dependencies: the loader alone;
/// `[dependencies]` is completed by [`loader_dependency`].
const NVJITLINK_MANIFEST_REST: &str = "keywords = [\"cuda\", \"nvjitlink\", \"linker\", \"ffi\", \"bindings\"]\n\
     categories = [\"external-ffi-bindings\", \"hardware-support\"]\n\
     include = [\"src/**/*.rs\", \"tests/**/*\", \"Cargo.toml\", \"NOTICE\", \"README.md\", \"LICENSE-MIT\", \"LICENSE-APACHE\"]\n\
     \n\
     [dependencies]\n\
     @LOADER@\n\
     [package.metadata.docs.rs]\n\
     targets = [\"x86_64-unknown-linux-gnu\"]\n";

/// `src/lib.rs` of an nvJitLink crate: the crate documentation, the shared loader and version
/// module, the raw and typed layers, and the safe `Linker` of the template.
fn nvjitlink_lib_rs(pkg: &Package, abi: &str) -> TokenStream {
    let md = template::render(template::files_for(pkg.library).1, &pkg.values(abi));
    let doc = docs::inner_attrs(&md);
    quote! {
        #doc
        #![deny(missing_docs)]

        // The patterns of generated items (`c_enum!`, `dynamic_call!`, …).
        #[macro_use]
        extern crate cuda_loader;

        pub mod error;
        mod library;
        pub mod loader;
        pub mod version;

        /// The raw layer, generated from the documentation: every documented type and
        /// function the ABI declares, under its C name (`sys::nvJitLinkComplete`,
        /// `sys::nvJitLinkResult`).
        #[allow(missing_docs)]
        #[rustfmt::skip]
        pub mod sys;

        // Documented by its own `//!` lines (an outer doc here would print before them).
        #[rustfmt::skip]
        pub mod api;

        pub mod linker;

        pub use error::{check, Error, Result};
        pub use linker::{InputKind, LinkOptions, Linked, Linker};
        pub use loader::{has_function, is_available, LazySymbol, Library};
        pub use sys::{CUDA_MAJOR, CUDA_RELEASE};
        pub use version::{function_since, runtime_version, CudaVersion};
    }
}

fn lib_rs(pkg: &Package, abi: &str) -> TokenStream {
    let md = template::render(template::CRATE_DOCS, &pkg.values(abi));
    let doc = docs::inner_attrs(&md);
    quote! {
        #doc
        #![deny(missing_docs)]

        #[macro_use]
        extern crate cuda_loader;

        pub mod error;
        mod library;
        pub mod loader;
        pub mod version;

        /// The raw layer, generated from the documentation: every documented type, constant and
        /// function the ABI declares, under its C name (`sys::cudaMalloc`, `sys::cudaMemcpyKind`).
        #[allow(missing_docs)]
        #[rustfmt::skip]
        pub mod sys;

        // Documented by its own `//!` lines (an outer doc here would print before them).
        #[rustfmt::skip]
        pub mod api;

        pub mod device;
        // Generated from `cudaDeviceProp`, `cudaFuncAttributes` and `cudaDeviceAttr`; re-exported by `device` and `kernel`.
        #[rustfmt::skip]
        mod records;
        pub mod event;
        pub mod global;
        pub mod graph;
        pub mod kernel;
        mod lifetime;
        pub mod memory;
        #[cfg(feature = "nvtx")]
        pub mod nvtx;
        pub mod profiler;
        pub mod stream;
        pub mod texture;

        pub use device::{Device, DeviceAttribute, DeviceAttributes, DeviceGuard};
        pub use device::{DeviceProperties, Limit, MemInfo, Uuid};
        pub use error::{check, set_drop_error_hook, Error, Result};
        pub use event::{Event, EventFlags, IpcEventHandle};
        pub use global::DeviceGlobal;
        pub use graph::{CaptureGuard, CaptureMode, Graph, GraphExec};
        pub use graph::{GraphNode, InstantiateFlags};
        pub use kernel::{Dim3, FuncAttribute, Kernel, KernelArg, KernelArgs};
        pub use kernel::{KernelAttributes, Launch, LaunchConfig, Module, Occupancy, ParamInfo};
        pub use loader::{has_function, is_available, LazySymbol, Library};
        pub use memory::{DeviceBuffer, DeviceCopy, DevicePtr, DeviceSlice, DeviceSliceMut};
        pub use memory::{GraphBuffer, PinnedBuffer, PinnedPool, PinnedSlice, PinnedSliceMut};
        pub use memory::{HostAllocFlags, IpcMemHandle, ManagedBuffer, MemPool, MemPoolStats};
        pub use stream::{CaptureStatus, Stream, StreamFlags};
        pub use sys::{CUDA_MAJOR, CUDA_RELEASE};
        pub use version::{function_since, runtime_version, CudaVersion};
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_metadata_is_in_the_workspace_manifest() {
        for key in SHARED_KEYS {
            assert!(
                !workspace_package(key).is_empty(),
                "[workspace.package] {key}"
            );
        }
    }

    #[test]
    fn the_version_names_the_release() {
        let v = |r: &[u32]| version_for(&crate::ir::Release(r.to_vec()));
        assert_eq!(v(&[13, 5]), format!("0.13050.{GENERATION}"));
        assert_eq!(v(&[12, 9]), format!("0.12090.{GENERATION}"));
        assert_ne!(v(&[13, 4]), v(&[13, 5]));
        assert_eq!(v(&[13]), format!("0.13000.{GENERATION}"));
    }
}
