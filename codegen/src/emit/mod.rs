//! Emitting the `runtime` crate's generated files from the bindings model.
//!
//! Output is split by category, as `ash` does: [`types`] (records, handles, callbacks,
//! aliases), [`enums`] (newtype enums and the error table), [`flags`] (bitflags groups and
//! constants), [`functions`] (raw functions). [`files`] formats and writes or checks them;
//! [`docs`] and [`names`] are shared by all. [`probe`] writes the verification tables of
//! `tests/generated/` (layouts for the C++ probe, symbol and error-name lists).

pub mod docs;
pub mod enums;
pub mod files;
pub mod flags;
pub mod functions;
pub mod names;
pub mod probe;
pub mod typed;
pub mod types;

use quote::quote;

use crate::bind::Bindings;
use files::{format_file, preamble, EmitError, GeneratedFile};

/// What [`generate`] produced.
#[derive(Debug)]
pub struct Output {
    pub files: Vec<GeneratedFile>,
    /// The verification tables for `tests/generated/`.
    pub test_files: Vec<GeneratedFile>,
    /// Markdown problems found in generated comments (`item: problem`).
    pub doc_problems: Vec<String>,
    /// The flag groups made from constants.
    pub flag_groups: Vec<flags::FlagGroup>,
    /// Typed functions emitted, and how many of them are `unsafe`.
    pub typed: usize,
    pub typed_unsafe: usize,
    /// Bound functions without a typed wrapper, with the reason.
    pub untyped: Vec<typed::Skipped>,
    /// How each list was paired with its count (`cudaX: list `a` ↔ count `n`: how`).
    pub list_pairs: Vec<String>,
    /// Role diagnostics (one note per function without a typed wrapper).
    pub diagnostics: Vec<crate::diag::Diagnostic>,
}

/// Generates every file of `runtime/src/generated/` for `b`. `inputs` names the documents
/// (with releases) for the preamble.
pub fn generate(b: &Bindings, inputs: &[String]) -> Result<Output, EmitError> {
    let pre = preamble(inputs, &b.abi_source);
    let mut names = names::Names::new(b);
    let groups = flags::groups(&b.constants);
    flags::register_links(&groups, &mut names);
    for k in &b.constants {
        names.link(&k.name, format!("{}::{}", names::SYS, k.name));
    }
    let allow = quote! {
        #![allow(non_camel_case_types, non_snake_case, non_upper_case_globals, unused_imports, clippy::all, clippy::pedantic)]
    };
    let allow = allow.to_string();
    let group_refs: Vec<crate::bind::roles::FlagGroupRef> = groups
        .iter()
        .map(|g| crate::bind::roles::FlagGroupRef {
            name: g.name.clone(),
            bits: g.bits.clone(),
            members: g.members.iter().map(|m| m.0.clone()).collect(),
        })
        .collect();
    // The files are independent: build and format them on two threads (token streams are
    // not `Send`, so each thread makes its own from the shared, read-only model).
    let names = &names;
    let groups_ref = &groups;
    let pre_ref = &pre;
    let allow_ref = &allow;
    let raw = move || -> Result<(Vec<GeneratedFile>, Vec<String>), EmitError> {
        let allow: proc_macro2::TokenStream = allow_ref.parse().unwrap_or_default();
        let mut problems = docs::DocProblems::default();
        let mut files = Vec::new();
        let body = functions::emit(&b.functions, names, &mut problems);
        files.push(format_file(
            "functions.rs",
            pre_ref,
            quote! { #allow use super::*; #body },
        )?);
        let body = enums::emit_error_table(&b.enums, "cudaError_t");
        files.push(format_file("errors.rs", pre_ref, quote! { #allow #body })?);
        let body = flags::emit(groups_ref, &b.constants, names, &mut problems);
        files.push(format_file("flags.rs", pre_ref, quote! { #allow #body })?);
        let body = flags::emit_constants(&b.constants, names, &mut problems);
        files.push(format_file(
            "constants.rs",
            pre_ref,
            quote! { #allow #body },
        )?);
        Ok((files, problems.0))
    };
    let typed_and_types = move || -> Result<_, EmitError> {
        let allow: proc_macro2::TokenStream = allow_ref.parse().unwrap_or_default();
        let mut problems = docs::DocProblems::default();
        let mut files = Vec::new();
        let body = types::emit(&b.records, &b.typedefs, names, &mut problems);
        files.push(format_file(
            "types.rs",
            pre_ref,
            quote! { #allow use super::*; #body },
        )?);
        let body = enums::emit(&b.enums, names, &mut problems);
        files.push(format_file(
            "enums.rs",
            pre_ref,
            quote! { #allow use super::*; #body },
        )?);
        let (roles, role_diags) = crate::bind::roles::resolve_all(b, &group_refs);
        let t = typed::emit(&b.functions, &roles, names, &mut problems);
        let list_pairs = typed::list_pairs(&b.functions, &roles);
        let body = t.tokens;
        files.push(format_file(
            "typed.rs",
            pre_ref,
            quote! {
                #![allow(non_snake_case, unused_imports, unused_unsafe, clippy::all, clippy::pedantic, rustdoc::redundant_explicit_links)]
                #body
            },
        )?);
        Ok((
            files,
            problems.0,
            (t.emitted, t.unsafe_count, t.skipped),
            list_pairs,
            role_diags,
        ))
    };
    let (raw_result, typed_result) = std::thread::scope(|scope| {
        let handle = scope.spawn(typed_and_types);
        let raw_result = raw();
        let typed_result = handle.join().unwrap_or_else(|_| {
            Err(EmitError::Syntax {
                file: "typed.rs".into(),
                message: "the emitting thread panicked".into(),
            })
        });
        (raw_result, typed_result)
    });
    let (mut files, mut doc_problems) = raw_result?;
    let (typed_files, typed_problems, (typed_count, typed_unsafe, untyped), list_pairs, role_diags) =
        typed_result?;
    // Keep the file order stable (it is the order of the summary's "wrote:" line).
    files.splice(0..0, typed_files.iter().take(2).cloned());
    files.extend(typed_files.into_iter().skip(2));
    doc_problems.extend(typed_problems);
    let module = quote! {
        //! The raw layer: every type, constant and function the documentation describes and
        //! the ABI declares, under its C name.
        #![allow(unused_imports)]
        mod constants;
        pub(crate) mod errors;
        mod enums;
        mod flags;
        mod functions;
        mod types;
        pub use constants::*;
        pub use enums::*;
        pub use flags::*;
        pub use functions::*;
        pub use types::*;
    };
    files.push(format_file("mod.rs", &pre, module)?);
    let tables = probe::tables(b);
    let test_files = vec![
        GeneratedFile {
            name: "layout_probe.cpp".into(),
            contents: probe::cpp_source(&pre, &tables),
        },
        format_file("layout_table.rs", &pre, probe::rust_table(&tables))?,
        format_file(
            "symbols_table.rs",
            &pre,
            probe::symbols_table(b, "cudaError_t"),
        )?,
    ];
    Ok(Output {
        files,
        test_files,
        doc_problems,
        flag_groups: groups,
        typed: typed_count,
        typed_unsafe,
        untyped,
        list_pairs,
        diagnostics: role_diags,
    })
}
