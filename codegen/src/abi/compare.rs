//! Compares two ABI models item by item: the headers' ABI of a release with cudarc's for the
//! same release (the independent check), or any two snapshots.
//!
//! For every function both declare: return type, parameter count, and each parameter's name
//! and C type in order. For every record: kind, opacity, field names, types and order, and the
//! size, alignment and field offsets: clang's numbers where a model has them (bindgen's layout
//! tests), else computed from the model's own field types ([`super::layout`]). For every enum: the
//! representation and every enumerator's value. For typedefs: the type; for constants: the
//! value. Items only one side declares are differences too. Each difference is reported with
//! what differs; judging *why* is the caller's (the cudarc test keeps a reviewed table of
//! reasons). It changes neither model.

use std::fmt;

use super::layout;
use super::{Abi, Enum, Field, Function, Record};

/// What kind of item a difference is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ItemKind {
    Function,
    Record,
    Enum,
    Typedef,
    Constant,
}

impl ItemKind {
    /// Lower-case name as printed.
    pub fn name(self) -> &'static str {
        match self {
            ItemKind::Function => "function",
            ItemKind::Record => "record",
            ItemKind::Enum => "enum",
            ItemKind::Typedef => "typedef",
            ItemKind::Constant => "constant",
        }
    }
}

/// How an item differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DiffKind {
    /// Declared by the left model only.
    OnlyLeft,
    /// Declared by the right model only.
    OnlyRight,
    /// Declared by both, differently.
    Changed,
}

/// One difference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    pub item: ItemKind,
    pub name: String,
    pub kind: DiffKind,
    /// What differs (`parameter 2 `size`: `size_t` vs `unsigned int``), empty for
    /// [`DiffKind::OnlyLeft`]/[`DiffKind::OnlyRight`].
    pub detail: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            DiffKind::OnlyLeft => {
                write!(f, "{} `{}` only on the left", self.item.name(), self.name)
            }
            DiffKind::OnlyRight => {
                write!(f, "{} `{}` only on the right", self.item.name(), self.name)
            }
            DiffKind::Changed => write!(f, "{} `{}`: {}", self.item.name(), self.name, self.detail),
        }
    }
}

/// How much was compared: items both sides declare, and their parts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub functions: usize,
    pub parameters: usize,
    pub records: usize,
    pub fields: usize,
    /// Records whose size and alignment both sides know (recorded or computed).
    pub layouts: usize,
    /// … of which at least one side's numbers were computed from its field types.
    pub layouts_computed: usize,
    /// Fields whose offset both sides know.
    pub offsets: usize,
    pub enums: usize,
    pub enum_values: usize,
    pub typedefs: usize,
    pub constants: usize,
}

/// The outcome of [`compare`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    pub counts: Counts,
    pub differences: Vec<Difference>,
}

/// Compares `left` with `right`.
pub fn compare(left: &Abi, right: &Abi) -> Comparison {
    let mut c = Comparison::default();
    presence(
        &mut c,
        ItemKind::Function,
        &left.functions,
        &right.functions,
    );
    presence(&mut c, ItemKind::Record, &left.records, &right.records);
    presence(&mut c, ItemKind::Enum, &left.enums, &right.enums);
    presence(&mut c, ItemKind::Typedef, &left.typedefs, &right.typedefs);
    presence(
        &mut c,
        ItemKind::Constant,
        &left.constants,
        &right.constants,
    );

    for (name, l) in &left.functions {
        let Some(r) = right.functions.get(name) else {
            continue;
        };
        c.counts.functions += 1;
        let details = function_details(&mut c.counts, l, r);
        changed(&mut c, ItemKind::Function, name, details);
    }

    for (name, l) in &left.records {
        let Some(r) = right.records.get(name) else {
            continue;
        };
        c.counts.records += 1;
        let details = record_details(&mut c.counts, (left, l), (right, r));
        changed(&mut c, ItemKind::Record, name, details);
    }

    for (name, l) in &left.enums {
        let Some(r) = right.enums.get(name) else {
            continue;
        };
        c.counts.enums += 1;
        let details = enum_details(&mut c.counts, l, r);
        changed(&mut c, ItemKind::Enum, name, details);
    }

    for (name, l) in &left.typedefs {
        let Some(r) = right.typedefs.get(name) else {
            continue;
        };
        c.counts.typedefs += 1;
        let mut details = Vec::new();
        if l.ty.c != r.ty.c {
            details.push(format!("`{}` vs `{}`", l.ty.c_text, r.ty.c_text));
        }
        changed(&mut c, ItemKind::Typedef, name, details);
    }

    for (name, l) in &left.constants {
        let Some(r) = right.constants.get(name) else {
            continue;
        };
        c.counts.constants += 1;
        let mut details = Vec::new();
        if l.value != r.value {
            details.push(format!("{} vs {}", l.value, r.value));
        }
        changed(&mut c, ItemKind::Constant, name, details);
    }
    c
}

/// How two declarations of one function differ: return type, parameter count, and each
/// shared parameter's name and type (counted in `counts`).
fn function_details(counts: &mut Counts, l: &Function, r: &Function) -> Vec<String> {
    let mut details = Vec::new();
    if l.ret.c != r.ret.c {
        details.push(format!("returns `{}` vs `{}`", l.ret.c_text, r.ret.c_text));
    }
    if l.params.len() != r.params.len() {
        details.push(format!(
            "{} parameters vs {}",
            l.params.len(),
            r.params.len()
        ));
    }
    for (i, (a, b)) in l.params.iter().zip(&r.params).enumerate() {
        counts.parameters += 1;
        if a.name != b.name {
            details.push(format!(
                "parameter {} named `{}` vs `{}`",
                i + 1,
                a.name,
                b.name
            ));
        }
        if a.ty.c != b.ty.c {
            details.push(format!(
                "parameter {} `{}`: `{}` vs `{}`",
                i + 1,
                a.name,
                a.ty.c_text,
                b.ty.c_text
            ));
        }
    }
    details
}

/// How two declarations of one enum differ: representation, the values of the enumerators
/// both declare (counted in `counts`), and the enumerators only one declares.
fn enum_details(counts: &mut Counts, l: &Enum, r: &Enum) -> Vec<String> {
    let mut details = Vec::new();
    if l.repr != r.repr {
        details.push(format!("represented as `{}` vs `{}`", l.repr, r.repr));
    }
    for v in &l.values {
        match r.values.iter().find(|w| w.name == v.name) {
            Some(w) => {
                counts.enum_values += 1;
                if v.value != w.value {
                    details.push(format!("`{}` = {} vs {}", v.name, v.value, w.value));
                }
            }
            None => details.push(format!("enumerator `{}` only on the left", v.name)),
        }
    }
    for w in &r.values {
        if !l.values.iter().any(|v| v.name == w.name) {
            details.push(format!("enumerator `{}` only on the right", w.name));
        }
    }
    details
}

fn presence<T>(
    c: &mut Comparison,
    item: ItemKind,
    left: &indexmap::IndexMap<String, T>,
    right: &indexmap::IndexMap<String, T>,
) {
    for name in left.keys().filter(|n| !right.contains_key(*n)) {
        c.differences.push(Difference {
            item,
            name: name.clone(),
            kind: DiffKind::OnlyLeft,
            detail: String::new(),
        });
    }
    for name in right.keys().filter(|n| !left.contains_key(*n)) {
        c.differences.push(Difference {
            item,
            name: name.clone(),
            kind: DiffKind::OnlyRight,
            detail: String::new(),
        });
    }
}

fn changed(c: &mut Comparison, item: ItemKind, name: &str, details: Vec<String>) {
    if !details.is_empty() {
        c.differences.push(Difference {
            item,
            name: name.to_string(),
            kind: DiffKind::Changed,
            detail: details.join("; "),
        });
    }
}

/// A record's size, alignment and field offsets (by field name): clang's when recorded,
/// else computed; `computed` says which.
struct SideLayout {
    size: u64,
    align: u64,
    offsets: Vec<(String, Option<u64>)>,
    computed: bool,
}

fn side_layout(abi: &Abi, r: &Record) -> Option<SideLayout> {
    if let (Some(size), Some(align)) = (r.size, r.align) {
        return Some(SideLayout {
            size,
            align,
            offsets: r
                .fields
                .iter()
                .map(|f| (f.name.clone(), f.offset))
                .collect(),
            computed: false,
        });
    }
    let l = layout::record_layout(abi, &r.name)?;
    Some(SideLayout {
        size: l.size,
        align: l.align,
        offsets: r
            .fields
            .iter()
            .zip(l.offsets)
            .map(|(f, o)| (f.name.clone(), Some(o)))
            .collect(),
        computed: true,
    })
}

fn record_details(
    counts: &mut Counts,
    (left, l): (&Abi, &Record),
    (right, r): (&Abi, &Record),
) -> Vec<String> {
    let mut details = Vec::new();
    if l.kind != r.kind {
        details.push(format!("{:?} vs {:?}", l.kind, r.kind));
    }
    if l.opaque != r.opaque {
        details.push(format!("opaque: {} vs {}", l.opaque, r.opaque));
    }
    if let (Some(a), Some(b)) = (side_layout(left, l), side_layout(right, r)) {
        counts.layouts += 1;
        if a.computed || b.computed {
            counts.layouts_computed += 1;
        }
        if a.size != b.size {
            details.push(format!("size {} vs {}", a.size, b.size));
        }
        if a.align != b.align {
            details.push(format!("alignment {} vs {}", a.align, b.align));
        }
        for (name, x) in &a.offsets {
            let y = b
                .offsets
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, o)| *o);
            if let (Some(x), Some(y)) = (x, y) {
                counts.offsets += 1;
                if *x != y {
                    details.push(format!("field `{name}` at offset {x} vs {y}"));
                }
            }
        }
    }
    let names = |fs: &[Field]| fs.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
    if names(&l.fields) != names(&r.fields) {
        details.push(format!(
            "fields [{}] vs [{}]",
            names(&l.fields).join(", "),
            names(&r.fields).join(", ")
        ));
    }
    for a in &l.fields {
        let Some(b) = r.fields.iter().find(|b| b.name == a.name) else {
            continue;
        };
        counts.fields += 1;
        if a.ty.c != b.ty.c {
            details.push(format!(
                "field `{}`: `{}` vs `{}`",
                a.name, a.ty.c_text, b.ty.c_text
            ));
        }
    }
    details
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::read_bindgen_output;
    use crate::ir::Release;

    fn read(text: &str) -> Abi {
        read_bindgen_output(text, "t.rs", &Release(vec![13, 2]))
    }

    #[test]
    fn same_model_has_no_differences() {
        let a = read(
            "#[repr(C)] pub struct S { pub a: ::core::ffi::c_int }\n\
             extern \"C\" { pub fn cudaF(x: ::core::ffi::c_int) -> ::core::ffi::c_int; }\n",
        );
        let c = compare(&a, &a);
        assert!(c.differences.is_empty(), "{:?}", c.differences);
        assert_eq!(c.counts.functions, 1);
        assert_eq!(c.counts.parameters, 1);
        assert_eq!(c.counts.fields, 1);
    }

    #[test]
    fn each_kind_of_difference_is_reported() {
        let a = read(
            "#[repr(C)] pub struct S { pub a: ::core::ffi::c_int, pub b: u8 }\n\
             const _: () = { [\"Size of S\"][::core::mem::size_of::<S>() - 8usize]; \
             [\"Alignment of S\"][::core::mem::align_of::<S>() - 4usize]; \
             [\"Offset of field: S::b\"][::core::mem::offset_of!(S, b) - 4usize]; };\n\
             #[repr(u32)] pub enum E { A = 1, B = 2 }\n\
             pub const K: u32 = 3;\n\
             extern \"C\" { pub fn cudaF(x: ::core::ffi::c_int, y: usize); pub fn cudaOnlyA(); }\n",
        );
        let b = read(
            "#[repr(C)] pub struct S { pub a: ::core::ffi::c_uint, pub b: u8 }\n\
             const _: () = { [\"Size of S\"][::core::mem::size_of::<S>() - 8usize]; \
             [\"Alignment of S\"][::core::mem::align_of::<S>() - 4usize]; \
             [\"Offset of field: S::b\"][::core::mem::offset_of!(S, b) - 5usize]; };\n\
             #[repr(u32)] pub enum E { A = 1, B = 3, C = 4 }\n\
             pub const K: u32 = 4;\n\
             extern \"C\" { pub fn cudaF(x: ::core::ffi::c_int); pub fn cudaOnlyB(); }\n",
        );
        assert_eq!(a.records["S"].size, Some(8));
        assert_eq!(a.records["S"].fields[1].offset, Some(4));
        let c = compare(&a, &b);
        let shown: Vec<String> = c.differences.iter().map(|d| d.to_string()).collect();
        assert!(
            shown.contains(&"function `cudaOnlyA` only on the left".to_string()),
            "{shown:#?}"
        );
        assert!(shown.contains(&"function `cudaOnlyB` only on the right".to_string()));
        assert!(shown
            .iter()
            .any(|s| s.starts_with("function `cudaF`: 2 parameters vs 1")));
        assert!(shown
            .iter()
            .any(|s| s.contains("field `a`: `int` vs `unsigned int`")
                && s.contains("field `b` at offset 4 vs 5")));
        assert!(shown
            .iter()
            .any(|s| s.contains("`B` = 2 vs 3") && s.contains("enumerator `C` only on the right")));
        assert!(shown.contains(&"constant `K`: 3 vs 4".to_string()));
        assert_eq!(c.counts.layouts, 1);
        // Both sides recorded the offset of `b` only.
        assert_eq!(c.counts.offsets, 1);
        assert_eq!(c.counts.layouts_computed, 0);
        // Without layout tests on one side, its numbers are computed from its field types.
        let plain = read("#[repr(C)] pub struct S { pub a: ::core::ffi::c_int, pub b: u8 }\n");
        let c = compare(&a, &plain);
        assert_eq!((c.counts.layouts, c.counts.layouts_computed), (1, 1));
        assert!(
            c.differences.iter().all(|d| !d.detail.contains("offset")),
            "{:?}",
            c.differences
        );
    }
}
