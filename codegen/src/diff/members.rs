//! Comparing the documents' enums (members added, removed, renumbered), constants (value
//! changed) and aliases (target changed). What these mean for C code is decided by the ABI
//! diff ([`super::abi`]) in the join; here they are what the documents state. An enum whose
//! members one side does not state is not comparable, not emptied.

use indexmap::IndexMap;

use super::items::{presence_and_sections, split};
use super::{Acc, ChangeKind, ItemKind, Pair};
use crate::ir::{Alias, Constant, Detail, Enum, Variant};

pub(crate) fn compare_enums<'a>(acc: &mut Acc, old: &'a [Enum], new: &'a [Enum]) {
    let s = split(old, new);
    presence_and_sections(acc, ItemKind::Enum, &s);
    for (o, n) in &s.both {
        let p = Pair {
            kind: ItemKind::Enum,
            name: &o.name,
            old: &o.source,
            new: &n.source,
        };
        if o.detail == Detail::NamesOnly {
            acc.not_comparable(&p, "members".into(), true, "states names only");
            continue;
        }
        if n.detail == Detail::NamesOnly {
            acc.not_comparable(&p, "members".into(), false, "states names only");
            continue;
        }
        let index = |list: &'a [Variant]| -> IndexMap<&'a str, &'a Variant> {
            let mut m = IndexMap::new();
            for v in list {
                m.entry(v.name.as_str()).or_insert(v);
            }
            m
        };
        let (ov, nv) = (index(&o.variants), index(&n.variants));
        let num = |v: &Variant| v.value.map(|x| x.to_string());
        for (&name, &v) in &ov {
            let Some(&w) = nv.get(name) else {
                let mp = Pair {
                    old: &v.source,
                    ..p
                };
                acc.change(&mp, Some(name), ChangeKind::MemberRemoved, num(v), None);
                continue;
            };
            // Member changes point at the members' own lines.
            let mp = Pair {
                old: &v.source,
                new: &w.source,
                ..p
            };
            match (v.value, w.value) {
                (Some(a), Some(b)) if a != b => acc.change(
                    &mp,
                    Some(name),
                    ChangeKind::MemberRenumbered,
                    num(v),
                    num(w),
                ),
                (None, Some(_)) => acc.not_comparable(
                    &mp,
                    format!("value of member {name}"),
                    true,
                    "gives no value",
                ),
                (Some(_), None) => acc.not_comparable(
                    &mp,
                    format!("value of member {name}"),
                    false,
                    "gives no value",
                ),
                _ => {}
            }
        }
        for (&name, &w) in nv.iter().filter(|(k, _)| !ov.contains_key(*k)) {
            let mp = Pair {
                new: &w.source,
                ..p
            };
            acc.change(&mp, Some(name), ChangeKind::MemberAdded, None, num(w));
        }
    }
}

pub(crate) fn compare_constants(acc: &mut Acc, old: &[Constant], new: &[Constant]) {
    compare_values(acc, ItemKind::Constant, old, new, |c| c.value.to_string());
}

pub(crate) fn compare_aliases(acc: &mut Acc, old: &[Alias], new: &[Alias]) {
    compare_values(acc, ItemKind::Alias, old, new, |a| a.target.clone());
}

/// Items of `kind` that are one value each (a constant's value, an alias's target): presence,
/// sections, and a changed value — a break for a constant, a change for an alias.
fn compare_values<T: super::items::Named>(
    acc: &mut Acc,
    kind: ItemKind,
    old: &[T],
    new: &[T],
    value: impl Fn(&T) -> String,
) {
    let change = match kind {
        ItemKind::Alias => ChangeKind::AliasTargetChanged,
        _ => ChangeKind::ValueChanged,
    };
    let s = split(old, new);
    presence_and_sections(acc, kind, &s);
    for (o, n) in &s.both {
        let (ov, nv) = (value(o), value(n));
        if ov != nv {
            let p = Pair {
                kind,
                name: o.name(),
                old: o.source(),
                new: n.source(),
            };
            acc.change(&p, None, change, Some(ov), Some(nv));
        }
    }
}
