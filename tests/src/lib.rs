//! Workspace-level integration tests; see the files under `tests/tests/`. The library holds
//! what several of them share: [`emulator`], the CUDA emulator's build and child-process
//! harness; [`child`], one test run alone in a child process; [`kernels`], the PTX the GPU suites share; [`mapped_library`], the shared
//! libraries this process maps; and [`contracts`], the generated crate's compile-time
//! contracts as doc tests.

pub mod child;
pub mod contracts;
pub mod emulator;
pub mod kernels;
pub mod mapped_library;
