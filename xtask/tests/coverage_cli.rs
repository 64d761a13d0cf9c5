//! `cargo xtask coverage` as a user runs it: bad inputs give one `error:` line and a failing
//! exit (never a panic); on the wheel's library (`CUDART_WHEEL_LIB`, set by `cargo xtask
//! test`) it writes a JSON report, prints its totals on one screen, and `--fail-on` turns a
//! non-empty class into a failing exit.

use std::path::{Path, PathBuf};
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
    // The report names the library without this machine's folders: relative to the
    // workspace when it lies inside, else its file name.
    let shown = report["library"]["path"].as_str().unwrap();
    assert!(!shown.starts_with('/'), "{shown}");
    assert!(lib.ends_with(shown), "{shown} is not {lib}");
    let root = std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .unwrap()
        .display()
        .to_string();
    let text = std::fs::read_to_string(&json_path).unwrap();
    assert!(!text.contains(&root), "the report holds {root}");
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

/// The wheel's library, which every test below needs (`cargo xtask test` sets it).
fn wheel_lib() -> String {
    std::env::var("CUDART_WHEEL_LIB").expect(
        "CUDART_WHEEL_LIB is not set: run `cargo xtask test` (it fetches the CUDA runtime wheel and sets it)",
    )
}

#[test]
fn by_default_it_reads_what_codegen_reads() {
    let lib = wheel_lib();
    let json_path = tmp().join("default.json");
    let out = xtask(&[
        "--lib",
        &lib,
        "--format",
        "json",
        "--out",
        json_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let docs: Vec<&str> = report["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["file"].as_str())
        .collect();
    // The first [[crate]] entry's documents, the release's headers among them.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = std::fs::read_to_string(root.join("docs-src/manifest.toml")).unwrap();
    let first_header_folder = manifest
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix("\","))
                .filter(|x| x.contains("headers"))
        })
        .expect("a headers folder in the first [[crate]]");
    assert!(
        docs.iter().any(|d| d.contains(first_header_folder)),
        "{docs:?}"
    );
    // Functions only the headers document are documented, and bound.
    let row = |name: &str| {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name}"))
    };
    for name in ["cudaLaunchKernel", "cudaMemcpyToSymbol"] {
        assert_eq!(row(name)["class"], "bound", "{name}");
    }
    // Exports the release's headers declare are documented (the exports no header declares,
    // such as 13.5's `cudaSubgrid*`, no document can describe).
    let undocumented: Vec<&str> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["class"] == "undocumented-other" && r["in_abi"] == true)
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(
        undocumented.len() <= 2,
        "undocumented exports the headers declare: {undocumented:?}"
    );
}

#[test]
fn cudart_path_is_checked_as_the_loader_checks_it() {
    let lib = wheel_lib();
    let bytes = std::fs::read(&lib).unwrap();
    let cut = tmp().join("libcudart-cut.so.13");
    std::fs::write(&cut, &bytes[..4096]).unwrap();
    let run = |path: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_xtask"))
            .arg("coverage")
            .args(["--out", tmp().join("x.md").to_str().unwrap()])
            .env("CUDART_PATH", path)
            .output()
            .unwrap()
    };
    // A cut library: an error naming the problem, never SIGBUS.
    let out = run(&cut);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_one_error_line(&out, "truncated");
    // Nothing there: the place tried is named.
    let out = run(std::path::Path::new("/no/such/lib"));
    assert_one_error_line(&out, "CUDART_PATH=/no/such/lib: no such file");
    // A folder holding the library.
    let dir = tmp().join("cudart-folder");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("libcudart.so.13"), &bytes).unwrap();
    let out = run(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("(CUDART_PATH)"));
}

#[test]
fn a_bare_lib_name_is_a_file_here_and_a_fifo_is_refused() {
    let lib = wheel_lib();
    let dir = tmp().join("bare");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&lib, dir.join("libcudart.so.13")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(&dir)
        .args(["coverage", "--lib", "libcudart.so.13", "--format", "json"])
        .args(["--out", tmp().join("bare.json").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp().join("bare.json")).unwrap()).unwrap();
    let shown = report["library"]["path"].as_str().unwrap();
    assert!(
        shown.ends_with("bare/libcudart.so.13") && !shown.starts_with('/'),
        "{shown}"
    );
    // Not found here: no search elsewhere.
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(tmp())
        .args(["coverage", "--lib", "libcudart.so.13"])
        .output()
        .unwrap();
    assert_one_error_line(&out, "./libcudart.so.13: no such file");
    let fifo = tmp().join("fifo.so");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let start = std::time::Instant::now();
        let out = xtask(&["--lib", fifo.to_str().unwrap()]);
        assert!(start.elapsed().as_secs() < 60);
        assert_one_error_line(&out, "not a regular file");
    }
    assert_one_error_line(&xtask(&["--crate", "cudart7"]), "no such [[crate]]");
}
