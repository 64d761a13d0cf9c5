//! Renders a [`Report`] as Markdown (GitHub flavour): the title, the context lines, the totals
//! table, then one section per table. Cell text is escaped so that `|`, backquotes, angle
//! brackets and line breaks in names or types cannot break the table.

use std::fmt::Write;

use super::{Report, Table};

/// Renders `report` as Markdown.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", escape(&report.title));
    for m in &report.meta {
        let _ = writeln!(out, "- **{}**: {}", escape(&m.label), escape(&m.value));
    }
    if !report.meta.is_empty() {
        out.push('\n');
    }
    table(&mut out, &report.totals, false);
    for t in &report.tables {
        table(&mut out, t, true);
    }
    out
}

fn table(out: &mut String, t: &Table, counted: bool) {
    let marker = if t.loud && !t.rows.is_empty() {
        "⚠ "
    } else {
        ""
    };
    let count = if counted {
        format!(" ({})", t.rows.len())
    } else {
        String::new()
    };
    let _ = writeln!(out, "## {marker}{}{count}\n", escape(&t.title));
    if let Some(d) = &t.description {
        let _ = writeln!(out, "{}\n", escape(d));
    }
    if t.rows.is_empty() {
        out.push_str("_None._\n\n");
        return;
    }
    let head: Vec<String> = t.columns.iter().map(|c| escape(&c.label)).collect();
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(t.columns.len()));
    for r in &t.rows {
        let cells: Vec<String> = (0..t.columns.len())
            .map(|i| r.cells.get(i).map(|c| escape(c)).unwrap_or_default())
            .collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}

/// Escapes text for a Markdown table cell or heading.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}
