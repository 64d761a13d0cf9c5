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

use scraper::node::Node;
use scraper::ElementRef;

use super::dom::{self, has_class};
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
    pub fn node(&mut self, node: ego_tree::NodeRef<'_, Node>, indent: usize) {
        match node.value() {
            Node::Text(t) => self.inline_text(t, indent),
            Node::Element(_) => {
                if let Some(el) = ElementRef::wrap(node) {
                    self.element(el, indent);
                }
            }
            _ => {}
        }
    }

    /// Renders the children of `el` at `indent`.
    pub fn children(&mut self, el: ElementRef<'_>, indent: usize) {
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

    fn element(&mut self, el: ElementRef<'_>, indent: usize) {
        let name = el.value().name();
        if INLINE.contains(&name) {
            if name == "a" && has_class(el, "headerlink") {
                return;
            }
            if self.run.is_empty() {
                self.run_indent = indent;
            }
            for t in el.text() {
                dom::push_collapsed(&mut self.run, t);
            }
            return;
        }
        self.flush();
        match name {
            "p" if has_class(el, "rubric") => {
                self.paragraph(indent, &format!(".. rubric:: {}", dom::text(el)));
            }
            "p" if has_class(el, "admonition-title") => {}
            "pre" => {
                let mut text = String::new();
                for t in el.text() {
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
            "div" | "aside" if has_class(el, "admonition") => self.admonition(el, indent),
            "dl" if has_class(el, "field-list") => {
                let lines = fields::render(el, indent);
                self.marker = None;
                self.lines.extend(lines);
                self.lines.push(String::new());
            }
            "dl" => {
                for item in dom::elements(el) {
                    match item.value().name() {
                        "dt" => self.paragraph(indent, &dom::text(item)),
                        _ => {
                            self.children(item, indent + 3);
                            self.flush();
                        }
                    }
                }
            }
            "table" => {
                for row in el.descendent_elements().filter(|e| dom::is(*e, "tr")) {
                    let cells: Vec<String> = dom::elements(row).map(dom::text).collect();
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

    fn list(&mut self, el: ElementRef<'_>, indent: usize, ordered: bool) {
        self.marker = None;
        let mut n: i64 = el
            .value()
            .attr("start")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        for li in dom::elements(el).filter(|e| dom::is(*e, "li")) {
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

    fn admonition(&mut self, el: ElementRef<'_>, indent: usize) {
        let kind = el
            .value()
            .classes()
            .find(|c| *c != "admonition")
            .unwrap_or("admonition")
            .to_string();
        if kind == "seealso" {
            let text: Vec<String> = dom::elements(el)
                .filter(|e| !has_class(*e, "admonition-title"))
                .map(dom::text)
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
    use super::*;
    use scraper::Html;

    fn render(body: &str) -> Vec<String> {
        let html = Html::parse_fragment(body);
        let mut r = Renderer::new();
        r.children(html.root_element(), 0);
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
