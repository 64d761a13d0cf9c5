//! Rust names of emitted items, decided once in the model: enum members and flag members in
//! SCREAMING_SNAKE_CASE without their shared prefix, typed functions and parameters in
//! snake_case. These are rules over names alone; they know no CUDA item.

use foldhash::HashMap;

use heck::ToShoutySnakeCase;

/// Rust names for the members of an enum: SCREAMING_SNAKE_CASE with the prefix all members
/// share removed (`cudaMemcpyHostToDevice` → `HOST_TO_DEVICE`). Falls back to the whole
/// member name where stripping would give an empty, numeric or colliding name.
pub fn member_names(members: &[&str]) -> Vec<String> {
    let prefix = if members.len() >= 2 {
        common_word_prefix(members)
    } else {
        String::new()
    };
    let mut out: Vec<String> = members
        .iter()
        .map(|m| {
            let rest = &m[prefix.len().min(m.len())..];
            let candidate = rest.to_shouty_snake_case();
            if candidate.is_empty() || candidate.starts_with(|c: char| c.is_ascii_digit()) {
                m.trim_start_matches("cuda").to_shouty_snake_case()
            } else {
                candidate
            }
        })
        .collect();
    // Collisions (after prefix stripping) fall back to the full member names.
    let mut counts: HashMap<String, usize> = HashMap::default();
    for n in &out {
        *counts.entry(n.clone()).or_default() += 1;
    }
    for (i, n) in out.iter_mut().enumerate() {
        if counts[n.as_str()] > 1
            || n.starts_with(|c: char| c.is_ascii_digit())
            || !is_plain_ident(n)
        {
            *n = members[i].to_shouty_snake_case();
        }
    }
    out
}

/// The longest prefix of whole camel-case words all `names` share (`cudaMemcpy` for
/// `cudaMemcpyHostToHost`, `cudaMemcpyDeviceToHost`).
pub fn common_word_prefix(names: &[&str]) -> String {
    let Some(first) = names.first() else {
        return String::new();
    };
    let mut len = first.len();
    for n in &names[1..] {
        len = len.min(
            first
                .bytes()
                .zip(n.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    // Back off to a word boundary: the next character of every name starts a word.
    while len > 0 {
        let boundary = names.iter().all(|n| match n.as_bytes().get(len) {
            Some(c) => {
                c.is_ascii_uppercase()
                    || *c == b'_'
                    || c.is_ascii_digit() && !n.as_bytes()[len - 1].is_ascii_digit()
            }
            None => false,
        });
        if boundary {
            break;
        }
        len -= 1;
    }
    first[..len].to_string()
}

/// `cudaStreamCreateWithFlags` → `stream_create_with_flags`, `cudaMemcpy2DAsync` →
/// `memcpy2d_async`, `cudaDeviceGetP2PAttribute` → `device_get_p2p_attribute`: a word starts
/// at an upper-case letter after a lower-case one, or at the last capital of an acronym that
/// is followed by a lower-case letter; digits stay with the word before them.
pub fn snake_case(c_name: &str) -> String {
    let s = c_name.strip_prefix("cuda").unwrap_or(c_name);
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            if (prev.is_ascii_lowercase() || (prev.is_ascii_uppercase() && next_lower))
                && !out.ends_with('_')
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The Rust name of a parameter (`devPtr` → `dev_ptr`, `_x` → `x`).
pub fn param_name(c_name: &str) -> String {
    snake_case(c_name).trim_start_matches('_').to_string()
}

/// Whether `name` is an identifier that is no Rust keyword (what `syn` accepts as an `Ident`),
/// checked without a parser: a codegen run asks this for every name it emits.
pub fn is_plain_ident(name: &str) -> bool {
    if name.is_ascii() {
        // The common case, without the Unicode tables (which agree with this on ASCII).
        let mut bytes = name.bytes();
        let start = bytes
            .next()
            .is_some_and(|c| c == b'_' || c.is_ascii_alphabetic());
        return start
            && bytes.all(|c| c == b'_' || c.is_ascii_alphanumeric())
            && name != "_"
            && !is_keyword(name);
    }
    let mut chars = name.chars();
    let start = chars
        .next()
        .is_some_and(|c| c == '_' || unicode_ident::is_xid_start(c));
    start && chars.all(unicode_ident::is_xid_continue) && name != "_" && !is_keyword(name)
}

/// Rust's strict and reserved keywords (2018 edition and later), as `syn` rejects them.
fn is_keyword(name: &str) -> bool {
    // None is longer than 8 bytes: most names are, and need no comparison.
    name.len() <= 8
        && matches!(
            name,
            "abstract"
                | "as"
                | "async"
                | "await"
                | "become"
                | "box"
                | "break"
                | "const"
                | "continue"
                | "crate"
                | "do"
                | "dyn"
                | "else"
                | "enum"
                | "extern"
                | "false"
                | "final"
                | "fn"
                | "for"
                | "if"
                | "impl"
                | "in"
                | "let"
                | "loop"
                | "macro"
                | "match"
                | "mod"
                | "move"
                | "mut"
                | "override"
                | "priv"
                | "pub"
                | "ref"
                | "return"
                | "self"
                | "Self"
                | "static"
                | "struct"
                | "super"
                | "trait"
                | "true"
                | "try"
                | "type"
                | "typeof"
                | "unsafe"
                | "unsized"
                | "use"
                | "virtual"
                | "where"
                | "while"
                | "yield"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_names_strip_the_shared_prefix() {
        assert_eq!(
            member_names(&[
                "cudaMemcpyHostToHost",
                "cudaMemcpyHostToDevice",
                "cudaMemcpyDefault"
            ]),
            vec!["HOST_TO_HOST", "HOST_TO_DEVICE", "DEFAULT"]
        );
        assert_eq!(
            member_names(&["cudaSuccess", "cudaErrorInvalidValue"]),
            vec!["SUCCESS", "ERROR_INVALID_VALUE"]
        );
        // A numeric remainder keeps more of the name.
        let n = member_names(&["cudaFormat1", "cudaFormat2"]);
        assert!(
            n.iter()
                .all(|x| !x.starts_with(|c: char| c.is_ascii_digit())),
            "{n:?}"
        );
    }

    #[test]
    fn snake_case_is_predictable() {
        assert_eq!(snake_case("cudaGetDeviceCount"), "get_device_count");
        assert_eq!(
            snake_case("cudaStreamCreateWithFlags"),
            "stream_create_with_flags"
        );
        assert_eq!(snake_case("cudaMemcpy2DAsync"), "memcpy2d_async");
        assert_eq!(
            snake_case("cudaDeviceGetP2PAttribute"),
            "device_get_p2p_attribute"
        );
        assert_eq!(snake_case("cudaIpcOpenMemHandle"), "ipc_open_mem_handle");
        assert_eq!(
            snake_case("cudaGraphConditionalHandleCreate_v2"),
            "graph_conditional_handle_create_v2"
        );
        assert_eq!(snake_case("devPtr"), "dev_ptr");
        assert_eq!(snake_case("pHandle_out"), "p_handle_out");
        assert_eq!(param_name("_x"), "x");
    }
}
