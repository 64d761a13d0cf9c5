//! CUDA Runtime API bindings generated from the CUDA Runtime documentation, with the runtime
//! library loaded at run time.
//!
//! # Loading
//!
//! Nothing is linked at build time and there is no build script: the crate builds, and its
//! documentation builds, on a machine without CUDA. `libcudart` is opened with `libloading` the
//! first time a function needs it ([`Library::get`]), once per process and thread-safely.
//! The search order is `CUDART_PATH` (a file or a folder; when set, it is the only place
//! looked at), then `libcudart.so.13` / `libcudart.so` through the system loader, then the
//! usual install folders (`/usr/local/cuda/lib64`, `$CUDA_PATH/lib64`, …); see [`loader`].
//! A library can also be opened from an explicit path with [`Library::open`].
//!
//! Callers that can do without CUDA probe first: [`is_available`] says whether the library
//! loads, [`has_function`] whether it exports one function (an older runtime lacks newer
//! functions), so that they can choose a fallback instead of failing.
//!
//! # Errors
//!
//! Every failure is an [`Error`]: the library was not found ([`Error::LibraryNotFound`], with
//! every path tried and why it failed), a function is missing from the loaded runtime
//! ([`Error::SymbolNotFound`], with the symbol, the library and its version), or a CUDA call
//! returned a status other than `cudaSuccess` ([`Error::Cuda`], with the raw `cudaError_t`
//! code, kept even when this crate does not know it).
//!
//! # No panics
//!
//! No function of this crate panics or aborts because the library or a symbol is missing or a
//! call fails; those are `Err` values.

#![deny(missing_docs)]

pub mod error;
pub mod loader;

/// The raw layer, generated from the documentation: every documented type, constant and
/// function the ABI declares, under its C name (`sys::cudaMalloc`, `sys::cudaMemcpyKind`).
#[allow(missing_docs)]
#[rustfmt::skip]
#[path = "generated/mod.rs"]
pub mod sys;

pub use error::{check, Error, Result};
pub use loader::{has_function, is_available, LazySymbol, Library};

/// The typed layer, generated from the documentation: one function per documented C function
/// whose parameters could all be given a Rust role (see the crate docs).
#[rustfmt::skip]
#[path = "generated/typed.rs"]
pub mod api;
