//! The join of the documentation IR with the ABI: the bindings model the emitter reads.
//!
//! [`join`] matches each documented function, enum, struct and typedef to what the ABI
//! source declares for the same release, matches parameters by name through the reviewed
//! rules of [`renames`], and compares what both sides state (enum values, field order,
//! parameter counts), reporting every disagreement as a diagnostic. Items only one side has
//! are listed with the reason, never dropped silently. Emission is [`crate::emit`]'s job.

pub mod join;
pub mod renames;
pub mod roles;

use serde::{Deserialize, Serialize};

use crate::abi::{self, AbiType};
use crate::diag::Diagnostic;
use crate::ir::{Direction, Document, Release, Source};
use crate::types::TypeRef;

pub use join::join;
pub use renames::Rule;

/// Everything the emitter needs, for one CUDA release.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Bindings {
    pub release: Option<Release>,
    /// The ABI source's description (`cudarc 0.19.10, feature cuda-13020`).
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
    /// Documented items the ABI lacks, with the reason.
    pub unbound: Vec<Unbound>,
    /// ABI functions the documentation does not describe.
    pub abi_only: Vec<String>,
    /// Every parameter matched by a rule other than an exact name.
    pub renamings: Vec<Renaming>,
    /// Every disagreement and gap, with `file:line`.
    pub diagnostics: Vec<Diagnostic>,
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
}

/// An enum to emit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BoundEnum {
    /// The Rust name to emit (the documented name when documented).
    pub name: String,
    /// Other names of the same C type, emitted as `pub type` aliases.
    pub aliases: Vec<String>,
    pub abi: abi::Enum,
    pub doc: Option<String>,
    /// Member documentation by C member name.
    pub member_docs: Vec<(String, String)>,
    pub section: Option<String>,
    pub source: Option<Source>,
}

/// A typedef to emit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BoundTypedef {
    pub name: String,
    pub abi: abi::Typedef,
    pub doc: Option<String>,
    pub section: Option<String>,
    pub source: Option<Source>,
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
