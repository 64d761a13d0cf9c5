//! Comparing type expressions rather than their text: roles, spacing and the order of union
//! alternatives do not matter; `Optional[T]` and `T | None`-style spellings are kept apart
//! only by their parsed form. Unreadable types compare by their whitespace-normalised text.

use crate::doctype::{TypeExpr, TypeRef};

/// Whether `a` and `b` denote the same type.
pub fn same_type(a: &TypeRef, b: &TypeRef) -> bool {
    normalize(&a.expr) == normalize(&b.expr)
}

/// A canonical form: union alternatives flattened, deduplicated and sorted; unknown text
/// with collapsed whitespace.
pub(crate) fn normalize(e: &TypeExpr) -> TypeExpr {
    match e {
        TypeExpr::List { of } => TypeExpr::List {
            of: Box::new(normalize(of)),
        },
        TypeExpr::Optional { of } => TypeExpr::Optional {
            of: Box::new(normalize(of)),
        },
        TypeExpr::Tuple { of } => TypeExpr::Tuple {
            of: of.iter().map(normalize).collect(),
        },
        TypeExpr::Pointer { to, is_const } => TypeExpr::Pointer {
            to: Box::new(normalize(to)),
            is_const: *is_const,
        },
        TypeExpr::Union { options } => {
            let mut flat = Vec::new();
            for o in options {
                match normalize(o) {
                    TypeExpr::Union { options } => flat.extend(options),
                    other => flat.push(other),
                }
            }
            flat.sort_by_key(sort_key);
            flat.dedup();
            if flat.len() == 1 {
                flat.remove(0)
            } else {
                TypeExpr::Union { options: flat }
            }
        }
        TypeExpr::Unknown { text } => TypeExpr::Unknown {
            text: text.split_whitespace().collect::<Vec<_>>().join(" "),
        },
        other => other.clone(),
    }
}

fn sort_key(e: &TypeExpr) -> String {
    serde_json::to_string(e).unwrap_or_default()
}

/// The type's text for reports (`?` when unstated).
pub(crate) fn show(t: Option<&TypeRef>) -> String {
    t.map_or_else(|| "?".to_string(), |t| t.text.clone())
}
