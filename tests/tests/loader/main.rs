//! The crates' loader against real and damaged libraries, without a GPU: one binary. The
//! library a process loads is process-wide, so every case that loads the global library other
//! than [`wheel`]'s one runs in a child process of this binary.
//!
//! - [`wheel`]: the loader against the wheel's `libcudart.so.13` (`CUDART_WHEEL_LIB`), and the
//!   places it searches (`CUDART_PATH`, Python environments, `$CONDA_PREFIX/lib`);
//! - [`robust`]: damaged and stand-in libraries, refused or answered without a crash;
//! - [`release`]: one crate for every minor, against NVIDIA's 13.0 runtime and its own
//!   release's.

mod release;
mod robust;
mod wheel;
