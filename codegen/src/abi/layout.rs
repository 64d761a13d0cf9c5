//! Computes a record's C layout (size, alignment, field offsets) from the field types the
//! model declares, by the x86-64 System V rules (LP64) that NVIDIA's Linux wheels are built
//! for: each field at the next multiple of its alignment, the record's alignment the largest
//! of its fields' (raised by `#[repr(align(N))]`, lowered by `#[repr(packed)]`), its size a
//! multiple of that alignment; a union's fields all at 0.
//!
//! bindgen's output reproduces C's layout with explicit padding, bitfield storage units and
//! alignment markers (`_bitfield_align_1: [u32; 0]`), so this gives clang's numbers when the
//! model's types are right. It is how a model without layout tests (cudarc's) is checked
//! against the numbers clang gave for the headers ([`super::compare`]), and how a snapshot's
//! own numbers are checked against its field types. It knows no CUDA names.

use super::{Abi, CType, RecordKind};

/// A computed layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub size: u64,
    pub align: u64,
    /// The offset of each field, in declaration order.
    pub offsets: Vec<u64>,
}

/// The layout of record `name` of `abi`, or `None` when it is opaque or a type in it is not
/// understood.
pub fn record_layout(abi: &Abi, name: &str) -> Option<Layout> {
    record(abi, name, 0)
}

/// Size and alignment of a C type, `None` when unknown (`void`, opaque, not understood).
pub fn size_align(abi: &Abi, ty: &CType) -> Option<(u64, u64)> {
    type_layout(abi, ty, 0)
}

/// Deeper than this, a type is taken as recursive (a bug in the model) and not computed.
const MAX_DEPTH: usize = 64;

fn record(abi: &Abi, name: &str, depth: usize) -> Option<Layout> {
    if depth > MAX_DEPTH {
        return None;
    }
    let r = abi.records.get(name)?;
    if r.opaque {
        return None;
    }
    let packed = r.repr.iter().find_map(|a| {
        if a == "packed" {
            Some(1)
        } else {
            repr_arg(a, "packed")
        }
    });
    let min_align = r
        .repr
        .iter()
        .find_map(|a| repr_arg(a, "align"))
        .unwrap_or(1);
    let mut offsets = Vec::with_capacity(r.fields.len());
    let mut end = 0u64;
    let mut align = 1u64;
    for f in &r.fields {
        let (size, field_align) = type_layout(abi, &f.ty.c, depth + 1)?;
        let field_align = packed.map_or(field_align, |p| field_align.min(p));
        align = align.max(field_align);
        match r.kind {
            RecordKind::Struct => {
                let at = round_up(end, field_align);
                offsets.push(at);
                end = at + size;
            }
            RecordKind::Union => {
                offsets.push(0);
                end = end.max(size);
            }
        }
    }
    let align = align.max(min_align);
    Some(Layout {
        size: round_up(end, align),
        align,
        offsets,
    })
}

/// `align(8)` → 8 for `key` `align`.
fn repr_arg(arg: &str, key: &str) -> Option<u64> {
    let inner = arg
        .strip_prefix(key)?
        .trim()
        .strip_prefix('(')?
        .strip_suffix(')')?;
    inner.trim().parse().ok()
}

fn round_up(x: u64, align: u64) -> u64 {
    if align <= 1 {
        x
    } else {
        x.div_ceil(align) * align
    }
}

fn type_layout(abi: &Abi, ty: &CType, depth: usize) -> Option<(u64, u64)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match ty {
        CType::Pointer { .. } | CType::FnPtr { .. } => Some((8, 8)),
        CType::Array { of, len } => {
            let (size, align) = type_layout(abi, of, depth + 1)?;
            Some((size * len, align))
        }
        CType::Primitive { name } => primitive(name).map(|s| (s, s)),
        CType::Named { name } => {
            if let Some(t) = abi.typedefs.get(name) {
                type_layout(abi, &t.ty.c, depth + 1)
            } else if let Some(e) = abi.enums.get(name) {
                let size = rust_int(&e.repr)?;
                Some((size, size))
            } else {
                record(abi, name, depth + 1).map(|l| (l.size, l.align))
            }
        }
        CType::Unknown { .. } => None,
    }
}

/// Size (= alignment) of a C scalar on x86-64 Linux.
fn primitive(name: &str) -> Option<u64> {
    Some(match name {
        "char" | "signed char" | "unsigned char" | "int8_t" | "uint8_t" | "bool" | "_Bool" => 1,
        "short" | "unsigned short" | "int16_t" | "uint16_t" => 2,
        "int" | "unsigned int" | "int32_t" | "uint32_t" | "float" => 4,
        "long" | "unsigned long" | "long long" | "unsigned long long" | "int64_t" | "uint64_t"
        | "double" | "size_t" | "ptrdiff_t" | "intptr_t" | "uintptr_t" => 8,
        _ => return None,
    })
}

/// Size of an enum's Rust representation (`u32`, `::core::ffi::c_int`).
fn rust_int(repr: &str) -> Option<u64> {
    let last = repr.rsplit("::").next().unwrap_or(repr);
    Some(match last {
        "u8" | "i8" | "c_char" | "c_uchar" | "c_schar" => 1,
        "u16" | "i16" | "c_short" | "c_ushort" => 2,
        "u32" | "i32" | "c_int" | "c_uint" => 4,
        "u64" | "i64" | "c_long" | "c_ulong" | "c_longlong" | "c_ulonglong" | "usize" | "isize" => {
            8
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::read_bindgen_output;
    use crate::ir::Release;

    fn abi(text: &str) -> Abi {
        read_bindgen_output(text, "t.rs", &Release(vec![13, 2]))
    }

    #[test]
    fn padding_alignment_unions_and_nesting() {
        let a = abi(
            "#[repr(C)] pub struct A { pub c: ::core::ffi::c_char, pub d: f64, pub e: [u16; 3] }\n\
             #[repr(C)] pub union U { pub a: A, pub x: [u8; 40] }\n\
             #[repr(C, align(16))] pub struct B { pub e: E, pub p: *mut A }\n\
             #[repr(C, packed)] pub struct P { pub c: u8, pub i: u32 }\n\
             #[repr(u32)] pub enum E { X = 1 }\n\
             #[repr(C)] pub struct O { _unused: [u8; 0] }\n\
             pub type T = A;\n\
             #[repr(C)] pub struct W { pub t: T, pub u: U }\n",
        );
        let l = record_layout(&a, "A").unwrap();
        assert_eq!(
            (l.size, l.align, l.offsets.clone()),
            (24, 8, vec![0, 8, 16])
        );
        let u = record_layout(&a, "U").unwrap();
        assert_eq!((u.size, u.align), (40, 8));
        let b = record_layout(&a, "B").unwrap();
        assert_eq!((b.size, b.align, b.offsets.clone()), (16, 16, vec![0, 8]));
        let p = record_layout(&a, "P").unwrap();
        assert_eq!((p.size, p.align, p.offsets.clone()), (5, 1, vec![0, 1]));
        assert!(record_layout(&a, "O").is_none());
        let w = record_layout(&a, "W").unwrap();
        assert_eq!((w.size, w.offsets.clone()), (64, vec![0, 24]));
    }
}
