//! The seed's classes rewritten into other plausible Sphinx forms, text and HTML: each class is
//! read as the seed reads it, or reported — never silently empty.
//!
//! Every struct and enum of the 13.2 seed (as the seed's parse gives them) is written back as
//! a page in one form at a time, parsed, and compared with the seed's reading:
//!
//! - struct forms read: `.. attribute::` (the seed's), numpydoc `name : type`, `:ivar:` with
//!   `:vartype:`, typed `:ivar T name:`, RST definition lists with `:type:` in the body,
//!   a numpydoc `Attributes` section, a Google-style `Attributes:` section, qualified
//!   `.. py:attribute:: Class.name` with options first; in HTML also Sphinx's processed
//!   `Variables` field list, a definition list with classifiers and nested `dl.py attribute`
//!   objects;
//! - enum forms read: the seed's `(value: int)` header with `X = <E.X: 1>#` members,
//!   multi-line constructor headers, `X = 1#`, qualified `E.X = 1#` and fully qualified
//!   member names, headers without arguments or with a base class, valued
//!   `.. attribute:: X` / `:value: 1` entries in the class body; in HTML members nested as
//!   `dl.py attribute` with or without a prename, headers one parameter a line;
//! - forms not read (bullet lists of attributes or members, an unknown field list): every
//!   class with fields or members gets a warning within its lines.
//!
//! A module constant after every enum stays a constant.

use std::sync::OnceLock;

use codegen::diag::Severity;
use codegen::doctype::TypeRef;
use codegen::ir::{Api, Enum, Struct};
use codegen::parse::{html, sphinx_text};

const SEED: &str = "docs-src/nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt";
const PREFIX: &str = "cuda.bindings.runtime.";

/// The seed's reading, once per test binary.
fn seed() -> &'static Api {
    static API: OnceLock<Api> = OnceLock::new();
    API.get_or_init(|| {
        let path = format!("{}/../{SEED}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        sphinx_text::parse(SEED, &text)
    })
}

/// A page being written: lines, and the line range of each class.
#[derive(Default)]
struct Page {
    lines: Vec<String>,
    ranges: Vec<(String, u32, u32)>,
}

impl Page {
    fn push(&mut self, l: impl Into<String>) {
        self.lines.push(l.into());
    }

    fn extend<I: IntoIterator<Item = S>, S: Into<String>>(&mut self, ls: I) {
        for l in ls {
            self.push(l);
        }
    }

    fn open(&mut self) -> u32 {
        self.lines.len() as u32 + 1
    }

    fn close(&mut self, name: &str, start: u32) {
        self.ranges
            .push((name.to_string(), start, self.lines.len() as u32 + 1));
    }

    fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s
    }
}

fn indented(text: &str, pad: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect()
}

fn ty(t: &Option<TypeRef>) -> &str {
    t.as_ref().map_or("", |t| t.text.as_str())
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

// ---------------------------------------------------------------------------------------------
// Struct forms

#[derive(Clone, Copy, Debug, PartialEq)]
enum StructForm {
    Directive,
    Numpydoc,
    IvarVartype,
    TypedIvar,
    DefinitionList,
    NumpydocSection,
    GoogleSection,
    QualifiedDirective,
    /// Not read: a bullet list of `**name** (*type*) -- doc` items.
    Bullets,
    /// Not read: an unknown field list.
    UnknownFields,
}

impl StructForm {
    const READ: [StructForm; 8] = [
        StructForm::Directive,
        StructForm::Numpydoc,
        StructForm::IvarVartype,
        StructForm::TypedIvar,
        StructForm::DefinitionList,
        StructForm::NumpydocSection,
        StructForm::GoogleSection,
        StructForm::QualifiedDirective,
    ];
    const NOT_READ: [StructForm; 2] = [StructForm::Bullets, StructForm::UnknownFields];
}

/// The docstring of `s` with its fields in `form`.
fn struct_doc(s: &Struct, form: StructForm) -> Vec<String> {
    let mut out = indented(&s.doc, "");
    out.push(String::new());
    match form {
        StructForm::NumpydocSection => out.extend(["Attributes".into(), "----------".into()]),
        StructForm::GoogleSection => out.push("Attributes:".into()),
        _ => {}
    }
    for f in &s.fields {
        let (n, t, d) = (&f.name, ty(&f.ty), &f.doc);
        match form {
            StructForm::Directive => {
                out.push(format!(".. attribute:: {n}"));
                out.push(String::new());
                out.extend(indented(d, "   "));
                out.push(String::new());
                out.push(format!("   :type: {t}"));
            }
            StructForm::Numpydoc | StructForm::NumpydocSection => {
                out.push(format!("{n} : {t}"));
                out.extend(indented(d, "    "));
            }
            StructForm::IvarVartype => {
                out.push(format!(":ivar {n}: {}", one_line(d)));
                out.push(format!(":vartype {n}: {t}"));
            }
            StructForm::TypedIvar => out.push(format!(":ivar {t} {n}: {}", one_line(d))),
            StructForm::DefinitionList => {
                // The definition follows its term at once (RST needs no blank line there).
                out.push(n.to_string());
                if !d.is_empty() {
                    out.extend(indented(d, "   "));
                    out.push(String::new());
                }
                out.push(format!("   :type: {t}"));
            }
            StructForm::GoogleSection => out.push(format!("    {n} ({t}): {}", one_line(d))),
            StructForm::QualifiedDirective => {
                out.push(format!(".. py:attribute:: {}.{n}", s.name));
                out.push(format!("   :type: {t}"));
                out.push(String::new());
                out.extend(indented(d, "   "));
            }
            StructForm::Bullets => out.push(format!("* **{n}** (*{t}*) -- {}", one_line(d))),
            StructForm::UnknownFields => out.push(format!(":member {n}: {}", one_line(d))),
        }
        out.push(String::new());
    }
    out.extend([
        ".. method:: getPtr()".to_string(),
        String::new(),
        "   Get memory address of class instance".to_string(),
    ]);
    out
}

fn text_struct_page(form: StructForm) -> Page {
    let mut p = Page::default();
    p.extend(["runtime#", "", "Data types#", ""]);
    for s in &seed().structs {
        let start = p.open();
        p.push(format!("class {PREFIX}{}(void_ptr _ptr=0)#", s.name));
        p.extend(struct_doc(s, form));
        p.close(&s.name, start);
    }
    p
}

/// HTML forms only the processed (non-verbatim) rendering has.
#[derive(Clone, Copy, Debug, PartialEq)]
enum HtmlStructForm {
    /// A docstring shown verbatim in a `pre`, fields in a text form.
    Verbatim(StructForm),
    /// `:ivar:`/`:vartype:` processed into a `Variables` field list.
    Variables,
    /// A docutils definition list with classifiers.
    Classifiers,
    /// Nested `dl.py attribute` objects with a qualified name and a `: type` annotation.
    Nested,
    /// Not read: a processed bullet list of attributes.
    ProcessedBullets,
}

fn html_page(body: &[String]) -> Page {
    let mut p = Page::default();
    p.extend([
        "<!DOCTYPE html>",
        "<html><head><title>runtime</title></head><body>",
        "<article class=\"bd-article\">",
        "<section id=\"runtime\"><h1>runtime</h1>",
        "<section id=\"data-types\"><h2>Data types</h2>",
    ]);
    p.extend(body.iter().cloned());
    p.extend(["</section></section></article></body></html>"]);
    p
}

fn html_sig(name: &str, params: &str) -> String {
    format!(
        "<dt class=\"sig sig-object py\" id=\"{PREFIX}{name}\"><em class=\"property\"><span class=\"pre\">class</span><span class=\"w\"> </span></em><span class=\"sig-prename descclassname\"><span class=\"pre\">{PREFIX}</span></span><span class=\"sig-name descname\"><span class=\"pre\">{name}</span></span>{params}<a class=\"headerlink\" href=\"#\">#</a></dt>"
    )
}

fn one_param(text: &str) -> String {
    format!(
        "<span class=\"sig-paren\">(</span><em class=\"sig-param\"><span class=\"pre\">{}</span></em><span class=\"sig-paren\">)</span>",
        html_escape(text)
    )
}

fn pre(lines: &[String]) -> String {
    let body: Vec<String> = lines.iter().map(|l| html_escape(l)).collect();
    format!(
        "<div class=\"highlight-text notranslate\"><div class=\"highlight\"><pre><span></span>{}\n</pre></div></div>",
        body.join("\n")
    )
}

fn html_struct_page(form: HtmlStructForm) -> Page {
    // Lines are recorded for the body only, then shifted by the page head.
    let mut body = Page::default();
    for s in &seed().structs {
        let start = body.open();
        body.push("<dl class=\"py class\">");
        body.push(html_sig(&s.name, &one_param("void_ptr _ptr=0")));
        body.push("<dd>");
        let content = match form {
            HtmlStructForm::Verbatim(f) => vec![pre(&struct_doc(s, f))],
            _ => {
                let mut c = vec![format!("<p>{}</p>", html_escape(&one_line(&s.doc)))];
                match form {
                    HtmlStructForm::Variables => {
                        c.push("<dl class=\"field-list simple\"><dt class=\"field-odd\">Variables<span class=\"colon\">:</span></dt><dd class=\"field-odd\"><ul class=\"simple\">".into());
                        for f in &s.fields {
                            c.push(format!(
                                "<li><p><strong>{}</strong> (<em>{}</em>) &#8211; {}</p></li>",
                                f.name,
                                html_escape(ty(&f.ty)),
                                html_escape(&one_line(&f.doc))
                            ));
                        }
                        c.push("</ul></dd></dl>".into());
                    }
                    HtmlStructForm::Classifiers => {
                        c.push("<dl class=\"simple\">".into());
                        for f in &s.fields {
                            c.push(format!(
                                "<dt>{}<span class=\"classifier\">{}</span></dt><dd><p>{}</p></dd>",
                                f.name,
                                html_escape(ty(&f.ty)),
                                html_escape(&one_line(&f.doc))
                            ));
                        }
                        c.push("</dl>".into());
                    }
                    HtmlStructForm::Nested => {
                        for f in &s.fields {
                            c.push(format!(
                                "<dl class=\"py attribute\"><dt class=\"sig sig-object py\"><span class=\"sig-prename descclassname\"><span class=\"pre\">{}.</span></span><span class=\"sig-name descname\"><span class=\"pre\">{}</span></span><em class=\"property\"><span class=\"p\"><span class=\"pre\">:</span></span><span class=\"w\"> </span><span class=\"pre\">{}</span></em></dt><dd><p>{}</p></dd></dl>",
                                s.name,
                                f.name,
                                html_escape(ty(&f.ty)),
                                html_escape(&one_line(&f.doc))
                            ));
                        }
                    }
                    _ => {
                        c.push("<ul class=\"simple\">".into());
                        for f in &s.fields {
                            c.push(format!(
                                "<li><p><strong>{}</strong> (<em>{}</em>) &#8211; {}</p></li>",
                                f.name,
                                html_escape(ty(&f.ty)),
                                html_escape(&one_line(&f.doc))
                            ));
                        }
                        c.push("</ul>".into());
                    }
                }
                c
            }
        };
        for c in content {
            // A `pre` spans several lines: keep the page's line count exact.
            body.extend(c.split('\n').map(str::to_string).collect::<Vec<_>>());
        }
        body.push("</dd></dl>");
        body.close(&s.name, start);
    }
    let mut page = html_page(&body.lines);
    let shift = 5;
    page.ranges = body
        .ranges
        .into_iter()
        .map(|(n, a, b)| (n, a + shift, b + shift))
        .collect();
    page
}

// ---------------------------------------------------------------------------------------------
// Enum forms

#[derive(Clone, Copy, Debug, PartialEq)]
enum EnumForm {
    /// `(value: int)` and `X = <E.X: 1>#`.
    Seed,
    /// A multi-line constructor header and `X = 1#`.
    MultiLineHeader,
    /// `E.X = 1#`.
    Qualified,
    /// `cuda.bindings.runtime.E.X = 1#`.
    FullyQualified,
    /// `class m.E#` and `X = 1#`.
    BareHeader,
    /// `class m.E(IntEnum)#` and `X = 1#`.
    BaseClassHeader,
    /// `.. attribute:: X` with `:value: 1` in the class body.
    ValuedAttributes,
    /// Not read: a bullet list of members.
    Bullets,
}

impl EnumForm {
    const READ: [EnumForm; 7] = [
        EnumForm::Seed,
        EnumForm::MultiLineHeader,
        EnumForm::Qualified,
        EnumForm::FullyQualified,
        EnumForm::BareHeader,
        EnumForm::BaseClassHeader,
        EnumForm::ValuedAttributes,
    ];
}

const CONSTRUCTOR: [&str; 8] = [
    "value",
    "names=None",
    "*",
    "module=None",
    "qualname=None",
    "type=None",
    "start=1",
    "boundary=None",
];

fn text_enum_page(form: EnumForm) -> Page {
    let mut p = Page::default();
    p.extend(["runtime#", "", "Data types#", ""]);
    for (k, e) in seed().enums.iter().enumerate() {
        let start = p.open();
        let n = &e.name;
        match form {
            EnumForm::Seed | EnumForm::ValuedAttributes | EnumForm::Bullets => {
                p.push(format!("class {PREFIX}{n}(value: int)#"))
            }
            EnumForm::MultiLineHeader => {
                p.push(format!("class {PREFIX}{n}("));
                p.extend(CONSTRUCTOR.iter().map(|c| format!("{c},")));
                p.push(")#");
            }
            EnumForm::BareHeader => p.push(format!("class {PREFIX}{n}#")),
            EnumForm::BaseClassHeader => p.push(format!("class {PREFIX}{n}(IntEnum)#")),
            EnumForm::Qualified | EnumForm::FullyQualified => {
                p.push(format!("class {PREFIX}{n}(value: int)#"))
            }
        }
        p.extend(indented(&e.doc, ""));
        for v in &e.variants {
            let x = &v.name;
            let value = v.value.unwrap_or_default();
            let member = match form {
                EnumForm::Seed => Some(format!("{x} = <{n}.{x}: {value}>#")),
                EnumForm::Qualified => Some(format!("{n}.{x} = {value}#")),
                EnumForm::FullyQualified => Some(format!("{PREFIX}{n}.{x} = {value}#")),
                EnumForm::MultiLineHeader | EnumForm::BareHeader | EnumForm::BaseClassHeader => {
                    Some(format!("{x} = {value}#"))
                }
                EnumForm::ValuedAttributes => {
                    p.push("");
                    p.push(format!(".. attribute:: {x}"));
                    p.push(format!("   :value: {value}"));
                    p.push("");
                    p.extend(indented(&v.doc, "   "));
                    None
                }
                EnumForm::Bullets => {
                    p.push(format!("* **{x}** = {value} -- {}", one_line(&v.doc)));
                    None
                }
            };
            if let Some(m) = member {
                p.push(m);
                p.push("");
                p.extend(indented(&v.doc, ""));
                p.push("");
            }
        }
        p.close(n, start);
        p.push(format!("runtime.FORM_TEST_CONSTANT_{k} = {k}#"));
        p.push("");
        p.push("A module constant after the enum.");
        p.push("");
    }
    p
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum HtmlEnumForm {
    /// `(value: int)`; members nested without a prename, `= <E.X: 1>`.
    Seed,
    /// The constructor one parameter a line; members `E.X = 1`.
    MultiLineQualified,
    /// No arguments; members `cuda.bindings.runtime.E.X = 1` as `dl.py data`.
    BareFullyQualified,
}

fn html_enum_page(form: HtmlEnumForm) -> Page {
    let mut body = Page::default();
    for (k, e) in seed().enums.iter().enumerate() {
        let start = body.open();
        let n = &e.name;
        let params = match form {
            HtmlEnumForm::Seed => one_param("value: int"),
            HtmlEnumForm::MultiLineQualified => {
                let items: Vec<String> = CONSTRUCTOR
                    .iter()
                    .map(|c| {
                        format!(
                            "<dd><em class=\"sig-param\"><span class=\"pre\">{c}</span></em>,</dd>"
                        )
                    })
                    .collect();
                format!(
                    "<span class=\"sig-paren\">(</span><dl>{}</dl><span class=\"sig-paren\">)</span>",
                    items.join("")
                )
            }
            HtmlEnumForm::BareFullyQualified => String::new(),
        };
        body.push("<dl class=\"py class\">");
        body.push(html_sig(n, &params));
        body.push("<dd>");
        body.extend(
            pre(&indented(&e.doc, ""))
                .split('\n')
                .map(str::to_string)
                .collect::<Vec<_>>(),
        );
        for v in &e.variants {
            let x = &v.name;
            let value = v.value.unwrap_or_default();
            let (kind, prename, shown) = match form {
                HtmlEnumForm::Seed => (
                    "attribute",
                    String::new(),
                    html_escape(&format!("<{n}.{x}: {value}>")),
                ),
                HtmlEnumForm::MultiLineQualified => {
                    ("attribute", format!("{n}."), value.to_string())
                }
                HtmlEnumForm::BareFullyQualified => {
                    ("data", format!("{PREFIX}{n}."), value.to_string())
                }
            };
            let pre_span = if prename.is_empty() {
                String::new()
            } else {
                format!("<span class=\"sig-prename descclassname\"><span class=\"pre\">{prename}</span></span>")
            };
            body.push(format!(
                "<dl class=\"py {kind}\"><dt class=\"sig sig-object py\">{pre_span}<span class=\"sig-name descname\"><span class=\"pre\">{x}</span></span><em class=\"property\"><span class=\"w\"> </span><span class=\"p\"><span class=\"pre\">=</span></span><span class=\"w\"> </span><span class=\"pre\">{shown}</span></em></dt><dd><p>{}</p></dd></dl>",
                html_escape(&one_line(&v.doc))
            ));
        }
        body.push("</dd></dl>");
        body.close(n, start);
        body.push(format!(
            "<dl class=\"py data\"><dt class=\"sig sig-object py\"><span class=\"sig-prename descclassname\"><span class=\"pre\">runtime.</span></span><span class=\"sig-name descname\"><span class=\"pre\">FORM_TEST_CONSTANT_{k}</span></span><em class=\"property\"><span class=\"w\"> </span><span class=\"p\"><span class=\"pre\">=</span></span><span class=\"w\"> </span><span class=\"pre\">{k}</span></em></dt><dd><p>A module constant after the enum.</p></dd></dl>"
        ));
    }
    let mut page = html_page(&body.lines);
    page.ranges = body
        .ranges
        .into_iter()
        .map(|(n, a, b)| (n, a + 5, b + 5))
        .collect();
    page
}

// ---------------------------------------------------------------------------------------------
// Checks

/// How a class came out of a page.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// As the seed reads it.
    Read,
    /// Otherwise, with a warning within the class's lines.
    Reported,
    /// Otherwise, and nothing said.
    Silent(String),
}

fn warned_within(api: &Api, from: u32, to: u32) -> bool {
    api.diagnostics
        .iter()
        .any(|d| d.severity <= Severity::Warning && d.line >= from && d.line < to)
}

fn struct_outcome(api: &Api, want: &Struct, from: u32, to: u32) -> Outcome {
    let same = api
        .structs
        .iter()
        .find(|s| s.name == want.name)
        .is_some_and(|s| {
            s.fields.len() == want.fields.len()
                && s.fields.iter().zip(&want.fields).all(|(a, b)| {
                    a.name == b.name
                        && match (&a.ty, &b.ty) {
                            (Some(x), Some(y)) => codegen::diff::same_type(x, y),
                            (x, y) => x == y,
                        }
                })
        });
    if same {
        Outcome::Read
    } else if warned_within(api, from, to) {
        Outcome::Reported
    } else {
        let got = api.structs.iter().find(|s| s.name == want.name);
        Outcome::Silent(format!(
            "{}: {:?}",
            want.name,
            got.map(|s| s.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>())
        ))
    }
}

fn enum_outcome(api: &Api, want: &Enum, from: u32, to: u32) -> Outcome {
    let members = |e: &Enum| -> Vec<(String, Option<i64>)> {
        let mut v: Vec<_> = e
            .variants
            .iter()
            .map(|v| (v.name.clone(), v.value))
            .collect();
        v.sort();
        v
    };
    let same = api
        .enums
        .iter()
        .find(|e| e.name == want.name)
        .is_some_and(|e| members(e) == members(want));
    if same {
        Outcome::Read
    } else if warned_within(api, from, to) {
        Outcome::Reported
    } else {
        let got = api.enums.iter().find(|e| e.name == want.name);
        Outcome::Silent(format!("{}: {:?}", want.name, got.map(members)))
    }
}

/// Outcomes of every struct of `page` once parsed into `api`.
fn struct_outcomes(api: &Api, page: &Page) -> Vec<Outcome> {
    seed()
        .structs
        .iter()
        .zip(&page.ranges)
        .map(|(s, (_, a, b))| struct_outcome(api, s, *a, *b))
        .collect()
}

fn enum_outcomes(api: &Api, page: &Page) -> Vec<Outcome> {
    seed()
        .enums
        .iter()
        .zip(&page.ranges)
        .map(|(e, (_, a, b))| enum_outcome(api, e, *a, *b))
        .collect()
}

fn all_read(what: &str, outcomes: &[Outcome]) {
    let not: Vec<&Outcome> = outcomes.iter().filter(|o| **o != Outcome::Read).collect();
    assert!(
        not.is_empty(),
        "{what}: {} not read: {:?}",
        not.len(),
        &not[..not.len().min(5)]
    );
}

/// Every class with fields or members is reported; none is silently changed.
fn all_reported(what: &str, outcomes: &[Outcome]) {
    let silent: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| matches!(o, Outcome::Silent(_)))
        .collect();
    assert!(silent.is_empty(), "{what}: silently changed: {silent:?}");
    assert!(
        outcomes.contains(&Outcome::Reported),
        "{what}: nothing reported"
    );
}

fn unread_total(api: &Api) -> u64 {
    api.diagnostics.iter().map(|d| u64::from(d.unread)).sum()
}

#[test]
fn the_seed_has_classes_to_rewrite() {
    let s = seed();
    assert_eq!(s.structs.len(), 68);
    assert_eq!(s.enums.len(), 83);
    assert!(s
        .structs
        .iter()
        .all(|s| s.fields.iter().all(|f| f.ty.is_some())));
}

#[test]
fn struct_forms_in_text_are_read() {
    for form in StructForm::READ {
        let page = text_struct_page(form);
        let api = sphinx_text::parse("forms.txt", &page.text());
        all_read(&format!("text {form:?}"), &struct_outcomes(&api, &page));
        assert_eq!(
            unread_total(&api),
            0,
            "text {form:?}: {:?}",
            api.diagnostics
        );
    }
}

#[test]
fn struct_forms_in_html_are_read() {
    let mut forms: Vec<HtmlStructForm> = StructForm::READ
        .iter()
        .map(|f| HtmlStructForm::Verbatim(*f))
        .collect();
    forms.extend([
        HtmlStructForm::Variables,
        HtmlStructForm::Classifiers,
        HtmlStructForm::Nested,
    ]);
    for form in forms {
        let page = html_struct_page(form);
        let api = html::parse("forms.html", &page.text());
        all_read(&format!("html {form:?}"), &struct_outcomes(&api, &page));
        assert_eq!(
            unread_total(&api),
            0,
            "html {form:?}: {:?}",
            api.diagnostics
        );
    }
}

#[test]
fn struct_forms_not_read_are_reported() {
    for form in StructForm::NOT_READ {
        let page = text_struct_page(form);
        let api = sphinx_text::parse("forms.txt", &page.text());
        all_reported(&format!("text {form:?}"), &struct_outcomes(&api, &page));
        let page = html_struct_page(HtmlStructForm::Verbatim(form));
        let api = html::parse("forms.html", &page.text());
        all_reported(&format!("html {form:?}"), &struct_outcomes(&api, &page));
    }
    let page = html_struct_page(HtmlStructForm::ProcessedBullets);
    let api = html::parse("forms.html", &page.text());
    all_reported("html processed bullets", &struct_outcomes(&api, &page));
}

/// The module constants after the enums stay constants.
fn constants_kept(what: &str, api: &Api) {
    let n = seed().enums.len();
    let kept = (0..n)
        .filter(|k| {
            api.constants
                .iter()
                .any(|c| c.name == format!("FORM_TEST_CONSTANT_{k}") && c.value == *k as i64)
        })
        .count();
    assert_eq!(kept, n, "{what}: constants after enums");
    assert!(
        api.enums
            .iter()
            .all(|e| e.variants.iter().all(|v| !v.name.starts_with("FORM_TEST_"))),
        "{what}: a constant taken for a member"
    );
}

/// The outcomes of the seed's enums that have members. A class with neither header arguments
/// nor members states nothing that makes it an enum: the seed's memberless enum is a plain
/// class in the forms without a header.
fn without_memberless(outcomes: Vec<Outcome>) -> Vec<Outcome> {
    seed()
        .enums
        .iter()
        .zip(outcomes)
        .filter(|(e, _)| !e.variants.is_empty())
        .map(|(_, o)| o)
        .collect()
}

#[test]
fn enum_forms_in_text_are_read() {
    for form in EnumForm::READ {
        let page = text_enum_page(form);
        let api = sphinx_text::parse("forms.txt", &page.text());
        let mut outcomes = enum_outcomes(&api, &page);
        if form == EnumForm::BareHeader {
            outcomes = without_memberless(outcomes);
        }
        all_read(&format!("text {form:?}"), &outcomes);
        constants_kept(&format!("text {form:?}"), &api);
        assert_eq!(unread_total(&api), 0, "text {form:?}");
    }
}

#[test]
fn enum_forms_in_html_are_read() {
    for form in [
        HtmlEnumForm::Seed,
        HtmlEnumForm::MultiLineQualified,
        HtmlEnumForm::BareFullyQualified,
    ] {
        let page = html_enum_page(form);
        let api = html::parse("forms.html", &page.text());
        let mut outcomes = enum_outcomes(&api, &page);
        if form == HtmlEnumForm::BareFullyQualified {
            outcomes = without_memberless(outcomes);
        }
        all_read(&format!("html {form:?}"), &outcomes);
        constants_kept(&format!("html {form:?}"), &api);
        assert_eq!(unread_total(&api), 0, "html {form:?}");
    }
}

#[test]
fn enum_forms_not_read_are_reported() {
    let page = text_enum_page(EnumForm::Bullets);
    let api = sphinx_text::parse("forms.txt", &page.text());
    let outcomes = enum_outcomes(&api, &page);
    all_reported("text bullets", &outcomes);
    // Every enum that has members in the seed is reported as having none here.
    let with_members = seed()
        .enums
        .iter()
        .filter(|e| !e.variants.is_empty())
        .count();
    let reported = api
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("has text but no members"))
        .count();
    assert!(reported >= with_members, "{reported} < {with_members}");
    constants_kept("text bullets", &api);
}
