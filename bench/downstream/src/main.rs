//! `bench/benches/calls.rs` in a crate of its own with the default release profile: see
//! `Cargo.toml`.
#[path = "../../benches/calls.rs"]
mod calls;

fn main() {
    calls::main();
}
