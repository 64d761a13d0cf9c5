//! `nvrtc13` against real NVRTC libraries, without a GPU (NVRTC runs on the CPU). The library
//! is loaded once per process, so each library other than the wheel's runs in a child process
//! of this binary ([`in_own_process`]).
//!
//! - [`wheel`]: the safe layer against the wheel's `libnvrtc.so.13` (`NVRTC_WHEEL_LIB`);
//! - [`older`]: one crate for every minor, against NVRTC 13.2 (`NVRTC_OLDER_LIB`);
//! - [`link`]: its LTO-IR, PTX and cubins linked by `nvjitlink13` (`NVJITLINK_WHEEL_LIB`);
//! - [`no_library`]: every call an error, none a panic, where NVRTC cannot be loaded.

mod link;
mod no_library;
mod older;
mod wheel;

/// The variable that tells a child test it runs in a process of its own.
const CHILD_VAR: &str = "NVRTC_TEST_CHILD";

/// Whether this process is a child started by [`in_own_process`] (a child test run in the
/// parent's process by `--include-ignored` does nothing).
fn is_child() -> bool {
    std::env::var_os(CHILD_VAR).is_some()
}

/// Runs the ignored test `name` (its path in this binary) alone in a child process of this
/// binary ([`workspace_tests::child::run`]).
fn in_own_process(name: &str) {
    workspace_tests::child::run(name, |cmd| {
        cmd.env(CHILD_VAR, "1");
    });
}
