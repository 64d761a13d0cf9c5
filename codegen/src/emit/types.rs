//! Structs, unions and typedefs: `#[repr(C)]` records laid out as the ABI declares them,
//! opaque handles as `#[repr(transparent)]` pointer newtypes, callbacks as nullable
//! `extern "C"` function pointers, and scalar or record aliases as `pub type`.

use foldhash::HashMap;

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::docs::{self, DocProblems};
use super::enums::str_expr;
use super::fill::fill;
use super::names::{ident, rust_type, Names, TypeCache};
use crate::abi::{CType, RecordKind, TypedefKind};
use crate::bind::{BoundRecord, BoundTypedef};

/// The `types.rs` items: records, then nested aliases, typedefs and their constants.
///
/// A record's fields (most of the file) are built as syntax trees, each distinct field type
/// parsed once ([`TypeCache`]); the rest is written with `quote!` and parsed. prettyplease
/// prints the same text either way.
pub fn emit(
    records: &[BoundRecord],
    typedefs: &[BoundTypedef],
    names: &Names,
    problems: &mut DocProblems,
) -> Result<Vec<syn::Item>, syn::Error> {
    let by_name: HashMap<&str, &BoundRecord> =
        records.iter().map(|r| (r.name.as_str(), r)).collect();
    let mut types = TypeCache::default();
    let mut items = Vec::new();
    for r in records {
        record(r, names, problems, &mut types, &mut items)?;
        if !r.abi.opaque {
            items.extend(debug_impl(r)?);
            let more = accessors(r, &by_name, names);
            if !more.is_empty() {
                items.extend(syn::parse2::<syn::File>(more)?.items);
            }
        }
    }
    let aliases = nested_aliases(records);
    items.extend(syn::parse2::<syn::File>(quote! { #(#aliases)* })?.items);
    for t in typedefs {
        typedef(t, names, problems, &mut types, &mut items)?;
    }
    let pairs = const_pairs(typedefs);
    items.extend(syn::parse2::<syn::File>(quote! { #(#pairs)* })?.items);
    Ok(items)
}

/// `Debug` for a union: its name only, since which member is meaningful is not recorded in
/// it (a struct derives `Debug`: every field, bitfield storage as bytes).
fn debug_impl(r: &BoundRecord) -> Result<Option<syn::Item>, syn::Error> {
    if r.abi.kind != RecordKind::Union {
        return Ok(None);
    }
    let imp = fill!(
        syn::ItemImpl,
        {
            impl ::core::fmt::Debug for __T {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(__name).finish_non_exhaustive()
                }
            }
        },
        __T = ident(&r.name),
        __name = str_expr(&r.name),
    )?;
    Ok(Some(syn::Item::Impl(imp)))
}

/// Whether `name` is a member bindgen made up for an anonymous union or struct.
fn is_anon(name: &str) -> bool {
    name.starts_with("__bindgen_anon_")
}

/// Named accessors: for each member of an anonymous union field (`__bindgen_anon_1`), a
/// getter (`unsafe`: the caller says which member is the active one) and a safe setter; for
/// each `[c_char; N]` field, `<field>_cstr` and `<field>_str` reading up to the first NUL.
/// A name that would collide with a field or another accessor is left out.
fn accessors(r: &BoundRecord, by_name: &HashMap<&str, &BoundRecord>, names: &Names) -> TokenStream {
    let ty = ident(&r.name);
    let mut taken: Vec<String> = r.abi.fields.iter().map(|f| f.name.clone()).collect();
    let mut items = Vec::new();
    for f in &r.abi.fields {
        let fid = ident(&f.name);
        if let CType::Array { of, len } = &f.ty.c {
            if matches!(&**of, CType::Primitive { name } if name == "char") {
                let cs = format!("{}_cstr", f.name);
                let st = format!("{}_str", f.name);
                if taken.contains(&cs) || taken.contains(&st) {
                    continue;
                }
                taken.push(cs.clone());
                taken.push(st.clone());
                let (cs, st) = (ident(&cs), ident(&st));
                let len = Literal::usize_unsuffixed(*len as usize);
                let doc1 = format!(
                    "The string in `{}`, up to its first NUL; `None` when it holds no NUL.",
                    f.name
                );
                let doc2 = format!("The string in `{}` as UTF-8, up to its first NUL; `None` when it holds no NUL or is not UTF-8.", f.name);
                items.push(quote! {
                    #[doc = #doc1]
                    pub fn #cs(&self) -> Option<&::core::ffi::CStr> {
                        // SAFETY: the array is `#len` initialised `c_char`s, which have the size
                        // and alignment of `u8`; the slice borrows `self`.
                        let bytes: &[u8] = unsafe {
                            ::core::slice::from_raw_parts(self.#fid.as_ptr().cast::<u8>(), #len)
                        };
                        ::core::ffi::CStr::from_bytes_until_nul(bytes).ok()
                    }
                    #[doc = #doc2]
                    pub fn #st(&self) -> Option<&str> {
                        self.#cs().and_then(|s| s.to_str().ok())
                    }
                });
            }
            continue;
        }
        if !is_anon(&f.name) {
            continue;
        }
        let Some(u) = f.ty.c.base_name().and_then(|n| by_name.get(n)) else {
            continue;
        };
        if f.ty.c.pointer_depth() != 0 || u.abi.kind != RecordKind::Union {
            continue;
        }
        for m in &u.abi.fields {
            let set = format!("set_{}", m.name.trim_end_matches('_'));
            let get = m.name.trim_end_matches('_').to_string();
            if is_anon(&m.name) || taken.contains(&get) || taken.contains(&set) {
                continue;
            }
            taken.push(get.clone());
            taken.push(set.clone());
            let mid = ident(&m.name);
            let t = rust_type(&m.ty.c, names);
            let (g, st) = (ident(&get), ident(&set));
            let gdoc = format!(
                "The union member `{}` of `{}` (C: `{}.{}`).\n\n# Safety\n\n`{}` must be the member last written (the one the documentation says is in use here).",
                m.name, f.name, r.name, m.name, m.name
            );
            let sdoc = format!(
                "Writes the union member `{}` of `{}` (C: `{}.{}`), making it the one in use.",
                m.name, f.name, r.name, m.name
            );
            items.push(quote! {
                #[doc = #gdoc]
                #[inline]
                pub unsafe fn #g(&self) -> #t {
                    // SAFETY: the caller says this member is the one in use.
                    unsafe { self.#fid.#mid }
                }
                #[doc = #sdoc]
                #[inline]
                pub fn #st(&mut self, value: #t) {
                    self.#fid.#mid = value;
                }
            });
        }
    }
    if items.is_empty() {
        return quote! {};
    }
    quote! {
        impl #ty { #(#items)* }
    }
}

/// Readable names for the nested types bindgen names `Parent__bindgen_ty_N`: an alias
/// `Parent_field` after the field of the parent that has the type (`Parent_anonN` for an
/// anonymous field), when no record already has that name.
fn nested_aliases(records: &[BoundRecord]) -> Vec<TokenStream> {
    let existing: Vec<&str> = records.iter().map(|r| r.name.as_str()).collect();
    let mut made: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut readable: HashMap<String, String> = HashMap::default();
    for r in records {
        let parent = readable
            .get(&r.name)
            .cloned()
            .unwrap_or_else(|| r.name.clone());
        for f in &r.abi.fields {
            let Some(n) = f.ty.c.base_name() else {
                continue;
            };
            if !n.contains("__bindgen_ty_") || !n.starts_with(r.name.as_str()) {
                continue;
            }
            let part = match f.name.strip_prefix("__bindgen_anon_") {
                Some(k) => format!("anon{k}"),
                None => f.name.trim_end_matches('_').to_string(),
            };
            let alias = format!("{parent}_{part}");
            if existing.contains(&alias.as_str())
                || made.contains(&alias)
                || readable.contains_key(n)
            {
                continue;
            }
            readable.insert(n.to_string(), alias.clone());
            made.push(alias.clone());
            let (a, t) = (ident(&alias), ident(n));
            let doc = format!(
                "A readable name for [`{n}`]: the type of `{}.{}`.",
                r.name, f.name
            );
            out.push(quote! {
                #[doc = #doc]
                pub type #a = #t;
            });
        }
    }
    out
}

/// `From` the handle over `*mut T` into the handle over `*const T` (`cudaArray_t` →
/// `cudaArray_const_t`), for every such pair of handle typedefs.
fn const_pairs(typedefs: &[BoundTypedef]) -> Vec<TokenStream> {
    let target = |t: &BoundTypedef| match (&t.abi.kind, &t.abi.ty.c) {
        (TypedefKind::Handle, CType::Pointer { to, is_const }) => Some((to.c_text(), *is_const)),
        _ => None,
    };
    let mut out = Vec::new();
    for m in typedefs {
        let Some((to, false)) = target(m) else {
            continue;
        };
        for c in typedefs {
            if target(c) == Some((to.clone(), true)) {
                let (mi, ci) = (ident(&m.name), ident(&c.name));
                let doc = format!(
                    "The same handle, as the `const` handle type (`{}` → `{}`).",
                    m.name, c.name
                );
                out.push(quote! {
                    impl ::core::convert::From<#mi> for #ci {
                        #[doc = #doc]
                        #[inline]
                        fn from(h: #mi) -> Self {
                            Self(h.0.cast_const())
                        }
                    }
                });
            }
        }
    }
    out
}

/// The items of record `r`: its struct or union (or, when opaque, a zero-sized struct) and
/// its all-zero `Default`.
fn record<'a>(
    r: &'a BoundRecord,
    names: &Names,
    problems: &mut DocProblems,
    types: &mut TypeCache<'a>,
    items: &mut Vec<syn::Item>,
) -> Result<(), syn::Error> {
    let ty = ident(&r.name);
    let doc = docs::attr_syntax(&record_doc(r, names, problems));
    if r.abi.opaque {
        let mut opaque = fill!(
            syn::ItemStruct,
            {
                #[repr(C)]
                pub struct __T {
                    _opaque: [u8; 0],
                }
            },
            __T = ty,
        )?;
        opaque.attrs.splice(0..0, doc);
        items.push(syn::Item::Struct(opaque));
        return Ok(());
    }
    let align = align_attr(r)?;
    let fields = record_fields(r, names, problems, types)?;
    let mut def = definition(r, &ty, fields)?;
    if let syn::Item::Struct(syn::ItemStruct { attrs, .. })
    | syn::Item::Union(syn::ItemUnion { attrs, .. }) = &mut def
    {
        attrs.splice(1..1, align);
        attrs.splice(0..0, doc);
    }
    let mut zeroed: syn::ItemMacro = syn::parse2(quote! { zeroed_default!(T); })?;
    zeroed.mac.tokens = quote! { #ty };
    items.push(def);
    items.push(syn::Item::Macro(zeroed));
    Ok(())
}

/// The documentation of record `r`: the docs' description (or what it is when they have
/// none), its release note and the layout changes within the major release.
fn record_doc(r: &BoundRecord, names: &Names, problems: &mut DocProblems) -> String {
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
    let mut md = docs::with_since(&md, r.since.as_ref());
    if !r.layout_changes.is_empty() {
        let changes: Vec<String> = r.layout_changes.iter().map(|c| c.sentence()).collect();
        md.push_str(&format!(
            "\n\nIts layout changed between minor releases of this major (a runtime older than the change reads or writes the older layout): {}",
            changes.join(" ")
        ));
    }
    md
}

/// `#[repr(align(n))]` when the ABI gives record `r` an alignment, else nothing.
fn align_attr(r: &BoundRecord) -> Result<Vec<syn::Attribute>, syn::Error> {
    let align = r.abi.repr.iter().find_map(|a| {
        a.strip_prefix("align(")
            .and_then(|x| x.strip_suffix(')'))
            .and_then(|n| n.parse::<usize>().ok())
    });
    Ok(match align {
        Some(n) => {
            let n = Literal::usize_unsuffixed(n);
            syn::parse::Parser::parse2(syn::Attribute::parse_outer, quote! { #[repr(align(#n))] })?
        }
        None => Vec::new(),
    })
}

/// The public fields of record `r`, each with the docs' text for it (matched by name, a
/// trailing `_` ignored); a bitfield unit is plain bytes.
fn record_fields<'a>(
    r: &'a BoundRecord,
    names: &Names,
    problems: &mut DocProblems,
    types: &mut TypeCache<'a>,
) -> Result<syn::punctuated::Punctuated<syn::Field, syn::Token![,]>, syn::Error> {
    let mut fields = syn::punctuated::Punctuated::new();
    for f in &r.abi.fields {
        let ty = if f.bitfield_unit {
            syn::parse2(bitfield_storage(&f.ty.c, names))?
        } else {
            types.get(&f.ty.c, names)?.1.clone()
        };
        let text = r
            .field_docs
            .iter()
            .find(|(n, _)| n == &f.name || n.trim_end_matches('_') == f.name.trim_end_matches('_'))
            .map(|(_, d)| d.as_str())
            .unwrap_or("");
        let md = docs::markdown(text, names, &format!("{}.{}", r.name, f.name), problems);
        fields.push(syn::Field {
            attrs: docs::attr_syntax(&md),
            vis: syn::Visibility::Public(Default::default()),
            modifiers: Default::default(),
            ident: Some(ident(&f.name)),
            colon_token: Some(Default::default()),
            ty,
            default: None,
        });
        fields.push_punct(Default::default());
    }
    Ok(fields)
}

/// The struct or union `ty` of record `r` with `fields`, `#[repr(C)]` and its derives.
///
/// A struct's `Debug` is derived (every field type of the crate has one); a union's is
/// written by `debug_impl`.
fn definition(
    r: &BoundRecord,
    ty: &proc_macro2::Ident,
    fields: syn::punctuated::Punctuated<syn::Field, syn::Token![,]>,
) -> Result<syn::Item, syn::Error> {
    Ok(match r.abi.kind {
        RecordKind::Struct => {
            let mut s = fill!(
                syn::ItemStruct,
                {
                    #[repr(C)]
                    #[derive(Clone, Copy, Debug)]
                    pub struct __T {}
                },
                __T = ty.clone(),
            )?;
            if let syn::Fields::Named(named) = &mut s.fields {
                named.named = fields;
            }
            syn::Item::Struct(s)
        }
        RecordKind::Union => {
            let mut u = fill!(
                syn::ItemUnion,
                {
                    #[repr(C)]
                    #[derive(Clone, Copy)]
                    pub union __T {}
                },
                __T = ty.clone(),
            )?;
            u.fields.named = fields;
            syn::Item::Union(u)
        }
    })
}

/// A bindgen bitfield unit is plain bytes of the given size.
fn bitfield_storage(c: &CType, names: &Names) -> TokenStream {
    match c {
        CType::Array { .. } => rust_type(c, names),
        _ => quote! { [u8; 0] },
    }
}

fn typedef<'a>(
    t: &'a BoundTypedef,
    names: &Names,
    problems: &mut DocProblems,
    types: &mut TypeCache<'a>,
    items: &mut Vec<syn::Item>,
) -> Result<(), syn::Error> {
    let ty = ident(&t.name);
    let mut md = match &t.doc {
        Some(d) => docs::markdown(d, names, &t.name, problems),
        None => format!("The C typedef `{}`.", t.name),
    };
    if md.trim().is_empty() {
        md = format!("The C typedef `{}`.", t.name);
    }
    let mut md = docs::with_since(&md, t.since.as_ref());
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
            let owner = names.library().owner();
            md.push_str(&format!("\n\nAn opaque handle: a pointer-sized value owned by {owner}. The null handle is [`Self::null`]."));
            let mut def = fill!(
                syn::ItemStruct,
                {
                    #[repr(transparent)]
                    #[derive(Clone, Copy, PartialEq, Eq, Hash)]
                    pub struct __T(pub __P);
                },
                __T = ty.clone(),
                __P = syn::parse2::<syn::Type>(ptr.clone())?,
            )?;
            def.attrs.splice(0..0, docs::attr_syntax(&md));
            let mut mac: syn::ItemMacro = syn::parse2(quote! { c_handle!(T, P); })?;
            mac.mac.tokens = quote! { #ty, #ptr };
            items.push(syn::Item::Struct(def));
            items.push(syn::Item::Macro(mac));
        }
        _ => {
            let target = match &t.abi.ty.c {
                CType::Primitive { name } if name == "void" => {
                    syn::parse2(rust_type(&t.abi.ty.c, names))?
                }
                c => types.get(c, names)?.1.clone(),
            };
            let mut alias = fill!(
                syn::ItemType,
                {
                    pub type __T = __Target;
                },
                __T = ty,
                __Target = target,
            )?;
            alias.attrs.splice(0..0, docs::attr_syntax(&md));
            items.push(syn::Item::Type(alias));
        }
    }
    Ok(())
}
