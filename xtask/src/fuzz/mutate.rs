//! Mutants of the real documents: what a hostile or careless input looks like.
//!
//! A case is fully determined by the run's seed and its number ([`Rng::for_case`]), so a
//! failure is replayed with `cargo xtask fuzz --seed S --case N`. Mutations work on bytes:
//! truncation, byte flips, Unicode spaces where ASCII ones were, other non-ASCII characters
//! next to punctuation, invalid UTF-8, repeated, deleted and shuffled lines, very long lines,
//! deep nesting (brackets, pointer stars, unclosed HTML elements, RST indentation), CR and
//! CR LF line endings, lines spliced in from another document, runs of whole objects spliced
//! in from another release of the same format, invisible and look-alike characters inside
//! names, stray and unclosed tags, and broken comment terminators. Nothing here runs a parser.

/// Largest mutant, in bytes; bigger ones are cut (a time-out must come from the code, not
/// from an input of unbounded size).
pub const MAX_INPUT: usize = 8 << 20;

/// A small deterministic generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    /// The generator of case `case` of the run seeded `seed`.
    pub fn for_case(seed: u64, case: u64) -> Rng {
        let mut r = Rng(seed ^ case.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        r.next();
        r
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    /// A number in `lo..=hi`, each power of two about as likely as the next.
    pub fn log_uniform(&mut self, lo: usize, hi: usize) -> usize {
        let (lo, hi) = (lo.max(1), hi.max(lo.max(1)));
        let bits = |n: usize| usize::BITS - n.leading_zeros();
        let b = bits(lo) + self.below((bits(hi) - bits(lo) + 1) as usize) as u32;
        let top = (1usize << b).saturating_sub(1).min(hi);
        let bottom = (1usize << (b - 1)).max(lo);
        if top <= bottom {
            bottom.min(hi)
        } else {
            bottom + self.below(top - bottom + 1)
        }
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The kinds of mutation, by name (reported with each failure).
pub const KINDS: &[&str] = &[
    "truncate",
    "flip-bytes",
    "unicode-spaces",
    "non-ascii",
    "invalid-utf8",
    "repeat-lines",
    "delete-lines",
    "shuffle-lines",
    "long-line",
    "deep-nesting",
    "line-endings",
    "splice",
    "release-splice",
    "invisible-in-name",
    "look-alike",
    "stray-tag",
    "comment-terminator",
];

/// Characters that show nothing: inside a name, two names look the same.
const INVISIBLE: &[char] = &[
    '\u{200b}', '\u{200c}', '\u{200d}', '\u{2060}', '\u{feff}', '\u{ad}', '\u{202e}', '\u{34f}',
    '\u{180e}', '\u{2061}', '\u{fe0f}',
];

/// ASCII letters and a character of another script that looks the same (Cyrillic, Greek).
const LOOK_ALIKES: &[(u8, char)] = &[
    (b'a', '\u{430}'),
    (b'c', '\u{441}'),
    (b'e', '\u{435}'),
    (b'i', '\u{456}'),
    (b'o', '\u{43e}'),
    (b'p', '\u{440}'),
    (b's', '\u{455}'),
    (b'x', '\u{445}'),
    (b'y', '\u{443}'),
    (b'A', '\u{410}'),
    (b'B', '\u{412}'),
    (b'C', '\u{421}'),
    (b'E', '\u{415}'),
    (b'H', '\u{41d}'),
    (b'M', '\u{41c}'),
    (b'O', '\u{39f}'),
    (b'P', '\u{420}'),
    (b'T', '\u{3a4}'),
    (b'v', '\u{3bd}'),
];

/// Comment openers put where no comment was.
const OPENERS: &[&[u8]] = &[b"/*", b"/**", b"<!--", b".. "];

/// What a C comment's `*/` becomes when mistyped.
const BROKEN_C_CLOSE: &[&[u8]] = &[b"* /", b"*\\/", b"*", b"", b"**", b"*\n/"];

/// What an HTML comment's `-->` becomes when mistyped.
const BROKEN_HTML_CLOSE: &[&[u8]] = &[b"-- >", b"->", b"--", b""];

/// Tags left open or closing what is not theirs: formatting elements the tree builder reopens
/// around every later block, end tags that close the page's containers early, raw-text
/// elements that swallow what follows, an unterminated tag and an unclosed comment.
const STRAY_TAGS: &[&str] = &[
    "<b>",
    "<i>",
    "<em>",
    "<strong>",
    "<code>",
    "<u>",
    "<s>",
    "<font>",
    "<nobr>",
    "<a href=x>",
    "<b",
    "</article>",
    "</main>",
    "</div>",
    "</section>",
    "</dd>",
    "</dl>",
    "</dt>",
    "</body>",
    "</html>",
    "<script>",
    "<style>",
    "<textarea>",
    "<title>",
    "<xmp>",
    "<!--",
    "<table>",
    "<p>",
    "<dl>",
    "<dt>",
    "<pre>",
    "<template>",
    "<svg>",
    "<math>",
    "</span>",
];

/// Characters that are whitespace to Rust's `char::is_whitespace` but not ASCII, and a few
/// ASCII controls.
const SPACES: &[char] = &[
    '\u{a0}', '\u{3000}', '\u{2003}', '\u{2009}', '\u{202f}', '\u{1680}', '\u{85}', '\u{2028}',
    '\u{2029}', '\u{205f}', '\t', '\u{b}', '\u{c}',
];

/// Non-ASCII characters of every UTF-8 length, combining and invisible ones included.
const OTHERS: &[char] = &[
    'é', 'ß', 'ø', '—', '–', '…', '’', '“', 'µ', 'Ω', '中', '文', 'ア', '😀', '𝔘', '\u{301}',
    '\u{200b}', '\u{200d}', '\u{feff}', '\u{fffd}', '\u{202e}', '\u{0}', '\u{ad}', '\u{a0}',
    '\u{3000}',
];

/// Byte sequences that are not UTF-8.
const INVALID: &[&[u8]] = &[
    b"\xff",
    b"\xc3",
    b"\xe2\x80",
    b"\xf0\x9f\x98",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\x80",
    b"\xfe\xff",
];

/// ASCII bytes the parsers look for.
const PUNCTUATION: &[u8] = b"\0\n\r\t ()[]{}<>:;*#`-=,._|~!\"'/\\";

/// Documents a mutation takes text from: any other one, and one of the same format (another
/// release of the base, where there is one).
#[derive(Clone, Copy)]
pub struct Others<'a> {
    pub any: &'a [u8],
    pub same_format: &'a [u8],
}

/// Applies 1 to 4 random mutations to `base`, taking text from `others`. Returns the mutant
/// and the names of the mutations applied.
pub fn mutate(base: &[u8], others: Others<'_>, rng: &mut Rng) -> (Vec<u8>, Vec<&'static str>) {
    let mut data = base.to_vec();
    let mut applied = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let kind = *rng.pick(KINDS);
        data = apply(kind, data, others, rng);
        data.truncate(MAX_INPUT);
        applied.push(kind);
    }
    (data, applied)
}

/// One mutation by name.
pub fn apply(kind: &str, data: Vec<u8>, others: Others<'_>, rng: &mut Rng) -> Vec<u8> {
    match kind {
        "truncate" => truncate(data, rng),
        "flip-bytes" => flip_bytes(data, rng),
        "unicode-spaces" => unicode_spaces(data, rng),
        "non-ascii" => insert_chars(data, OTHERS, rng),
        "invalid-utf8" => invalid_utf8(data, rng),
        "repeat-lines" => repeat_lines(data, rng),
        "delete-lines" => delete_lines(data, rng),
        "shuffle-lines" => shuffle_lines(data, rng),
        "long-line" => long_line(data, rng),
        "deep-nesting" => deep_nesting(data, rng),
        "line-endings" => line_endings(data, rng),
        "splice" => splice(data, others.any, rng),
        "release-splice" => release_splice(data, others.same_format, rng),
        "invisible-in-name" => invisible_in_name(data, rng),
        "look-alike" => look_alike(data, rng),
        "stray-tag" => stray_tag(data, rng),
        "comment-terminator" => comment_terminator(data, rng),
        _ => data,
    }
}

/// A window of whole lines of `doc`: from a random line, a log-uniform number of lines.
pub fn window(doc: &[u8], rng: &mut Rng) -> Vec<u8> {
    let lines = line_starts(doc);
    let first = rng.below(lines.len());
    let count = rng.log_uniform(1, 4000);
    let start = lines[first];
    let end = lines.get(first + count).copied().unwrap_or(doc.len());
    doc[start..end].to_vec()
}

/// Byte offsets where lines start (always at least `[0]`).
fn line_starts(doc: &[u8]) -> Vec<usize> {
    let mut out = vec![0];
    out.extend(
        doc.iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .map(|(i, _)| i + 1)
            .filter(|&i| i < doc.len()),
    );
    out
}

/// Splits into lines, each keeping its `\n`.
fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

/// A position, more often right after an ASCII space or punctuation than anywhere.
fn position(data: &[u8], rng: &mut Rng) -> usize {
    if data.is_empty() {
        return 0;
    }
    let at = rng.below(data.len() + 1);
    if rng.chance(0.7) {
        if let Some(k) = data[at..]
            .iter()
            .take(200)
            .position(|b| PUNCTUATION.contains(b))
        {
            return at + k + usize::from(rng.chance(0.5));
        }
    }
    at
}

fn truncate(mut data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let at = rng.below(data.len() + 1);
    data.truncate(at);
    data
}

fn flip_bytes(mut data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    if data.is_empty() {
        return data;
    }
    for _ in 0..rng.log_uniform(1, 64) {
        let at = rng.below(data.len());
        data[at] = match rng.below(3) {
            0 => data[at] ^ (1 << rng.below(8)),
            1 => *rng.pick(PUNCTUATION),
            _ => rng.next() as u8,
        };
    }
    data
}

fn unicode_spaces(data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let space = *rng.pick(SPACES);
    let mut buf = [0u8; 4];
    let with: &[u8] = space.encode_utf8(&mut buf).as_bytes();
    // A region (or the whole input) where a share of the ASCII spaces is replaced.
    let (from, to) = if rng.chance(0.3) {
        (0, data.len())
    } else {
        let a = rng.below(data.len() + 1);
        (a, (a + rng.log_uniform(16, 1 << 16)).min(data.len()))
    };
    let share = [0.05, 0.3, 1.0][rng.below(3)];
    let mut out = Vec::with_capacity(data.len() + data.len() / 4);
    for (i, &b) in data.iter().enumerate() {
        if b == b' ' && i >= from && i < to && rng.chance(share) {
            out.extend_from_slice(with);
        } else {
            out.push(b);
        }
    }
    out
}

fn insert_chars(mut data: Vec<u8>, chars: &[char], rng: &mut Rng) -> Vec<u8> {
    for _ in 0..rng.log_uniform(1, 64) {
        let mut buf = [0u8; 4];
        let c = rng.pick(chars).encode_utf8(&mut buf);
        let at = position(&data, rng);
        data.splice(at..at, c.bytes());
    }
    data
}

fn invalid_utf8(mut data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    for _ in 0..rng.log_uniform(1, 16) {
        let bad = *rng.pick(INVALID);
        let at = position(&data, rng);
        data.splice(at..at, bad.iter().copied());
    }
    data
}

fn repeat_lines(data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let ls = lines(&data);
    if ls.is_empty() {
        return data;
    }
    let first = rng.below(ls.len());
    let n = (1 + rng.below(8)).min(ls.len() - first);
    let block: Vec<u8> = ls[first..first + n].concat();
    let times = rng
        .log_uniform(2, 20_000)
        .min(MAX_INPUT / block.len().max(1));
    let mut out = Vec::with_capacity(data.len() + block.len() * times);
    for l in &ls[..first + n] {
        out.extend_from_slice(l);
    }
    for _ in 1..times {
        out.extend_from_slice(&block);
    }
    for l in &ls[first + n..] {
        out.extend_from_slice(l);
    }
    out
}

fn delete_lines(data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let ls = lines(&data);
    if ls.is_empty() {
        return data;
    }
    let first = rng.below(ls.len());
    let n = rng
        .log_uniform(1, (ls.len() / 4).max(1))
        .min(ls.len() - first);
    ls[..first]
        .iter()
        .chain(&ls[first + n..])
        .flat_map(|l| l.iter().copied())
        .collect()
}

fn shuffle_lines(data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let mut ls = lines(&data);
    if ls.len() < 2 {
        return data;
    }
    let first = rng.below(ls.len());
    let n = rng.log_uniform(2, 300).min(ls.len() - first);
    let window = &mut ls[first..first + n];
    for i in (1..window.len()).rev() {
        window.swap(i, rng.below(i + 1));
    }
    ls.concat()
}

fn long_line(data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let ls = lines(&data);
    if ls.is_empty() {
        return data;
    }
    let first = rng.below(ls.len());
    if rng.chance(0.5) {
        // Many lines joined into one.
        let n = rng.log_uniform(2, 5000).min(ls.len() - first);
        let joiner: &[u8] = if rng.chance(0.5) { b" " } else { b"" };
        let mut out: Vec<u8> = ls[..first].concat();
        for (k, l) in ls[first..first + n].iter().enumerate() {
            let body = l.strip_suffix(b"\n").unwrap_or(l);
            out.extend_from_slice(body);
            out.extend_from_slice(if k + 1 == n { b"\n" } else { joiner });
        }
        out.extend(ls[first + n..].concat());
        out
    } else {
        // A piece of one line repeated until the line is very long.
        let line = ls[first].strip_suffix(b"\n").unwrap_or(ls[first]);
        if line.is_empty() {
            return data;
        }
        let a = rng.below(line.len());
        let b = (a + 1 + rng.below(40)).min(line.len());
        let piece = &line[a..b];
        let target = rng.log_uniform(10_000, 1 << 20);
        let mut out: Vec<u8> = ls[..first].concat();
        let start = out.len();
        out.extend_from_slice(&line[..b]);
        while out.len() - start < target {
            out.extend_from_slice(piece);
        }
        out.extend_from_slice(&line[b..]);
        out.push(b'\n');
        out.extend(ls[first + 1..].concat());
        out
    }
}

fn deep_nesting(mut data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let depth = rng.log_uniform(16, 100_000);
    let nest: Vec<u8> = match rng.below(14) {
        0 => b"[".repeat(depth),
        1 => [b"list[".repeat(depth), b"int".to_vec(), b"]".repeat(depth)].concat(),
        2 => b"*".repeat(depth),
        3 => b"(".repeat(depth),
        4 => b")]".repeat(depth),
        5 => b"<div>".repeat(depth),
        6 => b"<div>x\n".repeat(depth),
        7 => b"<b>".repeat(depth),
        8 => b"<table><tr><td>".repeat(depth),
        9 => b"<ul><li>".repeat(depth),
        10 => b"<template>".repeat(depth),
        11 => {
            // RST blocks nested by indentation (size grows with depth squared: keep it small).
            let d = depth.min(2000);
            (0..d)
                .flat_map(|k| {
                    let mut l = b" ".repeat(k);
                    l.extend_from_slice(b".. note::\n\n");
                    l
                })
                .collect()
        }
        12 => {
            let d = depth.min(2000);
            (0..d)
                .flat_map(|k| {
                    let mut l = b"  ".repeat(k);
                    l.extend_from_slice(b"* item\n");
                    l
                })
                .collect()
        }
        _ => [
            b":type x: ".to_vec(),
            b"Optional[".repeat(depth),
            b"int".to_vec(),
            b"]".repeat(depth),
            b"\n".to_vec(),
        ]
        .concat(),
    };
    let nest = &nest[..nest.len().min(MAX_INPUT / 2)];
    let at = if rng.chance(0.5) {
        let starts = line_starts(&data);
        *rng.pick(&starts)
    } else {
        position(&data, rng)
    };
    let at = at.min(data.len());
    data.splice(at..at, nest.iter().copied());
    data
}

fn line_endings(data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let (to, share): (&[u8], f64) = match rng.below(4) {
        0 => (b"\r", 1.0),
        1 => (b"\r\n", 1.0),
        2 => (b"\r", 0.3),
        _ => (b"\r\n", 0.3),
    };
    let mut out = Vec::with_capacity(data.len() + data.len() / 16);
    for &b in &data {
        if b == b'\n' && rng.chance(share) {
            out.extend_from_slice(to);
        } else {
            out.push(b);
        }
    }
    out
}

fn splice(mut data: Vec<u8>, other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut piece = window(other, rng);
    piece.truncate(1 << 20);
    let starts = line_starts(&data);
    let at = (*rng.pick(&starts)).min(data.len());
    data.splice(at..at, piece);
    data
}

/// Whether a line starts an object in one of the formats: a signature or member ending in the
/// permalink `#`, an HTML `<dl`, a Doxygen `/**`, an RST directive.
fn is_object_line(line: &[u8]) -> bool {
    let t = line.trim_ascii();
    t.ends_with(b"#") || t.starts_with(b"<dl") || t.starts_with(b"/**") || t.starts_with(b".. ")
}

/// Byte offsets of the lines of `doc` that start an object ([`is_object_line`]).
fn object_starts(doc: &[u8]) -> Vec<usize> {
    line_starts(doc)
        .into_iter()
        .filter(|&s| {
            let end = doc[s..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(doc.len(), |k| s + k);
            is_object_line(&doc[s..end])
        })
        .collect()
}

/// A run of whole objects of `same` (another release of the same format) in place of, or
/// beside, a run of objects of `data`: the structure of one release inside another's.
fn release_splice(mut data: Vec<u8>, same: &[u8], rng: &mut Rng) -> Vec<u8> {
    let theirs = object_starts(same);
    if theirs.len() < 2 {
        return splice(data, same, rng);
    }
    let first = rng.below(theirs.len() - 1);
    let n = rng.log_uniform(1, 64).min(theirs.len() - 1 - first);
    let piece = &same[theirs[first]..theirs[first + n]];
    let piece = &piece[..piece.len().min(1 << 20)];
    let ours = object_starts(&data);
    if ours.is_empty() {
        let at = position(&data, rng);
        data.splice(at..at, piece.iter().copied());
        return data;
    }
    let k = rng.below(ours.len());
    let from = ours[k];
    // Half the time the objects there are replaced, as a newer release would.
    let to = if rng.chance(0.5) {
        let m = rng.log_uniform(1, 64);
        ours.get(k + m).copied().unwrap_or(data.len())
    } else {
        from
    };
    data.splice(from..to, piece.iter().copied());
    data
}

/// The next position at or after a random one that lies inside a name (between two ASCII
/// letters, digits or `_`), within a few hundred bytes.
fn inside_name(data: &[u8], rng: &mut Rng) -> Option<usize> {
    if data.len() < 2 {
        return None;
    }
    let name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let from = 1 + rng.below(data.len() - 1);
    (from..data.len().min(from + 400)).find(|&k| name(data[k - 1]) && name(data[k]))
}

/// Invisible characters inside names (`cuda\u{200b}Malloc`).
fn invisible_in_name(mut data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    for _ in 0..rng.log_uniform(1, 32) {
        let Some(at) = inside_name(&data, rng) else {
            break;
        };
        let mut buf = [0u8; 4];
        let c = rng.pick(INVISIBLE).encode_utf8(&mut buf);
        data.splice(at..at, c.bytes());
    }
    data
}

/// Letters of names replaced by look-alikes of another script (`cudаMalloc`, Cyrillic `а`).
fn look_alike(mut data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    for _ in 0..rng.log_uniform(1, 32) {
        let Some(at) = inside_name(&data, rng) else {
            break;
        };
        let found = (at..data.len().min(at + 64)).find_map(|k| {
            LOOK_ALIKES
                .iter()
                .find(|(b, _)| *b == data[k])
                .map(|(_, c)| (k, *c))
        });
        if let Some((k, c)) = found {
            let mut buf = [0u8; 4];
            data.splice(k..k + 1, c.encode_utf8(&mut buf).bytes());
        }
    }
    data
}

/// Stray and unclosed tags, most often at the start of a line (between objects of a page),
/// sometimes a run of one (ten `</div>`).
fn stray_tag(mut data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    for _ in 0..1 + rng.below(4) {
        let tag = *rng.pick(STRAY_TAGS);
        let times = if rng.chance(0.2) {
            rng.log_uniform(2, 64)
        } else {
            1
        };
        let starts = object_starts(&data);
        let at = if rng.chance(0.6) && !starts.is_empty() {
            *rng.pick(&starts)
        } else {
            position(&data, rng)
        };
        let at = at.min(data.len());
        data.splice(at..at, tag.as_bytes().repeat(times));
    }
    data
}

/// A comment terminator broken (`*/` as `* /`, `*\/`, `*` or nothing; `-->` as `-- >`), or a
/// comment opened where none was.
fn comment_terminator(mut data: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let ends: Vec<usize> = occurrences(&data, b"*/")
        .chain(occurrences(&data, b"-->"))
        .collect();
    if ends.is_empty() || rng.chance(0.2) {
        let opener = *rng.pick(OPENERS);
        let at = *rng.pick(&line_starts(&data));
        let at = at.min(data.len());
        data.splice(at..at, opener.iter().copied());
        return data;
    }
    let at = *rng.pick(&ends);
    let broken = if data[at] == b'*' {
        *rng.pick(BROKEN_C_CLOSE)
    } else {
        *rng.pick(BROKEN_HTML_CLOSE)
    };
    let len = if data[at] == b'*' { 2 } else { 3 };
    data.splice(at..at + len, broken.iter().copied());
    data
}

/// Offsets where `needle` starts in `data`.
fn occurrences<'a>(data: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    data.windows(needle.len())
        .enumerate()
        .filter(move |(_, w)| *w == needle)
        .map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_reproducible() {
        let doc = b"a(b: int)#\n:param b: x\n\nmore text here\n".repeat(20);
        for case in 0..200 {
            let others = Others {
                any: b"other\nlines\n",
                same_format: b"f(a)#\nx\ng(b)#\ny\n",
            };
            let one = mutate(&doc, others, &mut Rng::for_case(7, case));
            let two = mutate(&doc, others, &mut Rng::for_case(7, case));
            assert_eq!(one, two, "case {case}");
            assert!(one.0.len() <= MAX_INPUT);
        }
    }

    #[test]
    fn every_kind_runs_on_empty_and_tiny_inputs() {
        let mut rng = Rng::for_case(1, 1);
        for kind in KINDS {
            for input in [&b""[..], b"x", b"\n", b"a b\n", b"*/", b"ab*/-->"] {
                let none = Others {
                    any: b"",
                    same_format: b"",
                };
                let _ = apply(kind, input.to_vec(), none, &mut rng);
            }
        }
    }

    #[test]
    fn the_new_kinds_do_what_they_say() {
        let doc = b"/** doc */\nint cudaMalloc(void);\n<dl class=\"py\">\nf(a)#\n";
        let none = Others {
            any: b"",
            same_format: b"",
        };
        let mut seen = [false; 4];
        for case in 0..400 {
            let mut rng = Rng::for_case(11, case);
            let text = |v: Vec<u8>| String::from_utf8_lossy(&v).into_owned();
            let inv = text(apply("invisible-in-name", doc.to_vec(), none, &mut rng));
            seen[0] |= INVISIBLE.iter().any(|c| inv.contains(*c));
            let look = text(apply("look-alike", doc.to_vec(), none, &mut rng));
            seen[1] |= LOOK_ALIKES.iter().any(|(_, c)| look.contains(*c));
            let tag = text(apply("stray-tag", doc.to_vec(), none, &mut rng));
            seen[2] |= STRAY_TAGS.iter().any(|t| tag.contains(t));
            let end = text(apply("comment-terminator", doc.to_vec(), none, &mut rng));
            seen[3] |= !end.contains("*/");
        }
        assert_eq!(seen, [true; 4]);
        // Objects of another release, whole.
        let same = b"g(b)#\nother doc\nh(c)#\nmore\n";
        let others = Others {
            any: b"",
            same_format: same,
        };
        let spliced = apply(
            "release-splice",
            b"f(a)#\nx\n".to_vec(),
            others,
            &mut Rng::for_case(2, 2),
        );
        let s = String::from_utf8_lossy(&spliced);
        assert!(
            s.contains("g(b)#\nother doc\n") || s.contains("h(c)#\nmore\n"),
            "{s}"
        );
    }

    #[test]
    fn log_uniform_stays_in_range() {
        let mut rng = Rng::for_case(3, 0);
        for _ in 0..10_000 {
            let n = rng.log_uniform(16, 100_000);
            assert!((16..=100_000).contains(&n), "{n}");
        }
        assert_eq!(rng.log_uniform(5, 5), 5);
    }
}
