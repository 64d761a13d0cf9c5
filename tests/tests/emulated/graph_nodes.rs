//! Issue 43 (graphs): captured host functions held by the graph, bounded holdings of an
//! executable graph updated many times, node listing and types, parameter setters on a
//! graph's own nodes and on an executable graph's host nodes, pinned-to-pinned copy nodes,
//! and the result information of a refused update. Each program is without `unsafe`; a
//! closure freed while a launch may still run it is a use after free AddressSanitizer
//! reports.

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use cudart13::graph::{GraphNodeType, GraphUpdateResult};

/// Counted while alive.
struct Token(Arc<AtomicUsize>);

impl Token {
    fn new(live: &Arc<AtomicUsize>) -> Token {
        live.fetch_add(1, Ordering::SeqCst);
        Token(live.clone())
    }
}

impl Drop for Token {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Waits (up to 10 s) until `f` holds; whether it did.
fn eventually(f: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    while !f() {
        if start.elapsed() > Duration::from_secs(10) * emulator::time_scale() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    true
}

emulated! {
    /// A host function launched on a capturing stream becomes a host node the graph holds:
    /// the graph and the executable graph are dropped while three slow launches are queued,
    /// and the closure still runs three times, then goes.
    fn issue43b_captured_host_func_is_held_by_the_graph(emu) {
        let s = Stream::non_blocking()?;
        let live = Arc::new(AtomicUsize::new(0));
        let runs = Arc::new(AtomicUsize::new(0));
        let (token, seen) = (Token::new(&live), runs.clone());
        let mut buf = DeviceBuffer::<u8>::new(64, &s)?;
        // A FnOnce host function is still refused in a capture.
        let guard = s.begin_capture(CaptureMode::THREAD_LOCAL)?;
        assert!(matches!(
            guard.stream().launch_host_func(|| {}),
            Err(cudart13::Error::InvalidArgument(_))
        ));
        buf.memset(1, guard.stream())?;
        guard.stream().launch_repeatable_host_func(move || {
            let _ = &token;
            seen.fetch_add(1, Ordering::SeqCst);
        })?;
        let graph = guard.end()?;
        assert_eq!(graph.node_count()?, 2);
        let exec = graph.instantiate()?;
        drop(graph);
        slow(emu)?;
        for _ in 0..3 {
            exec.launch(&s)?;
        }
        drop(exec);
        assert_eq!(live.load(Ordering::SeqCst), 1, "held while launches are queued");
        s.synchronize()?;
        assert_eq!(runs.load(Ordering::SeqCst), 3);
        assert!(eventually(|| live.load(Ordering::SeqCst) == 0), "let go after the launches");
        // Not capturing: it runs once.
        let once = Arc::new(AtomicUsize::new(0));
        let seen = once.clone();
        s.launch_repeatable_host_func(move || {
            seen.fetch_add(1, Ordering::SeqCst);
        })?;
        s.synchronize()?;
        assert_eq!(once.load(Ordering::SeqCst), 1);
        Ok(())
    }
}

emulated! {
    /// An executable graph updated 1,000 times from new graphs (a memset of a new buffer, a
    /// host node with a new closure) while it is launched: what it holds stays bounded, and
    /// the replaced graphs' closures run for the launches made before their update.
    fn issue43b_update_1000_times_holds_a_bounded_set(_emu) {
        let s = Stream::non_blocking()?;
        let live = Arc::new(AtomicUsize::new(0));
        let runs = Arc::new(AtomicUsize::new(0));
        let make = || -> Result<Graph, Box<dyn Error>> {
            let graph = Graph::new()?;
            let mut buf = DeviceBuffer::<u8>::new(256, &s)?;
            let set = graph.add_memset_node(&[], &mut buf, 3)?;
            let (token, seen) = (Token::new(&live), runs.clone());
            graph.add_host_node(&[set], move || {
                let _ = &token;
                seen.fetch_add(1, Ordering::SeqCst);
            })?;
            Ok(graph)
        };
        let exec = make()?.instantiate()?;
        let mut most = 0;
        for i in 1..=1000 {
            exec.launch(&s)?;
            exec.update(&make()?)?;
            most = most.max(live.load(Ordering::SeqCst));
            if i % 250 == 0 {
                s.synchronize()?;
                assert!(
                    eventually(|| live.load(Ordering::SeqCst) <= 1),
                    "{} closures alive after {i} updates",
                    live.load(Ordering::SeqCst)
                );
            }
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1000);
        // Between two waits, at most the 250 updates whose launches may still be queued.
        assert!(most <= 251, "at most {most} closures alive at once");
        drop(exec);
        assert!(eventually(|| live.load(Ordering::SeqCst) == 0));
        Ok(())
    }
}

emulated! {
    /// Nodes, edges and types of a graph; setters on its own memset and host nodes and on an
    /// executable graph's host node; a refused update names its reason and node.
    fn issue43b_nodes_edges_setters_and_update_info(_emu) {
        let s = Stream::non_blocking()?;
        let mut a = DeviceBuffer::<u8>::zeroed(64, &s)?;
        let mut b = DeviceBuffer::<u8>::zeroed(64, &s)?;
        let which = Arc::new(AtomicUsize::new(0));
        let graph = Graph::new()?;
        let set = graph.add_memset_node(&[], &mut a, 1)?;
        let w = which.clone();
        let host = graph.add_host_node(&[set], move || w.store(1, Ordering::SeqCst))?;
        assert_eq!(graph.nodes()?, vec![set, host]);
        assert_eq!(graph.root_nodes()?, vec![set]);
        let edges = graph.edges()?;
        assert_eq!(edges.len(), 1);
        assert_eq!((edges[0].from, edges[0].to), (set, host));
        assert_eq!(set.node_type()?, GraphNodeType::MEMSET);
        assert_eq!(host.node_type()?, GraphNodeType::HOST);
        // The graph's own nodes: later instantiations set `b` and run the new closure.
        graph.set_memset_node(set, &mut b, 9)?;
        let w = which.clone();
        graph.set_host_node(host, move || w.store(2, Ordering::SeqCst))?;
        let exec = graph.instantiate()?;
        exec.launch(&s)?;
        s.synchronize()?;
        assert_eq!(which.load(Ordering::SeqCst), 2);
        assert_eq!(b.to_vec()?, vec![9; 64]);
        assert_eq!(a.to_vec()?, vec![0; 64]);
        // The executable graph's host node.
        let w = which.clone();
        exec.set_host_node(host, move || w.store(3, Ordering::SeqCst))?;
        exec.launch(&s)?;
        s.synchronize()?;
        assert_eq!(which.load(Ordering::SeqCst), 3);
        exec.set_memset_node(set, &mut a, 4)?;
        exec.launch(&s)?;
        assert_eq!(a.to_vec()?, vec![4; 64]);
        // A child-graph node set in place (the same topology), and a removal the emulator
        // does not model refused as unsupported.
        let (child, other_child) = (Graph::new()?, Graph::new()?);
        child.add_memset_node(&[], &mut a, 5)?;
        other_child.add_memset_node(&[], &mut b, 6)?;
        let mut parent = Graph::new()?;
        let node = parent.add_child_graph_node(&[], &child)?;
        let parent_exec = parent.instantiate()?;
        parent_exec.set_child_graph_node(node, &other_child)?;
        drop(other_child); // the executable graph holds what it used
        parent_exec.launch(&s)?;
        assert_eq!(b.to_vec()?, vec![6; 64]);
        assert_eq!(node.node_type()?, GraphNodeType::GRAPH);
        let id = node.id();
        assert_eq!(parent.remove_node(id).unwrap_err().cuda_code(), Some(801));
        // A refused update: another topology.
        let other = Graph::new()?;
        let x = other.add_empty_node(&[])?;
        let y = other.add_empty_node(&[x])?;
        let extra = other.add_empty_node(&[y])?;
        match exec.update(&other) {
            Err(cudart13::Error::GraphUpdate(why)) => {
                assert_eq!(why.reason, GraphUpdateResult::ERROR_TOPOLOGY_CHANGED);
                assert_eq!(why.node, Some(extra.id()));
                assert!(why.to_string().contains("cudaGraphExecUpdateErrorTopologyChanged"));
            }
            other => panic!("expected a refused update, got {other:?}"),
        }
        let refused = exec.update(&other).unwrap_err();
        assert_eq!(refused.cuda_code(), Some(910));
        exec.launch(&s)?;
        s.synchronize()?;
        assert_eq!(which.load(Ordering::SeqCst), 3, "unchanged by the refused update");
        Ok(())
    }
}

emulated! {
    /// A pinned-to-pinned copy node: the graph holds both buffers; a view of the destination
    /// waits for the launch, and a launch is refused while it is alive.
    fn issue43b_pinned_to_pinned_copy_node(emu) {
        let s = Stream::non_blocking()?;
        let src = PinnedBuffer::from_slice(&[5u32; 256])?;
        let mut dst = PinnedBuffer::<u32>::new(256)?;
        let graph = Graph::new()?;
        graph.add_copy_pinned_node(&[], &mut dst, &src)?;
        let exec = graph.instantiate()?;
        drop(graph);
        slow(emu)?;
        exec.launch(&s)?;
        drop(src); // the executable graph holds it
        let view = dst.as_slice()?;
        assert!(view.iter().all(|v| *v == 5), "the view waited for the launch");
        assert!(exec.launch(&s).is_err(), "a view of the destination is alive");
        drop(view);
        exec.launch(&s)?;
        Ok(())
    }
}
