// Destroying a stream a `Stream` may own: `unsafe` by rule (and by its handle).
fn main() {
    let _ = cudart13::api::stream_destroy(cudart13::api::cudaStream_t::null());
}
