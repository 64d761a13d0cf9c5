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
//! the parse errors html5ever reports are returned with their lines. Node handles are indices
//! into the sink's own tables, so html5ever's frequent element-name lookups are a vector index.
//! Nesting deeper than [`MAX_DEPTH`] ends the reading (see there). It does not decide what is
//! the page's main content.

use foldhash::HashMap;
use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};
use std::rc::Rc;

use ego_tree::NodeId;
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeBuilderOpts, TreeSink};
use html5ever::{Attribute, ParseOpts, QualName};

use super::dom::{Element, Node, Page};

/// Deepest element nesting read. The standard's tree builder walks its stack of open elements
/// for many start tags ("has a `p` element in button scope"), so unclosed nesting costs time
/// in proportion to its depth for every tag: quadratic without a bound. Browsers bound the
/// depth of the tree too (Chromium at 512). A page nested deeper is read up to the tag that
/// went past the bound, and the rest is reported as not read.
pub const MAX_DEPTH: u32 = 512;

/// Bytes given to html5ever at a time; the depth bound is checked between chunks, so the work
/// after the bound is passed is at most one chunk's (some 800 more start tags).
const CHUNK: usize = 4 * 1024;

/// A parse error html5ever recovered from, with the line it was at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub message: Cow<'static, str>,
}

/// What [`parse`] built.
#[derive(Debug)]
pub struct Parsed {
    /// The tree (of the whole text, or up to [`Parsed::too_deep`]).
    pub page: Page<'static>,
    /// The parse errors html5ever recovered from.
    pub errors: Vec<ParseError>,
    /// The line where an element went deeper than [`MAX_DEPTH`]: the text was read up to the
    /// end of the chunk holding it, and not after.
    pub too_deep: Option<u32>,
}

/// Parses `text` as an HTML document.
pub fn parse(text: &str) -> Parsed {
    let opts = ParseOpts {
        tree_builder: TreeBuilderOpts {
            scripting_enabled: false,
            ..TreeBuilderOpts::default()
        },
        ..ParseOpts::default()
    };
    let too_deep = Rc::new(Cell::new(None));
    let mut parser = html5ever::parse_document(Sink::new(Rc::clone(&too_deep)), opts);
    let mut rest = text;
    while !rest.is_empty() && too_deep.get().is_none() {
        let mut cut = rest.len().min(CHUNK);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (chunk, after) = rest.split_at(cut);
        parser.process(StrTendril::from_slice(chunk));
        rest = after;
    }
    let (page, errors) = parser.finish();
    Parsed {
        page,
        errors,
        too_deep: too_deep.get(),
    }
}

/// A node handle: the index of the node in the sink's tables, in creation order. Looking a
/// name up is a vector index (html5ever asks for element names on every scope check).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Handle(usize);

struct Sink {
    tree: RefCell<Page<'static>>,
    /// The tree node of each handle.
    ids: RefCell<Vec<NodeId>>,
    /// Element names as html5ever needs them back (namespace included); `None` for other nodes.
    names: RefCell<Vec<Option<QualName>>>,
    /// Depth of each node below the document (or below its template's contents).
    depth: RefCell<Vec<u32>>,
    /// The contents fragment of each `template` element.
    templates: RefCell<HashMap<Handle, Handle>>,
    line: Cell<u32>,
    errors: RefCell<Vec<ParseError>>,
    /// Set (with the line) when an element is placed deeper than [`MAX_DEPTH`].
    too_deep: Rc<Cell<Option<u32>>>,
    /// Answer of `elem_name` for a handle that is not an element (html5ever never asks).
    unnamed: RefCell<QualName>,
}

impl Sink {
    fn new(too_deep: Rc<Cell<Option<u32>>>) -> Self {
        let tree = Page::new(Node::Document);
        let root = tree.root().id();
        Sink {
            tree: RefCell::new(tree),
            ids: RefCell::new(vec![root]),
            names: RefCell::new(vec![None]),
            depth: RefCell::new(vec![0]),
            templates: RefCell::new(HashMap::default()),
            line: Cell::new(1),
            errors: RefCell::new(Vec::new()),
            too_deep,
            unnamed: RefCell::new(QualName::new(
                None,
                html5ever::ns!(html),
                html5ever::local_name!(""),
            )),
        }
    }

    fn orphan(&self, node: Node<'static>, name: Option<QualName>) -> Handle {
        let id = self.tree.borrow_mut().orphan(node).id();
        let mut ids = self.ids.borrow_mut();
        ids.push(id);
        self.names.borrow_mut().push(name);
        self.depth.borrow_mut().push(0);
        Handle(ids.len() - 1)
    }

    /// The tree node of `h` (every handle is one this sink made).
    fn id(&self, h: Handle) -> Option<NodeId> {
        self.ids.borrow().get(h.0).copied()
    }

    /// How deep `h` sits (0 for the document and for nodes not placed yet).
    fn depth_of(&self, h: Handle) -> u32 {
        self.depth.borrow().get(h.0).copied().unwrap_or(0)
    }

    /// Records that `child` now sits at `depth`, and whether that passes the bound.
    fn place(&self, child: Handle, depth: u32) {
        if let Some(d) = self.depth.borrow_mut().get_mut(child.0) {
            *d = depth;
        }
        if depth > MAX_DEPTH && self.too_deep.get().is_none() {
            self.too_deep.set(Some(self.line.get()));
        }
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
    type Handle = Handle;
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

    fn get_document(&self) -> Handle {
        Handle(0)
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> Ref<'a, QualName> {
        Ref::filter_map(self.names.borrow(), |names| {
            names.get(target.0).and_then(Option::as_ref)
        })
        .unwrap_or_else(|_| self.unnamed.borrow())
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle {
        let element = Node::Element(Element {
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
        });
        let h = self.orphan(element, Some(name));
        if flags.template {
            let contents = self.orphan(Node::Document, None);
            self.templates.borrow_mut().insert(h, contents);
        }
        h
    }

    fn create_comment(&self, _text: StrTendril) -> Handle {
        self.orphan(Node::Other, None)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> Handle {
        self.orphan(Node::Other, None)
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        let Some(parent_id) = self.id(*parent) else {
            return;
        };
        match child {
            NodeOrText::AppendNode(h) => {
                if h != *parent {
                    if let (Some(id), Some(mut p)) =
                        (self.id(h), self.tree.borrow_mut().get_mut(parent_id))
                    {
                        p.append_id(id);
                    }
                    self.place(h, self.depth_of(*parent) + 1);
                }
            }
            NodeOrText::AppendText(text) => {
                let last = self
                    .tree
                    .borrow()
                    .get(parent_id)
                    .and_then(|p| p.last_child())
                    .map(|c| c.id());
                if !self.extend_text(last, &text) {
                    if let Some(mut p) = self.tree.borrow_mut().get_mut(parent_id) {
                        p.append(text_node(&text));
                    }
                }
            }
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev_element: &Handle,
        child: NodeOrText<Handle>,
    ) {
        let has_parent = self.id(*element).is_some_and(|id| {
            self.tree
                .borrow()
                .get(id)
                .is_some_and(|e| e.parent().is_some())
        });
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(&self, _: StrTendril, _: StrTendril, _: StrTendril) {
        self.tree.borrow_mut().root_mut().append(Node::Other);
    }

    fn get_template_contents(&self, target: &Handle) -> Handle {
        let contents = self.templates.borrow().get(target).copied();
        match contents {
            Some(c) => {
                // The fragment's children sit as deep as if they were the template's.
                self.place(c, self.depth_of(*target));
                c
            }
            None => *target,
        }
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &Handle, child: NodeOrText<Handle>) {
        let Some(sibling_id) = self.id(*sibling) else {
            return;
        };
        let (has_parent, prev) = match self.tree.borrow().get(sibling_id) {
            Some(s) => (s.parent().is_some(), s.prev_sibling().map(|p| p.id())),
            None => return,
        };
        if !has_parent {
            return;
        }
        match child {
            NodeOrText::AppendNode(h) => {
                if h != *sibling {
                    if let (Some(id), Some(mut s)) =
                        (self.id(h), self.tree.borrow_mut().get_mut(sibling_id))
                    {
                        s.insert_id_before(id);
                    }
                    self.place(h, self.depth_of(*sibling));
                }
            }
            NodeOrText::AppendText(text) => {
                if !self.extend_text(prev, &text) {
                    if let Some(mut s) = self.tree.borrow_mut().get_mut(sibling_id) {
                        s.insert_before(text_node(&text));
                    }
                }
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        let Some(id) = self.id(*target) else {
            return;
        };
        let mut tree = self.tree.borrow_mut();
        let Some(mut node) = tree.get_mut(id) else {
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

    fn remove_from_parent(&self, target: &Handle) {
        if let Some(id) = self.id(*target) {
            if let Some(mut node) = self.tree.borrow_mut().get_mut(id) {
                node.detach();
            }
        }
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        if node != new_parent {
            if let (Some(from), Some(to)) = (self.id(*node), self.id(*new_parent)) {
                if let Some(mut p) = self.tree.borrow_mut().get_mut(to) {
                    p.reparent_from_id_append(from);
                }
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
        let Parsed { page, errors, .. } =
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
        let page = parse("<body><template><p>t</p></template><noscript><p>n</p></noscript>").page;
        let noscript = find(&page, |e| e.is("noscript")).expect("noscript");
        assert_eq!(noscript.elements().map(El::name).collect::<Vec<_>>(), ["p"]);
        // Template contents are a fragment of their own, outside the document's tree.
        assert!(find(&page, |e| e.is("p") && e.text() == "t").is_none());
        assert!(find(&page, |e| e.is("template")).is_some());
    }
}
