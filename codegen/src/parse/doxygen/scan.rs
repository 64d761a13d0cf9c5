//! Lexical pass over a C header: code, preprocessor lines and Doxygen comments, with lines.
//!
//! [`scan`] walks the text once and yields [`Event`]s in order: code fragments (with ordinary
//! comments removed and string literals kept), logical preprocessor lines (continuations
//! joined), and Doxygen comments (`/** … */`, `/*! … */`, and the trailing member form
//! `/**< … */`). A Doxygen comment's body is returned line by line with the comment
//! decoration (leading `*`, the closing `*/`) removed and each line's number kept.
//! Banners (`/*****…`) and empty comments (`/**/`) are ordinary comments.
//!
//! It does not interpret the comments or the declarations: [`super::markup`] and
//! [`super::decl`] do. An unterminated comment is an error diagnostic and its text up to the
//! end of the input is still returned. The pass is linear in the input's size.

use crate::diag::Diagnostics;

/// A Doxygen comment: its body lines (decoration removed) with their 1-based line numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocComment {
    /// Line of the opening `/**`.
    pub line: u32,
    /// `/**< … */`: documents the member or macro before it on the same line.
    pub trailing: bool,
    /// Whether the comment stands on a preprocessor line (`#define X 1 /**< … */`).
    pub in_directive: bool,
    /// Body lines in order (the first is the text after `/**`, the last the text before
    /// `*/`), each with its line number.
    pub lines: Vec<(u32, String)>,
}

/// One piece of the header, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Code on one physical line (comments removed; may be a part of the line).
    Code { line: u32, text: String },
    /// A logical preprocessor line (`#define X 1`), continuations joined, comments removed.
    Directive { line: u32, text: String },
    /// A Doxygen comment: an index into [`Scan::docs`].
    Doc(usize),
}

/// The result of [`scan`].
#[derive(Clone, Debug, Default)]
pub struct Scan {
    pub events: Vec<Event>,
    pub docs: Vec<DocComment>,
}

struct Scanner<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
    line: u32,
    out: Scan,
    /// Code of the current physical line not yet emitted, and its line.
    code: String,
    code_line: u32,
    /// Inside a preprocessor line: its text so far and first line.
    directive: Option<(u32, String)>,
    /// Whether the current physical line has had code or a literal yet (a `#` after it
    /// does not start a directive).
    line_has_code: bool,
    /// The last search for a `*/`: where it started and what it found. Comments cut short at
    /// a nested `/**` start before the `*/` found last time, so that search is not repeated
    /// (thousands of openers in one unclosed comment would each scan to the end).
    close_memo: Option<(usize, Option<usize>)>,
}

/// Splits `text` into events; problems (an unterminated comment) go to `diags`.
pub fn scan(text: &str, diags: &mut Diagnostics) -> Scan {
    let mut s = Scanner {
        b: text.as_bytes(),
        text,
        i: 0,
        line: 1,
        out: Scan::default(),
        code: String::new(),
        code_line: 1,
        directive: None,
        line_has_code: false,
        close_memo: None,
    };
    s.run(diags);
    s.out
}

impl Scanner<'_> {
    fn peek(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    fn push_text(&mut self, s: &str) {
        match &mut self.directive {
            Some((_, d)) => d.push_str(s),
            None => {
                if self.code.is_empty() {
                    self.code_line = self.line;
                }
                self.code.push_str(s);
            }
        }
    }

    fn flush_code(&mut self) {
        if !self.code.trim().is_empty() {
            self.out.events.push(Event::Code {
                line: self.code_line,
                text: std::mem::take(&mut self.code),
            });
        }
        self.code.clear();
    }

    fn end_directive(&mut self) {
        if let Some((line, text)) = self.directive.take() {
            self.out.events.push(Event::Directive {
                line,
                text: text.trim().to_string(),
            });
        }
    }

    fn run(&mut self, diags: &mut Diagnostics) {
        // Directive events are pushed when the line ends, so a trailing comment on a
        // directive is queued and pushed after it.
        let mut queued_docs: Vec<usize> = Vec::new();
        while self.i < self.b.len() {
            let c = self.b[self.i];
            match c {
                b'\n' => {
                    let continued = self.directive.is_some() && self.continues_line();
                    if continued {
                        if let Some((_, d)) = &mut self.directive {
                            // Drop the `\` that continues the line.
                            let trimmed = d.trim_end_matches(['\r', ' ', '\t']);
                            let keep = trimmed.strip_suffix('\\').unwrap_or(trimmed).len();
                            d.truncate(keep);
                            d.push(' ');
                        }
                    } else {
                        self.flush_code();
                        self.end_directive();
                        for d in queued_docs.drain(..) {
                            self.out.events.push(Event::Doc(d));
                        }
                    }
                    self.line += 1;
                    self.i += 1;
                    self.line_has_code = false;
                }
                b'#' if self.directive.is_none() && !self.line_has_code => {
                    self.flush_code();
                    self.directive = Some((self.line, String::new()));
                    self.push_text("#");
                    self.i += 1;
                }
                b'/' if self.peek(1) == b'/' => {
                    // A line comment: skipped up to the end of the line (a `\` continuation
                    // of a line comment is not honoured; headers do not use one).
                    while self.i < self.b.len() && self.b[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                b'/' if self.peek(1) == b'*' => {
                    if let Some(idx) = self.comment(diags) {
                        if self.directive.is_some() {
                            queued_docs.push(idx);
                        } else {
                            self.flush_code();
                            self.out.events.push(Event::Doc(idx));
                        }
                    } else {
                        self.push_text(" ");
                    }
                }
                b'"' | b'\'' => {
                    self.line_has_code = true;
                    self.literal(c);
                }
                _ => {
                    let start = self.i;
                    while self.i < self.b.len()
                        && !matches!(self.b[self.i], b'\n' | b'/' | b'"' | b'\'' | b'#')
                    {
                        self.i += 1;
                    }
                    if self.i == start {
                        // A lone `/` or a `#` that does not start a directive.
                        self.i += 1;
                    }
                    let piece = &self.text[start..self.i];
                    if !piece.trim().is_empty() {
                        self.line_has_code = true;
                    }
                    self.push_text(piece);
                }
            }
        }
        self.flush_code();
        self.end_directive();
        for d in queued_docs {
            self.out.events.push(Event::Doc(d));
        }
    }

    /// Whether the newline at `self.i` ends a line that ends in `\`.
    fn continues_line(&self) -> bool {
        let mut j = self.i;
        while j > 0 && matches!(self.b[j - 1], b'\r' | b' ' | b'\t') {
            j -= 1;
        }
        j > 0 && self.b[j - 1] == b'\\'
    }

    /// A string or character literal, kept as is (it ends at its quote or the line's end).
    fn literal(&mut self, quote: u8) {
        let start = self.i;
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' if self.i + 1 < self.b.len() && self.b[self.i + 1] != b'\n' => {
                    self.i += 2;
                }
                b'\n' => break,
                c if c == quote => {
                    self.i += 1;
                    break;
                }
                _ => self.i += 1,
            }
        }
        let end = self.i.min(self.b.len());
        // The literal may end in the middle of a multi-byte character only if the input
        // does; `get` keeps that from panicking.
        let piece = self.text.get(start..end).unwrap_or("\u{fffd}").to_string();
        self.push_text(&piece);
    }

    /// A block comment at `self.i`; returns the index of a Doxygen comment, `None` for an
    /// ordinary one.
    fn comment(&mut self, diags: &mut Diagnostics) -> Option<usize> {
        let start_line = self.line;
        let start = self.i;
        let body_start = self.i + 2;
        let close = match self.close_memo {
            Some((from, found)) if from <= body_start && found.is_none_or(|e| e >= body_start) => {
                found
            }
            _ => {
                let found = find(self.b, body_start, b"*/");
                self.close_memo = Some((body_start, found));
                found
            }
        };
        // A `/**` that starts a line inside the comment opens the next comment: the `*/`
        // before it was mistyped (`* /`). C reads one comment up to the next `*/`, which
        // would swallow the next comment's text and leave its declaration undocumented; it is
        // read as two comments, and said.
        let nested = nested_opener(self.b, body_start, close.unwrap_or(self.b.len()));
        if let Some(n) = nested {
            let line = start_line + self.b[start..n].iter().filter(|&&c| c == b'\n').count() as u32;
            diags.warning(
                start_line,
                format!("this comment is not closed before the `/**` of line {line} (a mistyped `*/`, such as `* /`?): read as closed there"),
            );
        }
        let (body_end, next) = match (nested, close) {
            (Some(n), _) => (n, n),
            (None, Some(e)) => (e, e + 2),
            (None, None) => {
                diags.error(
                    start_line,
                    "unterminated comment: it runs to the end of the input",
                );
                (self.b.len(), self.b.len())
            }
        };
        let lines_in = self.b[start..next.min(self.b.len())]
            .iter()
            .filter(|&&c| c == b'\n')
            .count();
        self.i = next;
        let raw = self.text.get(body_start..body_end).unwrap_or("");
        self.line += u32::try_from(lines_in).unwrap_or(u32::MAX);
        let (doc, trailing, skip) = match raw.as_bytes() {
            [b'*', b'<', ..] | [b'!', b'<', ..] => (true, true, 2),
            [b'*', b'*', ..] | [b'*'] => (false, false, 0),
            [b'*', ..] | [b'!', ..] => (true, false, 1),
            _ => (false, false, 0),
        };
        if !doc {
            return None;
        }
        let body = &raw[skip..];
        let mut lines = Vec::new();
        for (k, l) in crate::text::split_at_newlines(body).enumerate() {
            let l = l.strip_suffix('\r').unwrap_or(l);
            let text = if k == 0 { l } else { undecorate(l) };
            lines.push((start_line + k as u32, text.to_string()));
        }
        // The closing line may be `**/`: drop the stars before `*/`.
        if let Some((_, last)) = lines.last_mut() {
            let t = last.trim_end().trim_end_matches('*').len();
            last.truncate(t);
        }
        let idx = self.out.docs.len();
        self.out.docs.push(DocComment {
            line: start_line,
            trailing,
            in_directive: self.directive.is_some(),
            lines,
        });
        Some(idx)
    }
}

/// The first `/**` in `b[from..to]` that starts a line (only blanks before it on its line,
/// and that line inside the range).
fn nested_opener(b: &[u8], from: usize, to: usize) -> Option<usize> {
    let mut k = from;
    while let Some(at) = find(&b[..to], k, b"/**") {
        let mut j = at;
        while j > from && matches!(b[j - 1], b' ' | b'\t') {
            j -= 1;
        }
        if j > from && b[j - 1] == b'\n' {
            return Some(at);
        }
        k = at + 3;
    }
    None
}

/// A comment body line without its leading blanks and `*` decoration; the blanks after the
/// star are kept (they indent list continuations).
fn undecorate(line: &str) -> &str {
    let t = line.trim_start_matches([' ', '\t']);
    match t.strip_prefix('*') {
        Some(rest) if !rest.starts_with('/') => rest.strip_prefix(' ').unwrap_or(rest),
        _ => t,
    }
}

/// The first position at or after `from` where `needle` occurs in `hay`.
fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from >= hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> (Scan, Vec<crate::diag::Diagnostic>) {
        let mut d = Diagnostics::new("t.h");
        let s = scan(text, &mut d);
        (s, d.into_vec())
    }

    #[test]
    fn events_in_order_with_lines() {
        let text = "/* licence */\n#define A 1 /**< the A */\n/**\n * \\brief B\n *   indented\n */\nint b(void); // tail\n/*****/\n#if X \\\n  && Y\n#endif\n";
        let (s, d) = run(text);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(
            s.events,
            vec![
                Event::Directive {
                    line: 2,
                    text: "#define A 1".into()
                },
                Event::Doc(0),
                Event::Doc(1),
                Event::Code {
                    line: 7,
                    text: "int b(void); ".into()
                },
                Event::Directive {
                    line: 9,
                    text: "#if X    && Y".into()
                },
                Event::Directive {
                    line: 11,
                    text: "#endif".into()
                },
            ]
        );
        assert!(s.docs[0].trailing && s.docs[0].in_directive);
        assert_eq!(s.docs[0].lines, vec![(2, " the A".to_string())]);
        assert_eq!(
            s.docs[1].lines,
            vec![
                (3, String::new()),
                (4, "\\brief B".into()),
                (5, "  indented".into()),
                (6, String::new())
            ]
        );
    }

    #[test]
    fn strings_hide_comment_markers_and_unterminated_comments_are_errors() {
        let (s, d) = run("char *s = \"/** not a comment */\";\n/** open\n");
        assert_eq!(s.docs.len(), 1);
        assert!(matches!(&s.events[0], Event::Code { text, .. } if text.contains("/** not")));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].line, 2);
    }
}
