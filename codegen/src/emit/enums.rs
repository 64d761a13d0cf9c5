//! Enums as `#[repr(transparent)]` newtypes over the C integer with associated constants
//! (the `ash` style): a value a newer driver returns is never undefined behaviour, and
//! `Debug` prints the member's C name or the number (the crate's `c_enum!` macro). Also the table of `cudaError_t` names
//! and documented meanings that the runtime's error type reads.

use proc_macro2::Literal;
use quote::quote;

use super::docs::{self, DocProblems};
use super::fill::fill;
use super::names::{ident, Names};
use crate::bind::BoundEnum;

/// The `enums.rs` items.
///
/// Most of the file is members: one associated constant and one `name()` arm each, over a
/// thousand per crate. Those are built as syntax trees (a clone of a parsed template with the
/// name, value and documentation put in), not as tokens for syn to parse back: parsing them
/// was the largest share of this file's cost, for code whose shape never changes. The rest of
/// each enum is written with `quote!` and parsed. prettyplease prints the same text either way.
pub fn emit(
    enums: &[BoundEnum],
    names: &Names,
    problems: &mut DocProblems,
) -> Result<Vec<syn::Item>, syn::Error> {
    let templates = Templates::new()?;
    let mut items = Vec::new();
    for e in enums {
        enum_items(e, names, problems, &templates, &mut items)?;
    }
    Ok(items)
}

/// The parsed shapes that members are built from (flag types' members too).
pub(super) struct Templates {
    /// `#[doc(alias = "…")] pub const NAME: Self = Self(0);`
    member: syn::ImplItemConst,
    /// `0 => Some("…"),`
    arm: syn::Arm,
    /// `c_enum!(…);`
    c_enum: syn::ItemMacro,
}

impl Templates {
    pub(super) fn new() -> Result<Templates, syn::Error> {
        Ok(Templates {
            member: syn::parse2(quote! { #[doc(alias = "")] pub const NAME: Self = Self(0); })?,
            arm: syn::parse2(quote! { 0 => Some(""), })?,
            c_enum: syn::parse2(quote! { c_enum!(T, R); })?,
        })
    }

    /// `#doc #[doc(alias = c_name)] pub const id: Self = Self(value);`
    pub(super) fn member(
        &self,
        doc: Vec<syn::Attribute>,
        c_name: &str,
        id: proc_macro2::Ident,
        value: Literal,
    ) -> syn::ImplItem {
        let mut m = self.member.clone();
        if let Some(syn::Meta::List(alias)) = m.attrs.first_mut().map(|a| &mut a.meta) {
            alias.tokens = quote! { alias = #c_name };
        }
        m.attrs.splice(0..0, doc);
        m.ident = id;
        if let syn::Expr::Call(call) = &mut m.expr {
            if let Some(arg) = call.args.first_mut() {
                *arg = int_expr(value);
            }
        }
        syn::ImplItem::Const(m)
    }

    /// `value => Some(c_name),`
    fn arm(&self, value: Literal, c_name: &str) -> syn::Arm {
        let mut a = self.arm.clone();
        if let syn::Pat::Lit(lit) = &mut a.pat {
            lit.lit = syn::Lit::new(value);
        }
        if let syn::Expr::Call(call) = &mut *a.body {
            if let Some(arg) = call.args.first_mut() {
                *arg = str_expr(c_name);
            }
        }
        a
    }
}

/// An integer literal expression.
pub(super) fn int_expr(value: Literal) -> syn::Expr {
    syn::Expr::Lit(syn::ExprLit {
        attrs: Vec::new(),
        lit: syn::Lit::new(value),
    })
}

fn enum_items(
    e: &BoundEnum,
    names: &Names,
    problems: &mut DocProblems,
    t: &Templates,
    items: &mut Vec<syn::Item>,
) -> Result<(), syn::Error> {
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
    let mut md = docs::with_since(&md, e.since.as_ref());
    md.push_str("\n\nA newtype over the C integer: values this crate does not know (from a newer runtime) are kept as they are. Use [`Self::from_raw`] and [`Self::as_raw`] to convert.");
    let doc = docs::attr_syntax(&md);
    let mut seen_values = std::collections::BTreeSet::new();
    let mut arms = Vec::new();
    let mut consts = Vec::new();
    for (i, (v, r)) in e.abi.values.iter().zip(&e.member_names).enumerate() {
        let text = e
            .member_docs
            .iter()
            .find(|(n, _)| n == &v.name)
            .map(|(_, d)| d.as_str())
            .unwrap_or("");
        let md = docs::markdown(text, names, &v.name, problems);
        let since = e.member_since.get(i).and_then(Option::as_ref);
        let md = docs::with_since(&md, since);
        if v.alias_of.is_none() && seen_values.insert(v.value) {
            arms.push(t.arm(int_literal(v.value, &e.abi.repr), &v.name));
        }
        consts.push(t.member(
            docs::attr_syntax(&md),
            &v.name,
            ident(r),
            int_literal(v.value, &e.abi.repr),
        ));
    }
    let mut def = fill!(
        syn::ItemStruct,
        {
            #[repr(transparent)]
            #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
            pub struct __T(pub __R);
        },
        __T = ty.clone(),
        __R = repr.clone(),
    )?;
    def.attrs.splice(0..0, doc);
    let mut imp = fill!(
        syn::ItemImpl,
        {
            impl __T {
                /// The C name of this value, or `None` for a value this crate does not know.
                pub const fn name(self) -> Option<&'static str> {
                    match self.0 {
                        _ => None,
                    }
                }
            }
        },
        __T = ty.clone(),
    )?;
    if let Some(syn::ImplItem::Fn(name_fn)) = imp.items.first_mut() {
        if let Some(syn::Stmt::Expr(syn::Expr::Match(m), _)) = name_fn.block.stmts.first_mut() {
            m.arms.splice(0..0, arms);
        }
    }
    imp.items.splice(0..0, consts);
    let mut mac = t.c_enum.clone();
    mac.mac.tokens = quote! { #ty, #repr };
    items.push(syn::Item::Struct(def));
    items.push(syn::Item::Impl(imp));
    items.push(syn::Item::Macro(mac));
    for (i, a) in e.aliases.iter().enumerate() {
        let mut alias = fill!(
            syn::ItemType,
            {
                pub type __A = __T;
            },
            __A = ident(a),
            __T = ty.clone(),
        )?;
        let since = e.alias_since.get(i).and_then(Option::as_ref);
        alias.attrs.extend(docs::attr_syntax(&docs::with_since(
            &format!("Another name of [`{}`].", e.name),
            since,
        )));
        items.push(syn::Item::Type(alias));
    }
    Ok(())
}

fn int_literal(v: i128, repr: &str) -> Literal {
    match repr {
        "i32" | "i64" | "i16" | "i8" | "isize" | "c_int" => Literal::i128_unsuffixed(v),
        _ => Literal::u128_unsuffixed(v.max(0) as u128),
    }
}

/// The `errors.rs` file body: `error_info(code)` → (C name, documented meaning), read from
/// the enum that `error_enum` names (`cudaError_t`). Built as a syntax tree: one arm per
/// code, a clone of a parsed template with the code and the two strings put in (parsing a
/// hundred long string literals back was most of this file's cost).
pub fn emit_error_table(
    enums: &[BoundEnum],
    error_enum: &str,
) -> Result<Vec<syn::Item>, syn::Error> {
    let Some(e) = enums
        .iter()
        .find(|e| e.name == error_enum || e.aliases.iter().any(|a| a == error_enum))
    else {
        let none: syn::File = syn::parse2(quote! {
            /// The documentation named no error enum, so no names are known.
            pub(crate) fn error_info(_code: i64) -> Option<(&'static str, &'static str)> { None }
        })?;
        return Ok(none.items);
    };
    let template: syn::Arm = syn::parse2(quote! { 0 => Some(("", "")), })?;
    let mut seen = std::collections::BTreeSet::new();
    let arms = e
        .abi
        .values
        .iter()
        .filter(|v| v.alias_of.is_none() && seen.insert(v.value))
        .map(|v| {
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
            let mut arm = template.clone();
            if let syn::Pat::Lit(lit) = &mut arm.pat {
                lit.lit = syn::Lit::new(Literal::i64_unsuffixed(v.value as i64));
            }
            if let syn::Expr::Call(call) = &mut *arm.body {
                if let Some(syn::Expr::Tuple(pair)) = call.args.first_mut() {
                    for (slot, s) in pair.elems.iter_mut().zip([v.name.as_str(), &text]) {
                        *slot = str_expr(s);
                    }
                }
            }
            arm
        });
    let mut f: syn::ItemFn = syn::parse2(quote! {
        /// The C name and the documentation's first sentence for a `cudaError_t` code.
        pub(crate) fn error_info(code: i64) -> Option<(&'static str, &'static str)> {
            match code {
                _ => None,
            }
        }
    })?;
    if let Some(syn::Stmt::Expr(syn::Expr::Match(m), _)) = f.block.stmts.first_mut() {
        m.arms.splice(0..0, arms);
    }
    Ok(vec![syn::Item::Fn(f)])
}

/// A string literal expression.
pub fn str_expr(s: &str) -> syn::Expr {
    syn::Expr::Lit(syn::ExprLit {
        attrs: Vec::new(),
        lit: syn::Lit::Str(syn::LitStr::new(s, proc_macro2::Span::call_site())),
    })
}
