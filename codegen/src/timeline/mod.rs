//! The API timeline: every item of every release that has an ABI snapshot (item × release),
//! with the release that first declares it, the releases where it changed, was deprecated
//! or removed, and each event's class from C compatibility. It is the data the crates'
//! "since" marks come from, in a form an auditor can filter and cite (each item has an
//! anchor; each event names the release and the header line).
//!
//! Items are what C code names: functions (and `#define` renames), structs and unions (not
//! bindgen's anonymous types: their changes are their parents'), enums with their members,
//! typedefs, integer constants and `#define` aliases. Events come from the ABI diff of each
//! pair of consecutive snapshots ([`crate::diff::abi::compare`]), so a timeline and the diff
//! of two releases never disagree; presence comes from each snapshot itself. An item present
//! in the first snapshot is marked `since_first_snapshot`: it may be older. Linear in the
//! snapshots' total size. Rendering is [`render`]; this module prints nothing.

use foldhash::HashMap;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::abi::Abi;
use crate::diff::abi::{compare, is_anonymous};
use crate::diff::{Change, ChangeKind, Impact, ItemKind, RustdocLinks};

pub mod render;

/// Version of the JSON shape; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// One release of the timeline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReleaseInfo {
    /// `13.2`.
    pub release: String,
    /// The snapshot file (`abi/13.2.json`).
    pub file: String,
    /// Where its facts come from (the wheels and tools).
    pub origin: String,
}

/// What happened to an item in a release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    Added,
    Changed,
    Deprecated,
    Undeprecated,
    Removed,
}

impl EventKind {
    /// The lower-case name, as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Added => "added",
            EventKind::Changed => "changed",
            EventKind::Deprecated => "deprecated",
            EventKind::Undeprecated => "undeprecated",
            EventKind::Removed => "removed",
        }
    }
}

/// One event of an item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The release it happened in (compared with the one before it).
    pub release: String,
    pub event: EventKind,
    /// Its class from C compatibility (the most severe of its differences).
    pub impact: Impact,
    /// `header:line` in the release (the old release's for a removal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The differences, as the diff of the two releases lists them.
    pub changes: Vec<Change>,
}

/// An enum member's own dates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemberLine {
    pub name: String,
    /// The first release declaring it.
    pub since: String,
    /// The first release after `since` without it, when it is gone from the newest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed_in: Option<String>,
    /// The release from which it is marked deprecated, when the newest release declaring it
    /// marks it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated_in: Option<String>,
}

/// One item across the releases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItemLine {
    pub kind: ItemKind,
    pub name: String,
    /// The anchor of its row in the reports (`function-cudaMalloc`).
    pub anchor: String,
    /// The first release declaring it.
    pub since: String,
    /// It is in the first snapshot: `since` is an upper bound.
    pub since_first_snapshot: bool,
    /// The first release after `since` without it, when it is gone from the newest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed_in: Option<String>,
    /// The release from which it is marked deprecated, when the newest release declaring it
    /// marks it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated_in: Option<String>,
    /// One flag per release of [`Timeline::releases`]: whether that release declares it.
    pub present: Vec<bool>,
    /// Where the newest release declaring it declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Its page in the generated crate's rustdoc, where the crate has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rustdoc: Option<String>,
    pub events: Vec<Event>,
    /// For an enum: its members' own dates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<MemberLine>,
}

/// Counts of one release's events.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseTotals {
    pub release: String,
    pub items: usize,
    pub added: usize,
    pub changed: usize,
    pub breaks: usize,
    pub deprecated: usize,
    pub removed: usize,
}

/// The timeline of every snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub schema_version: u32,
    /// Oldest first.
    pub releases: Vec<ReleaseInfo>,
    pub totals: Vec<ReleaseTotals>,
    /// By kind, then name.
    pub items: Vec<ItemLine>,
}

/// One snapshot to put on the timeline.
pub struct Snapshot<'a> {
    pub release: String,
    pub file: String,
    pub abi: &'a Abi,
}

type Key = (ItemKind, String);

/// The items `abi` declares, with their `header:line`.
fn declared(abi: &Abi) -> IndexMap<Key, String> {
    let at = |h: &Option<String>, l: u32| abi.location(h.as_deref(), l);
    let mut out = IndexMap::new();
    for f in abi.functions.values() {
        out.insert((ItemKind::Function, f.name.clone()), at(&f.header, f.line));
    }
    for (name, symbol) in &abi.renames {
        if let Some(f) = abi.functions.get(symbol) {
            out.insert((ItemKind::Function, name.clone()), at(&f.header, f.line));
        }
    }
    for r in abi.records.values() {
        if r.parent.is_none() && !is_anonymous(&r.name) {
            out.insert((ItemKind::Struct, r.name.clone()), at(&r.header, r.line));
        }
    }
    for e in abi.enums.values().filter(|e| !is_anonymous(&e.name)) {
        out.insert((ItemKind::Enum, e.name.clone()), at(&e.header, e.line));
    }
    for t in abi.typedefs.values() {
        out.insert((ItemKind::Typedef, t.name.clone()), at(&t.header, t.line));
    }
    for c in abi.constants.values() {
        out.insert((ItemKind::Constant, c.name.clone()), at(&c.header, c.line));
    }
    for name in abi.macro_aliases.keys() {
        out.insert((ItemKind::Alias, name.clone()), String::new());
    }
    out
}

/// Builds the timeline of `snapshots` (oldest first). `links` gives, for a release, the
/// rustdoc of the generated crate of its major.
pub fn build(snapshots: &[Snapshot<'_>], links: &dyn Fn(&str) -> Option<RustdocLinks>) -> Timeline {
    let mut lines = presence(snapshots);
    add_events(snapshots, &mut lines);
    for line in lines.values_mut() {
        dates_and_link(snapshots, line, links);
    }
    members(snapshots, &mut lines);
    let mut items: Vec<ItemLine> = lines.into_values().collect();
    items.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    Timeline {
        schema_version: SCHEMA_VERSION,
        releases: snapshots
            .iter()
            .map(|s| ReleaseInfo {
                release: s.release.clone(),
                file: s.file.clone(),
                origin: s.abi.origin.clone(),
            })
            .collect(),
        totals: totals(snapshots, &items),
        items,
    }
}

/// One line per item any snapshot declares, with the releases declaring it and where the
/// newest of them does, in the order first declared.
fn presence(snapshots: &[Snapshot<'_>]) -> IndexMap<Key, ItemLine> {
    let n = snapshots.len();
    let mut lines: IndexMap<Key, ItemLine> = IndexMap::new();
    for (i, s) in snapshots.iter().enumerate() {
        for (key, place) in declared(s.abi) {
            let line = lines.entry(key.clone()).or_insert_with(|| ItemLine {
                kind: key.0,
                anchor: crate::diff::anchor(key.0, &key.1),
                name: key.1.clone(),
                since: s.release.clone(),
                since_first_snapshot: i == 0,
                removed_in: None,
                deprecated_in: None,
                present: vec![false; n],
                source: None,
                rustdoc: None,
                events: Vec::new(),
                members: Vec::new(),
            });
            line.present[i] = true;
            if !place.is_empty() {
                line.source = Some(place);
            }
        }
    }
    lines
}

/// Each item's events: the ABI diff of each consecutive pair of snapshots.
fn add_events(snapshots: &[Snapshot<'_>], lines: &mut IndexMap<Key, ItemLine>) {
    for pair in snapshots.windows(2) {
        let d = compare(pair[0].abi, pair[1].abi);
        let mut by_item: IndexMap<Key, Vec<Change>> = IndexMap::new();
        for c in d.changes {
            by_item.entry((c.kind, c.name.clone())).or_default().push(c);
        }
        for (key, changes) in by_item {
            let Some(line) = lines.get_mut(&key) else {
                continue;
            };
            line.events.extend(events(&pair[1].release, changes));
        }
    }
}

/// An item's removal and deprecation releases, and its rustdoc link in the crate of the
/// newest release declaring it.
fn dates_and_link(
    snapshots: &[Snapshot<'_>],
    line: &mut ItemLine,
    links: &dyn Fn(&str) -> Option<RustdocLinks>,
) {
    let n = snapshots.len();
    let last = line.present.iter().rposition(|p| *p);
    if let Some(last) = last.filter(|l| l + 1 < n) {
        line.removed_in = Some(snapshots[last + 1].release.clone());
    }
    if let Some(last) = last {
        let newest = snapshots[last].abi;
        if newest.deprecated.contains_key(&line.name) {
            // The start of the newest run of deprecated releases.
            let mut from = last;
            while from > 0
                && line.present[from - 1]
                && snapshots[from - 1].abi.deprecated.contains_key(&line.name)
            {
                from -= 1;
            }
            line.deprecated_in = Some(snapshots[from].release.clone());
        }
        line.rustdoc = links(&snapshots[last].release).and_then(|l| l.link(&line.name));
    }
}

/// The counts of each release's items and events.
fn totals(snapshots: &[Snapshot<'_>], items: &[ItemLine]) -> Vec<ReleaseTotals> {
    snapshots
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let of = |k: EventKind| {
                items
                    .iter()
                    .filter(|l| {
                        l.events
                            .iter()
                            .any(|e| e.release == s.release && e.event == k)
                    })
                    .count()
            };
            ReleaseTotals {
                release: s.release.clone(),
                items: items.iter().filter(|l| l.present[i]).count(),
                added: of(EventKind::Added),
                changed: of(EventKind::Changed),
                breaks: items
                    .iter()
                    .filter(|l| {
                        l.events
                            .iter()
                            .any(|e| e.release == s.release && e.impact == Impact::Break)
                    })
                    .count(),
                deprecated: of(EventKind::Deprecated),
                removed: of(EventKind::Removed),
            }
        })
        .collect()
}

/// The events one item's differences in one release make: presence, deprecation, and one
/// `changed` event for all the rest.
fn events(release: &str, changes: Vec<Change>) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    let mut push = |event: EventKind, c: Change| {
        let source = c.new_source.clone().or_else(|| c.old_source.clone());
        match out.iter_mut().find(|e| e.event == event) {
            Some(e) => {
                e.impact = e.impact.min(c.impact);
                e.changes.push(c);
            }
            None => out.push(Event {
                release: release.to_string(),
                event,
                impact: c.impact,
                source,
                changes: vec![c],
            }),
        }
    };
    for c in changes {
        let event = match (c.change, c.part.is_none()) {
            (ChangeKind::Added, true) => EventKind::Added,
            (ChangeKind::Removed, true) => EventKind::Removed,
            (ChangeKind::Deprecated, true) => EventKind::Deprecated,
            (ChangeKind::Undeprecated, true) => EventKind::Undeprecated,
            _ => EventKind::Changed,
        };
        push(event, c);
    }
    out.sort_by_key(|e| e.event);
    out
}

/// The members of every enum, with their own dates.
fn members(snapshots: &[Snapshot<'_>], lines: &mut IndexMap<Key, ItemLine>) {
    /// A member's first and last snapshot, and the one its deprecation starts at.
    type Span = (usize, usize, Option<usize>);
    let mut seen: HashMap<String, IndexMap<String, Span>> = HashMap::default();
    for (i, s) in snapshots.iter().enumerate() {
        for e in s.abi.enums.values().filter(|e| !is_anonymous(&e.name)) {
            let m = seen.entry(e.name.clone()).or_default();
            for v in &e.values {
                let entry = m.entry(v.name.clone()).or_insert((i, i, None));
                entry.1 = i;
                match (s.abi.deprecated.contains_key(&v.name), entry.2) {
                    (true, None) => entry.2 = Some(i),
                    (false, Some(_)) => entry.2 = None,
                    _ => {}
                }
            }
        }
    }
    let n = snapshots.len();
    for (name, m) in seen {
        let Some(line) = lines.get_mut(&(ItemKind::Enum, name)) else {
            continue;
        };
        line.members = m
            .into_iter()
            .map(|(member, (first, last, dep))| MemberLine {
                name: member,
                since: snapshots[first].release.clone(),
                removed_in: (last + 1 < n).then(|| snapshots[last + 1].release.clone()),
                deprecated_in: dep.map(|d| snapshots[d].release.clone()),
            })
            .collect();
    }
}
