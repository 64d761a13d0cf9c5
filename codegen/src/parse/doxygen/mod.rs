//! Front end for C headers documented with Doxygen comments (format `doxygen-header`): the
//! source of NVIDIA's published CUDA Runtime API reference, read into the same IR as the pages.
//!
//! The header is read in three layers: [`scan`] cuts it into code, preprocessor lines and
//! Doxygen comments; [`decl`] reads each C statement (function prototypes, enums, structs,
//! unions, typedefs, `#define` constants); [`markup`] turns each comment into its parts, with
//! the note aliases the header does not define taken from [`aliases`]. This module joins them:
//! a comment documents the next declaration (preprocessor lines between them are skipped, so a
//! comment before `#if … <decl> #else <decl> #endif` documents the first), member comments
//! (`/** … */` before, `/**< … */` after) document enum members, fields and macros; groups
//! (`\defgroup`/`\addtogroup` … `@{` … `@}`) become sections, with the group name kept as the
//! section's `id`, and a group this header does not title is named by its id (the merge gives
//! it the title another header states).
//!
//! No silent loss: every comment line is read into an item or reported — a comment that
//! documents nothing, one before a declaration this reader does not understand, a duplicate,
//! unknown commands (see [`markup`]). Nothing here names a CUDA item; the C annotation macros
//! are recognised by shape (`__x__`, ALL-CAPS calling conventions).

mod aliases;
mod decl;
mod markup;
mod scan;

pub use aliases::{Alias, AliasKind, Aliases};

use foldhash::HashMap;

use crate::diag::Diagnostics;
use crate::doctype::TypeRef;
use crate::ir::{
    Alias as IrAlias, Api, Constant, Detail, Direction, Enum, Field, Function, Param, Section,
    Struct, Typedef, TypedefKind, Variant,
};

use decl::{CParam, Decl, FieldDecl};
use markup::DocBlock;
use scan::{DocComment, Event};

/// Parses one header.
pub fn parse(file: &str, text: &str) -> Api {
    let mut diags = Diagnostics::new(file);
    let empty = Aliases::default();
    let aliases = match aliases::committed() {
        Ok(a) => a,
        Err(e) => {
            diags.error(
                1,
                format!("the alias table docs-src/nvidia-doxygen-aliases.toml does not read: {e}; aliases are reported as unknown"),
            );
            &empty
        }
    };
    let scanned = scan::scan(text, &mut diags);
    let mut r = Reader {
        diags,
        aliases,
        docs: &scanned.docs,
        api: Api::default(),
        groups: Vec::new(),
        titles: HashMap::default(),
        sections: HashMap::default(),
        pending: None,
        stmt: String::new(),
        stmt_code: false,
        stmt_line: 0,
        depth: 0,
        braces: 0,
        in_cond: None,
        seen: HashMap::default(),
        values: HashMap::default(),
        last_define: None,
    };
    for ev in &scanned.events {
        r.event(ev);
    }
    r.finish();
    let mut api = r.api;
    api.diagnostics = r.diags.into_vec();
    api
}

/// A comment waiting for the declaration it documents.
struct Pending {
    block: DocBlock,
    line: u32,
    /// Non-blank lines of the comment (for a report if it documents nothing).
    lines: usize,
    /// `\ingroup`: the section it names.
    group: Option<String>,
}

/// A `#define` just read, for a trailing comment after it.
struct Define {
    name: String,
    value: String,
    line: u32,
}

struct Reader<'a> {
    diags: Diagnostics,
    aliases: &'a Aliases,
    docs: &'a [DocComment],
    api: Api,
    /// Open groups (`@{`), innermost last; `None` for an `@{` without a group.
    groups: Vec<Option<String>>,
    /// Group id → title.
    titles: HashMap<String, String>,
    /// Group id → index in `api.sections`.
    sections: HashMap<String, usize>,
    pending: Option<Pending>,
    /// The statement being read: code with comment (`\u{1}`/`\u{3}`) and line (`\u{2}`) marks.
    stmt: String,
    stmt_line: u32,
    /// Whether the statement holds code yet (not only line marks).
    stmt_code: bool,
    depth: usize,
    /// How many of the `depth` open brackets are braces.
    braces: usize,
    /// Inside a `\cond` section since this line.
    in_cond: Option<u32>,
    /// (kind, name) → line of the item, for duplicates.
    seen: HashMap<(&'static str, String), u32>,
    /// Values of constants and enum members read so far (for expressions naming them).
    values: HashMap<String, i64>,
    last_define: Option<Define>,
}

/// Longest statement kept, in bytes (the longest in NVIDIA's headers is about 8 KB): a longer
/// one (an unclosed brace in damaged input, a line of a million commas) is dropped with a
/// warning so memory stays linear and work bounded.
const MAX_STATEMENT: usize = 256 << 10;

impl Reader<'_> {
    fn event(&mut self, ev: &Event) {
        match ev {
            Event::Doc(i) => self.comment(*i),
            Event::Directive { line, text } => self.directive(*line, text),
            Event::Code { line, text } => {
                if self.in_cond.is_none() {
                    self.code(*line, text);
                }
            }
        }
    }

    fn report(&mut self, block: &DocBlock) {
        for p in &block.problems {
            let src = self.diags.source(p.line);
            self.diags.at(p.severity, &src, p.message.clone());
        }
    }

    fn comment_lines(&self, i: usize) -> usize {
        self.docs[i]
            .lines
            .iter()
            .filter(|(_, l)| !l.trim().is_empty())
            .count()
    }

    fn comment(&mut self, i: usize) {
        let docs = self.docs;
        let c = &docs[i];
        if self.in_cond.is_some() {
            let block = markup::parse(c, self.aliases, true);
            if block.cond_close || !block.cond_open {
                self.in_cond = None;
            }
            if !block.has_content() {
                return;
            }
            self.leading(block, c.line, self.comment_lines(i));
            return;
        }
        if self.stmt_code {
            let mark = if c.trailing { '\u{3}' } else { '\u{1}' };
            self.stmt.push_str(&format!(" {mark}{i}{mark} "));
            return;
        }
        if c.trailing {
            match self.last_define.take() {
                Some(d) if c.in_directive && d.line <= c.line => {
                    let block = markup::parse(c, self.aliases, false);
                    self.report(&block);
                    self.define(&d, Some(&block), c.line);
                }
                _ => {
                    let n = self.comment_lines(i);
                    self.diags.warning(
                        c.line,
                        format!("a trailing documentation comment (`/**<`) with nothing before it to document: {n} line(s) not read"),
                    );
                }
            }
            return;
        }
        if c.in_directive {
            let n = self.comment_lines(i);
            self.diags.note(
                c.line,
                format!("a documentation comment inside a preprocessor line documents nothing: {n} line(s) not read"),
            );
            return;
        }
        let block = markup::parse(c, self.aliases, false);
        self.leading(block, c.line, self.comment_lines(i));
    }

    /// A comment before a declaration, or a group or page comment.
    fn leading(&mut self, block: DocBlock, line: u32, lines: usize) {
        self.report(&block);
        if block.cond_open {
            self.in_cond = Some(line);
        }
        let g = block.groups.clone();
        let grouping = g.define.is_some() || g.add.is_some();
        if let Some((id, title)) = &g.define {
            self.titles.insert(id.clone(), title.clone());
            self.section(id, Some(title), &block, line);
        }
        if let Some((id, title)) = &g.add {
            if let Some(t) = title {
                self.titles.entry(id.clone()).or_insert_with(|| t.clone());
            }
            self.section(id, title.as_ref(), &block, line);
        }
        let group_id = g
            .define
            .as_ref()
            .map(|d| d.0.clone())
            .or(g.add.map(|a| a.0));
        for _ in 0..g.opens {
            self.groups.push(group_id.clone());
        }
        for _ in 0..g.closes {
            if self.groups.pop().is_none() {
                self.diags.note(
                    line,
                    "`@}` closes no open group (the header has more `@}` than `@{`): ignored",
                );
            }
        }
        if grouping {
            // A group comment that also lists parameters or status codes documents the
            // declaration after it as well (its `\param` and `\return` would otherwise be
            // lost with it).
            if block.params.is_empty() && block.errors.is_empty() {
                return;
            }
            self.diags.note(
                line,
                "a comment that opens or adds to a group also has `\\param`/`\\return`: read as the documentation of the declaration after it too",
            );
            if let Some(old) = self.pending.take() {
                self.orphan(&old, "another documentation comment follows it");
            }
            self.pending = Some(Pending {
                group: g.ingroup.first().cloned().or(group_id),
                block,
                line,
                lines,
            });
            return;
        }
        if let Some(title) = &block.page {
            self.diags.note(
                line,
                format!("page `{title}`: a page of prose, not an API item; its text is not read into the IR"),
            );
            return;
        }
        if !block.has_content() {
            return;
        }
        if let Some(old) = self.pending.take() {
            self.orphan(&old, "another documentation comment follows it");
        }
        self.pending = Some(Pending {
            group: g.ingroup.first().cloned(),
            block,
            line,
            lines,
        });
    }

    fn orphan(&mut self, p: &Pending, why: &str) {
        let text: String = p.block.doc_text().chars().take(60).collect();
        self.diags.warning(
            p.line,
            format!(
                "documentation comment documents no declaration ({why}); {} line(s) not read: \"{}…\"",
                p.lines,
                text.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
        );
    }

    /// Creates or completes the section of group `id`.
    fn section(&mut self, id: &str, title: Option<&String>, block: &DocBlock, line: u32) {
        let name = title
            .cloned()
            .or_else(|| self.titles.get(id).cloned())
            .unwrap_or_else(|| id.to_string());
        let doc = block.doc_text();
        match self.sections.get(id) {
            Some(&i) => {
                let s = &mut self.api.sections[i];
                if s.name == id && name != id {
                    s.name = name;
                }
                if !doc.is_empty() {
                    if !s.doc.is_empty() {
                        s.doc.push_str("\n\n");
                    }
                    s.doc.push_str(&doc);
                }
            }
            None => {
                self.sections
                    .insert(id.to_string(), self.api.sections.len());
                self.api.sections.push(Section {
                    name,
                    doc,
                    source: self.diags.source(line),
                    id: Some(id.to_string()),
                });
            }
        }
    }

    /// The section an item at this point belongs to.
    fn current_section(&self, group: Option<&String>) -> Option<String> {
        let id = group.or_else(|| self.groups.iter().rev().find_map(|g| g.as_ref()))?;
        Some(self.titles.get(id).cloned().unwrap_or_else(|| id.clone()))
    }

    fn directive(&mut self, line: u32, text: &str) {
        if self.in_cond.is_some() || self.stmt_code {
            return;
        }
        self.last_define = None;
        let Some(rest) = text
            .strip_prefix('#')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("define"))
        else {
            return;
        };
        if !rest.starts_with([' ', '\t']) {
            return;
        }
        let rest = rest.trim();
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() {
            return;
        }
        let after = &rest[name_end..];
        let d = Define {
            name: name.to_string(),
            // A function-like macro keeps its parameters in the value, so it is not read as
            // a constant.
            value: after.to_string(),
            line,
        };
        // `#define GUARD` (no value) marks an include guard; a comment before it documents
        // what follows.
        if d.value.trim().is_empty() {
            return;
        }
        match self.pending.take() {
            Some(p) => {
                let block = p.block;
                self.define(&d, Some(&block), p.line);
            }
            None => self.last_define = Some(d),
        }
    }

    /// A documented `#define`: an integer constant, or a warning.
    fn define(&mut self, d: &Define, block: Option<&DocBlock>, doc_line: u32) {
        let toks: Vec<decl::Tok> = decl::tokens(&d.value.replace(['\u{1}', '\u{2}', '\u{3}'], " "))
            .into_iter()
            .map(|t| t.tok)
            .collect();
        let values = &self.values;
        // `#define F(a) …` (a parenthesis right after the name) is a function-like macro.
        let value = if d.value.starts_with('(') {
            None
        } else {
            decl::eval(&toks, &|n| values.get(n).copied())
        };
        let doc = block.map(|b| self.item_doc(b)).unwrap_or_default();
        let Some(value) = value else {
            self.diags.warning(
                doc_line,
                format!(
                    "documented macro `{}` ({}) is not an integer constant: not read",
                    d.name,
                    d.value.trim()
                ),
            );
            return;
        };
        if !self.first("constant", &d.name, doc_line) {
            return;
        }
        self.values.insert(d.name.clone(), value);
        let section = self.current_section(None);
        self.api.constants.push(Constant {
            name: d.name.clone(),
            qualified_name: d.name.clone(),
            section,
            value,
            doc,
            source: self.diags.source(doc_line.min(d.line).max(1)),
            sources: Vec::new(),
        });
    }

    /// Whether `name` of `kind` is new; a second documented one is a warning.
    fn first(&mut self, kind: &'static str, name: &str, line: u32) -> bool {
        match self.seen.get(&(kind, name.to_string())) {
            Some(&first) => {
                self.diags.warning(
                    line,
                    format!("{kind} `{name}` is documented again (first at line {first}); the first is kept"),
                );
                false
            }
            None => {
                self.seen.insert((kind, name.to_string()), line);
                true
            }
        }
    }

    fn code(&mut self, line: u32, text: &str) {
        if !self.stmt_code {
            self.stmt.clear();
            self.stmt_line = line;
        }
        self.last_define = None;
        self.stmt.push_str(&format!("\u{2}{line}\u{2}"));
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        for ch in text.chars() {
            let ch = if matches!(ch, '\u{1}' | '\u{2}' | '\u{3}') {
                ' '
            } else {
                ch
            };
            if let Some(q) = quote {
                self.stmt.push(ch);
                if ch == q && prev != '\\' {
                    quote = None;
                }
                prev = if prev == '\\' && ch == '\\' { ' ' } else { ch };
                continue;
            }
            prev = ch;
            match ch {
                '"' | '\'' => {
                    quote = Some(ch);
                    self.stmt_code = true;
                    self.stmt.push(ch);
                }
                '{' | '(' | '[' => {
                    if ch == '{'
                        && self.depth == 0
                        && self.stmt.len() < 256
                        && is_linkage(&self.stmt)
                    {
                        // `extern "C" {`: the declarations inside are read one by one.
                        self.stmt.clear();
                        self.stmt_code = false;
                        continue;
                    }
                    self.depth += 1;
                    if ch == '{' {
                        self.braces += 1;
                    }
                    self.stmt_code = true;
                    self.stmt.push(ch);
                }
                '}' | ')' | ']' => {
                    if self.depth == 0 {
                        // The `}` closing `extern "C" {`, or a stray bracket.
                        if ch != '}' {
                            self.stmt_code = true;
                            self.stmt.push(ch);
                        }
                        continue;
                    }
                    self.depth -= 1;
                    if ch == '}' {
                        self.braces = self.braces.saturating_sub(1);
                    }
                    self.stmt.push(ch);
                    if ch == '}' && self.depth == 0 && is_function_body(&self.stmt) {
                        self.end_statement();
                    }
                }
                ';' if self.depth == 0 => self.end_statement(),
                ';' if self.braces == 0 => {
                    // A `;` inside `(` or `[` ends no C declaration: a bracket before it was
                    // left open (`f(int a;`). Reading on would make one statement of the
                    // rest of the header; the declaration ends here instead.
                    self.diags.warning(
                        self.stmt_line,
                        "a `(` or `[` is not closed before the `;` that ends this declaration: read as closed there",
                    );
                    self.end_statement();
                }
                _ => {
                    if !ch.is_whitespace() {
                        self.stmt_code = true;
                    }
                    self.stmt.push(ch);
                }
            }
        }
        if self.stmt.len() > MAX_STATEMENT {
            self.diags.warning(
                self.stmt_line,
                format!(
                    "a statement longer than {MAX_STATEMENT} bytes (an unclosed bracket?): dropped"
                ),
            );
            self.stmt.clear();
            self.stmt_code = false;
            self.depth = 0;
            self.braces = 0;
        }
    }

    fn end_statement(&mut self) {
        let text = std::mem::take(&mut self.stmt);
        self.stmt_code = false;
        self.depth = 0;
        self.braces = 0;
        let toks = decl::tokens(&text);
        if toks.iter().all(|t| matches!(t.tok, decl::Tok::Doc(..))) {
            // Only comments (a `;` alone): give them back as documents of nothing.
            for t in &toks {
                if let decl::Tok::Doc(i, _) = t.tok {
                    let n = self.comment_lines(i);
                    self.diags.warning(
                        self.docs[i].line,
                        format!("a documentation comment documents nothing: {n} line(s) not read"),
                    );
                }
            }
            return;
        }
        // A word with a character no C name has (`ѕtruct` with a Cyrillic `ѕ`): what it
        // declares cannot be trusted; said once per statement.
        let odd = toks.iter().find_map(|t| match &t.tok {
            decl::Tok::Ident(w) if !w.is_ascii() => Some((w, t.line)),
            _ => None,
        });
        if let Some((word, line)) = odd {
            let problem = crate::text::identifier_problem(word).unwrap_or_default();
            self.diags.error(
                if line > 0 { line } else { self.stmt_line },
                format!(
                    "`{}` in a declaration: {problem}; the declaration is not C this reader can trust (fix the header)",
                    word.escape_debug()
                ),
            );
        }
        let mut stray = Vec::new();
        let d = decl::parse(&toks, &mut stray);
        let pending = self.pending.take();
        self.declaration(d, pending, &stray);
    }

    /// The documentation of a member or field from its comments.
    fn member_doc(&mut self, docs: &[usize]) -> String {
        let mut parts = Vec::new();
        for &i in docs {
            let block = markup::parse(&self.docs[i], self.aliases, false);
            self.report(&block);
            let t = self.item_doc(&block);
            if !t.is_empty() {
                parts.push(t);
            }
        }
        parts.join("\n\n")
    }

    /// A comment's text for an item that has no parameters or status codes of its own: those
    /// parts, when present, are kept as RST fields.
    fn item_doc(&self, b: &DocBlock) -> String {
        let mut text = b.doc_text();
        for p in &b.params {
            text.push_str(&format!("\n\n:param {}: {}", p.name, flat(&p.text)));
        }
        if !b.errors.is_empty() {
            let codes: Vec<String> = b
                .errors
                .iter()
                .map(|e| format!(":py:obj:`~.{e}`"))
                .collect();
            text.push_str(&format!("\n\n:returns: {}", codes.join(", ")));
        }
        if !b.see_also.is_empty() {
            text.push_str(&format!("\n\n.. seealso:: {}", b.see_also.join(", ")));
        }
        text.trim().to_string()
    }

    /// Adds what declaration `d` declares, documented by the comment before it (`pending`) and
    /// the member comments inside it that belong to no member (`stray`).
    fn declaration(&mut self, d: Decl, pending: Option<Pending>, stray: &[usize]) {
        let line = pending.as_ref().map_or(self.stmt_line, |p| p.line);
        let section = self.current_section(pending.as_ref().and_then(|p| p.group.as_ref()));
        let stray_doc = self.member_doc(stray);
        let fn_pointer = matches!(d, Decl::FnPointer { .. });
        match d {
            Decl::Function { name, ret, params } => {
                let Some(p) = pending else {
                    self.unattached(stray, &stray_doc);
                    return;
                };
                self.function(name, ret, params, p.block, line, section, &stray_doc);
            }
            Decl::Enum {
                tag,
                typedef,
                members,
            } => {
                // `typedef enum X_enum {…} X;`: C code names the type `X`; the tag becomes
                // an alias of it.
                let Some(name) = typedef.clone().or(tag.clone()) else {
                    self.anonymous(pending, line, "enum");
                    return;
                };
                let doc = self.doc_of(pending, &stray_doc);
                self.enum_decl(name, tag, &members, doc, line, section);
            }
            Decl::Record {
                kind,
                tag,
                typedef,
                fields,
            } => {
                let Some(name) = tag.clone().or(typedef.clone()) else {
                    self.anonymous(pending, line, kind.word());
                    return;
                };
                let doc = self.doc_of(pending, &stray_doc);
                self.record_decl(name, tag, typedef, &fields, doc, line, section);
            }
            Decl::Typedef { name, ty } if ty.starts_with("enum ") => {
                // `typedef enum X Y;`: another name of an enum.
                let doc = self.doc_of(pending, &stray_doc);
                let target = ty["enum ".len()..].trim().to_string();
                self.enum_alias(&name, &target, section, line, doc);
            }
            Decl::Typedef { name, .. } | Decl::FnPointer { name, .. } => {
                let Some(p) = pending else {
                    self.unattached(stray, &stray_doc);
                    return;
                };
                let kind = if fn_pointer {
                    TypedefKind::Opaque
                } else {
                    TypedefKind::Class
                };
                let mut doc = self.item_doc(&p.block);
                append(&mut doc, &stray_doc);
                self.typedef_decl(name, kind, doc, line, section);
            }
            Decl::Other(text) => {
                if let Some(p) = pending {
                    let shown: String = text.chars().take(80).collect();
                    self.orphan(
                        &p,
                        &format!("the declaration after it is not one this reader understands: `{shown}`"),
                    );
                }
                self.unattached(stray, &stray_doc);
            }
        }
    }

    /// The documentation of an item: its comment (`pending`), then `stray_doc`.
    fn doc_of(&self, pending: Option<Pending>, stray_doc: &str) -> String {
        let mut doc = pending.map(|p| self.item_doc(&p.block)).unwrap_or_default();
        append(&mut doc, stray_doc);
        doc
    }

    /// Enum `name` (tag `tag`) with `members`, documented by `doc`, when it or a member is
    /// documented; the tag, when it differs, as an alias of it.
    fn enum_decl(
        &mut self,
        name: String,
        tag: Option<String>,
        members: &[decl::Member],
        doc: String,
        line: u32,
        section: Option<String>,
    ) {
        let variants = self.variants(&name, members);
        if doc.is_empty() && variants.iter().all(|v| v.doc.is_empty()) {
            return;
        }
        if !self.first("enum", &name, line) {
            return;
        }
        if let Some(t) = tag.filter(|t| *t != name) {
            self.enum_alias(&t, &name, section.clone(), line, String::new());
        }
        self.api.enums.push(Enum {
            name: name.clone(),
            qualified_name: name,
            section,
            doc,
            variants,
            detail: Detail::Full,
            source: self.diags.source(line),
            sources: Vec::new(),
        });
    }

    /// The variants of enum `name`: each member's value (as written, or one more than the
    /// previous one's), remembered for the values that name it; a warning for a value this
    /// reader cannot compute.
    fn variants(&mut self, name: &str, members: &[decl::Member]) -> Vec<Variant> {
        let mut variants = Vec::new();
        let mut next = Some(0i64);
        for m in members {
            let value = match &m.value {
                Some(expr) => {
                    let values = &self.values;
                    let v = decl::eval(expr, &|n| values.get(n).copied());
                    if v.is_none() {
                        self.diags.warning(
                            m.line,
                            format!("enum {name}: the value of `{}` is not an integer this reader can compute", m.name),
                        );
                    }
                    v
                }
                None => next,
            };
            if let Some(v) = value {
                self.values.insert(m.name.clone(), v);
            }
            next = value.and_then(|v| v.checked_add(1));
            let vdoc = self.member_doc(&m.docs);
            variants.push(Variant {
                name: m.name.clone(),
                value,
                doc: vdoc,
                source: self.diags.source(m.line),
            });
        }
        variants
    }

    /// Struct or union `name` (tag `tag`, typedef name `typedef`) with `fields`, documented by
    /// `doc`, when it or a field is documented; the typedef name, when it differs from the
    /// tag, as a typedef of it.
    #[allow(clippy::too_many_arguments)]
    fn record_decl(
        &mut self,
        name: String,
        tag: Option<String>,
        typedef: Option<String>,
        fields: &[FieldDecl],
        doc: String,
        line: u32,
        section: Option<String>,
    ) {
        let fields: Vec<Field> = fields.iter().filter_map(|f| self.field(f)).collect();
        if doc.is_empty() && fields.iter().all(|f| f.doc.is_empty()) {
            return;
        }
        if !self.first("struct", &name, line) {
            return;
        }
        if let (Some(t), Some(alias)) = (&tag, &typedef) {
            if t != alias && self.first("typedef", alias, line) {
                self.api.typedefs.push(Typedef {
                    name: alias.clone(),
                    qualified_name: alias.clone(),
                    section: section.clone(),
                    kind: TypedefKind::Class,
                    doc: doc.clone(),
                    fields: Vec::new(),
                    detail: Detail::Full,
                    source: self.diags.source(line),
                    sources: Vec::new(),
                });
            }
        }
        self.api.structs.push(Struct {
            name: name.clone(),
            qualified_name: name,
            section,
            doc,
            fields,
            detail: Detail::Full,
            source: self.diags.source(line),
            sources: Vec::new(),
        });
    }

    /// Typedef `name` of kind `kind`, documented by `doc`, once.
    fn typedef_decl(
        &mut self,
        name: String,
        kind: TypedefKind,
        doc: String,
        line: u32,
        section: Option<String>,
    ) {
        if !self.first("typedef", &name, line) {
            return;
        }
        self.api.typedefs.push(Typedef {
            name: name.clone(),
            qualified_name: name,
            section,
            kind,
            doc,
            fields: Vec::new(),
            detail: Detail::Full,
            source: self.diags.source(line),
            sources: Vec::new(),
        });
    }

    /// `name` as another name of enum `target`, once.
    fn enum_alias(
        &mut self,
        name: &str,
        target: &str,
        section: Option<String>,
        line: u32,
        doc: String,
    ) {
        if name == target {
            return;
        }
        // An undocumented repeat (`typedef enum X_t X;` after the definition) adds nothing.
        if doc.is_empty() && self.seen.contains_key(&("alias", name.to_string())) {
            return;
        }
        if !self.first("alias", name, line) {
            return;
        }
        self.api.aliases.push(IrAlias {
            name: name.to_string(),
            qualified_name: name.to_string(),
            section,
            target: target.to_string(),
            target_kind: "enum".into(),
            doc,
            source: self.diags.source(line),
            sources: Vec::new(),
        });
    }

    fn anonymous(&mut self, pending: Option<Pending>, line: u32, what: &str) {
        if let Some(p) = pending {
            self.orphan(&p, &format!("the {what} after it has no name"));
        } else {
            self.diags.warning(
                line,
                format!("an anonymous {what} with documented members: not read"),
            );
        }
    }

    fn unattached(&mut self, stray: &[usize], text: &str) {
        if let (Some(&first), false) = (stray.first(), text.is_empty()) {
            self.diags.warning(
                self.docs[first].line,
                "a documentation comment inside a declaration documents nothing this reader keeps: not read",
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn function(
        &mut self,
        name: String,
        ret: String,
        cparams: Vec<CParam>,
        block: DocBlock,
        line: u32,
        section: Option<String>,
        stray_doc: &str,
    ) {
        if !self.first("function", &name, line) {
            return;
        }
        let mut doc = block.doc_text();
        append(&mut doc, stray_doc);
        let names: Vec<String> = cparams
            .iter()
            .enumerate()
            .map(|(k, cp)| {
                if cp.name.is_empty() {
                    format!("arg{k}")
                } else {
                    cp.name.clone()
                }
            })
            .collect();
        for (k, cp) in cparams.iter().enumerate() {
            if cp.name.is_empty() {
                self.diags.warning(
                    line,
                    format!(
                        "{name}: C parameter {} has no name in the declaration; named `arg{k}`",
                        k + 1
                    ),
                );
            }
        }
        let (of_c, pairs) = match_params(&names, &block.params);
        for (c, d, how) in pairs {
            let (dp, cname) = (&block.params[d], &names[c]);
            match how {
                Pairing::Rule(rule) => self.diags.note(
                    dp.line,
                    format!("{name}: documented parameter `{}` is C parameter `{cname}` ({})", dp.name, rule.describe()),
                ),
                Pairing::Position => self.diags.warning(
                    dp.line,
                    format!("{name}: documented parameter `{}` names no C parameter; taken as `{cname}`, the C parameter in its place", dp.name),
                ),
            }
        }
        let mut params = Vec::with_capacity(cparams.len());
        for ((cp, pname), d) in cparams.iter().zip(&names).zip(&of_c) {
            let pd = d.map(|i| &block.params[i]);
            params.push(Param {
                name: pname.clone(),
                ty: Some(TypeRef::parse(&cp.ty)),
                direction: pd.and_then(|p| p.direction).unwrap_or(Direction::Unstated),
                doc: pd.map(|p| p.text.clone()).unwrap_or_default(),
            });
        }
        for (i, p) in block.params.iter().enumerate() {
            if of_c.contains(&Some(i)) {
                continue;
            }
            self.diags.warning(
                p.line,
                format!("{name}: documented parameter `{}` is not a parameter of the declaration; its text is kept in the description", p.name),
            );
            doc.push_str(&format!("\n\n:param {}: {}", p.name, flat(&p.text)));
        }
        self.api.functions.push(Function {
            name: name.clone(),
            qualified_name: name,
            section,
            params: Some(params),
            rtype: Some(TypeRef::parse(&ret)),
            errors: block.errors,
            doc,
            see_also: block.see_also,
            detail: Detail::Full,
            source: self.diags.source(line),
            sources: Vec::new(),
        });
    }

    /// A field's IR, or `None` (reported) for declarators without a name.
    fn field(&mut self, f: &FieldDecl) -> Option<Field> {
        if self.unnamed(f) {
            return None;
        }
        let mut doc = self.member_doc(&f.docs);
        let nested = self.nested_doc(&f.nested, 0);
        append(&mut doc, &nested);
        Some(Field {
            name: f.name.clone(),
            ty: Some(TypeRef::parse(&f.ty)),
            doc,
            source: self.diags.source(f.line),
        })
    }

    /// Reports a run of declarators without a name (`int a, , b;`); whether `f` is one.
    fn unnamed(&mut self, f: &FieldDecl) -> bool {
        if f.unnamed == 0 {
            return false;
        }
        self.diags.error(
            f.line,
            format!(
                "{} declarator(s) without a name (a `,` with nothing before it): not read as fields",
                f.unnamed
            ),
        );
        true
    }

    /// The members of a nested struct or union as a list (`- ``fd``: doc`).
    fn nested_doc(&mut self, fields: &[FieldDecl], level: usize) -> String {
        let mut lines = Vec::new();
        for f in fields {
            if self.unnamed(f) {
                continue;
            }
            let doc = self.member_doc(&f.docs);
            let pad = "  ".repeat(level);
            lines.push(format!(
                "{pad}- ``{}`` (``{}``): {}",
                f.name,
                f.ty,
                flat(&doc)
            ));
            let inner = self.nested_doc(&f.nested, level + 1);
            if !inner.is_empty() {
                lines.push(inner);
            }
        }
        lines.join("\n")
    }

    fn finish(&mut self) {
        if self.stmt_code {
            let shown = code_text(&self.stmt);
            self.diags.warning(
                self.stmt_line,
                format!("the input ends inside a declaration (no closing `;` or `}}`): not read: `{shown}`"),
            );
            self.stmt.clear();
            self.stmt_code = false;
        }
        if let Some(p) = self.pending.take() {
            self.orphan(&p, "the input ends after it");
        }
        if let Some(line) = self.in_cond {
            self.diags.warning(
                line,
                "`\\cond` without `\\endcond`: the rest of the input was not read",
            );
        }
        if !self.groups.is_empty() {
            self.diags.note(
                self.stmt_line.max(1),
                format!(
                    "{} group(s) opened with `@{{` are not closed at the end of the input",
                    self.groups.len()
                ),
            );
        }
    }
}

/// How a documented parameter was paired with a C parameter of another name.
enum Pairing {
    /// One of the reviewed renaming rules ([`crate::param_renames`]).
    Rule(crate::param_renames::Rule),
    /// The only way left: same count of unpaired parameters on both sides, in order.
    Position,
}

/// A C parameter (index), the `\param` entry (index) paired with it, and how.
type Paired = (usize, usize, Pairing);

/// Pairs `\param` entries with C parameters: same name first (a leading `*` in the
/// documented name ignored), then the reviewed renaming rules, then, when as many are left on
/// both sides, by position. Returns, per C parameter, the documented entry, and the pairings
/// made other than by name.
fn match_params(names: &[String], docs: &[markup::ParamDoc]) -> (Vec<Option<usize>>, Vec<Paired>) {
    let mut of_c: Vec<Option<usize>> = vec![None; names.len()];
    let mut used = vec![false; docs.len()];
    let mut pairs = Vec::new();
    for (d, dp) in docs.iter().enumerate() {
        let n = dp.name.trim_start_matches('*');
        if let Some(c) = names.iter().position(|c| c == n) {
            if of_c[c].is_none() {
                of_c[c] = Some(d);
                used[d] = true;
            }
        }
    }
    for (d, dp) in docs.iter().enumerate() {
        if used[d] {
            continue;
        }
        let n = dp.name.trim_start_matches('*');
        let best = names
            .iter()
            .enumerate()
            .filter(|(c, _)| of_c[*c].is_none())
            .filter_map(|(c, cn)| crate::param_renames::matches(n, cn).map(|r| (r.rank(), c, r)))
            .min_by_key(|(rank, c, _)| (*rank, *c));
        if let Some((_, c, rule)) = best {
            of_c[c] = Some(d);
            used[d] = true;
            pairs.push((c, d, Pairing::Rule(rule)));
        }
    }
    let free_c: Vec<usize> = (0..names.len()).filter(|c| of_c[*c].is_none()).collect();
    let free_d: Vec<usize> = (0..docs.len()).filter(|d| !used[*d]).collect();
    if !free_c.is_empty() && free_c.len() == free_d.len() {
        for (&c, &d) in free_c.iter().zip(&free_d) {
            of_c[c] = Some(d);
            pairs.push((c, d, Pairing::Position));
        }
    }
    (of_c, pairs)
}

/// The first words of a statement's code, marks removed, for messages.
fn code_text(stmt: &str) -> String {
    let mut out = String::new();
    let mut in_mark = false;
    for ch in stmt.chars() {
        match ch {
            '\u{1}' | '\u{2}' | '\u{3}' => in_mark = !in_mark,
            _ if !in_mark => out.push(ch),
            _ => {}
        }
    }
    let words: Vec<&str> = out.split_whitespace().collect();
    let mut shown = words.join(" ");
    if shown.len() > 80 {
        let cut = (0..=80)
            .rev()
            .find(|&i| shown.is_char_boundary(i))
            .unwrap_or(0);
        shown.truncate(cut);
        shown.push('…');
    }
    shown
}

fn append(doc: &mut String, more: &str) {
    if more.is_empty() {
        return;
    }
    if !doc.is_empty() {
        doc.push_str("\n\n");
    }
    doc.push_str(more);
}

fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the statement so far is a linkage specification (`extern "C"`).
fn is_linkage(stmt: &str) -> bool {
    let words: String = stmt
        .split(['\u{2}'])
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, s)| s)
        .collect::<String>();
    let w: Vec<&str> = words.split_whitespace().collect();
    // `extern "C"`, or `extern"C"` (C++ needs no blank there).
    (w.len() == 2 && w[0] == "extern" && w[1].starts_with('"'))
        || (w.len() == 1 && w[0].starts_with("extern\"") && w[0].ends_with('"'))
}

/// Whether a statement ending in `}` is a function definition (`… f(…) { … }`).
fn is_function_body(stmt: &str) -> bool {
    let Some(brace) = stmt.find('{') else {
        return false;
    };
    let head = &stmt[..brace];
    let head =
        head.trim_end_matches(|c: char| c.is_whitespace() || c == '\u{2}' || c.is_ascii_digit());
    head.ends_with(')')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_header() {
        let text = r#"
/**
 * \defgroup G_A Group A
 * Intro of A.
 * @{
 */
#define cudaFlagA 0x01 /**< First flag */
/** A constant */
#define cudaConstB ((int)-2)
/**
 * \brief Does f.
 *
 * Returns in \p *out the thing.
 * \param[in] x - The input
 * \param out - Returned thing
 * \return ::cudaSuccess, ::cudaErrorX
 * \sa ::g
 */
#if API >= 2
extern __host__ cudaError_t CUDARTAPI f(int x, int *out __dv(0));
#endif
/** An enum */
typedef enum cudaE_t {
    /** Zero */
    eZero = 0,
    eOne, /**< One */
    eFour = eOne << 2 /**< Four */
} cudaE;
/** A struct */
struct cudaS {
    int a; /**< Field a */
    /** Field b */
    void *b;
};
/** A handle */
typedef struct CUh_st *cudaH_t;
/** @} */
"#;
        let api = parse("t.h", text);
        assert!(api.diagnostics.is_empty(), "{:#?}", api.diagnostics);
        assert_eq!(api.sections.len(), 1);
        assert_eq!(api.sections[0].name, "Group A");
        assert_eq!(api.sections[0].id.as_deref(), Some("G_A"));
        assert_eq!(api.sections[0].doc, "Intro of A.");
        let f = api.function("f").expect("f");
        assert_eq!(f.section.as_deref(), Some("Group A"));
        let ps = f.params.as_ref().expect("params");
        assert_eq!(ps[0].direction, Direction::In);
        assert_eq!(ps[1].direction, Direction::Unstated);
        assert_eq!(ps[1].ty.as_ref().map(|t| t.text.as_str()), Some("int*"));
        assert_eq!(ps[1].doc, "Returned thing");
        assert_eq!(f.errors, ["cudaSuccess", "cudaErrorX"]);
        assert_eq!(f.see_also, ["g"]);
        assert_eq!(f.source.line, 10);
        let c: Vec<(&str, i64, &str)> = api
            .constants
            .iter()
            .map(|c| (c.name.as_str(), c.value, c.doc.as_str()))
            .collect();
        assert_eq!(
            c,
            [
                ("cudaFlagA", 1, "First flag"),
                ("cudaConstB", -2, "A constant")
            ]
        );
        let e = api.enum_("cudaE").expect("enum, by its typedef name");
        let v: Vec<(&str, Option<i64>, &str)> = e
            .variants
            .iter()
            .map(|v| (v.name.as_str(), v.value, v.doc.as_str()))
            .collect();
        assert_eq!(
            v,
            [
                ("eZero", Some(0), "Zero"),
                ("eOne", Some(1), "One"),
                ("eFour", Some(4), "Four")
            ]
        );
        assert_eq!(
            (api.aliases[0].name.as_str(), api.aliases[0].target.as_str()),
            ("cudaE_t", "cudaE")
        );
        let s = api.struct_("cudaS").expect("struct");
        let fs: Vec<(&str, &str)> = s
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.doc.as_str()))
            .collect();
        assert_eq!(fs, [("a", "Field a"), ("b", "Field b")]);
        assert_eq!(api.typedefs[0].name, "cudaH_t");
    }

    #[test]
    fn orphans_cond_and_unknown_declarations_are_reported() {
        let text = "/** Lost text */\n/** Also lost */\n\n/** \\cond private */\n/** hidden */\nint hidden(void);\n/** \\endcond */\n/** Macro */\n#define M(a) (a)\n/** Odd */\nint x[;\n";
        let api = parse("t.h", text);
        let msgs: Vec<String> = api
            .diagnostics
            .iter()
            .map(|d| format!("{}:{}", d.line, d.message))
            .collect();
        assert!(
            msgs.iter()
                .any(|m| m.starts_with("1:documentation comment documents no declaration")),
            "{msgs:#?}"
        );
        assert!(
            msgs.iter().any(|m| m.starts_with("8:documented macro `M`")),
            "{msgs:#?}"
        );
        assert!(api.function("hidden").is_none());
        assert!(!msgs.iter().any(|m| m.contains("hidden")), "{msgs:#?}");
    }
}
