//! Docstring and intro content to text lines, as the page's text rendering shows them.
//!
//! - a `pre` block (the docstring shown verbatim as raw RST) gives its lines unchanged;
//! - a paragraph gives one line, whitespace collapsed, links and literals as their text;
//! - `ul`/`ol` items give `• text` / `N. text` lines (numbered from the list's `start`),
//!   indented two columns a level; an item that opens with a nested list shows no marker;
//! - `blockquote` and plain `div` wrappers are transparent;
//! - a `seealso` admonition gives `.. seealso:: text`, another admonition `.. kind::` with its
//!   body indented; a `rubric` paragraph gives `.. rubric:: text`;
//! - a processed field list goes through [`super::fields`].
//!
//! Blocks are separated by blank lines. The docstring model ([`crate::parse::docstring`])
//! reads the result; nothing here interprets it.

use ego_tree::NodeRef;

use super::dom::{self, El, Node};
use super::fields;

/// Elements read as running text inside a paragraph.
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "br", "cite", "code", "data", "del", "dfn", "em", "i", "img",
    "ins", "kbd", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "tt",
    "u", "var", "wbr",
];

/// Collects lines of rendered content.
#[derive(Debug, Default)]
pub struct Renderer {
    pub lines: Vec<String>,
    /// Running text not yet ended by a block.
    run: String,
    run_indent: usize,
    /// A list marker for the next paragraph line.
    marker: Option<String>,
}

impl Renderer {
    /// An empty renderer.
    pub fn new() -> Self {
        Renderer::default()
    }

    /// Takes the lines rendered so far (ending the running text first).
    pub fn take(&mut self) -> Vec<String> {
        self.flush();
        std::mem::take(&mut self.lines)
    }

    /// Renders one node (text or element) at `indent`.
    pub fn node(&mut self, node: NodeRef<'_, Node<'_>>, indent: usize) {
        match node.value() {
            Node::Text(t) => self.inline_text(t, indent),
            Node::Element(_) => {
                if let Some(el) = El::wrap(node) {
                    self.element(el, indent);
                }
            }
            Node::Document | Node::Other => {}
        }
    }

    /// Renders the children of `el` at `indent`.
    pub fn children(&mut self, el: El<'_, '_>, indent: usize) {
        for child in el.children() {
            self.node(child, indent);
        }
    }

    fn inline_text(&mut self, t: &str, indent: usize) {
        if self.run.is_empty() {
            if t.trim().is_empty() {
                return;
            }
            self.run_indent = indent;
        }
        dom::push_collapsed(&mut self.run, t);
    }

    /// Ends the running text as a paragraph.
    fn flush(&mut self) {
        let text = self.run.trim().to_string();
        self.run.clear();
        if !text.is_empty() {
            let indent = self.run_indent;
            self.paragraph(indent, &text);
        }
    }

    /// Emits one paragraph line and a blank line.
    pub fn paragraph(&mut self, indent: usize, text: &str) {
        let marker = self.marker.take().unwrap_or_default();
        self.lines
            .push(format!("{:indent$}{marker}{text}", "", indent = indent));
        self.lines.push(String::new());
    }

    /// Emits lines as they are, indented.
    pub fn raw(&mut self, indent: usize, lines: impl IntoIterator<Item = String>) {
        self.flush();
        self.marker = None;
        for l in lines {
            if l.is_empty() {
                self.lines.push(l);
            } else {
                self.lines
                    .push(format!("{:indent$}{l}", "", indent = indent));
            }
        }
        self.lines.push(String::new());
    }

    fn element(&mut self, el: El<'_, '_>, indent: usize) {
        let name = el.name();
        if INLINE.contains(&name) {
            if name == "a" && el.has_class("headerlink") {
                return;
            }
            if self.run.is_empty() {
                self.run_indent = indent;
            }
            for t in el.texts() {
                dom::push_collapsed(&mut self.run, t);
            }
            return;
        }
        self.flush();
        match name {
            "p" if el.has_class("rubric") => {
                self.paragraph(indent, &format!(".. rubric:: {}", el.text()));
            }
            "p" if el.has_class("admonition-title") => {}
            "pre" => {
                let mut text = String::new();
                for t in el.texts() {
                    text.push_str(t);
                }
                let lines: Vec<String> = text
                    .trim_end_matches('\n')
                    .split('\n')
                    .map(|l| l.trim_end_matches('\r').to_string())
                    .collect();
                self.raw(indent, lines);
            }
            "ul" | "ol" => self.list(el, indent, name == "ol"),
            "div" | "aside" if el.has_class("admonition") => self.admonition(el, indent),
            "dl" if el.has_class("field-list") => {
                let lines = fields::render(el, indent);
                self.marker = None;
                self.lines.extend(lines);
                self.lines.push(String::new());
            }
            "dl" => {
                for item in el.elements() {
                    match item.name() {
                        "dt" => self.paragraph(indent, &item.text()),
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
                    self.paragraph(indent, &cells.join(" | "));
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
            self.paragraph(indent, &format!(".. seealso:: {}", text.join(" ")));
            return;
        }
        self.paragraph(indent, &format!(".. {kind}::"));
        self.children(el, indent + 3);
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::super::spec;
    use super::*;

    fn render(body: &str) -> Vec<String> {
        let (page, _) = spec::parse(&format!("<body>{body}</body>"));
        let body = dom::find(&page, |e| e.is("body")).expect("body");
        let mut r = Renderer::new();
        r.children(body, 0);
        r.take()
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
    fn pre_is_verbatim() {
        let lines = render(
            "<div class=\"highlight\"><pre><span></span>Doc\n\n:param a: x\n   more\n</pre></div>",
        );
        assert_eq!(lines, ["Doc", "", ":param a: x", "   more", ""]);
    }
}
