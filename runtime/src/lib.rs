//! CUDA Runtime API bindings generated from the CUDA Runtime documentation.
//!
//! The crate is being built; see the workspace README.
