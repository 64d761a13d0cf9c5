//! Naming patterns of exported-but-undocumented entry points: internal `__cuda…` hooks,
//! per-thread default-stream variants (`…_ptsz`, `…_ptds`) and versioned entry points
//! (`…_v2`, `…_vN`; and `__f_<major>_<minor>`, the entry point of one release that a header's
//! `static inline f` calls, as nvJitLink's do). These are shapes of names, not lists of names; this module decides
//! nothing about whether a name is documented.

use super::Class;

/// The undocumented class of an exported name that the documentation does not describe.
pub fn undocumented_class(name: &str) -> Class {
    if name.starts_with("__cuda") {
        Class::UndocumentedInternal
    } else if per_thread_base(name).is_some() {
        Class::UndocumentedPerThread
    } else if versioned_base(name).is_some() || release_base(name).is_some() {
        Class::UndocumentedVersioned
    } else {
        Class::UndocumentedOther
    }
}

/// `cudaMemcpy_ptds` → `cudaMemcpy`; `None` when `name` is not a per-thread variant.
pub fn per_thread_base(name: &str) -> Option<&str> {
    let base = name
        .strip_suffix("_ptsz")
        .or_else(|| name.strip_suffix("_ptds"))?;
    (!base.is_empty()).then_some(base)
}

/// `cudaLaunchHostFunc_v2` → `cudaLaunchHostFunc`; `None` unless `name` ends in `_v`
/// followed by digits.
pub fn versioned_base(name: &str) -> Option<&str> {
    let at = name.rfind("_v")?;
    let digits = &name[at + 2..];
    let base = &name[..at];
    (!base.is_empty() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then_some(base)
}

/// `__nvJitLinkCreate_13_5` → `nvJitLinkCreate`; `None` unless `name` is `__`, a base, and
/// `_<digits>_<digits>`.
pub fn release_base(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("__")?;
    let (head, minor) = rest.rsplit_once('_')?;
    let (base, major) = head.rsplit_once('_')?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    (!base.is_empty() && digits(major) && digits(minor)).then_some(base)
}

/// The names `name` may be a variant of, nearest first: `f_v2_ptsz` → `f_v2`, `f`.
pub fn bases(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut current = name;
    while let Some(base) = per_thread_base(current)
        .or_else(|| versioned_base(current))
        .or_else(|| release_base(current))
    {
        out.push(base);
        current = base;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_entry_points_name_their_function() {
        assert_eq!(
            release_base("__nvJitLinkCreate_13_5"),
            Some("nvJitLinkCreate")
        );
        assert_eq!(
            undocumented_class("__nvJitLinkGetLinkedLTOIR_13_0"),
            Class::UndocumentedVersioned
        );
        for other in [
            "nvJitLinkCreate_13_5",
            "__nvJitLinkAPI",
            "__f_13",
            "___1_2",
            "__f_1_x",
        ] {
            assert_eq!(release_base(other), None, "{other}");
        }
        assert_eq!(bases("__f_12_0"), ["f"]);
    }
}
