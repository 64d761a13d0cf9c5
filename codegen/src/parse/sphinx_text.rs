//! Parser for the text rendering of the `cuda.bindings.runtime` Sphinx page (seed `001_…`).
//!
//! The page is read in two steps:
//!
//! 1. **Front end** ([`scan`], this module): the lines are cut into the neutral
//!    [`Block`] sequence. At column 0 it recognises, by shape only:
//!    - `class dotted.Name(args)#` and `class dotted.Name#` → a class object;
//!      `class dotted.Name(` alone, one parameter a line, then `)#` → a class with a
//!      multi-line header (Sphinx writes long enum constructor headers so);
//!    - `dotted.name(params)#` → a function; `dotted.name(` alone, one parameter a line,
//!      then `)#` → a function with a multi-line signature;
//!    - `dotted.name = value#` → a data object (constants, aliases, enum members);
//!    - `Title#` between blank lines → a heading (the first line of the page is its title).
//!
//!    Every other line belongs to the docstring (or heading intro) above it, with its line
//!    number; lines before the first heading or object are reported unread. A signature that does not close (`dotted.name(a, b` or a multi-line one with
//!    no `)#`) is an error diagnostic; the parameters read so far are kept.
//! 2. **Builder** ([`super::sphinx_blocks`]) turns blocks into IR items, reading docstrings
//!    with [`super::docstring`]. Both are shared with the HTML front end.
//!
//! Nothing here lists CUDA names; another release's page in this format parses the same way.

use std::borrow::Cow;

use crate::diag::Diagnostics;
use crate::ir::Api;

use super::blocks::{Block, DocLine, Heading, Object, ObjectKind};
use super::signature::is_dotted_ident;
use super::sphinx_blocks;
use super::unread::{self, Runs};

/// Longest multi-line signature, in lines, before it counts as unclosed.
const MAX_SIGNATURE_LINES: usize = 256;

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

fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

fn line_no(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

/// Classifies line `i` of `lines`.
fn start_of<'a>(lines: &[&'a str], i: usize) -> Option<Start<'a>> {
    let l = lines[i];
    if l.is_empty() || l.starts_with([' ', '\t']) {
        return None;
    }
    let l = l.trim_end();
    if let Some(body) = l.strip_suffix('#') {
        if let Some(rest) = body.strip_prefix("class ") {
            let rest = rest.trim();
            let name = rest.split('(').next().unwrap_or("");
            if is_dotted_ident(name.trim()) {
                return Some(Start::Class(rest));
            }
        }
        if body.ends_with(')') {
            if let Some(open) = body.find('(') {
                if is_dotted_ident(&body[..open]) {
                    return Some(Start::Function(body));
                }
            }
        }
        if let Some((lhs, _)) = body.split_once(" = ") {
            if is_dotted_ident(lhs) {
                return Some(Start::Data(body));
            }
        }
        let title = body.trim();
        let prev_blank = i == 0 || is_blank(lines[i - 1]);
        let next_blank = lines.get(i + 1).is_none_or(|n| is_blank(n));
        if prev_blank
            && next_blank
            && !title.is_empty()
            && title.len() <= 200
            && !title.starts_with([':', '.', '*', '-'])
        {
            return Some(Start::Heading(title));
        }
        return None;
    }
    let (kind, l) = match l.strip_prefix("class ") {
        Some(rest) => (ObjectKind::Class, rest.trim_start()),
        None => (ObjectKind::Function, l),
    };
    if let Some(name) = l.strip_suffix('(') {
        if is_dotted_ident(name) {
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

/// Cuts `text` into blocks; reports unclosed signatures and stray text into `diags`.
pub fn scan<'a>(text: &'a str, diags: &mut Diagnostics) -> Vec<Block<'a>> {
    let mut lines: Vec<&'a str> = crate::text::split_at_newlines(text)
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    // An object written indented (a block pasted with a tab in front) is read as if it were
    // not, and said: left indented, it would be read as the text of the object above it.
    let starts = |l: &str| {
        l.trim_end().ends_with('#')
            && matches!(
                start_of(&[l], 0),
                Some(Start::Class(_) | Start::Function(_) | Start::Data(_))
            )
    };
    for (first, last) in crate::text::dedent_runs(&mut lines, starts) {
        diags.warning(
            line_no(first),
            format!(
                "lines {}–{}: an object written indented; read as if it were not",
                line_no(first),
                line_no(last)
            ),
        );
    }
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
        let Some(start) = start_of(&lines, i) else {
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
                        "signature `{l}` has no closing `)#`; reading it up to the end of the line"
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
                let (sig, next) = multi_line(&lines, i, name, diags);
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

/// Reads the parameter lines after `name(` at line `i`; returns the one-line signature and
/// the index of the first line after it.
fn multi_line(lines: &[&str], i: usize, name: &str, diags: &mut Diagnostics) -> (String, usize) {
    let mut params: Vec<&str> = Vec::new();
    let mut j = i + 1;
    let closed = loop {
        let Some(l) = lines.get(j) else { break false };
        let t = l.trim();
        if let Some(last) = t.strip_suffix(")#") {
            params.push(last);
            j += 1;
            break true;
        }
        if t.is_empty() || start_of(lines, j).is_some() || j - i > MAX_SIGNATURE_LINES {
            break false;
        }
        params.push(t);
        j += 1;
    };
    if !closed {
        diags.error(
            line_no(i),
            format!("signature of `{name}` has no closing `)#`; keeping the parameters read"),
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
