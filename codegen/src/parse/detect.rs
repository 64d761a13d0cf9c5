//! Content-based format detection.
//!
//! Looks at the first part of a document for markers each format has and the others lack:
//! HTML tags, C preprocessor lines with Doxygen comments, autodoc directives, raw RST field
//! lists (`:param`, `:returns:`) after Sphinx-rendered signatures (ending in a permalink mark
//! such as `#` or `¶`, or, on a page without marks, several qualified `m.f(…)` lines), or
//! processed `Parameters`/`Returns` blocks.

use crate::ir::Format;

use super::permalink::{self, Permalink};

/// Signature lines without a permalink mark (`m.f(a)`) that make a text a rendered page.
const UNMARKED_SIGNATURES: usize = 3;

/// How much of a document detection reads: enough for every format's first markers.
const HEAD_BYTES: usize = 200_000;

/// Guesses the format of `text`, or `None` when no format's markers are present.
pub fn detect(text: &str) -> Option<Format> {
    // The first `HEAD_BYTES` (down to a character boundary), borrowed.
    let mut end = text.len().min(HEAD_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let start = head.trim_start();
    let start = start.get(..start.len().min(512)).unwrap_or(start);
    let lower_start = start.as_bytes().iter().take(16).map(u8::to_ascii_lowercase);
    let lower_start: Vec<u8> = lower_start.collect();
    if lower_start.starts_with(b"<!doctype html") || lower_start.starts_with(b"<html") {
        return Some(Format::Html);
    }
    // Every line-level marker, in one pass over the head's lines.
    let mut preprocessor = false;
    let mut directive = false;
    let mut rendered_heading = false;
    let mut processed = false;
    let mut unmarked = 0usize;
    for l in crate::text::lines(head) {
        let t = l.trim_start();
        preprocessor |= ["#include", "#define", "#ifndef", "#if ", "#if("]
            .iter()
            .any(|p| t.starts_with(p));
        directive |= t.starts_with(".. auto") || t.starts_with(".. c:function::");
        match permalink::of_signature(l) {
            Some(Permalink::Mark(_)) => rendered_heading = true,
            Some(Permalink::Absent) => unmarked += 1,
            None => rendered_heading |= l.ends_with(")#"),
        }
        processed |= matches!(t.trim_end(), "Parameters" | "Returns" | "Return type");
    }
    if preprocessor && has_doxygen_comment(head) {
        return Some(Format::DoxygenHeader);
    }
    // memchr's substring search: the head is up to 200 kB.
    let contains =
        |needle: &str| memchr::memmem::find(head.as_bytes(), needle.as_bytes()).is_some();
    if contains("<div") && contains("</") {
        return Some(Format::Html);
    }
    if directive && !rendered_heading {
        return Some(Format::AutodocRst);
    }
    rendered_heading |= unmarked >= UNMARKED_SIGNATURES;
    if rendered_heading {
        let raw_rst = contains(":returns:") || contains(":param ") || contains(".. attribute::");
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

/// Whether `head` holds a `/**` or `/*!` comment that is not a banner (`/***…`, `/**/`): with
/// preprocessor lines, a C header with Doxygen comments.
fn has_doxygen_comment(head: &str) -> bool {
    head.match_indices("/*").any(|(at, _)| {
        let rest = &head.as_bytes()[at + 2..];
        matches!(rest, [b'*', c, ..] if *c != b'*' && *c != b'/') || rest.first() == Some(&b'!')
    })
}
