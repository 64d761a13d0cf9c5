//! The one-screen summary printed after reading documents: item counts per kind for each
//! source document, diagnostics by severity with the first few errors and warnings, and the
//! number of document lines reported as unread (see [`crate::parse::unread`]).

use std::fmt::Write;

use indexmap::IndexMap;

use crate::diag::{Counts, Severity};
use crate::ir::{Api, Source};

/// How many diagnostics of each severity the summary prints in full.
const SHOWN: usize = 8;

/// Counts of each kind of item attributed to one document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KindCounts {
    pub functions: usize,
    pub params: usize,
    pub enums: usize,
    pub variants: usize,
    pub structs: usize,
    pub fields: usize,
    pub typedefs: usize,
    pub constants: usize,
    pub aliases: usize,
    pub entries: usize,
    pub sections: usize,
}

/// Item counts per document (by the item's winning `source`).
pub fn counts_per_document(api: &Api) -> IndexMap<String, KindCounts> {
    let mut map: IndexMap<String, KindCounts> = api
        .documents
        .iter()
        .map(|d| (d.file.clone(), KindCounts::default()))
        .collect();
    fn at<'m>(map: &'m mut IndexMap<String, KindCounts>, s: &Source) -> &'m mut KindCounts {
        map.entry(s.file.clone()).or_default()
    }
    for f in &api.functions {
        let c = at(&mut map, &f.source);
        c.functions += 1;
        c.params += f.params.as_ref().map_or(0, Vec::len);
    }
    for e in &api.enums {
        let c = at(&mut map, &e.source);
        c.enums += 1;
        c.variants += e.variants.len();
    }
    for s in &api.structs {
        let c = at(&mut map, &s.source);
        c.structs += 1;
        c.fields += s.fields.len();
    }
    for t in &api.typedefs {
        at(&mut map, &t.source).typedefs += 1;
    }
    for k in &api.constants {
        at(&mut map, &k.source).constants += 1;
    }
    for a in &api.aliases {
        at(&mut map, &a.source).aliases += 1;
    }
    for e in &api.entries {
        at(&mut map, &e.source).entries += 1;
    }
    for s in &api.sections {
        at(&mut map, &s.source).sections += 1;
    }
    map
}

impl KindCounts {
    /// The counts in table order (see [`COLUMNS`]).
    fn values(&self) -> [usize; 11] {
        [
            self.functions,
            self.params,
            self.enums,
            self.variants,
            self.structs,
            self.fields,
            self.typedefs,
            self.constants,
            self.aliases,
            self.entries,
            self.sections,
        ]
    }

    fn add(&mut self, c: &KindCounts) {
        self.functions += c.functions;
        self.params += c.params;
        self.enums += c.enums;
        self.variants += c.variants;
        self.structs += c.structs;
        self.fields += c.fields;
        self.typedefs += c.typedefs;
        self.constants += c.constants;
        self.aliases += c.aliases;
        self.entries += c.entries;
        self.sections += c.sections;
    }
}

/// The count columns: heading and width.
const COLUMNS: [(&str, usize); 11] = [
    ("funcs", 6),
    ("params", 6),
    ("enums", 5),
    ("members", 7),
    ("struct", 6),
    ("fields", 6),
    ("tydef", 6),
    ("const", 6),
    ("alias", 5),
    ("entry", 6),
    ("sect", 5),
];

/// One table line: `name` in 48 columns, then `cells` right-aligned in their columns.
fn table_line(out: &mut String, name: &str, cells: &[String]) {
    let _ = write!(out, "{name:<48}");
    for ((_, width), cell) in COLUMNS.iter().zip(cells) {
        let _ = write!(out, " {cell:>width$}");
    }
    out.push('\n');
}

/// Renders the summary.
pub fn render(api: &Api) -> String {
    let mut out = String::new();
    let headings: Vec<String> = COLUMNS.iter().map(|(h, _)| h.to_string()).collect();
    table_line(&mut out, "document", &headings);
    let cells = |c: &KindCounts| c.values().map(|v| v.to_string()).to_vec();
    let per = counts_per_document(api);
    let mut total = KindCounts::default();
    // Each document's release by file, looked up once per line: linear in the documents.
    let mut releases: foldhash::HashMap<&str, _> = foldhash::HashMap::default();
    for d in &api.documents {
        releases
            .entry(d.file.as_str())
            .or_insert(d.release.as_ref());
    }
    for (file, c) in &per {
        let release = releases
            .get(file.as_str())
            .copied()
            .flatten()
            .map(|r| format!(" [{r}]"))
            .unwrap_or_default();
        let name = shorten(&format!("{file}{release}"), 48);
        table_line(&mut out, &name, &cells(c));
        total.add(c);
    }
    if per.len() > 1 {
        table_line(&mut out, "total (merged)", &cells(&total));
    }
    let counts = Counts::of(&api.diagnostics);
    let _ = writeln!(
        out,
        "diagnostics: {} error(s), {} warning(s), {} note(s); unread lines: {}",
        counts.errors, counts.warnings, counts.notes, counts.unread
    );
    for sev in [Severity::Error, Severity::Warning] {
        let list: Vec<_> = api
            .diagnostics
            .iter()
            .filter(|d| d.severity == sev)
            .collect();
        for d in list.iter().take(SHOWN) {
            let _ = writeln!(out, "  {d}");
        }
        if list.len() > SHOWN {
            let _ = writeln!(
                out,
                "  … and {} more {}s (all are in the JSON)",
                list.len() - SHOWN,
                sev.name()
            );
        }
    }
    out
}

fn shorten(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        s.to_string()
    } else {
        let tail: String = s.chars().skip(n - (width - 1)).collect();
        format!("…{tail}")
    }
}
