//! Integer constants: the flag groups of the model ([`crate::bind::flags`]) as `bitflags` 2
//! types, and every constant under its C name too (the raw layer keeps every name).
//!
//! Both files are built as syntax trees from parsed templates ([`super::fill`]; a flag type's
//! members share the enums' member template), not as tokens for syn to parse back.

use foldhash::HashMap;

use proc_macro2::Literal;
use quote::quote;

use super::docs::{self, DocProblems};
use super::enums::{int_expr, str_expr, Templates};
use super::fill::fill;
use super::names::{ident, Names};
use crate::bind::flags::FlagGroup;
use crate::bind::{BoundConstant, ConstantKind};

/// The `flags.rs` file body: one `bitflags` type per group.
pub fn emit(
    groups: &[FlagGroup],
    constants: &[BoundConstant],
    names: &Names,
    problems: &mut DocProblems,
) -> Result<Vec<syn::Item>, syn::Error> {
    let t = Templates::new()?;
    let mut items = Vec::new();
    for g in groups {
        let ty = ident(&g.name);
        let bits = ident(&g.bits);
        let mut def = fill!(
            syn::ItemStruct,
            {
                #[repr(transparent)]
                #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
                pub struct __T(__B);
            },
            __T = ty.clone(),
            __B = bits.clone(),
        )?;
        let doc = docs::attr_syntax(&format!(
            "Flags `{}*`, grouped from the documentation's constants of that prefix.\n\nValues that come back from C keep unknown bits: use [`Self::from_bits_retain`].",
            g.prefix
        ));
        def.attrs.splice(0..0, doc);
        let mut consts = fill!(
            syn::ItemImpl,
            {
                impl __T {}
            },
            __T = ty.clone()
        )?;
        for (c, r, v) in &g.members {
            let constant = constants.iter().find(|k| &k.name == c);
            let text = constant.map(|k| k.doc.as_str()).unwrap_or("");
            let md = docs::markdown(text, names, c, problems);
            let md = docs::with_since(&md, constant.and_then(|k| k.since.as_ref()));
            consts.items.push(t.member(
                docs::attr_syntax(&md),
                c,
                ident(r),
                Literal::i64_unsuffixed(*v),
            ));
        }
        let table = g
            .members
            .iter()
            .map(|(_, r, _)| {
                fill!(
                    syn::Expr,
                    { ::bitflags::Flag::new(__r, Self::__id) },
                    __r = str_expr(r),
                    __id = ident(r),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let flags = fill!(
            syn::ItemImpl,
            {
                impl ::bitflags::Flags for __T {
                    const FLAGS: &'static [::bitflags::Flag<Self>] = &[__table];
                    type Bits = __B;
                    fn bits(&self) -> __B {
                        self.0
                    }
                    fn from_bits_retain(bits: __B) -> Self {
                        Self(bits)
                    }
                }
            },
            __T = ty.clone(),
            __B = bits.clone(),
            __table = table,
        )?;
        let mut mac: syn::ItemMacro = syn::parse2(quote! { c_flags!(T, B); })?;
        mac.mac.tokens = quote! { #ty, #bits };
        items.extend([
            syn::Item::Struct(def),
            syn::Item::Impl(consts),
            syn::Item::Impl(flags),
            syn::Item::Macro(mac),
        ]);
    }
    Ok(items)
}

/// The `constants.rs` file body: every bound constant under its C name.
pub fn emit_constants(
    constants: &[BoundConstant],
    names: &Names,
    problems: &mut DocProblems,
) -> Result<Vec<syn::Item>, syn::Error> {
    // The constants' few types, each parsed once.
    let mut types: HashMap<&str, syn::Type> = HashMap::default();
    constants
        .iter()
        .map(|k| {
            let id = ident(&k.name);
            let ty = types
                .entry(k.rust_type.as_str())
                .or_insert_with(|| {
                    syn::parse_str(&k.rust_type).unwrap_or_else(|_| syn::parse_quote!(i64))
                })
                .clone();
            let v = int_expr(Literal::i64_unsuffixed(k.value));
            let mut md = docs::markdown(&k.doc, names, &k.name, problems);
            md = docs::with_since(&md, k.since.as_ref());
            if let Some(p) = names
                .path(&k.name)
                .filter(|p| !p.ends_with(&format!("::{}", k.name)))
            {
                md.push_str(&format!(
                    "\n\nAlso available as the flag [`{}`]({p}).",
                    p.rsplit("::").next().unwrap_or(p)
                ));
            }
            // `Type(…)` and `Type::from_raw(…)` name the type as a path.
            let path = |tail: Option<&str>| -> Result<syn::Expr, syn::Error> {
                let syn::Type::Path(tp) = &ty else {
                    return Err(syn::Error::new(
                        proc_macro2::Span::call_site(),
                        format!(
                            "constant `{}`: its type `{}` is not a path (a bug: please report it)",
                            k.name, k.rust_type
                        ),
                    ));
                };
                let mut path = tp.path.clone();
                if let Some(tail) = tail {
                    path.segments.push(ident(tail).into());
                }
                Ok(syn::Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: tp.qself.clone(),
                    path,
                }))
            };
            let mut item = match &k.kind {
                ConstantKind::Integer => fill!(
                    syn::ItemConst,
                    {
                        pub const __id: __T = __v as __T;
                    },
                    __id = id,
                    __T = ty.clone(),
                    __v = v,
                )?,
                // A handle is made by its tuple constructor, an enumerator by `from_raw`.
                ConstantKind::Handle { .. } | ConstantKind::Enumerator { .. } => fill!(
                    syn::ItemConst,
                    {
                        pub const __id: __T = __make(__v as _);
                    },
                    __id = id,
                    __T = ty.clone(),
                    __make = path(
                        matches!(k.kind, ConstantKind::Enumerator { .. }).then_some("from_raw"),
                    )?,
                    __v = v,
                )?,
            };
            item.attrs.splice(0..0, docs::attr_syntax(&md));
            Ok(syn::Item::Const(item))
        })
        .collect()
}
