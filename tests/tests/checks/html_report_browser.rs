//! The HTML reports in a real browser: coverage, diff and timeline reports are written to
//! files, loaded by headless Debian `chromium` (`--dump-dom`, scripts given virtual time to
//! run), and the dumped DOM is checked: a known row is there, the page's script ran (it
//! marks `<html data-report-script="ready">`), a `#q=NAME` fragment filtered the other rows
//! away and `#class=C` kept one class, every link of the table of contents leads to an
//! element of the page, and a fragment naming a row's anchor (what following a contents link
//! or a citation does) marks that row, and that at 1,280 px the release diff (the widest
//! report: C declarations side by side) does not scroll sideways. Chromium is installed by `cargo xtask test`; without
//! it this test fails.

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
        panic!("{CHROMIUM} is missing: run `cargo xtask test`, which installs chromium (or set XTASK_NO_CHROMIUM=1 to skip these tests)");
    }
    path
}

/// Whether the browser tests are skipped: `XTASK_NO_CHROMIUM=1` (what `cargo xtask test` is
/// told when chromium cannot be installed) and no chromium. Says so.
fn skipped() -> bool {
    let skip = std::env::var("XTASK_NO_CHROMIUM").is_ok_and(|v| v == "1")
        && !Path::new(CHROMIUM).is_file();
    if skip {
        eprintln!("skipped: XTASK_NO_CHROMIUM=1 and {CHROMIUM} is missing");
    }
    skip
}

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-report-browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Loads `file` (with `fragment`, e.g. `#q=cudaMalloc`) in headless chromium and returns
/// the DOM after the page's scripts ran.
fn dump_dom(file: &Path, fragment: &str) -> String {
    dump_dom_at(file, fragment, 1280)
}

/// [`dump_dom`] in a window `width` pixels wide.
fn dump_dom_at(file: &Path, fragment: &str, width: u32) -> String {
    // A fresh profile per run: tests run in parallel, and chromium locks its profile.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, Ordering::Relaxed);
    let profile = out_dir().join(format!("profile-{}-{run}", std::process::id()));
    let _ = std::fs::remove_dir_all(&profile);
    let url = format!(
        "file://{}{fragment}",
        file.canonicalize().unwrap().display()
    );
    // The DOM and the messages go to files: a page larger than a pipe's buffer would block
    // chromium on a pipe nobody reads until it exits.
    let dom_file = out_dir().join(format!("dom-{}-{run}.html", std::process::id()));
    let err_file = out_dir().join(format!("dom-{}-{run}.err", std::process::id()));
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
            "--hide-scrollbars",
        ])
        .arg(format!("--window-size={width},900"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(&url)
        .stdout(Stdio::from(std::fs::File::create(&dom_file).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&err_file).unwrap()))
        .spawn()
        .expect("starting chromium");
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        match child.try_wait().expect("waiting for chromium") {
            Some(status) => break status,
            None if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("chromium did not finish loading {url} in 90 s");
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    };
    let _ = std::fs::remove_dir_all(&profile);
    let dom = String::from_utf8_lossy(&std::fs::read(&dom_file).unwrap()).into_owned();
    let messages = std::fs::read_to_string(&err_file).unwrap_or_default();
    let _ = std::fs::remove_file(&dom_file);
    let _ = std::fs::remove_file(&err_file);
    assert!(
        status.success() && dom.contains("</html>"),
        "chromium failed on {url} ({status}): {messages}"
    );
    dom
}

/// The start tag of the first row named `name` in `dom`.
fn row_tag<'a>(dom: &'a str, name: &str) -> Option<&'a str> {
    start_tag(dom, &format!("data-name=\"{name}\""))
}

/// The start tag of the row whose anchor is `id`.
fn row_by_id<'a>(dom: &'a str, id: &str) -> Option<&'a str> {
    start_tag(dom, &format!("<tr id=\"{id}\""))
}

/// The `<tr …>` start tag holding `needle`.
fn start_tag<'a>(dom: &'a str, needle: &str) -> Option<&'a str> {
    let hit = dom.find(needle)?;
    let at = dom[..hit + needle.len()].rfind("<tr")?;
    let end = dom[at..].find('>')?;
    Some(&dom[at..at + end + 1])
}

/// Every `href="#…"` of the page's table of contents, and whether each leads to an `id`.
fn contents_links(dom: &str) -> Vec<(String, bool)> {
    let Some(start) = dom.find("<nav id=\"toc\"") else {
        return Vec::new();
    };
    let end = dom[start..].find("</nav>").map_or(dom.len(), |e| start + e);
    dom[start..end]
        .match_indices("href=\"#")
        .map(|(at, m)| {
            let rest = &dom[start + at + m.len()..];
            let target = &rest[..rest.find('"').unwrap_or(0)];
            let exists = dom.contains(&format!("id=\"{target}\""));
            (target.to_string(), exists)
        })
        .collect()
}

/// The ABI snapshot of `release`, as committed.
fn snapshot(release: &str) -> Abi {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    abi::snapshot::load(&root.join(format!("abi/{release}.json"))).expect("committed snapshot")
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

/// The 12.9 → 13.0 report of the two releases' snapshots.
fn release_diff_page() -> PathBuf {
    let (old, new) = (snapshot("12.9"), snapshot("13.0"));
    let d = codegen::diff::diff_with_abi(
        &Api::default(),
        &Api::default(),
        codegen::diff::AbiPair {
            old: &old,
            new: &new,
            old_file: Some("abi/12.9.json"),
            new_file: Some("abi/13.0.json"),
        },
        None,
    );
    let path = out_dir().join("release-diff.html");
    std::fs::write(&path, codegen::diff::render::render(&d, OutputFormat::Html)).unwrap();
    path
}

/// The timeline of the last four snapshots.
fn timeline_page() -> PathBuf {
    let abis: Vec<(&str, Abi)> = ["12.9", "13.0", "13.1", "13.2"]
        .into_iter()
        .map(|r| (r, snapshot(r)))
        .collect();
    let snaps: Vec<codegen::timeline::Snapshot> = abis
        .iter()
        .map(|(r, a)| codegen::timeline::Snapshot {
            release: r.to_string(),
            file: format!("abi/{r}.json"),
            abi: a,
        })
        .collect();
    let t = codegen::timeline::build(&snaps, &|_| None);
    let path = out_dir().join("timeline.html");
    std::fs::write(
        &path,
        codegen::timeline::render::render(&t, OutputFormat::Html),
    )
    .unwrap();
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
    if skipped() {
        return;
    }
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
    if skipped() {
        return;
    }
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

#[test]
fn diff_report_contents_lead_to_rows_and_an_anchor_marks_its_row() {
    if skipped() {
        return;
    }
    let page = release_diff_page();
    let dom = dump_dom(&page, "#function-cudaMemAdvise");
    assert!(
        dom.contains("data-report-script=\"ready\""),
        "the script ran"
    );
    let links = contents_links(&dom);
    assert!(links.len() > 20, "{links:?}");
    let broken: Vec<&String> = links.iter().filter(|(_, ok)| !ok).map(|(t, _)| t).collect();
    assert!(
        broken.is_empty(),
        "contents links leading nowhere: {broken:?}"
    );
    assert!(links.iter().any(|(t, _)| t == "function-cudaMemAdvise"));
    let row = row_by_id(&dom, "function-cudaMemAdvise").expect("the break row");
    assert!(row.contains("data-targeted=\"yes\""), "{row}");
    assert!(row.contains("data-severity=\"break\""), "{row}");
    // Only the anchored row is marked.
    assert_eq!(dom.matches("data-targeted=\"yes\"").count(), 1);
}

#[test]
fn diff_report_filters_by_text_and_by_class() {
    if skipped() {
        return;
    }
    let page = release_diff_page();
    let dom = dump_dom(&page, "#q=cudaMemAdvise&class=break");
    let shown = row_by_id(&dom, "function-cudaMemAdvise").expect("cudaMemAdvise");
    assert!(!shown.contains("hidden"), "{shown}");
    // The family member matches the text but is of class break too: shown; a break of
    // another name and every row of another class: hidden.
    let v2 = row_by_id(&dom, "function-cudaMemAdvise_v2").expect("cudaMemAdvise_v2");
    assert!(!v2.contains("hidden"), "{v2}");
    for other in [
        "function-cudaThreadExit",
        "function-cudaGetDeviceProperties",
    ] {
        let tag = row_by_id(&dom, other).unwrap_or_else(|| panic!("row {other}"));
        assert!(tag.contains("hidden"), "{other} not hidden: {tag}");
    }
    let dom = dump_dom(&page, "#class=deprecated");
    let dep = row_by_id(&dom, "function-cudaGetDriverEntryPoint").expect("deprecated row");
    assert!(!dep.contains("hidden"), "{dep}");
    let brk = row_by_id(&dom, "function-cudaMemAdvise").unwrap();
    assert!(brk.contains("hidden"), "{brk}");
}

#[test]
fn timeline_report_anchors_and_filters_work() {
    if skipped() {
        return;
    }
    let page = timeline_page();
    let dom = dump_dom(&page, "#function-cudaGraphAddNode_v2");
    assert!(dom.contains("data-report-script=\"ready\""));
    let links = contents_links(&dom);
    assert!(
        !links.is_empty() && links.iter().all(|(_, ok)| *ok),
        "{links:?}"
    );
    let row = row_by_id(&dom, "function-cudaGraphAddNode_v2").expect("its row");
    assert!(row.contains("data-targeted=\"yes\""), "{row}");
    let dom = dump_dom(&page, "#q=cudaGraphAddNode&class=removed");
    let gone = row_by_id(&dom, "function-cudaGraphAddNode_v2").unwrap();
    assert!(!gone.contains("hidden"), "{gone}");
    let kept = row_by_id(&dom, "function-cudaGraphAddNode").unwrap();
    assert!(kept.contains("hidden"), "{kept}");
}

/// The `NAME="VALUE"` attribute of the `<html>` start tag, as a number.
fn html_number(dom: &str, name: &str) -> Option<u64> {
    let tag_at = dom.find("<html")?;
    let tag = &dom[tag_at..tag_at + dom[tag_at..].find('>')?];
    let at = tag.find(&format!("{name}=\""))? + name.len() + 2;
    tag[at..].split('"').next()?.parse().ok()
}

#[test]
fn release_diff_fits_1280_pixels_breaks_first_and_folds_apart() {
    if skipped() {
        return;
    }
    let page = release_diff_page();
    let dom = dump_dom_at(&page, "", 1280);
    assert!(dom.contains("data-report-script=\"ready\""));
    let page_width = html_number(&dom, "data-page-width").expect("page width");
    let view_width = html_number(&dom, "data-view-width").expect("view width");
    assert!(
        (1000..=1280).contains(&view_width),
        "window of 1280 px: {view_width}"
    );
    assert!(
        page_width <= view_width,
        "the page scrolls sideways at 1280 px: {page_width} > {view_width}"
    );
    // The breaks a migrator acts on come first, the `_vN` folds in a table of their own.
    let breaks = dom.find("<table id=\"t-break\"").expect("breaks table");
    let folds = dom.find("<table id=\"t-folds\"").expect("folds table");
    assert!(breaks < folds);
    for table in ["t-deprecated", "t-info", "t-docs"] {
        if let Some(at) = dom.find(&format!("<table id=\"{table}\"")) {
            assert!(breaks < at, "{table} before the breaks");
        }
    }
    let fold = dom
        .find("id=\"function-cudaGraphAddNode_v2\"")
        .expect("fold row");
    assert!(fold > folds, "cudaGraphAddNode_v2 is listed with the folds");
    let advise = dom
        .find("id=\"function-cudaMemAdvise\"")
        .expect("break row");
    assert!(
        advise > breaks && advise < folds,
        "cudaMemAdvise is a break to act on"
    );
    // No cell says a word twice.
    assert!(!dom.contains("removed — removed"));
}
