//! Reading the signature text of an object on a rendered `cuda.bindings.runtime` page.
//!
//! Three shapes, whatever front end produced them: a call `dotted.name(params)` (functions and
//! classes), its parameters (`a`, `a: T`, `size_t a`, `char *a`, `T a: Optional[T]`,
//! `size_t a=0`), and a data object `dotted.name = value` whose value is an integer, an enum
//! member repr `<E.X: 3>` or a type repr `<enum 'Y'>` / `<class 'm.Y'>`.
//!
//! This module reads text only; it does not decide what IR item an object becomes
//! ([`super::sphinx_blocks`] does) and it reports problems as `Err(message)`.

use crate::text::split_after_last;

/// `true` for an identifier made of ASCII letters, digits and `_` (a Python or C name), not
/// starting with a digit. The front ends' one test of a name.
pub fn is_ident(s: &str) -> bool {
    // Bytes, not characters: every byte of a non-ASCII character fails both tests, as the
    // character would.
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_')
        && bytes.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `true` for `a.b.c` where every part is an identifier.
pub fn is_dotted_ident(s: &str) -> bool {
    !s.is_empty() && s.split('.').all(is_ident)
}

/// The last part of a dotted name.
pub fn short_name(qualified: &str) -> &str {
    qualified.rsplit('.').next().unwrap_or(qualified)
}

/// A call signature split into its name and argument text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call<'s> {
    /// The dotted name as written.
    pub qualified: &'s str,
    /// Text between the parentheses; `None` when there are none (`class X`).
    pub args: Option<&'s str>,
}

/// Splits `name(args)` or a bare `name`.
pub fn split_call(sig: &str) -> Result<Call<'_>, String> {
    let sig = sig.trim();
    let Some(open) = sig.find('(') else {
        return if is_dotted_ident(sig) {
            Ok(Call {
                qualified: sig,
                args: None,
            })
        } else {
            Err(format!("`{sig}` is not a name"))
        };
    };
    let qualified = sig[..open].trim();
    if !is_dotted_ident(qualified) {
        return Err(format!("`{qualified}` is not a name"));
    }
    let Some(body) = sig[open + 1..].strip_suffix(')') else {
        return Err(format!("signature `{sig}` does not end with `)`"));
    };
    Ok(Call {
        qualified,
        args: Some(body),
    })
}

/// Splits `text` at `sep` outside brackets and parentheses; empty pieces are dropped.
pub fn split_top_level(text: &str, sep: char) -> Vec<&str> {
    crate::text::split_outside_brackets(text, sep)
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// One parameter of a call signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigParam {
    pub name: String,
    /// A C type written before the name (`size_t`, `char *`, `cudaExtent`).
    pub c_type: Option<String>,
    /// A Python annotation after `:`.
    pub annotation: Option<String>,
    /// A default after `=`.
    pub default: Option<String>,
}

impl SigParam {
    /// The type the signature states: the annotation, else the C type.
    pub fn stated_type(&self) -> Option<&str> {
        self.annotation.as_deref().or(self.c_type.as_deref())
    }
}

/// Reads one parameter: `[C type] name [: annotation] [= default]`.
pub fn parse_param(text: &str) -> Result<SigParam, String> {
    let text = text.trim().trim_end_matches(',').trim();
    let (decl, annotation, default) = match split_top_level(text, ':').as_slice() {
        [decl] => split_default(decl).map(|(d, def)| (d, None, def))?,
        [decl, ann] => {
            let (ann, def) = split_default(ann)?;
            (decl.trim(), Some(ann.trim().to_string()), def)
        }
        _ => return Err(format!("cannot read parameter `{text}`")),
    };
    let (c_type, name) = split_after_last(decl, |c| c.is_whitespace() || c == '*');
    let c_type = c_type.trim();
    if !is_ident(name) {
        return Err(format!(
            "cannot read parameter `{text}`: `{name}` is not a name"
        ));
    }
    Ok(SigParam {
        name: name.to_string(),
        c_type: (!c_type.is_empty()).then(|| c_type.to_string()),
        annotation: annotation.filter(|a| !a.is_empty()),
        default,
    })
}

fn split_default(text: &str) -> Result<(&str, Option<String>), String> {
    match split_top_level(text, '=').as_slice() {
        [one] if !text.contains('=') => Ok((one, None)),
        [one, def] => Ok((one, Some(def.trim().to_string()))),
        _ => Err(format!("cannot read parameter text `{}`", text.trim())),
    }
}

/// The value of a `name = value` object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataValue {
    /// `2`, `-1`, `0x10`.
    Integer(i64),
    /// `<E.X: 3>`: an enum member; the value is an error message when not an integer.
    Member {
        enum_name: String,
        member: String,
        value: Result<i64, String>,
    },
    /// `<enum 'Y'>`, `<class 'm.Y'>`: the target's kind and short name.
    Alias { kind: String, target: String },
    /// Anything else, as written.
    Other(String),
}

/// Splits `name = value` into the name and its parsed value.
pub fn parse_data(sig: &str) -> Result<(&str, DataValue), String> {
    let Some((name, value)) = sig.split_once(" = ") else {
        return Err(format!("`{}` is not `name = value`", sig.trim()));
    };
    let name = name.trim();
    if !is_dotted_ident(name) {
        return Err(format!("`{name}` is not a name"));
    }
    Ok((name, parse_value(value.trim())))
}

fn parse_value(v: &str) -> DataValue {
    if let Some(n) = parse_int(v) {
        return DataValue::Integer(n);
    }
    let Some(inner) = v.strip_prefix('<').and_then(|r| r.strip_suffix('>')) else {
        return DataValue::Other(v.to_string());
    };
    if let Some((kind, target)) = inner.split_once(' ') {
        let target = target.trim();
        if kind.chars().all(|c| c.is_ascii_alphabetic())
            && target.len() >= 2
            && target.starts_with('\'')
            && target.ends_with('\'')
        {
            let t = &target[1..target.len() - 1];
            if is_dotted_ident(t) {
                return DataValue::Alias {
                    kind: kind.to_string(),
                    target: short_name(t).to_string(),
                };
            }
        }
    }
    if let Some((path, value)) = inner.rsplit_once(": ") {
        if let Some((enum_name, member)) = path.rsplit_once('.') {
            if is_dotted_ident(enum_name) && is_ident(member) {
                let value = value.trim();
                return DataValue::Member {
                    enum_name: short_name(enum_name).to_string(),
                    member: member.to_string(),
                    value: parse_int(value)
                        .ok_or_else(|| format!("value `{value}` is not an integer")),
                };
            }
        }
    }
    DataValue::Other(v.to_string())
}

/// Parses a decimal or `0x` hexadecimal integer with an optional sign.
pub fn parse_int(v: &str) -> Option<i64> {
    let v = v.trim();
    let (neg, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, v),
    };
    let n = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse().ok()?
        }
        None => return None,
    };
    Some(if neg { -n } else { n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params() {
        let p = parse_param("cudaIpcEventHandle_t handle: cudaIpcEventHandle_t,").expect("param");
        assert_eq!(
            (
                p.name.as_str(),
                p.c_type.as_deref(),
                p.annotation.as_deref()
            ),
            (
                "handle",
                Some("cudaIpcEventHandle_t"),
                Some("cudaIpcEventHandle_t")
            )
        );
        let p = parse_param("char *symbol").expect("param");
        assert_eq!(
            (p.name.as_str(), p.c_type.as_deref()),
            ("symbol", Some("char *"))
        );
        let p = parse_param("size_t numNodes=0").expect("param");
        assert_eq!(
            (p.name.as_str(), p.default.as_deref()),
            ("numNodes", Some("0"))
        );
        let p = parse_param("deps: Optional[tuple[cudaGraphNode_t] | list[cudaGraphNode_t]]")
            .expect("param");
        assert_eq!(
            p.stated_type(),
            Some("Optional[tuple[cudaGraphNode_t] | list[cudaGraphNode_t]]")
        );
        assert!(parse_param("a b: c: d").is_err());
        assert!(parse_param("Doc text.").is_err());
    }

    #[test]
    fn calls() {
        let c = split_call("cuda.bindings.runtime.f(a, b)").expect("call");
        assert_eq!(
            (c.qualified, c.args),
            ("cuda.bindings.runtime.f", Some("a, b"))
        );
        assert_eq!(split_call("m.X").expect("bare").args, None);
        assert!(split_call("m.f(a").is_err());
        assert_eq!(
            split_top_level("a: tuple[int, int], b", ','),
            ["a: tuple[int, int]", "b"]
        );
    }

    #[test]
    fn data() {
        assert_eq!(
            parse_data("runtime.X = -2").map(|d| d.1),
            Ok(DataValue::Integer(-2))
        );
        assert_eq!(
            parse_data("runtime.X = <enum 'Y'>").map(|d| d.1),
            Ok(DataValue::Alias {
                kind: "enum".into(),
                target: "Y".into()
            })
        );
        assert_eq!(
            parse_data("runtime.X = <class 'cuda.bindings.runtime.Y'>").map(|d| d.1),
            Ok(DataValue::Alias {
                kind: "class".into(),
                target: "Y".into()
            })
        );
        match parse_data("cudaSuccess = <cudaError_t.cudaSuccess: 0>").map(|d| d.1) {
            Ok(DataValue::Member {
                enum_name,
                member,
                value,
            }) => {
                assert_eq!(
                    (enum_name.as_str(), member.as_str(), value),
                    ("cudaError_t", "cudaSuccess", Ok(0))
                );
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            parse_data("A = <E.A: x1>").map(|d| d.1),
            Ok(DataValue::Member { value: Err(_), .. })
        ));
    }
}
