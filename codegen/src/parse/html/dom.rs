//! Small helpers over `scraper` elements: tag and class tests, whitespace-collapsed text.
//!
//! No parsing of HTML text happens here; everything reads the html5ever tree.

use scraper::ElementRef;

/// Whether `el` has the class `class`.
pub fn has_class(el: ElementRef<'_>, class: &str) -> bool {
    el.value().classes().any(|c| c == class)
}

/// Whether `el` is a `tag` element.
pub fn is(el: ElementRef<'_>, tag: &str) -> bool {
    el.value().name() == tag
}

/// Appends `s` to `out`, turning every run of whitespace into one space and dropping
/// whitespace at the start of `out`.
pub fn push_collapsed(out: &mut String, s: &str) {
    for c in s.chars() {
        if c.is_whitespace() {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
}

/// The text of `el` and its descendants, whitespace collapsed and trimmed.
pub fn text(el: ElementRef<'_>) -> String {
    let mut out = String::new();
    for t in el.text() {
        push_collapsed(&mut out, t);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out
}

/// The heading level of `h1`…`h6`.
pub fn heading_level(el: ElementRef<'_>) -> Option<u8> {
    match el.value().name() {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

/// Element children of `el`.
pub fn elements(el: ElementRef<'_>) -> impl Iterator<Item = ElementRef<'_>> {
    el.children().filter_map(ElementRef::wrap)
}
