//! The walk over a Sphinx page: article → sections, headings and `dl.py` objects → blocks.
//!
//! The main content is the first `article` (the PyData/NVIDIA theme), else the element with
//! `role="main"`, else `div.body` (classic themes), else `body` with a warning; everything
//! outside it (navigation, sidebars, search, header and footer) is never visited.
//!
//! Inside it, in document order:
//! - `h1`…`h6` → a [`Heading`] of that level; its `section`'s `id` gives its line;
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
//! and a best-effort line from [`super::locate`].

use scraper::node::Node;
use scraper::{ElementRef, Html};

use super::dom::{self, has_class};
use super::flow::Renderer;
use super::locate::Locator;
use super::sig::{self, Sig};
use crate::diag::{Diagnostics, Severity};
use crate::ir::Source;
use crate::parse::blocks::{Block, DocLine, Heading, Object, ObjectKind};

/// Deepest element nesting followed; deeper content is reported and skipped.
const MAX_DEPTH: usize = 64;

/// Most HTML parse errors quoted in the diagnostic that counts them.
const QUOTED_PARSE_ERRORS: usize = 3;

/// Parses `text` and walks its main content into blocks.
pub fn blocks(text: &str, diags: &mut Diagnostics) -> Vec<Block<'static>> {
    let html = match article_only(text) {
        Some(article) => Html::parse_document(&article),
        None => Html::parse_document(text),
    };
    let file = diags.file().to_string();
    let page = Source {
        file: file.clone(),
        line: 1,
        path: None,
    };
    if !html.errors.is_empty() {
        let quoted: Vec<&str> = html
            .errors
            .iter()
            .take(QUOTED_PARSE_ERRORS)
            .map(|e| e.as_ref())
            .collect();
        diags.at(
            Severity::Note,
            &page,
            format!(
                "the HTML parser recovered from {} error(s): {}",
                html.errors.len(),
                quoted.join("; ")
            ),
        );
    }
    if !text.trim_end().to_ascii_lowercase().ends_with("</html>") {
        diags.at(
            Severity::Warning,
            &page,
            "the page does not end with `</html>`; it may be truncated, and its last object incomplete",
        );
    }
    let Some(main) = main_content(&html) else {
        diags.at(Severity::Error, &page, "the page has no body to read");
        return Vec::new();
    };
    if dom::is(main, "body") {
        diags.at(
            Severity::Warning,
            &page,
            "no main content element (`article`, `role=\"main\"`, `div.body`); reading the whole body",
        );
    }
    let mut w = Walker {
        file,
        locate: Locator::new(text),
        blocks: Vec::new(),
        flow: Renderer::new(),
        diags,
        stray_reported: false,
        depth_reported: false,
    };
    w.container(main, "", 0);
    w.flush();
    if !w.blocks.iter().any(|b| matches!(b, Block::Object(_))) {
        w.diags.at(
            Severity::Error,
            &page,
            "no Sphinx Python API objects (`dl.py` with `dt.sig`) found in the page",
        );
    }
    w.blocks
}

/// When the page has one `<article>`…`</article>` span, that span as a document of its own:
/// the theme's navigation, sidebars and search around it are never parsed (about a fifth of
/// a Sphinx page). A literal `</article>` cannot occur inside the article's text, where `<` is
/// escaped, so the span ends at the last one. `None` (parse everything) otherwise.
fn article_only(text: &str) -> Option<String> {
    const OPEN: &str = "<article";
    const CLOSE: &str = "</article>";
    let start = text.find(OPEN)?;
    let end = text.rfind(CLOSE)? + CLOSE.len();
    if end <= start
        || text[start + OPEN.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
    {
        return None;
    }
    Some(format!(
        "<!DOCTYPE html><html><body>{}</body></html>",
        &text[start..end]
    ))
}

/// The element holding the page's article.
fn main_content(html: &Html) -> Option<ElementRef<'_>> {
    let mut role_main = None;
    let mut div_body = None;
    let mut body = None;
    for el in html.root_element().descendent_elements() {
        let name = el.value().name();
        if name == "article" {
            return Some(el);
        }
        if role_main.is_none() && el.value().attr("role") == Some("main") {
            role_main = Some(el);
        }
        if div_body.is_none() && name == "div" && has_class(el, "body") {
            div_body = Some(el);
        }
        if body.is_none() && name == "body" {
            body = Some(el);
        }
    }
    role_main.or(div_body).or(body)
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

struct Walker<'t, 'd> {
    file: String,
    locate: Locator<'t>,
    blocks: Vec<Block<'static>>,
    /// Content waiting to be added to the last block.
    flow: Renderer,
    diags: &'d mut Diagnostics,
    stray_reported: bool,
    depth_reported: bool,
}

impl Walker<'_, '_> {
    fn source(&mut self, path: &str, id: Option<&str>) -> Source {
        Source {
            file: self.file.clone(),
            line: id.map_or(0, |id| self.locate.line_of_id(id)),
            path: Some(path.to_string()),
        }
    }

    /// Adds the pending content to the last block.
    fn flush(&mut self) {
        let lines = self.flow.take();
        if lines.iter().all(|l| l.trim().is_empty()) {
            return;
        }
        let doc = match self.blocks.last_mut() {
            Some(Block::Heading(h)) => &mut h.intro,
            Some(Block::Object(o)) => &mut o.doc,
            None => {
                if !self.stray_reported {
                    self.stray_reported = true;
                    let src = Source::new(self.file.clone(), 0);
                    self.diags.at(
                        Severity::Warning,
                        &src,
                        "text before the first heading or object is ignored",
                    );
                }
                return;
            }
        };
        doc.extend(lines.into_iter().map(|text| DocLine {
            text: text.into(),
            line: 0,
        }));
    }

    fn too_deep(&mut self, depth: usize, path: &str) -> bool {
        if depth <= MAX_DEPTH {
            return false;
        }
        if !self.depth_reported {
            self.depth_reported = true;
            let src = self.source(path, None);
            self.diags.at(
                Severity::Warning,
                &src,
                format!("elements nested deeper than {MAX_DEPTH} levels are skipped"),
            );
        }
        true
    }

    /// Walks a section-like container: headings, objects, nested sections and content.
    fn container(&mut self, el: ElementRef<'_>, path: &str, depth: usize) {
        if self.too_deep(depth, path) {
            return;
        }
        let mut siblings = Siblings::default();
        for child in el.children() {
            let Some(c) = ElementRef::wrap(child) else {
                if let Node::Text(_) = child.value() {
                    self.flow.node(child, 0);
                }
                continue;
            };
            let tag = c.value().name();
            let here = siblings.path(path, tag);
            if let Some(level) = dom::heading_level(c) {
                self.flush();
                let source = self.source(&here, el.value().id());
                let title = dom::text(c);
                let title = title.trim_end_matches('#').trim_end().to_string();
                self.blocks.push(Block::Heading(Heading {
                    title: title.into(),
                    level,
                    intro: Vec::new(),
                    source,
                }));
            } else if tag == "section" || (tag == "div" && has_class(c, "section")) {
                self.flush();
                self.container(c, &here, depth + 1);
            } else if tag == "dl" && is_object(c) {
                self.flush();
                self.object(c, &here, depth + 1);
            } else {
                self.flow.node(child, 0);
            }
        }
    }

    /// Walks a `dl` describing one object (or reports one of another domain).
    fn object(&mut self, dl: ElementRef<'_>, path: &str, depth: usize) {
        if self.too_deep(depth, path) {
            return;
        }
        let kind = if has_class(dl, "py") {
            sig::kind_of(dl)
        } else {
            None
        };
        let Some((kind, what)) = kind else {
            let classes: Vec<&str> = dl.value().classes().collect();
            let src = self.source(path, None);
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
        for c in dom::elements(dl) {
            let tag = c.value().name();
            let here = siblings.path(path, tag);
            match tag {
                "dt" => {
                    self.flush();
                    let source = self.source(&here, c.value().id());
                    match sig::read(c) {
                        Ok(s) => {
                            open = true;
                            self.blocks.push(Block::Object(Object {
                                kind,
                                signature: s.text().into(),
                                doc: Vec::new(),
                                source,
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
                _ => self.flow.node(*c, 0),
            }
        }
        self.flush();
    }

    /// Walks the `dd` of an object: its docstring and nested objects.
    fn body(&mut self, dd: ElementRef<'_>, path: &str, depth: usize) {
        if self.too_deep(depth, path) {
            return;
        }
        let mut siblings = Siblings::default();
        for child in dd.children() {
            let Some(c) = ElementRef::wrap(child) else {
                self.flow.node(child, 0);
                continue;
            };
            let here = siblings.path(path, c.value().name());
            if !(dom::is(c, "dl") && is_object(c) && has_class(c, "py")) {
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
                    self.object(c, &here, depth + 1);
                }
            }
        }
    }

    /// A nested attribute (without value) or method as an `.. attribute::`/`.. method::`
    /// entry of the current docstring.
    fn member_entry(&mut self, dl: ElementRef<'_>, path: &str, method: bool) {
        let sig = match dom::elements(dl).find(|e| dom::is(*e, "dt")).map(sig::read) {
            Some(Ok(sig)) => sig,
            Some(Err(e)) => {
                let src = self.source(path, None);
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
        self.flow.raw(0, [head]);
        let mut inner = Renderer::new();
        for dd in dom::elements(dl).filter(|e| dom::is(*e, "dd")) {
            inner.children(dd, 3);
        }
        let mut lines = inner.take();
        if !method && !lines.iter().any(|l| l.trim_start().starts_with(":type:")) {
            if let Some(ty) = sig.annotation() {
                lines.push(format!("   :type: {ty}"));
            }
        }
        self.flow.raw(0, lines);
    }
}

/// Whether `dl` describes an object: it has a `dt` with the `sig` class.
fn is_object(dl: ElementRef<'_>) -> bool {
    dom::elements(dl).any(|e| dom::is(e, "dt") && has_class(e, "sig"))
}

/// Whether a nested data `dl` shows a value (enum members do).
fn nested_has_value(dl: ElementRef<'_>) -> bool {
    dom::elements(dl)
        .find(|e| dom::is(*e, "dt"))
        .and_then(|dt| sig::read(dt).ok())
        .is_some_and(|s: Sig| s.has_value())
}

#[cfg(test)]
mod tests {
    use super::article_only;

    #[test]
    fn only_the_article_is_parsed_when_there_is_one() {
        let page = "<html><nav>menu</nav><article class=\"a\"><p>x &lt;/article&gt;</p></article><aside>toc</aside></html>";
        let slice = article_only(page).expect("an article");
        assert!(slice.contains("<article class=\"a\">") && slice.contains("&lt;/article&gt;"));
        assert!(!slice.contains("menu") && !slice.contains("toc"));
        assert_eq!(
            article_only("<html><div role=\"main\">x</div></html>"),
            None
        );
        assert_eq!(article_only("<articles>x</article>"), None);
        assert_eq!(article_only("<article>cut off"), None);
    }
}
