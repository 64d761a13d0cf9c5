//! The ABI model: what a CUDA release's C headers declare for the CUDA Runtime — functions
//! with C parameter names and types in order, structs and unions with their fields (and, when
//! the source gives them, sizes, alignments and offsets), enums with values, typedefs,
//! constants, and the `#define` renames in effect.
//!
//! Two sources fill it, both bindgen output read by [`read`]: the release's own headers from
//! NVIDIA's wheels (`headers`, behind the `headers` cargo feature; `cargo xtask abi` runs it and
//! commits the result as a [`snapshot`]), and cudarc's pinned bindgen module ([`locate`],
//! [`load_cudarc`]), which is the independent cross-check ([`compare`]).
//!
//! This module holds the data types (serde-serialisable) and the entry points. `#[cfg]`
//! evaluation is [`cfg`](mod@cfg), Rust-to-C type mapping is [`ctype`], C layout rules are [`layout`],
//! the links between items
//! (aliases, handles, nested anonymous types) are made in [`link`], and `#define`s are sorted
//! into renames by [`macros`]. It does not join with the documentation IR; that is a later step.

pub mod cfg;
pub mod compare;
pub mod ctype;
#[cfg(feature = "headers")]
pub mod headers;
pub mod layout;
pub mod link;
pub mod locate;
pub mod macros;
pub mod read;
pub mod snapshot;
pub mod stubs;

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;
use crate::ir::Release;
use crate::library::Library;

pub use ctype::{AbiType, CType};
pub use locate::{locate_cudarc_runtime, workspace_manifest, AbiSource, LocateError};
pub use read::{read_abi, read_bindgen_output};

/// Everything the ABI source declares for one CUDA release.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Abi {
    /// The library whose headers these are; absent (the runtime) in snapshots of `libcudart`,
    /// which were made before the generator bound a second library.
    #[serde(default, skip_serializing_if = "Library::is_cudart")]
    pub library: Library,
    /// The release described (for cudarc: the one its `#[cfg]`s were evaluated for).
    pub release: Option<Release>,
    /// Where the facts come from, for people: `headers of nvidia-cuda-runtime 13.2.86, … via
    /// bindgen 0.72.1, libclang 18.1.1` or ``cudarc 0.19.10 `src/runtime/sys/mod.rs`, feature
    /// `cuda-13020` ``.
    pub origin: String,
    /// The file that item `line`s refer to when an item names no `header` of its own: cudarc's
    /// `mod.rs` as given, or the bindgen output of the headers (only diagnostics of the read
    /// can point there).
    pub file: String,
    /// The wheels the headers came from, name → exact version (empty for cudarc). Checking a
    /// snapshot fetches exactly these.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub packages: IndexMap<String, String>,
    /// C functions by name, in file order.
    pub functions: IndexMap<String, Function>,
    /// Structs and unions by name, in file order (opaque ones included).
    pub records: IndexMap<String, Record>,
    /// Enums by name.
    pub enums: IndexMap<String, Enum>,
    /// Typedefs by name (`pub type` and `pub use self::A as B`).
    pub typedefs: IndexMap<String, Typedef>,
    /// Integer constants by name.
    pub constants: IndexMap<String, Constant>,
    /// Function renames in effect: the documented C name → the symbol the headers declare
    /// (and the library exports) for it, from `#define cudaGetDeviceProperties
    /// cudaGetDeviceProperties_v2` or `#define X __CUDART_API_PTSZ(X_v2)` (12.8). Only the
    /// default configuration: the per-thread-default-stream variants are not in effect and not
    /// recorded. Look functions up with [`Abi::function_for`].
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub renames: IndexMap<String, String>,
    /// Other `#define A B` in effect whose `B` is a type or an enumerator the ABI declares
    /// (`cudaStreamAttrID` → `cudaLaunchAttributeID`, `cudaStreamAttributePriority` →
    /// `cudaLaunchAttributePriority`): second names C code may use.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub macro_aliases: IndexMap<String, String>,
    /// Items the headers mark deprecated, by C name (functions, records, enums, enumerators,
    /// typedefs), sorted: `__CUDA_DEPRECATED` on the declaration, or a `\deprecated`
    /// paragraph in its documentation comment. Absent from snapshots made before this field
    /// existed, which read as "nothing deprecated".
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub deprecated: BTreeMap<String, Deprecation>,
    /// Every `cuda-XXXXX` feature the file mentions, sorted: the releases it can describe
    /// (cudarc only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_features: Vec<String>,
    /// What the reader did not understand or skipped, with `file:line`.
    pub diagnostics: Vec<Diagnostic>,
}

impl Abi {
    /// Number of structs (not unions, opaque ones included).
    pub fn struct_count(&self) -> usize {
        self.records
            .values()
            .filter(|r| r.kind == RecordKind::Struct)
            .count()
    }

    /// Number of unions.
    pub fn union_count(&self) -> usize {
        self.records
            .values()
            .filter(|r| r.kind == RecordKind::Union)
            .count()
    }

    /// Follows typedef aliases from `name` to the name of the enum, record or primitive it
    /// finally stands for (`cudaError_t` → `cudaError`). Stops at pointers and callbacks.
    pub fn resolve_alias<'a>(&'a self, name: &'a str) -> &'a str {
        let mut current = name;
        for _ in 0..32 {
            match self.typedefs.get(current).map(|t| &t.ty.c) {
                Some(CType::Named { name }) => current = name,
                _ => break,
            }
        }
        current
    }

    /// The enum `name` names, directly or through typedef aliases.
    pub fn enum_named(&self, name: &str) -> Option<&Enum> {
        self.enums.get(self.resolve_alias(name))
    }

    /// The struct or union `name` names, directly or through typedef aliases.
    pub fn record_named(&self, name: &str) -> Option<&Record> {
        self.records.get(self.resolve_alias(name))
    }

    /// The function a documented C name stands for, with the symbol to load: the function of
    /// that name, else the one a [rename](Abi::renames) points to (`cudaGetDeviceProperties`
    /// → `cudaGetDeviceProperties_v2` in 12.8).
    pub fn function_for(&self, documented: &str) -> Option<(&Function, &str)> {
        if let Some(f) = self.functions.get(documented) {
            return Some((f, f.name.as_str()));
        }
        let symbol = self.renames.get(documented)?;
        self.functions.get(symbol).map(|f| (f, f.name.as_str()))
    }

    /// `header:line` of an item (`cuda_runtime_api.h:1818`), or `file:line` when the item
    /// names no header (cudarc).
    pub fn location(&self, header: Option<&str>, line: u32) -> String {
        format!("{}:{line}", header.unwrap_or(&self.file))
    }
}

/// How the headers mark an item deprecated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Deprecation {
    /// `__CUDA_DEPRECATED` (`__attribute__((deprecated))`): a C compiler warns at every use.
    Attribute,
    /// Only a `\deprecated` paragraph in the declaration's documentation comment.
    Comment,
}

impl Deprecation {
    /// `attribute` or `comment`, as in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Deprecation::Attribute => "attribute",
            Deprecation::Comment => "comment",
        }
    }
}

/// One C function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    /// C parameters in order.
    pub params: Vec<Param>,
    /// The return type (`void` when the Rust signature has none).
    pub ret: AbiType,
    /// The header declaring it, relative to its include folder (`cuda_runtime_api.h`); `None`
    /// when `line` is a line of [`Abi::file`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    pub line: u32,
}

/// A named, typed parameter (functions and callbacks).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Param {
    /// The C name as bindgen kept it (`devPtr`; `arg1` where C had none; a Rust keyword is
    /// kept with bindgen's trailing `_`, e.g. `fn_`).
    pub name: String,
    pub ty: AbiType,
}

impl Param {
    /// The name as C writes it: bindgen's trailing `_` after a Rust keyword is dropped
    /// (`fn_` → `fn`, `type_` → `type`); other names are returned as they are.
    pub fn c_name(&self) -> &str {
        c_name(&self.name)
    }
}

/// The name as C writes it of a name as bindgen kept it: bindgen's trailing `_` after a Rust
/// keyword is dropped (`fn_` → `fn`, `type_` → `type`); other names are returned as they are.
pub fn c_name(bindgen_name: &str) -> &str {
    match bindgen_name.strip_suffix('_') {
        Some(stem) if RUST_KEYWORDS.contains(&stem) => stem,
        _ => bindgen_name,
    }
}

/// Rust's strict and reserved keywords: bindgen appends `_` to C names that are one of them.
const RUST_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Struct or union.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordKind {
    Struct,
    Union,
}

/// A `#[repr(C)]` struct or union.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub name: String,
    pub kind: RecordKind,
    /// The `#[repr(...)]` arguments as written (`C`, `align(8)`).
    pub repr: Vec<String>,
    /// Fields in declaration order.
    pub fields: Vec<Field>,
    /// Declared without a body in C: bindgen's `_unused: [u8; 0]` or a unit struct.
    pub opaque: bool,
    /// For bindgen's anonymous types (`cudaResourceDesc__bindgen_ty_1`): the enclosing type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Anonymous types nested in this one, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nested: Vec<String>,
    /// Typedef names standing for this record (`cudaIpcMemHandle_t`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// `sizeof` in bytes, as clang computed it (from bindgen's layout tests), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// `_Alignof` in bytes, as clang computed it, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<u64>,
    /// The header declaring it (see [`Function::header`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    pub line: u32,
}

/// One field of a record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    pub ty: AbiType,
    /// A bindgen bitfield storage unit (`_bitfield_1: __BindgenBitfieldUnit<[u8; N]>`): its
    /// bits are C bitfields this model does not split.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bitfield_unit: bool,
    /// `offsetof` in bytes, as clang computed it, when known (not for bitfield units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// In the record's header (or [`Abi::file`]).
    pub line: u32,
}

impl Field {
    /// The name as C writes it (`type_` → `type`, see [`c_name`]).
    pub fn c_name(&self) -> &str {
        c_name(&self.name)
    }
}

/// A C enum: bindgen's `#[repr(u32)] pub enum`, or a newtype struct with associated consts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Enum {
    pub name: String,
    /// The Rust integer type of the representation (`u32`, `i32`).
    pub repr: String,
    /// Emitted as a newtype struct with consts rather than a Rust `enum`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub newtype: bool,
    /// Values in declaration order, aliases (from `impl` consts) after them.
    pub values: Vec<EnumValue>,
    /// Typedef names standing for this enum (`cudaError_t` for `cudaError`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// The header declaring it (see [`Function::header`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    pub line: u32,
}

impl Enum {
    /// The value named `name`.
    pub fn value(&self, name: &str) -> Option<i128> {
        self.values.iter().find(|v| v.name == name).map(|v| v.value)
    }
}

/// One enumerator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumValue {
    pub name: String,
    pub value: i128,
    /// For a second name of an existing value (`impl X { pub const A: X = X::B; }`): `B`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias_of: Option<String>,
    /// In the enum's header (or [`Abi::file`]).
    pub line: u32,
}

/// What a typedef stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TypedefKind {
    /// Another name of a type (`cudaError_t` = `cudaError`, `cudaSurfaceObject_t` = `unsigned
    /// long long`).
    Alias,
    /// A pointer to an opaque struct (`cudaStream_t` = `CUstream_st*`).
    Handle,
    /// A function pointer (`cudaHostFn_t`).
    Callback,
    /// Any other pointer typedef (`cudaArray_const_t` to a non-opaque struct).
    Pointer,
}

/// A C typedef.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Typedef {
    pub name: String,
    pub ty: AbiType,
    pub kind: TypedefKind,
    /// Written as `pub use self::A as B;` rather than `pub type B = A;`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub via_use: bool,
    /// The header declaring it (see [`Function::header`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    pub line: u32,
}

/// An integer constant (`pub const cudaHostAllocMapped: u32 = 2;`). Its type is the one
/// bindgen chose; for a C `#define` that is `u32` (C spelling `uint32_t`), not a C type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Constant {
    pub name: String,
    pub ty: AbiType,
    pub value: i128,
    /// The header defining it (see [`Function::header`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    pub line: u32,
}

/// The cudarc feature that stands for `release`: `13.2` → `cuda-13020`, `12.4.1` →
/// `cuda-12040` (cudarc has one feature per minor release; a patch level is dropped).
pub fn cudarc_feature(release: &Release) -> String {
    let major = release.0.first().copied().unwrap_or(0);
    let minor = release.0.get(1).copied().unwrap_or(0);
    format!("cuda-{}", major * 1000 + minor * 10)
}

/// The [`Abi::origin`] of cudarc's bindings for `release`: ``cudarc 0.19.10
/// `src/runtime/sys/mod.rs`, feature `cuda-13020` ``.
pub fn cudarc_origin(cudarc_version: &str, release: &Release) -> String {
    format!(
        "cudarc {cudarc_version} `src/runtime/sys/mod.rs`, feature `{}`",
        cudarc_feature(release)
    )
}

/// Locates cudarc's runtime bindings through `cargo metadata` of the workspace and reads them
/// for `release` (the independent cross-check of the header snapshots).
pub fn load_cudarc(release: &Release) -> Result<Abi, LocateError> {
    let source = locate_cudarc_runtime(&workspace_manifest())?;
    let text = std::fs::read_to_string(&source.path).map_err(|e| LocateError::Read {
        path: source.path.clone(),
        source: e,
    })?;
    let mut abi = read_abi(&text, &source.path.display().to_string(), release);
    abi.origin = cudarc_origin(&source.cudarc_version, release);
    Ok(abi)
}

/// The workspace this generator belongs to: the folder holding `abi/` with the committed
/// snapshots and `docs-src/`.
pub fn workspace_root() -> std::path::PathBuf {
    let manifest = workspace_manifest();
    manifest
        .parent()
        .map_or_else(|| manifest.clone(), std::path::Path::to_path_buf)
}

/// The snapshot of `release` in the workspace `root`: the committed one (`abi/13.2.json`),
/// else the cached one (`target/abi/13.2.json`; see [`snapshot::find`]).
pub fn load_snapshot(
    root: &std::path::Path,
    release: &Release,
) -> Result<Abi, snapshot::SnapshotError> {
    snapshot::load(&snapshot::find(root, release))
}

/// The snapshot of `library`'s `release` in the workspace `root`, committed
/// (`abi/nvrtc/13.2.json`) or else cached (`target/abi/nvrtc/13.2.json`); a snapshot of
/// another library is [`snapshot::SnapshotError::Library`].
pub fn load_library_snapshot(
    root: &std::path::Path,
    library: Library,
    release: &Release,
) -> Result<Abi, snapshot::SnapshotError> {
    let path = snapshot::find_library(root, library, release);
    let abi = snapshot::load(&path)?;
    if abi.library != library {
        return Err(snapshot::SnapshotError::Library {
            path,
            expected: library,
            found: abi.library,
        });
    }
    Ok(abi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str) -> Param {
        Param {
            name: name.to_string(),
            ty: AbiType::void(),
        }
    }

    #[test]
    fn c_names_drop_bindgen_keyword_suffix() {
        assert_eq!(param("fn_").c_name(), "fn");
        assert_eq!(param("type_").c_name(), "type");
        assert_eq!(param("devPtr").c_name(), "devPtr");
        assert_eq!(param("ptr_").c_name(), "ptr_");
        assert_eq!(param("_").c_name(), "_");
    }

    #[test]
    fn release_to_feature() {
        assert_eq!(cudarc_feature(&Release(vec![13, 2])), "cuda-13020");
        assert_eq!(cudarc_feature(&Release(vec![12, 9, 1])), "cuda-12090");
        assert_eq!(cudarc_feature(&Release(vec![13])), "cuda-13000");
    }
}
