//! The emitted records and enums against the C headers of NVIDIA's `nvidia-cuda-runtime` wheel
//! (`cargo xtask fetch-wheel`; `cargo xtask test` passes its include folder in
//! `CUDA_WHEEL_INCLUDE`).
//!
//! `cargo xtask codegen` writes both sides from the same list of entries: the C++ probe
//! `tests/generated/layout_probe.cpp` (`sizeof`, `alignof`, `offsetof`, enumerator values as
//! the compiler sees them) and the Rust table `tests/generated/layout_table.rs` (`size_of`,
//! `align_of`, `offset_of!`, `as_raw()` on `runtime::sys`). This test compiles and runs the
//! probe with the system C++ compiler (`CXX`, else `c++`) and compares entry by entry. What is
//! not compared is the table's `SKIPPED` list, printed with its reasons.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

include!("../generated/layout_table.rs");

fn wheel_include() -> PathBuf {
    match std::env::var_os("CUDA_WHEEL_INCLUDE") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!(
            "CUDA_WHEEL_INCLUDE is not set: run `cargo xtask test`, or run `cargo xtask \
             fetch-wheel` and set CUDA_WHEEL_INCLUDE to the include folder it prints"
        ),
    }
}

/// Compiles and runs the probe; returns its `key → value` lines.
fn run_probe() -> BTreeMap<String, i128> {
    let include = wheel_include();
    assert!(
        include.join("cuda_runtime_api.h").is_file(),
        "{} holds no cuda_runtime_api.h",
        include.display()
    );
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("generated/layout_probe.cpp");
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("layout_probe");
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    let out = Command::new(&cxx)
        .args(["-std=c++17", "-Wall", "-Werror", "-I"])
        .arg(&include)
        .arg(&source)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("running the C++ compiler `{cxx}`: {e}"));
    assert!(
        out.status.success(),
        "compiling {} failed:\n{}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
    assert!(out.status.success(), "the probe failed: {}", out.status);
    let text = String::from_utf8(out.stdout).expect("the probe prints ASCII");
    let mut values = BTreeMap::new();
    let mut count = None;
    for line in text.lines() {
        let (key, value) = line.rsplit_once(' ').expect("`key value` lines");
        let value: i128 = value.parse().expect("an integer value");
        if key == "entries" {
            count = Some(value);
        } else {
            assert!(
                values.insert(key.to_string(), value).is_none(),
                "{key} printed twice"
            );
        }
    }
    assert_eq!(
        count,
        Some(values.len() as i128),
        "the probe's entry count does not match its lines"
    );
    values
}

#[test]
fn layouts_and_enum_values_match_the_c_headers() {
    let c = run_probe();
    let mut mismatches = Vec::new();
    let mut missing = Vec::new();
    let (mut records, mut aligns, mut fields, mut values) = (0, 0, 0, 0);
    for &(key, rust) in LAYOUT {
        match c.get(key) {
            None => missing.push(key),
            Some(&v) if v != rust => mismatches.push(format!("{key}: C {v}, Rust {rust}")),
            Some(_) => match key.split_once(' ').map(|(kind, _)| kind) {
                Some("size") => records += 1,
                Some("align") => aligns += 1,
                Some("offset") => fields += 1,
                Some("value") => values += 1,
                _ => panic!("unknown entry kind: {key}"),
            },
        }
    }
    let extra: Vec<&String> = c
        .keys()
        .filter(|k| !LAYOUT.iter().any(|(key, _)| key == k))
        .collect();
    println!(
        "compared with the C headers: {records} record sizes, {aligns} alignments, {fields} \
         field offsets, {values} enum values ({} entries)",
        LAYOUT.len()
    );
    println!("not compared ({}):", SKIPPED.len());
    for (what, why) in SKIPPED {
        println!("  {what}: {why}");
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatch(es):\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(missing.is_empty(), "the probe printed no {missing:?}");
    assert!(extra.is_empty(), "the Rust table has no {extra:?}");
    assert!(
        records > 0 && aligns > 0 && fields > 0 && values > 0,
        "compared nothing of some kind: {records} sizes, {aligns} alignments, {fields} \
         offsets, {values} values"
    );
}
