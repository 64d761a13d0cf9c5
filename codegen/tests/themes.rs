//! Pages of other Sphinx themes read as the NVIDIA theme's do.
//!
//! `themes/build.py` recovers the reST source of NVIDIA's 13.4.4 `cuda.bindings.runtime` page
//! from the page, and Sphinx builds it in the NVIDIA theme, `sphinx_rtd_theme`, furo and
//! alabaster; each HTML page is also rendered to text as the corpus's text pages were (the
//! permalink mark is then `#`, `¶`, `¶` and rtd's icon character U+F0C1, which shows as
//! nothing). `themes/13.4.4/` holds the pages built from a selection of the page (every
//! section, two objects of each shape: see `build.py --objects`).
//!
//! - [`committed_theme_pages_read_as_the_nvidia_theme_page`]: each theme's page reads into
//!   the IR the NVIDIA theme's page of the same format reads into (every item, parameter,
//!   member, field and doc, the same diagnostics), with no error and no unread line;
//! - [`the_census_counts_every_themes_objects`]: the independent count finds the same objects
//!   on every theme's page;
//! - [`a_page_without_permalink_marks`] and
//!   [`real_pages_of_every_release_without_permalink_marks`]: a text page with its marks
//!   removed still gives every item and section exactly, and says that its headings were
//!   inferred;
//! - [`whole_pages_in_every_theme`] and [`committed_theme_pages_are_fresh`], when
//!   `CUDART_THEME_PAGES` names the pages `cargo xtask test` builds (`full/`, `small/`,
//!   `12.8.0/`): every theme's whole page, as HTML and text, with and without its marks, reads
//!   as the real 13.4.4 or 12.8.0 page in `docs-src/` (whose article the NVIDIA rebuild gives
//!   back byte for byte), and the committed pages are what the script builds.
//!
//! Nothing here names a CUDA item.

use std::path::{Path, PathBuf};

use codegen::diag::Severity;
use codegen::ir::{Api, Format};
use serde_json::Value;

/// The themes compared with the NVIDIA theme.
const THEMES: [&str; 3] = ["rtd", "furo", "alabaster"];
/// The formats of every theme's page, with the format each must be detected as.
const FORMATS: [(&str, Format); 2] = [("html", Format::Html), ("txt", Format::BindingsText)];
/// The variable naming the pages `cargo xtask test` builds.
const PAGES_VAR: &str = "CUDART_THEME_PAGES";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn committed(name: &str) -> PathBuf {
    root().join("codegen/tests/themes/13.4.4").join(name)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parse(path: &Path) -> Api {
    codegen::parse::parse_document(&path.display().to_string(), &read(path), None)
}

/// Drops, recursively, the keys that say where something was read (`source`, `sources`,
/// `path`) and the document list: what two renderings of one page cannot share.
fn without_places(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for key in ["source", "sources", "path", "documents", "diagnostics"] {
                map.remove(key);
            }
            map.values_mut().for_each(without_places);
        }
        Value::Array(items) => items.iter_mut().for_each(without_places),
        _ => {}
    }
}

/// The IR of `api` as JSON without places, and its diagnostics as (severity, message) with
/// the file's name and the places in messages (`first at FILE:…`) replaced.
fn comparable(api: &Api, name: &str) -> (Value, Vec<(Severity, String)>) {
    let mut ir = serde_json::to_value(api).expect("the IR serialises");
    without_places(&mut ir);
    let diags = api
        .diagnostics
        .iter()
        .map(|d| {
            let message = d
                .message
                .split(name)
                .enumerate()
                .map(|(k, part)| {
                    if k == 0 {
                        part.to_string()
                    } else {
                        // The place after the file name runs to the next `)` or blank.
                        let end = part.find([')', ' ']).unwrap_or(part.len());
                        format!("<page>{}", &part[end..])
                    }
                })
                .collect::<String>();
            (d.severity, message)
        })
        .collect();
    (ir, diags)
}

/// The first place where two JSON values differ, for a failure message.
fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let (p, q) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                first_difference(p, q, &format!("{at}.{k}"))
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{at}: {} entries against {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(k, (p, q))| first_difference(p, q, &format!("{at}[{k}]")))
        }
        _ if a == b => None,
        _ => Some(format!("{at}: {a} against {b}")),
    }
}

/// Errors and unread lines of a reading, for the failure messages.
fn trouble(api: &Api) -> (Vec<String>, u64) {
    let errors = api
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}:{}: {}", d.file, d.line, d.message))
        .collect();
    let unread = api.diagnostics.iter().map(|d| u64::from(d.unread)).sum();
    (errors, unread)
}

/// Asserts that the theme page at `page` reads as the reference page at `reference` (both
/// of `format`), and that both read cleanly.
fn assert_reads_alike(reference: &Path, page: &Path, format: Format) {
    let want = parse(reference);
    let got = parse(page);
    if let Err(e) = reads_alike(
        (reference, &want),
        (&page.display().to_string(), &got),
        format,
    ) {
        panic!("{e}");
    }
}

/// Whether the reading `got` of the page named `page` is the reading `want` of the page at
/// `reference` (the same items, parameters, members, fields, docs and sections, the same
/// diagnostics), both detected as `format`, with no error and no unread line; else what
/// differs.
fn reads_alike(
    (reference, want): (&Path, &Api),
    (page, got): (&str, &Api),
    format: Format,
) -> Result<(), String> {
    let name = reference.display().to_string();
    for (path, api) in [(name.as_str(), want), (page, got)] {
        if api.documents.first().map(|d| d.format) != Some(format) {
            return Err(format!("{path}: detected as another format"));
        }
        let (errors, unread) = trouble(api);
        if !errors.is_empty() {
            return Err(format!("{path}: errors {errors:#?}"));
        }
        if unread != 0 {
            return Err(format!("{path}: {unread} unread lines"));
        }
    }
    let (want_ir, want_diags) = comparable(want, &name);
    let (got_ir, got_diags) = comparable(got, page);
    if let Some(d) = first_difference(&want_ir, &got_ir, "") {
        return Err(format!("{page} does not read as {name}: {d}"));
    }
    if got_diags != want_diags {
        return Err(format!(
            "{page}: other diagnostics than {name}: {got_diags:#?} against {want_diags:#?}"
        ));
    }
    Ok(())
}

/// The kinds of item a page reading holds, with a count of each: a comparison of empty
/// readings would prove nothing.
fn assert_covers_every_kind(api: &Api, what: &str) {
    let counts = [
        ("sections", api.sections.len()),
        ("functions", api.functions.len()),
        (
            "functions with outputs",
            api.functions
                .iter()
                .filter(|f| {
                    f.params.as_ref().is_some_and(|p| {
                        p.iter().any(|p| p.direction == codegen::ir::Direction::Out)
                    })
                })
                .count(),
        ),
        (
            "enum members",
            api.enums.iter().map(|e| e.variants.len()).sum(),
        ),
        (
            "struct fields",
            api.structs.iter().map(|s| s.fields.len()).sum(),
        ),
        ("typedefs", api.typedefs.len()),
        ("constants", api.constants.len()),
        (
            "section intros",
            api.sections.iter().filter(|s| !s.doc.is_empty()).count(),
        ),
    ];
    for (kind, n) in counts {
        assert!(n > 0, "{what}: no {kind}");
    }
}

#[test]
fn committed_theme_pages_read_as_the_nvidia_theme_page() {
    for (ext, format) in FORMATS {
        let reference = committed(&format!("nvidia.{ext}"));
        assert_covers_every_kind(&parse(&reference), &reference.display().to_string());
        for theme in THEMES {
            assert_reads_alike(&reference, &committed(&format!("{theme}.{ext}")), format);
        }
    }
}

/// `page` with `mutate` applied, read; `None` when the mutation found nothing to change.
fn mutated(page: &Path, mutate: impl Fn(&str) -> Option<String>) -> Option<(String, Api)> {
    let text = String::from_utf8(read(page)).expect("UTF-8");
    let changed = mutate(&text)?;
    let name = format!("{} (mutated)", page.display());
    let api = codegen::parse::parse_document(&name, changed.as_bytes(), None);
    Some((name, api))
}

/// `text` with `insert` put after the first match of `after` in a line `pick` accepts.
fn insert_in_line(
    text: &str,
    pick: impl Fn(&str) -> bool,
    after: &str,
    insert: &str,
) -> Option<String> {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let line = lines.iter_mut().find(|l| pick(l))?;
    let at = line.find(after)? + after.len();
    line.insert_str(at, insert);
    Some(lines.join("\n"))
}

/// A change to a page's text; `None` when the page has nothing to change.
type Mutation = fn(&str) -> Option<String>;

#[test]
fn a_mutated_theme_page_is_caught() {
    // A parameter renamed in the first signature that has one; a heading without its mark
    // (read as an intro paragraph); a docstring line dropped.
    let txt: [(&str, Mutation); 3] = [
        ("a parameter renamed", |t| {
            let mut lines: Vec<String> = t.split('\n').map(str::to_string).collect();
            // The first parameter of a signature written one parameter a line
            // (`type name: annotation,`), its name.
            let k = (1..lines.len())
                .find(|&k| lines[k - 1].starts_with("cuda.") && lines[k - 1].ends_with('('))?;
            let at = lines[k].find(':')?;
            lines[k].insert_str(at, "zz");
            Some(lines.join("\n"))
        }),
        ("a heading's mark removed", |t| {
            let mut lines: Vec<&str> = t.split('\n').collect();
            let k = (1..lines.len()).find(|&k| {
                lines[k - 1].is_empty()
                    && lines[k].ends_with('¶')
                    && !lines[k].contains('(')
                    && lines[k].starts_with(char::is_uppercase)
            })?;
            lines[k] = lines[k].strip_suffix('¶')?;
            Some(lines.join("\n"))
        }),
        ("a docstring line dropped", |t| {
            let mut lines: Vec<&str> = t.split('\n').collect();
            let k = (1..lines.len()).find(|&k| {
                lines[k - 1].starts_with("cuda.") && lines[k].starts_with(char::is_alphabetic)
            })?;
            lines.remove(k);
            Some(lines.join("\n"))
        }),
    ];
    let reference = committed("nvidia.txt");
    let want = parse(&reference);
    for (what, mutate) in txt {
        let page = committed("furo.txt");
        let (name, got) =
            mutated(&page, mutate).unwrap_or_else(|| panic!("{what}: nothing to mutate"));
        assert!(
            reads_alike((&reference, &want), (&name, &got), Format::BindingsText).is_err(),
            "furo.txt with {what} reads as nvidia.txt"
        );
    }
    let reference = committed("nvidia.html");
    let want = parse(&reference);
    let page = committed("rtd.html");
    let (name, got) = mutated(&page, |t| {
        // A function renamed (the first signature that is not a class's).
        let name = "<span class=\"sig-name descname\"><span class=\"pre\">";
        insert_in_line(
            t,
            |l| l.contains(name) && !l.contains(">class<"),
            name,
            "zz",
        )
    })
    .expect("rtd.html has a function");
    assert!(
        reads_alike((&reference, &want), (&name, &got), Format::Html).is_err(),
        "rtd.html with a function renamed reads as nvidia.html"
    );
}

/// The names the census counts on the page at `path`, in order.
fn census(path: &Path, format: Format) -> Vec<String> {
    census_of(&String::from_utf8(read(path)).expect("UTF-8"), format)
}

/// The names the census counts in `text`, in order.
fn census_of(text: &str, format: Format) -> Vec<String> {
    codegen::parse::census::count(format, text)
        .into_iter()
        .map(|c| c.name)
        .collect()
}

#[test]
fn the_census_counts_every_themes_objects() {
    for (ext, format) in FORMATS {
        let reference = census(&committed(&format!("nvidia.{ext}")), format);
        let api = parse(&committed(&format!("nvidia.{ext}")));
        // Every object of the reading is counted (members and fields are not objects of
        // their own on a text page; they are in the IR either way).
        assert!(
            reference.len() >= api.functions.len() + api.constants.len(),
            "nvidia.{ext}: the census counts {} objects",
            reference.len()
        );
        for theme in THEMES {
            assert_eq!(
                census(&committed(&format!("{theme}.{ext}")), format),
                reference,
                "{theme}.{ext}: the census counts other objects than on nvidia.{ext}"
            );
        }
    }
}

/// `text` with the permalink mark `mark` removed from the end of every line.
fn without_marks(text: &str, mark: char) -> String {
    text.split('\n')
        .map(|l| l.strip_suffix(mark).unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What of the sections a page without marks must give back.
#[derive(Clone, Copy, PartialEq)]
enum Sections {
    /// Every section, with its title, intro and items.
    Exact,
    /// No paragraph read as a heading; the items of a heading left unseen go to the section
    /// above. The committed pages are cut to two objects of each shape, so most of their
    /// sections hold no object, and nothing there tells a heading from one of the one-line
    /// paragraphs of the intro above it (the real pages, whose sections hold objects, are
    /// read exactly).
    NoneInvented,
}

/// Asserts that the text page at `path`, with its mark `mark` removed, still reads into the
/// IR `reference` reads into: every item, parameter, member, field, value and doc, and the
/// sections `sections` says (the headings are then told from paragraphs by their place
/// alone: see `sphinx_text::inferred_headings`); that it reports no error and no unread line,
/// the census counts the same objects, and it warns that its headings were inferred.
fn assert_unmarked_reads_alike(reference: &Path, path: &Path, mark: char, sections: Sections) {
    let text = String::from_utf8(read(path)).expect("UTF-8");
    let stripped = without_marks(&text, mark);
    assert_ne!(
        stripped,
        text,
        "{}: no mark {mark:?} to remove",
        path.display()
    );
    let file = format!("{} without marks", path.display());
    let got = codegen::parse::parse_document(&file, stripped.as_bytes(), None);
    let want = parse(reference);
    assert_eq!(
        got.documents.first().map(|d| d.format),
        Some(Format::BindingsText)
    );
    let (errors, unread) = trouble(&got);
    assert!(errors.is_empty(), "{file}: errors {errors:#?}");
    assert_eq!(unread, 0, "{file}: unread lines");
    assert_eq!(
        census_of(&stripped, Format::BindingsText),
        census(reference, Format::BindingsText),
        "{file}: the census counts other objects than on {}",
        reference.display()
    );
    assert!(
        got.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning && d.message.contains("no permalink marks")),
        "{file}: no warning that the headings were inferred"
    );
    let json = |api: &Api| {
        let mut v = serde_json::to_value(api).expect("the IR serialises");
        without_places(&mut v);
        v
    };
    let titles = |api: &Api| {
        api.sections
            .iter()
            .map(|s| s.name.clone())
            .collect::<Vec<_>>()
    };
    let (want_ir, got_ir) = (json(&want), json(&got));
    if sections == Sections::NoneInvented {
        let want_titles = titles(&want);
        let invented: Vec<String> = titles(&got)
            .into_iter()
            .filter(|t| !want_titles.contains(t))
            .collect();
        assert!(
            invented.is_empty(),
            "{file}: paragraphs read as headings: {invented:?}"
        );
        let items = |v: &Value| {
            let mut v = v.clone();
            strip_keys(&mut v, &["section", "sections"]);
            v
        };
        if let Some(d) = first_difference(&items(&want_ir), &items(&got_ir), "") {
            panic!("{file} does not read as {}: {d}", reference.display());
        }
        return;
    }
    assert_eq!(
        titles(&got),
        titles(&want),
        "{file}: other headings than on {}",
        reference.display()
    );
    if let Some(d) = first_difference(&want_ir, &got_ir, "") {
        panic!("{file} does not read as {}: {d}", reference.display());
    }
}

fn strip_keys(v: &mut Value, keys: &[&str]) {
    match v {
        Value::Object(map) => {
            for key in keys {
                map.remove(*key);
            }
            map.values_mut().for_each(|x| strip_keys(x, keys));
        }
        Value::Array(items) => items.iter_mut().for_each(|x| strip_keys(x, keys)),
        _ => {}
    }
}

#[test]
fn a_page_without_permalink_marks() {
    let reference = committed("nvidia.txt");
    assert_unmarked_reads_alike(&reference, &reference, '#', Sections::NoneInvented);
    for (theme, mark) in [("rtd", '\u{f0c1}'), ("furo", '¶'), ("alabaster", '¶')] {
        let page = committed(&format!("{theme}.txt"));
        assert_unmarked_reads_alike(&reference, &page, mark, Sections::NoneInvented);
    }
}

/// Every real release's text page in `docs-src/`, its marks removed, reads as it does with
/// them: items, and sections with their intros, in every release at hand.
#[test]
fn real_pages_of_every_release_without_permalink_marks() {
    let mut pages = Vec::new();
    for dir in std::fs::read_dir(root().join("docs-src")).expect("docs-src/") {
        let dir = dir.expect("an entry of docs-src/").path();
        if !dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("nvidia-cuda-bindings-"))
        {
            continue;
        }
        for page in std::fs::read_dir(&dir).expect("a release's folder") {
            let page = page.expect("a page").path();
            if page.extension().is_some_and(|e| e == "txt") {
                pages.push(page);
            }
        }
    }
    pages.sort();
    assert!(pages.len() >= 3, "text pages of docs-src/: {pages:?}");
    for page in &pages {
        assert_unmarked_reads_alike(page, page, '#', Sections::Exact);
    }
}

#[test]
fn a_mark_after_a_blank() {
    // A renderer may put a blank between a signature or heading and its mark (`f(a) ¶`).
    let reference = committed("nvidia.txt");
    let want = parse(&reference);
    let page = committed("furo.txt");
    let (name, got) = mutated(&page, |t| {
        Some(
            t.split('\n')
                .map(|l| match l.strip_suffix('¶') {
                    Some(body) => format!("{body} ¶"),
                    None => l.to_string(),
                })
                .collect::<Vec<_>>()
                .join("\n"),
        )
    })
    .expect("a mutation");
    if let Err(e) = reads_alike((&reference, &want), (&name, &got), Format::BindingsText) {
        panic!("{e}");
    }
}

/// The folder of the pages `cargo xtask test` builds, when it says so.
fn built_pages() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os(PAGES_VAR)?);
    assert!(
        ["full", "small", "12.8.0"]
            .iter()
            .all(|set| dir.join(set).is_dir()),
        "{PAGES_VAR}={} holds no `full/`, `small/` and `12.8.0/` pages",
        dir.display()
    );
    Some(dir)
}

#[test]
fn whole_pages_in_every_theme() {
    let Some(dir) = built_pages() else {
        eprintln!(
            "{PAGES_VAR} is not set (`cargo xtask test` sets it): the whole pages are not read"
        );
        return;
    };
    // Each set of whole pages and the real release it was rebuilt from.
    for (set, release) in [("full", "13.4.4"), ("12.8.0", "12.8.0")] {
        let real = |ext: &str| {
            root().join(format!(
                "docs-src/nvidia-cuda-bindings-{release}/runtime.{ext}"
            ))
        };
        for (ext, format) in FORMATS {
            for theme in std::iter::once("nvidia").chain(THEMES) {
                assert_reads_alike(
                    &real(ext),
                    &dir.join(format!("{set}/{theme}.{ext}")),
                    format,
                );
            }
        }
        for (theme, mark) in [("rtd", '\u{f0c1}'), ("furo", '¶'), ("alabaster", '¶')] {
            let page = dir.join(format!("{set}/{theme}.txt"));
            assert_unmarked_reads_alike(&real("txt"), &page, mark, Sections::Exact);
        }
    }
}

#[test]
fn committed_theme_pages_are_fresh() {
    let Some(dir) = built_pages() else {
        eprintln!("{PAGES_VAR} is not set (`cargo xtask test` sets it): the committed theme pages are not rebuilt");
        return;
    };
    for theme in std::iter::once("nvidia").chain(THEMES) {
        for (ext, _) in FORMATS {
            let name = format!("{theme}.{ext}");
            assert!(
                read(&committed(&name)) == read(&dir.join("small").join(&name)),
                "codegen/tests/themes/13.4.4/{name} is not what `build.py --objects 2` builds: copy {} there",
                dir.join("small").join(&name).display()
            );
        }
    }
}
