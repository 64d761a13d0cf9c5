//! `codegen`: reads the CUDA Runtime API documentation into an intermediate model, merges
//! several documents into one, and (later stages) joins it with an ABI source and emits the
//! `runtime` crate.
//!
//! Data flow: [`parse`] (one document → [`ir::Api`]) → [`merge`] (several → one) →
//! [`bind`] (join with the [`abi`] model) → [`emit`]; [`pipeline`] runs them all for
//! `cargo xtask codegen`. [`diff`] compares two IRs, [`coverage`] audits docs × ABI × a live
//! library's exports, and [`report`] renders reports.
//! Every problem found on the way is a [`diag::Diagnostic`] with `file:line`.

pub mod abi;
pub mod bind;
pub mod clock;
pub mod coverage;
pub mod diag;
pub mod diff;
pub mod emit;
pub mod ir;
pub mod load;
pub mod merge;
pub mod parse;
pub mod pipeline;
pub mod report;
pub mod rustdoc;
pub mod summary;
pub mod template;
pub mod text;
pub mod types;
