//! A generic report model — a title, a few lines of context, a totals table and a list of
//! tables (columns and rows) — and its renderers: Markdown ([`markdown`]), one self-contained
//! HTML page ([`html`]), JSON (the model itself is serialisable) and a one-screen terminal
//! summary ([`text`]).
//!
//! Audits (the release diff, the coverage report) build a [`Report`] from their own results
//! and let these renderers lay it out. This module knows nothing about the CUDA API or about
//! any particular audit; it only lays out strings.

use serde::{Deserialize, Serialize};

pub mod html;
pub mod markdown;
pub mod text;

/// A report: what a reader sees, independent of the output format.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The page title (`API diff: old → new`).
    pub title: String,
    /// Context lines shown under the title as `label: value` (inputs, versions).
    pub meta: Vec<Meta>,
    /// The totals table, rendered first.
    pub totals: Table,
    /// The detail tables, in order.
    pub tables: Vec<Table>,
}

/// One `label: value` line of context.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    pub label: String,
    pub value: String,
}

/// A table column: a stable key (used in `data-col` attributes and JSON) and a label.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    pub key: String,
    pub label: String,
}

impl Column {
    /// A column with `key` and a human `label`.
    pub fn new(key: &str, label: &str) -> Column {
        Column {
            key: key.to_string(),
            label: label.to_string(),
        }
    }
}

/// A table of rows under a heading.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Stable identifier (`[a-z0-9-]`), used for HTML ids (`t-<id>`) and anchors.
    pub id: String,
    pub title: String,
    /// One paragraph under the heading explaining what the rows are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// A loud table: the terminal summary prints its first rows, HTML highlights it.
    #[serde(default)]
    pub loud: bool,
}

/// One row: the item's name (the stable `data-name` hook), an optional severity class and
/// one cell per column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    pub cells: Vec<String>,
}

impl Table {
    /// The cell of `row` under the column keyed `key`.
    pub fn cell<'a>(&self, row: &'a Row, key: &str) -> Option<&'a str> {
        let i = self.columns.iter().position(|c| c.key == key)?;
        row.cells.get(i).map(String::as_str)
    }
}

/// Output formats of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Markdown,
    Json,
    Html,
}

impl OutputFormat {
    /// Parses `md`/`markdown`, `json` or `html`.
    pub fn from_name(name: &str) -> Option<OutputFormat> {
        match name {
            "md" | "markdown" => Some(OutputFormat::Markdown),
            "json" => Some(OutputFormat::Json),
            "html" => Some(OutputFormat::Html),
            _ => None,
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Markdown => "md",
            OutputFormat::Json => "json",
            OutputFormat::Html => "html",
        }
    }
}

/// Renders an audit's result in `format`: Markdown and HTML lay out the [`Report`] that
/// `to_report` builds from it; JSON is the result itself, pretty-printed.
pub fn render_audit<T: Serialize>(
    result: &T,
    format: OutputFormat,
    to_report: impl FnOnce(&T) -> Report,
) -> String {
    match format {
        OutputFormat::Markdown => markdown::render(&to_report(result)),
        OutputFormat::Html => html::render(&to_report(result)),
        OutputFormat::Json => pretty_json(result),
    }
}

/// `value` as pretty JSON with a final newline (an object naming the error if it cannot be
/// serialised).
pub fn pretty_json<T: Serialize>(value: &T) -> String {
    let mut s =
        serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
