//! `cargo xtask diff` as a user runs it: IR JSON inputs, report files, `--fail-on` exit
//! codes, and one clear `error:` line for bad inputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use codegen::doctype::TypeRef;
use codegen::ir::{Api, Detail, Direction, Enum, Function, Param, Source, Variant};

fn api(size_type: &str, extra: bool, member: i64) -> Api {
    let f = |name: &str, ty: &str| Function {
        name: name.into(),
        qualified_name: name.into(),
        section: Some("Memory".into()),
        params: Some(vec![Param {
            name: "size".into(),
            ty: Some(TypeRef::parse(ty)),
            direction: Direction::In,
            doc: String::new(),
        }]),
        rtype: None,
        errors: vec![],
        doc: String::new(),
        see_also: vec![],
        detail: Detail::Full,
        source: Source::new("doc.txt", 3),
        sources: vec![],
    };
    let mut a = Api::default();
    a.functions.push(f("cudaMalloc", size_type));
    if extra {
        a.functions.push(f("cudaFree", "int"));
    }
    a.enums.push(Enum {
        name: "cudaLimit".into(),
        qualified_name: "cudaLimit".into(),
        section: None,
        doc: String::new(),
        variants: vec![Variant {
            name: "cudaLimitStackSize".into(),
            value: Some(member),
            doc: String::new(),
            source: Source::new("doc.txt", 9),
        }],
        detail: Detail::Full,
        source: Source::new("doc.txt", 8),
        sources: vec![],
    });
    a
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("diff_cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn write(name: &str, a: &Api) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, serde_json::to_string(a).unwrap()).unwrap();
    p
}

fn xtask(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("diff")
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn diff_of_ir_files_writes_reports_and_gates() {
    let old = write("old.json", &api("size_t", true, 0));
    let new = write("new.json", &api("int", false, 1));
    let html = tmp("report.html");
    let o = xtask(&[
        &old,
        &new,
        Path::new("--format"),
        Path::new("html"),
        Path::new("--out"),
        &html,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // The documents state no release and two functions tell none: no ABI to class them, and
    // the command says so; a removal and a retyped parameter are still breaks, resting on
    // the documents.
    assert!(stdout.contains("no ABI snapshot was compared"), "{stdout}");
    assert!(stdout.contains("!! Breaks"), "{stdout}");
    assert!(
        stderr(&o).contains("comparing the documents alone")
            && stderr(&o).contains("match no committed ABI snapshot"),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout.lines().count() < 40,
        "totals fit on one screen: {stdout}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("data-name=\"cudaFree\"")
            && page.contains("<input type=\"search\" id=\"search\"")
    );

    for (gate, fails) in [("removed", true), ("changed", true), ("break", true)] {
        let o = xtask(&[
            &old,
            &new,
            Path::new("--out"),
            &tmp("r.md"),
            Path::new("--fail-on"),
            Path::new(gate),
        ]);
        assert_eq!(!o.status.success(), fails, "--fail-on {gate}");
        assert_eq!(
            stderr(&o).lines().any(|l| l.starts_with("error: ")),
            fails,
            "{}",
            stderr(&o)
        );
    }
    // Against itself: nothing to fail on.
    let o = xtask(&[
        &old,
        &old,
        Path::new("--out"),
        &tmp("same.json"),
        Path::new("--format"),
        Path::new("json"),
        Path::new("--fail-on"),
        Path::new("removed,changed,break"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp("same.json")).unwrap()).unwrap();
    assert_eq!(json["changes"].as_array().map(Vec::len), Some(0));
    assert_eq!(json["old"]["label"].as_str(), old.to_str());
}

#[test]
fn releases_and_snapshots_as_sides_class_from_the_abi() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let json = tmp("12.9-13.0.json");
    let o = xtask(&[
        Path::new("12.9"),
        Path::new("13.0"),
        Path::new("--format"),
        Path::new("json"),
        Path::new("--out"),
        &json,
        Path::new("--fail-on"),
        Path::new("break"),
    ]);
    assert!(!o.status.success(), "breaks fail the gate");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("!! Breaks ("), "{stdout}");
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(d["abi_compared"], true);
    let item = |name: &str| {
        d["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(item("cudaMemAdvise")["impact"], "break");
    assert_eq!(item("cudaGraphAddNode_v2")["status"], "paired");
    // The same with the snapshot files named, and IR documents joined with given snapshots.
    let o = xtask(&[
        &root.join("abi/12.9.json"),
        &root.join("abi/13.0.json"),
        Path::new("--out"),
        &tmp("files.md"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let old = write("abi-old.json", &api("size_t", true, 0));
    let new = write("abi-new.json", &api("int", false, 1));
    let o = xtask(&[
        &old,
        &new,
        Path::new("--old-abi"),
        &root.join("abi/12.9.json"),
        Path::new("--new-abi"),
        &root.join("abi/13.0.json"),
        Path::new("--format"),
        Path::new("json"),
        Path::new("--out"),
        &json,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(d["abi_compared"], true);
    // cudaMalloc's documents changed, its C declaration did not: class docs, with the reason.
    let malloc = d["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "cudaMalloc")
        .unwrap();
    assert_eq!(malloc["impact"], "docs");
    assert!(malloc["changes"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("the same in both releases"));
    // Neither a path nor a release, and an output that is an input.
    let o = xtask(&[Path::new("12.x.y"), Path::new("13.0")]);
    assert!(
        stderr(&o).contains("not a release such as 13.0"),
        "{}",
        stderr(&o)
    );
    let o = xtask(&[&old, &new, Path::new("--out"), &old]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("is the input"), "{}", stderr(&o));
}

#[test]
fn bad_inputs_give_one_error_line() {
    let good = write("good.json", &api("size_t", false, 0));
    let bad = tmp("bad.json");
    std::fs::write(&bad, "{\"functions\": [").unwrap();
    let not_ir = tmp("not-ir.json");
    std::fs::write(&not_ir, "[1, 2]").unwrap();
    let missing = tmp("missing-file.json");
    for (args, needle) in [
        (vec![missing.as_path(), good.as_path()], "no such file"),
        (vec![good.as_path(), bad.as_path()], "not an IR JSON file"),
        (
            vec![not_ir.as_path(), good.as_path()],
            "not an IR JSON file",
        ),
        (
            vec![
                good.as_path(),
                good.as_path(),
                Path::new("--format"),
                Path::new("pdf"),
            ],
            "unknown --format",
        ),
        (
            vec![
                good.as_path(),
                good.as_path(),
                Path::new("--fail-on"),
                Path::new("added"),
            ],
            "--fail-on takes",
        ),
    ] {
        let o = xtask(&args);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
        assert!(!err.contains("panicked"));
    }
}

/// A page of the workspace's documents copied where no manifest states its release, as a
/// user with a downloaded page has it.
fn page(folder: &str, name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tmp(name);
    std::fs::create_dir_all(&dir).unwrap();
    let to = dir.join("runtime.txt");
    std::fs::copy(root.join("docs-src").join(folder).join("runtime.txt"), &to).unwrap();
    to
}

fn json_of(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The item names of class break in a diff report.
fn breaks(d: &serde_json::Value) -> std::collections::BTreeSet<String> {
    d["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["impact"] == "break")
        .map(|i| i["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn two_pages_as_files_are_matched_to_their_releases_and_diffed_with_the_abi() {
    let old = page("nvidia-cuda-bindings-12.8.0", "page-12.8.0");
    let new = page("nvidia-cuda-bindings-13.1.1", "page-13.1.1");
    let json = tmp("pages.json");
    let o = xtask(&[
        &old,
        &new,
        Path::new("--format"),
        Path::new("json"),
        Path::new("--out"),
        &json,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    // Each page is named the release its items match.
    assert!(
        err.contains("its items match CUDA 12.8 (abi/12.8.json)"),
        "{err}"
    );
    assert!(
        err.contains("its items match CUDA 13.1 (abi/13.1.json)"),
        "{err}"
    );
    let d = json_of(&json);
    assert_eq!(d["abi_compared"], true);
    assert_eq!(d["old"]["abi"]["release"], "12.8");
    assert_eq!(d["new"]["abi"]["release"], "13.1");
    // The same releases named: the ABI diff, independent of the pages.
    let releases = tmp("releases.json");
    let o = xtask(&[
        Path::new("12.8"),
        Path::new("13.1"),
        Path::new("--format"),
        Path::new("json"),
        Path::new("--out"),
        &releases,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json_of(&releases);
    let (from_pages, from_abi) = (breaks(&d), breaks(&r));
    assert!(from_abi.len() > 40, "{from_abi:?}");
    let missing: Vec<&String> = from_abi.difference(&from_pages).collect();
    assert!(
        missing.is_empty(),
        "breaks of the ABI diff missing from the pages' diff: {missing:?}"
    );
    let items = d["items"].as_array().unwrap();
    // Every C signature change is a break with both prototypes.
    let mut signatures = 0;
    for i in items {
        let changed = i["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["change"] == "signature-changed");
        if changed {
            signatures += 1;
            assert_eq!(i["impact"], "break", "{i}");
            assert!(i["old_c"].as_str().is_some_and(|c| c.contains('(')), "{i}");
            assert!(i["new_c"].as_str().is_some_and(|c| c.contains('(')), "{i}");
        }
    }
    assert!(signatures > 10, "{signatures}");
    // The `_vN` folds are paired with the name that stands for them.
    let folds: Vec<&serde_json::Value> = items.iter().filter(|i| i["status"] == "paired").collect();
    assert!(folds.len() >= 10, "{}", folds.len());
    for f in &folds {
        let name = f["name"].as_str().unwrap();
        let to = f["paired_with"].as_str().unwrap();
        assert!(
            name.starts_with(to)
                || to.starts_with(
                    name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_' || c == 'v')
                ),
            "{name} → {to}"
        );
    }
    assert!(folds.iter().any(|f| f["name"] == "cudaGraphAddNode_v2"));
}

#[test]
fn a_page_matching_no_snapshot_still_has_breaks_resting_on_the_documents() {
    // The 12.8.0 page with a 13.1-only function added: no snapshot declares both its
    // 12.x-only functions and this one.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text =
        std::fs::read_to_string(root.join("docs-src/nvidia-cuda-bindings-12.8.0/runtime.txt"))
            .unwrap();
    let new_fn =
        std::fs::read_to_string(root.join("docs-src/nvidia-cuda-bindings-13.1.1/runtime.txt"))
            .unwrap();
    // The 13.1.1 page's block of a function of 13.0 on.
    let block_start = new_fn
        .find("cuda.bindings.runtime.cudaDeviceGetExecutionCtx(int device)#")
        .expect("a 13.x function");
    let block_end = block_start
        + new_fn[block_start..]
            .find("\nC++ API Routines#")
            .expect("the block's end");
    let dir = tmp("mixed");
    std::fs::create_dir_all(&dir).unwrap();
    let mixed = dir.join("runtime.txt");
    std::fs::write(
        &mixed,
        format!("{text}\n{}\n", &new_fn[block_start..block_end]),
    )
    .unwrap();
    let new = page("nvidia-cuda-bindings-13.1.1", "page-13.1.1-b");
    let json = tmp("mixed.json");
    let o = xtask(&[
        &mixed,
        &new,
        Path::new("--format"),
        Path::new("json"),
        Path::new("--out"),
        &json,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("match no committed ABI snapshot"), "{err}");
    assert!(err.contains("its items match CUDA 13.1"), "{err}");
    let d = json_of(&json);
    assert_eq!(d["abi_compared"], false);
    let items = d["items"].as_array().unwrap();
    // cudaGraphAddNode_v2 is gone from the 13.1 page: a break resting on the documents.
    let gone = items
        .iter()
        .find(|i| i["name"] == "cudaGraphAddNode_v2")
        .expect("cudaGraphAddNode_v2");
    assert_eq!(gone["impact"], "break", "{gone}");
    let change = &gone["changes"][0];
    assert_eq!(change["evidence"], "docs");
    assert!(change["reason"]
        .as_str()
        .unwrap()
        .contains("resting on the documents"));
    // Parameters changed in the documents: breaks too.
    let param_breaks = items
        .iter()
        .filter(|i| i["impact"] == "break")
        .filter(|i| {
            i["changes"].as_array().unwrap().iter().any(|c| {
                matches!(
                    c["change"].as_str(),
                    Some("param-added" | "param-removed" | "param-retyped")
                ) && c["impact"] == "break"
            })
        })
        .count();
    assert!(param_breaks > 0, "no parameter change of class break");
}
