// Re-recording an event the safe layer waits on: `unsafe` by rule.
fn main() {
    let _ = cudart13::api::event_record(
        cudart13::api::cudaEvent_t::null(),
        cudart13::api::cudaStream_t::null(),
    );
}
