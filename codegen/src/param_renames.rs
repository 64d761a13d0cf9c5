//! The reviewed rule set that matches a documented parameter name to a C parameter name.
//!
//! The Python-facing docs sometimes name a parameter differently from the C header:
//! `stream`/`hStream`, `fn_`/`fn`, `type_`/`type`, `memPool`/`pool`, `devPtr`/`dptr`,
//! `length`/`len`. Each rule below is explicit, and every match made by a rule other than
//! [`Rule::Exact`] is reported by the join so a reviewer sees it. Nothing here lists CUDA
//! function names; the synonyms are parameter words. Shared by the Doxygen front end (pairing
//! `\param` entries with the C parameters of the same file) and by `bind` (pairing documented
//! parameters with the ABI's); it imports neither.

use serde::{Deserialize, Serialize};

/// Why two names were taken to be the same parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Identical names.
    Exact,
    /// Equal after dropping a trailing `_` (a keyword escaped by bindgen or by Python):
    /// `fn_`/`fn`, `type_`/`type`.
    KeywordEscape,
    /// Equal ignoring ASCII case.
    Case,
    /// Equal after dropping a Hungarian handle/pointer prefix (`hStream`/`stream`,
    /// `pValue`/`value`).
    HungarianPrefix,
    /// A listed synonym pair (see [`SYNONYMS`]).
    Synonym,
    /// The only documented parameter and the only C parameter left unmatched, in the same
    /// relative position.
    OnlyRemaining,
}

impl Rule {
    /// How strong the rule is: a lower rank wins when several C parameters match.
    pub fn rank(self) -> u8 {
        match self {
            Rule::Exact => 0,
            Rule::KeywordEscape => 1,
            Rule::Case => 2,
            Rule::HungarianPrefix => 3,
            Rule::Synonym => 4,
            Rule::OnlyRemaining => 5,
        }
    }

    /// A short phrase for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Rule::Exact => "same name",
            Rule::KeywordEscape => "keyword escape (trailing `_`)",
            Rule::Case => "differs in case only",
            Rule::HungarianPrefix => "handle/pointer prefix (`h`/`p`)",
            Rule::Synonym => "listed synonym",
            Rule::OnlyRemaining => "only unmatched parameter left on both sides",
        }
    }
}

/// Parameter-word synonyms the docs and the C headers use for the same thing. Reviewed by
/// hand; add a pair only with an example of a function that needs it.
pub const SYNONYMS: &[(&str, &str)] = &[
    ("stream", "hStream"), // cudaStreamAttachMemAsync and others: doc `stream`
    ("pool", "memPool"),   // cudaMemPool*: doc `memPool`, C `pool`
    ("devPtr", "dptr"),    // cudaMemAdvise/… older spellings
    ("length", "len"),
    ("count", "numBytes"),
    ("event", "hEvent"),
    ("graph", "hGraph"),
    ("node", "hNode"),
    ("graphExec", "hGraphExec"),
    ("func", "function"),
    ("userData", "user_data"),
    ("dst", "dstDevice"),
    ("src", "srcDevice"),
];

/// The rule under which documented name `doc` and C name `c` are the same parameter, if any
/// (other than [`Rule::OnlyRemaining`], which needs the whole parameter lists).
pub fn matches(doc: &str, c: &str) -> Option<Rule> {
    if doc == c {
        return Some(Rule::Exact);
    }
    let (d, k) = (doc.trim_end_matches('_'), c.trim_end_matches('_'));
    if d == k {
        return Some(Rule::KeywordEscape);
    }
    if d.eq_ignore_ascii_case(k) {
        return Some(Rule::Case);
    }
    if unprefixed(d).eq_ignore_ascii_case(&unprefixed(k)) {
        return Some(Rule::HungarianPrefix);
    }
    if SYNONYMS.iter().any(|(a, b)| {
        (a.eq_ignore_ascii_case(d) && b.eq_ignore_ascii_case(k))
            || (a.eq_ignore_ascii_case(k) && b.eq_ignore_ascii_case(d))
    }) {
        return Some(Rule::Synonym);
    }
    None
}

/// `hStream` → `stream`, `pValue` → `value`; other names unchanged.
fn unprefixed(name: &str) -> String {
    let mut chars = name.chars();
    match (chars.next(), chars.clone().next()) {
        (Some('h' | 'p'), Some(second)) if second.is_ascii_uppercase() => {
            let rest: String = chars.collect();
            let mut r = rest.chars();
            match r.next() {
                Some(f) => f.to_ascii_lowercase().to_string() + r.as_str(),
                None => rest,
            }
        }
        _ => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert_eq!(matches("size", "size"), Some(Rule::Exact));
        assert_eq!(matches("fn", "fn_"), Some(Rule::KeywordEscape));
        assert_eq!(matches("type_", "type"), Some(Rule::KeywordEscape));
        assert_eq!(matches("hStream", "stream"), Some(Rule::HungarianPrefix));
        assert_eq!(matches("memPool", "pool"), Some(Rule::Synonym));
        assert_eq!(matches("devPtr", "dptr"), Some(Rule::Synonym));
        assert_eq!(matches("length", "len"), Some(Rule::Synonym));
        assert_eq!(matches("width", "height"), None);
        assert_eq!(matches("p", "q"), None);
    }
}
