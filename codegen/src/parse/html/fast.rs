//! The fast path: `tl` builds the page tree, and the tree is accepted only where `tl` and the
//! HTML standard must agree on it.
//!
//! `tl` (Astral's `astral-tl`) parses about eight times faster than html5ever, but it is not
//! the standard's parser: it drops an end tag that does not close the innermost element, drops
//! a `<` it cannot read, takes `<br/>` for an element named `br/`, and never closes an element
//! on its own. So this module reads the page up to its last `</article>` (the whole page when
//! it has none; the theme's footer after the article is never parsed) and then checks, in one
//! pass in document order, that the tree *tiles* that text:
//!
//! - every byte belongs to a node `tl` built: a start tag, an end tag `</name>` closing its
//!   own element, a text or a comment. A gap is something `tl` dropped, and refuses the page;
//! - every start tag has the strict form `<name attr="value" attr>` (or `/>` on a void
//!   element), read here independently; its name is the one `tl` read, and its attributes are
//!   taken from this reading, in source order, values decoded;
//! - comments are well formed, and the text has no NUL byte;
//! - the nesting stays in the [`super::subset`] where the standard's tree construction adds
//!   nothing of its own, and the page is `<html>` with an optional `<head>` then a `<body>`
//!   (elsewhere the standard moves content into an implied `body`);
//! - the page's `article`, when the text was cut after it, is closed.
//!
//! Text is decoded as the standard does (line endings normalised, character references
//! expanded with `htmlize`, none in `script`/`style`; a newline right after `<pre>` dropped).
//! A page that fails any check is not wrong: [`parse`] says why, with a line, and the caller
//! parses it with html5ever ([`super::spec`]). Nothing here reads what the page means.

use std::borrow::Cow;

use ego_tree::NodeId;
use tl::{NodeHandle, Parser};

use super::dom::{self, El, Element, Node, Page};
use super::subset::{self, Content, Open};

/// Why the fast path did not take a page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// 1-based line of the first construct it refused.
    pub line: u32,
    pub reason: String,
}

const ARTICLE_END: &str = "</article>";

/// Builds the page tree of `text` with `tl`, or says why the page needs the standard's parser.
pub fn parse(text: &str) -> Result<Page<'_>, Rejection> {
    let cut = text.rfind(ARTICLE_END).map(|i| i + ARTICLE_END.len());
    let range = &text[..cut.unwrap_or(text.len())];
    let bytes = range.as_bytes();
    if let Some(at) = memchr::memchr(0, bytes) {
        return Err(reject(
            bytes,
            at,
            "a NUL character, which the standard replaces or drops",
        ));
    }
    let dom = tl::parse(range, tl::ParserOptions::default()).map_err(|e| Rejection {
        line: 1,
        reason: format!("tl could not parse the page: {e:?}"),
    })?;
    let mut b = Builder {
        text: range,
        bytes,
        parser: dom.parser(),
        page: Page::with_capacity(Node::Document, dom.nodes().len() + 1),
        cursor: 0,
        lines: Lines::default(),
        open: Open::default(),
        unclosed: Vec::new(),
        seen_element: false,
    };
    b.build(dom.children())?;
    let Builder { page, unclosed, .. } = b;
    check_shape(&page)?;
    if cut.is_some() {
        match dom::find(&page, |e| e.is("article")) {
            Some(a) if unclosed.contains(&a.node().id()) => {
                return Err(Rejection {
                    line: a.line(),
                    reason: "the page's `<article>` is not closed by the last `</article>`".into(),
                })
            }
            Some(_) => {}
            None => {
                return Err(reject(
                    bytes,
                    bytes.len() - ARTICLE_END.len(),
                    "the page's last `</article>` closes no `<article>`",
                ))
            }
        }
    }
    Ok(page)
}

/// The page is `<html>` holding an optional `<head>` then a `<body>`, with only whitespace and
/// comments around them: everywhere else the standard moves content into an implied `body`.
fn check_shape(page: &Page<'_>) -> Result<(), Rejection> {
    fn blank(node: ego_tree::NodeRef<'_, Node<'_>>) -> bool {
        match node.value() {
            Node::Text(t) => t.bytes().all(subset::is_space),
            Node::Element(_) => false,
            Node::Document | Node::Other => true,
        }
    }
    let refuse = |line: u32, what: &str| Rejection {
        line: line.max(1),
        reason: format!("{what}: the standard builds the page's `body` around such content"),
    };
    let mut html = None;
    for node in page.root().children().filter(|n| !blank(*n)) {
        match El::wrap(node) {
            Some(e) if e.is("html") && html.is_none() => html = Some(e),
            Some(e) => {
                return Err(refuse(
                    e.line(),
                    &format!("`<{}>` outside `<html>`", e.name()),
                ))
            }
            None => return Err(refuse(1, "text outside `<html>`")),
        }
    }
    let Some(html) = html else {
        return Err(refuse(1, "no `<html>` element"));
    };
    let mut body = false;
    let mut head = false;
    for node in html.children().filter(|n| !blank(*n)) {
        match El::wrap(node) {
            Some(e) if e.is("head") && !head && !body => head = true,
            Some(e) if e.is("body") && !body => body = true,
            Some(e) => {
                return Err(refuse(
                    e.line(),
                    &format!("`<{}>` directly inside `<html>`", e.name()),
                ))
            }
            None => return Err(refuse(html.line(), "text directly inside `<html>`")),
        }
    }
    if !body {
        return Err(refuse(html.line(), "no `<body>` element"));
    }
    Ok(())
}

/// A rejection at byte `at` of `bytes`.
fn reject(bytes: &[u8], at: usize, reason: impl Into<String>) -> Rejection {
    Rejection {
        line: 1 + line_breaks(bytes, 0, at.min(bytes.len())),
        reason: reason.into(),
    }
}

/// Line breaks in `bytes[from..to]` as the standard counts them: LF, CR LF, and a lone CR.
fn line_breaks(bytes: &[u8], from: usize, to: usize) -> u32 {
    let part = &bytes[from..to];
    let mut n = memchr::memchr_iter(b'\n', part).count();
    if memchr::memchr(b'\r', part).is_some() {
        n += memchr::memchr_iter(b'\r', part)
            .filter(|&i| bytes.get(from + i + 1) != Some(&b'\n'))
            .count();
    }
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Line numbers of increasing byte offsets, counted incrementally.
#[derive(Default)]
struct Lines {
    at: usize,
    line: u32,
}

impl Lines {
    fn of(&mut self, bytes: &[u8], at: usize) -> u32 {
        if at >= self.at {
            self.line = self.line.saturating_add(line_breaks(bytes, self.at, at));
            self.at = at;
        }
        self.line + 1
    }
}

/// One open element of the walk: where its children are, where its end tag must be.
struct Frame<'t, 'p> {
    /// The element (`None` for the top level, whose nodes are `top`).
    tag: Option<&'p tl::HTMLTag<'t>>,
    top: &'p [NodeHandle],
    next: usize,
    id: NodeId,
    /// For a closed element: where its end tag starts and ends.
    end_tag: Option<(usize, usize)>,
    is_element: bool,
}

struct Builder<'t, 'p> {
    text: &'t str,
    bytes: &'t [u8],
    parser: &'p Parser<'t>,
    page: Page<'t>,
    /// Bytes before this offset are covered by the nodes built so far.
    cursor: usize,
    lines: Lines,
    open: Open<'t>,
    /// Elements without an end tag.
    unclosed: Vec<NodeId>,
    seen_element: bool,
}

impl<'t, 'p> Builder<'t, 'p> {
    fn build(&mut self, top: &'p [NodeHandle]) -> Result<(), Rejection> {
        let root = self.page.root().id();
        let mut stack = vec![Frame {
            tag: None,
            top,
            next: 0,
            id: root,
            end_tag: None,
            is_element: false,
        }];
        while let Some(frame) = stack.last_mut() {
            let handle = match frame.tag {
                Some(tag) => tag.children().top().get(frame.next).copied(),
                None => frame.top.get(frame.next).copied(),
            };
            let Some(handle) = handle else {
                // All children read: the end tag must follow.
                let (end_tag, is_element) = (frame.end_tag, frame.is_element);
                stack.pop();
                if let Some(end_tag) = end_tag {
                    self.end_tag(end_tag)?;
                }
                if is_element {
                    self.open.pop();
                }
                continue;
            };
            frame.next += 1;
            let (parent, first) = (frame.id, frame.next == 1);
            let node = handle.get(self.parser).ok_or_else(|| {
                reject(
                    self.bytes,
                    self.cursor,
                    "tl returned a node it does not hold",
                )
            })?;
            match node {
                tl::Node::Tag(tag) => {
                    if let Some(child) = self.element(tag, parent)? {
                        stack.push(child);
                    }
                }
                tl::Node::Raw(text) => self.text(text, parent, first)?,
                tl::Node::Comment(c) => self.comment(c, parent)?,
            }
        }
        if self.cursor < self.bytes.len() {
            return Err(self.gap(self.bytes.len()));
        }
        Ok(())
    }

    /// The text between two offsets (both on ASCII bytes of markup, so on char boundaries).
    fn str(&self, from: usize, to: usize) -> &'t str {
        self.text.get(from..to).unwrap_or("")
    }

    /// The offset of `slice`, which must start at the cursor: bytes tl skipped are refused,
    /// except a doctype before the first element (tl reads it without a node).
    fn place(&mut self, slice: &[u8]) -> Result<usize, Rejection> {
        let base = self.bytes.as_ptr() as usize;
        let at = (slice.as_ptr() as usize).wrapping_sub(base);
        if slice.is_empty() || at > self.bytes.len() || self.bytes.len() - at < slice.len() {
            return Err(reject(
                self.bytes,
                self.cursor,
                "a node tl could not delimit (an unterminated comment or tag)",
            ));
        }
        if at > self.cursor && !self.seen_element && self.open.parent().is_none() {
            self.skip_doctype();
        }
        if at < self.cursor {
            return Err(reject(self.bytes, at, "tl read the same text twice"));
        }
        if at > self.cursor {
            return Err(self.gap(at));
        }
        Ok(at)
    }

    /// A rejection for the bytes from the cursor to `to`, which tl did not build into the tree.
    fn gap(&self, to: usize) -> Rejection {
        let gap = &self.bytes[self.cursor..to.max(self.cursor)];
        let snippet: String = String::from_utf8_lossy(&gap[..gap.len().min(40)])
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        reject(
            self.bytes,
            self.cursor,
            format!(
                "`{snippet}` is not markup tl reads as the standard does \
                 (a stray or misnested end tag, or a `<` that opens no tag)"
            ),
        )
    }

    /// Steps the cursor over a doctype declaration at the cursor, if there is one.
    fn skip_doctype(&mut self) {
        let rest = &self.bytes[self.cursor..];
        if rest.len() < 9 || !rest[..9].eq_ignore_ascii_case(b"<!doctype") {
            return;
        }
        if let Some(close) = memchr::memchr(b'>', rest) {
            if memchr::memchr(b'<', &rest[1..close]).is_none() {
                self.cursor += close + 1;
            }
        }
    }

    fn element(
        &mut self,
        tag: &'p tl::HTMLTag<'t>,
        parent: NodeId,
    ) -> Result<Option<Frame<'t, 'p>>, Rejection> {
        let raw = tag.raw().as_bytes_borrowed().unwrap_or(&[]);
        let at = self.place(raw)?;
        self.seen_element = true;
        let bytes = self.bytes;
        let start = StartTag::read(bytes, at).map_err(|why| reject(bytes, at, why))?;
        let tl_name = tag.name().as_bytes();
        if tl_name != &bytes[at + 1..start.name_end] {
            let read = String::from_utf8_lossy(tl_name);
            return Err(reject(
                bytes,
                at,
                format!("tl reads the tag name as `{read}`"),
            ));
        }
        let name = ascii_lower(self.str(at + 1, start.name_end));
        self.open
            .check_start(&name)
            .map_err(|why| reject(bytes, at, why))?;
        let void = subset::is_void(&name);
        if start.self_closing && !void {
            return Err(reject(
                bytes,
                at,
                format!("`<{name}/>`: the standard ignores `/` on a non-void element and leaves it open"),
            ));
        }
        // The line of the tag's `>`, where html5ever reports it too.
        let line = self.lines.of(bytes, start.end - 1);
        let attrs = start
            .attrs
            .iter()
            .map(|&(k, v)| {
                (
                    ascii_lower(self.str(k.0, k.1)),
                    decode(self.str(v.0, v.1), Decode::Attribute),
                )
            })
            .collect();
        let element = Node::Element(Element {
            name: name.clone(),
            attrs,
            line,
        });
        let id = match self.page.get_mut(parent) {
            Some(mut p) => p.append(element).id(),
            None => return Err(reject(bytes, at, "lost the parent element")),
        };
        self.cursor = start.end;
        let end_tag = if raw.len() > start.end - at {
            // Closed: tl's span ends with this element's own `</name>`.
            let len = tl_name.len() + 3;
            let end = at + raw.len();
            let ok = raw.len() >= start.end - at + len
                && bytes[end - len..end - len + 2] == *b"</"
                && bytes[end - len + 2..end - 1] == *tl_name
                && bytes[end - 1] == b'>';
            if !ok {
                return Err(reject(
                    bytes,
                    at,
                    "tl closed the element with something other than its end tag",
                ));
            }
            Some((end - len, end))
        } else {
            if !void && !start.self_closing {
                self.unclosed.push(id);
            }
            None
        };
        if tag.children().top().is_empty() {
            if let Some(end_tag) = end_tag {
                self.end_tag(end_tag)?;
            }
            return Ok(None);
        }
        self.open.push(name);
        Ok(Some(Frame {
            tag: Some(tag),
            top: &[],
            next: 0,
            id,
            end_tag,
            is_element: true,
        }))
    }

    /// The children of the element being closed end where its end tag starts.
    fn end_tag(&mut self, (start, end): (usize, usize)) -> Result<(), Rejection> {
        if self.cursor != start {
            return Err(self.gap(start));
        }
        self.cursor = end;
        Ok(())
    }

    fn text(&mut self, text: &tl::Bytes<'t>, parent: NodeId, first: bool) -> Result<(), Rejection> {
        let raw = text.as_bytes_borrowed().unwrap_or(&[]);
        let at = self.place(raw)?;
        self.open
            .check_text(raw)
            .map_err(|why| reject(self.bytes, at, why))?;
        self.cursor = at + raw.len();
        let parent_name = self.open.parent().unwrap_or("");
        let how = match subset::content(parent_name) {
            Content::RawText => Decode::None,
            Content::Normal | Content::Rcdata => Decode::Text,
        };
        let mut decoded = decode(self.str(at, at + raw.len()), how);
        // The standard drops a newline right after `<pre>`.
        if first && parent_name == "pre" && decoded.starts_with('\n') {
            decoded = match decoded {
                Cow::Borrowed(s) => Cow::Borrowed(&s[1..]),
                Cow::Owned(s) => Cow::Owned(s[1..].to_string()),
            };
            if decoded.is_empty() {
                return Ok(());
            }
        }
        if let Some(mut p) = self.page.get_mut(parent) {
            p.append(Node::Text(decoded));
        }
        Ok(())
    }

    fn comment(&mut self, c: &tl::Bytes<'t>, parent: NodeId) -> Result<(), Rejection> {
        let raw = c.as_bytes_borrowed().unwrap_or(&[]);
        let at = self.place(raw)?;
        self.open
            .check_markup()
            .map_err(|why| reject(self.bytes, at, why))?;
        if !is_plain_comment(raw) {
            return Err(reject(
                self.bytes,
                at,
                "a comment the standard ends elsewhere than tl",
            ));
        }
        self.cursor = at + raw.len();
        if let Some(mut p) = self.page.get_mut(parent) {
            p.append(Node::Other);
        }
        Ok(())
    }
}

/// `<!--` body `-->` where the standard ends the comment at that `-->` as tl does: the body
/// does not start with `>` or `->`, and holds no `-->` or `--!>`.
fn is_plain_comment(raw: &[u8]) -> bool {
    let Some(body) = raw
        .strip_prefix(b"<!--")
        .and_then(|r| r.strip_suffix(b"-->"))
    else {
        return false;
    };
    !body.starts_with(b">")
        && !body.starts_with(b"->")
        && memchr::memmem::find(body, b"--!>").is_none()
        && memchr::memmem::find(&raw[4..], b"-->") == Some(body.len())
}

/// A start tag read by the strict grammar: `<` name (` `attr(`="v"`|`='v'`)?)* `/`? `>`.
struct StartTag {
    /// Offset just after the name.
    name_end: usize,
    /// Attribute names and raw values as byte ranges; the first of a repeated name only.
    attrs: Vec<((usize, usize), (usize, usize))>,
    self_closing: bool,
    /// Offset just after `>`.
    end: usize,
}

/// Bytes of names as both parsers read them (tl's identifier characters without `/`).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'+')
}

impl StartTag {
    fn read(bytes: &[u8], at: usize) -> Result<StartTag, String> {
        let byte = |i: usize| bytes.get(i).copied();
        let mut i = at + 1;
        if !byte(i).is_some_and(|b| b.is_ascii_alphabetic()) {
            return Err("a `<` that opens no tag".into());
        }
        while byte(i).is_some_and(is_name_byte) {
            i += 1;
        }
        let name_end = i;
        let mut attrs: Vec<((usize, usize), (usize, usize))> = Vec::new();
        let mut spaced = false;
        loop {
            while byte(i).is_some_and(subset::is_space) {
                spaced = true;
                i += 1;
            }
            match byte(i) {
                None => return Err("a start tag cut off by the end of the page".into()),
                Some(b'>') => {
                    return Ok(StartTag {
                        name_end,
                        attrs,
                        self_closing: false,
                        end: i + 1,
                    })
                }
                Some(b'/') if byte(i + 1) == Some(b'>') => {
                    return Ok(StartTag {
                        name_end,
                        attrs,
                        self_closing: true,
                        end: i + 2,
                    })
                }
                Some(_) if !spaced => return Err(
                    "a start tag that is not `<name attr=\"value\">` (tl would read it otherwise)"
                        .into(),
                ),
                Some(_) => {}
            }
            let key_start = i;
            while byte(i).is_some_and(is_name_byte) {
                i += 1;
            }
            if i == key_start {
                return Err("an attribute name with characters tl does not read".into());
            }
            let key = (key_start, i);
            // tl allows only spaces and newlines around `=`.
            let mut j = i;
            while matches!(byte(j), Some(b' ' | b'\n')) {
                j += 1;
            }
            let value = if byte(j) == Some(b'=') {
                j += 1;
                while matches!(byte(j), Some(b' ' | b'\n')) {
                    j += 1;
                }
                let quote = match byte(j) {
                    Some(q @ (b'"' | b'\'')) => q,
                    _ => return Err("an unquoted attribute value".into()),
                };
                let len = memchr::memchr(quote, &bytes[j + 1..]).ok_or_else(|| {
                    "an attribute value cut off by the end of the page".to_string()
                })?;
                let value = (j + 1, j + 1 + len);
                i = j + len + 2;
                spaced = false;
                if !matches!(byte(i), Some(b'>' | b'/')) && !byte(i).is_some_and(subset::is_space) {
                    return Err("an attribute value not followed by a space".into());
                }
                value
            } else {
                // tl skipped the spaces after a name without value.
                spaced = j > i;
                i = j;
                (key.1, key.1)
            };
            let name = &bytes[key.0..key.1];
            if !attrs
                .iter()
                .any(|&(k, _)| bytes[k.0..k.1].eq_ignore_ascii_case(name))
            {
                attrs.push((key, value));
            }
        }
    }
}

/// `s` in ASCII lower case, borrowed when already lower case.
fn ascii_lower(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(s.to_ascii_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

#[derive(Clone, Copy)]
enum Decode {
    /// Line endings only (`script`, `style`).
    None,
    Text,
    Attribute,
}

/// Text as the standard reads it: CR LF and CR become LF, then character references are
/// expanded (in attribute context, legacy references before `=` or alphanumerics are not).
fn decode(s: &str, how: Decode) -> Cow<'_, str> {
    let s: Cow<'_, str> = if memchr::memchr(b'\r', s.as_bytes()).is_some() {
        Cow::Owned(s.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(s)
    };
    if memchr::memchr(b'&', s.as_bytes()).is_none() {
        return s;
    }
    match how {
        Decode::None => s,
        Decode::Text => htmlize::unescape(s),
        Decode::Attribute => htmlize::unescape_attribute(s),
    }
}
