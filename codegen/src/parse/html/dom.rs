//! The page tree [`super::spec`] builds and the walk reads.
//!
//! An arena (`ego_tree`) of [`Node`]s: elements with their lower-case name, attributes (values
//! decoded) and the line of their start tag, and text with character references decoded and
//! line endings normalised. [`El`] is a borrowed element with the few queries the walk needs
//! (tag, class, attribute, children, text). Nothing here parses HTML.

use std::borrow::Cow;

use ego_tree::{NodeRef, Tree};

/// One node of a page tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node<'t> {
    /// The document (the tree's root).
    Document,
    Element(Element<'t>),
    /// Decoded text.
    Text(Cow<'t, str>),
    /// A comment, doctype or processing instruction: kept, never read.
    Other,
}

/// An element: lower-case name, attributes in source order, and the 1-based line where its
/// start tag ends (its `>`; where html5ever reports it, so both parsers give the same line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element<'t> {
    pub name: Cow<'t, str>,
    pub attrs: Vec<(Cow<'t, str>, Cow<'t, str>)>,
    pub line: u32,
}

/// A page tree; its root is [`Node::Document`].
pub type Page<'t> = Tree<Node<'t>>;

/// A borrowed element of a page.
#[derive(Clone, Copy, Debug)]
pub struct El<'a, 't> {
    node: NodeRef<'a, Node<'t>>,
    el: &'a Element<'t>,
}

impl<'a, 't> El<'a, 't> {
    /// `node` as an element, or `None` for text and other nodes.
    pub fn wrap(node: NodeRef<'a, Node<'t>>) -> Option<Self> {
        match node.value() {
            Node::Element(el) => Some(El { node, el }),
            _ => None,
        }
    }

    /// The tree node.
    pub fn node(self) -> NodeRef<'a, Node<'t>> {
        self.node
    }

    /// The lower-case tag name.
    pub fn name(self) -> &'a str {
        &self.el.name
    }

    /// Whether this is a `tag` element.
    pub fn is(self, tag: &str) -> bool {
        self.name() == tag
    }

    /// 1-based line where the start tag ends (0 when unknown).
    pub fn line(self) -> u32 {
        self.el.line
    }

    /// The value of attribute `name` (lower case).
    pub fn attr(self, name: &str) -> Option<&'a str> {
        self.el
            .attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| &**v)
    }

    /// The classes of the `class` attribute.
    pub fn classes(self) -> impl Iterator<Item = &'a str> {
        self.attr("class").unwrap_or("").split_ascii_whitespace()
    }

    /// Whether the element has class `class`.
    pub fn has_class(self, class: &str) -> bool {
        self.classes().any(|c| c == class)
    }

    /// The heading level of `h1`…`h6`.
    pub fn heading_level(self) -> Option<u8> {
        match self.name().as_bytes() {
            [b'h', d @ b'1'..=b'6'] => Some(d - b'0'),
            _ => None,
        }
    }

    /// All child nodes.
    pub fn children(self) -> impl Iterator<Item = NodeRef<'a, Node<'t>>> {
        self.node.children()
    }

    /// Element children.
    pub fn elements(self) -> impl Iterator<Item = El<'a, 't>> {
        self.node.children().filter_map(El::wrap)
    }

    /// Descendant elements in document order (this one excluded).
    pub fn descendant_elements(self) -> impl Iterator<Item = El<'a, 't>> {
        self.node.descendants().skip(1).filter_map(El::wrap)
    }

    /// The texts of all descendants, in document order.
    pub fn texts(self) -> impl Iterator<Item = &'a str> {
        self.node.descendants().filter_map(|n| match n.value() {
            Node::Text(t) => Some(&**t),
            _ => None,
        })
    }

    /// [`Self::text`] without the permalinks (`a.headerlink`: `#`, `¶` or an icon, as the
    /// theme writes them) inside the element, and whether it held one.
    pub fn text_without_permalinks(self) -> (String, bool) {
        let mut out = String::new();
        let mut found = false;
        // Inside a permalink: the number of its elements open.
        let mut skipping = 0usize;
        for edge in self.node.traverse() {
            match edge {
                ego_tree::iter::Edge::Open(n) => {
                    if skipping > 0 {
                        skipping += usize::from(El::wrap(n).is_some());
                    } else if El::wrap(n).is_some_and(El::is_permalink) {
                        found = true;
                        skipping = 1;
                    } else if let Node::Text(t) = n.value() {
                        push_collapsed(&mut out, t);
                    }
                }
                ego_tree::iter::Edge::Close(n) => {
                    if skipping > 0 && El::wrap(n).is_some() {
                        skipping -= 1;
                    }
                }
            }
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        (out, found)
    }

    /// Whether this is a Sphinx permalink (`a.headerlink`).
    pub fn is_permalink(self) -> bool {
        self.is("a") && self.has_class("headerlink")
    }

    /// The text of the element and its descendants, whitespace collapsed and trimmed.
    pub fn text(self) -> String {
        let mut out = String::new();
        for t in self.texts() {
            push_collapsed(&mut out, t);
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out
    }
}

/// Appends `s` to `out`, turning every run of whitespace into one space and dropping
/// whitespace at the start of `out`.
pub fn push_collapsed(out: &mut String, s: &str) {
    for c in s.chars() {
        if c.is_whitespace() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
/// The first element of `page` in document order that `pick` accepts.
pub fn find<'a, 't>(
    page: &'a Page<'t>,
    mut pick: impl FnMut(El<'a, 't>) -> bool,
) -> Option<El<'a, 't>> {
    page.root()
        .descendants()
        .filter_map(El::wrap)
        .find(|e| pick(*e))
}

/// The element holding the page's article: the first `article` (the PyData/NVIDIA theme,
/// furo), else the first element with `itemprop="articleBody"` (`sphinx_rtd_theme`), else the
/// first with `role="main"`, else the first `div.body` (alabaster and the classic themes), else
/// `body`.
pub fn main_content<'a, 't>(page: &'a Page<'t>) -> Option<El<'a, 't>> {
    let mut article_body = None;
    let mut role_main = None;
    let mut div_body = None;
    let mut body = None;
    for el in page.root().descendants().filter_map(El::wrap) {
        if el.is("article") {
            return Some(el);
        }
        if article_body.is_none() && el.attr("itemprop") == Some("articleBody") {
            article_body = Some(el);
        }
        if role_main.is_none() && el.attr("role") == Some("main") {
            role_main = Some(el);
        }
        if div_body.is_none() && el.is("div") && el.has_class("body") {
            div_body = Some(el);
        }
        if body.is_none() && el.is("body") {
            body = Some(el);
        }
    }
    article_body.or(role_main).or(div_body).or(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el<'t>(name: &'t str, attrs: &[(&'t str, &'t str)], line: u32) -> Node<'t> {
        Node::Element(Element {
            name: name.into(),
            attrs: attrs
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
            line,
        })
    }

    #[test]
    fn element_queries() {
        let mut page = Page::new(Node::Document);
        let mut root = page.root_mut();
        let mut dl = root.append(el("dl", &[("class", " py  function "), ("id", "f")], 7));
        dl.append(Node::Text("a \n b".into()));
        dl.append(el("em", &[], 8)).append(Node::Text(" c ".into()));
        dl.append(Node::Other);
        let dl = find(&page, |e| e.is("dl")).expect("dl");
        assert!(dl.has_class("py") && dl.has_class("function") && !dl.has_class("p"));
        assert_eq!(dl.attr("id"), Some("f"));
        assert_eq!(dl.line(), 7);
        assert_eq!(dl.text(), "a b c");
        assert_eq!(dl.elements().map(El::name).collect::<Vec<_>>(), ["em"]);
        assert_eq!(dl.descendant_elements().count(), 1);
        assert_eq!(dl.children().count(), 3);
        assert_eq!(dl.heading_level(), None);
        assert!(find(&page, |e| e.is("h2")).is_none());
    }

    #[test]
    fn heading_levels() {
        let mut page = Page::new(Node::Document);
        page.root_mut().append(el("h3", &[], 1));
        page.root_mut().append(el("h7", &[], 1));
        let levels: Vec<Option<u8>> = page
            .root()
            .children()
            .filter_map(El::wrap)
            .map(El::heading_level)
            .collect();
        assert_eq!(levels, [Some(3), None]);
    }
}
