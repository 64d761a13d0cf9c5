//! Verification tables for the generated raw layer, written to `tests/generated/`:
//!
//! - `layout_probe.cpp`, a C++17 program that includes `cuda_runtime_api.h` and prints one
//!   `key value` line per entry: `size R` and `align R` for each record, `offset R.f` for each
//!   field (relative to the start of `R`), `value E.cudaMember` for each enum constant;
//! - `layout_table.rs`, the same keys computed by Rust (`size_of`, `align_of`, `offset_of!`,
//!   `as_raw()`) on the emitted types, plus the list of what is not compared and why;
//! - `symbols_table.rs`, the names of the emitted raw functions and every `cudaError_t`
//!   constant with its C name, for the live-library test.
//!
//! Anonymous nested records (`cudaResourceDesc__bindgen_ty_1`) have no C name: the probe
//! reaches them through their parent's field path (`offsetof(cudaResourceDesc, res.array)`),
//! and a record that is an unnamed member (bindgen's `__bindgen_anon_1`) is reached through
//! its first field, which starts where it starts.
//!
//! Not compared, each listed in the table's `SKIPPED` with its reason: opaque records (an
//! incomplete type in C has no size), the size and alignment of unnamed-member records (C++
//! cannot name their type; their fields' offsets and the parent's size are compared), and
//! bindgen's bitfield storage (`_bitfield_1`, `_bitfield_align_1`: C bitfields have no
//! offset; the storage's effect shows in the record's size and alignment and the offset of
//! the next field). This module does not compile or run anything; the tests do.

use foldhash::HashMap;
use std::fmt::Write;

use proc_macro2::TokenStream;
use quote::quote;

use super::enums::str_expr;
use super::fill::fill;
use super::names::ident;
use crate::abi::CType;
use crate::bind::{Bindings, BoundRecord};

/// One comparison: the key both sides print, and how each side computes its value.
#[derive(Clone, Debug)]
pub struct Entry {
    pub key: String,
    /// A C++ expression of integer type.
    pub cpp: String,
    /// How the Rust side computes the value (an `i128` constant expression).
    pub rust: RustValue,
}

/// A Rust constant expression of type `i128` for an [`Entry`], by the emitted names it uses.
/// Plain data (not tokens), so that the tables can be shared by the threads that format the
/// generated files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RustValue {
    /// `size_of` the record.
    Size { record: String },
    /// `align_of` the record.
    Align { record: String },
    /// `offset_of!` a field of the record.
    Offset { record: String, field: String },
    /// The raw value of an enum's constant.
    Value { ty: String, member: String },
}

impl RustValue {
    /// The row as a call of one of the audit test's macros (`size!(R)`, `align!(R)`,
    /// `offset!(R, f)`, `value!(E, cudaMember, MEMBER)`), which spell `key` from the names:
    /// a fraction of the tokens of the expression, for the formatter and the compiler. `None`
    /// where a name is not a plain identifier or the key would differ, for the full row.
    fn row(&self, key: &str) -> Option<syn::Expr> {
        let plain = |names: &[&str]| names.iter().all(|n| super::names::is_plain_ident(n));
        // `key` is `<what> <rest>`, compared without building the expected key.
        let is = |what: &str, rest: &[&str]| {
            let Some(mut k) = key.strip_prefix(what).and_then(|k| k.strip_prefix(' ')) else {
                return false;
            };
            for (i, part) in rest.iter().enumerate() {
                if i > 0 {
                    let Some(after) = k.strip_prefix('.') else {
                        return false;
                    };
                    k = after;
                }
                let Some(after) = k.strip_prefix(part) else {
                    return false;
                };
                k = after;
            }
            k.is_empty()
        };
        let (name, args) = match self {
            RustValue::Size { record } if plain(&[record]) && is("size", &[record]) => {
                let r = ident(record);
                ("size", quote! { #r })
            }
            RustValue::Align { record } if plain(&[record]) && is("align", &[record]) => {
                let r = ident(record);
                ("align", quote! { #r })
            }
            RustValue::Offset { record, field }
                if plain(&[record, field]) && is("offset", &[record, field]) =>
            {
                let (r, f) = (ident(record), ident(field));
                ("offset", quote! { #r, #f })
            }
            RustValue::Value { ty, member } => {
                let c_name = key
                    .strip_prefix("value ")
                    .and_then(|k| k.strip_prefix(ty.as_str()))
                    .and_then(|k| k.strip_prefix('.'))?;
                if !plain(&[ty, member, c_name]) {
                    return None;
                }
                let (e, c, m) = (ident(ty), ident(c_name), ident(member));
                ("value", quote! { #e, #c, #m })
            }
            _ => return None,
        };
        // Built as a syntax tree: thousands of rows, each a macro call, which syn would parse
        // back from tokens through its expression parser for nothing.
        Some(syn::Expr::Macro(syn::ExprMacro {
            attrs: Vec::new(),
            mac: syn::Macro {
                path: syn::Path::from(ident(name)),
                bang_token: Default::default(),
                delimiter: syn::MacroDelimiter::Paren(Default::default()),
                tokens: args,
            },
        }))
    }

    /// The expression, with the crate under audit as `krate`.
    pub fn tokens(&self) -> TokenStream {
        match self {
            RustValue::Size { record } => {
                let ty = ident(record);
                quote! { ::core::mem::size_of::<krate::sys::#ty>() as i128 }
            }
            RustValue::Align { record } => {
                let ty = ident(record);
                quote! { ::core::mem::align_of::<krate::sys::#ty>() as i128 }
            }
            RustValue::Offset { record, field } => {
                let (ty, fid) = (ident(record), ident(field));
                quote! { ::core::mem::offset_of!(krate::sys::#ty, #fid) as i128 }
            }
            RustValue::Value { ty, member } => {
                let (ty, k) = (ident(ty), ident(member));
                quote! { krate::sys::#ty::#k.as_raw() as i128 }
            }
        }
    }
}

/// Everything the probe compares, and what it leaves out with the reason.
#[derive(Debug, Default)]
pub struct Tables {
    pub entries: Vec<Entry>,
    /// `(item, reason)` for each record, size or field that is not compared.
    pub skipped: Vec<(String, String)>,
}

/// How C reaches an emitted record: from a named root type through a field path. Unnamed
/// members (bindgen's `__bindgen_anon_N`) add no name to the path.
#[derive(Clone, Debug)]
struct Access {
    root: String,
    /// C member path from `root` (`res.array`); empty for the root itself.
    path: String,
    /// Whether the record's own type can be named in C (`decltype` of the path).
    nameable: bool,
}

/// The prefix bindgen gives unnamed members.
const ANON: &str = "__bindgen_anon_";

/// Builds the comparison entries for all records and enums of `b`.
pub fn tables(b: &Bindings) -> Tables {
    let by_abi: HashMap<&str, &BoundRecord> =
        b.records.iter().map(|r| (r.abi.name.as_str(), r)).collect();
    let mut t = Tables::default();
    for r in &b.records {
        record_entries(r, &by_abi, &mut t);
    }
    for e in &b.enums {
        for (v, rust) in e.abi.values.iter().zip(&e.member_names) {
            t.entries.push(Entry {
                key: format!("value {}.{}", e.name, v.name),
                cpp: v.name.clone(),
                rust: RustValue::Value {
                    ty: e.name.clone(),
                    member: rust.clone(),
                },
            });
        }
    }
    t
}

fn record_entries(r: &BoundRecord, by_abi: &HashMap<&str, &BoundRecord>, t: &mut Tables) {
    if r.abi.opaque {
        t.skipped.push((
            r.name.clone(),
            "opaque: an incomplete type in C, it has no layout".into(),
        ));
        return;
    }
    let Some(acc) = access(r, by_abi, 0) else {
        t.skipped.push((
            r.name.clone(),
            "anonymous record that no field of its parent holds: C cannot reach it".into(),
        ));
        return;
    };
    if acc.nameable {
        let c_ty = c_type_of(&acc);
        t.entries.push(Entry {
            key: format!("size {}", r.name),
            cpp: format!("SIZE({c_ty})"),
            rust: RustValue::Size {
                record: r.name.clone(),
            },
        });
        t.entries.push(Entry {
            key: format!("align {}", r.name),
            cpp: format!("ALIGN({c_ty})"),
            rust: RustValue::Align {
                record: r.name.clone(),
            },
        });
    } else {
        t.skipped.push((
            format!("size and align of {}", r.name),
            "an unnamed member: C++ cannot name its type (its fields' offsets are compared)".into(),
        ));
    }
    let Some(base) = start(r, &acc, by_abi, 0) else {
        t.skipped.push((
            format!("fields of {}", r.name),
            "no C expression gives where the record starts".into(),
        ));
        return;
    };
    for f in &r.abi.fields {
        let at = format!("{}.{}", r.name, f.name);
        if f.bitfield_unit {
            t.skipped.push((
                at,
                "bitfield storage: C bitfields have no offset (size and next field show it)".into(),
            ));
            continue;
        }
        let c_off = if f.name.starts_with(ANON) {
            let inner = match &f.ty.c {
                CType::Named { name } => by_abi.get(name.as_str()).copied(),
                _ => None,
            };
            inner.and_then(|i| {
                let a = access(i, by_abi, 0)?;
                start(i, &a, by_abi, 0)
            })
        } else {
            Some(format!(
                "OFF({}, {})",
                acc.root,
                join(&acc.path, f.c_name())
            ))
        };
        let Some(c_off) = c_off else {
            t.skipped
                .push((at, "an unnamed member C cannot reach".into()));
            continue;
        };
        t.entries.push(Entry {
            key: format!("offset {at}"),
            cpp: if base == "0" {
                c_off
            } else {
                format!("{c_off} - {base}")
            },
            rust: RustValue::Offset {
                record: r.name.clone(),
                field: f.name.clone(),
            },
        });
    }
}

/// The C++ type of the record `access` reaches.
fn c_type_of(a: &Access) -> String {
    if a.path.is_empty() {
        a.root.clone()
    } else {
        format!("MEMBER_T({}, {})", a.root, a.path)
    }
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

/// Nesting deeper than this is treated as a cycle in the parent links.
const MAX_DEPTH: usize = 16;

/// How C reaches `r` (see [`Access`]); `None` when no field of its parent holds it.
fn access(r: &BoundRecord, by_abi: &HashMap<&str, &BoundRecord>, depth: usize) -> Option<Access> {
    let Some(parent) = &r.abi.parent else {
        return Some(Access {
            root: r.abi.name.clone(),
            path: String::new(),
            nameable: true,
        });
    };
    if depth > MAX_DEPTH {
        return None;
    }
    let p = by_abi.get(parent.as_str())?;
    let pa = access(p, by_abi, depth + 1)?;
    let (field, is_array) = p.abi.fields.iter().find_map(|f| match &f.ty.c {
        CType::Named { name } if *name == r.abi.name => Some((f, false)),
        CType::Array { of, .. } if matches!(&**of, CType::Named { name } if *name == r.abi.name) => {
            Some((f, true))
        }
        _ => None,
    })?;
    if field.name.starts_with(ANON) {
        return Some(Access {
            nameable: false,
            ..pa
        });
    }
    let step = if is_array {
        format!("{}[0]", field.c_name())
    } else {
        field.c_name().to_string()
    };
    Some(Access {
        path: join(&pa.path, &step),
        root: pa.root,
        nameable: true,
    })
}

/// A C++ expression for the offset of `r` within its root: `0` for a root, `OFF(root, path)`
/// for a named member, and for an unnamed member the offset of its first field.
fn start(
    r: &BoundRecord,
    a: &Access,
    by_abi: &HashMap<&str, &BoundRecord>,
    depth: usize,
) -> Option<String> {
    if a.path.is_empty() && a.nameable {
        return Some("0".into());
    }
    if a.nameable {
        return Some(format!("OFF({}, {})", a.root, a.path));
    }
    if depth > MAX_DEPTH {
        return None;
    }
    let first = r.abi.fields.first()?;
    if first.bitfield_unit {
        return None;
    }
    if first.name.starts_with(ANON) {
        let CType::Named { name } = &first.ty.c else {
            return None;
        };
        let inner = by_abi.get(name.as_str())?;
        let ia = access(inner, by_abi, 0)?;
        return start(inner, &ia, by_abi, depth + 1);
    }
    Some(format!(
        "OFF({}, {})",
        a.root,
        join(&a.path, first.c_name())
    ))
}

/// The C++ probe source for `library`'s headers; `preamble` is the `//` comment block of every
/// generated file.
pub fn cpp_source(preamble: &str, t: &Tables, library: crate::library::Library) -> String {
    let mut s = String::from(preamble);
    s.push_str(
        "//
// Layout probe: prints `key value` for every entry of the LAYOUT table (tables.rs beside it),
// computed by the C++ compiler from the CUDA headers. Built and run by tests/audit.rs:
//   c++ -std=c++17 -I<the release's include folders> -Iinclude layout_probe.cpp
@STAND_INS@// C++ rather than C: struct tags and typedef names are both type names, and `decltype`
// reaches the anonymous records through their parent's fields.

#include <cstddef>
#include <cstdio>
#include <type_traits>

@INCLUDES@
// The type of member path P of record R.
#define MEMBER_T(R, P) std::remove_reference_t<decltype(((R *)nullptr)->P)>
#define SIZE(T) ((long long)sizeof(T))
#define ALIGN(T) ((long long)alignof(T))
#define OFF(R, P) ((long long)offsetof(R, P))

namespace {
struct Entry {
    const char *key;
    long long value;
};

const Entry entries[] = {
",
    );
    for e in &t.entries {
        let _ = writeln!(s, "    {{\"{}\", (long long)({})}},", e.key, e.cpp);
    }
    s.push_str(
        "};
} // namespace

int main() {
    for (const Entry &e : entries) {
        std::printf(\"%s %lld\\n\", e.key, e.value);
    }
    std::printf(\"entries %zu\\n\", sizeof entries / sizeof entries[0]);
    return 0;
}
",
    );
    let includes: String = library
        .api_headers()
        .iter()
        .map(|h| format!("#include <{h}>\n"))
        .collect();
    let stand_ins = if library.needs_platform_stand_ins() {
        "// (include/ beside it holds stand-ins for the GL, EGL and VDPAU headers the interop APIs need).\n"
    } else {
        ""
    };
    s.replace("@INCLUDES@", &format!("{includes}\n"))
        .replace("@STAND_INS@", stand_ins)
}

/// The body of `layout_table.rs`.
pub fn rust_table(t: &Tables) -> Result<Vec<syn::Item>, syn::Error> {
    let skipped = t
        .skipped
        .iter()
        .map(|(what, why)| quote! { (#what, #why), });
    let mut file: syn::File = syn::parse2(quote! {
        /// `(key, value)` computed on the Rust side for every entry the C++ probe prints:
        /// `size R`, `align R`, `offset R.field` (from the start of `R`), `value Enum.cudaMember`.
        /// Most rows are a call of one of the test's macros (`size!`, `align!`, `offset!`,
        /// `value!`, in `tests/audit.rs`), which spell the key from the names.
        pub static LAYOUT: &[(&str, i128)] = &[];

        /// `(item, reason)` for what is not compared.
        pub const SKIPPED: &[(&str, &str)] = &[#(#skipped)*];
    })?;
    let mut rows = syn::punctuated::Punctuated::new();
    for e in &t.entries {
        let row = match e.rust.row(&e.key) {
            Some(row) => row,
            None => {
                let key = &e.key;
                let v = e.rust.tokens();
                syn::parse2(quote! { (#key, #v) })?
            }
        };
        rows.push(row);
    }
    // Every row ends with a comma, as prettyplease prints a list broken over lines.
    if !rows.is_empty() {
        rows.push_punct(Default::default());
    }
    if let Some(syn::Item::Static(layout)) = file.items.first_mut() {
        if let syn::Expr::Reference(r) = &mut *layout.expr {
            if let syn::Expr::Array(a) = &mut *r.expr {
                a.elems = rows;
            }
        }
    }
    Ok(file.items)
}

/// The symbol and error tables of the audit test: every symbol the raw functions load, and
/// every error constant with its C name. Built as syntax trees (hundreds of string literals
/// parsed back from tokens were most of this table's cost).
pub fn symbols_table(b: &Bindings, error_enum: &str) -> Result<Vec<syn::Item>, syn::Error> {
    let errors = b
        .enums
        .iter()
        .find(|e| e.name == error_enum || e.aliases.iter().any(|a| a == error_enum));
    let ty = ident(errors.map_or(error_enum, |e| e.name.as_str()));
    let mut file: syn::File = syn::parse2(quote! {
        /// The symbols the emitted raw functions load (`sys::cudaXxx`, or the versioned symbol a
        /// header renames it to).
        pub const FUNCTIONS: &[&str] = &[];

        /// Every emitted error constant with its C name (its `#[doc(alias)]`).
        pub const ERRORS: &[(krate::sys::#ty, &str)] = &[];
    })?;
    let fns: Vec<syn::Expr> = b.functions.iter().map(|f| str_expr(&f.symbol)).collect();
    let rows: Vec<syn::Expr> = match errors {
        Some(e) => e
            .abi
            .values
            .iter()
            .zip(&e.member_names)
            .map(|(v, rust)| {
                fill!(
                    syn::Expr,
                    { (krate::sys::__T::__k, __c) },
                    __T = ty.clone(),
                    __k = ident(rust),
                    __c = str_expr(&v.name),
                )
            })
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    for (item, list) in file.items.iter_mut().zip([fns, rows]) {
        if let syn::Item::Const(c) = item {
            if let syn::Expr::Reference(r) = &mut *c.expr {
                if let syn::Expr::Array(a) = &mut *r.expr {
                    a.elems = list.into_iter().collect();
                }
            }
        }
    }
    Ok(file.items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::{AbiType, Field, Record, RecordKind};

    fn field(name: &str, c: CType) -> Field {
        Field {
            name: name.into(),
            ty: AbiType::new(String::new(), c),
            bitfield_unit: name.starts_with("_bitfield_"),
            offset: None,
            line: 1,
        }
    }

    fn named(n: &str) -> CType {
        CType::Named { name: n.into() }
    }

    fn int() -> CType {
        CType::Primitive { name: "int".into() }
    }

    fn record(
        name: &str,
        kind: RecordKind,
        parent: Option<&str>,
        fields: Vec<Field>,
    ) -> BoundRecord {
        BoundRecord {
            name: name.into(),
            abi: Record {
                name: name.into(),
                kind,
                repr: vec!["C".into()],
                opaque: fields.is_empty(),
                fields,
                parent: parent.map(str::to_string),
                nested: Vec::new(),
                aliases: Vec::new(),
                size: None,
                align: None,
                header: None,
                line: 1,
            },
            doc: None,
            field_docs: Vec::new(),
            section: None,
            source: None,
            since: None,
            layout_changes: Vec::new(),
        }
    }

    /// `struct P { int type; union { int x; int y; }; struct { int z; } s[2]; bits }` and an
    /// opaque `Q`.
    fn sample() -> Bindings {
        let records = vec![
            record(
                "P",
                RecordKind::Struct,
                None,
                vec![
                    field("type_", int()),
                    field("__bindgen_anon_1", named("P__bindgen_ty_1")),
                    field(
                        "s",
                        CType::Array {
                            of: Box::new(named("P__bindgen_ty_2")),
                            len: 2,
                        },
                    ),
                    field(
                        "_bitfield_1",
                        CType::Array {
                            of: Box::new(CType::Primitive {
                                name: "uint8_t".into(),
                            }),
                            len: 4,
                        },
                    ),
                ],
            ),
            record(
                "P__bindgen_ty_1",
                RecordKind::Union,
                Some("P"),
                vec![field("x", int()), field("y", int())],
            ),
            record(
                "P__bindgen_ty_2",
                RecordKind::Struct,
                Some("P"),
                vec![field("z", int())],
            ),
            record("Q", RecordKind::Struct, None, Vec::new()),
        ];
        Bindings {
            records,
            ..Bindings::default()
        }
    }

    fn cpp_of<'a>(t: &'a Tables, key: &str) -> Option<&'a str> {
        t.entries
            .iter()
            .find(|e| e.key == key)
            .map(|e| e.cpp.as_str())
    }

    #[test]
    fn nested_records_are_reached_through_their_parent() {
        let t = tables(&sample());
        assert_eq!(cpp_of(&t, "size P"), Some("SIZE(P)"));
        // A keyword field is named as C writes it.
        assert_eq!(cpp_of(&t, "offset P.type_"), Some("OFF(P, type)"));
        // An unnamed member starts where its first field does.
        assert_eq!(cpp_of(&t, "offset P.__bindgen_anon_1"), Some("OFF(P, x)"));
        assert_eq!(
            cpp_of(&t, "offset P__bindgen_ty_1.y"),
            Some("OFF(P, y) - OFF(P, x)")
        );
        assert_eq!(cpp_of(&t, "size P__bindgen_ty_1"), None);
        // A record in an array is reached through its first element.
        assert_eq!(
            cpp_of(&t, "size P__bindgen_ty_2"),
            Some("SIZE(MEMBER_T(P, s[0]))")
        );
        assert_eq!(
            cpp_of(&t, "offset P__bindgen_ty_2.z"),
            Some("OFF(P, s[0].z) - OFF(P, s[0])")
        );
        let rust = t
            .entries
            .iter()
            .find(|e| e.key == "offset P.type_")
            .map(|e| e.rust.tokens().to_string().replace(' ', ""));
        assert_eq!(
            rust.as_deref(),
            Some("::core::mem::offset_of!(krate::sys::P,type_)asi128")
        );
    }

    #[test]
    fn what_is_not_compared_is_listed_with_a_reason() {
        let t = tables(&sample());
        let skipped: Vec<&str> = t.skipped.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(
            skipped,
            ["P._bitfield_1", "size and align of P__bindgen_ty_1", "Q"]
        );
        assert!(t.skipped.iter().all(|(_, why)| !why.is_empty()));
        assert!(t.entries.iter().all(|e| !e.key.contains("_bitfield_")));
        assert!(t.entries.iter().all(|e| !e.key.contains(" Q")));
    }

    #[test]
    fn the_probe_prints_every_entry_and_the_count() {
        let t = tables(&sample());
        let cpp = cpp_source("// header\n", &t, crate::library::Library::Cudart);
        assert!(cpp.starts_with("// header\n"));
        assert!(cpp.contains("#include <cuda_runtime_api.h>"));
        assert!(cpp.contains(
            r#"{"offset P__bindgen_ty_2.z", (long long)(OFF(P, s[0].z) - OFF(P, s[0]))},"#
        ));
        assert_eq!(cpp.matches("(long long)(").count(), t.entries.len());
        assert!(cpp.contains(r#"std::printf("entries %zu\n""#));
        assert_eq!(join("", "a"), "a");
    }
}
