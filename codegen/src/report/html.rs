//! Renders a [`Report`] as one self-contained HTML page: inline CSS and JavaScript, no
//! external assets. Every table is sortable (click a column header; numbers sort
//! numerically) and one search box filters the rows of all detail tables.
//!
//! Stable hooks for tests and scripts: each table is `<table id="t-ID">`, each row
//! `<tr data-name="NAME">` (plus `data-severity` when set), each cell `<td data-col="KEY">`;
//! the search box is `<input id="search">`. All text is escaped.
//!
//! When the script has run, `<html>` carries `data-report-script="ready"`; a URL fragment
//! `#q=TEXT` fills the search box on load (so a link, or a headless browser test, can open
//! the page filtered).

use std::fmt::Write;

use super::{Report, Table};

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}\
table{border-collapse:collapse;margin:.5rem 0 1.5rem;font-size:.9rem}\
th,td{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top}\
th{background:#eee;cursor:pointer;user-select:none}\
th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:' \\25BC'}\
tr.sev-break td{background:#fdd}tr.sev-change td{background:#fff6dd}\
section.loud h2{color:#b00}#search{font-size:1rem;padding:.3rem;width:30rem;max-width:100%}\
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
var box=document.getElementById('search');
box.addEventListener('input',function(){var q=box.value.trim().toLowerCase();
document.querySelectorAll('table.filterable').forEach(function(table){var shown=0;
Array.prototype.forEach.call(table.tBodies[0]?table.tBodies[0].rows:[],function(tr){var ok=q===''||tr.textContent.toLowerCase().indexOf(q)>=0;tr.hidden=!ok;if(ok)shown++;});
var c=document.getElementById('c-'+table.id);if(c)c.textContent='('+shown+(q?' shown':'')+')';});});
var m=/^#q=(.*)$/.exec(location.hash);if(m){box.value=decodeURIComponent(m[1]);box.dispatchEvent(new Event('input'));}
document.documentElement.setAttribute('data-report-script','ready');
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
        "<p><input type=\"search\" id=\"search\" placeholder=\"Filter rows…\" aria-label=\"Filter rows of all tables\"></p>\n",
    );
    table(&mut out, &report.totals, false);
    for t in &report.tables {
        table(&mut out, t, true);
    }
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    out
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
        let _ = write!(out, "<tr data-name=\"{}\"", escape(&r.name));
        if let Some(s) = &r.severity {
            let _ = write!(out, " data-severity=\"{0}\" class=\"sev-{0}\"", escape(s));
        }
        out.push('>');
        for (i, c) in t.columns.iter().enumerate() {
            let cell = r.cells.get(i).map(String::as_str).unwrap_or("");
            let num = if !cell.is_empty() && cell.parse::<f64>().is_ok() {
                " class=\"num\""
            } else {
                ""
            };
            let _ = write!(
                out,
                "<td data-col=\"{}\"{num}>{}</td>",
                escape(&c.key),
                escape(cell)
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
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
