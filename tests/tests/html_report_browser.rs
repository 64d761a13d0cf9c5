//! The HTML reports in a real browser: a coverage report and a diff report are written to
//! files, loaded by headless Debian `chromium` (`--dump-dom`, scripts given virtual time to
//! run), and the dumped DOM is checked: a known row is there, the page's script ran (it
//! marks `<html data-report-script="ready">`), and a `#q=NAME` fragment filtered the other
//! rows away. Chromium is installed by `cargo xtask test`; without it this test fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use codegen::abi::{self, Abi, AbiType};
use codegen::coverage::{self, Exports};
use codegen::ir::{Api, Detail, Function, Source};
use codegen::report::OutputFormat;

const CHROMIUM: &str = "/usr/bin/chromium";

fn chromium() -> PathBuf {
    let path = PathBuf::from(CHROMIUM);
    if !path.is_file() {
        panic!("{CHROMIUM} is missing: run `cargo xtask test`, which installs chromium");
    }
    path
}

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-report-browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Loads `file` (with `fragment`, e.g. `#q=cudaMalloc`) in headless chromium and returns
/// the DOM after the page's scripts ran.
fn dump_dom(file: &Path, fragment: &str) -> String {
    // A fresh profile per run: tests run in parallel, and chromium locks its profile.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let profile = out_dir().join(format!("profile-{}-{run}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    let url = format!(
        "file://{}{fragment}",
        file.canonicalize().unwrap().display()
    );
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=2000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting chromium");
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        match child.try_wait().expect("waiting for chromium") {
            Some(_) => break,
            None if Instant::now() > deadline => {
                let _ = child.kill();
                panic!("chromium did not finish loading {url} in 90 s");
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    let out = child.wait_with_output().expect("chromium output");
    let _ = std::fs::remove_dir_all(&profile);
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && dom.contains("</html>"),
        "chromium failed on {url} ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    dom
}

/// The start tag of the row named `name` in `dom`.
fn row_tag<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    let at = dom.find(&format!("<tr data-name=\"{name}\""))?;
    let end = dom[at..].find('>')?;
    Some(&dom[at..at + end + 1])
}

fn func(name: &str, section: &str, line: u32) -> Function {
    Function {
        name: name.into(),
        qualified_name: format!("runtime.{name}"),
        section: Some(section.into()),
        params: Some(vec![]),
        rtype: None,
        errors: vec![],
        doc: String::new(),
        see_also: vec![],
        detail: Detail::Full,
        source: Source::new("doc.txt", line),
        sources: vec![],
    }
}

fn coverage_page() -> PathBuf {
    let api = Api {
        functions: vec![
            func("cudaMalloc", "Memory", 1),
            func("cudaFree", "Memory", 2),
            func("cudaNewThing", "Memory", 3),
        ],
        ..Api::default()
    };
    let mut abi = Abi::default();
    for (i, n) in ["cudaMalloc", "cudaFree", "cudaNewThing"]
        .into_iter()
        .enumerate()
    {
        abi.functions.insert(
            n.into(),
            abi::Function {
                name: n.into(),
                params: vec![],
                ret: AbiType::void(),
                header: None,
                line: i as u32 + 1,
            },
        );
    }
    let exports = Exports::from_names(
        "libcudart.so.13",
        ["cudaMalloc", "cudaFree", "cudaMemcpy_ptds"],
    );
    let c = coverage::audit(&api, &abi, &exports, Some(13020));
    let path = out_dir().join("coverage.html");
    std::fs::write(&path, coverage::render::render(&c, OutputFormat::Html)).unwrap();
    path
}

fn diff_page() -> PathBuf {
    let old = Api {
        functions: vec![
            func("cudaMalloc", "Memory", 1),
            func("cudaProfilerStart", "Memory", 2),
        ],
        ..Api::default()
    };
    let new = Api {
        functions: vec![
            func("cudaMalloc", "Memory", 1),
            func("cudaGraphInstantiate", "Memory", 2),
        ],
        ..Api::default()
    };
    let d = codegen::diff::diff(&old, &new);
    let path = out_dir().join("diff.html");
    std::fs::write(&path, codegen::diff::render::render(&d, OutputFormat::Html)).unwrap();
    path
}

#[test]
fn coverage_report_loads_and_its_search_box_filters() {
    let page = coverage_page();
    let dom = dump_dom(&page, "");
    assert!(
        dom.contains("data-report-script=\"ready\""),
        "the page's script did not run"
    );
    let row = row_tag(&dom, "cudaMalloc").expect("row cudaMalloc");
    assert!(!row.contains("hidden"), "{row}");
    assert!(row_tag(&dom, "cudaMemcpy_ptds").is_some());
    assert!(
        dom.contains("<td data-col=\"class\">not-exported</td>"),
        "cudaNewThing's class cell"
    );

    let dom = dump_dom(&page, "#q=cudaMalloc");
    assert!(dom.contains("data-report-script=\"ready\""));
    let shown = row_tag(&dom, "cudaMalloc").expect("row cudaMalloc");
    assert!(!shown.contains("hidden"), "{shown}");
    for other in ["cudaFree", "cudaMemcpy_ptds", "cudaNewThing"] {
        let tag = row_tag(&dom, other).unwrap_or_else(|| panic!("row {other}"));
        assert!(
            tag.contains("hidden"),
            "{other} not hidden by the search: {tag}"
        );
    }
}

#[test]
fn diff_report_loads_and_its_search_box_filters() {
    let page = diff_page();
    let dom = dump_dom(&page, "");
    assert!(
        dom.contains("data-report-script=\"ready\""),
        "the page's script did not run"
    );
    assert!(row_tag(&dom, "cudaGraphInstantiate").is_some_and(|t| !t.contains("hidden")));
    assert!(row_tag(&dom, "cudaProfilerStart").is_some());

    let dom = dump_dom(&page, "#q=cudaGraphInstantiate");
    assert!(row_tag(&dom, "cudaGraphInstantiate").is_some_and(|t| !t.contains("hidden")));
    let old = row_tag(&dom, "cudaProfilerStart").expect("row cudaProfilerStart");
    assert!(old.contains("hidden"), "{old}");
}
