//! Turns a [`Timeline`] into the generic [`Report`]: totals per release, contents, one
//! item × release table per kind (a mark per release: `+` added, `!` a breaking change, `~` a
//! compatible change, `D` deprecated, `U` no longer deprecated, `×` removed, `·` declared
//! unchanged, blank: not declared), then every event, one row each, citeable by its anchor.
//! Also renders the timeline's JSON (the [`Timeline`] itself).

use super::{Event, EventKind, ItemLine, Timeline};
use crate::diff::{ChangeKind, Impact, ItemKind};
use crate::report::{self, Cell, Column, Meta, OutputFormat, Report, Row, Table, TocEntry};

/// Renders `timeline` in `format`.
pub fn render(timeline: &Timeline, format: OutputFormat) -> String {
    report::render_audit(timeline, format, to_report)
}

/// The one-screen terminal summary: totals per release.
pub fn summary(timeline: &Timeline) -> String {
    report::text::render_summary(&to_report(timeline), 0)
}

/// The legend of the release columns.
pub const LEGEND: &str = "+ added, ! changed (break), ~ changed (compatible), D deprecated, U no longer deprecated, × removed, · declared and unchanged, blank: not declared";

/// The mark of `line` in release `i`.
fn mark(t: &Timeline, line: &ItemLine, i: usize) -> String {
    let release = &t.releases[i].release;
    let mut out = String::new();
    for e in line.events.iter().filter(|e| &e.release == release) {
        out.push_str(match (e.event, e.impact) {
            (EventKind::Added, _) => "+",
            (EventKind::Removed, _) => "×",
            (EventKind::Deprecated, _) => "D",
            (EventKind::Undeprecated, _) => "U",
            (EventKind::Changed, Impact::Break) => "!",
            (EventKind::Changed, _) => "~",
        });
    }
    if out.is_empty() && line.present[i] {
        out.push('·');
    }
    out
}

/// An item's status in the newest release, for the class filter.
fn status(line: &ItemLine) -> &'static str {
    if line.removed_in.is_some() {
        "removed"
    } else if line.deprecated_in.is_some() {
        "deprecated"
    } else if line.events.iter().any(|e| e.impact == Impact::Break) {
        "changed"
    } else if !line.since_first_snapshot {
        "added"
    } else {
        "stable"
    }
}

fn event_anchor(release: &str, item_anchor: &str) -> String {
    format!("e{}-{item_anchor}", release.replace('.', "-"))
}

fn name_cell(line: &ItemLine) -> Cell {
    match &line.rustdoc {
        Some(href) => Cell::link(line.name.clone(), href.clone(), true),
        None => Cell::code(line.name.clone()),
    }
}

/// Builds the generic report of `t`.
pub fn to_report(t: &Timeline) -> Report {
    let mut tables = Vec::new();
    let mut contents = Vec::new();
    let item_cols = item_columns(t);
    for kind in ItemKind::ALL {
        let lines: Vec<&ItemLine> = t.items.iter().filter(|l| l.kind == kind).collect();
        if lines.is_empty() {
            continue;
        }
        let table = kind_table(t, kind, &lines, &item_cols);
        contents.push(TocEntry {
            label: kind.plural().into(),
            target: format!("t-{}", table.id),
            count: Some(lines.len()),
            ..TocEntry::default()
        });
        tables.push(table);
    }
    let (events_entry, events) = events_table(t);
    contents.push(events_entry);
    tables.push(events);
    let releases: Vec<&str> = t.releases.iter().map(|r| r.release.as_str()).collect();
    let first = releases.first().copied().unwrap_or("?");
    let last = releases.last().copied().unwrap_or("?");
    Report {
        title: format!(
            "API timeline: CUDA {first} … {last} ({} releases)",
            releases.len()
        ),
        meta: meta(&releases),
        totals: totals_table(t),
        contents,
        tables,
    }
}

fn cols(list: &[(&str, &str)]) -> Vec<Column> {
    list.iter().map(|(k, l)| Column::new(k, l)).collect()
}

/// The report's header lines: the releases read and the legend of the marks.
fn meta(releases: &[&str]) -> Vec<Meta> {
    vec![
        Meta {
            label: "releases".into(),
            value: format!(
                "{} (the releases with an ABI snapshot under abi/)",
                releases.join(", ")
            ),
        },
        Meta {
            label: "marks".into(),
            value: LEGEND.into(),
        },
    ]
}

/// The totals table: one row per release.
fn totals_table(t: &Timeline) -> Table {
    let mut totals = Table {
        id: "totals".into(),
        title: "Totals per release".into(),
        description: Some("Items each release declares, and the items it added, changed (breaks among them), deprecated and removed, against the release before it.".into()),
        columns: cols(&[
            ("release", "Release"),
            ("items", "Items"),
            ("added", "Added"),
            ("changed", "Changed"),
            ("breaks", "Breaks"),
            ("deprecated", "Deprecated"),
            ("removed", "Removed"),
        ]),
        ..Table::default()
    };
    for r in &t.totals {
        totals.rows.push(Row::plain(
            r.release.clone(),
            vec![
                r.release.clone(),
                r.items.to_string(),
                r.added.to_string(),
                r.changed.to_string(),
                r.breaks.to_string(),
                r.deprecated.to_string(),
                r.removed.to_string(),
            ],
        ));
    }
    totals
}

/// The columns of an item table: the item, its dates, one per release, its declaration.
fn item_columns(t: &Timeline) -> Vec<Column> {
    let mut item_cols = vec![
        Column::new("item", "Item"),
        Column::new("since", "Since"),
        Column::new("removed", "Removed in"),
        Column::new("deprecated", "Deprecated in"),
    ];
    for r in &t.releases {
        item_cols.push(Column::new(&format!("r{}", r.release), &r.release));
    }
    item_cols.push(Column::new("source", "Declared at"));
    item_cols
}

/// The item × release table of the items `lines`, all of `kind`.
fn kind_table(t: &Timeline, kind: ItemKind, lines: &[&ItemLine], item_cols: &[Column]) -> Table {
    Table {
        id: format!("items-{}", kind.name()),
        title: kind.plural().into(),
        description: Some(format!(
            "One row per {}; one column per release: {LEGEND}. \"≤ X\": declared by the first snapshot, so possibly older.",
            kind.name()
        )),
        columns: item_cols.to_vec(),
        rows: lines.iter().map(|l| item_row(t, l)).collect(),
        loud: false,
    }
}

/// One item's row: its name, dates, a mark per release and where it is declared.
fn item_row(t: &Timeline, l: &ItemLine) -> Row {
    // A date at the first snapshot may be older: "≤ 12.0".
    let first = t.releases.first().map(|r| r.release.as_str());
    let date = |d: &Option<String>| match d {
        Some(d) if Some(d.as_str()) == first => format!("≤ {d}"),
        Some(d) => d.clone(),
        None => String::new(),
    };
    let since = if l.since_first_snapshot {
        format!("≤ {}", l.since)
    } else {
        l.since.clone()
    };
    let mut cells = vec![
        name_cell(l),
        since.into(),
        l.removed_in.clone().unwrap_or_default().into(),
        date(&l.deprecated_in).into(),
    ];
    cells.extend((0..t.releases.len()).map(|i| Cell::text(mark(t, l, i))));
    cells.push(l.source.clone().unwrap_or_default().into());
    Row {
        name: l.name.clone(),
        severity: Some(status(l).into()),
        anchor: Some(l.anchor.clone()),
        cells,
    }
}

/// Every event of every item with its release's index, by release, kind, name and event.
fn events_by_release(t: &Timeline) -> Vec<(usize, &ItemLine, &Event)> {
    let mut events: Vec<(usize, &ItemLine, &Event)> = Vec::new();
    for l in &t.items {
        for e in &l.events {
            let at = t
                .releases
                .iter()
                .position(|r| r.release == e.release)
                .unwrap_or(0);
            events.push((at, l, e));
        }
    }
    events.sort_by(|a, b| {
        (a.0, a.1.kind, &a.1.name, a.2.event).cmp(&(b.0, b.1.kind, &b.1.name, b.2.event))
    });
    events
}

/// The events table, one row per event, and its contents entry with one child per release.
fn events_table(t: &Timeline) -> (TocEntry, Table) {
    let mut by_release: Vec<TocEntry> = Vec::new();
    let rows: Vec<Row> = events_by_release(t)
        .iter()
        .map(|(_, l, e)| {
            let anchor = event_anchor(&e.release, &l.anchor);
            match by_release.last_mut() {
                Some(last) if last.label == e.release => {
                    last.count = Some(last.count.unwrap_or(0) + 1)
                }
                _ => by_release.push(TocEntry {
                    label: e.release.clone(),
                    target: anchor.clone(),
                    count: Some(1),
                    ..TocEntry::default()
                }),
            }
            event_row(l, e, anchor)
        })
        .collect();
    let entry = TocEntry {
        label: "Events by release".into(),
        target: "t-events".into(),
        count: Some(rows.len()),
        children: by_release,
        code: false,
    };
    let table = Table {
        id: "events".into(),
        title: "Events".into(),
        description: Some("Every event of every item, by release: what the diff of the release with the one before it says, and its class from C compatibility.".into()),
        columns: cols(&[
            ("release", "Release"),
            ("item", "Item"),
            ("event", "Event"),
            ("class", "Class"),
            ("what", "What changed"),
            ("source", "Declared at"),
        ]),
        rows,
        loud: false,
    };
    (entry, table)
}

/// One event's row, at `anchor`: its release, item, event, class, changes and declaration.
fn event_row(l: &ItemLine, e: &Event, anchor: String) -> Row {
    let mut item = Cell::link(l.name.clone(), format!("#{}", l.anchor), true);
    item.append(Cell::text(format!(" ({})", l.kind.name())));
    Row {
        name: l.name.clone(),
        severity: Some(e.impact.name().into()),
        anchor: Some(anchor),
        cells: vec![
            e.release.clone().into(),
            item,
            e.event.name().into(),
            e.impact.name().into(),
            changes_cell(e),
            e.source.clone().unwrap_or_default().into(),
        ],
    }
}

/// What changed in an event: each change's name, part and pairing, separated by `; `.
fn changes_cell(e: &Event) -> Cell {
    let mut what = Cell::default();
    for (n, c) in e.changes.iter().enumerate() {
        if n > 0 {
            what.append(Cell::text("; "));
        }
        what.append(Cell::text(c.change.name()));
        if let Some(p) = &c.part {
            what.append(Cell::text(" "));
            if c.change == ChangeKind::SignatureChanged {
                what.append(Cell::ticks(p));
            } else {
                what.append(Cell::code(p.clone()));
            }
        }
        if let Some(to) = &c.paired_with {
            what.append(Cell::text(" → "));
            what.append(Cell::code(to.clone()));
        }
    }
    what
}
