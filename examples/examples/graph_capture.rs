//! Graphs two ways: captured from a stream (memset + kernel + device copy + pinned
//! download) and built explicitly (memset, kernel, copy, host-closure, empty and child
//! nodes); instantiated, uploaded, replayed and updated in place. Checks the data after the
//! replays and that the host node ran once per launch.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudart13::{CaptureMode, Device, DeviceBuffer, Graph, LaunchConfig, Module, PinnedBuffer};
use cudart13::{Result, Stream};

/// `add_one(unsigned* data, unsigned n)`: `data[i] += 1`.
const PTX: &str = include_str!("add_one.ptx");

const N: usize = 1 << 20;

fn expect(what: &str, got: &[u32], value: u32) {
    match got.iter().position(|v| *v != value) {
        None => println!("checked {what}: all {} elements = {value:#x}", got.len()),
        Some(i) => {
            eprintln!(
                "FAILED {what}: element {i} = {:#x}, expected {value:#x}",
                got[i]
            );
            std::process::exit(1);
        }
    }
}

fn main() -> Result<()> {
    Device::get(0)?.set_current()?;
    let add_one = Module::from_ptx(PTX)?.kernel("add_one")?;
    let stream = Stream::non_blocking()?;
    let (n, config) = (N as u32, LaunchConfig::for_num_elems(N as u32));
    let mut data = DeviceBuffer::<u32>::zeroed(N, &stream)?;
    let mut copy = DeviceBuffer::<u32>::zeroed(N, &stream)?;
    let mut host = PinnedBuffer::<u32>::new(N)?;

    // 1. Capture: data = 0x01010101, +1, copied to `copy`, downloaded to `host`.
    let captured = stream.capture(CaptureMode::THREAD_LOCAL, |s| {
        data.memset(1, s)?;
        // SAFETY: add_one takes (unsigned*, unsigned); `data` holds n elements.
        unsafe { add_one.launch(s, config, (&data, &n))? };
        copy.copy_from_device(&data, s)?;
        copy.copy_to_pinned_async(&mut host, s)
    })?;
    println!("captured graph: {} nodes", captured.node_count()?);
    let exec = captured.instantiate()?;
    exec.upload(&stream)?;
    for _ in 0..5 {
        exec.launch(&stream)?;
    }
    expect(
        "5 replays of the captured graph",
        &host.as_slice()?,
        0x0101_0102,
    );

    // 2. Explicit: memset -> kernel -> copy -> host node, with an empty node and a child.
    let launches = Arc::new(AtomicUsize::new(0));
    let graph = Graph::new()?;
    let set = graph.add_memset_node(&[], &mut data, 2)?;
    // SAFETY: as above; `data` outlives every launch of the graph.
    let kernel = unsafe {
        graph.add_kernel_node(
            &[set],
            stream.launch(&add_one).config(config).args((&data, &n)),
        )?
    };
    let copied = graph.add_copy_node(&[kernel], &mut copy, &data)?;
    let counter = launches.clone();
    let host_node = graph.add_host_node(&[copied], move || {
        counter.fetch_add(1, Ordering::SeqCst);
    })?;
    let join = graph.add_empty_node(&[host_node])?;
    let child = Graph::new()?;
    child.add_empty_node(&[])?;
    graph.add_child_graph_node(&[join], &child)?;
    println!(
        "explicit graph: {} nodes, {} root",
        graph.node_count()?,
        graph.root_count()?
    );
    if graph.node_count()? != 6 || graph.root_count()? != 1 {
        eprintln!("FAILED: node and root counts");
        std::process::exit(1);
    }
    let exec = graph.instantiate()?;
    for _ in 0..3 {
        exec.launch(&stream)?;
    }
    stream.synchronize()?;
    expect(
        "3 launches of the explicit graph",
        &copy.to_vec()?,
        0x0202_0203,
    );
    if launches.load(Ordering::SeqCst) != 3 {
        eprintln!(
            "FAILED: the host node ran {} times, not 3",
            launches.load(Ordering::SeqCst)
        );
        std::process::exit(1);
    }
    println!("checked: the host closure ran once per launch");

    // 3. Update in place: the same topology with another memset value.
    let updated = Graph::new()?;
    let set = updated.add_memset_node(&[], &mut data, 7)?;
    // SAFETY: as above.
    let kernel = unsafe {
        updated.add_kernel_node(
            &[set],
            stream.launch(&add_one).config(config).args((&data, &n)),
        )?
    };
    let copied = updated.add_copy_node(&[kernel], &mut copy, &data)?;
    let counter = launches.clone();
    let host_node = updated.add_host_node(&[copied], move || {
        counter.fetch_add(1, Ordering::SeqCst);
    })?;
    let join = updated.add_empty_node(&[host_node])?;
    updated.add_child_graph_node(&[join], &child)?;
    exec.update(&updated)?;
    exec.launch(&stream)?;
    stream.synchronize()?;
    expect("the updated graph", &copy.to_vec()?, 0x0707_0708);
    println!("graph_capture: all checks passed");
    Ok(())
}
