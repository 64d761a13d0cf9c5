//! The API timeline over the committed ABI snapshots: presence, dates and events agree with
//! each snapshot and with the diff of each pair of consecutive releases; known items of CUDA
//! 12 and 13 have the dates their headers give; the JSON matches its schema.

use std::path::PathBuf;

use codegen::abi::{self, Abi};
use codegen::diff::{Impact, ItemKind};
use codegen::ir::Release;
use codegen::report::OutputFormat;
use codegen::timeline::{self, EventKind, Snapshot, Timeline};

use crate::common::check;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn snapshots() -> Vec<(String, Abi)> {
    let mut out: Vec<(Release, Abi)> = std::fs::read_dir(root().join("abi"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let r = Release::parse(&p.file_stem().unwrap().to_string_lossy()).unwrap();
            (r, abi::snapshot::load(&p).unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.into_iter().map(|(r, a)| (r.to_string(), a)).collect()
}

fn build(all: &[(String, Abi)]) -> Timeline {
    let snaps: Vec<Snapshot> = all
        .iter()
        .map(|(r, a)| Snapshot {
            release: r.clone(),
            file: format!("abi/{r}.json"),
            abi: a,
        })
        .collect();
    timeline::build(&snaps, &|_| None)
}

#[test]
fn presence_and_dates_agree_with_every_snapshot() {
    let all = snapshots();
    let t = build(&all);
    assert_eq!(t.releases.len(), all.len());
    for line in &t.items {
        for (i, (_, abi)) in all.iter().enumerate() {
            let declared = match line.kind {
                ItemKind::Function => abi.function_for(&line.name).is_some(),
                ItemKind::Struct => abi.records.contains_key(&line.name),
                ItemKind::Enum => abi.enums.contains_key(&line.name),
                ItemKind::Typedef => abi.typedefs.contains_key(&line.name),
                ItemKind::Constant => abi.constants.contains_key(&line.name),
                ItemKind::Alias => abi.macro_aliases.contains_key(&line.name),
            };
            assert_eq!(line.present[i], declared, "{} in {}", line.name, all[i].0);
        }
        let first = line.present.iter().position(|p| *p).unwrap();
        assert_eq!(line.since, all[first].0, "{}", line.name);
        assert_eq!(line.since_first_snapshot, first == 0);
        // An added event exactly where an item appears after the first snapshot.
        for (i, (r, _)) in all.iter().enumerate().skip(1) {
            let appears = line.present[i] && !line.present[i - 1];
            let added = line
                .events
                .iter()
                .any(|e| &e.release == r && e.event == EventKind::Added);
            assert_eq!(appears, added, "{} in {r}", line.name);
        }
    }
}

#[test]
fn events_are_the_diff_of_consecutive_releases() {
    let all = snapshots();
    let t = build(&all);
    for pair in all.windows(2) {
        let d = codegen::diff::abi::compare(&pair[0].1, &pair[1].1);
        let release = &pair[1].0;
        let in_timeline: usize = t
            .items
            .iter()
            .flat_map(|l| &l.events)
            .filter(|e| &e.release == release)
            .map(|e| e.changes.len())
            .sum();
        // bindgen's anonymous types are no items of their own: their fields are their
        // parents'.
        let of_items = d
            .changes
            .iter()
            .filter(|c| !codegen::diff::abi::is_anonymous(&c.name))
            .count();
        assert_eq!(in_timeline, of_items, "{release}");
    }
}

#[test]
fn known_dates_of_cuda_12_and_13() {
    let all = snapshots();
    let t = build(&all);
    let line = |kind, name: &str| {
        t.items
            .iter()
            .find(|l| l.kind == kind && l.name == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let v2 = line(ItemKind::Function, "cudaGraphAddNode_v2");
    assert_eq!(
        (v2.since.as_str(), v2.removed_in.as_deref()),
        ("12.3", Some("13.0"))
    );
    let advise = line(ItemKind::Function, "cudaMemAdvise");
    assert!(advise.since_first_snapshot && advise.removed_in.is_none());
    let change = advise.events.iter().find(|e| e.release == "13.0").unwrap();
    assert_eq!(
        (change.event, change.impact),
        (EventKind::Changed, Impact::Break)
    );
    assert_eq!(
        line(ItemKind::Function, "cudaDeviceSetSharedMemConfig")
            .deprecated_in
            .as_deref(),
        Some("12.4")
    );
    assert_eq!(
        line(ItemKind::Function, "cudaGetDriverEntryPoint")
            .deprecated_in
            .as_deref(),
        Some("13.0")
    );
    // An enum's members carry their own dates.
    let attr = line(ItemKind::Enum, "cudaDeviceAttr");
    let member = |n: &str| attr.members.iter().find(|m| m.name == n).unwrap();
    assert_eq!(
        member("cudaDevAttrCooperativeMultiDeviceLaunch")
            .removed_in
            .as_deref(),
        Some("13.0")
    );
    assert_eq!(
        member("cudaDevAttrHostMemoryPoolsSupported").since.as_str(),
        "13.0"
    );
    // No release 12.7: NVIDIA never published one.
    assert!(t.releases.iter().all(|r| r.release != "12.7"));
}

#[test]
fn json_matches_its_schema_and_reports_render() {
    let all = snapshots();
    let t = build(&all[all.len() - 3..]);
    let path = root().join("docs/timeline.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&timeline::render::render(&t, OutputFormat::Json)).unwrap();
    check(&schema, &schema, &json, "$").unwrap();
    let mut bad = json.clone();
    bad["items"][0]["kind"] = "thing".into();
    assert!(check(&schema, &schema, &bad, "$").is_err());
    let md = timeline::render::render(&t, OutputFormat::Markdown);
    assert!(md.contains("## Contents") && md.contains("<a id=\"function-cudaMalloc\"></a>"));
    let html = timeline::render::render(&t, OutputFormat::Html);
    assert!(html.contains("<tr id=\"function-cudaMalloc\""));
    assert!(html.contains("<select id=\"class-filter\""));
}
