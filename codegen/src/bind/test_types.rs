//! C types for the binder's unit tests, built by hand.

use crate::abi::CType;

/// A primitive C type by name (`int`, `void`).
pub(crate) fn prim(n: &str) -> CType {
    CType::Primitive { name: n.into() }
}

/// A pointer to `to`, to const when `is_const`.
pub(crate) fn ptr(to: CType, is_const: bool) -> CType {
    CType::Pointer {
        to: Box::new(to),
        is_const,
    }
}
