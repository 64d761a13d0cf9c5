//! One model of a raw reStructuredText docstring, shared by every front end.
//!
//! [`parse`] reads the docstring lines of one object (a slice of [`DocLine`]s, however they
//! were obtained) into a [`Docstring`]:
//!
//! - description paragraphs (everything that is not one of the parts below, kept as RST);
//! - `:param x: doc` and `:type x: T` fields (`:param T x:` also gives a type);
//! - `:returns:` as either a plain list of status codes, or bullets: a leading unnamed bullet
//!   `* *cudaError_t* -- statuses` (the status), then `* **name** (type) -- doc` outputs with
//!   continuation lines, and unnamed values `* *bytes* -- doc`;
//! - `:rtype: T`; a bare `:type: T` (attribute bodies);
//! - `.. seealso::` name lists, `.. attribute:: name` with an indented body (read recursively:
//!   its description and `:type:`), `.. method:: sig` with a body, `.. rubric:: Notes` and
//!   the note paragraphs after it.
//!
//! It does not know what object the docstring belongs to, nor build IR items: that is
//! [`super::bindings_build`]'s job. Problems (an unknown field, a malformed bullet) are
//! returned as [`Problem`]s with the line they were found on; nothing here panics.

use crate::diag::Severity;

use super::blocks::DocLine;

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
    pub methods: Vec<MethodDoc>,
    /// Paragraphs after `.. rubric:: Notes`.
    pub notes: String,
    pub problems: Vec<Problem>,
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

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
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

fn parse_view(lines: &[Ln<'_>], depth: usize) -> Docstring {
    let mut doc = Docstring::default();
    let mut description: Vec<&str> = Vec::new();
    let mut notes: Vec<&str> = Vec::new();
    let mut in_notes = false;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let text = l.text;
        if let Some((name, arg, rest)) = split_field(text) {
            let end = body_end(lines, i + 1);
            let cont = &lines[i + 1..end];
            if field(&mut doc, name, arg, rest, l, cont) {
                in_notes = false;
            } else {
                let target = if in_notes {
                    &mut notes
                } else {
                    &mut description
                };
                target.extend(lines[i..end].iter().map(|l| l.text));
            }
            i = end;
            continue;
        }
        if let Some((name, arg)) = split_directive(text) {
            let end = body_end(lines, i + 1);
            let body = &lines[i + 1..end];
            in_notes = false;
            match name {
                "seealso" => doc.see_also.extend(names_in(&join_words(arg, body))),
                "rubric"
                    if arg.eq_ignore_ascii_case("notes")
                        && body.iter().all(|b| is_blank(b.text)) =>
                {
                    in_notes = true;
                }
                "attribute" => attribute(&mut doc, arg, l.line, body, depth),
                "method" => {
                    let body = dedent(body);
                    let texts: Vec<&str> = body.iter().map(|b| b.text).collect();
                    doc.methods.push(MethodDoc {
                        signature: arg.to_string(),
                        doc: tidy(&texts),
                        line: l.line,
                    });
                }
                _ => description.extend(lines[i..end].iter().map(|l| l.text)),
            }
            i = end;
            continue;
        }
        if in_notes {
            notes.push(text);
        } else {
            description.push(text);
        }
        i += 1;
    }
    doc.description = tidy(&description);
    doc.notes = tidy(&notes);
    doc
}

/// Records field `name`; returns false when the field is not one this model knows.
fn field(
    doc: &mut Docstring,
    name: &str,
    arg: &str,
    rest: &str,
    at: Ln<'_>,
    cont: &[Ln<'_>],
) -> bool {
    let line = at.line;
    match name {
        "param" | "parameter" | "arg" => {
            let mut words = arg.rsplitn(2, ' ');
            let pname = words.next().unwrap_or("").trim();
            if !is_ident(pname) {
                doc.problems.push(problem(
                    Severity::Warning,
                    line,
                    format!("`:{name} {arg}:` does not name a parameter"),
                ));
                return true;
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
                text: join_words(rest, cont),
                line,
            });
        }
        "type" if arg.is_empty() => {
            if doc.ty.is_some() {
                doc.problems.push(problem(
                    Severity::Warning,
                    line,
                    "a second `:type:` field; keeping the first",
                ));
            } else {
                doc.ty = Some(Located {
                    text: join_words(rest, cont),
                    line,
                });
            }
        }
        "type" => {
            if !is_ident(arg) {
                doc.problems.push(problem(
                    Severity::Warning,
                    line,
                    format!("`:type {arg}:` does not name a parameter"),
                ));
                return true;
            }
            doc.param_types.push(FieldDoc {
                name: arg.to_string(),
                text: join_words(rest, cont),
                line,
            });
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
        }
        _ => {
            doc.problems.push(problem(
                Severity::Warning,
                line,
                format!("unknown field `:{name}:` kept as description text"),
            ));
            return false;
        }
    }
    true
}

fn problem(severity: Severity, line: u32, message: impl Into<String>) -> Problem {
    Problem {
        severity,
        line,
        message: message.into(),
    }
}

fn attribute(doc: &mut Docstring, name: &str, line: u32, body: &[Ln<'_>], depth: usize) {
    if !is_ident(name) {
        doc.problems.push(problem(
            Severity::Warning,
            line,
            format!("`.. attribute:: {name}` does not name an attribute"),
        ));
    }
    let body = dedent(body);
    if depth >= MAX_DEPTH {
        doc.problems.push(problem(
            Severity::Warning,
            line,
            "attribute bodies nested too deep; kept as text",
        ));
        let texts: Vec<&str> = body.iter().map(|b| b.text).collect();
        doc.attributes.push(AttributeDoc {
            name: name.to_string(),
            doc: tidy(&texts),
            ty: None,
            line,
        });
        return;
    }
    let inner = parse_view(&body, depth + 1);
    doc.problems.extend(inner.problems.iter().cloned());
    doc.attributes.push(AttributeDoc {
        name: name.to_string(),
        doc: inner.doc_text(),
        ty: inner.ty.map(|t| t.text).filter(|t| !t.is_empty()),
        line,
    });
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
        assert_eq!(d.problems.len(), 1);
        assert_eq!(d.problems[0].line, 3);
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
