//! The committed generated files are what the generator makes now (as rust-analyzer checks
//! its generated syntax files): `cargo xtask codegen --check` as a test.

use std::path::PathBuf;

#[test]
fn generated_files_are_fresh() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let opts = codegen::pipeline::Options::workspace(&root, true);
    match codegen::pipeline::run(&opts) {
        Ok(report) => assert!(
            !report.bindings.functions.is_empty(),
            "the generator bound no function"
        ),
        Err(e) => panic!("{e}"),
    }
}
