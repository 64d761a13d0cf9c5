//! The reviewed rule set that decides what a parameter is when its documentation does not say
//! which way it goes (a Doxygen `\param` without `[in]`/`[out]`: [`Direction::Unstated`]).
//!
//! Each rule reads the C declaration and the documentation's own words, and has an id and a
//! description ([`RULES`]); every application is reported (`cargo xtask codegen
//! --list-unbound`) and counted in the summary, like the parameter renamings. The rules are
//! tried in order; the first that applies decides. Where none applies, the function gets no
//! typed wrapper and a note says which parameter and why. A list is never taken for one
//! value: a pointer that a count parameter's text (or a sentence of the description naming
//! both) names is a list with that count; any other pointer to anything but `void` or `char`
//! is decided only when every count of the function names its list. Nothing here names a CUDA
//! function.

use serde::{Deserialize, Serialize};

use super::{BoundFunction, BoundParam};
use crate::abi::CType;
use crate::ir::Direction;

/// One rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirectionRule {
    pub id: &'static str,
    pub description: &'static str,
}

/// The rules, in the order they are tried.
pub const RULES: &[DirectionRule] = &[
    DirectionRule {
        id: "by-value",
        description: "a parameter passed by value is an input",
    },
    DirectionRule {
        id: "const-void-or-char",
        description: "a `const void*` (raw memory read) or `const char*` (a string) is an input",
    },
    DirectionRule {
        id: "pointer-array",
        description: "a `void**` that the documentation calls an array of pointers (kernel arguments) is passed as a slice of argument pointers",
    },
    DirectionRule {
        id: "void-pointer",
        description: "a `void*` is raw memory whichever way data flows: passed as a raw pointer",
    },
    DirectionRule {
        id: "count-names-list",
        description: "a pointer that an integer parameter documented as a count names (its text, or a sentence of the description naming both) is a list of that length: an input when it points to const, an output when its text says it receives the result",
    },
    DirectionRule {
        id: "given-list",
        description: "a list to non-const that its count's text, or its own, calls given (\"specified list\", \"given list\", or starting \"List of …\") and that no text says receives a result is an input",
    },
    DirectionRule {
        id: "const-pointee",
        description: "a pointer to const is an input (only when no parameter is documented as a count, so it is not a list)",
    },
    DirectionRule {
        id: "returns-words",
        description: "a pointer to non-const whose text says it receives the result (\"Returns …\", \"Returned …\", \"Pointer to return …\", \"Location to store …\", \"Output …\", \"Newly created …\") is an output (only when no parameter is documented as a count)",
    },
    DirectionRule {
        id: "described-output",
        description: "a pointer to non-const that the function's description names in a sentence about what it returns (\"Returns in `*ptr` …\", \"returns … via `ptr`\") is an output (only when no parameter is documented as a count, a count that is itself such an output aside)",
    },
    DirectionRule {
        id: "converted-in-place",
        description: "a pointer to a non-const scalar that the description says the function converts (\"Converts the double value of `d` …\") is read and written back (`&mut T`)",
    },
    DirectionRule {
        id: "field-returned",
        description: "a pointer to a non-const record that the description says a field of is returned in (\"… is returned in `params.field`\") is read and written back (`&mut T`)",
    },
];

/// What a rule decided for a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// An input or an output.
    Direction(Direction),
    /// An array of argument pointers the caller builds (`void** args`).
    PointerArray,
    /// A list (input or output) whose length the parameter at `count` carries.
    List { direction: Direction, count: usize },
}

/// One application of a rule, for reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ruling {
    pub function: String,
    pub param: String,
    /// The rule's id.
    pub rule: String,
    /// `in`, `out` or `pointer array`.
    pub decided: String,
    pub source: crate::ir::Source,
}

/// Opening words of a parameter's text that say it receives the result, lower case.
const RESULT_WORDS: &[&str] = &[
    "return",
    "pointer to return",
    "pointer to the returned",
    "pointer to store",
    "pointer to new",
    "pointer to allocated",
    "location to return",
    "location to store",
    "output",
    "newly created",
    "the returned",
];

/// Words of a parameter's text that make it a count (shared with the list pairing).
pub fn documented_as_count(doc: &str) -> bool {
    ["number of", "count", "size of", "length of", "entries in"]
        .iter()
        .any(|k| contains_ignoring_case(doc, k))
}

/// Whether `text` contains `lower` (lower case ASCII), ignoring ASCII case, without
/// allocating.
fn contains_ignoring_case(text: &str, lower: &str) -> bool {
    let needle = lower.as_bytes();
    !needle.is_empty()
        && text
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

pub(crate) fn is_integer(c: &CType) -> bool {
    let c = match c {
        CType::Pointer { to, .. } => to,
        other => other,
    };
    matches!(c, CType::Primitive { name } if matches!(name.as_str(),
        "int" | "unsigned int" | "long" | "unsigned long" | "long long" | "unsigned long long"
        | "size_t" | "uint32_t" | "int32_t" | "uint64_t" | "int64_t" | "short" | "unsigned short"))
}

fn is_prim(c: &CType, name: &str) -> bool {
    matches!(c, CType::Primitive { name: n } if n == name)
}

/// An integer parameter documented as a count (not one whose text says it receives a
/// result: that is a returned number, not a length).
fn is_count(q: &BoundParam) -> bool {
    is_integer(&q.ty.c)
        && documented_as_count(&q.doc)
        && !(q.ty.c.pointer_depth() > 0 && says_result(&q.doc))
}

/// The name a parameter has in the documentation.
pub(crate) fn doc_name(p: &BoundParam) -> &str {
    p.doc_name.as_deref().unwrap_or(&p.c_name)
}

/// `pDependencies` → `dependencies`, `hStream` → `stream`; other names lower-cased.
fn unprefixed(name: &str) -> String {
    let b = name.as_bytes();
    let cut = if b.len() > 2 && matches!(b[0], b'p' | b'h') && b[1].is_ascii_uppercase() {
        1
    } else {
        0
    };
    name[cut..].to_ascii_lowercase()
}

/// Whether `text` (a count's documentation) names the pointer parameter `p`: as code, or by
/// its unprefixed name as a word.
fn text_names(text: &str, p: &BoundParam) -> bool {
    let name = doc_name(p);
    if text.contains(&format!("``{name}``")) || text.contains(&format!("``*{name}``")) {
        return true;
    }
    let bare = unprefixed(name);
    bare.len() > 2
        && text
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w.eq_ignore_ascii_case(&bare))
}

/// The count parameter naming the pointer parameter at `i`, if exactly one does.
pub(crate) fn count_of(f: &BoundFunction, i: usize) -> Option<usize> {
    let p = &f.params[i];
    // The description's sentences that speak of a number, split once (only when needed).
    let mut numbered: Option<Vec<String>> = None;
    let found: Vec<usize> = f
        .params
        .iter()
        .enumerate()
        .filter(|(j, q)| *j != i && is_count(q))
        .filter(|(_, q)| {
            text_names(&q.doc, p)
                || numbered
                    .get_or_insert_with(|| {
                        sentences(&f.doc)
                            .into_iter()
                            .filter(|s| {
                                let l = s.to_ascii_lowercase();
                                l.contains("number of") || l.contains("size of")
                            })
                            .collect()
                    })
                    .iter()
                    .any(|s| names(s, q) && names(s, p))
        })
        .map(|(j, _)| j)
        .collect();
    match found.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// Decides the parameter at `i` of `f` (whose direction is not stated): the decision and the
/// rule's id, or why no rule decides.
pub fn decide(f: &BoundFunction, i: usize) -> Result<(Decision, &'static str), String> {
    let p = &f.params[i];
    let c = &p.ty.c;
    let CType::Pointer { to, is_const } = c else {
        return Ok((Decision::Direction(Direction::In), "by-value"));
    };
    if *is_const && (is_prim(to, "void") || is_prim(to, "char")) {
        return Ok((Decision::Direction(Direction::In), "const-void-or-char"));
    }
    if !*is_const
        && matches!(&**to, CType::Pointer { to: inner, is_const: false } if is_prim(inner, "void"))
        && says_pointer_array(f, p)
    {
        return Ok((Decision::PointerArray, "pointer-array"));
    }
    if is_prim(to, "void") {
        return Ok((Decision::Direction(Direction::In), "void-pointer"));
    }
    if let Some(count) = count_of(f, i) {
        let direction = if *is_const {
            Direction::In
        } else if says_result(&p.doc) {
            Direction::Out
        } else if says_given(&f.params[count].doc) || says_given(&p.doc) {
            return Ok((
                Decision::List {
                    direction: Direction::In,
                    count,
                },
                "given-list",
            ));
        } else {
            return Err(format!(
                "`{}` ({}): a list whose direction is not stated: written, read, or both",
                p.c_name, p.ty.c_text
            ));
        };
        return Ok((Decision::List { direction, count }, "count-names-list"));
    }
    // A count that names no list leaves every other pointer in doubt.
    let unclaimed =
        f.params.iter().enumerate().find(|(j, q)| {
            *j != i
                && is_count(q)
                && !(q.ty.c.pointer_depth() > 0 && described_output(&f.doc, q))
                && !f.params.iter().enumerate().any(|(k, r)| {
                    k != *j && r.ty.c.pointer_depth() > 0 && count_of(f, k) == Some(*j)
                })
        });
    if let Some((_, q)) = unclaimed {
        return Err(format!(
            "`{}` ({}): its direction is not stated, and the count `{}` names no list, so this may be one",
            p.c_name, p.ty.c_text, q.c_name
        ));
    }
    if *is_const {
        return Ok((Decision::Direction(Direction::In), "const-pointee"));
    }
    if says_result(&p.doc) {
        return Ok((Decision::Direction(Direction::Out), "returns-words"));
    }
    if described_output(&f.doc, p) {
        return Ok((Decision::Direction(Direction::Out), "described-output"));
    }
    if field_returned(&f.doc, p) {
        return Ok((Decision::Direction(Direction::In), "field-returned"));
    }
    if matches!(&**to, CType::Primitive { .. }) && converted(&f.doc, p) {
        return Ok((Decision::Direction(Direction::In), "converted-in-place"));
    }
    Err(format!(
        "`{}` ({}): its direction is not stated and no rule decides it from the declaration or the words",
        p.c_name, p.ty.c_text
    ))
}

/// The parameter's text starts with words saying it receives the result.
pub(crate) fn says_result(doc: &str) -> bool {
    let d = doc.trim().to_ascii_lowercase();
    let d = d
        .strip_prefix("optional")
        .map_or(d.as_str(), str::trim_start);
    RESULT_WORDS.iter().any(|w| d.starts_with(w))
}

/// The sentences of `text` (split at `. ` and blank lines), flattened.
pub(crate) fn sentences(text: &str) -> Vec<String> {
    text.split("\n\n")
        .flat_map(|para| {
            let flat = para.split_whitespace().collect::<Vec<_>>().join(" ");
            flat.split(". ").map(str::to_string).collect::<Vec<_>>()
        })
        .collect()
}

/// Whether `sentence` names the parameter as code (``` ``x`` ```, ``` ``*x`` ```).
fn names(sentence: &str, p: &BoundParam) -> bool {
    let name = doc_name(p);
    sentence.contains(&format!("``{name}``")) || sentence.contains(&format!("``*{name}``"))
}

/// The parameter's text, or a sentence of the description naming it, calls it an array of
/// pointers.
fn says_pointer_array(f: &BoundFunction, p: &BoundParam) -> bool {
    let is = |s: &str| {
        let l = s.to_ascii_lowercase();
        l.contains("array of") && l.contains("pointers")
    };
    is(&p.doc) || sentences(&f.doc).iter().any(|s| names(s, p) && is(s))
}

/// A sentence of the description says the function returns something in this parameter
/// ("Returns in ``*ptr`` …", "… is returned in ``ptr``", "returns … via ``ptr``").
fn described_output(doc: &str, p: &BoundParam) -> bool {
    let name = doc_name(p);
    sentences(doc).iter().any(|s| {
        let l = s.to_ascii_lowercase();
        l.contains("return")
            && (s.contains(&format!("in ``*{name}``"))
                || s.contains(&format!("in ``{name}``"))
                || s.contains(&format!("via ``{name}``"))
                || s.starts_with(&format!("``{name}`` return")))
    })
}

/// A sentence of the description says something is returned in a field of this parameter
/// ("… is returned in ``params.field``"): the record is read and written back.
fn field_returned(doc: &str, p: &BoundParam) -> bool {
    let name = doc_name(p);
    let at = format!("``{name}.");
    sentences(doc).iter().any(|s| {
        let l = s.to_ascii_lowercase();
        l.contains("return") && s.contains(&at)
    })
}

/// A sentence of the description says the function converts the value this parameter
/// points at ("Converts the double value of ``d`` …").
fn converted(doc: &str, p: &BoundParam) -> bool {
    sentences(doc)
        .iter()
        .any(|s| s.to_ascii_lowercase().starts_with("converts") && names(s, p))
}

/// The text calls a list given by the caller ("specified list", "given list", "… to try").
fn says_given(doc: &str) -> bool {
    let d = doc.trim().to_ascii_lowercase();
    d.starts_with("list of")
        || ["specified list", "given list"]
            .iter()
            .any(|w| d.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::AbiType;
    use crate::bind::Typed;
    use crate::ir::Source;

    use crate::bind::test_types::{prim, ptr};

    fn p(name: &str, c: CType, doc: &str) -> BoundParam {
        BoundParam {
            c_name: name.into(),
            ty: AbiType::new(String::new(), c),
            doc_name: Some(name.into()),
            direction: Some(Direction::Unstated),
            doc_type: None,
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
            source: Source::new("t.h", 1),
            symbol: "cudaTest".into(),
            documented: true,
            typed: Typed::default(),
            since: None,
        }
    }

    fn rule(f: &BoundFunction, i: usize) -> Result<&'static str, String> {
        decide(f, i).map(|(_, r)| r)
    }

    #[test]
    fn a_launch_function() {
        let func = f(
            vec![
                p("func", ptr(prim("void"), true), "Device function symbol"),
                p(
                    "gridDim",
                    CType::Named {
                        name: "dim3".into(),
                    },
                    "Grid dimensions",
                ),
                p("args", ptr(ptr(prim("void"), false), false), "Arguments"),
                p("sharedMem", prim("size_t"), "Shared memory"),
            ],
            "If the kernel has N parameters the ``args`` should point to array of N\npointers.",
        );
        assert_eq!(rule(&func, 0), Ok("const-void-or-char"));
        assert_eq!(rule(&func, 1), Ok("by-value"));
        assert_eq!(decide(&func, 2).map(|d| d.0), Ok(Decision::PointerArray));
        assert_eq!(rule(&func, 3), Ok("by-value"));
    }

    #[test]
    fn outputs_by_words_or_description_and_the_count_guard() {
        let func = f(
            vec![
                p(
                    "value",
                    ptr(prim("int"), false),
                    "Returned device attribute value",
                ),
                p(
                    "prop",
                    ptr(
                        CType::Named {
                            name: "cudaDeviceProp".into(),
                        },
                        false,
                    ),
                    "Properties",
                ),
                p(
                    "attrs",
                    ptr(
                        CType::Named {
                            name: "cudaX".into(),
                        },
                        false,
                    ),
                    "Attributes",
                ),
                p(
                    "cfg",
                    ptr(
                        CType::Named {
                            name: "cudaCfg".into(),
                        },
                        true,
                    ),
                    "Configuration",
                ),
            ],
            "Returns in ``*prop`` the properties of the device.",
        );
        assert_eq!(rule(&func, 0), Ok("returns-words"));
        assert_eq!(rule(&func, 1), Ok("described-output"));
        let err = rule(&func, 2).expect_err("no rule");
        assert!(err.contains("no rule decides"), "{err}");
        assert_eq!(rule(&func, 3), Ok("const-pointee"));

        let counted = f(
            vec![
                p("devices", ptr(prim("int"), false), "Returned CUDA devices"),
                p("count", prim("unsigned int"), "Number of entries"),
                p(
                    "deps",
                    ptr(
                        CType::Named {
                            name: "cudaNode".into(),
                        },
                        true,
                    ),
                    "Dependencies",
                ),
            ],
            "",
        );
        assert!(rule(&counted, 0)
            .expect_err("a list?")
            .contains("names no list"));
        assert!(rule(&counted, 2).is_err());
        assert_eq!(rule(&counted, 1), Ok("by-value"));

        let graph = f(
            vec![
                p(
                    "pGraphNode",
                    ptr(
                        CType::Named {
                            name: "cudaNode".into(),
                        },
                        false,
                    ),
                    "Returns newly created node",
                ),
                p(
                    "pDependencies",
                    ptr(
                        CType::Named {
                            name: "cudaNode".into(),
                        },
                        true,
                    ),
                    "Dependencies of the node",
                ),
                p("numDependencies", prim("size_t"), "Number of dependencies"),
                p(
                    "numOut",
                    ptr(prim("int"), false),
                    "Returned number of things",
                ),
            ],
            "",
        );
        assert_eq!(rule(&graph, 0), Ok("returns-words"));
        assert_eq!(
            decide(&graph, 1).map(|d| d.0),
            Ok(Decision::List {
                direction: Direction::In,
                count: 2
            })
        );
        assert_eq!(rule(&graph, 3), Ok("returns-words"));
    }

    #[test]
    fn given_lists_outputs_named_via_and_fields_returned() {
        let set = f(
            vec![
                p(
                    "device_arr",
                    ptr(prim("int"), false),
                    "List of devices to try",
                ),
                p("len", prim("int"), "Number of devices in specified list"),
            ],
            "Sets a list of devices using ``device_arr``. If ``len`` is not 0 and ``device_arr`` is NULL or if ``len`` exceeds the number of devices, an error is returned.",
        );
        assert_eq!(
            decide(&set, 0),
            Ok((
                Decision::List {
                    direction: Direction::In,
                    count: 1
                },
                "given-list"
            ))
        );
        let info = f(
            vec![
                p("paramOffset", ptr(prim("size_t"), false), "The offset"),
                p("paramSize", ptr(prim("size_t"), false), "The size of the parameter"),
            ],
            "Returns parameter information via ``paramOffset`` and ``paramSize``. ``paramSize`` returns the size in bytes.",
        );
        assert_eq!(rule(&info, 0), Ok("described-output"));
        assert_eq!(rule(&info, 1), Ok("described-output"));
        let alloc = f(
            vec![p(
                "nodeParams",
                ptr(
                    CType::Named {
                        name: "cudaParams".into(),
                    },
                    false,
                ),
                "Parameters for the node",
            )],
            "It returns the address of the allocation in ``nodeParams.dptr``.",
        );
        assert_eq!(
            decide(&alloc, 0),
            Ok((Decision::Direction(Direction::In), "field-returned"))
        );
        let double = f(
            vec![p("d", ptr(prim("double"), false), "Double to convert")],
            "Converts the double value of ``d`` to an internal float representation.",
        );
        assert_eq!(
            decide(&double, 0),
            Ok((Decision::Direction(Direction::In), "converted-in-place"))
        );
    }

    #[test]
    fn every_rule_is_described_once() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        assert!(RULES.iter().all(|r| !r.description.is_empty()));
    }
}
