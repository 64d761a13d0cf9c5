//! Flag groups: the documentation's integer constants grouped by name prefix into the
//! `bitflags` types the crate emits (`cudaHostAlloc*` → `HostAllocFlags`).
//!
//! Grouping reads only names and values, in documentation order: a run of constants sharing a
//! camel-case prefix longer than `cuda`, with strictly increasing values (an equal value is
//! allowed for a member documented as deprecated: an old name of the same bit), is a flag
//! group when every value is 0, a power of two, or a mask of all bits below a power of two.

use serde::{Deserialize, Serialize};

use super::naming::{common_word_prefix, member_names};
use super::BoundConstant;

/// A group of constants emitted as one `bitflags` type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

impl FlagGroup {
    /// Whether the C constant `name` is a member of this group.
    pub fn has_member(&self, name: &str) -> bool {
        self.members.iter().any(|(c, _, _)| c == name)
    }
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
            kind: Default::default(),
            from_macro: false,
            since: None,
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
