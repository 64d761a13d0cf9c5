//! `codegen`: reads the CUDA Runtime API documentation into an intermediate model, merges
//! several documents into one, joins it with the release's ABI and emits a complete crate
//! (`cudart13`, `cudart12`, or any name and release given).
//!
//! Data flow: [`parse`] (one document → [`ir::Api`]) → [`merge`] (several → one) →
//! [`bind`] (join with the [`abi`] model) → [`emit`]; [`pipeline`] runs them all for
//! `cargo xtask codegen`. [`diff`] compares two IRs, [`coverage`] audits docs × ABI × a live
//! library's exports, and [`report`] renders reports.
//! Every problem found on the way is a [`diag::Diagnostic`] with `file:line`.

// The generator's modules document how they work together, linking private items (read with
// `cargo doc --document-private-items`); a plain `cargo doc` leaves those links as text.
#![allow(rustdoc::private_intra_doc_links)]

pub mod abi;
pub mod availability;
pub mod bind;
pub mod clock;
pub mod coverage;
pub mod diag;
pub mod diff;
pub mod doctype;
pub mod emit;
pub mod ir;
pub mod library;
pub mod load;
pub mod merge;
pub mod output;
pub mod parallel;
pub mod param_renames;
pub mod parse;
pub mod pipeline;
pub mod report;
pub mod rustdoc;
pub mod since;
pub mod summary;
pub mod template;
pub mod text;
pub mod timeline;
