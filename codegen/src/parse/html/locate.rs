//! Best-effort line numbers for HTML elements.
//!
//! html5ever does not report where an element starts, so the page source is scanned once for
//! `id="…"` attributes and each id's line is kept in a map; an element is then located by its
//! `id`. An element without an `id`, or whose `id` is written with entities or other quoting,
//! gets line 0 (its element path then locates it). When an id occurs more than once, the
//! first occurrence not yet handed out is used, so elements in document order get their own.

use std::collections::HashMap;

/// Lines of the `id` attributes of one page.
pub struct Locator<'t> {
    /// Each id's lines, in document order, and how many have been handed out.
    lines: HashMap<&'t str, (Vec<u32>, usize)>,
}

impl<'t> Locator<'t> {
    /// A locator over the page source `text` (one pass over it).
    pub fn new(text: &'t str) -> Self {
        let mut lines: HashMap<&'t str, (Vec<u32>, usize)> = HashMap::new();
        let mut line = 1u32;
        let mut counted = 0usize;
        let mut from = 0usize;
        const NEEDLE: &str = "id=\"";
        while let Some(hit) = text.get(from..).and_then(|rest| rest.find(NEEDLE)) {
            let at = from + hit;
            let start = at + NEEDLE.len();
            let Some(len) = text.get(start..).and_then(|rest| rest.find('"')) else {
                break;
            };
            // Only a real attribute: `id="` after whitespace (not `data-id="` or `grid="`).
            let attribute = at > 0 && text.as_bytes()[at - 1].is_ascii_whitespace();
            if attribute {
                line += text.as_bytes()[counted..at]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u32;
                counted = at;
                lines
                    .entry(&text[start..start + len])
                    .or_default()
                    .0
                    .push(line);
            }
            from = start + len;
        }
        Locator { lines }
    }

    /// 1-based line of the element with `id`, or 0 when it cannot be found.
    pub fn line_of_id(&mut self, id: &str) -> u32 {
        match self.lines.get_mut(id) {
            Some((lines, used)) => {
                let line = lines.get(*used).or(lines.last()).copied().unwrap_or(0);
                *used += 1;
                line
            }
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Locator;

    #[test]
    fn finds_lines_in_order_and_out_of_order() {
        let text = "<a id=\"x\">\n\n<b id=\"y\">\n<c id=\"x2\">";
        let mut l = Locator::new(text);
        assert_eq!(l.line_of_id("y"), 3);
        assert_eq!(l.line_of_id("x2"), 4);
        assert_eq!(l.line_of_id("x"), 1);
        assert_eq!(l.line_of_id("missing"), 0);
    }
}
