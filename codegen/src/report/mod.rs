//! A generic report model — a title, a few lines of context, a totals table, a table of
//! contents and a list of tables (columns and rows; a row may carry an anchor, a cell text,
//! code and links) — and its renderers: Markdown ([`markdown`]), one self-contained HTML page
//! ([`html`]), JSON (the model itself is serialisable) and a one-screen terminal summary
//! ([`text`]). [`Cell::rst`] renders the documentation's reST (Sphinx roles, literals) as
//! text and code through the generator's one reST reader ([`crate::rustdoc`]).
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
    /// The table of contents, rendered after the totals (empty: none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contents: Vec<TocEntry>,
    /// The detail tables, in order.
    pub tables: Vec<Table>,
}

/// One entry of the table of contents: a label, the anchor it leads to, an optional count and
/// entries under it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TocEntry {
    pub label: String,
    /// The `id` of the element it leads to (`t-break`, a row's anchor).
    pub target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// Set for entries whose label is a name (shown as code).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub code: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<TocEntry>,
}

/// A piece of a cell: text, code, or a link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inline {
    Text(String),
    Code(String),
    /// A link; `code` when its text is a name.
    Link {
        text: String,
        href: String,
        code: bool,
    },
}

/// A table cell: a run of [`Inline`] pieces.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    pub parts: Vec<Inline>,
}

impl Cell {
    /// Plain text.
    pub fn text(s: impl Into<String>) -> Cell {
        let s = s.into();
        Cell {
            parts: if s.is_empty() {
                vec![]
            } else {
                vec![Inline::Text(s)]
            },
        }
    }

    /// Code (a name, a type, a declaration).
    pub fn code(s: impl Into<String>) -> Cell {
        let s = s.into();
        Cell {
            parts: if s.is_empty() {
                vec![]
            } else {
                vec![Inline::Code(s)]
            },
        }
    }

    /// A link whose text is code (`code`) or text.
    pub fn link(text: impl Into<String>, href: impl Into<String>, code: bool) -> Cell {
        Cell {
            parts: vec![Inline::Link {
                text: text.into(),
                href: href.into(),
                code,
            }],
        }
    }

    /// Text in which `` `x` `` marks code (the generator's own messages): the backquoted runs
    /// become code, the rest text. An unpaired backquote is text.
    pub fn ticks(s: &str) -> Cell {
        let mut cell = Cell::default();
        let pieces: Vec<&str> = s.split('`').collect();
        let paired = pieces.len() % 2 == 1;
        for (i, piece) in pieces.iter().enumerate() {
            if piece.is_empty() {
                continue;
            }
            if i % 2 == 1 && (paired || i + 1 < pieces.len()) {
                cell.parts.push(Inline::Code(piece.to_string()));
            } else if i % 2 == 1 {
                cell.push_text(&format!("`{piece}"));
            } else {
                cell.push_text(piece);
            }
        }
        cell
    }

    /// The documentation's reST (``:py:obj:`~.cudaGraphEdgeData` ``, ` ``x`` `, `*p*`) as
    /// text and code: read by [`crate::rustdoc::inline`], the generator's one reST reader,
    /// and its Markdown result taken apart with pulldown-cmark.
    pub fn rst(s: &str) -> Cell {
        use pulldown_cmark::{Event, Parser, Tag, TagEnd};
        let md = crate::rustdoc::inline(s, &crate::rustdoc::NoLinks);
        let mut cell = Cell::default();
        let mut link: Option<(String, String, bool)> = None;
        for event in Parser::new(&md) {
            match event {
                Event::Text(t) => match &mut link {
                    Some((text, _, _)) => text.push_str(&t),
                    None => cell.push_text(&t),
                },
                Event::Code(c) => match &mut link {
                    Some((text, _, code)) => {
                        text.push_str(&c);
                        *code = true;
                    }
                    None => cell.parts.push(Inline::Code(c.to_string())),
                },
                Event::SoftBreak | Event::HardBreak => cell.push_text(" "),
                Event::Start(Tag::Link { dest_url, .. }) => {
                    link = Some((String::new(), dest_url.to_string(), false))
                }
                Event::End(TagEnd::Link) => {
                    if let Some((text, href, code)) = link.take() {
                        cell.parts.push(Inline::Link { text, href, code });
                    }
                }
                Event::End(TagEnd::Paragraph) if !cell.parts.is_empty() => {}
                Event::Html(h) | Event::InlineHtml(h) => cell.push_text(&h),
                _ => {}
            }
        }
        cell
    }

    fn push_text(&mut self, t: &str) {
        if let Some(Inline::Text(last)) = self.parts.last_mut() {
            last.push_str(t);
        } else if !t.is_empty() {
            self.parts.push(Inline::Text(t.to_string()));
        }
    }

    /// Appends `other`'s pieces.
    pub fn append(&mut self, other: Cell) {
        for p in other.parts {
            match p {
                Inline::Text(t) => self.push_text(&t),
                p => self.parts.push(p),
            }
        }
    }

    /// The text a reader sees, without markup.
    pub fn plain(&self) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Inline::Text(t) | Inline::Code(t) | Inline::Link { text: t, .. } => out.push_str(t),
            }
        }
        out
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::text(s)
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::text(s)
    }
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

/// One row: the item's name (the stable `data-name` hook), an optional severity class, an
/// optional anchor (the row's `id`, what the table of contents and links lead to) and one
/// cell per column.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    pub cells: Vec<Cell>,
}

impl Row {
    /// A row named `name` with plain-text `cells`.
    pub fn plain(name: impl Into<String>, cells: Vec<String>) -> Row {
        Row {
            name: name.into(),
            cells: cells.into_iter().map(Cell::from).collect(),
            ..Row::default()
        }
    }
}

impl Table {
    /// The text of the cell of `row` under the column keyed `key`.
    pub fn cell(&self, row: &Row, key: &str) -> Option<String> {
        let i = self.columns.iter().position(|c| c.key == key)?;
        row.cells.get(i).map(Cell::plain)
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
