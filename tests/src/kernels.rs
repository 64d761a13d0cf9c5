//! PTX kernels the GPU suites share, written by hand (no CUDA compiler at build time).

/// `add_one(u32* data, u32 n)`: `data[i] += 1` for `i < n` (PTX 7.0, sm_70: the driver compiles
/// it for the GPU at hand). Used by `gpu`, `gpu_safe` and `gpu_multi`; the file is the
/// `graph_capture` example's, so that the example and the suites run one kernel.
pub const ADD_ONE_PTX: &str = include_str!("../../examples/examples/add_one.ptx");
