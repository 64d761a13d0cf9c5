//! The typed layer (`api`): one safe-where-possible Rust function per bound C function that
//! the model gave a typed wrapper ([`crate::bind::Typed`]).
//!
//! The module is flat, so an item's path never depends on a documentation section title
//! (NVIDIA re-titles sections); the module docs list the functions by section. Outputs are
//! returned (several as a tuple, in C order), lists become slices with their counts computed,
//! `cudaError_t` goes through `crate::check`. A function is `unsafe` when a parameter's role
//! lets a caller cause undefined behaviour (raw pointer, handle, callback, user data, a record
//! holding pointers). This module decides nothing: roles and names come from the model.

mod attrs;
mod params;

use foldhash::HashMap;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::docs::{self, DocProblems};
use super::files::comment_stmt;
use super::fill::fill;
use super::names::{ident, rust_type, Names, API};
use crate::abi::CType;
use crate::bind::naming::param_name;
use crate::bind::{BoundFunction, BoundParam, Constructor, Role, StrLifetime, Typed, UnsafeRuling};
use crate::rustdoc::Links;
pub use attrs::attributes;
use params::{param, ParamContext};

/// Links that prefer the typed item of a C function, then the raw item.
pub struct TypedLinks<'a> {
    pub names: &'a Names,
    pub typed: &'a HashMap<String, String>,
}

impl Links for TypedLinks<'_> {
    fn resolve(&self, name: &str) -> Option<String> {
        self.typed
            .get(name)
            .cloned()
            .or_else(|| self.names.resolve(name))
    }
}

/// The `api.rs` items: a module doc listing the wrappers by documentation section, then the
/// wrappers in documentation order.
///
/// Each wrapper is built as a syntax tree from parsed templates ([`super::fill`]): its
/// statements, arguments and parameters take a few dozen shapes, filled with names and
/// types. Writing them as tokens for syn to parse back was most of this file's cost.
pub fn emit(
    functions: &[BoundFunction],
    names: &Names,
    problems: &mut DocProblems,
) -> Result<syn::File, syn::Error> {
    let links = TypedLinks {
        names,
        typed: names.typed_paths(),
    };
    let mut file: syn::File = syn::parse2(head(functions))?;
    let mut types = Types::default();
    for f in functions {
        let Typed::Wrapper {
            rust_name,
            roles,
            unsafe_records,
            unsafe_rule,
            ret_string,
        } = &f.typed
        else {
            continue;
        };
        let wrapper = Wrapper {
            f,
            rust: rust_name,
            roles,
            unsafe_records,
            unsafe_rule: unsafe_rule.as_ref(),
            ret_string: *ret_string,
        };
        file.items
            .push(function(&wrapper, &links, &mut types, problems)?);
    }
    Ok(file)
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
    md.push_str(SAFETY_NOTE);
    let doc = docs::inner_attrs(&md);
    let ffi = super::names::ffi_imports();
    quote! {
        #![allow(non_snake_case, unused_imports, unused_unsafe, clippy::all, clippy::pedantic, rustdoc::redundant_explicit_links)]
        #doc
        #ffi
        use crate::sys::*;
        // Re-exported without copying `sys`'s pages into this module's docs: its index lists
        // the functions, and each type's page stays in `sys`.
        #[doc(no_inline)]
        pub use crate::sys::constants::*;
        #[doc(no_inline)]
        pub use crate::sys::enums::*;
        #[doc(no_inline)]
        pub use crate::sys::flags::*;
        #[doc(no_inline)]
        pub use crate::sys::types::*;
    }
}

fn pointee(c: &CType) -> Option<&CType> {
    match c {
        CType::Pointer { to, .. } => Some(to),
        _ => None,
    }
}

/// The Rust types of C types, each parsed once.
#[derive(Default)]
struct Types<'a>(HashMap<&'a CType, syn::Type>);

impl<'a> Types<'a> {
    /// The Rust type for `c` (`c_void` for `void`).
    fn of(&mut self, c: &'a CType, names: &Names) -> Result<syn::Type, syn::Error> {
        if let Some(t) = self.0.get(c) {
            return Ok(t.clone());
        }
        let t: syn::Type = syn::parse2(rust_type(c, names))?;
        self.0.insert(c, t.clone());
        Ok(t)
    }

    /// The Rust type of what `c` points to, if it is a pointer.
    fn pointee(&mut self, c: &'a CType, names: &Names) -> Result<Option<syn::Type>, syn::Error> {
        pointee(c).map(|t| self.of(t, names)).transpose()
    }
}

/// `ty`, which the parameter's role needs: its C type must be a pointer.
fn needed(ty: Option<syn::Type>, p: &BoundParam) -> Result<syn::Type, syn::Error> {
    ty.ok_or_else(|| {
        syn::Error::new(
            proc_macro2::Span::call_site(),
            format!(
                "parameter `{}` of type `{}` has a role that needs a pointer (a bug: please report it)",
                p.c_name, p.ty.c_text
            ),
        )
    })
}

/// The type named by one identifier.
fn named_type(id: Ident) -> syn::Type {
    syn::Type::Path(syn::TypePath {
        attrs: Vec::new(),
        qself: None,
        path: syn::Path::from(id),
    })
}

/// The expression naming one local.
fn local(id: &Ident) -> syn::Expr {
    syn::Expr::Path(syn::ExprPath {
        attrs: Vec::new(),
        qself: None,
        path: syn::Path::from(id.clone()),
    })
}

struct Parts {
    params: Vec<syn::FnArg>,
    pre: Vec<syn::Stmt>,
    /// Statements after a successful call (copies of borrowed lists).
    post: Vec<syn::Stmt>,
    /// The two-call pattern: the count's name and type, and the lists it sizes.
    query: Option<(Ident, Option<syn::Type>, Vec<Ident>)>,
    args: Vec<syn::Expr>,
    outs: Vec<(syn::Expr, syn::Type)>,
    arg_docs: Vec<String>,
    ret_docs: Vec<String>,
    safety: Vec<String>,
    slices: bool,
}

/// One function's typed wrapper, as the model gives it.
struct Wrapper<'a> {
    f: &'a BoundFunction,
    rust: &'a str,
    roles: &'a [Role],
    unsafe_records: &'a [String],
    unsafe_rule: Option<&'a UnsafeRuling>,
    ret_string: Option<StrLifetime>,
}

/// Why the `unsafe` blocks of every wrapper's call and zero-initialised outputs are sound,
/// stated once in the module's documentation instead of before each block.
const SAFETY_NOTE: &str = "\n\n# Safety of the bodies\n\nEvery wrapper's call of its C function \
     is an `unsafe` block, sound for the same reasons everywhere, stated here once: in a safe \
     function every argument is a value, or a pointer made from a Rust reference or slice that is \
     valid for the call, with counts equal to slice lengths, and the C function reads and writes \
     nothing else; in an `unsafe` function the caller upholds its `# Safety` section and every \
     argument it does not cover is as in a safe one. Outputs start as all-zero bytes \
     (`mem::zeroed`): every type the C API writes through a pointer is plain old data, for \
     which all-zero bytes are a valid value. Blocks with other reasons say them where they are.";

/// The wrapper of one function: its parameters ([`params`]), the call with its status
/// handled, the returned outputs and the documentation.
fn function<'a>(
    w: &Wrapper<'a>,
    links: &TypedLinks<'_>,
    types: &mut Types<'a>,
    problems: &mut DocProblems,
) -> Result<syn::Item, syn::Error> {
    let Wrapper {
        f,
        rust,
        roles,
        unsafe_records,
        unsafe_rule,
        ret_string,
    } = *w;
    let names = links.names;
    storage_proven(f, roles)?;
    let mut parts = Parts::new(unsafe_rule);
    let ctx = ParamContext {
        f,
        roles,
        names,
        links,
    };
    for (p, role) in f.params.iter().zip(roles) {
        param(&ctx, p, role, problems, &mut parts, types)?;
    }
    let c_fn = ident(&f.name);
    let is_unsafe = f.typed.is_unsafe();
    let call = fill!(
        syn::Expr,
        { unsafe { crate::sys::__f(__args) }? },
        __f = c_fn,
        __args = std::mem::take(&mut parts.args),
    )?;
    let status = status(f, call, ret_string, names, &mut parts, types)?;
    record_safety(unsafe_records, &mut parts);
    debug_assert_eq!(is_unsafe, !parts.safety.is_empty());
    let md = typed_docs(f, &parts, is_unsafe, links, problems);
    item(f, rust, &md, is_unsafe, status, parts)
}

/// An error unless the storage check proves every pointer of a safe wrapper.
fn storage_proven(f: &BoundFunction, roles: &[Role]) -> Result<(), syn::Error> {
    let unproven = crate::bind::storage::check(f, roles);
    if !f.typed.is_unsafe() && !unproven.is_empty() {
        return Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            format!(
                "{}: a safe wrapper whose storage the check does not prove ({}; a bug: please report it)",
                f.name, unproven[0].reason
            ),
        ));
    }
    Ok(())
}

impl Parts {
    /// No parameters yet; the `# Safety` section starts with the model's ruling, if any.
    fn new(unsafe_rule: Option<&UnsafeRuling>) -> Parts {
        Parts {
            params: Vec::new(),
            pre: Vec::new(),
            post: Vec::new(),
            query: None,
            args: Vec::new(),
            outs: Vec::new(),
            arg_docs: Vec::new(),
            ret_docs: Vec::new(),
            safety: unsafe_rule
                .map(|r| format!("{} {} {}", r.reason, r.caller_must, r.prefer))
                .into_iter()
                .collect(),
            slices: false,
        }
    }
}

/// `#call.result()?;`: the call, its status checked (its `unsafe` block's reasons are
/// stated once, in the module's documentation: `SAFETY_NOTE`).
fn checked(call: &syn::Expr) -> Result<Vec<syn::Stmt>, syn::Error> {
    Ok(vec![fill!(
        syn::Stmt,
        {
            __call.result()?;
        },
        __call = call.clone()
    )?])
}

/// The statements that make the call and handle what it returns: a status checked (twice
/// for a two-call list), nothing, or a value added to the outputs.
fn status<'a>(
    f: &'a BoundFunction,
    call: syn::Expr,
    ret_string: Option<StrLifetime>,
    names: &Names,
    parts: &mut Parts,
    types: &mut Types<'a>,
) -> Result<Vec<syn::Stmt>, syn::Error> {
    let ret_tokens = rust_type(&f.ret.c, names).to_string();
    let is_status = ret_tokens == names.library().status_type();
    if let (Some(query), true) = (&parts.query, is_status) {
        two_call(f, &call, query)
    } else if is_status {
        checked(&call)
    } else if matches!(&f.ret.c, CType::Primitive { name } if name == "void") {
        Ok(vec![fill!(
            syn::Stmt,
            {
                __call;
            },
            __call = call
        )?])
    } else {
        returned_value(f, call, ret_string, names, parts, types)
    }
}

/// The two-call pattern: call with no room to learn the count, grow the lists, call again,
/// and truncate the lists to what the second call wrote.
fn two_call(
    f: &BoundFunction,
    call: &syn::Expr,
    (cid, cty, lists): &(Ident, Option<syn::Type>, Vec<Ident>),
) -> Result<Vec<syn::Stmt>, syn::Error> {
    let mut grow = Vec::new();
    let mut truncate = Vec::new();
    for l in lists {
        let block = fill!(
            syn::Block,
            {
                {
                    __l.try_reserve_exact(n)
                        .map_err(|_| crate::error::memory_allocation())?;
                    __l.resize_with(n, || unsafe { ::core::mem::zeroed() });
                }
            },
            __l = l.clone()
        )?;
        grow.extend(block.stmts);
        truncate.push(fill!(
            syn::Stmt,
            {
                __l.truncate(got);
            },
            __l = l.clone()
        )?);
    }
    let cty = cty.clone().ok_or_else(|| {
        syn::Error::new(
            proc_macro2::Span::call_site(),
            format!(
                "{}: the count of a two-call list is no pointer (a bug: please report it)",
                f.name
            ),
        )
    })?;
    let block = fill!(
        syn::Block,
        {
            {
                __first;
                let n = usize::try_from(__cid).map_err(|_| crate::error::invalid_value())?;
                if n > 0 {
                    __grow;
                    __cid = <__T>::try_from(n).map_err(|_| crate::error::invalid_value())?;
                    __again;
                    let got = usize::try_from(__cid).map_or(n, |g| g.min(n));
                    __truncate;
                }
            }
        },
        __first = checked(call)?,
        __cid = cid.clone(),
        __grow = grow,
        __T = cty,
        __again = checked(call)?,
        __truncate = truncate,
    )?;
    Ok(block.stmts)
}

/// A function that returns a value rather than a status: `let status = call;`, the value
/// (or the string it points to) added to the outputs.
fn returned_value<'a>(
    f: &'a BoundFunction,
    call: syn::Expr,
    ret_string: Option<StrLifetime>,
    names: &Names,
    parts: &mut Parts,
    types: &mut Types<'a>,
) -> Result<Vec<syn::Stmt>, syn::Error> {
    if let Some(lifetime) = ret_string {
        let status_id = Ident::new("status", proc_macro2::Span::call_site());
        parts.outs.push(returned_cstr(&status_id, lifetime)?);
        parts.ret_docs.push(match lifetime {
            StrLifetime::Static => {
                "the string the C function returns (static; empty if it returns NULL)".into()
            }
            StrLifetime::Copied => {
                "the string the C function returns, copied (empty if it returns NULL)".into()
            }
        });
    } else {
        parts
            .outs
            .push((fill!(syn::Expr, { status })?, types.of(&f.ret.c, names)?));
        parts
            .ret_docs
            .push("the value the C function returns".into());
    }
    Ok(vec![fill!(
        syn::Stmt,
        {
            let status = __call;
        },
        __call = call
    )?])
}

/// The `# Safety` conditions for the records (or a list's entries) that hold pointers or
/// handles, as the model names them (`Type` or `Type@list`).
fn record_safety(unsafe_records: &[String], parts: &mut Parts) {
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
}

/// The wrapper's return type and value: `()`, the one output, or a tuple of them in order.
fn returned(outs: &[(syn::Expr, syn::Type)]) -> Result<(syn::Type, syn::Expr), syn::Error> {
    Ok(match outs.len() {
        0 => (fill!(syn::Type, { () })?, fill!(syn::Expr, { () })?),
        1 => {
            let (v, t) = outs[0].clone();
            (t, v)
        }
        _ => (
            syn::Type::Tuple(syn::TypeTuple {
                attrs: Vec::new(),
                paren_token: Default::default(),
                elems: outs.iter().map(|(_, t)| t.clone()).collect(),
            }),
            syn::Expr::Tuple(syn::ExprTuple {
                attrs: Vec::new(),
                paren_token: Default::default(),
                elems: outs.iter().map(|(v, _)| v.clone()).collect(),
            }),
        ),
    })
}

/// The wrapper item: docs `md`, an alias for the C name, the body (locals, the call and
/// `status`, the copies after it) and the outputs returned.
fn item(
    f: &BoundFunction,
    rust: &str,
    md: &str,
    is_unsafe: bool,
    status: Vec<syn::Stmt>,
    mut parts: Parts,
) -> Result<syn::Item, syn::Error> {
    let c_name = &f.name;
    let (ret_ty, ret_val) = returned(&parts.outs)?;
    let mut body = std::mem::take(&mut parts.pre);
    body.extend(status);
    body.append(&mut parts.post);
    let mut item = fill!(
        syn::ItemFn,
        {
            #[doc(alias = "")]
            #[inline]
            pub fn __name() -> crate::Result<__Ret> {
                __body;
                Ok(__ret)
            }
        },
        __name = ident(rust),
        __Ret = ret_ty,
        __body = body,
        __ret = ret_val,
    )?;
    if let Some(syn::Meta::List(alias)) = item.attrs.first_mut().map(|a| &mut a.meta) {
        alias.tokens = quote! { alias = #c_name };
    }
    item.attrs.splice(0..0, docs::attr_syntax(md));
    if is_unsafe {
        item.sig.safety = syn::Safety::Unsafe(Default::default());
    }
    item.sig.inputs = parts.params.into_iter().collect();
    Ok(syn::Item::Fn(item))
}

/// The value and type a wrapper returns for a `const char*` the runtime handed back: a
/// `&'static CStr` or a copy in a `CString`, as the model's `lifetime` says.
fn returned_cstr(ptr: &Ident, lifetime: StrLifetime) -> Result<(syn::Expr, syn::Type), syn::Error> {
    Ok(match lifetime {
        StrLifetime::Static => (
            static_cstr(ptr)?,
            fill!(syn::Type, { &'static ::core::ffi::CStr })?,
        ),
        StrLifetime::Copied => (
            copied_cstr(ptr)?,
            fill!(syn::Type, { ::std::ffi::CString })?,
        ),
    })
}

/// A `CString` copied from a `const char*` the runtime returned (empty for NULL), with the
/// reason it is sound.
fn copied_cstr(ptr: &Ident) -> Result<syn::Expr, syn::Error> {
    let why = comment_stmt(
        "SAFETY: on success the runtime points this at a NUL-terminated string that is valid          at least until the next call that could change it; it is copied at once.",
    )?;
    fill!(
        syn::Expr,
        {
            if __p.is_null() {
                ::std::ffi::CString::default()
            } else {
                __why;
                unsafe { ::core::ffi::CStr::from_ptr(__p) }.to_owned()
            }
        },
        __p = ptr.clone(),
        __why = vec![why]
    )
}

/// A `&'static CStr` from a `const char*` the runtime returned (empty for NULL), with the
/// reason it is sound.
fn static_cstr(ptr: &Ident) -> Result<syn::Expr, syn::Error> {
    let why = comment_stmt(
        "SAFETY: the runtime returns NUL-terminated strings that live in the library, which the \
         crate never unloads.",
    )?;
    fill!(
        syn::Expr,
        {
            if __p.is_null() {
                c""
            } else {
                __why;
                unsafe { ::core::ffi::CStr::from_ptr(__p) }
            }
        },
        __p = ptr.clone(),
        __why = vec![why]
    )
}

/// `text` with its runs of white space made single spaces.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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
    let mut md = docs::with_since(&md, f.since.as_ref());
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
    let lib = links.names.library();
    let errs: Vec<String> = f
        .errors
        .iter()
        .filter(|e| !e.eq_ignore_ascii_case(lib.success()))
        .map(|e| match links.resolve(e) {
            Some(p) => format!("[`{e}`]({p})"),
            None => format!("`{e}`"),
        })
        .collect();
    let variant = lib.status_variant();
    md.push_str(&format!(
        "[`Error::{variant}`](crate::Error::{variant}) with the status the call returns"
    ));
    if errs.is_empty() {
        md.push_str(" (the documentation lists no error status for it)");
    } else {
        md.push_str("; the documentation lists ");
        md.push_str(&errs.join(", "));
    }
    md.push_str(&format!(". [`Error::LibraryNotFound`](crate::Error::LibraryNotFound) or [`Error::SymbolNotFound`](crate::Error::SymbolNotFound) when the {} or this function cannot be loaded.", lib.what()));
    if let Some(since) = f.since.as_ref().filter(|s| s.runtime_version() > 0) {
        md.push_str(&format!(
            " [`Error::NotInRuntime`](crate::Error::NotInRuntime) when the loaded {} is older than CUDA {}.",
            lib.loaded(),
            since.release
        ));
    }
    if parts.slices {
        md.push_str(&format!(" Lists that share a count must have the same length; otherwise, or when the length does not fit the count's C type, the result is `{}` without calling {}.", lib.invalid_value(), lib.callee()));
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

/// What the typed wrapper calls the C parameter at `i` in prose: its Rust name, "the
/// returned `x`" for what the wrapper returns, "the length of `list`" for a count the slices
/// carry.
fn rust_reference(f: &BoundFunction, roles: &[Role], i: usize) -> String {
    let rn = |j: usize| param_name(&f.params[j].c_name);
    let query_list =
        |count: usize| matches!(roles.get(count), Some(Role::CountInOut { query: true, .. }));
    match &roles[i] {
        Role::Out
        | Role::OutCStr { .. }
        | Role::OutFlags { .. }
        | Role::BorrowedList { .. }
        | Role::OutString { .. }
        | Role::ByteBufferSize { .. } => {
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
                // "the `count` …" → "the length of …", not "the the length of …".
                let r = match r.strip_prefix("the ") {
                    Some(rest) if out.ends_with("the ") || out.ends_with("The ") => {
                        rest.to_string()
                    }
                    _ => r,
                };
                // "Returns in `*x` the …" / "… is returned in `x`": the output is what the
                // wrapper returns, so say "as `x`" there rather than "in the returned `x`".
                let named = r.strip_prefix("the returned ");
                // Only the end of what is written so far is looked at (lowering all of it
                // for every span was quadratic in a description's mentions).
                let ends_with = |tail: &str| {
                    out.len() >= tail.len()
                        && out.as_bytes()[out.len() - tail.len()..]
                            .eq_ignore_ascii_case(tail.as_bytes())
                };
                match named {
                    Some(n) if ends_with("returns in ") => {
                        out.truncate(out.len() - "in ".len());
                        out.push_str(&format!("as {n},"));
                    }
                    Some(n) if ends_with("returned in ") => {
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
