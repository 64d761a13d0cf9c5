//! Attribute values passed as `void*`: an enum whose members' documentation states each
//! value's type ("(value type = int) …", "(value type = cuuint64_t) …") makes every typed
//! function that takes one of its members and a `void*` value an *attribute accessor*: the
//! emitter adds a companion wrapper that reads or writes the value with its stated type
//! (a Rust enum with one variant per member). Getters are told from setters by the value
//! parameter's documented direction or its words ("Retrieved value"). Nothing here names a CUDA item; members whose type is
//! not stated, or names a type this crate does not emit, are left out (the raw `void*`
//! wrapper still reaches them).

use serde::{Deserialize, Serialize};

use super::{Bindings, Role, Typed};
use crate::abi::CType;
use crate::ir::Direction;

/// One member of an attribute enum with the type of its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrMember {
    /// The member's Rust constant (`ATTR_RELEASE_THRESHOLD`).
    pub rust_name: String,
    /// The value's C type.
    pub ty: CType,
}

/// An enum whose members state their value types.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrEnum {
    /// The enum's Rust name (`cudaMemPoolAttr`).
    pub name: String,
    pub members: Vec<AttrMember>,
}

/// A typed wrapper whose `attr` parameter is a member of `enum_name` and whose `value`
/// parameter is the `void*` holding its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrAccessor {
    /// The C function.
    pub function: String,
    pub enum_name: String,
    pub attr: usize,
    pub value: usize,
    /// The value is written by the function (a getter) rather than read (a setter).
    pub getter: bool,
}

/// The C type a "(value type = T)" names: a C integer, a `cuuint*_t`, or an emitted enum.
fn value_type(text: &str, enums: &[String]) -> Option<CType> {
    let t = text.trim();
    let prim = |n: &str| CType::Primitive { name: n.into() };
    Some(match t {
        "int" => prim("int"),
        "unsigned int" | "cuuint32_t" => prim("unsigned int"),
        "cuuint64_t" | "unsigned long long" => prim("unsigned long long"),
        "size_t" => prim("size_t"),
        _ if enums.iter().any(|e| e == t) => CType::Named { name: t.into() },
        _ => return None,
    })
}

/// The stated value type at the start of a member's documentation.
fn stated(doc: &str) -> Option<&str> {
    let rest = doc.trim_start().strip_prefix("(value type = ")?;
    Some(&rest[..rest.find(')')?])
}

/// The value parameter's text says the function writes it ("Retrieved value", "Returned …").
fn says_retrieved(doc: &str) -> bool {
    doc.trim().to_ascii_lowercase().starts_with("retrieved") || super::directions::says_result(doc)
}

/// Finds the attribute enums and accessors of `b` (after the roles are decided).
pub fn resolve(b: &mut Bindings) {
    let enum_names: Vec<String> = b.enums.iter().map(|e| e.name.clone()).collect();
    let mut found = Vec::new();
    for e in &b.enums {
        let members: Vec<AttrMember> = e
            .abi
            .values
            .iter()
            .zip(e.member_names.iter().cloned())
            .filter(|(v, _)| v.alias_of.is_none())
            .filter_map(|(v, r)| {
                let doc = e.member_docs.iter().find(|(n, _)| n == &v.name)?;
                let ty = value_type(stated(&doc.1)?, &enum_names)?;
                Some(AttrMember { rust_name: r, ty })
            })
            .collect();
        if !members.is_empty() {
            found.push(AttrEnum {
                name: e.name.clone(),
                members,
            });
        }
    }
    let mut accessors = Vec::new();
    for f in &b.functions {
        let Typed::Wrapper { roles, .. } = &f.typed else {
            continue;
        };
        if !roles
            .iter()
            .all(|r| matches!(r, Role::Value | Role::Handle | Role::RawPointer))
        {
            continue;
        }
        let attrs: Vec<(usize, &AttrEnum)> = f
            .params
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                let n = match &p.ty.c {
                    CType::Named { name } => name,
                    _ => return None,
                };
                found.iter().find(|e| &e.name == n).map(|e| (i, e))
            })
            .collect();
        let values: Vec<usize> = f
            .params
            .iter()
            .enumerate()
            .filter(|(i, p)| {
                roles[*i] == Role::RawPointer
                    && matches!(&p.ty.c, CType::Pointer { to, .. } if matches!(&**to, CType::Primitive { name } if name == "void"))
            })
            .map(|(i, _)| i)
            .collect();
        if let ([(attr, e)], [value]) = (attrs.as_slice(), values.as_slice()) {
            accessors.push(AttrAccessor {
                function: f.name.clone(),
                enum_name: e.name.clone(),
                attr: *attr,
                value: *value,
                getter: f.params[*value].direction == Some(Direction::Out)
                    || says_retrieved(&f.params[*value].doc),
            });
        }
    }
    b.attr_enums = found;
    b.attr_accessors = accessors;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stated_types_are_read() {
        let enums = vec!["cudaMemLocationType".to_string()];
        assert_eq!(stated("(value type = int) Allow reuse"), Some("int"));
        assert_eq!(stated("Allow reuse (value type = int)"), None);
        assert_eq!(
            value_type("cuuint64_t", &enums),
            Some(CType::Primitive {
                name: "unsigned long long".into()
            })
        );
        assert_eq!(
            value_type("cudaMemLocationType", &enums),
            Some(CType::Named {
                name: "cudaMemLocationType".into()
            })
        );
        assert_eq!(value_type("struct foo", &enums), None);
    }
}
