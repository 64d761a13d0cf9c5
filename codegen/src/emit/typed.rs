//! The typed layer (`api`): one safe-where-possible Rust function per bound C function that
//! the model gave a typed wrapper ([`crate::bind::Typed`]).
//!
//! The module is flat, so an item's path never depends on a documentation section title
//! (NVIDIA re-titles sections); the module docs list the functions by section. Outputs are
//! returned (several as a tuple, in C order), lists become slices with their counts computed,
//! `cudaError_t` goes through `crate::check`. A function is `unsafe` when a parameter's role
//! lets a caller cause undefined behaviour (raw pointer, handle, callback, user data, a record
//! holding pointers). This module decides nothing: roles and names come from the model.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::quote;

use super::docs::{self, DocProblems};
use super::files::comment;
use super::names::{ident, rust_type, Names};
use super::Part;
use crate::abi::CType;
use crate::bind::naming::param_name;
use crate::bind::{BoundFunction, BoundParam, Constructor, Role, Typed};
use crate::rustdoc::Links;

/// The module path of the typed layer.
pub const API: &str = "crate::api";

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

/// The typed paths of the functions that have a wrapper (for links from every file).
pub fn paths(functions: &[BoundFunction]) -> HashMap<String, String> {
    functions
        .iter()
        .filter_map(|f| match &f.typed {
            Typed::Wrapper { rust_name, .. } => {
                Some((f.name.clone(), format!("{API}::{rust_name}")))
            }
            Typed::Skipped { .. } => None,
        })
        .collect()
}

/// The `api.rs` body, or one [`Part`] of it: the wrappers in documentation order, and (in
/// the first part) a module doc listing them by documentation section.
pub fn emit(
    functions: &[BoundFunction],
    part: Part,
    names: &Names,
    problems: &mut DocProblems,
) -> TokenStream {
    let links = TypedLinks {
        names,
        typed: paths(functions),
    };
    let mut out = if part.is_first() {
        head(functions)
    } else {
        TokenStream::new()
    };
    for f in &functions[part.range(functions.len())] {
        let Typed::Wrapper {
            rust_name,
            roles,
            unsafe_records,
        } = &f.typed
        else {
            continue;
        };
        out.extend(function(
            f,
            rust_name,
            roles,
            unsafe_records,
            &links,
            problems,
        ));
    }
    out
}

/// The head of `api.rs`: the module doc listing the wrappers by documentation section, and
/// the re-exports.
fn head(functions: &[BoundFunction]) -> TokenStream {
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    for f in functions {
        let Typed::Wrapper { rust_name, .. } = &f.typed else {
            continue;
        };
        let title = f.section.clone().unwrap_or_else(|| "Other".to_string());
        let entry = format!("[`{rust_name}`]({API}::{rust_name})");
        match sections.iter_mut().find(|(t, _)| *t == title) {
            Some((_, list)) => list.push(entry),
            None => sections.push((title, vec![entry])),
        }
    }
    let mut md = String::from(
        "The typed layer: one function per raw function whose parameters could all be given \
         a Rust role from the documentation (see the crate documentation). The functions, by \
         section of the CUDA documentation:",
    );
    for (title, list) in &sections {
        // A title may hold Markdown characters (`[DEPRECATED]`).
        let title = crate::rustdoc::inline(title, &crate::rustdoc::NoLinks);
        md.push_str(&format!("\n\n**{title}**: {}", list.join(", ")));
    }
    md.push_str(
        "\n\nThe types, enums, flags and constants the functions take and return are \
         re-exported here from [`crate::sys`] (the raw functions are not), so code that uses \
         the typed layer needs no other module.",
    );
    let doc = docs::inner_attrs(&md);
    let ffi = super::names::ffi_imports();
    quote! {
        #doc
        #ffi
        use crate::sys::*;
        pub use crate::sys::constants::*;
        pub use crate::sys::enums::*;
        pub use crate::sys::flags::*;
        pub use crate::sys::types::*;
    }
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
    /// Statements after a successful call (copies of borrowed lists).
    post: Vec<TokenStream>,
    /// The two-call pattern: the count's name and the lists it sizes.
    query: Option<(TokenStream, TokenStream, Vec<TokenStream>)>,
    args: Vec<TokenStream>,
    outs: Vec<(TokenStream, TokenStream)>,
    arg_docs: Vec<String>,
    ret_docs: Vec<String>,
    safety: Vec<String>,
    slices: bool,
}

fn function(
    f: &BoundFunction,
    rust: &str,
    roles: &[Role],
    unsafe_records: &[String],
    links: &TypedLinks<'_>,
    problems: &mut DocProblems,
) -> TokenStream {
    let names = links.names;
    let mut parts = Parts {
        params: Vec::new(),
        pre: Vec::new(),
        post: Vec::new(),
        query: None,
        args: Vec::new(),
        outs: Vec::new(),
        arg_docs: Vec::new(),
        ret_docs: Vec::new(),
        safety: Vec::new(),
        slices: false,
    };
    let ctx = ParamContext {
        f,
        roles,
        names,
        links,
    };
    for (p, role) in f.params.iter().zip(roles) {
        param(&ctx, p, role, problems, &mut parts);
    }
    let c_fn = ident(&f.name);
    let c_name = &f.name;
    let name = ident(rust);
    let args = &parts.args;
    let is_unsafe = f.typed.is_unsafe();
    let why = if is_unsafe {
        "SAFETY: the caller upholds this function's `# Safety` section for its raw pointers, \
         handles and callbacks; every other argument is a value, or a pointer made from a Rust \
         reference or slice that is valid for the call, with counts equal to slice lengths."
    } else {
        "SAFETY: every argument is a value, or a pointer made from a Rust reference or slice \
         that is valid for the call, with counts equal to slice lengths; the function reads and \
         writes nothing else."
    };
    let why = comment(why);
    let call = quote! { unsafe { crate::sys::#c_fn(#(#args),*) }? };
    let ret_tokens = rust_type(&f.ret.c, names).to_string();
    let status =
        if let (Some((cid, cty, lists)), true) = (&parts.query, ret_tokens == "cudaError_t") {
            let zero = comment(
                "SAFETY: every type the C API writes through a pointer is plain old data, for \
             which all-zero bytes are a valid value.",
            );
            quote! {
                #why #call.result()?;
                let n = usize::try_from(#cid).map_err(|_| crate::error::invalid_value())?;
                if n > 0 {
                    #(
                        #lists.try_reserve_exact(n).map_err(|_| crate::error::memory_allocation())?;
                        #lists.resize_with(n, || {
                            #zero
                            unsafe { ::core::mem::zeroed() }
                        });
                    )*
                    #cid = <#cty>::try_from(n).map_err(|_| crate::error::invalid_value())?;
                    #why #call.result()?;
                    let got = usize::try_from(#cid).map_or(n, |g| g.min(n));
                    #( #lists.truncate(got); )*
                }
            }
        } else if ret_tokens == "cudaError_t" {
            quote! { #why #call.result()?; }
        } else if matches!(&f.ret.c, CType::Primitive { name } if name == "void") {
            quote! { #why #call; }
        } else if f.ret.c_text == "const char*" {
            parts.outs.push((
                static_cstr(quote! { status }),
                quote! { &'static ::core::ffi::CStr },
            ));
            parts.ret_docs.push(
                "the string the C function returns (static; empty if it returns NULL)".into(),
            );
            quote! { #why let status = #call; }
        } else {
            let t = rust_type(&f.ret.c, names);
            parts.outs.push((quote! { status }, t));
            parts
                .ret_docs
                .push("the value the C function returns".into());
            quote! { #why let status = #call; }
        };
    for r in unsafe_records {
        parts.safety.push(match r.split_once('@') {
            Some((ty, list)) => format!(
                "the `{ty}` entries of `{}` hold pointers or handles: each must be valid (pointers) or live (handles) for what the function does with them.",
                param_name(list)
            ),
            None => format!(
                "`{r}` values hold pointers or handles: each must be valid (pointers) or live (handles) for what the function does with them."
            ),
        });
    }
    debug_assert_eq!(is_unsafe, !parts.safety.is_empty());
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
    let post = &parts.post;
    let unsafety = if is_unsafe {
        quote! { unsafe }
    } else {
        quote! {}
    };
    quote! {
        #doc
        #[doc(alias = #c_name)]
        #[inline]
        pub #unsafety fn #name(#(#params),*) -> crate::Result<#ret_ty> {
            #(#pre)*
            #status
            #(#post)*
            Ok(#ret_val)
        }
    }
}

/// A `&'static CStr` from a `const char*` the runtime returned (empty for NULL), with the
/// reason it is sound.
fn static_cstr(ptr: TokenStream) -> TokenStream {
    let why = comment(
        "SAFETY: the runtime returns NUL-terminated strings that live in the library, which the \
         crate never unloads.",
    );
    quote! {
        if #ptr.is_null() {
            c""
        } else {
            #why
            unsafe { ::core::ffi::CStr::from_ptr(#ptr) }
        }
    }
}

fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What every parameter of one function is emitted against.
struct ParamContext<'a> {
    f: &'a BoundFunction,
    roles: &'a [Role],
    names: &'a Names,
    links: &'a TypedLinks<'a>,
}

fn param(
    ctx: &ParamContext<'_>,
    p: &BoundParam,
    role: &Role,
    problems: &mut DocProblems,
    parts: &mut Parts,
) {
    let ParamContext {
        f,
        roles,
        names,
        links,
    } = *ctx;
    let rn = param_name(&p.c_name);
    let id = ident(&rn);
    let cty = rust_type(&p.ty.c, names);
    let doc = docs::markdown(
        &flat(&p.doc),
        links,
        &format!("{}({})", f.name, p.c_name),
        problems,
    );
    let doc = rust_terms(&doc, f, roles);
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
                parts.params.push(quote! { #id: Option<#r> });
                parts.args.push(quote! { #id.map_or(#null, #conv) });
                arg_doc(" (optional: `None` passes NULL)");
            } else {
                parts.params.push(quote! { #id: #r });
                parts.args.push(quote! { #conv(#id) });
                arg_doc("");
            }
        }
        Role::PointerArray => {
            parts.params.push(quote! { #id: &mut [*mut c_void] });
            parts.args.push(quote! { #id.as_mut_ptr() });
            arg_doc(" (one pointer per kernel argument, each to that argument's value)");
            parts.safety.push(format!(
                "`{rn}` must hold exactly one valid pointer per parameter of the kernel, each to a value of that parameter's type, alive for the call."
            ));
        }
        Role::InOut => {
            parts.params.push(quote! { #id: &mut #pt });
            parts.args.push(quote! { ::core::ptr::from_mut(#id) });
            arg_doc(" (read and written back)");
        }
        Role::Out => {
            let why = comment(
                "SAFETY: every type the C API writes through a pointer is plain old data, for \
                 which all-zero bytes are a valid value.",
            );
            parts.pre.push(quote! {
                #why
                let mut #id: #pt = unsafe { ::core::mem::zeroed() };
            });
            parts.args.push(quote! { &mut #id });
            // A pointer to a record the crate has a handle type over is returned as that
            // handle (`struct cudaGraphicsResource*` → `cudaGraphicsResource_t`).
            let handle = match pointee(&p.ty.c) {
                Some(CType::Pointer {
                    to,
                    is_const: false,
                }) => to
                    .base_name()
                    .filter(|_| to.pointer_depth() == 0)
                    .and_then(|n| names.handle_over(n)),
                _ => None,
            };
            match handle {
                Some(h) => {
                    let h = ident(h);
                    parts.outs.push((quote! { #h(#id) }, quote! { #h }));
                }
                None => parts.outs.push((quote! { #id }, quote! { #pt })),
            }
            let sep = if doc.is_empty() { "" } else { ": " };
            parts.ret_docs.push(format!("`{rn}`{sep}{doc}"));
        }
        Role::OutFlags { group } => {
            let g = ident(group);
            parts.pre.push(quote! { let mut #id: #pt = 0; });
            parts.args.push(quote! { &mut #id });
            parts.outs.push((
                quote! { crate::sys::#g::from_bits_retain(#id) },
                quote! { crate::sys::#g },
            ));
            let sep = if doc.is_empty() { "" } else { ": " };
            parts.ret_docs.push(format!(
                "`{rn}` ([`{group}`](crate::sys::{group}); bits it does not name are kept){sep}{doc}"
            ));
        }
        Role::OutCStr => {
            parts
                .pre
                .push(quote! { let mut #id: *const c_char = ::core::ptr::null(); });
            parts.args.push(quote! { &mut #id });
            parts.outs.push((
                static_cstr(quote! { #id }),
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
            let elem = pt.clone().unwrap_or_else(|| quote! { c_void });
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
            let count_name = param_name(&f.params[*count].c_name);
            if matches!(&roles[*count], Role::CountInOut { query: true, .. }) {
                let cid = ident(&count_name);
                let cpt = pointee(&f.params[*count].ty.c).map(|t| rust_type(t, names));
                parts
                    .pre
                    .push(quote! { let mut #id: ::std::vec::Vec<#elem> = ::std::vec::Vec::new(); });
                parts.args.push(quote! { if #id.is_empty() { ::core::ptr::null_mut() } else { #id.as_mut_ptr() } });
                parts
                    .outs
                    .push((quote! { #id }, quote! { ::std::vec::Vec<#elem> }));
                let sep = if doc.is_empty() { "" } else { ": " };
                parts.ret_docs.push(format!("`{rn}`, all the entries (the function is called once with NULL for the number, then with room for that many){sep}{doc}"));
                match &mut parts.query {
                    Some((_, _, lists)) => lists.push(quote! { #id }),
                    None => {
                        parts.query =
                            Some((quote! { #cid }, quote! { #cpt }, vec![quote! { #id }]));
                    }
                }
                return;
            }
            if *optional {
                parts.params.push(quote! { #id: Option<#slice_ty> });
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
        Role::CountInOut { query: true, .. } => {
            parts.pre.push(quote! { let mut #id: #pt = 0; });
            parts.args.push(quote! { &mut #id });
        }
        Role::CountInOut { of, query: false } => {
            let lens: Vec<TokenStream> = of
                .iter()
                .map(|&s| {
                    let sid = ident(&param_name(&f.params[s].c_name));
                    quote! { #sid.as_ref().map(|s| s.len()) }
                })
                .collect();
            parts.pre.push(quote! {
                let mut #id: #pt = crate::error::shared_len(&[#(#lens),*])?;
            });
            parts.args.push(quote! { &mut #id });
            parts.outs.push((quote! { #id }, quote! { #pt }));
            let list: Vec<String> = of
                .iter()
                .map(|&s| format!("`{}`", param_name(&f.params[s].c_name)))
                .collect();
            let list = list.join(", ");
            let sep = if doc.is_empty() { "" } else { ": " };
            parts.ret_docs.push(format!("`{rn}`, the number of entries (its input is the length of {list}, 0 when `None`){sep}{doc}"));
        }
        Role::BorrowedList { count } => {
            let inner = pointee(&p.ty.c)
                .and_then(pointee)
                .map_or_else(|| quote! { c_void }, |t| rust_type(t, names));
            let cid = ident(&param_name(&f.params[*count].c_name));
            parts
                .pre
                .push(quote! { let mut #id: *const #inner = ::core::ptr::null(); });
            parts.args.push(quote! { &mut #id });
            let why = comment(
                "SAFETY: on success the function points this at an array of the returned number \
                 of entries that it owns and keeps valid until the next call on the same object; \
                 it is copied at once.",
            );
            parts.post.push(quote! {
                let #id: ::std::vec::Vec<#inner> = match usize::try_from(#cid) {
                    Ok(n) if n > 0 && !#id.is_null() => {
                        #why
                        unsafe { ::core::slice::from_raw_parts(#id, n) }.to_vec()
                    }
                    _ => ::std::vec::Vec::new(),
                };
            });
            parts
                .outs
                .push((quote! { #id }, quote! { ::std::vec::Vec<#inner> }));
            let sep = if doc.is_empty() { "" } else { ": " };
            parts.ret_docs.push(format!("`{rn}`, copied from the array the function returns (empty when it returns NULL or no entries){sep}{doc}"));
        }
        Role::BorrowedCount { .. } => {
            parts.pre.push(quote! { let mut #id: #pt = 0; });
            parts.args.push(quote! { &mut #id });
        }
        Role::Count { of } => {
            let lens: Vec<TokenStream> = of
                .iter()
                .map(|&s| {
                    let sid = ident(&param_name(&f.params[s].c_name));
                    match &roles[s] {
                        Role::Slice { optional: true, .. } => {
                            quote! { #sid.as_ref().map(|s| s.len()) }
                        }
                        _ => quote! { Some(#sid.len()) },
                    }
                })
                .collect();
            parts.pre.push(quote! {
                let #id: #cty = crate::error::shared_len(&[#(#lens),*])?;
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
    if let Typed::Wrapper { roles, .. } = &f.typed {
        md = rust_terms(&md, f, roles);
    }
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

/// The documented inline helpers that build a record (`make_cudaExtent`): a `const fn` each,
/// taking the fields in order.
pub fn constructors(
    list: &[Constructor],
    names: &Names,
    problems: &mut DocProblems,
) -> TokenStream {
    let items = list.iter().map(|c| {
        let rust = crate::bind::naming::snake_case(&c.name);
        let name = ident(&rust);
        let record = ident(&c.record);
        let c_name = &c.name;
        let params = c.params.iter().map(|(p, _, ty, _)| {
            let id = ident(&param_name(p));
            let t = rust_type(&ty.c, names);
            quote! { #id: #t }
        });
        let fields = c.params.iter().map(|(p, field, _, _)| {
            let id = ident(&param_name(p));
            let f = ident(field);
            quote! { #f: #id }
        });
        let mut md = docs::markdown(&c.doc, names, &c.name, problems);
        md.push_str(&format!(
            "\n\nThe C headers' inline helper `{}`: it fills the fields of [`{}`](crate::sys::{}) in order (not a library call).\n\n# Arguments\n\n",
            c.name, c.record, c.record
        ));
        let args: Vec<String> = c
            .params
            .iter()
            .map(|(p, field, _, doc)| {
                let d = docs::markdown(&flat(doc), names, &c.name, problems);
                format!("- `{}` (field `{field}`) — {d}", param_name(p))
            })
            .collect();
        md.push_str(&args.join("\n"));
        let doc = docs::attrs(&md);
        quote! {
            #doc
            #[doc(alias = #c_name)]
            #[inline]
            #[must_use]
            pub const fn #name(#(#params),*) -> #record {
                #record { #(#fields),* }
            }
        }
    });
    quote! { #(#items)* }
}

/// The typed attribute values ([`crate::bind::attrs`]): per attribute enum a Rust enum with
/// one variant per member whose value type the documentation states, and per accessor a
/// companion `<wrapper>_typed` that reads (`-> Value`) or writes (`value: Value`) it.
pub fn attributes(b: &crate::bind::Bindings, names: &Names) -> TokenStream {
    use heck::ToUpperCamelCase;
    let mut out = Vec::new();
    let used: Vec<&str> = b
        .attr_accessors
        .iter()
        .map(|a| a.enum_name.as_str())
        .collect();
    for e in b
        .attr_enums
        .iter()
        .filter(|e| used.contains(&e.name.as_str()))
    {
        let ty = ident(&e.name);
        let vty = ident(&value_type_name(&e.name));
        let variants = e.members.iter().map(|m| {
            let v = ident(&m.rust_name.to_upper_camel_case());
            let t = rust_type(&m.ty, names);
            let member = &m.rust_name;
            let doc = format!(
                "[`{0}::{member}`](crate::sys::{0}::{member}) and its value.",
                e.name
            );
            quote! { #[doc = #doc] #v(#t), }
        });
        let arms = e.members.iter().map(|m| {
            let v = ident(&m.rust_name.to_upper_camel_case());
            let c = ident(&m.rust_name);
            quote! { Self::#v(_) => #ty::#c, }
        });
        let doc = format!(
            "A value of a [`{0}`](crate::sys::{0}) attribute, typed as the documentation states for each member (members whose value type it does not state are reached through the raw `void*` functions).",
            e.name
        );
        out.push(quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, PartialEq)]
            pub enum #vty { #(#variants)* }
            impl #vty {
                /// The attribute this value belongs to.
                pub fn attr(&self) -> #ty {
                    match self { #(#arms)* }
                }
            }
        });
    }
    for a in &b.attr_accessors {
        let Some(f) = b.functions.iter().find(|f| f.name == a.function) else {
            continue;
        };
        let Typed::Wrapper {
            rust_name, roles, ..
        } = &f.typed
        else {
            continue;
        };
        let Some(e) = b.attr_enums.iter().find(|e| e.name == a.enum_name) else {
            continue;
        };
        let base = ident(rust_name);
        let name = ident(&format!("{rust_name}_typed"));
        let ty = ident(&e.name);
        let vty = ident(&value_type_name(&e.name));
        let is_unsafe = f
            .params
            .iter()
            .enumerate()
            .any(|(i, _)| i != a.value && i != a.attr && roles[i].is_unsafe());
        let mut params = Vec::new();
        let mut args = Vec::new();
        let attr_id = ident(&param_name(&f.params[a.attr].c_name));
        for (i, p) in f.params.iter().enumerate() {
            let id = ident(&param_name(&p.c_name));
            if i == a.value {
                args.push(quote! { ::core::ptr::from_mut(&mut v).cast() });
                continue;
            }
            if i == a.attr {
                args.push(quote! { #attr_id });
                if a.getter {
                    params.push(quote! { #id: #ty });
                }
                continue;
            }
            let t = rust_type(&p.ty.c, names);
            params.push(quote! { #id: #t });
            args.push(quote! { #id });
        }
        let unsafety = if is_unsafe {
            quote! { unsafe }
        } else {
            quote! {}
        };
        let safety = if is_unsafe {
            "\n\n# Safety\n\nAs for the `void*` wrapper, except the value pointer, which this function makes."
        } else {
            ""
        };
        let why = comment(
            "SAFETY: the value pointer points at a local of the type the documentation states \
             for this attribute; the other arguments are the caller's, as the wrapper documents.",
        );
        let zero_why = comment(
            "SAFETY: the value types are integers and C enums, for which all-zero bytes are valid.",
        );
        let body = if a.getter {
            let arms = e.members.iter().map(|m| {
                let v = ident(&m.rust_name.to_upper_camel_case());
                let c = ident(&m.rust_name);
                let t = rust_type(&m.ty, names);
                quote! {
                    if #attr_id == #ty::#c {
                        #zero_why
                        let mut v: #t = unsafe { ::core::mem::zeroed() };
                        #why
                        unsafe { #base(#(#args),*) }?;
                        return Ok(#vty::#v(v));
                    }
                }
            });
            quote! {
                #(#arms)*
                Err(crate::error::invalid_value())
            }
        } else {
            let arms = e.members.iter().map(|m| {
                let v = ident(&m.rust_name.to_upper_camel_case());
                let c = ident(&m.rust_name);
                quote! {
                    #vty::#v(mut v) => {
                        let #attr_id = #ty::#c;
                        #why
                        unsafe { #base(#(#args),*) }
                    }
                }
            });
            quote! { match value { #(#arms)* } }
        };
        let (sig_tail, ret) = if a.getter {
            (quote! {}, quote! { #vty })
        } else {
            (quote! { value: #vty }, quote! { () })
        };
        let all_params = if a.getter {
            quote! { #(#params),* }
        } else if params.is_empty() {
            quote! { #sig_tail }
        } else {
            quote! { #(#params),*, #sig_tail }
        };
        let what = if a.getter { "Reads" } else { "Writes" };
        let doc = format!(
            "{what} an attribute through [`{rust_name}`](crate::api::{rust_name}) with the value type the documentation of [`{0}`](crate::sys::{0}) states for it ([`{vname}`](crate::api::{vname})).{note}{safety}",
            e.name,
            vname = value_type_name(&e.name),
            note = if a.getter {
                " An attribute whose value type is not stated is `cudaErrorInvalidValue` without calling CUDA."
            } else {
                ""
            }
        );
        let c_name = &f.name;
        out.push(quote! {
            #[doc = #doc]
            #[doc(alias = #c_name)]
            pub #unsafety fn #name(#all_params) -> crate::Result<#ret> {
                #body
            }
        });
    }
    quote! { #(#out)* }
}

/// The Rust name of an attribute enum's value type: `cudaMemPoolAttr` → `MemPoolAttrValue`.
fn value_type_name(enum_name: &str) -> String {
    use heck::ToUpperCamelCase;
    let bare = enum_name.strip_prefix("cuda").unwrap_or(enum_name);
    format!("{}Value", bare.to_upper_camel_case())
}

/// What the typed wrapper calls the C parameter at `i` in prose: its Rust name, "the
/// returned `x`" for what the wrapper returns, "the length of `list`" for a count the slices
/// carry.
fn rust_reference(f: &BoundFunction, roles: &[Role], i: usize) -> String {
    let rn = |j: usize| param_name(&f.params[j].c_name);
    let query_list =
        |count: usize| matches!(roles.get(count), Some(Role::CountInOut { query: true, .. }));
    match &roles[i] {
        Role::Out | Role::OutCStr | Role::OutFlags { .. } | Role::BorrowedList { .. } => {
            format!("the returned `{}`", rn(i))
        }
        Role::Slice { count, .. } if query_list(*count) => format!("the returned `{}`", rn(i)),
        Role::Count { of } | Role::BorrowedCount { of } | Role::CountInOut { of, query: true } => {
            match of.first() {
                Some(&l) if matches!(roles[i], Role::Count { .. }) => {
                    format!("the length of `{}`", rn(l))
                }
                Some(&l) => format!("the length of the returned `{}`", rn(l)),
                None => format!("`{}`", rn(i)),
            }
        }
        _ => format!("`{}`", rn(i)),
    }
}

/// `md` with the code spans that name a C parameter (`` `dev` ``, `` `*prop` ``) rewritten to
/// what the typed wrapper calls it ([`rust_reference`]). Link texts (`` [`x`](…) ``) are kept.
fn rust_terms(md: &str, f: &BoundFunction, roles: &[Role]) -> String {
    if roles.len() != f.params.len() {
        return md.to_string();
    }
    let lookup = |span: &str| -> Option<String> {
        let bare = span.trim_start_matches('*');
        f.params.iter().enumerate().find_map(|(i, p)| {
            let named = p.c_name == bare || p.doc_name.as_deref() == Some(bare);
            named.then(|| rust_reference(f, roles, i))
        })
    };
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(open) = rest.find('`') {
        let (before, after) = rest.split_at(open);
        out.push_str(before);
        let Some(close) = after[1..].find('`') else {
            out.push_str(after);
            return out;
        };
        let span = &after[1..=close];
        let whole = &after[..close + 2];
        let in_link = before.ends_with('[');
        match lookup(span) {
            Some(r) if !in_link && !span.is_empty() => {
                // "Returns in `*x` the …" / "… is returned in `x`": the output is what the
                // wrapper returns, so say "as `x`" there rather than "in the returned `x`".
                let named = r.strip_prefix("the returned ");
                let lower = out.to_ascii_lowercase();
                match named {
                    Some(n) if lower.ends_with("returns in ") => {
                        out.truncate(out.len() - "in ".len());
                        out.push_str(&format!("as {n},"));
                    }
                    Some(n) if lower.ends_with("returned in ") => {
                        out.truncate(out.len() - "in ".len());
                        out.push_str(&format!("as {n}"));
                    }
                    _ => out.push_str(&r),
                }
            }
            _ => out.push_str(whole),
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}
