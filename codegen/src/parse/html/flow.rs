//! Docstring and intro content to text lines, as the page's text rendering shows them.
//!
//! - a `pre` block (the docstring shown verbatim as raw RST) gives its lines unchanged;
//! - a paragraph gives one line, whitespace collapsed, links and literals as their text;
//! - `ul`/`ol` items give `• text` / `N. text` lines (numbered from the list's `start`),
//!   indented two columns a level; an item that opens with a nested list shows no marker;
//! - `blockquote` and plain `div` wrappers are transparent;
//! - a `seealso` admonition gives `.. seealso:: text`, another admonition `.. kind::` with its
//!   body indented; a `rubric` paragraph gives `.. rubric:: text`;
//! - a processed field list goes through [`super::fields`]; a definition list gives each term
//!   (`term : classifier` when it has one) with its definition indented under it at once, as
//!   RST writes one.
//!
//! Blocks are separated by blank lines. Each line carries the line of the page it comes from:
//! a paragraph the line of its element, the `k`-th line of a `pre` block the `pre`'s line plus
//! `k` (exact when the text starts on the `<pre>` line, as Sphinx writes it), blank separators
//! 0. The docstring model ([`crate::parse::docstring`]) reads the result; nothing here
//! interprets it.

use ego_tree::NodeRef;

use super::dom::{self, El, Node};
use super::fields::{self, line};
use crate::parse::blocks::DocLine;

/// Elements read as running text inside a paragraph.
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "br", "cite", "code", "data", "del", "dfn", "em", "i", "img",
    "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "tt",
    "u", "var", "wbr",
];

/// Deepest element nesting rendered as structure; deeper content is read as plain text.
pub const MAX_DEPTH: usize = 64;

/// Collects lines of rendered content.
#[derive(Debug, Default)]
pub struct Renderer {
    pub lines: Vec<DocLine<'static>>,
    /// Running text not yet ended by a block.
    run: String,
    run_indent: usize,
    /// The page line where the running text starts.
    run_line: u32,
    /// A list marker for the next paragraph line.
    marker: Option<String>,
    /// Element nesting of the content being rendered.
    depth: usize,
    /// The line of the first element nested deeper than [`MAX_DEPTH`], once met.
    too_deep: Option<u32>,
}

impl Renderer {
    /// An empty renderer.
    pub fn new() -> Self {
        Renderer::default()
    }

    /// Takes the lines rendered so far (ending the running text first).
    pub fn take(&mut self) -> Vec<DocLine<'static>> {
        self.flush();
        std::mem::take(&mut self.lines)
    }

    /// Renders one node (text or element) at `indent`.
    pub fn node(&mut self, node: NodeRef<'_, Node<'_>>, indent: usize) {
        match node.value() {
            Node::Text(t) => {
                let at = node.parent().and_then(El::wrap).map_or(0, El::line);
                self.inline_text(t, indent, at);
            }
            Node::Element(_) => {
                if let Some(el) = El::wrap(node) {
                    self.element(el, indent);
                }
            }
            Node::Document | Node::Other => {}
        }
    }

    /// Renders the children of `el` at `indent`; below [`MAX_DEPTH`] levels, their text only.
    pub fn children(&mut self, el: El<'_, '_>, indent: usize) {
        if self.depth >= MAX_DEPTH {
            self.too_deep.get_or_insert(el.line());
            for t in el.texts() {
                self.inline_text(t, indent, el.line());
            }
            return;
        }
        self.depth += 1;
        for child in el.children() {
            self.node(child, indent);
        }
        self.depth -= 1;
    }

    /// The line of the first element nested deeper than [`MAX_DEPTH`], if one was met since
    /// the last call.
    pub fn take_too_deep(&mut self) -> Option<u32> {
        self.too_deep.take()
    }

    fn inline_text(&mut self, t: &str, indent: usize, at: u32) {
        if self.run.is_empty() {
            if t.trim().is_empty() {
                return;
            }
            self.run_indent = indent;
            self.run_line = at;
        }
        dom::push_collapsed(&mut self.run, t);
    }

    /// Ends the running text as a paragraph.
    fn flush(&mut self) {
        let text = self.run.trim().to_string();
        self.run.clear();
        if !text.is_empty() {
            let (indent, at) = (self.run_indent, self.run_line);
            self.paragraph(indent, &text, at);
        }
    }

    /// Emits one paragraph line (from page line `at`) and a blank line.
    pub fn paragraph(&mut self, indent: usize, text: &str, at: u32) {
        let marker = self.marker.take().unwrap_or_default();
        self.lines.push(line(
            format!("{:indent$}{marker}{text}", "", indent = indent),
            at,
        ));
        self.lines.push(line(String::new(), 0));
    }

    /// Emits lines as they are, indented.
    pub fn raw(&mut self, indent: usize, lines: impl IntoIterator<Item = DocLine<'static>>) {
        self.flush();
        self.marker = None;
        for l in lines {
            if l.text.is_empty() {
                self.lines.push(l);
            } else {
                let text = format!("{:indent$}{}", "", l.text, indent = indent);
                self.lines.push(line(text, l.line));
            }
        }
        self.lines.push(line(String::new(), 0));
    }

    fn element(&mut self, el: El<'_, '_>, indent: usize) {
        let name = el.name();
        if INLINE.contains(&name) {
            if name == "a" && el.has_class("headerlink") {
                return;
            }
            if self.run.is_empty() {
                self.run_indent = indent;
                self.run_line = el.line();
            }
            for t in el.texts() {
                dom::push_collapsed(&mut self.run, t);
            }
            return;
        }
        self.flush();
        match name {
            "p" if el.has_class("rubric") => {
                self.paragraph(indent, &format!(".. rubric:: {}", el.text()), el.line());
            }
            "p" if el.has_class("admonition-title") => {}
            "pre" => {
                let mut text = String::new();
                for t in el.texts() {
                    text.push_str(t);
                }
                let first = el.line();
                let lines: Vec<DocLine<'static>> = text
                    .trim_end_matches('\n')
                    .split('\n')
                    .zip(first..)
                    .map(|(l, at)| line(l.trim_end_matches('\r').to_string(), at))
                    .collect();
                self.raw(indent, lines);
            }
            "ul" | "ol" => self.list(el, indent, name == "ol"),
            "div" | "aside" if el.has_class("admonition") => self.admonition(el, indent),
            "dl" if el.has_class("field-list") => {
                let lines = fields::render(el, indent);
                self.marker = None;
                self.lines.extend(lines);
                self.lines.push(line(String::new(), 0));
            }
            "dl" => {
                for item in el.elements() {
                    match item.name() {
                        // The term, then its definition indented at once (no blank line), as
                        // an RST definition list writes it.
                        "dt" => self
                            .lines
                            .push(line(format!("{:indent$}{}", "", term(item)), item.line())),
                        _ => {
                            self.children(item, indent + 3);
                            self.flush();
                        }
                    }
                }
            }
            "table" => {
                for row in el.descendant_elements().filter(|e| e.is("tr")) {
                    let cells: Vec<String> = row.elements().map(El::text).collect();
                    self.paragraph(indent, &cells.join(" | "), row.line());
                }
            }
            "script" | "style" | "template" | "button" | "form" | "input" | "nav" => {}
            _ => {
                self.children(el, indent);
                self.flush();
            }
        }
    }

    fn list(&mut self, el: El<'_, '_>, indent: usize, ordered: bool) {
        self.marker = None;
        let mut n: i64 = el
            .attr("start")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        for li in el.elements().filter(|e| e.is("li")) {
            self.marker = Some(if ordered {
                format!("{n}. ")
            } else {
                "• ".to_string()
            });
            self.children(li, indent + 2);
            self.flush();
            self.marker = None;
            n = n.saturating_add(1);
        }
    }

    fn admonition(&mut self, el: El<'_, '_>, indent: usize) {
        let kind = el
            .classes()
            .find(|c| *c != "admonition")
            .unwrap_or("admonition")
            .to_string();
        if kind == "seealso" {
            let text: Vec<String> = el
                .elements()
                .filter(|e| !e.has_class("admonition-title"))
                .map(El::text)
                .filter(|t| !t.is_empty())
                .collect();
            self.paragraph(
                indent,
                &format!(".. seealso:: {}", text.join(" ")),
                el.line(),
            );
            return;
        }
        self.paragraph(indent, &format!(".. {kind}::"), el.line());
        self.children(el, indent + 3);
        self.flush();
    }
}

/// The text of a definition list's term: `term : classifier` when docutils marks classifiers
/// (`span.classifier`, after an optional `span.classifier-delimiter`).
fn term(dt: El<'_, '_>) -> String {
    let mut out = String::new();
    for child in dt.children() {
        match El::wrap(child) {
            Some(c) if c.has_class("classifier-delimiter") => {}
            Some(c) if c.has_class("classifier") => {
                let t = out.trim_end().len();
                out.truncate(t);
                out.push_str(" : ");
                out.push_str(c.text().trim());
            }
            Some(c) => dom::push_collapsed(&mut out, &c.text()),
            None => {
                if let Node::Text(t) = child.value() {
                    dom::push_collapsed(&mut out, t);
                }
            }
        }
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::super::spec;
    use super::*;

    fn render_lines(body: &str) -> Vec<(String, u32)> {
        let page = spec::parse(&format!("<body>{body}</body>")).page;
        let body = dom::find(&page, |e| e.is("body")).expect("body");
        let mut r = Renderer::new();
        r.children(body, 0);
        r.take()
            .into_iter()
            .map(|l| (l.text.into_owned(), l.line))
            .collect()
    }

    fn render(body: &str) -> Vec<String> {
        render_lines(body).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn paragraphs_lists_and_entities() {
        let lines = render(
            "<p>a  <code>x&lt;y</code>\n b&#8212;c</p><ul><li><p>one</p></li><li><ol start=\"2\"><li><p>two</p></li></ol></li></ul><blockquote><div><p>q</p></div></blockquote>",
        );
        let text: Vec<&str> = lines
            .iter()
            .map(String::as_str)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(text, ["a x<y b\u{2014}c", "  • one", "    2. two", "q"]);
    }

    #[test]
    fn definition_lists_keep_classifiers() {
        let lines = render(
            "<dl class=\"simple\"><dt>y<span class=\"classifier\">int</span></dt><dd><p>the y</p></dd><dt>z<span class=\"classifier-delimiter\">:</span> <span class=\"classifier\">list[int]</span></dt><dd><p>the z</p></dd></dl>",
        );
        assert_eq!(
            lines,
            ["y : int", "   the y", "", "z : list[int]", "   the z", ""]
        );
    }

    #[test]
    fn pre_is_verbatim() {
        let lines = render(
            "<div class=\"highlight\"><pre><span></span>Doc\n\n:param a: x\n   more\n</pre></div>",
        );
        assert_eq!(lines, ["Doc", "", ":param a: x", "   more", ""]);
    }

    #[test]
    fn lines_come_from_the_page() {
        let lines = render_lines("<p>one</p>\n<p>two <em>x</em></p>\n<pre><span></span>a\nb</pre>");
        let numbered: Vec<(&str, u32)> = lines
            .iter()
            .filter(|(t, _)| !t.is_empty())
            .map(|(t, n)| (t.as_str(), *n))
            .collect();
        assert_eq!(numbered, [("one", 1), ("two x", 2), ("a", 3), ("b", 4)]);
        assert!(lines
            .iter()
            .filter(|(t, _)| t.is_empty())
            .all(|(_, n)| *n == 0));
    }
}
