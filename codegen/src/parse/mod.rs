//! Parsers: one module per documentation format, all producing the same [`Api`] IR.
//!
//! [`parse_document`] reads bytes (lossily decoded, with a diagnostic when they are not
//! UTF-8), detects the format from the content unless one is forced, and dispatches. The
//! page parsers share the RST docstring reader in [`docstring`]; [`doxygen`] reads C headers.
//! None of them lists CUDA names: they read structure, so another release's page parses as
//! the seed does.

pub mod autodoc;
pub mod bindings_build;
pub mod bindings_text;
pub mod blocks;
pub mod cudart_text;
pub mod detect;
pub mod docstring;
pub mod doxygen;
pub mod html;
pub mod signature;
pub mod unread;

use crate::diag::Diagnostics;
use crate::ir::{Api, Document, Format};

/// Parses one document. `file` is the path to report in diagnostics and provenance.
///
/// Never panics: unreadable content yields diagnostics and whatever items could be read.
pub fn parse_document(file: &str, bytes: &[u8], forced: Option<Format>) -> Api {
    let mut diags = Diagnostics::new(file);
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(e) => {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u32;
            diags.error(line, format!("input is not valid UTF-8 (first bad byte at offset {}); bad bytes were replaced", e.valid_up_to()));
            String::from_utf8_lossy(bytes)
        }
    };
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
        Format::BindingsText => bindings_text::parse(file, &text),
        Format::AutodocRst => autodoc::parse(file, &text),
        Format::CudartText => cudart_text::parse(file, &text),
        Format::Html => html::parse(file, &text),
        Format::DoxygenHeader => doxygen::parse(file, &text),
    };
    let mut pre = diags.into_vec();
    pre.append(&mut api.diagnostics);
    api.diagnostics = pre;
    api.documents = vec![Document {
        file: file.to_string(),
        format,
        release: None,
        publisher: None,
    }];
    api
}
