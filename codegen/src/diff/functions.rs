//! Comparing functions: presence, renamed-looking pairs, and the parameters and return type
//! of functions both sides describe.
//!
//! Parameters are matched by name. A parameter only one side has is added or removed, unless
//! it sits at the same position among the inputs (or outputs) as one only the other side has,
//! with the same type: then it is renamed. The inputs both sides have are checked for order.
//! A function whose parameters one side does not state (names-only documents) is listed as
//! not comparable, never as changed.

use foldhash::{HashMap, HashSet};
use indexmap::IndexMap;

use super::items::{presence_and_sections, split, Named};
use super::similarity;
use super::typecmp::{normalize, same_type, show};
use super::{Acc, ChangeKind, ItemKind, Pair, Rename};
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

/// Compares the return type and the parameters of function `p`, which both sides describe.
fn compare_one(acc: &mut Acc, p: &Pair, o: &Function, n: &Function) {
    match (&o.rtype, &n.rtype) {
        (Some(a), Some(b)) if !same_type(a, b) => acc.change(
            p,
            None,
            ChangeKind::ReturnRetyped,
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
    let (oi, ni) = (by_name(op), by_name(np));
    compare_shared(acc, p, op, np, &ni);
    compare_one_sided(acc, p, op, np, &oi, &ni);
    compare_order(acc, p, op, np, &oi, &ni);
}

/// Each name of `list` and the index of its first parameter.
fn by_name(list: &[Param]) -> IndexMap<&str, usize> {
    let mut m = IndexMap::new();
    for (i, q) in list.iter().enumerate() {
        m.entry(q.name.as_str()).or_insert(i);
    }
    m
}

/// Each name and direction of `list` and the index of its first parameter.
fn by_name_dir(list: &[Param]) -> HashMap<(&str, Direction), usize> {
    let mut m = HashMap::default();
    for (i, q) in list.iter().enumerate() {
        m.entry((q.name.as_str(), q.direction)).or_insert(i);
    }
    m
}

/// The direction and type changes of the parameters both sides name (`ni`: the new names).
fn compare_shared(acc: &mut Acc, p: &Pair, op: &[Param], np: &[Param], ni: &IndexMap<&str, usize>) {
    let (od, nd) = (by_name_dir(op), by_name_dir(np));
    // A name can stand twice (an in/out parameter is listed as an input and as an output):
    // pair same name and same direction first; a direction change is only reported when the
    // other side has the name in the other direction alone.
    for q in op {
        let j = match nd.get(&(q.name.as_str(), q.direction)) {
            Some(&j) => j,
            None => match ni.get(q.name.as_str()) {
                Some(&j) if !od.contains_key(&(q.name.as_str(), np[j].direction)) => j,
                _ => continue,
            },
        };
        let r = &np[j];
        compare_direction(acc, p, q, r);
        compare_param_type(acc, p, q, r);
    }
}

/// A change of direction between old parameter `q` and new parameter `r` of the same name.
fn compare_direction(acc: &mut Acc, p: &Pair, q: &Param, r: &Param) {
    match (q.direction, r.direction) {
        (Direction::In, Direction::Out) => acc.change(
            p,
            Some(&q.name),
            ChangeKind::InputBecameOutput,
            Some("in".into()),
            Some("out".into()),
        ),
        (Direction::Out, Direction::In) => acc.change(
            p,
            Some(&q.name),
            ChangeKind::OutputBecameInput,
            Some("out".into()),
            Some("in".into()),
        ),
        _ => {}
    }
}

/// A change of type between old parameter `q` and new parameter `r` of the same name, or
/// why it cannot be told.
fn compare_param_type(acc: &mut Acc, p: &Pair, q: &Param, r: &Param) {
    match (&q.ty, &r.ty) {
        (Some(a), Some(b)) if !same_type(a, b) => acc.change(
            p,
            Some(&q.name),
            ChangeKind::ParamRetyped,
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

/// Parameters only one side names: one at the same position among the parameters of its
/// direction as one only the other side names, with the same type, is renamed; the others
/// are removed or added.
fn compare_one_sided(
    acc: &mut Acc,
    p: &Pair,
    op: &[Param],
    np: &[Param],
    oi: &IndexMap<&str, usize>,
    ni: &IndexMap<&str, usize>,
) {
    let (o_pos, n_pos) = (positions(op), positions(np));
    let fresh_at: HashMap<(Direction, usize), usize> = np
        .iter()
        .enumerate()
        .filter(|(_, q)| !oi.contains_key(q.name.as_str()))
        .map(|(j, q)| ((q.direction, n_pos[j]), j))
        .collect();
    let mut renamed_new: HashSet<usize> = HashSet::default();
    for (i, q) in op.iter().enumerate() {
        if ni.contains_key(q.name.as_str()) {
            continue;
        }
        let twin = fresh_at
            .get(&(q.direction, o_pos[i]))
            .copied()
            .filter(|j| !renamed_new.contains(j))
            .filter(|&j| matches!((&q.ty, &np[j].ty), (Some(a), Some(b)) if same_type(a, b)));
        match twin {
            Some(j) => {
                renamed_new.insert(j);
                acc.change(
                    p,
                    Some(&q.name),
                    ChangeKind::ParamRenamed,
                    Some(q.name.clone()),
                    Some(np[j].name.clone()),
                );
            }
            None => acc.change(
                p,
                Some(&q.name),
                ChangeKind::ParamRemoved,
                Some(describe(q)),
                None,
            ),
        }
    }
    for (j, r) in np.iter().enumerate() {
        if oi.contains_key(r.name.as_str()) || renamed_new.contains(&j) {
            continue;
        }
        acc.change(
            p,
            Some(&r.name),
            ChangeKind::ParamAdded,
            None,
            Some(describe(r)),
        );
    }
}

/// Order of the inputs both sides have (outputs are returned by name or as a tuple whose
/// order follows the same rule, so they are checked too, separately).
fn compare_order(
    acc: &mut Acc,
    p: &Pair,
    op: &[Param],
    np: &[Param],
    oi: &IndexMap<&str, usize>,
    ni: &IndexMap<&str, usize>,
) {
    for dir in [Direction::In, Direction::Out] {
        let common =
            |list: &[Param], other: &IndexMap<&str, usize>, other_list: &[Param]| -> Vec<String> {
                list.iter()
                    .filter(|q| q.direction == dir)
                    .filter(|q| {
                        other
                            .get(q.name.as_str())
                            .is_some_and(|&j| other_list[j].direction == dir)
                    })
                    .map(|q| q.name.clone())
                    .collect()
            };
        let a = common(op, ni, np);
        let b = common(np, oi, op);
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
                Some(a.join(", ")),
                Some(b.join(", ")),
            );
        }
    }
}

/// For each parameter, its index among the parameters of its direction.
fn positions(list: &[Param]) -> Vec<usize> {
    let (mut ins, mut outs) = (0, 0);
    list.iter()
        .map(|q| {
            let n = if q.direction == Direction::In {
                &mut ins
            } else {
                &mut outs
            };
            *n += 1;
            *n - 1
        })
        .collect()
}

fn describe(q: &Param) -> String {
    let dir = q.direction.word();
    format!("{}: {} ({dir})", q.name, show(q.ty.as_ref()))
}

/// Pairs removed and added functions with the same stated parameters and similar names
/// ([`similarity::pair_similar`]); each function joins at most one pair.
fn renames(acc: &mut Acc, removed: &[&Function], added: &[&Function]) {
    if !removed.is_empty() && !added.is_empty() {
        unpairable(acc, removed, true);
        unpairable(acc, added, false);
    }
    let key = |f: &&Function| stated(f).ok().map(params_key);
    let pairs = similarity::pair_similar(removed, added, key, |f| f.name(), RENAME_THRESHOLD);
    let index = |list: &[super::ItemRef]| -> HashMap<String, usize> {
        list.iter()
            .enumerate()
            .filter(|(_, r)| r.kind == ItemKind::Function)
            .map(|(i, r)| (r.name.clone(), i))
            .collect()
    };
    let (removed_at, added_at) = (index(&acc.removed), index(&acc.added));
    for (i, j, s) in pairs {
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
        if let Some(&at) = removed_at.get(&o.name) {
            acc.removed[at].looks_renamed = Some(n.name.clone());
        }
        if let Some(&at) = added_at.get(&n.name) {
            acc.added[at].looks_renamed = Some(o.name.clone());
        }
    }
}

/// A key equal for two parameter lists exactly when they are the same: names, directions and
/// normalised types, in order.
fn params_key(list: &[Param]) -> String {
    let mut key = String::new();
    for q in list {
        let ty =
            q.ty.as_ref()
                .map(|t| serde_json::to_string(&normalize(&t.expr)).unwrap_or_default());
        key.push_str(&format!(
            "{}\u{1f}{}\u{1f}{:?}\u{1e}",
            q.name,
            q.direction.word(),
            ty
        ));
    }
    key
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
