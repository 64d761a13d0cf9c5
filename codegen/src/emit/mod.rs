//! Rendering the bindings model as the generated files of the crate. Every decision (what is
//! bound, flag groups, parameter roles, names, skip reasons) was made in [`crate::bind`]:
//! this module only turns the finished model into formatted Rust.
//!
//! Output is split by category, as `ash` does: [`types`] (records, handles, callbacks,
//! aliases), [`enums`] (newtype enums and the error table), [`flags`] (bitflags types and
//! constants), [`functions`] (raw functions), [`typed`] (the typed layer). [`package`] makes
//! them a complete crate (`Cargo.toml`, `lib.rs`, the template's hand-written files);
//! [`files`] formats and writes or checks them; [`docs`] and [`names`] are shared by all.
//! [`probe`] writes the crate's audit tables (layouts for the C++ probe, symbol and error-name
//! lists).

pub mod docs;
pub mod enums;
pub mod files;
pub mod flags;
pub mod functions;
pub mod names;
pub mod package;
pub mod probe;
pub mod typed;
pub mod types;

use proc_macro2::TokenStream;
use quote::quote;

use crate::bind::Bindings;
use docs::DocProblems;
use files::{format_file, preamble, EmitError, GeneratedFile};
use names::Names;

/// What [`generate`] produced.
#[derive(Debug)]
pub struct Output {
    /// Every file of the crate, by path relative to the crate folder.
    pub files: Vec<GeneratedFile>,
    /// Markdown problems found in generated comments (`item: problem`).
    pub doc_problems: Vec<String>,
}

/// One generated file: its name and how its body is built from the model.
type Job = (
    &'static str,
    fn(&Bindings, &Names, &mut DocProblems) -> TokenStream,
);

/// The files of the raw layer and the typed layer, in the order they are listed.
const JOBS: [Job; 7] = [
    ("src/sys/enums.rs", |b, n, p| enums::emit(&b.enums, n, p)),
    ("src/sys/types.rs", |b, n, p| {
        types::emit(&b.records, &b.typedefs, n, p)
    }),
    ("src/sys/functions.rs", |b, n, p| {
        functions::emit(&b.functions, n, p)
    }),
    ("src/sys/errors.rs", |b, _, _| {
        enums::emit_error_table(&b.enums, "cudaError_t")
    }),
    ("src/sys/flags.rs", |b, n, p| {
        flags::emit(&b.flag_groups, &b.constants, n, p)
    }),
    ("src/sys/constants.rs", |b, n, p| {
        flags::emit_constants(&b.constants, n, p)
    }),
    ("src/api.rs", |b, n, p| {
        let mut t = typed::emit(&b.functions, n, p);
        t.extend(typed::constructors(&b.constructors, n, p));
        t.extend(typed::attributes(b, n));
        t
    }),
];

/// Renders every generated file of `b`. `inputs` names the documents (with releases) for the
/// preamble.
pub fn generate(
    b: &Bindings,
    pkg: &package::Package,
    inputs: &[String],
) -> Result<Output, EmitError> {
    let pre = preamble(inputs, &b.abi_source);
    let names = Names::for_bindings(b);
    let rendered = parallel_map(&JOBS, |(name, body)| {
        let mut problems = DocProblems::default();
        let tokens = body(b, &names, &mut problems);
        let head = if *name == "src/api.rs" {
            quote! { #![allow(non_snake_case, unused_imports, unused_unsafe, clippy::all, clippy::pedantic, rustdoc::redundant_explicit_links)] }
        } else {
            quote! {
                #![allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused_imports, clippy::all, clippy::pedantic)]
                use super::*;
            }
        };
        let file = format_file(name, &pre, quote! { #head #tokens })?;
        Ok::<_, EmitError>((file, problems.0))
    });
    let mut files = Vec::new();
    let mut doc_problems = Vec::new();
    for (r, (name, _)) in rendered.into_iter().zip(&JOBS) {
        let (file, problems) = r.ok_or_else(|| EmitError::Syntax {
            file: (*name).to_string(),
            message: "the emitter panicked while building it (a bug: please report it)".into(),
        })??;
        files.push(file);
        doc_problems.extend(problems);
    }
    let release = pkg.release.as_str();
    let major = pkg.major;
    let library =
        format!(" Its major: the runtime library this crate opens is `libcudart.so.{major}`.");
    let module = quote! {
        //! The raw layer: every type, constant and function the documentation describes and
        //! the ABI declares, under its C name.
        #![allow(unused_imports)]

        /// The CUDA release these bindings were generated for.
        pub const CUDA_RELEASE: &str = #release;
        #[doc = #library]
        pub const CUDA_MAJOR: u32 = #major;

        pub(crate) mod constants;
        pub(crate) mod errors;
        pub(crate) mod enums;
        pub(crate) mod flags;
        mod functions;
        pub(crate) mod types;
        pub use constants::*;
        pub use enums::*;
        pub use flags::*;
        pub use functions::*;
        pub use types::*;
    };
    files.push(format_file("src/sys/mod.rs", &pre, module)?);
    let tables = probe::tables(b);
    files.push(GeneratedFile {
        name: "tests/audit/layout_probe.cpp".into(),
        contents: probe::cpp_source(&pre, &tables),
    });
    for (path, text) in crate::abi::stubs::platform_stand_ins() {
        files.push(GeneratedFile {
            name: format!("tests/audit/include/{path}"),
            contents: text.to_string(),
        });
    }
    let krate = names::ident(&pkg.name.replace('-', "_"));
    let (include_var, lib_var) = pkg.audit_vars();
    let layout = probe::rust_table(&tables);
    let symbols = probe::symbols_table(b, "cudaError_t");
    let audit_tables = quote! {
        //! What the audit test compares, for this crate's release.
        #![allow(dead_code)]

        /// The crate under audit.
        pub use ::#krate as krate;

        /// The variable naming the release's include folder (holding `cuda_runtime_api.h`).
        pub const INCLUDE_VAR: &str = #include_var;
        /// The variable naming the release's `libcudart` file.
        pub const LIB_VAR: &str = #lib_var;

        #layout
        #symbols
    };
    files.push(format_file("tests/audit/tables.rs", &pre, audit_tables)?);
    files.extend(package::files(pkg, &pre, &b.abi_source)?);
    Ok(Output {
        files,
        doc_problems,
    })
}

/// `f` over `items` on up to two threads (the machine this runs on has two cores), results
/// in `items`' order; `None` where `f` panicked. Token streams are not `Send`, so each call
/// builds its own from the shared, read-only model and returns plain data.
fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<Option<R>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 2);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(item)));
            done.push((i, r.ok()));
        }
    };
    let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut done = work();
        for h in helpers {
            done.extend(h.join().unwrap_or_default());
        }
        for (i, r) in done {
            slots[i] = r;
        }
    });
    slots
}
