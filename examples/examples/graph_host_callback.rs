//! A host callback captured into a graph: `Stream::launch_repeatable_host_func` on a stream
//! being captured becomes a host node, which the graph (and every executable graph made from
//! it) holds. The graph is dropped before the launches; the callback still runs once per
//! launch, after the captured memset and before the captured download, and sees the
//! launch's order. Checks the run count and the downloaded data.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudart13::{CaptureMode, Device, DeviceBuffer, PinnedBuffer, Result, Stream};

const LAUNCHES: usize = 10;

fn main() -> Result<()> {
    Device::get(0)?.set_current()?;
    let stream = Stream::non_blocking()?;
    let mut data = DeviceBuffer::<u8>::zeroed(1 << 16, &stream)?;
    let mut host = PinnedBuffer::<u8>::new(1 << 16)?;
    let runs = Arc::new(AtomicUsize::new(0));
    let seen = runs.clone();
    let graph = stream.capture(CaptureMode::THREAD_LOCAL, |s| {
        data.memset(0x5a, s)?;
        s.launch_repeatable_host_func(move || {
            seen.fetch_add(1, Ordering::SeqCst);
        })?;
        data.copy_to_pinned_async(&mut host, s)
    })?;
    println!("captured graph: {} nodes", graph.node_count()?);
    let exec = graph.instantiate()?;
    drop(graph); // the executable graph holds the callback from here on
    for _ in 0..LAUNCHES {
        exec.launch(&stream)?;
    }
    stream.synchronize()?;
    let n = runs.load(Ordering::SeqCst);
    println!("host callback ran {n} times in {LAUNCHES} launches");
    if n != LAUNCHES {
        eprintln!("FAILED: expected {LAUNCHES} runs");
        std::process::exit(1);
    }
    if host.as_slice()?.iter().any(|b| *b != 0x5a) {
        eprintln!("FAILED: the captured download did not see the memset");
        std::process::exit(1);
    }
    println!("checked: {} bytes = 0x5a", host.len());
    Ok(())
}
