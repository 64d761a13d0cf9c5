//! Rendering the bindings model as the generated files of the crate. Every decision (what is
//! bound, flag groups, parameter roles, names, skip reasons) was made in [`crate::bind`]:
//! this module only turns the finished model into formatted Rust.
//!
//! Output is split by category, as `ash` does: [`types`] (records, handles, callbacks,
//! aliases), [`enums`] (newtype enums and the error table), [`flags`] (bitflags types and
//! constants), [`functions`] (raw functions), [`typed`] (the typed layer). [`package`] makes
//! them a complete crate (`Cargo.toml`, `lib.rs`, the template's hand-written files);
//! [`files`] formats and writes or checks them; [`docs`] and [`names`] are shared by all, and
//! [`fill`] builds syntax trees from parsed templates.
//! [`records`] writes the safe layer's generated records (device properties and attributes,
//! kernel attributes); [`nvrtc_options`] NVRTC's typed compile options.
//! [`probe`] writes the crate's audit tables (layouts for the C++ probe, symbol and error-name
//! lists).

pub mod docs;
pub mod enums;
pub mod files;
pub mod fill;
pub mod flags;
pub mod functions;
pub mod names;
pub mod nvrtc_options;
pub mod package;
pub mod probe;
pub mod records;
pub mod safe_since;
pub mod typed;
pub mod types;

use proc_macro2::TokenStream;
use quote::quote;

use crate::bind::Bindings;
use docs::DocProblems;
use files::{preamble, EmitError, GeneratedFile};
use names::Names;

/// What [`generate`] produced.
#[derive(Debug)]
pub struct Output {
    /// Every file of the crate, by path relative to the crate folder.
    pub files: Vec<GeneratedFile>,
    /// Markdown problems found in generated comments (`item: problem`).
    pub doc_problems: Vec<String>,
}

/// The head of a raw-layer file.
fn sys_head() -> TokenStream {
    quote! {
        #![allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused_imports, clippy::all, clippy::pedantic)]
        use super::*;
    }
}

/// How one generated Rust file is built, its documentation's problems recorded as it goes.
type Build<'a> = &'a (dyn Fn(&mut DocProblems) -> Result<syn::File, syn::Error> + Sync);

/// A raw-layer file: the head, then `items`.
fn sys_file(items: Result<Vec<syn::Item>, syn::Error>) -> Result<syn::File, syn::Error> {
    let mut file: syn::File = syn::parse2(sys_head())?;
    file.items.extend(items?);
    Ok(file)
}

/// `src/api.rs`: the typed layer's functions, then the safe constructors and the attribute
/// getters.
fn api_file(
    b: &Bindings,
    names: &Names,
    problems: &mut DocProblems,
) -> Result<syn::File, syn::Error> {
    let mut file = typed::emit(&b.functions, names, problems)?;
    let mut rest = typed::constructors(&b.constructors, names, problems);
    rest.extend(typed::attributes(b, names));
    file.items.extend(syn::parse2::<syn::File>(rest)?.items);
    Ok(file)
}

/// The marks the safe layer's functions take from what they call: every bound function's
/// mark by C name, and its typed wrapper's name → the C name ([`safe_since`]).
fn safe_marks(b: &Bindings) -> SafeMarks {
    let mut marks = SafeMarks::default();
    for f in &b.functions {
        if let Some(s) = &f.since {
            marks.by_c_name.insert(f.name.clone(), s.clone());
        }
        if let crate::bind::Typed::Wrapper { rust_name, .. } = &f.typed {
            marks.by_wrapper.insert(rust_name.clone(), f.name.clone());
        }
    }
    marks
}

/// Owned tables behind [`safe_since::Marks`].
#[derive(Default)]
pub struct SafeMarks {
    pub by_c_name: std::collections::BTreeMap<String, crate::availability::Since>,
    pub by_wrapper: std::collections::BTreeMap<String, String>,
}

impl SafeMarks {
    /// The tables as [`safe_since::mark`] reads them.
    pub fn marks(&self) -> safe_since::Marks<'_> {
        safe_since::Marks {
            by_c_name: &self.by_c_name,
            by_wrapper: &self.by_wrapper,
        }
    }
}

/// `src/sys/since.rs`: the first release of each function that not every runtime of the
/// major has, for `function_since` and `has_function` (the raw functions carry the same
/// number in their `dynamic_call!`).
fn since_table(b: &Bindings) -> TokenStream {
    let mut rows: Vec<(&str, i32)> = b
        .functions
        .iter()
        .filter_map(|f| {
            let v = f.since.as_ref()?.runtime_version();
            (v > 0).then_some((f.name.as_str(), v))
        })
        .collect();
    rows.sort_unstable();
    rows.dedup_by(|a, b| a.0 == b.0);
    let names = rows.iter().map(|(n, _)| *n);
    let versions = rows
        .iter()
        .map(|(_, v)| proc_macro2::Literal::i32_unsuffixed(*v));
    quote! {
        //! The first release of each C function that not every runtime of this major has
        //! (`1000 * major + 10 * minor`), sorted by name, from the ABI snapshots of every minor
        //! release (`cargo xtask timeline` shows the same dates).

        /// `(C name, first runtime version)`, sorted by name.
        pub(crate) static FUNCTIONS: &[(&str, i32)] = &[#((#names, #versions)),*];
    }
}

/// `src/sys/mod.rs`: the raw layer's modules and the crate's release.
fn sys_module(pkg: &package::Package, lib: crate::library::Library) -> TokenStream {
    let release = pkg.release.as_str();
    let major = pkg.major;
    let library = format!(
        " Its major: the {} this crate opens is `{}.so.{major}`.",
        lib.what(),
        lib.file_stem()
    );
    // The modules below take the C scalar types from here (`use super::*`).
    let ffi = names::ffi_imports();
    quote! {
        //! The raw layer: every type, constant and function the documentation describes and
        //! the ABI declares, under its C name.
        #![allow(unused_imports)]

        /// The CUDA release these bindings were generated for.
        pub const CUDA_RELEASE: &str = #release;
        #[doc = #library]
        pub const CUDA_MAJOR: u32 = #major;

        #ffi

        pub(crate) mod constants;
        pub(crate) mod errors;
        pub(crate) mod enums;
        pub(crate) mod flags;
        mod functions;
        pub(crate) mod since;
        pub(crate) mod types;
        pub use constants::*;
        pub use enums::*;
        pub use flags::*;
        pub use functions::*;
        pub use types::*;
    }
}

/// `tests/audit/tables.rs`: what the audit test compares, for this crate's release.
fn audit_tables(
    b: &Bindings,
    pkg: &package::Package,
    tables: &probe::Tables,
) -> Result<syn::File, syn::Error> {
    let krate = names::ident(&pkg.name.replace('-', "_"));
    let (include_var, lib_var) = pkg.audit_vars();
    let symbols = probe::symbols_table(b, b.library.status_type())?;
    let header = b.library.api_headers().first().copied().unwrap_or_default();
    let include_doc =
        format!(" The variable naming the release's include folder (holding `{header}`).");
    let lib_doc = format!(
        " The variable naming the release's `{}` file.",
        b.library.file_stem()
    );
    let mut file: syn::File = syn::parse2(quote! {
        //! What the audit test compares, for this crate's release.
        #![allow(dead_code)]

        /// The crate under audit.
        pub use ::#krate as krate;

        #[doc = #include_doc]
        pub const INCLUDE_VAR: &str = #include_var;
        #[doc = #lib_doc]
        pub const LIB_VAR: &str = #lib_var;
    })?;
    file.items.extend(probe::rust_table(tables)?);
    file.items.extend(symbols);
    Ok(file)
}

/// Renders every file of the crate from the bindings `b`: the generated Rust files, the audit's
/// C++ probe and headers, and the template's hand-written files with `Cargo.toml` and
/// `src/lib.rs`. `inputs` names the documents (with releases) for the preamble.
pub fn generate(
    b: &Bindings,
    pkg: &package::Package,
    inputs: &[String],
) -> Result<Output, EmitError> {
    let pre = preamble(inputs, &b.abi_source);
    let names = Names::for_bindings(b);
    let tables = probe::tables(b);
    let names = &names;
    let tables = &tables;
    // Each file is built and printed on its own (the files are independent), the files on
    // every core, the largest (`src/api.rs`, most of the crate) started first.
    let rust: [(&str, Build<'_>); 10] = [
        ("src/sys/enums.rs", &|p| {
            sys_file(enums::emit(&b.enums, names, p))
        }),
        ("src/sys/types.rs", &|p| {
            sys_file(types::emit(&b.records, &b.typedefs, names, p))
        }),
        ("src/sys/functions.rs", &|p| {
            sys_file(functions::emit(&b.functions, names, p))
        }),
        ("src/sys/errors.rs", &|_| {
            sys_file(enums::emit_error_table(&b.enums, b.library.status_type()))
        }),
        ("src/sys/flags.rs", &|p| {
            sys_file(flags::emit(&b.flag_groups, &b.constants, names, p))
        }),
        ("src/sys/constants.rs", &|p| {
            sys_file(flags::emit_constants(&b.constants, names, p))
        }),
        ("src/api.rs", &|p| api_file(b, names, p)),
        ("src/sys/since.rs", &|_| syn::parse2(since_table(b))),
        ("src/sys/mod.rs", &|_| {
            syn::parse2(sys_module(pkg, b.library))
        }),
        ("tests/audit/tables.rs", &|_| audit_tables(b, pkg, tables)),
    ];
    let api_first = |(name, _): &(&str, Build<'_>)| u64::from(*name == "src/api.rs");
    let rendered = crate::parallel::map_largest_first(&rust, api_first, |(name, build)| {
        let mut problems = DocProblems::default();
        let file = build(&mut problems).map_err(|e| EmitError::Syntax {
            file: name.to_string(),
            message: e.to_string(),
        })?;
        Ok::<_, EmitError>((files::print_body(&file), problems.0))
    });
    let mut files = Vec::new();
    let mut doc_problems = Vec::new();
    for ((name, _), r) in rust.iter().zip(rendered) {
        let (body, problems) = r.map_err(|_| EmitError::Syntax {
            file: name.to_string(),
            message: "making it panicked (a bug: please report it)".into(),
        })??;
        files.push(GeneratedFile {
            name: name.to_string(),
            contents: format!("{pre}\n{body}"),
        });
        doc_problems.extend(problems);
    }
    let mut problems = DocProblems::default();
    let info =
        records::emit(b, &pkg.name, names, &mut problems).map_err(|e| EmitError::Syntax {
            file: "src/records.rs".into(),
            message: e.to_string(),
        })?;
    if let Some(file) = info {
        files.push(GeneratedFile {
            name: "src/records.rs".into(),
            contents: format!("{pre}\n{}", files::print_body(&file)),
        });
    }
    doc_problems.extend(problems.0);
    if b.library == crate::library::Library::Nvrtc {
        let text = b.compile_options.as_deref().unwrap_or_default();
        let file = nvrtc_options::emit(text, &pkg.name.replace('-', "_")).map_err(|e| {
            EmitError::Syntax {
                file: "src/options.rs".into(),
                message: e.to_string(),
            }
        })?;
        files.push(GeneratedFile {
            name: "src/options.rs".into(),
            contents: format!("{pre}\n{}", files::print_body(&file)),
        });
    }
    files.push(GeneratedFile {
        name: "tests/audit/layout_probe.cpp".into(),
        contents: probe::cpp_source(&pre, tables, b.library),
    });
    let stand_ins = b.library.needs_platform_stand_ins();
    for (path, text) in crate::abi::stubs::platform_stand_ins().filter(|_| stand_ins) {
        files.push(GeneratedFile {
            name: format!("tests/audit/include/{path}"),
            contents: text.to_string(),
        });
    }
    files.extend(package::files(pkg, &pre, &b.abi_source, &safe_marks(b))?);
    Ok(Output {
        files,
        doc_problems,
    })
}
