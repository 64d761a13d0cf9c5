//! The signature of a Sphinx `dt.sig` element, as the one-line text the shared builder reads.
//!
//! Reads the structure Sphinx's Python domain writes: the keyword property before the name
//! (`class`, dropped), `sig-prename` + `sig-name`, the `sig-param`s between `sig-paren`s
//! (also when Sphinx puts them one a line in a nested `dl`), and the property after the name
//! (`= 252`, `= <E.X: 3>`, `: int`). The permalink (`a.headerlink`) is skipped.
//! It does not decide what IR item the object becomes.

use super::dom::El;
use crate::parse::blocks::ObjectKind;

/// What a `dt.sig` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sig {
    /// `prename` + `name`.
    pub qualified: String,
    /// The parameters' texts, when the signature has parentheses.
    pub params: Option<Vec<String>>,
    /// The property after the name, trimmed (`= 252`, `: int`), possibly empty.
    pub trailing: String,
}

impl Sig {
    /// The one-line signature the builder reads: `q.name(a, b)`, `q.name`, `q.X = 2`.
    pub fn text(&self) -> String {
        let mut s = self.qualified.clone();
        if let Some(p) = &self.params {
            s.push('(');
            s.push_str(&p.join(", "));
            s.push(')');
        }
        if !self.trailing.is_empty() {
            if self.trailing.starts_with('=') {
                s.push(' ');
            }
            s.push_str(&self.trailing);
        }
        s
    }

    /// The short name (after the prename).
    pub fn short(&self) -> &str {
        self.qualified.rsplit('.').next().unwrap_or(&self.qualified)
    }

    /// Whether the object shows a value (`= …`).
    pub fn has_value(&self) -> bool {
        self.trailing.starts_with('=')
    }

    /// The annotated type of an attribute (`: int` → `int`).
    pub fn annotation(&self) -> Option<&str> {
        self.trailing
            .strip_prefix(':')
            .map(str::trim)
            .filter(|t| !t.is_empty())
    }
}

/// The object kind of a `dl.py` from its classes, or `None` for an unknown object type.
pub fn kind_of<'a>(dl: El<'a, '_>) -> Option<(ObjectKind, &'a str)> {
    dl.classes().find_map(|c| {
        let kind = match c {
            "function" | "method" | "classmethod" | "staticmethod" => ObjectKind::Function,
            "class" | "exception" => ObjectKind::Class,
            "data" | "attribute" | "property" => ObjectKind::Data,
            _ => return None,
        };
        Some((kind, c))
    })
}

/// Reads the signature of `dt`; `Err` when it names nothing.
pub fn read(dt: El<'_, '_>) -> Result<Sig, String> {
    let mut prename = String::new();
    let mut name = String::new();
    let mut params: Option<Vec<String>> = None;
    let mut trailing = String::new();
    for el in dt.elements() {
        if el.is("a") && el.has_class("headerlink") {
            continue;
        }
        if el.has_class("sig-prename") {
            prename.push_str(&el.text());
        } else if el.has_class("sig-name") {
            name.push_str(&el.text());
        } else if el.has_class("sig-paren") {
            params.get_or_insert_with(Vec::new);
        } else if el.has_class("sig-param") {
            params.get_or_insert_with(Vec::new).push(el.text());
        } else if el.is("dl") {
            // One parameter a line: `<dl><dd><em class="sig-param">…</em>,</dd></dl>`.
            let list = params.get_or_insert_with(Vec::new);
            list.extend(
                el.descendant_elements()
                    .filter(|e| e.has_class("sig-param"))
                    .map(El::text),
            );
        } else if el.has_class("property") && !name.is_empty() {
            if !trailing.is_empty() {
                trailing.push(' ');
            }
            trailing.push_str(&el.text());
        }
    }
    let name = name.trim();
    if name.is_empty() {
        return Err(format!(
            "signature `{}` has no `sig-name`",
            dt.text().trim_end_matches('#')
        ));
    }
    Ok(Sig {
        qualified: format!("{}{name}", prename.trim()),
        params,
        trailing,
    })
}
