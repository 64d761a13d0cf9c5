//! The typed and safe layers against the real `libcudart.so.13` of NVIDIA's wheel on a machine
//! without a GPU (`cargo xtask test` sets `CUDART_WHEEL_LIB`): one process, one library, loaded
//! once; the cases without a library run in child processes of this binary.
//!
//! - [`typed_cpu`]: the typed layer (`cudart13::api`);
//! - [`safe_cpu`]: the safe layer.

mod safe_cpu;
mod typed_cpu;
