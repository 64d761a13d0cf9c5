//! A graph with a conditional *while* node (`Graph::add_conditional_node`, CUDA 12.3+): the
//! body runs a kernel that counts a device counter down and sets the node's condition
//! (`cudaGraphSetConditional`) to whether it is still non-zero, so one launch of the graph
//! loops on the device with no host round trip. The handle's default value 1 starts every
//! launch inside the loop. A memset before the node resets the counter; a copy after it
//! downloads the state. Checks that each launch ran the body exactly `ROUNDS` times.
use cudart13::graph::Conditional;
use cudart13::{Device, DeviceBuffer, Graph, Launch, LaunchConfig, Module, PinnedBuffer};
use cudart13::{Result, Stream};

/// `step(unsigned* state, unsigned long long handle)`.
const PTX: &str = include_str!("graph_while_loop.ptx");

const ROUNDS: u32 = 10;
const LAUNCHES: usize = 3;

fn main() -> Result<()> {
    Device::get(0)?.set_current()?;
    let step = Module::from_ptx(PTX)?.kernel("step")?;
    let stream = Stream::non_blocking()?;
    // state[0]: the countdown; state[1]: how many times the body ran.
    let mut state = DeviceBuffer::<u32>::zeroed(2, &stream)?;
    let init = DeviceBuffer::from_slice(&[ROUNDS, 0], &stream)?;
    let mut host = PinnedBuffer::<u32>::new(2)?;

    let graph = Graph::new()?;
    let reset = graph.add_copy_node(&[], &mut state, &init)?;
    let handle = graph.conditional_handle(Some(1))?;
    let cond = graph.add_conditional_node(&[reset], handle, Conditional::While)?;
    let h = handle.as_raw();
    // SAFETY: `step` takes (unsigned*, unsigned long long) and runs on one thread; `state`
    // holds two elements and the body graph holds it for every launch.
    unsafe {
        cond.bodies()[0].add_kernel_node(
            &[],
            Launch::new(&step)
                .config(LaunchConfig::new(1, 1)?)
                .args((&state, &h)),
        )?;
    }
    let node = cond.node();
    graph.add_copy_to_pinned_node(&[node], &mut host, &state)?;
    println!(
        "graph: {} nodes, body: {} node(s)",
        graph.node_count()?,
        cond.bodies()[0].node_count()?
    );
    let exec = graph.instantiate()?;
    drop(cond);
    drop(graph);
    for launch in 1..=LAUNCHES {
        exec.launch(&stream)?;
        let got = host.to_vec()?; // waits for the launch
        println!(
            "launch {launch}: counter {}, body ran {} times",
            got[0], got[1]
        );
        if got != [0, ROUNDS] {
            eprintln!("FAILED: expected counter 0 and {ROUNDS} runs of the body");
            std::process::exit(1);
        }
    }
    println!("checked: the while node looped {ROUNDS} times in each of {LAUNCHES} launches");
    Ok(())
}
