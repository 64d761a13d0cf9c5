//! Parsers: one module per documentation format, all producing the same [`Api`] IR.
//!
//! [`parse_document`] reads bytes (lossily decoded, with a diagnostic when they are not
//! UTF-8), detects the format from the content unless one is forced, and dispatches. The
//! page parsers share the RST docstring reader in [`docstring`]; [`doxygen`] reads C headers.
//! None of them lists CUDA names: they read structure, so another release's page parses as
//! the seed does.

pub mod autodoc;
pub mod blocks;
pub mod census;
pub mod cudart_text;
pub mod detect;
pub mod docstring;
pub mod doxygen;
pub mod html;
pub mod names;
pub mod permalink;
pub mod signature;
pub mod sphinx_blocks;
pub mod sphinx_text;
pub mod unread;

use foldhash::HashSet;

use crate::diag::Diagnostics;
use crate::ir::{Api, Document, Format};

/// Keeps the first item of each name (items with an empty name are all kept) and returns the
/// kept items and, in order, the names of the repeats dropped, for the front end to report.
/// Linear in the number of items.
pub(crate) fn first_of_each_name<T>(
    items: Vec<T>,
    name: impl Fn(&T) -> &str,
) -> (Vec<T>, Vec<String>) {
    let mut seen: HashSet<String> = HashSet::default();
    let mut kept = Vec::with_capacity(items.len());
    let mut dropped = Vec::new();
    for item in items {
        let n = name(&item);
        if n.is_empty() || seen.insert(n.to_string()) {
            kept.push(item);
        } else {
            dropped.push(n.to_string());
        }
    }
    (kept, dropped)
}

/// A document's bytes as the readers see them (see [`prepare`]).
pub struct Prepared<'a> {
    /// The text: decoded, without a byte-order mark, line endings converted to LF.
    pub text: std::borrow::Cow<'a, str>,
    /// Where the first byte that is not UTF-8 was (bad bytes were replaced).
    pub invalid_at: Option<usize>,
    /// The line endings converted.
    pub endings: crate::text::LineEndings,
}

/// `bytes` decoded (invalid bytes replaced), a leading byte-order mark dropped (no part of the
/// document: a header's first declaration would otherwise start with it), and line endings
/// converted to LF: the text every front end reads, and the census counts.
pub fn prepare(bytes: &[u8]) -> Prepared<'_> {
    use std::borrow::Cow;
    let (decoded, invalid_at) = match std::str::from_utf8(bytes) {
        Ok(t) => (Cow::Borrowed(t), None),
        Err(e) => (String::from_utf8_lossy(bytes), Some(e.valid_up_to())),
    };
    let decoded = match decoded {
        Cow::Borrowed(t) => Cow::Borrowed(t.strip_prefix('\u{feff}').unwrap_or(t)),
        Cow::Owned(t) => match t.strip_prefix('\u{feff}') {
            Some(rest) => Cow::Owned(rest.to_string()),
            None => Cow::Owned(t),
        },
    };
    let (text, endings) = match decoded {
        Cow::Borrowed(t) => crate::text::normalize_line_endings(t),
        Cow::Owned(t) => {
            let (normal, endings) = crate::text::normalize_line_endings(&t);
            let owned = match normal {
                Cow::Borrowed(_) => None,
                Cow::Owned(n) => Some(n),
            };
            (Cow::Owned(owned.unwrap_or(t)), endings)
        }
    };
    Prepared {
        text,
        invalid_at,
        endings,
    }
}

/// Parses one document. `file` is the path to report in diagnostics and provenance.
///
/// Never panics: unreadable content yields diagnostics and whatever items could be read.
pub fn parse_document(file: &str, bytes: &[u8], forced: Option<Format>) -> Api {
    let mut diags = Diagnostics::new(file);
    let Prepared {
        text,
        invalid_at,
        endings,
    } = prepare(bytes);
    if let Some(at) = invalid_at {
        let line = crate::text::line_at(bytes, at);
        diags.error(
            line,
            format!(
                "input is not valid UTF-8 (first bad byte at offset {at}); bad bytes were replaced"
            ),
        );
    }
    if endings.any() {
        diags.note(
            1,
            format!(
                "line endings converted to LF before reading: {} CR LF, {} CR alone{}",
                endings.crlf,
                endings.cr,
                if endings.cr > 0 {
                    " (old Mac line endings; lines are numbered as an editor shows them)"
                } else {
                    ""
                }
            ),
        );
    }
    let format = match forced {
        Some(f) => f,
        None => match detect::detect(&text) {
            Some(f) => f,
            None => {
                diags.error(1, "could not recognise the documentation format (use --format to force one); reading it as bindings-text");
                Format::BindingsText
            }
        },
    };
    let mut api = match format {
        Format::BindingsText => sphinx_text::parse(file, &text),
        Format::AutodocRst => autodoc::parse(file, &text),
        Format::CudartText => cudart_text::parse(file, &text),
        Format::Html => html::parse(file, &text),
        Format::DoxygenHeader => doxygen::parse(file, &text),
    };
    let mut pre = diags.into_vec();
    pre.append(&mut api.diagnostics);
    api.diagnostics = pre;
    // Names with characters no generated code can use, then the independent count: an object
    // the reader lost without a word is an error.
    let bad_names = names::check(&api);
    api.diagnostics.extend(bad_names);
    let lost = census::check(file, format, &text, &api);
    api.diagnostics.extend(lost);
    api.documents = vec![Document {
        file: file.to_string(),
        format,
        release: None,
        publisher: None,
    }];
    api
}
