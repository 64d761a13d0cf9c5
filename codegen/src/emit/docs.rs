//! Rustdoc for emitted items: converting documentation text with [`crate::rustdoc`],
//! assembling the sections of a function's docs, and turning Markdown into `#[doc]`
//! attributes. Every comment built here is also checked with [`crate::rustdoc::check`];
//! problems are collected for the run's diagnostics.

use proc_macro2::TokenStream;
use quote::quote;

use crate::rustdoc::{self, Links};

/// `md` with `note` as a paragraph of its own before the first section heading (`# Arguments`,
/// `# Safety`, …) outside code blocks, or at the end when there is none: the description, then
/// notes such as the releases that declare the item, then the sections.
pub fn with_note(md: &str, note: &str) -> String {
    if note.is_empty() {
        return md.to_string();
    }
    let mut fenced = false;
    let mut at = None;
    let mut offset = 0;
    for line in md.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced && t.starts_with("# ") && offset > 0 {
            at = Some(offset);
            break;
        }
        offset += line.len();
    }
    let (head, tail) = md.split_at(at.unwrap_or(md.len()));
    let head = head.trim_end();
    let mut out = String::with_capacity(md.len() + note.len() + 4);
    out.push_str(head);
    if !head.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(note);
    if !tail.is_empty() {
        out.push_str("\n\n");
        out.push_str(tail);
    }
    out
}

/// The availability note of an item: the releases of its major that declare it
/// ([`crate::availability::Since::sentence`]), or nothing for an item without a mark.
pub fn since_note(since: Option<&crate::availability::Since>) -> String {
    since
        .map(crate::availability::Since::sentence)
        .unwrap_or_default()
}

/// Collects Markdown problems found while building docs.
#[derive(Debug, Default)]
pub struct DocProblems(pub Vec<String>);

/// The documentation of one item for the formatted file: `///` lines for `markdown` (blank
/// lines before and after the text left out), exactly as prettyplease prints one
/// `#[doc = "..."]` attribute per line.
///
/// The tokens hold one short `#[doc]` attribute with a marker (a control character and a
/// number) instead of the text: escaping every line into a string literal, parsing it back
/// with syn and printing it with prettyplease was a large part of a codegen run, for text that
/// comes out as it went in. [`super::files::format_file`] puts the lines back in place of the
/// marker, at its indentation ([`expand_markers`]).
pub fn attrs(markdown: &str) -> TokenStream {
    match marker(markdown, "///") {
        Some(marker) => quote! { #[doc = #marker] },
        None => TokenStream::new(),
    }
}

/// [`attrs`] as a syntax tree (for items built without tokens): the marker attribute, or
/// `None` for empty documentation.
pub fn attr_syntax(markdown: &str) -> Option<syn::Attribute> {
    let marker = marker(markdown, "///")?;
    let value = syn::Expr::Lit(syn::ExprLit {
        attrs: Vec::new(),
        lit: syn::Lit::Str(syn::LitStr::new(&marker, proc_macro2::Span::call_site())),
    });
    Some(syn::Attribute {
        pound_token: Default::default(),
        style: syn::AttrStyle::Outer,
        bracket_token: Default::default(),
        meta: syn::Meta::NameValue(syn::MetaNameValue {
            path: syn::Path::from(proc_macro2::Ident::new(
                "doc",
                proc_macro2::Span::call_site(),
            )),
            eq_token: Default::default(),
            value,
        }),
    })
}

/// The marker text standing for `markdown`'s lines as doc comments starting `comment`
/// (`///` or `//!`; kept until expanded), or `None` for empty documentation.
fn marker(markdown: &str, comment: &str) -> Option<String> {
    let mut block = String::with_capacity(markdown.len() + markdown.len() / 8 + 16);
    // Blank lines seen since the last line with text: written only if text follows (none
    // at either end).
    let mut blanks: Vec<&str> = Vec::new();
    let mut started = false;
    let line = |block: &mut String, l: &str| {
        let l = l.trim_end_matches(' ');
        block.push_str(comment);
        if !l.is_empty() {
            block.push(' ');
        }
        block.push_str(l);
        block.push('\n');
    };
    for l in crate::text::lines(markdown) {
        if l.trim().is_empty() {
            if started {
                blanks.push(l);
            }
            continue;
        }
        for b in blanks.drain(..) {
            line(&mut block, b);
        }
        line(&mut block, l);
        started = true;
    }
    if !started {
        return None;
    }
    Some(format!("{DOC_MARKER}{}", stash(block)))
}

/// What starts the text of a marker attribute (see [`attrs`]); documentation never holds it.
const DOC_MARKER: char = '\u{1}';
const _: () = assert!(DOC_MARKER.is_ascii(), "searched for as one byte");

/// The text blocks markers stand for ([`attrs`], [`super::files::comment`]), by marker
/// number; each is taken when expanded.
static BLOCKS: std::sync::Mutex<Vec<Option<String>>> = std::sync::Mutex::new(Vec::new());

/// Keeps `text` for a marker until it is expanded; returns the marker's number.
pub fn stash(text: String) -> usize {
    let mut table = BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    table.push(Some(text));
    table.len() - 1
}

/// The text kept under marker number `id`, once (`None` for an unknown or expanded marker).
pub fn take(id: usize) -> Option<String> {
    let mut table = BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    table.get_mut(id)?.take()
}

/// `text` (formatted by prettyplease) with every `///<marker>` or `//!<marker>` line replaced
/// by the block it stands for, each line at the marker's indentation; `None` if a marker is
/// unknown (a block expanded twice) or was printed as tokens (inside a macro call): a bug of
/// the emitter.
pub fn expand_markers(text: &str) -> Option<String> {
    // A marker attribute left as tokens (inside a macro call, which prettyplease prints
    // verbatim) would lose its text: refuse it.
    // The searches are memchr's (the text is a whole file; each search starts a line).
    if memchr::memmem::find(text.as_bytes(), b"\\u{1}").is_some() {
        return None;
    }
    let marker_byte = DOC_MARKER as u8;
    let find_marker = |s: &str| memchr::memchr(marker_byte, s.as_bytes());
    if find_marker(text).is_none() {
        return Some(text.to_string());
    }
    // `///` or `//!`, then the marker.
    let prefix_len = 3 + DOC_MARKER.len_utf8();
    let mut out = String::with_capacity(text.len() * 2);
    // From marker to marker (text between them is copied at once).
    let mut rest = text;
    while let Some(mark) = find_marker(rest) {
        let line_end =
            memchr::memchr(b'\n', &rest.as_bytes()[mark..]).map_or(rest.len(), |i| mark + i + 1);
        let at = mark.saturating_sub(3);
        let commented = matches!(rest.get(at..mark), Some("///" | "//!"));
        let line_start = memchr::memrchr(b'\n', &rest.as_bytes()[..at]).map_or(0, |i| i + 1);
        let indent = &rest[line_start..at];
        if !commented || !indent.chars().all(char::is_whitespace) {
            // Not a doc comment line made of a marker: kept as it is.
            out.push_str(&rest[..line_end]);
            rest = &rest[line_end..];
            continue;
        }
        out.push_str(&rest[..line_start]);
        let id: usize = rest[at + prefix_len..line_end].trim_end().parse().ok()?;
        let block = take(id)?;
        if indent.is_empty() {
            out.push_str(&block);
        } else {
            for l in block.split_inclusive('\n') {
                out.push_str(indent);
                out.push_str(l);
            }
        }
        rest = &rest[line_end..];
    }
    out.push_str(rest);
    Some(out)
}

/// The inner documentation (`//!` lines) for `markdown`: like [`attrs`], one `#![doc]`
/// attribute with a marker that [`expand_markers`] replaces with the lines.
pub fn inner_attrs(markdown: &str) -> TokenStream {
    match marker(markdown, "//!") {
        Some(marker) => quote! { #![doc = #marker] },
        None => TokenStream::new(),
    }
}

/// Converts RST `text` to Markdown, checks it, and records problems under `item`.
pub fn markdown(text: &str, links: &dyn Links, item: &str, problems: &mut DocProblems) -> String {
    let c = rustdoc::convert(text, links);
    for p in rustdoc::check(&c.markdown) {
        problems.0.push(format!("{item}: {p}"));
    }
    c.markdown
}

/// The first sentence of `text` (for short descriptions such as error meanings).
pub fn first_sentence(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.find(". ") {
        Some(end) => flat[..=end].to_string(),
        None => flat,
    }
}

/// A "See also" list of links.
pub fn see_also(names: &[String], links: &dyn Links) -> String {
    if names.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(16 + names.len() * 64);
    out.push_str("# See also\n");
    for n in names {
        out.push_str("\n- ");
        rustdoc::push_ref(&mut out, n, links);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outer_and_inner_markers_become_their_lines_at_their_indentation() {
        let outer = marker("first line  \n\n  indented", "///").expect("text");
        let inner = marker("\n\nmodule text\n", "//!").expect("text");
        let text = format!(
            "//!{inner}\nmod m {{\n    ///{outer}\n    fn f() {{}}\n}}\nlet s = \"{DOC_MARKER}\";\n"
        );
        assert_eq!(
            expand_markers(&text).expect("known markers"),
            format!(
                "//! module text\nmod m {{\n    /// first line\n    ///\n    ///   indented\n    fn f() {{}}\n}}\nlet s = \"{DOC_MARKER}\";\n"
            )
        );
        // Each block is expanded once: a second expansion of the same marker is a bug.
        assert_eq!(expand_markers(&format!("///{outer}\n")), None);
        assert!(marker(" \n\n", "///").is_none());
    }
}
