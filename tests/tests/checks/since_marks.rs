//! The committed crates' since-marks, read from their generated source and compared with the
//! committed ABI snapshots of every minor release of their major (names each snapshot
//! declares, compared directly, not through the generator): every item of the X.0 ABI the
//! crate has says "In every CUDA X.x release.", every later one "Available since CUDA X.k.",
//! and each raw function's run-time check carries the same release.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The first release of `major` whose snapshot declares each C name (functions and their
/// renames, records, enums and their members, typedefs, constants, macro aliases).
fn first_releases(major: u32) -> (Vec<String>, BTreeMap<String, String>) {
    let mut releases = Vec::new();
    let mut first: BTreeMap<String, String> = BTreeMap::new();
    for (r, path) in codegen::abi::snapshot::list_in(&root().join("abi")) {
        if r.0.first() != Some(&major) {
            continue;
        }
        let abi = codegen::abi::snapshot::load(&path).expect("snapshot loads");
        let release = r.to_string();
        let names = abi
            .functions
            .keys()
            .chain(abi.renames.keys())
            .chain(abi.records.keys())
            .chain(abi.typedefs.keys())
            .chain(abi.constants.keys())
            .chain(abi.macro_aliases.keys())
            .cloned()
            .chain(abi.enums.values().flat_map(|e| {
                std::iter::once(e.name.clone()).chain(e.values.iter().map(|v| v.name.clone()))
            }));
        // bindgen's anonymous member types are no C items: their parents carry the mark.
        for name in names.filter(|n| !n.contains("__bindgen_ty_")) {
            first.entry(name).or_insert_with(|| release.clone());
        }
        releases.push(release);
    }
    (releases, first)
}

/// One documented item of a generated file: its C name (the `#[doc(alias)]`, else its own
/// name), its doc lines, and for a raw function the release number its `dynamic_call!` checks.
#[derive(Debug)]
struct Item {
    name: String,
    doc: Vec<String>,
    call_since: Option<i32>,
}

/// The items of a generated Rust file, read line by line (the files are prettyplease's output:
/// `///` docs, then attributes, then the item's first line).
fn items(path: &Path) -> Vec<Item> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out: Vec<Item> = Vec::new();
    let mut doc: Vec<String> = Vec::new();
    let mut alias: Option<String> = None;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if let Some(d) = t.strip_prefix("///") {
            doc.push(d.trim().to_string());
            continue;
        }
        if let Some(a) = t.strip_prefix("#[doc(alias = \"") {
            alias = a.split('"').next().map(str::to_string);
            continue;
        }
        if t.starts_with("#[") {
            continue;
        }
        let name = [
            "pub unsafe fn ",
            "pub fn ",
            "pub struct ",
            "pub union ",
            "pub type ",
            "pub const ",
        ]
        .iter()
        .find_map(|p| t.strip_prefix(p))
        .map(|rest| {
            rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("")
                .to_string()
        });
        if let (Some(name), false) = (name, doc.is_empty()) {
            let mut call_since = None;
            if t.starts_with("pub unsafe fn ") {
                // The body follows within a few lines: `dynamic_call!(c"name", 13040, fn …`.
                let mut body = String::new();
                while let Some(next) = lines.peek() {
                    body.push_str(next);
                    body.push(' ');
                    let end = next.starts_with('}');
                    lines.next();
                    if end {
                        break;
                    }
                }
                call_since = body
                    .split_once("dynamic_call!(")
                    .and_then(|(_, rest)| rest.split(',').nth(1))
                    .and_then(|v| v.trim().parse().ok());
            }
            out.push(Item {
                name: alias.take().unwrap_or(name),
                doc: std::mem::take(&mut doc),
                call_since,
            });
        }
        doc.clear();
        alias = None;
    }
    out
}

fn encode(release: &str) -> i32 {
    let (major, minor) = release.split_once('.').expect("X.Y");
    major.parse::<i32>().unwrap() * 1000 + minor.parse::<i32>().unwrap() * 10
}

fn check_crate(dir: &str, major: u32) {
    let (releases, first) = first_releases(major);
    let oldest = releases.first().expect("snapshots of the major");
    assert_eq!(oldest, &format!("{major}.0"));
    let crate_dir = root().join(dir);
    let every = format!("In every CUDA {major}.x release.");
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for file in [
        "src/sys/functions.rs",
        "src/sys/types.rs",
        "src/sys/enums.rs",
        "src/sys/constants.rs",
        "src/sys/flags.rs",
        "src/api.rs",
    ] {
        for item in items(&crate_dir.join(file)) {
            let Some(since) = first.get(&item.name) else {
                // Not a C item of any snapshot (a method, a Rust-only type): no mark.
                assert!(
                    !item
                        .doc
                        .iter()
                        .any(|l| l == &every || l.starts_with("Available since CUDA")),
                    "{file}: {} is no C item but is marked",
                    item.name
                );
                continue;
            };
            let expected = if since == oldest {
                every.clone()
            } else {
                format!("Available since CUDA {since}.")
            };
            assert!(
                item.doc.iter().any(|l| l.starts_with(&expected)),
                "{file}: {} (first declared by {since}) is not marked `{expected}`: {:?}",
                item.name,
                item.doc
            );
            if file == "src/sys/functions.rs" {
                let checked = if since == oldest { 0 } else { encode(since) };
                assert_eq!(item.call_since, Some(checked), "{}", item.name);
            }
            let c = counts.entry(file).or_default();
            if since == oldest {
                c.0 += 1;
            } else {
                c.1 += 1;
            }
        }
    }
    // Every function of the X.0 ABI that the crate binds was met, and the later ones too.
    let (old_fns, new_fns) = counts["src/sys/functions.rs"];
    assert!(old_fns > 300, "{counts:?}");
    assert!(new_fns > 10, "{counts:?}");
    assert!(counts["src/sys/enums.rs"].0 > 600, "{counts:?}");
    assert!(counts["src/sys/types.rs"].0 > 100, "{counts:?}");
    assert!(counts["src/api.rs"].0 > 300, "{counts:?}");
}

#[test]
fn cudart13_items_are_marked_with_their_first_release() {
    check_crate("runtime/cudart13", 13);
}

#[test]
fn cudart12_items_are_marked_with_their_first_release() {
    check_crate("runtime/cudart12", 12);
}
