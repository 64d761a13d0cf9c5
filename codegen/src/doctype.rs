//! Structured type expressions parsed from the documentation's type text.
//!
//! The docs write types in Python-ish notation (`list[cudaGraphNode_t]`, `Optional[int]`,
//! `tuple[int] | list[int]`, `CUstream or cudaStream_t`, ``:py:obj:`~.cudaStream_t` ``) and,
//! in C blocks, C notation (`const char*`, `void*`). [`TypeRef::parse`] turns either into a
//! [`TypeExpr`] and keeps the original text. It never fails: text it cannot read becomes
//! [`TypeExpr::Unknown`], which callers report.

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostics;

/// Deepest nesting a type text may have: brackets (`list[…]`) and pointer levels (`T**`)
/// counted together. Deeper text is left unread ([`TypeProblem::TooDeep`]), so that reading,
/// and everything that recurses over a [`TypeExpr`] later (printing, comparing, JSON), stays
/// bounded and linear in the size of the text. The documents nest four levels at most; pretty
/// JSON indents each level, so a type at the bound prints about 100 bytes per byte of text.
pub const MAX_NESTING: usize = 32;

/// Why a type text could not be read into a [`TypeExpr`] (it became [`TypeExpr::Unknown`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TypeProblem {
    /// Not a type expression this reader knows.
    #[error("cannot read the type `{0}`")]
    Unreadable(String),
    /// Nested deeper than [`MAX_NESTING`].
    #[error("the type `{0}` is nested more than {MAX_NESTING} levels deep (brackets and pointer stars together); it is left unread")]
    TooDeep(String),
}

/// A type as written in the docs, with its parsed form.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TypeRef {
    /// The text as the document writes it, roles included.
    pub text: String,
    /// The parsed expression.
    pub expr: TypeExpr,
}

impl TypeRef {
    /// Parses `text`; never fails (see [`TypeExpr::Unknown`]).
    pub fn parse(text: &str) -> TypeRef {
        TypeRef::read(text).0
    }

    /// Parses `text` and says why, when it became [`TypeExpr::Unknown`], so that a front end
    /// can report it with its `file:line`. Quoted text in the problem is cut to a few dozen
    /// characters.
    pub fn read(text: &str) -> (TypeRef, Option<TypeProblem>) {
        let trimmed = text.trim();
        let (expr, problem) = match TypeExpr::read(text) {
            Ok(expr) => (expr, None),
            Err(stop) => {
                let shown = crate::text::abbreviate(trimmed, 80);
                let problem = match stop {
                    Stop::Unreadable => TypeProblem::Unreadable(shown),
                    Stop::TooDeep => TypeProblem::TooDeep(shown),
                };
                (
                    TypeExpr::Unknown {
                        text: trimmed.to_string(),
                    },
                    Some(problem),
                )
            }
        };
        (
            TypeRef {
                text: trimmed.to_string(),
                expr,
            },
            problem,
        )
    }

    /// Parses `text` for a front end that keeps unreadable types as they are written: only a
    /// type nested past [`MAX_NESTING`] (left unread) is reported, as a warning at `line`.
    pub fn parse_noting_depth(text: &str, diags: &mut Diagnostics, line: u32) -> TypeRef {
        let (ty, problem) = TypeRef::read(text);
        if let Some(p @ TypeProblem::TooDeep(_)) = problem {
            diags.warning(line, p.to_string());
        }
        ty
    }
}

/// A parsed type expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TypeExpr {
    /// A C scalar written by its C name: `int`, `unsigned int`, `size_t`, `float`,
    /// `unsigned long long`, `char`, `void`, `bool`.
    Primitive { name: String },
    /// A named type: an enum, struct, handle or typedef (`cudaStream_t`).
    Named { name: String },
    /// `list[T]` (also `List[T]`).
    List { of: Box<TypeExpr> },
    /// `tuple[T]` (also `Tuple[T]`).
    Tuple { of: Vec<TypeExpr> },
    /// `Optional[T]`.
    Optional { of: Box<TypeExpr> },
    /// `A | B` or `A or B`: any of the alternatives.
    Union { options: Vec<TypeExpr> },
    /// A C pointer (`T*`, `const T*`).
    Pointer { to: Box<TypeExpr>, is_const: bool },
    /// `Any`: a Python object standing for a pointer or buffer.
    Any,
    /// `bytes`.
    Bytes,
    /// `str`.
    Str,
    /// Text that could not be read as a type.
    Unknown { text: String },
}

const PRIMITIVES: &[&str] = &[
    "int",
    "unsigned int",
    "unsigned",
    "signed int",
    "short",
    "unsigned short",
    "long",
    "unsigned long",
    "long long",
    "unsigned long long",
    "size_t",
    "float",
    "double",
    "char",
    "signed char",
    "unsigned char",
    "void",
    "bool",
];

impl TypeExpr {
    /// Parses type text; never fails.
    pub fn parse(text: &str) -> TypeExpr {
        TypeExpr::read(text).unwrap_or_else(|_| TypeExpr::Unknown {
            text: text.trim().to_string(),
        })
    }

    fn read(text: &str) -> Result<TypeExpr, Stop> {
        let cleaned = strip_markup(text);
        parse_union(cleaned.trim(), 0)
    }

    /// The name of a [`TypeExpr::Named`] or [`TypeExpr::Primitive`].
    pub fn name(&self) -> Option<&str> {
        match self {
            TypeExpr::Named { name } | TypeExpr::Primitive { name } => Some(name),
            _ => None,
        }
    }

    /// Every named type this expression mentions, in order.
    pub fn named_types(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.walk(&mut |e| {
            if let TypeExpr::Named { name } = e {
                out.push(name.as_str());
            }
        });
        out
    }

    fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a TypeExpr)) {
        f(self);
        match self {
            TypeExpr::List { of } | TypeExpr::Optional { of } => of.walk(f),
            TypeExpr::Pointer { to, .. } => to.walk(f),
            TypeExpr::Tuple { of } => of.iter().for_each(|e| e.walk(f)),
            TypeExpr::Union { options } => options.iter().for_each(|e| e.walk(f)),
            _ => {}
        }
    }
}

/// Removes RST roles (``:py:obj:`~.X` `` → `X`), emphasis stars and backquotes.
fn strip_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(':') {
        // A role is `:name:` or `:dom:name:` directly followed by a backquote.
        let after = &rest[start..];
        if let Some(role_len) = role_prefix_len(after) {
            out.push_str(&rest[..start]);
            let body = &after[role_len..];
            if let Some(end) = body.find('`') {
                let target = body[..end].trim_start_matches('~').trim_start_matches('.');
                let target = target.rsplit('.').next().unwrap_or(target);
                out.push_str(target);
                rest = &body[end + 1..];
                continue;
            }
            rest = body;
            continue;
        }
        out.push_str(&rest[..=start]);
        rest = &rest[start + 1..];
    }
    out.push_str(rest);
    let out = out.replace('`', " ").replace('\\', "");
    // `*int*` is RST emphasis, `char*` a C pointer: only strip stars that open the text.
    let trimmed = out.trim();
    if trimmed.starts_with('*') {
        trimmed.trim_matches('*').to_string()
    } else {
        out
    }
}

/// Length of a role prefix such as `:py:obj:`` ` `` at the start of `s`, backquote included.
fn role_prefix_len(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut colons = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b':' {
            colons += 1;
            if i + 1 < bytes.len() && bytes[i + 1] == b'`' && colons >= 2 {
                return Some(i + 2);
            }
        } else if !(c.is_ascii_alphanumeric() || c == b'_' || c == b'-') {
            return None;
        }
        i += 1;
        if i > 40 {
            return None;
        }
    }
    None
}

/// Why reading stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Unreadable,
    TooDeep,
}

/// `A | B`, `A or B`, or a single type; `depth` is the nesting of `t` in the whole text.
fn parse_union(t: &str, depth: usize) -> Result<TypeExpr, Stop> {
    let parts = split_top(t, &["|", " or "]);
    if parts.len() > 1 {
        let options = parts
            .iter()
            .map(|p| parse_single(p.trim(), depth))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(TypeExpr::Union { options });
    }
    parse_single(t, depth)
}

/// Splits at any of `seps` outside brackets.
fn split_top<'a>(t: &'a str, seps: &[&str]) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut i = 0;
    let b = t.as_bytes();
    while i < b.len() {
        match b[i] {
            b'[' | b'(' => depth += 1,
            b']' | b')' => depth -= 1,
            _ => {}
        }
        // A separator only where a byte starts one (most bytes start none).
        if depth == 0 && seps.iter().any(|s| s.as_bytes().first() == Some(&b[i])) {
            if let Some(sep) = seps.iter().find(|s| b[i..].starts_with(s.as_bytes())) {
                parts.push(&t[start..i]);
                i += sep.len();
                start = i;
                continue;
            }
        }
        i += 1;
    }
    parts.push(&t[start..]);
    parts
}

/// One type: `head[args]`, a C pointer `T*` (any number of stars, read in one loop), or
/// words (`unsigned int`, `const cudaExtent`, a name).
fn parse_single(t: &str, depth: usize) -> Result<TypeExpr, Stop> {
    let t = t.trim();
    if t.is_empty() {
        return Err(Stop::Unreadable);
    }
    if depth > MAX_NESTING {
        return Err(Stop::TooDeep);
    }
    if let Some(open) = t.find('[') {
        // `[` and `]` are one byte each, so `open + 1` and `len - 1` are character boundaries.
        let inner = t[open + 1..].strip_suffix(']').ok_or(Stop::Unreadable)?;
        let head = t[..open].trim();
        let args = split_top(inner, &[","]);
        let mut exprs = Vec::with_capacity(args.len());
        for a in &args {
            let a = a.trim();
            if a == "..." {
                continue;
            }
            exprs.push(parse_union(a, depth + 1)?);
        }
        return match head.to_ascii_lowercase().as_str() {
            "list" | "sequence" if exprs.len() == 1 => Ok(TypeExpr::List {
                of: Box::new(exprs.remove(0)),
            }),
            "optional" if exprs.len() == 1 => Ok(TypeExpr::Optional {
                of: Box::new(exprs.remove(0)),
            }),
            "tuple" => Ok(TypeExpr::Tuple { of: exprs }),
            _ => Err(Stop::Unreadable),
        };
    }
    if t.contains([']', '(', ')']) {
        return Err(Stop::Unreadable);
    }
    // C pointers: `const char*`, `void *`, `T**`: count the stars, then read the base once.
    let mut base = t;
    let mut stars = 0usize;
    while let Some(rest) = base.strip_suffix('*') {
        stars += 1;
        if depth + stars > MAX_NESTING {
            return Err(Stop::TooDeep);
        }
        base = rest.trim_end();
    }
    if stars == 0 {
        return words(t);
    }
    // `const` before the base qualifies the pointee of the innermost pointer.
    let (is_const, base) = match base.strip_prefix("const ") {
        Some(b) => (true, b.trim()),
        None => (false, base),
    };
    let mut expr = TypeExpr::Pointer {
        to: Box::new(words(base)?),
        is_const,
    };
    for _ in 1..stars {
        expr = TypeExpr::Pointer {
            to: Box::new(expr),
            is_const: false,
        };
    }
    Ok(expr)
}

/// A type written as words: a primitive, `Any`/`bytes`/`str`, or a (possibly `struct`/`enum`
/// prefixed) name.
fn words(t: &str) -> Result<TypeExpr, Stop> {
    let words: Vec<&str> = t.split_whitespace().collect();
    let joined = words.join(" ");
    let joined = joined.strip_prefix("const ").unwrap_or(&joined).to_string();
    match joined.as_str() {
        "Any" | "object" => return Ok(TypeExpr::Any),
        "bytes" => return Ok(TypeExpr::Bytes),
        "str" => return Ok(TypeExpr::Str),
        _ => {}
    }
    if PRIMITIVES.contains(&joined.as_str()) {
        return Ok(TypeExpr::Primitive { name: joined });
    }
    let ident = joined
        .strip_prefix("struct ")
        .or(joined.strip_prefix("enum "))
        .unwrap_or(&joined);
    if is_identifier(ident) {
        return Ok(TypeExpr::Named {
            name: ident.to_string(),
        });
    }
    Err(Stop::Unreadable)
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(n: &str) -> TypeExpr {
        TypeExpr::Named { name: n.into() }
    }

    #[test]
    fn primitives_and_names() {
        assert_eq!(
            TypeExpr::parse("unsigned int"),
            TypeExpr::Primitive {
                name: "unsigned int".into()
            }
        );
        assert_eq!(
            TypeExpr::parse("size_t"),
            TypeExpr::Primitive {
                name: "size_t".into()
            }
        );
        assert_eq!(TypeExpr::parse(":py:obj:`~.cudaLimit`"), named("cudaLimit"));
        assert_eq!(
            TypeExpr::parse("*int*"),
            TypeExpr::Primitive { name: "int".into() }
        );
        assert_eq!(TypeExpr::parse("Any"), TypeExpr::Any);
        assert_eq!(TypeExpr::parse("bytes"), TypeExpr::Bytes);
    }

    #[test]
    fn containers() {
        assert_eq!(
            TypeExpr::parse("list[:py:obj:`~.cudaGraphNode_t`]"),
            TypeExpr::List {
                of: Box::new(named("cudaGraphNode_t"))
            }
        );
        assert_eq!(
            TypeExpr::parse("Optional[tuple[cudaGraphNode_t] | list[cudaGraphNode_t]]"),
            TypeExpr::Optional {
                of: Box::new(TypeExpr::Union {
                    options: vec![
                        TypeExpr::Tuple {
                            of: vec![named("cudaGraphNode_t")]
                        },
                        TypeExpr::List {
                            of: Box::new(named("cudaGraphNode_t"))
                        },
                    ]
                })
            }
        );
        assert_eq!(
            TypeExpr::parse("CUstream or cudaStream_t"),
            TypeExpr::Union {
                options: vec![named("CUstream"), named("cudaStream_t")]
            }
        );
    }

    #[test]
    fn c_pointers() {
        assert_eq!(
            TypeExpr::parse("const char*"),
            TypeExpr::Pointer {
                to: Box::new(TypeExpr::Primitive {
                    name: "char".into()
                }),
                is_const: true
            }
        );
        assert_eq!(
            TypeExpr::parse("cupy_allocator_handle*"),
            TypeExpr::Pointer {
                to: Box::new(named("cupy_allocator_handle")),
                is_const: false
            }
        );
    }

    #[test]
    fn pointer_depth_is_read_in_a_loop_and_bounded() {
        let at_bound = format!("int{}", "*".repeat(MAX_NESTING));
        let (ty, problem) = TypeRef::read(&at_bound);
        assert_eq!(problem, None);
        let mut depth = 0;
        let mut e = &ty.expr;
        while let TypeExpr::Pointer { to, .. } = e {
            depth += 1;
            e = to;
        }
        assert_eq!(depth, MAX_NESTING);
        // 28,000 stars once overflowed the stack; now a named problem, read in linear time.
        let deep = format!("int{}", "*".repeat(28_000));
        let (ty, problem) = TypeRef::read(&deep);
        assert!(matches!(ty.expr, TypeExpr::Unknown { .. }));
        let message = problem.expect("a problem").to_string();
        assert!(message.contains("nested more than 32 levels"), "{message}");
        assert!(
            message.len() < 300,
            "the message quotes an abbreviation: {message}"
        );
        let nested = format!("{}int{}", "list[".repeat(10_000), "]".repeat(10_000));
        assert!(matches!(
            TypeRef::read(&nested).1,
            Some(TypeProblem::TooDeep(_))
        ));
        assert_eq!(
            TypeExpr::parse("const char**"),
            TypeExpr::Pointer {
                to: Box::new(TypeExpr::Pointer {
                    to: Box::new(TypeExpr::Primitive {
                        name: "char".into()
                    }),
                    is_const: true
                }),
                is_const: false
            }
        );
    }

    #[test]
    fn json_of_a_type_is_linear_in_its_text() {
        let size = |stars: usize| {
            let ty = TypeRef::parse(&format!("int{}", "*".repeat(stars)));
            serde_json::to_string_pretty(&ty).expect("json").len()
        };
        // Past the bound the text is kept once or twice, never re-printed per level.
        let (a, b) = (size(20_000), size(40_000));
        assert!(b <= 2 * a + 100, "{a} then {b}");
        assert!(a <= 3 * 20_000, "{a}");
    }

    #[test]
    fn unreadable_text_is_unknown() {
        assert!(matches!(
            TypeExpr::parse("list[int"),
            TypeExpr::Unknown { .. }
        ));
        assert!(matches!(TypeExpr::parse(""), TypeExpr::Unknown { .. }));
        assert!(matches!(
            TypeExpr::parse("a b c ("),
            TypeExpr::Unknown { .. }
        ));
        assert_eq!(TypeRef::parse(" int ").text, "int");
    }
}
