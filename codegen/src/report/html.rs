//! Renders a [`Report`] as one self-contained HTML page: inline CSS and JavaScript, no
//! external assets. Every table is sortable (click a column header; numbers sort
//! numerically); one search box and, when rows carry classes, one class selector filter the
//! rows of all detail tables; the table of contents leads to tables and rows by anchor.
//!
//! Stable hooks for tests and scripts: the contents are `<nav id="toc">`, each table is
//! `<table id="t-ID">` inside `<section id="s-ID">`, each row `<tr data-name="NAME">` (plus
//! `id` when it has an anchor and `data-severity` when it has a class), each cell
//! `<td data-col="KEY">`; the search box is `<input id="search">`, the class selector
//! `<select id="class-filter">`. All text is escaped; code is `<code>`, links `<a href>`.
//!
//! Tables wrap their cells (long C declarations and paths included) rather than widen the
//! page: at 1,280 px the page does not scroll sideways.
//!
//! When the script has run, `<html>` carries `data-report-script="ready"`, and the page's
//! width as laid out (`data-page-width`, the scroll width) beside the window's
//! (`data-view-width`), for tests of horizontal scrolling. A URL fragment
//! `#q=TEXT` fills the search box and `#class=NAME` the class selector on load (`#q=a&class=b`
//! both), so a link, or a headless browser test, can open the page filtered. A fragment
//! naming an element's `id` (from the contents or a link) shows it even if a filter hid it,
//! marks it `data-targeted="yes"` and scrolls to it.

use std::fmt::Write;

use super::{Cell, Inline, Report, Table, TocEntry};

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}\
table{border-collapse:collapse;margin:.5rem 0 1.5rem;font-size:.9rem;max-width:100%}\
th,td{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}\
dd,p,li{overflow-wrap:anywhere}\
th{background:#eee;cursor:pointer;user-select:none}\
th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}\
tr.sev-break td{background:#fdd}tr.sev-deprecated td{background:#f3e8ff}tr.sev-change td{background:#fff6dd}\
tr:target td,tr[data-targeted=yes] td{outline:2px solid #c60;background:#ffefc2}\
section.loud h2{color:#b00}#search{font-size:1rem;padding:.3rem;width:30rem;max-width:100%}\
code{font-family:ui-monospace,monospace;font-size:.85rem;white-space:pre-wrap;overflow-wrap:anywhere}\
nav#toc ul{margin:.2rem 0}nav#toc li{margin:.1rem 0}\
td.num,th.num{text-align:right}.count{color:#666;font-weight:normal}";

const SCRIPT: &str = r#"(function(){
function key(td){var t=td?td.textContent.trim():'';var n=Number(t);return t!==''&&!isNaN(n)?{n:n}:{s:t.toLowerCase()};}
function cmp(a,b){if(a.n!==undefined&&b.n!==undefined)return a.n-b.n;if(a.n!==undefined)return -1;if(b.n!==undefined)return 1;return a.s<b.s?-1:a.s>b.s?1:0;}
function sortBy(th){var table=th.closest('table');var body=table.tBodies[0];if(!body)return;
var col=Array.prototype.indexOf.call(th.parentNode.children,th);
var asc=th.getAttribute('aria-sort')!=='ascending';
Array.prototype.forEach.call(th.parentNode.children,function(h){h.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',asc?'ascending':'descending');
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var r=cmp(key(a.cells[col]),key(b.cells[col]));return asc?r:-r;});
rows.forEach(function(r){body.appendChild(r);});}
document.querySelectorAll('table.sortable th').forEach(function(th){th.addEventListener('click',function(){sortBy(th);});});
var box=document.getElementById('search');var sel=document.getElementById('class-filter');
function apply(){var q=box.value.trim().toLowerCase();var c=sel?sel.value:'';
document.querySelectorAll('table.filterable').forEach(function(table){var shown=0;
Array.prototype.forEach.call(table.tBodies[0]?table.tBodies[0].rows:[],function(tr){var ok=(q===''||tr.textContent.toLowerCase().indexOf(q)>=0)&&(c===''||tr.getAttribute('data-severity')===c);tr.hidden=!ok;if(ok)shown++;});
var n=document.getElementById('c-'+table.id);if(n)n.textContent='('+shown+(q||c?' shown':'')+')';});}
box.addEventListener('input',apply);if(sel)sel.addEventListener('change',apply);
function target(){var h=decodeURIComponent(location.hash.slice(1));if(!h||/^(q|class)=/.test(h))return;
var el=document.getElementById(h);if(!el)return;
document.querySelectorAll('[data-targeted]').forEach(function(e){e.removeAttribute('data-targeted');});
if(el.hidden){box.value='';if(sel)sel.value='';apply();}
el.setAttribute('data-targeted','yes');if(el.scrollIntoView)el.scrollIntoView();}
var h=location.hash.slice(1);
if(/^(q|class)=/.test(h)){h.split('&').forEach(function(p){var i=p.indexOf('=');var k=p.slice(0,i),v=decodeURIComponent(p.slice(i+1));
if(k==='q')box.value=v;if(k==='class'&&sel)sel.value=v;});apply();}
else target();
window.addEventListener('hashchange',target);
var de=document.documentElement;de.setAttribute('data-page-width',String(de.scrollWidth));de.setAttribute('data-view-width',String(de.clientWidth));
de.setAttribute('data-report-script','ready');
})();"#;

/// Renders `report` as a self-contained HTML page.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(&report.title),
        escape(&report.title)
    );
    if !report.meta.is_empty() {
        out.push_str("<dl class=\"meta\">\n");
        for m in &report.meta {
            let _ = writeln!(
                out,
                "<dt>{}</dt><dd>{}</dd>",
                escape(&m.label),
                escape(&m.value)
            );
        }
        out.push_str("</dl>\n");
    }
    out.push_str(
        "<p><input type=\"search\" id=\"search\" placeholder=\"Filter rows…\" aria-label=\"Filter rows of all tables\">",
    );
    let mut classes: Vec<&str> = Vec::new();
    for r in report.tables.iter().flat_map(|t| &t.rows) {
        if let Some(s) = r.severity.as_deref() {
            if !classes.contains(&s) {
                classes.push(s);
            }
        }
    }
    if !classes.is_empty() {
        out.push_str(
            " <select id=\"class-filter\" aria-label=\"Show rows of one class\"><option value=\"\">every class</option>",
        );
        for c in &classes {
            let _ = write!(out, "<option value=\"{0}\">{0}</option>", escape(c));
        }
        out.push_str("</select>");
    }
    out.push_str("</p>\n");
    table(&mut out, &report.totals, false);
    if !report.contents.is_empty() {
        out.push_str("<nav id=\"toc\" aria-label=\"Contents\">\n<h2>Contents</h2>\n<ul>\n");
        for e in &report.contents {
            toc(&mut out, e);
        }
        out.push_str("</ul>\n</nav>\n");
    }
    for t in &report.tables {
        table(&mut out, t, true);
    }
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

fn toc(out: &mut String, e: &TocEntry) {
    let label = if e.code {
        format!("<code>{}</code>", escape(&e.label))
    } else {
        escape(&e.label)
    };
    let _ = write!(out, "<li><a href=\"#{}\">{label}</a>", escape(&e.target));
    if let Some(n) = e.count {
        let _ = write!(out, " <span class=\"count\">({n})</span>");
    }
    if !e.children.is_empty() {
        out.push_str("<ul>\n");
        for c in &e.children {
            toc(out, c);
        }
        out.push_str("</ul>");
    }
    out.push_str("</li>\n");
}

fn table(out: &mut String, t: &Table, filterable: bool) {
    let id = escape(&t.id);
    let loud = if t.loud && !t.rows.is_empty() {
        " class=\"loud\""
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "<section id=\"s-{id}\"{loud}>\n<h2>{} <span class=\"count\" id=\"c-t-{id}\">({})</span></h2>",
        escape(&t.title),
        t.rows.len()
    );
    if let Some(d) = &t.description {
        let _ = writeln!(out, "<p>{}</p>", escape(d));
    }
    let class = if filterable {
        "report sortable filterable"
    } else {
        "report sortable"
    };
    let _ = write!(out, "<table id=\"t-{id}\" class=\"{class}\">\n<thead><tr>");
    for c in &t.columns {
        let _ = write!(
            out,
            "<th scope=\"col\" data-col=\"{}\">{}</th>",
            escape(&c.key),
            escape(&c.label)
        );
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for r in &t.rows {
        out.push_str("<tr");
        if let Some(a) = &r.anchor {
            let _ = write!(out, " id=\"{}\"", escape(a));
        }
        let _ = write!(out, " data-name=\"{}\"", escape(&r.name));
        if let Some(s) = &r.severity {
            let _ = write!(out, " data-severity=\"{0}\" class=\"sev-{0}\"", escape(s));
        }
        out.push('>');
        let empty = Cell::default();
        for (i, c) in t.columns.iter().enumerate() {
            let cell = r.cells.get(i).unwrap_or(&empty);
            let plain = cell.plain();
            let num = if !plain.is_empty() && plain.parse::<f64>().is_ok() {
                " class=\"num\""
            } else {
                ""
            };
            let _ = write!(
                out,
                "<td data-col=\"{}\"{num}>{}</td>",
                escape(&c.key),
                html_cell(cell)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
}

/// A cell's HTML: text escaped, code in `<code>`, links as `<a href>`.
fn html_cell(c: &Cell) -> String {
    let mut out = String::new();
    for p in &c.parts {
        match p {
            Inline::Text(t) => out.push_str(&escape(t)),
            Inline::Code(t) => {
                let _ = write!(out, "<code>{}</code>", escape(t));
            }
            Inline::Link { text, href, code } => {
                let text = if *code {
                    format!("<code>{}</code>", escape(text))
                } else {
                    escape(text)
                };
                let _ = write!(out, "<a href=\"{}\">{text}</a>", escape(href));
            }
        }
    }
    out
}

/// Escapes text for HTML element content and double- or single-quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}
