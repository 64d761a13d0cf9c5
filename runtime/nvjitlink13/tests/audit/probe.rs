// Copied by `cargo xtask codegen` from the generator's codegen/template/tests/audit/probe.rs:
// edit the template, not this copy.

//! What every generated crate's audit shares: the macros that spell the rows of
//! `tables::LAYOUT`, the variables naming the release's headers and library, and the C++
//! layout probe, compiled with the system C++ compiler (`CXX`, else `c++`) and compared entry
//! by entry with the Rust table. Each crate's `tests/audit.rs` adds what is its library's
//! own (how the library names its status codes, what it answers without a GPU).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

// The rows of `tables::LAYOUT`: each spells its key from the names it is given, as the C++
// probe prints it, and computes the value on this crate (`krate` is the crate under audit).

/// `("size R", size_of::<R>())`.
#[allow(unused_macros)]
macro_rules! size {
    ($r:ident) => {
        (
            concat!("size ", stringify!($r)),
            ::core::mem::size_of::<krate::sys::$r>() as i128,
        )
    };
}

/// `("align R", align_of::<R>())`.
#[allow(unused_macros)]
macro_rules! align {
    ($r:ident) => {
        (
            concat!("align ", stringify!($r)),
            ::core::mem::align_of::<krate::sys::$r>() as i128,
        )
    };
}

/// `("offset R.field", offset_of!(R, field))`.
#[allow(unused_macros)]
macro_rules! offset {
    ($r:ident, $f:ident) => {
        (
            concat!("offset ", stringify!($r), ".", stringify!($f)),
            ::core::mem::offset_of!(krate::sys::$r, $f) as i128,
        )
    };
}

/// `("value Enum.cMember", Enum::MEMBER.as_raw())`.
macro_rules! value {
    ($e:ident, $c:ident, $m:ident) => {
        (
            concat!("value ", stringify!($e), ".", stringify!($c)),
            krate::sys::$e::$m.as_raw() as i128,
        )
    };
}

/// The path a variable names, or `None` (with a message) when the audit cannot run here:
/// `release` is the crate's.
pub fn path_from(var: &str, what: &str, release: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => {
            let message = format!(
                "{var} is not set: it names {what} of CUDA {release} (`cargo xtask test` sets it)"
            );
            let required = matches!(std::env::var("CUDART_AUDIT_REQUIRED").as_deref(), Ok("1"));
            assert!(!required, "{message}");
            println!("skipped: {message}");
            None
        }
    }
}

/// Compiles and runs the probe against the include folders `includes` (a path list, as
/// `PATH` is written), one of which must hold `header`; returns its `key → value` lines.
pub fn run_probe(includes: &Path, header: &str) -> BTreeMap<String, i128> {
    let folders: Vec<PathBuf> = std::env::split_paths(includes).collect();
    assert!(
        folders.iter().any(|f| f.join(header).is_file()),
        "none of {} holds {header}",
        includes.display()
    );
    let stand_ins = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/audit/include");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/audit/layout_probe.cpp");
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("layout_probe_{}", env!("CARGO_PKG_NAME")));
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
    let mut compile = Command::new(&cxx);
    compile.args(["-std=c++17", "-Wall", "-Werror"]);
    for folder in folders.iter().chain([&stand_ins]) {
        compile.arg("-I").arg(folder);
    }
    let out = compile
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

/// How many entries of each kind matched.
#[derive(Debug, Default)]
pub struct Matched {
    pub records: usize,
    pub aligns: usize,
    pub fields: usize,
    pub values: usize,
}

/// Compares the probe's `c` values with the Rust table `layout`, printing what was compared
/// and what was not (`skipped`, with the reasons); fails on any mismatch, on an entry either
/// side lacks.
pub fn compare(
    c: &BTreeMap<String, i128>,
    layout: &[(&str, i128)],
    skipped: &[(&str, &str)],
) -> Matched {
    let mut mismatches = Vec::new();
    let mut missing = Vec::new();
    let mut m = Matched::default();
    for &(key, rust) in layout {
        match c.get(key) {
            None => missing.push(key),
            Some(&v) if v != rust => mismatches.push(format!("{key}: C {v}, Rust {rust}")),
            Some(_) => match key.split_once(' ').map(|(kind, _)| kind) {
                Some("size") => m.records += 1,
                Some("align") => m.aligns += 1,
                Some("offset") => m.fields += 1,
                Some("value") => m.values += 1,
                _ => panic!("unknown entry kind: {key}"),
            },
        }
    }
    let extra: Vec<&String> = c
        .keys()
        .filter(|k| !layout.iter().any(|(key, _)| key == k))
        .collect();
    println!(
        "compared with the C headers: {} record sizes, {} alignments, {} field offsets, {} \
         enum values ({} entries)",
        m.records,
        m.aligns,
        m.fields,
        m.values,
        layout.len()
    );
    println!("not compared ({}):", skipped.len());
    for (what, why) in skipped {
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
    m
}
