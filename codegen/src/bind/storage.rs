//! The storage check: every pointer a typed wrapper passes to C points to storage at least as
//! large as the documentation says C may read or write through it.
//!
//! What C may access through a pointer parameter ([`access`]) is read from the joined model
//! alone — the C declaration and the documentation's words — by these rules, tried in order:
//! - `raw`: a `void*` is memory of a size the documentation states in prose only;
//! - `counted`: an integer parameter documented as a count whose text (or a sentence of the
//!   description naming both) names the pointer: C accesses that many elements;
//! - `documented-list`: a parameter documented as `list[...]`: C accesses as many elements as
//!   the list's count says — except a `const T**` output, which the function points at an
//!   array of its own (one pointer written);
//! - `string-read`: a `const char*` is a NUL-terminated string C reads;
//! - `string-buffer`: a `char*` is a buffer C writes a string into, of at most the length an
//!   integer parameter documented as its length or size gives (by value, or through a pointer
//!   the call reads and writes back); without one its length is unbounded;
//! - `documented-array`: a parameter whose own text calls it an "array of" something, with no
//!   count naming it (`[out] supportedArchs sorted array of supported architectures`): C
//!   accesses a number of elements no parameter states;
//! - `one`: anything else is one value of the pointee type (a pointer, for `T**`).
//!
//! What the wrapper passes is read from the parameter's [`Role`] ([`provided`]): one local or
//! reference, a slice and the count computed from its length, a buffer of the length passed,
//! a `&CStr`, or (for raw pointers, handles and callbacks, which make the wrapper `unsafe`)
//! the caller's promise. [`check`] compares the two for every pointer parameter and returns
//! those it cannot prove, with the reason; [`super::roles`] then passes such a parameter as a
//! raw pointer ([`Role::Unproven`], which makes the wrapper `unsafe` and names the reason in
//! its `# Safety` section), or gives the function no wrapper. The emitter refuses a safe
//! wrapper the check does not prove. This module does not name any CUDA function.

use super::directions::{count_of, doc_name, documented_as_count, is_integer, sentences};
use super::{BoundFunction, BoundParam, Role};
use crate::abi::CType;
use crate::doctype::TypeExpr;
use crate::ir::Direction;

/// What the documentation says C may access through a pointer parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// One value of the pointee type (for `T**`, one pointer).
    One,
    /// As many elements as the count parameter at `count` says; `None` for a documented
    /// list that no count names (the list pairing of [`super::roles`] found its count).
    Elements { count: Option<usize> },
    /// A NUL-terminated string C reads.
    ReadsText,
    /// A string C writes, of at most as many bytes as the parameter at `len` says (its value,
    /// or the value it points to); `None`: no parameter bounds it.
    WritesText { len: Option<usize> },
    /// Memory of a size only the prose states (`void*`).
    Raw,
}

/// What a typed wrapper passes for a pointer parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provided {
    /// One local or one referenced value of the pointee type.
    One,
    /// A slice (or `Vec`) whose length is passed as the parameter at `count`.
    Elements { count: usize },
    /// A buffer whose length is passed as the parameter at `len` (by value or through a
    /// pointer to a local holding it).
    Buffer { len: usize },
    /// A `&CStr`: NUL-terminated.
    NulTerminated,
    /// Whatever the caller passes; the wrapper is `unsafe` and its `# Safety` section states
    /// what the pointer must satisfy.
    CallersPromise,
}

/// A pointer parameter the check could not prove, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unproven {
    /// The parameter's index (C order).
    pub param: usize,
    pub reason: String,
}

/// What C may access through parameter `i` of `f`; `None` when it is not a pointer.
pub fn access(f: &BoundFunction, i: usize) -> Option<Access> {
    let p = &f.params[i];
    let CType::Pointer { to, is_const } = &p.ty.c else {
        return None;
    };
    if matches!(&**to, CType::Primitive { name } if name == "void") {
        return Some(Access::Raw);
    }
    if let Some(count) = count_of(f, i) {
        return Some(Access::Elements { count: Some(count) });
    }
    if p.doc_type.as_ref().is_some_and(|t| is_list(&t.expr)) {
        // A `const T**` output: the function points it at an array of its own.
        let hands_back = p.direction == Some(Direction::Out)
            && matches!(&**to, CType::Pointer { is_const: true, .. })
            && !*is_const;
        return Some(if hands_back {
            Access::One
        } else {
            Access::Elements { count: None }
        });
    }
    if matches!(&**to, CType::Primitive { name } if name == "char") {
        return Some(if *is_const {
            Access::ReadsText
        } else {
            Access::WritesText {
                len: length_of(f, i),
            }
        });
    }
    if p.doc.to_ascii_lowercase().contains("array of") {
        return Some(Access::Elements { count: None });
    }
    Some(Access::One)
}

fn is_list(t: &TypeExpr) -> bool {
    match t {
        TypeExpr::List { .. } | TypeExpr::Tuple { .. } => true,
        TypeExpr::Union { options } => options.iter().any(is_list),
        TypeExpr::Optional { of } => is_list(of),
        _ => false,
    }
}

/// The parameter that gives the length of the string buffer at `i`: the one integer parameter
/// (by value, or a non-const pointer to one) documented as a length or size — its own text
/// ("Maximum length of …", "Size of …"), or a sentence of the description naming both and
/// saying "size" or "length" ("… into `buffer` up to the size specified in `*size`"). When
/// several are candidates, the one whose text names the buffer; otherwise none.
pub fn length_of(f: &BoundFunction, i: usize) -> Option<usize> {
    let buffer = &f.params[i];
    // The description's sentences naming the buffer and a size or length, split once.
    let sized: Vec<String> = sentences(&f.doc)
        .into_iter()
        .filter(|s| {
            let l = s.to_ascii_lowercase();
            (l.contains("size") || l.contains("length")) && mentions(s, buffer)
        })
        .collect();
    let candidates: Vec<usize> = f
        .params
        .iter()
        .enumerate()
        .filter(|(j, q)| *j != i && is_length_type(&q.ty.c))
        .filter(|(_, q)| {
            documented_as_count(&q.doc)
                || q.doc.to_ascii_lowercase().contains("length")
                || sized.iter().any(|s| mentions(s, q))
        })
        .map(|(j, _)| j)
        .collect();
    match candidates.as_slice() {
        [one] => Some(*one),
        many => {
            let naming: Vec<usize> = many
                .iter()
                .copied()
                .filter(|&j| mentions(&f.params[j].doc, buffer))
                .collect();
            match naming.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        }
    }
}

/// An integer by value, or a non-const pointer to one (a length the call reads and writes
/// back).
fn is_length_type(c: &CType) -> bool {
    match c {
        CType::Pointer {
            to,
            is_const: false,
        } => to.pointer_depth() == 0 && is_integer(to),
        CType::Pointer { .. } => false,
        other => is_integer(other),
    }
}

/// Whether `text` names the parameter as code: `` `x` `` or `` `*x` `` (RST's double
/// backquotes included).
fn mentions(text: &str, p: &BoundParam) -> bool {
    let name = doc_name(p);
    text.contains(&format!("`{name}`")) || text.contains(&format!("`*{name}`"))
}

/// What the wrapper passes for parameter `i` with role `role` (`None`: the C parameter is
/// no pointer, or the role passes no storage the wrapper makes).
pub fn provided(roles: &[Role], i: usize) -> Option<Provided> {
    Some(match &roles[i] {
        Role::Value | Role::Flags { .. } | Role::Count { .. } | Role::StringCapacity { .. } => {
            return None
        }
        Role::Handle
        | Role::RawPointer
        | Role::PointerArray
        | Role::Callback
        | Role::UserData
        | Role::Unproven { .. } => Provided::CallersPromise,
        Role::CStr => Provided::NulTerminated,
        Role::Ref { .. }
        | Role::OptionalRef { .. }
        | Role::InOut
        | Role::Out
        | Role::OutFlags { .. }
        | Role::OutCStr { .. }
        | Role::CountInOut { .. }
        | Role::BorrowedList { .. }
        | Role::BorrowedCount { .. }
        | Role::ByteBufferSize { .. } => Provided::One,
        Role::Slice { count, .. } => Provided::Elements { count: *count },
        Role::OutString { len } => Provided::Buffer { len: *len },
        Role::ByteBuffer { size } => Provided::Buffer { len: *size },
    })
}

/// The pointer parameters of `f` whose storage, as `roles` pass it, the check cannot prove
/// as large as the documentation says C may access; empty when every one is proven.
pub fn check(f: &BoundFunction, roles: &[Role]) -> Vec<Unproven> {
    let mut out = Vec::new();
    for i in 0..f.params.len().min(roles.len()) {
        let Some(need) = access(f, i) else {
            continue;
        };
        let Some(given) = provided(roles, i) else {
            // A pointer passed by a role that makes no storage: only a bug could do this.
            out.push(Unproven {
                param: i,
                reason: format!(
                    "`{}` is a pointer, but its role passes no storage",
                    f.params[i].c_name
                ),
            });
            continue;
        };
        if let Some(reason) = unproven(f, i, &need, &given) {
            out.push(Unproven { param: i, reason });
        }
    }
    out
}

/// Why `given` does not cover `need` for parameter `i`, or `None` when it does.
fn unproven(f: &BoundFunction, i: usize, need: &Access, given: &Provided) -> Option<String> {
    let name = |j: usize| format!("`{}`", f.params[j].c_name);
    let p = name(i);
    match (need, given) {
        (_, Provided::CallersPromise) => None,
        (Access::One, Provided::One | Provided::Elements { .. } | Provided::Buffer { .. }) => None,
        (Access::Elements { count: None }, Provided::Elements { .. }) => None,
        (Access::Elements { count: Some(c) }, Provided::Elements { count }) if c == count => None,
        (Access::Elements { count: Some(c) }, Provided::Elements { count }) => Some(format!(
            "the documentation sizes {p} by {}, but the wrapper passes the length of the list as {}",
            name(*c),
            name(*count)
        )),
        (Access::Elements { count: Some(c) }, _) => Some(format!(
            "{} is documented as the number of elements of {p}, but the wrapper passes one value",
            name(*c)
        )),
        (Access::Elements { count: None }, _) => Some(format!(
            "{p} is documented as a list (or an array), but the wrapper passes one value"
        )),
        (Access::ReadsText, Provided::NulTerminated) => None,
        // A `&CStr` holds at least its NUL byte.
        (Access::One, Provided::NulTerminated) => None,
        (Access::ReadsText, _) => Some(format!(
            "C reads a NUL-terminated string through {p}, and the wrapper passes no `&CStr`"
        )),
        (Access::WritesText { len: Some(l) }, Provided::Buffer { len }) if l == len => None,
        (Access::WritesText { len: Some(l) }, _) => Some(format!(
            "C writes a string of up to {} bytes through {p}, and the wrapper passes no buffer of that length",
            name(*l)
        )),
        (Access::WritesText { len: None }, _) => Some(format!(
            "C writes a string through {p}, and no parameter is documented as its length"
        )),
        (Access::Raw, _) => Some(format!(
            "{p} is raw memory whose size only the prose states"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::AbiType;
    use crate::bind::test_types::{prim, ptr};
    use crate::bind::Typed;
    use crate::doctype::TypeRef;
    use crate::ir::Source;

    fn p(name: &str, c: CType, ty: &str, doc: &str) -> BoundParam {
        BoundParam {
            c_name: name.into(),
            ty: AbiType::new(String::new(), c),
            doc_name: Some(name.into()),
            direction: Some(Direction::In),
            doc_type: Some(TypeRef::parse(ty)),
            doc: doc.into(),
        }
    }

    fn f(params: Vec<BoundParam>, doc: &str) -> BoundFunction {
        BoundFunction {
            name: "cudaTest".into(),
            section: None,
            doc: doc.into(),
            see_also: vec![],
            errors: vec![],
            params,
            ret: AbiType::void(),
            source: Source::new("t.txt", 3),
            symbol: "cudaTest".into(),
            documented: true,
            typed: Typed::default(),
            since: None,
        }
    }

    #[test]
    fn a_char_output_with_a_length_is_a_buffer_of_that_length() {
        let func = f(
            vec![
                p("name", ptr(prim("char"), false), "bytes", "Returned name"),
                p("len", prim("int"), "int", "Maximum length of the string"),
                p("device", prim("int"), "int", "Device"),
            ],
            "",
        );
        assert_eq!(access(&func, 0), Some(Access::WritesText { len: Some(1) }));
        assert_eq!(access(&func, 1), None);
        // One `char` local: C may write `len` bytes into it.
        let one = [Role::Out, Role::Value, Role::Value];
        let bad = check(&func, &one);
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(
            bad[0].reason.contains("up to `len` bytes through `name`"),
            "{}",
            bad[0].reason
        );
        // A buffer of `len` bytes: proven.
        let buffer = [
            Role::OutString { len: 1 },
            Role::StringCapacity { of: 0 },
            Role::Value,
        ];
        assert!(check(&func, &buffer).is_empty());
        // A buffer sized by another parameter is not.
        let wrong = [
            Role::OutString { len: 2 },
            Role::Value,
            Role::StringCapacity { of: 0 },
        ];
        assert_eq!(check(&func, &wrong).len(), 1);
    }

    #[test]
    fn an_in_out_size_named_by_the_description_sizes_the_buffer() {
        let func = f(
            vec![
                p("buffer", ptr(prim("char"), false), "bytes", "Pointer to dump logs"),
                p("size", ptr(prim("size_t"), false), "size_t", "See description"),
                p("flags", prim("unsigned int"), "unsigned int", "Reserved"),
            ],
            "This API dumps logs into `buffer` up to the size specified in `*size`. The driver returns the number of bytes written in `*size`.",
        );
        assert_eq!(access(&func, 0), Some(Access::WritesText { len: Some(1) }));
        let as_today = [Role::InOut, Role::InOut, Role::Value];
        let bad = check(&func, &as_today);
        assert_eq!(bad.iter().map(|u| u.param).collect::<Vec<_>>(), [0]);
        let slice = [
            Role::ByteBuffer { size: 1 },
            Role::ByteBufferSize { of: 0 },
            Role::Value,
        ];
        assert!(check(&func, &slice).is_empty());
    }

    #[test]
    fn a_char_output_without_a_length_and_an_output_array_without_one_are_unproven() {
        let func = f(
            vec![p(
                "name",
                ptr(prim("char"), false),
                "bytes",
                "Returned name",
            )],
            "",
        );
        assert_eq!(access(&func, 0), Some(Access::WritesText { len: None }));
        let bad = check(&func, &[Role::Out]);
        assert!(bad[0]
            .reason
            .contains("no parameter is documented as its length"));
        // Its raw-pointer form is the caller's promise.
        let raw = [Role::Unproven {
            reason: bad[0].reason.clone(),
        }];
        assert!(check(&func, &raw).is_empty());

        // An output documented as a list with no count: one value is not enough.
        let func = f(
            vec![p(
                "values",
                ptr(prim("int"), false),
                "list[int]",
                "Returned values",
            )],
            "",
        );
        assert_eq!(access(&func, 0), Some(Access::Elements { count: None }));
        let bad = check(&func, &[Role::Out]);
        assert!(bad[0].reason.contains("documented as a list"), "{bad:?}");

        // An output its own text calls an array, with no count (NVRTC's
        // `nvrtcGetSupportedArchs`): no more one value than a list.
        let func = f(
            vec![p(
                "supportedArchs",
                ptr(prim("int"), false),
                "int",
                "sorted array of supported architectures.",
            )],
            "",
        );
        assert_eq!(access(&func, 0), Some(Access::Elements { count: None }));
        assert!(!check(&func, &[Role::Out]).is_empty());
    }

    #[test]
    fn a_pointer_a_count_names_is_as_many_elements() {
        let func = f(
            vec![
                p("count", prim("int"), "int", "Number of resources to map"),
                p(
                    "resources",
                    ptr(
                        CType::Named {
                            name: "res_t".into(),
                        },
                        false,
                    ),
                    "res_t",
                    "Resources to map",
                ),
            ],
            "",
        );
        assert_eq!(access(&func, 1), Some(Access::Elements { count: Some(0) }));
        let one = [Role::Value, Role::InOut];
        assert!(check(&func, &one)[0]
            .reason
            .contains("`count` is documented as the number of elements of `resources`"));
        let slice = [
            Role::Count { of: vec![1] },
            Role::Slice {
                count: 0,
                mutable: false,
                optional: false,
                how: String::new(),
            },
        ];
        assert!(check(&func, &slice).is_empty());
    }

    #[test]
    fn raw_memory_and_handles_are_the_callers_promise_and_strings_read_need_a_cstr() {
        let func = f(
            vec![
                p("dst", ptr(prim("void"), false), "Any", "Destination"),
                p("name", ptr(prim("char"), true), "str", "Symbol name"),
            ],
            "",
        );
        assert!(check(&func, &[Role::RawPointer, Role::CStr]).is_empty());
        let bad = check(&func, &[Role::InOut, Role::Ref { mutable: false }]);
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert!(bad[0].reason.contains("raw memory"));
        assert!(bad[1].reason.contains("NUL-terminated"));
    }
}
