//! Parser for Sphinx-built HTML API pages (the `cuda.bindings.runtime` page and pages like it).
//!
//! A second front end beside [`super::bindings_text`]: the page is parsed with `scraper`
//! (html5ever, entities decoded), its main article is walked once into the neutral
//! [`Block`](super::blocks::Block) sequence, and the shared builder
//! [`super::bindings_build`] turns the blocks into IR, reading docstrings with
//! [`super::docstring`]. So both front ends share one docstring model.
//!
//! - [`walk`]: finds the article, walks `section`s, headings and `dl.py` objects; element paths
//!   and best-effort line numbers for provenance;
//! - [`sig`]: the signature of a `dt.sig` (`sig-prename`, `sig-name`, `sig-param`, the
//!   trailing `= value` or `: type` property);
//! - [`flow`]: docstring and intro content to lines: `pre` blocks verbatim (raw RST), processed
//!   paragraphs, lists, admonitions and rubrics as the text rendering shows them;
//! - [`fields`]: Sphinx's processed field lists (`Parameters`, `Returns`, `Return type`,
//!   `Type`) back to the RST fields the docstring model reads;
//! - [`locate`]: line numbers of elements, found from their `id` attributes.
//!
//! Navigation, sidebars, search and header/footer chrome lie outside the article and are never
//! read. Nothing here lists CUDA names.

mod dom;
mod fields;
mod flow;
mod locate;
mod sig;
mod walk;

use crate::diag::Diagnostics;
use crate::ir::Api;

use super::bindings_build;

/// Parses a Sphinx HTML page.
pub fn parse(file: &str, text: &str) -> Api {
    let mut diags = Diagnostics::new(file);
    let blocks = walk::blocks(text, &mut diags);
    let mut api = bindings_build::build(&blocks, &mut diags);
    api.diagnostics = diags.into_vec();
    api
}
