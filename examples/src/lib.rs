//! Example applications of the safe layer of `cudart13`, in `examples/`: `device_query`,
//! `vector_add`, `stream_timing`, `graph_capture` and `pool_stats`. Each is self-contained,
//! checks its results and exits with a non-zero status on a mismatch. Run one with
//! `cargo run -p cudart-examples --example vector_add` on a machine with a GPU.
