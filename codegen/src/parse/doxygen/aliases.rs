//! The texts of Doxygen aliases (`\notefnerr`, `\note_init_rt`, …) that a header uses but does
//! not define.
//!
//! NVIDIA defines them in its own Doxyfile, which is not published with the headers; the texts
//! are kept as data, with their provenance, in `docs-src/nvidia-doxygen-aliases.toml`, built
//! into the generator so that parsing needs no file beside the header. This module only reads
//! that table; [`super::markup`] renders each use, and reports the aliases the table lacks or
//! marks as not found.

use foldhash::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// The table, as committed.
const TABLE: &str = include_str!("../../../../docs-src/nvidia-doxygen-aliases.toml");

/// What an alias stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AliasKind {
    /// A note paragraph.
    Note,
    /// Words inside a sentence.
    Inline,
}

/// One alias: its text (Doxygen markup) and whether it is the publisher's text.
#[derive(Clone, Debug, Deserialize)]
pub struct Alias {
    pub kind: AliasKind,
    pub text: String,
    /// `false` when the publisher's text was not found and `text` is a neutral stand-in.
    #[serde(default = "yes")]
    pub found: bool,
    /// Where the text was found (for the table's readers; not used by the parser).
    #[serde(default)]
    pub evidence: String,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
struct Table {
    #[serde(default)]
    alias: HashMap<String, Alias>,
}

/// The alias table.
#[derive(Debug, Default)]
pub struct Aliases {
    map: HashMap<String, Alias>,
}

impl Aliases {
    /// Reads a table in the format of `docs-src/nvidia-doxygen-aliases.toml`.
    pub fn from_toml(text: &str) -> Result<Aliases, String> {
        let t: Table = toml::from_str(text).map_err(|e| e.to_string())?;
        Ok(Aliases { map: t.alias })
    }

    /// The alias named `name` (without the backslash).
    pub fn get(&self, name: &str) -> Option<&Alias> {
        self.map.get(name)
    }

    /// Number of aliases.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The committed table, read once. An unreadable table is an error message (each parse
/// reports it), never a panic.
pub fn committed() -> &'static Result<Aliases, String> {
    static CELL: OnceLock<Result<Aliases, String>> = OnceLock::new();
    CELL.get_or_init(|| Aliases::from_toml(TABLE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_table_reads_and_states_every_kind() {
        let t = committed().as_ref().expect("table reads");
        assert!(t.len() >= 18, "{}", t.len());
        let fnerr = t.get("notefnerr").expect("notefnerr");
        assert_eq!(fnerr.kind, AliasKind::Note);
        assert!(fnerr.found && fnerr.text.contains("previous, asynchronous launches"));
        let link = t.get("link_sync_behavior").expect("link_sync_behavior");
        assert_eq!(link.kind, AliasKind::Inline);
        assert!(!link.found);
        assert!(Aliases::from_toml("[alias.x]\nkind = \"sideways\"\ntext = \"\"").is_err());
    }
}
