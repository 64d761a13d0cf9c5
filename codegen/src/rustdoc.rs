//! Turning the documentation's reStructuredText into rustdoc Markdown.
//!
//! Inline: roles (``:py:obj:`~.cudaMalloc` ``, `:obj:`, `:py:func:`, `:c:func:`) become
//! intra-doc links when a [`Links`] resolver knows the item, plain code spans otherwise;
//! `` `*devPtr` `` and ` ``x`` ` become code spans; characters Markdown or rustdoc would
//! misread (`[`, `]`, `<`, `>`, leading `#`, bare URLs) are escaped.
//! Blocks: `.. note::`/`.. warning::` become quoted notes, `.. rubric:: X` a bold line,
//! literal blocks (`::`, `.. code-block::`) fenced `text` blocks (never Rust doctests),
//! `.. seealso::` is collected separately, and indentation that Markdown would read as a
//! code block is removed. "View CUDA Toolkit Documentation…" placeholders are dropped.
//!
//! [`check`] parses the result with pulldown-cmark and reports leftovers (RST roles,
//! directives, field lists) — a test runs it over every generated comment.
//! This module converts text only; which sections a function's docs get (`# Arguments`,
//! `# Errors`) is the emitter's business.

use pulldown_cmark::{Event, Parser, Tag};

/// Resolves a documentation name (`cudaMalloc`) to a Rust path for an intra-doc link
/// (`crate::sys::cudaMalloc`), or `None` when no item exists.
pub trait Links {
    /// The Rust path for `name`, if an item exists.
    fn resolve(&self, name: &str) -> Option<String>;
}

impl<F: Fn(&str) -> Option<String>> Links for F {
    fn resolve(&self, name: &str) -> Option<String> {
        self(name)
    }
}

/// A resolver that knows no items: every reference becomes a code span.
pub struct NoLinks;

impl Links for NoLinks {
    fn resolve(&self, _: &str) -> Option<String> {
        None
    }
}

/// The name a role's target refers to: `~.cudaMalloc()` → `cudaMalloc`,
/// `cuda.bindings.runtime.cudaStream_t` → `cudaStream_t`, `text <target>` → `target`.
pub fn role_target(raw: &str) -> &str {
    let mut t = raw.trim();
    if let (Some(open), true) = (t.rfind('<'), t.ends_with('>')) {
        t = &t[open + 1..t.len() - 1];
    }
    let t = t.trim_start_matches(['~', '!', '.']);
    let t = t.strip_suffix("()").unwrap_or(t);
    t.rsplit('.').next().unwrap_or(t)
}

/// Converts inline RST in one paragraph of text to Markdown.
pub fn inline(text: &str, links: &dyn Links) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    inline_into(&mut out, text, links);
    out
}

/// [`inline`], written at the end of `out`.
fn inline_into(out: &mut String, text: &str, links: &dyn Links) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // A role: `:name:` (possibly `:dom:name:`) directly followed by a backquote.
        if c == b':' && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            if let Some((role_end, body_end)) = role_at(text, i) {
                let body = &text[role_end..body_end];
                let name = role_target(body);
                push_ref(out, name, links);
                i = body_end + 1;
                continue;
            }
        }
        if c == b'`' {
            let double = i + 1 < b.len() && b[i + 1] == b'`';
            let delim = if double { "``" } else { "`" };
            let start = i + delim.len();
            if let Some(len) = text[start..].find(delim) {
                let code = &text[start..start + len];
                if !code.is_empty() && !code.contains('\n') {
                    // RST `text <url>`_ hyperlinks.
                    if !double && text[start + len + 1..].starts_with('_') {
                        push_hyperlink(out, code);
                        i = start + len + 1;
                        while i < b.len() && b[i] == b'_' {
                            i += 1;
                        }
                        continue;
                    }
                    push_code(out, code);
                    i = start + len + delim.len();
                    continue;
                }
            }
            out.push_str("\\`");
            i += 1;
            continue;
        }
        if text[i..].starts_with("http://") || text[i..].starts_with("https://") {
            let end = text[i..]
                .find(|ch: char| ch.is_whitespace() || ch == '>' || ch == ')' || ch == '"')
                .map_or(text.len(), |n| i + n);
            let url = text[i..end].trim_end_matches(['.', ',', ';']);
            out.push('<');
            out.push_str(url);
            out.push('>');
            i += url.len();
            continue;
        }
        match c {
            b'[' | b']' | b'<' | b'>' | b'|' => {
                out.push('\\');
                out.push(c as char);
            }
            b'\\' => out.push_str("\\\\"),
            _ => {
                // A run of text with nothing to convert, copied at once: it ends before the
                // next byte that can start a role, code, a URL or an escape (all ASCII, so the
                // run ends on a character boundary). The byte at `i` is in the run: a `:` or
                // `h` that started nothing above is plain text.
                let end = (i + 1..b.len())
                    .find(|&k| is_inline_special(b, k))
                    .unwrap_or(b.len());
                out.push_str(&text[i..end]);
                i = end;
                continue;
            }
        }
        i += 1;
    }
}

/// Whether [`inline`] may have something to convert at byte `k` of `b`: a character it
/// escapes or that can start a role or code, or the `h` of `http`.
fn is_inline_special(b: &[u8], k: usize) -> bool {
    match b[k] {
        b':' | b'`' | b'[' | b']' | b'<' | b'>' | b'|' | b'\\' => true,
        b'h' => b[k..].starts_with(b"http"),
        _ => false,
    }
}

/// If a role starts at byte `i`, returns (start of its body, index of the closing backquote).
fn role_at(text: &str, i: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut j = i + 1;
    let mut colons = 1;
    while j < b.len() && j - i < 40 {
        match b[j] {
            b':' => {
                colons += 1;
                if j + 1 < b.len() && b[j + 1] == b'`' && colons >= 2 {
                    let body = j + 2;
                    let close = text[body..].find('`')? + body;
                    return Some((body, close));
                }
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' => {}
            _ => return None,
        }
        j += 1;
    }
    None
}

/// `name` as a Markdown link to its item (``[`name`](path)``) where `links` knows it, else
/// as code, written at the end of `out`.
pub fn push_ref(out: &mut String, name: &str, links: &dyn Links) {
    match links.resolve(name) {
        Some(path) => {
            out.push_str("[`");
            out.push_str(name);
            out.push_str("`](");
            out.push_str(&path);
            out.push(')');
        }
        None => push_code(out, name),
    }
}

fn push_code(out: &mut String, code: &str) {
    let ticks = if code.contains('`') { "`` " } else { "`" };
    out.push_str(ticks);
    out.push_str(code);
    out.push_str(if ticks == "`" { "`" } else { " ``" });
}

fn push_hyperlink(out: &mut String, body: &str) {
    if let (Some(open), true) = (body.rfind('<'), body.ends_with('>')) {
        let text = body[..open].trim();
        let url = &body[open + 1..body.len() - 1];
        out.push('[');
        out.push_str(&text.replace(['[', ']'], ""));
        out.push_str("](");
        out.push_str(url);
        out.push(')');
    } else {
        push_code(out, body);
    }
}

/// The result of converting a block of RST.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Converted {
    /// Markdown text.
    pub markdown: String,
    /// Names listed by `.. seealso::` blocks, in order.
    pub see_also: Vec<String>,
    /// Directives the converter did not know (kept as plain text), for diagnostics.
    pub unknown_directives: Vec<String>,
}

/// Is `line` one of the placeholders the docs put where a C++ example was?
fn is_placeholder(line: &str) -> bool {
    // Both texts end in a letter: trimming the line's end could not change a match.
    let l = line.trim_start().trim_start_matches('*').trim_start();
    l.starts_with("View CUDA Toolkit Documentation for a C++ code example")
        || l.starts_with("View CUDA Toolkit Documentation for a C code example")
}

/// Converts a block of RST (several paragraphs, lists, directives) to Markdown.
pub fn convert(rst: &str, links: &dyn Links) -> Converted {
    let mut out = Converted::default();
    let lines: Vec<&str> = crate::text::lines(rst).collect();
    let mut md = MdLines::with_capacity(rst.len() + rst.len() / 4);
    let mut i = 0;
    while i < lines.len() {
        i = block(&lines, i, &mut md, &mut out, links);
    }
    let mut text = md.text;
    text.truncate(text.trim_end().len());
    out.markdown = text;
    out
}

/// Converts the block that starts at line `i` of `lines` (a directive, a comment, a field
/// line, a paragraph introducing a literal block, or one line of text) into `md` and `out`;
/// returns the index of the line after it.
fn block(
    lines: &[&str],
    i: usize,
    md: &mut MdLines,
    out: &mut Converted,
    links: &dyn Links,
) -> usize {
    let line = lines[i];
    let trimmed = line.trim();
    if is_placeholder(line) {
        return i + 1;
    }
    if let Some(rest) = trimmed.strip_prefix(".. ") {
        if let Some((name, arg)) = rest.split_once("::") {
            let (body, next) = indented_body(lines, i + 1, indent_of(line));
            directive(name.trim(), arg.trim(), &body, md, out, links);
            return next;
        }
        if rest.starts_with('[') || rest.starts_with('_') || rest.starts_with('|') {
            // Comments, targets and substitutions carry no text for a reader.
            let (_, next) = indented_body(lines, i + 1, indent_of(line));
            return next;
        }
    }
    // Field-list lines left in running text (`:returns: …`, `:param x: …`).
    if let Some((label, body)) = field_line(trimmed) {
        let start = md.start();
        if !label.is_empty() {
            md.text.push_str("**");
            md.text.push_str(&label);
            md.text.push_str(":** ");
        }
        inline_into(&mut md.text, body, links);
        md.end(start);
        return i + 1;
    }
    // A paragraph ending in `::` introduces a literal block.
    if trimmed.ends_with("::") && !trimmed.starts_with(".. ") {
        let (body, next) = indented_body(lines, i + 1, indent_of(line));
        if !body.iter().all(|b| b.trim().is_empty()) {
            literal_block(md, trimmed, &body, links);
            return next;
        }
    }
    markdown_line(md, line, links);
    i + 1
}

/// Directive `.. name:: arg` with its `body`: a see-also list (into `out`), an admonition, a
/// rubric, a code block, a deprecation, or an unknown one (recorded in `out`, its text kept).
fn directive(
    name: &str,
    arg: &str,
    body: &[&str],
    md: &mut MdLines,
    out: &mut Converted,
    links: &dyn Links,
) {
    match name {
        "seealso" => {
            let all = std::iter::once(arg)
                .chain(body.iter().copied())
                .collect::<Vec<_>>()
                .join(" ");
            out.see_also.extend(names_in(&all));
        }
        "note" | "warning" | "attention" | "important" | "caution" | "tip" => {
            admonition(md, name, arg, body, links);
        }
        "rubric" => {
            md.blank();
            let start = md.start();
            md.text.push_str("**");
            inline_into(&mut md.text, arg, links);
            md.text.push_str("**");
            md.end(start);
            md.blank();
        }
        "code-block" | "code" | "sourcecode" | "parsed-literal" => {
            fence(md, body);
        }
        "deprecated" => {
            md.blank();
            let text = body.iter().map(|s| s.trim()).collect::<Vec<_>>().join(" ");
            md.line(
                format!("**Deprecated** {}: {}", arg, inline(&text, links)).trim_end_matches(": "),
            );
            md.blank();
        }
        other => {
            out.unknown_directives.push(other.to_string());
            for b in std::iter::once(arg).chain(body.iter().copied()) {
                let b = b.trim();
                if !b.is_empty() {
                    let start = md.start();
                    inline_into(&mut md.text, b, links);
                    md.end(start);
                }
            }
        }
    }
}

/// An admonition (`.. note::`, `.. warning::`, …) as a quoted note, `> **Note:** …`, its
/// argument and body joined into one paragraph.
fn admonition(md: &mut MdLines, name: &str, arg: &str, body: &[&str], links: &dyn Links) {
    let label = capitalise(name);
    md.blank();
    let start = md.start();
    md.text.push_str("> **");
    md.text.push_str(&label);
    md.text.push_str(":** ");
    let mut first = true;
    for s in std::iter::once(arg).chain(body.iter().copied()) {
        let s = s.trim();
        if s.is_empty() {
            continue;
        }
        if !first {
            md.text.push(' ');
        }
        first = false;
        inline_into(&mut md.text, s, links);
    }
    md.end(start);
    md.blank();
}

/// A paragraph line `text::` followed by the literal block `body`: the text (`:` for `::`
/// after a word, nothing after a blank) and the block fenced.
fn literal_block(md: &mut MdLines, trimmed: &str, body: &[&str], links: &dyn Links) {
    let text = trimmed.trim_end_matches("::");
    let text = if text.ends_with(' ') || text.is_empty() {
        text.trim_end().to_string()
    } else {
        format!("{text}:")
    };
    if !text.is_empty() {
        let start = md.start();
        inline_into(&mut md.text, &text, links);
        md.end(start);
    }
    fence(md, body);
}

/// Markdown written line by line, a run of blank lines (whitespace only) written as one
/// empty line, and none at the start.
struct MdLines {
    text: String,
    /// Whether the last line written was blank (or nothing is written yet).
    prev_blank: bool,
}

impl MdLines {
    fn with_capacity(n: usize) -> MdLines {
        MdLines {
            text: String::with_capacity(n),
            prev_blank: true,
        }
    }

    /// Writes `line` as a line of its own.
    fn line(&mut self, line: &str) {
        let start = self.start();
        self.text.push_str(line);
        self.end(start);
    }

    /// A blank line (left out after another, or at the start).
    fn blank(&mut self) {
        self.line("");
    }

    /// Where a line written straight into `text` starts; [`MdLines::end`] ends it.
    fn start(&self) -> usize {
        self.text.len()
    }

    /// Ends the line written into `text` since `start`: an empty line if it is blank (or
    /// nothing, after another blank line).
    fn end(&mut self, start: usize) {
        let blank = self.text[start..].trim().is_empty();
        if blank {
            self.text.truncate(start);
            if self.prev_blank {
                return;
            }
        }
        self.text.push('\n');
        self.prev_blank = blank;
    }
}

/// A field-list line (`:returns: text`, `:param x: text`, `:rtype: T`) as (label, text).
fn field_line(line: &str) -> Option<(String, &str)> {
    let rest = line.strip_prefix(':')?;
    let (name, body) = rest
        .split_once(": ")
        .or_else(|| rest.strip_suffix(':').map(|n| (n, "")))?;
    if name.contains('`') || name.is_empty() || name.len() > 40 {
        return None;
    }
    let mut words = name.split_whitespace();
    let label = match (words.next()?, words.next()) {
        ("returns" | "return", None) => "Returns".to_string(),
        ("rtype", None) => "Return type".to_string(),
        ("param" | "parameter", Some(p)) => format!("`{p}`"),
        ("type", Some(p)) => format!("Type of `{p}`"),
        ("raises" | "raise", _) => "Raises".to_string(),
        _ => return None,
    };
    Some((label, body.trim()))
}

/// One ordinary line: indentation limited so Markdown never sees a code block, list
/// markers kept, everything else inline-converted.
fn markdown_line(md: &mut MdLines, line: &str, links: &dyn Links) {
    let indent = indent_of(line).min(3);
    let body = line.trim();
    if body.is_empty() {
        md.blank();
        return;
    }
    let (marker, rest) = if let Some(r) = body
        .strip_prefix("- ")
        .or_else(|| body.strip_prefix("* "))
        .or_else(|| body.strip_prefix("• "))
    {
        ("- ", r)
    } else {
        ("", body)
    };
    let spaces = if marker.is_empty() {
        indent.min(2)
    } else {
        indent
    };
    let line_start = md.start();
    let out = &mut md.text;
    out.extend(std::iter::repeat_n(' ', spaces));
    out.push_str(marker);
    let start = out.len();
    inline_into(out, rest, links);
    if marker.is_empty() {
        // A line of only `=`/`-` would turn the paragraph above into a heading; a leading
        // `#`, `+` or `1)` would start a heading or list Markdown-side.
        let converted = &out[start..];
        if converted.chars().all(|c| c == '=' || c == '-')
            || converted.starts_with('#')
            || converted.starts_with('+')
        {
            out.insert(start, '\\');
        }
    }
    md.end(line_start);
}

fn fence(md: &mut MdLines, body: &[&str]) {
    let min = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent_of(l))
        .min()
        .unwrap_or(0);
    md.blank();
    md.line("```text");
    let mut lines: &[&str] = body;
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines = &lines[..lines.len() - 1];
    }
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines = &lines[1..];
    }
    for l in lines {
        let code = l.get(min..).unwrap_or("");
        if code.contains("```") {
            md.line(&code.replace("```", "` ` `"));
        } else {
            md.line(code);
        }
    }
    md.line("```");
    md.blank();
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The lines after `start` indented deeper than `indent` (blank lines included), and the
/// index of the first line after them.
fn indented_body<'a>(lines: &[&'a str], start: usize, indent: usize) -> (Vec<&'a str>, usize) {
    let mut j = start;
    let mut body = Vec::new();
    while j < lines.len() {
        let l = lines[j];
        if l.trim().is_empty() || indent_of(l) > indent {
            body.push(l);
            j += 1;
        } else {
            break;
        }
    }
    while body.last().is_some_and(|l| l.trim().is_empty()) {
        body.pop();
        j -= 1;
    }
    (body, j)
}

/// The item names a see-also list mentions: role targets, or comma-separated words.
pub fn names_in(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut i = 0;
    let mut found_role = false;
    while let Some(p) = text[i..].find(':') {
        let at = i + p;
        if let Some((body, close)) = role_at(text, at) {
            names.push(role_target(&text[body..close]).to_string());
            found_role = true;
            i = close + 1;
        } else {
            i = at + 1;
        }
    }
    if !found_role {
        names = text
            .split(',')
            .map(|s| role_target(s.trim().trim_matches('`')).to_string())
            .filter(|s| !s.is_empty())
            .collect();
    }
    names
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// RST left in a comment's text (outside code blocks) that [`check`] reports.
const LEFTOVER_RST: [&str; 9] = [
    ":py:obj:",
    ":py:func:",
    ":py:class:",
    ":obj:`",
    ":func:`",
    ".. seealso",
    ".. note::",
    ".. attribute::",
    ".. rubric::",
];

/// RST field-list markers [`check`] reports at the start of a text run or after a space.
const LEFTOVER_FIELDS: [&str; 5] = [":param ", ":param:", ":type ", ":returns:", ":rtype:"];

/// Whether `markdown` may have a problem [`check`] reports: a leftover pattern in its source,
/// an empty link destination, or what could hide a pattern from this test but not from the
/// Markdown parser (a backslash escape of a character the patterns hold, a character
/// reference). A comment without any cannot have a problem, and needs no Markdown parse.
///
/// Every pattern starts with `:` or `..`, so only where one of the characters that start a
/// pattern, a link destination, an escape or a reference is found (with `memchr`, many bytes
/// at a time) is the text compared.
fn may_have_problems(text: &str) -> bool {
    let bytes = text.as_bytes();
    let hit = |at: usize| {
        let rest = &bytes[at..];
        match rest[0] {
            b':' | b'.'
                if rest
                    .get(1)
                    .is_some_and(|c| *c == b'.' || c.is_ascii_lowercase()) =>
            {
                LEFTOVER_RST
                    .iter()
                    .chain(&LEFTOVER_FIELDS)
                    .any(|p| rest.starts_with(p.as_bytes()))
            }
            b'\\' => matches!(rest.get(1), Some(b':' | b'`' | b'.')),
            b']' => {
                rest.starts_with(b"]: <>")
                    || rest.starts_with(b"](") && {
                        let dest = rest[2..].trim_ascii_start();
                        dest.starts_with(b")") || dest.starts_with(b"<>")
                    }
            }
            b'&' => is_reference(&rest[1..]),
            _ => false,
        }
    };
    memchr::memchr3_iter(b':', b'\\', b']', bytes).any(hit)
        || memchr::memchr2_iter(b'.', b'&', bytes).any(hit)
}

/// Whether `rest` (what follows a `&`) starts a character reference: `name;`, `#123;` or
/// `#x7B;`, at most 40 bytes long (entity names are short; the bound keeps the scan linear).
fn is_reference(rest: &[u8]) -> bool {
    let window = &rest[..rest.len().min(40)];
    let Some(end) = window.iter().position(|&c| c == b';') else {
        return false;
    };
    let body = &window[..end];
    match body.strip_prefix(b"#") {
        Some(num) => {
            let digits = num
                .strip_prefix(b"x")
                .or_else(|| num.strip_prefix(b"X"))
                .unwrap_or(num);
            !digits.is_empty() && digits.iter().all(u8::is_ascii_hexdigit)
        }
        None => {
            body.first().is_some_and(u8::is_ascii_alphabetic)
                && body.iter().all(u8::is_ascii_alphanumeric)
        }
    }
}

/// Problems a rustdoc comment must not have: leftover RST and broken Markdown structure.
pub fn check(markdown: &str) -> Vec<String> {
    let problems = Vec::new();
    // Parsing the Markdown is most of a check's cost; a comment without any of the patterns
    // cannot have a problem.
    if !may_have_problems(markdown) {
        return problems;
    }
    check_parsed(markdown)
}

/// The most of a comment parsed at once (outside code blocks). pulldown-cmark holds a tree
/// node for every inline item of what it parses; a line of escapes (`` \` `` a million
/// times over) cost about 50 bytes per byte parsed whole. Parsed in pieces of this size the
/// check's memory stays bounded.
const CHECK_PIECE: usize = 64 * 1024;

/// `markdown` cut into pieces of [`CHECK_PIECE`] to twice that many bytes, each ending after
/// the line that reaches the size, never inside a fenced code block (whose text is not parsed
/// inline); a longer line outside one is cut at its last space before the limit (or at a
/// character boundary). A cut ends a paragraph, which the check (leftover RST in text runs,
/// links without a destination) reads the same but for an inline span that crosses the cut.
fn check_pieces(markdown: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let (mut start, mut offset, mut fenced) = (0, 0, false);
    for line in markdown.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        }
        if !fenced && line.len() > CHECK_PIECE {
            if offset > start {
                pieces.push(&markdown[start..offset]);
            }
            let (mut at, end) = (offset, offset + line.len());
            while end - at > CHECK_PIECE {
                let mut cut = at + CHECK_PIECE;
                while !markdown.is_char_boundary(cut) {
                    cut -= 1;
                }
                if let Some(space) = markdown[at..cut].rfind(' ').filter(|&i| i > 0) {
                    cut = at + space + 1;
                }
                pieces.push(&markdown[at..cut]);
                at = cut;
            }
            start = at;
        }
        offset += line.len();
        if !fenced && offset - start >= CHECK_PIECE {
            pieces.push(&markdown[start..offset]);
            start = offset;
        }
    }
    if start < markdown.len() {
        pieces.push(&markdown[start..]);
    }
    pieces
}

/// [`check`] without the quick test: every comment is parsed, in pieces
/// ([`check_pieces`]).
fn check_parsed(markdown: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for piece in check_pieces(markdown) {
        check_piece(piece, &mut problems);
    }
    problems
}

/// The check of one piece of a comment, its problems added to `problems`.
fn check_piece(markdown: &str, problems: &mut Vec<String>) {
    let mut in_code_block = false;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
            Event::End(pulldown_cmark::TagEnd::CodeBlock) => in_code_block = false,
            Event::Start(Tag::Link { dest_url, .. }) if dest_url.is_empty() => {
                problems.push("a link without a destination".into());
            }
            Event::Text(t) if !in_code_block => {
                for leftover in LEFTOVER_RST {
                    if t.contains(leftover) {
                        problems.push(format!(
                            "leftover RST `{leftover}` in: {}",
                            t.chars().take(80).collect::<String>()
                        ));
                    }
                }
                // Field lists only count at the start of a text run or after a space.
                for field in LEFTOVER_FIELDS {
                    let hit = t
                        .match_indices(field)
                        .any(|(at, _)| at == 0 || t[..at].ends_with(char::is_whitespace));
                    if hit {
                        problems.push(format!(
                            "leftover RST `{field}` in: {}",
                            t.chars().take(80).collect::<String>()
                        ));
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_comments_are_checked_in_pieces_that_cover_them_whole() {
        let long_line = format!("{}\n", "\\` ".repeat(50_000));
        let fence = format!("```text\n{}```\n", "code line\n".repeat(20_000));
        let md = format!(
            "intro\n\n{long_line}{fence}{}",
            "para line\n".repeat(20_000)
        );
        let pieces = check_pieces(&md);
        assert_eq!(pieces.concat(), md, "the pieces are the comment, in order");
        assert!(pieces.len() > 3);
        for p in &pieces {
            // A piece ends after the line that reaches the limit (so less than twice it);
            // only a fenced block, never cut, may be longer.
            assert!(
                p.len() < 2 * CHECK_PIECE || p.contains("```text"),
                "{}",
                p.len()
            );
        }
        // A problem far into a long comment is still found.
        let late = format!("{}:param x: the size\n", "plain line\n".repeat(30_000));
        assert!(
            check(&late).iter().any(|p| p.contains(":param")),
            "{:?}",
            check(&late)
        );
        let in_code = format!("```\n{}:param x:\n```\n", "code\n".repeat(30_000));
        assert!(check(&in_code).is_empty());
    }

    fn links(name: &str) -> Option<String> {
        (name.starts_with("cuda") && !name.contains("Error")).then(|| format!("crate::{name}"))
    }

    #[test]
    fn roles_become_links_or_code() {
        let md = inline(
            "Use :py:obj:`~.cudaMalloc()` or :py:obj:`~.cuCtxSynchronize` on `*devPtr`.",
            &links,
        );
        assert_eq!(
            md,
            "Use [`cudaMalloc`](crate::cudaMalloc) or `cuCtxSynchronize` on `*devPtr`."
        );
    }

    #[test]
    fn plain_runs_keep_every_character() {
        let text = "Größe — ünïcode: hält :py:obj:`~.cudaFree` and h₂o [x] é";
        assert_eq!(
            inline(text, &links),
            "Größe — ünïcode: hält [`cudaFree`](crate::cudaFree) and h₂o \\[x\\] é"
        );
    }

    #[test]
    fn markdown_hazards_are_escaped() {
        let md = inline(
            "a[i] < b > c | d see https://docs.nvidia.com/x.html.",
            &NoLinks,
        );
        assert_eq!(
            md,
            "a\\[i\\] \\< b \\> c \\| d see <https://docs.nvidia.com/x.html>."
        );
    }

    #[test]
    fn blocks() {
        let rst = "Intro line.\n\n- item one\n  continued\n\n.. note::\n\n   Be careful with :py:obj:`~.cudaFree`.\n\nView CUDA Toolkit Documentation for a C++ code example\n\n.. seealso:: :py:obj:`~.cudaMalloc`, :py:obj:`~.cudaFree`\n\n.. rubric:: Notes\n\nExample::\n\n    int x = 1;\n";
        let c = convert(rst, &links);
        assert_eq!(c.see_also, vec!["cudaMalloc", "cudaFree"]);
        assert!(
            c.markdown.contains("- item one\n  continued"),
            "{}",
            c.markdown
        );
        assert!(c
            .markdown
            .contains("> **Note:** Be careful with [`cudaFree`](crate::cudaFree)."));
        assert!(c.markdown.contains("**Notes**"));
        assert!(
            c.markdown.contains("```text\nint x = 1;\n```"),
            "{}",
            c.markdown
        );
        assert!(!c.markdown.contains("View CUDA Toolkit"));
        assert!(check(&c.markdown).is_empty(), "{:?}", check(&c.markdown));
    }

    #[test]
    fn deep_indentation_never_makes_a_code_block() {
        let c = convert("Text\n\n        deeply indented\n", &NoLinks);
        assert!(!c.markdown.contains("    deeply"), "{}", c.markdown);
    }

    #[test]
    fn the_quick_test_hides_no_problem() {
        for md in [
            "text :py:obj:`~.x`",
            "escaped :py\\:obj\\:`x` still shows",
            "an entity &#58;py:obj: or &colon;func:`x`",
            "a [link]() and [another]( <> )",
            "- :param x: a field\n- :rtype: int",
            "```\n:py:obj:`x` in a code block\n```",
            "plain text with [a link](crate::cudaMalloc), `code` and a \\[bracket\\].",
        ] {
            assert_eq!(check(md), check_parsed(md), "{md}");
        }
        assert!(!check("text :py:obj:`~.x`").is_empty());
        assert!(!check("a [link]() here").is_empty());
    }

    #[test]
    fn check_finds_leftovers() {
        assert!(!check("text :py:obj:`~.x`").is_empty());
        assert!(check("text `:py:obj:` in code").is_empty());
    }
}
