//! The typed layer (`cudart13::api`) on a real GPU: one binary for both suites.
//!
//! - [`typed`]: end-to-end tests of the typed API;
//! - [`peer`]: the peer projects' runtime tests (cuda-python, CuPy), ported to the typed layer.
//!
//! They are ignored off the GPU machine (`#[ignore = "needs a GPU: …"]`); `scripts/gpu-test.sh`
//! builds this binary and says how to run it on a GPU machine
//! (`./device-bin/gpu --include-ignored --test-threads=1`). The safe layer's suites
//! (`gpu_safe`, and `gpu_multi` on two GPUs) are binaries of their own: they install
//! process-wide allocators and hooks, and compute-sanitizer runs them binary by binary
//! (`scripts/gpu-sanitize.sh`).

mod peer;
mod typed;
