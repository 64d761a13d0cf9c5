//! One model of a raw reStructuredText docstring, shared by every front end.
//!
//! [`parse`] reads the docstring lines of one object (a slice of [`DocLine`]s, however they
//! were obtained) into a [`Docstring`]:
//!
//! - description paragraphs (prose before the structured part, kept as RST);
//! - `:param x: doc` and `:type x: T` fields (`:param T x:` also gives a type);
//! - `:returns:` as either a plain list of status codes, or bullets: a leading unnamed bullet
//!   `* *cudaError_t* -- statuses` (the status), then `* **name** (type) -- doc` outputs with
//!   continuation lines, and unnamed values `* *bytes* -- doc`;
//! - `:rtype: T`; a bare `:type: T` and `:value: V` (attribute bodies);
//! - `.. seealso::` name lists, `.. method:: sig` with a body, `.. rubric:: Notes` and the
//!   note paragraphs after it;
//! - attributes, in every form Sphinx pages write them: `.. attribute:: name` (or
//!   `.. py:attribute::`) with an indented body (read recursively: its description and
//!   `:type:`); numpydoc / definition-list items `name : type` with an indented description
//!   (also a bare `name` or `name (type)` term followed at once by an indented body), under an
//!   optional `Attributes` / `----------` section header; Google-style `Attributes:` sections
//!   of `name (type): doc` items; info fields `:ivar name: doc`
//!   (`:var:`, `:cvar:`, `:ivar T name:`) with `:vartype name: T`. A dotted name keeps its last
//!   part;
//! - enum members written inside the body: `NAME = VALUE` lines (an integer or `<E.X: 3>`,
//!   an optional `#`), and attributes with a `:value:`.
//!
//! **What each line was read as** is recorded in [`Docstring::parts`], one [`Part`] per input
//! line. Lines the model does not understand are [`Part::Unread`]: an unknown field, a Sphinx
//! object directive it does not read, a signature fragment, and any text after the structured
//! part began (a field, an object directive, a definition, a member) outside a Notes rubric.
//! The caller, which knows what the object is ([`Holder`]), turns the parts it cannot hold
//! into unread runs with [`Docstring::unread`] ([`super::unread`] reports them).
//!
//! It does not know what object the docstring belongs to, nor build IR items: that is
//! [`super::sphinx_blocks`]'s job. Problems (a malformed bullet, a bad name) are returned as
//! [`Problem`]s with the line they were found on; nothing here panics.

use crate::diag::Severity;

use super::blocks::DocLine;
use super::signature::{self, is_ident, DataValue};
use super::unread::{Run, Runs};

/// How deep `.. attribute::` bodies are read recursively before being kept as plain text.
const MAX_DEPTH: usize = 4;

/// A piece of text with the line it starts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub text: String,
    pub line: u32,
}

/// A `:param name: text` or `:type name: text` field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDoc {
    pub name: String,
    /// The field body, continuation lines joined by a space.
    pub text: String,
    pub line: u32,
}

/// One `:returns:` bullet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReturnItem {
    /// `**name**`; `None` for an unnamed value (`* *bytes* -- …`, the status bullet).
    pub name: Option<String>,
    /// The type text (`(…)` after a name, or the `*T*` of an unnamed bullet).
    pub ty: Option<String>,
    /// Text after ` -- `, continuation lines joined by a space.
    pub doc: String,
    pub line: u32,
}

/// The `:returns:` field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Returns {
    pub line: u32,
    /// The leading unnamed bullet (`* *cudaError_t* -- cudaSuccess, …`), when bulleted.
    pub status: Option<ReturnItem>,
    /// Status codes listed: the status bullet's names, or the plain list's.
    pub codes: Vec<String>,
    /// Bullets after the status, in order.
    pub outputs: Vec<ReturnItem>,
}

/// An `.. attribute:: name` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttributeDoc {
    pub name: String,
    /// The body's description.
    pub doc: String,
    /// The body's `:type:`.
    pub ty: Option<String>,
    pub line: u32,
}

/// An enum member written inside a class body (`NAME = 3`, or an attribute with `:value: 3`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberDoc {
    /// The member's name (the last part of a dotted name).
    pub name: String,
    /// The value, or why it is not an integer.
    pub value: Result<i64, String>,
    /// The indented description under it.
    pub doc: String,
    pub line: u32,
}

/// What one docstring line was read as (see [`Docstring::parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// An empty line.
    Blank,
    /// Description or notes text, a `.. seealso::`, a rubric, an admonition.
    Prose,
    /// A `:param:` or `:type name:` field.
    Param,
    /// A `:returns:` or `:rtype:` field.
    Returns,
    /// A bare `:type:` or `:value:` field (the options of an attribute body).
    Option,
    /// An attribute in any of its forms, with its body.
    Attribute,
    /// A `.. method::` entry with its body.
    Method,
    /// An enum member written in the body.
    Member,
    /// Not understood.
    Unread,
}

impl Part {
    /// What an attribute's or a member's body may hold.
    const BODY: &'static [Part] = &[Part::Prose, Part::Option];
}

/// The kind of object a docstring belongs to, which decides what the docstring may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// A function: description, parameters, returns.
    Function,
    /// A struct or another class: description, attributes, methods.
    Record,
    /// An enum class: description, methods, members.
    Enum,
    /// A data object or a heading's intro: description only.
    Text,
}

impl Holder {
    /// Whether a docstring of this holder may hold a `part`.
    pub fn accepts(self, part: Part) -> bool {
        let parts: &[Part] = match self {
            Holder::Function => &[Part::Prose, Part::Param, Part::Returns],
            Holder::Record => &[Part::Prose, Part::Attribute, Part::Method],
            Holder::Enum => &[Part::Prose, Part::Method, Part::Member],
            Holder::Text => &[Part::Prose],
        };
        parts.contains(&part)
    }

    /// Whether the holder is a class: class descriptions on real pages hold no line shaped
    /// like an attribute definition, so in a class such a line of prose is a field or member
    /// in a form not read, and unread.
    fn is_class(self) -> bool {
        matches!(self, Holder::Record | Holder::Enum)
    }
}

/// A `.. method:: sig` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodDoc {
    pub signature: String,
    pub doc: String,
    pub line: u32,
}

/// Something in a docstring that was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub severity: Severity,
    pub line: u32,
    pub message: String,
}

/// What one docstring says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Docstring {
    /// Description paragraphs as RST, blank-line separated.
    pub description: String,
    /// `:param` fields in order.
    pub params: Vec<FieldDoc>,
    /// `:type name:` fields in order (and types given inline by `:param T name:`).
    pub param_types: Vec<FieldDoc>,
    pub returns: Option<Returns>,
    pub rtype: Option<Located>,
    /// A bare `:type:` field (in attribute bodies).
    pub ty: Option<Located>,
    /// Names listed by `.. seealso::`, in order.
    pub see_also: Vec<String>,
    pub attributes: Vec<AttributeDoc>,
    /// Enum members written in the body.
    pub members: Vec<MemberDoc>,
    pub methods: Vec<MethodDoc>,
    /// Paragraphs after `.. rubric:: Notes`.
    pub notes: String,
    /// A bare `:value:` field (in attribute bodies).
    pub value: Option<Located>,
    pub problems: Vec<Problem>,
    /// What each line given to [`parse`] was read as, one entry per line.
    pub parts: Vec<Part>,
    /// Index into `attributes` by name, for info fields that name an attribute again.
    by_name: foldhash::HashMap<String, usize>,
}

impl Docstring {
    /// The `:param` field for `name`.
    pub fn param(&self, name: &str) -> Option<&FieldDoc> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The `:type` field for `name`.
    pub fn param_type(&self, name: &str) -> Option<&FieldDoc> {
        self.param_types.iter().find(|p| p.name == name)
    }

    /// The runs of `lines` (the lines this docstring was parsed from) that an object of kind
    /// `holder` leaves unread: lines whose part it does not accept, lines the model could not
    /// read ([`Part::Unread`]), and in a class, prose shaped like an attribute definition
    /// (`x (int) -- doc`, `* **x** -- doc`, `x: doc`).
    pub fn unread(&self, lines: &[DocLine<'_>], holder: Holder) -> Vec<Run> {
        let mut runs = Runs::new();
        // Whether the last non-blank line was unread: prose indented under it continues it.
        let mut in_run = false;
        for (l, part) in lines.iter().zip(&self.parts) {
            let unread = match part {
                Part::Blank => continue,
                Part::Prose if holder.is_class() && looks_attribute_like(&l.text) => true,
                Part::Prose if in_run && indent(&l.text) > 0 => true,
                p => *p == Part::Unread || !holder.accepts(*p),
            };
            runs.line(l.line, &l.text, !unread);
            in_run = unread;
        }
        runs.into_runs()
    }

    /// The first line of `lines` (the lines this docstring was parsed from) that looks like an
    /// attribute definition (`name : type`, `:ivar x:`, `.. attribute:: x`, `x (int) -- doc`)
    /// but was left unread or taken for prose: a class without fields but with such a line
    /// lost them. Returns its line and text.
    pub fn attribute_like(&self, lines: &[DocLine<'_>]) -> Option<(u32, String)> {
        lines
            .iter()
            .zip(&self.parts)
            .find(|(l, p)| matches!(p, Part::Unread | Part::Prose) && looks_attribute_like(&l.text))
            .map(|(l, _)| (l.line, l.text.trim().to_string()))
    }

    /// The description followed by the notes (under a `.. rubric:: Notes` line), as RST.
    pub fn doc_text(&self) -> String {
        match (self.description.is_empty(), self.notes.is_empty()) {
            (_, true) => self.description.clone(),
            (true, false) => format!(".. rubric:: Notes\n\n{}", self.notes),
            (false, false) => format!(
                "{}\n\n.. rubric:: Notes\n\n{}",
                self.description, self.notes
            ),
        }
    }
}

/// Reads the docstring `lines`.
pub fn parse(lines: &[DocLine<'_>]) -> Docstring {
    let view: Vec<Ln<'_>> = lines
        .iter()
        .map(|l| Ln {
            text: l.text.as_ref(),
            line: l.line,
        })
        .collect();
    parse_view(&view, 0)
}

#[derive(Clone, Copy)]
struct Ln<'s> {
    text: &'s str,
    line: u32,
}

fn indent(s: &str) -> usize {
    s.bytes().take_while(|b| *b == b' ' || *b == b'\t').count()
}

fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// End (exclusive) of the indented body starting at `start`: indented lines, and blank
/// lines that are followed by an indented line.
fn body_end(lines: &[Ln<'_>], start: usize) -> usize {
    let mut i = start;
    while i < lines.len() {
        let t = lines[i].text;
        if !is_blank(t) {
            if indent(t) == 0 {
                break;
            }
            i += 1;
            continue;
        }
        let mut j = i;
        while j < lines.len() && is_blank(lines[j].text) {
            j += 1;
        }
        if j < lines.len() && indent(lines[j].text) > 0 {
            i = j;
        } else {
            break;
        }
    }
    i
}

/// `:name arg: rest` → (name, arg, rest); `None` when the line is not a field.
fn split_field(text: &str) -> Option<(&str, &str, &str)> {
    let inner = text.strip_prefix(':')?;
    let close = inner.find(':')?;
    let head = &inner[..close];
    let rest = &inner[close + 1..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let (name, arg) = match head.find(' ') {
        Some(sp) => (&head[..sp], head[sp + 1..].trim()),
        None => (head, ""),
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return None;
    }
    Some((name, arg, rest.trim()))
}

/// `.. name:: arg` → (name, arg).
fn split_directive(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix(".. ")?;
    let close = inner.find("::")?;
    let name = &inner[..close];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'))
    {
        return None;
    }
    Some((name, inner[close + 2..].trim()))
}

/// Joins a field's first-line text and its continuation lines with single spaces.
fn join_words(first: &str, rest: &[Ln<'_>]) -> String {
    let mut out = first.trim().to_string();
    for l in rest {
        let t = l.text.trim();
        if !t.is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(t);
        }
    }
    out
}

/// Lines to RST text: trailing spaces cut, outer blank lines dropped, blank runs collapsed.
fn tidy(lines: &[&str]) -> String {
    let mut out = String::new();
    let mut pending_blank = false;
    for l in lines {
        let t = l.trim_end();
        if t.is_empty() {
            pending_blank = !out.is_empty();
            continue;
        }
        if pending_blank {
            out.push_str("\n\n");
        } else if !out.is_empty() {
            out.push('\n');
        }
        pending_blank = false;
        out.push_str(t);
    }
    out
}

/// Removes the common indentation of `lines` (blank lines stay blank).
fn dedent<'s>(lines: &[Ln<'s>]) -> Vec<Ln<'s>> {
    let min = lines
        .iter()
        .filter(|l| !is_blank(l.text))
        .map(|l| indent(l.text))
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| Ln {
            text: if is_blank(l.text) {
                ""
            } else {
                l.text.get(min..).unwrap_or("")
            },
            line: l.line,
        })
        .collect()
}

/// Names mentioned by `text`: the targets of RST roles (``:py:obj:`~.cudaMalloc` `` →
/// `cudaMalloc`), or, when there are no roles, the comma/space separated words that look
/// like (dotted) identifiers; a dotted name gives its last part.
pub fn names_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut had_role = false;
    let mut rest = text;
    while let Some(pos) = rest.find(":`") {
        let after = &rest[pos + 2..];
        let Some(end) = after.find('`') else { break };
        had_role = true;
        if let Some(n) = clean_name(&after[..end]) {
            out.push(n);
        }
        rest = &after[end + 1..];
    }
    if had_role {
        return out;
    }
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter_map(clean_name)
        .collect()
}

fn clean_name(raw: &str) -> Option<String> {
    let mut t = raw.trim();
    if let (Some(a), Some(b)) = (t.find('<'), t.rfind('>')) {
        if a < b {
            t = &t[a + 1..b];
        }
    }
    let t = t
        .trim_start_matches(['~', '!', '.'])
        .trim_end_matches(['.', ';', ':']);
    let t = t.strip_suffix("()").unwrap_or(t);
    let t = t.trim_matches('*');
    let last = t.rsplit('.').next().unwrap_or(t);
    is_ident(last).then(|| last.to_string())
}

/// Names of Sphinx object directives (without their `py:` domain) that declare an object of
/// their own; in a docstring, those not read as attributes or methods are unread.
const OBJECT_DIRECTIVES: &[&str] = &[
    "data",
    "function",
    "class",
    "exception",
    "property",
    "classmethod",
    "staticmethod",
    "decorator",
    "module",
    "currentmodule",
    "type",
];

/// Numpydoc section titles whose definition items are attributes.
const ATTRIBUTE_SECTIONS: &[&str] = &["attributes", "members", "fields"];

/// Where `parse_view` sends prose lines.
struct Texts<'s> {
    description: Vec<&'s str>,
    notes: Vec<&'s str>,
    in_notes: bool,
}

impl<'s> Texts<'s> {
    fn push(&mut self, lines: &[Ln<'s>]) {
        let target = if self.in_notes {
            &mut self.notes
        } else {
            &mut self.description
        };
        target.extend(lines.iter().map(|l| l.text));
    }
}

fn parse_view(lines: &[Ln<'_>], depth: usize) -> Docstring {
    let mut reader = Reader {
        lines,
        depth,
        doc: Docstring {
            parts: vec![Part::Blank; lines.len()],
            ..Docstring::default()
        },
        texts: Texts {
            description: Vec::new(),
            notes: Vec::new(),
            in_notes: false,
        },
        structured: false,
    };
    let mut i = 0;
    while i < lines.len() {
        i = reader.construct(i);
    }
    let mut doc = reader.doc;
    doc.description = tidy(&reader.texts.description);
    doc.notes = tidy(&reader.texts.notes);
    doc
}

/// `parse_view`'s state while it reads the lines of one docstring, one construct at a time.
struct Reader<'a, 's> {
    lines: &'a [Ln<'s>],
    depth: usize,
    doc: Docstring,
    texts: Texts<'s>,
    /// Set once a field, an object directive, a definition or a member is read: text after
    /// that point (outside a Notes rubric) is not description but unread.
    structured: bool,
}

impl<'s> Reader<'_, 's> {
    /// Reads the construct that starts at line `i`; returns the index of the line after it.
    fn construct(&mut self, i: usize) -> usize {
        let text = self.lines[i].text;
        if is_blank(text) {
            self.texts.push(&self.lines[i..=i]);
            return i + 1;
        }
        if let Some((name, arg, rest)) = split_field(text) {
            return self.field(i, name, arg, rest);
        }
        if let Some((name, arg)) = split_directive(text) {
            return self.directive(i, name, arg);
        }
        if indent(text) == 0 {
            if let Some(end) = self.unindented(i) {
                return end;
            }
        }
        self.texts.push(&self.lines[i..=i]);
        self.doc.parts[i] = if self.structured && !self.texts.in_notes {
            Part::Unread
        } else {
            Part::Prose
        };
        i + 1
    }

    /// A field list item `:name arg: rest` and its continuation lines.
    fn field(&mut self, i: usize, name: &str, arg: &str, rest: &str) -> usize {
        let lines = self.lines;
        let end = body_end(lines, i + 1);
        let part = field(&mut self.doc, name, arg, rest, lines[i], &lines[i + 1..end]);
        if part == Part::Unread {
            self.texts.push(&lines[i..end]);
        } else {
            self.texts.in_notes = false;
        }
        self.doc.mark(i..end, lines, part);
        // Options (`:type:`, `:value:`) may come before the text of an attribute body.
        self.structured |= part != Part::Option;
        end
    }

    /// A directive `.. name:: arg` and its body.
    fn directive(&mut self, i: usize, name: &str, arg: &str) -> usize {
        let lines = self.lines;
        let l = lines[i];
        let end = body_end(lines, i + 1);
        let body = &lines[i + 1..end];
        self.texts.in_notes = false;
        let bare = name.strip_prefix("py:").unwrap_or(name);
        let part = match bare {
            "seealso" => {
                self.doc.see_also.extend(names_in(&join_words(arg, body)));
                Part::Prose
            }
            "rubric"
                if arg.eq_ignore_ascii_case("notes") && body.iter().all(|b| is_blank(b.text)) =>
            {
                self.texts.in_notes = true;
                self.structured = true;
                Part::Prose
            }
            "attribute" => {
                let parts = attribute(&mut self.doc, arg, None, l.line, body, self.depth);
                return self.nested(i, end, &parts);
            }
            "method" => {
                let body = dedent(body);
                let texts: Vec<&str> = body.iter().map(|b| b.text).collect();
                self.doc.methods.push(MethodDoc {
                    signature: arg.to_string(),
                    doc: tidy(&texts),
                    line: l.line,
                });
                self.structured = true;
                Part::Method
            }
            _ if name.contains(':') || OBJECT_DIRECTIVES.contains(&bare) => {
                self.structured = true;
                self.texts.push(&lines[i..end]);
                Part::Unread
            }
            _ => {
                self.texts.push(&lines[i..end]);
                Part::Prose
            }
        };
        self.doc.mark(i..end, lines, part);
        end
    }

    /// The constructs an unindented line may start: a numpydoc section header, a
    /// Google-style section, a definition, an enum member, a stray signature line. Returns
    /// the index of the line after it, or `None` when line `i` starts none of them.
    fn unindented(&mut self, i: usize) -> Option<usize> {
        let lines = self.lines;
        let l = lines[i];
        if let Some(title) = section_title(lines, i) {
            let part = if ATTRIBUTE_SECTIONS.contains(&title.to_ascii_lowercase().as_str()) {
                Part::Attribute
            } else {
                self.texts.push(&lines[i..i + 2]);
                Part::Unread
            };
            self.doc.mark(i..i + 2, lines, part);
            self.structured = true;
            return Some(i + 2);
        }
        if let Some(end) = google_section(&mut self.doc, lines, i) {
            self.structured = true;
            return Some(end);
        }
        if let Some((name, ty)) = definition(lines, i) {
            let end = body_end(lines, i + 1);
            let body = &lines[i + 1..end];
            let parts = attribute(&mut self.doc, name, ty, l.line, body, self.depth);
            return Some(self.nested(i, end, &parts));
        }
        if let Some((name, value)) = member_line(l.text) {
            let end = body_end(lines, i + 1);
            let body = &lines[i + 1..end];
            let parts = member(&mut self.doc, name, value, l.line, body, self.depth);
            return Some(self.nested(i, end, &parts));
        }
        if looks_like_signature(l.text) {
            self.texts.in_notes = false;
            self.texts.push(&lines[i..=i]);
            self.doc.parts[i] = Part::Unread;
            self.structured = true;
            return Some(i + 1);
        }
        None
    }

    /// Takes the `parts` a nested reader gave lines `i..end` (an attribute or member with its
    /// body); returns `end`.
    fn nested(&mut self, i: usize, end: usize, parts: &[Part]) -> usize {
        self.doc.parts[i..end].copy_from_slice(parts);
        self.structured = true;
        end
    }
}

impl Docstring {
    /// Adds an attribute; returns its index. The first of a name is the one info fields find.
    fn push_attribute(&mut self, a: AttributeDoc) -> usize {
        let k = self.attributes.len();
        self.by_name.entry(a.name.clone()).or_insert(k);
        self.attributes.push(a);
        k
    }

    /// Marks the non-blank lines `range` of `lines` as `part`.
    fn mark(&mut self, range: std::ops::Range<usize>, lines: &[Ln<'_>], part: Part) {
        for k in range {
            if !is_blank(lines[k].text) {
                self.parts[k] = part;
            }
        }
    }
}

/// The title of a numpydoc section header at line `i`: a short title line followed by an
/// underline of `-` or `=` at least as long as three characters.
fn section_title<'s>(lines: &[Ln<'s>], i: usize) -> Option<&'s str> {
    let title = lines[i].text.trim();
    let under = lines.get(i + 1)?.text.trim();
    let is_underline =
        under.len() >= 3 && (under.bytes().all(|b| b == b'-') || under.bytes().all(|b| b == b'='));
    let is_title = !title.is_empty()
        && title.len() <= 40
        && title.chars().all(|c| c.is_ascii_alphabetic() || c == ' ');
    (is_underline && is_title && indent(lines[i + 1].text) == 0).then_some(title)
}

/// A Google-style section at line `i`: `Attributes:` (or another title of
/// [`ATTRIBUTE_SECTIONS`]) with an indented list of `name (type): doc` or `name: doc` items,
/// continuation lines indented further. Reads the items as attributes and returns the index
/// of the first line after the section; lines that are not items are unread.
fn google_section(doc: &mut Docstring, lines: &[Ln<'_>], i: usize) -> Option<usize> {
    let title = lines[i].text.trim().strip_suffix(':')?;
    if !ATTRIBUTE_SECTIONS.contains(&title.to_ascii_lowercase().as_str()) {
        return None;
    }
    let end = body_end(lines, i + 1);
    if end == i + 1 {
        return None;
    }
    doc.parts[i] = Part::Attribute;
    let body = dedent(&lines[i + 1..end]);
    let mut k = 0;
    while k < body.len() {
        let l = body[k];
        if is_blank(l.text) {
            k += 1;
            continue;
        }
        let item_end = body_end(&body, k + 1);
        let item = google_item(l.text).filter(|_| indent(l.text) == 0);
        let part = match item {
            Some((name, ty, first)) => {
                doc.push_attribute(AttributeDoc {
                    name: signature::short_name(name).to_string(),
                    doc: join_words(first, &body[k + 1..item_end]),
                    ty: ty.map(str::to_string),
                    line: l.line,
                });
                Part::Attribute
            }
            None => Part::Unread,
        };
        for (j, l) in body.iter().enumerate().take(item_end).skip(k) {
            if !is_blank(l.text) {
                doc.parts[i + 1 + j] = part;
            }
        }
        k = item_end;
    }
    Some(end)
}

/// One Google-style item: `name (type): doc` or `name: doc`.
fn google_item(text: &str) -> Option<(&str, Option<&str>, &str)> {
    let (head, rest) = text.split_once(':')?;
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let head = head.trim();
    let (name, ty) = match head.strip_suffix(')').and_then(|h| h.split_once(" (")) {
        Some((n, t)) => (n.trim(), Some(t.trim()).filter(|t| !t.is_empty())),
        None => (head, None),
    };
    signature::is_dotted_ident(name).then_some((name, ty, rest.trim()))
}

/// A definition-list item at line `i`: `term : classifier` (numpydoc; the description under
/// it is optional), or a bare `term` or `term (type)` followed at once by an indented line
/// (an RST definition list). The term is an identifier, possibly dotted (its last part is
/// the name). Returns the name and the type.
fn definition<'s>(lines: &[Ln<'s>], i: usize) -> Option<(&'s str, Option<&'s str>)> {
    let t = lines[i].text.trim_end();
    // Most lines have no `:` (looked for with memchr, far cheaper than the ` : ` search).
    let colon = memchr::memchr(b':', t.as_bytes()).is_some();
    if let Some((term, ty)) = colon.then(|| t.split_once(" : ")).flatten() {
        let (term, ty) = (term.trim(), ty.trim());
        return (signature::is_dotted_ident(term) && !ty.is_empty())
            .then(|| (signature::short_name(term), Some(ty)));
    }
    let next_indented = lines
        .get(i + 1)
        .is_some_and(|n| !is_blank(n.text) && indent(n.text) > 0);
    if !next_indented {
        return None;
    }
    if signature::is_dotted_ident(t) {
        return Some((signature::short_name(t), None));
    }
    let (term, ty) = t.strip_suffix(')')?.split_once(" (")?;
    (signature::is_dotted_ident(term) && !ty.trim().is_empty())
        .then(|| (signature::short_name(term), Some(ty.trim())))
}

/// `NAME = VALUE` (an optional trailing permalink mark, `#` or `¶`) where the value is an
/// integer or an enum member repr `<E.X: 3>`: an enum member written in a class body. Returns
/// the name and the value.
fn member_line(text: &str) -> Option<(&str, Result<i64, String>)> {
    let t = without_mark(text.trim());
    // Most lines have no `=`: they are not members, and need no error text built for them.
    memchr::memchr(b'=', t.as_bytes())?;
    let (name, value) = signature::parse_data(t).ok()?;
    let value = match value {
        DataValue::Integer(n) => Ok(n),
        DataValue::Member { value, .. } => value,
        _ => return None,
    };
    Some((signature::short_name(name), value))
}

/// `text` without a trailing permalink mark (`#`, `¶`, an icon character), end blanks
/// trimmed.
fn without_mark(text: &str) -> &str {
    let t = text.trim_end();
    match t.chars().next_back() {
        Some(c) if super::permalink::is_mark(c) => t[..t.len() - c.len_utf8()].trim_end(),
        _ => t,
    }
}

/// A line that looks like an object's signature line rather than text: `class dotted.Name…`,
/// or one ending in `)` and a permalink mark (`)#`, `)¶`). Front ends take real signatures out
/// of docstrings, so one found here is a fragment of a signature they did not recognise.
fn looks_like_signature(text: &str) -> bool {
    let t = text.trim_end();
    if let Some(rest) = t.strip_prefix("class ") {
        let name = rest
            .split(|c| matches!(c, '(' | ':' | ' ') || super::permalink::is_mark(c))
            .next()
            .unwrap_or("");
        return signature::is_dotted_ident(name);
    }
    let bare = without_mark(t);
    bare.len() < t.len() && bare.ends_with(')')
}

/// Whether a line has the shape of an attribute definition in any form this model reads, or
/// of a Google-style `name (type): doc` / `name -- doc` item.
fn looks_attribute_like(text: &str) -> bool {
    let t = text.trim();
    if let Some((name, _, _)) = split_field(t) {
        return matches!(name, "ivar" | "var" | "cvar" | "vartype");
    }
    if let Some((name, _)) = split_directive(t) {
        return name.strip_prefix("py:").unwrap_or(name) == "attribute";
    }
    // A list item (`* `, `- `, `• `) and emphasis around the name (`**x**`, `*x*`, `` `x` ``)
    // do not change the shape.
    let t = ["* ", "- ", "\u{2022} "]
        .iter()
        .find_map(|b| t.strip_prefix(b))
        .unwrap_or(t)
        .trim_start();
    let t = t.trim_start_matches(['*', '`']);
    let end = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(t.len());
    let (head, rest) = t.split_at(end);
    let rest = rest.trim_start_matches(['*', '`']);
    signature::is_dotted_ident(head)
        && [" : ", " (", ": ", " -- ", " \u{2013} ", " = "]
            .iter()
            .any(|sep| rest.starts_with(sep))
}

/// Records field `name`; returns what its lines were read as ([`Part::Unread`] for a field
/// this model does not know).
fn field(
    doc: &mut Docstring,
    name: &str,
    arg: &str,
    rest: &str,
    at: Ln<'_>,
    cont: &[Ln<'_>],
) -> Part {
    let line = at.line;
    match name {
        "param" | "parameter" | "arg" => param_field(doc, name, arg, join_words(rest, cont), line),
        "type" | "value" if arg.is_empty() => option_field(doc, name, join_words(rest, cont), line),
        "type" => param_type_field(doc, arg, join_words(rest, cont), line),
        // An info field names an attribute; `:vartype:` types one (read before or after).
        "ivar" | "var" | "cvar" | "vartype" => {
            attribute_field(doc, name, arg, join_words(rest, cont), line)
        }
        "returns" | "return" => {
            if doc.returns.is_some() {
                doc.problems.push(problem(
                    Severity::Warning,
                    line,
                    "a second `:returns:` field; keeping the first",
                ));
            } else {
                // `rest` is a slice of the line: its offset is the bullet's column.
                let first_col = (rest.as_ptr() as usize).saturating_sub(at.text.as_ptr() as usize);
                doc.returns = Some(returns(rest, first_col, line, cont, &mut doc.problems));
            }
            Part::Returns
        }
        "rtype" => {
            if doc.rtype.is_some() {
                doc.problems.push(problem(
                    Severity::Warning,
                    line,
                    "a second `:rtype:` field; keeping the first",
                ));
            } else {
                doc.rtype = Some(Located {
                    text: join_words(rest, cont),
                    line,
                });
            }
            Part::Returns
        }
        _ => Part::Unread,
    }
}

/// `:param [type] name: text` (or `:parameter:`, `:arg:`).
fn param_field(doc: &mut Docstring, name: &str, arg: &str, text: String, line: u32) -> Part {
    let mut words = arg.rsplitn(2, ' ');
    let pname = words.next().unwrap_or("").trim();
    if !is_ident(pname) {
        doc.problems.push(problem(
            Severity::Warning,
            line,
            format!("`:{name} {arg}:` does not name a parameter"),
        ));
        return Part::Param;
    }
    if let Some(ty) = words.next().map(str::trim).filter(|t| !t.is_empty()) {
        doc.param_types.push(FieldDoc {
            name: pname.to_string(),
            text: ty.to_string(),
            line,
        });
    }
    doc.params.push(FieldDoc {
        name: pname.to_string(),
        text,
        line,
    });
    Part::Param
}

/// An attribute body's option `:type: text` or `:value: text`; the first of each is kept.
fn option_field(doc: &mut Docstring, name: &str, text: String, line: u32) -> Part {
    let slot = if name == "type" {
        &mut doc.ty
    } else {
        &mut doc.value
    };
    if slot.is_some() {
        doc.problems.push(problem(
            Severity::Warning,
            line,
            format!("a second `:{name}:` field; keeping the first"),
        ));
    } else {
        *slot = Some(Located { text, line });
    }
    Part::Option
}

/// `:type name: text`: a parameter's type.
fn param_type_field(doc: &mut Docstring, arg: &str, text: String, line: u32) -> Part {
    if !is_ident(arg) {
        doc.problems.push(problem(
            Severity::Warning,
            line,
            format!("`:type {arg}:` does not name a parameter"),
        ));
        return Part::Param;
    }
    doc.param_types.push(FieldDoc {
        name: arg.to_string(),
        text,
        line,
    });
    Part::Param
}

/// An info field naming an attribute, `:ivar [type] name: text` (or `:var:`, `:cvar:`), or
/// typing one, `:vartype name: type`: fills the attribute of that name, added when new; a
/// type or text it already has is kept.
fn attribute_field(doc: &mut Docstring, name: &str, arg: &str, text: String, line: u32) -> Part {
    let mut words = arg.rsplitn(2, ' ');
    let aname = words.next().unwrap_or("").trim();
    if !signature::is_dotted_ident(aname) {
        doc.problems.push(problem(
            Severity::Warning,
            line,
            format!("`:{name} {arg}:` does not name an attribute"),
        ));
        return Part::Unread;
    }
    let aname = signature::short_name(aname);
    let (ty, text) = match (name, words.next().map(str::trim)) {
        ("vartype", _) => (Some(text), None),
        (_, Some(t)) if !t.is_empty() => (Some(t.to_string()), Some(text)),
        _ => (None, Some(text)),
    };
    let k = match doc.by_name.get(aname) {
        Some(&k) => k,
        None => doc.push_attribute(AttributeDoc {
            name: aname.to_string(),
            doc: String::new(),
            ty: None,
            line,
        }),
    };
    let a = &mut doc.attributes[k];
    if let Some(t) = ty.filter(|t| !t.is_empty()) {
        a.ty.get_or_insert(t);
    }
    if let Some(t) = text.filter(|t| !t.is_empty()) {
        if a.doc.is_empty() {
            a.doc = t;
        }
    }
    Part::Attribute
}

fn problem(severity: Severity, line: u32, message: impl Into<String>) -> Problem {
    Problem {
        severity,
        line,
        message: message.into(),
    }
}

/// Reads the indented `body` of an attribute or member at depth `depth`: its description,
/// `:type:` and `:value:`, and what each body line was read as ([`Part::Unread`] for what a
/// body may not hold, `read` for the rest). Below [`MAX_DEPTH`] the body is kept as text.
fn read_body(
    doc: &mut Docstring,
    line: u32,
    body: &[Ln<'_>],
    depth: usize,
    read: Part,
) -> (Docstring, Vec<Part>) {
    let body = dedent(body);
    if depth >= MAX_DEPTH {
        doc.problems.push(problem(
            Severity::Warning,
            line,
            "attribute bodies nested too deep; kept as text",
        ));
        let texts: Vec<&str> = body.iter().map(|b| b.text).collect();
        let inner = Docstring {
            description: tidy(&texts),
            ..Docstring::default()
        };
        let parts = body
            .iter()
            .map(|b| if is_blank(b.text) { Part::Blank } else { read })
            .collect();
        return (inner, parts);
    }
    let inner = parse_view(&body, depth + 1);
    doc.problems.extend(inner.problems.iter().cloned());
    let parts = inner
        .parts
        .iter()
        .map(|p| match p {
            Part::Blank => Part::Blank,
            p if Part::BODY.contains(p) => read,
            _ => Part::Unread,
        })
        .collect();
    (inner, parts)
}

/// Reads an attribute named `name` (`ty` from a classifier) with its `body`; an attribute with
/// a `:value:` is an enum member. Returns the parts of the head line and the body lines.
fn attribute(
    doc: &mut Docstring,
    name: &str,
    ty: Option<&str>,
    line: u32,
    body: &[Ln<'_>],
    depth: usize,
) -> Vec<Part> {
    let short = signature::short_name(name.trim());
    if !signature::is_dotted_ident(name.trim()) {
        doc.problems.push(problem(
            Severity::Warning,
            line,
            format!("`{name}` does not name an attribute"),
        ));
    }
    let (inner, body_parts) = read_body(doc, line, body, depth, Part::Attribute);
    if let Some(value) = &inner.value {
        let value = signature::parse_int(&value.text)
            .ok_or_else(|| format!("value `{}` is not an integer", value.text));
        doc.members.push(MemberDoc {
            name: short.to_string(),
            value,
            doc: inner.doc_text(),
            line,
        });
        let mut parts = vec![Part::Member];
        parts.extend(body_parts.iter().map(|p| match p {
            Part::Attribute => Part::Member,
            other => *other,
        }));
        return parts;
    }
    doc.push_attribute(AttributeDoc {
        name: short.to_string(),
        doc: inner.doc_text(),
        ty: ty
            .map(str::to_string)
            .or(inner.ty.map(|t| t.text))
            .filter(|t| !t.is_empty()),
        line,
    });
    let mut parts = vec![Part::Attribute];
    parts.extend(body_parts);
    parts
}

/// Reads an enum member `name = value` with its indented `body`. Returns the parts of the
/// member line and the body lines.
fn member(
    doc: &mut Docstring,
    name: &str,
    value: Result<i64, String>,
    line: u32,
    body: &[Ln<'_>],
    depth: usize,
) -> Vec<Part> {
    let (inner, body_parts) = read_body(doc, line, body, depth, Part::Member);
    doc.members.push(MemberDoc {
        name: name.to_string(),
        value,
        doc: inner.doc_text(),
        line,
    });
    let mut parts = vec![Part::Member];
    parts.extend(body_parts);
    parts
}

/// Reads a `:returns:` body. `first` is the text after `:returns:` on its line, which starts
/// at column `first_col`; `cont` are the continuation lines, indentation kept.
fn returns(
    first: &str,
    first_col: usize,
    line: u32,
    cont: &[Ln<'_>],
    problems: &mut Vec<Problem>,
) -> Returns {
    let mut items: Vec<(usize, u32, String)> = Vec::new(); // (bullet column, line, text)
    let bulleted = first.starts_with("* ") || first == "*";
    if !bulleted {
        let text = join_words(first, cont);
        return Returns {
            line,
            status: None,
            codes: names_in(&text),
            outputs: Vec::new(),
        };
    }
    items.push((first_col, line, first.to_string()));
    for l in cont {
        let t = l.text.trim();
        if t.is_empty() {
            continue;
        }
        let col = indent(l.text);
        let starts_bullet = t.starts_with("* ") || t == "*";
        match items.last_mut() {
            Some(last) if !(starts_bullet && col <= last.0 + 1) => {
                last.2.push(' ');
                last.2.push_str(t);
            }
            _ => items.push((col, l.line, t.to_string())),
        }
    }
    let mut parsed: Vec<ReturnItem> = items
        .into_iter()
        .map(|(_, ln, t)| return_item(&t, ln, problems))
        .collect();
    let status = if parsed.first().is_some_and(|p| p.name.is_none()) {
        Some(parsed.remove(0))
    } else {
        None
    };
    let codes = status
        .as_ref()
        .map(|s| names_in(&s.doc))
        .unwrap_or_default();
    Returns {
        line,
        status,
        codes,
        outputs: parsed,
    }
}

/// One bullet: `* **name** (type) -- doc`, `* *type* -- doc` or `* text -- doc`.
fn return_item(text: &str, line: u32, problems: &mut Vec<Problem>) -> ReturnItem {
    let t = text.strip_prefix('*').unwrap_or(text).trim();
    let (head, doc) = match t.find(" -- ") {
        Some(p) => (t[..p].trim(), t[p + 4..].trim()),
        None => match t.strip_suffix(" --") {
            Some(h) => (h.trim(), ""),
            None => (t, ""),
        },
    };
    if let Some(r) = head.strip_prefix("**") {
        if let Some(end) = r.find("**") {
            let written = r[..end].trim();
            let after = r[end + 2..].trim();
            // `**\*name**`: an RST-escaped C dereference star before the name.
            let unescaped = written.replace('\\', "");
            let name = unescaped.trim_start_matches('*');
            if name != written {
                problems.push(problem(
                    Severity::Note,
                    line,
                    format!("returned value `{written}` read as `{name}`"),
                ));
            }
            if !is_ident(name) {
                problems.push(problem(
                    Severity::Warning,
                    line,
                    format!("returned value `{name}` is not a name"),
                ));
            }
            let ty = after
                .strip_prefix('(')
                .and_then(|a| a.strip_suffix(')'))
                .map(str::trim)
                .filter(|s| !s.is_empty());
            if ty.is_none() && !after.is_empty() {
                problems.push(problem(
                    Severity::Warning,
                    line,
                    format!("cannot read the type `{after}` of `{name}`"),
                ));
            }
            return ReturnItem {
                name: Some(name.to_string()),
                ty: ty.map(str::to_string),
                doc: doc.to_string(),
                line,
            };
        }
        problems.push(problem(
            Severity::Warning,
            line,
            format!("unclosed `**` in returned value `{head}`"),
        ));
    }
    let ty = head.trim_matches('*').trim();
    ReturnItem {
        name: None,
        ty: (!ty.is_empty()).then(|| ty.to_string()),
        doc: doc.to_string(),
        line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<DocLine<'_>> {
        text.lines()
            .enumerate()
            .map(|(i, t)| DocLine::new(t, i as u32 + 1))
            .collect()
    }

    #[test]
    fn function_docstring() {
        let text = "Summary line.\n\nMore text\nwrapped.\n\n:param a: first\n    continued\n:type a: int\n:param b: second\n:type b: :py:obj:`~.cudaStream_t`\n\n:returns: * *cudaError_t* -- :py:obj:`~.cudaSuccess`, :py:obj:`~.cudaErrorInvalidValue`\n          * **out** (:py:obj:`~.cudaEvent_t`) -- Returns the\n            event\n          * *bytes* -- a string\n\n.. seealso:: :py:obj:`~.cudaFoo`, :obj:`make_x`\n\n.. rubric:: Notes\n\nA note.";
        let d = parse(&lines(text));
        assert_eq!(d.description, "Summary line.\n\nMore text\nwrapped.");
        assert_eq!(d.params.len(), 2);
        assert_eq!(
            d.param("a").map(|p| p.text.as_str()),
            Some("first continued")
        );
        assert_eq!(
            d.param_type("b").map(|p| p.text.as_str()),
            Some(":py:obj:`~.cudaStream_t`")
        );
        let r = d.returns.as_ref().expect("returns");
        assert_eq!(r.codes, ["cudaSuccess", "cudaErrorInvalidValue"]);
        assert_eq!(
            r.status.as_ref().and_then(|s| s.ty.as_deref()),
            Some("cudaError_t")
        );
        assert_eq!(r.outputs.len(), 2);
        assert_eq!(r.outputs[0].name.as_deref(), Some("out"));
        assert_eq!(r.outputs[0].doc, "Returns the event");
        assert_eq!(r.outputs[0].line, 13);
        assert_eq!(r.outputs[1].name, None);
        assert_eq!(r.outputs[1].ty.as_deref(), Some("bytes"));
        assert_eq!(d.see_also, ["cudaFoo", "make_x"]);
        assert_eq!(d.notes, "A note.");
        assert!(d.problems.is_empty(), "{:?}", d.problems);
    }

    #[test]
    fn plain_returns_and_rtype() {
        let d = parse(&lines(":returns: :py:obj:`~.cudaSuccess`, :py:obj:`~.cudaErrorInvalidValue`\n:rtype: cudaError_t"));
        let r = d.returns.expect("returns");
        assert_eq!(r.codes, ["cudaSuccess", "cudaErrorInvalidValue"]);
        assert!(r.status.is_none() && r.outputs.is_empty());
        assert_eq!(d.rtype.map(|r| r.text), Some("cudaError_t".to_string()));
    }

    #[test]
    fn attributes_and_methods() {
        let text = "A struct\n\n.. attribute:: x\n\n   The x\n   value\n\n   :type: int\n\n.. attribute:: y\n\n\n\n   :type: list[unsigned int]\n\n.. method:: getPtr()\n\n   Get memory address";
        let d = parse(&lines(text));
        assert_eq!(d.description, "A struct");
        assert_eq!(d.attributes.len(), 2);
        assert_eq!(d.attributes[0].doc, "The x\nvalue");
        assert_eq!(d.attributes[0].ty.as_deref(), Some("int"));
        assert_eq!(d.attributes[0].line, 3);
        assert_eq!(d.attributes[1].doc, "");
        assert_eq!(d.attributes[1].ty.as_deref(), Some("list[unsigned int]"));
        assert_eq!(d.methods.len(), 1);
        assert_eq!(d.methods[0].doc, "Get memory address");
    }

    #[test]
    fn role_lines_are_not_fields() {
        let d = parse(&lines(
            ":py:obj:`~.cudaDeviceReset()` will not destroy\n: a definition\n:unknown: x",
        ));
        assert!(d.description.starts_with(":py:obj:"));
        assert!(d.description.contains(": a definition"));
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        // The unknown field is kept as text, and unread.
        assert_eq!(d.parts, [Part::Prose, Part::Prose, Part::Unread]);
    }

    /// `(line, part)` of each non-blank line.
    fn parts_of(text: &str) -> (Docstring, Vec<(u32, Part)>) {
        let ls = lines(text);
        let d = parse(&ls);
        let parts = ls
            .iter()
            .zip(&d.parts)
            .filter(|(l, _)| !l.text.trim().is_empty())
            .map(|(l, p)| (l.line, *p))
            .collect();
        (d, parts)
    }

    fn fields(d: &Docstring) -> Vec<(&str, Option<&str>, &str)> {
        d.attributes
            .iter()
            .map(|a| (a.name.as_str(), a.ty.as_deref(), a.doc.as_str()))
            .collect()
    }

    #[test]
    fn numpydoc_and_definition_list_attributes() {
        let text = "A struct\n\n.. attribute:: x\n\n   x doc\n\n   :type: int\n\ny : list[int]\n    y doc\n\n\nz : cudaPos\nm.w\n    w doc\n\n    :type: float\nv (unsigned int)\n    v doc\n\n.. method:: getPtr()\n\n   Get memory address";
        let (d, parts) = parts_of(text);
        assert_eq!(
            fields(&d),
            [
                ("x", Some("int"), "x doc"),
                ("y", Some("list[int]"), "y doc"),
                ("z", Some("cudaPos"), ""),
                ("w", Some("float"), "w doc"),
                ("v", Some("unsigned int"), "v doc"),
            ]
        );
        assert_eq!(d.description, "A struct");
        assert!(parts[1..]
            .iter()
            .all(|(_, p)| matches!(p, Part::Attribute | Part::Method)));
        assert!(d.unread(&lines(text), Holder::Record).is_empty());
        // A function holds no attributes: the same lines are unread there, one run.
        let runs = d.unread(&lines(text), Holder::Function);
        assert_eq!(runs.len(), 1);
        assert_eq!(
            (runs[0].line, runs[0].first.as_str()),
            (3, ".. attribute:: x")
        );
    }

    #[test]
    fn info_field_attributes_and_numpydoc_section() {
        let text = "Doc\n\n:ivar x: the x\n:vartype x: int\n:ivar unsigned int y: the y\n:vartype z: cudaPos\n\nAttributes\n----------\nw : float\n    the w";
        let (d, parts) = parts_of(text);
        assert_eq!(
            fields(&d),
            [
                ("x", Some("int"), "the x"),
                ("y", Some("unsigned int"), "the y"),
                ("z", Some("cudaPos"), ""),
                ("w", Some("float"), "the w"),
            ]
        );
        assert!(parts[1..].iter().all(|(_, p)| *p == Part::Attribute));
    }

    #[test]
    fn vartype_types_an_attribute_of_another_form() {
        let (d, _) = parts_of(".. attribute:: x\n\n   the x\n\n:vartype x: int\n:vartype y: float");
        assert_eq!(
            fields(&d),
            [("x", Some("int"), "the x"), ("y", Some("float"), "")]
        );
    }

    #[test]
    fn google_style_attributes() {
        let text = "Doc\n\nAttributes:\n    x (int): The x,\n        continued.\n    y: The y.\n    - not an item\n";
        let (d, parts) = parts_of(text);
        assert_eq!(
            fields(&d),
            [
                ("x", Some("int"), "The x, continued."),
                ("y", None, "The y.")
            ]
        );
        assert_eq!(
            parts,
            [
                (1, Part::Prose),
                (3, Part::Attribute),
                (4, Part::Attribute),
                (5, Part::Attribute),
                (6, Part::Attribute),
                (7, Part::Unread),
            ]
        );
    }

    #[test]
    fn members_in_the_body() {
        let text = "An enum\n\nA = 0#\n\n    first\nE.B = <E.B: 1>\n.. attribute:: C\n\n   :value: -2\n\n   third";
        let (d, parts) = parts_of(text);
        let members: Vec<(&str, Result<i64, String>, &str)> = d
            .members
            .iter()
            .map(|m| (m.name.as_str(), m.value.clone(), m.doc.as_str()))
            .collect();
        assert_eq!(
            members,
            [
                ("A", Ok(0), "first"),
                ("B", Ok(1), ""),
                ("C", Ok(-2), "third")
            ]
        );
        assert!(parts[1..].iter().all(|(_, p)| *p == Part::Member));
        assert!(d.unread(&lines(text), Holder::Enum).is_empty());
        assert_eq!(d.unread(&lines(text), Holder::Record).len(), 1);
    }

    #[test]
    fn text_after_the_structured_part_is_unread() {
        let text = "Doc\n\n:param a: x\n\nstray text\nmore\n\n.. rubric:: Notes\n\nA note.\n\n:frobnicate: x\nclass m.Broken(\nvalue,\n)#";
        let (d, parts) = parts_of(text);
        assert_eq!(
            parts,
            [
                (1, Part::Prose),
                (3, Part::Param),
                (5, Part::Unread),
                (6, Part::Unread),
                (8, Part::Prose),
                (10, Part::Prose),
                (12, Part::Unread),
                (13, Part::Unread),
                (14, Part::Unread),
                (15, Part::Unread),
            ]
        );
        let runs = d.unread(&lines(text), Holder::Function);
        let runs: Vec<(u32, u32)> = runs.iter().map(|r| (r.line, r.count)).collect();
        assert_eq!(runs, [(5, 2), (12, 4)]);
        // Unread text stays in the doc: nothing the page says is dropped from the IR.
        assert!(d.description.contains("stray text"));
    }

    #[test]
    fn object_directives_are_unread_admonitions_are_prose() {
        let (_, parts) = parts_of(
            "Doc\n\n.. note::\n\n   A note\n\n.. py:data:: X\n\n   :value: 3\n\n.. code-block:: c\n\n   x",
        );
        assert_eq!(
            parts,
            [
                (1, Part::Prose),
                (3, Part::Prose),
                (5, Part::Prose),
                (7, Part::Unread),
                (9, Part::Unread),
                (11, Part::Prose),
                (13, Part::Prose),
            ]
        );
    }

    #[test]
    fn attribute_shaped_prose_is_unread_in_a_class_only() {
        let text = "A struct\n\n* **x** (*int*) -- the x\n  continued\ny: the y";
        let d = parse(&lines(text));
        assert!(d.attributes.is_empty());
        let runs = d.unread(&lines(text), Holder::Record);
        assert_eq!(
            runs.iter().map(|r| (r.line, r.count)).collect::<Vec<_>>(),
            [(3, 3)]
        );
        assert!(d.unread(&lines(text), Holder::Function).is_empty());
        assert_eq!(d.attribute_like(&lines(text)).map(|l| l.0), Some(3));
    }

    #[test]
    fn prose_is_not_taken_for_definitions() {
        let (d, parts) = parts_of(
            "Returns the value of x.\nSee cudaMalloc for more:\n\n- a : b item\n  continued\nvalue\n\n    an indented block after a blank line",
        );
        assert!(d.attributes.is_empty());
        assert!(parts.iter().all(|(_, p)| *p == Part::Prose), "{parts:?}");
    }

    #[test]
    fn names_from_plain_text() {
        assert_eq!(names_in("cudaError_t.cudaSuccess"), ["cudaSuccess"]);
        let mut problems = Vec::new();
        let item = return_item("* **\\*id** (*int*) -- Pointer", 4, &mut problems);
        assert_eq!(item.name.as_deref(), Some("id"));
        assert_eq!(item.ty.as_deref(), Some("*int*"));
        assert_eq!(problems.len(), 1);
        assert_eq!(
            names_in(":py:obj:`~.cudaDeviceReset()` and :obj:`title <cuFoo>`"),
            ["cudaDeviceReset", "cuFoo"]
        );
    }

    #[test]
    fn deep_attribute_nesting_stops() {
        let mut text = String::new();
        for d in 0..40 {
            text.push_str(&" ".repeat(d * 3));
            text.push_str(".. attribute:: a\n");
        }
        let d = parse(&lines(&text));
        assert_eq!(d.attributes.len(), 1);
        assert!(d.problems.iter().any(|p| p.message.contains("too deep")));
    }
}
