//! Rustdoc for emitted items: converting documentation text with [`crate::rustdoc`],
//! assembling the sections of a function's docs, and turning Markdown into `#[doc]`
//! attributes. Every comment built here is also checked with [`crate::rustdoc::check`];
//! problems are collected for the run's diagnostics.

use proc_macro2::TokenStream;
use quote::quote;

use crate::rustdoc::{self, Links};

/// Collects Markdown problems found while building docs.
#[derive(Debug, Default)]
pub struct DocProblems(pub Vec<String>);

/// `#[doc = "..."]` attributes for `markdown`, one per line (prettyplease prints `///`);
/// blank lines before and after the text are left out.
pub fn attrs(markdown: &str) -> TokenStream {
    let lines = doc_lines(markdown);
    quote! { #(#[doc = #lines])* }
}

/// `#![doc = "..."]` inner attributes for `markdown` (prettyplease prints `//!`).
pub fn inner_attrs(markdown: &str) -> TokenStream {
    let lines = doc_lines(markdown);
    quote! { #(#![doc = #lines])* }
}

/// The lines of `markdown` as doc-attribute strings (a leading space before each non-empty
/// line), without blank lines at either end.
fn doc_lines(markdown: &str) -> Vec<String> {
    let lines: Vec<&str> = markdown.lines().collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Vec::new();
    };
    lines[first..=last]
        .iter()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!(" {l}")
            }
        })
        .collect()
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
    let items: Vec<String> = names
        .iter()
        .map(|n| match links.resolve(n) {
            Some(p) => format!("- [`{n}`]({p})"),
            None => format!("- `{n}`"),
        })
        .collect();
    format!("# See also\n\n{}", items.join("\n"))
}
