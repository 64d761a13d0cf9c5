//! The release diff: what changed between two [`Api`]s (two releases, two publishers, or a
//! document and a newer one), joined with the C-level diff of the two releases' ABI snapshots.
//!
//! Two comparisons feed it. The documents' diff ([`diff`]) reports items added and removed
//! (set differences by kind and short name), renamed-looking function pairs (same parameter
//! list, similar name), and changes to items both sides have: parameters added, removed,
//! renamed, reordered, retyped, inputs becoming outputs; enum members added, removed or
//! renumbered; struct and typedef fields; constants' values; alias targets; sections. Where one
//! side states less (names only, no parameters, no type, no value), the comparison is listed
//! under `not_comparable` with the reason instead of being reported as a change. The ABI diff
//! ([`abi::compare`]) compares the two releases' C declarations.
//!
//! **Classes come from C compatibility** ([`Impact`]), and so from the ABI diff only: a C
//! function whose parameters changed in number, order or type, a record whose size,
//! alignment or field offsets changed, an enum member or constant whose value changed, a name
//! removed: `break`; additions old code cannot see: `info`; a newly deprecated item:
//! `deprecated`. What the documents alone say (a parameter's Python type, a section, prose)
//! is `docs`: it never changes C compatibility. [`diff_with_abi`] joins the two into one
//! entry per item ([`ItemDiff`]). [`diff`], without snapshots, still classes as a break what
//! the documents themselves show C code cannot survive (an item, parameter, member or field
//! removed; a parameter added, retyped or reordered; an input become an output), each with
//! evidence `docs` and a reason saying it rests on the documents; the rest is `docs`. Which
//! release a page describes, when it does not say, is read from its items by [`identify`].
//!
//! The result is serialisable; its JSON shape is documented by `docs/diff-report.schema.json`.
//! Every list is in a deterministic order (kind, then name, then the item's own order).
//! Rendering lives in [`render`]; this module does not print anything.

use serde::{Deserialize, Serialize};

use crate::abi::Abi;
use crate::ir::{Api, Source};

pub mod abi;
pub mod cdecl;
mod fields;
mod functions;
pub mod identify;
mod items;
mod join;
mod links;
mod members;
pub mod render;
pub mod similarity;
mod typecmp;

pub use functions::RENAME_THRESHOLD;
pub use join::anchor;
pub use links::RustdocLinks;
pub use typecmp::same_type;

/// Version of the JSON shape; bumped on incompatible changes to the schema.
pub const SCHEMA_VERSION: u32 = 2;

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

    /// The plural heading (`Functions`).
    pub fn plural(self) -> &'static str {
        match self {
            ItemKind::Function => "Functions",
            ItemKind::Enum => "Enums",
            ItemKind::Struct => "Structs and unions",
            ItemKind::Typedef => "Typedefs",
            ItemKind::Constant => "Constants",
            ItemKind::Alias => "Aliases",
        }
    }
}

/// The class of a difference, from C compatibility: what it does to code written and compiled
/// against the old release. Ordered from most to least severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Impact {
    /// Old C code no longer compiles or no longer runs correctly: a function's parameters
    /// changed in number, order or type (or its return type); a record's size, alignment or
    /// a field's offset or type changed; an enum member's or a constant's value changed; a
    /// name was removed.
    Break,
    /// Newly marked deprecated by the headers (`__CUDA_DEPRECATED`, or `\deprecated`).
    Deprecated,
    /// Old code cannot see it: a new function, type, member, field (in space the record
    /// already had), parameter names, a count sentinel moved past new members (see
    /// [`abi`]).
    Info,
    /// Only the documents changed (or no ABI was compared): not a C-level difference.
    Docs,
}

impl Impact {
    /// All classes, in report order.
    pub const ALL: [Impact; 4] = [
        Impact::Break,
        Impact::Deprecated,
        Impact::Info,
        Impact::Docs,
    ];

    /// Lower-case name as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Impact::Break => "break",
            Impact::Deprecated => "deprecated",
            Impact::Info => "info",
            Impact::Docs => "docs",
        }
    }

    /// A heading for the class's part of a report.
    pub fn title(self) -> &'static str {
        match self {
            Impact::Break => "Breaks",
            Impact::Deprecated => "Deprecated",
            Impact::Info => "Additions and other compatible changes",
            Impact::Docs => "Documentation only",
        }
    }

    /// One sentence saying what the class holds.
    pub fn describe(self) -> &'static str {
        match self {
            Impact::Break => "C code written or compiled against the old release breaks: parameters changed in number, order or type, a record's size, alignment or field offsets changed, a value changed, a name was removed",
            Impact::Deprecated => "the new release's headers mark it deprecated",
            Impact::Info => "old code cannot see it: additions, parameter names, fields placed in space the record already had, count sentinels moved past new members",
            Impact::Docs => "the documents changed, the C declarations did not (or no ABI snapshot was compared)",
        }
    }
}

/// What a difference rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Evidence {
    /// The two releases' ABI snapshots (their C headers).
    Abi,
    /// The documents.
    Docs,
}

/// What changed about an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// The item is new (ABI evidence; the documents' additions are in `added`).
    Added,
    /// The item is gone (ABI evidence; the documents' removals are in `removed`).
    Removed,
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
    /// A C function's parameter list or return type changed (one entry per function).
    SignatureChanged,
    /// The same C type spelled another way (through a typedef).
    TypeSpelling,
    /// The name now stands for another symbol (`#define cudaX cudaX_v2` added or dropped).
    SymbolChanged,
    MemberAdded,
    MemberRemoved,
    /// Same member name, another value.
    MemberRenumbered,
    FieldAdded,
    FieldRemoved,
    FieldsReordered,
    FieldRetyped,
    /// A field's offset changed.
    FieldMoved,
    /// A record's size changed.
    SizeChanged,
    /// A record's alignment changed.
    AlignmentChanged,
    /// Struct became union or the reverse.
    RecordKindChanged,
    /// Opaque (declared without a body) on one side only.
    OpacityChanged,
    /// A constant's value changed.
    ValueChanged,
    AliasTargetChanged,
    TypedefKindChanged,
    /// A typedef stands for another type.
    TypedefRetyped,
    /// Newly marked deprecated.
    Deprecated,
    /// No longer marked deprecated.
    Undeprecated,
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

/// The ABI snapshot of one side.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AbiInfo {
    /// `12.8`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// Where its facts come from (the wheels and tools).
    pub origin: String,
    /// The snapshot file, when read from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub functions: usize,
    pub records: usize,
    pub enums: usize,
}

impl AbiInfo {
    /// The summary of `abi`, read from `file`.
    pub fn of(abi: &Abi, file: Option<String>) -> AbiInfo {
        AbiInfo {
            release: abi.release.as_ref().map(ToString::to_string),
            origin: abi.origin.clone(),
            file,
            functions: abi.functions.len(),
            records: abi.records.len(),
            enums: abi.enums.len(),
        }
    }
}

/// What one side of the diff is: its documents and item counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SideInfo {
    /// A label for the side (the path given on the command line), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub documents: Vec<DocInfo>,
    /// The ABI snapshot joined with the documents, when one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abi: Option<AbiInfo>,
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

/// A removed and an added (or kept) item that look like one item renamed, or one member of a
/// `_v2`/`_v3` family standing for another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rename {
    pub kind: ItemKind,
    pub old_name: String,
    pub new_name: String,
    /// Normalized Levenshtein similarity of the names, 0..=1, rounded to 3 decimals.
    pub similarity: f64,
    /// Why they are paired (`same 3 parameter(s)`, `_vN family, same C signature`).
    pub evidence: String,
    pub old_source: String,
    pub new_source: String,
}

/// One difference of an item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub kind: ItemKind,
    pub name: String,
    /// The parameter, member or field concerned, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    pub change: ChangeKind,
    pub impact: Impact,
    /// What the difference rests on.
    pub evidence: Evidence,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    /// `file:line` (documents) or `header:line` (ABI) on the old side, when it has the item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_source: Option<String>,
    /// The same on the new side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_source: Option<String>,
    /// Why the class is what it is, where the kind of change alone does not say (a count
    /// sentinel, reserved storage, a pair).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a removed name: the name that stands for it now (its `_vN` family, a rename).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired_with: Option<String>,
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

/// Where an item stands after the join.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemStatus {
    Added,
    Removed,
    /// Removed, and another name stands for it (`paired_with`).
    Paired,
    Changed,
}

/// One item of the report: every difference of one C name, from both comparisons, and its
/// class (the most severe of its differences).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItemDiff {
    pub kind: ItemKind,
    /// The C name, as the ABI diff names the item (the name the documents give it when no
    /// ABI was compared).
    pub name: String,
    /// The documents' name, where it differs (`cudaError_t` for the enum `cudaError`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_name: Option<String>,
    pub status: ItemStatus,
    pub impact: Impact,
    /// The anchor of the item in the HTML and Markdown reports (`function-cudaMalloc`).
    pub anchor: String,
    /// The documentation section (new side first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The name that stands for a removed item now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired_with: Option<String>,
    /// The C declaration in the old release (functions: the prototype; records: size and
    /// alignment; constants and enum members: the value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_c: Option<String>,
    /// The same in the new release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_c: Option<String>,
    /// The item's page in the generated crate's rustdoc, when the crate has the item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rustdoc: Option<String>,
    /// Every difference, ABI evidence first.
    pub changes: Vec<Change>,
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
    /// Items of class break.
    pub breaks: usize,
    /// Items of class deprecated.
    pub deprecated: usize,
    /// Items of class info.
    pub info: usize,
    /// Items of class docs.
    pub docs: usize,
    pub not_comparable: usize,
}

/// The diff of two APIs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiDiff {
    pub schema_version: u32,
    pub old: SideInfo,
    pub new: SideInfo,
    /// Whether the two releases' ABI snapshots were compared (the classes rest on them).
    pub abi_compared: bool,
    /// One entry per [`ItemKind`], in [`ItemKind::ALL`] order.
    pub totals: Vec<KindTotals>,
    /// The report: one entry per item that differs, by class, section, kind and name.
    pub items: Vec<ItemDiff>,
    /// The documents' added items.
    pub added: Vec<ItemRef>,
    /// The documents' removed items.
    pub removed: Vec<ItemRef>,
    /// Renamed-looking pairs, from the documents and from the ABI.
    pub renamed: Vec<Rename>,
    /// The documents' changes to items both sides have, one entry per change.
    pub changes: Vec<Change>,
    /// The ABI diff, one entry per difference; each is in `items` under its item.
    pub abi_changes: Vec<Change>,
    pub not_comparable: Vec<NotComparable>,
}

impl ApiDiff {
    /// Whether nothing was added, removed or changed (not-comparable entries do not count).
    pub fn is_unchanged(&self) -> bool {
        self.items.is_empty()
    }

    /// Number of items of class break.
    pub fn breaks(&self) -> usize {
        self.items
            .iter()
            .filter(|i| i.impact == Impact::Break)
            .count()
    }

    /// Whether anything was removed: an item, or a parameter, member or field of one.
    pub fn has_removals(&self) -> bool {
        !self.removed.is_empty()
            || self.changes.iter().chain(&self.abi_changes).any(|c| {
                matches!(
                    c.change,
                    ChangeKind::Removed
                        | ChangeKind::ParamRemoved
                        | ChangeKind::MemberRemoved
                        | ChangeKind::FieldRemoved
                )
            })
    }

    /// The documents' changes of item `name` of `kind`.
    pub fn changes_of(&self, kind: ItemKind, name: &str) -> Vec<&Change> {
        self.changes
            .iter()
            .filter(|c| c.kind == kind && c.name == name)
            .collect()
    }

    /// The joined entry of item `name` of `kind`.
    pub fn item(&self, kind: ItemKind, name: &str) -> Option<&ItemDiff> {
        self.items.iter().find(|i| i.kind == kind && i.name == name)
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
    /// Records a documents' change (class `docs` until the join says otherwise).
    pub(crate) fn change(
        &mut self,
        p: &Pair,
        part: Option<&str>,
        change: ChangeKind,
        old: Option<String>,
        new: Option<String>,
    ) {
        self.changes.push(Change {
            kind: p.kind,
            name: p.name.to_string(),
            part: part.map(String::from),
            change,
            impact: Impact::Docs,
            evidence: Evidence::Docs,
            old,
            new,
            old_source: Some(p.old.to_string()),
            new_source: Some(p.new.to_string()),
            reason: None,
            paired_with: None,
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

/// The two releases' ABI snapshots to join with the documents' diff, and where they come from.
#[derive(Clone, Copy)]
pub struct AbiPair<'a> {
    pub old: &'a Abi,
    pub new: &'a Abi,
    /// The snapshot files, for the report (`abi/12.8.json`).
    pub old_file: Option<&'a str>,
    pub new_file: Option<&'a str>,
}

/// Compares the documents `old` with `new`, without ABI: what the documents show C code
/// cannot survive is a break resting on the documents, the rest is of class `docs` (see
/// [`diff_with_abi`] for classes from C compatibility).
pub fn diff(old: &Api, new: &Api) -> ApiDiff {
    build(old, new, None, None)
}

/// Compares the documents `old` with `new` and joins the result with the C-level diff of the
/// two releases' ABI snapshots: every item gets its class from C compatibility. `links`
/// gives the rustdoc page of an item in the generated crate, where it has one.
pub fn diff_with_abi(
    old: &Api,
    new: &Api,
    abis: AbiPair<'_>,
    links: Option<&RustdocLinks>,
) -> ApiDiff {
    build(old, new, Some(abis), links)
}

fn build(old: &Api, new: &Api, abis: Option<AbiPair<'_>>, links: Option<&RustdocLinks>) -> ApiDiff {
    let mut acc = Acc::default();
    functions::compare(&mut acc, &old.functions, &new.functions);
    members::compare_enums(&mut acc, &old.enums, &new.enums);
    fields::compare_structs(&mut acc, &old.structs, &new.structs);
    fields::compare_typedefs(&mut acc, &old.typedefs, &new.typedefs);
    members::compare_constants(&mut acc, &old.constants, &new.constants);
    members::compare_aliases(&mut acc, &old.aliases, &new.aliases);
    items::sections_unstated(&mut acc, old, new);
    let mut abi_diff = abis.map(|a| abi::compare(a.old, a.new)).unwrap_or_default();
    acc.renamed.append(&mut abi_diff.renamed);
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
    let items = join::join(
        join::Inputs {
            old,
            new,
            abis,
            doc_added: &acc.added,
            doc_removed: &acc.removed,
            doc_changes: &acc.changes,
            abi_changes: &abi_diff.changes,
        },
        links,
    );
    let totals = ItemKind::ALL
        .iter()
        .map(|&k| kind_totals(k, (old, new), abis, &acc, &items))
        .collect();
    let side = |api: &Api, abi: Option<(&Abi, Option<&str>)>| {
        let mut s = side_info(api);
        s.abi = abi.map(|(a, f)| AbiInfo::of(a, f.map(String::from)));
        s
    };
    ApiDiff {
        schema_version: SCHEMA_VERSION,
        old: side(old, abis.map(|a| (a.old, a.old_file))),
        new: side(new, abis.map(|a| (a.new, a.new_file))),
        abi_compared: abis.is_some(),
        totals,
        items,
        added: acc.added,
        removed: acc.removed,
        renamed: acc.renamed,
        changes: acc.changes,
        abi_changes: abi_diff.changes,
        not_comparable: acc.not_comparable,
    }
}

fn by_kind_name(a: (ItemKind, &str), b: (ItemKind, &str)) -> std::cmp::Ordering {
    a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1))
}

/// The totals of `kind`. A side's Old/New count is its documents' items, or, for a side that
/// is a release (no documents, an ABI snapshot), the snapshot's declarations.
fn kind_totals(
    kind: ItemKind,
    (old, new): (&Api, &Api),
    abis: Option<AbiPair<'_>>,
    acc: &Acc,
    items: &[ItemDiff],
) -> KindTotals {
    let of_api = |api: &Api| match kind {
        ItemKind::Function => api.functions.len(),
        ItemKind::Enum => api.enums.len(),
        ItemKind::Struct => api.structs.len(),
        ItemKind::Typedef => api.typedefs.len(),
        ItemKind::Constant => api.constants.len(),
        ItemKind::Alias => api.aliases.len(),
    };
    let of_abi = |abi: &Abi| match kind {
        ItemKind::Function => abi.functions.len(),
        ItemKind::Enum => abi.enums.len(),
        ItemKind::Struct => abi.records.len(),
        ItemKind::Typedef => abi.typedefs.len(),
        ItemKind::Constant => abi.constants.len(),
        ItemKind::Alias => abi.macro_aliases.len(),
    };
    let count = |api: &Api, abi: Option<&Abi>| match abi {
        Some(abi) if api.documents.is_empty() && api.item_count() == 0 => of_abi(abi),
        _ => of_api(api),
    };
    let (old_abi, new_abi) = (abis.map(|a| a.old), abis.map(|a| a.new));
    let mine: Vec<&ItemDiff> = items.iter().filter(|i| i.kind == kind).collect();
    let class = |c: Impact| mine.iter().filter(|i| i.impact == c).count();
    let status = |s: ItemStatus| mine.iter().filter(|i| i.status == s).count();
    KindTotals {
        kind,
        old: count(old, old_abi),
        new: count(new, new_abi),
        added: status(ItemStatus::Added),
        removed: status(ItemStatus::Removed) + status(ItemStatus::Paired),
        renamed: acc.renamed.iter().filter(|r| r.kind == kind).count(),
        changed: status(ItemStatus::Changed),
        changes: mine.iter().map(|i| i.changes.len()).sum(),
        breaks: class(Impact::Break),
        deprecated: class(Impact::Deprecated),
        info: class(Impact::Info),
        docs: class(Impact::Docs),
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
        abi: None,
        functions: api.functions.len(),
        enums: api.enums.len(),
        structs: api.structs.len(),
        typedefs: api.typedefs.len(),
        constants: api.constants.len(),
        aliases: api.aliases.len(),
    }
}
