//! An executable graph updated in place 1,000 times (`GraphExec::update`), each time from a
//! new graph whose memset node names a new device buffer and whose host node owns a new
//! closure. Every closure carries a token counted while alive: what the executable graph
//! holds must stay bounded — each replaced graph's buffer and closure are let go once the
//! launches made before the update have completed. Prints the live count every 100 updates
//! and checks it stays small; checks a refused update names its reason and keeps the graph
//! working.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudart13::{Device, DeviceBuffer, Error, Graph, Result, Stream};

const UPDATES: usize = 1000;
/// Closures that may still be alive at a check: the current one and those of launches not
/// yet completed (the check waits for the stream first, then gives the release thread time).
const BOUND: usize = 4;

/// Counted while alive.
struct Token(Arc<AtomicUsize>);

impl Drop for Token {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn graph_of(stream: &Stream, live: &Arc<AtomicUsize>, ran: &Arc<AtomicUsize>) -> Result<Graph> {
    let graph = Graph::new()?;
    let mut buf = DeviceBuffer::<u8>::new(4096, stream)?;
    let set = graph.add_memset_node(&[], &mut buf, 1)?;
    live.fetch_add(1, Ordering::SeqCst);
    let token = Token(live.clone());
    let ran = ran.clone();
    graph.add_host_node(&[set], move || {
        let _ = &token;
        ran.fetch_add(1, Ordering::SeqCst);
    })?;
    Ok(graph) // `buf` is dropped here: the graph holds it
}

/// The live count once the stream is idle and the release thread caught up (up to 2 s).
fn settled(stream: &Stream, live: &AtomicUsize) -> Result<usize> {
    stream.synchronize()?;
    let start = Instant::now();
    while live.load(Ordering::SeqCst) > 1 && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(live.load(Ordering::SeqCst))
}

fn main() -> Result<()> {
    Device::get(0)?.set_current()?;
    let stream = Stream::non_blocking()?;
    let live = Arc::new(AtomicUsize::new(0));
    let ran = Arc::new(AtomicUsize::new(0));
    let exec = graph_of(&stream, &live, &ran)?.instantiate()?;
    let mut most = 0;
    for i in 1..=UPDATES {
        exec.launch(&stream)?;
        exec.update(&graph_of(&stream, &live, &ran)?)?;
        most = most.max(live.load(Ordering::SeqCst));
        if i % 100 == 0 {
            let now = settled(&stream, &live)?;
            println!("{i} updates: {now} held closure(s) alive (most seen: {most})");
            if now > BOUND {
                eprintln!("FAILED: {now} closures alive after {i} updates, bound {BOUND}");
                std::process::exit(1);
            }
        }
    }
    exec.launch(&stream)?;
    let now = settled(&stream, &live)?;
    println!(
        "after {UPDATES} updates and {} launches: {now} held, host nodes ran {} times",
        UPDATES + 1,
        ran.load(Ordering::SeqCst)
    );
    if now > BOUND || ran.load(Ordering::SeqCst) != UPDATES + 1 {
        eprintln!("FAILED");
        std::process::exit(1);
    }
    // A refused update (another topology) names its reason and changes nothing.
    let other = Graph::new()?;
    other.add_empty_node(&[])?;
    match exec.update(&other) {
        Err(Error::GraphUpdate(why)) => println!("refused as expected: {why}"),
        other => {
            eprintln!("FAILED: a changed topology gave {other:?}");
            std::process::exit(1);
        }
    }
    exec.launch(&stream)?;
    stream.synchronize()?;
    drop(exec);
    let left = settled(&stream, &live)?;
    let start = Instant::now();
    while live.load(Ordering::SeqCst) > 0 && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(5));
    }
    println!(
        "executable graph dropped: {} held (was {left})",
        live.load(Ordering::SeqCst)
    );
    if live.load(Ordering::SeqCst) != 0 {
        eprintln!("FAILED: closures outlive the executable graph");
        std::process::exit(1);
    }
    println!("checked: {UPDATES} in-place updates, at most {most} closures held at once");
    Ok(())
}
