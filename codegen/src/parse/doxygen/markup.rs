//! Doxygen markup of one comment → its parts, with the text as the reStructuredText the other
//! front ends produce (so [`crate::rustdoc`] converts all of them alike).
//!
//! Paragraph commands split the comment: `\brief`, `\param[dir] name - text` (also written
//! `\param [dir] name`), `\return(s)` /
//! `\retval` (the `::code` names become the status codes), `\sa`/`\see`, `\note` (and
//! `\remark`, `\warning`, `\attention`), `\deprecated`, `\par`, `\section`. A paragraph ends at
//! a blank line or at the next paragraph command. Inline: `::name` and `\ref name` become
//! ``:py:obj:`~.name` `` roles (`\link target text \endlink` too: to the item its text names
//! when that is one identifier, as in `\link #nvrtcResult NVRTC_SUCCESS \endlink`, else to the
//! target with the text shown), `\p x`/`\c x`/`\a x` and `<tt>` code spans, `\e`/`\b` and
//! `<i>`/`<b>` emphasis, `\n`/`<br>` line breaks, `<ol>`/`<ul>`/`<li>` list items, HTML and
//! DocBook tables rows of ` | `-separated cells, `<a href>` links, HTML entities;
//! `\code … \endcode` becomes a `.. code-block::`. Aliases the header does not define
//! (`\notefnerr`) are rendered from [`super::aliases`]. Grouping commands (`\defgroup`,
//! `\addtogroup`, `\ingroup`, `@{`, `@}`) and `\page` are returned for the caller.
//!
//! Nothing is dropped silently: text in output-format-only blocks (`\latexonly`, `\htmlonly`,
//! …) and `\cond` sections is skipped with a note saying how many lines; an unknown command
//! or alias is a warning naming it, and its name stays in the text. This module does not know
//! what the comment documents ([`super`] does).

use crate::diag::Severity;
use crate::ir::Direction;

use super::aliases::{AliasKind, Aliases};
use super::scan::DocComment;

/// A problem found in a comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub severity: Severity,
    pub line: u32,
    pub message: String,
}

/// A `\param` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamDoc {
    pub name: String,
    /// `[in]` → In, `[out]` → Out, `[in,out]` → In (the binding makes a writable pointer of
    /// it); `None` when not stated.
    pub direction: Option<Direction>,
    pub text: String,
    pub line: u32,
}

/// Grouping commands of a comment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Groups {
    /// `\defgroup id title`.
    pub define: Option<(String, String)>,
    /// `\addtogroup id [title]`.
    pub add: Option<(String, Option<String>)>,
    /// `\ingroup id…`.
    pub ingroup: Vec<String>,
    /// Number of `@{`.
    pub opens: usize,
    /// Number of `@}`.
    pub closes: usize,
}

/// What one comment says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocBlock {
    /// `\brief` text.
    pub brief: String,
    /// The description as RST (notes, code blocks, lists included).
    pub description: String,
    pub params: Vec<ParamDoc>,
    /// Status codes named in `\return`/`\retval` paragraphs.
    pub errors: Vec<String>,
    /// Names listed by `\sa`.
    pub see_also: Vec<String>,
    /// Whether a `\deprecated` paragraph was read (its text is in the description).
    pub deprecated: bool,
    pub groups: Groups,
    /// `\page id title`: the title.
    pub page: Option<String>,
    /// A `\cond` that this comment does not close (the code after it is skipped up to the
    /// comment with the `\endcond`).
    pub cond_open: bool,
    /// An `\endcond` closing a `\cond` of an earlier comment.
    pub cond_close: bool,
    pub problems: Vec<Problem>,
}

impl DocBlock {
    /// The brief and the description, as one RST text.
    pub fn doc_text(&self) -> String {
        match (self.brief.is_empty(), self.description.is_empty()) {
            (true, _) => self.description.clone(),
            (false, true) => self.brief.clone(),
            (false, false) => format!("{}\n\n{}", self.brief, self.description),
        }
    }

    /// Whether the comment documents anything (text, parameters, codes, see-also).
    pub fn has_content(&self) -> bool {
        !self.brief.is_empty()
            || !self.description.is_empty()
            || !self.params.is_empty()
            || !self.errors.is_empty()
            || !self.see_also.is_empty()
    }
}

/// Reads `comment`. `in_cond`: the comment starts inside a `\cond` section of an earlier
/// one (its text is skipped up to `\endcond`).
pub fn parse(comment: &DocComment, aliases: &Aliases, in_cond: bool) -> DocBlock {
    let mut b = Builder::new(aliases, comment.line);
    if in_cond {
        b.skip = Some(Skip {
            end: "endcond",
            line: comment.line,
            lines: 0,
            cond: true,
        });
    }
    for (ln, text) in &comment.lines {
        b.line(text, *ln);
    }
    b.finish()
}

/// The paragraph being read.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    Description,
    Brief,
    Param(usize),
    Return,
    SeeAlso,
    Note(&'static str),
    Deprecated,
    Par(String),
}

/// A region whose text is not read, up to the command `end`.
struct Skip {
    end: &'static str,
    line: u32,
    lines: usize,
    /// A `\cond` section (may span comments).
    cond: bool,
}

/// Most nested HTML lists kept apart; deeper ones are read as the deepest.
const MAX_LIST_DEPTH: usize = 16;

/// Longest HTML tag looked for, in bytes (so a line of `<` is read in linear time).
const MAX_TAG: usize = 256;

/// Longest `\ref` signature or shown text looked for, in bytes.
const MAX_ARG: usize = 512;

struct Builder<'a> {
    aliases: &'a Aliases,
    out: DocBlock,
    target: Target,
    /// The current paragraph's text when the target is not the description.
    buf: String,
    desc: String,
    line: u32,
    /// Open HTML lists: ordered or not.
    lists: Vec<bool>,
    cells: usize,
    /// An open `<a href>`: where its text starts in the current buffer, and its URL.
    link: Option<(usize, String)>,
    /// Plain words of the current `\sa` item.
    sa_plain: String,
    /// Plain text of the current `\return` paragraph.
    ret_plain: String,
    skip: Option<Skip>,
    /// Inside `\code`: the lines so far and the opening line.
    code: Option<(u32, Vec<String>)>,
    /// Inside a man-page summary (`___MANBRIEF___ … ___ENDMANBRIEF___`).
    man: Option<u32>,
    /// Alias expansion depth (aliases inside alias texts are not expanded).
    alias_depth: usize,
    /// A word command (`\p`) at the end of a line: it applies to the next line's first word.
    carry: Option<&'static str>,
}

/// Commands that take the rest of the line as their argument or start a paragraph; used to
/// tell a `@word` command from an `@` in prose.
const KNOWN: &[&str] = &[
    "brief",
    "short",
    "details",
    "param",
    "return",
    "returns",
    "result",
    "retval",
    "sa",
    "see",
    "note",
    "remark",
    "remarks",
    "warning",
    "attention",
    "deprecated",
    "par",
    "section",
    "subsection",
    "subsubsection",
    "defgroup",
    "addtogroup",
    "weakgroup",
    "ingroup",
    "page",
    "mainpage",
    "name",
    "code",
    "endcode",
    "verbatim",
    "endverbatim",
    "latexonly",
    "endlatexonly",
    "htmlonly",
    "endhtmlonly",
    "rtfonly",
    "endrtfonly",
    "manonly",
    "endmanonly",
    "docbookonly",
    "enddocbookonly",
    "xmlonly",
    "endxmlonly",
    "cond",
    "endcond",
    "internal",
    "endinternal",
    "n",
    "p",
    "a",
    "c",
    "e",
    "em",
    "b",
    "ref",
    "link",
    "endlink",
    "anchor",
];

fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The RST role that links `name` (`:py:obj:`~.name``), written at the end of `out`.
fn push_role(out: &mut String, name: &str) {
    out.push_str(":py:obj:`~.");
    out.push_str(name);
    out.push('`');
}

fn indent(text: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    crate::text::lines(text)
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Collapses runs of blank lines and trims.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for l in crate::text::lines(text) {
        let l = l.trim_end();
        if l.is_empty() {
            blank_run += 1;
            if blank_run == 1 && !out.is_empty() {
                out.push('\n');
            }
            continue;
        }
        blank_run = 0;
        out.push_str(l);
        out.push('\n');
    }
    // Trimmed in place.
    let end = out.trim_end().len();
    let start = (out.len() - out.trim_start().len()).min(end);
    out.truncate(end);
    out.drain(..start);
    out
}

fn entity(name: &str) -> Option<&'static str> {
    Some(match name {
        "times" => "×",
        "lt" => "<",
        "gt" => ">",
        "amp" => "&",
        "nbsp" => " ",
        "quot" => "\"",
        "apos" => "'",
        "le" => "≤",
        "ge" => "≥",
        "ne" => "≠",
        "minus" => "−",
        "mdash" => "—",
        "ndash" => "–",
        "rarr" => "→",
        "larr" => "←",
        "deg" => "°",
        "plusmn" => "±",
        "micro" => "µ",
        "copy" => "©",
        _ => return None,
    })
}

/// The rest of `s` after byte `k`, trimmed.
fn rest_of_line(s: &str, k: usize) -> String {
    s.get(k..).unwrap_or("").trim().to_string()
}

/// A word argument: up to whitespace or `<`, without trailing punctuation.
fn word_at(s: &str, from: usize) -> (&str, usize) {
    let b = s.as_bytes();
    let mut i = from;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    let start = i;
    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'<' {
        i += 1;
    }
    let mut end = i;
    let w = &s[start..end];
    let opens = w.matches('(').count();
    let trimmed = w.trim_end_matches(|c: char| {
        matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '\'' | '"') || (c == ')' && opens == 0)
    });
    end = start + trimmed.len();
    (&s[start..end], end)
}

impl<'a> Builder<'a> {
    fn new(aliases: &'a Aliases, line: u32) -> Self {
        Builder {
            aliases,
            out: DocBlock::default(),
            target: Target::Description,
            buf: String::new(),
            desc: String::new(),
            line,
            lists: Vec::new(),
            cells: 0,
            link: None,
            sa_plain: String::new(),
            ret_plain: String::new(),
            skip: None,
            code: None,
            man: None,
            alias_depth: 0,
            carry: None,
        }
    }

    fn problem(&mut self, severity: Severity, message: impl Into<String>) {
        self.out.problems.push(Problem {
            severity,
            line: self.line,
            message: message.into(),
        });
    }

    fn cur(&mut self) -> &mut String {
        if self.target == Target::Description {
            &mut self.desc
        } else {
            &mut self.buf
        }
    }

    fn push(&mut self, s: &str) {
        match self.target {
            Target::SeeAlso => self.sa_plain.push_str(s),
            Target::Return => self.ret_plain.push_str(s),
            _ => {}
        }
        self.cur().push_str(s);
    }

    /// A reference to `name` (and its see-also / status-code bookkeeping); `shown` is the
    /// text a `\ref` gives.
    fn reference(&mut self, name: &str, shown: Option<&str>) {
        match self.target {
            Target::SeeAlso => {
                self.flush_sa();
                self.out
                    .see_also
                    .push(shown.unwrap_or(name).trim().to_string());
                push_role(self.cur(), name);
                return;
            }
            Target::Return => self.out.errors.push(name.to_string()),
            _ => {}
        }
        let out = self.cur();
        match shown {
            Some(text) if text != name => {
                out.push_str(":py:obj:`");
                out.push_str(text);
                out.push_str(" <");
                out.push_str(name);
                out.push_str(">`");
            }
            _ => push_role(out, name),
        }
    }

    fn flush_sa(&mut self) {
        let item = self
            .sa_plain
            .trim()
            .trim_end_matches('.')
            .trim()
            .to_string();
        if !item.is_empty() {
            self.out.see_also.push(item);
        }
        self.sa_plain.clear();
    }

    fn end_para(&mut self) {
        if let Some((_, _)) = self.link.take() {
            self.problem(Severity::Warning, "`<a>` link not closed in its paragraph");
        }
        let text = tidy(&std::mem::take(&mut self.buf));
        match std::mem::replace(&mut self.target, Target::Description) {
            Target::Description => {}
            Target::Brief => {
                if !self.out.brief.is_empty() {
                    self.out.brief.push(' ');
                }
                self.out.brief.push_str(&text);
            }
            Target::Param(i) => {
                if let Some(p) = self.out.params.get_mut(i) {
                    p.text = crate::text::lines(&text)
                        .map(str::trim)
                        .collect::<Vec<_>>()
                        .join("\n");
                }
            }
            Target::Return => {
                let plain = std::mem::take(&mut self.ret_plain);
                let words = plain
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| !w.is_empty() && w != "and" && w != "or");
                if words {
                    self.desc
                        .push_str(&format!("\n\n:returns: {}\n\n", flat(&text)));
                }
            }
            Target::SeeAlso => self.flush_sa(),
            Target::Note(label) => self.note(label, &text),
            Target::Deprecated => {
                self.out.deprecated = true;
                self.desc
                    .push_str(&format!("\n\n**Deprecated:** {text}\n\n"));
            }
            Target::Par(title) => {
                if !title.is_empty() {
                    self.desc.push_str(&format!("\n\n**{title}**\n\n"));
                }
                self.desc.push_str(&format!("\n\n{text}\n\n"));
            }
        }
    }

    fn note(&mut self, label: &str, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        self.desc
            .push_str(&format!("\n\n.. {label}::\n\n{}\n\n", indent(text, 3)));
    }

    fn start(&mut self, t: Target) {
        self.end_para();
        self.target = t;
    }

    fn blank(&mut self) {
        if self.target == Target::Description {
            self.desc.push('\n');
        } else {
            self.end_para();
        }
    }

    fn line(&mut self, raw: &str, ln: u32) {
        self.line = ln;
        let mut rest = raw;
        loop {
            if let Some(skip) = &mut self.skip {
                match find_cmd(rest, skip.end) {
                    Some((at, after)) => {
                        if !rest[..at].trim().is_empty() {
                            skip.lines += 1;
                        }
                        let (line, lines, end, cond) = (skip.line, skip.lines, skip.end, skip.cond);
                        self.skip = None;
                        self.report_skip(line, lines, end, cond);
                        // `\endcond label`: the label is not text.
                        rest = if cond {
                            &rest[word_at(rest, after).1..]
                        } else {
                            &rest[after..]
                        };
                        continue;
                    }
                    None => {
                        if !rest.trim().is_empty() {
                            skip.lines += 1;
                        }
                        return;
                    }
                }
            }
            if self.man.is_some() {
                match rest.find("___ENDMANBRIEF___") {
                    Some(at) => {
                        self.man = None;
                        rest = &rest[at + "___ENDMANBRIEF___".len()..];
                        continue;
                    }
                    None => return,
                }
            }
            if let Some((_, lines)) = &mut self.code {
                if lines.is_empty() && rest.trim().is_empty() {
                    return;
                }
                match find_cmd(rest, "endcode").or_else(|| find_cmd(rest, "endverbatim")) {
                    Some((at, after)) => {
                        if !rest[..at].trim().is_empty() {
                            lines.push(rest[..at].to_string());
                        }
                        self.finish_code();
                        rest = &rest[after..];
                        continue;
                    }
                    None => {
                        lines.push(rest.to_string());
                        return;
                    }
                }
            }
            if rest.trim().is_empty() {
                if std::ptr::eq(rest, raw) {
                    self.blank();
                } else {
                    self.newline();
                }
                return;
            }
            if let Some(cmd) = self.carry.take() {
                let (w, k) = word_at(rest, 0);
                self.styled(cmd, w);
                rest = &rest[k..];
                continue;
            }
            match self.scan(rest) {
                Some(at) => rest = &rest[at..],
                None => {
                    self.newline();
                    return;
                }
            }
        }
    }

    /// A word styled by a word command (`p`, `e`, `b`).
    fn styled(&mut self, cmd: &str, w: &str) {
        let text = match cmd {
            "e" => format!("*{w}*"),
            "b" => format!("**{w}**"),
            _ => format!("``{w}``"),
        };
        self.push(&text);
    }

    fn newline(&mut self) {
        match self.target {
            Target::SeeAlso => self.sa_plain.push(' '),
            _ => self.push("\n"),
        }
    }

    fn report_skip(&mut self, line: u32, lines: usize, end: &str, cond: bool) {
        if lines == 0 {
            return;
        }
        let what = if cond {
            "a `\\cond` section (text Doxygen leaves out of the reference)".to_string()
        } else {
            format!(
                "a `\\{}` block (text for one output format only)",
                end.trim_start_matches("end")
            )
        };
        self.out.problems.push(Problem {
            severity: Severity::Note,
            line,
            message: format!("{lines} line(s) of {what} not read"),
        });
    }

    fn finish_code(&mut self) {
        if let Some((_, lines)) = self.code.take() {
            let min = lines
                .iter()
                .filter(|l| !l.trim().is_empty())
                .map(|l| l.len() - l.trim_start().len())
                .min()
                .unwrap_or(0);
            let body: Vec<String> = lines
                .iter()
                .map(|l| format!("    {}", l.get(min..).unwrap_or("").trim_end()))
                .collect();
            let block = format!("\n\n.. code-block:: c\n\n{}\n\n", body.join("\n"));
            self.cur().push_str(&block);
        }
    }

    fn finish(mut self) -> DocBlock {
        if let Some((line, _)) = &self.code {
            let line = *line;
            self.line = line;
            self.problem(
                Severity::Warning,
                "`\\code` without `\\endcode`: read up to the end of the comment",
            );
            self.finish_code();
        }
        if let Some(skip) = self.skip.take() {
            if skip.cond {
                self.out.cond_open = true;
                self.report_skip(skip.line, skip.lines, skip.end, true);
            } else {
                self.line = skip.line;
                self.problem(
                    Severity::Warning,
                    format!(
                        "`\\{}` not found: {} line(s) up to the end of the comment not read",
                        skip.end, skip.lines
                    ),
                );
            }
        }
        if let Some(cmd) = self.carry.take() {
            self.problem(
                Severity::Warning,
                format!("`\\{cmd}` at the end of the comment without a word"),
            );
        }
        if let Some(line) = self.man {
            self.line = line;
            self.problem(
                Severity::Warning,
                "`___MANBRIEF___` without `___ENDMANBRIEF___`: the rest of the comment was not read",
            );
        }
        self.end_para();
        self.out.description = tidy(&self.desc);
        self.out.brief = flat(&self.out.brief);
        self.out
    }

    /// Scans one line (or its rest). Returns where it stopped when a mode change (a skipped
    /// region, a code block, a man-page summary) needs [`Builder::line`] to go on.
    fn scan(&mut self, s: &str) -> Option<usize> {
        debug_assert!(b"\\@:<&_,".iter().all(|&c| SCAN_STOPS[usize::from(c)]));
        let b = s.as_bytes();
        let mut i = 0;
        let mut plain_start = 0;
        macro_rules! flush {
            () => {
                self.push_text(&s[plain_start..i])
            };
        }
        while i < b.len() {
            let c = b[i];
            match c {
                b'\\' | b'@' => match self.command_at(s, i, &s[plain_start..i]) {
                    Step::Text(j) => i = j,
                    Step::Continue(k) => {
                        i = k;
                        plain_start = k;
                    }
                    Step::Stop(k) => return (k < s.len()).then_some(k),
                },
                b':' if b.get(i + 1) == Some(&b':')
                    && b.get(i + 2)
                        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
                    && (i == 0 || !is_ident_byte(b[i - 1])) =>
                {
                    flush!();
                    i = self.qualified_reference(s, i);
                    plain_start = i;
                }
                b'<' => {
                    flush!();
                    plain_start = i;
                    match self.html(s, i) {
                        Some(end) => {
                            i = end;
                            plain_start = i;
                        }
                        None => i += 1,
                    }
                }
                b'&' => {
                    let semi = find_within(s, i, b';', 10).filter(|&n| n > 1);
                    match semi.and_then(|n| entity(&s[i + 1..i + n]).map(|e| (n, e))) {
                        Some((n, e)) => {
                            flush!();
                            self.push(e);
                            i += n + 1;
                            plain_start = i;
                        }
                        None => i += 1,
                    }
                }
                b'_' if s[i..].starts_with("___MANBRIEF___") => {
                    flush!();
                    self.man = Some(self.line);
                    return Some(i + "___MANBRIEF___".len());
                }
                b',' if self.target == Target::SeeAlso => {
                    flush!();
                    self.flush_sa();
                    self.cur().push(',');
                    i += 1;
                    plain_start = i;
                }
                _ => {
                    // Plain text: on to the next byte an arm above looks at (all ASCII, so
                    // never inside a UTF-8 sequence).
                    i += 1;
                    while i < b.len() && !SCAN_STOPS[usize::from(b[i])] {
                        i += 1;
                    }
                }
            }
        }
        flush!();
        None
    }

    /// A `\` or `@` at `i` of `s`: a group mark (`@{`, `@}`), an escaped character, or a
    /// command; an `@word` that names no command is text. `text`, the plain text before `i`,
    /// is pushed before whatever markup this is.
    fn command_at(&mut self, s: &str, i: usize, text: &str) -> Step {
        let b = s.as_bytes();
        let c = b[i];
        let next = b.get(i + 1).copied().unwrap_or(b' ');
        if c == b'@' && (next == b'{' || next == b'}') {
            self.push_text(text);
            if next == b'{' {
                self.out.groups.opens += 1;
            } else {
                self.out.groups.closes += 1;
            }
            return Step::Continue(i + 2);
        }
        if c == b'\\' && !is_ident_byte(next) {
            self.push_text(text);
            return Step::Continue(self.escaped(s, i));
        }
        let mut j = i + 1;
        while j < b.len() && is_ident_byte(b[j]) {
            j += 1;
        }
        let name = &s[i + 1..j];
        if c == b'@' && !KNOWN.contains(&name) && self.aliases.get(name).is_none() {
            return Step::Text(j);
        }
        self.push_text(text);
        self.command(name, s, j)
    }

    /// Pushes plain `text`, if any.
    fn push_text(&mut self, text: &str) {
        if !text.is_empty() {
            self.push(text);
        }
    }

    /// An escaped character at `i` of `s` (`\\`, `\@`, `\&`, `\<`, `\::`…) as text;
    /// returns the index after it.
    fn escaped(&mut self, s: &str, i: usize) -> usize {
        let b = s.as_bytes();
        if b.get(i + 1) == Some(&b':') && b.get(i + 2) == Some(&b':') {
            self.push("::");
            i + 3
        } else if i + 1 < b.len() {
            let ch = s[i + 1..].chars().next().unwrap_or(' ');
            self.push(&ch.to_string());
            i + 1 + ch.len_utf8()
        } else {
            i + 1
        }
    }

    /// `::name` (or `::name()`) at `i` of `s`: a reference to `name`; in `::A::b` (a member)
    /// the link is to `A` and the rest is text. Returns the index after it.
    fn qualified_reference(&mut self, s: &str, i: usize) -> usize {
        let b = s.as_bytes();
        let mut j = i + 2;
        while j < b.len() && is_ident_byte(b[j]) {
            j += 1;
        }
        let name = &s[i + 2..j];
        let mut k = j;
        if s[k..].starts_with("()") {
            k += 2;
        }
        self.reference(name, None);
        let mut m = k;
        while s[m..].starts_with("::")
            && b.get(m + 2)
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        {
            m += 2;
            while m < b.len() && is_ident_byte(b[m]) {
                m += 1;
            }
        }
        if m > k {
            let tail = &s[k..m];
            self.cur().push_str(tail);
        }
        m
    }

    /// An HTML tag at `i`, if it is one this reader knows; returns the index after it.
    fn html(&mut self, s: &str, i: usize) -> Option<usize> {
        let b = s.as_bytes();
        let mut j = i + 1;
        let closing = b.get(j) == Some(&b'/');
        if closing {
            j += 1;
        }
        let name_start = j;
        while j < b.len() && b[j].is_ascii_alphanumeric() {
            j += 1;
        }
        if j == name_start {
            return None;
        }
        let name = s[name_start..j].to_ascii_lowercase();
        let close = find_within(s, j, b'>', MAX_TAG)? + j;
        let attrs = &s[j..close];
        if attrs.contains('<') || (!attrs.is_empty() && !attrs.starts_with([' ', '/'])) {
            return None;
        }
        let end = close + 1;
        match (name.as_str(), closing) {
            ("ol" | "ul", false) => {
                if self.lists.len() < MAX_LIST_DEPTH {
                    self.lists.push(name == "ol");
                }
                self.push("\n");
            }
            ("ol" | "ul", true) => {
                self.lists.pop();
                self.push("\n");
            }
            ("li", false) => {
                let depth = self.lists.len().max(1);
                let marker = if self.lists.last() == Some(&true) {
                    "1. "
                } else {
                    "- "
                };
                self.push(&format!("\n{}{marker}", "  ".repeat(depth - 1)));
                // The item's text starts after the blanks that follow the tag.
                let skip = s[end..].len() - s[end..].trim_start_matches([' ', '\t']).len();
                return Some(end + skip);
            }
            ("li", true) => {}
            ("b" | "strong", _) => self.push("**"),
            ("i" | "em", _) => self.push("*"),
            ("tt" | "code", _) => self.push("``"),
            ("br", _) => self.push("\n"),
            ("p", _) => self.push("\n\n"),
            ("table", _) => self.push("\n"),
            ("tr" | "row", false) => {
                self.cells = 0;
                self.push("\n- ");
            }
            ("td" | "th" | "entry", false) => {
                if self.cells > 0 {
                    self.push(" | ");
                }
                self.cells += 1;
            }
            ("tr" | "row" | "td" | "th" | "entry", true)
            | ("thead" | "tbody" | "tgroup" | "colspec" | "tfoot", _) => {}
            ("a", false) => {
                let url = attrs
                    .split("href=\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .unwrap_or("")
                    .to_string();
                let at = self.cur().len();
                self.link = Some((at, url));
            }
            ("a", true) => {
                if let Some((at, url)) = self.link.take() {
                    let buf = self.cur();
                    if at <= buf.len() {
                        let text = buf.split_off(at);
                        if url.is_empty() {
                            buf.push_str(&text);
                        } else {
                            buf.push_str(&format!("`{} <{url}>`_", text.trim()));
                        }
                    }
                }
            }
            _ => return None,
        }
        Some(end)
    }

    /// A command `name` whose name ends at `j` of `s`.
    fn command(&mut self, name: &str, s: &str, j: usize) -> Step {
        match name {
            "brief" | "short" => self.start(Target::Brief),
            "details" => self.start(Target::Description),
            "param" => return self.param(s, j),
            "return" | "returns" | "result" => self.start(Target::Return),
            "retval" => return self.retval(s, j),
            "sa" | "see" => self.start(Target::SeeAlso),
            "note" | "remark" | "remarks" => self.start(Target::Note("note")),
            "warning" => self.start(Target::Note("warning")),
            "attention" => self.start(Target::Note("attention")),
            "deprecated" => self.start(Target::Deprecated),
            "par" => {
                let title = rest_of_line(s, j);
                self.start(Target::Par(title));
                return Step::Stop(s.len());
            }
            "section" | "subsection" | "subsubsection" | "name" => return self.rubric(name, s, j),
            "defgroup" | "addtogroup" | "weakgroup" => return self.group(name, s, j),
            "ingroup" => {
                self.out
                    .groups
                    .ingroup
                    .extend(rest_of_line(s, j).split_whitespace().map(str::to_string));
                return Step::Stop(s.len());
            }
            "page" | "mainpage" => {
                let (_, k) = if name == "page" {
                    word_at(s, j)
                } else {
                    ("", j)
                };
                self.out.page = Some(rest_of_line(s, k));
                return Step::Stop(s.len());
            }
            "code" | "verbatim" => {
                // `\code{.c}`: the language is not kept.
                let mut k = j;
                if s[k..].starts_with('{') {
                    k = s[k..].find('}').map_or(k, |n| k + n + 1);
                }
                self.code = Some((self.line, Vec::new()));
                return Step::Stop(k);
            }
            "endcode" | "endverbatim" => {
                self.problem(Severity::Warning, format!("`\\{name}` without an opening"));
            }
            "latexonly" | "htmlonly" | "rtfonly" | "manonly" | "docbookonly" | "internal"
            | "cond" => return self.skip_region(name, s, j),
            "endcond" => {
                self.out.cond_close = true;
                // `\endcond label`: the label is not text.
                let (_, k) = word_at(s, j);
                return Step::Continue(k);
            }
            "xmlonly" | "endxmlonly" => {}
            "endlatexonly" | "endhtmlonly" | "endrtfonly" | "endmanonly" | "enddocbookonly"
            | "endinternal" => {
                self.problem(Severity::Warning, format!("`\\{name}` without an opening"));
            }
            "n" => self.push("\n"),
            "p" | "a" | "c" | "e" | "em" | "b" => return self.styled_word(name, s, j),
            "anchor" => return Step::Continue(word_at(s, j).1),
            "ref" => return self.ref_(s, j),
            "link" => return self.link(s, j),
            "endlink" => {
                self.problem(Severity::Warning, "`\\endlink` without a `\\link`");
            }
            _ => return self.alias_or_unknown(name, j),
        }
        Step::Continue(j)
    }

    /// `\retval CODE`: a return value, the code a reference.
    fn retval(&mut self, s: &str, j: usize) -> Step {
        self.start(Target::Return);
        let (w, k) = word_at(s, j);
        if !w.is_empty() {
            let w = w.trim_start_matches("::").to_string();
            self.reference(&w, None);
        }
        Step::Continue(k)
    }

    /// `\section ID Title` and its kin, `\name Title`: the title as a rubric.
    fn rubric(&mut self, name: &str, s: &str, j: usize) -> Step {
        self.end_para();
        let (_, k) = if name == "name" {
            ("", j)
        } else {
            word_at(s, j)
        };
        let title = rest_of_line(s, k);
        if !title.is_empty() {
            self.desc.push_str(&format!("\n\n.. rubric:: {title}\n\n"));
        }
        Step::Stop(s.len())
    }

    /// `\defgroup ID Title`, `\addtogroup ID [Title]`, `\weakgroup ID [Title]`.
    fn group(&mut self, name: &str, s: &str, j: usize) -> Step {
        let (id, k) = word_at(s, j);
        let title = rest_of_line(s, k);
        if id.is_empty() {
            self.problem(
                Severity::Warning,
                format!("`\\{name}` without a group name"),
            );
        } else if name == "defgroup" {
            self.out.groups.define = Some((id.to_string(), title));
        } else {
            self.out.groups.add = Some((id.to_string(), (!title.is_empty()).then_some(title)));
        }
        Step::Stop(s.len())
    }

    /// A command opening a region that is not read (`\latexonly` … `\endlatexonly`, `\internal`,
    /// `\cond label` … `\endcond`).
    fn skip_region(&mut self, name: &str, s: &str, j: usize) -> Step {
        let end = match name {
            "latexonly" => "endlatexonly",
            "htmlonly" => "endhtmlonly",
            "rtfonly" => "endrtfonly",
            "manonly" => "endmanonly",
            "docbookonly" => "enddocbookonly",
            "cond" => "endcond",
            _ => "endinternal",
        };
        let cond = name == "cond";
        self.skip = Some(Skip {
            end,
            line: self.line,
            lines: 0,
            cond,
        });
        if cond {
            // `\cond label`: the label is not text.
            Step::Stop(word_at(s, j).1)
        } else {
            Step::Stop(j)
        }
    }

    /// `\p word` and the other one-word styles; a word on the next line is carried to it.
    fn styled_word(&mut self, name: &str, s: &str, j: usize) -> Step {
        let (w, k) = word_at(s, j);
        if w.is_empty() {
            // Doxygen takes the word from the next line.
            if s[k..].trim().is_empty() {
                self.carry = Some(word_command(name));
            } else {
                self.problem(
                    Severity::Warning,
                    format!("`\\{name}` without a word: kept as text"),
                );
                self.push(&format!("\\{name}"));
            }
            return Step::Continue(j);
        }
        self.styled(word_command(name), w);
        Step::Continue(k)
    }

    fn param(&mut self, s: &str, j: usize) -> Step {
        let b = s.as_bytes();
        let mut k = j;
        let mut direction = None;
        // `\param [in] x` (NVRTC's headers) is `\param[in] x`: Doxygen allows the blanks.
        let blanks = b[k..]
            .iter()
            .take_while(|c| **c == b' ' || **c == b'\t')
            .count();
        if b.get(k + blanks) == Some(&b'[') {
            k += blanks;
        }
        if b.get(k) == Some(&b'[') {
            if let Some(close) = find_within(s, k, b']', 16) {
                let spec = s[k + 1..k + close].replace(' ', "").to_ascii_lowercase();
                direction = match spec.as_str() {
                    "in" | "in,out" | "out,in" | "inout" => Some(Direction::In),
                    "out" => Some(Direction::Out),
                    other => {
                        self.problem(
                            Severity::Warning,
                            format!("`\\param[{other}]`: unknown direction, read as not stated"),
                        );
                        None
                    }
                };
                if spec.contains("out") && spec.contains("in") {
                    direction = Some(Direction::In);
                }
                k += close + 1;
            }
        }
        let (name, mut k) = word_at(s, k);
        if name.is_empty() {
            self.problem(Severity::Warning, "`\\param` without a parameter name");
            self.start(Target::Description);
            return Step::Continue(k);
        }
        let name = name.to_string();
        if self.out.params.iter().any(|p| p.name == name) {
            self.problem(
                Severity::Warning,
                format!("parameter `{name}` is documented twice; both texts are kept"),
            );
        }
        // `\param name - text`: the dash is a separator, not text.
        let rest = &s[k..];
        let trimmed = rest.trim_start();
        if let Some(after) = trimmed.strip_prefix('-') {
            if after.is_empty() || after.starts_with([' ', '\t']) {
                k += rest.len() - trimmed.len() + 1;
            }
        }
        self.start(Target::Description);
        self.out.params.push(ParamDoc {
            name,
            direction,
            text: String::new(),
            line: self.line,
        });
        self.target = Target::Param(self.out.params.len() - 1);
        Step::Continue(k)
    }

    /// `\ref target ["text"]`; a target may carry a parenthesised signature.
    fn ref_(&mut self, s: &str, j: usize) -> Step {
        let b = s.as_bytes();
        let mut k = j;
        while k < b.len() && (b[k] == b' ' || b[k] == b'\t') {
            k += 1;
        }
        let start = k;
        while k < b.len() && (is_ident_byte(b[k]) || b[k] == b':' || b[k] == b'.') {
            k += 1;
        }
        let target = s[start..k].trim_end_matches('.').to_string();
        k = start + target.len();
        let mut signature = false;
        if b.get(k) == Some(&b'(') {
            if let Some(close) = find_within(s, k, b')', MAX_ARG) {
                signature = true;
                k += close + 1;
            }
        }
        let mut m = k;
        while m < b.len() && (b[m] == b' ' || b[m] == b'\t') {
            m += 1;
        }
        let mut shown = None;
        if b.get(m) == Some(&b'"') {
            if let Some(close) = find_within(s, m + 1, b'"', MAX_ARG) {
                shown = Some(s[m + 1..m + 1 + close].to_string());
                k = m + close + 2;
            }
        }
        if target.is_empty() {
            self.problem(Severity::Warning, "`\\ref` without a target");
            return Step::Continue(k);
        }
        let name = target.trim_start_matches("::");
        let is_item = target.starts_with("::") && !signature;
        match (is_item, shown) {
            (true, shown) => self.reference(name, shown.as_deref()),
            (false, Some(text)) => {
                if self.target == Target::SeeAlso {
                    self.flush_sa();
                    self.out.see_also.push(text.clone());
                    self.cur().push_str(&text);
                } else {
                    self.push(&text);
                }
            }
            (false, None) => self.push(&format!("``{name}``")),
        }
        Step::Continue(k)
    }

    /// `\link target text \endlink` (the target may be written `#name` or `::name`): a link
    /// to the item the text names when the text is one identifier (`\link #nvrtcResult
    /// NVRTC_SUCCESS \endlink` names a value of the enum it links), else to the target with
    /// the text shown. The text ends at `\endlink` on the same line, looked for within
    /// [`MAX_ARG`] bytes; without one, the target is linked and the rest read as text.
    fn link(&mut self, s: &str, j: usize) -> Step {
        let (word, k) = word_at(s, j);
        let target = word
            .trim_start_matches('#')
            .trim_start_matches("::")
            .to_string();
        if target.is_empty() || !target.bytes().all(is_ident_byte) {
            self.problem(
                Severity::Warning,
                format!("`\\link` without a target name (`{word}`): kept as text"),
            );
            return Step::Continue(k);
        }
        let mut end = (k + MAX_ARG).min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let Some((at, after)) = find_cmd(&s[k..end], "endlink") else {
            self.problem(
                Severity::Warning,
                format!(
                    "`\\link {word}` without `\\endlink` on its line: the rest of the line is text"
                ),
            );
            self.reference(&target, None);
            return Step::Continue(k);
        };
        let text = s[k..k + at].trim();
        if !text.is_empty() && text.bytes().all(is_ident_byte) {
            self.reference(text, None);
        } else if text.is_empty() {
            self.reference(&target, None);
        } else {
            self.reference(&target, Some(text));
        }
        Step::Continue(k + after)
    }

    fn alias_or_unknown(&mut self, name: &str, j: usize) -> Step {
        let Some(alias) = self.aliases.get(name).cloned() else {
            self.problem(
                Severity::Warning,
                format!("unknown Doxygen command or alias `\\{name}`: kept as text"),
            );
            self.push(&format!("\\{name}"));
            return Step::Continue(j);
        };
        if self.alias_depth > 0 {
            self.problem(
                Severity::Warning,
                format!("alias `\\{name}` inside an alias text is not expanded"),
            );
            return Step::Continue(j);
        }
        if !alias.found {
            self.problem(
                Severity::Note,
                format!(
                    "alias `\\{name}`: the publisher's text was not found; rendered as \"{}\"",
                    alias.text
                ),
            );
        }
        self.alias_depth += 1;
        match alias.kind {
            AliasKind::Inline => {
                for (k, l) in crate::text::lines(&alias.text).enumerate() {
                    if k > 0 {
                        self.newline();
                    }
                    let _ = self.scan(l);
                }
            }
            AliasKind::Note => {
                self.end_para();
                for para in alias.text.split("\n\n") {
                    self.target = Target::Note("note");
                    for (k, l) in crate::text::lines(para).enumerate() {
                        if k > 0 {
                            self.newline();
                        }
                        let _ = self.scan(l);
                    }
                    self.end_para();
                }
            }
        }
        self.alias_depth -= 1;
        Step::Continue(j)
    }
}

enum Step {
    /// Not markup (an `@word` naming no command): text, on to this index.
    Text(usize),
    /// Go on scanning the line at this index.
    Continue(usize),
    /// Stop scanning; the line's rest from this index is handed back to [`Builder::line`].
    Stop(usize),
}

/// The style a word command gives: `p` (code), `e` (emphasis) or `b` (bold).
fn word_command(name: &str) -> &'static str {
    match name {
        "e" | "em" => "e",
        "b" => "b",
        _ => "p",
    }
}

/// Offset from `from` of the first `c` within `limit` bytes of `s[from..]`.
fn find_within(s: &str, from: usize, c: u8, limit: usize) -> Option<usize> {
    s.as_bytes()
        .get(from..)?
        .iter()
        .take(limit)
        .position(|&x| x == c)
}

/// Text on one line, whitespace collapsed.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where command `\name` (or `@name`) occurs in `s` as a whole word: (start, end).
fn find_cmd(s: &str, name: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    let mut from = 0;
    while let Some(p) = s[from..].find(name) {
        let at = from + p;
        let end = at + name.len();
        let marked = at > 0 && (b[at - 1] == b'\\' || b[at - 1] == b'@');
        let whole = !b.get(end).is_some_and(|c| is_ident_byte(*c));
        if marked && whole {
            return Some((at - 1, end));
        }
        from = end;
    }
    None
}

/// The bytes [`Builder::scan`] stops at: those that may start a command (`\\`, `@`), a
/// `::name` reference, an HTML tag, an entity, the `___MANBRIEF___` mark or a see-also
/// separator. Everything else is plain text, skipped a byte at a time without a look.
const SCAN_STOPS: [bool; 256] = {
    let mut t = [false; 256];
    let stops = b"\\@:<&_,";
    let mut k = 0;
    while k < stops.len() {
        t[stops[k] as usize] = true;
        k += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    fn block(text: &str) -> DocBlock {
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i as u32 + 10, l.to_string()))
            .collect();
        let c = DocComment {
            line: 10,
            trailing: false,
            in_directive: false,
            lines,
        };
        let aliases = super::super::aliases::committed()
            .as_ref()
            .expect("alias table");
        parse(&c, aliases, false)
    }

    #[test]
    fn a_function_comment() {
        let d = block(
            "\\brief Launches a device function\n\nThe function invokes kernel \\p func on \\p gridDim (\\p gridDim.x &times; 2).\nSee ::cudaMalloc() and ::cudaDeviceProp::major.\n\n\\param func        - Device function symbol\n\\param[out] count - Returned count\n  over two lines\n\n\\return\n::cudaSuccess,\n::cudaErrorInvalidValue\n\\notefnerr\n\\note_null_stream\n\n\\sa\n\\ref ::cudaLaunchKernel(const T *func) \"cudaLaunchKernel (C++ API)\",\n::cuLaunchKernel",
        );
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        assert_eq!(d.brief, "Launches a device function");
        assert!(d
            .description
            .contains("The function invokes kernel ``func`` on ``gridDim`` (``gridDim.x`` × 2)."));
        assert!(d
            .description
            .contains("See :py:obj:`~.cudaMalloc` and :py:obj:`~.cudaDeviceProp`::major."));
        assert_eq!(d.params.len(), 2);
        assert_eq!(d.params[0].name, "func");
        assert_eq!(d.params[0].text, "Device function symbol");
        assert_eq!(d.params[0].direction, None);
        assert_eq!(d.params[1].direction, Some(Direction::Out));
        assert_eq!(d.params[1].text, "Returned count\nover two lines");
        assert_eq!(d.errors, ["cudaSuccess", "cudaErrorInvalidValue"]);
        assert!(d.description.contains(".. note::\n\n   Note that this function may also return error codes from previous, asynchronous launches."), "{}", d.description);
        assert!(d.description.contains("`default stream <https://"));
        assert_eq!(d.see_also, ["cudaLaunchKernel (C++ API)", "cuLaunchKernel"]);
        assert!(!d.description.contains(":returns:"));
    }

    #[test]
    fn groups_lists_tables_code_and_skips() {
        let d = block(
            "\\defgroup CUDART_X Some Title\n___MANBRIEF___ man text\n(___CURRENT_FILE___) ___ENDMANBRIEF___\nIntro.\n<ol>\n<li> One\n<li> Two <b>bold</b>\n</ol>\n<table><tr><td>a</td><td>b</td></tr></table>\n\\code\n  int x = 1;\n\\endcode\n\\latexonly\nhidden\n\\endlatexonly\n@{",
        );
        assert_eq!(
            d.groups.define,
            Some(("CUDART_X".to_string(), "Some Title".to_string()))
        );
        assert_eq!(d.groups.opens, 1);
        assert!(!d.description.contains("man text"));
        assert!(d.description.starts_with("Intro."), "{}", d.description);
        assert!(d.description.contains("\n1. One"), "{}", d.description);
        assert!(d.description.contains("1. Two **bold**"));
        assert!(d.description.contains("- a | b"));
        assert!(d
            .description
            .contains(".. code-block:: c\n\n    int x = 1;"));
        assert!(!d.description.contains("hidden"));
        assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
        assert_eq!(d.problems[0].severity, Severity::Note);
    }

    #[test]
    fn unknown_commands_and_unfound_aliases_are_reported_and_kept() {
        let d = block("Text \\frobnicate here. See the \\link_sync_behavior\n\\deprecated Old.");
        assert!(d.description.contains("\\frobnicate"));
        assert!(d.description.contains("stream synchronization behavior"));
        assert!(d.description.contains("**Deprecated:** Old."));
        assert!(d.deprecated);
        let sev: Vec<Severity> = d.problems.iter().map(|p| p.severity).collect();
        assert_eq!(sev, [Severity::Warning, Severity::Note]);
    }

    #[test]
    fn returns_prose_is_kept() {
        let d = block("\\return ::cudaSuccess if all went well");
        assert_eq!(d.errors, ["cudaSuccess"]);
        assert!(d
            .description
            .contains(":returns: :py:obj:`~.cudaSuccess` if all went well"));
    }

    #[test]
    fn nvrtc_param_directions_with_blanks_and_links_to_enum_values() {
        let d = block(
            "\\brief Sets the version.\n\n\\param   [out] major Major number.\n\\param   [in]  minor Minor.\n\\return\n  - \\link #nvrtcResult NVRTC_SUCCESS \\endlink\n  - \\link #nvrtcResult NVRTC_ERROR_INVALID_INPUT \\endlink\n\nSee \\link ::nvrtcVersion the version query \\endlink.",
        );
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        let params: Vec<(&str, Option<Direction>)> = d
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.direction))
            .collect();
        assert_eq!(
            params,
            [
                ("major", Some(Direction::Out)),
                ("minor", Some(Direction::In))
            ]
        );
        assert_eq!(d.params[0].text, "Major number.");
        assert_eq!(d.errors, ["NVRTC_SUCCESS", "NVRTC_ERROR_INVALID_INPUT"]);
        assert!(
            d.description
                .contains("See :py:obj:`the version query <nvrtcVersion>`."),
            "{}",
            d.description
        );
    }

    #[test]
    fn a_link_without_its_end_or_target_is_reported_and_read_as_text() {
        let d = block(
            "A \\link #nvrtcResult NVRTC_SUCCESS here.\nThen \\endlink alone, and \\link (x).",
        );
        let messages: Vec<&str> = d.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].contains("without `\\endlink`"), "{messages:?}");
        assert!(messages[1].contains("without a `\\link`"), "{messages:?}");
        assert!(
            messages[2].contains("without a target name"),
            "{messages:?}"
        );
        assert!(
            d.description
                .contains(":py:obj:`~.nvrtcResult` NVRTC_SUCCESS here."),
            "{}",
            d.description
        );
    }
}
