//! Contracts of the generated crate (`cudart13`) that the type system enforces, checked with
//! trybuild: each program under `tests/compile-fail/` must fail to compile with the error
//! its `.stderr` holds. The typed functions that destroy or invalidate what the safe layer
//! owns, or change what a stream's work is ordered after, are `unsafe` by the generator's
//! rules (`codegen::bind::unsafe_rules`), and opening a library is `unsafe`. After a compiler
//! upgrade changes the messages, `TRYBUILD=overwrite cargo test -p workspace-tests --test
//! compile_fail` rewrites the `.stderr` files (review the diff: the error must stay E0133).

#[test]
fn unsafe_by_rule_functions_and_library_open_need_unsafe() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("compile-fail/*.rs");
}
