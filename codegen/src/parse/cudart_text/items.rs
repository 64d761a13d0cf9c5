//! Small readers for the pieces of a rendered `cuda.cudart` entry: signature parameters,
//! `name (type) – description` items, status-code lists and return bullets whose type is
//! glued to their description (`byteschar* pointer…`).
//!
//! They work on one string at a time and know no CUDA names; types they need to recognise
//! are the ones the page itself states elsewhere (passed in as `known`).

use foldhash::HashSet;

use crate::parse::signature::is_ident;
use crate::text::split_after_last;

/// The separator Sphinx renders between an item's head and its description (an en dash).
pub const DASH: &str = " \u{2013} ";

/// One parameter of a signature: `name`, `name: Ann`, `Ctype name` or `Ctype name: Ann`.
#[derive(Debug, PartialEq)]
pub struct SigParam {
    pub name: String,
    /// The annotation if any, else the C type if any.
    pub ty: Option<String>,
}

/// Splits a signature's parameter text at top-level commas and reads each parameter.
/// Returns the parameters and the pieces that could not be read.
pub fn signature_params(text: &str) -> (Vec<SigParam>, Vec<String>) {
    let mut params = Vec::new();
    let mut bad = Vec::new();
    if text.trim().is_empty() {
        return (params, bad);
    }
    for piece in crate::text::split_outside_brackets(text, ',') {
        let piece = piece.trim();
        if piece.is_empty() {
            continue; // a trailing comma
        }
        let (decl, ann) = match piece.split_once(':') {
            Some((d, a)) => (d.trim(), Some(a.trim())),
            None => (piece, None),
        };
        let decl = decl.split_once('=').map_or(decl, |(d, _)| d.trim_end());
        let (ctype, name) = split_after_last(decl, |c| c.is_whitespace() || c == '*');
        let (ctype, name) = (ctype.trim(), name.trim());
        if !is_ident(name) {
            bad.push(piece.to_string());
            continue;
        }
        let ctype = (!ctype.is_empty() && ctype.trim_matches('*').trim() != "").then(|| {
            ctype
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .replace(" *", "*")
        });
        let ty = ann.filter(|a| !a.is_empty()).map(str::to_string).or(ctype);
        params.push(SigParam {
            name: name.to_string(),
            ty,
        });
    }
    (params, bad)
}

/// `name (type) – description` (description optional): name, type and description.
pub fn param_item(text: &str) -> Option<(&str, &str, &str)> {
    let (head, desc) = match text.find(DASH) {
        Some(k) => (&text[..k], &text[k + DASH.len()..]),
        None => (text, ""),
    };
    let head = head.trim();
    let inner = head.strip_suffix(')')?;
    let open = inner.find(" (")?;
    let name = inner[..open].trim();
    let ty = inner[open + 2..].trim();
    (is_ident(name) && !ty.is_empty()).then_some((name, ty, desc.trim()))
}

/// Types longer than this, in characters, are not looked for at the start of a text (no real
/// type is; a page's garbage may be).
const MAX_KNOWN_TYPE: usize = 100;

/// The types a page states, for recognising one at the start of a text in time that does not
/// grow with how many there are.
#[derive(Debug, Default)]
pub struct KnownTypes {
    set: HashSet<String>,
    /// Characters of the longest type in `set`.
    longest: usize,
}

impl KnownTypes {
    /// The types among `types` of at most [`MAX_KNOWN_TYPE`] characters.
    pub fn new<I: IntoIterator<Item = String>>(types: I) -> KnownTypes {
        let mut known = KnownTypes::default();
        for t in types {
            let chars = t.chars().count();
            if chars <= MAX_KNOWN_TYPE {
                known.longest = known.longest.max(chars);
                known.set.insert(t);
            }
        }
        known
    }

    /// Whether `t` is a known type.
    pub fn contains(&self, t: &str) -> bool {
        self.set.contains(t)
    }

    /// The longest known type (of two bytes or more) that `text` starts with, leaving a
    /// non-empty rest.
    pub fn prefix_of<'t>(&self, text: &'t str) -> Option<&'t str> {
        let ends: Vec<usize> = text
            .char_indices()
            .skip(1)
            .take(self.longest)
            .map(|(at, _)| at)
            .collect();
        ends.into_iter()
            .rev()
            .filter(|&end| end >= 2)
            .map(|end| &text[..end])
            .find(|head| self.set.contains(*head))
    }
}

/// The status codes a `Returns` status text lists: `cudaSuccess, cudaErrorX`,
/// `T` + `cudaSuccess, …` glued (T a known type), or `T.code – T.code`.
/// `None` when the text is prose rather than a list of codes.
pub fn status_codes(text: &str, known: &KnownTypes) -> Option<Vec<String>> {
    let mut t = text.trim();
    if let Some(ty) = known.prefix_of(t).filter(|k| is_ident(k)) {
        let rest = &t[ty.len()..];
        if let Some(code) = rest.strip_prefix('.') {
            t = code.split(DASH).next().unwrap_or("");
        } else if rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            t = rest;
        }
    } else if known.contains(t) {
        return Some(Vec::new());
    }
    let mut codes = Vec::new();
    let mut seen = foldhash::HashSet::default();
    for tok in t.split(|c: char| c == ',' || c.is_whitespace()) {
        let tok = clean_token(tok);
        if tok.is_empty() || tok.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        // Codes are C constants (`cudaSuccess`, `CUDA_ERROR_X`), not prose words.
        if !is_ident(tok) || !tok.contains(|c: char| c.is_ascii_uppercase() || c == '_') {
            return None;
        }
        if seen.insert(tok) {
            codes.push(tok.to_string());
        }
    }
    Some(codes)
}

/// Strips RST roles (``:py:obj:`~.X`2`` → `X`) and surrounding punctuation from a token.
fn clean_token(tok: &str) -> &str {
    let mut t = tok.trim();
    if let Some(k) = t.find('`') {
        let inner = &t[k + 1..];
        t = inner.split('`').next().unwrap_or("");
        t = t.trim_start_matches('~').trim_start_matches('.');
        t = t.rsplit('.').next().unwrap_or(t);
    }
    t.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
}

/// Splits a return bullet whose type is glued to its description: a known type
/// (`byteschar* pointer…` → `bytes`), or a name the description repeats
/// (`cudaPoscudaPos specified…` → `cudaPos`). Returns the type and the description.
pub fn glued_type<'t>(text: &'t str, known: &KnownTypes) -> Option<(&'t str, &'t str)> {
    let text = text.trim();
    if let Some(ty) = known.prefix_of(text) {
        return Some((&text[..ty.len()], text[ty.len()..].trim()));
    }
    let ident_len = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    for k in 2..=ident_len / 2 {
        let (head, rest) = text.split_at(k);
        if rest.starts_with(head) && is_ident(head) {
            return Some((head, rest));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp(name: &str, ty: Option<&str>) -> SigParam {
        SigParam {
            name: name.into(),
            ty: ty.map(str::to_string),
        }
    }

    #[test]
    fn signatures() {
        let (p, bad) = signature_params(
            "cudaChannelFormatDesc fmtDesc: cudaChannelFormatDesc, int device, dst, char *pciBusId, deps: List[a, b], unsigned int flags=0",
        );
        assert!(bad.is_empty());
        assert_eq!(
            p,
            [
                sp("fmtDesc", Some("cudaChannelFormatDesc")),
                sp("device", Some("int")),
                sp("dst", None),
                sp("pciBusId", Some("char*")),
                sp("deps", Some("List[a, b]")),
                sp("flags", Some("unsigned int")),
            ]
        );
        assert!(signature_params("").0.is_empty());
        assert_eq!(signature_params("int 3x").1, ["int 3x"]);
    }

    #[test]
    fn items() {
        assert_eq!(
            param_item("limit (cudaLimit) – Limit to set"),
            Some(("limit", "cudaLimit", "Limit to set"))
        );
        assert_eq!(
            param_item("d (List[Any]) – x (y) – z"),
            Some(("d", "List[Any]", "x (y) – z"))
        );
        assert_eq!(param_item("p (int)"), Some(("p", "int", "")));
        assert_eq!(
            param_item("cudaError_t.cudaSuccess – cudaError_t.cudaSuccess"),
            None
        );
        assert_eq!(param_item("two words (int) – x"), None);
    }

    #[test]
    fn statuses() {
        let known = KnownTypes::new(["cudaError_t".to_string(), "bytes".to_string()]);
        let s = |t| status_codes(t, &known);
        assert_eq!(
            s("cudaSuccess, cudaErrorInvalidValue,"),
            Some(vec!["cudaSuccess".into(), "cudaErrorInvalidValue".into()])
        );
        assert_eq!(
            s("cudaError_tcudaSuccess, cudaErrorX"),
            Some(vec!["cudaSuccess".into(), "cudaErrorX".into()])
        );
        assert_eq!(
            s("cudaError_t.cudaSuccess – cudaError_t.cudaSuccess"),
            Some(vec!["cudaSuccess".into()])
        );
        assert_eq!(s("cudaError_t"), Some(vec![]));
        assert_eq!(
            s("cudaSuccess, :py:obj:`~.cudaErrorInvalidDeviceFunction`2"),
            Some(vec![
                "cudaSuccess".into(),
                "cudaErrorInvalidDeviceFunction".into()
            ])
        );
        assert_eq!(s("the call may fail (sometimes)."), None);
    }

    #[test]
    fn glued() {
        let known = KnownTypes::new(["bytes".to_string(), "by".to_string()]);
        assert_eq!(
            glued_type("byteschar* pointer", &known),
            Some(("bytes", "char* pointer"))
        );
        assert_eq!(
            glued_type("cudaPoscudaPos specified by x", &known),
            Some(("cudaPos", "cudaPos specified by x"))
        );
        assert_eq!(glued_type("something else", &known), None);
    }
}
