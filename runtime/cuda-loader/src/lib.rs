//! Run-time loading of NVIDIA's CUDA libraries, written once for every crate the
//! cudart-docgen generator emits (as `windows-core` is for `windows-bindgen`'s crates).
//!
//! A generated crate states the facts of its library as one `static` [`Spec`] (file names,
//! variable, wheel folders, version function, major release), holds one [`Loader`] of it and
//! one [`LazySymbol`] per C function, and keeps its own error type, into which [`Error`]
//! converts. Nothing here names a library.
//!
//! - [`spec`]: the facts of one library ([`Spec`]);
//! - [`search`]: where a library is looked for, in order;
//! - [`python_env`]: the folders of NVIDIA's wheels and conda in the Python environments;
//! - [`elf`]: the check of a library file before the system loader maps it;
//! - [`library`]: one opened library ([`Library`]);
//! - [`loader`]: the process-wide library of a spec ([`Loader`]) and its functions
//!   ([`LazySymbol`]);
//! - [`callback`]: refusing calls made inside a callback;
//! - [`version`]: release numbers and the table of first releases;
//! - [`error`]: why there is no library or function ([`Error`]);
//! - `macros`: the patterns of generated enums, flags, handles, records and raw functions.

#![deny(missing_docs)]

#[macro_use]
mod macros;

pub mod callback;
pub mod elf;
pub mod error;
pub mod library;
pub mod loader;
pub mod python_env;
pub mod search;
pub mod spec;
pub mod version;

pub use error::{render_version, Error};
pub use library::Library;
pub use loader::{LazySymbol, Loader};
pub use spec::{Spec, VersionQuery};
