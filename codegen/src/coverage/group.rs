//! Naming patterns of exported-but-undocumented entry points: internal `__cuda…` hooks,
//! per-thread default-stream variants (`…_ptsz`, `…_ptds`) and versioned entry points
//! (`…_v2`, `…_vN`). These are shapes of names, not lists of names; this module decides
//! nothing about whether a name is documented.

use super::Class;

/// The undocumented class of an exported name that the documentation does not describe.
pub fn undocumented_class(name: &str) -> Class {
    if name.starts_with("__cuda") {
        Class::UndocumentedInternal
    } else if per_thread_base(name).is_some() {
        Class::UndocumentedPerThread
    } else if versioned_base(name).is_some() {
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

/// The names `name` may be a variant of, nearest first: `f_v2_ptsz` → `f_v2`, `f`.
pub fn bases(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut current = name;
    while let Some(base) = per_thread_base(current).or_else(|| versioned_base(current)) {
        out.push(base);
        current = base;
    }
    out
}
