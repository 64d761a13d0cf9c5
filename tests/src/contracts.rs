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
//! Importing an allocation of another process's memory pool trusts that process to keep it
//! (issue 43):
//!
//! ```compile_fail,E0133
//! use cudart13::memory::PoolPointerExport;
//! let pool = cudart13::MemPool::new_shareable(cudart13::Device::get(0).unwrap()).unwrap();
//! let stream = cudart13::Stream::legacy();
//! let _ = pool.import_pointer::<u8>(PoolPointerExport::from_bytes([0; 72]), &stream);
//! ```
//!
//! Graph contracts of issue 43 the borrow checker keeps (other error codes): a removed node
//! cannot be used afterwards (removal takes the graph mutably, which ends every node borrowed
//! from it),
//!
//! ```compile_fail,E0502
//! let mut graph = cudart13::Graph::new().unwrap();
//! let node = graph.add_empty_node(&[]).unwrap();
//! graph.remove_node(node.id()).unwrap();
//! let _ = node.node_type();
//! ```
//!
//! a conditional node's body graph does not outlive the graph that owns it,
//!
//! ```compile_fail,E0505
//! use cudart13::graph::Conditional;
//! let graph = cudart13::Graph::new().unwrap();
//! let handle = graph.conditional_handle(None).unwrap();
//! let cond = graph.add_conditional_node(&[], handle, Conditional::While).unwrap();
//! drop(graph);
//! let _ = cond.bodies()[0].node_count();
//! ```
//!
//! and a host function a graph may run at any later launch, on a CUDA thread, owns what it
//! uses (`'static`) and may run on another thread (`Send + Sync`):
//!
//! ```compile_fail,E0597
//! let stream = cudart13::Stream::legacy();
//! let local = 5;
//! let borrowed = &local;
//! let _ = stream.launch_repeatable_host_func(move || {
//!     println!("{borrowed}");
//! });
//! ```
//!
//! ```compile_fail,E0277
//! let stream = cudart13::Stream::legacy();
//! let shared = std::rc::Rc::new(5);
//! let _ = stream.launch_repeatable_host_func(move || {
//!     let _ = &shared;
//! });
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
//!     let pool = cudart13::MemPool::new_shareable(cudart13::Device::get(0).unwrap()).unwrap();
//!     let export = cudart13::memory::PoolPointerExport::from_bytes([0; 72]);
//!     let _ = pool.import_pointer::<u8>(export, &cudart13::Stream::legacy());
//! }
//! ```
