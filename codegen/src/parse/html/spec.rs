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

/// Most parse errors kept one by one; the rest are only counted (a page of ten million `<`
/// makes ten million errors).
const KEPT_ERRORS: usize = 64;

/// Most attributes read on one start tag. html5ever checks each new attribute against the
/// ones before it (time quadratic in their number); real pages use a handful. The ones past
/// this bound are blanked out before parsing and reported.
pub const MAX_ATTRIBUTES: usize = 256;

/// Elements whose content is raw text up to their end tag: left unclosed, one swallows the
/// rest of the page.
const RAW_TEXT: &[&str] = &[
    "script", "style", "textarea", "title", "xmp", "noembed", "noframes", "iframe",
];

/// How many unclosed raw-text elements are recovered from (each costs one more parse).
const MAX_REPARSES: usize = 4;

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
    /// The parse errors html5ever recovered from (the first [`KEPT_ERRORS`]).
    pub errors: Vec<ParseError>,
    /// How many parse errors there were in all.
    pub error_count: usize,
    /// Start tags with more than [`MAX_ATTRIBUTES`] attributes: the line of each and how many
    /// attributes of it were not read.
    pub attributes_dropped: Vec<(u32, usize)>,
    /// Raw-text elements (`<script>`, `<style>`, …) left unclosed that would have swallowed
    /// the rest of the page: the line and name of each. The page was read as if its start tag
    /// were not there.
    pub unclosed_raw_text: Vec<(u32, String)>,
    /// The line where an element went deeper than [`MAX_DEPTH`]: the text was read up to the
    /// end of the chunk holding it, and not after.
    pub too_deep: Option<u32>,
}

/// Parses `text` as an HTML document. Start tags with more than [`MAX_ATTRIBUTES`] attributes
/// lose the ones past it; a raw-text element left unclosed whose text holds the page's
/// objects (`<dl`, `<dt`) is read as if its start tag were not there.
pub fn parse(text: &str) -> Parsed {
    let (mut text, attributes_dropped) = limit_attributes(text);
    let mut unclosed_raw_text = Vec::new();
    loop {
        let (page, errors, error_count, too_deep) = parse_once(&text);
        if unclosed_raw_text.len() < MAX_REPARSES {
            if let Some((line, name)) = swallowing_raw_text(&page) {
                if let Some(blanked) = blank_start_tag(&text, line, &name) {
                    unclosed_raw_text.push((line, name));
                    text = Cow::Owned(blanked);
                    continue;
                }
            }
        }
        return Parsed {
            page,
            errors,
            error_count,
            attributes_dropped,
            unclosed_raw_text,
            too_deep,
        };
    }
}

/// One html5ever run over `text`.
fn parse_once(text: &str) -> (Page<'static>, Vec<ParseError>, usize, Option<u32>) {
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
    let (page, errors, count) = parser.finish();
    (page, errors, count, too_deep.get())
}

/// The first raw-text element of `page` whose text holds markup of API objects (`<dl`,
/// `<dt`): left unclosed, it swallowed what followed. Its line and name.
fn swallowing_raw_text(page: &Page<'static>) -> Option<(u32, String)> {
    page.root().descendants().find_map(|n| match n.value() {
        Node::Element(el) if RAW_TEXT.contains(&&*el.name) => {
            let holds_objects = n.children().any(
                |c| matches!(c.value(), Node::Text(t) if t.contains("<dl") || t.contains("<dt")),
            );
            holds_objects.then(|| (el.line, el.name.to_string()))
        }
        _ => None,
    })
}

/// `text` with the last `<name …>` start tag that ends on line `line` (or the last one before
/// it) replaced by spaces (lines and offsets stay as they were).
fn blank_start_tag(text: &str, line: u32, name: &str) -> Option<String> {
    let b = text.as_bytes();
    // The end of line `line`.
    let mut end = 0;
    let mut seen = 1u32;
    while seen <= line {
        match memchr::memchr(b'\n', &b[end..]) {
            Some(k) => {
                end += k + 1;
                seen += 1;
            }
            None => {
                end = b.len();
                break;
            }
        }
    }
    let open = format!("<{name}");
    let at = memchr::memmem::rfind(&b[..end], open.as_bytes())?;
    let close = memchr::memchr(b'>', &b[at..]).map_or(b.len(), |k| at + k + 1);
    let mut out = Vec::with_capacity(b.len());
    out.extend_from_slice(&b[..at]);
    out.extend(
        b[at..close]
            .iter()
            .map(|&c| if c == b'\n' { b'\n' } else { b' ' }),
    );
    out.extend_from_slice(&b[close..]);
    // Only ASCII bytes of a tag were replaced, by ASCII: still UTF-8.
    String::from_utf8(out).ok()
}

/// `text` with the attributes past the [`MAX_ATTRIBUTES`]th of every start tag replaced by
/// spaces (newlines kept, so lines stay as they were), and where that happened: the line of
/// each such tag and how many attributes it lost. Borrowed when no tag has that many. One pass
/// over the text.
fn limit_attributes(text: &str) -> (Cow<'_, str>, Vec<(u32, usize)>) {
    let b = text.as_bytes();
    let mut blank: Vec<(usize, usize, u32, usize)> = Vec::new();
    let mut line = 1u32;
    let mut counted_to = 0;
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'<', &b[i..]) {
        let at = i + k;
        i = at + 1;
        if !b.get(at + 1).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        // The tag name, then its attributes up to `>`.
        let mut j = at + 1;
        while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b'>' && b[j] != b'/' {
            j += 1;
        }
        let mut count = 0usize;
        let mut cut_from = None;
        loop {
            while j < b.len() && (b[j].is_ascii_whitespace() || b[j] == b'/') {
                j += 1;
            }
            if j >= b.len() || b[j] == b'>' {
                break;
            }
            count += 1;
            if count == MAX_ATTRIBUTES + 1 {
                cut_from = Some(j);
            }
            while j < b.len() && !b[j].is_ascii_whitespace() && !matches!(b[j], b'>' | b'=' | b'/')
            {
                j += 1;
            }
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if b.get(j) == Some(&b'=') {
                j += 1;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                match b.get(j) {
                    Some(&q @ (b'"' | b'\'')) => {
                        j = memchr::memchr(q, &b[j + 1..]).map_or(b.len(), |e| j + 1 + e + 1);
                    }
                    _ => {
                        while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b'>' {
                            j += 1;
                        }
                    }
                }
            }
        }
        if let Some(from) = cut_from {
            line += memchr::memchr_iter(b'\n', &b[counted_to..at]).count() as u32;
            counted_to = at;
            blank.push((from, j.min(b.len()), line, count - MAX_ATTRIBUTES));
        }
        i = i.max(j);
    }
    if blank.is_empty() {
        return (Cow::Borrowed(text), Vec::new());
    }
    let mut out = b.to_vec();
    for &(from, to, _, _) in &blank {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    }
    let dropped = blank.iter().map(|&(_, _, l, n)| (l, n)).collect();
    // Whole attributes (ASCII-delimited) were replaced by ASCII spaces: still UTF-8.
    match String::from_utf8(out) {
        Ok(s) => (Cow::Owned(s), dropped),
        Err(_) => (Cow::Borrowed(text), Vec::new()),
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
    /// Parse errors in all (only the first [`KEPT_ERRORS`] are kept).
    error_count: Cell<usize>,
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
            error_count: Cell::new(0),
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
    type Output = (Page<'static>, Vec<ParseError>, usize);
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> Self::Output {
        (
            self.tree.into_inner(),
            self.errors.into_inner(),
            self.error_count.get(),
        )
    }

    fn parse_error(&self, message: Cow<'static, str>) {
        self.error_count.set(self.error_count.get() + 1);
        let mut errors = self.errors.borrow_mut();
        if errors.len() < KEPT_ERRORS {
            errors.push(ParseError {
                line: self.line.get(),
                message,
            });
        }
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
    fn attributes_past_the_bound_are_blanked_and_lines_kept() {
        let many: Vec<String> = (0..MAX_ATTRIBUTES + 3)
            .map(|i| format!("a{i}='{i}'"))
            .collect();
        let text = format!("<p>x</p>\n<div\n{}>y</div>", many.join("\n"));
        let (out, dropped) = limit_attributes(&text);
        assert_eq!(dropped, [(2, 3)]);
        assert_eq!(out.len(), text.len());
        assert_eq!(out.matches('\n').count(), text.matches('\n').count());
        assert!(out.contains("a255='255'") && !out.contains("a256="));
        let (same, none) = limit_attributes("<a href=x title=\"y > z\">t</a>");
        assert!(none.is_empty() && matches!(same, Cow::Borrowed(_)));
    }

    #[test]
    fn an_unclosed_script_holding_the_objects_is_read_as_markup() {
        let text = "<body><dl><dt>a</dt></dl>\n<script>\n<dl><dt>b</dt></dl></body>";
        let parsed = parse(text);
        assert_eq!(parsed.unclosed_raw_text, [(2, "script".to_string())]);
        let dts: Vec<String> = parsed
            .page
            .root()
            .descendants()
            .filter_map(El::wrap)
            .filter(|e| e.is("dt"))
            .map(|e| e.text())
            .collect();
        assert_eq!(dts, ["a", "b"]);
        // A script of code is code.
        assert!(parse("<script>var x = 1 < 2;</script><p>t</p>")
            .unclosed_raw_text
            .is_empty());
    }

    #[test]
    fn parse_errors_are_counted_past_the_ones_kept() {
        let parsed = parse(&"<<".repeat(1000));
        assert_eq!(parsed.errors.len(), KEPT_ERRORS);
        assert!(parsed.error_count >= 1000, "{}", parsed.error_count);
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
