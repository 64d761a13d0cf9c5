//! Workspace-level integration tests; see the files under `tests/tests/`. The library holds
//! what several of them share: [`emulator`], the CUDA emulator's build and child-process
//! harness.

pub mod emulator;
