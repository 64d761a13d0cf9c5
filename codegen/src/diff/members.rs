//! Comparing enums (members added, removed, renumbered), constants (value changed) and
//! aliases (target changed). A renumbered member or a changed constant is an ABI break:
//! code compiled against the old value passes the wrong number to the new library.
//! An enum whose members one side does not state is not comparable, not emptied.

use indexmap::IndexMap;

use super::items::{presence_and_sections, split};
use super::{Acc, ChangeKind, Impact, ItemKind, Pair};
use crate::ir::{Alias, Constant, Detail, Enum, Variant};

pub(crate) fn compare_enums(acc: &mut Acc, old: &[Enum], new: &[Enum]) {
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
        let index = |list: &'_ [Variant]| -> IndexMap<String, Option<i64>> {
            let mut m = IndexMap::new();
            for v in list {
                m.entry(v.name.clone()).or_insert(v.value);
            }
            m
        };
        let (ov, nv) = (index(&o.variants), index(&n.variants));
        for (name, value) in &ov {
            match nv.get(name) {
                None => acc.change(
                    &p,
                    Some(name),
                    ChangeKind::MemberRemoved,
                    Impact::Change,
                    value.map(|v| v.to_string()),
                    None,
                ),
                Some(other) => match (value, other) {
                    (Some(a), Some(b)) if a != b => acc.change(
                        &p,
                        Some(name),
                        ChangeKind::MemberRenumbered,
                        Impact::Break,
                        Some(a.to_string()),
                        Some(b.to_string()),
                    ),
                    (None, Some(_)) => acc.not_comparable(
                        &p,
                        format!("value of member {name}"),
                        true,
                        "gives no value",
                    ),
                    (Some(_), None) => acc.not_comparable(
                        &p,
                        format!("value of member {name}"),
                        false,
                        "gives no value",
                    ),
                    _ => {}
                },
            }
        }
        for (name, value) in nv.iter().filter(|(k, _)| !ov.contains_key(*k)) {
            acc.change(
                &p,
                Some(name),
                ChangeKind::MemberAdded,
                Impact::Info,
                None,
                value.map(|v| v.to_string()),
            );
        }
    }
}

pub(crate) fn compare_constants(acc: &mut Acc, old: &[Constant], new: &[Constant]) {
    let s = split(old, new);
    presence_and_sections(acc, ItemKind::Constant, &s);
    for (o, n) in &s.both {
        if o.value != n.value {
            let p = Pair {
                kind: ItemKind::Constant,
                name: &o.name,
                old: &o.source,
                new: &n.source,
            };
            acc.change(
                &p,
                None,
                ChangeKind::ValueChanged,
                Impact::Break,
                Some(o.value.to_string()),
                Some(n.value.to_string()),
            );
        }
    }
}

pub(crate) fn compare_aliases(acc: &mut Acc, old: &[Alias], new: &[Alias]) {
    let s = split(old, new);
    presence_and_sections(acc, ItemKind::Alias, &s);
    for (o, n) in &s.both {
        if o.target != n.target {
            let p = Pair {
                kind: ItemKind::Alias,
                name: &o.name,
                old: &o.source,
                new: &n.source,
            };
            acc.change(
                &p,
                None,
                ChangeKind::AliasTargetChanged,
                Impact::Change,
                Some(o.target.clone()),
                Some(n.target.clone()),
            );
        }
    }
}
