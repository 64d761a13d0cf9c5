//! Parser for the text rendering of the older `cuda.cudart` Sphinx page (seed `002_…`).
//!
//! The page is plain text: headings `Name#`, entries `cuda.cudart.f(sig)#` (or
//! `class cuda.cudart.T(args)#`) followed by description paragraphs and labelled parts
//! (`#` stands for the page's permalink mark, learnt from the page: `¶` in other themes,
//! [`super::permalink`]; a page with none has entries but no headings):
//! `Parameters` (`name (type) – description` items, bulleted or plain), `Returns` (status
//! codes, then for tuple returns one `name (type) – description` bullet per output),
//! `Return type`, `See also` and `Notes`. Inputs are the signature's parameters in order,
//! typed and documented from `Parameters`; outputs are the named `Returns` bullets.
//!
//! It reads structure only, never a list of CUDA names. Types it must recognise where the
//! rendering glued them to other text are learnt from the page itself. It does not recover
//! what the rendering lost (many `Returns` parts are empty; a note says so). A file cut off
//! inside its last entry is kept as far as it goes and reported.
//!
//! No line is dropped silently ([`super::unread`]): an entry's description, labelled parts,
//! a class's text and its methods (`getPtr()#` with their text; the IR keeps no methods) are
//! read; text before the first heading and a repeated label's part are reported unread.

mod items;

use std::collections::VecDeque;

use foldhash::HashMap;

use crate::diag::Diagnostics;
use crate::doctype::TypeRef;
use crate::ir::{Api, Detail, Direction, Function, Param, Section, Typedef, TypedefKind};
use crate::text::paragraphs;
use items::{glued_type, param_item, signature_params, status_codes, KnownTypes, SigParam};

use super::unread::{self, Runs};

/// The labels that open an entry's parts.
const LABELS: [&str; 5] = ["Parameters", "Returns", "Return type", "See also", "Notes"];

/// Parses the text rendering of a `cuda.cudart` page. Never panics.
pub fn parse(file: &str, text: &str) -> Api {
    let mut lines: Vec<&str> = crate::text::lines(text).collect();
    let mut diags = Diagnostics::new(file);
    let mark = Mark::of(super::permalink::of_lines(lines.iter().copied()));
    // An entry written indented (a block pasted with a tab in front) is read as if it were
    // not, and said: left indented, it would be read as the text of the entry above it.
    let starts = |l: &str| {
        mark.mark.is_some()
            && l.trim_end().ends_with(&mark.closer)
            && signature_start(l, &mark).is_some()
    };
    for (first, last) in crate::text::dedent_runs(&mut lines, starts) {
        diags.warning(
            lineno(first),
            format!(
                "lines {}–{}: an entry written indented; read as if it were not",
                lineno(first),
                lineno(last)
            ),
        );
    }
    let blocks = scan(&lines, &mark, &mut diags);
    let mut b = Builder {
        mark,
        diags,
        api: Api::default(),
        seen: HashMap::default(),
        known: KnownTypes::default(),
    };
    b.build(&blocks, text.ends_with('\n'));
    b.api.diagnostics = b.diags.into_vec();
    b.api
}

/// The page's permalink mark, and the `)` and mark that end a signature.
struct Mark {
    mark: Option<char>,
    closer: String,
}

impl Mark {
    fn of(permalink: super::permalink::Permalink) -> Mark {
        let mark = match permalink {
            super::permalink::Permalink::Mark(m) => Some(m),
            super::permalink::Permalink::Absent => None,
        };
        let closer = mark.map_or_else(|| ")".to_string(), |m| format!("){m}"));
        Mark { mark, closer }
    }
}

/// A signature line (possibly spread over several lines).
struct Sig {
    class: bool,
    qualified: String,
    params: String,
}

enum Head {
    Heading(String),
    Entry(Sig),
}

/// A heading or entry with the lines under it, each with its 1-based line number.
struct Block<'a> {
    head: Head,
    line: u32,
    body: Vec<(u32, &'a str)>,
}

fn lineno(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(u32::MAX)
}

/// Splits the page into headings and entries.
fn scan<'a>(lines: &[&'a str], mark: &Mark, diags: &mut Diagnostics) -> Vec<Block<'a>> {
    let mut blocks: Vec<Block<'a>> = Vec::new();
    // Text before the first heading or entry belongs to nothing: it is unread.
    let mut preamble = Runs::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let prev_blank = i == 0 || lines[i - 1].trim().is_empty();
        if let Some(name) = heading(line, mark).filter(|_| prev_blank) {
            blocks.push(Block {
                head: Head::Heading(name.to_string()),
                line: lineno(i),
                body: Vec::new(),
            });
        } else if let Some((class, qualified, rest)) = signature_start(line, mark) {
            let start = i;
            let params = match rest.trim_end().strip_suffix(mark.closer.as_str()) {
                Some(p) => p.to_string(),
                None => {
                    // A signature spread over lines ends at the first line ending `)#`.
                    let end = (i + 1..lines.len().min(i + 64))
                        .take_while(|&j| !lines[j].trim().is_empty())
                        .find(|&j| lines[j].trim_end().ends_with(&mark.closer));
                    match end {
                        Some(j) => {
                            let mut p = rest.trim().to_string();
                            for l in &lines[i + 1..=j] {
                                p.push(' ');
                                p.push_str(l.trim());
                            }
                            i = j;
                            p.trim_end()
                                .trim_end_matches(mark.closer.as_str())
                                .to_string()
                        }
                        None => {
                            diags.error(lineno(i), format!("signature of `{qualified}` has no closing `{}`; parameters read up to the end of the line", mark.closer));
                            let rest = rest.trim_end();
                            let rest = match mark.mark {
                                Some(m) => rest.trim_end_matches(m),
                                None => rest,
                            };
                            rest.trim_end_matches(')').to_string()
                        }
                    }
                }
            };
            let sig = Sig {
                class,
                qualified: qualified.to_string(),
                params,
            };
            blocks.push(Block {
                head: Head::Entry(sig),
                line: lineno(start),
                body: Vec::new(),
            });
        } else if let Some(b) = blocks.last_mut() {
            b.body.push((lineno(i), line));
        } else {
            preamble.unread(lineno(i), line);
        }
        i += 1;
    }
    let first = diags.source(1);
    unread::report(
        diags,
        &first,
        "text before the first heading or entry",
        &preamble.into_runs(),
    );
    blocks
}

/// `Name#` at the start of a line (not a signature); none on a page without marks.
fn heading<'a>(line: &'a str, mark: &Mark) -> Option<&'a str> {
    let m = mark.mark?;
    if line.starts_with(char::is_whitespace)
        || line.ends_with(&mark.closer)
        || line.starts_with("class ")
    {
        return None;
    }
    let name = line.trim_end().strip_suffix(m)?.trim_end();
    (!name.is_empty() && !name.ends_with(m) && !name.contains('(')).then_some(name)
}

/// `[class ]a.b.name(rest` at the start of a line: whether a class, the dotted name, and
/// the text after the opening parenthesis. A dot is required, so prose such as `f() returns`
/// and class methods (`getPtr()#`) are not entries.
fn signature_start<'a>(line: &'a str, mark: &Mark) -> Option<(bool, &'a str, &'a str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (class, rest) = match line.strip_prefix("class ") {
        Some(r) => (true, r.trim_start()),
        None => (false, line),
    };
    let open = rest.find('(')?;
    let name = &rest[..open];
    let after = &rest[open + 1..];
    let dotted = name.contains('.') && super::signature::is_dotted_ident(name);
    // A prose line naming a call (`a.b.f() does…`) closes its parenthesis without `)#`.
    let closed_in_prose = !after.trim_end().ends_with(&mark.closer) && after.contains(')');
    (dotted && !closed_in_prose).then_some((class, name, after))
}

/// Lines of a page with their 1-based numbers.
type Lines<'a> = Vec<(u32, &'a str)>;

/// An entry's parts, split at the label lines.
#[derive(Default)]
struct Parts<'a> {
    desc: Vec<(u32, &'a str)>,
    by_label: Vec<(&'static str, u32, Lines<'a>)>,
}

impl<'a> Parts<'a> {
    fn split(body: &[(u32, &'a str)]) -> Parts<'a> {
        let mut parts = Parts::default();
        for &(n, l) in body {
            let label = (!l.starts_with(char::is_whitespace))
                .then(|| LABELS.iter().find(|x| **x == l.trim_end()))
                .flatten();
            match (label, parts.by_label.last_mut()) {
                (Some(x), _) => parts.by_label.push((x, n, Vec::new())),
                (None, Some(last)) => last.2.push((n, l)),
                (None, None) => parts.desc.push((n, l)),
            }
        }
        parts
    }

    fn get(&self, label: &str) -> Option<&[(u32, &'a str)]> {
        self.by_label
            .iter()
            .find(|p| p.0 == label)
            .map(|p| p.2.as_slice())
    }
}

/// Items of a part: bullets (`  • text`) or plain paragraphs; indented lines continue one.
fn items(lines: &[(u32, &str)]) -> Vec<(u32, String, bool)> {
    let mut out: Vec<(u32, String, bool)> = Vec::new();
    let mut open = false;
    for &(n, l) in lines {
        let t = l.trim();
        if t.is_empty() {
            open = false;
            continue;
        }
        if let Some(b) = t.strip_prefix('\u{2022}') {
            out.push((n, b.trim().to_string(), true));
            open = true;
        } else if let (true, true, Some(last)) =
            (open, l.starts_with(char::is_whitespace), out.last_mut())
        {
            last.1.push(' ');
            last.1.push_str(t);
        } else {
            out.push((n, t.to_string(), false));
            open = true;
        }
    }
    out
}

struct Builder {
    mark: Mark,
    diags: Diagnostics,
    api: Api,
    seen: HashMap<String, u32>,
    /// Types the page states somewhere, longest match first when glued to other text.
    known: KnownTypes,
}

impl Builder {
    fn build(&mut self, blocks: &[Block], final_newline: bool) {
        self.learn_types(blocks);
        let mut section: Option<String> = None;
        for (k, b) in blocks.iter().enumerate() {
            match &b.head {
                Head::Heading(title) => {
                    let (name, cut) = crate::text::bounded_title(title);
                    if let Some(message) = cut {
                        self.diags.warning(b.line, message);
                    }
                    let doc = paragraphs(b.body.iter().map(|x| x.1));
                    // The page title: a first heading with nothing under it but the next one.
                    let next_is_heading =
                        matches!(blocks.get(k + 1).map(|n| &n.head), Some(Head::Heading(_)));
                    if k == 0 && doc.is_empty() && next_is_heading {
                        continue;
                    }
                    if let Some(first) = self.seen.insert(format!("section {name}"), b.line) {
                        self.diags.warning(
                            b.line,
                            format!("duplicate section `{name}` (first at line {first})"),
                        );
                    }
                    section = Some(name.clone());
                    self.api.sections.push(Section {
                        name: name.clone(),
                        doc,
                        source: self.diags.source(b.line),
                        id: None,
                    });
                }
                Head::Entry(sig) if sig.class => self.class(sig, b, section.clone()),
                Head::Entry(sig) => {
                    let last = k + 1 == blocks.len();
                    self.function(sig, b, section.clone(), last, final_newline);
                }
            }
        }
    }

    /// Collects every type the page states in `Parameters`, signatures and `Return type`.
    fn learn_types(&mut self, blocks: &[Block]) {
        // Repeats are dropped by the set `KnownTypes` keeps.
        let mut known: Vec<String> = Vec::new();
        let mut add = |t: &str| {
            let t = t.trim();
            if !t.is_empty() {
                known.push(t.to_string());
            }
        };
        for b in blocks {
            let Head::Entry(sig) = &b.head else { continue };
            for p in signature_params(&sig.params).0 {
                if let Some(t) = &p.ty {
                    add(t);
                }
            }
            let parts = Parts::split(&b.body);
            for (label, _, lines) in &parts.by_label {
                match *label {
                    "Parameters" | "Returns" => {
                        for (_, it, _) in items(lines) {
                            if let Some((_, ty, _)) = param_item(&it) {
                                add(ty);
                            }
                        }
                    }
                    "Return type" => add(&paragraphs(lines.iter().map(|x| x.1))),
                    _ => {}
                }
            }
        }
        self.known = KnownTypes::new(known);
    }

    fn class(&mut self, sig: &Sig, b: &Block, section: Option<String>) {
        let name = sig
            .qualified
            .rsplit('.')
            .next()
            .unwrap_or(&sig.qualified)
            .to_string();
        if let Some(first) = self.seen.insert(sig.qualified.clone(), b.line) {
            self.diags.warning(
                b.line,
                format!(
                    "duplicate `{}` (first at line {first}); the first is kept",
                    sig.qualified
                ),
            );
            return;
        }
        let args = sig.params.trim();
        let kind = if args.starts_with('*') {
            TypedefKind::Opaque
        } else {
            TypedefKind::Class
        };
        // The class's own text ends at its first method (`getPtr()#`).
        let own = b
            .body
            .iter()
            .take_while(|(_, l)| !l.trim_end().ends_with(&self.mark.closer))
            .map(|x| x.1);
        self.api.typedefs.push(Typedef {
            name,
            qualified_name: sig.qualified.clone(),
            section,
            kind,
            doc: paragraphs(own),
            fields: Vec::new(),
            detail: Detail::Full,
            source: self.diags.source(b.line),
            sources: Vec::new(),
        });
    }

    fn function(
        &mut self,
        sig: &Sig,
        b: &Block,
        section: Option<String>,
        last: bool,
        final_newline: bool,
    ) {
        let name = sig
            .qualified
            .rsplit('.')
            .next()
            .unwrap_or(&sig.qualified)
            .to_string();
        if let Some(first) = self.seen.insert(sig.qualified.clone(), b.line) {
            self.diags.warning(
                b.line,
                format!(
                    "duplicate function `{}` (first at line {first}); the first is kept",
                    sig.qualified
                ),
            );
            return;
        }
        let parts = Parts::split(&b.body);
        let mut labels_seen = foldhash::HashSet::default();
        for (label, n, lines) in &parts.by_label {
            if !labels_seen.insert(*label) {
                // Only the first part of a label is read: the label and its lines are unread.
                let mut runs = Runs::new();
                runs.unread(*n, label);
                for (ln, l) in lines {
                    runs.unread(*ln, l);
                }
                let at = self.diags.source(*n);
                unread::report(
                    &mut self.diags,
                    &at,
                    &format!("second `{label}` part of `{name}`"),
                    &runs.into_runs(),
                );
            }
        }
        let mut doc = paragraphs(parts.desc.iter().map(|x| x.1));
        if let Some(notes) = parts.get("Notes") {
            let notes = paragraphs(notes.iter().map(|x| x.1));
            if !notes.is_empty() {
                doc = if doc.is_empty() {
                    notes
                } else {
                    format!("{doc}\n\n{notes}")
                };
            }
        }
        let mut params = self.inputs(sig, b.line, &name, parts.get("Parameters").unwrap_or(&[]));
        let mut errors = Vec::new();
        match parts.get("Returns") {
            Some(lines) => self.returns(lines, b.line, &name, &mut params, &mut errors, &mut doc),
            None => self.missing_returns(b, &name, &parts, last, final_newline),
        }
        let rtype = parts
            .get("Return type")
            .map(|l| paragraphs(l.iter().map(|x| x.1)))
            .filter(|t| !t.is_empty())
            .map(|t| TypeRef::parse_noting_depth(&t, &mut self.diags, b.line));
        let see_also = parts.get("See also").map(see_also).unwrap_or_default();
        self.api.functions.push(Function {
            name,
            qualified_name: sig.qualified.clone(),
            section,
            params: Some(params),
            rtype,
            errors,
            doc,
            see_also,
            detail: Detail::Full,
            source: self.diags.source(b.line),
            sources: Vec::new(),
        });
    }

    /// Signature parameters in order, typed and documented from the `Parameters` items.
    fn inputs(&mut self, sig: &Sig, line: u32, name: &str, part: &[(u32, &str)]) -> Vec<Param> {
        let (sig_params, bad) = signature_params(&sig.params);
        for piece in bad {
            self.diags.error(
                line,
                format!("cannot read parameter `{piece}` in the signature of `{name}`"),
            );
        }
        let (sig_params, repeats) = super::first_of_each_name(sig_params, |p| p.name.as_str());
        for p in repeats {
            self.diags.warning(
                line,
                format!("`{name}` repeats parameter `{p}`; keeping the first"),
            );
        }
        let mut documented: Vec<(u32, &str, String, String)> = Vec::new();
        let list = items(part);
        for (n, text, _) in &list {
            match param_item(text) {
                Some((pn, ty, desc)) => documented.push((*n, pn, ty.to_string(), desc.to_string())),
                None => match documented.last_mut() {
                    // A plain paragraph after an item continues its description.
                    Some(last) => {
                        last.3.push_str("\n\n");
                        last.3.push_str(text);
                    }
                    None => self.diags.warning(
                        *n,
                        format!(
                            "`Parameters` item of `{name}` is not `name (type) – description`: {}",
                            clip(text)
                        ),
                    ),
                },
            }
        }
        if documented.is_empty() && !sig_params.is_empty() && list.is_empty() {
            self.diags.note(line, format!("`Parameters` of `{name}` is empty or absent in this rendering: inputs are typed from the signature only"));
        }
        // Items naming a parameter the signature has go to it; the rest are matched in order
        // with the signature parameters left over (the docs sometimes use the C name).
        // By name through a map, so that matching is linear in the number of parameters.
        let mut by_name: HashMap<&str, VecDeque<usize>> = HashMap::default();
        for (k, d) in documented.iter().enumerate() {
            by_name.entry(d.1).or_default().push_back(k);
        }
        let picks: Vec<Option<usize>> = sig_params
            .iter()
            .map(|p| by_name.get_mut(p.name.as_str())?.pop_front())
            .collect();
        let mut slots: Vec<Option<(u32, &str, String, String)>> =
            documented.into_iter().map(Some).collect();
        let mut matched: Vec<Option<(u32, &str, String, String)>> = picks
            .into_iter()
            .map(|k| k.and_then(|k| slots[k].take()))
            .collect();
        let mut leftover = slots.into_iter().flatten();
        for (slot, sp) in matched.iter_mut().zip(&sig_params) {
            if slot.is_none() {
                if let Some(d) = leftover.next() {
                    self.diags.warning(d.0, format!("`{name}` documents `{}` where its signature has `{}`; matched by position", d.1, sp.name));
                    *slot = Some(d);
                }
            }
        }
        for (n, pn, _, _) in leftover {
            self.diags.warning(
                n,
                format!("`{name}` documents parameter `{pn}`, which its signature lacks; ignored"),
            );
        }
        let mut params = Vec::with_capacity(sig_params.len());
        for (SigParam { name: pname, ty }, doc_item) in sig_params.into_iter().zip(matched) {
            let ty = doc_item.as_ref().map(|d| d.2.clone()).or(ty);
            params.push(Param {
                name: pname,
                ty: ty.map(|t| TypeRef::parse_noting_depth(&t, &mut self.diags, line)),
                direction: Direction::In,
                doc: doc_item.map(|d| d.3).unwrap_or_default(),
            });
        }
        params
    }

    /// Reads `Returns`: status codes into `errors`, named bullets as outputs.
    fn returns(
        &mut self,
        lines: &[(u32, &str)],
        line: u32,
        name: &str,
        params: &mut Vec<Param>,
        errors: &mut Vec<String>,
        doc: &mut String,
    ) {
        let list = items(lines);
        if list.is_empty() {
            self.diags.note(line, format!("`Returns` of `{name}` is empty in this rendering: status codes and outputs are not stated"));
            return;
        }
        let bulleted = list.iter().any(|x| x.2);
        let mut listed: foldhash::HashSet<String> = errors.iter().cloned().collect();
        for (k, (n, text, _)) in list.iter().enumerate() {
            if let Some((on, ty, desc)) = param_item(text).filter(|_| bulleted) {
                params.push(Param {
                    name: on.to_string(),
                    ty: Some(TypeRef::parse_noting_depth(ty, &mut self.diags, *n)),
                    direction: Direction::Out,
                    doc: desc.to_string(),
                });
                continue;
            }
            if k == 0 || !bulleted {
                match status_codes(text, &self.known) {
                    Some(codes) => {
                        for c in codes {
                            if listed.insert(c.clone()) {
                                errors.push(c);
                            }
                        }
                    }
                    None => {
                        self.diags.note(*n, format!("`Returns` text of `{name}` is not a list of status codes; kept in the doc"));
                        doc.push_str(if doc.is_empty() { "" } else { "\n\n" });
                        doc.push_str(text);
                    }
                }
                continue;
            }
            match glued_type(text, &self.known) {
                Some((ty, desc)) => {
                    self.diags.note(*n, format!("output of `{name}` has no name; its type `{ty}` is read from the start of its text"));
                    params.push(Param {
                        name: String::new(),
                        ty: Some(TypeRef::parse_noting_depth(ty, &mut self.diags, *n)),
                        direction: Direction::Out,
                        doc: desc.to_string(),
                    });
                }
                None => {
                    self.diags.warning(
                        *n,
                        format!(
                            "output of `{name}` has neither name nor readable type: {}",
                            clip(text)
                        ),
                    );
                    params.push(Param {
                        name: String::new(),
                        ty: None,
                        direction: Direction::Out,
                        doc: text.clone(),
                    });
                }
            }
        }
    }

    /// An entry without `Returns`: the file's cut-off last entry, or a garbled one.
    fn missing_returns(
        &mut self,
        b: &Block,
        name: &str,
        parts: &Parts,
        last: bool,
        final_newline: bool,
    ) {
        let last_text = b.body.iter().rev().find(|(_, l)| !l.trim().is_empty());
        let (end_line, end_text) = last_text.map_or((b.line, ""), |(n, l)| (*n, l.trim()));
        let mid_sentence =
            !end_text.ends_with(['.', ':', ')', ']', '!', '?', '"', '\u{201d}', '\'']);
        if last && (!final_newline || mid_sentence) {
            let after = parts.by_label.last().map_or("its description", |p| p.0);
            self.diags.warning(
                end_line,
                format!(
                    "the file ends inside the entry for `{name}` (line {}): no `Returns` part follows {after}{}{}; the entry is kept as far as it goes",
                    b.line,
                    if mid_sentence { ", its last line stops mid-sentence" } else { "" },
                    if final_newline { "" } else { ", and the file has no final newline" },
                ),
            );
        } else {
            self.diags.warning(b.line, format!("`{name}` has no `Returns` part (its body may be garbled in this rendering); parameters are read from the signature"));
        }
    }
}

/// Names of a `See also` part: the leading name of each comma-separated item, deduplicated.
fn see_also(lines: &[(u32, &str)]) -> Vec<String> {
    let text = paragraphs(lines.iter().map(|x| x.1));
    let mut out: Vec<String> = Vec::new();
    let mut seen = foldhash::HashSet::default();
    for item in text.split(',') {
        let n: String = item
            .trim()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':'))
            .collect();
        let n = n.trim_start_matches(':').to_string();
        if !n.is_empty() && seen.insert(n.clone()) {
            out.push(n);
        }
    }
    out
}

/// The first 80 characters of `t`, for messages.
fn clip(t: &str) -> String {
    let mut s: String = t.chars().take(80).collect();
    if s.len() < t.len() {
        s.push('…');
    }
    s
}
