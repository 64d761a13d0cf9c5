//! The permalink mark of a rendered Sphinx page as text: the character the theme puts after
//! every heading and object signature (`runtime#`, `cuda.bindings.runtime.cudaFree(devPtr)#`).
//!
//! Themes differ: the PyData and NVIDIA themes write `#`, alabaster and furo `¶`,
//! `sphinx_rtd_theme` an icon-font character (U+F0C1, from the Unicode private use area, which
//! shows as nothing); a page rendered without permalinks has none. [`of_lines`] learns a
//! page's mark from the page itself — the one that ends most of the lines shaped like a
//! signature — so that the text front end and the census read every theme alike. Nothing
//! here decides what a line is beyond that shape.

use super::signature::is_dotted_ident;

/// How a page marks its headings and signatures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permalink {
    /// Every heading and signature ends with this character.
    Mark(char),
    /// No mark: headings and signatures end with their text.
    Absent,
}

impl Permalink {
    /// The mark of the NVIDIA theme, for a page with no line that tells.
    pub const NVIDIA: Permalink = Permalink::Mark('#');

    /// `line` without the mark and the blanks at its end and before the mark; `None` when a
    /// mark is expected and missing. With [`Permalink::Absent`], the line end-trimmed.
    pub fn strip(self, line: &str) -> Option<&str> {
        match self {
            Permalink::Mark(m) => line.trim_end().strip_suffix(m).map(str::trim_end),
            Permalink::Absent => Some(line.trim_end()),
        }
    }

    /// How a message names the mark.
    pub fn describe(self) -> String {
        match self {
            Permalink::Mark(m) if m.is_ascii_graphic() || !is_private_use(m) => format!("`{m}`"),
            Permalink::Mark(m) => format!("U+{:04X}", u32::from(m)),
            Permalink::Absent => "none".into(),
        }
    }
}

/// Whether `c` can be a permalink mark: `#`, or a character that is neither ASCII, nor a
/// letter or digit, nor a blank (`¶`, `§`, an icon-font character, `🔗`).
pub fn is_mark(c: char) -> bool {
    c == '#' || (!c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace())
}

fn is_private_use(c: char) -> bool {
    matches!(u32::from(c), 0xE000..=0xF8FF | 0xF0000..=0x10FFFF)
}

/// What a line at column 0 says about the page's mark when it is shaped like a rendered
/// signature (`class a.B(…)`, `a.b(…)`, or the `)` that closes a signature written over
/// several lines), followed by one mark character or by nothing; `None` for any other line.
pub fn of_signature(line: &str) -> Option<Permalink> {
    if line.starts_with([' ', '\t']) {
        return None;
    }
    let t = line.trim_end();
    let last = t.chars().next_back()?;
    let (body, mark) = if last == ')' {
        (t, Permalink::Absent)
    } else if is_mark(last) {
        (
            t[..t.len() - last.len_utf8()].trim_end(),
            Permalink::Mark(last),
        )
    } else {
        return None;
    };
    if body == ")" {
        return Some(mark);
    }
    let body = body.strip_prefix("class ").unwrap_or(body);
    let open = body.find('(')?;
    (body.ends_with(')') && is_dotted_ident(&body[..open]) && body[..open].contains('.'))
        .then_some(mark)
}

/// The mark of a page: the one most of its signature-shaped lines end with (a page whose
/// lines show none of them: [`Permalink::NVIDIA`]). Linear in the text.
pub fn of_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Permalink {
    // A handful of distinct marks at most: (mark, votes).
    let mut votes: Vec<(Permalink, usize)> = Vec::new();
    for line in lines {
        if let Some(mark) = of_signature(line) {
            if let Some((_, n)) = votes.iter_mut().find(|(m, _)| *m == mark) {
                *n += 1;
            } else if votes.len() < 16 {
                votes.push((mark, 1));
            }
        }
    }
    // The most votes; the first seen among equals.
    let mut best: Option<(Permalink, usize)> = None;
    for (mark, n) in votes {
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((mark, n));
        }
    }
    best.map_or(Permalink::NVIDIA, |(mark, _)| mark)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_of_signature_lines() {
        let m = |l: &str| of_signature(l);
        assert_eq!(
            m("cuda.bindings.runtime.f(a, b)#"),
            Some(Permalink::Mark('#'))
        );
        assert_eq!(m("class m.E(value: int)¶"), Some(Permalink::Mark('¶')));
        assert_eq!(m("m.f()\u{f0c1}"), Some(Permalink::Mark('\u{f0c1}')));
        assert_eq!(m("m.f(a)"), Some(Permalink::Absent));
        assert_eq!(m(")¶"), Some(Permalink::Mark('¶')));
        // Not signatures: indented, unqualified, prose, a data object.
        assert_eq!(m("   m.f(a)#"), None);
        assert_eq!(m("f(a)#"), None);
        assert_eq!(m("See m.f(a) for more."), None);
        assert_eq!(m("m.X = 3#"), None);
        assert_eq!(m(""), None);
    }

    #[test]
    fn page_mark_is_the_majority() {
        let page = ["runtime¶", "", "m.f(a)¶", "m.g()¶", "m.h(x)", "text"];
        assert_eq!(of_lines(page), Permalink::Mark('¶'));
        assert_eq!(of_lines(["m.f(a)", "m.g(b)"]), Permalink::Absent);
        assert_eq!(of_lines(["no signatures"]), Permalink::NVIDIA);
        assert_eq!(Permalink::Mark('\u{f0c1}').describe(), "U+F0C1");
        assert_eq!(Permalink::Mark('¶').strip("T¶ "), Some("T"));
        assert_eq!(Permalink::Mark('¶').strip("m.f(a) ¶"), Some("m.f(a)"));
        assert_eq!(Permalink::Mark('¶').strip("T#"), None);
    }
}
