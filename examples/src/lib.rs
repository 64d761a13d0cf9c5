//! Example applications of the safe layer of `cudart13`, in `examples/`: `device_query`,
//! `vector_add`, `stream_timing`, `graph_capture`, `pool_stats`, `graph_while_loop` (a conditional
//! while node), `graph_host_callback` (a host function captured into a graph),
//! `graph_update_bounded` (1,000 in-place updates with bounded holdings) and `ipc_pool` (two
//! processes sharing a memory pool's allocations). Each is self-contained,
//! checks its results and exits with a non-zero status on a mismatch. Run one with
//! `cargo run -p cudart-examples --example vector_add` on a machine with a GPU.
