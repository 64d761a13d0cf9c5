//! `cargo xtask coverage` as a user runs it: bad inputs give one `error:` line and a failing
//! exit (never a panic); on the wheel's library (`CUDART_WHEEL_LIB`, set by `cargo xtask
//! test`) it writes a JSON report, prints its totals on one screen, and `--fail-on` turns a
//! non-empty class into a failing exit.

use std::path::PathBuf;
use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("coverage")
        .args(args)
        .output()
        .expect("running xtask")
}

/// Asserts a failing exit whose standard error ends in one `error:` line containing `what`.
fn assert_one_error_line(out: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "expected failure, got {}: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("coverage: ["))
        .collect();
    assert_eq!(errors.len(), 1, "one error line expected: {stderr}");
    assert!(
        errors[0].starts_with("error: ") && errors[0].contains(what),
        "{stderr}"
    );
}

fn tmp() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("coverage-cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn missing_library_file() {
    assert_one_error_line(
        &xtask(&["--lib", "/no/such/libcudart.so.13"]),
        "no such file",
    );
}

#[test]
fn non_elf_library_file() {
    let fake = tmp().join("fake-libcudart.so.13");
    std::fs::write(&fake, "not a library\n").unwrap();
    assert_one_error_line(
        &xtask(&["--lib", fake.to_str().unwrap()]),
        "not an ELF shared library",
    );
}

#[test]
fn a_folder_as_library() {
    assert_one_error_line(&xtask(&["--lib", tmp().to_str().unwrap()]), "is a folder");
}

#[test]
fn unknown_fail_on_class_and_format() {
    assert_one_error_line(
        &xtask(&["--fail-on", "everything"]),
        "unknown class `everything`",
    );
    assert_one_error_line(
        &xtask(&["--format", "pdf"]),
        "--format takes md, json or html",
    );
}

#[test]
fn missing_docs() {
    assert_one_error_line(
        &xtask(&["--docs", "/no/such/docs"]),
        "no such file or folder",
    );
}

#[test]
fn wheel_library_report_and_fail_on() {
    let Some(lib) = std::env::var_os("CUDART_WHEEL_LIB") else {
        panic!("CUDART_WHEEL_LIB is not set: run `cargo xtask test` (it fetches the CUDA runtime wheel and sets it)");
    };
    let lib = lib.to_string_lossy().into_owned();
    let json_path = tmp().join("coverage.json");
    let out = xtask(&[
        "--lib",
        &lib,
        "--format",
        "json",
        "--out",
        json_path.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.lines().count() <= 40,
        "totals fit one screen:\n{stdout}"
    );
    assert!(stdout.contains("total"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("reading the ABI snapshot"),
        "progress is shown: {stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(report["library"]["path"], lib.as_str());
    let count = |class: &str| {
        report["totals"]["classes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["class"] == class)
            .and_then(|c| c["count"].as_u64())
            .unwrap()
    };
    // --fail-on fails exactly when the class has rows.
    for class in ["undocumented-internal", "abi-only"] {
        let out = xtask(&[
            "--lib",
            &lib,
            "--out",
            tmp().join("c.md").to_str().unwrap(),
            "--fail-on",
            class,
        ]);
        assert_eq!(
            out.status.success(),
            count(class) == 0,
            "--fail-on {class} with {} rows",
            count(class)
        );
    }
}
