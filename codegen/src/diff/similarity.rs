//! String similarity for pairing renamed-looking items: the Levenshtein edit distance over
//! Unicode scalar values, its normalisation to 0..=1, and [`pair_similar`], which pairs two
//! lists of items by a key and name similarity in time linear in their size (up to a sort).

use std::hash::Hash;

use foldhash::HashMap;

/// The Levenshtein distance (insertions, deletions, substitutions) between `a` and `b`.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// `1 - distance / longer length`: 1 for equal strings, 0 for entirely different ones.
pub fn similarity(a: &str, b: &str) -> f64 {
    let longest = a.chars().count().max(b.chars().count());
    if longest == 0 {
        return 1.0;
    }
    1.0 - levenshtein(a, b) as f64 / longest as f64
}

/// Names longer than this (in characters) are never paired: scoring costs the square of the
/// length, and no C name of the API comes near it.
pub const MAX_PAIRED_NAME: usize = 64;

/// How many neighbours in each sorted order a name is scored against.
const NEIGHBOURS: usize = 2;

/// Pairs items of `removed` with items of `added` that have the same `key` (`None`: the item
/// cannot be paired) and names at least `threshold` similar, best similarity first (ties by
/// position), each item in at most one pair. Returns `(removed index, added index,
/// similarity)`.
///
/// Candidates are bounded so that the work is linear in the input up to a sort: within a key,
/// a removed name is scored against the [`NEIGHBOURS`] added names on each side of it in
/// name order and in reversed-name order (a rename keeps a prefix or a suffix: `cudaFoo` →
/// `cudaFoo_v2`, `cudaOldThing` → `cudaNewThing`). Names longer than [`MAX_PAIRED_NAME`]
/// are not scored.
pub fn pair_similar<T, K: Hash + Eq>(
    removed: &[T],
    added: &[T],
    key: impl Fn(&T) -> Option<K>,
    name: impl Fn(&T) -> &str,
    threshold: f64,
) -> Vec<(usize, usize, f64)> {
    let short = |t: &T| name(t).chars().count() <= MAX_PAIRED_NAME;
    let mut groups: HashMap<K, (Vec<usize>, Vec<usize>)> = HashMap::default();
    for (i, t) in removed.iter().enumerate().filter(|(_, t)| short(t)) {
        if let Some(k) = key(t) {
            groups.entry(k).or_default().0.push(i);
        }
    }
    for (j, t) in added.iter().enumerate().filter(|(_, t)| short(t)) {
        if let Some(k) = key(t) {
            if let Some(g) = groups.get_mut(&k) {
                g.1.push(j);
            }
        }
    }
    let reversed = |s: &str| s.chars().rev().collect::<String>();
    let mut candidates: Vec<(f64, usize, usize)> = Vec::new();
    for (olds, news) in groups.values() {
        if news.is_empty() {
            continue;
        }
        let mut forward: Vec<(String, usize)> = news
            .iter()
            .map(|&j| (name(&added[j]).to_string(), j))
            .collect();
        let mut backward: Vec<(String, usize)> = news
            .iter()
            .map(|&j| (reversed(name(&added[j])), j))
            .collect();
        forward.sort();
        backward.sort();
        for &i in olds {
            let n = name(&removed[i]);
            let mut near: Vec<usize> = Vec::with_capacity(4 * NEIGHBOURS);
            for (order, probe) in [(&forward, n.to_string()), (&backward, reversed(n))] {
                let at = order.partition_point(|(s, _)| s.as_str() < probe.as_str());
                let from = at.saturating_sub(NEIGHBOURS);
                let to = (at + NEIGHBOURS).min(order.len());
                near.extend(order[from..to].iter().map(|(_, j)| *j));
            }
            near.sort_unstable();
            near.dedup();
            for j in near {
                let s = similarity(n, name(&added[j]));
                if s >= threshold {
                    candidates.push((s, i, j));
                }
            }
        }
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let (mut used_old, mut used_new) = (vec![false; removed.len()], vec![false; added.len()]);
    let mut out = Vec::new();
    for (s, i, j) in candidates {
        if used_old[i] || used_new[j] {
            continue;
        }
        used_old[i] = true;
        used_new[j] = true;
        out.push((i, j, s));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("abc", "abc"), 0);
        assert_eq!(levenshtein("flaw", "lawn"), 2);
        assert!((similarity("cudaFoo", "cudaFoo_v2") - 0.7).abs() < 1e-9);
        assert_eq!(similarity("", ""), 1.0);
        assert_eq!(similarity("ab", "cd"), 0.0);
    }

    #[test]
    fn pairs_by_key_and_similarity_best_first() {
        let removed = [
            ("cudaOldThing", 1),
            ("cudaFoo", 2),
            ("cudaBar", 3),
            ("x", 9),
        ];
        let added = [("cudaNewThing", 1), ("cudaFoo_v2", 2), ("cudaBar_v2", 2)];
        let pairs = pair_similar(&removed, &added, |t| Some(t.1), |t| t.0, 0.7);
        // Same key and similar: paired; cudaBar's key differs from cudaBar_v2's.
        assert_eq!(pairs.len(), 2, "{pairs:?}");
        assert!(pairs.iter().any(|&(i, j, _)| (i, j) == (0, 0)));
        assert!(pairs.iter().any(|&(i, j, _)| (i, j) == (1, 1)));
        // A name too long is never scored.
        let long = "a".repeat(MAX_PAIRED_NAME + 1);
        let longer = format!("{long}b");
        let r = [(long.as_str(), 0)];
        let a = [(longer.as_str(), 0)];
        assert!(pair_similar(&r, &a, |t| Some(t.1), |t| t.0, 0.5).is_empty());
    }

    #[test]
    fn each_item_joins_one_pair() {
        let removed = [("cudaA1", 0), ("cudaA2", 0)];
        let added = [("cudaA3", 0)];
        let pairs = pair_similar(&removed, &added, |t| Some(t.1), |t| t.0, 0.5);
        assert_eq!(pairs, vec![(0, 0, similarity("cudaA1", "cudaA3"))]);
    }
}
