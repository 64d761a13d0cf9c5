//! The command line's integration tests, one binary (each module is one test file).

#[path = "coverage_cli.rs"]
mod coverage_cli;
#[path = "diff_cli.rs"]
mod diff_cli;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[path = "../../tests/src/mapped_library.rs"]
mod mapped_library;
#[path = "outputs_cli.rs"]
mod outputs_cli;
#[path = "robust_cli.rs"]
mod robust_cli;
