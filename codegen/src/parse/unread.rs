//! The no-silent-loss invariant, in one place.
//!
//! Every front end hands the body lines of each object (docstring, heading intro, entry body)
//! to a reader that marks which lines it took into the IR: the docstring model
//! ([`super::docstring`]) for the `cuda.bindings.runtime` pages of any format, the older pages'
//! own readers ([`super::cudart_text`], [`super::autodoc`]). What is left is *unread*: a field
//! or directive the reader does not know, a definition or member the object cannot hold, text
//! after the object's structured part, a signature fragment. The readers collect unread lines
//! into [`Runs`]; [`report`] turns each run into one warning with `file:line`, the object and
//! the first unread line, and records the run's length in [`Diagnostic::unread`], which the
//! summaries of `cargo xtask ir` and `cargo xtask codegen` add up.
//!
//! A run is a sequence of unread lines with no read line between them; blank lines neither
//! start nor end one. Nothing here decides what is read: readers do.

use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::ir::Source;

/// Longest quotation of the first unread line, in characters.
const QUOTED_CHARS: usize = 80;

/// A run of consecutive unread lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The document line of the first unread line (0 when the format has no lines).
    pub line: u32,
    /// The first unread line, trimmed.
    pub first: String,
    /// Non-blank lines in the run.
    pub count: u32,
}

/// Collects runs of unread lines while a reader walks an object's body.
#[derive(Clone, Debug, Default)]
pub struct Runs {
    runs: Vec<Run>,
    open: bool,
}

impl Runs {
    /// An empty collector.
    pub fn new() -> Self {
        Runs::default()
    }

    /// Records that line `line` (text `text`) was not read. Blank lines are ignored.
    pub fn unread(&mut self, line: u32, text: &str) {
        let t = text.trim();
        if t.is_empty() {
            return;
        }
        match self.runs.last_mut() {
            Some(run) if self.open => run.count = run.count.saturating_add(1),
            _ => {
                self.runs.push(Run {
                    line,
                    first: t.to_string(),
                    count: 1,
                });
                self.open = true;
            }
        }
    }

    /// Records that a line was read: the open run, if any, ends.
    pub fn read(&mut self) {
        self.open = false;
    }

    /// Records one line, read or not.
    pub fn line(&mut self, line: u32, text: &str, read: bool) {
        if read {
            self.read();
        } else {
            self.unread(line, text);
        }
    }

    /// Whether no line was recorded unread.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The runs collected, in body order.
    pub fn into_runs(self) -> Vec<Run> {
        self.runs
    }
}

/// Total number of lines in `runs`.
pub fn total(runs: &[Run]) -> u64 {
    runs.iter().map(|r| u64::from(r.count)).sum()
}

/// Reports each run of `runs` as one warning about `object` (a short description such as
/// ``class `cudaPos` ``), at the run's first line; `at` is the object's own source, which
/// gives the file and, for HTML, the element path (and the line when a run's line is 0).
pub fn report(diags: &mut Diagnostics, at: &Source, object: &str, runs: &[Run]) {
    for run in runs {
        let source = if run.line == 0 {
            at.clone()
        } else {
            Source {
                file: at.file.clone(),
                line: run.line,
                path: at.path.clone(),
            }
        };
        let lines = if run.count == 1 {
            "1 line".to_string()
        } else {
            format!("{} lines", run.count)
        };
        let mut d = Diagnostic::at(
            Severity::Warning,
            &source,
            format!(
                "{object}: {lines} not read into the IR, from `{}`",
                quote(&run.first)
            ),
        );
        d.unread = run.count;
        diags.push_diagnostic(d);
    }
}

/// `text` cut to [`QUOTED_CHARS`] characters (on a character boundary) with `…`.
fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_break_on_read_lines_not_on_blank_ones() {
        let mut r = Runs::new();
        r.unread(3, "  a : int");
        r.unread(4, "");
        r.unread(5, "    doc");
        r.read();
        r.unread(7, "b");
        let runs = r.into_runs();
        assert_eq!(runs.len(), 2);
        assert_eq!(
            (runs[0].line, runs[0].first.as_str(), runs[0].count),
            (3, "a : int", 2)
        );
        assert_eq!((runs[1].line, runs[1].count), (7, 1));
        assert_eq!(total(&runs), 3);
    }

    #[test]
    fn report_counts_and_quotes() {
        let mut d = Diagnostics::new("p.txt");
        let runs = vec![Run {
            line: 9,
            first: "é".repeat(100),
            count: 4,
        }];
        report(&mut d, &Source::new("p.txt", 2), "class `X`", &runs);
        let list = d.into_vec();
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].line, 9);
        assert_eq!(list[0].unread, 4);
        assert!(list[0].message.starts_with("class `X`: 4 lines not read"));
        assert!(list[0].message.ends_with("…`"));
    }
}
