//! Comparing the documents' structs and typedef classes: fields added, removed, retyped (by
//! type expression), and the order of the fields both sides have. Whether a field change
//! changes the C layout is the ABI diff's to say ([`super::abi`]). A side that states names
//! only makes the fields not comparable.

use indexmap::IndexMap;

use super::items::{presence_and_sections, split};
use super::typecmp::{same_type, show};
use super::{Acc, ChangeKind, ItemKind, Pair};
use crate::ir::{Detail, Field, Struct, Typedef};

pub(crate) fn compare_structs(acc: &mut Acc, old: &[Struct], new: &[Struct]) {
    let s = split(old, new);
    presence_and_sections(acc, ItemKind::Struct, &s);
    for (o, n) in &s.both {
        let p = Pair {
            kind: ItemKind::Struct,
            name: &o.name,
            old: &o.source,
            new: &n.source,
        };
        compare_fields(acc, &p, (o.detail, &o.fields), (n.detail, &n.fields));
    }
}

pub(crate) fn compare_typedefs(acc: &mut Acc, old: &[Typedef], new: &[Typedef]) {
    let s = split(old, new);
    presence_and_sections(acc, ItemKind::Typedef, &s);
    for (o, n) in &s.both {
        let p = Pair {
            kind: ItemKind::Typedef,
            name: &o.name,
            old: &o.source,
            new: &n.source,
        };
        if o.detail == Detail::Full && n.detail == Detail::Full && o.kind != n.kind {
            let k = |t: &Typedef| {
                serde_json::to_value(t.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
            };
            acc.change(&p, None, ChangeKind::TypedefKindChanged, k(o), k(n));
        }
        compare_fields(acc, &p, (o.detail, &o.fields), (n.detail, &n.fields));
    }
}

fn compare_fields<'a>(
    acc: &mut Acc,
    p: &Pair<'a>,
    old: (Detail, &'a [Field]),
    new: (Detail, &'a [Field]),
) {
    if old.0 == Detail::NamesOnly {
        return acc.not_comparable(p, "fields".into(), true, "states names only");
    }
    if new.0 == Detail::NamesOnly {
        return acc.not_comparable(p, "fields".into(), false, "states names only");
    }
    let index = |list: &[Field]| -> IndexMap<String, usize> {
        let mut m = IndexMap::new();
        for (i, f) in list.iter().enumerate() {
            m.entry(f.name.clone()).or_insert(i);
        }
        m
    };
    let (of, nf) = (old.1, new.1);
    let (oi, ni) = (index(of), index(nf));
    for f in of {
        let Some(&j) = ni.get(&f.name) else {
            let fp = Pair {
                old: &f.source,
                ..*p
            };
            let old_ty = Some(show(f.ty.as_ref()));
            acc.change(&fp, Some(&f.name), ChangeKind::FieldRemoved, old_ty, None);
            continue;
        };
        // Field changes point at the fields' own lines.
        let g = &nf[j];
        let fp = Pair {
            old: &f.source,
            new: &g.source,
            ..*p
        };
        let what = || format!("type of field {}", f.name);
        match (&f.ty, &g.ty) {
            (Some(a), Some(b)) if !same_type(a, b) => {
                let (a, b) = (Some(a.text.clone()), Some(b.text.clone()));
                acc.change(&fp, Some(&f.name), ChangeKind::FieldRetyped, a, b)
            }
            (None, Some(_)) => acc.not_comparable(&fp, what(), true, "gives no type"),
            (Some(_), None) => acc.not_comparable(&fp, what(), false, "gives no type"),
            _ => {}
        }
    }
    for f in nf.iter().filter(|f| !oi.contains_key(&f.name)) {
        let fp = Pair {
            new: &f.source,
            ..*p
        };
        let new_ty = Some(show(f.ty.as_ref()));
        acc.change(&fp, Some(&f.name), ChangeKind::FieldAdded, None, new_ty);
    }
    let a: Vec<&str> = oi
        .keys()
        .filter(|k| ni.contains_key(*k))
        .map(String::as_str)
        .collect();
    let b: Vec<&str> = ni
        .keys()
        .filter(|k| oi.contains_key(*k))
        .map(String::as_str)
        .collect();
    if a != b {
        acc.change(
            p,
            None,
            ChangeKind::FieldsReordered,
            Some(a.join(", ")),
            Some(b.join(", ")),
        );
    }
}
