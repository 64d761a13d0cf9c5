//! The walk over a Sphinx page: article → sections, headings and `dl.py` objects → blocks.
//!
//! The main content is the first `article` (the PyData/NVIDIA theme, furo), else the element
//! with `itemprop="articleBody"` (`sphinx_rtd_theme`), else the one with `role="main"`, else
//! `div.body` (alabaster, classic themes), else `body` with a warning; everything outside it
//! (navigation, sidebars, search, header and footer) is never visited.
//!
//! Inside it, in document order:
//! - `h1`…`h6` → a [`Heading`] of that level, its title without the permalink
//!   (`a.headerlink`, whatever mark the theme puts in it);
//! - `section`, `div.section`, and any other `div` that holds headings, sections or objects
//!   (a theme's wrapper) → walked into;
//! - `dl.py` (function, method, class, exception, data, attribute, property) → an [`Object`]
//!   per `dt.sig`; the `dd` gives its docstring. In a `dd`, a nested `dl.py` that shows a
//!   value (`X = <E.X: 3>`, enum members) or is a class becomes an object of its own after its
//!   parent (as the text rendering lists it); a nested attribute without a value becomes an
//!   `.. attribute::` entry of the parent's docstring and a nested method a `.. method::` one;
//! - a `dl` of another Sphinx domain (`c`, `cpp`, `js`) is reported and skipped;
//! - any other content goes to the block before it (heading intro or docstring), as in the
//!   text rendering.
//!
//! Every block's [`Source`] has the element path from the article (`section[1]/section[3]/dl[12]`)
//! and the line where the element's start tag ends. Which parser built the tree does not
//! matter here.

use ego_tree::NodeRef;

use super::dom::{self, El, Node, Page};
use super::fields;
use super::flow::{self, Renderer};
use super::sig::{self, Sig};
use crate::diag::{Diagnostics, Severity};
use crate::ir::Source;
use crate::parse::blocks::{Block, Heading, Object, ObjectKind};
use crate::parse::unread::{self, Runs};

/// Deepest element nesting followed; deeper content is reported and skipped.
const MAX_DEPTH: usize = 64;

/// Walks the main content of `page` into blocks.
pub fn blocks(page: &Page<'_>, diags: &mut Diagnostics) -> Vec<Block<'static>> {
    let file = diags.file().to_string();
    let whole = Source {
        file: file.clone(),
        line: 1,
        path: None,
    };
    let Some(main) = dom::main_content(page) else {
        diags.at(Severity::Error, &whole, "the page has no body to read");
        return Vec::new();
    };
    if main.is("body") {
        diags.at(
            Severity::Warning,
            &whole,
            "no main content element (`article`, `role=\"main\"`, `div.body`); reading the whole body",
        );
    }
    let mut w = Walker {
        file,
        blocks: Vec::new(),
        flow: Renderer::new(),
        diags,
        depth_reported: false,
        flow_depth_reported: false,
    };
    w.container(main, "", 0);
    // A stray end tag (`</article>`, `</main>`, a few `</div>`) closes the main content early,
    // and the standard's tree builder puts the rest of the page after it: the objects there
    // are read too, and said.
    // Everything up to the last node holding an object (sections without objects between
    // them included; the page's chrome after them, such as a sidebar, left out).
    let mut after = following(main.node());
    let last = after.iter().rposition(|n| holds_objects(*n));
    after.truncate(last.map_or(0, |l| l + 1));
    after.retain(|n| El::wrap(*n).is_some());
    if let Some(first) = after.first().and_then(|n| El::wrap(*n)) {
        let src = w.source("", first.line());
        w.diags.at(
            Severity::Warning,
            &src,
            format!(
                "{} element(s) after the end of the main content (`<{}>`) hold API objects: a stray end tag closed it early? They are read as part of it",
                after.len(),
                main.name()
            ),
        );
        w.container_children(after, "", 1);
    }
    w.flush();
    if !w.blocks.iter().any(|b| matches!(b, Block::Object(_))) {
        w.diags.at(
            Severity::Error,
            &whole,
            "no Sphinx Python API objects (`dl.py` with `dt.sig`) found in the page",
        );
    }
    w.blocks
}

/// The nodes after `node` in document order that are not inside it, as whole subtrees: its
/// following siblings, then its parent's, and so on up to the root.
fn following<'a, 't>(node: NodeRef<'a, Node<'t>>) -> Vec<NodeRef<'a, Node<'t>>> {
    let mut out = Vec::new();
    let mut at = Some(node);
    while let Some(n) = at {
        out.extend(n.next_siblings());
        at = n.parent();
    }
    out
}

/// Whether `div` is a section (`div.section`, docutils' HTML 4) or a wrapper a theme puts
/// around sections and objects: it holds a heading, a `section` or an API object.
fn holds_structure(div: El<'_, '_>) -> bool {
    div.has_class("section")
        || div.descendant_elements().any(|e| {
            e.heading_level().is_some() || e.is("section") || (e.is("dt") && e.has_class("sig"))
        })
}

/// Whether the subtree of `node` holds an API object (`dl` with a `dt.sig`).
fn holds_objects(node: NodeRef<'_, Node<'_>>) -> bool {
    node.descendants()
        .filter_map(El::wrap)
        .any(|e| e.is("dt") && e.has_class("sig"))
}

/// Sibling counters for element paths (`dl[12]`).
#[derive(Default)]
struct Siblings(Vec<(String, u32)>);

impl Siblings {
    fn path(&mut self, parent: &str, tag: &str) -> String {
        let n = match self.0.iter_mut().find(|(t, _)| t == tag) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.0.push((tag.to_string(), 1));
                1
            }
        };
        if parent.is_empty() {
            format!("{tag}[{n}]")
        } else {
            format!("{parent}/{tag}[{n}]")
        }
    }
}

struct Walker<'d> {
    file: String,
    blocks: Vec<Block<'static>>,
    /// Content waiting to be added to the last block.
    flow: Renderer,
    diags: &'d mut Diagnostics,
    depth_reported: bool,
    flow_depth_reported: bool,
}

impl Walker<'_> {
    fn source(&self, path: &str, line: u32) -> Source {
        Source {
            file: self.file.clone(),
            line,
            path: Some(path.to_string()),
        }
    }

    /// Reports content `renderer` read as plain text because it was nested too deep.
    fn report_depth(&mut self, renderer_too_deep: Option<u32>) {
        if let Some(line) = renderer_too_deep {
            if !self.flow_depth_reported {
                self.flow_depth_reported = true;
                let src = Source::new(self.file.clone(), line);
                self.diags.at(
                    Severity::Warning,
                    &src,
                    format!(
                        "content nested deeper than {} levels is read as plain text",
                        flow::MAX_DEPTH
                    ),
                );
            }
        }
    }

    /// Adds the pending content to the last block.
    fn flush(&mut self) {
        let lines = self.flow.take();
        let deep = self.flow.take_too_deep();
        self.report_depth(deep);
        if lines.iter().all(|l| l.text.trim().is_empty()) {
            return;
        }
        let doc = match self.blocks.last_mut() {
            Some(Block::Heading(h)) => &mut h.intro,
            Some(Block::Object(o)) => &mut o.doc,
            None => {
                let mut runs = Runs::new();
                for l in &lines {
                    runs.unread(l.line, &l.text);
                }
                let src = Source::new(self.file.clone(), 1);
                unread::report(
                    self.diags,
                    &src,
                    "text before the first heading or object",
                    &runs.into_runs(),
                );
                return;
            }
        };
        doc.extend(lines);
    }

    fn too_deep(&mut self, depth: usize, path: &str, line: u32) -> bool {
        if depth <= MAX_DEPTH {
            return false;
        }
        if !self.depth_reported {
            self.depth_reported = true;
            let src = self.source(path, line);
            self.diags.at(
                Severity::Warning,
                &src,
                format!("elements nested deeper than {MAX_DEPTH} levels are skipped"),
            );
        }
        true
    }

    /// Walks a section-like container: headings, objects, nested sections and content.
    fn container(&mut self, el: El<'_, '_>, path: &str, depth: usize) {
        if self.too_deep(depth, path, el.line()) {
            return;
        }
        self.container_children(structural_children(el), path, depth);
    }

    /// [`Self::container`] over a list of nodes (a container's children, or what lies after
    /// the main content).
    fn container_children(
        &mut self,
        children: Vec<NodeRef<'_, Node<'_>>>,
        path: &str,
        depth: usize,
    ) {
        let mut siblings = Siblings::default();
        for child in children {
            let Some(c) = El::wrap(child) else {
                if let Node::Text(_) = child.value() {
                    self.flow.node(child, 0);
                }
                continue;
            };
            let tag = c.name();
            let here = siblings.path(path, tag);
            if let Some(level) = c.heading_level() {
                self.flush();
                let source = self.source(&here, c.line());
                let (title, permalink) = c.text_without_permalinks();
                // A mark written as plain text (no `a.headerlink`) is a permalink too.
                let title = if permalink {
                    title
                } else {
                    title.trim_end_matches(['#', '¶']).trim_end().to_string()
                };
                self.blocks.push(Block::Heading(Heading {
                    title: title.into(),
                    level,
                    intro: Vec::new(),
                    source,
                }));
            } else if tag == "section" || (tag == "div" && holds_structure(c)) {
                self.flush();
                self.container(c, &here, depth + 1);
            } else if tag == "dl" && is_object(c) {
                self.flush();
                self.object(c, &here, depth + 1, false);
            } else {
                self.flow.node(child, 0);
            }
        }
    }

    /// Walks a `dl` describing one object (or reports one of another domain); `nested` when
    /// it lies in the body of another object.
    fn object(&mut self, dl: El<'_, '_>, path: &str, depth: usize, nested: bool) {
        if self.too_deep(depth, path, dl.line()) {
            return;
        }
        let kind = if dl.has_class("py") {
            sig::kind_of(dl)
        } else {
            None
        };
        let Some((kind, what)) = kind else {
            let classes: Vec<&str> = dl.classes().collect();
            let src = self.source(path, dl.line());
            self.diags.at(
                Severity::Warning,
                &src,
                format!(
                    "object `dl.{}` is not a Python function, class or data object; skipped",
                    classes.join(".")
                ),
            );
            return;
        };
        let mut siblings = Siblings::default();
        let mut open = false;
        for c in structural_children(dl).into_iter().filter_map(El::wrap) {
            let tag = c.name();
            let here = siblings.path(path, tag);
            match tag {
                "dt" => {
                    self.flush();
                    let source = self.source(&here, c.line());
                    match sig::read(c) {
                        Ok(s) => {
                            open = true;
                            self.blocks.push(Block::Object(Object {
                                kind,
                                signature: s.text().into(),
                                doc: Vec::new(),
                                source,
                                in_class: Some(nested),
                            }));
                        }
                        Err(e) => {
                            open = false;
                            self.diags
                                .at(Severity::Error, &source, format!("{what} skipped: {e}"));
                        }
                    }
                }
                "dd" if open => self.body(c, &here, depth + 1),
                "dd" => {}
                _ => self.flow.node(c.node(), 0),
            }
        }
        self.flush();
    }

    /// Walks the `dd` of an object: its docstring and nested objects.
    fn body(&mut self, dd: El<'_, '_>, path: &str, depth: usize) {
        if self.too_deep(depth, path, dd.line()) {
            return;
        }
        let mut siblings = Siblings::default();
        for child in structural_children(dd) {
            let Some(c) = El::wrap(child) else {
                self.flow.node(child, 0);
                continue;
            };
            let here = siblings.path(path, c.name());
            if !(c.is("dl") && is_object(c) && c.has_class("py")) {
                self.flow.node(child, 0);
                continue;
            }
            match sig::kind_of(c) {
                Some((ObjectKind::Data, _)) if !nested_has_value(c) => {
                    self.member_entry(c, &here, false)
                }
                Some((ObjectKind::Function, _)) => self.member_entry(c, &here, true),
                _ => {
                    self.flush();
                    self.object(c, &here, depth + 1, true);
                }
            }
        }
    }

    /// A nested attribute (without value) or method as an `.. attribute::`/`.. method::`
    /// entry of the current docstring.
    fn member_entry(&mut self, dl: El<'_, '_>, path: &str, method: bool) {
        let sig = match elements(dl).find(|e| e.is("dt")).map(sig::read) {
            Some(Ok(sig)) => sig,
            Some(Err(e)) => {
                let src = self.source(path, dl.line());
                return self
                    .diags
                    .at(Severity::Error, &src, format!("member skipped: {e}"));
            }
            None => return,
        };
        let head = if method {
            let params = sig.params.clone().unwrap_or_default().join(", ");
            format!(".. method:: {}({params})", sig.short())
        } else {
            format!(".. attribute:: {}", sig.short())
        };
        self.flow.raw(0, [fields::line(head, dl.line())]);
        let mut inner = Renderer::new();
        for dd in elements(dl).filter(|e| e.is("dd")) {
            inner.children(dd, 3);
        }
        let mut lines = inner.take();
        self.report_depth(inner.take_too_deep());
        if !method
            && !lines
                .iter()
                .any(|l| l.text.trim_start().starts_with(":type:"))
        {
            if let Some(ty) = sig.annotation() {
                lines.push(fields::line(format!("   :type: {ty}"), dl.line()));
            }
        }
        self.flow.raw(0, lines);
    }
}

/// The formatting elements of HTML (`b`, `i`, `code`, …): the standard's tree builder
/// reopens one left unclosed around the content of every block after it, so that a stray
/// `<b>` in one docstring wraps the `dt` and `dd` of every later object.
const FORMATTING: &[&str] = &[
    "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
];

/// Block elements, which no formatting element holds in a well-formed page.
fn is_structural(el: El<'_, '_>) -> bool {
    matches!(
        el.name(),
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "dd"
            | "details"
            | "div"
            | "dl"
            | "dt"
            | "figure"
            | "footer"
            | "header"
            | "hr"
            | "li"
            | "main"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "table"
            | "ul"
    ) || el.heading_level().is_some()
}

/// Whether `el` is a formatting element wrapped around structure (see [`FORMATTING`]).
fn is_wrapper(el: El<'_, '_>) -> bool {
    FORMATTING.contains(&el.name())
        && el
            .elements()
            .any(|c| is_structural(c) || (FORMATTING.contains(&c.name()) && is_wrapper(c)))
}

/// The children of `el`, with every formatting element wrapped around structure replaced by
/// its own children (recursively): what the page means, whatever a stray tag did to the tree.
fn structural_children<'a, 't>(el: El<'a, 't>) -> Vec<NodeRef<'a, Node<'t>>> {
    let mut out = Vec::new();
    let mut stack: Vec<NodeRef<'a, Node<'t>>> = el.children().collect();
    stack.reverse();
    while let Some(n) = stack.pop() {
        match El::wrap(n) {
            Some(c) if is_wrapper(c) => {
                let before = stack.len();
                stack.extend(c.children());
                stack[before..].reverse();
            }
            _ => out.push(n),
        }
    }
    out
}

/// The element children of `el`, through formatting wrappers ([`structural_children`]).
fn elements<'a, 't>(el: El<'a, 't>) -> impl Iterator<Item = El<'a, 't>> {
    structural_children(el).into_iter().filter_map(El::wrap)
}

/// Whether `dl` describes an object: it has a `dt` with the `sig` class.
fn is_object(dl: El<'_, '_>) -> bool {
    elements(dl).any(|e| e.is("dt") && e.has_class("sig"))
}

/// Whether a nested data `dl` shows a value (enum members do).
fn nested_has_value(dl: El<'_, '_>) -> bool {
    elements(dl)
        .find(|e| e.is("dt"))
        .and_then(|dt| sig::read(dt).ok())
        .is_some_and(|s: Sig| s.has_value())
}
