//! Parser for the text rendering of the `cuda.bindings.runtime` Sphinx page (seed `001_…`),
//! in any theme.
//!
//! The page is read in two steps:
//!
//! 1. **Front end** ([`scan`], this module): the lines are cut into the neutral
//!    [`Block`] sequence. The page's permalink mark (`#` in the NVIDIA theme, `¶` in furo and
//!    alabaster, an icon character in `sphinx_rtd_theme`, or none) is learnt from the page
//!    ([`super::permalink`]); below, `#` stands for it. At column 0 it recognises, by shape
//!    only:
//!    - `class dotted.Name(args)#` and `class dotted.Name#` → a class object;
//!      `class dotted.Name(` alone, one parameter a line, then `)#` → a class with a
//!      multi-line header (Sphinx writes long enum constructor headers so);
//!    - `dotted.name(params)#` → a function; `dotted.name(` alone, one parameter a line,
//!      then `)#` → a function with a multi-line signature;
//!    - `dotted.name = value#` → a data object (constants, aliases, enum members);
//!    - `Title#` between blank lines → a heading (the first line of the page is its title).
//!
//!    Every other line belongs to the docstring (or heading intro) above it, with its line
//!    number; lines before the first heading or object are reported unread. A signature that
//!    does not close (`dotted.name(a, b` or a multi-line one with no `)#`) is an error
//!    diagnostic; the parameters read so far are kept.
//!
//!    A page with no mark at all is read by shape alone, more strictly: classes and
//!    functions by their qualified name (`m.f(…)`, as the page shows every top-level object),
//!    data objects by their value (an integer, `<E.X: 3>`, `<enum 'Y'>`; an unqualified name
//!    with an integer only in a class's body), and headings, which nothing marks, by their
//!    place and by the word the page starts its sections' intros with
//!    ([`inferred_headings`]): one such page is a warning, since a one-line paragraph can
//!    read as a heading or a heading as a paragraph. The real pages of every release at hand
//!    read so exactly, sections included (`codegen/tests/themes.rs`).
//! 2. **Builder** ([`super::sphinx_blocks`]) turns blocks into IR items, reading docstrings
//!    with [`super::docstring`]. Both are shared with the HTML front end.
//!
//! Nothing here lists CUDA names; another release's page in this format parses the same way.

use std::borrow::Cow;

use crate::diag::Diagnostics;
use crate::ir::Api;

use super::blocks::{Block, DocLine, Heading, Object, ObjectKind};
use super::permalink::{self, Permalink};
use super::signature::{self, is_dotted_ident, DataValue};
use super::sphinx_blocks;
use super::unread::{self, Runs};

/// Longest multi-line signature, in lines, before it counts as unclosed.
const MAX_SIGNATURE_LINES: usize = 256;

/// Longest heading, in bytes.
const MAX_HEADING: usize = 200;

/// Longest heading inferred on a page without permalink marks, in bytes; and the longest of a
/// second heading right after another (an empty section's).
const MAX_INFERRED_HEADING: usize = 120;
const MAX_NEXT_HEADING: usize = 60;

/// Parses the text rendering of a `cuda.bindings.runtime` page.
pub fn parse(file: &str, text: &str) -> Api {
    let mut diags = Diagnostics::new(file);
    let blocks = scan(text, &mut diags);
    let mut api = sphinx_blocks::build(&blocks, &mut diags);
    api.diagnostics = diags.into_vec();
    api
}

/// What a line at column 0 starts.
enum Start<'a> {
    Heading(&'a str),
    Class(&'a str),
    Function(&'a str),
    /// `dotted.name(` alone, or `class dotted.Name(` alone (the kind says which).
    MultiLine(ObjectKind, &'a str),
    /// `dotted.name(args…` or `class dotted.Name(args…` with no `)#`.
    Unclosed(ObjectKind, &'a str),
    Data(&'a str),
}

/// The page as the classifier sees it.
struct Page<'l, 'a> {
    lines: &'l [&'a str],
    mark: Permalink,
    /// With no mark: the lines read as headings ([`inferred_headings`]).
    headings: Vec<bool>,
}

fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

fn line_no(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

/// Classifies line `i` of the page. `in_class`: the object before it is a class or one of
/// its members (an unqualified `X = 0` is a member there, on a page without marks).
fn start_of<'a>(page: &Page<'_, 'a>, i: usize, in_class: bool) -> Option<Start<'a>> {
    let lines = page.lines;
    let l = lines[i];
    if l.is_empty() || l.starts_with([' ', '\t']) {
        return None;
    }
    let absent = page.mark == Permalink::Absent;
    let l = l.trim_end();
    if let Some(body) = page.mark.strip(l) {
        if let Some(rest) = body.strip_prefix("class ") {
            let rest = rest.trim();
            let name = rest.split('(').next().unwrap_or("").trim();
            // Without marks, `class m.E(` opens a multi-line header (below).
            let whole = !rest.contains('(') || rest.ends_with(')');
            if is_dotted_ident(name) && (!absent || (name.contains('.') && whole)) {
                return Some(Start::Class(rest));
            }
        }
        if body.ends_with(')') {
            if let Some(open) = body.find('(') {
                let name = &body[..open];
                if is_dotted_ident(name) && (!absent || name.contains('.')) {
                    return Some(Start::Function(body));
                }
            }
        }
        if let Some((lhs, value)) = body.split_once(" = ") {
            if is_dotted_ident(lhs) && (!absent || data_by_value(lhs, value, in_class)) {
                return Some(Start::Data(body));
            }
        }
        if absent {
            if page.headings.get(i) == Some(&true) {
                return Some(Start::Heading(body.trim()));
            }
        } else {
            let title = body.trim();
            let prev_blank = i == 0 || is_blank(lines[i - 1]);
            let next_blank = lines.get(i + 1).is_none_or(|n| is_blank(n));
            if prev_blank && next_blank && heading_shaped(title) {
                return Some(Start::Heading(title));
            }
            return None;
        }
    }
    let (kind, l) = match l.strip_prefix("class ") {
        Some(rest) => (ObjectKind::Class, rest.trim_start()),
        None => (ObjectKind::Function, l),
    };
    if let Some(name) = l.strip_suffix('(') {
        if is_dotted_ident(name) && (!absent || kind == ObjectKind::Class || name.contains('.')) {
            return Some(Start::MultiLine(kind, name));
        }
    }
    if let Some(open) = l.find('(') {
        let name = &l[..open];
        if (name.contains('.') || kind == ObjectKind::Class) && is_dotted_ident(name) {
            return Some(Start::Unclosed(kind, l));
        }
    }
    None
}

/// What an object line is, for [`inferred_headings`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A data object with an unqualified name (`X = 0`): a member of the class above.
    Member,
    /// Another data object (`m.X = 0`).
    Data,
    /// A class or a function.
    Other,
}

/// Whether a data signature `lhs = value` names a member (an unqualified name).
fn is_member(sig: &str) -> bool {
    !sig.split(" = ").next().unwrap_or("").contains('.')
}

/// Whether a marked line between blank lines is a heading by its text.
fn heading_shaped(title: &str) -> bool {
    !title.is_empty() && title.len() <= MAX_HEADING && !title.starts_with([':', '.', '*', '-'])
}

/// On a page without marks, whether `lhs = value` is a data object by its value: a member
/// repr `<E.X: 3>` or a type `<enum 'Y'>` whatever the name; an integer where the name is
/// qualified (`m.X = 3`) or the line is in a class's body.
fn data_by_value(lhs: &str, value: &str, in_class: bool) -> bool {
    match signature::parse_data(&format!("{lhs} = {value}")) {
        Ok((_, DataValue::Member { .. } | DataValue::Alias { .. })) => true,
        Ok((_, DataValue::Integer(_))) => lhs.contains('.') || in_class,
        _ => false,
    }
}

/// On a page without permalink marks, which lines are headings, read from their shape and
/// place (the way the themes render a page: a heading and a paragraph are each a line
/// between blank lines, a docstring follows its signature line with no blank between):
///
/// - the first line of the page, followed by a blank line, is its title;
/// - another heading is a line between blank lines that reads like a title (a capital letter
///   or digit first; no `.`, `:`, `;` or `,` last; no markup), is not the first paragraph
///   after an object (its docstring), is not inside a docstring shown verbatim (the next
///   object's line follows a blank line, and no raw reST field or directive, `:param x:`,
///   `.. seealso::`, comes before it), and does not stand between two members of an enum;
/// - of such lines between two objects the first is a heading, and each next one only when it
///   follows a heading right away and is short (the headings of empty sections): the others
///   are the section's intro paragraphs;
/// - where the page starts its sections' intros with one word ([`learnt_lead`], NVIDIA's
///   `MANBRIEF`), such a line before a paragraph starting with it is a heading too (unless it
///   is itself an intro's first paragraph): the heading after an empty section whose intro
///   holds one-line paragraphs.
///
/// Linear in the number of lines. `objects` says which lines start an object.
fn inferred_headings(lines: &[&str], objects: &[Option<Shape>]) -> Vec<bool> {
    let n = lines.len();
    let mut headings = vec![false; n];
    let first = lines.iter().position(|l| !is_blank(l));
    // The nearest object line before and after each line.
    let mut prev_object = vec![None; n];
    let mut last = None;
    for i in 0..n {
        prev_object[i] = last;
        if objects[i].is_some() {
            last = Some(i);
        }
    }
    // The nearest object line after each line, and whether raw reST lies before it.
    let mut next_object = vec![None; n];
    let mut raw_ahead = vec![false; n];
    let mut next = None;
    let mut raw = false;
    for i in (0..n).rev() {
        next_object[i] = next;
        raw_ahead[i] = raw;
        if objects[i].is_some() {
            next = Some(i);
            raw = false;
        } else {
            raw |= is_raw_rst(lines[i]);
        }
    }
    // The chain (object before, object after) of the last heading, and its line.
    let mut chain: Option<(Option<usize>, Option<usize>)> = None;
    let mut last_heading: Option<usize> = None;
    // The lines that read as headings by shape and place, before the chain rule.
    let mut candidates = Vec::new();
    for i in 0..n {
        let l = lines[i];
        if objects[i].is_some() || is_blank(l) || l.starts_with([' ', '\t']) {
            continue;
        }
        let prev_blank = i == 0 || is_blank(lines[i - 1]);
        let next_blank = lines.get(i + 1).is_none_or(|x| is_blank(x));
        if !(prev_blank && next_blank) {
            continue;
        }
        let title = l.trim();
        if Some(i) == first {
            headings[i] = heading_shaped(title);
            last_heading = Some(i);
            continue;
        }
        let starts = title
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
        let title_like = starts
            && title.len() <= MAX_INFERRED_HEADING
            && !title.ends_with(['.', ':', ';', ','])
            && !title.contains(". ")
            && !title.contains(['`', '*', '|']);
        if !title_like {
            continue;
        }
        let before = (0..i).rev().find(|&k| !is_blank(lines[k]));
        if before.is_some_and(|k| objects[k].is_some()) {
            continue;
        }
        let after = next_object[i];
        if raw_ahead[i] || after.is_some_and(|k| k > 0 && !is_blank(lines[k - 1])) {
            continue;
        }
        let before_object = prev_object[i];
        let shape = |k: Option<usize>| k.and_then(|k| objects[k]);
        if shape(before_object) == Some(Shape::Member) && shape(after) == Some(Shape::Member) {
            continue;
        }
        // A data object's docs are paragraphs: a line right before the next object, with no
        // paragraph of a section's intro between them, is the last of them.
        let next_line = (i + 1..n).find(|&k| !is_blank(lines[k]));
        if matches!(shape(before_object), Some(Shape::Member | Shape::Data))
            && next_line.is_some_and(|k| objects[k].is_some())
        {
            continue;
        }
        candidates.push(i);
        let here = (before_object, after);
        if chain != Some(here) {
            chain = Some(here);
            headings[i] = true;
            last_heading = Some(i);
        } else if last_heading == Some(i.saturating_sub(2)) && title.len() <= MAX_NEXT_HEADING {
            headings[i] = true;
            last_heading = Some(i);
        }
    }
    // A candidate before a paragraph that starts as sections' intros do is a heading too,
    // unless it is itself the first paragraph of an intro (right after a heading).
    if let Some(lead) = learnt_lead(lines, objects, &headings) {
        for i in candidates {
            let before = (0..i).rev().find(|&k| !is_blank(lines[k]));
            let next = (i + 1..n).find(|&k| !is_blank(lines[k]));
            if let (Some(b), Some(k)) = (before, next) {
                if !headings[b] && objects[k].is_none() && first_word(lines[k]) == Some(lead) {
                    headings[i] = true;
                }
            }
        }
    }
    headings
}

/// The page's title line when it is underlined as a reStructuredText heading (`Title` /
/// `=====`, with or without an overline): Sphinx's text builder writes every page so. A
/// rendered page never does (a docstring shown verbatim may underline its `Parameters`, but
/// a docstring is not a page's first line).
fn underlined_heading(lines: &[&str]) -> Option<usize> {
    let rule = |l: &str| {
        let l = l.trim_end();
        let mut chars = l.chars();
        let first = chars.next();
        l.len() >= 3
            && first.is_some_and(|c| "=-*~^\"'#+`:.".contains(c))
            && chars.all(|c| Some(c) == first)
    };
    let first = lines.iter().position(|l| !is_blank(l))?;
    let title = if rule(lines[first]) { first + 1 } else { first };
    let (line, under) = (lines.get(title)?.trim_end(), lines.get(title + 1)?);
    (!is_blank(line)
        && !rule(line)
        && rule(under)
        && under.trim_end().len() >= line.chars().count())
    .then_some(title)
}

/// The first word of a line.
fn first_word(line: &str) -> Option<&str> {
    line.split_whitespace().next()
}

/// The word a page starts its sections' intros with, learnt from the headings their place
/// found (`headings`): the first word of the first paragraph after most of them (at least
/// three, and half of those followed by a paragraph), which starts at most half as many
/// other paragraphs of intros. NVIDIA's pages start them with a `MANBRIEF` line; a page with
/// no such word has none. A one-line paragraph before such a word, among a section's intro
/// paragraphs, is the heading of the next section: without it, a section whose intro holds
/// one-line paragraphs hides the headings after it.
fn learnt_lead<'a>(
    lines: &[&'a str],
    objects: &[Option<Shape>],
    headings: &[bool],
) -> Option<&'a str> {
    use std::collections::HashMap;
    // Per word: intro paragraphs it starts right after a heading, and others.
    let mut counts: HashMap<&'a str, (usize, usize)> = HashMap::new();
    let mut with_intro = 0;
    // Whether the nearest heading or object above is a heading, and whether the last
    // non-blank line was one.
    let mut in_intro = false;
    let mut after_heading = false;
    for (i, &l) in lines.iter().enumerate() {
        if is_blank(l) {
            continue;
        }
        if headings[i] || objects[i].is_some() {
            in_intro = headings[i];
            after_heading = headings[i];
            continue;
        }
        let starts_paragraph = i > 0 && is_blank(lines[i - 1]) && !l.starts_with([' ', '\t']);
        if in_intro && starts_paragraph {
            if let Some(word) = first_word(l) {
                let entry = counts.entry(word).or_default();
                if after_heading {
                    entry.0 += 1;
                    with_intro += 1;
                } else {
                    entry.1 += 1;
                }
            }
        }
        after_heading = false;
    }
    counts
        .into_iter()
        .filter(|&(_, (after, elsewhere))| {
            after >= 3 && 2 * after >= with_intro && after >= 2 * elsewhere
        })
        .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.0.cmp(a.0)))
        .map(|(word, _)| word)
}

/// Whether a line is raw reST markup a docstring shown verbatim holds, and a rendered intro
/// paragraph does not: a field `:name …:` or a directive `.. name::` at column 0.
fn is_raw_rst(line: &str) -> bool {
    if let Some(rest) = line.strip_prefix(".. ") {
        return rest.contains("::");
    }
    line.strip_prefix(':').is_some_and(|rest| {
        rest.split_once(':')
            .is_some_and(|(field, _)| !field.is_empty() && !field.starts_with(' '))
    })
}

/// Cuts `text` into blocks; reports unclosed signatures and stray text into `diags`.
pub fn scan<'a>(text: &'a str, diags: &mut Diagnostics) -> Vec<Block<'a>> {
    let mut lines: Vec<&'a str> = crate::text::split_at_newlines(text)
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mark = permalink::of_lines(lines.iter().copied());
    if let Permalink::Mark(m) = mark {
        dedent_objects(&mut lines, m, diags);
    }
    let mut page = Page {
        lines: &lines,
        mark,
        headings: Vec::new(),
    };
    if mark == Permalink::Absent {
        page.headings = unmarked_headings(&page, diags);
    }
    blocks_of(&page, diags)
}

/// Moves objects written indented (a block pasted with a tab in front) to column 0, and says
/// so: left indented, such an object would be read as the text of the object above it.
fn dedent_objects(lines: &mut [&str], m: char, diags: &mut Diagnostics) {
    let mark = Permalink::Mark(m);
    let starts = |l: &str| {
        l.trim_end().ends_with(m)
            && matches!(
                start_of(
                    &Page {
                        lines: &[l],
                        mark,
                        headings: Vec::new()
                    },
                    0,
                    false
                ),
                Some(Start::Class(_) | Start::Function(_) | Start::Data(_))
            )
    };
    for (first, last) in crate::text::dedent_runs(lines, starts) {
        diags.warning(
            line_no(first),
            format!(
                "lines {}–{}: an object written indented; read as if it were not",
                line_no(first),
                line_no(last)
            ),
        );
    }
}

/// On a page without marks, which lines are headings ([`inferred_headings`]), said as a
/// warning; a page whose title is underlined (reST, Sphinx's text builder) is an error.
fn unmarked_headings(page: &Page<'_, '_>, diags: &mut Diagnostics) -> Vec<bool> {
    let lines = page.lines;
    // Which lines start objects (a member's place in a class is not known yet: any
    // integer-valued unqualified line may be one), then the headings around them.
    let objects: Vec<Option<Shape>> = (0..lines.len())
        .map(|i| {
            start_of(page, i, true).map(|start| match start {
                Start::Data(sig) if is_member(sig) => Shape::Member,
                Start::Data(_) => Shape::Data,
                _ => Shape::Other,
            })
        })
        .collect();
    let headings = inferred_headings(lines, &objects);
    if let Some(i) = underlined_heading(lines) {
        diags.error(
            line_no(i),
            format!(
                "`{}` is underlined as a reStructuredText heading: the page is reST or the output of Sphinx's text builder (`-b text`), which this reader does not read (headings underlined, bodies indented, paragraphs wrapped); give it the HTML page or a text rendering of it",
                lines[i].trim()
            ),
        );
    }
    let count = headings.iter().filter(|h| **h).count();
    diags.warning(
        1,
        format!(
            "the page shows no permalink marks (`#`, `¶`) after its headings and signatures: its {count} heading(s) were told from one-line paragraphs by their place, which can take a paragraph for a heading or a heading for a paragraph"
        ),
    );
    headings
}

/// The blocks of the page: headings and objects with the lines under them.
fn blocks_of<'a>(page: &Page<'_, 'a>, diags: &mut Diagnostics) -> Vec<Block<'a>> {
    let (lines, mark) = (page.lines, page.mark);
    let file = diags.file().to_string();

    let mut blocks: Vec<Block<'a>> = Vec::new();
    // Text before the first heading or object belongs to nothing: it is unread.
    let mut preamble = Runs::new();
    let mut seen_content = false;
    let mut i = 0;
    while i < lines.len() {
        let source = crate::ir::Source::new(file.clone(), line_no(i));
        let first_content = !seen_content;
        if !is_blank(lines[i]) {
            seen_content = true;
        }
        let in_class = matches!(blocks.last(), Some(Block::Object(o)) if o.kind == ObjectKind::Class
            || (o.kind == ObjectKind::Data && is_member(&o.signature)));
        let Some(start) = start_of(page, i, in_class) else {
            match blocks.last_mut() {
                Some(Block::Heading(h)) => h.intro.push(DocLine::new(lines[i], line_no(i))),
                Some(Block::Object(o)) => o.doc.push(DocLine::new(lines[i], line_no(i))),
                None => preamble.unread(line_no(i), lines[i]),
            }
            i += 1;
            continue;
        };
        let object = |kind, signature: Cow<'a, str>| {
            Block::Object(Object {
                kind,
                signature,
                doc: Vec::new(),
                source: source.clone(),
                in_class: None,
            })
        };
        match start {
            Start::Heading(title) => {
                let level = if first_content { 1 } else { 2 };
                blocks.push(Block::Heading(Heading {
                    title: Cow::Borrowed(title),
                    level,
                    intro: Vec::new(),
                    source: source.clone(),
                }));
            }
            Start::Class(sig) => blocks.push(object(ObjectKind::Class, Cow::Borrowed(sig))),
            Start::Function(sig) => blocks.push(object(ObjectKind::Function, Cow::Borrowed(sig))),
            Start::Data(sig) => blocks.push(object(ObjectKind::Data, Cow::Borrowed(sig))),
            Start::Unclosed(kind, l) => {
                diags.error(
                    line_no(i),
                    format!(
                        "signature `{l}` has no closing `){}`; reading it up to the end of the line",
                        closer_mark(mark)
                    ),
                );
                let sig = if l.ends_with(')') {
                    Cow::Borrowed(l)
                } else {
                    Cow::Owned(format!("{l})"))
                };
                blocks.push(object(kind, sig));
            }
            Start::MultiLine(kind, name) => {
                let (sig, next) = multi_line(page, i, name, diags);
                blocks.push(object(kind, Cow::Owned(sig)));
                i = next;
                continue;
            }
        }
        i += 1;
    }
    let first = crate::ir::Source::new(file, 1);
    unread::report(
        diags,
        &first,
        "text before the first heading or object",
        &preamble.into_runs(),
    );
    blocks
}

/// The mark as a message shows it after `)`.
fn closer_mark(mark: Permalink) -> String {
    match mark {
        Permalink::Mark(m) => m.to_string(),
        Permalink::Absent => String::new(),
    }
}

/// Reads the parameter lines after `name(` at line `i`; returns the one-line signature and
/// the index of the first line after it.
fn multi_line(
    page: &Page<'_, '_>,
    i: usize,
    name: &str,
    diags: &mut Diagnostics,
) -> (String, usize) {
    let lines = page.lines;
    let mut params: Vec<&str> = Vec::new();
    let mut j = i + 1;
    let closed = loop {
        let Some(l) = lines.get(j) else { break false };
        let t = l.trim();
        if let Some(last) = page.mark.strip(t).and_then(|b| b.strip_suffix(')')) {
            params.push(last.trim_end());
            j += 1;
            break true;
        }
        if t.is_empty() || start_of(page, j, false).is_some() || j - i > MAX_SIGNATURE_LINES {
            break false;
        }
        params.push(t);
        j += 1;
    };
    if !closed {
        diags.error(
            line_no(i),
            format!(
                "signature of `{name}` has no closing `){}`; keeping the parameters read",
                closer_mark(page.mark)
            ),
        );
        // Keep the lines that look like parameters (`…,`); the rest is docstring.
        let keep = params.iter().take_while(|p| p.ends_with(',')).count();
        params.truncate(keep);
        j = i + 1 + keep;
    }
    (format!("{name}({})", params.join(" ")), j)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_of_a_small_page() {
        let text = "runtime#\n\nSection A#\n\nintro\n\nclass m.E(value: int)#\nAn enum\nX = <E.X: 1>#\n\nx doc\n\nm.f(\nint a,\nb: T,\n)#\nDoc\nm.g(a)#\n";
        let mut d = Diagnostics::new("t");
        let blocks = scan(text, &mut d);
        assert!(d.as_slice().is_empty(), "{:?}", d.as_slice());
        let kinds: Vec<String> = blocks
            .iter()
            .map(|b| match b {
                Block::Heading(h) => format!("H{}:{}", h.level, h.title),
                Block::Object(o) => format!("{:?}:{}@{}", o.kind, o.signature, o.source.line),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "H1:runtime",
                "H2:Section A",
                "Class:m.E(value: int)@7",
                "Data:X = <E.X: 1>@9",
                "Function:m.f(int a, b: T, )@13",
                "Function:m.g(a)@18"
            ]
        );
    }

    /// The headings an unmarked page gives, in order.
    fn inferred(text: &str) -> Vec<String> {
        let mut d = Diagnostics::new("t");
        scan(text, &mut d)
            .iter()
            .filter_map(|b| match b {
                Block::Heading(h) => Some(h.title.to_string()),
                Block::Object(_) => None,
            })
            .collect()
    }

    #[test]
    fn a_heading_after_one_line_paragraphs_is_told_by_the_intros_first_word() {
        // Three sections open with `LEAD …`; the fourth section's heading follows the third
        // section's intro, whose one-line paragraphs read like titles too.
        let section = |title: &str, f: &str| {
            format!("{title}\n\nLEAD {title} functions of the runtime API (CURRENT_FILE) END\n\nm.{f}(a)\nDoc of {f}.\n\n")
        };
        let page = |lead: &str| {
            format!(
                "runtime\n\n{}{}Empty Section\n\nLEAD empty section functions of the runtime API (CURRENT_FILE) END\n\nA Subheading\n\nText of it.\n\nFourth Section\n\n{lead} fourth section functions of the runtime API (CURRENT_FILE) END\n\nm.h(a)\nDoc of h.\n",
                section("First Section", "f"),
                section("Second Section", "g"),
            )
        };
        assert_eq!(
            inferred(&page("LEAD")),
            [
                "runtime",
                "First Section",
                "Second Section",
                "Empty Section",
                "Fourth Section"
            ]
        );
        // Without the word, nothing tells the heading from the paragraphs before it.
        assert_eq!(
            inferred(&page("Some")),
            [
                "runtime",
                "First Section",
                "Second Section",
                "Empty Section"
            ]
        );
    }

    #[test]
    fn a_page_of_underlined_headings_is_an_error() {
        let text = "runtime\n*******\n\nSection A\n=========\n\nm.f(a)\n\n      Doc.\n";
        let mut d = Diagnostics::new("t");
        scan(text, &mut d);
        let errors: Vec<_> = d
            .as_slice()
            .iter()
            .filter(|x| x.severity == crate::diag::Severity::Error)
            .map(|x| (x.line, x.message.contains("text builder")))
            .collect();
        assert_eq!(errors, [(1, true)]);
        assert_eq!(
            underlined_heading(&["", "*****", "Title", "*****"]),
            Some(2)
        );
        // A line of dashes that underlines nothing, or a rule under a line that is not the
        // page's first, is no title.
        assert_eq!(underlined_heading(&["", "-----", "text", "--"]), None);
        assert_eq!(
            underlined_heading(&["runtime", "", "Returns", "-------"]),
            None
        );
    }

    #[test]
    fn unclosed_multi_line_keeps_parameters() {
        let text = "m.f(\nint a,\nDoc line\n";
        let mut d = Diagnostics::new("t");
        let blocks = scan(text, &mut d);
        assert_eq!(d.as_slice().len(), 1);
        assert_eq!(d.as_slice()[0].line, 1);
        match &blocks[..] {
            [Block::Object(o)] => {
                assert_eq!(o.signature, "m.f(int a,)");
                assert_eq!(o.doc.first().map(|l| l.line), Some(3));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
