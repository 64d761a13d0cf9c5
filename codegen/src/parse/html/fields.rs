//! Sphinx's processed field lists back to the RST fields the docstring model reads.
//!
//! A page built without the verbatim-docstring setting shows `:param:`, `:type:`,
//! `:returns:` and `:rtype:` as a `dl.field-list`:
//!
//! - `Parameters` → one item (`<p>`) or a list of items `**name** (type) – doc`, each giving
//!   `:param name: doc` and, with a type, `:type name: type`;
//! - `Returns` → a list of bullets (`*type* – doc`, `**name** (type) – doc`) giving a bulleted
//!   `:returns:` field, or one paragraph giving `:returns: text`;
//! - `Variables` (from `:ivar:`/`:vartype:`) → `:ivar name: doc` and `:vartype name: type`
//!   per item, which the docstring model reads as attributes;
//! - `Return type` → `:rtype: type`; `Type` → `:type: type`;
//! - any other field → `:name: text`, which the docstring model keeps as description text and
//!   reports unread.
//!
//! Links and literals become their text, so names the model lists (status codes) are read as
//! plain words. Each line carries the page line of its item. Nothing here builds IR.

use super::dom::El;
use crate::parse::blocks::DocLine;

/// A rendered line and the page line it comes from.
pub fn line(text: String, line: u32) -> DocLine<'static> {
    DocLine {
        text: text.into(),
        line,
    }
}

/// The RST lines of field list `dl`, indented by `indent`.
pub fn render(dl: El<'_, '_>, indent: usize) -> Vec<DocLine<'static>> {
    let pad = " ".repeat(indent);
    let mut out = Vec::new();
    let mut label = String::new();
    for el in dl.elements() {
        match el.name() {
            "dt" => label = el.text().trim_end_matches(':').trim().to_string(),
            "dd" => field(&label, el, &pad, &mut out),
            _ => {}
        }
    }
    out
}

/// The items of a field body: the `li`s of its list, or the body itself.
fn items<'a, 't>(dd: El<'a, 't>) -> Vec<El<'a, 't>> {
    let list = dd.elements().find(|e| e.is("ul") || e.is("ol"));
    match list {
        Some(l) => l.elements().filter(|e| e.is("li")).collect(),
        None => vec![dd],
    }
}

fn field(label: &str, dd: El<'_, '_>, pad: &str, out: &mut Vec<DocLine<'static>>) {
    let at = dd.line();
    match label.to_ascii_lowercase().as_str() {
        "parameters" | "parameter" | "arguments" | "args" => {
            for item in items(dd) {
                let it = Item::read(item);
                let name = it.name.as_deref().unwrap_or("_");
                out.push(line(format!("{pad}:param {name}: {}", it.doc), item.line()));
                if let Some(ty) = &it.ty {
                    out.push(line(format!("{pad}:type {name}: {ty}"), item.line()));
                }
            }
        }
        "returns" | "return" => {
            let has_list = dd.elements().any(|e| e.is("ul") || e.is("ol"));
            if !has_list {
                out.push(line(format!("{pad}:returns: {}", dd.text()), at));
                return;
            }
            let head = format!("{pad}:returns: ");
            let cont = " ".repeat(head.chars().count());
            for (i, item) in items(dd).into_iter().enumerate() {
                let it = Item::read(item);
                let bullet = match (&it.name, &it.ty) {
                    (Some(n), Some(t)) => format!("* **{n}** ({t}) -- {}", it.doc),
                    (Some(n), None) => format!("* **{n}** -- {}", it.doc),
                    (None, Some(t)) => format!("* *{t}* -- {}", it.doc),
                    (None, None) => format!("* {}", it.doc),
                };
                let lead = if i == 0 { &head } else { &cont };
                out.push(line(format!("{lead}{bullet}"), item.line()));
            }
        }
        "variables" | "variable" => {
            for item in items(dd) {
                let it = Item::read(item);
                let name = it.name.as_deref().unwrap_or("_");
                out.push(line(format!("{pad}:ivar {name}: {}", it.doc), item.line()));
                if let Some(ty) = &it.ty {
                    out.push(line(format!("{pad}:vartype {name}: {ty}"), item.line()));
                }
            }
        }
        "return type" | "rtype" => out.push(line(format!("{pad}:rtype: {}", dd.text()), at)),
        "type" => out.push(line(format!("{pad}:type: {}", dd.text()), at)),
        other => {
            let name: String = other
                .chars()
                .map(|c| if c.is_whitespace() { '-' } else { c })
                .collect();
            out.push(line(format!("{pad}:{name}: {}", dd.text()), at));
        }
    }
}

/// One field item: `**name** (type) – doc`, `*type* – doc` or plain text.
#[derive(Debug, PartialEq, Eq)]
struct Item {
    name: Option<String>,
    ty: Option<String>,
    doc: String,
}

impl Item {
    fn read(item: El<'_, '_>) -> Item {
        // The first element of the item's first paragraph tells its shape.
        let para = item.elements().find(|e| e.is("p")).unwrap_or(item);
        let first = para.elements().next();
        let text = para.text();
        let lead = first.filter(|f| {
            matches!(f.name(), "strong" | "em")
                && !f.has_class("property")
                && text.starts_with(&f.text())
        });
        let Some(lead) = lead else {
            return Item {
                name: None,
                ty: None,
                doc: text,
            };
        };
        let head = lead.text();
        let rest = text[head.len()..].trim_start();
        if lead.is("em") {
            return Item {
                name: None,
                ty: Some(head),
                doc: strip_dash(rest).to_string(),
            };
        }
        let (ty, rest) = match rest.strip_prefix('(').and_then(|r| close_paren(r)) {
            Some((ty, after)) => (Some(ty.trim().to_string()), after),
            None => (None, rest),
        };
        Item {
            name: Some(head),
            ty: ty.filter(|t| !t.is_empty()),
            doc: strip_dash(rest).to_string(),
        }
    }
}

/// Splits `T) rest` at the `)` that closes the type (brackets inside are matched).
fn close_paren(s: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ']' => depth -= 1,
            ')' if depth == 0 => return Some((&s[..i], &s[i + 1..])),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Drops the separator Sphinx puts before a field item's text (`–`, `—`, `--`, `-`).
fn strip_dash(s: &str) -> &str {
    let s = s.trim_start();
    for d in ["\u{2013}", "\u{2014}", "--", "-"] {
        if let Some(r) = s.strip_prefix(d) {
            return r.trim_start();
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::{dom, spec};
    use super::*;

    fn render_fragment(body: &str) -> Vec<String> {
        let page = spec::parse(body).page;
        let dl =
            dom::find(&page, |e| e.has_class("field-list")).expect("test input has a field list");
        render(dl, 0)
            .into_iter()
            .map(|l| l.text.into_owned())
            .collect()
    }

    #[test]
    fn parameters_returns_rtype() {
        let lines = render_fragment(concat!(
            "<dl class=\"field-list simple\">",
            "<dt class=\"field-odd\">Parameters<span class=\"colon\">:</span></dt>",
            "<dd class=\"field-odd\"><ul class=\"simple\">",
            "<li><p><strong>dst</strong> (<em>Any</em>) &#8211; Destination</p></li>",
            "<li><p><strong>count</strong> (<em>list[int]</em>) &#8211; Size (bytes)</p></li>",
            "</ul></dd>",
            "<dt class=\"field-even\">Returns<span class=\"colon\">:</span></dt>",
            "<dd class=\"field-even\"><ul class=\"simple\">",
            "<li><p><em>cudaError_t</em> &#8211; <code>cudaSuccess</code>, <code>cudaErrorInvalidValue</code></p></li>",
            "<li><p><strong>ptr</strong> (<em>int</em>) &#8211; The pointer</p></li>",
            "</ul></dd>",
            "<dt class=\"field-odd\">Return type<span class=\"colon\">:</span></dt>",
            "<dd class=\"field-odd\"><p>cudaError_t</p></dd></dl>",
        ));
        assert_eq!(
            lines,
            [
                ":param dst: Destination",
                ":type dst: Any",
                ":param count: Size (bytes)",
                ":type count: list[int]",
                ":returns: * *cudaError_t* -- cudaSuccess, cudaErrorInvalidValue",
                "          * **ptr** (int) -- The pointer",
                ":rtype: cudaError_t",
            ]
        );
    }

    #[test]
    fn variables_are_info_fields() {
        let lines = render_fragment(concat!(
            "<dl class=\"field-list simple\"><dt>Variables<span class=\"colon\">:</span></dt>",
            "<dd><ul class=\"simple\">",
            "<li><p><strong>x</strong> (<em>int</em>) &#8211; The x</p></li>",
            "<li><p><strong>y</strong> &#8211; The y</p></li>",
            "</ul></dd></dl>",
        ));
        assert_eq!(
            lines,
            [":ivar x: The x", ":vartype x: int", ":ivar y: The y"]
        );
    }

    #[test]
    fn single_parameter_and_plain_returns() {
        let lines = render_fragment(concat!(
            "<dl class=\"field-list\"><dt>Parameters:</dt><dd><p><strong>x</strong> &#8212; the x</p></dd>",
            "<dt>Returns:</dt><dd><p>cudaSuccess</p></dd><dt>Raises</dt><dd><p>nothing</p></dd></dl>",
        ));
        assert_eq!(
            lines,
            [
                ":param x: the x",
                ":returns: cudaSuccess",
                ":raises: nothing"
            ]
        );
    }
}
