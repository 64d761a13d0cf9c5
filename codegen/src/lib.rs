//! `codegen`: reads the CUDA Runtime API documentation into an intermediate model, merges
//! several documents into one, and (later stages) joins it with an ABI source and emits the
//! `runtime` crate.
//!
//! Data flow: [`parse`] (one document → [`ir::Api`]) → [`merge`] (several → one) →
//! join → emit. Every problem found on the way is a [`diag::Diagnostic`] with `file:line`.

pub mod diag;
pub mod diff;
pub mod ir;
pub mod load;
pub mod merge;
pub mod parse;
pub mod report;
pub mod summary;
pub mod types;
