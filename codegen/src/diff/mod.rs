//! The release diff: what changed between two [`Api`]s (two releases, two publishers, or a
//! document and a newer one).
//!
//! [`diff`] reports items added and removed (plain set differences by kind and short name),
//! renamed-looking function pairs (same parameter list, similar name), and changes to items
//! both sides have: parameters added/removed/renamed/reordered/retyped and inputs becoming
//! outputs; enum members added, removed or renumbered (renumbered is an ABI break); struct
//! and typedef fields added, removed, reordered or retyped; constants whose value changed (an
//! ABI break too); alias targets; items that moved section. Where one side states less
//! (names only, no parameters, no type, no value), the comparison is listed under
//! `not_comparable` with the reason instead of being reported as a change.
//!
//! The result is serialisable; its JSON shape is documented by `docs/diff-report.schema.json`.
//! Every list is in a deterministic order (kind, then name, then the item's own order).
//! Rendering lives in [`render`]; this module does not print anything.

use serde::{Deserialize, Serialize};

use crate::ir::{Api, Source};

mod fields;
mod functions;
mod items;
mod members;
pub mod render;
pub mod similarity;
mod typecmp;

pub use functions::RENAME_THRESHOLD;
pub use typecmp::same_type;

/// Version of the JSON shape; bumped on incompatible changes to the schema.
pub const SCHEMA_VERSION: u32 = 1;

/// Kinds of items compared.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ItemKind {
    #[default]
    Function,
    Enum,
    Struct,
    Typedef,
    Constant,
    Alias,
}

impl ItemKind {
    /// All kinds, in report order.
    pub const ALL: [ItemKind; 6] = [
        ItemKind::Function,
        ItemKind::Enum,
        ItemKind::Struct,
        ItemKind::Typedef,
        ItemKind::Constant,
        ItemKind::Alias,
    ];

    /// The name used in JSON and reports.
    pub fn name(self) -> &'static str {
        match self {
            ItemKind::Function => "function",
            ItemKind::Enum => "enum",
            ItemKind::Struct => "struct",
            ItemKind::Typedef => "typedef",
            ItemKind::Constant => "constant",
            ItemKind::Alias => "alias",
        }
    }
}

/// How much a change matters to users of the API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Impact {
    /// An ABI break: a value compiled into callers changed (enum member renumbered, constant
    /// value changed).
    Break,
    /// A change callers may have to follow (a parameter removed or retyped, …).
    Change,
    /// Something new that existing callers do not notice (a member or parameter added).
    Info,
}

impl Impact {
    /// Lower-case name as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Impact::Break => "break",
            Impact::Change => "change",
            Impact::Info => "info",
        }
    }
}

/// What changed about an item both sides have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    ParamAdded,
    ParamRemoved,
    /// Same position and type, another name.
    ParamRenamed,
    /// The inputs both sides have appear in another order.
    ParamsReordered,
    ParamRetyped,
    InputBecameOutput,
    OutputBecameInput,
    ReturnRetyped,
    MemberAdded,
    MemberRemoved,
    /// Same member name, another value: an ABI break.
    MemberRenumbered,
    FieldAdded,
    FieldRemoved,
    FieldsReordered,
    FieldRetyped,
    /// A constant's value changed: an ABI break.
    ValueChanged,
    AliasTargetChanged,
    TypedefKindChanged,
    SectionMoved,
}

impl ChangeKind {
    /// The kebab-case name as in JSON.
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default()
    }
}

/// One document of a side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DocInfo {
    pub file: String,
    pub format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
}

/// What one side of the diff is: its documents and item counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SideInfo {
    /// A label for the side (the path given on the command line), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub documents: Vec<DocInfo>,
    pub functions: usize,
    pub enums: usize,
    pub structs: usize,
    pub typedefs: usize,
    pub constants: usize,
    pub aliases: usize,
}

/// An item only one side has.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItemRef {
    pub kind: ItemKind,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// `file:line` where the side that has it states it.
    pub source: String,
    /// The other name of a renamed-looking pair this item is part of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub looks_renamed: Option<String>,
}

/// A removed and an added item that look like one item renamed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rename {
    pub kind: ItemKind,
    pub old_name: String,
    pub new_name: String,
    /// Normalized Levenshtein similarity of the names, 0..=1, rounded to 3 decimals.
    pub similarity: f64,
    /// Why they are paired (`same parameters`).
    pub evidence: String,
    pub old_source: String,
    pub new_source: String,
}

/// One change to an item both sides have.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub kind: ItemKind,
    pub name: String,
    /// The parameter, member or field concerned, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    pub change: ChangeKind,
    pub impact: Impact,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    pub old_source: String,
    pub new_source: String,
}

/// A comparison that could not be made because one side states less.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotComparable {
    pub kind: ItemKind,
    pub name: String,
    /// What could not be compared (`parameters`, `type of parameter stream`, `members`).
    pub comparison: String,
    /// Why (`old side states names only`).
    pub reason: String,
    /// `file:line` of the side that states less.
    pub source: String,
}

/// Counts for one kind of item.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindTotals {
    pub kind: ItemKind,
    pub old: usize,
    pub new: usize,
    pub added: usize,
    pub removed: usize,
    pub renamed: usize,
    /// Items with at least one change.
    pub changed: usize,
    /// Change entries.
    pub changes: usize,
    pub breaks: usize,
    pub not_comparable: usize,
}

/// The diff of two APIs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiDiff {
    pub schema_version: u32,
    pub old: SideInfo,
    pub new: SideInfo,
    /// One entry per [`ItemKind`], in [`ItemKind::ALL`] order.
    pub totals: Vec<KindTotals>,
    pub added: Vec<ItemRef>,
    pub removed: Vec<ItemRef>,
    pub renamed: Vec<Rename>,
    pub changes: Vec<Change>,
    pub not_comparable: Vec<NotComparable>,
}

impl ApiDiff {
    /// Whether nothing was added, removed or changed (not-comparable entries do not count).
    pub fn is_unchanged(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changes.is_empty()
    }

    /// Number of ABI breaks.
    pub fn breaks(&self) -> usize {
        self.changes
            .iter()
            .filter(|c| c.impact == Impact::Break)
            .count()
    }

    /// Whether anything was removed: an item, or a parameter, member or field of one.
    pub fn has_removals(&self) -> bool {
        !self.removed.is_empty()
            || self.changes.iter().any(|c| {
                matches!(
                    c.change,
                    ChangeKind::ParamRemoved | ChangeKind::MemberRemoved | ChangeKind::FieldRemoved
                )
            })
    }

    /// The changes of item `name` of `kind`.
    pub fn changes_of(&self, kind: ItemKind, name: &str) -> Vec<&Change> {
        self.changes
            .iter()
            .filter(|c| c.kind == kind && c.name == name)
            .collect()
    }
}

/// Where findings are collected while comparing.
#[derive(Default)]
pub(crate) struct Acc {
    added: Vec<ItemRef>,
    removed: Vec<ItemRef>,
    renamed: Vec<Rename>,
    changes: Vec<Change>,
    not_comparable: Vec<NotComparable>,
}

/// The two sides of one item being compared, for building entries.
#[derive(Clone, Copy)]
pub(crate) struct Pair<'a> {
    pub kind: ItemKind,
    pub name: &'a str,
    pub old: &'a Source,
    pub new: &'a Source,
}

impl Acc {
    pub(crate) fn change(
        &mut self,
        p: &Pair,
        part: Option<&str>,
        change: ChangeKind,
        impact: Impact,
        old: Option<String>,
        new: Option<String>,
    ) {
        self.changes.push(Change {
            kind: p.kind,
            name: p.name.to_string(),
            part: part.map(String::from),
            change,
            impact,
            old,
            new,
            old_source: p.old.to_string(),
            new_source: p.new.to_string(),
        });
    }

    /// Records that `comparison` is impossible; `old_lacks` says which side states less.
    pub(crate) fn not_comparable(
        &mut self,
        p: &Pair,
        comparison: String,
        old_lacks: bool,
        what: &str,
    ) {
        let (side, src) = if old_lacks {
            ("old", p.old)
        } else {
            ("new", p.new)
        };
        self.not_comparable.push(NotComparable {
            kind: p.kind,
            name: p.name.to_string(),
            comparison,
            reason: format!("{side} side {what}"),
            source: src.to_string(),
        });
    }
}

/// Compares `old` with `new`.
pub fn diff(old: &Api, new: &Api) -> ApiDiff {
    let mut acc = Acc::default();
    functions::compare(&mut acc, &old.functions, &new.functions);
    members::compare_enums(&mut acc, &old.enums, &new.enums);
    fields::compare_structs(&mut acc, &old.structs, &new.structs);
    fields::compare_typedefs(&mut acc, &old.typedefs, &new.typedefs);
    members::compare_constants(&mut acc, &old.constants, &new.constants);
    members::compare_aliases(&mut acc, &old.aliases, &new.aliases);
    items::sections_unstated(&mut acc, old, new);
    acc.added
        .sort_by(|a, b| by_kind_name((a.kind, &a.name), (b.kind, &b.name)));
    acc.removed
        .sort_by(|a, b| by_kind_name((a.kind, &a.name), (b.kind, &b.name)));
    acc.renamed
        .sort_by(|a, b| by_kind_name((a.kind, &a.old_name), (b.kind, &b.old_name)));
    // Stable: within an item, changes keep the order in which they were found.
    acc.changes
        .sort_by(|a, b| by_kind_name((a.kind, &a.name), (b.kind, &b.name)));
    acc.not_comparable
        .sort_by(|a, b| by_kind_name((a.kind, &a.name), (b.kind, &b.name)));
    let totals = ItemKind::ALL
        .iter()
        .map(|&k| kind_totals(k, old, new, &acc))
        .collect();
    ApiDiff {
        schema_version: SCHEMA_VERSION,
        old: side_info(old),
        new: side_info(new),
        totals,
        added: acc.added,
        removed: acc.removed,
        renamed: acc.renamed,
        changes: acc.changes,
        not_comparable: acc.not_comparable,
    }
}

fn by_kind_name(a: (ItemKind, &str), b: (ItemKind, &str)) -> std::cmp::Ordering {
    a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1))
}

fn kind_totals(kind: ItemKind, old: &Api, new: &Api, acc: &Acc) -> KindTotals {
    let count = |api: &Api| match kind {
        ItemKind::Function => api.functions.len(),
        ItemKind::Enum => api.enums.len(),
        ItemKind::Struct => api.structs.len(),
        ItemKind::Typedef => api.typedefs.len(),
        ItemKind::Constant => api.constants.len(),
        ItemKind::Alias => api.aliases.len(),
    };
    let changes: Vec<&Change> = acc.changes.iter().filter(|c| c.kind == kind).collect();
    let mut changed: Vec<&str> = changes.iter().map(|c| c.name.as_str()).collect();
    changed.dedup();
    KindTotals {
        kind,
        old: count(old),
        new: count(new),
        added: acc.added.iter().filter(|i| i.kind == kind).count(),
        removed: acc.removed.iter().filter(|i| i.kind == kind).count(),
        renamed: acc.renamed.iter().filter(|r| r.kind == kind).count(),
        changed: changed.len(),
        changes: changes.len(),
        breaks: changes.iter().filter(|c| c.impact == Impact::Break).count(),
        not_comparable: acc.not_comparable.iter().filter(|n| n.kind == kind).count(),
    }
}

fn side_info(api: &Api) -> SideInfo {
    SideInfo {
        label: None,
        documents: api
            .documents
            .iter()
            .map(|d| DocInfo {
                file: d.file.clone(),
                format: d.format.name().to_string(),
                release: d.release.as_ref().map(ToString::to_string),
            })
            .collect(),
        functions: api.functions.len(),
        enums: api.enums.len(),
        structs: api.structs.len(),
        typedefs: api.typedefs.len(),
        constants: api.constants.len(),
        aliases: api.aliases.len(),
    }
}
