//! Which releases of its CUDA major declare each item of a generated crate: the "since"
//! marks of the crate's rustdoc ("Available since CUDA 13.4", "In every CUDA 13.x release"),
//! the release each raw function checks the loaded runtime against, and the records whose
//! layout changed between minors (reported by the run and in the record's rustdoc).
//!
//! Nothing here is kept by hand: the marks come from the ABI snapshots of every minor release
//! of the major (`abi/<X.Y>.json`, made by `cargo xtask abi`) through [`crate::timeline::build`],
//! the data `cargo xtask timeline` shows, so a crate's marks and the timeline never disagree.
//! This module reads the snapshots and annotates a [`Bindings`]; it renders nothing but the
//! one-line texts of [`Since::sentence`] and [`LayoutChange::sentence`].

use std::path::Path;

use foldhash::HashMap;

use crate::abi::{snapshot, Abi};
use crate::bind::Bindings;
use crate::diff::{ChangeKind, Impact, ItemKind};
use crate::ir::Release;
pub use crate::since::{encode, LayoutChange, Since};
use crate::timeline::{self, EventKind, Snapshot, Timeline};

/// The marks of one major, from the timeline of its snapshots.
#[derive(Clone, Debug, Default)]
pub struct Availability {
    /// The releases compared, oldest first.
    pub releases: Vec<String>,
    items: HashMap<(ItemKind, String), Since>,
    /// Enum members, by (enum, member).
    members: HashMap<(String, String), Since>,
    /// Records whose layout changed, by name, in release order.
    layouts: HashMap<String, Vec<LayoutChange>>,
}

/// Why the snapshots could not be read.
pub type Error = snapshot::SnapshotError;

impl Availability {
    /// The marks for a crate of `release`, whose ABI is `current`, from every snapshot of its
    /// library's major under `root` (committed ones in `abi/`, cached ones in `target/abi/`;
    /// see [`snapshot::list_library`]). `current` stands for the crate's own release whether or not a file
    /// holds it.
    pub fn load(root: &Path, release: &Release, current: &Abi) -> Result<Availability, Error> {
        let major = release.0.first().copied();
        let own = snapshot::short_release(release);
        let mut abis: Vec<(String, Abi)> = Vec::new();
        // The snapshots of the crate's own library (NVRTC's are in `abi/nvrtc/`).
        for (r, p) in snapshot::list_library(root, current.library) {
            let r_short = snapshot::short_release(&r);
            if r.0.first().copied() == major && r_short != own {
                abis.push((r_short, snapshot::load(&p)?));
            }
        }
        let mut snaps: Vec<Snapshot<'_>> = abis
            .iter()
            .map(|(r, abi)| Snapshot {
                release: r.clone(),
                file: String::new(),
                abi,
            })
            .chain(std::iter::once(Snapshot {
                release: own.clone(),
                file: String::new(),
                abi: current,
            }))
            .collect();
        snaps.sort_by_key(|s| Release::parse(&s.release).map(|r| r.0));
        Ok(Availability::of(&snaps))
    }

    /// The marks from `snapshots` (one major, oldest first).
    pub fn of(snapshots: &[Snapshot<'_>]) -> Availability {
        Availability::from_timeline(&timeline::build(snapshots, &|_| None))
    }

    /// The marks a timeline of one major's snapshots gives.
    pub fn from_timeline(t: &Timeline) -> Availability {
        let releases: Vec<String> = t.releases.iter().map(|r| r.release.clone()).collect();
        let major = releases
            .first()
            .and_then(|r| r.split('.').next())
            .and_then(|m| m.parse().ok())
            .unwrap_or(0);
        // `13.0`, or `13` alone (the major's first release).
        let from_first = releases
            .first()
            .is_some_and(|r| !matches!(r.split('.').nth(1), Some(m) if m.parse() != Ok(0u32)));
        let oldest = releases.first().cloned().unwrap_or_default();
        let since = |release: &str, removed_in: &Option<String>| Since {
            major,
            release: release.to_string(),
            oldest: release == oldest,
            from_first,
            removed_in: removed_in.clone(),
        };
        let mut out = Availability {
            releases: releases.clone(),
            ..Availability::default()
        };
        for line in &t.items {
            out.items.insert(
                (line.kind, line.name.clone()),
                since(&line.since, &line.removed_in),
            );
            for m in &line.members {
                out.members.insert(
                    (line.name.clone(), m.name.clone()),
                    since(&m.since, &m.removed_in),
                );
            }
            if line.kind == ItemKind::Struct {
                let changes: Vec<LayoutChange> = line
                    .events
                    .iter()
                    .filter(|e| e.event == EventKind::Changed && e.impact == Impact::Break)
                    .map(|e| LayoutChange {
                        release: e.release.clone(),
                        what: e.changes.iter().map(describe).collect(),
                    })
                    .collect();
                if !changes.is_empty() {
                    out.layouts.insert(line.name.clone(), changes);
                }
            }
        }
        out
    }

    /// The mark of the item `name` of `kind`.
    pub fn item(&self, kind: ItemKind, name: &str) -> Option<&Since> {
        self.items.get(&(kind, name.to_string()))
    }

    /// The mark of the member `member` of the enum `enum_name`.
    pub fn member(&self, enum_name: &str, member: &str) -> Option<&Since> {
        self.members
            .get(&(enum_name.to_string(), member.to_string()))
    }

    /// The layout changes of the record `name` within the major, oldest first.
    pub fn layout_changes(&self, name: &str) -> &[LayoutChange] {
        self.layouts.get(name).map_or(&[], Vec::as_slice)
    }

    /// Every record whose layout changed, by name.
    pub fn changed_records(&self) -> Vec<(&str, &[LayoutChange])> {
        let mut out: Vec<(&str, &[LayoutChange])> = self
            .layouts
            .iter()
            .map(|(n, c)| (n.as_str(), c.as_slice()))
            .collect();
        out.sort_by(|a, b| a.0.cmp(b.0));
        out
    }

    /// Puts the marks on every item of `b`: functions (by C name), records, enums and their
    /// members, typedefs, constants (a constant the ABI holds as a `#define` alias is marked
    /// as that alias), and the layout changes on records.
    pub fn annotate(&self, b: &mut Bindings) {
        for f in &mut b.functions {
            f.since = self.item(ItemKind::Function, &f.name).cloned();
        }
        for r in &mut b.records {
            r.since = self.item(ItemKind::Struct, &r.abi.name).cloned();
            r.layout_changes = self.layout_changes(&r.abi.name).to_vec();
        }
        for e in &mut b.enums {
            e.since = self
                .item(ItemKind::Enum, &e.abi.name)
                .or_else(|| self.item(ItemKind::Typedef, &e.name))
                .cloned();
            e.alias_since = e
                .aliases
                .iter()
                .map(|a| {
                    self.item(ItemKind::Typedef, a)
                        .or_else(|| self.item(ItemKind::Enum, a))
                        .or_else(|| self.item(ItemKind::Alias, a))
                        .cloned()
                })
                .collect();
            e.member_since = e
                .abi
                .values
                .iter()
                .map(|v| self.member(&e.abi.name, &v.name).cloned())
                .collect();
        }
        for t in &mut b.typedefs {
            t.since = self.item(ItemKind::Typedef, &t.name).cloned();
        }
        for k in &mut b.constants {
            k.since = self
                .item(ItemKind::Constant, &k.name)
                .or_else(|| self.item(ItemKind::Alias, &k.name))
                .cloned();
        }
    }
}

/// One difference of a layout change in words: `size 56 bytes → 64 bytes`, `field ctx
/// added (cudaExecutionContext_t ctx (offset 56))`.
fn describe(c: &crate::diff::Change) -> String {
    let what = match c.change {
        ChangeKind::SizeChanged => "size",
        ChangeKind::AlignmentChanged => "alignment",
        ChangeKind::FieldAdded => "added",
        ChangeKind::FieldRemoved => "removed",
        ChangeKind::FieldMoved => "moved",
        ChangeKind::FieldRetyped => "retyped",
        ChangeKind::FieldsReordered => "fields reordered",
        ChangeKind::RecordKindChanged => "struct/union kind",
        _ => "changed",
    };
    let values = match (&c.old, &c.new) {
        (Some(old), Some(new)) => format!("{old} → {new}"),
        (Some(old), None) => old.clone(),
        (None, Some(new)) => new.clone(),
        (None, None) => String::new(),
    };
    let mut s = match &c.part {
        Some(part) => format!("field `{part}` {what}"),
        None => what.to_string(),
    };
    if !values.is_empty() {
        s.push_str(if c.part.is_some() { ": " } else { " " });
        s.push_str(&values);
    }
    s
}
