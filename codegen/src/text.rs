//! Small string helpers the front ends share, written so that they cannot split a character.
//!
//! The documents are UTF-8 text where any character may turn up next to a name: a no-break
//! space (U+00A0), an ideographic space (U+3000), the replacement character U+FFFD left by
//! invalid bytes. A byte offset computed as "the match plus one" is only a character boundary
//! when the match is ASCII; these helpers step by the matched character's own length instead.
//! They also normalise line endings before any front end counts lines. Nothing here knows a
//! documentation format.

use std::borrow::Cow;

/// What is wrong with `name` as an identifier of the API, or `None` for a plain one (ASCII
/// letters, digits and `_`, dots between parts): empty, or holding a control character, an
/// invisible one (a zero-width space, a soft hyphen, a byte-order mark) or another non-ASCII
/// one (a look-alike such as the Cyrillic `а` in `cudаFoo`), named by its code point.
pub fn identifier_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the name is empty".into());
    }
    let bad = name
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))?;
    let (at, c) = bad;
    let what = if c.is_control() {
        "a control character"
    } else if is_invisible(c) {
        "an invisible character"
    } else if c.is_whitespace() {
        "a space"
    } else if c.is_ascii() {
        "a punctuation character"
    } else {
        "a non-ASCII character (a look-alike of a Latin letter?)"
    };
    Some(format!(
        "the name holds {what}, U+{:04X}, at character {}",
        c as u32,
        name[..at].chars().count() + 1
    ))
}

/// Whether `c` is a character that shows nothing (Unicode's format characters and the like):
/// inside a name, it makes two names look the same.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// `text` with every tab replaced by the spaces up to the next stop of every 8 columns (as
/// docutils reads reStructuredText); borrowed when it has no tab.
pub fn expand_tabs(text: &str) -> Cow<'_, str> {
    if !text.contains('\t') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut column = 0usize;
    for c in text.chars() {
        match c {
            '\t' => {
                let n = 8 - column % 8;
                for _ in 0..n {
                    out.push(' ');
                }
                column += n;
            }
            '\n' => {
                out.push(c);
                column = 0;
            }
            _ => {
                out.push(c);
                column += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// Runs of lines written indented as a whole (a block pasted with a tab in front): where a
/// line without its leading blanks is one for which `starts` holds, it and the lines after it
/// that share its indentation (or are blank) lose that indentation, in place. Returns each
/// run's first and last index, for the caller to report. Linear in the lines.
pub fn dedent_runs(lines: &mut [&str], starts: impl Fn(&str) -> bool) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let body = l.trim_start_matches([' ', '\t']);
        let indent = l.len() - body.len();
        if indent == 0 || body.is_empty() || !starts(body) {
            i += 1;
            continue;
        }
        let prefix = &l[..indent];
        let first = i;
        let mut last = i;
        lines[i] = body;
        i += 1;
        while i < lines.len() {
            if let Some(rest) = lines[i].strip_prefix(prefix) {
                lines[i] = rest;
                last = i;
            } else if !lines[i].trim().is_empty() {
                break;
            }
            i += 1;
        }
        runs.push((first, last));
    }
    runs
}

/// Splits `text` at `sep` where it stands outside `()`, `[]` and `{}`; the pieces are not
/// trimmed and empty ones are kept. An unbalanced closing bracket does not stop the splitting.
pub fn split_outside_brackets(text: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            c if c == sep && depth <= 0 => {
                out.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

/// Joins trimmed lines into paragraphs: a run of blank lines separates two paragraphs, and
/// leading or trailing blank lines are dropped.
pub fn paragraphs<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    let mut pending_break = false;
    for l in lines {
        let t = l.trim();
        if t.is_empty() {
            pending_break = !out.is_empty();
            continue;
        }
        if pending_break {
            out.push_str("\n\n");
            pending_break = false;
        } else if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(t);
    }
    out
}

/// The words of `text` (split at whitespace) before its first paragraph break (`"\n\n"`),
/// read lazily: taking the first few costs what they span, not the length of the paragraph, so
/// a caller may look behind every occurrence of a name in a long text and stay linear.
pub fn paragraph_words(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find(|c: char| !c.is_whitespace())?;
        if rest[..start].contains("\n\n") {
            rest = "";
            return None;
        }
        let word = &rest[start..];
        let len = word.find(char::is_whitespace).unwrap_or(word.len());
        rest = &word[len..];
        Some(&word[..len])
    })
}

/// Splits `s` just after the last character for which `pred` holds: `(head, tail)` where
/// `head` ends with that character. When no character matches, `head` is empty.
///
/// `split_after_last("size_t\u{a0}size", char::is_whitespace)` is `("size_t\u{a0}", "size")`.
pub fn split_after_last(s: &str, pred: impl Fn(char) -> bool) -> (&str, &str) {
    match s.char_indices().rev().find(|&(_, c)| pred(c)) {
        Some((at, c)) => s.split_at(at + c.len_utf8()),
        None => ("", s),
    }
}

/// `s` cut to at most `max_chars` characters, with `… (N characters)` appended when cut, for
/// quoting input in a diagnostic without copying a whole hostile line into it.
pub fn abbreviate(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        None => s.to_string(),
        Some((at, _)) => format!("{}… ({} characters)", &s[..at], s.chars().count()),
    }
}

/// Longest section title kept, in characters. Every item of a section carries its title, so
/// a title as long as the document would make the IR grow with the square of the input.
pub const MAX_TITLE: usize = 200;

/// `title` cut to [`MAX_TITLE`] characters, and a message for the front end to report when it
/// was cut.
pub fn bounded_title(title: &str) -> (String, Option<String>) {
    match title.char_indices().nth(MAX_TITLE) {
        None => (title.to_string(), None),
        Some((at, _)) => (
            title[..at].to_string(),
            Some(format!(
                "a section title of {} characters is cut to its first {MAX_TITLE} (every item of the section repeats it)",
                title.chars().count()
            )),
        ),
    }
}

/// The lines of `text` exactly as [`str::lines`] yields them (split at each `\n`, a `\r`
/// just before it left out, no empty line after a final `\n`), each `\n` found with
/// `memchr`. `str::lines` looks for the next `\n` a word at a time, from a fresh start on
/// every line: line splitting alone was several percent of a codegen run.
pub fn lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

/// The iterator of [`lines`].
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        match memchr::memchr(b'\n', self.rest.as_bytes()) {
            Some(i) => {
                // `\n` is one byte: `i` and `i + 1` are character boundaries.
                let line = &self.rest[..i];
                self.rest = &self.rest[i + 1..];
                Some(line.strip_suffix('\r').unwrap_or(line))
            }
            None => Some(std::mem::take(&mut self.rest)),
        }
    }
}

/// The pieces of `text` between `\n`s, as `text.split('\n')` yields them (an empty piece
/// after a final `\n` included), each `\n` found with `memchr` (see [`lines`]).
pub fn split_at_newlines(text: &str) -> SplitAtNewlines<'_> {
    SplitAtNewlines { rest: Some(text) }
}

/// The iterator of [`split_at_newlines`].
#[derive(Clone, Debug)]
pub struct SplitAtNewlines<'a> {
    rest: Option<&'a str>,
}

impl<'a> Iterator for SplitAtNewlines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => {
                // `\n` is one byte: `i` and `i + 1` are character boundaries.
                self.rest = Some(&rest[i + 1..]);
                Some(&rest[..i])
            }
            None => self.rest.take(),
        }
    }
}

/// How many line endings [`normalize_line_endings`] converted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineEndings {
    /// `\r\n` pairs turned into `\n`.
    pub crlf: usize,
    /// Lone `\r` (old Mac style) turned into `\n`.
    pub cr: usize,
}

impl LineEndings {
    /// Whether anything was converted.
    pub fn any(self) -> bool {
        self.crlf + self.cr > 0
    }
}

/// Turns `\r\n` and lone `\r` into `\n`, so that every front end sees one line per `\n` and
/// counts lines as an editor shows them. Borrows when there is no `\r`.
pub fn normalize_line_endings(text: &str) -> (Cow<'_, str>, LineEndings) {
    if !text.contains('\r') {
        return (Cow::Borrowed(text), LineEndings::default());
    }
    let mut out = String::with_capacity(text.len());
    let mut counts = LineEndings::default();
    let mut rest = text;
    while let Some(at) = rest.find('\r') {
        out.push_str(&rest[..at]);
        out.push('\n');
        // `\r` is one byte, so `at + 1` is a character boundary.
        rest = &rest[at + 1..];
        match rest.strip_prefix('\n') {
            Some(after) => {
                counts.crlf += 1;
                rest = after;
            }
            None => counts.cr += 1,
        }
    }
    out.push_str(rest);
    (Cow::Owned(out), counts)
}

/// The 1-based line of byte `offset` in `bytes`, counting `\n`, `\r\n` and lone `\r` as one
/// line ending each (as [`normalize_line_endings`] does). Offsets past the end count the
/// whole input.
pub fn line_at(bytes: &[u8], offset: usize) -> u32 {
    let head = &bytes[..offset.min(bytes.len())];
    let mut line = 1u32;
    let mut prev_cr = false;
    for &b in head {
        match b {
            b'\n' if prev_cr => {}
            b'\n' | b'\r' => line = line.saturating_add(1),
            _ => {}
        }
        prev_cr = b == b'\r';
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_names_are_described_by_their_first_odd_character() {
        assert_eq!(identifier_problem("cudaMalloc"), None);
        assert_eq!(identifier_problem("cuda.bindings.runtime.cudaMalloc"), None);
        let said = |n: &str| identifier_problem(n).unwrap_or_default();
        assert!(said("").contains("empty"));
        assert!(
            said("cud\u{430}Foo").contains("non-ASCII")
                && said("cud\u{430}Foo").contains("U+0430, at character 4")
        );
        assert!(said("cuda\u{200b}Foo").contains("invisible"));
        assert!(said("cuda\0Foo").contains("control"));
        assert!(said("a b").contains("punctuation") || said("a b").contains("space"));
        assert!(said("a\u{a0}b").contains("space"));
        assert!(is_invisible('\u{feff}') && is_invisible('\u{e0041}') && !is_invisible('a'));
    }

    #[test]
    fn tabs_expand_to_stops_of_eight_columns() {
        assert_eq!(expand_tabs("no tab"), "no tab");
        assert_eq!(
            expand_tabs("..\tx::\ty\n\tz"),
            "..      x::     y\n        z"
        );
        assert_eq!(expand_tabs("é\tx"), "é       x");
    }

    #[test]
    fn runs_written_indented_lose_their_indentation() {
        let mut lines = vec![
            "f(a)#", "text", "\tg(b)#", "\tdoc", "\t", "", "\tmore", "h(c)#", "  not(x)",
        ];
        let runs = dedent_runs(&mut lines, |l| l.ends_with('#'));
        assert_eq!(runs, [(2, 6)]);
        assert_eq!(
            lines,
            ["f(a)#", "text", "g(b)#", "doc", "", "", "more", "h(c)#", "  not(x)"]
        );
    }

    #[test]
    fn lines_and_pieces_are_those_of_str_lines_and_split() {
        for text in [
            "",
            "\n",
            "\n\n",
            "a",
            "a\n",
            "a\n\n",
            "a\r\nb\r\n",
            "a\r",
            "a\rb\n\r",
            "\r\n",
            "x\u{3000}\ny\u{a0}\r\n\u{fffd}",
            "one\n  two\n\nthree",
        ] {
            let ours: Vec<&str> = lines(text).collect();
            let std: Vec<&str> = text.lines().collect();
            assert_eq!(ours, std, "{text:?}");
            let ours: Vec<&str> = split_at_newlines(text).collect();
            let std: Vec<&str> = text.split('\n').collect();
            assert_eq!(ours, std, "{text:?}");
        }
    }

    #[test]
    fn split_after_last_steps_over_the_whole_character() {
        for sep in ['\u{a0}', '\u{3000}', ' ', '\t', '\u{2003}'] {
            let s = format!("size_t{sep}size");
            assert_eq!(
                split_after_last(&s, char::is_whitespace),
                (format!("size_t{sep}").as_str(), "size")
            );
        }
        assert_eq!(split_after_last("name", char::is_whitespace), ("", "name"));
        assert_eq!(split_after_last("", char::is_whitespace), ("", ""));
        assert_eq!(
            split_after_last("char*\u{fffd}p", |c| !c.is_ascii_alphanumeric()),
            ("char*\u{fffd}", "p")
        );
    }

    #[test]
    fn paragraph_words_stop_at_the_blank_line() {
        let words: Vec<&str> = paragraph_words(" is\u{a0}an\n optional\n\nnext").collect();
        assert_eq!(words, ["is", "an", "optional"]);
        assert_eq!(paragraph_words("\n\nis").next(), None);
        assert_eq!(paragraph_words("").next(), None);
        assert_eq!(paragraph_words("is \n \n x").count(), 2);
    }

    #[test]
    fn abbreviate_cuts_on_a_character_boundary() {
        assert_eq!(abbreviate("short", 10), "short");
        let long = "\u{3000}".repeat(30);
        let cut = abbreviate(&long, 4);
        assert_eq!(cut, format!("{}… (30 characters)", "\u{3000}".repeat(4)));
    }

    #[test]
    fn long_titles_are_cut_on_a_character_boundary() {
        assert_eq!(
            bounded_title("Graph Management"),
            ("Graph Management".into(), None)
        );
        let long = "é".repeat(MAX_TITLE + 5);
        let (cut, message) = bounded_title(&long);
        assert_eq!(cut.chars().count(), MAX_TITLE);
        assert!(message.expect("a message").contains("205 characters"));
    }

    #[test]
    fn line_endings_are_normalised_and_counted() {
        let (t, n) = normalize_line_endings("a\rb\r\nc\n\rd\r");
        assert_eq!(t, "a\nb\nc\n\nd\n");
        assert_eq!(n, LineEndings { crlf: 1, cr: 3 });
        let (t, n) = normalize_line_endings("plain\ntext");
        assert!(matches!(t, Cow::Borrowed(_)));
        assert!(!n.any());
    }

    #[test]
    fn line_at_counts_every_kind_of_line_ending_once() {
        let bytes = b"a\rb\r\nc\nd";
        assert_eq!(line_at(bytes, 0), 1);
        assert_eq!(line_at(bytes, 2), 2);
        assert_eq!(line_at(bytes, 5), 3);
        assert_eq!(line_at(bytes, 7), 4);
        assert_eq!(line_at(bytes, 100), 4);
    }
}
