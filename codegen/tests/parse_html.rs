//! The HTML front end: the 13.3.0 Sphinx page reads to the same IR as its text rendering
//! (item by item, provenance aside), processed field lists map to the same docstring model,
//! damaged or foreign input gives diagnostics and no panic, and `default = false` documents
//! stay out of folder reads.

use codegen::diag::{Diagnostic, Severity};
use codegen::ir::{Api, Direction, Format};
use codegen::parse::{html, parse_document, sphinx_text};
use proptest::prelude::*;
use serde_json::Value;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../docs-src/nvidia-cuda-bindings-13.3.0"
);

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{name}")).expect("13.3.0 sample present")
}

fn with(api: &Api, sev: Severity) -> Vec<&Diagnostic> {
    api.diagnostics
        .iter()
        .filter(|d| d.severity == sev)
        .collect()
}

/// `v` without provenance (`source`, `sources`), recursively.
fn strip(mut v: Value) -> Value {
    match &mut v {
        Value::Object(m) => {
            m.remove("source");
            m.remove("sources");
            for x in m.values_mut() {
                *x = strip(std::mem::take(x));
            }
        }
        Value::Array(a) => {
            for x in a.iter_mut() {
                *x = strip(std::mem::take(x));
            }
        }
        _ => {}
    }
    v
}

/// The first place where `a` and `b` differ, as a JSON path with both values.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                let p = format!("{path}.{k}");
                match y.get(k) {
                    Some(vb) => {
                        if let Some(d) = first_difference(&p, va, vb) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{p}: only in html")),
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{path}.{k}: only in text"))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_difference(&format!("{path}[{i}]"), va, vb) {
                    return Some(d);
                }
            }
            (x.len() != y.len())
                .then(|| format!("{path}: {} items in html, {} in text", x.len(), y.len()))
        }
        (Value::String(x), Value::String(y)) if x != y => {
            let lines: Vec<String> = x
                .lines()
                .zip(y.lines())
                .enumerate()
                .filter(|(_, (p, q))| p != q)
                .map(|(i, (p, q))| {
                    format!(
                        "    line {}: html `{p}`\n    line {}: text `{q}`",
                        i + 1,
                        i + 1
                    )
                })
                .collect();
            Some(format!(
                "{path}: {} lines in html, {} in text\n{}",
                x.lines().count(),
                y.lines().count(),
                lines.join("\n")
            ))
        }
        _ => (a != b).then(|| format!("{path}:\n    html: {a}\n    text: {b}")),
    }
}

/// The one known way the text rendering differs from the page: it numbers every item of an
/// ordered list `1.`, where the page's `ol` has `start="2"`, `start="3"`, … (each step of the
/// Green Contexts list is its own `ol` inside a bullet; a browser shows 1. to 5.). So the
/// HTML side is right. True when every differing line pair is `N. x` (N > 1) against `1. x`.
fn is_restarted_numbering(x: &str, y: &str) -> bool {
    let renumbered = |p: &str, q: &str| {
        let (pi, qi) = (p.trim_start(), q.trim_start());
        let indent_same = p.len() - pi.len() == q.len() - qi.len();
        match (pi.split_once(". "), qi.split_once(". ")) {
            (Some((n, a)), Some(("1", b))) => {
                indent_same && a == b && n.parse::<u32>().is_ok_and(|n| n > 1)
            }
            _ => false,
        }
    };
    x.lines().count() == y.lines().count()
        && x.lines()
            .zip(y.lines())
            .all(|(p, q)| p == q || renumbered(p, q))
}

/// The items of every IR list, keyed `list/name`, provenance stripped.
fn items(api: &Api) -> Vec<(String, Value)> {
    let v = serde_json::to_value(api).expect("IR serialises");
    let mut out = Vec::new();
    for list in [
        "sections",
        "functions",
        "enums",
        "structs",
        "typedefs",
        "constants",
        "aliases",
        "entries",
    ] {
        if let Some(Value::Array(xs)) = v.get(list) {
            for x in xs {
                let name = x.get("name").and_then(Value::as_str).unwrap_or("?");
                out.push((format!("{list}/{name}"), strip(x.clone())));
            }
        }
    }
    out
}

/// Items and their parts (parameters, members, fields) in `api`.
fn parts(api: &Api) -> usize {
    let typedef_fields: usize = api.typedefs.iter().map(|t| t.fields.len()).sum();
    api.param_count() + api.variant_count() + api.field_count() + typedef_fields
}

#[test]
fn html_ir_equals_text_ir_item_by_item() {
    let from_html = html::parse("runtime.html", &read("runtime.html"));
    let from_text = sphinx_text::parse("runtime.txt", &read("runtime.txt"));
    let a = items(&from_html);
    let b = items(&from_text);
    let keys = |x: &[(String, Value)]| x.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    assert_eq!(keys(&a), keys(&b), "the same items in the same order");
    let mut differences = Vec::new();
    let mut renumbered = Vec::new();
    for ((key, va), (_, vb)) in a.iter().zip(&b) {
        let Some(d) = first_difference(key, va, vb) else {
            continue;
        };
        let docs = (
            va.get("doc").and_then(Value::as_str),
            vb.get("doc").and_then(Value::as_str),
        );
        let mut rest_a = va.clone();
        let mut rest_b = vb.clone();
        for r in [&mut rest_a, &mut rest_b] {
            if let Value::Object(m) = r {
                m.remove("doc");
            }
        }
        match docs {
            (Some(x), Some(y)) if rest_a == rest_b && is_restarted_numbering(x, y) => {
                renumbered.push(d)
            }
            _ => differences.push(d),
        }
    }
    // Known rendering difference, checked exactly: one section intro, four list items.
    assert_eq!(renumbered.len(), 1, "{renumbered:#?}");
    assert!(renumbered[0].starts_with("sections/Execution Context Management.doc"));
    assert_eq!(
        renumbered[0].matches("html `    ").count(),
        4,
        "{}",
        renumbered[0]
    );
    println!(
        "text-rendering difference (ordered list `start` lost in the text):\n{}",
        renumbered[0]
    );
    assert!(
        differences.is_empty(),
        "{} of {} items differ:\n{}",
        differences.len(),
        a.len(),
        differences.join("\n")
    );
    assert_eq!(parts(&from_html), parts(&from_text));
    println!(
        "compared {} items ({} sections, {} functions, {} enums, {} structs, {} typedefs, {} constants, {} aliases) and {} parts ({} parameters, {} enum members, {} struct fields)",
        a.len(),
        from_html.sections.len(),
        from_html.functions.len(),
        from_html.enums.len(),
        from_html.structs.len(),
        from_html.typedefs.len(),
        from_html.constants.len(),
        from_html.aliases.len(),
        parts(&from_html),
        from_html.param_count(),
        from_html.variant_count(),
        from_html.field_count(),
    );
    // The page is large: the comparison is not vacuous.
    assert!(from_html.functions.len() > 300 && from_html.variant_count() > 800);
    // Both read without errors.
    assert!(
        with(&from_html, Severity::Error).is_empty(),
        "{:?}",
        with(&from_html, Severity::Error)
    );
}

#[test]
fn html_provenance_is_an_element_path_and_a_line() {
    let text = read("runtime.html");
    let api = html::parse("runtime.html", &text);
    let f = api
        .function("cudaDeviceReset")
        .expect("cudaDeviceReset read");
    let path = f.source.path.as_deref().expect("element path");
    assert!(
        path.starts_with("section[1]/section[") && path.ends_with("/dt[1]"),
        "{path}"
    );
    let line = text.lines().nth(f.source.line as usize - 1).unwrap_or("");
    assert!(
        line.contains("id=\"cuda.bindings.runtime.cudaDeviceReset\""),
        "{line}"
    );
    let e = api.enum_("cudaError_t").expect("cudaError_t read");
    let m = &e.variants[1];
    let line = text.lines().nth(m.source.line as usize - 1).unwrap_or("");
    assert!(
        line.contains(&format!("cudaError_t.{}\"", m.name)),
        "{line}"
    );
}

#[test]
fn docstring_problems_point_at_their_line_in_the_page() {
    let text = read("runtime.html");
    let api = html::parse("runtime.html", &text);
    let found: Vec<&Diagnostic> = with(&api, Severity::Warning)
        .into_iter()
        .filter(|d| d.message.contains("`:param None:`"))
        .collect();
    assert_eq!(found.len(), 1, "{:?}", api.diagnostics);
    let d = found[0];
    let line = text.lines().nth(d.line as usize - 1).unwrap_or("");
    assert!(
        line.trim_start().starts_with(":param None:"),
        "line {}: {line}",
        d.line
    );
    // The element path of the object stays with it.
    assert!(
        d.path.as_deref().is_some_and(|p| p.ends_with("/dt[1]")),
        "{d}"
    );
    assert!(
        d.to_string()
            .starts_with(&format!("runtime.html:{}: section[1]/", d.line)),
        "{d}"
    );
}

/// A handmade page as Sphinx renders docstrings *without* the verbatim setting: processed
/// field lists, a `See also` admonition, a nested attribute with a `Type` field.
const PROCESSED: &str = r##"<!DOCTYPE html><html><body><nav>cudaNavigationNoise</nav>
<div class="body" role="main"><section id="m"><h1>runtime</h1>
<section id="ipc"><h2>Interprocess<a class="headerlink" href="#ipc">#</a></h2>
<p>Intro &amp; more.</p>
<dl class="py function">
<dt class="sig sig-object py" id="cuda.bindings.runtime.cudaIpcOpenEventHandle">
<span class="sig-prename descclassname"><span class="pre">cuda.bindings.runtime.</span></span><span class="sig-name descname"><span class="pre">cudaIpcOpenEventHandle</span></span><span class="sig-paren">(</span><em class="sig-param"><span class="n"><span class="pre">cudaIpcEventHandle_t</span> <span class="pre">handle:</span> <span class="pre">cudaIpcEventHandle_t</span></span></em><span class="sig-paren">)</span><a class="headerlink" href="#x">#</a></dt>
<dd><p>Opens an interprocess event handle for use in the current process.</p>
<dl class="field-list simple">
<dt class="field-odd">Parameters<span class="colon">:</span></dt>
<dd class="field-odd"><p><strong>handle</strong> (<a class="reference internal" href="#x"><code class="xref py py-obj docutils literal notranslate"><span class="pre">cudaIpcEventHandle_t</span></code></a>) &#8211; Interprocess handle to open</p></dd>
<dt class="field-even">Returns<span class="colon">:</span></dt>
<dd class="field-even"><ul class="simple">
<li><p><em>cudaError_t</em> &#8211; <a class="reference internal" href="#s"><code class="xref py py-obj docutils literal notranslate"><span class="pre">cudaSuccess</span></code></a>, <a class="reference internal" href="#s"><code class="xref py py-obj docutils literal notranslate"><span class="pre">cudaErrorMapBufferObjectFailed</span></code></a>, <code class="xref py py-obj docutils literal notranslate"><span class="pre">cudaErrorNotSupported</span></code>, <code class="xref py py-obj docutils literal notranslate"><span class="pre">cudaErrorInvalidValue</span></code>, <code class="xref py py-obj docutils literal notranslate"><span class="pre">cudaErrorDeviceUninitialized</span></code></p></li>
<li><p><strong>event</strong> (<a class="reference internal" href="#e"><code class="xref py py-obj docutils literal notranslate"><span class="pre">cudaEvent_t</span></code></a>) &#8211; Returns the imported event</p></li>
</ul></dd></dl>
<div class="admonition seealso"><p class="admonition-title">See also</p>
<p><a class="reference internal" href="#c"><code class="xref py py-obj docutils literal notranslate"><span class="pre">cudaEventCreate</span></code></a>, <code class="xref py py-obj docutils literal notranslate"><span class="pre">cudaEventDestroy</span></code></p></div>
</dd></dl>
<dl class="py class">
<dt class="sig sig-object py" id="cuda.bindings.runtime.cudaExtent"><em class="property"><span class="pre">class</span><span class="w"> </span></em><span class="sig-prename descclassname"><span class="pre">cuda.bindings.runtime.</span></span><span class="sig-name descname"><span class="pre">cudaExtent</span></span><span class="sig-paren">(</span><em class="sig-param"><span class="n"><span class="pre">void_ptr</span> <span class="pre">_ptr=0</span></span></em><span class="sig-paren">)</span></dt>
<dd><p>CUDA extent</p>
<dl class="py attribute"><dt class="sig sig-object py"><span class="sig-name descname"><span class="pre">width</span></span></dt>
<dd><p>Width in elements</p><dl class="field-list simple"><dt class="field-odd">Type<span class="colon">:</span></dt><dd class="field-odd"><p>size_t</p></dd></dl></dd></dl>
<dl class="py attribute"><dt class="sig sig-object py"><span class="sig-name descname"><span class="pre">depth</span></span><em class="property"><span class="p">:</span> <span class="pre">size_t</span></em></dt>
<dd><p>Depth in elements</p></dd></dl>
<dl class="py method"><dt class="sig sig-object py"><span class="sig-name descname"><span class="pre">getPtr</span></span><span class="sig-paren">(</span><span class="sig-paren">)</span></dt>
<dd><p>Get memory address of class instance</p></dd></dl>
</dd></dl>
</section></section></div></body></html>"##;

#[test]
fn processed_field_lists_read_like_verbatim_docstrings() {
    let processed = html::parse("processed.html", PROCESSED);
    assert!(
        with(&processed, Severity::Error).is_empty(),
        "{:?}",
        processed.diagnostics
    );
    assert!(
        with(&processed, Severity::Warning).is_empty(),
        "{:?}",
        processed.diagnostics
    );
    let verbatim = html::parse("runtime.html", &read("runtime.html"));
    let name = "cudaIpcOpenEventHandle";
    let (p, v) = (
        processed.function(name).expect("processed function"),
        verbatim.function(name).expect("verbatim function"),
    );
    let shape = |f: &codegen::ir::Function| {
        f.params
            .iter()
            .flatten()
            .map(|p| {
                (
                    p.name.clone(),
                    p.direction,
                    p.ty.as_ref().map(|t| t.expr.clone()),
                    p.doc.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(shape(p), shape(v));
    assert_eq!(p.params.as_ref().map(Vec::len), Some(2));
    assert_eq!(
        p.params.as_ref().map(|ps| ps[1].direction),
        Some(Direction::Out)
    );
    assert_eq!(p.errors, v.errors);
    assert_eq!(
        p.rtype.as_ref().map(|t| &t.expr),
        v.rtype.as_ref().map(|t| &t.expr)
    );
    assert_eq!(p.see_also, ["cudaEventCreate", "cudaEventDestroy"]);
    assert!(
        p.doc.starts_with("Opens an interprocess event handle"),
        "{}",
        p.doc
    );
    assert_eq!(p.section.as_deref(), Some("Interprocess"));
    assert_eq!(processed.sections[0].doc, "Intro & more.");
    let s = processed.struct_("cudaExtent").expect("struct read");
    let fields: Vec<(&str, Option<&str>, &str)> = s
        .fields
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                f.ty.as_ref().map(|t| t.text.as_str()),
                f.doc.as_str(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            ("width", Some("size_t"), "Width in elements"),
            ("depth", Some("size_t"), "Depth in elements")
        ]
    );
    assert_eq!(s.doc, "CUDA extent");
    // Navigation outside the main content is not read.
    assert!(!format!("{processed:?}").contains("cudaNavigationNoise"));
}

fn no_panic_with_diagnostics(file: &str, bytes: &[u8]) -> Api {
    let api = parse_document(file, bytes, None);
    assert!(!api.diagnostics.is_empty(), "{file}: expected diagnostics");
    for d in &api.diagnostics {
        assert_eq!(d.file, file);
    }
    api
}

#[test]
fn truncated_page_is_reported_and_read_up_to_the_cut() {
    let text = read("runtime.html");
    let whole = html::parse("page.html", &text);
    let mut cut = text.len() / 2;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let api = no_panic_with_diagnostics("page.html", &text.as_bytes()[..cut]);
    assert_eq!(api.documents[0].format, Format::Html);
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Warning && d.message.contains("truncated")));
    assert!(!api.functions.is_empty() && api.functions.len() < whole.functions.len());
    // What was read before the cut is what the whole page says.
    for f in api.functions.iter().take(api.functions.len() - 1) {
        assert_eq!(Some(f), whole.function(&f.name));
    }
}

#[test]
fn unclosed_tags_are_recovered() {
    let page = "<!DOCTYPE html><html><body><article><section id=\"a\"><h2>Sec<dl class=\"py function\"><dt class=\"sig sig-object py\"><span class=\"sig-prename\">m.</span><span class=\"sig-name\">f<span class=\"sig-paren\">(</span><em class=\"sig-param\">int a<dd><div class=\"highlight\"><pre>Doc\n\n:param a: the a\n";
    let api = no_panic_with_diagnostics("unclosed.html", page.as_bytes());
    assert!(api
        .diagnostics
        .iter()
        .any(|d| d.message.contains("truncated")));
    // Whatever html5ever made of it, nothing panicked and every problem has a place.
    for d in &api.diagnostics {
        assert!(d.line > 0 || d.path.is_some(), "{d}");
    }
}

/// A page whose one docstring holds `depth` nested `div`s around some text.
fn deeply_nested_page(depth: usize) -> String {
    let object = concat!(
        "<dl class=\"py function\"><dt class=\"sig sig-object py\" id=\"m.f\">",
        "<span class=\"sig-prename\">m.</span><span class=\"sig-name\">f</span>",
        "<span class=\"sig-paren\">(</span><span class=\"sig-paren\">)</span></dt><dd>"
    );
    format!(
        "<!DOCTYPE html><html><body><article><section id=\"s\"><h2>S</h2>{object}{}deep text{}</dd></dl></section></article></body></html>",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    )
}

#[test]
fn deep_nesting_is_reported_not_a_stack_overflow() {
    // Deeper than the walk reads (64 levels) but within what the page parser reads (512).
    let api = html::parse("deep.html", &deeply_nested_page(400));
    let f = api.function("f").expect("the object is read");
    assert!(f.doc.contains("deep text"), "{}", f.doc);
    assert!(
        api.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning && d.message.contains("nested deeper")),
        "{:?}",
        api.diagnostics
    );
}

#[test]
fn nesting_past_the_parser_bound_is_an_error_naming_the_line() {
    // html5ever's scope checks cost time in proportion to the depth for every start tag; the
    // page parser stops at 512 open levels and says where.
    let api = html::parse("deeper.html", &deeply_nested_page(2_000));
    let error = api
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error && d.message.contains("nested more than 512"))
        .expect("an error names the bound");
    assert_eq!(error.line, 1);
    assert!(
        error.message.contains("read only up to this point"),
        "{}",
        error.message
    );
}

#[test]
fn a_page_of_another_sphinx_project() {
    let page = r##"<!DOCTYPE html><html><body><div class="sphinxsidebar">menu</div>
<div class="body" role="main"><section id="io"><h1>mylib.io</h1>
<p>Reading and writing files.</p>
<dl class="py function"><dt class="sig sig-object py" id="mylib.io.open"><span class="sig-prename descclassname">mylib.io.</span><span class="sig-name descname">open</span><span class="sig-paren">(</span><em class="sig-param"><span class="n">path</span><span class="p">:</span> <span class="n">str</span></em><span class="sig-paren">)</span></dt>
<dd><p>Open a file.</p></dd></dl>
<dl class="c function"><dt class="sig sig-object c" id="c.io_open"><span class="sig-name descname">io_open</span></dt><dd><p>C side.</p></dd></dl>
<dl class="py decorator"><dt class="sig sig-object py"><span class="sig-name descname">cached</span></dt><dd></dd></dl>
</section></div></body></html>"##;
    let api = no_panic_with_diagnostics("mylib.html", page.as_bytes());
    assert_eq!(api.documents[0].format, Format::Html);
    let f = api.function("open").expect("python function read");
    assert_eq!(f.qualified_name, "mylib.io.open");
    assert_eq!(f.params.as_ref().map(|p| p[0].name.as_str()), Some("path"));
    let skipped: Vec<&Diagnostic> = with(&api, Severity::Warning)
        .into_iter()
        .filter(|d| d.message.contains("skipped"))
        .collect();
    assert_eq!(skipped.len(), 2, "{:?}", api.diagnostics);
    assert!(skipped.iter().all(|d| d
        .path
        .as_deref()
        .is_some_and(|p| p.starts_with("section[1]/dl["))));
    assert_eq!(api.functions.len(), 1);
}

#[test]
fn not_html_with_an_html_name() {
    // Binary garbage: no format is recognised.
    let api = no_panic_with_diagnostics("image.html", b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe garbage");
    assert!(!with(&api, Severity::Error).is_empty());
    // Forced to HTML, plain text is a page without API objects.
    let api = parse_document(
        "notes.html",
        b"just some notes, no markup",
        Some(Format::Html),
    );
    assert!(api.diagnostics.iter().any(
        |d| d.severity == Severity::Error && d.message.contains("no Sphinx Python API objects")
    ));
    assert!(api.functions.is_empty() && api.enums.is_empty());
}

#[test]
fn detection_picks_html_for_the_page() {
    let api = parse_document("runtime.html", read("runtime.html").as_bytes(), None);
    assert_eq!(api.documents[0].format, Format::Html);
    assert!(api.functions.len() > 300);
}

#[test]
fn default_false_documents_are_read_only_when_named() {
    let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs-src"));
    let listed =
        codegen::load::list_documents(std::slice::from_ref(&root)).expect("docs-src lists");
    assert!(!listed.is_empty());
    assert!(
        listed
            .iter()
            .all(|p| !p.to_string_lossy().contains("13.3.0")),
        "{listed:?}"
    );
    let page = root.join("nvidia-cuda-bindings-13.3.0/runtime.html");
    let named = codegen::load::list_documents(std::slice::from_ref(&page)).expect("named file");
    assert_eq!(named, std::slice::from_ref(&page));
    let api = codegen::load::load_document(&page, None).expect("page loads");
    let doc = &api.documents[0];
    assert_eq!(doc.format, Format::Html);
    assert_eq!(
        doc.release.as_ref().map(ToString::to_string).as_deref(),
        Some("13.3")
    );
}

#[test]
fn codegen_on_the_html_page_does_not_crash() {
    let out = std::env::temp_dir().join(format!("codegen-html-{}", std::process::id()));
    let opts = codegen::pipeline::Options::standalone(
        vec![std::path::PathBuf::from(format!("{DIR}/runtime.html"))],
        out.clone(),
    );
    match codegen::pipeline::run(&opts) {
        Ok(report) => {
            assert_eq!(report.release.to_string(), "13.3");
            assert!(report.api.functions.len() > 300);
            assert!(!report.changed.is_empty());
        }
        // No ABI for the release is a clean error, not a crash.
        Err(e) => println!("codegen on the HTML page stopped cleanly: {e}"),
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// A small valid page (the first objects of the sample) for the damage tests.
fn small_page() -> String {
    let text = read("runtime.html");
    let end = text
        .match_indices("<dl class=\"py function\">")
        .nth(6)
        .map_or(text.len(), |(i, _)| i);
    let start = text.find("<article").unwrap_or(0);
    let article_end = text[start..]
        .find("<section id=\"data-types")
        .map_or(start, |i| start + i);
    // Keep the head, the first section heading and the first functions.
    let dm = text
        .find("<section id=\"device-management\">")
        .unwrap_or(article_end);
    format!(
        "{}{}</section></section></article></body></html>",
        &text[..article_end],
        &text[dm..end.max(dm)]
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn random_truncations(frac in 0.0f64..1.0) {
        let page = small_page();
        let mut cut = (page.len() as f64 * frac) as usize;
        while !page.is_char_boundary(cut) {
            cut -= 1;
        }
        let api = parse_document("t.html", &page.as_bytes()[..cut], Some(Format::Html));
        prop_assert!(!api.diagnostics.is_empty());
    }

    #[test]
    fn byte_garbage(at in 0.0f64..1.0, junk in proptest::collection::vec(any::<u8>(), 1..200)) {
        let page = small_page().into_bytes();
        let i = (page.len() as f64 * at) as usize;
        let mut bytes = page[..i].to_vec();
        bytes.extend_from_slice(&junk);
        bytes.extend_from_slice(&page[i..]);
        let api = parse_document("g.html", &bytes, Some(Format::Html));
        for d in &api.diagnostics {
            prop_assert!(d.file == "g.html");
        }
    }
}

/// The release the manifests forecast before reading (which lets the pipeline read the ABI
/// snapshot early) is the one reading the documents gives, for each of the workspace's crates;
/// a document no manifest describes leaves it unknown.
#[test]
fn the_manifest_forecast_is_the_release_the_documents_give() {
    let root = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let docs_src = root.join("docs-src");
    let crates = codegen::load::crates(&docs_src).expect("manifest");
    assert!(crates.len() >= 2);
    for c in crates {
        let docs: Vec<_> = c.docs.iter().map(|d| docs_src.join(d)).collect();
        let forecast = codegen::load::manifest_release(&docs);
        let read = codegen::load::load_all(&docs, None).expect("the crate's documents load");
        let release = read.iter().filter_map(codegen::pipeline::release_of).max();
        assert!(forecast.is_some(), "{}: no forecast", c.name);
        assert_eq!(forecast, release, "{}", c.name);
    }
    let dir = std::env::temp_dir().join(format!("forecast-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let loose = dir.join("runtime.html");
    std::fs::copy(
        docs_src.join("nvidia-cuda-bindings-13.3.0/runtime.html"),
        &loose,
    )
    .expect("copy");
    let mixed = [docs_src.join("nvidia-cuda-headers-13.2"), loose.clone()];
    assert_eq!(codegen::load::manifest_release(&mixed), None);
    assert_eq!(
        codegen::load::manifest_release(&[dir.join("missing.txt")]),
        None
    );
    let _ = std::fs::remove_dir_all(&dir);
}
