//! What every compared item has (a name, a section, a source) and the steps common to all
//! kinds: splitting two lists into only-old, only-new and both (by short name, sorted), and
//! comparing the sections of items both sides have.

use std::collections::BTreeMap;

use super::{Acc, ChangeKind, ItemKind, ItemRef, Pair};
use crate::ir::{Alias, Api, Constant, Enum, Function, Source, Struct, Typedef};

/// An item the diff can match by name.
pub(crate) trait Named {
    fn name(&self) -> &str;
    fn section(&self) -> Option<&str>;
    fn source(&self) -> &Source;
}

macro_rules! named {
    ($($t:ty),*) => {$(
        impl Named for $t {
            fn name(&self) -> &str { &self.name }
            fn section(&self) -> Option<&str> { self.section.as_deref() }
            fn source(&self) -> &Source { &self.source }
        }
    )*};
}
named!(Function, Enum, Struct, Typedef, Constant, Alias);

/// Items of one kind split by presence, each list sorted by name.
pub(crate) struct Split<'a, T> {
    pub only_old: Vec<&'a T>,
    pub only_new: Vec<&'a T>,
    pub both: Vec<(&'a T, &'a T)>,
}

/// Splits `old` and `new` by short name. A name listed twice on one side counts once (the
/// first occurrence, as the merge keeps it).
pub(crate) fn split<'a, T: Named>(old: &'a [T], new: &'a [T]) -> Split<'a, T> {
    let index = |list: &'a [T]| {
        let mut m: BTreeMap<&'a str, &'a T> = BTreeMap::new();
        for item in list {
            m.entry(item.name()).or_insert(item);
        }
        m
    };
    let (o, n) = (index(old), index(new));
    Split {
        only_old: o
            .iter()
            .filter(|(k, _)| !n.contains_key(*k))
            .map(|(_, v)| *v)
            .collect(),
        only_new: n
            .iter()
            .filter(|(k, _)| !o.contains_key(*k))
            .map(|(_, v)| *v)
            .collect(),
        both: o
            .iter()
            .filter_map(|(k, v)| n.get(k).map(|w| (*v, *w)))
            .collect(),
    }
}

/// An [`ItemRef`] for `item`.
pub(crate) fn item_ref<T: Named>(kind: ItemKind, item: &T) -> ItemRef {
    ItemRef {
        kind,
        name: item.name().to_string(),
        section: item.section().map(String::from),
        source: item.source().to_string(),
        looks_renamed: None,
    }
}

/// Records the added and removed items of `split`, and compares the sections of the others.
pub(crate) fn presence_and_sections<T: Named>(acc: &mut Acc, kind: ItemKind, split: &Split<T>) {
    acc.removed
        .extend(split.only_old.iter().map(|i| item_ref(kind, *i)));
    acc.added
        .extend(split.only_new.iter().map(|i| item_ref(kind, *i)));
    for (o, n) in &split.both {
        let p = Pair {
            kind,
            name: o.name(),
            old: o.source(),
            new: n.source(),
        };
        if let (Some(a), Some(b)) = (o.section(), n.section()) {
            if a != b {
                acc.change(
                    &p,
                    None,
                    ChangeKind::SectionMoved,
                    Some(a.into()),
                    Some(b.into()),
                );
            }
        }
    }
}

/// When one side states no section for any item, says so once instead of per item; when
/// both state sections, items lacking one on one side are compared no further (a document
/// that groups most items but not all is common and not a change).
pub(crate) fn sections_unstated(acc: &mut Acc, old: &Api, new: &Api) {
    for (api, old_lacks) in [(old, true), (new, false)] {
        let any = !api.sections.is_empty()
            || api.functions.iter().any(|f| f.section.is_some())
            || api.enums.iter().any(|e| e.section.is_some());
        let has_items =
            !api.functions.is_empty() || !api.enums.is_empty() || !api.structs.is_empty();
        if !any && has_items {
            let src = api
                .documents
                .first()
                .map(|d| Source::new(d.file.clone(), 0))
                .unwrap_or_else(|| Source::new("", 0));
            let p = Pair {
                kind: ItemKind::Function,
                name: "*",
                old: &src,
                new: &src,
            };
            acc.not_comparable(
                &p,
                "sections of all items".into(),
                old_lacks,
                "states no sections",
            );
        }
    }
}
