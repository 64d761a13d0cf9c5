//! The names a front end read, checked once for every format: an item, member, field or
//! parameter whose name is empty or holds a control, invisible or non-ASCII character (a
//! look-alike: `cudаFoo` with a Cyrillic `а`, `CUDA\u{200b}_FOO` with a zero-width space) is an
//! error diagnostic naming it, with its code point. The name is kept whole in the IR: a reader
//! never cuts a name at such a character, and this check says why the run stops.
//!
//! Returned parameters may have no name (`:returns:` entries of the older pages): only their
//! characters are checked. It does not read documents.

use foldhash::HashSet;

use crate::diag::{Diagnostic, Severity};
use crate::ir::{Api, Direction, Source};

/// Error diagnostics for the bad names of `api`, except names a diagnostic already quotes
/// (a front end that reported one has said it).
pub fn check(api: &Api) -> Vec<Diagnostic> {
    let quoted: HashSet<&str> = api
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .flat_map(|d| d.message.split('`').skip(1).step_by(2))
        .collect();
    let mut out = Vec::new();
    let mut name = |what: &str, name: &str, owner: Option<&str>, source: &Source| {
        let Some(problem) = crate::text::identifier_problem(name) else {
            return;
        };
        let shown = name.escape_debug().to_string();
        if quoted.contains(shown.as_str()) {
            return;
        }
        let of = owner.map_or_else(String::new, |o| format!(" of `{}`", o.escape_debug()));
        out.push(Diagnostic::at(
            Severity::Error,
            source,
            format!("{what} `{shown}`{of}: {problem}; not a name the generated code can use (fix the document)"),
        ));
    };
    for f in &api.functions {
        name("function", &f.name, None, &f.source);
        for p in f.params.iter().flatten() {
            if p.name.is_empty() && p.direction == Direction::Out {
                continue;
            }
            name("parameter", &p.name, Some(&f.name), &f.source);
        }
    }
    for e in &api.enums {
        name("enum", &e.name, None, &e.source);
        for v in &e.variants {
            name("member", &v.name, Some(&e.name), &v.source);
        }
    }
    for s in &api.structs {
        name("struct", &s.name, None, &s.source);
        for f in &s.fields {
            name("field", &f.name, Some(&s.name), &f.source);
        }
    }
    for t in &api.typedefs {
        name("type", &t.name, None, &t.source);
        for f in &t.fields {
            name("field", &f.name, Some(&t.name), &f.source);
        }
    }
    for c in &api.constants {
        name("constant", &c.name, None, &c.source);
    }
    for a in &api.aliases {
        name("alias", &a.name, None, &a.source);
    }
    for e in &api.entries {
        name("listed name", &e.name, None, &e.source);
    }
    out
}
