//! Parser for the text rendering of the older `cuda.cudart` page (seed `002_…`).
//!
//! STUB: being written; see issue 2.

use crate::ir::Api;

/// Parses the text rendering of a `cuda.cudart` page.
pub fn parse(file: &str, text: &str) -> Api {
    let _ = (file, text);
    Api::default()
}
