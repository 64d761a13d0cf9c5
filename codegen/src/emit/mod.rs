//! Emitting the `runtime` crate's generated files from the bindings model.
//!
//! Output is split by category, as `ash` does: see the submodules. [`files`] formats and
//! writes (or checks) them.

pub mod files;
