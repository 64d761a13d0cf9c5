//! Renders the one-screen terminal summary of a [`Report`]: the title, the totals table in
//! aligned columns, the row count of each table, and the first rows of loud tables (such as
//! ABI breaks). It never prints whole tables; the full report goes to a file.

use std::fmt::Write;

use super::{Report, Table};

/// Longest context line printed (longer ones are cut with `…`).
const META_WIDTH: usize = 150;

/// Longest row of a loud table printed (the full row is in the report file).
const ROW_WIDTH: usize = 200;

fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let head: String = s.chars().take(width - 1).collect();
        format!("{head}…")
    }
}

/// Renders the summary, printing at most `loud_rows` rows of each loud table.
pub fn render_summary(report: &Report, loud_rows: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", report.title);
    for m in &report.meta {
        let _ = writeln!(out, "  {}: {}", m.label, clip(&m.value, META_WIDTH));
    }
    aligned(&mut out, &report.totals);
    for t in &report.tables {
        let _ = writeln!(out, "{:<40} {:>6}", t.title, t.rows.len());
    }
    for t in report
        .tables
        .iter()
        .filter(|t| t.loud && !t.rows.is_empty())
    {
        let _ = writeln!(out, "!! {} ({}):", t.title, t.rows.len());
        for r in t.rows.iter().take(loud_rows) {
            let cells: Vec<String> = r.cells.iter().map(super::Cell::plain).collect();
            let _ = writeln!(out, "   {}", clip(&cells.join("  "), ROW_WIDTH));
        }
        if t.rows.len() > loud_rows {
            let _ = writeln!(
                out,
                "   … and {} more (see the full report)",
                t.rows.len() - loud_rows
            );
        }
    }
    out
}

fn aligned(out: &mut String, t: &Table) {
    let mut widths: Vec<usize> = t.columns.iter().map(|c| c.label.chars().count()).collect();
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| r.cells.iter().map(super::Cell::plain).collect())
        .collect();
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| {
                if i == 0 {
                    format!("{c:<w$}")
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        parts.join("  ")
    };
    let _ = writeln!(
        out,
        "{}",
        line(t.columns.iter().map(|c| c.label.as_str()).collect())
    );
    for r in &rows {
        let _ = writeln!(out, "{}", line(r.iter().map(String::as_str).collect()));
    }
}
