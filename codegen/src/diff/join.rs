//! The join of the documents' diff with the ABI diff: one [`ItemDiff`] per C name, holding
//! the ABI's differences (which give the class) and the documents' (which never do), the old
//! and new C declarations, the documentation section and the item's rustdoc page.
//!
//! Documents name some items otherwise than the headers (`cudaError_t` for the enum
//! `cudaError`): a document's item is matched to the ABI through the headers' typedefs
//! ([`Abi::enum_named`], [`Abi::record_named`]) and `#define` renames
//! ([`Abi::function_for`]). An item only the documents know, or whose C declaration did not
//! change, is of class `docs`, with the reason. Linear in the two diffs' size.

use foldhash::HashMap;
use indexmap::IndexMap;

use super::{
    cdecl, AbiPair, Change, ChangeKind, Evidence, Impact, ItemDiff, ItemKind, ItemRef, ItemStatus,
};
use crate::abi::Abi;
use crate::ir::Api;

use super::links::RustdocLinks;

/// What the join reads.
pub(crate) struct Inputs<'a> {
    pub old: &'a Api,
    pub new: &'a Api,
    pub abis: Option<AbiPair<'a>>,
    pub doc_added: &'a [ItemRef],
    pub doc_removed: &'a [ItemRef],
    pub doc_changes: &'a [Change],
    pub abi_changes: &'a [Change],
}

type Key = (ItemKind, String);

/// The kind and name under which `abi` declares the documents' item `name` of `kind`.
pub(crate) fn lookup(abi: &Abi, kind: ItemKind, name: &str) -> Option<Key> {
    match kind {
        ItemKind::Function => abi
            .function_for(name)
            .map(|_| (ItemKind::Function, name.to_string())),
        ItemKind::Enum | ItemKind::Struct | ItemKind::Typedef => {
            if let Some(e) = abi.enum_named(name) {
                Some((ItemKind::Enum, e.name.clone()))
            } else if let Some(r) = abi.record_named(name) {
                Some((ItemKind::Struct, r.name.clone()))
            } else {
                abi.typedefs
                    .contains_key(name)
                    .then(|| (ItemKind::Typedef, name.to_string()))
            }
        }
        ItemKind::Constant => abi
            .constants
            .contains_key(name)
            .then(|| (ItemKind::Constant, name.to_string())),
        ItemKind::Alias => abi
            .macro_aliases
            .contains_key(name)
            .then(|| (ItemKind::Alias, name.to_string())),
    }
}

/// Whether `abi` declares the item `key` (as the ABI diff names it).
fn declares(abi: &Abi, key: &Key) -> bool {
    let n = key.1.as_str();
    match key.0 {
        ItemKind::Function => abi.function_for(n).is_some(),
        ItemKind::Struct => abi.records.contains_key(n),
        ItemKind::Enum => abi.enums.contains_key(n),
        ItemKind::Typedef => abi.typedefs.contains_key(n),
        ItemKind::Constant => abi.constants.contains_key(n),
        ItemKind::Alias => abi.macro_aliases.contains_key(n),
    }
}

/// The C declaration of `key` in `abi`, for the old and new columns.
fn declaration(abi: &Abi, key: &Key) -> Option<String> {
    let n = key.1.as_str();
    match key.0 {
        ItemKind::Function => abi.function_for(n).map(|(f, _)| cdecl::function(f, n)),
        ItemKind::Struct => abi.records.get(n).map(cdecl::record),
        ItemKind::Enum => abi
            .enums
            .get(n)
            .map(|e| format!("enum {} ({} members)", e.name, e.values.len())),
        ItemKind::Typedef => abi.typedefs.get(n).map(cdecl::typedef),
        ItemKind::Constant => abi.constants.get(n).map(cdecl::constant),
        ItemKind::Alias => abi.macro_aliases.get(n).map(|t| format!("#define {n} {t}")),
    }
}

/// The anchor of an item: `function-cudaMalloc` (characters other than letters, digits, `_`
/// and `-` become `-`).
pub fn anchor(kind: ItemKind, name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{}-{clean}", kind.name())
}

/// One item while it is being put together.
#[derive(Default)]
struct Build<'a> {
    abi: Vec<&'a Change>,
    docs: Vec<Change>,
    added: Option<&'a ItemRef>,
    removed: Option<&'a ItemRef>,
}

/// What the documents call an item and where they put it.
#[derive(Default, Clone)]
struct Doc {
    name: Option<String>,
    section: Option<String>,
}

pub(crate) fn join(inp: Inputs<'_>, links: Option<&RustdocLinks>) -> Vec<ItemDiff> {
    let resolve = |kind: ItemKind, name: &str| -> Key {
        inp.abis
            .and_then(|a| lookup(a.new, kind, name).or_else(|| lookup(a.old, kind, name)))
            .unwrap_or((kind, name.to_string()))
    };
    // The documents' name and section of every item they describe, new side first.
    let mut docs: HashMap<Key, Doc> = HashMap::default();
    for api in [inp.new, inp.old] {
        let mut note = |kind: ItemKind, name: &str, section: &Option<String>| {
            let key = resolve(kind, name);
            let d = docs.entry(key).or_default();
            d.name.get_or_insert_with(|| name.to_string());
            if d.section.is_none() {
                d.section.clone_from(section);
            }
        };
        for f in &api.functions {
            note(ItemKind::Function, &f.name, &f.section);
        }
        for e in &api.enums {
            note(ItemKind::Enum, &e.name, &e.section);
        }
        for s in &api.structs {
            note(ItemKind::Struct, &s.name, &s.section);
        }
        for t in &api.typedefs {
            note(ItemKind::Typedef, &t.name, &t.section);
        }
        for c in &api.constants {
            note(ItemKind::Constant, &c.name, &c.section);
        }
        for a in &api.aliases {
            note(ItemKind::Alias, &a.name, &a.section);
        }
    }

    let mut builds: IndexMap<Key, Build> = IndexMap::new();
    for c in inp.abi_changes {
        builds
            .entry((c.kind, c.name.clone()))
            .or_default()
            .abi
            .push(c);
    }
    for r in inp.doc_added {
        builds.entry(resolve(r.kind, &r.name)).or_default().added = Some(r);
    }
    for r in inp.doc_removed {
        builds.entry(resolve(r.kind, &r.name)).or_default().removed = Some(r);
    }
    for c in inp.doc_changes {
        builds
            .entry(resolve(c.kind, &c.name))
            .or_default()
            .docs
            .push(c.clone());
    }

    let mut items: Vec<ItemDiff> = builds
        .into_iter()
        .map(|(key, b)| item(&inp, key, b, &docs, links))
        .collect();
    items.sort_by(|a, b| {
        (a.impact, &a.section, a.kind, &a.name).cmp(&(b.impact, &b.section, b.kind, &b.name))
    });
    items
}

/// The diff entry of the item `key`: its status and class, its section, its changes from the
/// ABI and the documents, the C declarations of both sides and its rustdoc link.
fn item(
    inp: &Inputs<'_>,
    key: Key,
    mut b: Build<'_>,
    docs: &HashMap<Key, Doc>,
    links: Option<&RustdocLinks>,
) -> ItemDiff {
    let doc = docs.get(&key).cloned().unwrap_or_default();
    let status = status(&b);
    let doc_changes = doc_changes(inp, &key, &mut b);
    let impact = match inp.abis {
        Some(_) => b.abi.iter().map(|c| c.impact).min(),
        None => doc_changes.iter().map(|c| c.impact).min(),
    }
    .unwrap_or(Impact::Docs);
    let header = |c: &&Change| {
        c.new_source
            .as_deref()
            .or(c.old_source.as_deref())
            .and_then(|s| s.split(':').next())
            .map(String::from)
    };
    let section = doc
        .section
        .clone()
        .or_else(|| b.abi.first().and_then(header))
        .filter(|s| !s.is_empty());
    let paired_with = b
        .abi
        .iter()
        .find_map(|c| c.paired_with.clone())
        .or_else(|| b.removed.and_then(|r| r.looks_renamed.clone()));
    let (old_c, new_c) = match inp.abis {
        Some(a) => (declaration(a.old, &key), declaration(a.new, &key)),
        None => (None, None),
    };
    let rustdoc = links.and_then(|l| {
        l.link(doc.name.as_deref().unwrap_or(&key.1))
            .or_else(|| l.link(&key.1))
    });
    let mut changes: Vec<Change> = b.abi.into_iter().cloned().collect();
    changes.extend(doc_changes);
    let doc_name = doc.name.filter(|n| *n != key.1);
    ItemDiff {
        kind: key.0,
        anchor: anchor(key.0, &key.1),
        name: key.1,
        doc_name,
        status,
        impact,
        section,
        paired_with,
        old_c,
        new_c,
        rustdoc,
        changes,
    }
}

/// Whether the item was added, removed, paired with a renamed one, or changed: from the ABI's
/// changes to the whole item, else from the documents' entries.
fn status(b: &Build<'_>) -> ItemStatus {
    let whole = |change: ChangeKind| {
        b.abi
            .iter()
            .find(|c| c.part.is_none() && c.change == change)
    };
    if let Some(r) = whole(ChangeKind::Removed) {
        if r.paired_with.is_some() {
            ItemStatus::Paired
        } else {
            ItemStatus::Removed
        }
    } else if whole(ChangeKind::Added).is_some() || (b.abi.is_empty() && b.added.is_some()) {
        ItemStatus::Added
    } else if b.abi.is_empty() && b.removed.is_some() {
        ItemStatus::Removed
    } else {
        ItemStatus::Changed
    }
}

/// The documents' entries for the item (taken from `b`), their additions and removals as
/// changes too: those that repeat an ABI entry left out, and with the ABI compared but
/// silent, each given the reason the headers show no change.
fn doc_changes(inp: &Inputs<'_>, key: &Key, b: &mut Build<'_>) -> Vec<Change> {
    let mut doc_changes: Vec<Change> = Vec::new();
    if let Some(r) = b.added {
        doc_changes.push(presence_change(r, ChangeKind::Added, true));
    }
    if let Some(r) = b.removed {
        doc_changes.push(presence_change(r, ChangeKind::Removed, false));
    }
    doc_changes.append(&mut b.docs);
    match inp.abis {
        // The documents' view of a C-level change: their entries that repeat an ABI entry
        // (same kind of change, same member or field) are left to the JSON's `changes`.
        Some(_) if !b.abi.is_empty() => doc_changes.retain(|d| {
            !b.abi
                .iter()
                .any(|a| a.change == d.change && a.part == d.part)
        }),
        Some(a) => {
            let reason = match (declares(a.old, key), declares(a.new, key)) {
                (true, true) => "the C declaration is the same in both releases' headers",
                (false, false) => "neither release's headers declare it: no C-level evidence",
                _ => "the headers declare it in one release only",
            };
            for c in &mut doc_changes {
                c.reason = Some(reason.to_string());
            }
        }
        None => {
            for c in &mut doc_changes {
                if breaks_on_documents(c.change) {
                    c.impact = Impact::Break;
                    c.reason = Some(DOCUMENT_BREAK.to_string());
                }
            }
        }
    }
    doc_changes
}

/// The reason given to a break that rests on the documents alone.
pub const DOCUMENT_BREAK: &str =
    "resting on the documents: no ABI snapshot was compared, and the documents show a change C code cannot survive";

/// Whether a change the documents show breaks C code even without the headers to confirm
/// it: an item, parameter, member or field removed, a parameter added, retyped or reordered,
/// an input become an output or the reverse. Renumbered members and changed values are left
/// to the headers (count sentinels and version numbers change value without breaking).
fn breaks_on_documents(change: ChangeKind) -> bool {
    matches!(
        change,
        ChangeKind::Removed
            | ChangeKind::ParamRemoved
            | ChangeKind::MemberRemoved
            | ChangeKind::FieldRemoved
            | ChangeKind::ParamAdded
            | ChangeKind::ParamRetyped
            | ChangeKind::ParamsReordered
            | ChangeKind::InputBecameOutput
            | ChangeKind::OutputBecameInput
    )
}

/// A documents' entry that adds (`new_side`) or removes the item `r`, as a change.
fn presence_change(r: &ItemRef, change: ChangeKind, new_side: bool) -> Change {
    Change {
        kind: r.kind,
        name: r.name.clone(),
        part: None,
        change,
        impact: Impact::Docs,
        evidence: Evidence::Docs,
        old: None,
        new: None,
        old_source: (!new_side).then(|| r.source.clone()),
        new_source: new_side.then(|| r.source.clone()),
        reason: None,
        paired_with: r.looks_renamed.clone(),
    }
}
