//! The committed crates are what the generator makes now (as rust-analyzer checks its
//! generated syntax files): `cargo xtask codegen --check` as a test, for every `[[crate]]` of
//! `docs-src/manifest.toml`.

use std::path::PathBuf;

#[test]
fn generated_crates_are_fresh() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let runs = codegen::pipeline::Options::workspace(&root, true).expect("the manifest reads");
    assert!(!runs.is_empty(), "the manifest lists no crate");
    for opts in &runs {
        match codegen::pipeline::run(opts) {
            Ok(report) => assert!(
                !report.bindings.functions.is_empty(),
                "the generator bound no function for {}",
                report.package.name
            ),
            Err(e) => panic!("{}: {e}", opts.out_dir.display()),
        }
    }
}
