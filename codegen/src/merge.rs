//! Merging the IRs of several documents into one.
//!
//! For each item (by kind and short name) the newest release wins; between documents of the
//! same release, the one stating more detail wins, then the one given first. Items the winner
//! lacks are filled from older documents and keep their own provenance (`source` points into
//! the older file). Every item lists, in `sources`, each document that mentions it.
//! Diagnostics of all inputs are kept.

use indexmap::IndexMap;

use crate::ir::{Api, Detail, Document, Release, Source};

/// Something every mergeable item has.
trait Item: Clone {
    fn key(&self) -> &str;
    fn source(&self) -> &Source;
    fn sources_mut(&mut self) -> &mut Vec<Source>;
    fn detail(&self) -> Detail {
        Detail::Full
    }
}

macro_rules! item {
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
item!(crate::ir::Function, detail);
item!(crate::ir::Enum, detail);
item!(crate::ir::Struct, detail);
item!(crate::ir::Typedef, detail);
item!(crate::ir::Constant);
item!(crate::ir::Alias);

/// Merges `apis` (one per document) into one IR. A single input is returned as it is
/// (with `sources` filled).
pub fn merge(mut apis: Vec<Api>) -> Api {
    // Newest release first; a document without a release sorts last; stable otherwise.
    apis.sort_by_key(|a| std::cmp::Reverse(release_of(a)));
    let mut out = Api::default();
    let mut functions = IndexMap::new();
    let mut enums = IndexMap::new();
    let mut structs = IndexMap::new();
    let mut typedefs = IndexMap::new();
    let mut constants = IndexMap::new();
    let mut aliases = IndexMap::new();
    let mut sections: IndexMap<String, crate::ir::Section> = IndexMap::new();
    for api in apis {
        let rank = release_of(&api);
        out.documents.extend(api.documents);
        for s in api.sections {
            sections.entry(s.name.clone()).or_insert(s);
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

fn add<T: Item>(
    map: &mut IndexMap<String, (T, Option<Release>)>,
    items: Vec<T>,
    rank: &Option<Release>,
) {
    for mut item in items {
        let src = item.source().clone();
        match map.get_mut(item.key()) {
            None => {
                let sources = item.sources_mut();
                if !sources.contains(&src) {
                    sources.insert(0, src);
                }
                map.insert(item.key().to_string(), (item, rank.clone()));
            }
            Some((kept, kept_rank)) => {
                // Same release and more detail: the newcomer wins, keeping the sources so far.
                if *kept_rank == *rank
                    && kept.detail() == Detail::NamesOnly
                    && item.detail() == Detail::Full
                {
                    let mut sources = std::mem::take(kept.sources_mut());
                    sources.insert(0, src);
                    *item.sources_mut() = sources;
                    *kept = item;
                } else if !kept.sources_mut().contains(&src) {
                    kept.sources_mut().push(src);
                }
            }
        }
    }
}

/// The documents of `api` by file name, for looking up an item's release.
pub fn document_of<'a>(api: &'a Api, source: &Source) -> Option<&'a Document> {
    api.documents.iter().find(|d| d.file == source.file)
}
