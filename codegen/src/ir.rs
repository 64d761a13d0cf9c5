//! The intermediate model (IR) every parser produces and every later step consumes.
//!
//! One [`Api`] holds what one or more documents say about the CUDA Runtime API: sections,
//! functions, enums, structs, typedef/handle classes, integer constants and aliases, each
//! with its documentation text and the place it came from. The IR is serialisable to JSON
//! (`cargo xtask ir`), and its JSON keys are a contract other tools read; see the
//! `ir_json_keys` test before renaming a field.
//!
//! This module holds data only: parsing lives in [`crate::parse`], merging in
//! [`crate::merge`].

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;
/// Where an item was read (defined beside the diagnostics, which point at it too).
pub use crate::diag::Source;
use crate::doctype::TypeRef;

/// The documentation formats the parsers understand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Text rendering of the Sphinx page of `cuda.bindings.runtime`: raw RST docstrings.
    BindingsText,
    /// Autodoc reStructuredText source (`.. autofunction::`, `.. autosummary::`, `c:function`).
    AutodocRst,
    /// Text rendering of the older `cuda.cudart` page: processed `Parameters` blocks.
    CudartText,
    /// The Sphinx-built HTML page itself.
    Html,
    /// A C header whose declarations carry Doxygen comments (NVIDIA's `cuda_runtime_api.h`,
    /// the source of the published CUDA Runtime API reference).
    DoxygenHeader,
}

impl Format {
    /// All formats, in detection order.
    pub const ALL: [Format; 5] = [
        Format::Html,
        Format::DoxygenHeader,
        Format::AutodocRst,
        Format::BindingsText,
        Format::CudartText,
    ];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Format::BindingsText => "bindings-text",
            Format::AutodocRst => "autodoc-rst",
            Format::CudartText => "cudart-text",
            Format::Html => "html",
            Format::DoxygenHeader => "doxygen-header",
        }
    }

    /// Parses a name given by [`Format::name`].
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// A CUDA release such as 13.2 or 12.9.1, ordered numerically.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Release(pub Vec<u32>);

impl Release {
    /// Parses `13.2`, `13.2.0` or `12.x` (an `x` part is dropped: `12.x` sorts below `12.0`'s
    /// patch releases but above `11.*`).
    pub fn parse(s: &str) -> Option<Release> {
        let mut parts = Vec::new();
        for p in s.trim().split('.') {
            if p.eq_ignore_ascii_case("x") || p == "*" {
                break;
            }
            parts.push(p.parse().ok()?);
        }
        (!parts.is_empty()).then_some(Release(parts))
    }
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s: Vec<String> = self.0.iter().map(u32::to_string).collect();
        f.write_str(&s.join("."))
    }
}

/// One input document and what is known about it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// The path as given.
    pub file: String,
    /// Detected or forced format.
    pub format: Format,
    /// The CUDA release the document describes, when a manifest or the caller states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<Release>,
    /// Publisher and module, e.g. `nvidia/cuda.bindings.runtime`, when stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher: Option<String>,
}

/// How much a source states about an item: some formats list names only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Detail {
    /// Name, documentation and the item's parts (parameters, members, fields).
    #[default]
    Full,
    /// Only the name (and section) are stated; absent parts are unknown, not empty.
    NamesOnly,
}

/// A section of the documentation ("Device Management").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    pub name: String,
    pub doc: String,
    pub source: Source,
    /// A stable identifier of the section when the source has one (a Doxygen group such as
    /// `CUDART_DEVICE`), which does not change when the title does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// Direction of a documented parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Passed by the caller (a signature parameter).
    In,
    /// Returned to the caller (a `:returns:` entry after the status).
    Out,
    /// A C parameter whose documentation does not say which way it goes (a Doxygen `\param`
    /// without `[in]`/`[out]`); the binding step decides from the declaration and the words.
    Unstated,
}

impl Direction {
    /// A short word for reports: `in`, `out`, `unstated`.
    pub fn word(self) -> &'static str {
        match self {
            Direction::In => "in",
            Direction::Out => "out",
            Direction::Unstated => "unstated",
        }
    }
}

/// A documented parameter: an input from the signature or an output from `:returns:`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    /// `None` when the source gives no type.
    #[serde(rename = "type")]
    pub ty: Option<TypeRef>,
    pub direction: Direction,
    pub doc: String,
}

/// A documented function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// Short name (`cudaMalloc`, `make_cudaPitchedPtr`, `cupy_malloc`).
    pub name: String,
    /// The name as the document writes it (`cuda.bindings.runtime.cudaMalloc`).
    pub qualified_name: String,
    pub section: Option<String>,
    /// Inputs in signature order, then outputs in `:returns:` order; `None` when the source
    /// does not state parameters (autodoc lists names only).
    pub params: Option<Vec<Param>>,
    /// Declared return type (`:rtype:`), when stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtype: Option<TypeRef>,
    /// Status codes the documentation lists for the call (`cudaSuccess`, `cudaErrorInvalidValue`).
    #[serde(default)]
    pub errors: Vec<String>,
    pub doc: String,
    #[serde(default)]
    pub see_also: Vec<String>,
    pub detail: Detail,
    pub source: Source,
    /// Every source that mentions the item (after merging; the first is `source`).
    #[serde(default)]
    pub sources: Vec<Source>,
}

/// One member of an enum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    pub name: String,
    /// `None` when the value is absent or not an integer (a diagnostic says which).
    pub value: Option<i64>,
    pub doc: String,
    pub source: Source,
}

/// A documented enum (`class X(value: int)` or `.. autoenum::`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Enum {
    pub name: String,
    pub qualified_name: String,
    pub section: Option<String>,
    pub doc: String,
    /// Members in documentation order; empty with [`Detail::NamesOnly`] when not stated.
    pub variants: Vec<Variant>,
    pub detail: Detail,
    pub source: Source,
    #[serde(default)]
    pub sources: Vec<Source>,
}

/// A field (`.. attribute::`) of a struct or class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: Option<TypeRef>,
    pub doc: String,
    pub source: Source,
}

/// A documented struct (`class X(void_ptr _ptr=0)` with attributes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Struct {
    pub name: String,
    pub qualified_name: String,
    pub section: Option<String>,
    pub doc: String,
    /// Fields in documentation order.
    pub fields: Vec<Field>,
    pub detail: Detail,
    pub source: Source,
    #[serde(default)]
    pub sources: Vec<Source>,
}

/// What kind of class a typedef entry is, as far as the document shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TypedefKind {
    /// `class X(*args, **kwargs)`: an opaque handle or callback wrapper.
    Opaque,
    /// `class X` with no arguments: a handle or a value type (may list attributes).
    Class,
    /// `.. autoclass::` with nothing else stated.
    Unknown,
}

/// A typedef or handle class (`cudaStream_t`, `cudaHostFn_t`, `CUuuid`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Typedef {
    pub name: String,
    pub qualified_name: String,
    pub section: Option<String>,
    pub kind: TypedefKind,
    pub doc: String,
    /// Attributes some typedef classes list (`CUuuid.bytes`).
    #[serde(default)]
    pub fields: Vec<Field>,
    pub detail: Detail,
    pub source: Source,
    #[serde(default)]
    pub sources: Vec<Source>,
}

/// A module-level integer constant (`runtime.cudaHostAllocMapped = 2#`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Constant {
    pub name: String,
    pub qualified_name: String,
    pub section: Option<String>,
    pub value: i64,
    pub doc: String,
    pub source: Source,
    #[serde(default)]
    pub sources: Vec<Source>,
}

/// A module-level alias of another item (`runtime.cudaDataType = <enum 'cudaDataType_t'>#`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Alias {
    pub name: String,
    pub qualified_name: String,
    pub section: Option<String>,
    /// The aliased item's short name.
    pub target: String,
    /// What the target is (`enum`, `class`), as the document says.
    pub target_kind: String,
    pub doc: String,
    pub source: Source,
    #[serde(default)]
    pub sources: Vec<Source>,
}

/// A name a document lists without saying what it is (`.. autosummary::` entries).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The name as written (`cupy.cuda.runtime.malloc`).
    pub name: String,
    pub section: Option<String>,
    /// The directive that listed it (`autosummary`).
    pub directive: String,
    pub source: Source,
}

/// The IR of one document, or the merge of several.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Api {
    /// The documents read, newest release first after a merge.
    pub documents: Vec<Document>,
    pub sections: Vec<Section>,
    pub functions: Vec<Function>,
    pub enums: Vec<Enum>,
    pub structs: Vec<Struct>,
    pub typedefs: Vec<Typedef>,
    pub constants: Vec<Constant>,
    pub aliases: Vec<Alias>,
    pub entries: Vec<Entry>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Api {
    /// Number of API items of every kind (functions, enums, structs, typedefs, constants,
    /// aliases and listed names); sections and diagnostics are not items.
    pub fn item_count(&self) -> usize {
        self.functions.len()
            + self.enums.len()
            + self.structs.len()
            + self.typedefs.len()
            + self.constants.len()
            + self.aliases.len()
            + self.entries.len()
    }

    /// Number of parameters of all functions that state them.
    pub fn param_count(&self) -> usize {
        self.functions
            .iter()
            .filter_map(|f| f.params.as_ref())
            .map(Vec::len)
            .sum()
    }

    /// Number of enum members.
    pub fn variant_count(&self) -> usize {
        self.enums.iter().map(|e| e.variants.len()).sum()
    }

    /// Number of struct fields.
    pub fn field_count(&self) -> usize {
        self.structs.iter().map(|s| s.fields.len()).sum()
    }

    /// Looks a function up by short name.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// Looks an enum up by short name.
    pub fn enum_(&self, name: &str) -> Option<&Enum> {
        self.enums.iter().find(|e| e.name == name)
    }

    /// Looks a struct up by short name.
    pub fn struct_(&self, name: &str) -> Option<&Struct> {
        self.structs.iter().find(|s| s.name == name)
    }
}
