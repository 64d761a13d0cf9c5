//! C declarations of a header, read from one statement's tokens: function prototypes (and
//! inline definitions), enums with their members, structs and unions with their fields
//! (nested ones included), typedefs (aliases, handles, function pointers) and `#define`
//! integer constants.
//!
//! The reader works on tokens, not on a C grammar: it knows the shapes headers use, drops
//! annotation macros (identifiers starting with `__`, with their parenthesised arguments, and
//! ALL-CAPS calling-convention macros before a name) and default arguments (`= 0`), and keeps
//! the C type as text (`const void*`). Doxygen comments inside a statement stay in the token
//! stream as [`Tok::Doc`] so members and fields keep their documentation. It does not decide
//! what is documented or build IR items ([`super`] does); a statement it cannot read is
//! [`Decl::Other`].

/// One token of a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    /// A number or any other word (string literal, operator run).
    Word(String),
    Punct(char),
    /// A Doxygen comment: its index into the scan's comments, and whether it is a trailing
    /// (`/**<`) one, which documents what comes before it.
    Doc(usize, bool),
}

/// A token and the line it is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub line: u32,
}

/// A C parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CParam {
    /// Empty when the declaration does not name it.
    pub name: String,
    /// The C type (`const void*`).
    pub ty: String,
}

/// An enum member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    /// The value expression as written, when given.
    pub value: Option<Vec<Tok>>,
    /// Doxygen comments before and after it.
    pub docs: Vec<usize>,
    pub line: u32,
}

/// A struct or union field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDecl {
    pub name: String,
    /// The C type (`unsigned int`, `char[256]`, `union {…}` for a nested record).
    pub ty: String,
    pub docs: Vec<usize>,
    /// Fields of a nested struct or union.
    pub nested: Vec<FieldDecl>,
    pub line: u32,
    /// For a declarator without a name (`int a, , b;`, a run of commas): how many such
    /// declarators in a row this one entry stands for (they are reported, never read as
    /// fields); 0 for a named one.
    pub unnamed: usize,
}

/// What kind of record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordKind {
    Struct,
    Union,
}

impl RecordKind {
    /// `struct` or `union`.
    pub fn word(self) -> &'static str {
        match self {
            RecordKind::Struct => "struct",
            RecordKind::Union => "union",
        }
    }
}

/// A declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decl {
    Function {
        name: String,
        ret: String,
        params: Vec<CParam>,
    },
    Enum {
        tag: Option<String>,
        typedef: Option<String>,
        members: Vec<Member>,
    },
    Record {
        kind: RecordKind,
        tag: Option<String>,
        typedef: Option<String>,
        fields: Vec<FieldDecl>,
    },
    /// `typedef T name;` (an alias or a handle).
    Typedef { name: String, ty: String },
    /// `typedef R (*name)(params);`.
    FnPointer {
        name: String,
        ret: String,
        params: Vec<CParam>,
    },
    /// Anything else, as text.
    Other(String),
}

/// How deep nested records are read.
const MAX_NESTING: usize = 8;

/// Splits statement text into tokens. `\u{1}N\u{1}` marks Doxygen comment N,
/// `\u{3}N\u{3}` trailing comment N and `\u{2}L\u{2}` the start of line L (all inserted by
/// [`super`]; the input's own control characters are replaced before).
pub fn tokens(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut line = 0u32;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == 1 || c == 2 || c == 3 {
            let end = b[i + 1..].iter().position(|&x| x == c).map(|p| i + 1 + p);
            if let Some(end) = end {
                let n: usize = text[i + 1..end].parse().unwrap_or(0);
                if c == 1 || c == 3 {
                    out.push(Token {
                        tok: Tok::Doc(n, c == 3),
                        line,
                    });
                } else {
                    line = u32::try_from(n).unwrap_or(u32::MAX);
                }
                i = end + 1;
            } else {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let tok = if c.is_ascii_alphabetic() || c == b'_' || starts_name_char(&text[i..]) {
            // A non-ASCII character that is no space stays in the name (`cudаFoo` with a
            // Cyrillic `а`, `cuda\u{200b}Foo`): the name is read whole and reported, never
            // cut at it.
            while i < b.len() {
                if b[i].is_ascii_alphanumeric() || b[i] == b'_' {
                    i += 1;
                } else if starts_name_char(&text[i..]) {
                    i += text[i..].chars().next().map_or(1, char::len_utf8);
                } else {
                    break;
                }
            }
            Tok::Ident(text[start..i].to_string())
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            Tok::Word(text[start..i].to_string())
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            Tok::Word(text.get(start..i).unwrap_or("\"\"").to_string())
        } else if (c == b'<' || c == b'>') && b.get(i + 1) == Some(&c) {
            i += 2;
            Tok::Word(text[start..i].to_string())
        } else if c.is_ascii() {
            i += 1;
            Tok::Punct(c as char)
        } else {
            let ch = text[i..].chars().next().unwrap_or(' ');
            i += ch.len_utf8();
            Tok::Word(ch.to_string())
        };
        out.push(Token { tok, line });
    }
    out
}

/// Whether `rest` starts with a non-ASCII character that is not a space (part of a name).
fn starts_name_char(rest: &str) -> bool {
    rest.chars()
        .next()
        .is_some_and(|c| !c.is_ascii() && !c.is_whitespace())
}

fn ident(t: &Tok) -> Option<&str> {
    match t {
        Tok::Ident(s) => Some(s),
        _ => None,
    }
}

fn is_punct(t: &Tok, c: char) -> bool {
    *t == Tok::Punct(c)
}

/// An annotation macro: `__host__`, `__device_builtin__`, `__dv`, `__align__`.
fn is_annotation(name: &str) -> bool {
    name.starts_with("__")
}

/// An ALL-CAPS macro name (`CUDARTAPI`, `CUDART_CB`).
fn is_caps_macro(name: &str) -> bool {
    name.len() >= 3
        && name.bytes().any(|c| c.is_ascii_uppercase())
        && name
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_')
}

const STORAGE: &[&str] = &["extern", "static", "inline", "register", "volatile"];

/// The tokens without Doxygen comments, annotation macros (and their arguments) and storage
/// words. Comments found are appended to `docs`.
fn clean(toks: &[Token], docs: &mut Vec<usize>) -> Vec<Token> {
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].tok {
            Tok::Doc(d, _) => {
                docs.push(*d);
                i += 1;
            }
            Tok::Ident(n) if is_annotation(n) || STORAGE.contains(&n.as_str()) => {
                i += 1;
                if is_annotation(n) && toks.get(i).is_some_and(|t| is_punct(&t.tok, '(')) {
                    i = skip_group(toks, i);
                }
            }
            _ => {
                out.push(toks[i].clone());
                i += 1;
            }
        }
    }
    out
}

/// Index after the bracket group opening at `i` (`(`, `[` or `{`).
fn skip_group(toks: &[Token], i: usize) -> usize {
    let mut depth = 0usize;
    let mut j = i;
    while j < toks.len() {
        match &toks[j].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    toks.len()
}

/// Splits `toks` at `sep` outside brackets.
fn split_top(toks: &[Token], sep: char) -> impl Iterator<Item = &[Token]> {
    let mut depth = 0usize;
    let mut start = 0;
    let mut i = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        while i < toks.len() {
            let at = i;
            i += 1;
            match &toks[at].tok {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => depth = depth.saturating_sub(1),
                Tok::Punct(c) if *c == sep && depth == 0 => {
                    let part = &toks[start..at];
                    start = at + 1;
                    return Some(part);
                }
                _ => {}
            }
        }
        done = true;
        Some(&toks[start..])
    })
}

/// Renders type tokens as C text: `const void*`, `unsigned long long`, `char[256]`.
pub fn type_text(toks: &[Token]) -> String {
    let mut s = String::new();
    for t in toks {
        match &t.tok {
            Tok::Punct('*') => s.push('*'),
            Tok::Punct(c @ ('[' | ']')) => {
                while s.ends_with(' ') {
                    s.pop();
                }
                s.push(*c);
            }
            Tok::Punct(c) => {
                if !s.is_empty() && !s.ends_with(['[', ' ']) {
                    s.push(' ');
                }
                s.push(*c);
            }
            Tok::Ident(w) | Tok::Word(w) => {
                if !s.is_empty() && !s.ends_with('[') {
                    s.push(' ');
                }
                s.push_str(w);
            }
            Tok::Doc(..) => {}
        }
    }
    s
}

/// Reads one statement (without its final `;`). `docs` receives Doxygen comments that are
/// not a member's or field's.
pub fn parse(toks: &[Token], docs: &mut Vec<usize>) -> Decl {
    let is_typedef = toks
        .iter()
        .find(|t| !matches!(t.tok, Tok::Doc(..)))
        .is_some_and(|t| t.tok == Tok::Ident("typedef".into()));
    let body_kw = toks.iter().position(
        |t| matches!(&t.tok, Tok::Ident(w) if w == "enum" || w == "struct" || w == "union"),
    );
    let brace = toks.iter().position(|t| is_punct(&t.tok, '{'));
    let paren = toks.iter().position(|t| is_punct(&t.tok, '('));
    // A definition with a body: `enum X {`, `typedef struct X {`.
    if let (Some(kw), Some(br)) = (body_kw, brace) {
        if kw < br && paren.is_none_or(|p| p > br) {
            return body_decl(toks, kw, br, is_typedef, docs);
        }
    }
    let mut c = clean(toks, docs);
    if is_typedef && !c.is_empty() {
        c.remove(0);
    }
    // `struct X;`: a declared but undefined (opaque) record.
    if let [kw, name] = c.as_slice() {
        if let (Some(k @ ("struct" | "union")), Some(n)) = (ident(&kw.tok), ident(&name.tok)) {
            if !is_typedef {
                return Decl::Record {
                    kind: if k == "union" {
                        RecordKind::Union
                    } else {
                        RecordKind::Struct
                    },
                    tag: Some(n.to_string()),
                    typedef: None,
                    fields: Vec::new(),
                };
            }
        }
    }
    if is_typedef {
        if let Some(d) = fn_pointer(&c) {
            return d;
        }
        return match c.last().map(|t| &t.tok) {
            Some(Tok::Ident(name)) if c.len() >= 2 => Decl::Typedef {
                name: name.clone(),
                ty: type_text(&c[..c.len() - 1]),
            },
            _ => Decl::Other(type_text(&c)),
        };
    }
    function(&c).unwrap_or_else(|| Decl::Other(type_text(&c)))
}

/// `R (MACRO *name)(params)`.
fn fn_pointer(c: &[Token]) -> Option<Decl> {
    let open = c.iter().position(|t| is_punct(&t.tok, '('))?;
    let close = skip_group(c, open);
    let inner = inside(c, open, close);
    let star = inner.iter().position(|t| is_punct(&t.tok, '*'))?;
    let name = ident(&inner.get(star + 1)?.tok)?.to_string();
    if !c.get(close).is_some_and(|t| is_punct(&t.tok, '(')) {
        return None;
    }
    let pend = skip_group(c, close);
    let ret = strip_macros(&c[..open]);
    Some(Decl::FnPointer {
        name,
        ret: type_text(&ret),
        params: params(&c[close + 1..pend.saturating_sub(1)]),
    })
}

/// Return-type tokens without calling-convention macros (kept when nothing else is left).
fn strip_macros(toks: &[Token]) -> Vec<Token> {
    let kept: Vec<Token> = toks
        .iter()
        .filter(|t| !ident(&t.tok).is_some_and(is_caps_macro))
        .cloned()
        .collect();
    if kept.iter().any(|t| ident(&t.tok).is_some()) {
        kept
    } else {
        toks.to_vec()
    }
}

fn function(c: &[Token]) -> Option<Decl> {
    let open = c.iter().position(|t| is_punct(&t.tok, '('))?;
    let name = ident(&c.get(open.checked_sub(1)?)?.tok)?.to_string();
    if name == "operator" {
        return None;
    }
    let close = skip_group(c, open);
    let rest = &c[close..];
    // After the parameters: nothing, a body, or a `const`/attribute word.
    if rest
        .iter()
        .any(|t| matches!(&t.tok, Tok::Punct(p) if *p != '{' && *p != '}'))
        && !rest.first().is_some_and(|t| is_punct(&t.tok, '{'))
    {
        return None;
    }
    let ret = strip_macros(&c[..open - 1]);
    if ret.is_empty() {
        return None;
    }
    Some(Decl::Function {
        name,
        ret: type_text(&ret),
        params: params(inside(c, open, close)),
    })
}

/// The parameters between a function's parentheses.
fn params(toks: &[Token]) -> Vec<CParam> {
    let parts: Vec<&[Token]> = split_top(toks, ',').collect();
    if parts.len() == 1
        && (parts[0].is_empty() || (parts[0].len() == 1 && ident(&parts[0][0].tok) == Some("void")))
    {
        return Vec::new();
    }
    parts.into_iter().map(param).collect()
}

fn param(toks: &[Token]) -> CParam {
    // A default argument (`= 0`) is C++ only.
    let end = toks
        .iter()
        .position(|t| is_punct(&t.tok, '='))
        .unwrap_or(toks.len());
    let t = &toks[..end];
    // `R (*name)(…)`: a function pointer parameter.
    if let Some(Decl::FnPointer { name, ret, params }) = fn_pointer(t) {
        let ps: Vec<String> = params.iter().map(|p| p.ty.clone()).collect();
        return CParam {
            name,
            ty: format!("{ret} (*)({})", ps.join(", ")),
        };
    }
    // `T name[N]` passes a pointer.
    let (t, array) = match t.iter().position(|x| is_punct(&x.tok, '[')) {
        Some(p) => (&t[..p], true),
        None => (t, false),
    };
    let named = t.len() >= 2
        && matches!(&t[t.len() - 1].tok, Tok::Ident(n) if !is_type_word(n))
        && !is_punct(&t[t.len() - 2].tok, ',');
    let (ty, name) = if named {
        (&t[..t.len() - 1], ident(&t[t.len() - 1].tok).unwrap_or(""))
    } else {
        (t, "")
    };
    let mut ty = type_text(ty);
    if array {
        ty.push('*');
    }
    CParam {
        name: name.to_string(),
        ty,
    }
}

/// Words that are part of a C type, never a parameter name.
fn is_type_word(w: &str) -> bool {
    matches!(
        w,
        "int"
            | "char"
            | "short"
            | "long"
            | "float"
            | "double"
            | "void"
            | "unsigned"
            | "signed"
            | "const"
            | "struct"
            | "enum"
            | "union"
            | "size_t"
            | "bool"
    )
}

/// `[typedef] enum|struct|union [tag] { body } [name]`.
fn body_decl(
    toks: &[Token],
    kw: usize,
    brace: usize,
    is_typedef: bool,
    docs: &mut Vec<usize>,
) -> Decl {
    let close = skip_group(toks, brace);
    let head = clean(toks.get(kw + 1..brace).unwrap_or(&[]), docs);
    let tag = head
        .iter()
        .rev()
        .find_map(|t| ident(&t.tok))
        .map(str::to_string);
    let tail = clean(toks.get(close..).unwrap_or(&[]), docs);
    let typedef = if is_typedef {
        tail.iter().find_map(|t| ident(&t.tok)).map(str::to_string)
    } else {
        None
    };
    let body = inside(toks, brace, close);
    match ident(&toks[kw].tok) {
        Some("enum") => Decl::Enum {
            tag,
            typedef,
            members: members(body),
        },
        Some(w) => Decl::Record {
            kind: if w == "union" {
                RecordKind::Union
            } else {
                RecordKind::Struct
            },
            tag,
            typedef,
            fields: fields(body, 0),
        },
        None => Decl::Other(type_text(toks)),
    }
}

/// The tokens between the bracket at `open` and its match (`close` is [`skip_group`]'s
/// answer; an unclosed group runs to the end).
fn inside(toks: &[Token], open: usize, close: usize) -> &[Token] {
    let closing = |t: &Token| matches!(t.tok, Tok::Punct(')' | ']' | '}'));
    let end = if close > open + 1 && toks.get(close - 1).is_some_and(closing) {
        close - 1
    } else {
        close.max(open + 1)
    };
    &toks[(open + 1).min(end)..end]
}

/// Enum members with their comments: a comment before a member documents it; a trailing
/// (`/**<`) one documents the member before it.
fn members(body: &[Token]) -> Vec<Member> {
    let mut out: Vec<Member> = Vec::new();
    let mut leading: Vec<usize> = Vec::new();
    let mut after_comma = true;
    let mut cur: Option<Member> = None;
    let mut depth = 0usize;
    for t in body {
        match &t.tok {
            Tok::Doc(d, trailing) => match (&mut cur, trailing, out.last_mut()) {
                (Some(m), _, _) => m.docs.push(*d),
                (None, true, Some(prev)) => prev.docs.push(*d),
                (None, _, _) => leading.push(*d),
            },
            Tok::Punct(',') if depth == 0 => {
                if let Some(m) = cur.take() {
                    out.push(m);
                }
                after_comma = true;
            }
            Tok::Ident(n) if after_comma && depth == 0 && cur.is_none() => {
                cur = Some(Member {
                    name: n.clone(),
                    value: None,
                    docs: std::mem::take(&mut leading),
                    line: t.line,
                });
                after_comma = false;
            }
            Tok::Punct('=') if depth == 0 => {
                if let Some(m) = &mut cur {
                    m.value = Some(Vec::new());
                }
            }
            other => {
                if let Tok::Punct('(' | '[' | '{') = other {
                    depth += 1;
                }
                if let Tok::Punct(')' | ']' | '}') = other {
                    depth = depth.saturating_sub(1);
                }
                if let Some(Member { value: Some(v), .. }) = &mut cur {
                    v.push(other.clone());
                }
            }
        }
    }
    if let Some(m) = cur.take() {
        out.push(m);
    }
    // Comments after the last member (a trailing `/**<` after its comma).
    if let Some(last) = out.last_mut() {
        last.docs.append(&mut leading);
    }
    out
}

/// How many declarators of one statement (`int a, b, c;`, `struct {…} x, y;`) share the
/// comments before it and the nested fields; later ones get neither, so that a statement with
/// thousands of declarators cannot multiply one comment thousands of times.
const MAX_SHARED: usize = 4;

/// Struct or union fields, with nested records read up to [`MAX_NESTING`].
fn fields(body: &[Token], depth: usize) -> Vec<FieldDecl> {
    let mut out: Vec<FieldDecl> = Vec::new();
    let mut pending: Vec<usize> = Vec::new();
    for part in split_top(body, ';') {
        // Comments at the start of a part follow the previous `;`: trailing ones there
        // belong to the previous field; the caller sorts them by kind.
        let mut k = 0;
        while k < part.len() {
            match (&part[k].tok, out.last_mut()) {
                (Tok::Doc(d, true), Some(prev)) => prev.docs.push(*d),
                (Tok::Doc(d, _), _) => pending.push(*d),
                _ => break,
            }
            k += 1;
        }
        let part = &part[k..];
        if part.is_empty() {
            continue;
        }
        let docs = std::mem::take(&mut pending);
        let kw = part.iter().position(
            |t| matches!(&t.tok, Tok::Ident(w) if w == "struct" || w == "union" || w == "enum"),
        );
        let brace = part.iter().position(|t| is_punct(&t.tok, '{'));
        match (kw, brace) {
            (Some(kw), Some(br)) => record_fields(part, kw, br, depth, docs, &mut out),
            _ => declarator_fields(part, &docs, &mut out),
        }
    }
    if let Some(last) = out.last_mut() {
        last.docs.append(&mut pending);
    }
    out
}

/// The fields a statement declaring a nested record declares (`struct {…} x, y;`): one per
/// name after the braces, each with the record's fields. `kw` is the `struct`/`union`/`enum`
/// keyword of `part`, `br` its opening brace; `docs` the comments before the statement.
fn record_fields(
    part: &[Token],
    kw: usize,
    br: usize,
    depth: usize,
    mut docs: Vec<usize>,
    out: &mut Vec<FieldDecl>,
) {
    let line = part[0].line;
    let close = skip_group(part, br);
    let inner = inside(part, br, close);
    let nested = if depth < MAX_NESTING {
        fields(inner, depth + 1)
    } else {
        Vec::new()
    };
    let kind = ident(&part[kw].tok).unwrap_or("struct").to_string();
    let tail = clean(part.get(close..).unwrap_or(&[]), &mut docs);
    for (n, name) in tail.iter().filter_map(|t| ident(&t.tok)).enumerate() {
        let shared = n < MAX_SHARED;
        out.push(FieldDecl {
            name: name.to_string(),
            ty: format!("{kind} {{…}}"),
            docs: if shared { docs.clone() } else { Vec::new() },
            nested: if shared { nested.clone() } else { Vec::new() },
            line,
            unnamed: 0,
        });
    }
}

/// The fields of a statement of plain declarators (`T a, *b, c[4];`), taken one at a time (a
/// statement may hold a million). Comments inside the statement belong to the declarator they
/// stand in; `docs`, the ones before it, to every declarator (`/** doc */ int a, b;`).
fn declarator_fields(part: &[Token], docs: &[usize], out: &mut Vec<FieldDecl>) {
    let line = part[0].line;
    let mut first: Vec<Token> = Vec::new();
    let mut base_len = 0;
    for (n, piece) in split_top(part, ',').enumerate() {
        let mut own = Vec::new();
        let d = clean(piece, &mut own);
        let (name, ty) = if n == 0 {
            // `T a, *b, c[4]`: the base type is the first declarator's tokens before its
            // name.
            let (b, rest) = declarator(&d);
            base_len = b.len();
            let found = (field_name(rest), type_text(&[b, rest].concat()));
            first = d;
            found
        } else {
            let b = &first[..base_len];
            (field_name(&d), type_text(&[b, &d[..]].concat()))
        };
        if name.is_empty() {
            // A run of unnamed declarators is one entry, counted, whatever its length.
            match out.last_mut() {
                Some(prev) if prev.unnamed > 0 && prev.line == line => prev.unnamed += 1,
                _ => out.push(FieldDecl {
                    name,
                    ty: String::new(),
                    docs: Vec::new(),
                    nested: Vec::new(),
                    line,
                    unnamed: 1,
                }),
            }
            continue;
        }
        let ty = remove_name(&ty, &name);
        let mut field_docs = if n < MAX_SHARED {
            docs.to_vec()
        } else {
            Vec::new()
        };
        field_docs.extend(own);
        out.push(FieldDecl {
            name,
            ty,
            docs: field_docs,
            nested: Vec::new(),
            line,
            unnamed: 0,
        });
    }
}

/// Splits a declarator `unsigned int x[4] : 2` into base-type tokens and the rest (from the
/// first `*` or the name on).
fn declarator(toks: &[Token]) -> (&[Token], &[Token]) {
    // The name is the last identifier before `[`, `:` or the end.
    let end = toks
        .iter()
        .position(|t| is_punct(&t.tok, '[') || is_punct(&t.tok, ':'))
        .unwrap_or(toks.len());
    let name_at = toks[..end]
        .iter()
        .rposition(|t| ident(&t.tok).is_some())
        .unwrap_or(0);
    let mut start = name_at;
    while start > 0 && is_punct(&toks[start - 1].tok, '*') {
        start -= 1;
    }
    (&toks[..start], &toks[start..])
}

fn field_name(toks: &[Token]) -> String {
    let end = toks
        .iter()
        .position(|t| is_punct(&t.tok, '[') || is_punct(&t.tok, ':'))
        .unwrap_or(toks.len());
    toks[..end]
        .iter()
        .rev()
        .find_map(|t| ident(&t.tok))
        .unwrap_or("")
        .to_string()
}

/// `unsigned int x[4] : 2` → `unsigned int[4]` (the bit width is not part of the type).
fn remove_name(ty: &str, name: &str) -> String {
    let ty = match ty.find(" :") {
        Some(p) => &ty[..p],
        None => ty,
    };
    let words: Vec<&str> = ty.split(' ').collect();
    let mut out = String::new();
    for w in words {
        let w = if w == name {
            ""
        } else if let Some(rest) = w.strip_prefix(name).filter(|r| r.starts_with('[')) {
            rest
        } else if let Some(rest) = w
            .strip_prefix('*')
            .and_then(|x| x.strip_prefix(name))
            .filter(|r| r.is_empty() || r.starts_with('['))
        {
            out.push('*');
            rest
        } else {
            w
        };
        if w.is_empty() {
            continue;
        }
        if !out.is_empty() && !w.starts_with('[') && !out.ends_with('*') {
            out.push(' ');
        }
        out.push_str(w);
    }
    out.replace(" *", "*")
}

/// The value of an integer constant expression: literals (decimal, hex, octal, with `u`/`l`
/// suffixes), casts, parentheses, unary `-`/`~`, and binary `+ - * << >> | & ^`, with names
/// looked up by `lookup`. `None` when it is not one.
pub fn eval(toks: &[Tok], lookup: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
    let mut p = Eval { t: toks, i: 0 };
    let v = p.or(lookup, 0)?;
    (p.i == toks.len()).then_some(v)
}

struct Eval<'a> {
    t: &'a [Tok],
    i: usize,
}

const MAX_EVAL_DEPTH: usize = 64;

impl Eval<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }

    fn op(&self) -> Option<&str> {
        match self.peek()? {
            Tok::Punct('+') => Some("+"),
            Tok::Punct('-') => Some("-"),
            Tok::Punct('*') => Some("*"),
            Tok::Punct('|') => Some("|"),
            Tok::Punct('&') => Some("&"),
            Tok::Punct('^') => Some("^"),
            Tok::Word(w) if w == "<<" || w == ">>" => Some(w.as_str()),
            _ => None,
        }
    }

    /// Binary operators, left to right (the headers' expressions use one kind at a time).
    fn or(&mut self, l: &dyn Fn(&str) -> Option<i64>, depth: usize) -> Option<i64> {
        let mut v = self.unary(l, depth + 1)?;
        while let Some(op) = self.op().map(str::to_string) {
            self.i += 1;
            let r = self.unary(l, depth + 1)?;
            v = match op.as_str() {
                "+" => v.checked_add(r)?,
                "-" => v.checked_sub(r)?,
                "*" => v.checked_mul(r)?,
                "|" => v | r,
                "&" => v & r,
                "^" => v ^ r,
                "<<" => v.checked_shl(u32::try_from(r).ok()?)?,
                _ => v.checked_shr(u32::try_from(r).ok()?)?,
            };
        }
        Some(v)
    }

    fn unary(&mut self, l: &dyn Fn(&str) -> Option<i64>, depth: usize) -> Option<i64> {
        if depth > MAX_EVAL_DEPTH {
            return None;
        }
        match self.peek()?.clone() {
            Tok::Punct('-') => {
                self.i += 1;
                self.unary(l, depth + 1)?.checked_neg()
            }
            Tok::Punct('~') => {
                self.i += 1;
                Some(!self.unary(l, depth + 1)?)
            }
            Tok::Punct('(') => {
                self.i += 1;
                // A cast `(type)x`: identifiers (and `*`) then `)` then an operand.
                let save = self.i;
                let mut j = self.i;
                while matches!(self.t.get(j), Some(Tok::Ident(_) | Tok::Punct('*'))) {
                    j += 1;
                }
                let is_cast = j > save
                    && matches!(self.t.get(j), Some(Tok::Punct(')')))
                    && self.t.get(j + 1).is_some_and(|t| {
                        matches!(
                            t,
                            Tok::Word(_) | Tok::Punct('(' | '-' | '~') | Tok::Ident(_)
                        )
                    })
                    && !(j == save + 1 && matches!(&self.t[save], Tok::Ident(n) if l(n).is_some()));
                if is_cast {
                    self.i = j + 1;
                    return self.unary(l, depth + 1);
                }
                let v = self.or(l, depth + 1)?;
                if self.peek() != Some(&Tok::Punct(')')) {
                    return None;
                }
                self.i += 1;
                Some(v)
            }
            Tok::Word(w) => {
                self.i += 1;
                literal(&w)
            }
            Tok::Ident(n) => {
                self.i += 1;
                l(&n)
            }
            _ => None,
        }
    }
}

/// An integer literal with optional `u`/`l` suffixes.
fn literal(w: &str) -> Option<i64> {
    let t = w.trim_end_matches(['u', 'U', 'l', 'L']);
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()?
    } else {
        t.parse::<u64>().ok()?
    };
    // Values above i64::MAX (unsigned 64-bit masks) keep their bits.
    Some(v as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(text: &str) -> Decl {
        let mut docs = Vec::new();
        parse(&tokens(text), &mut docs)
    }

    fn p(name: &str, ty: &str) -> CParam {
        CParam {
            name: name.into(),
            ty: ty.into(),
        }
    }

    #[test]
    fn functions() {
        assert_eq!(
            decl("extern __host__ cudaError_t CUDARTAPI cudaLaunchKernel(const void *func, dim3 gridDim, void **args, cudaStream_t stream __dv(0))"),
            Decl::Function {
                name: "cudaLaunchKernel".into(),
                ret: "cudaError_t".into(),
                params: vec![p("func", "const void*"), p("gridDim", "dim3"), p("args", "void**"), p("stream", "cudaStream_t")],
            }
        );
        assert_eq!(
            decl("extern __CUDA_DEPRECATED __host__ const char* CUDARTAPI cudaGetErrorName(cudaError_t error)"),
            Decl::Function {
                name: "cudaGetErrorName".into(),
                ret: "const char*".into(),
                params: vec![p("error", "cudaError_t")],
            }
        );
        assert_eq!(
            decl("extern cudaError_t f(void)"),
            Decl::Function {
                name: "f".into(),
                ret: "cudaError_t".into(),
                params: vec![]
            }
        );
        assert_eq!(
            decl("static __inline__ __host__ struct cudaPos make_cudaPos(size_t x, size_t y) { struct cudaPos p; p.x = x; return p; }"),
            Decl::Function {
                name: "make_cudaPos".into(),
                ret: "struct cudaPos".into(),
                params: vec![p("x", "size_t"), p("y", "size_t")],
            }
        );
        assert_eq!(
            decl("extern cudaError_t g(unsigned int flags = cudaMemAttachGlobal, struct cudaDeviceProp *prop)"),
            Decl::Function {
                name: "g".into(),
                ret: "cudaError_t".into(),
                params: vec![p("flags", "unsigned int"), p("prop", "struct cudaDeviceProp*")],
            }
        );
    }

    #[test]
    fn typedefs() {
        assert_eq!(
            decl("typedef __device_builtin__ struct CUstream_st *cudaStream_t"),
            Decl::Typedef {
                name: "cudaStream_t".into(),
                ty: "struct CUstream_st*".into()
            }
        );
        assert_eq!(
            decl("typedef void (CUDART_CB *cudaHostFn_t)(void *userData)"),
            Decl::FnPointer {
                name: "cudaHostFn_t".into(),
                ret: "void".into(),
                params: vec![p("userData", "void*")]
            }
        );
    }

    #[test]
    fn enums_and_records() {
        let Decl::Enum {
            tag,
            typedef,
            members,
        } = decl("typedef enum cudaX_t { A = 0, B = 0x2, C, D = (A | B) } cudaX")
        else {
            panic!("not an enum")
        };
        assert_eq!(tag.as_deref(), Some("cudaX_t"));
        assert_eq!(typedef.as_deref(), Some("cudaX"));
        let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["A", "B", "C", "D"]);
        let look = |n: &str| match n {
            "A" => Some(0),
            "B" => Some(2),
            _ => None,
        };
        assert_eq!(
            eval(members[3].value.as_ref().expect("value"), &look),
            Some(2)
        );
        let Decl::Record { kind, fields, .. } = decl(
            "struct __device_builtin__ cudaS { char name[256]; unsigned int a, *b; union { int fd; struct { void *handle; } win32; } handle; int bits : 3; }",
        ) else {
            panic!("not a record")
        };
        assert_eq!(kind, RecordKind::Struct);
        let f: Vec<(String, String)> = fields
            .iter()
            .map(|f| (f.name.clone(), f.ty.clone()))
            .collect();
        assert_eq!(
            f,
            [
                ("name".to_string(), "char[256]".to_string()),
                ("a".into(), "unsigned int".into()),
                ("b".into(), "unsigned int*".into()),
                ("handle".into(), "union {…}".into()),
                ("bits".into(), "int".into()),
            ]
        );
        assert_eq!(fields[3].nested.len(), 2);
        assert_eq!(fields[3].nested[1].nested[0].name, "handle");
    }

    #[test]
    fn constant_expressions() {
        let none = |_: &str| None;
        let ev = |s: &str| {
            eval(
                &tokens(s).into_iter().map(|t| t.tok).collect::<Vec<_>>(),
                &none,
            )
        };
        assert_eq!(ev("((cudaStream_t)0x2)"), Some(2));
        assert_eq!(ev("((int)-1)"), Some(-1));
        assert_eq!(ev("0x01U"), Some(1));
        assert_eq!(ev("(1 << 3)"), Some(8));
        assert_eq!(ev("\"text\""), None);
        assert_eq!(ev("0xffffffffffffffffULL"), Some(-1));
    }
}
