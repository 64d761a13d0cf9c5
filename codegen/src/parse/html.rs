//! Parser for Sphinx-built HTML API pages (the `cuda.bindings.runtime` page and pages like it).
//!
//! A second front end beside [`super::sphinx_text`]. The page becomes a tree
//! ([`dom::Page`]) by html5ever, its main article is walked once into the neutral
//! [`Block`](super::blocks::Block) sequence, and the shared builder [`super::sphinx_blocks`]
//! turns the blocks into IR, reading docstrings with [`super::docstring`]. So both front ends
//! share one docstring model.
//!
//! - [`spec`]: html5ever, the HTML standard's parser, through a small tree sink of ours, so a
//!   damaged or truncated page is recovered as a browser would;
//! - [`walk`]: finds the article, walks `section`s, headings and `dl.py` objects; element paths
//!   and the lines of the start tags for provenance;
//! - [`sig`]: the signature of a `dt.sig` (`sig-prename`, `sig-name`, `sig-param`, the
//!   trailing `= value` or `: type` property);
//! - [`flow`]: docstring and intro content to lines: `pre` blocks verbatim (raw RST), processed
//!   paragraphs, lists, admonitions and rubrics as the text rendering shows them;
//! - [`fields`]: Sphinx's processed field lists (`Parameters`, `Returns`, `Return type`,
//!   `Type`) back to the RST fields the docstring model reads.
//!
//! Navigation, sidebars, search and header/footer chrome lie outside the article and are never
//! read. Nothing here lists CUDA names.

mod dom;
mod fields;
mod flow;
mod sig;
mod spec;
mod walk;

use crate::diag::{Diagnostics, Severity};
use crate::ir::{Api, Source};

use super::sphinx_blocks;

/// Most HTML parse errors quoted in the diagnostic that counts them.
const QUOTED_PARSE_ERRORS: usize = 3;

/// Parses a Sphinx HTML page.
pub fn parse(file: &str, text: &str) -> Api {
    let mut diags = Diagnostics::new(file);
    let at = |line: u32| Source::new(file, line.max(1));
    if !text.trim_end().to_ascii_lowercase().ends_with("</html>") {
        diags.at(
            Severity::Warning,
            &at(1),
            "the page does not end with `</html>`; it may be truncated, and its last object incomplete",
        );
    }
    let spec::Parsed {
        page,
        errors,
        error_count,
        attributes_dropped,
        unclosed_raw_text,
        too_deep,
    } = spec::parse(text);
    for (line, n) in attributes_dropped {
        diags.at(
            Severity::Warning,
            &at(line),
            format!(
                "a start tag with {} attributes: the {n} past the first {} are not read",
                n + spec::MAX_ATTRIBUTES,
                spec::MAX_ATTRIBUTES
            ),
        );
    }
    for (line, name) in unclosed_raw_text {
        diags.at(
            Severity::Warning,
            &at(line),
            format!("`<{name}>` is not closed, and its text would be the rest of the page (the page's objects are in it): read as if this start tag were not there"),
        );
    }
    if let Some(line) = too_deep {
        diags.at(
            Severity::Error,
            &at(line),
            format!(
                "elements are nested more than {} levels deep here; the page is read only up to this point (the HTML parser's work grows with the square of the nesting, so deeper pages are refused)",
                spec::MAX_DEPTH
            ),
        );
    }
    if let Some(first) = errors.first() {
        let quoted: Vec<String> = errors
            .iter()
            .take(QUOTED_PARSE_ERRORS)
            .map(|e| format!("line {}: {}", e.line, e.message))
            .collect();
        diags.at(
            Severity::Note,
            &at(first.line),
            format!(
                "the HTML parser recovered from {} error(s): {}",
                error_count,
                quoted.join("; ")
            ),
        );
    }
    let blocks = walk::blocks(&page, &mut diags);
    let mut api = sphinx_blocks::build(&blocks, &mut diags);
    api.diagnostics = diags.into_vec();
    api
}
