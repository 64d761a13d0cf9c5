//! The release diff joined with the ABI snapshots, on the committed snapshots of every minor
//! release: for every pair of consecutive releases, each difference an independent
//! comparison of the two snapshots finds is in the report with its class from C
//! compatibility, or listed with the reason it is not; and the signature changes of CUDA
//! 13.0's migration notes are breaks with both prototypes.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use codegen::abi::{self, Abi, CType, Record};
use codegen::diff::{self, AbiPair, ApiDiff, ChangeKind, Impact, ItemKind, ItemStatus};
use codegen::ir::{Api, Release};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every committed snapshot, oldest release first.
fn snapshots() -> Vec<(Release, Abi)> {
    let mut out: Vec<(Release, Abi)> = std::fs::read_dir(root().join("abi"))
        .expect("abi/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let release = Release::parse(&p.file_stem().unwrap().to_string_lossy())
                .expect("a release file name");
            (release, abi::snapshot::load(&p).expect("a valid snapshot"))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn abi_only(old: &Abi, new: &Abi) -> ApiDiff {
    diff::diff_with_abi(
        &Api::default(),
        &Api::default(),
        AbiPair {
            old,
            new,
            old_file: None,
            new_file: None,
        },
        None,
    )
}

/// One difference the independent comparison expects: the item, the kind of change, the
/// member or field (when it names one) and the class C compatibility gives it.
#[derive(Debug)]
struct Expected {
    kind: ItemKind,
    name: String,
    change: ChangeKind,
    part: Option<String>,
    impact: Impact,
}

fn expect(
    out: &mut Vec<Expected>,
    kind: ItemKind,
    name: &str,
    change: ChangeKind,
    part: Option<&str>,
    impact: Impact,
) {
    out.push(Expected {
        kind,
        name: name.to_string(),
        change,
        part: part.map(String::from),
        impact,
    });
}

/// The fields C code names directly in `r`, with their offsets: named fields, and those of
/// anonymous members (`__bindgen_anon_N`) one level down, by name.
fn reachable(abi: &Abi, r: &Record) -> BTreeMap<String, (String, Option<u64>)> {
    let mut out = BTreeMap::new();
    for f in &r.fields {
        if f.name.starts_with("__bindgen_anon_") {
            if let CType::Named { name } = &f.ty.c {
                if let Some(inner) = abi.records.get(name) {
                    for g in &inner.fields {
                        out.entry(g.c_name().to_string())
                            .or_insert((g.ty.c_text.clone(), None));
                    }
                }
            }
        } else {
            out.insert(f.c_name().to_string(), (f.ty.c_text.clone(), f.offset));
        }
    }
    out
}

/// An independent, plain comparison of two snapshots: symbol sets, prototypes by C
/// spelling, record sizes, alignments and named fields' offsets, enum values, constants,
/// typedefs, deprecation marks.
fn independent(old: &Abi, new: &Abi) -> Vec<Expected> {
    let mut out = Vec::new();
    for (name, f) in &old.functions {
        match new.functions.get(name) {
            // Still callable under its name through a `#define`: not a removal in C source.
            None if new.renames.contains_key(name) => {}
            None => expect(
                &mut out,
                ItemKind::Function,
                name,
                ChangeKind::Removed,
                None,
                Impact::Break,
            ),
            Some(g) => {
                let sig = |x: &abi::Function| {
                    let mut v: Vec<&str> = x.params.iter().map(|p| p.ty.c_text.as_str()).collect();
                    v.push(&x.ret.c_text);
                    v.join(",")
                };
                if sig(f) != sig(g) && !old.renames.contains_key(name) {
                    expect(
                        &mut out,
                        ItemKind::Function,
                        name,
                        ChangeKind::SignatureChanged,
                        None,
                        Impact::Break,
                    );
                }
            }
        }
    }
    for name in new.functions.keys() {
        if !old.functions.contains_key(name) && !old.renames.contains_key(name) {
            expect(
                &mut out,
                ItemKind::Function,
                name,
                ChangeKind::Added,
                None,
                Impact::Info,
            );
        }
    }
    let top = |r: &&Record| r.parent.is_none() && !r.name.contains("__bindgen_ty_");
    for r in old.records.values().filter(top) {
        let Some(s) = new.records.get(&r.name) else {
            expect(
                &mut out,
                ItemKind::Struct,
                &r.name,
                ChangeKind::Removed,
                None,
                Impact::Break,
            );
            continue;
        };
        if r.size.is_some() && s.size.is_some() && r.size != s.size {
            expect(
                &mut out,
                ItemKind::Struct,
                &r.name,
                ChangeKind::SizeChanged,
                None,
                Impact::Break,
            );
        }
        if r.align.is_some() && s.align.is_some() && r.align != s.align {
            expect(
                &mut out,
                ItemKind::Struct,
                &r.name,
                ChangeKind::AlignmentChanged,
                None,
                Impact::Break,
            );
        }
        let (a, b) = (reachable(old, r), reachable(new, s));
        for (field, (_, offset)) in &a {
            match b.get(field) {
                None => expect(
                    &mut out,
                    ItemKind::Struct,
                    &r.name,
                    ChangeKind::FieldRemoved,
                    Some(field),
                    Impact::Break,
                ),
                Some((_, o)) if offset.is_some() && o.is_some() && o != offset => expect(
                    &mut out,
                    ItemKind::Struct,
                    &r.name,
                    ChangeKind::FieldMoved,
                    Some(field),
                    Impact::Break,
                ),
                Some(_) => {}
            }
        }
    }
    for r in new.records.values().filter(top) {
        if !old.records.contains_key(&r.name) {
            expect(
                &mut out,
                ItemKind::Struct,
                &r.name,
                ChangeKind::Added,
                None,
                Impact::Info,
            );
        }
    }
    for e in old.enums.values() {
        let Some(f) = new.enums.get(&e.name) else {
            expect(
                &mut out,
                ItemKind::Enum,
                &e.name,
                ChangeKind::Removed,
                None,
                Impact::Break,
            );
            continue;
        };
        for v in &e.values {
            match f.value(&v.name) {
                None => expect(
                    &mut out,
                    ItemKind::Enum,
                    &e.name,
                    ChangeKind::MemberRemoved,
                    Some(&v.name),
                    Impact::Break,
                ),
                Some(w) if w != v.value => expect(
                    &mut out,
                    ItemKind::Enum,
                    &e.name,
                    ChangeKind::MemberRenumbered,
                    Some(&v.name),
                    Impact::Break,
                ),
                Some(_) => {}
            }
        }
    }
    for c in old.constants.values() {
        match new.constants.get(&c.name) {
            None => expect(
                &mut out,
                ItemKind::Constant,
                &c.name,
                ChangeKind::Removed,
                None,
                Impact::Break,
            ),
            Some(d) if d.value != c.value => expect(
                &mut out,
                ItemKind::Constant,
                &c.name,
                ChangeKind::ValueChanged,
                None,
                Impact::Break,
            ),
            Some(_) => {}
        }
    }
    for t in old.typedefs.keys() {
        if !new.typedefs.contains_key(t) {
            expect(
                &mut out,
                ItemKind::Typedef,
                t,
                ChangeKind::Removed,
                None,
                Impact::Break,
            );
        }
    }
    for name in new.deprecated.keys() {
        if !old.deprecated.contains_key(name)
            && old.functions.contains_key(name)
            && new.functions.contains_key(name)
        {
            expect(
                &mut out,
                ItemKind::Function,
                name,
                ChangeKind::Deprecated,
                None,
                Impact::Deprecated,
            );
        }
    }
    out
}

/// What is wrong with `report` against `expected`: a difference missing, or of another
/// class without a stated reason; an item whose class is not its most severe difference; an
/// ABI entry that is in no item.
fn problems(report: &ApiDiff, expected: &[Expected]) -> Vec<String> {
    let mut out = Vec::new();
    for e in expected {
        let Some(item) = report.item(e.kind, &e.name) else {
            out.push(format!("{e:?}: no item"));
            continue;
        };
        let found = item.changes.iter().find(|c| {
            c.change == e.change && (e.part.is_none() || c.part.as_deref() == e.part.as_deref())
        });
        match found {
            None => out.push(format!("{e:?}: not among {:?}", item.changes)),
            Some(c) if c.impact != e.impact && c.reason.is_none() => {
                out.push(format!("{e:?}: class {:?} without a reason", c.impact))
            }
            Some(_) => {}
        }
    }
    let mut listed: HashSet<String> = HashSet::new();
    for i in &report.items {
        let most = i.changes.iter().map(|c| c.impact).min();
        if most != Some(i.impact) {
            out.push(format!(
                "{} {}: class {:?}, changes {most:?}",
                i.kind.name(),
                i.name,
                i.impact
            ));
        }
        for c in &i.changes {
            listed.insert(format!("{c:?}"));
        }
    }
    for c in &report.abi_changes {
        if !listed.contains(&format!("{c:?}")) {
            out.push(format!("ABI entry in no item: {c:?}"));
        }
    }
    out
}

#[test]
fn every_abi_difference_of_consecutive_releases_is_in_the_report_with_its_class() {
    let all = snapshots();
    let releases: Vec<String> = all.iter().map(|(r, _)| r.to_string()).collect();
    assert!(
        all.len() >= 15,
        "snapshots of 12.0…12.9 and 13.0…13.5: {releases:?}"
    );
    let mut checked = 0;
    for pair in all.windows(2) {
        let ((ro, old), (rn, new)) = (&pair[0], &pair[1]);
        let report = abi_only(old, new);
        let expected = independent(old, new);
        let found = problems(&report, &expected);
        assert!(found.is_empty(), "{ro} → {rn}:\n{}", found.join("\n"));
        checked += expected.len();
    }
    assert!(checked > 250, "{checked} differences checked");
}

#[test]
fn the_check_itself_fails_on_a_wrong_report() {
    let all = snapshots();
    let find = |r: &str| &all.iter().find(|(x, _)| x.to_string() == r).expect(r).1;
    let (old, new) = (find("12.9"), find("13.0"));
    let expected = independent(old, new);
    let mut report = abi_only(old, new);
    assert!(problems(&report, &expected).is_empty());
    // A break dropped, a class lowered without reason: both named.
    let at = report
        .items
        .iter()
        .position(|i| i.name == "cudaThreadExit")
        .unwrap();
    report.items.remove(at);
    let advise = report
        .items
        .iter_mut()
        .find(|i| i.name == "cudaMemAdvise")
        .unwrap();
    advise.changes[0].impact = Impact::Info;
    let found = problems(&report, &expected);
    assert!(
        found.iter().any(|p| p.contains("cudaThreadExit")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|p| p.contains("cudaMemAdvise")),
        "{found:?}"
    );
}

/// The signature changes of CUDA 13.0's migration notes, each with a name its new
/// prototype holds.
const MIGRATION: &[(&str, &str)] = &[
    ("cudaGraphAddNode", "dependencyData"),
    ("cudaGraphAddDependencies", "edgeData"),
    ("cudaGraphRemoveDependencies", "edgeData"),
    ("cudaGraphGetEdges", "edgeData"),
    ("cudaGraphNodeGetDependencies", "edgeData"),
    ("cudaGraphNodeGetDependentNodes", "edgeData"),
    ("cudaStreamGetCaptureInfo", "edgeData_out"),
    ("cudaStreamUpdateCaptureDependencies", "dependencyData"),
    ("cudaMemAdvise", "cudaMemLocation location"),
    ("cudaMemPrefetchAsync", "cudaMemLocation location"),
    ("cudaMemcpyBatchAsync", "cudaMemcpyAttributes"),
    ("cudaMemcpy3DBatchAsync", "cudaMemcpy3DBatchOp"),
];

#[test]
fn cuda_13_0_migration_signature_changes_are_breaks_with_both_prototypes() {
    let all = snapshots();
    let find = |r: &str| &all.iter().find(|(x, _)| x.to_string() == r).expect(r).1;
    for old in ["12.8", "12.9"] {
        let d = abi_only(find(old), find("13.0"));
        for (name, holds) in MIGRATION {
            let i = d
                .item(ItemKind::Function, name)
                .unwrap_or_else(|| panic!("{old} → 13.0: {name} missing"));
            let sig: Vec<_> = i
                .changes
                .iter()
                .filter(|c| c.change == ChangeKind::SignatureChanged)
                .collect();
            assert_eq!((i.impact, sig.len()), (Impact::Break, 1), "{name}: {i:?}");
            let (o, n) = (i.old_c.as_deref().unwrap(), i.new_c.as_deref().unwrap());
            assert!(o.contains(&format!("{name}(")) && n.contains(&format!("{name}(")));
            assert!(n.contains(holds) && o != n, "{name}: {o} → {n}");
            // One row per function: no other item carries its changes.
            assert_eq!(d.items.iter().filter(|x| x.name == *name).count(), 1);
        }
        // `device` → `location` is one break, not a removal and an addition.
        let advise = d.item(ItemKind::Function, "cudaMemAdvise").unwrap();
        assert_eq!(advise.changes.len(), 1, "{advise:?}");
        assert!(advise.changes[0]
            .part
            .as_deref()
            .unwrap()
            .contains("`int device` → `cudaMemLocation location`"));
        // The `_v2` members are paired with the name that has their prototype now.
        for (v2, base) in [
            ("cudaGraphAddNode_v2", "cudaGraphAddNode"),
            ("cudaMemAdvise_v2", "cudaMemAdvise"),
            ("cudaStreamGetCaptureInfo_v3", "cudaStreamGetCaptureInfo"),
        ] {
            let i = d.item(ItemKind::Function, v2).unwrap();
            assert_eq!(
                (i.status, i.paired_with.as_deref(), i.impact),
                (ItemStatus::Paired, Some(base), Impact::Break),
                "{v2}"
            );
            assert!(d
                .renamed
                .iter()
                .any(|r| r.old_name == v2 && r.new_name == base));
        }
        // Removed without successor, and the record that lost fields.
        for gone in ["cudaThreadExit", "cudaLaunchCooperativeKernelMultiDevice"] {
            let i = d.item(ItemKind::Function, gone).unwrap();
            assert_eq!((i.status, i.impact), (ItemStatus::Removed, Impact::Break));
        }
        assert_eq!(
            d.item(ItemKind::Struct, "cudaDeviceProp").unwrap().impact,
            Impact::Break
        );
        // `cudaGetDeviceProperties` was `#define`d to its `_v2` in 12.x: C source calling it
        // compiles against 13.0, so it is no break.
        let gdp = d
            .item(ItemKind::Function, "cudaGetDeviceProperties")
            .unwrap();
        assert_eq!(gdp.impact, Impact::Info, "{gdp:?}");
    }
}

#[test]
fn count_sentinels_reserved_fields_and_the_version_are_not_breaks() {
    let all = snapshots();
    let find = |r: &str| &all.iter().find(|(x, _)| x.to_string() == r).expect(r).1;
    let d = abi_only(find("13.4"), find("13.5"));
    let attr = d.item(ItemKind::Enum, "cudaDeviceAttr").unwrap();
    let max = attr
        .changes
        .iter()
        .find(|c| c.part.as_deref() == Some("cudaDevAttrMax"))
        .unwrap();
    assert_eq!(
        (max.change, max.impact),
        (ChangeKind::MemberRenumbered, Impact::Info)
    );
    assert!(max.reason.as_deref().unwrap().contains("sentinel"));
    let pool = d.item(ItemKind::Struct, "cudaMemPoolProps").unwrap();
    assert_eq!(pool.impact, Impact::Info, "{pool:?}");
    let v = d.item(ItemKind::Constant, "CUDART_VERSION").unwrap();
    assert_eq!(v.impact, Impact::Info);
    // The 13.2 → 13.3 move of `cudaMemLocation::id` into an anonymous union is no change in C.
    let d = abi_only(find("13.2"), find("13.3"));
    assert!(d
        .item(ItemKind::Struct, "cudaMemLocation")
        .is_none_or(|i| i.impact != Impact::Break));
    // Deprecation from the headers' attribute.
    let d = abi_only(find("12.3"), find("12.4"));
    let dep = d
        .item(ItemKind::Function, "cudaDeviceSetSharedMemConfig")
        .unwrap();
    assert_eq!(dep.impact, Impact::Deprecated);
}

#[test]
fn documents_joined_with_the_abi_keep_one_row_per_function() {
    let load = |dir: &str| {
        codegen::merge::merge(
            codegen::load::load_all(&[root().join("docs-src").join(dir)], None).expect(dir),
        )
    };
    let (old, new) = (
        load("nvidia-cuda-headers-12.8"),
        load("nvidia-cuda-headers-13.5"),
    );
    let all = snapshots();
    let find = |r: &str| &all.iter().find(|(x, _)| x.to_string() == r).expect(r).1;
    let d = diff::diff_with_abi(
        &old,
        &new,
        AbiPair {
            old: find("12.8"),
            new: find("13.5"),
            old_file: None,
            new_file: None,
        },
        None,
    );
    for name in ["cudaMemAdvise", "cudaMemPrefetchAsync", "cudaGraphAddNode"] {
        let rows: Vec<_> = d.items.iter().filter(|i| i.name == name).collect();
        assert_eq!(rows.len(), 1, "{name}");
        assert_eq!(rows[0].impact, Impact::Break, "{name}");
        // The documents' section, and their own account of the change, in the same row.
        assert_eq!(
            rows[0].section.as_deref(),
            Some(if name == "cudaGraphAddNode" {
                "Graph Management"
            } else {
                "Memory Management"
            })
        );
    }
    // The documents name the enum `cudaError_t`; the ABI `cudaError`: one item.
    assert!(d
        .items
        .iter()
        .all(|i| i.name != "cudaError_t" || i.kind != ItemKind::Enum));
    // Nothing of class docs claims a C-level change: each says what the headers say.
    for i in d.items.iter().filter(|i| i.impact == Impact::Docs) {
        assert!(i.changes.iter().all(|c| c.reason.is_some()), "{i:?}");
    }
}
