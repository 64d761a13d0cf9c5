//! The command line's integration tests, one binary (each module is one test file).

#[path = "coverage_cli.rs"]
mod coverage_cli;
#[path = "diff_cli.rs"]
mod diff_cli;
#[path = "outputs_cli.rs"]
mod outputs_cli;
#[path = "robust_cli.rs"]
mod robust_cli;
