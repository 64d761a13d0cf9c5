//! Renders a [`Report`] as Markdown (GitHub flavour): the title, the context lines, the totals
//! table, the table of contents, then one section per table. Cell text is escaped so that
//! `|`, backquotes, angle brackets and line breaks in names or types cannot break the table;
//! code becomes code spans, links Markdown links. Every table and every row with an anchor
//! gets an `<a id="…">` so that the contents and links lead to it (GitHub keeps such anchors
//! reachable by their `#…`).

use std::fmt::Write;

use super::{Cell, Inline, Report, Table, TocEntry};

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
    if !report.contents.is_empty() {
        out.push_str("## Contents\n\n");
        for e in &report.contents {
            toc(&mut out, e, 0);
        }
        out.push('\n');
    }
    for t in &report.tables {
        table(&mut out, t, true);
    }
    out
}

fn toc(out: &mut String, e: &TocEntry, depth: usize) {
    let label = if e.code {
        code_span(&e.label)
    } else {
        escape(&e.label)
    };
    let count = e.count.map(|n| format!(" ({n})")).unwrap_or_default();
    let _ = writeln!(
        out,
        "{}- [{label}](#{}){count}",
        "  ".repeat(depth),
        e.target
    );
    for c in &e.children {
        toc(out, c, depth + 1);
    }
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
    let _ = writeln!(
        out,
        "<a id=\"t-{}\"></a>\n\n## {marker}{}{count}\n",
        attr(&t.id),
        escape(&t.title)
    );
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
        let mut cells: Vec<String> = (0..t.columns.len())
            .map(|i| r.cells.get(i).map(cell).unwrap_or_default())
            .collect();
        if let (Some(a), Some(first)) = (&r.anchor, cells.first_mut()) {
            first.insert_str(0, &format!("<a id=\"{}\"></a>", attr(a)));
        }
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out.push('\n');
}

/// A cell's Markdown.
pub fn cell(c: &Cell) -> String {
    let mut out = String::new();
    for p in &c.parts {
        match p {
            Inline::Text(t) => out.push_str(&escape(t)),
            Inline::Code(t) => out.push_str(&code_span(t)),
            Inline::Link { text, href, code } => {
                let text = if *code { code_span(text) } else { escape(text) };
                let _ = write!(
                    out,
                    "[{text}]({})",
                    href.replace(' ', "%20").replace(')', "%29")
                );
            }
        }
    }
    out
}

/// A code span that holds `t` whatever backquotes it contains, safe in a table cell (`|` is
/// escaped, as GitHub requires even inside code spans; line breaks become spaces).
pub fn code_span(t: &str) -> String {
    let t = t.replace(['\n', '\r'], " ").replace('|', "\\|");
    let mut longest = 0;
    let mut run = 0;
    for c in t.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = if t.starts_with('`') || t.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{t}{pad}{fence}")
}

/// An attribute value (anchors are `[A-Za-z0-9_-]`; anything else is replaced).
fn attr(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_hold_backquotes_and_pipes() {
        assert_eq!(code_span("int a"), "`int a`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert_eq!(code_span("a|b"), "`a\\|b`");
    }

    #[test]
    fn cells_render_code_and_links() {
        let mut c = Cell::text("list[");
        c.append(Cell::code("cudaGraphEdgeData"));
        c.append(Cell::text("]"));
        assert_eq!(cell(&c), "list\\[`cudaGraphEdgeData`\\]");
        let l = Cell::link("cudaMalloc", "../doc/x/fn.cudaMalloc.html", true);
        assert_eq!(cell(&l), "[`cudaMalloc`](../doc/x/fn.cudaMalloc.html)");
    }
}
