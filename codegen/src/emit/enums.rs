//! Enums as `#[repr(transparent)]` newtypes over the C integer with associated constants
//! (the `ash` style): a value a newer driver returns is never undefined behaviour, and
//! `Debug` prints the member's C name or the number (the crate's `c_enum!` macro). Also the table of `cudaError_t` names
//! and documented meanings that the runtime's error type reads.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::docs::{self, DocProblems};
use super::names::{ident, Names};
use crate::bind::naming::member_names;
use crate::bind::BoundEnum;

/// The `enums.rs` file body.
pub fn emit(enums: &[BoundEnum], names: &Names, problems: &mut DocProblems) -> TokenStream {
    let items: Vec<TokenStream> = enums
        .iter()
        .map(|e| enum_item(e, names, problems))
        .collect();
    quote! { #(#items)* }
}

fn enum_item(e: &BoundEnum, names: &Names, problems: &mut DocProblems) -> TokenStream {
    let ty = ident(&e.name);
    let repr = ident(&e.abi.repr);
    let text = e.doc.clone().unwrap_or_default();
    let mut md = docs::markdown(&text, names, &e.name, problems);
    if e.doc.is_none() {
        md = format!(
            "`{}`: not described by the documentation; emitted because other items use it.",
            e.abi.name
        );
    }
    md.push_str("\n\nA newtype over the C integer: values this crate does not know (from a newer runtime) are kept as they are. Use [`Self::from_raw`] and [`Self::as_raw`] to convert.");
    let doc = docs::attrs(&md);
    let members: Vec<&str> = e.abi.values.iter().map(|v| v.name.as_str()).collect();
    let rust_names = member_names(&members);
    let mut seen_values = std::collections::BTreeSet::new();
    let mut arms = Vec::new();
    let consts = e.abi.values.iter().zip(&rust_names).map(|(v, r)| {
        let id = ident(r);
        let lit = int_literal(v.value, &e.abi.repr);
        let text = e
            .member_docs
            .iter()
            .find(|(n, _)| n == &v.name)
            .map(|(_, d)| d.as_str())
            .unwrap_or("");
        let md = docs::markdown(text, names, &v.name, problems);
        let d = docs::attrs(&md);
        let c = &v.name;
        if v.alias_of.is_none() && seen_values.insert(v.value) {
            arms.push(quote! { #lit => Some(#c), });
        }
        quote! { #d #[doc(alias = #c)] pub const #id: Self = Self(#lit); }
    });
    let consts: Vec<TokenStream> = consts.collect();
    let aliases = e.aliases.iter().map(|a| {
        let id = ident(a);
        let d = format!(" Another name of [`{}`].", e.name);
        quote! { #[doc = #d] pub type #id = #ty; }
    });
    quote! {
        #doc
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct #ty(pub #repr);

        impl #ty {
            #(#consts)*

            /// The C name of this value, or `None` for a value this crate does not know.
            pub const fn name(self) -> Option<&'static str> {
                match self.0 {
                    #(#arms)*
                    _ => None,
                }
            }
        }

        c_enum!(#ty, #repr);

        #(#aliases)*
    }
}

fn int_literal(v: i128, repr: &str) -> Literal {
    match repr {
        "i32" | "i64" | "i16" | "i8" | "isize" | "c_int" => Literal::i128_unsuffixed(v),
        _ => Literal::u128_unsuffixed(v.max(0) as u128),
    }
}

/// The `errors.rs` file body: `error_info(code)` → (C name, documented meaning), read from
/// the enum that `error_enum` names (`cudaError_t`).
pub fn emit_error_table(enums: &[BoundEnum], error_enum: &str) -> TokenStream {
    let Some(e) = enums
        .iter()
        .find(|e| e.name == error_enum || e.aliases.iter().any(|a| a == error_enum))
    else {
        return quote! {
            /// The documentation named no error enum, so no names are known.
            pub(crate) fn error_info(_code: i64) -> Option<(&'static str, &'static str)> { None }
        };
    };
    let mut seen = std::collections::BTreeSet::new();
    let arms = e
        .abi
        .values
        .iter()
        .filter(|v| v.alias_of.is_none() && seen.insert(v.value))
        .map(|v| {
            let lit = Literal::i64_unsuffixed(v.value as i64);
            let name = &v.name;
            let text = e
                .member_docs
                .iter()
                .find(|(n, _)| n == &v.name)
                .map(|(_, d)| {
                    docs::first_sentence(
                        &crate::rustdoc::convert(d, &crate::rustdoc::NoLinks).markdown,
                    )
                })
                .unwrap_or_default();
            quote! { #lit => Some((#name, #text)), }
        });
    quote! {
        /// The C name and the documentation's first sentence for a `cudaError_t` code.
        pub(crate) fn error_info(code: i64) -> Option<(&'static str, &'static str)> {
            match code {
                #(#arms)*
                _ => None,
            }
        }
    }
}
