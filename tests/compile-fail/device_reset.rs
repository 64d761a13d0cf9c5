// Resetting the device destroys every handle the safe layer holds for it: `unsafe` by rule.
fn main() {
    let _ = cudart13::api::device_reset();
}
