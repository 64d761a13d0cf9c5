//! Turns a [`Coverage`] into the generic [`Report`] (totals by class, coverage by docs
//! section, then one table per class) for the Markdown, HTML and terminal renderers, and
//! renders the coverage's JSON (the [`Coverage`] itself, as documented by
//! `docs/coverage-report.schema.json`).

use super::{Class, Coverage, Row};
use crate::report::{self, Cell, Column, Meta, OutputFormat, Report, Table};

/// Renders `coverage` in `format`.
pub fn render(coverage: &Coverage, format: OutputFormat) -> String {
    report::render_audit(coverage, format, to_report)
}

/// The coverage as pretty JSON.
pub fn to_json(coverage: &Coverage) -> String {
    report::pretty_json(coverage)
}

/// The one-screen terminal summary: totals by class, the per-class row counts and the first
/// functions the library lacks.
pub fn summary(coverage: &Coverage) -> String {
    report::text::render_summary(&to_report(coverage), 10)
}

fn cols(list: &[(&str, &str)]) -> Vec<Column> {
    list.iter().map(|(k, l)| Column::new(k, l)).collect()
}

/// Percentage text with one decimal.
fn pct(part: usize, whole: usize) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.1}", 100.0 * part as f64 / whole as f64)
    }
}

/// Builds the generic report of `coverage`.
pub fn to_report(c: &Coverage) -> Report {
    let lib_name = std::path::Path::new(&c.library.path)
        .file_name()
        .map_or_else(
            || c.library.path.clone(),
            |n| n.to_string_lossy().into_owned(),
        );
    let title = match &c.library.version_text {
        Some(v) => format!("API coverage: {lib_name} ({} {v})", c.library.kind.kind()),
        None => format!("API coverage: {lib_name}"),
    };
    let mut tables = vec![sections_table(c)];
    for class in Class::ALL {
        let rows: Vec<&Row> = c.rows_of(class).collect();
        tables.push(class_table(class, &rows));
    }
    Report {
        title,
        meta: meta(c),
        totals: totals_table(c),
        contents: Vec::new(),
        tables,
    }
}

/// The report's header lines: the library, the ABI, the documents and the names counted.
fn meta(c: &Coverage) -> Vec<Meta> {
    let t = &c.totals;
    let mut meta = vec![
        Meta {
            label: "Library".into(),
            value: match c.library.version {
                Some(v) => format!(
                    "{} ({} = {v}, {} exported functions)",
                    c.library.path,
                    c.library.kind.version_function().0,
                    c.library.exported_functions
                ),
                None => format!(
                    "{} (version unknown, {} exported functions)",
                    c.library.path, c.library.exported_functions
                ),
            },
        },
        Meta {
            label: "ABI".into(),
            value: c.abi_source.clone(),
        },
    ];
    let docs: Vec<String> = c
        .documents
        .iter()
        .map(|d| match &d.release {
            Some(r) => format!("{} ({}, {r})", d.file, d.format),
            None => format!("{} ({})", d.file, d.format),
        })
        .collect();
    meta.push(Meta {
        label: "Documents".into(),
        value: if docs.is_empty() {
            "none".into()
        } else {
            docs.join("; ")
        },
    });
    meta.push(Meta {
        label: "Names".into(),
        value: format!(
            "{} in all: {} documented, {} declared by the ABI ({} of them undocumented), {} exported",
            t.names, t.documented, t.in_abi, t.abi_undocumented, t.exported
        ),
    });
    meta.push(Meta {
        label: "Reconciliation".into(),
        value: reconciliation(t),
    });
    meta
}

/// How the documented functions split, in the words of `cargo xtask codegen`'s summary, so
/// that the two reports' counts add up: its "bound functions (… documented)" are the classes
/// bound and not-exported, its "documented, without ABI" the class no-abi.
pub fn reconciliation(t: &super::Totals) -> String {
    let bound = t.count(Class::Bound);
    let not_exported = t.count(Class::NotExported);
    let no_abi = t.count(Class::NoAbi);
    format!(
        "{} documented functions = {} bound by the crate ({bound} exported by this library + {not_exported} not exported) + {no_abi} without ABI; `cargo xtask codegen` prints the same split (\"documented functions: … = N bound + M without ABI + K not C functions of the library\": its N is bound + not-exported, its M + K is no-abi), and its \"bound functions\" total adds the functions only the ABI declares",
        t.documented,
        bound + not_exported,
    )
}

/// The totals table: one row per class with its share, then the total.
fn totals_table(c: &Coverage) -> Table {
    let t = &c.totals;
    let mut totals = Table {
        id: "totals".into(),
        title: "Totals".into(),
        columns: cols(&[("class", "Class"), ("count", "Count"), ("percent", "%"), ("of", "Of"), ("what", "What")]),
        description: Some("Every name of the union of docs, ABI and library is in exactly one class. % is of the documented functions for the documented classes, of the exported functions for the undocumented ones, of the ABI's functions for ABI-only.".into()),
        ..Table::default()
    };
    for class in Class::ALL {
        let n = t.count(class);
        let (whole, of) = if class.is_documented() {
            (t.documented, "documented")
        } else if class.is_undocumented_export() {
            (t.exported, "exported")
        } else {
            (t.in_abi, "ABI")
        };
        totals.rows.push(report::Row::plain(
            class.name(),
            vec![
                class.name().into(),
                n.to_string(),
                pct(n, whole),
                of.into(),
                class.title().into(),
            ],
        ));
    }
    totals.rows.push(report::Row::plain(
        "total",
        vec![
            "total".into(),
            t.names.to_string(),
            format!("{:.1}", t.bound_percent),
            "documented".into(),
            format!(
                "{} of {} documented bound and exported",
                t.count(Class::Bound),
                t.documented
            ),
        ],
    ));
    totals
}

/// The coverage of each documentation section.
fn sections_table(c: &Coverage) -> Table {
    let mut sections = Table {
        id: "sections".into(),
        title: "Coverage by documentation section".into(),
        description: Some("Documented functions of each section and where they stand; % is bound and exported over documented.".into()),
        columns: cols(&[
            ("section", "Section"),
            ("documented", "Documented"),
            ("bound", "Bound"),
            ("not-exported", "Not exported"),
            ("no-abi", "No ABI"),
            ("percent", "% bound"),
        ]),
        ..Table::default()
    };
    for s in &c.sections {
        sections.rows.push(report::Row::plain(
            s.section.clone(),
            vec![
                s.section.clone(),
                s.documented.to_string(),
                s.bound.to_string(),
                s.not_exported.to_string(),
                s.no_abi.to_string(),
                format!("{:.1}", s.bound_percent),
            ],
        ));
    }
    sections
}

fn yes(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

fn class_table(class: Class, rows: &[&Row]) -> Table {
    let columns = cols(&[
        ("name", "Name"),
        ("class", "Class"),
        ("section", "Docs section"),
        ("source", "Source"),
        ("abi", "ABI"),
        ("exported", "Exported"),
        ("variant-of", "Variant of"),
        ("note", "Note"),
    ]);
    Table {
        id: class.name().into(),
        title: class.title().to_string(),
        description: Some(format!("{}: {}.", class.name(), class.describe())),
        columns,
        rows: rows
            .iter()
            .map(|r| report::Row {
                name: r.name.clone(),
                severity: (class == Class::NotExported).then(|| "change".to_string()),
                anchor: None,
                cells: vec![
                    Cell::code(r.name.clone()),
                    class.name().into(),
                    r.section.clone().unwrap_or_default().into(),
                    r.source.clone().into(),
                    yes(r.in_abi).into(),
                    yes(r.exported).into(),
                    Cell::code(r.variant_of.clone().unwrap_or_default()),
                    Cell::ticks(r.note.as_deref().unwrap_or_default()),
                ],
            })
            .collect(),
        // The functions a caller of the crate would find missing at run time.
        loud: class == Class::NotExported,
    }
}
