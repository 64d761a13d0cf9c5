//! The typed layer (`runtime::api`): one safe-where-possible Rust function per bound C
//! function whose parameter roles were all resolved ([`crate::bind::roles`]).
//!
//! Functions are grouped in one module per documentation section (`api::stream_management`)
//! and re-exported at `api`'s root, so `api::stream_create_with_flags` and
//! `api::stream_management::stream_create_with_flags` are the same item. Names are the C name
//! without `cuda`, in snake case ([`snake_case`]). Outputs are returned (several as a tuple,
//! in C order), lists become slices with their counts computed, `cudaError_t` goes through
//! `crate::check`. A function is `unsafe` when a parameter's role lets a caller cause
//! undefined behaviour (raw pointer, handle, callback, user data, a record holding pointers).
//! This module does not decide roles; functions without roles are returned as skipped.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::quote;

use super::docs::{self, DocProblems};
use super::names::{ident, rust_type, Names};
use crate::abi::CType;
use crate::bind::roles::{FunctionRoles, Role};
use crate::bind::{BoundFunction, BoundParam};
use crate::ir::Source;
use crate::rustdoc::Links;

/// The module path of the typed layer.
pub const API: &str = "crate::api";

/// A bound function that got no typed wrapper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub name: String,
    pub source: Source,
    pub reason: String,
}

/// The typed layer's file body and what it left out.
#[derive(Debug)]
pub struct Typed {
    pub tokens: TokenStream,
    /// Number of typed functions emitted.
    pub emitted: usize,
    /// How many of them are `unsafe`.
    pub unsafe_count: usize,
    pub skipped: Vec<Skipped>,
}

/// `cudaStreamCreateWithFlags` → `stream_create_with_flags`, `cudaMemcpy2DAsync` →
/// `memcpy2d_async`, `cudaDeviceGetP2PAttribute` → `device_get_p2p_attribute`: a word starts
/// at an upper-case letter after a lower-case one, or at the last capital of an acronym that
/// is followed by a lower-case letter; digits stay with the word before them.
pub fn snake_case(c_name: &str) -> String {
    let s = c_name.strip_prefix("cuda").unwrap_or(c_name);
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            if (prev.is_ascii_lowercase() || (prev.is_ascii_uppercase() && next_lower))
                && !out.ends_with('_')
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The module name of a documentation section (`Stream Ordered Memory Allocator` →
/// `stream_ordered_memory_allocator`).
pub fn module_name(section: Option<&str>) -> String {
    let words: Vec<String> = section
        .unwrap_or("other")
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let name = words.join("_");
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("section_{name}")
    } else {
        name
    }
}

/// Links that prefer the typed item of a C function, then the raw item.
pub struct TypedLinks<'a> {
    pub names: &'a Names,
    pub typed: HashMap<String, String>,
}

impl Links for TypedLinks<'_> {
    fn resolve(&self, name: &str) -> Option<String> {
        self.typed
            .get(name)
            .cloned()
            .or_else(|| self.names.resolve(name))
    }
}

/// The typed paths of the functions that will be emitted (for links from every file).
pub fn paths(functions: &[BoundFunction], roles: &[FunctionRoles]) -> HashMap<String, String> {
    functions
        .iter()
        .zip(roles)
        .filter(|(_, r)| r.roles.is_ok())
        .map(|(f, _)| (f.name.clone(), format!("{API}::{}", snake_case(&f.name))))
        .collect()
}

/// One line per list parameter saying which count it was paired with and how.
pub fn list_pairs(functions: &[BoundFunction], roles: &[FunctionRoles]) -> Vec<String> {
    let mut out = Vec::new();
    for (f, r) in functions.iter().zip(roles) {
        let Ok(rs) = &r.roles else { continue };
        for (p, role) in f.params.iter().zip(rs) {
            if let Role::Slice { count, how, .. } = role {
                let c = f.params.get(*count).map_or("?", |c| c.c_name.as_str());
                out.push(format!(
                    "{}: list `{}` ↔ count `{c}`: {how}",
                    f.name, p.c_name
                ));
            }
        }
    }
    out
}

/// The `typed.rs` body.
pub fn emit(
    functions: &[BoundFunction],
    roles: &[FunctionRoles],
    names: &Names,
    problems: &mut DocProblems,
) -> Typed {
    let links = TypedLinks {
        names,
        typed: paths(functions, roles),
    };
    let mut modules: Vec<(String, Option<String>, Vec<TokenStream>)> = Vec::new();
    let mut skipped = Vec::new();
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut emitted = 0;
    let mut unsafe_count = 0;
    for (f, r) in functions.iter().zip(roles) {
        let roles = match &r.roles {
            Ok(roles) => roles,
            Err(reason) => {
                skipped.push(Skipped {
                    name: f.name.clone(),
                    source: f.source.clone(),
                    reason: reason.clone(),
                });
                continue;
            }
        };
        let rust = snake_case(&f.name);
        if let Some(other) = seen.insert(rust.clone(), f.name.clone()) {
            skipped.push(Skipped {
                name: f.name.clone(),
                source: f.source.clone(),
                reason: format!("its Rust name `{rust}` is taken by `{other}`"),
            });
            continue;
        }
        let (tokens, is_unsafe) = one(f, roles, &r.unsafe_records, &rust, names, &links, problems);
        emitted += 1;
        unsafe_count += usize::from(is_unsafe);
        let m = module_name(f.section.as_deref());
        match modules.iter_mut().find(|(n, _, _)| *n == m) {
            Some((_, _, items)) => items.push(tokens),
            None => modules.push((m, f.section.clone(), vec![tokens])),
        }
    }
    let mods = modules.iter().map(|(m, section, items)| {
        let id = ident(m);
        let doc = docs::attrs(&format!(
            "Typed functions of the documentation section “{}”.",
            section.as_deref().unwrap_or("other")
        ));
        quote! {
            #doc
            pub mod #id {
                use crate::sys::*;
                #(#items)*
            }
            pub use #id::*;
        }
    });
    Typed {
        tokens: quote! { #(#mods)* },
        emitted,
        unsafe_count,
        skipped,
    }
}

/// The Rust name of a parameter.
fn param_name(p: &BoundParam) -> String {
    let s = snake_case(&p.c_name);
    s.trim_start_matches('_').to_string()
}

fn pointee(c: &CType) -> Option<&CType> {
    match c {
        CType::Pointer { to, .. } => Some(to),
        _ => None,
    }
}

struct Parts {
    params: Vec<TokenStream>,
    pre: Vec<TokenStream>,
    args: Vec<TokenStream>,
    outs: Vec<(TokenStream, TokenStream)>,
    arg_docs: Vec<String>,
    ret_docs: Vec<String>,
    safety: Vec<String>,
    slices: bool,
}

#[allow(clippy::too_many_arguments)]
fn one(
    f: &BoundFunction,
    roles: &[Role],
    unsafe_records: &[String],
    rust: &str,
    names: &Names,
    links: &TypedLinks<'_>,
    problems: &mut DocProblems,
) -> (TokenStream, bool) {
    let mut parts = Parts {
        params: Vec::new(),
        pre: Vec::new(),
        args: Vec::new(),
        outs: Vec::new(),
        arg_docs: Vec::new(),
        ret_docs: Vec::new(),
        safety: Vec::new(),
        slices: false,
    };
    for (i, (p, role)) in f.params.iter().zip(roles).enumerate() {
        param(f, i, p, role, roles, names, links, problems, &mut parts);
    }
    let c_fn = ident(&f.name);
    let c_name = &f.name;
    let name = ident(rust);
    let args = &parts.args;
    let call = quote! { unsafe { crate::sys::#c_fn(#(#args),*) }? };
    let ret_tokens = rust_type(&f.ret.c, names).to_string();
    let status = if ret_tokens == "cudaError_t" {
        quote! { let status = #call; crate::check(status.as_raw() as i32)?; }
    } else if matches!(&f.ret.c, CType::Primitive { name } if name == "void") {
        quote! { #call; }
    } else if f.ret.c_text == "const char*" {
        parts.outs.push((
            quote! { if status.is_null() { c"" } else { unsafe { ::core::ffi::CStr::from_ptr(status) } } },
            quote! { &'static ::core::ffi::CStr },
        ));
        parts
            .ret_docs
            .push("the string the C function returns (static; empty if it returns NULL)".into());
        quote! { let status = #call; }
    } else {
        let t = rust_type(&f.ret.c, names);
        parts.outs.push((quote! { status }, t));
        parts
            .ret_docs
            .push("the value the C function returns".into());
        quote! { let status = #call; }
    };
    for r in unsafe_records {
        parts.safety.push(format!(
            "`{r}` values hold pointers or handles: each must be valid (pointers) or live (handles) for what the function does with them."
        ));
    }
    let is_unsafe = !parts.safety.is_empty();
    let (ret_ty, ret_val) = match parts.outs.len() {
        0 => (quote! { () }, quote! { () }),
        1 => {
            let (v, t) = &parts.outs[0];
            (t.clone(), v.clone())
        }
        _ => {
            let ts = parts.outs.iter().map(|(_, t)| t);
            let vs = parts.outs.iter().map(|(v, _)| v);
            (quote! { (#(#ts),*) }, quote! { (#(#vs),*) })
        }
    };
    let md = typed_docs(f, &parts, is_unsafe, links, problems);
    let doc = docs::attrs(&md);
    let params = &parts.params;
    let pre = &parts.pre;
    let unsafety = if is_unsafe {
        quote! { unsafe }
    } else {
        quote! {}
    };
    let tokens = quote! {
        #doc
        #[doc(alias = #c_name)]
        #[inline]
        pub #unsafety fn #name(#(#params),*) -> crate::Result<#ret_ty> {
            #(#pre)*
            #status
            Ok(#ret_val)
        }
    };
    (tokens, is_unsafe)
}

fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[allow(clippy::too_many_arguments)]
fn param(
    f: &BoundFunction,
    _index: usize,
    p: &BoundParam,
    role: &Role,
    roles: &[Role],
    names: &Names,
    links: &TypedLinks<'_>,
    problems: &mut DocProblems,
    parts: &mut Parts,
) {
    let rn = param_name(p);
    let id = ident(&rn);
    let cty = rust_type(&p.ty.c, names);
    let doc = docs::markdown(
        &flat(&p.doc),
        links,
        &format!("{}({})", f.name, p.c_name),
        problems,
    );
    let pt = pointee(&p.ty.c).map(|t| rust_type(t, names));
    let mut arg_doc = |extra: &str| {
        let sep = if doc.is_empty() { "" } else { " — " };
        parts.arg_docs.push(format!("- `{rn}`{extra}{sep}{doc}"));
    };
    match role {
        Role::Value | Role::RawPointer | Role::Callback | Role::UserData | Role::Handle => {
            parts.params.push(quote! { #id: #cty });
            parts.args.push(quote! { #id });
            arg_doc("");
            let why = match role {
                Role::Handle => Some(format!("`{rn}` must be a live handle: created by CUDA and not yet destroyed (or null where the documentation allows it).")),
                Role::RawPointer => Some(format!("`{rn}` is a raw pointer: it must be valid for what the function does with it, as described above.")),
                Role::Callback => Some(format!("`{rn}` is called by CUDA, possibly from another thread, with the user data; it must be sound to call so.")),
                Role::UserData => Some(format!("`{rn}` is handed to the callback and must stay valid until the callback has run.")),
                _ => None,
            };
            parts.safety.extend(why);
        }
        Role::Flags { group } => {
            let g = ident(group);
            parts.params.push(quote! { #id: crate::sys::#g });
            parts.args.push(quote! { #id.bits() });
            arg_doc(&format!(" ([`{group}`](crate::sys::{group}))"));
        }
        Role::CStr => {
            parts.params.push(quote! { #id: &::core::ffi::CStr });
            parts.args.push(quote! { #id.as_ptr() });
            arg_doc("");
        }
        Role::Ref { mutable } | Role::OptionalRef { mutable } => {
            let optional = matches!(role, Role::OptionalRef { .. });
            let r = if *mutable {
                quote! { &mut #pt }
            } else {
                quote! { & #pt }
            };
            let conv = if *mutable {
                quote! { ::core::ptr::from_mut }
            } else {
                quote! { ::core::ptr::from_ref }
            };
            let null = if *mutable {
                quote! { ::core::ptr::null_mut() }
            } else {
                quote! { ::core::ptr::null() }
            };
            if optional {
                parts
                    .params
                    .push(quote! { #id: ::core::option::Option<#r> });
                parts.args.push(quote! { #id.map_or(#null, #conv) });
                arg_doc(" (optional: `None` passes NULL)");
            } else {
                parts.params.push(quote! { #id: #r });
                parts.args.push(quote! { #conv(#id) });
                arg_doc("");
            }
        }
        Role::InOut => {
            parts.params.push(quote! { #id: &mut #pt });
            parts.args.push(quote! { ::core::ptr::from_mut(#id) });
            arg_doc(" (read and written back)");
        }
        Role::Out => {
            parts.pre.push(quote! {
                // SAFETY: every type the C API writes through a pointer is plain old data, for
                // which all-zero bytes are a valid value.
                let mut #id: #pt = unsafe { ::core::mem::zeroed() };
            });
            parts.args.push(quote! { &mut #id });
            parts.outs.push((quote! { #id }, quote! { #pt }));
            let sep = if doc.is_empty() { "" } else { ": " };
            parts.ret_docs.push(format!("`{rn}`{sep}{doc}"));
        }
        Role::OutCStr => {
            parts
                .pre
                .push(quote! { let mut #id: *const ::core::ffi::c_char = ::core::ptr::null(); });
            parts.args.push(quote! { &mut #id });
            parts.outs.push((
                quote! { if #id.is_null() { c"" } else { unsafe { ::core::ffi::CStr::from_ptr(#id) } } },
                quote! { &'static ::core::ffi::CStr },
            ));
            let sep = if doc.is_empty() { "" } else { ": " };
            parts
                .ret_docs
                .push(format!("`{rn}` (static string; empty if NULL){sep}{doc}"));
        }
        Role::Slice {
            mutable,
            optional,
            count,
            ..
        } => {
            parts.slices = true;
            let elem = pt.clone().unwrap_or_else(|| quote! { ::core::ffi::c_void });
            let is_const = p.ty.c.is_const_pointer();
            let slice_ty = if *mutable {
                quote! { &mut [#elem] }
            } else {
                quote! { &[#elem] }
            };
            let ptr = if *mutable {
                quote! { s.as_mut_ptr() }
            } else if is_const {
                quote! { s.as_ptr() }
            } else {
                quote! { s.as_ptr().cast_mut() }
            };
            let null = if is_const {
                quote! { ::core::ptr::null() }
            } else {
                quote! { ::core::ptr::null_mut() }
            };
            let count_name = param_name(&f.params[*count]);
            if *optional {
                parts
                    .params
                    .push(quote! { #id: ::core::option::Option<#slice_ty> });
                parts.args.push(quote! { #id.map_or(#null, |s| #ptr) });
                arg_doc(&format!(
                    " (optional list; its length gives `{count_name}`)"
                ));
            } else {
                parts.params.push(quote! { #id: #slice_ty });
                parts.args.push(quote! { { let s = #id; #ptr } });
                arg_doc(&format!(" (list; its length gives `{count_name}`)"));
            }
        }
        Role::CountInOut { of } => {
            let sid = ident(&param_name(&f.params[*of]));
            parts.pre.push(quote! {
                let mut #id: #pt = <#pt>::try_from(#sid.as_ref().map_or(0, |s| s.len())).map_err(|_| crate::Error::from_code(cudaError_t::ERROR_INVALID_VALUE.as_raw() as i32))?;
            });
            parts.args.push(quote! { &mut #id });
            parts.outs.push((quote! { #id }, quote! { #pt }));
            let list = param_name(&f.params[*of]);
            let sep = if doc.is_empty() { "" } else { ": " };
            parts.ret_docs.push(format!("`{rn}`, the number of entries (its input is the length of `{list}`, 0 when `None`){sep}{doc}"));
        }
        Role::Count { of } => {
            let lens: Vec<TokenStream> = of
                .iter()
                .map(|&s| {
                    let sid = ident(&param_name(&f.params[s]));
                    match &roles[s] {
                        Role::Slice { optional: true, .. } => {
                            quote! { #sid.as_ref().map(|s| s.len()) }
                        }
                        _ => quote! { ::core::option::Option::Some(#sid.len()) },
                    }
                })
                .collect();
            parts.pre.push(quote! {
                let #id: #cty = {
                    let lens = [#(#lens),*];
                    let mut n: ::core::option::Option<usize> = ::core::option::Option::None;
                    for len in lens.into_iter().flatten() {
                        match n {
                            ::core::option::Option::Some(m) if m != len => return Err(crate::Error::from_code(cudaError_t::ERROR_INVALID_VALUE.as_raw() as i32)),
                            _ => n = ::core::option::Option::Some(len),
                        }
                    }
                    <#cty>::try_from(n.unwrap_or(0)).map_err(|_| crate::Error::from_code(cudaError_t::ERROR_INVALID_VALUE.as_raw() as i32))?
                };
            });
            parts.args.push(quote! { #id });
        }
    }
}

fn typed_docs(
    f: &BoundFunction,
    parts: &Parts,
    is_unsafe: bool,
    links: &TypedLinks<'_>,
    problems: &mut DocProblems,
) -> String {
    let mut md = docs::markdown(&f.doc, links, &f.name, problems);
    if md.trim().is_empty() {
        md = format!("Calls `{}`.", f.name);
    }
    md.push_str(&format!(
        "\n\nThe raw function is [`{0}`](crate::sys::{0}).",
        f.name
    ));
    if !parts.arg_docs.is_empty() {
        md.push_str("\n\n# Arguments\n\n");
        md.push_str(&parts.arg_docs.join("\n"));
    }
    if !parts.ret_docs.is_empty() {
        md.push_str("\n\n# Returns\n\n");
        if parts.ret_docs.len() == 1 {
            md.push_str(&parts.ret_docs[0]);
        } else {
            md.push_str("A tuple, in this order:\n\n");
            let items: Vec<String> = parts.ret_docs.iter().map(|d| format!("- {d}")).collect();
            md.push_str(&items.join("\n"));
        }
    }
    md.push_str("\n\n# Errors\n\n");
    let errs: Vec<String> = f
        .errors
        .iter()
        .filter(|e| !e.eq_ignore_ascii_case("cudaSuccess"))
        .map(|e| match links.resolve(e) {
            Some(p) => format!("[`{e}`]({p})"),
            None => format!("`{e}`"),
        })
        .collect();
    if errs.is_empty() {
        md.push_str("[`Error::Cuda`](crate::Error::Cuda) with the status the call returns (the documentation lists no error status for it)");
    } else {
        md.push_str("[`Error::Cuda`](crate::Error::Cuda) with the status the call returns; the documentation lists ");
        md.push_str(&errs.join(", "));
    }
    md.push_str(". [`Error::LibraryNotFound`](crate::Error::LibraryNotFound) or [`Error::SymbolNotFound`](crate::Error::SymbolNotFound) when the runtime library or this function cannot be loaded.");
    if parts.slices {
        md.push_str(" Lists that share a count must have the same length; otherwise, or when the length does not fit the count's C type, the result is `cudaErrorInvalidValue` without calling CUDA.");
    }
    if is_unsafe {
        md.push_str("\n\n# Safety\n\n");
        let items: Vec<String> = parts.safety.iter().map(|s| format!("- {s}")).collect();
        md.push_str(&items.join("\n"));
    }
    let see = docs::see_also(&f.see_also, links);
    if !see.is_empty() {
        md.push_str("\n\n");
        md.push_str(&see);
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_is_predictable() {
        assert_eq!(snake_case("cudaGetDeviceCount"), "get_device_count");
        assert_eq!(
            snake_case("cudaStreamCreateWithFlags"),
            "stream_create_with_flags"
        );
        assert_eq!(snake_case("cudaMemcpy2DAsync"), "memcpy2d_async");
        assert_eq!(
            snake_case("cudaDeviceGetP2PAttribute"),
            "device_get_p2p_attribute"
        );
        assert_eq!(snake_case("cudaIpcOpenMemHandle"), "ipc_open_mem_handle");
        assert_eq!(
            snake_case("cudaGraphConditionalHandleCreate_v2"),
            "graph_conditional_handle_create_v2"
        );
        assert_eq!(snake_case("devPtr"), "dev_ptr");
        assert_eq!(snake_case("pHandle_out"), "p_handle_out");
    }

    #[test]
    fn module_names_come_from_sections() {
        assert_eq!(
            module_name(Some("Stream Ordered Memory Allocator")),
            "stream_ordered_memory_allocator"
        );
        assert_eq!(module_name(None), "other");
    }
}
