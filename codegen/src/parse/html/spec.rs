//! The page parser: html5ever, the HTML standard's tokenizer and tree construction, into a
//! [`Page`].
//!
//! Every page goes through it: well-formed Sphinx pages, and truncated pages, unclosed or
//! misnested tags, tables, forms of markup whose tree the standard rebuilds. It parses the
//! whole page and recovers exactly as a browser does. Scripting is off, as for a
//! reader without JavaScript: `<noscript>` content is markup.
//!
//! A small [`TreeSink`] builds the arena: each element keeps the line html5ever was at when it
//! read the start tag (the line where that tag ends), text is merged as the standard says, and
//! the parse errors html5ever reports are returned with their lines. It does not decide what
//! is the page's main content.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::collections::HashMap;

use ego_tree::NodeId;
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeBuilderOpts, TreeSink};
use html5ever::{Attribute, ParseOpts, QualName};

use super::dom::{Element, Node, Page};

/// A parse error html5ever recovered from, with the line it was at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub message: Cow<'static, str>,
}

/// Parses `text` as an HTML document.
pub fn parse(text: &str) -> (Page<'static>, Vec<ParseError>) {
    let opts = ParseOpts {
        tree_builder: TreeBuilderOpts {
            scripting_enabled: false,
            ..TreeBuilderOpts::default()
        },
        ..ParseOpts::default()
    };
    html5ever::parse_document(Sink::new(), opts).one(text)
}

struct Sink {
    tree: RefCell<Page<'static>>,
    /// Element names as html5ever needs them back (namespace included).
    names: RefCell<HashMap<NodeId, QualName>>,
    /// The contents fragment of each `template` element.
    templates: RefCell<HashMap<NodeId, NodeId>>,
    line: Cell<u32>,
    errors: RefCell<Vec<ParseError>>,
    /// Answer of `elem_name` for a handle that is not an element (html5ever never asks).
    unnamed: RefCell<QualName>,
}

impl Sink {
    fn new() -> Self {
        Sink {
            tree: RefCell::new(Page::new(Node::Document)),
            names: RefCell::new(HashMap::new()),
            templates: RefCell::new(HashMap::new()),
            line: Cell::new(1),
            errors: RefCell::new(Vec::new()),
            unnamed: RefCell::new(QualName::new(
                None,
                html5ever::ns!(html),
                html5ever::local_name!(""),
            )),
        }
    }

    fn orphan(&self, node: Node<'static>) -> NodeId {
        self.tree.borrow_mut().orphan(node).id()
    }

    /// Appends text to the text node `to`, when it is one.
    fn extend_text(&self, to: Option<NodeId>, text: &StrTendril) -> bool {
        let mut tree = self.tree.borrow_mut();
        let Some(mut node) = to.and_then(|id| tree.get_mut(id)) else {
            return false;
        };
        match node.value() {
            Node::Text(t) => {
                t.to_mut().push_str(text);
                true
            }
            _ => false,
        }
    }
}

fn text_node(text: &StrTendril) -> Node<'static> {
    Node::Text(Cow::Owned(text.to_string()))
}

impl TreeSink for Sink {
    type Handle = NodeId;
    type Output = (Page<'static>, Vec<ParseError>);
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Self::Output {
        (self.tree.into_inner(), self.errors.into_inner())
    }

    fn parse_error(&self, message: Cow<'static, str>) {
        self.errors.borrow_mut().push(ParseError {
            line: self.line.get(),
            message,
        });
    }

    fn set_current_line(&self, line: u64) {
        self.line.set(u32::try_from(line).unwrap_or(u32::MAX));
    }

    fn get_document(&self) -> NodeId {
        self.tree.borrow().root().id()
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Ref<'a, QualName> {
        Ref::filter_map(self.names.borrow(), |names| names.get(target))
            .unwrap_or_else(|_| self.unnamed.borrow())
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let id = self.orphan(Node::Element(Element {
            name: Cow::Owned(name.local.to_string()),
            attrs: attrs
                .into_iter()
                .map(|a| {
                    (
                        Cow::Owned(a.name.local.to_string()),
                        Cow::Owned(a.value.to_string()),
                    )
                })
                .collect(),
            line: self.line.get(),
        }));
        self.names.borrow_mut().insert(id, name);
        if flags.template {
            let contents = self.orphan(Node::Document);
            self.templates.borrow_mut().insert(id, contents);
        }
        id
    }

    fn create_comment(&self, _text: StrTendril) -> NodeId {
        self.orphan(Node::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.orphan(Node::Other)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        match child {
            NodeOrText::AppendNode(id) => {
                if id != *parent {
                    if let Some(mut p) = self.tree.borrow_mut().get_mut(*parent) {
                        p.append_id(id);
                    }
                }
            }
            NodeOrText::AppendText(text) => {
                let last = self
                    .tree
                    .borrow()
                    .get(*parent)
                    .and_then(|p| p.last_child())
                    .map(|c| c.id());
                if !self.extend_text(last, &text) {
                    if let Some(mut p) = self.tree.borrow_mut().get_mut(*parent) {
                        p.append(text_node(&text));
                    }
                }
            }
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent = self
            .tree
            .borrow()
            .get(*element)
            .is_some_and(|e| e.parent().is_some());
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {
        self.tree.borrow_mut().root_mut().append(Node::Other);
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.templates
            .borrow()
            .get(target)
            .copied()
            .unwrap_or(*target)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeId, child: NodeOrText<NodeId>) {
        let (has_parent, prev) = match self.tree.borrow().get(*sibling) {
            Some(s) => (s.parent().is_some(), s.prev_sibling().map(|p| p.id())),
            None => return,
        };
        if !has_parent {
            return;
        }
        match child {
            NodeOrText::AppendNode(id) => {
                if id != *sibling {
                    if let Some(mut s) = self.tree.borrow_mut().get_mut(*sibling) {
                        s.insert_id_before(id);
                    }
                }
            }
            NodeOrText::AppendText(text) => {
                if !self.extend_text(prev, &text) {
                    if let Some(mut s) = self.tree.borrow_mut().get_mut(*sibling) {
                        s.insert_before(text_node(&text));
                    }
                }
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        let mut tree = self.tree.borrow_mut();
        let Some(mut node) = tree.get_mut(*target) else {
            return;
        };
        if let Node::Element(el) = node.value() {
            for a in attrs {
                if !el.attrs.iter().any(|(k, _)| **k == *a.name.local) {
                    el.attrs.push((
                        Cow::Owned(a.name.local.to_string()),
                        Cow::Owned(a.value.to_string()),
                    ));
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &NodeId) {
        if let Some(mut node) = self.tree.borrow_mut().get_mut(*target) {
            node.detach();
        }
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        if node != new_parent {
            if let Some(mut p) = self.tree.borrow_mut().get_mut(*new_parent) {
                p.reparent_from_id_append(*node);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::dom::{find, El};
    use super::*;

    #[test]
    fn builds_the_standard_tree_with_lines_and_errors() {
        let (page, errors) =
            parse("<!DOCTYPE html>\n<p>a &amp; b\n<div id=x>c</div>\n<b><i>d</b>e</i>");
        let p = find(&page, |e| e.is("p")).expect("p");
        // The `div` start tag closes the open `p` (implied end tag).
        assert_eq!(p.text(), "a & b");
        assert_eq!(p.line(), 2);
        let div = find(&page, |e| e.is("div")).expect("div");
        assert_eq!((div.attr("id"), div.line()), (Some("x"), 3));
        // Misnested formatting: the adoption agency algorithm reparents.
        let body = find(&page, |e| e.is("body")).expect("body");
        let tags: Vec<&str> = body.descendant_elements().map(El::name).collect();
        assert_eq!(tags, ["p", "div", "b", "i", "i"]);
        assert!(!errors.is_empty());
        assert!(errors.iter().all(|e| e.line >= 1));
    }

    #[test]
    fn template_contents_and_noscript_markup() {
        let (page, _) = parse("<body><template><p>t</p></template><noscript><p>n</p></noscript>");
        let noscript = find(&page, |e| e.is("noscript")).expect("noscript");
        assert_eq!(noscript.elements().map(El::name).collect::<Vec<_>>(), ["p"]);
        // Template contents are a fragment of their own, outside the document's tree.
        assert!(find(&page, |e| e.is("p") && e.text() == "t").is_none());
        assert!(find(&page, |e| e.is("template")).is_some());
    }
}
