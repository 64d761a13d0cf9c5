//! Sorts the object-like `#define`s in effect in a release's headers into what the ABI model
//! records: function renames ([`Abi::renames`]: `#define cudaGetDeviceProperties
//! cudaGetDeviceProperties_v2`, `#define cudaStreamGetCaptureInfo
//! __CUDART_API_PTSZ(cudaStreamGetCaptureInfo_v2)`), second names of types and enumerators
//! ([`Abi::macro_aliases`]: `#define cudaStreamAttrID cudaLaunchAttributeID`), and a note for
//! every other macro of the API's name space that the model does not hold (casts such as
//! `cudaStreamLegacy ((cudaStream_t)0x1)`, empty markers such as `CUDARTAPI`), so nothing is
//! dropped silently.
//!
//! It works on macro definitions already tokenised (bindgen's `modify_macro` callback gives
//! them, for the active preprocessor branches only) and on an [`Abi`] whose items are read; it
//! knows no CUDA names but the API's prefixes.

use super::Abi;
use crate::diag::Diagnostic;
use crate::diag::Severity;

/// The kind of one macro token, as the C preprocessor lexes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Identifier,
    Keyword,
    Literal,
    Punctuation,
    Comment,
}

/// One token of a macro body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroToken {
    pub kind: TokenKind,
    pub text: String,
}

impl MacroToken {
    /// An identifier token.
    pub fn ident(text: &str) -> MacroToken {
        MacroToken {
            kind: TokenKind::Identifier,
            text: text.to_string(),
        }
    }

    /// A punctuation token.
    pub fn punct(text: &str) -> MacroToken {
        MacroToken {
            kind: TokenKind::Punctuation,
            text: text.to_string(),
        }
    }
}

/// An object-like macro in effect: its name, body tokens and where it is defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroDef {
    pub name: String,
    pub body: Vec<MacroToken>,
    /// Header relative to its include folder, when known.
    pub header: Option<String>,
    pub line: u32,
}

impl MacroDef {
    /// The body as C text, tokens separated by single spaces where C needs none removed.
    pub fn body_text(&self) -> String {
        let mut out = String::new();
        for t in &self.body {
            let glue =
                matches!(t.text.as_str(), ")" | "," | ";") || out.ends_with('(') || out.is_empty();
            if !glue {
                out.push(' ');
            }
            out.push_str(&t.text);
        }
        out
    }
}

/// Whether a macro name is in the API's name space (the names the ABI model may hold):
/// `cuda*`, `CUDA*`, `CU_*`, `make_cuda*`.
pub fn in_api_namespace(name: &str) -> bool {
    name.starts_with("cuda")
        || name.starts_with("CUDA")
        || name.starts_with("CU_")
        || name.starts_with("make_cuda")
}

/// Records the renames and aliases of `macros` in `abi` and returns a note for every macro of
/// the API's name space that is neither one nor an integer constant the model already has.
/// Macros are taken in the order given; a later definition of a name replaces an earlier one.
pub fn classify(abi: &mut Abi, macros: &[MacroDef]) -> Vec<Diagnostic> {
    let mut notes = Vec::new();
    for m in macros {
        if !in_api_namespace(&m.name)
            || abi.constants.contains_key(&m.name)
            || abi.functions.contains_key(&m.name)
        {
            continue;
        }
        let idents: Vec<&str> = m
            .body
            .iter()
            .filter(|t| t.kind == TokenKind::Identifier && t.text != m.name)
            .map(|t| t.text.as_str())
            .collect();
        let functions: Vec<&str> = idents
            .iter()
            .copied()
            .filter(|i| abi.functions.contains_key(*i))
            .collect();
        let single = match m.body.as_slice() {
            [t] if t.kind == TokenKind::Identifier => Some(t.text.as_str()),
            _ => None,
        };
        if let [function] = functions.as_slice() {
            abi.macro_aliases.shift_remove(&m.name);
            abi.renames.insert(m.name.clone(), function.to_string());
        } else if let Some(target) = single.filter(|t| declares_name(abi, t)) {
            abi.renames.shift_remove(&m.name);
            abi.macro_aliases.insert(m.name.clone(), target.to_string());
        } else {
            let what = if m.body.is_empty() {
                "is defined empty (a marker for the compiler)".to_string()
            } else {
                format!(
                    "`{}` is not an integer constant nor a rename of a declared function, type or enumerator",
                    m.body_text()
                )
            };
            notes.push(Diagnostic {
                severity: Severity::Note,
                file: m.header.clone().unwrap_or_default(),
                line: m.line,
                path: None,
                unread: 0,
                message: format!("macro `{}` {what}; not in the ABI model", m.name),
            });
        }
    }
    notes
}

/// Whether `name` is a type, an enumerator or a constant of `abi`.
fn declares_name(abi: &Abi, name: &str) -> bool {
    abi.records.contains_key(name)
        || abi.enums.contains_key(name)
        || abi.typedefs.contains_key(name)
        || abi.constants.contains_key(name)
        || abi
            .enums
            .values()
            .any(|e| e.values.iter().any(|v| v.name == name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::{AbiType, Enum, EnumValue, Function};

    fn def(name: &str, body: Vec<MacroToken>) -> MacroDef {
        MacroDef {
            name: name.into(),
            body,
            header: Some("cuda_runtime_api.h".into()),
            line: 7,
        }
    }

    fn abi_with(functions: &[&str]) -> Abi {
        let mut abi = Abi::default();
        for f in functions {
            abi.functions.insert(
                f.to_string(),
                Function {
                    name: f.to_string(),
                    params: vec![],
                    ret: AbiType::void(),
                    header: None,
                    line: 1,
                },
            );
        }
        abi.enums.insert(
            "cudaLaunchAttributeID".into(),
            Enum {
                name: "cudaLaunchAttributeID".into(),
                repr: "u32".into(),
                newtype: false,
                values: vec![EnumValue {
                    name: "cudaLaunchAttributePriority".into(),
                    value: 8,
                    alias_of: None,
                    line: 1,
                }],
                aliases: vec![],
                header: None,
                line: 1,
            },
        );
        abi
    }

    #[test]
    fn plain_and_ptsz_function_renames() {
        let mut abi = abi_with(&["cudaGetDeviceProperties_v2", "cudaStreamGetCaptureInfo_v2"]);
        let notes = classify(
            &mut abi,
            &[
                def(
                    "cudaGetDeviceProperties",
                    vec![MacroToken::ident("cudaGetDeviceProperties_v2")],
                ),
                def(
                    "cudaStreamGetCaptureInfo",
                    vec![
                        MacroToken::ident("__CUDART_API_PTSZ"),
                        MacroToken::punct("("),
                        MacroToken::ident("cudaStreamGetCaptureInfo_v2"),
                        MacroToken::punct(")"),
                    ],
                ),
            ],
        );
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(
            abi.renames["cudaGetDeviceProperties"],
            "cudaGetDeviceProperties_v2"
        );
        assert_eq!(
            abi.renames["cudaStreamGetCaptureInfo"],
            "cudaStreamGetCaptureInfo_v2"
        );
        let (f, symbol) = abi.function_for("cudaGetDeviceProperties").unwrap();
        assert_eq!(symbol, "cudaGetDeviceProperties_v2");
        assert_eq!(f.name, symbol);
        assert_eq!(
            abi.function_for("cudaGetDeviceProperties_v2").unwrap().1,
            "cudaGetDeviceProperties_v2"
        );
        assert!(abi.function_for("cudaNothing").is_none());
    }

    #[test]
    fn type_and_enumerator_aliases() {
        let mut abi = abi_with(&[]);
        let notes = classify(
            &mut abi,
            &[
                def(
                    "cudaStreamAttrID",
                    vec![MacroToken::ident("cudaLaunchAttributeID")],
                ),
                def(
                    "cudaStreamAttributePriority",
                    vec![MacroToken::ident("cudaLaunchAttributePriority")],
                ),
            ],
        );
        assert!(notes.is_empty(), "{notes:?}");
        assert!(abi.renames.is_empty());
        assert_eq!(
            abi.macro_aliases["cudaStreamAttrID"],
            "cudaLaunchAttributeID"
        );
        assert_eq!(
            abi.macro_aliases["cudaStreamAttributePriority"],
            "cudaLaunchAttributePriority"
        );
    }

    #[test]
    fn casts_markers_and_unknown_targets_are_noted_not_dropped() {
        let mut abi = abi_with(&["cudaMalloc"]);
        let cast = vec![
            MacroToken::punct("("),
            MacroToken::punct("("),
            MacroToken::ident("cudaStream_t"),
            MacroToken::punct(")"),
            MacroToken {
                kind: TokenKind::Literal,
                text: "0x1".into(),
            },
            MacroToken::punct(")"),
        ];
        let notes = classify(
            &mut abi,
            &[
                def("cudaStreamLegacy", cast),
                def("CUDARTAPI", vec![]),
                def("cudaGone", vec![MacroToken::ident("cudaGone_v9")]),
                // Outside the API's name space: ignored.
                def("__CUDART_API_PTSZ", vec![MacroToken::ident("api")]),
                // A declared function is not a macro to explain.
                def("cudaMalloc", vec![MacroToken::ident("cudaMalloc")]),
            ],
        );
        assert!(abi.renames.is_empty() && abi.macro_aliases.is_empty());
        let messages: Vec<String> = notes.iter().map(|n| n.to_string()).collect();
        assert_eq!(messages.len(), 3, "{messages:#?}");
        assert!(
            messages[0].contains("`((cudaStream_t) 0x1)`"),
            "{messages:#?}"
        );
        assert!(messages[0].starts_with("cuda_runtime_api.h:7: note:"));
        assert!(messages[1].contains("CUDARTAPI` is defined empty"));
        assert!(messages[2].contains("cudaGone"));
    }

    #[test]
    fn per_thread_variants_are_renames_only_when_declared() {
        // With the default configuration the header declares the plain name; a `_ptsz`
        // target that is not declared is not a rename.
        let mut abi = abi_with(&["cudaMemcpyAsync"]);
        let notes = classify(
            &mut abi,
            &[def(
                "cudaMemcpyAsync",
                vec![
                    MacroToken::ident("__CUDART_API_PTSZ"),
                    MacroToken::punct("("),
                    MacroToken::ident("cudaMemcpyAsync"),
                    MacroToken::punct(")"),
                ],
            )],
        );
        assert!(notes.is_empty());
        assert!(abi.renames.is_empty());
    }
}

/// A macro that casts an integer to a type (`#define cudaStreamLegacy ((cudaStream_t)0x1)`),
/// as the ABI's note on it records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cast {
    /// The C type cast to (`cudaStream_t`, `int`).
    pub ty: String,
    /// The integer, when it reads as one (`0x1`, `- 1`).
    pub value: Option<i64>,
}

/// The cast macro `name` of `abi`, read from the note the macro sorting left on it
/// (``macro `NAME` `((T) V)` is not an integer constant …``). `None` when there is no such
/// note or its body is not `((T) V)`.
pub fn cast_of(abi: &Abi, name: &str) -> Option<Cast> {
    let head = format!("macro `{name}` `");
    abi.diagnostics.iter().find_map(|d| {
        let rest = d.message.strip_prefix(&head)?;
        let body = &rest[..rest.find('`')?];
        parse_cast(body)
    })
}

/// `((T) V)` → the type `T` and the integer `V`.
fn parse_cast(body: &str) -> Option<Cast> {
    let inner = body.trim().strip_prefix('(')?.strip_suffix(')')?.trim();
    let inner = inner.strip_prefix('(')?;
    let close = inner.find(')')?;
    let ty = inner[..close].trim().to_string();
    if ty.is_empty()
        || !ty
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' ')
    {
        return None;
    }
    let v: String = inner[close + 1..]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let (neg, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, v.as_str()),
    };
    let magnitude = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => digits.parse::<i64>().ok(),
    };
    Some(Cast {
        ty,
        value: magnitude.map(|m| if neg { -m } else { m }),
    })
}

/// The Rust integer type of a C integer type name, if it is one.
pub fn rust_integer(c: &str) -> Option<&'static str> {
    Some(match c {
        "int" | "int32_t" | "signed int" => "i32",
        "unsigned int" | "uint32_t" | "unsigned" => "u32",
        "long long" | "int64_t" => "i64",
        "unsigned long long" | "uint64_t" | "size_t" => "u64",
        "short" | "int16_t" => "i16",
        "unsigned short" | "uint16_t" => "u16",
        _ => return None,
    })
}

#[cfg(test)]
mod cast_tests {
    use super::*;

    #[test]
    fn casts_read_type_and_value() {
        assert_eq!(
            parse_cast("((cudaStream_t) 0x1)"),
            Some(Cast {
                ty: "cudaStream_t".into(),
                value: Some(1)
            })
        );
        assert_eq!(
            parse_cast("((int) - 2)"),
            Some(Cast {
                ty: "int".into(),
                value: Some(-2)
            })
        );
        assert_eq!(parse_cast("cudaLaunchAttributePriority"), None);
        assert_eq!(parse_cast("((a;b) 1)"), None);
        assert_eq!(rust_integer("int"), Some("i32"));
        assert_eq!(rust_integer("cudaStream_t"), None);
    }
}
