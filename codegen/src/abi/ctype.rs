//! Maps the Rust types bindgen writes back to a small C type model.
//!
//! `::core::ffi::c_uint` → `unsigned int`, `usize` → `size_t`, `*mut *mut c_void` → `void**`,
//! `[c_char; 256usize]` → `char[256]`, `Option<unsafe extern "C" fn(..)>` → a nullable
//! function pointer with its parameter names. A type it cannot read becomes
//! [`CType::Unknown`] and a diagnostic. It does not resolve names (see [`super::link`]).

use quote::ToTokens;
use serde::{Deserialize, Serialize};
use syn::{Expr, GenericArgument, Lit, PathArguments, ReturnType, Type};

use super::Param;
use crate::diag::Diagnostics;

/// A type as the ABI source writes it: the Rust text, the C spelling and the structure.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AbiType {
    /// The Rust tokens, compacted (`*mut ::core::ffi::c_void`).
    pub rust: String,
    /// The C spelling (`void*`, `const char*`, `char[256]`).
    pub c_text: String,
    /// The structure.
    pub c: CType,
}

impl AbiType {
    /// Wraps a structured type, computing its C spelling.
    pub fn new(rust: String, c: CType) -> AbiType {
        AbiType {
            rust,
            c_text: c.c_text(),
            c,
        }
    }

    /// `void`, the type of a function without a return type.
    pub fn void() -> AbiType {
        AbiType::new(
            "()".to_string(),
            CType::Primitive {
                name: "void".to_string(),
            },
        )
    }
}

/// A C type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CType {
    /// A C scalar by its C name (`unsigned int`, `size_t`, `void`, `uint32_t`).
    Primitive { name: String },
    /// A type the ABI source declares (struct, union, enum, typedef).
    Named { name: String },
    /// `T*`; `is_const` when the pointee is const (`const T*`).
    Pointer { to: Box<CType>, is_const: bool },
    /// `T[len]`.
    Array { of: Box<CType>, len: u64 },
    /// A function pointer; `nullable` when wrapped in `Option` (a C function pointer that
    /// may be NULL, as bindgen writes every C one).
    FnPtr {
        params: Vec<Param>,
        ret: Box<CType>,
        nullable: bool,
    },
    /// Something not understood (also reported as a diagnostic).
    Unknown { text: String },
}

impl CType {
    /// Number of pointer levels before the base type (`void**` → 2).
    pub fn pointer_depth(&self) -> usize {
        match self {
            CType::Pointer { to, .. } => 1 + to.pointer_depth(),
            _ => 0,
        }
    }

    /// The type under all pointers and arrays.
    pub fn base(&self) -> &CType {
        match self {
            CType::Pointer { to, .. } => to.base(),
            CType::Array { of, .. } => of.base(),
            other => other,
        }
    }

    /// The name of the base type, primitive or declared.
    pub fn base_name(&self) -> Option<&str> {
        match self.base() {
            CType::Primitive { name } | CType::Named { name } => Some(name),
            _ => None,
        }
    }

    /// Whether the outermost pointer points to const.
    pub fn is_const_pointer(&self) -> bool {
        matches!(self, CType::Pointer { is_const: true, .. })
    }

    /// Every declared name this type mentions (callback parameters included).
    pub fn named(&self, out: &mut Vec<String>) {
        match self {
            CType::Named { name } => out.push(name.clone()),
            CType::Pointer { to, .. } => to.named(out),
            CType::Array { of, .. } => of.named(out),
            CType::FnPtr { params, ret, .. } => {
                for p in params {
                    p.ty.c.named(out);
                }
                ret.named(out);
            }
            CType::Primitive { .. } | CType::Unknown { .. } => {}
        }
    }

    /// The C spelling: `void**`, `const char*`, `char* const*`, `char[256]`,
    /// `void (*)(void*)`.
    pub fn c_text(&self) -> String {
        match self {
            CType::Primitive { name } | CType::Named { name } => name.clone(),
            CType::Pointer { to, is_const } => match (&**to, is_const) {
                (CType::Pointer { .. }, true) => format!("{} const*", to.c_text()),
                (CType::FnPtr { .. }, _) => format!("{}*", to.c_text()),
                (_, true) => format!("const {}*", to.c_text()),
                (_, false) => format!("{}*", to.c_text()),
            },
            CType::Array { of, len } => format!("{}[{len}]", of.c_text()),
            CType::FnPtr { params, ret, .. } => {
                let ps: Vec<String> = params.iter().map(|p| p.ty.c_text.clone()).collect();
                let ps = if ps.is_empty() {
                    "void".to_string()
                } else {
                    ps.join(", ")
                };
                format!("{} (*)({ps})", ret.c_text())
            }
            CType::Unknown { text } => text.clone(),
        }
    }
}

/// The C name of a Rust scalar or `core::ffi` type name, if it is one.
pub fn c_primitive(rust: &str) -> Option<&'static str> {
    Some(match rust {
        "c_void" => "void",
        "c_char" => "char",
        "c_schar" => "signed char",
        "c_uchar" => "unsigned char",
        "c_short" => "short",
        "c_ushort" => "unsigned short",
        "c_int" => "int",
        "c_uint" => "unsigned int",
        "c_long" => "long",
        "c_ulong" => "unsigned long",
        "c_longlong" => "long long",
        "c_ulonglong" => "unsigned long long",
        "c_float" | "f32" => "float",
        "c_double" | "f64" => "double",
        "usize" => "size_t",
        "isize" => "ptrdiff_t",
        "u8" => "uint8_t",
        "i8" => "int8_t",
        "u16" => "uint16_t",
        "i16" => "int16_t",
        "u32" => "uint32_t",
        "i32" => "int32_t",
        "u64" => "uint64_t",
        "i64" => "int64_t",
        "bool" => "bool",
        _ => return None,
    })
}

/// Rust text of tokens, spaced as rustfmt would for a type (`*mut ::core::ffi::c_void`,
/// `[c_char; 256usize]`, `fn(a: T) -> R`).
pub fn rust_text(tokens: &impl ToTokens) -> String {
    let mut out = String::new();
    write_tokens(tokens.to_token_stream(), &mut out);
    out
}

/// The last thing written, for spacing decisions.
#[derive(Clone, Copy, PartialEq)]
enum Prev {
    Start,
    Word,
    Keyword,
    SpaceAfter,
    JointColon,
    JointMinus,
    Other,
}

fn write_tokens(stream: proc_macro2::TokenStream, out: &mut String) {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    let mut prev = Prev::Start;
    for tt in stream {
        match tt {
            TokenTree::Ident(i) => {
                if matches!(prev, Prev::Word | Prev::Keyword | Prev::SpaceAfter) {
                    out.push(' ');
                }
                let word = i.to_string();
                out.push_str(&word);
                prev = if matches!(word.as_str(), "mut" | "const" | "dyn" | "as") {
                    Prev::Keyword
                } else {
                    Prev::Word
                };
            }
            TokenTree::Literal(l) => {
                if matches!(prev, Prev::Word | Prev::Keyword | Prev::SpaceAfter) {
                    out.push(' ');
                }
                out.push_str(&l.to_string());
                prev = Prev::Word;
            }
            TokenTree::Punct(p) => {
                let c = p.as_char();
                let joint = p.spacing() == Spacing::Joint;
                if (c == '-' && joint) || matches!(prev, Prev::Keyword | Prev::SpaceAfter) {
                    out.push(' ');
                }
                out.push(c);
                prev = match c {
                    ':' if joint => Prev::JointColon,
                    ':' if prev == Prev::JointColon => Prev::Other,
                    '-' if joint => Prev::JointMinus,
                    '>' if prev == Prev::JointMinus => {
                        out.push(' ');
                        Prev::Other
                    }
                    ',' | ';' | ':' | '=' => Prev::SpaceAfter,
                    _ => Prev::Other,
                };
            }
            TokenTree::Group(g) => {
                if matches!(prev, Prev::SpaceAfter)
                    || (prev == Prev::Keyword && g.delimiter() != Delimiter::Parenthesis)
                {
                    out.push(' ');
                }
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_tokens(g.stream(), out);
                out.push_str(close);
                prev = Prev::Word;
            }
        }
    }
}

/// Reads a Rust type; what it cannot read becomes [`CType::Unknown`] and an error at `line`.
pub fn read_type(ty: &Type, diags: &mut Diagnostics, line: u32) -> AbiType {
    let c = to_c(ty, diags, line);
    AbiType::new(rust_text(ty), c)
}

/// A function's return type: `void` when absent or `()`.
pub fn read_return(ret: &ReturnType, diags: &mut Diagnostics, line: u32) -> AbiType {
    match ret {
        ReturnType::Default => AbiType::void(),
        ReturnType::Type(_, ty) => read_type(ty, diags, line),
    }
}

fn unknown(ty: &impl ToTokens, why: &str, diags: &mut Diagnostics, line: u32) -> CType {
    let text = rust_text(ty);
    diags.error(line, format!("type `{text}` not understood: {why}"));
    CType::Unknown { text }
}

fn to_c(ty: &Type, diags: &mut Diagnostics, line: u32) -> CType {
    match ty {
        Type::Ptr(p) => CType::Pointer {
            to: Box::new(to_c(&p.elem, diags, line)),
            is_const: matches!(p.mutability, syn::PointerMutability::Const(_)),
        },
        Type::Array(a) => match array_len(&a.len) {
            Some(len) => CType::Array {
                of: Box::new(to_c(&a.elem, diags, line)),
                len,
            },
            None => unknown(ty, "array length is not an integer literal", diags, line),
        },
        Type::Tuple(t) if t.elems.is_empty() => CType::Primitive {
            name: "void".to_string(),
        },
        Type::Paren(p) => to_c(&p.elem, diags, line),
        Type::Group(g) => to_c(&g.elem, diags, line),
        Type::FnPtr(f) => bare_fn(f, false, diags, line),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return unknown(ty, "empty path", diags, line);
            };
            let name = last.ident.to_string();
            match &last.arguments {
                PathArguments::None => match c_primitive(&name) {
                    Some(c) => CType::Primitive {
                        name: c.to_string(),
                    },
                    None if p.path.segments.len() == 1 => CType::Named { name },
                    None => unknown(ty, "a path to a type outside the module", diags, line),
                },
                PathArguments::AngleBracketed(args) if name == "Option" && args.args.len() == 1 => {
                    match args.args.first() {
                        Some(GenericArgument::Type(Type::FnPtr(f))) => {
                            bare_fn(f, true, diags, line)
                        }
                        _ => unknown(
                            ty,
                            "`Option` of something other than a function",
                            diags,
                            line,
                        ),
                    }
                }
                _ => unknown(ty, "generic type", diags, line),
            }
        }
        _ => unknown(ty, "unsupported kind of type", diags, line),
    }
}

fn bare_fn(f: &syn::TypeFnPtr, nullable: bool, diags: &mut Diagnostics, line: u32) -> CType {
    if f.variadic.is_some() {
        diags.error(
            line,
            "variadic function pointer: the `...` part is not modelled",
        );
    }
    let params = f
        .inputs
        .iter()
        .enumerate()
        .map(|(i, arg)| Param {
            name: arg
                .name
                .as_ref()
                .map(|(n, _)| n.to_string())
                .unwrap_or_else(|| format!("arg{}", i + 1)),
            ty: read_type(&arg.ty, diags, line),
        })
        .collect();
    let ret = read_return(&f.output, diags, line).c;
    CType::FnPtr {
        params,
        ret: Box::new(ret),
        nullable,
    }
}

/// The value of an array length such as `256usize` or `14`.
fn array_len(expr: &Expr) -> Option<u64> {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        Expr::Group(g) => array_len(&g.expr),
        Expr::Paren(p) => array_len(&p.expr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> (String, CType, usize) {
        let ty: Type = syn::parse_str(text).expect("test type parses");
        let mut d = Diagnostics::new("t.rs");
        let t = read_type(&ty, &mut d, 1);
        (t.c_text, t.c, d.into_vec().len())
    }

    #[test]
    fn scalars_and_pointers() {
        assert_eq!(c("::core::ffi::c_uint").0, "unsigned int");
        assert_eq!(c("usize").0, "size_t");
        assert_eq!(c("*mut *mut ::core::ffi::c_void").0, "void**");
        assert_eq!(c("*mut *mut ::core::ffi::c_void").1.pointer_depth(), 2);
        assert_eq!(c("*const ::core::ffi::c_char").0, "const char*");
        assert_eq!(c("*mut *const ::core::ffi::c_char").0, "const char**");
        assert_eq!(c("*const *mut ::core::ffi::c_char").0, "char* const*");
        assert_eq!(c("cudaStream_t").0, "cudaStream_t");
        assert_eq!(c("[::core::ffi::c_char; 256usize]").0, "char[256]");
    }

    #[test]
    fn rust_text_is_compact() {
        let t = |text: &str| rust_text(&syn::parse_str::<Type>(text).expect("test type parses"));
        assert_eq!(
            t("*mut *mut ::core::ffi::c_void"),
            "*mut *mut ::core::ffi::c_void"
        );
        assert_eq!(t("*const c_char"), "*const c_char");
        assert_eq!(
            t("[::core::ffi::c_char; 256usize]"),
            "[::core::ffi::c_char; 256usize]"
        );
        assert_eq!(
            t("::core::option::Option<unsafe extern \"C\" fn(a: *mut X, b: u32) -> cudaError_t>"),
            "::core::option::Option<unsafe extern \"C\" fn(a: *mut X, b: u32) -> cudaError_t>"
        );
    }

    #[test]
    fn callbacks_keep_parameter_names() {
        let (text, ty, n) = c(
            "::core::option::Option<unsafe extern \"C\" fn(stream: cudaStream_t, userData: *mut ::core::ffi::c_void)>",
        );
        assert_eq!(n, 0);
        assert_eq!(text, "void (*)(cudaStream_t, void*)");
        match ty {
            CType::FnPtr {
                params, nullable, ..
            } => {
                assert!(nullable);
                let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
                assert_eq!(names, ["stream", "userData"]);
            }
            other => panic!("not a function pointer: {other:?}"),
        }
    }

    #[test]
    fn unknown_types_are_reported() {
        let (_, ty, n) = c("Vec<u8>");
        assert!(matches!(ty, CType::Unknown { .. }));
        assert_eq!(n, 1);
        let (_, _, n) = c("[u8; N]");
        assert_eq!(n, 1);
        let (_, _, n) = c("std::string::String");
        assert_eq!(n, 1);
    }
}
