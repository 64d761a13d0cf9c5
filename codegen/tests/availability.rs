//! The since-marks of the crates (`codegen::availability`) against the committed ABI
//! snapshots of every minor release of CUDA 12 and 13, compared without the timeline: every
//! item the first release of a major declares is marked as in every release of the major, and
//! every item a later release declares first is marked with that release — the names each
//! snapshot declares that no earlier snapshot of the major did.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use codegen::abi::{self, Abi};
use codegen::availability::Availability;
use codegen::diff::ItemKind;
use codegen::timeline::Snapshot;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The committed snapshots of `major`, oldest first.
fn major_snapshots(major: u32) -> Vec<(String, Abi)> {
    abi::snapshot::list_in(&root().join("abi"))
        .into_iter()
        .filter(|(r, _)| r.0.first() == Some(&major))
        .map(|(r, p)| (r.to_string(), abi::snapshot::load(&p).unwrap()))
        .collect()
}

/// What a snapshot declares, by kind, read from its maps directly.
fn names(abi: &Abi) -> BTreeSet<(ItemKind, String)> {
    let mut out = BTreeSet::new();
    for f in abi.functions.keys().chain(abi.renames.keys()) {
        out.insert((ItemKind::Function, f.clone()));
    }
    for r in abi.records.values() {
        if r.parent.is_none() && !r.name.contains("__bindgen_ty_") {
            out.insert((ItemKind::Struct, r.name.clone()));
        }
    }
    for e in abi.enums.keys().filter(|n| !n.contains("__bindgen_ty_")) {
        out.insert((ItemKind::Enum, e.clone()));
    }
    for t in abi.typedefs.keys() {
        out.insert((ItemKind::Typedef, t.clone()));
    }
    for c in abi.constants.keys() {
        out.insert((ItemKind::Constant, c.clone()));
    }
    for a in abi.macro_aliases.keys() {
        out.insert((ItemKind::Alias, a.clone()));
    }
    out
}

/// `(enum, member)` pairs a snapshot declares.
fn members(abi: &Abi) -> BTreeSet<(String, String)> {
    abi.enums
        .values()
        .filter(|e| !e.name.contains("__bindgen_ty_"))
        .flat_map(|e| e.values.iter().map(|v| (e.name.clone(), v.name.clone())))
        .collect()
}

fn availability(all: &[(String, Abi)]) -> Availability {
    let snaps: Vec<Snapshot> = all
        .iter()
        .map(|(r, a)| Snapshot {
            release: r.clone(),
            file: String::new(),
            abi: a,
        })
        .collect();
    Availability::of(&snaps)
}

fn check_major(major: u32, expected_releases: &[&str]) {
    let all = major_snapshots(major);
    let releases: Vec<&str> = all.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(
        releases, expected_releases,
        "the committed snapshots of {major}"
    );
    let marks = availability(&all);
    assert_eq!(marks.releases, releases);
    let every = format!("In every CUDA {major}.x release.");

    // Every item of X.0 is marked as present from X.0: in every release of the major.
    let (first, first_abi) = &all[0];
    let mut checked = 0;
    for (kind, name) in names(first_abi) {
        let m = marks
            .item(kind, &name)
            .unwrap_or_else(|| panic!("{kind:?} {name}: no mark"));
        assert_eq!(&m.release, first, "{kind:?} {name}");
        assert!(m.oldest && m.from_first, "{kind:?} {name}");
        assert_eq!(m.runtime_version(), 0, "{kind:?} {name}");
        if m.removed_in.is_none() {
            assert_eq!(m.sentence(), every, "{kind:?} {name}");
        }
        checked += 1;
    }
    for (e, v) in members(first_abi) {
        let m = marks.member(&e, &v).unwrap();
        assert_eq!((&m.release, m.runtime_version()), (first, 0), "{e}::{v}");
        checked += 1;
    }
    assert!(checked > 1000, "only {checked} items of {first} checked");

    // Each later release: what it declares that no earlier one did is marked with it; what
    // an earlier one declared keeps its earlier mark.
    let mut seen = names(first_abi);
    let mut seen_members = members(first_abi);
    let mut added_total = 0;
    for (release, abi) in &all[1..] {
        let now = names(abi);
        let added: Vec<&(ItemKind, String)> = now.difference(&seen).collect();
        for (kind, name) in &added {
            let m = marks.item(*kind, name).unwrap();
            assert_eq!(&m.release, release, "{kind:?} {name}");
            assert!(!m.oldest);
            assert_eq!(
                m.sentence().split(" Removed").next().unwrap(),
                format!("Available since CUDA {release}."),
                "{kind:?} {name}"
            );
            let (maj, min) = release.split_once('.').unwrap();
            let encoded: i32 =
                maj.parse::<i32>().unwrap() * 1000 + min.parse::<i32>().unwrap() * 10;
            assert_eq!(m.runtime_version(), encoded, "{kind:?} {name}");
        }
        for (kind, name) in now.intersection(&seen) {
            let m = marks.item(*kind, name).unwrap();
            assert_ne!(
                &m.release, release,
                "{kind:?} {name} was declared before {release}"
            );
        }
        let now_members = members(abi);
        for (e, v) in now_members.difference(&seen_members) {
            assert_eq!(&marks.member(e, v).unwrap().release, release, "{e}::{v}");
        }
        added_total += added.len();
        seen.extend(now);
        seen_members.extend(now_members);
    }
    assert!(added_total > 0, "no item added within CUDA {major}");

    // Items gone from the newest release are marked with the release that dropped them.
    let newest = names(&all.last().unwrap().1);
    let mut by_release: BTreeMap<String, usize> = BTreeMap::new();
    for (kind, name) in seen.difference(&newest) {
        let m = marks.item(*kind, name).unwrap();
        let removed = m
            .removed_in
            .as_ref()
            .unwrap_or_else(|| panic!("{kind:?} {name}"));
        *by_release.entry(removed.clone()).or_default() += 1;
        assert!(m
            .sentence()
            .ends_with(&format!(" Removed in CUDA {removed}.")));
    }
}

#[test]
fn cuda_13_marks_match_the_snapshots_of_every_minor() {
    check_major(13, &["13.0", "13.1", "13.2", "13.3", "13.4", "13.5"]);
}

#[test]
fn cuda_12_marks_match_the_snapshots_of_every_minor() {
    check_major(
        12,
        &[
            "12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.8", "12.9",
        ],
    );
}

#[test]
fn records_whose_layout_changed_are_listed_with_the_release() {
    let marks = availability(&major_snapshots(13));
    let changes = marks.layout_changes("cudaKernelNodeParamsV2");
    let releases: Vec<&str> = changes.iter().map(|c| c.release.as_str()).collect();
    assert_eq!(releases, ["13.1", "13.2"]);
    assert!(
        changes[0].sentence().contains("size 56 bytes → 64 bytes"),
        "{:?}",
        changes[0]
    );
    // A record whose layout stayed has none.
    assert!(marks.layout_changes("cudaMemcpy3DParms").is_empty());
    let changed: Vec<&str> = marks.changed_records().iter().map(|(n, _)| *n).collect();
    assert!(changed.contains(&"cudaDevSmResource"), "{changed:?}");
}

#[test]
fn a_major_compared_from_a_later_minor_says_so_and_checks_nothing() {
    let all = major_snapshots(12);
    let marks = availability(&all[3..]);
    let m = marks.item(ItemKind::Function, "cudaMalloc").unwrap();
    assert!(m.oldest && !m.from_first);
    assert_eq!(m.runtime_version(), 0);
    assert_eq!(
        m.sentence(),
        "In CUDA 12.3 and later 12.x releases (12.3 is the oldest 12.x release whose headers were compared)."
    );
}
