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
//! # Two layers
//!
//! - [`sys`], the raw layer: every documented type, constant and function the ABI declares,
//!   under its C name. Functions are `unsafe fn cudaXxx(..) -> Result<cudaError_t>`: `Err`
//!   only when the library or the symbol cannot be loaded, the CUDA status is returned as is.
//!   Enums are `#[repr(transparent)]` newtypes with constants (`cudaMemcpyKind::HOST_TO_DEVICE`,
//!   `.as_raw()`), so an unknown value from a newer driver is not undefined behaviour;
//!   handles are pointer newtypes (`cudaStream_t`); flag constants are grouped into
//!   `bitflags` types (`sys::StreamFlags`, `sys::EventFlags`, `sys::HostAllocFlags`).
//! - [`api`], the typed layer: one function per raw function whose parameters could all be
//!   given a role from the documentation. Its name is the C name without `cuda` in snake case
//!   (`cudaGetDeviceCount` → [`api::get_device_count`], `cudaStreamCreateWithFlags` →
//!   [`api::stream_create_with_flags`], `cudaMemcpy2DAsync` → `api::memcpy2d_async`), and
//!   `#[doc(alias)]` makes the C name searchable. Functions are grouped in one module per
//!   section of the CUDA documentation (`api::stream_management`, `api::graph_management`, …)
//!   and all re-exported at [`api`]'s root. Outputs (`:returns:` parameters) are returned
//!   (several as a tuple, in C order); documented lists with their count become slices;
//!   `const char*` is `&CStr`, returned strings `&'static CStr`; `flags` parameters take the
//!   `bitflags` type whose constants their documentation names; `Optional[...]` pointers
//!   are `Option<&T>`. Functions without a typed wrapper (an undocumented parameter, a list
//!   whose count the documentation does not identify) are listed with the reason by
//!   `cargo xtask codegen --list-unbound`; their raw function is always there.
//!
//! # Errors
//!
//! Every failure is an [`Error`]: the library was not found ([`Error::LibraryNotFound`], with
//! every path tried and why it failed), a function is missing from the loaded runtime
//! ([`Error::SymbolNotFound`], with the symbol, the library and its version), or a CUDA call
//! returned a status other than `cudaSuccess` ([`Error::Cuda`], with the raw `cudaError_t`
//! code, kept even when this crate does not know it, its name and the documentation's
//! sentence for it). The typed layer maps every `cudaError_t` through [`check`]; each typed
//! function's `# Errors` section links the codes its documentation lists.
//!
//! # Safety model
//!
//! A typed function is safe when nothing a caller passes can cause undefined behaviour: it
//! takes only values (integers, enums, flags, strings, records without pointers) and returns
//! outputs — device queries, versions, error strings, attribute getters, creating a stream or
//! an event, allocating (the returned pointer is just a value). It is `unsafe` when a
//! parameter is a raw pointer (device or host memory the function reads or writes), a handle
//! (`cudaStream_t`, `cudaGraph_t`, …: the crate cannot see whether it is still alive), a
//! callback or its user data, or a record that holds pointers or handles; its `# Safety`
//! section names each such parameter and what it must satisfy. Every raw [`sys`] function is
//! `unsafe`.
//!
//! # Example
//!
//! Count the devices, copy a buffer to the first one and back, and free it:
//!
//! ```no_run
//! use runtime::api;
//! use runtime::sys::cudaMemcpyKind;
//!
//! fn main() -> runtime::Result<()> {
//!     let count = api::get_device_count()?;
//!     println!("{count} CUDA device(s)");
//!     api::set_device(0)?;
//!     let host: Vec<u32> = (0..1024).collect();
//!     let bytes = std::mem::size_of_val(host.as_slice());
//!     let device = api::malloc(bytes)?;
//!     let mut back = vec![0u32; host.len()];
//!     // SAFETY: `device` holds `bytes` bytes; both host buffers are `bytes` long.
//!     unsafe {
//!         api::memcpy(device, host.as_ptr().cast(), bytes, cudaMemcpyKind::HOST_TO_DEVICE)?;
//!         api::memcpy(back.as_mut_ptr().cast(), device, bytes, cudaMemcpyKind::DEVICE_TO_HOST)?;
//!         api::free(device)?;
//!     }
//!     assert_eq!(host, back);
//!     Ok(())
//! }
//! ```
//!
//! # No panics
//!
//! No function of this crate panics or aborts because the library or a symbol is missing or a
//! call fails; those are `Err` values. On Linux a library file given by path (`CUDART_PATH`,
//! an install folder, [`Library::open`]) has its ELF headers checked before the system loader
//! sees it, so a truncated file or one built for another architecture is an `Err` naming the
//! problem, not a `SIGBUS` in the loader or a misleading "No such file".

#![deny(missing_docs)]

#[cfg(target_os = "linux")]
mod elf;
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
/// whose parameters could all be given a Rust role, grouped by documentation section and
/// re-exported here (see the crate docs).
#[rustfmt::skip]
#[path = "generated/typed.rs"]
pub mod api;
