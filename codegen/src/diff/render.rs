//! Turns an [`ApiDiff`] into the generic [`Report`] (totals, then tables: ABI breaks, added,
//! removed, renamed-looking, changed, not comparable) for the Markdown, HTML and terminal
//! renderers, and renders the diff's JSON (the [`ApiDiff`] itself, as documented by
//! `docs/diff-report.schema.json`).

use super::{ApiDiff, Change, Impact, ItemRef, SideInfo};
use crate::report::{self, Column, Meta, OutputFormat, Report, Row, Table};

/// Renders `diff` in `format`.
pub fn render(diff: &ApiDiff, format: OutputFormat) -> String {
    report::render_audit(diff, format, to_report)
}

/// The diff as pretty JSON.
pub fn to_json(diff: &ApiDiff) -> String {
    report::pretty_json(diff)
}

/// The one-screen terminal summary: totals and the first ABI breaks.
pub fn summary(diff: &ApiDiff) -> String {
    report::text::render_summary(&to_report(diff), 10)
}

fn side(s: &SideInfo) -> String {
    let docs: Vec<String> = s
        .documents
        .iter()
        .map(|d| match &d.release {
            Some(r) => format!("{} ({}, {r})", d.file, d.format),
            None => format!("{} ({})", d.file, d.format),
        })
        .collect();
    let docs = if docs.is_empty() {
        "no documents recorded".to_string()
    } else {
        docs.join("; ")
    };
    match &s.label {
        Some(l) => format!("{l}: {docs}"),
        None => docs,
    }
}

fn label(s: &SideInfo) -> String {
    s.label
        .clone()
        .or_else(|| s.documents.first().map(|d| d.file.clone()))
        .unwrap_or_else(|| "?".into())
}

/// Builds the generic report of `diff`.
pub fn to_report(diff: &ApiDiff) -> Report {
    let cols = |list: &[(&str, &str)]| {
        list.iter()
            .map(|(k, l)| Column::new(k, l))
            .collect::<Vec<_>>()
    };
    let mut totals = Table {
        id: "totals".into(),
        title: "Totals".into(),
        columns: cols(&[
            ("kind", "Kind"),
            ("old", "Old"),
            ("new", "New"),
            ("added", "Added"),
            ("removed", "Removed"),
            ("renamed", "Renamed?"),
            ("changed", "Changed"),
            ("changes", "Changes"),
            ("breaks", "Breaks"),
            ("not_comparable", "Not comparable"),
        ]),
        ..Table::default()
    };
    let mut sum = [0usize; 9];
    for t in &diff.totals {
        let nums = [
            t.old,
            t.new,
            t.added,
            t.removed,
            t.renamed,
            t.changed,
            t.changes,
            t.breaks,
            t.not_comparable,
        ];
        for (s, n) in sum.iter_mut().zip(nums) {
            *s += n;
        }
        let mut cells = vec![t.kind.name().to_string()];
        cells.extend(nums.iter().map(ToString::to_string));
        totals.rows.push(Row {
            name: t.kind.name().into(),
            severity: None,
            cells,
        });
    }
    let mut cells = vec!["total".to_string()];
    cells.extend(sum.iter().map(ToString::to_string));
    totals.rows.push(Row {
        name: "total".into(),
        severity: None,
        cells,
    });

    let change_cols = cols(&[
        ("impact", "Impact"),
        ("kind", "Kind"),
        ("name", "Name"),
        ("part", "Part"),
        ("change", "Change"),
        ("old", "Old"),
        ("new", "New"),
        ("source", "Source (new)"),
    ]);
    let change_row = |c: &Change| Row {
        name: c.name.clone(),
        severity: Some(c.impact.name().into()),
        cells: vec![
            c.impact.name().into(),
            c.kind.name().into(),
            c.name.clone(),
            c.part.clone().unwrap_or_default(),
            c.change.name(),
            c.old.clone().unwrap_or_default(),
            c.new.clone().unwrap_or_default(),
            c.new_source.clone(),
        ],
    };
    let item_cols = cols(&[
        ("kind", "Kind"),
        ("name", "Name"),
        ("section", "Section"),
        ("source", "Source"),
        ("looks_renamed", "Looks renamed"),
    ]);
    let item_row = |i: &ItemRef| Row {
        name: i.name.clone(),
        severity: None,
        cells: vec![
            i.kind.name().into(),
            i.name.clone(),
            i.section.clone().unwrap_or_default(),
            i.source.clone(),
            i.looks_renamed.clone().unwrap_or_default(),
        ],
    };
    let breaks: Vec<Row> = diff
        .changes
        .iter()
        .filter(|c| c.impact == Impact::Break)
        .map(change_row)
        .collect();
    let tables = vec![
        Table {
            id: "breaks".into(),
            title: "ABI breaks".into(),
            description: Some("Values compiled into callers that changed: renumbered enum members, constants with a new value.".into()),
            columns: change_cols.clone(),
            rows: breaks,
            loud: true,
        },
        Table {
            id: "added".into(),
            title: "Added".into(),
            description: Some("Items only the new side has.".into()),
            columns: item_cols.clone(),
            rows: diff.added.iter().map(item_row).collect(),
            loud: false,
        },
        Table {
            id: "removed".into(),
            title: "Removed".into(),
            description: Some("Items only the old side has.".into()),
            columns: item_cols,
            rows: diff.removed.iter().map(item_row).collect(),
            loud: false,
        },
        Table {
            id: "renamed".into(),
            title: "Renamed-looking pairs".into(),
            description: Some("A removed and an added item with the same parameters and similar names (they are also listed as removed and added).".into()),
            columns: cols(&[("kind", "Kind"), ("old_name", "Old name"), ("new_name", "New name"), ("similarity", "Similarity"), ("evidence", "Evidence"), ("new_source", "Source (new)")]),
            rows: diff
                .renamed
                .iter()
                .map(|r| Row {
                    name: r.old_name.clone(),
                    severity: None,
                    cells: vec![r.kind.name().into(), r.old_name.clone(), r.new_name.clone(), format!("{:.3}", r.similarity), r.evidence.clone(), r.new_source.clone()],
                })
                .collect(),
            loud: false,
        },
        Table {
            id: "changed".into(),
            title: "Changes".into(),
            description: Some("Changes to items both sides have, one row per change.".into()),
            columns: change_cols,
            rows: diff.changes.iter().map(change_row).collect(),
            loud: false,
        },
        Table {
            id: "not-comparable".into(),
            title: "Not comparable".into(),
            description: Some("Comparisons that were impossible because one side states less; these are not changes.".into()),
            columns: cols(&[("kind", "Kind"), ("name", "Name"), ("comparison", "Comparison"), ("reason", "Reason"), ("source", "Source")]),
            rows: diff
                .not_comparable
                .iter()
                .map(|n| Row {
                    name: n.name.clone(),
                    severity: None,
                    cells: vec![n.kind.name().into(), n.name.clone(), n.comparison.clone(), n.reason.clone(), n.source.clone()],
                })
                .collect(),
            loud: false,
        },
    ];
    Report {
        title: format!("API diff: {} → {}", label(&diff.old), label(&diff.new)),
        meta: vec![
            Meta {
                label: "old".into(),
                value: side(&diff.old),
            },
            Meta {
                label: "new".into(),
                value: side(&diff.new),
            },
        ],
        totals,
        tables,
    }
}
