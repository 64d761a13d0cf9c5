//! The reviewed rule for strings the runtime hands back (a returned `const char*`, or a
//! `const char**` output): how long they live.
//!
//! A string is `&'static CStr` only where a rule of [`STATIC`] says it lives for the process
//! (with the reason); every other one is copied into an owned `CString` right after the call,
//! because it may belong to an object that goes away (`cudaFuncGetName`'s name dangles once
//! its module is unloaded). The decision is the model's ([`super::StrLifetime`]); each
//! application is listed by `cargo xtask codegen --list-unbound`.

use serde::{Deserialize, Serialize};

use super::BoundFunction;

/// How long a string the runtime hands back lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StrLifetime {
    /// For the process (a rule of this module says so): `&'static CStr`.
    Static,
    /// Not stated: copied into a `CString` right after the call.
    Copied,
}

/// A function whose returned strings live for the process, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticString {
    pub function: &'static str,
    pub reason: &'static str,
}

const ERROR_TABLE: &str = "the documentation returns a pointer to a NUL-terminated string \
                           of the runtime's fixed table of error codes (\"unrecognized error \
                           code\" for an unknown one), and the typed layer calls the \
                           process-wide library, which is never unloaded";

/// The functions whose strings live for the process.
pub const STATIC: &[StaticString] = &[
    StaticString {
        function: "cudaGetErrorName",
        reason: ERROR_TABLE,
    },
    StaticString {
        function: "cudaGetErrorString",
        reason: ERROR_TABLE,
    },
    StaticString {
        function: "nvrtcGetErrorString",
        reason:
            "NVRTC's header documents a message string for each `nvrtcResult` code (\"NVRTC_ERROR \
                 unknown\" for an unrecognised one), a literal of the library, and the typed \
                 layer calls the process-wide library, which is never unloaded",
    },
];

/// The rule that makes the strings of `name` static, if any.
pub fn rule_for(name: &str) -> Option<&'static StaticString> {
    STATIC.iter().find(|s| s.function == name)
}

/// How long the strings `f` hands back live.
pub fn lifetime(f: &BoundFunction) -> StrLifetime {
    if rule_for(&f.name).is_some() {
        StrLifetime::Static
    } else {
        StrLifetime::Copied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_error_names_and_strings_are_static() {
        assert!(rule_for("cudaGetErrorName").is_some());
        assert!(rule_for("cudaGetErrorString").is_some());
        assert!(rule_for("nvrtcGetErrorString").is_some());
        assert!(rule_for("nvrtcGetLoweredName").is_none());
        assert!(rule_for("cudaFuncGetName").is_none());
        assert!(rule_for("cudaKernelGetName").is_none());
    }
}
