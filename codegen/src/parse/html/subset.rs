//! The elements and nestings on which `tl`'s tree and the HTML standard's tree agree.
//!
//! `tl` builds its tree with a plain stack: a start tag opens an element, a matching end tag
//! closes it. The standard's tree construction also closes and moves elements on its own.
//! Given that every element in the page is closed by its own end tag (checked by
//! [`super::fast`]), the ways the two trees can still differ are the ones listed here, and
//! [`check_start`] refuses each of them:
//!
//! - elements with their own parsing or insertion rules: tables, forms controls (`select`,
//!   `option`), `template`, SVG and MathML, frames, ruby, `textarea`, `xmp`, `iframe`,
//!   `noembed`, `noframes`, `plaintext`, `listing`, `image`, `nobr`, scope markers (`applet`,
//!   `marquee`, `object`), legacy void elements `tl` does not know (`basefont`, `bgsound`,
//!   `frame`, `col`) — [`DENIED`];
//! - a start tag that closes an open `p` ([`closes_p`]) inside a `p`;
//! - `li` inside `li`, and `dd`/`dt` inside `dd`/`dt`, without a list-like element between;
//! - a heading directly inside a heading; `a` inside `a`; `form` inside `form`; `button` inside
//!   `button`;
//! - `html`, `head` or `body` anywhere but at the top; in `head`, anything but metadata (the
//!   page's overall shape, `html` › `head`? `body`, is checked by [`super::fast`]);
//! - markup inside `script`, `style` and `title` (their content is text to the standard);
//! - in a `noscript` in `head`, anything but `link`, `meta` and `style`.
//!
//! Pages outside this subset are not wrong: they go to html5ever ([`super::spec`]).

use std::borrow::Cow;

/// Elements whose tree construction `tl` does not reproduce, sorted.
pub const DENIED: &[&str] = &[
    "applet",
    "basefont",
    "bgsound",
    "caption",
    "col",
    "colgroup",
    "frame",
    "frameset",
    "iframe",
    "image",
    "isindex",
    "listing",
    "marquee",
    "math",
    "nobr",
    "noembed",
    "noframes",
    "object",
    "optgroup",
    "option",
    "plaintext",
    "rb",
    "rp",
    "rt",
    "rtc",
    "select",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "tr",
    "xmp",
];

/// Whether `name` is one of the [`DENIED`] elements (kept sorted for this search).
pub fn denied(name: &str) -> bool {
    DENIED.binary_search(&name).is_ok()
}

/// The HTML standard's ASCII whitespace (space, tab, LF, CR, form feed).
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\t' | b'\r' | b'\x0c')
}

/// How an element's content is tokenized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// Markup.
    Normal,
    /// Text, character references not decoded (`script`, `style`).
    RawText,
    /// Text, character references decoded (`title`).
    Rcdata,
}

/// How `name`'s content is tokenized.
pub fn content(name: &str) -> Content {
    match name {
        "script" | "style" => Content::RawText,
        "title" => Content::Rcdata,
        _ => Content::Normal,
    }
}

/// Void elements both `tl` and the standard close at once.
pub fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// Start tags that close an open `p` element.
pub fn closes_p(name: &str) -> bool {
    is_heading(name)
        || matches!(
            name,
            "address"
                | "article"
                | "aside"
                | "blockquote"
                | "center"
                | "details"
                | "dialog"
                | "dir"
                | "div"
                | "dl"
                | "fieldset"
                | "figcaption"
                | "figure"
                | "footer"
                | "header"
                | "hgroup"
                | "main"
                | "menu"
                | "nav"
                | "ol"
                | "p"
                | "search"
                | "section"
                | "summary"
                | "ul"
                | "pre"
                | "listing"
                | "form"
                | "li"
                | "dd"
                | "dt"
                | "plaintext"
                | "table"
                | "hr"
                | "xmp"
        )
}

/// The standard's "special" elements that stop the search for an open `li`, `dd` or `dt`
/// (all but `address`, `div` and `p`, which the search passes).
fn stops_list_item_search(name: &str) -> bool {
    is_heading(name)
        || matches!(
            name,
            "applet"
                | "area"
                | "article"
                | "aside"
                | "base"
                | "basefont"
                | "bgsound"
                | "blockquote"
                | "body"
                | "br"
                | "button"
                | "caption"
                | "center"
                | "col"
                | "colgroup"
                | "details"
                | "dir"
                | "dl"
                | "embed"
                | "fieldset"
                | "figcaption"
                | "figure"
                | "footer"
                | "form"
                | "frame"
                | "frameset"
                | "head"
                | "header"
                | "hgroup"
                | "hr"
                | "html"
                | "iframe"
                | "img"
                | "input"
                | "keygen"
                | "link"
                | "listing"
                | "main"
                | "marquee"
                | "menu"
                | "meta"
                | "nav"
                | "noembed"
                | "noframes"
                | "noscript"
                | "object"
                | "ol"
                | "param"
                | "plaintext"
                | "pre"
                | "script"
                | "search"
                | "section"
                | "select"
                | "source"
                | "style"
                | "summary"
                | "table"
                | "tbody"
                | "td"
                | "template"
                | "textarea"
                | "tfoot"
                | "th"
                | "thead"
                | "title"
                | "tr"
                | "track"
                | "ul"
                | "wbr"
                | "xmp"
        )
}

fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Elements the standard keeps in `head`.
fn head_content(name: &str) -> bool {
    matches!(
        name,
        "base" | "link" | "meta" | "title" | "noscript" | "style" | "script"
    )
}

/// Open elements the rules ask about, counted.
const COUNTED: [&str; 5] = ["p", "a", "form", "button", "head"];

/// The open elements around the current position, innermost last.
#[derive(Debug, Default)]
pub struct Open<'t> {
    names: Vec<Cow<'t, str>>,
    counts: [u32; COUNTED.len()],
}

impl<'t> Open<'t> {
    pub fn push(&mut self, name: Cow<'t, str>) {
        if let Some(i) = COUNTED.iter().position(|c| *c == name) {
            self.counts[i] += 1;
        }
        self.names.push(name);
    }

    pub fn pop(&mut self) {
        if let Some(name) = self.names.pop() {
            if let Some(i) = COUNTED.iter().position(|c| *c == name) {
                self.counts[i] -= 1;
            }
        }
    }

    /// The innermost open element.
    pub fn parent(&self) -> Option<&str> {
        self.names.last().map(|n| &**n)
    }

    /// Whether an element `name` (one of [`COUNTED`]) is open.
    fn inside(&self, name: &str) -> bool {
        COUNTED
            .iter()
            .position(|c| *c == name)
            .is_some_and(|i| self.counts[i] > 0)
    }

    /// Whether markup (an element or a comment) may appear here.
    pub fn check_markup(&self) -> Result<(), String> {
        match self.parent() {
            Some(p) if content(p) != Content::Normal => Err(format!(
                "markup inside `<{p}>`, whose content the standard reads as text"
            )),
            _ => Ok(()),
        }
    }

    /// Whether text may appear here (only whitespace in `head`; `html` is checked with the
    /// page's shape).
    pub fn check_text(&self, text: &[u8]) -> Result<(), String> {
        let blank = text.iter().copied().all(is_space);
        match self.parent() {
            Some("head") if !blank => {
                Err("text directly inside `<head>`, which the standard moves into `body`".into())
            }
            Some("noscript") if self.inside("head") && !blank => {
                Err("text inside a `<noscript>` in `head`".to_string())
            }
            _ => Ok(()),
        }
    }

    /// Whether a start tag `name` here builds the same tree in `tl` and in the standard.
    pub fn check_start(&self, name: &str) -> Result<(), String> {
        self.check_markup()?;
        if denied(name) {
            return Err(format!(
                "`<{name}>`, whose tree the standard builds by rules of its own"
            ));
        }
        let parent = self.parent();
        match name {
            "html" if parent.is_some() => return Err("`<html>` inside another element".into()),
            "head" | "body" if !matches!(parent, None | Some("html")) => {
                return Err(format!("`<{name}>` inside `<{}>`", parent.unwrap_or("")))
            }
            _ => {}
        }
        if parent == Some("head") && !head_content(name) {
            return Err(format!("`<{name}>` inside `<head>`, which it closes"));
        }
        if parent == Some("noscript")
            && self.inside("head")
            && !matches!(name, "link" | "meta" | "style")
        {
            return Err(format!("`<{name}>` inside a `<noscript>` in `head`"));
        }
        if closes_p(name) && self.inside("p") {
            return Err(format!("`<{name}>` inside `<p>`, which it closes"));
        }
        let items: &[&str] = match name {
            "li" => &["li"],
            "dd" | "dt" => &["dd", "dt"],
            _ => &[],
        };
        if !items.is_empty() {
            for open in self.names.iter().rev().map(|n| &**n) {
                if items.contains(&open) {
                    return Err(format!("`<{name}>` inside `<{open}>`, which it closes"));
                }
                if stops_list_item_search(open) {
                    break;
                }
            }
        }
        if is_heading(name) && parent.is_some_and(is_heading) {
            return Err(format!(
                "`<{name}>` directly inside a heading, which it closes"
            ));
        }
        if matches!(name, "a" | "form" | "button") && self.inside(name) {
            return Err(format!("`<{name}>` inside `<{name}>`"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(names: &[&'static str]) -> Open<'static> {
        let mut o = Open::default();
        for n in names {
            o.push(Cow::Borrowed(n));
        }
        o
    }

    #[test]
    fn denied_names_are_sorted_for_the_search() {
        assert!(DENIED.windows(2).all(|w| w[0] < w[1]));
        assert!(denied("table") && denied("applet") && denied("xmp") && !denied("div"));
    }

    #[test]
    fn accepts_the_sphinx_shapes() {
        let ok = [
            (
                &["html", "body", "article", "section", "dl", "dd"][..],
                "div",
            ),
            (&["html", "body", "div", "p"], "code"),
            (&["ul", "li", "ul"], "li"),
            (&["dl", "dd", "dl"], "dt"),
            (&["html", "head"], "meta"),
            (&["html", "head", "noscript"], "style"),
            (&["body", "div", "p"], "a"),
            (&[], "html"),
            (&["html"], "body"),
        ];
        for (names, name) in ok {
            assert_eq!(open(names).check_start(name), Ok(()), "{names:?} <{name}>");
        }
    }

    #[test]
    fn refuses_what_the_standard_rebuilds() {
        let refused = [
            (&["body", "p"][..], "div"),
            (&["body", "p", "span"], "ul"),
            (&["ul", "li", "span"], "li"),
            (&["ul", "li", "div"], "li"),
            (&["dl", "dt"], "dd"),
            (&["h2"], "h3"),
            (&["a", "em"], "a"),
            (&["body"], "table"),
            (&["body"], "svg"),
            (&["body"], "body"),
            (&["div"], "html"),
            (&["html", "head"], "div"),
            (&["html", "head", "noscript"], "p"),
            (&["body", "script"], "b"),
            (&["form", "div"], "form"),
        ];
        for (names, name) in refused {
            assert!(open(names).check_start(name).is_err(), "{names:?} <{name}>");
        }
        assert!(open(&["html", "head"]).check_text(b"x").is_err());
        assert!(open(&["html", "head"]).check_text(b" \n").is_ok());
        assert!(open(&["body", "style"]).check_markup().is_err());
    }
}
