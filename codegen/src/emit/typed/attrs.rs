//! The typed attribute values ([`crate::bind::attrs`]): per attribute enum a Rust enum of its
//! typed values, and per accessor a companion `<wrapper>_typed` that reads or writes one.
//! The model decides which members have which value type; this module only writes them out.

use heck::ToUpperCamelCase;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::bind::attrs::{AttrAccessor, AttrEnum};
use crate::bind::naming::param_name;
use crate::bind::{BoundFunction, Typed};
use crate::emit::docs;
use crate::emit::files::comment;
use crate::emit::names::{ident, rust_type, Names};

/// The typed attribute values ([`crate::bind::attrs`]): per attribute enum a Rust enum with
/// one variant per member whose value type the documentation states, and per accessor a
/// companion `<wrapper>_typed` that reads (`-> Value`) or writes (`value: Value`) it.
pub fn attributes(b: &crate::bind::Bindings, names: &Names) -> TokenStream {
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
        out.push(value_enum(e, names));
    }
    for a in &b.attr_accessors {
        out.extend(accessor(b, a, names));
    }
    quote! { #(#out)* }
}

/// The Rust name of an attribute enum's value type: `cudaMemPoolAttr` → `MemPoolAttrValue`.
fn value_type_name(enum_name: &str) -> String {
    let bare = enum_name.strip_prefix("cuda").unwrap_or(enum_name);
    format!("{}Value", bare.to_upper_camel_case())
}

/// The value type's variant for the member named `rust_name` (its upper camel case).
fn variant(rust_name: &str) -> Ident {
    ident(&rust_name.to_upper_camel_case())
}

/// The value type of attribute enum `e`: one variant per member holding its value, and
/// `attr()` naming the member.
fn value_enum(e: &AttrEnum, names: &Names) -> TokenStream {
    let ty = ident(&e.name);
    let vty = ident(&value_type_name(&e.name));
    let variants = e.members.iter().map(|m| {
        let v = variant(&m.rust_name);
        let t = rust_type(&m.ty, names);
        let member = &m.rust_name;
        let doc = format!(
            "[`{0}::{member}`](crate::sys::{0}::{member}) and its value.",
            e.name
        );
        quote! { #[doc = #doc] #v(#t), }
    });
    let arms = e.members.iter().map(|m| {
        let v = variant(&m.rust_name);
        let c = ident(&m.rust_name);
        quote! { Self::#v(_) => #ty::#c, }
    });
    let doc = format!(
        "A value of a [`{0}`](crate::sys::{0}) attribute, typed as the documentation states for each member (members whose value type it does not state are reached through the raw `void*` functions).",
        e.name
    );
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum #vty { #(#variants)* }
        impl #vty {
            /// The attribute this value belongs to.
            pub fn attr(&self) -> #ty {
                match self { #(#arms)* }
            }
        }
    }
}

/// One accessor being emitted: the function, the wrapper it calls and the attribute enum.
struct Accessor<'a> {
    a: &'a AttrAccessor,
    f: &'a BoundFunction,
    e: &'a AttrEnum,
    /// The `void*` wrapper it calls.
    base: Ident,
    /// The attribute enum and its value type.
    ty: Ident,
    vty: Ident,
    /// The name of the attribute parameter.
    attr_id: Ident,
}

/// The typed companion of accessor `a`, if its function has a typed wrapper and its enum is
/// known.
fn accessor(b: &crate::bind::Bindings, a: &AttrAccessor, names: &Names) -> Option<TokenStream> {
    let f = b.functions.iter().find(|f| f.name == a.function)?;
    let Typed::Wrapper {
        rust_name,
        roles,
        unsafe_rule,
        ..
    } = &f.typed
    else {
        return None;
    };
    let e = b.attr_enums.iter().find(|e| e.name == a.enum_name)?;
    let acc = Accessor {
        a,
        f,
        e,
        base: ident(rust_name),
        ty: ident(&e.name),
        vty: ident(&value_type_name(&e.name)),
        attr_id: ident(&param_name(&f.params[a.attr].c_name)),
    };
    let name = ident(&format!("{rust_name}_typed"));
    let is_unsafe = unsafe_rule.is_some()
        || f.params
            .iter()
            .enumerate()
            .any(|(i, _)| i != a.value && i != a.attr && roles[i].is_unsafe());
    let (params, args) = acc.arguments(names);
    let unsafety = if is_unsafe {
        quote! { unsafe }
    } else {
        quote! {}
    };
    let vty = &acc.vty;
    let (body, sig_tail, ret) = if a.getter {
        (acc.getter_body(&args, names), quote! {}, quote! { #vty })
    } else {
        (
            acc.setter_body(&args),
            quote! { value: #vty },
            quote! { () },
        )
    };
    let all_params = if a.getter {
        quote! { #(#params),* }
    } else if params.is_empty() {
        quote! { #sig_tail }
    } else {
        quote! { #(#params),*, #sig_tail }
    };
    let doc = docs::attrs(&acc.doc(rust_name, is_unsafe));
    let c_name = &f.name;
    Some(quote! {
        #doc
        #[doc(alias = #c_name)]
        pub #unsafety fn #name(#all_params) -> crate::Result<#ret> {
            #body
        }
    })
}

/// Why the call of the `void*` wrapper is sound.
fn call_why() -> TokenStream {
    comment(
        "SAFETY: the value pointer points at a local of the type the documentation states \
         for this attribute; the other arguments are the caller's, as the wrapper documents.",
    )
}

impl Accessor<'_> {
    /// The companion's parameters (the wrapper's, less the value, and less the attribute for
    /// a setter) and the wrapper's arguments (the value pointer made from local `v`).
    fn arguments(&self, names: &Names) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let (a, ty, attr_id) = (self.a, &self.ty, &self.attr_id);
        let mut params = Vec::new();
        let mut args = Vec::new();
        for (i, p) in self.f.params.iter().enumerate() {
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
        (params, args)
    }

    /// A getter's body: per member, a zeroed local of its value type read through the
    /// wrapper; an attribute without a stated type is an invalid value.
    fn getter_body(&self, args: &[TokenStream], names: &Names) -> TokenStream {
        let (base, ty, vty, attr_id) = (&self.base, &self.ty, &self.vty, &self.attr_id);
        let why = call_why();
        let zero_why = comment(
            "SAFETY: the value types are integers and C enums, for which all-zero bytes are valid.",
        );
        let arms = self.e.members.iter().map(|m| {
            let v = variant(&m.rust_name);
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
    }

    /// A setter's body: a match on the value, each arm passing its member and value.
    fn setter_body(&self, args: &[TokenStream]) -> TokenStream {
        let (base, ty, vty, attr_id) = (&self.base, &self.ty, &self.vty, &self.attr_id);
        let why = call_why();
        let arms = self.e.members.iter().map(|m| {
            let v = variant(&m.rust_name);
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
    }

    /// The companion's documentation: what it does, the wrapper it goes through, the
    /// release note, and `# Safety` when it is `unsafe`.
    fn doc(&self, rust_name: &str, is_unsafe: bool) -> String {
        let safety = if is_unsafe {
            "\n\n# Safety\n\nAs for the `void*` wrapper, except the value pointer, which this function makes."
        } else {
            ""
        };
        let what = if self.a.getter { "Reads" } else { "Writes" };
        let doc = format!(
            "{what} an attribute through [`{rust_name}`](crate::api::{rust_name}) with the value type the documentation of [`{0}`](crate::sys::{0}) states for it ([`{vname}`](crate::api::{vname})).{note}{safety}",
            self.e.name,
            vname = value_type_name(&self.e.name),
            note = if self.a.getter {
                " An attribute whose value type is not stated is `cudaErrorInvalidValue` without calling CUDA."
            } else {
                ""
            }
        );
        docs::with_note(&doc, &docs::since_note(self.f.since.as_ref()))
    }
}
