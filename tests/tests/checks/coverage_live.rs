//! The coverage audit against the real `libcudart.so.13` of NVIDIA's wheel (`cargo xtask
//! test` fetches it and sets `CUDART_WHEEL_LIB`): the exports read with `object` equal an
//! independent count by `nm -D --defined-only`, the real library's classification covers
//! every documented and every ABI function exactly once, and a name set covered against
//! itself is all bound.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use codegen::coverage::{self, Class, ExportError, Exports};
use codegen::ir::{Api, Detail, Function, Source};

fn wheel_lib() -> PathBuf {
    let Some(path) = std::env::var_os("CUDART_WHEEL_LIB") else {
        panic!("CUDART_WHEEL_LIB is not set: run `cargo xtask test` (it fetches the CUDA runtime wheel and sets it)");
    };
    let path = PathBuf::from(path);
    assert!(
        path.is_file(),
        "CUDART_WHEEL_LIB={} is not a file; run `cargo xtask fetch-wheel`",
        path.display()
    );
    path
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Defined function symbols of the dynamic symbol table as binutils' `nm` lists them (`T`:
/// global text, `W`: weak, `i`: indirect function), version suffixes removed.
fn nm_exports(lib: &Path) -> BTreeSet<String> {
    let works = Command::new("nm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(works, "`nm` (binutils) is not installed; it is the independent count this test compares with (apt-get install binutils)");
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(lib)
        .output()
        .expect("running nm");
    assert!(
        out.status.success(),
        "nm failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut parts = line.split_whitespace();
            let (_addr, kind, name) = (parts.next()?, parts.next()?, parts.next()?);
            matches!(kind, "T" | "W" | "i")
                .then(|| name.split('@').next().unwrap_or(name).to_string())
        })
        .collect()
}

#[test]
fn exports_read_with_object_equal_nm_defined_functions() {
    let lib = wheel_lib();
    let ours = coverage::read_exports(&lib).expect("reading the wheel's libcudart");
    let nm = nm_exports(&lib);
    let only_ours: Vec<&String> = ours.functions.difference(&nm).collect();
    let only_nm: Vec<&String> = nm.difference(&ours.functions).collect();
    assert!(
        only_ours.is_empty() && only_nm.is_empty(),
        "object only: {only_ours:?}; nm only: {only_nm:?}"
    );
    assert_eq!(ours.functions.len(), nm.len());
    assert!(ours.contains("cudaRuntimeGetVersion") && ours.contains("cudaMalloc"));
    assert!(ours.functions.iter().all(|n| !n.contains('@')));
}

#[test]
fn real_library_classification_covers_every_name_once() {
    let lib = wheel_lib();
    let exports = coverage::read_exports(&lib).unwrap();
    // SAFETY: NVIDIA's runtime of the crate's release.
    let opened = unsafe { cudart13::Library::open(&lib) }.expect("opening the wheel's libcudart");
    let version = opened.runtime_version();

    // What `cargo xtask coverage` reads by default: the documents of the first crate.
    let docs_src = workspace().join("docs-src");
    let first = codegen::load::crates(&docs_src).unwrap().remove(0);
    let docs: Vec<std::path::PathBuf> = first.docs.iter().map(|d| docs_src.join(d)).collect();
    let api = codegen::merge::merge(codegen::load::load_all(&docs, None).unwrap());
    let version_text = coverage::version_text(version);
    let release = codegen::pipeline::release_of(&api)
        .or_else(|| codegen::ir::Release::parse(&version_text))
        .expect("a release");
    // The wheel is fetched for the release the crate's documents state: the library must say
    // the same.
    assert_eq!(
        version_text,
        release.to_string(),
        "library version vs the docs' release"
    );
    let abi = codegen::abi::load_snapshot(&codegen::abi::workspace_root(), &release)
        .expect("reading the ABI source");
    let c = coverage::audit(&api, &abi, &exports, Some(version));

    // Every row's name once.
    let names: Vec<&str> = c.rows.iter().map(|r| r.name.as_str()).collect();
    let unique: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(unique.len(), names.len(), "a name appears in two rows");
    // Every documented function exactly once, in a documented class.
    let documented: BTreeSet<&str> = api.functions.iter().map(|f| f.name.as_str()).collect();
    for name in &documented {
        let rows: Vec<_> = c.rows.iter().filter(|r| r.name == *name).collect();
        assert_eq!(rows.len(), 1, "{name}");
        assert!(
            rows[0].class.is_documented() && rows[0].documented,
            "{name}: {:?}",
            rows[0].class
        );
    }
    assert_eq!(c.totals.documented, documented.len());
    // Every export and every ABI function once; the union is exactly the three sets.
    let mut union: BTreeSet<&str> = documented.clone();
    union.extend(abi.functions.keys().map(String::as_str));
    union.extend(exports.functions.iter().map(String::as_str));
    assert_eq!(unique, union);
    assert_eq!(
        c.totals.exported,
        nm_exports(&lib).len(),
        "exported names vs nm"
    );
    assert_eq!(c.totals.in_abi, abi.functions.len());
    let sum: usize = c.totals.classes.iter().map(|k| k.count).sum();
    assert_eq!(sum, c.rows.len());
    // Undocumented groups hold only names of their shape.
    for r in c.rows_of(Class::UndocumentedPerThread) {
        assert!(
            r.name.ends_with("_ptsz") || r.name.ends_with("_ptds"),
            "{}",
            r.name
        );
    }
    for r in c.rows_of(Class::UndocumentedInternal) {
        assert!(r.name.starts_with("__cuda"), "{}", r.name);
    }
    eprintln!("{}", coverage::render::summary(&c));
}

#[test]
fn a_name_set_covered_against_itself_is_all_bound() {
    let lib = wheel_lib();
    let exports = coverage::read_exports(&lib).unwrap();
    let release = codegen::ir::Release::parse(&coverage::version_text(
        // SAFETY: NVIDIA's runtime of the crate's release.
        unsafe { cudart13::Library::open(&lib) }
            .unwrap()
            .runtime_version(),
    ))
    .unwrap();
    let mut abi = codegen::abi::load_snapshot(&codegen::abi::workspace_root(), &release).unwrap();
    // The same names on all three sides: the real ABI functions the library exports.
    abi.functions.retain(|name, _| exports.contains(name));
    let names: Vec<String> = abi.functions.keys().cloned().collect();
    assert!(
        names.len() > 100,
        "only {} ABI functions are exported",
        names.len()
    );
    let api = Api {
        functions: names
            .iter()
            .enumerate()
            .map(|(i, n)| Function {
                name: n.clone(),
                qualified_name: n.clone(),
                section: Some("All".into()),
                params: None,
                rtype: None,
                errors: vec![],
                doc: String::new(),
                see_also: vec![],
                detail: Detail::NamesOnly,
                source: Source::new("self.txt", i as u32 + 1),
                sources: vec![],
            })
            .collect(),
        ..Api::default()
    };
    let same = Exports::from_names(&exports.path, names.iter().cloned());
    let c = coverage::audit(&api, &abi, &same, None);
    assert_eq!(c.rows.len(), names.len());
    assert_eq!(c.totals.count(Class::Bound), names.len());
    assert_eq!(c.totals.bound_percent, 100.0);
}

#[test]
fn a_non_elf_file_is_an_error_not_a_panic() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let fake = dir.join("not-a-library.so.13");
    std::fs::write(&fake, "this is text, not ELF\n").unwrap();
    match coverage::read_exports(&fake) {
        Err(e @ ExportError::NotElf { .. }) => {
            assert!(e.to_string().contains("not an ELF shared library"))
        }
        other => panic!("expected NotElf, got {other:?}"),
    }
    // The runtime crate's loader refuses it with an error too.
    // SAFETY: refused before anything is loaded.
    assert!(unsafe { cudart13::Library::open(&fake) }.is_err());
}
