//! Contracts of the generated crate (`cudart13`) that the type system enforces, as
//! `compile_fail` doc tests: each program must fail to compile with E0133 (a call of an `unsafe`
//! function outside `unsafe`). The typed functions that destroy or invalidate what the safe
//! layer owns, or change what a stream's work is ordered after, are `unsafe` by the generator's
//! rules (`codegen::bind::unsafe_rules`), and opening a library is `unsafe`. The doc tests reuse
//! the crate's build, so they cost a few seconds, not a second build of the crate.
//!
//! Resetting the device destroys every handle the safe layer holds for it:
//!
//! ```compile_fail,E0133
//! let _ = cudart13::api::device_reset();
//! ```
//!
//! Destroying a stream a `Stream` may own (and by its handle):
//!
//! ```compile_fail,E0133
//! let _ = cudart13::api::stream_destroy(cudart13::api::cudaStream_t::null());
//! ```
//!
//! A texture object is a plain integer, yet destroying one a `TextureObject` owns is undefined
//! behaviour:
//!
//! ```compile_fail,E0133
//! let _ = cudart13::api::destroy_texture_object(0);
//! ```
//!
//! Re-recording an event the safe layer waits on:
//!
//! ```compile_fail,E0133
//! let _ = cudart13::api::event_record(
//!     cudart13::api::cudaEvent_t::null(),
//!     cudart13::api::cudaStream_t::null(),
//! );
//! ```
//!
//! Opening memory or an event another process owns creates an obligation elsewhere (the
//! owner may free it while this process uses it):
//!
//! ```compile_fail,E0133
//! let _ = cudart13::api::ipc_open_mem_handle(Default::default(), 1);
//! ```
//!
//! ```compile_fail,E0133
//! let _ = cudart13::api::ipc_open_event_handle(Default::default());
//! ```
//!
//! Opening a library runs its initialisers and trusts its prototypes:
//!
//! ```compile_fail,E0133
//! let _ = cudart13::Library::open("libcudart.so.13");
//! ```
//!
//! And each of them compiles inside `unsafe` (so the refusals above are about `unsafe` alone;
//! nothing here runs):
//!
//! ```no_run
//! // SAFETY: not run; this only shows the calls compile inside `unsafe`.
//! unsafe {
//!     let _ = cudart13::api::device_reset();
//!     let _ = cudart13::api::stream_destroy(cudart13::api::cudaStream_t::null());
//!     let _ = cudart13::api::destroy_texture_object(0);
//!     let _ = cudart13::api::event_record(
//!         cudart13::api::cudaEvent_t::null(),
//!         cudart13::api::cudaStream_t::null(),
//!     );
//!     let _ = cudart13::Library::open("libcudart.so.13");
//!     let _ = cudart13::api::ipc_open_mem_handle(Default::default(), 1);
//!     let _ = cudart13::api::ipc_open_event_handle(Default::default());
//! }
//! ```
