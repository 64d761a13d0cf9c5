//! Comparing functions: presence, renamed-looking pairs, and the parameters and return type
//! of functions both sides describe.
//!
//! Parameters are matched by name. A parameter only one side has is added or removed, unless
//! it sits at the same position among the inputs (or outputs) as one only the other side has,
//! with the same type: then it is renamed. The inputs both sides have are checked for order.
//! A function whose parameters one side does not state (names-only documents) is listed as
//! not comparable, never as changed.

use indexmap::IndexMap;

use super::items::{presence_and_sections, split, Named};
use super::similarity::similarity;
use super::typecmp::{same_type, show};
use super::{Acc, ChangeKind, Impact, ItemKind, Pair, Rename};
use crate::ir::{Detail, Direction, Function, Param};

/// Two names at least this similar (normalized Levenshtein) with identical parameter lists
/// are reported as a renamed-looking pair.
pub const RENAME_THRESHOLD: f64 = 0.7;

pub(crate) fn compare(acc: &mut Acc, old: &[Function], new: &[Function]) {
    let s = split(old, new);
    presence_and_sections(acc, ItemKind::Function, &s);
    renames(acc, &s.only_old, &s.only_new);
    for (o, n) in &s.both {
        let p = Pair {
            kind: ItemKind::Function,
            name: &o.name,
            old: &o.source,
            new: &n.source,
        };
        compare_one(acc, &p, o, n);
    }
}

/// The parameters a function states, or why it states none.
fn stated(f: &Function) -> Result<&[Param], &'static str> {
    match (&f.params, f.detail) {
        (_, Detail::NamesOnly) => Err("states names only"),
        (None, _) => Err("does not state parameters"),
        (Some(p), Detail::Full) => Ok(p),
    }
}

fn compare_one(acc: &mut Acc, p: &Pair, o: &Function, n: &Function) {
    match (&o.rtype, &n.rtype) {
        (Some(a), Some(b)) if !same_type(a, b) => acc.change(
            p,
            None,
            ChangeKind::ReturnRetyped,
            Impact::Change,
            Some(a.text.clone()),
            Some(b.text.clone()),
        ),
        _ => {}
    }
    let (op, np) = match (stated(o), stated(n)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(why), _) => return acc.not_comparable(p, "parameters".into(), true, why),
        (_, Err(why)) => return acc.not_comparable(p, "parameters".into(), false, why),
    };
    let by_name = |list: &'_ [Param]| -> IndexMap<String, usize> {
        let mut m = IndexMap::new();
        for (i, q) in list.iter().enumerate() {
            m.entry(q.name.clone()).or_insert(i);
        }
        m
    };
    let (oi, ni) = (by_name(op), by_name(np));
    // A name can stand twice (an in/out parameter is listed as an input and as an output):
    // pair same name and same direction first; a direction change is only reported when the
    // other side has the name in the other direction alone.
    let find = |list: &'_ [Param], name: &str, dir: Direction| {
        list.iter()
            .position(|r| r.name == name && r.direction == dir)
    };
    for q in op {
        let j = match find(np, &q.name, q.direction) {
            Some(j) => j,
            None => match ni.get(&q.name) {
                Some(&j) if find(op, &q.name, np[j].direction).is_none() => j,
                _ => continue,
            },
        };
        let r = &np[j];
        match (q.direction, r.direction) {
            (Direction::In, Direction::Out) => acc.change(
                p,
                Some(&q.name),
                ChangeKind::InputBecameOutput,
                Impact::Change,
                Some("in".into()),
                Some("out".into()),
            ),
            (Direction::Out, Direction::In) => acc.change(
                p,
                Some(&q.name),
                ChangeKind::OutputBecameInput,
                Impact::Change,
                Some("out".into()),
                Some("in".into()),
            ),
            _ => {}
        }
        match (&q.ty, &r.ty) {
            (Some(a), Some(b)) if !same_type(a, b) => acc.change(
                p,
                Some(&q.name),
                ChangeKind::ParamRetyped,
                Impact::Change,
                Some(a.text.clone()),
                Some(b.text.clone()),
            ),
            (None, Some(_)) => acc.not_comparable(
                p,
                format!("type of parameter {}", q.name),
                true,
                "gives no type",
            ),
            (Some(_), None) => acc.not_comparable(
                p,
                format!("type of parameter {}", q.name),
                false,
                "gives no type",
            ),
            _ => {}
        }
    }
    let gone: Vec<&Param> = op.iter().filter(|q| !ni.contains_key(&q.name)).collect();
    let fresh: Vec<&Param> = np.iter().filter(|q| !oi.contains_key(&q.name)).collect();
    let mut renamed_new: Vec<&str> = Vec::new();
    for q in &gone {
        let pos = position(op, q);
        let twin = fresh.iter().find(|r| {
            r.direction == q.direction
                && position(np, r) == pos
                && !renamed_new.contains(&r.name.as_str())
                && matches!((&q.ty, &r.ty), (Some(a), Some(b)) if same_type(a, b))
        });
        match twin {
            Some(r) => {
                renamed_new.push(&r.name);
                acc.change(
                    p,
                    Some(&q.name),
                    ChangeKind::ParamRenamed,
                    Impact::Change,
                    Some(q.name.clone()),
                    Some(r.name.clone()),
                );
            }
            None => acc.change(
                p,
                Some(&q.name),
                ChangeKind::ParamRemoved,
                Impact::Change,
                Some(describe(q)),
                None,
            ),
        }
    }
    for r in fresh
        .iter()
        .filter(|r| !renamed_new.contains(&r.name.as_str()))
    {
        acc.change(
            p,
            Some(&r.name),
            ChangeKind::ParamAdded,
            Impact::Info,
            None,
            Some(describe(r)),
        );
    }
    // Order of the inputs both sides have (outputs are returned by name or as a tuple whose
    // order follows the same rule, so they are checked too, separately).
    for dir in [Direction::In, Direction::Out] {
        let common = |list: &[Param],
                      other: &IndexMap<String, usize>,
                      other_list: &[Param]|
         -> Vec<String> {
            list.iter()
                .filter(|q| q.direction == dir)
                .filter(|q| {
                    other
                        .get(&q.name)
                        .is_some_and(|&j| other_list[j].direction == dir)
                })
                .map(|q| q.name.clone())
                .collect()
        };
        let a = common(op, &ni, np);
        let b = common(np, &oi, op);
        if a != b {
            let what = if dir == Direction::In {
                "inputs"
            } else {
                "outputs"
            };
            acc.change(
                p,
                Some(what),
                ChangeKind::ParamsReordered,
                Impact::Change,
                Some(a.join(", ")),
                Some(b.join(", ")),
            );
        }
    }
}

/// Index of `q` among the parameters of its direction.
fn position(list: &[Param], q: &Param) -> Option<usize> {
    list.iter()
        .filter(|r| r.direction == q.direction)
        .position(|r| std::ptr::eq(r, q))
}

fn describe(q: &Param) -> String {
    let dir = q.direction.word();
    format!("{}: {} ({dir})", q.name, show(q.ty.as_ref()))
}

/// Whether two parameter lists are the same: names, directions and types, in order.
fn same_params(a: &[Param], b: &[Param]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.name == y.name
                && x.direction == y.direction
                && match (&x.ty, &y.ty) {
                    (Some(s), Some(t)) => same_type(s, t),
                    (None, None) => true,
                    _ => false,
                }
        })
}

/// Pairs removed and added functions with the same stated parameters and similar names,
/// best similarity first; each function joins at most one pair.
fn renames(acc: &mut Acc, removed: &[&Function], added: &[&Function]) {
    if !removed.is_empty() && !added.is_empty() {
        unpairable(acc, removed, true);
        unpairable(acc, added, false);
    }
    let mut candidates: Vec<(f64, usize, usize)> = Vec::new();
    for (i, o) in removed.iter().enumerate() {
        let Ok(op) = stated(o) else { continue };
        for (j, n) in added.iter().enumerate() {
            let Ok(np) = stated(n) else { continue };
            if !same_params(op, np) {
                continue;
            }
            let s = similarity(o.name(), n.name());
            if s >= RENAME_THRESHOLD {
                candidates.push((s, i, j));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let (mut used_old, mut used_new) = (vec![false; removed.len()], vec![false; added.len()]);
    for (s, i, j) in candidates {
        if used_old[i] || used_new[j] {
            continue;
        }
        used_old[i] = true;
        used_new[j] = true;
        let (o, n) = (removed[i], added[j]);
        let params = o.params.as_ref().map_or(0, Vec::len);
        acc.renamed.push(Rename {
            kind: ItemKind::Function,
            old_name: o.name.clone(),
            new_name: n.name.clone(),
            similarity: (s * 1000.0).round() / 1000.0,
            evidence: format!("same {params} parameter(s)"),
            old_source: o.source.to_string(),
            new_source: n.source.to_string(),
        });
        for r in acc
            .removed
            .iter_mut()
            .filter(|r| r.kind == ItemKind::Function && r.name == o.name)
        {
            r.looks_renamed = Some(n.name.clone());
        }
        for r in acc
            .added
            .iter_mut()
            .filter(|r| r.kind == ItemKind::Function && r.name == n.name)
        {
            r.looks_renamed = Some(o.name.clone());
        }
    }
}

/// Says once per side how many of its unmatched functions cannot join a renamed-looking pair
/// because their parameters are not stated.
fn unpairable(acc: &mut Acc, list: &[&Function], old_side: bool) {
    let unstated: Vec<&&Function> = list.iter().filter(|f| stated(f).is_err()).collect();
    let Some(first) = unstated.first() else {
        return;
    };
    let what = if old_side { "removed" } else { "added" };
    let p = Pair {
        kind: ItemKind::Function,
        name: "*",
        old: &first.source,
        new: &first.source,
    };
    let reason = format!(
        "states no parameters for {} of the {} {what} functions",
        unstated.len(),
        list.len()
    );
    acc.not_comparable(&p, "renamed-looking pairs".into(), old_side, &reason);
}
