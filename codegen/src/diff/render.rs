//! Turns an [`ApiDiff`] into the generic [`Report`] for the Markdown, HTML and terminal
//! renderers: totals by kind and class, a table of contents by class and section (each break
//! and deprecation listed by name), one table per class with a row per item — its anchor, its
//! rustdoc link, what changed, the old and new C declarations side by side — then the
//! renamed-looking pairs and the comparisons that were impossible. Documentation text is
//! rendered from reST as text and code ([`Cell::rst`]). Also renders the diff's JSON (the
//! [`ApiDiff`] itself, as documented by `docs/diff-report.schema.json`).

use super::{ApiDiff, Change, ChangeKind, Evidence, Impact, ItemDiff, ItemStatus, SideInfo};
use crate::report::{self, Cell, Column, Meta, OutputFormat, Report, Row, Table, TocEntry};

/// Renders `diff` in `format`.
pub fn render(diff: &ApiDiff, format: OutputFormat) -> String {
    report::render_audit(diff, format, to_report)
}

/// The diff as pretty JSON.
pub fn to_json(diff: &ApiDiff) -> String {
    report::pretty_json(diff)
}

/// The one-screen terminal summary: totals and the first breaks.
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
    let mut text = if docs.is_empty() {
        "no documents".to_string()
    } else {
        docs.join("; ")
    };
    if let Some(a) = &s.abi {
        let what = a.file.clone().unwrap_or_else(|| "ABI".into());
        text.push_str(&format!("; ABI {what}: {}", a.origin));
    }
    match &s.label {
        Some(l) => format!("{l}: {text}"),
        None => text,
    }
}

fn label(s: &SideInfo) -> String {
    s.label
        .clone()
        .or_else(|| s.abi.as_ref().and_then(|a| a.release.clone()))
        .or_else(|| s.documents.first().map(|d| d.file.clone()))
        .unwrap_or_else(|| "?".into())
}

/// The release of a side, for column headings (`12.8`), when known.
fn release(s: &SideInfo) -> Option<String> {
    s.abi
        .as_ref()
        .and_then(|a| a.release.clone())
        .or_else(|| s.documents.iter().find_map(|d| d.release.clone()))
}

fn cols(list: &[(&str, &str)]) -> Vec<Column> {
    list.iter().map(|(k, l)| Column::new(k, l)).collect()
}

/// One change as a reader reads it: what, where, old → new, why, and `[docs]` when only the
/// documents say it.
fn describe(c: &Change, out: &mut Cell) {
    out.append(Cell::text(c.change.name()));
    if let Some(p) = &c.part {
        out.append(Cell::text(" "));
        if c.change == ChangeKind::SignatureChanged {
            out.append(Cell::ticks(p));
        } else {
            out.append(Cell::code(p.clone()));
        }
    }
    // A whole-declaration change shows its declarations in the old and new columns.
    let whole = c.part.is_none()
        && matches!(
            c.change,
            ChangeKind::Added | ChangeKind::Removed | ChangeKind::TypeSpelling
        )
        || c.change == ChangeKind::SignatureChanged;
    if !whole && (c.old.is_some() || c.new.is_some()) {
        let value = |v: &Option<String>| match (v, c.evidence) {
            (None, _) => Cell::text("—"),
            (Some(v), Evidence::Docs) => Cell::rst(v),
            (Some(v), Evidence::Abi) => Cell::code(v.clone()),
        };
        out.append(Cell::text(": "));
        out.append(value(&c.old));
        out.append(Cell::text(" → "));
        out.append(value(&c.new));
    }
    // The reason of a pair names the pair already.
    if let (Some(to), None) = (&c.paired_with, &c.reason) {
        out.append(Cell::text(" (stands for it now: "));
        out.append(Cell::code(to.clone()));
        out.append(Cell::text(")"));
    }
    if let Some(r) = &c.reason {
        out.append(Cell::text(" — "));
        out.append(Cell::ticks(without_repeat(&c.change.name(), r)));
    }
    if c.evidence == Evidence::Docs {
        out.append(Cell::text(" [docs]"));
    }
}

/// A reason without the change's own name at its start (`removed; X stands for it` after
/// `removed` reads `X stands for it`), so that no cell says a word twice.
fn without_repeat<'a>(change: &str, reason: &'a str) -> &'a str {
    let spoken = change.replace('-', " ");
    match reason.strip_prefix(spoken.as_str()) {
        Some(rest) if rest.starts_with("; ") || rest.starts_with(": ") => rest[2..].trim_start(),
        _ => reason,
    }
}

fn item_row(i: &ItemDiff) -> Row {
    let mut name = match &i.rustdoc {
        Some(href) => Cell::link(i.name.clone(), href.clone(), true),
        None => Cell::code(i.name.clone()),
    };
    if let Some(d) = &i.doc_name {
        name.append(Cell::text(" (documents: "));
        name.append(Cell::code(d.clone()));
        name.append(Cell::text(")"));
    }
    let mut status = Cell::text(format!("{:?}", i.status).to_lowercase());
    if let Some(p) = &i.paired_with {
        status.append(Cell::text(" → "));
        status.append(Cell::code(p.clone()));
    }
    let mut changes = Cell::default();
    for (n, c) in i.changes.iter().enumerate() {
        if n > 0 {
            changes.append(Cell::text("; "));
        }
        describe(c, &mut changes);
    }
    let source = i
        .changes
        .iter()
        .find_map(|c| c.new_source.clone().or_else(|| c.old_source.clone()))
        .unwrap_or_default();
    Row {
        name: i.name.clone(),
        severity: Some(i.impact.name().into()),
        anchor: Some(i.anchor.clone()),
        cells: vec![
            name,
            i.kind.name().into(),
            i.section.clone().unwrap_or_default().into(),
            status,
            changes,
            Cell::code(i.old_c.clone().unwrap_or_default()),
            Cell::code(i.new_c.clone().unwrap_or_default()),
            source.into(),
        ],
    }
}

/// The contents: each class, its sections (leading to their first item), and for breaks and
/// deprecations every item by name.
fn contents(diff: &ApiDiff) -> Vec<TocEntry> {
    let mut out = Vec::new();
    for class in Impact::ALL {
        let items: Vec<&ItemDiff> = diff
            .items
            .iter()
            .filter(|i| i.impact == class && !is_fold(i))
            .collect();
        let folds = diff.items.iter().filter(|i| is_fold(i)).count();
        if class == Impact::Deprecated && folds > 0 {
            out.push(TocEntry {
                label: "Folded names (`_vN` families and renames)".into(),
                target: "t-folds".into(),
                count: Some(folds),
                ..TocEntry::default()
            });
        }
        if items.is_empty() {
            continue;
        }
        let mut sections: Vec<TocEntry> = Vec::new();
        for i in &items {
            let label = i.section.clone().unwrap_or_else(|| "(no section)".into());
            let at = match sections.iter().position(|s| s.label == label) {
                Some(at) => at,
                None => {
                    sections.push(TocEntry {
                        label,
                        target: i.anchor.clone(),
                        count: Some(0),
                        ..TocEntry::default()
                    });
                    sections.len() - 1
                }
            };
            let s = &mut sections[at];
            s.count = Some(s.count.unwrap_or(0) + 1);
            if matches!(class, Impact::Break | Impact::Deprecated) {
                s.children.push(TocEntry {
                    label: i.name.clone(),
                    target: i.anchor.clone(),
                    code: true,
                    ..TocEntry::default()
                });
            }
        }
        out.push(TocEntry {
            label: class.title().into(),
            target: format!("t-{}", class.name()),
            count: Some(items.len()),
            children: sections,
            code: false,
        });
    }
    out
}

/// Builds the generic report of `diff`.
pub fn to_report(diff: &ApiDiff) -> Report {
    let item_cols = item_columns(diff);
    let mut tables: Vec<Table> = Vec::new();
    for class in Impact::ALL {
        tables.push(class_table(diff, class, &item_cols));
        if class == Impact::Break {
            tables.push(folds_table(diff, &item_cols));
        }
    }
    tables.push(renamed_table(diff));
    tables.push(not_comparable_table(diff));
    Report {
        title: format!("API diff: {} → {}", label(&diff.old), label(&diff.new)),
        meta: meta(diff),
        totals: totals_table(diff),
        contents: contents(diff),
        tables,
    }
}

/// The table of items of each kind on each side and of the items that differ by class, with
/// a last row of sums.
fn totals_table(diff: &ApiDiff) -> Table {
    let mut totals = Table {
        id: "totals".into(),
        title: "Totals".into(),
        description: Some("Items of each kind on each side, and the items that differ by class (an item's class is its most severe difference).".into()),
        columns: cols(&[
            ("kind", "Kind"),
            ("old", "Old"),
            ("new", "New"),
            ("added", "Added"),
            ("removed", "Removed"),
            ("changed", "Changed"),
            ("break", "Break"),
            ("deprecated", "Deprecated"),
            ("info", "Info"),
            ("docs", "Docs"),
            ("not_comparable", "Not comparable"),
        ]),
        ..Table::default()
    };
    let mut sum = [0usize; 10];
    for t in &diff.totals {
        let nums = [
            t.old,
            t.new,
            t.added,
            t.removed,
            t.changed,
            t.breaks,
            t.deprecated,
            t.info,
            t.docs,
            t.not_comparable,
        ];
        for (s, n) in sum.iter_mut().zip(nums) {
            *s += n;
        }
        let mut cells = vec![t.kind.name().to_string()];
        cells.extend(nums.iter().map(ToString::to_string));
        totals.rows.push(Row::plain(t.kind.name(), cells));
    }
    let mut cells = vec!["total".to_string()];
    cells.extend(sum.iter().map(ToString::to_string));
    totals.rows.push(Row::plain("total", cells));
    totals
}

/// The columns of the per-class item tables; the C columns name each side's release.
fn item_columns(diff: &ApiDiff) -> Vec<Column> {
    let (old_r, new_r) = (release(&diff.old), release(&diff.new));
    let heading = |what: &str, r: &Option<String>| match r {
        Some(r) => format!("{what} C ({r})"),
        None => format!("{what} C"),
    };
    let (old_h, new_h) = (heading("Old", &old_r), heading("New", &new_r));
    cols(&[
        ("item", "Item"),
        ("kind", "Kind"),
        ("section", "Section"),
        ("status", "Status"),
        ("changes", "What changed"),
        ("old_c", old_h.as_str()),
        ("new_c", new_h.as_str()),
        ("source", "Source"),
    ])
}

/// Whether `i` is a removed name another name stands for now (a `_vN` fold or a rename):
/// listed apart from the breaks a migrator must act on.
fn is_fold(i: &ItemDiff) -> bool {
    i.status == ItemStatus::Paired
}

/// The table of the items of class `class`, a row per item (folds apart, in
/// [`folds_table`]).
fn class_table(diff: &ApiDiff, class: Impact, item_cols: &[Column]) -> Table {
    Table {
        id: class.name().into(),
        title: class.title().into(),
        description: Some(format!("{}: {}.", class.name(), class.describe())),
        columns: item_cols.to_vec(),
        rows: diff
            .items
            .iter()
            .filter(|i| i.impact == class && !is_fold(i))
            .map(item_row)
            .collect(),
        loud: class == Impact::Break,
    }
}

/// The removed names another name stands for now (`cudaGraphAddNode_v2` → `cudaGraphAddNode`),
/// apart from the other breaks: old code naming them no longer compiles, and the fix is the
/// name shown.
fn folds_table(diff: &ApiDiff, item_cols: &[Column]) -> Table {
    Table {
        id: "folds".into(),
        title: "Folded names (`_vN` families and renames)".into(),
        description: Some("Breaks too: a removed name that another name stands for now; code naming it moves to the name shown in Status.".into()),
        columns: item_cols.to_vec(),
        rows: diff
            .items
            .iter()
            .filter(|i| is_fold(i))
            .map(item_row)
            .collect(),
        loud: false,
    }
}

/// The table of renamed-looking pairs.
fn renamed_table(diff: &ApiDiff) -> Table {
    Table {
        id: "renamed".into(),
        title: "Renamed-looking pairs".into(),
        description: Some("A removed name and the name that stands for it now: a _vN family, or the same parameters and a similar name (the removed item is listed in its class too).".into()),
        columns: cols(&[("kind", "Kind"), ("old_name", "Old name"), ("new_name", "New name"), ("similarity", "Similarity"), ("evidence", "Evidence"), ("new_source", "Source (new)")]),
        rows: diff
            .renamed
            .iter()
            .map(|r| Row {
                name: r.old_name.clone(),
                cells: vec![
                    r.kind.name().into(),
                    Cell::code(r.old_name.clone()),
                    Cell::code(r.new_name.clone()),
                    format!("{:.3}", r.similarity).into(),
                    Cell::ticks(&r.evidence),
                    r.new_source.clone().into(),
                ],
                ..Row::default()
            })
            .collect(),
        loud: false,
    }
}

/// The table of comparisons that were impossible because one side states less.
fn not_comparable_table(diff: &ApiDiff) -> Table {
    Table {
        id: "not-comparable".into(),
        title: "Not comparable".into(),
        description: Some("Comparisons of the documents that were impossible because one side states less; these are not changes.".into()),
        columns: cols(&[("kind", "Kind"), ("name", "Name"), ("comparison", "Comparison"), ("reason", "Reason"), ("source", "Source")]),
        rows: diff
            .not_comparable
            .iter()
            .map(|n| Row {
                name: n.name.clone(),
                cells: vec![
                    n.kind.name().into(),
                    Cell::code(n.name.clone()),
                    n.comparison.clone().into(),
                    n.reason.clone().into(),
                    n.source.clone().into(),
                ],
                ..Row::default()
            })
            .collect(),
        loud: false,
    }
}

/// The report's header lines: the two sides and where the classes come from.
fn meta(diff: &ApiDiff) -> Vec<Meta> {
    let classes = if diff.abi_compared {
        "from the C headers (the two releases' ABI snapshots): break, deprecated, info; what only the documents say is docs".to_string()
    } else {
        "no ABI snapshot was compared: every difference rests on the documents; removals and parameters added, removed, retyped or reordered are breaks (marked [docs]), the rest is docs"
            .to_string()
    };
    vec![
        Meta {
            label: "old".into(),
            value: side(&diff.old),
        },
        Meta {
            label: "new".into(),
            value: side(&diff.new),
        },
        Meta {
            label: "classes".into(),
            value: classes,
        },
    ]
}
