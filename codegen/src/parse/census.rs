//! An independent count of what a document declares, against silent loss.
//!
//! Each front end is a careful reader; this is a second, simple one. It scans the raw text
//! once for the marks every object of the format carries — a signature line ending in the
//! page's permalink mark (text pages: `#`, `¶`, an icon character, or none), an `.. auto…::` or `.. c:…::` directive and the names under
//! `.. autosummary::` (RST), an `id` on a `<dt>` (HTML), a `/**` comment before a C
//! declaration or `#define` (headers) — and takes each object's name. A name counted that is
//! neither in the IR (as an item, member, field, constant, alias or listed entry) nor named by
//! a diagnostic of the front end is an error diagnostic naming it: an object the reader lost
//! without a word (half a page swallowed by a stray tag, a function hidden by a broken
//! comment). It does not read the objects themselves, and it knows no CUDA name.
//!
//! Each scan is linear in the text: it looks at each byte a bounded number of times.

use foldhash::HashSet;

use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Api, Format};

/// At most this many lost objects are named one by one; the rest are counted in one more
/// error, whose message holds [`MORE`].
const NAMED: usize = 50;

/// What the error counting the lost objects past [`NAMED`] says.
const MORE: &str = "more objects are declared but were not read into the IR";

/// One object the raw text declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counted {
    /// Its name as written (a dotted name keeps only its last part).
    pub name: String,
    /// The line of its mark.
    pub line: u32,
}

/// The objects `text` (in `format`) declares, by the marks the module describes.
pub fn count(format: Format, text: &str) -> Vec<Counted> {
    match format {
        Format::BindingsText | Format::CudartText => {
            let mut out = signature_lines(text);
            out.extend(field_directives(text));
            out
        }
        Format::AutodocRst => directives(text),
        Format::Html => dt_ids(text),
        Format::DoxygenHeader => doxygen(text),
    }
}

/// Error diagnostics for the objects of `text` that `api` (read from it by the front end of
/// `format`) neither holds nor names in a diagnostic.
pub fn check(file: &str, format: Format, text: &str, api: &Api) -> Vec<Diagnostic> {
    let counted = count(format, text);
    if counted.is_empty() {
        return Vec::new();
    }
    let known = names_in(api);
    let mentioned = mentions(api);
    // A lost object is excused only by a diagnostic about it: one naming it (as a whole
    // word) at a line of its own stretch of the document, from its mark up to the next
    // object's; a mention elsewhere (a stray comment quoted by an unrelated warning) is not
    // about it.
    let mut lines: Vec<u32> = counted.iter().map(|c| c.line).collect();
    lines.sort_unstable();
    lines.dedup();
    let about = |c: &Counted| {
        let i = lines.partition_point(|l| *l < c.line);
        let from = if i == 0 { 0 } else { lines[i - 1] + 1 };
        let to = lines.get(i + 1).copied().unwrap_or(u32::MAX);
        mentioned
            .get(c.name.as_str())
            .is_some_and(|at| at.iter().any(|l| (from..to).contains(l)))
    };
    let lost: Vec<&Counted> = counted
        .iter()
        .filter(|c| !known.contains(c.name.as_str()) && !about(c))
        .collect();
    let mut diags = Diagnostics::new(file);
    for c in lost.iter().take(NAMED) {
        let why = match crate::text::identifier_problem(&c.name) {
            Some(problem) => format!("{problem}, so no reader takes it for a name"),
            None => "the reader lost it: the text before it may be damaged".into(),
        };
        diags.error(
            c.line,
            format!(
                "`{}` is declared here but was not read into the IR, and no diagnostic says why (an independent count of the document's objects found it; {why})",
                c.name.escape_debug()
            ),
        );
    }
    if lost.len() > NAMED {
        diags.error(
            lost[NAMED].line,
            format!(
                "{} {MORE} (the first is `{}`)",
                lost.len() - NAMED,
                lost[NAMED].name.escape_debug()
            ),
        );
    }
    diags.into_vec()
}

/// The census errors for `text` that `api` does not already carry: objects it neither holds
/// nor names in any diagnostic. Empty for what [`crate::parse::parse_document`] returns (it
/// adds the census's errors); the fuzzer checks that what later steps make of a reading (the
/// merge) keeps it so.
pub fn unreported(file: &str, format: Format, text: &str, api: &Api) -> Vec<Diagnostic> {
    if api.diagnostics.iter().any(|d| d.message.contains(MORE)) {
        // Objects past the ones named were counted, not named: all are reported.
        return Vec::new();
    }
    let mut out = check(file, format, text, api);
    out.retain(|d| {
        !api.diagnostics
            .iter()
            .any(|k| k.line == d.line && k.message == d.message)
    });
    out
}

/// Every name `api` holds.
fn names_in(api: &Api) -> HashSet<&str> {
    let mut all: Vec<&str> = Vec::new();
    for f in &api.functions {
        all.extend([f.name.as_str(), f.qualified_name.as_str()]);
    }
    for e in &api.enums {
        all.extend([e.name.as_str(), e.qualified_name.as_str()]);
        all.extend(e.variants.iter().map(|v| v.name.as_str()));
    }
    for s in &api.structs {
        all.extend([s.name.as_str(), s.qualified_name.as_str()]);
        all.extend(s.fields.iter().map(|f| f.name.as_str()));
    }
    for t in &api.typedefs {
        all.extend([t.name.as_str(), t.qualified_name.as_str()]);
        all.extend(t.fields.iter().map(|f| f.name.as_str()));
    }
    for c in &api.constants {
        all.extend([c.name.as_str(), c.qualified_name.as_str()]);
    }
    for a in &api.aliases {
        all.extend([a.name.as_str(), a.qualified_name.as_str()]);
    }
    all.extend(api.entries.iter().map(|e| e.name.as_str()));
    all.into_iter().map(last_part).collect()
}

/// Every identifier the diagnostics of `api` mention, with the lines of those diagnostics.
fn mentions(api: &Api) -> foldhash::HashMap<&str, Vec<u32>> {
    let mut out: foldhash::HashMap<&str, Vec<u32>> = foldhash::HashMap::default();
    for d in &api.diagnostics {
        for word in d.message.split(|c: char| !is_name_char(c) || c == '.') {
            if !word.is_empty() {
                out.entry(word).or_default().push(d.line);
            }
        }
    }
    out
}

/// The part of a dotted name after its last dot.
fn last_part(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Characters a census takes as part of a name: everything but blanks and the punctuation
/// that ends a name in a signature or declaration (so a name with an odd character in it is
/// counted whole, never cut).
fn is_name_char(c: char) -> bool {
    !c.is_whitespace()
        && !matches!(
            c,
            '(' | ')'
                | '='
                | '#'
                | '<'
                | '>'
                | '['
                | ']'
                | ','
                | ':'
                | ';'
                | '*'
                | '&'
                | '{'
                | '}'
                | '`'
                | '"'
                | '\''
                | '/'
                | '|'
                | '!'
                | '?'
                | '+'
                | '~'
                | '%'
                | '^'
        )
}

/// The lines of a text page that start an object: a signature `NAME(…)#`, a class
/// `class NAME…#`, a member `NAME = <…>#` or a constant `module.NAME = value#`, or the first
/// line of a signature written over several (`NAME(` … `)#`). `#` is the page's permalink mark
/// (`#`, `¶`, an icon character: [`super::permalink`]), and indentation (blanks or tabs) does
/// not matter. On a page with no mark, only lines at column 0 count, each whole: a call
/// `NAME(…)` or `NAME(`, `class NAME`, or `NAME = ` an integer or `<…>`.
/// The struct fields of a text page, `.. attribute:: NAME`, read tolerantly: any blanks
/// (tabs, several, none) around the parts, indented or not, any case, invisible characters
/// taken out; so that a field written in a form the reader does not take is counted.
fn field_directives(text: &str) -> Vec<Counted> {
    let mut out = Vec::new();
    for (i, line) in crate::text::lines(text).enumerate() {
        let t = line.trim_start_matches(|c: char| c.is_whitespace() || is_invisible(c));
        let Some(rest) = t.strip_prefix("..") else {
            continue;
        };
        let rest: String = rest.chars().filter(|c| !is_invisible(*c)).collect();
        let rest = rest.trim_start();
        let Some(kw) = rest.get(..11) else { continue };
        if !kw.eq_ignore_ascii_case("attribute::") {
            continue;
        }
        let name: String = rest[11..]
            .trim_start()
            .chars()
            .take_while(|c| is_name_char(*c))
            .collect();
        if !name.is_empty() {
            out.push(Counted {
                name: last_part(&name).to_string(),
                line: line_number(i),
            });
        }
    }
    out
}

/// Characters that print as nothing (zero-width, byte-order mark, soft hyphen).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200b}'..='\u{200f}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{ad}'
    )
}

fn signature_lines(text: &str) -> Vec<Counted> {
    let mark = super::permalink::of_lines(crate::text::lines(text));
    let absent = mark == super::permalink::Permalink::Absent;
    let mut out = Vec::new();
    for (i, line) in crate::text::lines(text).enumerate() {
        if absent && line.starts_with([' ', '\t']) {
            continue;
        }
        let t = line.trim();
        let body = match mark {
            super::permalink::Permalink::Mark(m) => match t.strip_suffix(m) {
                Some(b) => b.trim_end(),
                None if t.ends_with('(') => t,
                None => continue,
            },
            super::permalink::Permalink::Absent => t,
        };
        // `class …`, `property …`: a lower-case keyword before the name.
        let mut body = body;
        let mut keyword = false;
        for _ in 0..2 {
            match body.split_once(' ') {
                Some((kw, rest))
                    if !kw.is_empty() && kw.bytes().all(|b| b.is_ascii_lowercase()) =>
                {
                    body = rest.trim_start();
                    keyword = true;
                }
                _ => break,
            }
        }
        let end = body
            .char_indices()
            .find(|&(_, c)| !is_name_char(c))
            .map_or(body.len(), |(k, _)| k);
        let name = &body[..end];
        let rest = body[end..].trim_start();
        let dotted = name.contains('.') && !name.starts_with('.') && !name.ends_with('.');
        let object = if absent {
            let value = rest.strip_prefix('=').map(str::trim_start);
            let valued = value.is_some_and(|v| {
                v.starts_with('<')
                    || v.trim_start_matches('-')
                        .starts_with(|c: char| c.is_ascii_digit())
            });
            (dotted
                && ((rest.is_empty() && keyword)
                    || (rest.starts_with('(') && body.ends_with([')', '(']))
                    || valued))
                || (!dotted && !name.is_empty() && rest.starts_with("= <"))
        } else if dotted {
            rest.is_empty() || rest.starts_with('(') || rest.starts_with('=')
        } else {
            !name.is_empty() && rest.starts_with("= <")
        };
        if object && name.chars().next().is_some_and(|c| !c.is_ascii_digit()) {
            out.push(Counted {
                name: last_part(name).to_string(),
                line: line_number(i),
            });
        }
    }
    out
}

/// RST objects: `.. autofunction:: NAME` and the other object directives (`auto…`, `c:…`,
/// `py:…`, `function`, `class`, …) with blanks or tabs around them, and the names listed
/// under `.. autosummary::`.
fn directives(text: &str) -> Vec<Counted> {
    let mut out = Vec::new();
    // Inside an `.. autosummary::` block: the indentation of its directive.
    let mut summary: Option<usize> = None;
    for (i, line) in crate::text::lines(text).enumerate() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        if let Some(at) = summary {
            if t.is_empty() || t.starts_with(':') {
                continue;
            }
            if indent > at {
                let name = t.split(|c: char| !is_name_char(c)).next().unwrap_or("");
                if !name.is_empty() && !name.starts_with('~') {
                    out.push(Counted {
                        name: last_part(name).to_string(),
                        line: line_number(i),
                    });
                }
                continue;
            }
            summary = None;
        }
        let Some(rest) = t.strip_prefix("..") else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let Some((directive, target)) = rest.trim_start().split_once("::") else {
            continue;
        };
        let directive = directive.trim();
        if directive == "autosummary" {
            summary = Some(indent);
            continue;
        }
        let object = directive.starts_with("auto") && directive != "automodule"
            || directive.starts_with("c:")
            || directive.starts_with("py:")
            || matches!(
                directive,
                "function" | "class" | "data" | "method" | "exception"
            );
        if !object || directive.contains(' ') {
            continue;
        }
        let target = target.trim();
        // `c:function:: void* f(int a)`: the name is the last word before `(`.
        let head = target.split('(').next().unwrap_or("");
        let name = head
            .rsplit(|c: char| !is_name_char(c))
            .find(|w| !w.is_empty())
            .unwrap_or("");
        if !name.is_empty() {
            out.push(Counted {
                name: last_part(name).to_string(),
                line: line_number(i),
            });
        }
    }
    out
}

/// HTML objects: the `id` of every `<dt …>` start tag (Sphinx gives each object's signature
/// one; a heading's anchor is on a `<section>`, not counted).
fn dt_ids(text: &str) -> Vec<Counted> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut line = 1u32;
    let mut counted_to = 0usize;
    let finder = memchr::memmem::Finder::new(b"<dt");
    let mut from = 0;
    while let Some(k) = finder.find(&b[from..]) {
        let at = from + k;
        from = at + 3;
        if !matches!(b.get(at + 3), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            continue;
        }
        // The tag ends at the next `>` (attribute values of real pages hold none), or before
        // the next `<` of an unterminated one: each byte is looked at once.
        let end = memchr::memchr2(b'>', b'<', &b[at + 1..]).map_or(b.len(), |e| at + 1 + e);
        let tag = &text[at..end];
        let Some(id) = attribute(tag, "id") else {
            continue;
        };
        line += memchr::memchr_iter(b'\n', &b[counted_to..at]).count() as u32;
        counted_to = at;
        // Sphinx names an object's anchor by its dotted path; an id without a dot (`id0`)
        // is one it made up for a repeat, and names nothing.
        let id = id.trim();
        let name = last_part(id);
        if id.contains('.') && !name.is_empty() {
            out.push(Counted {
                name: name.to_string(),
                line,
            });
        }
        from = end;
    }
    out
}

/// The value of attribute `name` in the start tag `tag` (quoted with `"` or `'`).
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let b = tag.as_bytes();
    let mut k = 0;
    while let Some(rel) = tag[k..].find(name) {
        let at = k + rel;
        k = at + name.len();
        let before_ok = at > 0 && b[at - 1].is_ascii_whitespace();
        let rest = tag[k..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let value = rest[1..].trim_start();
        let quote = value.chars().next()?;
        if quote != '"' && quote != '\'' {
            return value.split_whitespace().next();
        }
        return value[1..].split(quote).next();
    }
    None
}

/// C headers: every `/**` comment at the top level (outside any brace but `extern "C" {`, and
/// not on a preprocessor line) that is followed by a declaration or a `#define`, with the name
/// that declaration declares. A `/**` inside another comment counts too: a mistyped `*/`
/// (`* /`) makes one comment of two, and the second's declaration is what it documents.
/// Comments that open or add to a group without documenting a function (`\defgroup`,
/// `\addtogroup`, `@{`, `@}` and no `\param` or `\return`), the conditional-section marks
/// and member comments (`/**<`) are not counted.
fn doxygen(text: &str) -> Vec<Counted> {
    documented_declarations(text, top_level_comments(text))
}

/// A `/**` comment opener that [`doxygen`] may count.
struct Opener {
    /// Where the `/**` is.
    at: usize,
    /// Where its text ends: the next opener inside the same comment, or the comment's end.
    body_end: usize,
    /// Whether it is the last opener of its comment (the one a declaration follows).
    last: bool,
    /// Where its comment's `*/` is (the text's end for an unclosed one).
    end: usize,
}

/// The `/**` openers at the top level of `text` (outside any brace but `extern "C" {`, and
/// not on a preprocessor line), with those inside another comment, in order.
fn top_level_comments(text: &str) -> Vec<Opener> {
    let b = text.as_bytes();
    let close = memchr::memmem::Finder::new(b"*/");
    let open = memchr::memmem::Finder::new(b"/**");
    let mut candidates = Vec::new();
    // Open braces, `true` for `extern "C" {` (which does not nest what it holds).
    let mut braces: Vec<bool> = Vec::new();
    let mut line_start = true;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = close.find(&b[i + 2..]).map_or(b.len(), |e| i + 2 + e);
                if braces.iter().all(|&linkage| linkage) {
                    openers(b, &open, i, end, &mut candidates);
                }
                i = end + 2;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |e| i + e);
                continue;
            }
            b'"' | b'\'' => {
                i = quoted_end(b, i);
                line_start = false;
                continue;
            }
            b'#' if line_start => {
                i = preprocessor_end(text, i);
                continue;
            }
            b'{' => {
                // `extern "C" {`, with any blanks (or none: `extern"C"{` is C++ too).
                let before = b[i.saturating_sub(64)..i].trim_ascii_end();
                let lang = [b"\"C\"".as_slice(), b"\"C++\""]
                    .into_iter()
                    .find(|l| before.ends_with(l));
                braces.push(lang.is_some_and(|l| {
                    before[..before.len() - l.len()]
                        .trim_ascii_end()
                        .ends_with(b"extern")
                }));
            }
            b'}' => {
                braces.pop();
            }
            _ => {}
        }
        if c == b'\n' {
            line_start = true;
        } else if !c.is_ascii_whitespace() {
            line_start = false;
        }
        i += 1;
    }
    candidates
}

/// Adds the openers of the comment that starts at `start` and closes at `end` to `out`.
/// Each opener's text runs to the next opener inside the same comment (the reader ends a
/// comment there too), the last one's to the comment's end; only the last is followed by a
/// declaration. So each byte of the comment is looked at once.
fn openers(
    b: &[u8],
    open: &memchr::memmem::Finder<'_>,
    start: usize,
    end: usize,
    out: &mut Vec<Opener>,
) {
    let mut found = Vec::new();
    let mut at = start;
    loop {
        if b[at..].starts_with(b"/**")
            && !matches!(b.get(at + 3), Some(b'*' | b'<' | b'/'))
            && at + 3 <= end
        {
            found.push(at);
        }
        match open.find(&b[(at + 1).min(end)..end]) {
            Some(k) => at = at + 1 + k,
            None => break,
        }
    }
    for (k, &at) in found.iter().enumerate() {
        let (body_end, last) = match found.get(k + 1) {
            Some(&next) => (next, false),
            None => (end, true),
        };
        out.push(Opener {
            at,
            body_end,
            last,
            end,
        });
    }
}

/// Where the quoted literal opening at `i` ends: past its closing quote, or at the line end
/// (which starts the next line) of an unclosed one.
fn quoted_end(b: &[u8], i: usize) -> usize {
    let c = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != c && b[j] != b'\n' {
        j += if b[j] == b'\\' { 2 } else { 1 };
    }
    if b.get(j) == Some(&c) {
        j + 1
    } else {
        j
    }
}

/// Where the preprocessor line starting at `i` ends, continuations and all (its comments are
/// not counted).
fn preprocessor_end(text: &str, i: usize) -> usize {
    let b = text.as_bytes();
    let mut j = i;
    loop {
        let e = memchr::memchr(b'\n', &b[j..]).map_or(b.len(), |e| j + e);
        let body = text[j..e].trim_end();
        j = e;
        if !body.ends_with('\\') || j >= b.len() {
            break;
        }
        j += 1;
    }
    j
}

/// The names declared after the last opener of each comment in `candidates` that documents
/// something (not a grouping comment), each declaration counted once, at its line.
fn documented_declarations(text: &str, candidates: Vec<Opener>) -> Vec<Counted> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut line = 1u32;
    let mut counted_to = 0usize;
    // The declaration after the last comment counted (counted once).
    let mut last_decl = usize::MAX;
    // Where each candidate's declaration may be looked for: up to the next candidate, so that
    // no byte is looked at for two of them.
    let stops: Vec<usize> = candidates
        .iter()
        .skip(1)
        .map(|c| c.at)
        .chain([b.len()])
        .collect();
    for (c, stop) in candidates.into_iter().zip(stops) {
        let Opener {
            at,
            body_end,
            last,
            end,
        } = c;
        line += memchr::memchr_iter(b'\n', &b[counted_to..at]).count() as u32;
        counted_to = at;
        if !last || is_grouping(&text[at + 3..body_end]) {
            continue;
        }
        let Some((decl_at, names)) = declaration_after(
            &text[..stop.max(end + 2).min(b.len())],
            (end + 2).min(b.len()),
        ) else {
            continue;
        };
        if decl_at == last_decl {
            continue;
        }
        last_decl = decl_at;
        if let Some(name) = names.into_iter().next() {
            let decl_line = line + memchr::memchr_iter(b'\n', &b[at..decl_at]).count() as u32;
            out.push(Counted {
                name,
                line: decl_line,
            });
        }
    }
    out
}

/// Whether a comment body only opens, adds to or closes a group, or marks a conditional
/// section (what documents no declaration).
fn is_grouping(body: &str) -> bool {
    let has = |cmd: &str| {
        body.match_indices(cmd).any(|(k, _)| {
            k > 0
                && matches!(body.as_bytes()[k - 1], b'\\' | b'@')
                && !body[k + cmd.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
        })
    };
    let documents = has("param") || has("return") || has("returns");
    let groups = has("defgroup")
        || has("addtogroup")
        || has("cond")
        || has("endcond")
        || has("page")
        || has("mainpage")
        || has("file")
        || has("name")
        || body.contains("@{")
        || body.contains("@}")
        || body.contains("\\{")
        || body.contains("\\}");
    groups && !documents
}

/// Longest declaration looked at after a comment, in bytes.
const DECLARATION: usize = 16 << 10;

/// The declaration that starts after `from` in `text` (blanks, ordinary comments and
/// preprocessor lines other than `#define` skipped; another `/**` or the end first: none) and
/// the names it declares, most likely first: its start and the names. The caller cuts `text`
/// where the next comment to count starts.
fn declaration_after(text: &str, from: usize) -> Option<(usize, Vec<String>)> {
    let start = match declaration_start(text, from)? {
        Start::Define(at, name) => return Some((at, vec![name])),
        Start::Code(at) => at,
    };
    let b = text.as_bytes();
    let limit = (start + DECLARATION).min(b.len());
    let Some((head, j)) = declaration_head(text, start, limit) else {
        // The next documented object: this comment documents nothing before it.
        return Some((start, Vec::new()));
    };
    let words: Vec<&str> = head
        .split(|c: char| !is_name_char(c))
        .filter(|w| !w.is_empty())
        .collect();
    let first = *words.first()?;
    let names: Vec<String> = if b.get(j) == Some(&b'{') && !head.contains('(') {
        record_names(text, &words, j, limit)
    } else if head.contains('(') {
        vec![function_name(&head, first).to_string()]
    } else if first == "typedef" || first == "extern" || first == "static" || first == "const" {
        // `typedef struct X Y;`, `extern int x;`: the last word.
        words
            .last()
            .map(|w| vec![w.to_string()])
            .unwrap_or_default()
    } else {
        return Some((start, Vec::new()));
    };
    let names: Vec<String> = names.into_iter().filter(|n| !n.is_empty()).collect();
    Some((start, names))
}

/// Where [`declaration_after`] finds the next declaration.
enum Start {
    /// A `#define` at this offset, with a value, and the macro's name.
    Define(usize, String),
    /// Code (not a preprocessor line) starts at this offset.
    Code(usize),
}

/// The start of what follows `from` in `text`, blanks, ordinary comments and preprocessor
/// lines other than `#define` skipped; `None` at the end, before another `/**`, or at a
/// `#define` without a value.
fn declaration_start(text: &str, from: usize) -> Option<Start> {
    let b = text.as_bytes();
    let mut i = from;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        if b[i..].starts_with(b"/**") && !b[i..].starts_with(b"/**/") {
            return None;
        }
        if b[i..].starts_with(b"/*") {
            i = memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |e| i + 2 + e + 2);
            continue;
        }
        if b[i..].starts_with(b"//") {
            i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |e| i + e);
            continue;
        }
        if b[i] != b'#' {
            return Some(Start::Code(i));
        }
        let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |e| i + e);
        let directive = text[i + 1..end].trim_start();
        if let Some(rest) = directive.strip_prefix("define") {
            let mut words = rest.split(|c: char| c.is_whitespace() || c == '(');
            let first = words.find(|w| !w.is_empty()).unwrap_or("");
            let has_value = rest.trim().len() > first.len();
            if !rest.starts_with([' ', '\t']) || first.is_empty() || !has_value {
                return None;
            }
            return Some(Start::Define(i, first.to_string()));
        }
        i = end;
    }
}

/// The text from `start` up to the `;` or `{` that ends the declaration's head (looked for up
/// to `limit`), ordinary comments out, and where it stopped; `None` when a documented object's
/// `/**` comes first.
fn declaration_head(text: &str, start: usize, limit: usize) -> Option<(String, usize)> {
    let b = text.as_bytes();
    let mut head = String::new();
    let mut j = start;
    while j < limit {
        match b[j] {
            b';' | b'{' => break,
            b'/' if b[j..].starts_with(b"/**")
                && !matches!(b.get(j + 3), Some(b'<' | b'/' | b'*')) =>
            {
                return None;
            }
            b'/' if b.get(j + 1) == Some(&b'*') => {
                j = memchr::memmem::find(&b[(j + 2).min(limit)..limit], b"*/")
                    .map_or(limit, |e| j + 2 + e + 2);
                head.push(' ');
                continue;
            }
            _ => {}
        }
        let ch_len = text[j..].chars().next().map_or(1, char::len_utf8);
        head.push_str(&text[j..j + ch_len]);
        j += ch_len;
    }
    Some((head, j))
}

/// The names a record or enum declaration with a body declares (`struct X {`,
/// `typedef enum X {`): its tag (the last word of the head), then, for a `typedef`, the names
/// after the closing brace. `open` is the brace.
fn record_names(text: &str, words: &[&str], open: usize, limit: usize) -> Vec<String> {
    let mut names: Vec<String> = words
        .iter()
        .rev()
        .take(1)
        .filter(|w| !matches!(**w, "struct" | "union" | "enum" | "typedef"))
        .map(|w| w.to_string())
        .collect();
    if words.first() == Some(&"typedef") {
        if let Some(after) = after_braces(text, open, limit) {
            names.extend(after);
        }
    }
    names
}

/// The name of a function declared by `head` (which holds a `(`): the word before the first
/// `(` that is not an annotation (`__attribute__((…))`); for a `typedef` of a pointer to one
/// (`(*name)(…)`), the word after `*`.
fn function_name<'h>(head: &'h str, first: &str) -> &'h str {
    let group = head
        .find('(')
        .and_then(|p| head[p..].find(')').map(|q| &head[p + 1..p + q]));
    if let Some(group) = group.filter(|g| g.contains('*') && first == "typedef") {
        return group
            .rsplit(|c: char| !is_name_char(c))
            .find(|w| !w.is_empty())
            .unwrap_or("");
    }
    let mut rest = head;
    while let Some(p) = rest.find('(') {
        let before = rest[..p]
            .rsplit(|c: char| !is_name_char(c))
            .find(|w| !w.is_empty())
            .unwrap_or("");
        if !(before.starts_with("__") || before.is_empty()) {
            return before;
        }
        let end = group_end(rest, p);
        // A declarator through a macro, `__CUDART_API_PTDS(name)(…)`: the name is inside.
        if before.starts_with("__") && rest[end..].trim_start().starts_with('(') {
            let inner = rest[p + 1..end.saturating_sub(1).max(p + 1)].trim();
            if !inner.is_empty() && inner.chars().all(is_name_char) {
                return inner;
            }
        }
        // Skip the annotation's parentheses.
        rest = &rest[end..];
    }
    ""
}

/// Where the parenthesised group opening at `p` in `s` ends (past its `)`), or `s`'s length
/// when it does not close.
fn group_end(s: &str, p: usize) -> usize {
    let mut depth = 0;
    for (k, c) in s[p..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return p + k + 1;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// The words between the brace block opening at `open` and the `;` after it
/// (`} cudaFoo;`), looked at up to `limit`.
fn after_braces(text: &str, open: usize, limit: usize) -> Option<Vec<String>> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut j = open;
    let big = (open + (1 << 20)).min(b.len()).max(limit);
    while j < big {
        match b[j] {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    let end = memchr::memchr(b';', &b[j.min(b.len())..big.max(j)]).map(|e| j + e)?;
    let tail = text.get(j + 1..end)?;
    Some(
        tail.split(|c: char| !is_name_char(c))
            .filter(|w| !w.is_empty() && !w.starts_with("__"))
            .map(str::to_string)
            .collect(),
    )
}

/// A 0-based line index as a 1-based line number.
fn line_number(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(c: &[Counted]) -> Vec<&str> {
        c.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn text_pages_count_signatures_members_constants_and_tab_indented_ones() {
        let text = "runtime#\n\nDevice Management#\n\ncuda.bindings.runtime.cudaFirst(int device)#\nDoes.\n\nclass cuda.bindings.runtime.cudaE(value: int)#\n  cudaA = <cudaE.cudaA: 0>#\n\truntime.cudaK = 4#\n\tcuda.bindings.runtime.cudaSecond(int device)#\ncuda.bindings.runtime.cudaLong(\nint a,\n)#\n";
        assert_eq!(
            names(&count(Format::BindingsText, text)),
            [
                "cudaFirst",
                "cudaE",
                "cudaA",
                "cudaK",
                "cudaSecond",
                "cudaLong"
            ]
        );
    }

    #[test]
    fn rst_counts_directives_with_tabs_and_autosummary_entries() {
        let text = ".. autofunction:: cuda.cudart.cudaMalloc\n..\tautofunction::\tcuda.cudart.cudaMemset\n.. automodule:: cuda.cudart\n.. c:function:: void* cupy_malloc(cupy_allocator_handle* handle, size_t size)\n\n.. autosummary::\n   :toctree: generated/\n\n   cupy.cuda.Device\n   cupy.cuda.alloc\n\nProse.\n";
        assert_eq!(
            names(&count(Format::AutodocRst, text)),
            ["cudaMalloc", "cudaMemset", "cupy_malloc", "Device", "alloc"]
        );
    }

    #[test]
    fn html_counts_dt_ids() {
        let text = "<dl class=\"py function\">\n<dt class=\"sig sig-object py\" id=\"cuda.bindings.runtime.cudaFree\">\n<dt>no id</dt><dtx id=\"x\"><dt\nid='m.cudaMalloc'><dt id=\"id0\">";
        let c = count(Format::Html, text);
        assert_eq!(names(&c), ["cudaFree", "cudaMalloc"]);
        assert_eq!(c[0].line, 2);
        assert_eq!(c[1].line, 3);
    }

    #[test]
    fn headers_count_documented_declarations_also_behind_a_broken_close() {
        let text = "/** \\defgroup G Group\n * @{\n * /\n\n/**\n * \\brief Start.\n */\nextern __host__ cudaError_t CUDARTAPI cudaProfilerStart(void);\n/** Doc */\ntypedef struct cudaFoo_st {\n int a; /**< a */\n} cudaFoo;\n/** D */\n#define cudaK 4\n/** Callback */\ntypedef void (CUDART_CB *cudaCb_t)(int);\n/** E */\nenum __device_builtin__ cudaE { cudaA };\n/** @} */\n";
        let c = count(Format::DoxygenHeader, text);
        assert_eq!(
            names(&c),
            [
                "cudaProfilerStart",
                "cudaFoo_st",
                "cudaK",
                "cudaCb_t",
                "cudaE"
            ]
        );
        assert_eq!(c[0].line, 8);
    }

    #[test]
    fn what_the_ir_lacks_and_no_diagnostic_names_is_an_error() {
        let mut api = Api::default();
        api.functions.push(crate::ir::Function {
            name: "cudaFirst".into(),
            qualified_name: "cuda.bindings.runtime.cudaFirst".into(),
            section: None,
            params: None,
            rtype: None,
            errors: Vec::new(),
            doc: String::new(),
            see_also: Vec::new(),
            detail: crate::ir::Detail::Full,
            source: crate::ir::Source::new("f", 1),
            sources: Vec::new(),
        });
        api.diagnostics.push(Diagnostic {
            severity: crate::diag::Severity::Warning,
            file: "f".into(),
            line: 9,
            path: None,
            message: "`cudaThird` is not read".into(),
            unread: 0,
        });
        let text = "cuda.bindings.runtime.cudaFirst(int a)#\ncuda.bindings.runtime.cudaSecond(int a)#\ncuda.bindings.runtime.cudaThird(int a)#\n";
        let d = check("f", Format::BindingsText, text, &api);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].line, 2);
        assert!(d[0].message.contains("`cudaSecond`"), "{}", d[0].message);
    }
}
