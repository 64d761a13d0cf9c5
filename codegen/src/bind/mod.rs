//! The bindings model: the documentation IR joined with the ABI, complete with every decision
//! the emitter needs, so that [`crate::emit`] only renders it.
//!
//! [`bind`] runs the steps in order: [`join`](mod@join) matches each documented function, enum, struct
//! and typedef to what the ABI declares for the same release, matches parameters by name
//! through the reviewed rules of [`crate::param_renames`], and compares what both sides state (enum values,
//! field order, parameter counts), reporting every disagreement as a diagnostic; [`flags`]
//! groups the constants into flag types; [`roles`] decides each function's typed wrapper (or
//! why it has none), with the Rust names of [`naming`], after [`directions`] has decided the
//! parameters whose direction the documentation does not state; [`storage`] proves that every
//! pointer a wrapper passes points to storage as large as C may access (or the pointer stays
//! raw and the wrapper `unsafe`), [`unsafe_rules`] makes the wrappers of functions that
//! invalidate what the safe layer owns `unsafe`, and [`strings`] decides which returned
//! strings are `'static`. Items only one side has are listed with the reason, never dropped
//! silently.

pub mod attrs;
pub mod directions;
pub mod flags;
pub mod join;
pub mod naming;
pub mod roles;
pub mod storage;
pub mod strings;
#[cfg(test)]
mod test_types;
pub mod unsafe_rules;

use serde::{Deserialize, Serialize};

use crate::abi::{self, AbiType};
use crate::diag::Diagnostic;
use crate::doctype::TypeRef;
use crate::ir::{Direction, Document, Release, Source};
use crate::since::{LayoutChange, Since};

/// The rule that paired a documented parameter with its C one ([`crate::param_renames`]).
pub use crate::param_renames::Rule;
pub use flags::FlagGroup;
pub use join::join;
pub use roles::{Role, Typed};
pub use strings::StrLifetime;
pub use unsafe_rules::UnsafeRuling;

use crate::abi::Abi;
use crate::ir::Api;

/// Joins `api` with `abi` and makes every decision the emitter needs: the complete model.
pub fn bind(api: &Api, abi: &Abi) -> Bindings {
    let mut b = join(api, abi);
    let integers: Vec<BoundConstant> = b
        .constants
        .iter()
        .filter(|k| k.kind == ConstantKind::Integer)
        .cloned()
        .collect();
    b.flag_groups = flags::groups(&integers);
    roles::resolve_all(&mut b);
    attrs::resolve(&mut b);
    b
}

/// Everything the emitter needs, for one CUDA release.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Bindings {
    /// The C library bound (from the ABI it was joined with).
    #[serde(default)]
    pub library: crate::library::Library,
    pub release: Option<Release>,
    /// The ABI source's description (`headers of nvidia-cuda-runtime 13.5.37 via bindgen 0.72.1, …`).
    pub abi_source: String,
    pub documents: Vec<Document>,
    /// Documented functions the ABI declares, in documentation order.
    pub functions: Vec<BoundFunction>,
    /// Structs and unions to emit: documented ones, and undocumented ones they need.
    pub records: Vec<BoundRecord>,
    /// Enums to emit.
    pub enums: Vec<BoundEnum>,
    /// Typedefs to emit (handles, callbacks, scalar aliases).
    pub typedefs: Vec<BoundTypedef>,
    /// Documented integer constants the ABI also declares.
    pub constants: Vec<BoundConstant>,
    /// Enums whose members state the type of their `void*` values.
    #[serde(default)]
    pub attr_enums: Vec<attrs::AttrEnum>,
    /// Typed wrappers that take such a member and its `void*` value.
    #[serde(default)]
    pub attr_accessors: Vec<attrs::AttrAccessor>,
    /// Documented inline helpers that build a record (emitted in the typed layer).
    #[serde(default)]
    pub constructors: Vec<Constructor>,
    /// The constants grouped into flag types.
    pub flag_groups: Vec<FlagGroup>,
    /// Documented items the ABI lacks, with the reason.
    pub unbound: Vec<Unbound>,
    /// ABI functions the documentation does not describe (bound too, without documentation).
    pub abi_only: Vec<String>,
    /// Every parameter matched by a rule other than an exact name.
    pub renamings: Vec<Renaming>,
    /// Every parameter whose unstated direction a rule of [`directions`] decided.
    #[serde(default)]
    pub direction_rulings: Vec<directions::Ruling>,
    /// Every disagreement and gap, with `file:line`.
    pub diagnostics: Vec<Diagnostic>,
    /// The text of the documentation's compile-option group (NVRTC's "Supported Compile
    /// Options", Doxygen group `options`), for the typed option builder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile_options: Option<String>,
}

/// A documented function bound to its C declaration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BoundFunction {
    pub name: String,
    pub section: Option<String>,
    /// The documentation text (RST).
    pub doc: String,
    pub see_also: Vec<String>,
    /// Status codes the documentation lists.
    pub errors: Vec<String>,
    /// C parameters in C order, each with what the docs say about it.
    pub params: Vec<BoundParam>,
    pub ret: AbiType,
    pub source: Source,
    /// The symbol the library exports for it: its name, or the versioned symbol the release's
    /// header renames it to (`cudaGetDeviceProperties_v2`).
    pub symbol: String,
    /// Whether a document describes it (`false`: only the ABI declares it).
    #[serde(default = "yes")]
    pub documented: bool,
    /// The typed wrapper, or why there is none (decided by [`roles::resolve_all`]).
    #[serde(default)]
    pub typed: Typed,
    /// The releases of the major that declare it ([`crate::availability`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Since>,
}

/// One C parameter and its documentation, when the docs describe it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BoundParam {
    /// The C name (bindgen's, keyword-escaped: `fn_`).
    pub c_name: String,
    pub ty: AbiType,
    /// The documented parameter it matched, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_name: Option<String>,
    /// In (signature) or out (`:returns:`), when documented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_type: Option<TypeRef>,
    pub doc: String,
}

/// A struct or union to emit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BoundRecord {
    /// The Rust name to emit (the ABI name; anonymous nested types get `Parent_field`).
    pub name: String,
    pub abi: abi::Record,
    /// Documentation text; `None` for undocumented records emitted because others use them.
    pub doc: Option<String>,
    /// Field documentation by field name.
    pub field_docs: Vec<(String, String)>,
    pub section: Option<String>,
    pub source: Option<Source>,
    /// The releases of the major that declare it ([`crate::availability`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Since>,
    /// Its size, alignment or field offsets changed between minors of the major.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layout_changes: Vec<LayoutChange>,
}

/// An enum to emit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BoundEnum {
    /// The Rust name to emit (the documented name when documented).
    pub name: String,
    /// Other names of the same C type, emitted as `pub type` aliases.
    pub aliases: Vec<String>,
    pub abi: abi::Enum,
    /// The Rust name of each member, in the order of `abi.values`
    /// ([`naming::member_names`]): decided once here, read by every emitter and table.
    pub member_names: Vec<String>,
    pub doc: Option<String>,
    /// Member documentation by C member name.
    pub member_docs: Vec<(String, String)>,
    pub section: Option<String>,
    pub source: Option<Source>,
    /// The releases of the major that declare it ([`crate::availability`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Since>,
    /// The same for each member, in the order of `abi.values` (empty before annotation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub member_since: Vec<Option<Since>>,
    /// The same for each of `aliases`, in order (empty before annotation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alias_since: Vec<Option<Since>>,
}

/// A typedef to emit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BoundTypedef {
    pub name: String,
    pub abi: abi::Typedef,
    pub doc: Option<String>,
    pub section: Option<String>,
    pub source: Option<Source>,
    /// The releases of the major that declare it ([`crate::availability`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Since>,
}

/// A documented integer constant with its ABI value.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BoundConstant {
    pub name: String,
    pub value: i64,
    /// The Rust type of the constant in the ABI (`u32`).
    pub rust_type: String,
    pub doc: String,
    pub section: Option<String>,
    pub source: Source,
    /// What the value is in Rust: a plain integer (the ABI declares it), or a C macro the
    /// documentation gives the value of and the headers a type for.
    #[serde(default)]
    pub kind: ConstantKind,
    /// The ABI holds it as a C macro only (its type read from the macro).
    #[serde(default)]
    pub from_macro: bool,
    /// The releases of the major that declare it ([`crate::availability`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Since>,
}

/// A documented inline helper of the C headers that builds a record from its fields in order
/// (`make_cudaExtent(w, h, d)`): not an exported symbol, emitted as a Rust function.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Constructor {
    /// The documented name (`make_cudaExtent`).
    pub name: String,
    /// The record it builds (`cudaExtent`).
    pub record: String,
    /// Per field, in order: the documented parameter name, the field name, the field's type
    /// and the parameter's documentation.
    pub params: Vec<(String, String, crate::abi::AbiType, String)>,
    pub doc: String,
    pub source: Source,
}

/// The Rust type of a constant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ConstantKind {
    /// An integer of type `rust_type`.
    #[default]
    Integer,
    /// A handle (`#define cudaStreamLegacy ((cudaStream_t)0x1)`): the handle type `ty` made
    /// from the value.
    Handle { ty: String },
    /// A second name of an enumerator (`#define cudaStreamAttributePriority
    /// cudaLaunchAttributePriority`): a value of the enum type `ty`.
    Enumerator { ty: String },
}

/// A documented item that has no binding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Unbound {
    pub name: String,
    /// `function`, `struct`, `enum`, `typedef`, `constant`.
    pub kind: String,
    pub reason: String,
    pub source: Source,
}

/// A parameter matched under a rule other than [`Rule::Exact`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Renaming {
    pub function: String,
    pub doc_name: String,
    pub c_name: String,
    pub rule: Rule,
    pub source: Source,
}

fn yes() -> bool {
    true
}

/// A bound function without a typed wrapper, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Untyped<'a> {
    pub name: &'a str,
    pub source: &'a Source,
    pub reason: &'a str,
}

impl Bindings {
    /// The bound functions that have no typed wrapper, with the reason.
    pub fn untyped(&self) -> Vec<Untyped<'_>> {
        self.functions
            .iter()
            .filter_map(|f| match &f.typed {
                Typed::Skipped { reason } => Some(Untyped {
                    name: &f.name,
                    source: &f.source,
                    reason,
                }),
                Typed::Wrapper { .. } => None,
            })
            .collect()
    }

    /// One line per decision of the typed layer's safety rules, for `--list-unbound`: each
    /// wrapper made `unsafe` by a rule of [`unsafe_rules`] (with the rule and its reason),
    /// each pointer the storage check could not prove (passed raw, or the function's reason
    /// for no wrapper), each string buffer with the length that sizes it, and each returned
    /// string with its lifetime.
    pub fn safety_rulings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for f in &self.functions {
            let Typed::Wrapper {
                roles,
                unsafe_rule,
                ret_string,
                ..
            } = &f.typed
            else {
                if let Typed::Skipped { reason } = &f.typed {
                    if reason.starts_with("storage not proven") {
                        out.push(format!(
                            "no typed wrapper: {} ({}): {reason}",
                            f.name, f.source
                        ));
                    }
                }
                continue;
            };
            if let Some(r) = unsafe_rule {
                out.push(format!(
                    "unsafe by rule `{}`: {} ({}): {} {}",
                    r.pattern, f.name, f.source, r.reason, r.prefer
                ));
            }
            let name = |i: usize| f.params.get(i).map_or("?", |p| p.c_name.as_str());
            let static_reason = || {
                strings::rule_for(&f.name)
                    .map_or("", |s| s.reason)
                    .to_string()
            };
            for (i, role) in roles.iter().enumerate() {
                let line = match role {
                    Role::Unproven { reason } => format!(
                        "storage not proven: {} `{}`: {reason}; passed as a raw pointer (the wrapper is unsafe)",
                        f.name,
                        name(i)
                    ),
                    Role::OutString { len } => format!(
                        "storage proven: {} `{}`: a string buffer of `{}` bytes (rule string-buffer: the length parameter passed by value)",
                        f.name,
                        name(i),
                        name(*len)
                    ),
                    Role::ByteBuffer { size } => format!(
                        "storage proven: {} `{}`: a `&mut [u8]` whose length goes in `*{}` (rule string-buffer: the size the call reads and writes back)",
                        f.name,
                        name(i),
                        name(*size)
                    ),
                    Role::OutCStr { lifetime } => match lifetime {
                        StrLifetime::Static => format!(
                            "returned string: {} `{}`: &'static CStr ({})",
                            f.name,
                            name(i),
                            static_reason()
                        ),
                        StrLifetime::Copied => format!(
                            "returned string: {} `{}`: copied into a CString (no rule says it lives for the process)",
                            f.name,
                            name(i)
                        ),
                    },
                    _ => continue,
                };
                out.push(line);
            }
            match ret_string {
                Some(StrLifetime::Static) => out.push(format!(
                    "returned string: {} (its return value): &'static CStr ({})",
                    f.name,
                    static_reason()
                )),
                Some(StrLifetime::Copied) => out.push(format!(
                    "returned string: {} (its return value): copied into a CString (no rule says it lives for the process)",
                    f.name
                )),
                None => {}
            }
        }
        out
    }

    /// One line per list parameter of a typed wrapper, saying which count it was paired with
    /// and how (`cudaX: list `a` ↔ count `n`: how`).
    pub fn list_pairs(&self) -> Vec<String> {
        let mut out = Vec::new();
        for f in &self.functions {
            let Typed::Wrapper { roles, .. } = &f.typed else {
                continue;
            };
            for (p, role) in f.params.iter().zip(roles) {
                if let Role::Slice { count, how, .. } = role {
                    let c = f.params.get(*count).map_or("?", |c| c.c_name.as_str());
                    out.push(format!(
                        "{}: list `{}` ↔ count `{c}`: {how}",
                        f.name, p.c_name
                    ));
                }
            }
        }
        out
    }
}
