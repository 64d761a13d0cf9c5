//! Parser for the text rendering of the `cuda.bindings.runtime` Sphinx page (seed `001_…`).
//!
//! STUB: being written; see issue 2.

use crate::ir::Api;

/// Parses the text rendering of a `cuda.bindings.runtime` page.
pub fn parse(file: &str, text: &str) -> Api {
    let _ = (file, text);
    Api::default()
}
