//! Integer constants: grouped by name prefix into `bitflags` 2 types where the group's values
//! are flags, and emitted as plain C-named constants too (the raw layer keeps every name).
//!
//! Grouping reads only names and values, in documentation order: a run of constants sharing a
//! camel-case prefix longer than `cuda`, with strictly increasing values (an equal value is
//! allowed for a member documented as deprecated: an old name of the same bit), is a flag
//! group when every value is 0, a power of two, or a mask of all bits below a power of two.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::docs::{self, DocProblems};
use super::names::{common_word_prefix, ident, member_names, Names, SYS};
use crate::bind::BoundConstant;

/// A group of constants emitted as one `bitflags` type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagGroup {
    /// Rust type name (`HostAllocFlags`).
    pub name: String,
    /// The shared C prefix (`cudaHostAlloc`).
    pub prefix: String,
    /// The bits' Rust integer type (`u32`).
    pub bits: String,
    /// (C name, Rust flag name, value) in documentation order.
    pub members: Vec<(String, String, i64)>,
}

/// Groups `constants` into flag types (see the module docs).
pub fn groups(constants: &[BoundConstant]) -> Vec<FlagGroup> {
    let mut runs: Vec<Vec<&BoundConstant>> = Vec::new();
    for k in constants {
        let extend = runs.last().is_some_and(|run| {
            let mut names: Vec<&str> = run.iter().map(|c| c.name.as_str()).collect();
            names.push(&k.name);
            let prefix = common_word_prefix(&names);
            let last = run.last().map_or(0, |c| c.value);
            let deprecated_alias =
                k.value == last && k.doc.to_ascii_lowercase().contains("deprecated");
            prefix.len() > "cuda".len()
                && prefix.starts_with("cuda")
                && (k.value > last || deprecated_alias)
                && run[0].rust_type == k.rust_type
                && run[0].section == k.section
        });
        if extend {
            if let Some(run) = runs.last_mut() {
                run.push(k);
            }
        } else {
            runs.push(vec![k]);
        }
    }
    let mut out: Vec<FlagGroup> = Vec::new();
    for run in runs {
        let is_flag = |v: i64| v == 0 || (v > 0 && (v & (v - 1) == 0 || (v + 1) & v == 0));
        if run.len() < 2
            || !run.iter().all(|c| is_flag(c.value))
            || run.iter().all(|c| c.value == 0)
        {
            continue;
        }
        let names: Vec<&str> = run.iter().map(|c| c.name.as_str()).collect();
        let prefix = common_word_prefix(&names);
        let name = format!("{}Flags", prefix.trim_start_matches("cuda"));
        if out.iter().any(|g| g.name == name) {
            continue;
        }
        let rust = member_names(&names);
        out.push(FlagGroup {
            name,
            prefix,
            bits: run[0].rust_type.clone(),
            members: run
                .iter()
                .zip(rust)
                .map(|(c, r)| (c.name.clone(), r, c.value))
                .collect(),
        });
    }
    out
}

/// Registers intra-doc link targets for flag members (`cudaHostAllocMapped` →
/// `HostAllocFlags::MAPPED`).
pub fn register_links(groups: &[FlagGroup], names: &mut Names) {
    for g in groups {
        for (c, r, _) in &g.members {
            names.link(c, format!("{SYS}::{}::{r}", g.name));
        }
    }
}

/// The `flags.rs` file body: one `bitflags` type per group.
pub fn emit(
    groups: &[FlagGroup],
    constants: &[BoundConstant],
    names: &Names,
    problems: &mut DocProblems,
) -> TokenStream {
    let items = groups.iter().map(|g| {
        let ty = ident(&g.name);
        let bits = ident(&g.bits);
        let doc = docs::attrs(&format!(
            "Flags `{}*`, grouped from the documentation's constants of that prefix.\n\nValues that come back from C keep unknown bits: use [`Self::from_bits_retain`].",
            g.prefix
        ));
        let flags = g.members.iter().map(|(c, r, v)| {
            let id = ident(r);
            let text = constants.iter().find(|k| &k.name == c).map(|k| k.doc.as_str()).unwrap_or("");
            let md = docs::markdown(text, names, c, problems);
            let d = docs::attrs(&md);
            let v = Literal::i64_unsuffixed(*v);
            quote! { #d #[doc(alias = #c)] const #id = #v; }
        });
        quote! {
            bitflags::bitflags! {
                #doc
                #[repr(transparent)]
                #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
                pub struct #ty: #bits {
                    #(#flags)*
                }
            }
        }
    });
    quote! { #(#items)* }
}

/// The `constants.rs` file body: every bound constant under its C name.
pub fn emit_constants(
    constants: &[BoundConstant],
    names: &Names,
    problems: &mut DocProblems,
) -> TokenStream {
    let items = constants.iter().map(|k| {
        let id = ident(&k.name);
        let ty: syn::Type = syn::parse_str(&k.rust_type).unwrap_or_else(|_| syn::parse_quote!(i64));
        let v = Literal::i64_unsuffixed(k.value);
        let mut md = docs::markdown(&k.doc, names, &k.name, problems);
        if let Some(p) = names
            .path(&k.name)
            .filter(|p| !p.ends_with(&format!("::{}", k.name)))
        {
            md.push_str(&format!(
                "\n\nAlso available as the flag [`{}`]({p}).",
                p.rsplit("::").next().unwrap_or(p)
            ));
        }
        let d = docs::attrs(&md);
        quote! { #d pub const #id: #ty = #v as #ty; }
    });
    quote! { #(#items)* }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Source;

    fn k(name: &str, value: i64, doc: &str) -> BoundConstant {
        BoundConstant {
            name: name.into(),
            value,
            rust_type: "u32".into(),
            doc: doc.into(),
            section: None,
            source: Source::new("t", 1),
        }
    }

    #[test]
    fn groups_by_prefix_and_value_order() {
        let ks = vec![
            k("cudaHostAllocDefault", 0, ""),
            k("cudaHostAllocPortable", 1, ""),
            k("cudaHostAllocMapped", 2, ""),
            k("cudaHostRegisterDefault", 0, ""),
            k("cudaHostRegisterPortable", 1, ""),
            k("cudaStreamDefault", 0, ""),
            k("cudaStreamNonBlocking", 1, ""),
            k("cudaStreamLegacy", 1, "Legacy stream handle"),
            k("cudaStreamPerThread", 2, ""),
            k("cudaDeviceScheduleAuto", 0, ""),
            k("cudaDeviceScheduleSpin", 1, ""),
            k("cudaDeviceBlockingSync", 1, "[Deprecated]"),
            k("cudaDeviceMask", 255, ""),
            k("cudaCpuDeviceId", -1, ""),
        ];
        let g = groups(&ks);
        let names: Vec<&str> = g.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "HostAllocFlags",
                "HostRegisterFlags",
                "StreamFlags",
                "DeviceFlags"
            ]
        );
        assert_eq!(
            g[0].members
                .iter()
                .map(|m| m.1.as_str())
                .collect::<Vec<_>>(),
            vec!["DEFAULT", "PORTABLE", "MAPPED"]
        );
        // The stream handle constants are not flags of the stream-creation group.
        assert_eq!(g[2].members.len(), 2);
        assert_eq!(g[3].members.len(), 4);
    }
}
