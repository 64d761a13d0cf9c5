//! The coverage audit: which functions the documentation describes, which the ABI source
//! declares (and so the generated crate binds), and which a live `libcudart` exports.
//!
//! [`classify`] puts every function name of the union of the three into exactly one
//! [`Class`]:
//!
//! | documented | bound (ABI) | exported | class |
//! |---|---|---|---|
//! | yes | yes | yes | [`Class::Bound`] |
//! | yes | yes | no  | [`Class::NotExported`] (the crate binds it; this library is too old) |
//! | yes | no  | any | [`Class::NoAbi`] (not bound; `exported` tells whether the library has it) |
//! | no  | any | yes | one of the `Undocumented*` groups, by the shape of the name ([`group`]) |
//! | no  | yes | no  | [`Class::AbiOnly`] |
//!
//! Each row also carries the three facts themselves, so a reader can regroup. ABI functions
//! without documentation that the library exports are in the `Undocumented*` groups (their
//! `in_abi` is true), so the ABI-only class is what the ABI declares and neither the docs nor
//! this library have; [`Totals::abi_undocumented`] counts all of them.
//!
//! The result is serialisable; its JSON shape is documented by
//! `docs/coverage-report.schema.json`. Reading the library's symbols is [`exports`];
//! laying the result out is [`render`]. This module prints nothing and opens no library.

use std::collections::{BTreeMap, BTreeSet};

use foldhash::HashMap;

use crate::library::Library;
use serde::{Deserialize, Serialize};

use crate::abi::Abi;
use crate::bind::Bindings;
use crate::ir::Api;

pub mod exports;
pub mod group;
pub mod live;
pub use cuda_loader::elf as loadable;
pub mod render;

pub use exports::{exports_from_bytes, read_exports, ExportError, Exports};

/// Version of the JSON shape; bumped on incompatible changes to the schema.
pub const SCHEMA_VERSION: u32 = 1;

/// Section name used for documented functions that state no section.
pub const NO_SECTION: &str = "(no section)";

/// Where a function name stands between the docs, the ABI and the library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Documented, declared by the ABI (bound in the crate) and exported by the library.
    Bound,
    /// Documented and bound, but this library does not export it: it needs a newer runtime.
    NotExported,
    /// Documented, but the ABI source does not declare it, so the crate does not bind it.
    NoAbi,
    /// Exported, undocumented: a per-thread default-stream variant (`…_ptsz`, `…_ptds`).
    UndocumentedPerThread,
    /// Exported, undocumented: a versioned entry point (`…_v2`, `…_vN`, `__f_13_5`).
    UndocumentedVersioned,
    /// Exported, undocumented: an internal hook (`__cuda…`).
    UndocumentedInternal,
    /// Exported, undocumented, none of the above shapes.
    UndocumentedOther,
    /// Declared by the ABI only: neither documented nor exported by this library.
    AbiOnly,
}

impl Class {
    /// All classes, in report order.
    pub const ALL: [Class; 8] = [
        Class::Bound,
        Class::NotExported,
        Class::NoAbi,
        Class::UndocumentedPerThread,
        Class::UndocumentedVersioned,
        Class::UndocumentedInternal,
        Class::UndocumentedOther,
        Class::AbiOnly,
    ];

    /// The kebab-case name used in JSON, reports and `--fail-on`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Bound => "bound",
            Class::NotExported => "not-exported",
            Class::NoAbi => "no-abi",
            Class::UndocumentedPerThread => "undocumented-per-thread",
            Class::UndocumentedVersioned => "undocumented-versioned",
            Class::UndocumentedInternal => "undocumented-internal",
            Class::UndocumentedOther => "undocumented-other",
            Class::AbiOnly => "abi-only",
        }
    }

    /// One line saying what the class holds.
    pub fn describe(self) -> &'static str {
        match self {
            Class::Bound => "documented, exported and bound",
            Class::NotExported => {
                "documented and bound, not exported by this library (needs a newer runtime)"
            }
            Class::NoAbi => "documented, no ABI declaration (not bound)",
            Class::UndocumentedPerThread => {
                "exported, undocumented: per-thread default-stream variants (_ptsz/_ptds)"
            }
            Class::UndocumentedVersioned => "exported, undocumented: versioned entry points (_vN)",
            Class::UndocumentedInternal => "exported, undocumented: internal (__cuda*)",
            Class::UndocumentedOther => "exported, undocumented: other",
            Class::AbiOnly => "declared by the ABI only (not documented, not exported)",
        }
    }

    /// A short title (at most 40 characters) for headings and the terminal summary.
    pub fn title(self) -> &'static str {
        match self {
            Class::Bound => "Bound (documented, exported)",
            Class::NotExported => "Not exported (needs a newer runtime)",
            Class::NoAbi => "Documented, no ABI (not bound)",
            Class::UndocumentedPerThread => "Undocumented: per-thread variants",
            Class::UndocumentedVersioned => "Undocumented: versioned entry points",
            Class::UndocumentedInternal => "Undocumented: internal (__cuda*)",
            Class::UndocumentedOther => "Undocumented: other exports",
            Class::AbiOnly => "ABI only (no docs, not exported)",
        }
    }

    /// Whether the class holds documented functions.
    pub fn is_documented(self) -> bool {
        matches!(self, Class::Bound | Class::NotExported | Class::NoAbi)
    }

    /// Whether the class holds exported, undocumented functions.
    pub fn is_undocumented_export(self) -> bool {
        matches!(
            self,
            Class::UndocumentedPerThread
                | Class::UndocumentedVersioned
                | Class::UndocumentedInternal
                | Class::UndocumentedOther
        )
    }

    /// The class named `name` (as [`Class::name`] writes it).
    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The classes a `--fail-on` word selects: a class name, or `undocumented` for the four
    /// undocumented groups. `None` for an unknown word.
    pub fn select(word: &str) -> Option<Vec<Class>> {
        if word == "undocumented" {
            return Some(
                Class::ALL
                    .into_iter()
                    .filter(|c| c.is_undocumented_export())
                    .collect(),
            );
        }
        Class::from_name(word).map(|c| vec![c])
    }
}

/// One function name and where it stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub name: String,
    pub class: Class,
    /// The documentation describes it.
    pub documented: bool,
    /// The ABI source declares it.
    pub in_abi: bool,
    /// The library exports it.
    pub exported: bool,
    /// The join bound it (the generated crate has it).
    pub bound: bool,
    /// The documentation section (documented functions only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// Where the name is stated: the docs' `file:line`, else the ABI source's `file:line`,
    /// else the library file's name.
    pub source: String,
    /// For an undocumented variant (`f_v2`, `f_ptsz`): the documented function it is a
    /// variant of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant_of: Option<String>,
    /// Why a documented function is not bound, as the join says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Coverage of one documentation section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SectionStats {
    pub section: String,
    /// Documented functions in the section.
    pub documented: usize,
    pub bound: usize,
    pub not_exported: usize,
    pub no_abi: usize,
    /// `bound` as a percentage of `documented`, one decimal.
    pub bound_percent: f64,
}

/// How many names a class holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassCount {
    pub class: Class,
    pub count: usize,
}

/// Totals over all names.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Names in the union of docs, ABI and library.
    pub names: usize,
    pub documented: usize,
    pub in_abi: usize,
    pub exported: usize,
    /// Documented functions the crate binds (classes bound and not-exported).
    pub bound: usize,
    /// Documented functions of class bound, as a percentage of `documented`, one decimal.
    pub bound_percent: f64,
    /// ABI functions the documentation does not describe (exported or not).
    pub abi_undocumented: usize,
    /// One entry per class, in [`Class::ALL`] order (zeros included).
    pub classes: Vec<ClassCount>,
}

impl Totals {
    /// The count of `class`.
    pub fn count(&self, class: Class) -> usize {
        self.classes
            .iter()
            .find(|c| c.class == class)
            .map_or(0, |c| c.count)
    }
}

/// The library audited.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LibraryInfo {
    pub path: String,
    /// Which library it is (absent: the runtime).
    #[serde(default, skip_serializing_if = "Library::is_cudart")]
    pub kind: Library,
    /// Its version query's answer ([`Library::version_function`]: `cudaRuntimeGetVersion`,
    /// `13020`), when it could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i32>,
    /// The version as `major.minor` (`13.2`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_text: Option<String>,
    /// Exported functions read from `.dynsym`.
    pub exported_functions: usize,
}

/// One documentation input.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DocInfo {
    pub file: String,
    pub format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
}

/// The whole coverage audit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    pub schema_version: u32,
    pub library: LibraryInfo,
    /// The ABI source (`cudarc 0.19.10 …, feature cuda-13020`).
    pub abi_source: String,
    pub documents: Vec<DocInfo>,
    pub totals: Totals,
    /// Documentation sections in documentation order.
    pub sections: Vec<SectionStats>,
    /// Every name once, sorted by class (in [`Class::ALL`] order), then name.
    pub rows: Vec<Row>,
}

impl Coverage {
    /// The rows of `class`.
    pub fn rows_of(&self, class: Class) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(move |r| r.class == class)
    }

    /// The row named `name`.
    pub fn row(&self, name: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.name == name)
    }
}

/// `13020` → `13.2`.
pub fn version_text(version: i32) -> String {
    format!("{}.{}", version / 1000, (version % 1000) / 10)
}

/// Joins `api` with `abi` ([`crate::bind::join()`]) and classifies (see [`classify`]).
pub fn audit(api: &Api, abi: &Abi, exports: &Exports, version: Option<i32>) -> Coverage {
    let bindings = crate::bind::join(api, abi);
    classify(api, abi, &bindings, exports, version)
}

/// Classifies every function name of `api` (the documentation), `abi` and `exports` (the
/// library, whose `cudaRuntimeGetVersion` is `version`). `bindings` is the join of `api` and
/// `abi`.
pub fn classify(
    api: &Api,
    abi: &Abi,
    bindings: &Bindings,
    exports: &Exports,
    version: Option<i32>,
) -> Coverage {
    let mut rows = Sources::new(api, abi, bindings, exports).rows();
    rows.sort_by(|a, b| (a.class, &a.name).cmp(&(b.class, &b.name)));

    let totals = totals(&rows);
    let sections = sections(api, &rows);
    Coverage {
        schema_version: SCHEMA_VERSION,
        library: LibraryInfo {
            path: exports.path.clone(),
            kind: abi.library,
            version,
            version_text: version.map(version_text),
            exported_functions: exports.functions.len(),
        },
        abi_source: if bindings.abi_source.is_empty() {
            abi.file.clone()
        } else {
            bindings.abi_source.clone()
        },
        documents: api
            .documents
            .iter()
            .map(|d| DocInfo {
                file: shown_file(&d.file),
                format: d.format.name().to_string(),
                release: d.release.as_ref().map(ToString::to_string),
            })
            .collect(),
        totals,
        sections,
        rows,
    }
}

/// What [`classify`] builds each name's row from: the documentation, the join, the ABI and
/// the library.
struct Sources<'a> {
    /// Documented functions, first occurrence of each name.
    docs: BTreeMap<&'a str, &'a crate::ir::Function>,
    bound: BTreeSet<&'a str>,
    /// Why a documented function is not bound.
    reasons: HashMap<&'a str, &'a str>,
    abi: &'a Abi,
    exports: &'a Exports,
    /// The library's file name, the source shown for names it alone has.
    library_file: String,
    abi_file: String,
}

impl<'a> Sources<'a> {
    fn new(api: &'a Api, abi: &'a Abi, bindings: &'a Bindings, exports: &'a Exports) -> Self {
        let mut docs: BTreeMap<&str, &crate::ir::Function> = BTreeMap::new();
        for f in &api.functions {
            docs.entry(f.name.as_str()).or_insert(f);
        }
        let bound: BTreeSet<&str> = bindings.functions.iter().map(|f| f.name.as_str()).collect();
        let reasons: HashMap<&str, &str> = bindings
            .unbound
            .iter()
            .filter(|u| u.kind == "function")
            .map(|u| (u.name.as_str(), u.reason.as_str()))
            .collect();
        let library_file = std::path::Path::new(&exports.path).file_name().map_or_else(
            || exports.path.clone(),
            |n| n.to_string_lossy().into_owned(),
        );
        Sources {
            docs,
            bound,
            reasons,
            abi,
            exports,
            library_file,
            abi_file: short_abi_file(&abi.file),
        }
    }

    /// One row per function name of the documentation, the ABI and the library, by name.
    fn rows(&self) -> Vec<Row> {
        let mut names: BTreeSet<&str> = self.docs.keys().copied().collect();
        names.extend(self.abi.functions.keys().map(String::as_str));
        names.extend(self.exports.functions.iter().map(String::as_str));
        names.iter().map(|&name| self.row(name)).collect()
    }

    /// The row of `name`: its class, where it is declared, the documented function it is a
    /// variant of, and why it is not bound.
    fn row(&self, name: &str) -> Row {
        let doc = self.docs.get(name);
        let abi_fn = self.abi.functions.get(name);
        let exported = self.exports.contains(name);
        let is_bound = self.bound.contains(name);
        let class = match (doc.is_some(), is_bound, exported, abi_fn.is_some()) {
            (true, true, true, _) => Class::Bound,
            (true, true, false, _) => Class::NotExported,
            (true, false, _, _) => Class::NoAbi,
            (false, _, true, _) => group::undocumented_class(name),
            (false, _, false, _) => Class::AbiOnly,
        };
        let source = match (doc, abi_fn) {
            (Some(f), _) => shown_source(&f.source),
            (None, Some(a)) => match &a.header {
                Some(header) => format!("{header}:{}", a.line),
                None => format!("{}:{}", self.abi_file, a.line),
            },
            (None, None) => self.library_file.clone(),
        };
        let variant_of = if doc.is_none() {
            group::bases(name)
                .into_iter()
                .find(|b| self.docs.contains_key(b))
                .map(String::from)
        } else {
            None
        };
        let note = if doc.is_some() && !is_bound {
            self.reasons.get(name).map(|r| r.to_string())
        } else {
            None
        };
        Row {
            name: name.to_string(),
            class,
            documented: doc.is_some(),
            in_abi: abi_fn.is_some(),
            exported,
            bound: is_bound,
            section: doc.map(|f| f.section.clone().unwrap_or_else(|| NO_SECTION.to_string())),
            source,
            variant_of,
            note,
        }
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (1000.0 * part as f64 / whole as f64).round() / 10.0
    }
}

fn totals(rows: &[Row]) -> Totals {
    let count = |class: Class| rows.iter().filter(|r| r.class == class).count();
    let documented = rows.iter().filter(|r| r.documented).count();
    Totals {
        names: rows.len(),
        documented,
        in_abi: rows.iter().filter(|r| r.in_abi).count(),
        exported: rows.iter().filter(|r| r.exported).count(),
        bound: rows.iter().filter(|r| r.documented && r.bound).count(),
        bound_percent: percent(count(Class::Bound), documented),
        abi_undocumented: rows.iter().filter(|r| r.in_abi && !r.documented).count(),
        classes: Class::ALL
            .into_iter()
            .map(|class| ClassCount {
                class,
                count: count(class),
            })
            .collect(),
    }
}

/// Per-section counts, sections in the order the documentation lists them, then sections
/// only functions name, in order of first use. Linear in the rows.
fn sections(api: &Api, rows: &[Row]) -> Vec<SectionStats> {
    let mut order: Vec<String> = Vec::new();
    let mut seen: foldhash::HashSet<String> = foldhash::HashSet::default();
    let named = api.sections.iter().map(|s| s.name.clone());
    let used = api
        .functions
        .iter()
        .map(|f| f.section.clone().unwrap_or_else(|| NO_SECTION.to_string()));
    for s in named.chain(used) {
        if seen.insert(s.clone()) {
            order.push(s);
        }
    }
    let mut by_section: HashMap<&str, Vec<&Row>> = HashMap::default();
    for r in rows {
        if let Some(s) = r.section.as_deref() {
            by_section.entry(s).or_default().push(r);
        }
    }
    order
        .into_iter()
        .filter_map(|section| {
            let in_section = by_section.get(section.as_str())?;
            let count = |c: Class| in_section.iter().filter(|r| r.class == c).count();
            let bound = count(Class::Bound);
            Some(SectionStats {
                documented: in_section.len(),
                bound,
                not_exported: count(Class::NotExported),
                no_abi: count(Class::NoAbi),
                bound_percent: percent(bound, in_section.len()),
                section,
            })
        })
        .collect()
}

/// A documentation file shown from `docs-src/` on when it lies in one, so reports do not
/// depend on where the checkout lives.
fn shown_file(file: &str) -> String {
    match file.find("docs-src/") {
        Some(at) => file[at..].to_string(),
        None => file.to_string(),
    }
}

fn shown_source(source: &crate::ir::Source) -> String {
    let mut s = source.clone();
    s.file = shown_file(&s.file);
    s.to_string()
}

/// The ABI file shown from the crate folder on (`cudarc-0.19.10/src/runtime/sys/mod.rs`), so
/// reports do not depend on where the cargo registry lives.
fn short_abi_file(file: &str) -> String {
    match file.find("cudarc-") {
        Some(at) => file[at..].to_string(),
        None => file.to_string(),
    }
}
