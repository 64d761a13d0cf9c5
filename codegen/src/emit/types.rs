//! Structs, unions and typedefs: `#[repr(C)]` records laid out as the ABI declares them,
//! opaque handles as `#[repr(transparent)]` pointer newtypes, callbacks as nullable
//! `extern "C"` function pointers, and scalar or record aliases as `pub type`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::docs::{self, DocProblems};
use super::names::{ident, rust_type, Names};
use crate::abi::{CType, RecordKind, TypedefKind};
use crate::bind::{BoundRecord, BoundTypedef};

/// The `types.rs` file body.
pub fn emit(
    records: &[BoundRecord],
    typedefs: &[BoundTypedef],
    names: &Names,
    problems: &mut DocProblems,
) -> TokenStream {
    let recs: Vec<TokenStream> = records.iter().map(|r| record(r, names, problems)).collect();
    let tds = typedefs.iter().map(|t| typedef(t, names, problems));
    quote! { #(#recs)* #(#tds)* }
}

fn record(r: &BoundRecord, names: &Names, problems: &mut DocProblems) -> TokenStream {
    let ty = ident(&r.name);
    let mut md = match &r.doc {
        Some(d) => docs::markdown(d, names, &r.name, problems),
        None => match &r.abi.parent {
            Some(p) => format!("An anonymous member type of [`{p}`]."),
            None => format!(
                "`{}`: not described by the documentation; emitted because other items use it.",
                r.name
            ),
        },
    };
    if md.trim().is_empty() {
        md = format!("The C type `{}`.", r.name);
    }
    let doc = docs::attrs(&md);
    if r.abi.opaque {
        return quote! {
            #doc
            #[repr(C)]
            pub struct #ty { _opaque: [u8; 0] }
        };
    }
    let align = r.abi.repr.iter().find_map(|a| {
        a.strip_prefix("align(")
            .and_then(|x| x.strip_suffix(')'))
            .and_then(|n| n.parse::<usize>().ok())
    });
    let align = align.map(|n| {
        let n = Literal::usize_unsuffixed(n);
        quote! { #[repr(align(#n))] }
    });
    let fields = r.abi.fields.iter().map(|f| {
        let id = ident(&f.name);
        let t = if f.bitfield_unit {
            bitfield_storage(&f.ty.c, names)
        } else {
            rust_type(&f.ty.c, names)
        };
        let text = r
            .field_docs
            .iter()
            .find(|(n, _)| n == &f.name || n.trim_end_matches('_') == f.name.trim_end_matches('_'))
            .map(|(_, d)| d.as_str())
            .unwrap_or("");
        let md = docs::markdown(text, names, &format!("{}.{}", r.name, f.name), problems);
        let d = docs::attrs(&md);
        quote! { #d pub #id: #t, }
    });
    let kw = match r.abi.kind {
        RecordKind::Struct => quote! { struct },
        RecordKind::Union => quote! { union },
    };
    quote! {
        #doc
        #[repr(C)]
        #align
        #[derive(Clone, Copy)]
        pub #kw #ty { #(#fields)* }

        zeroed_default!(#ty);
    }
}

/// A bindgen bitfield unit is plain bytes of the given size.
fn bitfield_storage(c: &CType, names: &Names) -> TokenStream {
    match c {
        CType::Array { .. } => rust_type(c, names),
        _ => quote! { [u8; 0] },
    }
}

fn typedef(t: &BoundTypedef, names: &Names, problems: &mut DocProblems) -> TokenStream {
    let ty = ident(&t.name);
    let mut md = match &t.doc {
        Some(d) => docs::markdown(d, names, &t.name, problems),
        None => format!("The C typedef `{}`.", t.name),
    };
    if md.trim().is_empty() {
        md = format!("The C typedef `{}`.", t.name);
    }
    match t.abi.kind {
        TypedefKind::Handle => {
            let (ptr, is_const) = match &t.abi.ty.c {
                CType::Pointer { to, is_const } => (rust_type(to, names), *is_const),
                other => (rust_type(other, names), false),
            };
            let ptr = if is_const {
                quote! { *const #ptr }
            } else {
                quote! { *mut #ptr }
            };
            md.push_str("\n\nAn opaque handle: a pointer-sized value owned by the CUDA runtime. The null handle is [`Self::null`].");
            let doc = docs::attrs(&md);
            quote! {
                #doc
                #[repr(transparent)]
                #[derive(Clone, Copy, PartialEq, Eq, Hash)]
                pub struct #ty(pub #ptr);

                c_handle!(#ty, #ptr);
            }
        }
        _ => {
            let doc = docs::attrs(&md);
            let target = rust_type(&t.abi.ty.c, names);
            quote! {
                #doc
                pub type #ty = #target;
            }
        }
    }
}
