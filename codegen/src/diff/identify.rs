//! Which release a document describes, read from its contents: NVIDIA's pages do not state
//! their release, but the set of items they describe does. The document's items are matched
//! against the committed ABI snapshot of every minor ([`identify`]).
//!
//! For each snapshot two counts are made. **Foreign**: items the document describes that the
//! snapshot does not declare, among those some snapshot declares (a document may describe
//! C macros no header declares as an item; a `cuda…`/`nvrtc…` function no snapshot declares
//! counts against every snapshot, as a page of an uncommitted release has new functions). **Lacking**: items
//! the snapshot declares that not every snapshot declares (what was added or removed at some
//! release) and the document does not describe. A snapshot matches when it has no foreign
//! item, the document describes at least half of its functions (a handful of items tells
//! no release) and it has the fewest lacking ones; several with the same counts cannot be told apart by the
//! item set and are all named. No snapshot matches when every one has a foreign item (a page
//! of a release not committed, or one put together from several). Linear in the document's
//! and the snapshots' sizes. It does not choose among ties, nor read the snapshots' files.

use foldhash::{HashMap, HashSet};

use super::join::lookup;
use super::ItemKind;
use crate::abi::Abi;
use crate::ir::{Api, Release};

/// How well one snapshot fits the document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fit {
    /// The snapshot's position in the slice given to [`identify`].
    pub index: usize,
    /// The snapshot's release, when it states one.
    pub release: Option<Release>,
    /// Items the document describes that this snapshot does not declare (and some snapshot,
    /// or for functions, none, does).
    pub foreign: usize,
    /// Up to five of them, for messages.
    pub foreign_examples: Vec<String>,
    /// Items the snapshot declares, not every snapshot declares, and the document lacks.
    pub lacking: usize,
    /// The snapshot's functions the document describes, and how many it declares.
    pub described_functions: usize,
    pub functions: usize,
}

impl Fit {
    /// Whether the document describes enough of the snapshot to be matched with it: at
    /// least half of its functions.
    pub fn covers(&self) -> bool {
        self.functions > 0 && self.described_functions * 2 >= self.functions
    }
}

/// The result: every snapshot's fit, best first, and which ones match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identification {
    /// Best first: fewest foreign items, then fewest lacking, then newest.
    pub fits: Vec<Fit>,
    /// How many of `fits` (from the front) match: 0 (no snapshot matches), 1 (the release is
    /// known) or more (the item set cannot tell them apart).
    pub matched: usize,
}

impl Identification {
    /// The matching fits.
    pub fn matches(&self) -> &[Fit] {
        &self.fits[..self.matched]
    }

    /// The one matching snapshot's index, when exactly one matches.
    pub fn unique(&self) -> Option<usize> {
        (self.matched == 1).then(|| self.fits[0].index)
    }
}

/// Whether a function name is the library's C API's (`cuda…`, `nvrtc…`): one no snapshot
/// declares is then a function of a release not committed. Pages also describe helpers no
/// header declares as a function (`make_cudaExtent`, inline; `getLocalRuntimeVersion`, the
/// Python module's own), which tell no release.
fn api_prefixed(name: &str) -> bool {
    name.starts_with("cuda") || name.starts_with("nvrtc")
}

/// The document's items as (kind, name), functions by their documented C name.
fn doc_items(api: &Api) -> Vec<(ItemKind, &str)> {
    let mut v: Vec<(ItemKind, &str)> = Vec::new();
    v.extend(api.functions.iter().map(|f| (ItemKind::Function, &*f.name)));
    v.extend(api.enums.iter().map(|e| (ItemKind::Enum, &*e.name)));
    v.extend(api.structs.iter().map(|s| (ItemKind::Struct, &*s.name)));
    v.extend(api.typedefs.iter().map(|t| (ItemKind::Typedef, &*t.name)));
    v.extend(api.constants.iter().map(|c| (ItemKind::Constant, &*c.name)));
    v
}

/// The items an ABI declares that a document can describe, as the ABI diff names them.
fn abi_items(abi: &Abi) -> Vec<(ItemKind, String)> {
    let mut v: Vec<(ItemKind, String)> = Vec::new();
    v.extend(
        abi.functions
            .keys()
            .chain(abi.renames.keys())
            .map(|n| (ItemKind::Function, n.clone())),
    );
    v.extend(abi.enums.keys().map(|n| (ItemKind::Enum, n.clone())));
    v.extend(
        abi.records
            .iter()
            .filter(|(n, _)| !n.starts_with("_bindgen"))
            .map(|(n, _)| (ItemKind::Struct, n.clone())),
    );
    v.extend(
        abi.constants
            .keys()
            .map(|n| (ItemKind::Constant, n.clone())),
    );
    v
}

/// Matches the document `api` against `snapshots` (see the module comment).
pub fn identify(api: &Api, snapshots: &[&Abi]) -> Identification {
    let items = doc_items(api);
    // What each snapshot declares of the document's items, as that snapshot names them.
    let found: Vec<Vec<Option<(ItemKind, String)>>> = snapshots
        .iter()
        .map(|abi| items.iter().map(|(k, n)| lookup(abi, *k, n)).collect())
        .collect();
    let declared_somewhere: Vec<bool> = (0..items.len())
        .map(|i| found.iter().any(|f| f[i].is_some()))
        .collect();
    // How many snapshots declare each ABI item.
    let mut count: HashMap<(ItemKind, String), usize> = HashMap::default();
    let per_abi: Vec<Vec<(ItemKind, String)>> = snapshots.iter().map(|a| abi_items(a)).collect();
    for list in &per_abi {
        let unique: HashSet<&(ItemKind, String)> = list.iter().collect();
        for k in unique {
            *count.entry(k.clone()).or_default() += 1;
        }
    }
    let mut fits: Vec<Fit> = snapshots
        .iter()
        .enumerate()
        .map(|(index, abi)| {
            let mut foreign = 0;
            let mut foreign_examples = Vec::new();
            for (i, (kind, name)) in items.iter().enumerate() {
                let counts =
                    declared_somewhere[i] || (*kind == ItemKind::Function && api_prefixed(name));
                if found[index][i].is_none() && counts {
                    foreign += 1;
                    if foreign_examples.len() < 5 {
                        foreign_examples.push((*name).to_string());
                    }
                }
            }
            let described: HashSet<&(ItemKind, String)> = found[index].iter().flatten().collect();
            let lacking = per_abi[index]
                .iter()
                .collect::<HashSet<_>>()
                .into_iter()
                .filter(|k| count.get(*k).copied().unwrap_or(0) < snapshots.len())
                .filter(|k| !described.contains(k))
                .count();
            let described_functions = found[index]
                .iter()
                .flatten()
                .filter(|(k, _)| *k == ItemKind::Function)
                .count();
            Fit {
                index,
                release: abi.release.clone(),
                foreign,
                foreign_examples,
                lacking,
                described_functions,
                functions: abi.functions.len(),
            }
        })
        .collect();
    fits.sort_by(|a, b| {
        (a.foreign, a.lacking)
            .cmp(&(b.foreign, b.lacking))
            .then_with(|| b.release.cmp(&a.release))
    });
    let matched = match fits.first() {
        Some(best) if best.foreign == 0 && best.covers() => fits
            .iter()
            .take_while(|f| (f.foreign, f.lacking) == (best.foreign, best.lacking) && f.covers())
            .count(),
        _ => 0,
    };
    Identification { fits, matched }
}
