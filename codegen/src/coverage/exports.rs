//! The functions a shared library exports, read from its ELF dynamic symbol table
//! (`.dynsym`) with the `object` crate.
//!
//! An export is a `.dynsym` symbol that is defined in a section of the file, has global or
//! weak binding with default or protected visibility, and is a function (`STT_FUNC` or
//! `STT_GNU_IFUNC`). Symbol versions (`@@libcudart.so.13`) are not part of the name; a name
//! exported under several versions is listed once. A file this process could not load (cut
//! short, or for another architecture) is an error first ([`super::loadable`]). This module
//! does not open (`dlopen`) the
//! library and does not run anything from it; it does not know any CUDA name.

use std::collections::BTreeSet;
use std::path::Path;

use object::{
    BinaryFormat, Object, ObjectKind, ObjectSymbol, SymbolKind, SymbolScope, SymbolSection,
};
use serde::{Deserialize, Serialize};

/// The exported function names of one library file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exports {
    /// The file the names were read from, as given.
    pub path: String,
    /// Exported function names, sorted, each once.
    pub functions: BTreeSet<String>,
}

impl Exports {
    /// Exports with the given names (for tests and for callers with another symbol source).
    pub fn from_names<I, S>(path: &str, names: I) -> Exports
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Exports {
            path: path.to_string(),
            functions: names.into_iter().map(Into::into).collect(),
        }
    }

    /// Whether `name` is exported.
    pub fn contains(&self, name: &str) -> bool {
        self.functions.contains(name)
    }
}

/// Why a library's exports could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{path}: cannot read the library: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not an ELF shared library ({why})")]
    NotElf { path: String, why: String },
    #[error("{path}: no dynamic symbol table (.dynsym); is it a shared library?")]
    NoDynamicSymbols { path: String },
    #[error("{path}: cannot be loaded by this process: {why}")]
    NotLoadable {
        path: String,
        #[source]
        why: super::loadable::NotLoadable,
    },
}

/// Reads the exported functions of the ELF shared library at `path`.
pub fn read_exports(path: &Path) -> Result<Exports, ExportError> {
    let shown = path.display().to_string();
    // A FIFO or a device would block or never end: only a regular file of a library's size
    // is read.
    let meta = std::fs::metadata(path).map_err(|source| ExportError::Read {
        path: shown.clone(),
        source,
    })?;
    let refuse = |why: String| ExportError::Read {
        path: shown.clone(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, why),
    };
    if !meta.is_file() {
        return Err(refuse("not a regular file".into()));
    }
    if meta.len() > MAX_LIBRARY_BYTES {
        return Err(refuse(format!(
            "{} bytes, more than a runtime library's {MAX_LIBRARY_BYTES}",
            meta.len()
        )));
    }
    let data = std::fs::read(path).map_err(|source| ExportError::Read {
        path: shown.clone(),
        source,
    })?;
    exports_from_bytes(&shown, &data)
}

/// The largest library file read (`libcudart.so` is about 1 MB).
pub const MAX_LIBRARY_BYTES: u64 = 1 << 30;

/// Reads the exported functions of an ELF shared library held in `data`; `path` is only used
/// in the result and in errors.
pub fn exports_from_bytes(path: &str, data: &[u8]) -> Result<Exports, ExportError> {
    let not_elf = |why: String| ExportError::NotElf {
        path: path.to_string(),
        why,
    };
    // Headers first: a truncated or foreign file is named as such, before anything parses the
    // rest of it or a caller hands it to the system loader.
    super::loadable::check(data).map_err(|why| match why {
        super::loadable::NotLoadable::NotElf(why) => not_elf(why),
        why => ExportError::NotLoadable {
            path: path.to_string(),
            why,
        },
    })?;
    let file = object::File::parse(data).map_err(|e| not_elf(e.to_string()))?;
    if file.format() != BinaryFormat::Elf {
        return Err(not_elf(format!("a {:?} file", file.format())));
    }
    if file.kind() != ObjectKind::Dynamic {
        return Err(not_elf(format!(
            "an ELF file of kind {:?}, not a shared object",
            file.kind()
        )));
    }
    let mut functions = BTreeSet::new();
    let mut any = false;
    for sym in file.dynamic_symbols() {
        any = true;
        let defined = matches!(sym.section(), SymbolSection::Section(_));
        if defined && sym.kind() == SymbolKind::Text && sym.scope() == SymbolScope::Dynamic {
            if let Ok(name) = sym.name() {
                if !name.is_empty() {
                    functions.insert(name.to_string());
                }
            }
        }
    }
    if !any {
        return Err(ExportError::NoDynamicSymbols {
            path: path.to_string(),
        });
    }
    Ok(Exports {
        path: path.to_string(),
        functions,
    })
}
