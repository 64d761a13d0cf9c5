//! Merging the IRs of several documents into one.
//!
//! For each item (by kind and short name) the newest major release wins; within a major, a
//! document stating its minor release wins over one stating only the major (`12.x`), then a
//! page over C headers (a page states outputs explicitly, a header's `\param` rarely does:
//! the release day's headers describe what the newest page does not have yet, and the page
//! of an earlier minor the rest), then the newest release, then the one stating more detail,
//! then the one given first. Items the winner lacks are filled from the other documents and
//! keep their own provenance (`source` points into that file). Within an item two documents
//! of one major describe, the parts the winner leaves empty (a description, status codes,
//! see-also, a parameter's, member's or field's text) are filled from the other. Every item lists, in `sources`, each document that
//! mentions it. Sections are one per name; a section a source names only by its stable id
//! (a Doxygen group another header titles) takes the title stated elsewhere. Diagnostics of
//! all inputs are kept.

use indexmap::IndexMap;

use crate::ir::{Api, Detail, Document, Format, Release, Source};

/// Something every mergeable item has.
trait Item: Clone {
    fn key(&self) -> &str;
    fn source(&self) -> &Source;
    fn sources_mut(&mut self) -> &mut Vec<Source>;
    fn detail(&self) -> Detail {
        Detail::Full
    }
    /// Fills the parts this item leaves empty from `other` (the same item in another document
    /// of the same major release).
    fn fill_from(&mut self, _other: &Self) {}
}

macro_rules! item {
    ($t:ty, detail, fill) => {
        impl Item for $t {
            fn key(&self) -> &str {
                &self.name
            }
            fn source(&self) -> &Source {
                &self.source
            }
            fn sources_mut(&mut self) -> &mut Vec<Source> {
                &mut self.sources
            }
            fn detail(&self) -> Detail {
                self.detail
            }
            fn fill_from(&mut self, other: &Self) {
                Fill::fill(self, other)
            }
        }
    };
    ($t:ty, detail) => {
        impl Item for $t {
            fn key(&self) -> &str {
                &self.name
            }
            fn source(&self) -> &Source {
                &self.source
            }
            fn sources_mut(&mut self) -> &mut Vec<Source> {
                &mut self.sources
            }
            fn detail(&self) -> Detail {
                self.detail
            }
        }
    };
    ($t:ty) => {
        impl Item for $t {
            fn key(&self) -> &str {
                &self.name
            }
            fn source(&self) -> &Source {
                &self.source
            }
            fn sources_mut(&mut self) -> &mut Vec<Source> {
                &mut self.sources
            }
        }
    };
}
item!(crate::ir::Function, detail, fill);
item!(crate::ir::Enum, detail, fill);
item!(crate::ir::Struct, detail, fill);
item!(crate::ir::Typedef, detail);
item!(crate::ir::Constant);
item!(crate::ir::Alias);

/// Merges `apis` (one per document) into one IR. A single input is returned as it is
/// (with `sources` filled).
pub fn merge(mut apis: Vec<Api>) -> Api {
    // Newest major first (a document without a release last); within a major, a stated minor
    // before none, pages before headers, the newest release first; stable otherwise.
    apis.sort_by_key(|a| {
        let release = release_of(a);
        let major = release.as_ref().and_then(|r| r.0.first().copied());
        let minor_stated = release.as_ref().is_some_and(|r| r.0.len() > 1);
        (
            std::cmp::Reverse(major),
            !minor_stated,
            format_rank(a),
            std::cmp::Reverse(release),
        )
    });
    let mut out = Api::default();
    let mut functions = IndexMap::new();
    let mut enums = IndexMap::new();
    let mut structs = IndexMap::new();
    let mut typedefs = IndexMap::new();
    let mut constants = IndexMap::new();
    let mut aliases = IndexMap::new();
    let mut sections: IndexMap<String, crate::ir::Section> = IndexMap::new();
    for api in apis {
        let rank = release_of(&api).and_then(|r| r.0.first().copied());
        out.documents.extend(api.documents);
        for s in api.sections {
            let kept = sections.entry(s.name.clone()).or_insert_with(|| s.clone());
            if kept.id.is_none() {
                kept.id.clone_from(&s.id);
            }
        }
        add(&mut functions, api.functions, &rank);
        add(&mut enums, api.enums, &rank);
        add(&mut structs, api.structs, &rank);
        add(&mut typedefs, api.typedefs, &rank);
        add(&mut constants, api.constants, &rank);
        add(&mut aliases, api.aliases, &rank);
        out.entries.extend(api.entries);
        out.diagnostics.extend(api.diagnostics);
    }
    out.sections = sections.into_values().collect();
    name_sections_by_id(&mut out);
    out.functions = functions.into_values().map(|(i, _)| i).collect();
    out.enums = enums.into_values().map(|(i, _)| i).collect();
    out.structs = structs.into_values().map(|(i, _)| i).collect();
    out.typedefs = typedefs.into_values().map(|(i, _)| i).collect();
    out.constants = constants.into_values().map(|(i, _)| i).collect();
    out.aliases = aliases.into_values().map(|(i, _)| i).collect();
    out
}

fn release_of(api: &Api) -> Option<Release> {
    api.documents.first().and_then(|d| d.release.clone())
}

/// Precedence within one release: 0 for pages, 1 for C headers.
fn format_rank(api: &Api) -> u8 {
    match api.documents.first().map(|d| d.format) {
        Some(Format::DoxygenHeader) => 1,
        _ => 0,
    }
}

/// Sections named by their id (no title where they were read) take the title another
/// section with that id states; items follow.
fn name_sections_by_id(api: &mut Api) {
    let titled: IndexMap<String, String> = api
        .sections
        .iter()
        .filter_map(|s| {
            let id = s.id.as_ref()?;
            (s.name != *id).then(|| (id.clone(), s.name.clone()))
        })
        .collect();
    let renamed: IndexMap<String, String> = api
        .sections
        .iter()
        .filter_map(|s| {
            let id = s.id.as_ref()?;
            (s.name == *id).then(|| titled.get(id).map(|t| (id.clone(), t.clone())))?
        })
        .collect();
    if renamed.is_empty() {
        return;
    }
    api.sections.retain(|s| !renamed.contains_key(&s.name));
    let fix = |section: &mut Option<String>| {
        if let Some(t) = section.as_ref().and_then(|s| renamed.get(s)) {
            *section = Some(t.clone());
        }
    };
    api.functions.iter_mut().for_each(|i| fix(&mut i.section));
    api.enums.iter_mut().for_each(|i| fix(&mut i.section));
    api.structs.iter_mut().for_each(|i| fix(&mut i.section));
    api.typedefs.iter_mut().for_each(|i| fix(&mut i.section));
    api.constants.iter_mut().for_each(|i| fix(&mut i.section));
    api.aliases.iter_mut().for_each(|i| fix(&mut i.section));
    api.entries.iter_mut().for_each(|i| fix(&mut i.section));
}

/// Filling the empty parts of an item from the same item in another document.
trait Fill {
    fn fill(&mut self, other: &Self);
}

fn fill_text(mine: &mut String, other: &str) {
    if mine.trim().is_empty() && !other.trim().is_empty() {
        *mine = other.to_string();
    }
}

/// Fills the empty texts of `mine`'s parts (parameters, members, fields) from the part of
/// `theirs` with the same name (the first of a repeated name).
fn fill_parts<T>(
    mine: &mut [T],
    theirs: &[T],
    text_mut: impl Fn(&mut T) -> (&String, &mut String),
    text: impl Fn(&T) -> (&String, &String),
) {
    let mut by_name: foldhash::HashMap<&str, &str> = foldhash::HashMap::default();
    for t in theirs {
        let (name, doc) = text(t);
        by_name.entry(name.as_str()).or_insert(doc.as_str());
    }
    for m in mine {
        let (name, doc) = text_mut(m);
        if let Some(other) = by_name.get(name.as_str()) {
            fill_text(doc, other);
        }
    }
}

impl Fill for crate::ir::Function {
    fn fill(&mut self, other: &Self) {
        fill_text(&mut self.doc, &other.doc);
        if self.errors.is_empty() {
            self.errors.clone_from(&other.errors);
        }
        if self.see_also.is_empty() {
            self.see_also.clone_from(&other.see_also);
        }
        if let (Some(mine), Some(theirs)) = (self.params.as_mut(), other.params.as_ref()) {
            fill_parts(
                mine,
                theirs,
                |p| (&p.name, &mut p.doc),
                |p| (&p.name, &p.doc),
            );
        }
    }
}

impl Fill for crate::ir::Enum {
    fn fill(&mut self, other: &Self) {
        fill_text(&mut self.doc, &other.doc);
        fill_parts(
            &mut self.variants,
            &other.variants,
            |v| (&v.name, &mut v.doc),
            |v| (&v.name, &v.doc),
        );
    }
}

impl Fill for crate::ir::Struct {
    fn fill(&mut self, other: &Self) {
        fill_text(&mut self.doc, &other.doc);
        fill_parts(
            &mut self.fields,
            &other.fields,
            |f| (&f.name, &mut f.doc),
            |f| (&f.name, &f.doc),
        );
    }
}

/// Adds `items` of a document of the major `rank` (`None`: no release stated).
fn add<T: Item>(map: &mut IndexMap<String, (T, Option<u32>)>, items: Vec<T>, rank: &Option<u32>) {
    for mut item in items {
        let src = item.source().clone();
        match map.get_mut(item.key()) {
            None => {
                let sources = item.sources_mut();
                if !sources.contains(&src) {
                    sources.insert(0, src);
                }
                map.insert(item.key().to_string(), (item, *rank));
            }
            Some((kept, kept_rank)) => {
                // Same major and more detail: the newcomer wins, keeping the sources so far.
                if *kept_rank == *rank
                    && kept.detail() == Detail::NamesOnly
                    && item.detail() == Detail::Full
                {
                    let mut sources = std::mem::take(kept.sources_mut());
                    sources.insert(0, src);
                    *item.sources_mut() = sources;
                    *kept = item;
                } else {
                    if *kept_rank == *rank && kept.detail() == item.detail() {
                        kept.fill_from(&item);
                    }
                    if !kept.sources_mut().contains(&src) {
                        kept.sources_mut().push(src);
                    }
                }
            }
        }
    }
}

/// The documents of `api` by file name, for looking up an item's release.
pub fn document_of<'a>(api: &'a Api, source: &Source) -> Option<&'a Document> {
    api.documents.iter().find(|d| d.file == source.file)
}
