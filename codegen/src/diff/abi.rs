//! The C-level diff of two ABI snapshots (two releases' headers), each difference classed by
//! what it does to C code written and compiled against the old release ([`Impact`]).
//!
//! - **Functions** are compared by the name C code calls them by: a function, or a
//!   `#define` rename (`cudaGetDeviceProperties` → `cudaGetDeviceProperties_v2` in 12.x). A
//!   parameter list or return type changed in number, order or C type is one
//!   `signature-changed` break per function, with both prototypes; parameter names alone,
//!   the same type spelled through a typedef, and a name now standing for another symbol are
//!   `info`.
//! - **Records** (structs and unions) by size, alignment, kind, and their fields as C code
//!   names them: members of anonymous unions and structs are reached through them (C11), and
//!   the fields of a named member of anonymous type are compared by path (`event.flags`),
//!   never by bindgen's positional type names (those types are listed too, by the names
//!   bindgen gave them, every difference `info` with the reason). A field removed, retyped or moved is a break,
//!   a field added in space the record had is `info`; changes to reserved storage (names
//!   starting with `reserved`, `pad` or `_`) are `info`, with the reason.
//! - **Enums** by member: removed or renumbered is a break, added is `info`. A **count
//!   sentinel** (a member named `…Max`/`…Count` holding the enum's largest value in both
//!   releases) renumbered past new members is `info`, not a break: old code uses it as a bound
//!   of the values it knows, which it still bounds, and the library never takes it as an
//!   argument, so no call made by old code changes meaning (a new value the library returns
//!   is an addition, as any new member is).
//! - **Constants**: a value changed is a break, except the release's own version number
//!   (`CUDART_VERSION`: the value that encodes each side's release) and a `…Mask` whose new
//!   value keeps every bit of the old one (a flag mask widened for new flags), both `info`.
//! - **Typedefs** and **`#define` aliases** by target; any item removed is a break, added is
//!   `info`; an item newly marked deprecated is `deprecated`.
//!
//! A removed name is paired with the name that stands for it now: its `_vN` family
//! (`cudaGraphAddNode_v2` → `cudaGraphAddNode`, same C signature) or a renamed-looking item
//! (same C signature, similar name). It stays a break (old code naming it no longer
//! compiles), listed with its pair. Everything is linear in the snapshots' size.

use foldhash::{HashMap, HashSet};
use indexmap::IndexMap;

use super::similarity::{pair_similar, similarity};
use super::{cdecl, Change, ChangeKind, Evidence, Impact, ItemKind, Rename, RENAME_THRESHOLD};
use crate::abi::{layout, Abi, AbiType, CType, Function, Record, RecordKind};
use crate::coverage::group::versioned_base;

/// The ABI diff: one [`Change`] per difference, and the pairs of removed names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AbiDiff {
    pub changes: Vec<Change>,
    pub renamed: Vec<Rename>,
}

/// Compares the snapshot `old` with `new`.
pub fn compare(old: &Abi, new: &Abi) -> AbiDiff {
    let mut d = Differ {
        old,
        new,
        out: AbiDiff::default(),
    };
    d.functions();
    d.records();
    d.anonymous_records();
    d.enums();
    d.typedefs();
    d.constants();
    d.aliases();
    d.deprecations();
    let mut out = d.out;
    out.changes
        .sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    out.renamed
        .sort_by(|a, b| (a.kind, &a.old_name).cmp(&(b.kind, &b.old_name)));
    out
}

/// A change of `kind` item `name` with ABI evidence and no details yet.
fn entry(kind: ItemKind, name: &str, change: ChangeKind, impact: Impact) -> Change {
    Change {
        kind,
        name: name.to_string(),
        part: None,
        change,
        impact,
        evidence: Evidence::Abi,
        old: None,
        new: None,
        old_source: None,
        new_source: None,
        reason: None,
        paired_with: None,
    }
}

/// Whether a record or enum name is one bindgen made for an anonymous type.
pub fn is_anonymous(name: &str) -> bool {
    name.contains("__bindgen_ty_")
}

/// Whether a field is reserved storage by its name: `reserved`, `pad` or `padding`, with a
/// number or not (`reserved1`, `reserved_2`), or a name starting with `_` (C's internal
/// names such as `_internal_padding`, and bindgen's storage units). `reservedSharedMemPerBlock`
/// is a field like any other.
fn is_reserved(path: &str) -> bool {
    let last = path.rsplit('.').next().unwrap_or(path);
    if last.starts_with('_') {
        return true;
    }
    let lower = last.to_ascii_lowercase();
    ["reserved", "padding", "pad"].iter().any(|w| {
        lower.strip_prefix(w).is_some_and(|rest| {
            rest.trim_start_matches('_')
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
    })
}

/// How two types compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Same {
    Yes,
    /// The same type through typedefs.
    Spelling,
    No,
}

/// `ty` with every declared name resolved through typedef aliases (`cudaError_t` →
/// `cudaError`) and bindgen's anonymous names made anonymous.
fn canonical(abi: &Abi, ty: &CType) -> CType {
    match ty {
        CType::Named { name } => {
            let r = abi.resolve_alias(name);
            CType::Named {
                name: if is_anonymous(r) {
                    "(anonymous)".to_string()
                } else {
                    r.to_string()
                },
            }
        }
        CType::Pointer { to, is_const } => CType::Pointer {
            to: Box::new(canonical(abi, to)),
            is_const: *is_const,
        },
        CType::Array { of, len } => CType::Array {
            of: Box::new(canonical(abi, of)),
            len: *len,
        },
        CType::FnPtr {
            params,
            ret,
            nullable,
        } => CType::FnPtr {
            params: params
                .iter()
                .map(|p| crate::abi::Param {
                    name: String::new(),
                    ty: AbiType::new(String::new(), canonical(abi, &p.ty.c)),
                })
                .collect(),
            ret: Box::new(canonical(abi, ret)),
            nullable: *nullable,
        },
        other => other.clone(),
    }
}

struct Differ<'a> {
    old: &'a Abi,
    new: &'a Abi,
    out: AbiDiff,
}

/// A field as C code reaches it: its path from the record (`flags`, `event.flags`, a member
/// of an anonymous union by its own name), its type and absolute offset when known.
struct FieldView<'a> {
    ty: &'a AbiType,
    offset: Option<u64>,
    /// The field's type is an anonymous record, compared through its own fields' paths.
    anonymous_type: bool,
}

/// How a field reads in the report: its declaration, an anonymous record's type as
/// `struct {…}` (bindgen's positional names mean nothing to a reader).
fn field_text(abi: &Abi, f: &FieldView<'_>, path: &str) -> String {
    if !f.anonymous_type {
        return cdecl::field(f.ty, path, f.offset);
    }
    let kind = match &f.ty.c {
        CType::Named { name } => match abi.records.get(name).map(|r| r.kind) {
            Some(RecordKind::Union) => "union",
            _ => "struct",
        },
        _ => "struct",
    };
    match f.offset {
        Some(o) => format!("{kind} {{…}} {path} (offset {o})"),
        None => format!("{kind} {{…}} {path}"),
    }
}

/// Nesting deeper than this is not followed (no header comes near it).
const MAX_NESTING: usize = 16;

fn flatten<'a>(
    abi: &'a Abi,
    record: &'a Record,
    prefix: &str,
    base: Option<u64>,
    depth: usize,
    out: &mut IndexMap<String, FieldView<'a>>,
) {
    if depth > MAX_NESTING {
        return;
    }
    let computed = layout::record_layout(abi, &record.name);
    for (i, f) in record.fields.iter().enumerate() {
        let own = f
            .offset
            .or_else(|| computed.as_ref().and_then(|l| l.offsets.get(i).copied()));
        let offset = base.zip(own).map(|(b, o)| b + o);
        let nested = match &f.ty.c {
            CType::Named { name } if is_anonymous(name) => abi.records.get(name.as_str()),
            _ => None,
        };
        match nested {
            Some(inner) if f.name.starts_with("__bindgen_anon_") => {
                flatten(abi, inner, prefix, offset, depth + 1, out);
            }
            Some(inner) => {
                let path = format!("{prefix}{}", f.c_name());
                out.entry(path.clone()).or_insert(FieldView {
                    ty: &f.ty,
                    offset,
                    anonymous_type: true,
                });
                flatten(abi, inner, &format!("{path}."), offset, depth + 1, out);
            }
            None => {
                out.entry(format!("{prefix}{}", f.c_name()))
                    .or_insert(FieldView {
                        ty: &f.ty,
                        offset,
                        anonymous_type: false,
                    });
            }
        }
    }
}

/// The C value of a release (`13.2` → 13020), as `CUDART_VERSION` encodes it.
fn release_code(abi: &Abi) -> Option<i128> {
    let r = abi.release.as_ref()?;
    let major = i128::from(*r.0.first()?);
    let minor = i128::from(r.0.get(1).copied().unwrap_or(0));
    Some(major * 1000 + minor * 10)
}

/// The parameter and return types of `f` as one comparable key (canonical types, so a
/// typedef spelling does not count).
fn signature_key(abi: &Abi, f: &Function) -> String {
    let mut key = format!("{:?}", canonical(abi, &f.ret.c));
    for p in &f.params {
        key.push('\u{1e}');
        key.push_str(&format!("{:?}", canonical(abi, &p.ty.c)));
    }
    key
}

/// Names grouped by their `_vN` family (`cudaFoo`, `cudaFoo_v2` → `cudaFoo`).
fn families<'a>(names: impl Iterator<Item = &'a str>) -> HashMap<&'a str, Vec<&'a str>> {
    let mut out: HashMap<&str, Vec<&str>> = HashMap::default();
    for n in names {
        out.entry(versioned_base(n).unwrap_or(n))
            .or_default()
            .push(n);
    }
    out
}

/// Where `abi` declares the function `f` (`header:line`).
fn function_place(abi: &Abi, f: &Function) -> String {
    abi.location(f.header.as_deref(), f.line)
}

impl<'a> Differ<'a> {
    fn push(&mut self, c: Change) {
        self.out.changes.push(c);
    }

    fn same_type(&self, a: &AbiType, b: &AbiType) -> Same {
        if a.c_text == b.c_text && !is_anonymous(&a.c_text) {
            return Same::Yes;
        }
        if canonical(self.old, &a.c) == canonical(self.new, &b.c) {
            Same::Spelling
        } else {
            Same::No
        }
    }

    /// Records the pair of a removed `name` of `kind`: the member of its `_vN` family in
    /// `family` (one with the same signature `key` first, then the family's base name), or
    /// `None` when it has none.
    fn family_pair(
        &mut self,
        kind: ItemKind,
        name: &str,
        family: &HashMap<&str, Vec<&str>>,
        same: impl Fn(&str) -> bool,
    ) -> Option<(String, bool)> {
        let place = |abi: &Abi, n: &str| -> String {
            let at = |h: &Option<String>, l: u32| abi.location(h.as_deref(), l);
            if let Some(f) = abi.functions.get(n) {
                at(&f.header, f.line)
            } else if let Some(r) = abi.records.get(n) {
                at(&r.header, r.line)
            } else if let Some(e) = abi.enums.get(n) {
                at(&e.header, e.line)
            } else {
                String::new()
            }
        };
        let base = versioned_base(name).unwrap_or(name);
        let members = family.get(base)?;
        let pick = members
            .iter()
            .find(|m| **m != name && same(m))
            .map(|m| (*m, true))
            .or_else(|| members.iter().find(|m| **m == base).map(|m| (*m, false)))
            .or_else(|| members.iter().find(|m| **m != name).map(|m| (*m, false)))?;
        let evidence = if pick.1 {
            "_vN family, same C declaration"
        } else {
            "_vN family, another C declaration"
        };
        self.out.renamed.push(Rename {
            kind,
            old_name: name.to_string(),
            new_name: pick.0.to_string(),
            similarity: (similarity(name, pick.0) * 1000.0).round() / 1000.0,
            evidence: evidence.to_string(),
            old_source: place(self.old, name),
            new_source: place(self.new, pick.0),
        });
        Some((pick.0.to_string(), pick.1))
    }

    // --- functions ---------------------------------------------------------------------

    /// Every name C code can call, with the function it stands for.
    fn callable(abi: &'a Abi) -> IndexMap<&'a str, &'a Function> {
        let mut out: IndexMap<&str, &Function> = IndexMap::new();
        for f in abi.functions.values() {
            out.insert(f.name.as_str(), f);
        }
        for (name, symbol) in &abi.renames {
            if let Some(f) = abi.functions.get(symbol) {
                out.insert(name.as_str(), f);
            }
        }
        out
    }

    fn functions(&mut self) {
        let (old, new) = (Self::callable(self.old), Self::callable(self.new));
        let mut removed: Vec<(&str, &Function)> = Vec::new();
        for (&name, &fo) in &old {
            match new.get(name) {
                Some(&fn_) => self.shared_function(name, fo, fn_),
                None => removed.push((name, fo)),
            }
        }
        let added: Vec<(&str, &Function)> = new
            .iter()
            .filter(|(n, _)| !old.contains_key(*n))
            .map(|(n, f)| (*n, *f))
            .collect();
        let (unpaired, mut pending) = self.removed_functions(&new, removed);
        self.renamed_functions(&unpaired, &added, &mut pending);
        for c in pending {
            self.push(c);
        }
        for (name, f) in added {
            self.push(Change {
                new: Some(cdecl::function(f, name)),
                new_source: Some(function_place(self.new, f)),
                ..entry(ItemKind::Function, name, ChangeKind::Added, Impact::Info)
            });
        }
    }

    /// Compares a name both sides can call: the symbol it stands for, and its signature.
    fn shared_function(&mut self, name: &str, fo: &Function, fn_: &Function) {
        let base = Change {
            old_source: Some(function_place(self.old, fo)),
            new_source: Some(function_place(self.new, fn_)),
            ..entry(
                ItemKind::Function,
                name,
                ChangeKind::SignatureChanged,
                Impact::Break,
            )
        };
        if fo.name != fn_.name {
            self.push(Change {
                change: ChangeKind::SymbolChanged,
                impact: Impact::Info,
                old: Some(fo.name.clone()),
                new: Some(fn_.name.clone()),
                reason: Some(format!(
                    "`{name}` now stands for the symbol `{}` (a `#define` added or dropped): C source calling `{name}` compiles as before",
                    fn_.name
                )),
                ..base.clone()
            });
        }
        self.signature(name, fo, fn_, base);
    }

    /// The removals of the names only the old side can call (`new` is what the new side can
    /// call). One whose `_vN` family on the new side stands for it is reported at once,
    /// paired; the others are returned, with their names and signature keys, for
    /// [`Self::renamed_functions`].
    fn removed_functions<'r>(
        &mut self,
        new: &IndexMap<&str, &Function>,
        removed: Vec<(&'r str, &Function)>,
    ) -> (Vec<(&'r str, String)>, Vec<Change>) {
        let new_abi = self.new;
        let family = families(new.keys().copied());
        let mut unpaired: Vec<(&str, String)> = Vec::new();
        let mut pending: Vec<Change> = Vec::new();
        for (name, fo) in removed {
            let key = signature_key(self.old, fo);
            let same = |m: &str| new.get(m).is_some_and(|f| signature_key(new_abi, f) == key);
            let pair = self.family_pair(ItemKind::Function, name, &family, same);
            let mut c = Change {
                old: Some(cdecl::function(fo, name)),
                old_source: Some(function_place(self.old, fo)),
                ..entry(ItemKind::Function, name, ChangeKind::Removed, Impact::Break)
            };
            match pair {
                Some((to, same)) => {
                    c.reason = Some(if same {
                        format!("removed; `{to}` has the same C declaration: call it instead")
                    } else {
                        format!("removed; `{to}` of the same family stands for it, with another C declaration")
                    });
                    c.paired_with = Some(to);
                    self.push(c);
                }
                None => {
                    unpaired.push((name, key));
                    pending.push(c);
                }
            }
        }
        (unpaired, pending)
    }

    /// Pairs the `unpaired` removed names (their removals `pending`) with `added` names of the
    /// same C declaration and a similar name: a rename each, and the removal's reason.
    fn renamed_functions(
        &mut self,
        unpaired: &[(&str, String)],
        added: &[(&str, &Function)],
        pending: &mut [Change],
    ) {
        let added_keys: Vec<(&str, String)> = added
            .iter()
            .map(|(n, f)| (*n, signature_key(self.new, f)))
            .collect();
        let pairs = pair_similar(
            unpaired,
            &added_keys,
            |(_, key)| Some(key.clone()),
            |(n, _)| n,
            RENAME_THRESHOLD,
        );
        for (i, j, s) in pairs {
            let (from, to) = (unpaired[i].0, added[j].0);
            self.out.renamed.push(Rename {
                kind: ItemKind::Function,
                old_name: from.to_string(),
                new_name: to.to_string(),
                similarity: (s * 1000.0).round() / 1000.0,
                evidence: "same C declaration, similar name".into(),
                old_source: pending[i].old_source.clone().unwrap_or_default(),
                new_source: function_place(self.new, added[j].1),
            });
            pending[i].reason = Some(format!(
                "removed; `{to}` (added) has the same C declaration and a similar name: renamed-looking"
            ));
            pending[i].paired_with = Some(to.to_string());
        }
    }

    /// Compares the signatures of a name both sides declare.
    fn signature(&mut self, name: &str, fo: &Function, fn_: &Function, base: Change) {
        let mut differs: Vec<String> = Vec::new();
        let mut spelling = false;
        let (a, b) = (&fo.params, &fn_.params);
        if a.len() != b.len() {
            differs.push(format!("{} → {} parameters", a.len(), b.len()));
        }
        for (i, (p, q)) in a.iter().zip(b).enumerate() {
            match self.same_type(&p.ty, &q.ty) {
                Same::Yes => {}
                Same::Spelling => spelling = true,
                Same::No => differs.push(format!(
                    "parameter {}: `{}` → `{}`",
                    i + 1,
                    cdecl::declare(&p.ty, p.c_name()),
                    cdecl::declare(&q.ty, q.c_name())
                )),
            }
        }
        if a.len() != b.len() {
            let tail = |list: &[crate::abi::Param]| -> Vec<String> {
                list.iter()
                    .skip(a.len().min(b.len()))
                    .map(|p| format!("`{}`", cdecl::declare(&p.ty, p.c_name())))
                    .collect()
            };
            if a.len() < b.len() {
                differs.push(format!("added {}", tail(b).join(", ")));
            } else {
                differs.push(format!("removed {}", tail(a).join(", ")));
            }
        }
        match self.same_type(&fo.ret, &fn_.ret) {
            Same::Yes => {}
            Same::Spelling => spelling = true,
            Same::No => differs.push(format!(
                "returns `{}` → `{}`",
                fo.ret.c_text, fn_.ret.c_text
            )),
        }
        let old_c = cdecl::function(fo, name);
        let new_c = cdecl::function(fn_, name);
        if !differs.is_empty() {
            self.push(Change {
                part: Some(differs.join("; ")),
                old: Some(old_c),
                new: Some(new_c),
                ..base
            });
            return;
        }
        if spelling {
            self.push(Change {
                change: ChangeKind::TypeSpelling,
                impact: Impact::Info,
                old: Some(old_c.clone()),
                new: Some(new_c.clone()),
                reason: Some("the same C types, spelled through other typedefs".into()),
                ..base.clone()
            });
        }
        let renamed: Vec<(&str, &str)> = a
            .iter()
            .zip(b)
            .filter(|(p, q)| p.c_name() != q.c_name())
            .map(|(p, q)| (p.c_name(), q.c_name()))
            .collect();
        if !renamed.is_empty() {
            self.push(Change {
                change: ChangeKind::ParamRenamed,
                impact: Impact::Info,
                part: Some(
                    renamed
                        .iter()
                        .map(|(o, _)| *o)
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                old: Some(
                    renamed
                        .iter()
                        .map(|(o, _)| *o)
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                new: Some(
                    renamed
                        .iter()
                        .map(|(_, n)| *n)
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                reason: Some("parameter names are not part of C compatibility".into()),
                ..base
            });
        }
    }

    // --- records -----------------------------------------------------------------------

    fn records(&mut self) {
        let top = |abi: &'a Abi| -> Vec<&'a Record> {
            abi.records
                .values()
                .filter(|r| r.parent.is_none() && !is_anonymous(&r.name))
                .collect()
        };
        let (old, new) = (top(self.old), top(self.new));
        let new_names: HashSet<&str> = new.iter().map(|r| r.name.as_str()).collect();
        let old_names: HashSet<&str> = old.iter().map(|r| r.name.as_str()).collect();
        let family = families(new.iter().map(|r| r.name.as_str()));
        let place = |abi: &Abi, r: &Record| abi.location(r.header.as_deref(), r.line);
        for ro in &old {
            let Some(rn) = self
                .new
                .records
                .get(&ro.name)
                .filter(|_| new_names.contains(ro.name.as_str()))
            else {
                let layout_of = |abi: &Abi, name: &str| {
                    abi.records
                        .get(name)
                        .map(|r| (r.size, r.align, r.fields.len()))
                };
                let same =
                    |m: &str| layout_of(self.new, m) == Some((ro.size, ro.align, ro.fields.len()));
                let pair = self.family_pair(ItemKind::Struct, &ro.name, &family, same);
                let mut c = Change {
                    old: Some(cdecl::record(ro)),
                    old_source: Some(place(self.old, ro)),
                    ..entry(
                        ItemKind::Struct,
                        &ro.name,
                        ChangeKind::Removed,
                        Impact::Break,
                    )
                };
                if let Some((to, _)) = pair {
                    c.reason = Some(format!("removed; `{to}` of the same family stands for it"));
                    c.paired_with = Some(to);
                }
                self.push(c);
                continue;
            };
            self.record(ro, rn);
        }
        for rn in new.iter().filter(|r| !old_names.contains(r.name.as_str())) {
            self.push(Change {
                new: Some(cdecl::record(rn)),
                new_source: Some(place(self.new, rn)),
                ..entry(ItemKind::Struct, &rn.name, ChangeKind::Added, Impact::Info)
            });
        }
    }

    /// bindgen's anonymous types (`cudaResourceDesc__bindgen_ty_1`) compared by the names
    /// bindgen gave them, every difference `info` with the reason: C code names no such type,
    /// their fields are compared through their parents', and bindgen's positional names shift
    /// when an anonymous type is inserted before them.
    fn anonymous_records(&mut self) {
        let anonymous = |r: &&Record| r.parent.is_some() || is_anonymous(&r.name);
        let reason = |r: &Record| {
            let parent = r.parent.clone().unwrap_or_else(|| {
                r.name
                    .split("__bindgen_ty_")
                    .next()
                    .unwrap_or(&r.name)
                    .to_string()
            });
            format!(
                "bindgen's positional name for an anonymous type inside `{parent}`: C code names no such type, and its fields are compared as `{parent}`'s (see that entry)"
            )
        };
        for ro in self.old.records.values().filter(anonymous) {
            let start = self.out.changes.len();
            match self.new.records.get(&ro.name) {
                Some(rn) => self.record(ro, rn),
                None => self.push(Change {
                    old: Some(cdecl::record(ro)),
                    old_source: Some(self.old.location(ro.header.as_deref(), ro.line)),
                    ..entry(
                        ItemKind::Struct,
                        &ro.name,
                        ChangeKind::Removed,
                        Impact::Info,
                    )
                }),
            }
            let why = reason(ro);
            for c in &mut self.out.changes[start..] {
                c.impact = Impact::Info;
                c.reason = Some(why.clone());
            }
        }
        for rn in self.new.records.values().filter(anonymous) {
            if !self.old.records.contains_key(&rn.name) {
                self.push(Change {
                    new: Some(cdecl::record(rn)),
                    new_source: Some(self.new.location(rn.header.as_deref(), rn.line)),
                    reason: Some(reason(rn)),
                    ..entry(ItemKind::Struct, &rn.name, ChangeKind::Added, Impact::Info)
                });
            }
        }
    }

    /// Compares record `ro` of the old ABI with record `rn` of the same name in the new one:
    /// kind, opacity, size, alignment, then field by field.
    fn record(&mut self, ro: &Record, rn: &Record) {
        let base = Change {
            old: Some(cdecl::record(ro)),
            new: Some(cdecl::record(rn)),
            old_source: Some(self.old.location(ro.header.as_deref(), ro.line)),
            new_source: Some(self.new.location(rn.header.as_deref(), rn.line)),
            ..entry(
                ItemKind::Struct,
                &ro.name,
                ChangeKind::SizeChanged,
                Impact::Break,
            )
        };
        if ro.kind != rn.kind {
            let k = |r: &Record| {
                if r.kind == RecordKind::Struct {
                    "struct"
                } else {
                    "union"
                }
            };
            self.push(Change {
                change: ChangeKind::RecordKindChanged,
                old: Some(k(ro).into()),
                new: Some(k(rn).into()),
                ..base.clone()
            });
        }
        match (ro.opaque, rn.opaque) {
            (true, false) => {
                return self.push(Change {
                    change: ChangeKind::OpacityChanged,
                    impact: Impact::Info,
                    reason: Some("now defined: old code could only hold pointers to it".into()),
                    ..base
                })
            }
            (false, true) => {
                return self.push(Change {
                    change: ChangeKind::OpacityChanged,
                    reason: Some(
                        "now opaque: code using its fields or size no longer compiles".into(),
                    ),
                    ..base
                })
            }
            (true, true) => return,
            (false, false) => {}
        }
        self.record_layout(ro, rn, &base);
        self.record_fields(ro, rn, &base);
    }

    /// A change of size or alignment between two defined records (`base`: the record's
    /// change, whose kind is [`ChangeKind::SizeChanged`]).
    fn record_layout(&mut self, ro: &Record, rn: &Record, base: &Change) {
        if let (Some(a), Some(b)) = (ro.size, rn.size) {
            if a != b {
                self.push(Change {
                    old: Some(format!("{a} bytes")),
                    new: Some(format!("{b} bytes")),
                    ..base.clone()
                });
            }
        }
        if let (Some(a), Some(b)) = (ro.align, rn.align) {
            if a != b {
                self.push(Change {
                    change: ChangeKind::AlignmentChanged,
                    old: Some(format!("align {a}")),
                    new: Some(format!("align {b}")),
                    ..base.clone()
                });
            }
        }
    }

    /// The fields of two defined records compared by path (anonymous members flattened):
    /// removed, retyped, moved, added.
    fn record_fields(&mut self, ro: &Record, rn: &Record, base: &Change) {
        let (mut fo, mut fnv) = (IndexMap::new(), IndexMap::new());
        flatten(self.old, ro, "", Some(0), 0, &mut fo);
        flatten(self.new, rn, "", Some(0), 0, &mut fnv);
        for (path, a) in &fo {
            self.field(path, a, fnv.get(path), base);
        }
        for (path, b) in fnv.iter().filter(|(p, _)| !fo.contains_key(*p)) {
            self.push(Change {
                change: ChangeKind::FieldAdded,
                impact: Impact::Info,
                part: Some(path.clone()),
                old: None,
                new: Some(field_text(self.new, b, path)),
                reason: Some("a new field: old code does not name it".into()),
                ..base.clone()
            });
        }
    }

    /// Old field `a` at `path` against the new record's field at the same path, `b` (none:
    /// removed). A reserved field's differences are `info`: old code does not name it.
    fn field(&mut self, path: &str, a: &FieldView<'_>, b: Option<&FieldView<'_>>, base: &Change) {
        let field_base = Change {
            part: Some(path.to_string()),
            old: Some(field_text(self.old, a, path)),
            ..base.clone()
        };
        let reserved = is_reserved(path);
        let impact = if reserved {
            Impact::Info
        } else {
            Impact::Break
        };
        let reason = reserved.then(|| "reserved storage: old code does not name it".to_string());
        let Some(b) = b else {
            return self.push(Change {
                change: ChangeKind::FieldRemoved,
                impact,
                reason,
                new: None,
                ..field_base
            });
        };
        let new_text = Some(field_text(self.new, b, path));
        if !a.anonymous_type && !b.anonymous_type {
            match self.same_type(a.ty, b.ty) {
                Same::Yes => {}
                Same::Spelling => self.push(Change {
                    change: ChangeKind::TypeSpelling,
                    impact: Impact::Info,
                    new: new_text.clone(),
                    reason: Some("the same C type, spelled through another typedef".into()),
                    ..field_base.clone()
                }),
                Same::No => self.push(Change {
                    change: ChangeKind::FieldRetyped,
                    impact,
                    new: new_text.clone(),
                    reason: reason.clone(),
                    ..field_base.clone()
                }),
            }
        }
        if let (Some(x), Some(y)) = (a.offset, b.offset) {
            if x != y {
                self.push(Change {
                    change: ChangeKind::FieldMoved,
                    impact,
                    new: new_text,
                    reason,
                    ..field_base
                });
            }
        }
    }

    // --- enums -------------------------------------------------------------------------

    fn enums(&mut self) {
        let family = families(self.new.enums.keys().map(String::as_str));
        for eo in self.old.enums.values().filter(|e| !is_anonymous(&e.name)) {
            let place_old = self.old.location(eo.header.as_deref(), eo.line);
            let summary =
                |e: &crate::abi::Enum| format!("enum {} ({} members)", e.name, e.values.len());
            let Some(en) = self.new.enums.get(&eo.name) else {
                let pair = self.family_pair(ItemKind::Enum, &eo.name, &family, |_| false);
                let mut c = Change {
                    old: Some(summary(eo)),
                    old_source: Some(place_old),
                    ..entry(ItemKind::Enum, &eo.name, ChangeKind::Removed, Impact::Break)
                };
                if let Some((to, _)) = pair {
                    c.reason = Some(format!("removed; `{to}` of the same family stands for it"));
                    c.paired_with = Some(to);
                }
                self.push(c);
                continue;
            };
            let base = Change {
                old_source: Some(place_old),
                new_source: Some(self.new.location(en.header.as_deref(), en.line)),
                ..entry(
                    ItemKind::Enum,
                    &eo.name,
                    ChangeKind::MemberRemoved,
                    Impact::Break,
                )
            };
            let index = |e: &'a crate::abi::Enum| -> IndexMap<&'a str, i128> {
                e.values
                    .iter()
                    .map(|v| (v.name.as_str(), v.value))
                    .collect()
            };
            let (vo, vn) = (index(eo), index(en));
            let (max_old, max_new) = (vo.values().max(), vn.values().max());
            for (&m, &a) in &vo {
                let Some(&b) = vn.get(m) else {
                    self.push(Change {
                        part: Some(m.to_string()),
                        old: Some(format!("{m} = {a}")),
                        ..base.clone()
                    });
                    continue;
                };
                if a == b {
                    continue;
                }
                let sentinel = (m.ends_with("Max")
                    || m.ends_with("Count")
                    || m.ends_with("MAX")
                    || m.ends_with("COUNT"))
                    && Some(&a) == max_old
                    && Some(&b) == max_new
                    && b > a;
                self.push(Change {
                    change: ChangeKind::MemberRenumbered,
                    impact: if sentinel { Impact::Info } else { Impact::Break },
                    part: Some(m.to_string()),
                    old: Some(format!("{m} = {a}")),
                    new: Some(format!("{m} = {b}")),
                    reason: sentinel.then(|| "a count sentinel (the enum's largest value, named …Max/…Count) moved past new members: old code uses it as a bound of the values it knows, which it still bounds, and the library never takes it as an argument".to_string()),
                    ..base.clone()
                });
            }
            for (&m, &b) in vn.iter().filter(|(m, _)| !vo.contains_key(*m)) {
                self.push(Change {
                    change: ChangeKind::MemberAdded,
                    impact: Impact::Info,
                    part: Some(m.to_string()),
                    new: Some(format!("{m} = {b}")),
                    ..base.clone()
                });
            }
        }
        for en in self
            .new
            .enums
            .values()
            .filter(|e| !is_anonymous(&e.name) && !self.old.enums.contains_key(&e.name))
        {
            self.push(Change {
                new: Some(format!("enum {} ({} members)", en.name, en.values.len())),
                new_source: Some(self.new.location(en.header.as_deref(), en.line)),
                ..entry(ItemKind::Enum, &en.name, ChangeKind::Added, Impact::Info)
            });
        }
    }

    // --- typedefs, constants, aliases --------------------------------------------------

    fn typedefs(&mut self) {
        for to in self.old.typedefs.values() {
            let old_src = Some(self.old.location(to.header.as_deref(), to.line));
            let Some(tn) = self.new.typedefs.get(&to.name) else {
                self.push(Change {
                    old: Some(cdecl::typedef(to)),
                    old_source: old_src,
                    ..entry(
                        ItemKind::Typedef,
                        &to.name,
                        ChangeKind::Removed,
                        Impact::Break,
                    )
                });
                continue;
            };
            let base = Change {
                old: Some(cdecl::typedef(to)),
                new: Some(cdecl::typedef(tn)),
                old_source: old_src,
                new_source: Some(self.new.location(tn.header.as_deref(), tn.line)),
                ..entry(
                    ItemKind::Typedef,
                    &to.name,
                    ChangeKind::TypedefRetyped,
                    Impact::Break,
                )
            };
            match self.same_type(&to.ty, &tn.ty) {
                Same::Yes => {}
                Same::Spelling => self.push(Change {
                    change: ChangeKind::TypeSpelling,
                    impact: Impact::Info,
                    reason: Some("the same C type, spelled through another typedef".into()),
                    ..base.clone()
                }),
                Same::No => self.push(base.clone()),
            }
        }
        for tn in self
            .new
            .typedefs
            .values()
            .filter(|t| !self.old.typedefs.contains_key(&t.name))
        {
            self.push(Change {
                new: Some(cdecl::typedef(tn)),
                new_source: Some(self.new.location(tn.header.as_deref(), tn.line)),
                ..entry(ItemKind::Typedef, &tn.name, ChangeKind::Added, Impact::Info)
            });
        }
    }

    fn constants(&mut self) {
        let (code_old, code_new) = (release_code(self.old), release_code(self.new));
        for co in self.old.constants.values() {
            let old_src = Some(self.old.location(co.header.as_deref(), co.line));
            let Some(cn) = self.new.constants.get(&co.name) else {
                self.push(Change {
                    old: Some(cdecl::constant(co)),
                    old_source: old_src,
                    ..entry(
                        ItemKind::Constant,
                        &co.name,
                        ChangeKind::Removed,
                        Impact::Break,
                    )
                });
                continue;
            };
            if co.value == cn.value {
                continue;
            }
            let version = code_old == Some(co.value) && code_new == Some(cn.value);
            let mask = (co.name.ends_with("Mask") || co.name.ends_with("MASK"))
                && co.value >= 0
                && cn.value > co.value
                && co.value & cn.value == co.value;
            let reason = if version {
                Some(
                    "the release's own version number (each side's value encodes its release)"
                        .to_string(),
                )
            } else if mask {
                Some("a flag mask widened for new flags: the new value keeps every bit of the old one, so old code masking with it keeps every flag it knows".to_string())
            } else {
                None
            };
            self.push(Change {
                impact: if reason.is_some() {
                    Impact::Info
                } else {
                    Impact::Break
                },
                old: Some(cdecl::constant(co)),
                new: Some(cdecl::constant(cn)),
                old_source: old_src,
                new_source: Some(self.new.location(cn.header.as_deref(), cn.line)),
                reason,
                ..entry(
                    ItemKind::Constant,
                    &co.name,
                    ChangeKind::ValueChanged,
                    Impact::Break,
                )
            });
        }
        for cn in self
            .new
            .constants
            .values()
            .filter(|c| !self.old.constants.contains_key(&c.name))
        {
            self.push(Change {
                new: Some(cdecl::constant(cn)),
                new_source: Some(self.new.location(cn.header.as_deref(), cn.line)),
                ..entry(
                    ItemKind::Constant,
                    &cn.name,
                    ChangeKind::Added,
                    Impact::Info,
                )
            });
        }
    }

    fn aliases(&mut self) {
        let show = |n: &str, t: &str| format!("#define {n} {t}");
        for (name, to) in &self.old.macro_aliases {
            match self.new.macro_aliases.get(name) {
                None => self.push(Change {
                    old: Some(show(name, to)),
                    ..entry(ItemKind::Alias, name, ChangeKind::Removed, Impact::Break)
                }),
                Some(tn) if tn != to => self.push(Change {
                    old: Some(show(name, to)),
                    new: Some(show(name, tn)),
                    ..entry(
                        ItemKind::Alias,
                        name,
                        ChangeKind::AliasTargetChanged,
                        Impact::Break,
                    )
                }),
                Some(_) => {}
            }
        }
        for (name, tn) in self
            .new
            .macro_aliases
            .iter()
            .filter(|(n, _)| !self.old.macro_aliases.contains_key(*n))
        {
            self.push(Change {
                new: Some(show(name, tn)),
                ..entry(ItemKind::Alias, name, ChangeKind::Added, Impact::Info)
            });
        }
    }

    // --- deprecation -------------------------------------------------------------------

    /// Where a name is declared in `abi`: its kind, the item holding it and, for an
    /// enumerator, the member.
    fn locate(
        abi: &'a Abi,
        members: &HashMap<&'a str, &'a str>,
        name: &'a str,
    ) -> Option<(ItemKind, &'a str, Option<&'a str>, String)> {
        let at = |h: &Option<String>, l: u32| abi.location(h.as_deref(), l);
        if let Some(f) = abi.functions.get(name) {
            Some((ItemKind::Function, name, None, at(&f.header, f.line)))
        } else if let Some(r) = abi.records.get(name) {
            Some((ItemKind::Struct, name, None, at(&r.header, r.line)))
        } else if let Some(e) = abi.enums.get(name) {
            Some((ItemKind::Enum, name, None, at(&e.header, e.line)))
        } else if let Some(t) = abi.typedefs.get(name) {
            Some((ItemKind::Typedef, name, None, at(&t.header, t.line)))
        } else if let Some(e) = members.get(name) {
            let place = abi
                .enums
                .get(*e)
                .map_or_else(String::new, |x| at(&x.header, x.line));
            Some((ItemKind::Enum, e, Some(name), place))
        } else if let Some(c) = abi.constants.get(name) {
            Some((ItemKind::Constant, name, None, at(&c.header, c.line)))
        } else {
            None
        }
    }

    fn deprecations(&mut self) {
        let members = |abi: &'a Abi| -> HashMap<&'a str, &'a str> {
            abi.enums
                .values()
                .flat_map(|e| {
                    e.values
                        .iter()
                        .map(move |v| (v.name.as_str(), e.name.as_str()))
                })
                .collect()
        };
        let (mo, mn) = (members(self.old), members(self.new));
        for (name, how) in &self.new.deprecated {
            if self.old.deprecated.contains_key(name) {
                continue;
            }
            // Only items both sides declare: a new item that arrives deprecated is an addition.
            let (Some((.., old_place)), Some((kind, item, part, new_place))) = (
                Self::locate(self.old, &mo, name),
                Self::locate(self.new, &mn, name),
            ) else {
                continue;
            };
            let how = match how {
                crate::abi::Deprecation::Attribute => {
                    "`__CUDA_DEPRECATED` on the declaration: compilers warn at every use"
                }
                crate::abi::Deprecation::Comment => {
                    "a `\\deprecated` paragraph in the header's comment"
                }
            };
            self.push(Change {
                part: part.map(String::from),
                reason: Some(how.to_string()),
                old_source: Some(old_place),
                new_source: Some(new_place),
                ..entry(kind, item, ChangeKind::Deprecated, Impact::Deprecated)
            });
        }
        for name in self.old.deprecated.keys() {
            if self.new.deprecated.contains_key(name) {
                continue;
            }
            let (Some((.., old_place)), Some((kind, item, part, new_place))) = (
                Self::locate(self.old, &mo, name),
                Self::locate(self.new, &mn, name),
            ) else {
                continue;
            };
            self.push(Change {
                part: part.map(String::from),
                reason: Some("no longer marked deprecated".into()),
                old_source: Some(old_place),
                new_source: Some(new_place),
                ..entry(kind, item, ChangeKind::Undeprecated, Impact::Info)
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_reserved;

    #[test]
    fn reserved_storage_by_name() {
        for yes in [
            "reserved",
            "reserved0",
            "reserved_2",
            "res.reserved",
            "pad",
            "padding1",
            "_oversize",
            "_bitfield_1",
        ] {
            assert!(is_reserved(yes), "{yes}");
        }
        for no in [
            "reservedSharedMemPerBlock",
            "padded",
            "paddingBytes",
            "flags",
        ] {
            assert!(!is_reserved(no), "{no}");
        }
    }
}
