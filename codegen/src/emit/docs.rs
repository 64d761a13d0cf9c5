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

/// `md` with the item's availability: an item newer than the major's first release gets its
/// mark (`Available since CUDA 13.1.`) as the first paragraph, where a reader sees it first
/// (as docs.rs shows `Available on crate feature …`), and where the module listing shows it;
/// an item of every release of the major gets its sentence as a note ([`with_note`]).
pub fn with_since(md: &str, since: Option<&crate::availability::Since>) -> String {
    match since {
        Some(s) if s.is_newer() => {
            let md = md.trim_start();
            if md.is_empty() {
                s.sentence()
            } else {
                format!("{}\n\n{md}", s.sentence())
            }
        }
        _ => with_note(md, &since_note(since)),
    }
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

/// The documentation of one item: one `#[doc]` attribute per line of `markdown` (blank lines
/// before and after the text left out), which prettyplease prints as `///` lines.
pub fn attrs(markdown: &str) -> TokenStream {
    let lines = doc_lines(markdown);
    quote! { #(#[doc = #lines])* }
}

/// [`attrs`] as syntax trees (for items built without tokens).
pub fn attr_syntax(markdown: &str) -> Vec<syn::Attribute> {
    doc_lines(markdown)
        .into_iter()
        .map(|line| syn::Attribute {
            pound_token: Default::default(),
            style: syn::AttrStyle::Outer,
            bracket_token: Default::default(),
            meta: syn::Meta::NameValue(syn::MetaNameValue {
                path: syn::Path::from(proc_macro2::Ident::new(
                    "doc",
                    proc_macro2::Span::call_site(),
                )),
                eq_token: Default::default(),
                value: syn::Expr::Lit(syn::ExprLit {
                    attrs: Vec::new(),
                    lit: syn::Lit::Str(syn::LitStr::new(&line, proc_macro2::Span::call_site())),
                }),
            }),
        })
        .collect()
}

/// The inner documentation (`//!` lines) for `markdown`: like [`attrs`], one `#![doc]`
/// attribute per line.
pub fn inner_attrs(markdown: &str) -> TokenStream {
    let lines = doc_lines(markdown);
    quote! { #(#![doc = #lines])* }
}

/// The text of each doc attribute for `markdown`: each line after a space (an empty line
/// as an empty string), trailing spaces dropped; no blank lines at either end.
fn doc_lines(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Blank lines seen since the last line with text: kept only if text follows.
    let mut blanks = Vec::new();
    for l in crate::text::lines(markdown) {
        let l = l.trim_end_matches(' ');
        let text = if l.is_empty() {
            String::new()
        } else {
            format!(" {l}")
        };
        if l.trim().is_empty() {
            if !out.is_empty() {
                blanks.push(text);
            }
            continue;
        }
        out.append(&mut blanks);
        out.push(text);
    }
    out
}

/// Converts RST `text` to Markdown, checks it, and records problems under `item`.
pub fn markdown(text: &str, links: &dyn Links, item: &str, problems: &mut DocProblems) -> String {
    let c = rustdoc::convert(text, links);
    let md = without_lost_definitions(&c.markdown);
    for p in rustdoc::check(&md) {
        problems.0.push(format!("{item}: {p}"));
    }
    md
}

/// `md` without the sentences that announce a definition the documents do not carry ("The
/// `cudaChannelFormatDesc` is defined as:" where NVIDIA's pages had a C listing): a paragraph's
/// last sentence ending "defined as:" or "defined as follows:" with no code block after it is
/// dropped (the whole paragraph when it is that sentence alone).
fn without_lost_definitions(md: &str) -> String {
    const ENDINGS: [&str; 2] = ["defined as:", "defined as follows:"];
    if !ENDINGS.iter().any(|e| md.contains(e)) {
        return md.to_string();
    }
    let paragraphs: Vec<&str> = md.split("\n\n").collect();
    let mut kept: Vec<String> = Vec::with_capacity(paragraphs.len());
    for (i, para) in paragraphs.iter().enumerate() {
        let next_is_code = paragraphs
            .get(i + 1)
            .is_some_and(|n| n.starts_with("```") || n.starts_with("    "));
        let announces = ENDINGS.iter().any(|e| para.trim_end().ends_with(e));
        if !announces || next_is_code || para.starts_with("```") {
            kept.push((*para).to_string());
            continue;
        }
        // The sentence starts after the last full stop followed by white space.
        let start = para
            .char_indices()
            .rev()
            .find(|&(k, c)| c == '.' && para[k + 1..].starts_with(char::is_whitespace))
            .map(|(k, _)| k + 1);
        if let Some(start) = start {
            kept.push(para[..start].to_string());
        }
    }
    kept.join("\n\n")
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
    fn each_line_is_one_doc_comment_line_at_its_indentation() {
        let attrs = attrs("\n\nfirst line  \n\n  indented\n\n");
        let inner = inner_attrs("module text");
        let file: syn::File = syn::parse2(quote! {
            #inner
            mod m {
                #attrs
                fn f() {}
            }
        })
        .expect("parses");
        assert_eq!(
            prettyplease::unparse(&file),
            "//! module text\nmod m {\n    /// first line\n    ///\n    ///   indented\n    fn f() {}\n}\n"
        );
        assert!(doc_lines(" \n\n").is_empty());
        assert_eq!(attr_syntax("a\n\nb").len(), 3);
    }

    #[test]
    fn a_definition_the_documents_lost_is_not_announced() {
        let md =
            "Allocates an array.\n\nThe `desc` is defined as:\n\nwhere `kind` is one of A or B.";
        assert_eq!(
            without_lost_definitions(md),
            "Allocates an array.\n\nwhere `kind` is one of A or B."
        );
        let md = "It takes a `desc`. The `desc` is defined as follows:\n\nNext.";
        assert_eq!(without_lost_definitions(md), "It takes a `desc`.\n\nNext.");
        let kept = "The `desc` is defined as:\n\n```c\nstruct desc;\n```";
        assert_eq!(without_lost_definitions(kept), kept);
    }
}
