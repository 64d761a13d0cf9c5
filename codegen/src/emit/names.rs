//! Names in emitted code: identifiers, the C-type to Rust-type mapping, and the table that
//! resolves a documentation name to the Rust path of the item emitted for it (for intra-doc
//! links). The Rust names themselves are decided in the model ([`crate::bind::naming`]).

use foldhash::HashMap;

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::abi::CType;
use crate::bind::Bindings;

/// Rust types of C types for items built as syntax trees: each distinct type's tokens made
/// and parsed once (`void` is `()`).
#[derive(Default)]
pub struct TypeCache<'a>(HashMap<&'a CType, (TokenStream, syn::Type)>);

impl<'a> TypeCache<'a> {
    /// The tokens and the syntax tree of the Rust type for `c`.
    pub fn get(
        &mut self,
        c: &'a CType,
        names: &Names,
    ) -> Result<&(TokenStream, syn::Type), syn::Error> {
        if !self.0.contains_key(c) {
            let tokens = match c {
                CType::Primitive { name } if name == "void" => quote! { () },
                other => rust_type(other, names),
            };
            let parsed = syn::parse2(tokens.clone())?;
            self.0.insert(c, (tokens, parsed));
        }
        Ok(&self.0[c])
    }
}

/// The module path under which the raw layer is reachable (`runtime::sys`).
pub const SYS: &str = "crate::sys";

/// An identifier, raw (`r#type`) when it is a Rust keyword.
pub fn ident(name: &str) -> Ident {
    if matches!(name, "self" | "Self" | "super" | "crate" | "_") || name.is_empty() {
        return Ident::new(&format!("{name}_"), Span::call_site());
    }
    if is_plain_ident(name) {
        Ident::new(name, Span::call_site())
    } else {
        Ident::new_raw(name, Span::call_site())
    }
}

/// Whether `name` is an identifier that is no Rust keyword (what `syn` accepts as an `Ident`),
/// checked without a parser: a codegen run asks this for every name it emits.
pub fn is_plain_ident(name: &str) -> bool {
    if name.is_ascii() {
        // The common case, without the Unicode tables (which agree with this on ASCII).
        let mut bytes = name.bytes();
        let start = bytes
            .next()
            .is_some_and(|c| c == b'_' || c.is_ascii_alphabetic());
        return start
            && bytes.all(|c| c == b'_' || c.is_ascii_alphanumeric())
            && name != "_"
            && !is_keyword(name);
    }
    let mut chars = name.chars();
    let start = chars
        .next()
        .is_some_and(|c| c == '_' || unicode_ident::is_xid_start(c));
    start && chars.all(unicode_ident::is_xid_continue) && name != "_" && !is_keyword(name)
}

/// Rust's strict and reserved keywords (2018 edition and later), as `syn` rejects them.
fn is_keyword(name: &str) -> bool {
    // None is longer than 8 bytes: most names are, and need no comparison.
    name.len() <= 8
        && matches!(
            name,
            "abstract"
                | "as"
                | "async"
                | "await"
                | "become"
                | "box"
                | "break"
                | "const"
                | "continue"
                | "crate"
                | "do"
                | "dyn"
                | "else"
                | "enum"
                | "extern"
                | "false"
                | "final"
                | "fn"
                | "for"
                | "if"
                | "impl"
                | "in"
                | "let"
                | "loop"
                | "macro"
                | "match"
                | "mod"
                | "move"
                | "mut"
                | "override"
                | "priv"
                | "pub"
                | "ref"
                | "return"
                | "self"
                | "Self"
                | "static"
                | "struct"
                | "super"
                | "trait"
                | "true"
                | "try"
                | "type"
                | "typeof"
                | "unsafe"
                | "unsized"
                | "use"
                | "virtual"
                | "where"
                | "while"
                | "yield"
        )
}

/// The Rust type for a C type of the ABI, naming emitted items by their emitted names.
pub fn rust_type(c: &CType, names: &Names) -> TokenStream {
    match c {
        CType::Primitive { name } => primitive(name),
        CType::Named { name } => {
            let id = ident(names.type_name(name));
            quote! { #id }
        }
        CType::Pointer { to, is_const } => {
            let inner = rust_type(to, names);
            if *is_const {
                quote! { *const #inner }
            } else {
                quote! { *mut #inner }
            }
        }
        CType::Array { of, len } => {
            let inner = rust_type(of, names);
            let len = proc_macro2::Literal::usize_unsuffixed(*len as usize);
            quote! { [#inner; #len] }
        }
        CType::FnPtr {
            params,
            ret,
            nullable,
        } => {
            let ps = params.iter().map(|p| {
                let id = ident(&p.name);
                let t = rust_type(&p.ty.c, names);
                quote! { #id: #t }
            });
            let r = match &**ret {
                CType::Primitive { name } if name == "void" => quote! {},
                other => {
                    let t = rust_type(other, names);
                    quote! { -> #t }
                }
            };
            let f = quote! { unsafe extern "C" fn(#(#ps),*) #r };
            if *nullable {
                quote! { Option<#f> }
            } else {
                f
            }
        }
        CType::Unknown { text } => {
            // Unknown types were reported by the ABI reader; keep the layout-neutral choice.
            let _ = text;
            quote! { c_void }
        }
    }
}

/// The C scalar types of [`core::ffi`] that [`rust_type`] names without their path; every
/// generated module that holds types imports them (`use` of this list).
pub fn ffi_imports() -> TokenStream {
    quote! {
        use ::core::ffi::{
            c_char, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulong,
            c_ulonglong, c_ushort, c_void,
        };
    }
}

/// The Rust type of a C scalar: the [`core::ffi`] types by their bare names (see
/// [`ffi_imports`]), fixed-width and size types as Rust's own, others by name.
fn primitive(name: &str) -> TokenStream {
    match name {
        "void" => quote! { c_void },
        "char" => quote! { c_char },
        "signed char" => quote! { c_schar },
        "unsigned char" => quote! { c_uchar },
        "short" => quote! { c_short },
        "unsigned short" => quote! { c_ushort },
        "int" => quote! { c_int },
        "unsigned int" => quote! { c_uint },
        "long" => quote! { c_long },
        "unsigned long" => quote! { c_ulong },
        "long long" => quote! { c_longlong },
        "unsigned long long" => quote! { c_ulonglong },
        "float" => quote! { f32 },
        "double" => quote! { f64 },
        "size_t" => quote! { usize },
        "ptrdiff_t" => quote! { isize },
        "uint8_t" => quote! { u8 },
        "int8_t" => quote! { i8 },
        "uint16_t" => quote! { u16 },
        "int16_t" => quote! { i16 },
        "uint32_t" => quote! { u32 },
        "int32_t" => quote! { i32 },
        "uint64_t" => quote! { u64 },
        "int64_t" => quote! { i64 },
        "bool" => quote! { bool },
        other => {
            let id = ident(&other.replace(' ', "_"));
            quote! { #id }
        }
    }
}

/// Where each documentation name is emitted, for intra-doc links and type references.
#[derive(Debug, Default)]
pub struct Names {
    /// ABI type name → emitted type name (enums are emitted under their documented name).
    types: HashMap<String, String>,
    /// Documentation name → Rust path.
    links: HashMap<String, String>,
    /// Record name → the handle typedef over a non-const pointer to it (`cudaGraphicsResource`
    /// → `cudaGraphicsResource_t`), when exactly one exists.
    handles: HashMap<String, String>,
    /// C function name → the path of its typed wrapper, for the functions that have one.
    typed: HashMap<String, String>,
    /// The library bound.
    library: crate::library::Library,
}

impl Names {
    /// C function name → the path of its typed wrapper ([`super::typed::paths`]).
    pub fn typed_paths(&self) -> &HashMap<String, String> {
        &self.typed
    }

    /// The library the names are for (its status type, its error variant).
    pub fn library(&self) -> crate::library::Library {
        self.library
    }

    /// The handle type over `*mut <record>`, if the crate has exactly one.
    pub fn handle_over(&self, record: &str) -> Option<&str> {
        self.handles.get(record).map(String::as_str)
    }

    /// Builds the table for `b`: every emitted item, enum member, flag member and constant.
    pub fn for_bindings(b: &Bindings) -> Names {
        let mut n = Names {
            typed: super::typed::paths(&b.functions),
            library: b.library,
            ..Names::default()
        };
        let mut handles: HashMap<String, Vec<String>> = HashMap::default();
        for t in &b.typedefs {
            if let (
                crate::abi::TypedefKind::Handle,
                CType::Pointer {
                    to,
                    is_const: false,
                },
            ) = (&t.abi.kind, &t.abi.ty.c)
            {
                if let CType::Named { name } = &**to {
                    handles
                        .entry(name.clone())
                        .or_default()
                        .push(t.name.clone());
                }
            }
        }
        n.handles = handles
            .into_iter()
            .filter_map(|(k, v)| match v.as_slice() {
                [one] => Some((k, one.clone())),
                _ => None,
            })
            .collect();
        for e in &b.enums {
            n.types.insert(e.abi.name.clone(), e.name.clone());
            n.link(&e.name, format!("{SYS}::{}", e.name));
            for a in &e.aliases {
                n.link(a, format!("{SYS}::{a}"));
            }
            for (v, rust) in e.abi.values.iter().zip(&e.member_names) {
                n.link(&v.name, format!("{SYS}::{}::{rust}", e.name));
            }
        }
        for r in &b.records {
            n.link(&r.name, format!("{SYS}::{}", r.name));
            for a in &r.abi.aliases {
                n.link(a, format!("{SYS}::{a}"));
            }
        }
        for t in &b.typedefs {
            n.link(&t.name, format!("{SYS}::{}", t.name));
        }
        for f in &b.functions {
            n.link(&f.name, format!("{SYS}::{}", f.name));
        }
        for g in &b.flag_groups {
            for (c, r, _) in &g.members {
                n.link(c, format!("{SYS}::{}::{r}", g.name));
            }
        }
        for k in &b.constants {
            n.link(&k.name, format!("{SYS}::{}", k.name));
        }
        n
    }

    /// Records that documentation name `name` links to `path` (first registration wins).
    pub fn link(&mut self, name: &str, path: String) {
        self.links.entry(name.to_string()).or_insert(path);
    }

    /// The emitted name of ABI type `name`.
    pub fn type_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.types.get(name).map_or(name, String::as_str)
    }

    /// The Rust path of documentation name `name`.
    pub fn path(&self, name: &str) -> Option<&str> {
        self.links.get(name).map(String::as_str)
    }
}

impl crate::rustdoc::Links for Names {
    fn resolve(&self, name: &str) -> Option<String> {
        self.path(name).map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_become_raw_identifiers() {
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("size").to_string(), "size");
    }

    #[test]
    fn plain_identifiers_are_what_syn_accepts() {
        for name in [
            "size",
            "_x",
            "x1",
            "_",
            "1x",
            "",
            "type",
            "a-b",
            "a b",
            "cudaError_t",
            "Self",
            "self",
            "async",
            "gen",
            "union",
            "é",
            "xé",
            "x\u{3000}",
            "\u{fffd}",
            "_\u{300}",
            "名前",
            "a\u{200d}",
            "ℕ",
        ] {
            assert_eq!(
                is_plain_ident(name),
                syn::parse_str::<proc_macro2::Ident>(name).is_ok_and(|i| i == name),
                "{name:?}"
            );
        }
    }
}
