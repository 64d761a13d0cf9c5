//! Diagnostics: every parse, merge or join problem, with a severity and `file:line`.
//!
//! Parsers never panic on bad input; they push a [`Diagnostic`] through a [`Diagnostics`]
//! sink and go on. The summary printed by `cargo xtask` counts them by severity, and
//! `--deny warnings` turns warnings into a failing exit code.

use serde::{Deserialize, Serialize};

/// Where an item was read: a file and a 1-based line, or, for HTML input, an element path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Source {
    /// Path of the document as it was given (relative paths stay relative).
    pub file: String,
    /// 1-based line of the item's first line (0 when the format has no lines).
    pub line: u32,
    /// For formats without meaningful lines (HTML): a path to the element, such as
    /// `section[3]/dl[12]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Source {
    /// A source at `file:line`.
    pub fn new(file: impl Into<String>, line: u32) -> Self {
        Source {
            file: file.into(),
            line,
            path: None,
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}:{}", self.file, p),
            None => write!(f, "{}:{}", self.file, self.line),
        }
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something was not understood and an item, or part of one, may be missing.
    Error,
    /// Something looks wrong but was handled (a duplicate, a truncation, a guess).
    Warning,
    /// Information worth reading (a renaming applied, a source filling a gap).
    Note,
}

impl Severity {
    /// Lower-case name as printed.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One problem found in an input, with where it was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub file: String,
    pub line: u32,
    /// An element path for inputs without lines (HTML).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub message: String,
    /// How many lines of the document this diagnostic reports as unread (not taken into the
    /// IR); 0 for every other diagnostic. See [`crate::parse::unread`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unread: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Diagnostic {
    /// A diagnostic at `source`.
    pub fn at(severity: Severity, source: &Source, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            file: source.file.clone(),
            line: source.line,
            path: source.path.clone(),
            message: message.into(),
            unread: 0,
        }
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.path {
            // `file:line: path:` so that editors jump to the line; the path locates the element.
            Some(p) if self.line > 0 => write!(
                f,
                "{}:{}: {}: {}: {}",
                self.file,
                self.line,
                p,
                self.severity.name(),
                self.message
            ),
            Some(p) => write!(
                f,
                "{}:{}: {}: {}",
                self.file,
                p,
                self.severity.name(),
                self.message
            ),
            None => write!(
                f,
                "{}:{}: {}: {}",
                self.file,
                self.line,
                self.severity.name(),
                self.message
            ),
        }
    }
}

/// How many diagnostics with the same severity and message a sink keeps; further repeats are
/// counted and reported by one closing diagnostic (see [`Diagnostics::into_vec`]).
pub const MAX_REPEATS: usize = 100;

/// Repeats of one message past [`MAX_REPEATS`].
#[derive(Debug)]
struct Repeats {
    count: usize,
    /// Where the first repeat that was not kept was found.
    first_dropped: Option<Source>,
}

/// A sink parsers push diagnostics into, bound to one file.
///
/// A message repeated more than [`MAX_REPEATS`] times (a line repeated 300,000 times gives the
/// same warning 300,000 times) is kept that many times, and the rest are counted into one
/// closing diagnostic, so that the report stays readable and its size follows the input's
/// variety rather than its repetitions. Nothing is dropped without being counted.
#[derive(Debug, Default)]
pub struct Diagnostics {
    file: String,
    list: Vec<Diagnostic>,
    repeats: indexmap::IndexMap<(Severity, String), Repeats>,
}

impl Diagnostics {
    /// A sink for diagnostics about `file`.
    pub fn new(file: impl Into<String>) -> Self {
        Diagnostics {
            file: file.into(),
            list: Vec::new(),
            repeats: indexmap::IndexMap::new(),
        }
    }

    /// The file this sink reports about.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// A [`Source`] at `line` of this file.
    pub fn source(&self, line: u32) -> Source {
        Source::new(self.file.clone(), line)
    }

    /// Reports an error at `line`.
    pub fn error(&mut self, line: u32, message: impl Into<String>) {
        self.push(Severity::Error, line, message);
    }

    /// Reports a warning at `line`.
    pub fn warning(&mut self, line: u32, message: impl Into<String>) {
        self.push(Severity::Warning, line, message);
    }

    /// Reports a note at `line`.
    pub fn note(&mut self, line: u32, message: impl Into<String>) {
        self.push(Severity::Note, line, message);
    }

    /// Reports a diagnostic at an explicit source (HTML element paths).
    pub fn at(&mut self, severity: Severity, source: &Source, message: impl Into<String>) {
        self.add(Diagnostic::at(severity, source, message));
    }

    fn push(&mut self, severity: Severity, line: u32, message: impl Into<String>) {
        self.add(Diagnostic {
            severity,
            file: self.file.clone(),
            line,
            path: None,
            message: message.into(),
            unread: 0,
        });
    }

    fn add(&mut self, d: Diagnostic) {
        let seen = self
            .repeats
            .entry((d.severity, d.message.clone()))
            .or_insert(Repeats {
                count: 0,
                first_dropped: None,
            });
        seen.count += 1;
        if seen.count <= MAX_REPEATS {
            self.list.push(d);
        } else if seen.first_dropped.is_none() {
            seen.first_dropped = Some(Source {
                file: d.file,
                line: d.line,
                path: d.path,
            });
        }
    }

    /// Pushes a diagnostic built elsewhere (one with an unread-line count), kept even if
    /// its message repeats: its unread lines must be counted.
    pub fn push_diagnostic(&mut self, d: Diagnostic) {
        self.list.push(d);
    }

    /// The diagnostics pushed so far, then one for each message repeated past
    /// [`MAX_REPEATS`], saying how many more times it was found (at the first of those).
    pub fn into_vec(self) -> Vec<Diagnostic> {
        let mut list = self.list;
        for ((severity, message), r) in self.repeats {
            if let Some(at) = r.first_dropped {
                let more = r.count - MAX_REPEATS;
                list.push(Diagnostic::at(
                    severity,
                    &at,
                    format!("{more} more time(s) from here on, not listed one by one: {message}"),
                ));
            }
        }
        list
    }

    /// Diagnostics pushed so far, by reference (repeats past [`MAX_REPEATS`] not included).
    pub fn as_slice(&self) -> &[Diagnostic] {
        &self.list
    }
}

/// Counts of diagnostics by severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    /// Lines reported as unread, summed over the diagnostics that report them.
    pub unread: u64,
}

impl Counts {
    /// Counts `list` by severity.
    pub fn of(list: &[Diagnostic]) -> Counts {
        let mut c = Counts::default();
        for d in list {
            c.unread += u64::from(d.unread);
            match d.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Note => c.notes += 1,
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_past_the_bound_are_counted_into_one_diagnostic() {
        let mut d = Diagnostics::new("f.txt");
        for line in 1..=250 {
            d.warning(line, "same");
        }
        d.warning(251, "other");
        let list = d.into_vec();
        assert_eq!(list.len(), MAX_REPEATS + 2);
        let last = list.last().expect("the count");
        assert_eq!(last.line, 101);
        assert_eq!(last.severity, Severity::Warning);
        assert_eq!(
            last.message,
            "150 more time(s) from here on, not listed one by one: same"
        );
        assert_eq!(list[MAX_REPEATS].message, "other");
    }

    #[test]
    fn display_puts_file_and_line_first() {
        let mut d = Diagnostic::at(
            Severity::Warning,
            &Source {
                file: "p.html".into(),
                line: 12,
                path: Some("section[1]/dl[2]/dt[1]".into()),
            },
            "m",
        );
        assert_eq!(
            d.to_string(),
            "p.html:12: section[1]/dl[2]/dt[1]: warning: m"
        );
        d.line = 0;
        assert_eq!(d.to_string(), "p.html:section[1]/dl[2]/dt[1]: warning: m");
        d.path = None;
        d.line = 3;
        assert_eq!(d.to_string(), "p.html:3: warning: m");
    }
}
