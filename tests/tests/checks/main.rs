//! Checks of the committed files and the audits that load no CUDA library into this process:
//! one test binary for all of them.
//!
//! - [`freshness`]: the committed crates are what the generator makes now;
//! - [`generated_docs`]: no reStructuredText left in the generated doc comments;
//! - [`since_marks`]: the crates' since-marks against the ABI snapshots of every minor;
//! - [`coverage_live`]: the coverage audit against the real library of NVIDIA's wheel;
//! - [`html_report_browser`]: the HTML reports in a real browser;
//! - [`public_api`]: the generated crates' public item lists against `tests/public-api/`.

mod coverage_live;
mod freshness;
mod generated_docs;
mod html_report_browser;
mod public_api;
mod since_marks;
