//! Parser for autodoc reStructuredText sources (seeds `000_…` and `003_…`).
//!
//! Reads section headings (a title line with a `---`/`===`-style underline, optionally an
//! overline), the free text of each section as its documentation, and the directives
//! `autofunction`, `autoclass`, `autoenum`, `autosummary` and `c:function`. Autodoc
//! directives name items only, so they yield [`Detail::NamesOnly`] items with no parameters;
//! `c:function` blocks carry a C declaration whose parameters are read (all inputs).
//!
//! It does not run Sphinx or import modules: what autodoc would pull from docstrings is not
//! in the source and stays unknown. Directives that state no API (`module`, `toctree`, …) are
//! noted and skipped; any other directive's block, and text before the first heading, are
//! reported unread ([`super::unread`]). Directive options and RST comments configure the
//! page and are not API text. A heading with nothing under it but further headings (the page
//! title) is not a section.

use foldhash::HashMap;

use crate::diag::Diagnostics;
use crate::doctype::TypeRef;
use crate::ir::{
    Api, Detail, Direction, Entry, Enum, Function, Param, Section, Typedef, TypedefKind,
};
use crate::text::{paragraphs, split_after_last};

use super::unread::{self, Runs};

/// Directives that state no API (page structure, cross-reference settings): skipped with a
/// note. Any other directive this parser does not read is reported unread.
const NO_CONTENT: &[&str] = &[
    "module",
    "currentmodule",
    "toctree",
    "contents",
    "highlight",
    "index",
    "default-role",
    "default-domain",
    "py:module",
    "py:currentmodule",
];

/// Characters RST accepts for section adornments (the common ones).
const ADORNMENT: &[char] = &[
    '=', '-', '~', '^', '"', '\'', '`', '#', '*', '+', ':', '.', '_',
];

/// Parses autodoc reStructuredText. Never panics; problems become diagnostics.
pub fn parse(file: &str, text: &str) -> Api {
    // Docutils expands tabs to stops every 8 columns before reading (`..<TAB>autofunction::`
    // is a directive); so does this reader.
    let text = crate::text::expand_tabs(text);
    let lines: Vec<&str> = crate::text::lines(&text).collect();
    let mut p = Parser {
        lines: &lines,
        diags: Diagnostics::new(file),
        api: Api::default(),
        ..Parser::default()
    };
    p.run();
    p.finish()
}

#[derive(Default)]
struct Parser<'a> {
    lines: &'a [&'a str],
    diags: Diagnostics,
    api: Api,
    /// The heading currently open, with its doc paragraphs and whether anything followed it.
    open: Option<OpenSection>,
    /// Adornment styles (character, overlined) in order of first use: RST's section levels.
    styles: Vec<(char, bool)>,
    /// First line of every name seen, per kind, for duplicate reports.
    seen: HashMap<(&'static str, String), u32>,
    /// Text before the first heading: it belongs to no section and is unread.
    preamble: Runs,
}

struct OpenSection {
    name: String,
    level: usize,
    line: u32,
    doc: Vec<String>,
    has_items: bool,
}

impl<'a> Parser<'a> {
    fn run(&mut self) {
        let n = self.lines.len();
        let mut i = 0;
        while i < n {
            let line = self.lines[i];
            if let Some(next) = self.heading_at(i) {
                self.open_section(line.trim(), i, false);
                i = next;
                continue;
            }
            if let Some(d) = directive(line) {
                i = self.directive(i, d);
                continue;
            }
            if line.trim_start().starts_with("..") && !is_adornment(line) {
                // An RST comment or hyperlink target: not text of the section.
                i += 1;
                continue;
            }
            if is_adornment(line) {
                if let Some(next) = self.heading_at(i + 1) {
                    self.open_section(self.lines[i + 1].trim(), i + 1, true);
                    i = next;
                    continue;
                }
                self.diags.note(
                    lineno(i),
                    "adornment line without a title (a transition); ignored",
                );
                i += 1;
                continue;
            }
            self.section_text(i, line.trim());
            i += 1;
        }
        self.close_section(None);
    }

    fn finish(mut self) -> Api {
        let runs = std::mem::take(&mut self.preamble).into_runs();
        let first = self.diags.source(1);
        unread::report(
            &mut self.diags,
            &first,
            "text before the first heading",
            &runs,
        );
        let mut api = self.api;
        api.diagnostics = self.diags.into_vec();
        api
    }

    /// If line `i` starts a heading, the index of the first line after it.
    fn heading_at(&mut self, i: usize) -> Option<usize> {
        let title = *self.lines.get(i)?;
        let under = *self.lines.get(i + 1)?;
        if title.trim().is_empty() || title.starts_with(char::is_whitespace) || is_adornment(title)
        {
            return None;
        }
        if !is_adornment(under) {
            return None;
        }
        let tlen = title.trim_end().chars().count();
        let ulen = under.trim_end().chars().count();
        if ulen < tlen {
            self.diags.warning(
                lineno(i + 1),
                format!(
                    "title underline ({ulen}) shorter than the title ({tlen}); read as a heading"
                ),
            );
        }
        // An overline above must match the underline.
        if i > 0
            && is_adornment(self.lines[i - 1])
            && self.lines[i - 1].trim_end() != under.trim_end()
        {
            self.diags.warning(
                lineno(i - 1),
                "overline does not match the underline of its title",
            );
        }
        Some(i + 2)
    }

    /// Opens the heading at line index `i` (its underline is line `i + 1`).
    fn open_section(&mut self, name: &str, i: usize, overlined: bool) {
        let ch = self
            .lines
            .get(i + 1)
            .and_then(|u| u.chars().next())
            .unwrap_or('-');
        let style = (ch, overlined);
        let level = match self.styles.iter().position(|s| *s == style) {
            Some(l) => l,
            None => {
                self.styles.push(style);
                self.styles.len() - 1
            }
        };
        self.close_section(Some(level));
        let (name, cut) = crate::text::bounded_title(name);
        if let Some(message) = cut {
            self.diags.warning(lineno(i), message);
        }
        self.open = Some(OpenSection {
            name,
            level,
            line: lineno(i),
            doc: Vec::new(),
            has_items: false,
        });
    }

    /// Closes the open section. One with neither text nor items whose next heading is deeper
    /// is a container (the page title, a chapter) and is not a section of its own.
    fn close_section(&mut self, next_level: Option<usize>) {
        let Some(s) = self.open.take() else { return };
        let doc = paragraphs(s.doc.iter().map(String::as_str));
        if doc.is_empty() && !s.has_items && next_level.is_some_and(|l| l > s.level) {
            return;
        }
        if let Some(first) = self.first_seen("section", &s.name, s.line) {
            self.diags.warning(
                s.line,
                format!("duplicate section `{}` (first at line {first})", s.name),
            );
        }
        self.api.sections.push(Section {
            name: s.name,
            doc,
            source: self.diags.source(s.line),
            id: None,
        });
    }

    /// Adds line `i` (trimmed `t`) to the open section's text; with no section open, it is
    /// unread.
    fn section_text(&mut self, i: usize, t: &str) {
        match &mut self.open {
            Some(s) => {
                if !t.is_empty() || !s.doc.is_empty() {
                    s.doc.push(t.to_string());
                }
            }
            None => self.preamble.unread(lineno(i), t),
        }
    }

    fn section_name(&mut self) -> Option<String> {
        let s = self.open.as_mut()?;
        s.has_items = true;
        Some(s.name.clone())
    }

    /// Records `name` of `kind` first seen at `line`; returns the earlier line if a duplicate.
    fn first_seen(&mut self, kind: &'static str, name: &str, line: u32) -> Option<u32> {
        match self.seen.get(&(kind, name.to_string())) {
            Some(&first) => Some(first),
            None => {
                self.seen.insert((kind, name.to_string()), line);
                None
            }
        }
    }

    /// Handles the directive starting at line `i`; returns the first line after its block.
    fn directive(&mut self, i: usize, d: Directive<'a>) -> usize {
        let block = Block::read(self.lines, i, d.indent);
        let line = lineno(i);
        match d.name {
            "autofunction" | "autoclass" | "autoenum" | "autoexception" | "automethod" => {
                self.auto_item(d, &block, line)
            }
            "autosummary" => self.autosummary(&block),
            "c:function" => self.c_function(d, &block, line),
            other if NO_CONTENT.contains(&other) => {
                self.diags.note(
                    line,
                    format!("directive `{other}` states no API; its block is skipped"),
                );
            }
            other => {
                let mut runs = Runs::new();
                for k in i..block.end {
                    runs.unread(lineno(k), self.lines[k]);
                }
                let at = self.diags.source(line);
                unread::report(
                    &mut self.diags,
                    &at,
                    &format!("directive `{other}`"),
                    &runs.into_runs(),
                );
            }
        }
        block.end
    }

    fn auto_item(&mut self, d: Directive, block: &Block, line: u32) {
        let qualified = d.arg.split_whitespace().next().unwrap_or("");
        if qualified.is_empty() {
            self.diags
                .error(line, format!("`{}` without a name", d.name));
            return;
        }
        let name = short_name(qualified);
        let kind = match d.name {
            "autofunction" | "automethod" => "function",
            "autoenum" => "enum",
            _ => "class",
        };
        if let Some(first) = self.first_seen(kind, qualified, line) {
            self.diags.warning(
                line,
                format!(
                    "duplicate {kind} `{qualified}` (first at line {first}); the first is kept"
                ),
            );
            return;
        }
        let section = self.section_name();
        let source = self.diags.source(line);
        let doc = paragraphs(block.body.iter().map(String::as_str));
        match kind {
            "function" => self.api.functions.push(Function {
                name: name.to_string(),
                qualified_name: qualified.to_string(),
                section,
                params: None,
                rtype: None,
                errors: Vec::new(),
                doc,
                see_also: Vec::new(),
                detail: Detail::NamesOnly,
                source,
                sources: Vec::new(),
            }),
            "enum" => self.api.enums.push(Enum {
                name: name.to_string(),
                qualified_name: qualified.to_string(),
                section,
                doc,
                variants: Vec::new(),
                detail: Detail::NamesOnly,
                source,
                sources: Vec::new(),
            }),
            _ => self.api.typedefs.push(Typedef {
                name: name.to_string(),
                qualified_name: qualified.to_string(),
                section,
                kind: TypedefKind::Unknown,
                doc,
                fields: Vec::new(),
                detail: Detail::NamesOnly,
                source,
                sources: Vec::new(),
            }),
        }
    }

    fn autosummary(&mut self, block: &Block) {
        let section = self.section_name();
        for (k, l) in block.body.iter().enumerate() {
            let Some(name) = l.split_whitespace().next() else {
                continue;
            };
            let line = block.body_line.saturating_add(k as u32);
            if !name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '~'))
            {
                self.diags.warning(
                    line,
                    format!("autosummary entry `{name}` is not a dotted name; skipped"),
                );
                continue;
            }
            if let Some(first) = self.first_seen("entry", name, line) {
                self.diags.warning(line, format!("duplicate autosummary entry `{name}` (first at line {first}); the first is kept"));
                continue;
            }
            self.api.entries.push(Entry {
                name: name.to_string(),
                section: section.clone(),
                directive: "autosummary".to_string(),
                source: self.diags.source(line),
            });
        }
    }

    fn c_function(&mut self, d: Directive, block: &Block, line: u32) {
        let Some(decl) = CDecl::parse(d.arg) else {
            self.diags.error(
                line,
                format!("cannot read the C declaration `{}`", d.arg.trim()),
            );
            return;
        };
        if let Some(first) = self.first_seen("function", decl.name, line) {
            self.diags.warning(
                line,
                format!(
                    "duplicate function `{}` (first at line {first}); the first is kept",
                    decl.name
                ),
            );
            return;
        }
        let (decl_params, repeats) = super::first_of_each_name(decl.params, |p| p.0);
        for p in repeats {
            self.diags.warning(
                line,
                format!("`{}` repeats parameter `{p}`; keeping the first", decl.name),
            );
        }
        let mut params = Vec::with_capacity(decl_params.len());
        for (k, (pname, pty)) in decl_params.iter().enumerate() {
            if pname.is_empty() {
                self.diags.note(
                    line,
                    format!("parameter {} of `{}` has no name", k + 1, decl.name),
                );
            }
            params.push(Param {
                name: pname.to_string(),
                ty: Some(TypeRef::parse_noting_depth(pty, &mut self.diags, line)),
                direction: Direction::In,
                doc: String::new(),
            });
        }
        let section = self.section_name();
        self.api.functions.push(Function {
            name: decl.name.to_string(),
            qualified_name: decl.name.to_string(),
            section,
            params: Some(params),
            rtype: Some(TypeRef::parse_noting_depth(
                decl.rtype,
                &mut self.diags,
                line,
            )),
            errors: Vec::new(),
            doc: paragraphs(block.body.iter().map(String::as_str)),
            see_also: Vec::new(),
            detail: Detail::Full,
            source: self.diags.source(line),
            sources: Vec::new(),
        });
    }
}

fn lineno(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(u32::MAX)
}

/// The part of a dotted name after its last dot.
fn short_name(q: &str) -> &str {
    q.rsplit('.').next().unwrap_or(q).trim_start_matches('~')
}

/// A line made of one repeated adornment character, at least three long.
fn is_adornment(line: &str) -> bool {
    let t = line.trim_end();
    let mut chars = t.chars();
    match chars.next() {
        Some(c) if ADORNMENT.contains(&c) => t.len() >= 3 && chars.all(|x| x == c),
        _ => false,
    }
}

/// `.. name:: arg` at some indentation.
#[derive(Clone, Copy)]
struct Directive<'a> {
    name: &'a str,
    arg: &'a str,
    indent: usize,
}

fn directive(line: &str) -> Option<Directive<'_>> {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    // `..`, whitespace (any amount, as docutils reads it), the directive's name.
    let rest = trimmed.strip_prefix("..")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let end = rest.find("::")?;
    let name = &rest[..end];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_'))
    {
        return None;
    }
    Some(Directive {
        name,
        arg: rest[end + 2..].trim(),
        indent,
    })
}

/// The indented block under a directive: its options and its body.
struct Block {
    /// Body lines (options removed), leading blank lines dropped.
    body: Vec<String>,
    /// 1-based line of the first body line.
    body_line: u32,
    /// Index of the first line after the block.
    end: usize,
}

impl Block {
    fn read(lines: &[&str], start: usize, indent: usize) -> Block {
        let mut end = start + 1;
        let mut body = Vec::new();
        let mut body_line = lineno(end);
        let mut in_options = true;
        while end < lines.len() {
            let l = lines[end];
            let t = l.trim_start();
            if !t.is_empty() && l.len() - t.len() <= indent {
                break;
            }
            if in_options && t.starts_with(':') && t[1..].contains(':') {
                end += 1;
                continue;
            }
            if t.is_empty() && body.is_empty() {
                end += 1;
                continue;
            }
            if body.is_empty() {
                body_line = lineno(end);
            }
            in_options = false;
            body.push(t.trim_end().to_string());
            end += 1;
        }
        while body.last().is_some_and(|l| l.is_empty()) {
            body.pop();
        }
        Block {
            body,
            body_line,
            end,
        }
    }
}

/// A C function declaration: `rtype name(type name, …)`.
#[derive(Debug, PartialEq)]
struct CDecl<'a> {
    rtype: &'a str,
    name: &'a str,
    params: Vec<(&'a str, String)>,
}

impl<'a> CDecl<'a> {
    fn parse(decl: &'a str) -> Option<CDecl<'a>> {
        let decl = decl.trim().trim_end_matches(';').trim_end();
        let close = decl.rfind(')')?;
        let open = matching_open(decl, close)?;
        let head = decl[..open].trim_end();
        let (rtype, name) = split_after_last(head, |c| !(c.is_ascii_alphanumeric() || c == '_'));
        let rtype = rtype.trim();
        if name.is_empty() || rtype.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let inner = decl[open + 1..close].trim();
        let mut params = Vec::new();
        if !inner.is_empty() && inner != "void" {
            for p in crate::text::split_outside_brackets(inner, ',') {
                params.push(c_param(p.trim()));
            }
        }
        Some(CDecl {
            rtype,
            name,
            params,
        })
    }
}

fn matching_open(s: &str, close: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, c) in s[..=close].char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// One C parameter: its name (empty when unnamed) and its type text, pointer stars on the type.
fn c_param(p: &str) -> (&str, String) {
    let p = p.trim_end_matches("[]").trim();
    let (ty, name) = split_after_last(p, |c| !(c.is_ascii_alphanumeric() || c == '_'));
    let ty = ty.trim();
    // A lone word (`int`) or a keyword-only tail is a type with no name.
    if ty.is_empty() || ty == "const" || ty == "unsigned" || ty == "signed" || ty == "struct" {
        return ("", p.to_string());
    }
    (name, ty.replace(" *", "*"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_declarations() {
        let d =
            CDecl::parse("void* cupy_malloc(cupy_allocator_handle* handle, size_t size)").unwrap();
        assert_eq!(d.rtype, "void*");
        assert_eq!(d.name, "cupy_malloc");
        assert_eq!(
            d.params,
            vec![
                ("handle", "cupy_allocator_handle*".to_string()),
                ("size", "size_t".to_string())
            ]
        );
        let d = CDecl::parse("cupy_allocator_handle* get_cupy_allocator_handle()").unwrap();
        assert!(d.params.is_empty());
        let d = CDecl::parse("int f(const char *s, int)").unwrap();
        assert_eq!(
            d.params,
            vec![("s", "const char*".to_string()), ("", "int".to_string())]
        );
        assert!(CDecl::parse("not a declaration").is_none());
        assert!(CDecl::parse("f(int a)").is_none());
    }

    #[test]
    fn adornments() {
        assert!(is_adornment("-----"));
        assert!(is_adornment("===   "));
        assert!(!is_adornment("--"));
        assert!(!is_adornment("-=-"));
        assert!(!is_adornment("text"));
    }
}
