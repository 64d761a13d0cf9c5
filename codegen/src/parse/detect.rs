//! Content-based format detection.
//!
//! Looks at the first part of a document for markers each format has and the others lack:
//! HTML tags, C preprocessor lines with Doxygen comments, autodoc directives, raw RST field
//! lists (`:param`, `:returns:`) after Sphinx-rendered headings, or processed
//! `Parameters`/`Returns` blocks.

use crate::ir::Format;

/// Guesses the format of `text`, or `None` when no format's markers are present.
pub fn detect(text: &str) -> Option<Format> {
    // The first 200,000 characters, borrowed.
    let head = match text.char_indices().nth(200_000) {
        Some((end, _)) => &text[..end],
        None => text,
    };
    let lower_start: String = head
        .trim_start()
        .chars()
        .take(512)
        .collect::<String>()
        .to_ascii_lowercase();
    if lower_start.starts_with("<!doctype html") || lower_start.starts_with("<html") {
        return Some(Format::Html);
    }
    if is_doxygen_header(head) {
        return Some(Format::DoxygenHeader);
    }
    if head.contains("<div") && head.contains("</") {
        return Some(Format::Html);
    }
    let directives = head.lines().filter(|l| {
        let t = l.trim_start();
        t.starts_with(".. auto") || t.starts_with(".. c:function::")
    });
    if directives.take(1).count() == 1 && !head.lines().any(|l| l.ends_with(")#")) {
        return Some(Format::AutodocRst);
    }
    let rendered_heading = head.lines().any(|l| l.ends_with(")#"));
    if rendered_heading {
        let raw_rst = head.contains(":returns:")
            || head.contains(":param ")
            || head.contains(".. attribute::");
        let processed = head
            .lines()
            .any(|l| matches!(l.trim(), "Parameters" | "Returns" | "Return type"));
        if raw_rst {
            return Some(Format::BindingsText);
        }
        if processed {
            return Some(Format::CudartText);
        }
        return Some(Format::BindingsText);
    }
    None
}

/// A C header with Doxygen comments: preprocessor lines (`#include`, `#define`, `#if…`) and
/// a `/**` or `/*!` comment that is not a banner.
fn is_doxygen_header(head: &str) -> bool {
    let preprocessor = head.lines().any(|l| {
        let t = l.trim_start();
        ["#include", "#define", "#ifndef", "#if ", "#if("]
            .iter()
            .any(|p| t.starts_with(p))
    });
    let doxygen = head.match_indices("/*").any(|(at, _)| {
        let rest = &head.as_bytes()[at + 2..];
        matches!(rest, [b'*', c, ..] if *c != b'*' && *c != b'/') || rest.first() == Some(&b'!')
    });
    preprocessor && doxygen
}
