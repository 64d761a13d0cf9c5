//! Links the items of an [`Abi`] once all are read: bindgen's anonymous types to their
//! enclosing type, typedef names to the enum or record they stand for, typedef kinds (alias,
//! opaque handle, callback, pointer), and a warning for every name used but never declared.
//!
//! It does not read source text; it only looks at the model.

use std::collections::BTreeMap;

use super::{Abi, CType, TypedefKind};
use crate::diag::Diagnostics;

/// The marker bindgen puts in the names of anonymous nested types.
const ANON_MARKER: &str = "__bindgen_ty_";

/// Links `abi` in place; problems go to `diags`.
pub fn link(abi: &mut Abi, diags: &mut Diagnostics) {
    link_nested(abi, diags);
    classify_typedefs(abi);
    link_aliases(abi);
    report_undeclared(abi, diags);
}

/// The enclosing type of an anonymous type's name (`A__bindgen_ty_1__bindgen_ty_2` → `A__bindgen_ty_1`).
pub fn anonymous_parent(name: &str) -> Option<&str> {
    name.rfind(ANON_MARKER)
        .map(|at| &name[..at])
        .filter(|p| !p.is_empty())
}

fn link_nested(abi: &mut Abi, diags: &mut Diagnostics) {
    let names: Vec<String> = abi.records.keys().cloned().collect();
    for name in names {
        let Some(parent) = anonymous_parent(&name).map(str::to_string) else {
            continue;
        };
        let line = abi.records.get(&name).map_or(0, |r| r.line);
        match abi.records.get_mut(&parent) {
            Some(p) => p.nested.push(name.clone()),
            None => diags.warning(
                line,
                format!("anonymous type `{name}` has no enclosing `{parent}` in this release"),
            ),
        }
        if let Some(r) = abi.records.get_mut(&name) {
            r.parent = Some(parent);
        }
    }
}

fn classify_typedefs(abi: &mut Abi) {
    let opaque_or_undeclared = |name: &str, abi: &Abi| {
        abi.records.get(name).map_or(
            !abi.enums.contains_key(name) && !abi.typedefs.contains_key(name),
            |r| r.opaque,
        )
    };
    let kinds: Vec<(String, TypedefKind)> = abi
        .typedefs
        .values()
        .map(|t| {
            let kind = match &t.ty.c {
                CType::FnPtr { .. } => TypedefKind::Callback,
                CType::Pointer { to, .. } => match &**to {
                    CType::Named { name } if opaque_or_undeclared(name, abi) => TypedefKind::Handle,
                    CType::FnPtr { .. } => TypedefKind::Callback,
                    _ => TypedefKind::Pointer,
                },
                _ => TypedefKind::Alias,
            };
            (t.name.clone(), kind)
        })
        .collect();
    for (name, kind) in kinds {
        if let Some(t) = abi.typedefs.get_mut(&name) {
            t.kind = kind;
        }
    }
}

fn link_aliases(abi: &mut Abi) {
    let aliases: Vec<(String, String)> = abi
        .typedefs
        .values()
        .filter(|t| t.kind == TypedefKind::Alias && matches!(t.ty.c, CType::Named { .. }))
        .map(|t| (t.name.clone(), abi.resolve_alias(&t.name).to_string()))
        .collect();
    for (alias, target) in aliases {
        if let Some(e) = abi.enums.get_mut(&target) {
            e.aliases.push(alias);
        } else if let Some(r) = abi.records.get_mut(&target) {
            r.aliases.push(alias);
        }
    }
}

fn report_undeclared(abi: &Abi, diags: &mut Diagnostics) {
    let mut uses: BTreeMap<String, u32> = BTreeMap::new();
    let mut note = |ty: &CType, line: u32| {
        let mut names = Vec::new();
        ty.named(&mut names);
        for n in names {
            uses.entry(n).or_insert(line);
        }
    };
    for f in abi.functions.values() {
        for p in &f.params {
            note(&p.ty.c, f.line);
        }
        note(&f.ret.c, f.line);
    }
    for r in abi.records.values() {
        for fld in &r.fields {
            note(&fld.ty.c, fld.line);
        }
    }
    for t in abi.typedefs.values() {
        // A handle's pointee may legitimately be declared nowhere (a C incomplete type).
        if t.kind != TypedefKind::Handle {
            note(&t.ty.c, t.line);
        }
    }
    for (name, line) in uses {
        let declared = abi.records.contains_key(&name)
            || abi.enums.contains_key(&name)
            || abi.typedefs.contains_key(&name);
        if !declared {
            diags.warning(
                line,
                format!("type `{name}` is used but not declared for this release"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymous_parents() {
        assert_eq!(
            anonymous_parent("cudaResourceDesc__bindgen_ty_1"),
            Some("cudaResourceDesc")
        );
        assert_eq!(
            anonymous_parent("cudaResourceDesc__bindgen_ty_1__bindgen_ty_2"),
            Some("cudaResourceDesc__bindgen_ty_1")
        );
        assert_eq!(anonymous_parent("cudaResourceDesc"), None);
        assert_eq!(anonymous_parent("__bindgen_ty_1"), None);
    }
}
