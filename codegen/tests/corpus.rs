//! The corpus of real pages of other releases (12.8.0, 13.1.1, 13.4.4), read as exactly as the
//! seed and compared with what each release's installed module says (`corpus/<release>/
//! truth.json`, items with `documented: true` only).
//!
//! - [`corpus_pages_match_the_truth`]: every page, text and HTML: documented functions found,
//!   parameters exact (names and directions in order), enum members with values, struct and
//!   class fields with types, constants with values. It prints the table `TESTING.md` shows.
//! - [`no_document_leaves_a_line_unread`]: the unread-line count of every corpus page and of
//!   every document of `docs-src/` is 0, and every enum reported without members has none in
//!   the truth either.
//! - [`release_diffs_are_truthful`]: the release diff along 12.8.0 → 13.1.1 → 13.2 (seed) →
//!   13.3.0 → 13.4.4 adds or removes no enum, member or field merely because its form changed:
//!   pairs with a truth on both sides give exactly the diff of the two truths; a page without
//!   a truth (13.2, 13.3.0) loses no member or field that both neighbouring truths have, and
//!   states an enum or struct empty only where a neighbouring truth does too.
//!
//! Each page is parsed once per test binary. Nothing here names a CUDA item or keys on a
//! release number: releases are folder names, items come from `truth.json`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use codegen::diff::{self, ChangeKind, ItemKind};
use codegen::doctype::TypeRef;
use codegen::ir::{
    Api, Constant, Detail, Direction, Enum, Field, Function, Param, Source, Struct, Typedef,
    TypedefKind, Variant,
};
use serde_json::Value;

/// Releases with a truth, oldest first.
const CORPUS: [&str; 3] = ["12.8.0", "13.1.1", "13.4.4"];
/// The formats of each corpus page.
const FORMATS: [&str; 2] = ["txt", "html"];
/// The release chain of the diff, oldest first: (release, page read).
const CHAIN: [(&str, &str); 5] = [
    ("12.8.0", "docs-src/nvidia-cuda-bindings-12.8.0/runtime.txt"),
    ("13.1.1", "docs-src/nvidia-cuda-bindings-13.1.1/runtime.txt"),
    (
        "13.2",
        "docs-src/nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt",
    ),
    ("13.3.0", "docs-src/nvidia-cuda-bindings-13.3.0/runtime.txt"),
    ("13.4.4", "docs-src/nvidia-cuda-bindings-13.4.4/runtime.txt"),
];

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn page_path(release: &str, format: &str) -> String {
    format!("docs-src/nvidia-cuda-bindings-{release}/runtime.{format}")
}

/// Every page of `docs-src/manifest.toml` (default or not: the corpus pages, the seeds, the
/// 13.3.0 page; entries naming a folder of headers are another front end's), parsed once per
/// test binary on all cores.
fn documents() -> &'static BTreeMap<String, Api> {
    static DOCS: OnceLock<BTreeMap<String, Api>> = OnceLock::new();
    DOCS.get_or_init(|| {
        let manifest = std::fs::read_to_string(root().join("docs-src/manifest.toml"))
            .expect("docs-src/manifest.toml");
        let mut files: Vec<String> = manifest
            .lines()
            .filter_map(|l| l.trim().strip_prefix("file = "))
            .map(|f| format!("docs-src/{}", f.trim().trim_matches('"')))
            .filter(|f| root().join(f).is_file())
            .collect();
        files.sort();
        files.dedup();
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let out = std::sync::Mutex::new(BTreeMap::new());
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(rel) = files.get(k) else { break };
                    let bytes =
                        std::fs::read(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
                    let api = codegen::parse::parse_document(rel, &bytes, None);
                    out.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .insert(rel.clone(), api);
                });
            }
        });
        out.into_inner().unwrap_or_else(|e| e.into_inner())
    })
}

/// The parsed document at `rel` (relative to the workspace; listed in the manifest).
fn parsed(rel: &str) -> &'static Api {
    documents()
        .get(rel)
        .unwrap_or_else(|| panic!("{rel} is not in docs-src/manifest.toml"))
}

/// `truth.json` of a corpus release, once per test binary.
fn truth(release: &str) -> &'static Value {
    static CACHE: OnceLock<Vec<Value>> = OnceLock::new();
    let all = CACHE.get_or_init(|| {
        CORPUS
            .iter()
            .map(|r| {
                let path = root().join(format!("codegen/tests/corpus/{r}/truth.json"));
                let text =
                    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
            })
            .collect()
    });
    let k = CORPUS
        .iter()
        .position(|r| *r == release)
        .unwrap_or_else(|| panic!("no truth for {release}"));
    &all[k]
}

/// The documented entries of `truth[section]`, in file order.
fn documented<'t>(truth: &'t Value, section: &str) -> Vec<(&'t str, &'t Value)> {
    truth[section]
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(_, v)| v["documented"].as_bool() == Some(true))
                .map(|(k, v)| (k.as_str(), v))
                .collect()
        })
        .unwrap_or_default()
}

fn text_of(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// Found / expected for one kind of fact, with the first few misses for the failure message.
#[derive(Default)]
struct Score {
    got: usize,
    of: usize,
    /// Entries the page has beyond the truth's (parameters, members or fields).
    extra: usize,
    misses: Vec<String>,
}

impl Score {
    fn extras(&mut self, owner: &str, want: usize, got: usize) {
        if got > want {
            self.extra += got - want;
            if self.misses.len() < 5 {
                self.misses
                    .push(format!("{owner}: {} more than the truth's", got - want));
            }
        }
    }

    fn check(&mut self, ok: bool, miss: impl FnOnce() -> String) {
        self.of += 1;
        if ok {
            self.got += 1;
        } else if self.misses.len() < 5 {
            self.misses.push(miss());
        }
    }

    fn cell(&self) -> String {
        format!("{}/{}", self.got, self.of)
    }

    fn ratio(&self) -> f64 {
        if self.of == 0 {
            1.0
        } else {
            self.got as f64 / self.of as f64
        }
    }
}

/// How one page reads against its release's truth.
#[derive(Default)]
struct Figures {
    functions: Score,
    params: Score,
    enums: Score,
    members: Score,
    structs: Score,
    fields: Score,
    classes: Score,
    class_fields: Score,
    constants: Score,
    /// Parameters the truth names `*name` where the IR says `name`: the page writes the output
    /// `**\*name**` (a C dereference star, RST-escaped), the module's docstring keeps `*name`,
    /// and the docstring model reads the name without the star (with a note).
    starred: usize,
    unread: u64,
}

/// Counts positionally equal entries of `want` in `got` (each entry of `want` is one fact).
fn in_order<W, G>(
    score: &mut Score,
    owner: &str,
    want: &[W],
    got: &[G],
    same: impl Fn(&W, &G) -> bool,
    show: impl Fn(&W) -> String,
) {
    for (k, w) in want.iter().enumerate() {
        score.check(got.get(k).is_some_and(|g| same(w, g)), || {
            format!("{owner}[{k}] {}", show(w))
        });
    }
    score.extras(owner, want.len(), got.len());
}

fn same_type_text(want: &str, got: Option<&TypeRef>) -> bool {
    got.is_some_and(|g| diff::same_type(&TypeRef::parse(want), g))
}

fn fields_in_order(score: &mut Score, owner: &str, attrs: &Value, fields: &[Field]) {
    let want: Vec<(&str, &str)> = attrs
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| (text_of(&x["name"]), text_of(&x["type"])))
                .collect()
        })
        .unwrap_or_default();
    in_order(
        score,
        owner,
        &want,
        fields,
        |(n, t), f| f.name == *n && same_type_text(t, f.ty.as_ref()),
        |(n, t)| format!("{n}: {t}"),
    );
}

fn figures(api: &Api, truth: &Value) -> Figures {
    let mut f = Figures::default();
    for (name, t) in documented(truth, "functions") {
        let got = api.function(name);
        f.functions.check(got.is_some(), || name.to_string());
        let mut want: Vec<(&str, Direction)> = Vec::new();
        for p in t["in"].as_array().into_iter().flatten() {
            want.push((text_of(&p["name"]), Direction::In));
        }
        for p in t["out"].as_array().into_iter().flatten() {
            if let Some(n) = p["name"].as_str() {
                want.push((n, Direction::Out));
            }
        }
        let params: &[Param] = got.and_then(|g| g.params.as_deref()).unwrap_or(&[]);
        in_order(
            &mut f.params,
            name,
            &want,
            params,
            |(n, d), p| p.name == *n && p.direction == *d,
            |(n, d)| format!("{n} ({d:?})"),
        );
        f.starred += want
            .iter()
            .zip(params)
            .filter(|((n, d), p)| n.strip_prefix('*') == Some(p.name.as_str()) && p.direction == *d)
            .count();
    }
    for (name, t) in documented(truth, "enums") {
        let got = api.enums.iter().find(|e| e.name == name);
        f.enums.check(got.is_some(), || name.to_string());
        let want: Vec<(&str, Option<i64>)> = t["members"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| m["documented"].as_bool() != Some(false))
            .map(|m| (text_of(&m["name"]), m["value"].as_i64()))
            .collect();
        // Members by name and value: the page lists them in source order, the truth by value.
        let variants: &[Variant] = got.map_or(&[], |e| &e.variants);
        for (n, v) in &want {
            let ok = variants.iter().any(|x| x.name == *n && x.value == *v);
            f.members.check(ok, || format!("{name}.{n} = {v:?}"));
        }
        f.members.extras(name, want.len(), variants.len());
    }
    for (name, t) in documented(truth, "structs") {
        let got = api.structs.iter().find(|s| s.name == name);
        f.structs.check(got.is_some(), || name.to_string());
        let fields: &[Field] = got.map_or(&[], |s| &s.fields);
        fields_in_order(&mut f.fields, name, &t["attributes"], fields);
    }
    for (name, t) in documented(truth, "classes") {
        let got = api.typedefs.iter().find(|s| s.name == name);
        f.classes.check(got.is_some(), || name.to_string());
        let fields: &[Field] = got.map_or(&[], |s| &s.fields);
        fields_in_order(&mut f.class_fields, name, &t["attributes"], fields);
    }
    for (name, t) in documented(truth, "constants") {
        let got = api.constants.iter().find(|c| c.name == name);
        f.constants.check(
            got.is_some_and(|c| Some(c.value) == t["value"].as_i64()),
            || format!("{name} = {}", t["value"]),
        );
    }
    f.unread = api.diagnostics.iter().map(|d| u64::from(d.unread)).sum();
    f
}

#[test]
fn corpus_pages_match_the_truth() {
    println!(
        "| release | format | functions | params exact | enums | members | structs | fields | classes | class fields | constants | unread lines |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut failures = Vec::new();
    for release in CORPUS {
        for format in FORMATS {
            let path = page_path(release, format);
            let f = figures(parsed(&path), truth(release));
            println!(
                "| {release} | {format} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                f.functions.cell(),
                f.params.cell(),
                f.enums.cell(),
                f.members.cell(),
                f.structs.cell(),
                f.fields.cell(),
                f.classes.cell(),
                f.class_fields.cell(),
                f.constants.cell(),
                f.unread
            );
            // The figures reached: everything, exactly (the issue asks ≥ 99.5 % of parameters).
            let scores = [
                ("functions", &f.functions),
                ("params", &f.params),
                ("enums", &f.enums),
                ("members", &f.members),
                ("structs", &f.structs),
                ("fields", &f.fields),
                ("classes", &f.classes),
                ("class fields", &f.class_fields),
                ("constants", &f.constants),
            ];
            for (what, s) in scores {
                assert!(s.of > 0, "{path}: the truth lists no {what}");
                // Parameters may miss by 0.5 % (see `PARAM_MISSES`); everything else is exact.
                let exact = s.got == s.of || (what == "params" && s.ratio() >= 0.995);
                if !exact || s.extra > 0 {
                    failures.push(format!("{path}: {what} {}: {:?}", s.cell(), s.misses));
                }
            }
            assert_eq!(
                f.params.of - f.params.got,
                f.starred,
                "{path}: parameters not exact other than by a dereference star: {:?}",
                f.params.misses
            );
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn no_document_leaves_a_line_unread() {
    let docs = documents();
    for release in CORPUS {
        for format in FORMATS {
            assert!(
                docs.contains_key(&page_path(release, format)),
                "manifest lacks a page"
            );
        }
    }
    let mut rows = Vec::new();
    for (doc, api) in docs {
        let unread: Vec<String> = api
            .diagnostics
            .iter()
            .filter(|d| d.unread > 0)
            .map(ToString::to_string)
            .collect();
        let total: u64 = api.diagnostics.iter().map(|d| u64::from(d.unread)).sum();
        rows.push(format!("| `{doc}` | {total} |"));
        assert!(unread.is_empty(), "{doc}: {unread:#?}");
        // An enum reported without members is one the release's truth also lists without any.
        if let Some(release) = CORPUS.iter().find(|r| doc.contains(&format!("-{r}/"))) {
            for e in api.enums.iter().filter(|e| e.variants.is_empty()) {
                let members = &truth(release)["enums"][&e.name]["members"];
                assert_eq!(
                    members.as_array().map(Vec::len),
                    Some(0),
                    "{doc}: enum `{}` read without members",
                    e.name
                );
                assert!(
                    api.diagnostics
                        .iter()
                        .any(|d| d.message.contains(&format!("`{}`", e.name))
                            && d.message.contains("no members")),
                    "{doc}: enum `{}` without members is not reported",
                    e.name
                );
            }
        }
    }
    println!("| document | unread lines |\n|---|---|");
    for r in rows {
        println!("{r}");
    }
}

// ---------------------------------------------------------------------------------------------
// The release diff

fn truth_source() -> Source {
    Source::new("truth.json", 0)
}

/// The documented items of a truth as an IR, so that the same [`diff::diff`] runs on it.
fn truth_api(truth: &Value) -> Api {
    let src = truth_source;
    let ty = |v: &Value| v.as_str().map(TypeRef::parse);
    let fields = |attrs: &Value| -> Vec<Field> {
        attrs
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| Field {
                name: text_of(&a["name"]).to_string(),
                ty: ty(&a["type"]),
                doc: String::new(),
                source: src(),
            })
            .collect()
    };
    let mut api = Api::default();
    for (name, t) in documented(truth, "functions") {
        let mut params = Vec::new();
        for p in t["in"].as_array().into_iter().flatten() {
            params.push(Param {
                name: text_of(&p["name"]).to_string(),
                ty: ty(&p["type"]),
                direction: Direction::In,
                doc: String::new(),
            });
        }
        for p in t["out"].as_array().into_iter().flatten() {
            if let Some(n) = p["name"].as_str() {
                params.push(Param {
                    name: n.to_string(),
                    ty: ty(&p["type"]),
                    direction: Direction::Out,
                    doc: String::new(),
                });
            }
        }
        api.functions.push(Function {
            name: name.to_string(),
            qualified_name: name.to_string(),
            section: None,
            params: Some(params),
            rtype: None,
            errors: Vec::new(),
            doc: String::new(),
            see_also: Vec::new(),
            detail: Detail::Full,
            source: src(),
            sources: Vec::new(),
        });
    }
    for (name, t) in documented(truth, "enums") {
        api.enums.push(Enum {
            name: name.to_string(),
            qualified_name: name.to_string(),
            section: None,
            doc: String::new(),
            variants: t["members"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|m| Variant {
                    name: text_of(&m["name"]).to_string(),
                    value: m["value"].as_i64(),
                    doc: String::new(),
                    source: src(),
                })
                .collect(),
            detail: Detail::Full,
            source: src(),
            sources: Vec::new(),
        });
    }
    for (name, t) in documented(truth, "structs") {
        api.structs.push(Struct {
            name: name.to_string(),
            qualified_name: name.to_string(),
            section: None,
            doc: String::new(),
            fields: fields(&t["attributes"]),
            detail: Detail::Full,
            source: src(),
            sources: Vec::new(),
        });
    }
    for (name, t) in documented(truth, "classes") {
        api.typedefs.push(Typedef {
            name: name.to_string(),
            qualified_name: name.to_string(),
            section: None,
            kind: TypedefKind::Class,
            doc: String::new(),
            fields: fields(&t["attributes"]),
            detail: Detail::Full,
            source: src(),
            sources: Vec::new(),
        });
    }
    for (name, t) in documented(truth, "constants") {
        api.constants.push(Constant {
            name: name.to_string(),
            qualified_name: name.to_string(),
            section: None,
            value: t["value"].as_i64().unwrap_or_default(),
            doc: String::new(),
            source: src(),
            sources: Vec::new(),
        });
    }
    api
}

/// The additions and removals a diff reports: items (aliases aside: the truth has none),
/// members and fields, as comparable lines.
fn adds_and_removes(d: &diff::ApiDiff) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (sign, list) in [("+", &d.added), ("-", &d.removed)] {
        for i in list.iter().filter(|i| i.kind != ItemKind::Alias) {
            out.insert(format!("{sign} {} {}", i.kind.name(), i.name));
        }
    }
    for c in &d.changes {
        let sign = match c.change {
            ChangeKind::MemberAdded | ChangeKind::FieldAdded => "+",
            ChangeKind::MemberRemoved | ChangeKind::FieldRemoved => "-",
            _ => continue,
        };
        let part = c.part.as_deref().unwrap_or("?");
        out.insert(format!("{sign} {} {}.{part}", c.kind.name(), c.name));
    }
    out
}

/// One row of the diff table: functions, enums, members, fields added/removed.
fn row(lines: &BTreeSet<String>) -> String {
    let count = |sign: &str, what: &str, part: bool| {
        lines
            .iter()
            .filter(|l| {
                let mut w = l.splitn(3, ' ');
                w.next() == Some(sign)
                    && w.next() == Some(what)
                    && w.next().is_some_and(|n| n.contains('.') == part)
            })
            .count()
    };
    let pair =
        |what: &str, part: bool| format!("+{} −{}", count("+", what, part), count("-", what, part));
    let fields = format!(
        "+{} −{}",
        count("+", "struct", true) + count("+", "typedef", true),
        count("-", "struct", true) + count("-", "typedef", true)
    );
    format!(
        "{} | {} | {} | {}",
        pair("function", false),
        pair("enum", false),
        pair("enum", true),
        fields
    )
}

/// Enums and structs both sides have, that one side states empty and the other not.
fn emptied(old: &Api, new: &Api) -> Vec<String> {
    let mut out = Vec::new();
    for e in &old.enums {
        if let Some(n) = new.enums.iter().find(|n| n.name == e.name) {
            if e.variants.is_empty() != n.variants.is_empty() {
                out.push(format!("enum {}", e.name));
            }
        }
    }
    for s in &old.structs {
        if let Some(n) = new.structs.iter().find(|n| n.name == s.name) {
            if s.fields.is_empty() != n.fields.is_empty() {
                out.push(format!("struct {}", s.name));
            }
        }
    }
    out
}

/// Members and fields that both `before` and `after` (truths) have, in an enum or struct the
/// middle page also has, but that the middle page lacks.
fn lost_between(before: &Api, middle: &Api, after: &Api) -> Vec<String> {
    let mut out = Vec::new();
    for e in &middle.enums {
        let of = |api: &Api| -> BTreeSet<String> {
            api.enums
                .iter()
                .find(|x| x.name == e.name)
                .map(|x| x.variants.iter().map(|v| v.name.clone()).collect())
                .unwrap_or_default()
        };
        let here: BTreeSet<String> = e.variants.iter().map(|v| v.name.clone()).collect();
        for m in of(before).intersection(&of(after)) {
            if !here.contains(m) {
                out.push(format!("{}.{m}", e.name));
            }
        }
    }
    for s in &middle.structs {
        let of = |api: &Api| -> BTreeSet<String> {
            api.structs
                .iter()
                .find(|x| x.name == s.name)
                .map(|x| x.fields.iter().map(|f| f.name.clone()).collect())
                .unwrap_or_default()
        };
        let here: BTreeSet<String> = s.fields.iter().map(|f| f.name.clone()).collect();
        for m in of(before).intersection(&of(after)) {
            if !here.contains(m) {
                out.push(format!("{}.{m}", s.name));
            }
        }
    }
    out
}

#[test]
fn release_diffs_are_truthful() {
    let has_truth = |r: &str| CORPUS.contains(&r);
    let api_of = |k: usize| parsed(CHAIN[k].1);
    println!("| pair | functions | enums | members | fields | truth's diff |");
    println!("|---|---|---|---|---|---|");
    let mut pairs: Vec<(usize, usize)> = (0..CHAIN.len() - 1).map(|k| (k, k + 1)).collect();
    // The truth-backed pair that spans the releases without a truth.
    let (a, b) = (1, CHAIN.len() - 1);
    pairs.push((a, b));
    for (a, b) in pairs {
        let (old_r, new_r) = (CHAIN[a].0, CHAIN[b].0);
        let (old, new) = (api_of(a), api_of(b));
        let d = diff::diff(old, new);
        let lines = adds_and_removes(&d);
        let verdict = if has_truth(old_r) && has_truth(new_r) {
            let t = diff::diff(&truth_api(truth(old_r)), &truth_api(truth(new_r)));
            let want = adds_and_removes(&t);
            let extra: Vec<&String> = lines.difference(&want).collect();
            let missing: Vec<&String> = want.difference(&lines).collect();
            assert!(
                extra.is_empty() && missing.is_empty(),
                "{old_r} → {new_r}: the pages' diff differs from the truths'.\nonly in the pages' diff: {extra:#?}\nonly in the truths' diff: {missing:#?}"
            );
            format!("identical ({} lines)", want.len())
        } else {
            // Checked below: what a page without a truth states empty, a neighbouring truth
            // does too; what a corpus page states empty, its truth does (the figures).
            let gone = emptied(old, new);
            format!(
                "one side without truth; {} emptied, each empty in a truth",
                gone.len()
            )
        };
        println!("| {old_r} → {new_r} | {} | {verdict} |", row(&lines));
    }
    // Releases without a truth between two with one: nothing both neighbours have is lost.
    for (k, (release, _)) in CHAIN.iter().enumerate() {
        if has_truth(release) {
            continue;
        }
        let before = (0..k).rev().find(|&j| has_truth(CHAIN[j].0));
        let after = (k + 1..CHAIN.len()).find(|&j| has_truth(CHAIN[j].0));
        let (Some(before), Some(after)) = (before, after) else {
            continue;
        };
        let (t_before, t_after) = (
            truth_api(truth(CHAIN[before].0)),
            truth_api(truth(CHAIN[after].0)),
        );
        let lost = lost_between(&t_before, api_of(k), &t_after);
        assert!(
            lost.is_empty(),
            "{}: members or fields both {} and {} have are missing: {lost:?}",
            release,
            CHAIN[before].0,
            CHAIN[after].0
        );
        // An enum or struct this page states empty is empty (or absent) in a neighbouring truth.
        let unconfirmed: Vec<String> = empty_items(api_of(k))
            .into_iter()
            .filter(|item| {
                ![&t_before, &t_after]
                    .iter()
                    .any(|t| is_empty_or_absent(t, item))
            })
            .collect();
        assert!(
            unconfirmed.is_empty(),
            "{}: empty, but neither neighbouring truth says so: {unconfirmed:?}",
            release
        );
    }
}

/// `enum X` / `struct X` for each enum without members and struct without fields of `api`.
fn empty_items(api: &Api) -> Vec<String> {
    let enums = api
        .enums
        .iter()
        .filter(|e| e.variants.is_empty())
        .map(|e| format!("enum {}", e.name));
    let structs = api
        .structs
        .iter()
        .filter(|s| s.fields.is_empty())
        .map(|s| format!("struct {}", s.name));
    enums.chain(structs).collect()
}

/// Whether `api` has `item` (`enum X` / `struct X`) empty, or not at all.
fn is_empty_or_absent(api: &Api, item: &str) -> bool {
    let name = item.split_once(' ').map_or(item, |(_, n)| n);
    if item.starts_with("enum ") {
        api.enums
            .iter()
            .find(|e| e.name == name)
            .is_none_or(|e| e.variants.is_empty())
    } else {
        api.structs
            .iter()
            .find(|s| s.name == name)
            .is_none_or(|s| s.fields.is_empty())
    }
}
