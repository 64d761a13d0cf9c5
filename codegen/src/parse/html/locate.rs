//! Best-effort line numbers for HTML elements.
//!
//! html5ever does not report where an element starts, so an element with an `id` is found by
//! searching the source for `id="…"`. Elements come in document order, so the search goes on
//! from the last hit and the whole page is scanned about once. An element without an `id`, or
//! whose `id` is written with entities or other quoting, gets line 0 (its element path then
//! locates it).

/// Finds lines of `id` attributes in one page.
pub struct Locator<'t> {
    text: &'t str,
    /// Byte offsets of line starts.
    starts: Vec<usize>,
    cursor: usize,
    /// Searches that found nothing; after [`MAX_MISSES`] the locator stops searching.
    misses: usize,
}

/// Failed searches before the locator gives up (each costs a scan of the page).
const MAX_MISSES: usize = 64;

impl<'t> Locator<'t> {
    /// A locator over the page source `text`.
    pub fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Locator {
            text,
            starts,
            cursor: 0,
            misses: 0,
        }
    }

    /// 1-based line of the element with `id`, or 0 when it cannot be found.
    pub fn line_of_id(&mut self, id: &str) -> u32 {
        if id.is_empty() || self.misses >= MAX_MISSES {
            return 0;
        }
        let needle = format!("id=\"{id}\"");
        let found = self
            .text
            .get(self.cursor..)
            .and_then(|rest| rest.find(&needle))
            .map(|p| p + self.cursor)
            .or_else(|| self.text.get(..self.cursor)?.find(&needle));
        let Some(pos) = found else {
            self.misses += 1;
            return 0;
        };
        self.cursor = pos + needle.len();
        let line = self.starts.partition_point(|&s| s <= pos);
        u32::try_from(line).unwrap_or(u32::MAX)
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
