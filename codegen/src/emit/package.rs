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

/// The version of every crate this generator emits.
pub const VERSION: &str = "0.2.0";

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
pub fn files(pkg: &Package, preamble: &str, abi: &str) -> Result<Vec<GeneratedFile>, EmitError> {
    let values = pkg.values(abi);
    let mut out = vec![GeneratedFile {
        name: "Cargo.toml".into(),
        contents: cargo_toml(pkg, preamble),
    }];
    let lib = match pkg.library {
        Library::Cudart => lib_rs(pkg, abi),
        Library::Nvrtc => nvrtc_lib_rs(pkg, abi),
    };
    out.push(format_file("src/lib.rs", preamble, lib)?);
    for (path, text) in template::files_for(pkg.library).0 {
        let body = template::render(text, &values);
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
            "{} bindings for CUDA {}, generated from NVIDIA's documentation, loaded at run time",
            pkg.library.title(),
            pkg.release
        ))
    ));
    if pkg.library == Library::Nvrtc {
        s.push_str(&nvrtc_manifest_rest());
    } else {
        s.push_str(
        "edition = \"2021\"\n\
         rust-version = \"1.80\"\n\
         license = \"MIT OR Apache-2.0\"\n\
         readme = \"README.md\"\n\
         keywords = [\"cuda\", \"gpu\", \"ffi\", \"bindings\"]\n\
         categories = [\"external-ffi-bindings\", \"hardware-support\"]\n\
         include = [\"src/**/*.rs\", \"tests/**/*\", \"Cargo.toml\", \"NOTICE\", \"README.md\"]\n\
         \n\
         [dependencies]\n\
         bitflags = \"2\"\n\
         libloading = \"0.8\"\n\
         # NVTX marks and ranges (`nvtx` module): NVIDIA's crate, which builds its C part\n\
         # with `cc` and `bindgen` (libclang).\n\
         nvtx = { version = \"2\", optional = true, default-features = false, features = [\"std\"] }\n\
         \n\
         [features]\n\
         # The `nvtx` module (NVIDIA Tools Extension markers for Nsight).\n\
         nvtx = [\"dep:nvtx\"]\n\
         \n\
         [package.metadata.docs.rs]\n\
         targets = [\"x86_64-unknown-linux-gnu\"]\n",
    );
    }
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

/// The rest of an NVRTC crate's `[package]` and its dependencies: `libloading` alone (no
/// flag type, no NVTX).
fn nvrtc_manifest_rest() -> String {
    "edition = \"2021\"\n\
     rust-version = \"1.80\"\n\
     license = \"MIT OR Apache-2.0\"\n\
     readme = \"README.md\"\n\
     keywords = [\"cuda\", \"nvrtc\", \"gpu\", \"ffi\", \"bindings\"]\n\
     categories = [\"external-ffi-bindings\", \"hardware-support\"]\n\
     include = [\"src/**/*.rs\", \"tests/**/*\", \"Cargo.toml\", \"NOTICE\", \"README.md\"]\n\
     \n\
     [dependencies]\n\
     libloading = \"0.8\"\n\
     \n\
     [package.metadata.docs.rs]\n\
     targets = [\"x86_64-unknown-linux-gnu\"]\n"
        .to_string()
}

/// `src/lib.rs` of an NVRTC crate: the crate documentation, the shared loader, the raw and
/// typed layers, and the safe [`Program`](crate::template::NVRTC_COPIED) of the template.
fn nvrtc_lib_rs(pkg: &Package, abi: &str) -> TokenStream {
    let md = template::render(template::files_for(pkg.library).1, &pkg.values(abi));
    let doc = docs::inner_attrs(&md);
    quote! {
        #doc
        #![deny(missing_docs)]

        // The runtime's crates use every macro; this crate has no flag type or record.
        #[allow(unused_macros)]
        #[macro_use]
        mod macros;

        #[cfg(target_os = "linux")]
        mod elf;
        pub mod error;
        mod library;
        pub mod loader;

        /// The raw layer, generated from the documentation: every documented type and
        /// function the ABI declares, under its C name (`sys::nvrtcCompileProgram`,
        /// `sys::nvrtcResult`).
        #[allow(missing_docs)]
        #[rustfmt::skip]
        pub mod sys;

        /// The typed layer, generated from the documentation: one function per documented C
        /// function whose parameters could all be given a Rust role (see the crate docs).
        #[rustfmt::skip]
        pub mod api;

        pub mod program;

        pub use error::{check, Error, Result};
        pub use loader::{has_function, is_available, LazySymbol, Library};
        pub use program::{supported_architectures, version};
        pub use program::{CompileOptions, Compiled, Header, Program};
        pub use sys::{CUDA_MAJOR, CUDA_RELEASE};
    }
}

fn lib_rs(pkg: &Package, abi: &str) -> TokenStream {
    let md = template::render(template::CRATE_DOCS, &pkg.values(abi));
    let doc = docs::inner_attrs(&md);
    quote! {
        #doc
        #![deny(missing_docs)]

        #[macro_use]
        mod macros;

        #[cfg(target_os = "linux")]
        mod elf;
        pub mod error;
        mod library;
        pub mod loader;

        /// The raw layer, generated from the documentation: every documented type, constant and
        /// function the ABI declares, under its C name (`sys::cudaMalloc`, `sys::cudaMemcpyKind`).
        #[allow(missing_docs)]
        #[rustfmt::skip]
        pub mod sys;

        /// The typed layer, generated from the documentation: one function per documented C
        /// function whose parameters could all be given a Rust role (see the crate docs).
        #[rustfmt::skip]
        pub mod api;

        pub mod device;
        pub mod event;
        pub mod graph;
        pub mod kernel;
        pub mod memory;
        #[cfg(feature = "nvtx")]
        pub mod nvtx;
        pub mod profiler;
        pub mod stream;
        pub mod texture;

        pub use device::{Device, DeviceGuard, DeviceProperties, MemInfo};
        pub use error::{check, set_drop_error_hook, Error, Result};
        pub use event::Event;
        pub use graph::{CaptureGuard, CaptureMode, Graph, GraphExec, GraphNode};
        pub use kernel::{Dim3, Kernel, KernelArg, KernelArgs, Launch, LaunchConfig, Module};
        pub use loader::{has_function, is_available, LazySymbol, Library};
        pub use memory::{DeviceBuffer, DeviceCopy, DevicePtr, DeviceSlice, DeviceSliceMut};
        pub use memory::{ManagedBuffer, MemPool, PinnedBuffer, PinnedPool};
        pub use stream::Stream;
        pub use sys::{CUDA_MAJOR, CUDA_RELEASE};
    }
}
