//! Integer constants: the flag groups of the model ([`crate::bind::flags`]) as `bitflags` 2
//! types, and every constant under its C name too (the raw layer keeps every name).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::docs::{self, DocProblems};
use super::names::{ident, Names};
use crate::bind::flags::FlagGroup;
use crate::bind::{BoundConstant, ConstantKind};

/// The `flags.rs` file body: one `bitflags` type per group.
pub fn emit(
    groups: &[FlagGroup],
    constants: &[BoundConstant],
    names: &Names,
    problems: &mut DocProblems,
) -> TokenStream {
    let items = groups.iter().map(|g| {
        let ty = ident(&g.name);
        let bits = ident(&g.bits);
        let doc = docs::attrs(&format!(
            "Flags `{}*`, grouped from the documentation's constants of that prefix.\n\nValues that come back from C keep unknown bits: use [`Self::from_bits_retain`].",
            g.prefix
        ));
        let consts = g.members.iter().map(|(c, r, v)| {
            let id = ident(r);
            let text = constants.iter().find(|k| &k.name == c).map(|k| k.doc.as_str()).unwrap_or("");
            let md = docs::markdown(text, names, c, problems);
            let d = docs::attrs(&md);
            let v = Literal::i64_unsuffixed(*v);
            quote! { #d #[doc(alias = #c)] pub const #id: Self = Self(#v); }
        });
        let table = g.members.iter().map(|(_, r, _)| {
            let id = ident(r);
            quote! { ::bitflags::Flag::new(#r, Self::#id), }
        });
        quote! {
            #doc
            #[repr(transparent)]
            #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
            pub struct #ty(#bits);

            impl #ty {
                #(#consts)*
            }

            impl ::bitflags::Flags for #ty {
                const FLAGS: &'static [::bitflags::Flag<Self>] = &[#(#table)*];
                type Bits = #bits;
                fn bits(&self) -> #bits { self.0 }
                fn from_bits_retain(bits: #bits) -> Self { Self(bits) }
            }

            c_flags!(#ty, #bits);
        }
    });
    quote! { #(#items)* }
}

/// The `constants.rs` file body: every bound constant under its C name.
pub fn emit_constants(
    constants: &[BoundConstant],
    names: &Names,
    problems: &mut DocProblems,
) -> TokenStream {
    let items = constants.iter().map(|k| {
        let id = ident(&k.name);
        let ty: syn::Type = syn::parse_str(&k.rust_type).unwrap_or_else(|_| syn::parse_quote!(i64));
        let v = Literal::i64_unsuffixed(k.value);
        let mut md = docs::markdown(&k.doc, names, &k.name, problems);
        if let Some(p) = names
            .path(&k.name)
            .filter(|p| !p.ends_with(&format!("::{}", k.name)))
        {
            md.push_str(&format!(
                "\n\nAlso available as the flag [`{}`]({p}).",
                p.rsplit("::").next().unwrap_or(p)
            ));
        }
        let d = docs::attrs(&md);
        match &k.kind {
            ConstantKind::Integer => quote! { #d pub const #id: #ty = #v as #ty; },
            ConstantKind::Handle { .. } => quote! {
                #d pub const #id: #ty = #ty(#v as _);
            },
            ConstantKind::Enumerator { .. } => quote! {
                #d pub const #id: #ty = #ty::from_raw(#v as _);
            },
        }
    });
    quote! { #(#items)* }
}
