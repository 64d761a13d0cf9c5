// Copied by `cargo xtask codegen` from the generator's codegen/template/src/graph.rs:
// edit the template, not this copy.

//! CUDA graphs: capture of a stream's work ([`Stream::begin_capture`] → [`CaptureGuard`] →
//! [`Graph`]), explicit construction (empty, kernel, memset, memcpy, host-closure, child
//! graph, event record and event wait nodes), instantiation into a [`GraphExec`], upload,
//! launch, whole-graph update and updates of one node's parameters (kernel, copy and event
//! nodes) in an executable graph; the graph memory pool's statistics are
//! [`Device::graph_mem_stats`](crate::Device::graph_mem_stats).
//!
//! [`Graph`] and [`GraphExec`] are owned and destroyed on drop. They are `Send` but not
//! `Sync`: CUDA does not synchronise graph objects internally, and calls on one graph (even
//! ones that look read-only, as instantiation) must not run concurrently (CUDA Runtime API,
//! "Graph object thread safety"). Nodes are `Copy` handles that borrow their graph.
//!
//! What a graph keeps: everything its nodes use that this crate owns — device buffers and
//! pinned buffers named by explicit nodes or used by captured work (found through the
//! capturing stream's capture info, whichever stream of a fork-join capture the work went
//! to), Rust closures of host nodes, the modules of captured kernels — is owned by the graph:
//! it lives as long as the graph and every executable graph, clone and parent graph made from
//! it, and every launch of those (an executable graph dropped while launches are pending lets
//! go once the streams it was launched on have passed them). Dropping a buffer a graph uses
//! only gives up the buffer's own reference. A node's new parameters in an executable graph
//! ([`GraphExec::set_kernel_node_params`], …) are kept the same way, by the executable
//! graph; what the node's previous parameters used is let go once the launches made before
//! the change have completed. The crate keeps these in a table of its own per
//! graph rather than in CUDA user objects, which made every launch of a graph holding one
//! about 3.4 µs slower on an H100 (5.3 µs instead of 2.0 µs): so a graph handle passed to the
//! typed layer (`api`) cannot be changed there in ways that add work (those functions are
//! `unsafe`).
//!
//! Host memory a graph writes: while any graph holds a
//! [`PinnedBuffer`](crate::PinnedBuffer), [`GraphExec::launch`] and host views of such buffers
//! exclude each other: a launch fails while a view is alive, and a view waits for the
//! launches before it (see [`PinnedBuffer`](crate::PinnedBuffer)).

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_ulonglong, c_void};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{report_drop_error, status, Error, Result};
use crate::event::Event;
use crate::kernel::Launch;
use crate::memory::track::{Access, Capture, StreamKey, Uses, WHOLE};
use crate::memory::{
    AsDeviceSlice, AsDeviceSliceMut, AsPinnedSlice, AsPinnedSliceMut, DeviceCopy, DeviceSlice,
    PinnedSlice,
};
use crate::stream::{run_caught, Stream};
use crate::sys;

/// How a capture restricts other threads' potentially unsafe CUDA calls
/// (`cudaStreamCaptureMode`: `GLOBAL`, `THREAD_LOCAL`, `RELAXED`).
pub type CaptureMode = sys::cudaStreamCaptureMode;

/// A CUDA graph (`cudaGraph_t`).
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{CaptureMode, DeviceBuffer, PinnedBuffer, Stream};
/// let stream = Stream::non_blocking()?;
/// let mut dev = DeviceBuffer::<f32>::new(1024, &stream)?;
/// let mut host = PinnedBuffer::<f32>::new(1024)?;
/// let graph = stream.capture(CaptureMode::GLOBAL, |s| {
///     dev.fill_zero(s)?;
///     dev.copy_to_pinned_async(&mut host, s)
/// })?;
/// let exec = graph.instantiate()?;
/// for _ in 0..10 {
///     exec.launch(&stream)?;
/// }
/// assert!(host.as_slice()?.iter().all(|v| *v == 0.0)); // waits for the launches
/// # Ok(()) }
/// ```
pub struct Graph {
    raw: sys::cudaGraph_t,
    /// What the graph keeps alive (see the module documentation).
    kept: Arc<KeptSet>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Graph").field(&self.raw).finish()
    }
}

/// Something a graph keeps alive: memory its nodes use, a host node's closure, a module.
pub(crate) type Kept = Box<dyn Any + Send + Sync>;

/// What one graph keeps, shared with the executable graphs, clones and parents made from it.
#[derive(Default)]
pub(crate) struct KeptSet {
    items: Mutex<Vec<Kept>>,
}

impl KeptSet {
    fn push(&self, item: Kept) {
        self.items
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(item);
    }
}

/// The keep sets of the graphs this crate knows (live [`Graph`]s, and graphs being captured,
/// found through the capturing stream's capture info), by handle.
fn graphs() -> std::sync::MutexGuard<'static, HashMap<usize, Arc<KeptSet>>> {
    static GRAPHS: OnceLock<Mutex<HashMap<usize, Arc<KeptSet>>>> = OnceLock::new();
    GRAPHS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// Makes `graph` keep `item` alive: a graph of this crate's, or one being captured (its
/// [`Graph`] takes the items over when the capture ends).
pub(crate) fn keep_in_graph(graph: sys::cudaGraph_t, item: Kept) -> Result<()> {
    let set = graphs().entry(graph.0 as usize).or_default().clone();
    set.push(item);
    Ok(())
}

/// The keep set of a graph just made, or just ended as a capture (taking over what captured
/// work gave it).
fn register(raw: sys::cudaGraph_t) -> Arc<KeptSet> {
    graphs().entry(raw.0 as usize).or_default().clone()
}

/// Captures begun through this crate and not yet ended, process-wide: while there are none,
/// no stream is capturing in a way the crate must see (a capture begun through the typed
/// layer is the caller's to account for), and operations skip the capture query.
static CAPTURES_ACTIVE: AtomicUsize = AtomicUsize::new(0);

/// The capture status the bookkeeping needs: [`capture_graph`] while a capture of this
/// crate's is active anywhere, otherwise [`Capture::No`] without asking CUDA. Read under the
/// stream's gate, so that no capture of this crate's begins on or joins the stream meanwhile.
#[inline]
pub(crate) fn capture_of(stream: &Stream) -> Result<Capture> {
    if CAPTURES_ACTIVE.load(Ordering::SeqCst) == 0 {
        return Ok(Capture::No);
    }
    capture_graph(stream)
}

// SAFETY: a graph may be used from any thread, one at a time (`!Sync`).
unsafe impl Send for Graph {}

/// A node of a [`Graph`], valid while the graph is borrowed.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{DeviceBuffer, Graph, Stream};
/// let stream = Stream::non_blocking()?;
/// let mut buf = DeviceBuffer::<u8>::new(256, &stream)?;
/// let graph = Graph::new()?;
/// let clear = graph.add_memset_node(&[], &mut buf, 0)?;
/// let after = graph.add_host_node(&[clear], || println!("cleared"))?; // runs after `clear`
/// assert_eq!(graph.root_count()?, 1);
/// # let _ = after; Ok(()) }
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphNode<'g> {
    raw: sys::cudaGraphNode_t,
    _graph: PhantomData<&'g Graph>,
}

impl GraphNode<'_> {
    /// The raw handle.
    pub fn as_raw(self) -> sys::cudaGraphNode_t {
        self.raw
    }
}

type HostNodeFn = Box<dyn Fn() + Send + Sync>;

/// One side of a copy node: a view of device memory, a part of a pinned buffer (which the
/// graph keeps alive), or host memory the caller keeps valid (the `unsafe` nodes).
enum Side<'a, T: DeviceCopy> {
    Device(DeviceSlice<'a, T>),
    Pinned(PinnedSlice<'a, T>),
    Host(*const T, usize),
}

impl<T: DeviceCopy> Side<'_, T> {
    fn len(&self) -> usize {
        match self {
            Side::Device(view) => view.len(),
            Side::Pinned(part) => part.len(),
            Side::Host(_, len) => *len,
        }
    }

    /// The address CUDA copies at (a host address for pinned and host memory).
    fn address(&self) -> *mut c_void {
        match self {
            Side::Device(view) => view.as_device_ptr().as_raw(),
            Side::Pinned(part) => part.as_ptr().cast_mut().cast(),
            Side::Host(ptr, _) => ptr.cast_mut().cast(),
        }
    }
}

/// A copy node's parameters: `src` to `dst`, sides of the same length, at least one of
/// them device memory.
struct Copy1d<'a, T: DeviceCopy> {
    dst: Side<'a, T>,
    src: Side<'a, T>,
}

impl<'a, T: DeviceCopy> Copy1d<'a, T> {
    /// The copy, or [`Error::InvalidArgument`] naming method `what` when the lengths differ
    /// (the device side's length is the one expected; the destination's when both are).
    fn new(what: &str, dst: Side<'a, T>, src: Side<'a, T>) -> Result<Copy1d<'a, T>> {
        if dst.len() != src.len() {
            let (expected, given) = match dst {
                Side::Device(_) => (dst.len(), src.len()),
                _ => (src.len(), dst.len()),
            };
            return Err(crate::memory::length_mismatch(what, expected, given));
        }
        Ok(Copy1d { dst, src })
    }

    /// Both sides, the destination first.
    fn sides(&self) -> [&Side<'a, T>; 2] {
        [&self.dst, &self.src]
    }

    fn bytes(&self) -> usize {
        self.dst.len() * std::mem::size_of::<T>()
    }

    /// CUDA's direction: device memory is on one side at least.
    fn kind(&self) -> sys::cudaMemcpyKind {
        match (&self.dst, &self.src) {
            (Side::Device(_), Side::Device(_)) => sys::cudaMemcpyKind::DEVICE_TO_DEVICE,
            (Side::Device(_), _) => sys::cudaMemcpyKind::HOST_TO_DEVICE,
            _ => sys::cudaMemcpyKind::DEVICE_TO_HOST,
        }
    }
}

impl Graph {
    /// An empty graph (`cudaGraphCreate`).
    #[doc(alias = "cudaGraphCreate")]
    pub fn new() -> Result<Graph> {
        let mut raw = sys::cudaGraph_t::null();
        // SAFETY: one handle is written; flags must be 0.
        status(unsafe { sys::cudaGraphCreate(&mut raw, 0) })?;
        Ok(Graph::owning(raw))
    }

    fn owning(raw: sys::cudaGraph_t) -> Graph {
        Graph {
            raw,
            kept: register(raw),
        }
    }

    /// Makes the graph keep `item` alive (for a node that uses it).
    pub(crate) fn keep(&self, item: Kept) {
        self.kept.push(item);
    }

    /// Takes ownership of a graph handle: destroyed when this value is dropped.
    ///
    /// # Safety
    /// `raw` is a live graph that nothing else destroys.
    pub unsafe fn from_raw(raw: sys::cudaGraph_t) -> Graph {
        Graph::owning(raw)
    }

    /// The raw handle; valid as long as this value exists.
    pub fn as_raw(&self) -> sys::cudaGraph_t {
        self.raw
    }

    /// The number of nodes (`cudaGraphGetNodes`).
    #[doc(alias = "cudaGraphGetNodes")]
    pub fn node_count(&self) -> Result<usize> {
        let mut n = 0usize;
        // SAFETY: with a null list, only the count is written.
        status(unsafe { sys::cudaGraphGetNodes(self.raw, std::ptr::null_mut(), &mut n) })?;
        Ok(n)
    }

    /// The number of nodes without dependencies (`cudaGraphGetRootNodes`).
    #[doc(alias = "cudaGraphGetRootNodes")]
    pub fn root_count(&self) -> Result<usize> {
        let mut n = 0usize;
        // SAFETY: with a null list, only the count is written.
        status(unsafe { sys::cudaGraphGetRootNodes(self.raw, std::ptr::null_mut(), &mut n) })?;
        Ok(n)
    }

    fn deps(deps: &[GraphNode<'_>]) -> *const sys::cudaGraphNode_t {
        if deps.is_empty() {
            std::ptr::null()
        } else {
            deps.as_ptr().cast()
        }
    }

    fn node(&self, raw: sys::cudaGraphNode_t) -> GraphNode<'_> {
        GraphNode {
            raw,
            _graph: PhantomData,
        }
    }

    /// A node that does nothing, for ordering (`cudaGraphAddEmptyNode`).
    #[doc(alias = "cudaGraphAddEmptyNode")]
    pub fn add_empty_node(&self, deps: &[GraphNode<'_>]) -> Result<GraphNode<'_>> {
        let mut node = sys::cudaGraphNode_t::null();
        // SAFETY: the graph and the dependency nodes (borrowing it) are alive.
        status(unsafe {
            sys::cudaGraphAddEmptyNode(&mut node, self.raw, Self::deps(deps), deps.len())
        })?;
        Ok(self.node(node))
    }

    /// A node that runs `f` on a CUDA host thread (`cudaGraphAddHostNode`), at every
    /// launch. CUDA forbids CUDA calls in `f`: calls of this crate there return
    /// [`Error::InCallback`]; a panic is caught and reported through the hook of
    /// [`set_drop_error_hook`](crate::error::set_drop_error_hook). The graph (and every
    /// executable graph and clone made from it) owns `f`.
    #[doc(alias = "cudaGraphAddHostNode")]
    pub fn add_host_node<F>(&self, deps: &[GraphNode<'_>], f: F) -> Result<GraphNode<'_>>
    where
        F: Fn() + Send + Sync + 'static,
    {
        let closure: Box<HostNodeFn> = Box::new(Box::new(f));
        let cell: *const HostNodeFn = &*closure;
        // The user object owns the closure from here on (also when retaining fails); the
        // box's contents do not move.
        self.keep(Box::new(HostNodeOwner(closure)));
        let params = sys::cudaHostNodeParams {
            fn_: Some(host_node_trampoline),
            userData: cell.cast_mut().cast(),
        };
        let mut node = sys::cudaGraphNode_t::null();
        // SAFETY: the trampoline matches `cudaHostFn_t`; `cell` lives as long as the graph
        // (and its executable graphs) through the user object.
        status(unsafe {
            sys::cudaGraphAddHostNode(&mut node, self.raw, Self::deps(deps), deps.len(), &params)
        })?;
        Ok(self.node(node))
    }

    /// A node that runs `child` (copied into this graph) as a sub-graph
    /// (`cudaGraphAddChildGraphNode`).
    #[doc(alias = "cudaGraphAddChildGraphNode")]
    pub fn add_child_graph_node(
        &self,
        deps: &[GraphNode<'_>],
        child: &Graph,
    ) -> Result<GraphNode<'_>> {
        let mut node = sys::cudaGraphNode_t::null();
        // SAFETY: both graphs are alive; CUDA clones the child.
        status(unsafe {
            sys::cudaGraphAddChildGraphNode(
                &mut node,
                self.raw,
                Self::deps(deps),
                deps.len(),
                child.raw,
            )
        })?;
        // The copy runs the child's work: this graph keeps what the child keeps.
        self.keep(Box::new(child.kept.clone()));
        Ok(self.node(node))
    }

    /// A node that sets every byte of `dst` to `value` (`cudaGraphAddMemsetNode`). The
    /// graph keeps `dst`'s buffer alive.
    #[doc(alias = "cudaGraphAddMemsetNode")]
    pub fn add_memset_node<T: DeviceCopy>(
        &self,
        deps: &[GraphNode<'_>],
        dst: &mut impl AsDeviceSliceMut<T>,
        value: u8,
    ) -> Result<GraphNode<'_>> {
        let dst = dst.as_device_slice_mut();
        dst.keep_in(self.raw)?;
        let params = sys::cudaMemsetParams {
            dst: dst.as_device_ptr().as_raw(),
            pitch: 0,
            value: u32::from(value),
            elementSize: 1,
            width: dst.size_bytes(),
            height: 1,
        };
        let mut node = sys::cudaGraphNode_t::null();
        // SAFETY: the record names `width` bytes of device memory.
        status(unsafe {
            sys::cudaGraphAddMemsetNode(&mut node, self.raw, Self::deps(deps), deps.len(), &params)
        })?;
        Ok(self.node(node))
    }

    /// A node that copies `src` to `dst` on the device (`cudaGraphAddMemcpyNode1D`); same
    /// lengths. The graph keeps both buffers alive.
    #[doc(alias = "cudaGraphAddMemcpyNode1D")]
    pub fn add_copy_node<T: DeviceCopy>(
        &self,
        deps: &[GraphNode<'_>],
        dst: &mut impl AsDeviceSliceMut<T>,
        src: &impl AsDeviceSlice<T>,
    ) -> Result<GraphNode<'_>> {
        let (dst, src) = (dst.as_device_slice_mut(), src.as_device_slice());
        let copy = Copy1d::new(
            "add_copy_node",
            Side::Device(dst.as_device_slice()),
            Side::Device(src),
        )?;
        // SAFETY: both sides are device memory of `len` elements, kept alive by the graph.
        unsafe { self.add_copy(deps, copy) }
    }

    /// A node that copies pinned memory `src` (a [`PinnedBuffer`](crate::PinnedBuffer) or
    /// a part of one) to `dst` at each launch (`cudaGraphAddMemcpyNode1D`). The graph keeps
    /// both alive; while it holds `src`, host views of `src`'s buffer and the graph's
    /// launches exclude each other (see the module documentation).
    #[doc(alias = "cudaGraphAddMemcpyNode1D")]
    pub fn add_copy_from_pinned_node<T: DeviceCopy>(
        &self,
        deps: &[GraphNode<'_>],
        dst: &mut impl AsDeviceSliceMut<T>,
        src: &impl AsPinnedSlice<T>,
    ) -> Result<GraphNode<'_>> {
        let dst = dst.as_device_slice_mut();
        let dst = Side::Device(dst.as_device_slice());
        let copy = Copy1d::new(
            "add_copy_from_pinned_node",
            dst,
            Side::Pinned(src.as_pinned_slice()),
        )?;
        // SAFETY: `len` elements on both sides, kept alive by the graph; host writes to
        // `src` and launches exclude each other.
        unsafe { self.add_copy(deps, copy) }
    }

    /// A node that copies `src` into pinned memory `dst` (a
    /// [`PinnedBuffer`](crate::PinnedBuffer) or an exclusive part of one) at each launch
    /// (`cudaGraphAddMemcpyNode1D`). The graph keeps both alive; while it holds `dst`, host
    /// views of `dst`'s buffer and the graph's launches exclude each other: a view waits for
    /// every launch made before it, and a launch fails while a view is alive.
    #[doc(alias = "cudaGraphAddMemcpyNode1D")]
    pub fn add_copy_to_pinned_node<T: DeviceCopy>(
        &self,
        deps: &[GraphNode<'_>],
        dst: &mut impl AsPinnedSliceMut<T>,
        src: &impl AsDeviceSlice<T>,
    ) -> Result<GraphNode<'_>> {
        let dst = dst.as_pinned_slice_mut();
        let dst = Side::Pinned(dst.as_pinned_slice());
        let copy = Copy1d::new(
            "add_copy_to_pinned_node",
            dst,
            Side::Device(src.as_device_slice()),
        )?;
        // SAFETY: as above.
        unsafe { self.add_copy(deps, copy) }
    }

    /// A node that copies host memory to the device at each launch.
    ///
    /// # Safety
    /// `src` stays alive and unwritten by the host during every launch of the graph (and of
    /// executable graphs made from it); `dst` outlives those launches. Capturing
    /// [`copy_from_pinned_async`](crate::memory::DeviceBuffer::copy_from_pinned_async) is
    /// the safe way.
    #[doc(alias = "cudaGraphAddMemcpyNode1D")]
    pub unsafe fn add_copy_from_host_node<T: DeviceCopy>(
        &self,
        deps: &[GraphNode<'_>],
        dst: &mut impl AsDeviceSliceMut<T>,
        src: &[T],
    ) -> Result<GraphNode<'_>> {
        let dst = dst.as_device_slice_mut();
        let dst = Side::Device(dst.as_device_slice());
        let copy = Copy1d::new(
            "add_copy_from_host_node",
            dst,
            Side::Host(src.as_ptr(), src.len()),
        )?;
        // SAFETY: the caller's promise.
        unsafe { self.add_copy(deps, copy) }
    }

    /// A node that copies device memory to the host at each launch.
    ///
    /// # Safety
    /// `dst` stays alive and untouched by the host during every launch of the graph (and of
    /// executable graphs made from it); `src` outlives those launches.
    #[doc(alias = "cudaGraphAddMemcpyNode1D")]
    pub unsafe fn add_copy_to_host_node<T: DeviceCopy>(
        &self,
        deps: &[GraphNode<'_>],
        dst: &mut [T],
        src: &impl AsDeviceSlice<T>,
    ) -> Result<GraphNode<'_>> {
        let dst = Side::Host(dst.as_mut_ptr(), dst.len());
        let copy = Copy1d::new(
            "add_copy_to_host_node",
            dst,
            Side::Device(src.as_device_slice()),
        )?;
        // SAFETY: the caller's promise.
        unsafe { self.add_copy(deps, copy) }
    }

    /// The node every `add_copy_*_node` adds: the graph keeps the device sides of `copy`
    /// (first: that may fail) and its pinned sides alive, then copies at each launch.
    ///
    /// # Safety
    /// A host side of `copy` is valid during every launch.
    unsafe fn add_copy<T: DeviceCopy>(
        &self,
        deps: &[GraphNode<'_>],
        copy: Copy1d<'_, T>,
    ) -> Result<GraphNode<'_>> {
        for side in copy.sides() {
            if let Side::Device(view) = side {
                view.keep_in(self.raw)?;
            }
        }
        for side in copy.sides() {
            if let Side::Pinned(part) = side {
                self.keep(part.keeper());
            }
        }
        let mut node = sys::cudaGraphNode_t::null();
        // SAFETY: device and pinned sides are kept alive by the graph, host ones by the
        // caller's promise; the graph and dependencies are alive.
        status(unsafe {
            sys::cudaGraphAddMemcpyNode1D(
                &mut node,
                self.raw,
                Self::deps(deps),
                deps.len(),
                copy.dst.address(),
                copy.src.address(),
                copy.bytes(),
                copy.kind(),
            )
        })?;
        Ok(self.node(node))
    }

    /// A node that launches a kernel as `launch` describes it (its stream is ignored;
    /// launch attributes are refused). CUDA copies the argument values now.
    ///
    /// # Safety
    /// As [`Launch::run`], for every launch of the graph: the arguments match the kernel's
    /// parameters, and the memory they name is valid during every launch.
    #[doc(alias = "cudaGraphAddKernelNode")]
    pub unsafe fn add_kernel_node(
        &self,
        deps: &[GraphNode<'_>],
        mut launch: Launch<'_>,
    ) -> Result<GraphNode<'_>> {
        let params = launch.node_params()?;
        launch.keep_in(self.raw)?;
        let mut node = sys::cudaGraphNode_t::null();
        // SAFETY: the caller's promise about the arguments; `params` borrows `launch`'s
        // argument list for the call, and CUDA copies the values.
        status(unsafe {
            sys::cudaGraphAddKernelNode(&mut node, self.raw, Self::deps(deps), deps.len(), &params)
        })?;
        Ok(self.node(node))
    }

    /// A node that records `event` when the graph reaches it (`cudaGraphAddEventRecordNode`),
    /// as `cudaEventRecord` would on the launch stream. The graph keeps the event alive.
    #[doc(alias = "cudaGraphAddEventRecordNode")]
    pub fn add_event_record_node(
        &self,
        deps: &[GraphNode<'_>],
        event: &Event,
    ) -> Result<GraphNode<'_>> {
        self.keep(Box::new(event.clone()));
        let mut node = sys::cudaGraphNode_t::null();
        // SAFETY: the graph, the dependencies and the event (kept by the graph) are alive.
        status(unsafe {
            sys::cudaGraphAddEventRecordNode(
                &mut node,
                self.raw,
                Self::deps(deps),
                deps.len(),
                event.as_raw(),
            )
        })?;
        Ok(self.node(node))
    }

    /// A node that waits for `event`'s last record before its dependents run
    /// (`cudaGraphAddEventWaitNode`), as `cudaStreamWaitEvent` would. The graph keeps the
    /// event alive.
    #[doc(alias = "cudaGraphAddEventWaitNode")]
    pub fn add_event_wait_node(
        &self,
        deps: &[GraphNode<'_>],
        event: &Event,
    ) -> Result<GraphNode<'_>> {
        self.keep(Box::new(event.clone()));
        let mut node = sys::cudaGraphNode_t::null();
        // SAFETY: as above.
        status(unsafe {
            sys::cudaGraphAddEventWaitNode(
                &mut node,
                self.raw,
                Self::deps(deps),
                deps.len(),
                event.as_raw(),
            )
        })?;
        Ok(self.node(node))
    }

    /// Instantiates the graph into an executable graph (`cudaGraphInstantiate`, no flags).
    #[doc(alias = "cudaGraphInstantiate")]
    pub fn instantiate(&self) -> Result<GraphExec> {
        self.instantiate_with_flags(0)
    }

    /// Instantiates with `cudaGraphInstantiateFlags` bits (e.g. `AutoFreeOnLaunch` = 1,
    /// `Upload` = 2, `UseNodePriority` = 8).
    #[doc(alias = "cudaGraphInstantiate")]
    pub fn instantiate_with_flags(&self, flags: u64) -> Result<GraphExec> {
        let mut raw = sys::cudaGraphExec_t::null();
        // SAFETY: the graph is alive; one handle is written.
        status(unsafe { sys::cudaGraphInstantiate(&mut raw, self.raw, flags as _) })?;
        Ok(GraphExec {
            raw,
            kept: RefCell::new(vec![self.kept.clone()]),
            launched: RefCell::new(Launched::default()),
            node_kept: RefCell::new(HashMap::new()),
        })
    }

    /// A copy of the graph (`cudaGraphClone`), sharing what the graph keeps alive.
    #[doc(alias = "cudaGraphClone")]
    pub fn try_clone(&self) -> Result<Graph> {
        let mut raw = sys::cudaGraph_t::null();
        // SAFETY: the graph is alive; one handle is written.
        status(unsafe { sys::cudaGraphClone(&mut raw, self.raw) })?;
        let clone = Graph::owning(raw);
        clone.keep(Box::new(self.kept.clone()));
        Ok(clone)
    }

    /// Destroys the graph now and returns the error, where dropping would report it to the
    /// hook. Executable graphs made from it stay valid.
    #[doc(alias = "cudaGraphDestroy")]
    pub fn close(self) -> Result<()> {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: read once; `me` is never dropped.
        let kept = unsafe { std::ptr::read(&me.kept) };
        me.destroy(kept)
    }

    /// Forgets the graph's entry (before the handle can be reused) and destroys it.
    fn destroy(&self, kept: Arc<KeptSet>) -> Result<()> {
        {
            let mut table = graphs();
            if table
                .get(&(self.raw.0 as usize))
                .is_some_and(|s| Arc::ptr_eq(s, &kept))
            {
                table.remove(&(self.raw.0 as usize));
            }
        }
        drop(kept);
        // SAFETY: owned handle, destroyed once.
        status(unsafe { sys::cudaGraphDestroy(self.raw) })
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        if let Err(e) = self.destroy(self.kept.clone()) {
            report_drop_error("graph", &e);
        }
    }
}

/// An executable graph (`cudaGraphExec_t`), launched on streams.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{CaptureMode, DeviceBuffer, Graph, Stream};
/// let stream = Stream::non_blocking()?;
/// let (mut a, b) = (DeviceBuffer::<u8>::new(1024, &stream)?, DeviceBuffer::<u8>::zeroed(1024, &stream)?);
/// let graph = Graph::new()?;
/// let copy = graph.add_copy_node(&[], &mut a, &b)?;
/// let exec = graph.instantiate()?;
/// exec.launch(&stream)?;
/// let c = DeviceBuffer::<u8>::zeroed(1024, &stream)?;
/// exec.set_copy_node(copy, &mut a, &c)?; // later launches copy from `c`, which the exec keeps
/// exec.launch(&stream)?;
/// stream.synchronize()?;
/// # Ok(()) }
/// ```
pub struct GraphExec {
    raw: sys::cudaGraphExec_t,
    /// What the graphs it was made and updated from keep alive.
    kept: RefCell<Vec<Arc<KeptSet>>>,
    /// Where it was launched: what it keeps is let go once those streams have passed the
    /// launches.
    launched: RefCell<Launched>,
    /// What the current parameters of each node changed in place use, by node handle.
    node_kept: RefCell<HashMap<usize, Vec<Kept>>>,
}

impl std::fmt::Debug for GraphExec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("GraphExec").field(&self.raw).finish()
    }
}

/// The streams an executable graph was launched on (a created stream or the legacy stream
/// of a device, kept to be waited for when the graph goes), and its launches on per-thread
/// default streams (recorded with events, as another thread cannot wait on those later).
#[derive(Default)]
struct Launched {
    streams: Vec<(Stream, StreamKey, i32)>,
    per_thread: Uses,
}

impl Launched {
    fn note(&mut self, done: &crate::memory::track::Enqueued<'_>) {
        if done.key.is_per_thread() {
            done.record_launch(&mut self.per_thread);
        } else if !self.streams.iter().any(|(_, k, _)| *k == done.key) {
            self.streams
                .push((done.stream.clone(), done.key, done.device));
        }
    }
}

/// Lets go of what an executable graph kept once its launches have completed: on the release
/// thread, an event is recorded on each stream it was launched on (once the stream is not
/// being captured), then the events and the per-thread launches are polled.
fn release_after_launches(kept: Box<dyn Any + Send>, launched: Launched) {
    let Launched {
        mut streams,
        per_thread: mut events,
    } = launched;
    if streams.is_empty() && events.is_empty() {
        drop(kept);
        return;
    }
    let mut kept = Some(kept);
    crate::memory::release::retry_later(Box::new(move || {
        streams.retain(|(stream, key, device)| {
            !crate::memory::track::record_after(stream, *key, *device, &mut events)
        });
        if !streams.is_empty() || !events.all_done() {
            return false;
        }
        drop(kept.take());
        true
    }));
}

// SAFETY: an executable graph may be used from any thread, one at a time (`!Sync`).
unsafe impl Send for GraphExec {}

impl GraphExec {
    /// The raw handle; valid as long as this value exists.
    pub fn as_raw(&self) -> sys::cudaGraphExec_t {
        self.raw
    }

    /// Enqueues one run of the graph on `stream` (`cudaGraphLaunch`), with the stream's
    /// device current. While a graph holds a pinned buffer, a launch fails (without
    /// launching) as long as a host view of such a buffer is alive (see the module
    /// documentation). Launching into a stream being captured is refused.
    #[inline]
    #[doc(alias = "cudaGraphLaunch")]
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        let raw = self.raw;
        crate::memory::pinned::graph_launch(
            stream,
            |done| self.launched.borrow_mut().note(done),
            || {
                // SAFETY: both handles are alive; what the graph uses is kept alive by it
                // (see the module documentation).
                status(unsafe { sys::cudaGraphLaunch(raw, stream.as_raw()) })
            },
        )
    }

    /// Uploads the graph's work to the device ahead of the first launch, ordered on
    /// `stream` (`cudaGraphUpload`).
    #[doc(alias = "cudaGraphUpload")]
    pub fn upload(&self, stream: &Stream) -> Result<()> {
        // SAFETY: both handles are alive.
        status(unsafe { sys::cudaGraphUpload(self.raw, stream.as_raw()) })
    }

    /// Updates this executable graph in place from `graph`, which must have the same
    /// topology (`cudaGraphExecUpdate`); a refused update is
    /// `cudaErrorGraphExecUpdateFailure` and leaves this one unchanged. From then on it also
    /// keeps what `graph` keeps.
    #[doc(alias = "cudaGraphExecUpdate")]
    pub fn update(&self, graph: &Graph) -> Result<()> {
        // Kept before the update, so that no launch can use what `graph` names unkept.
        self.kept.borrow_mut().push(graph.kept.clone());
        let mut info = sys::cudaGraphExecUpdateResultInfo::default();
        // SAFETY: both handles are alive; one record is written.
        status(unsafe { sys::cudaGraphExecUpdate(self.raw, graph.raw, &mut info) })
    }

    /// Sets the parameters of kernel node `node` (a node of the graph this was instantiated
    /// from) to `launch`'s, for later launches (`cudaGraphExecKernelNodeSetParams`): the
    /// same kernel's, or another's where CUDA allows; the launch's stream is ignored and
    /// launch attributes are refused. The arguments are checked as [`Launch::run`] checks
    /// them. This executable graph keeps what the new arguments use (and the kernel's
    /// module); what the node's previous parameters used is let go once the launches made
    /// before have completed.
    ///
    /// # Safety
    /// As [`Launch::run`], for every later launch of this executable graph.
    #[doc(alias = "cudaGraphExecKernelNodeSetParams")]
    pub unsafe fn set_kernel_node_params(
        &self,
        node: GraphNode<'_>,
        mut launch: Launch<'_>,
    ) -> Result<()> {
        let params = launch.node_params()?;
        let kept = launch.keepers();
        // SAFETY: live handles; the caller's promise about the arguments, whose memory this
        // executable graph keeps from now on; CUDA copies the argument values.
        self.set_node(node, kept, || unsafe {
            sys::cudaGraphExecKernelNodeSetParams(self.raw, node.raw, &params)
        })
    }

    /// Makes copy node `node` (a node of the graph this was instantiated from) copy `src`
    /// to `dst` (same lengths) at later launches (`cudaGraphExecMemcpyNodeSetParams1D`).
    /// This executable graph keeps both buffers alive; what the node copied before is let
    /// go once the launches made before have completed.
    #[doc(alias = "cudaGraphExecMemcpyNodeSetParams1D")]
    pub fn set_copy_node<T: DeviceCopy>(
        &self,
        node: GraphNode<'_>,
        dst: &mut impl AsDeviceSliceMut<T>,
        src: &impl AsDeviceSlice<T>,
    ) -> Result<()> {
        let (dst, src) = (dst.as_device_slice_mut(), src.as_device_slice());
        let copy = Copy1d::new(
            "set_copy_node",
            Side::Device(dst.as_device_slice()),
            Side::Device(src),
        )?;
        // SAFETY: `len` elements of device memory on both sides, kept by this executable
        // graph from now on.
        unsafe { self.set_copy(node, copy) }
    }

    /// Makes copy node `node` copy pinned memory `src` to `dst` at later launches
    /// (`cudaGraphExecMemcpyNodeSetParams1D`); kept and excluded from host views as in
    /// [`Graph::add_copy_from_pinned_node`].
    #[doc(alias = "cudaGraphExecMemcpyNodeSetParams1D")]
    pub fn set_copy_from_pinned_node<T: DeviceCopy>(
        &self,
        node: GraphNode<'_>,
        dst: &mut impl AsDeviceSliceMut<T>,
        src: &impl AsPinnedSlice<T>,
    ) -> Result<()> {
        let dst = dst.as_device_slice_mut();
        let dst = Side::Device(dst.as_device_slice());
        let copy = Copy1d::new(
            "set_copy_from_pinned_node",
            dst,
            Side::Pinned(src.as_pinned_slice()),
        )?;
        // SAFETY: `len` elements on both sides, kept by this executable graph; host writes
        // to `src` and launches exclude each other.
        unsafe { self.set_copy(node, copy) }
    }

    /// Makes copy node `node` copy `src` into pinned memory `dst` at later launches
    /// (`cudaGraphExecMemcpyNodeSetParams1D`); kept and excluded from host views as in
    /// [`Graph::add_copy_to_pinned_node`].
    #[doc(alias = "cudaGraphExecMemcpyNodeSetParams1D")]
    pub fn set_copy_to_pinned_node<T: DeviceCopy>(
        &self,
        node: GraphNode<'_>,
        dst: &mut impl AsPinnedSliceMut<T>,
        src: &impl AsDeviceSlice<T>,
    ) -> Result<()> {
        let dst = dst.as_pinned_slice_mut();
        let dst = Side::Pinned(dst.as_pinned_slice());
        let copy = Copy1d::new(
            "set_copy_to_pinned_node",
            dst,
            Side::Device(src.as_device_slice()),
        )?;
        // SAFETY: as above.
        unsafe { self.set_copy(node, copy) }
    }

    /// What every `set_copy_*_node` does: this executable graph keeps the device sides of
    /// `copy`, then its pinned sides, in `node`'s place, and the node copies at later
    /// launches.
    ///
    /// # Safety
    /// A host side of `copy` is valid during every later launch.
    unsafe fn set_copy<T: DeviceCopy>(
        &self,
        node: GraphNode<'_>,
        copy: Copy1d<'_, T>,
    ) -> Result<()> {
        let devices = copy.sides().into_iter().filter_map(|side| match side {
            Side::Device(view) => view.keeper(),
            _ => None,
        });
        let pinned = copy.sides().into_iter().filter_map(|side| match side {
            Side::Pinned(part) => Some(part.keeper()),
            _ => None,
        });
        let kept = devices.chain(pinned).collect();
        // SAFETY: live handles; the sides are kept by this executable graph from now on (host
        // ones by the caller's promise).
        self.set_node(node, kept, || unsafe {
            sys::cudaGraphExecMemcpyNodeSetParams1D(
                self.raw,
                node.raw,
                copy.dst.address(),
                copy.src.address(),
                copy.bytes(),
                copy.kind(),
            )
        })
    }

    /// Makes event record node `node` record `event` at later launches
    /// (`cudaGraphExecEventRecordNodeSetEvent`); this executable graph keeps the event.
    #[doc(alias = "cudaGraphExecEventRecordNodeSetEvent")]
    pub fn set_event_record_node(&self, node: GraphNode<'_>, event: &Event) -> Result<()> {
        // SAFETY: live handles; the event is kept by this executable graph from now on.
        self.set_node(node, vec![Box::new(event.clone())], || unsafe {
            sys::cudaGraphExecEventRecordNodeSetEvent(self.raw, node.raw, event.as_raw())
        })
    }

    /// Makes event wait node `node` wait for `event` at later launches
    /// (`cudaGraphExecEventWaitNodeSetEvent`); this executable graph keeps the event.
    #[doc(alias = "cudaGraphExecEventWaitNodeSetEvent")]
    pub fn set_event_wait_node(&self, node: GraphNode<'_>, event: &Event) -> Result<()> {
        // SAFETY: as above.
        self.set_node(node, vec![Box::new(event.clone())], || unsafe {
            sys::cudaGraphExecEventWaitNodeSetEvent(self.raw, node.raw, event.as_raw())
        })
    }

    /// Changes one node's parameters with `set` and keeps `kept` (what they use) in the
    /// node's place; the node's previous items are let go after the launches made so far.
    /// When `set` fails nothing changes (`kept` is dropped: CUDA never saw it).
    fn set_node(
        &self,
        node: GraphNode<'_>,
        kept: Vec<Kept>,
        set: impl FnOnce() -> Result<sys::cudaError_t>,
    ) -> Result<()> {
        status(set())?;
        let previous = self
            .node_kept
            .borrow_mut()
            .insert(node.raw.0 as usize, kept);
        if let Some(previous) = previous {
            self.release_after_current_launches(previous);
        }
        Ok(())
    }

    /// Lets go of `items` once every launch made so far has completed: launches on
    /// per-thread default streams are waited for on the host now (another thread's stream
    /// cannot be recorded later), the others on the release thread. A failed wait keeps
    /// `items` for good (failing closed).
    fn release_after_current_launches(&self, items: Vec<Kept>) {
        let mut launched = self.launched.borrow_mut();
        if launched.per_thread.wait_host(Access::Write, WHOLE).is_err() {
            std::mem::forget(items);
            return;
        }
        let snapshot = Launched {
            streams: launched.streams.clone(),
            per_thread: Uses::new(),
        };
        release_after_launches(Box::new(items), snapshot);
    }

    /// Everything this executable graph keeps, to let go after its launches.
    fn take_kept(&mut self) -> Box<dyn Any + Send> {
        let graphs = std::mem::take(self.kept.get_mut());
        let nodes = std::mem::take(self.node_kept.get_mut());
        Box::new((graphs, nodes.into_values().collect::<Vec<_>>()))
    }

    /// Destroys the executable graph now and returns the error, where dropping would
    /// report it to the hook. Launches already enqueued complete; what the graph keeps is
    /// let go after them.
    #[doc(alias = "cudaGraphExecDestroy")]
    pub fn close(mut self) -> Result<()> {
        let kept = self.take_kept();
        let launched = std::mem::take(self.launched.get_mut());
        let raw = self.raw;
        // Every field is empty now (nothing allocated): forgetting `self` leaks nothing and
        // keeps `Drop` from destroying the handle again.
        std::mem::forget(self);
        // SAFETY: owned handle, destroyed once.
        let result = status(unsafe { sys::cudaGraphExecDestroy(raw) });
        release_after_launches(kept, launched);
        result
    }
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed once; CUDA frees it after pending launches.
        if let Err(e) = status(unsafe { sys::cudaGraphExecDestroy(self.raw) }) {
            report_drop_error("executable graph", &e);
        }
        let kept = self.take_kept();
        release_after_launches(kept, std::mem::take(self.launched.get_mut()));
    }
}

/// A capture in progress on a stream ([`Stream::begin_capture`]). [`end`](Self::end)
/// returns the graph; dropping the guard ends the capture and discards the graph, so a
/// stream is never left capturing. Not `Send`: a capture (other than `RELAXED`) must end
/// on the thread that began it.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{CaptureMode, DeviceBuffer, Stream};
/// let stream = Stream::non_blocking()?;
/// let mut buf = DeviceBuffer::<u32>::new(64, &stream)?;
/// let capture = stream.begin_capture(CaptureMode::THREAD_LOCAL)?;
/// buf.memset(1, capture.stream())?; // recorded, not run
/// let graph = capture.end()?;
/// graph.instantiate()?.launch(&stream)?;
/// # Ok(()) }
/// ```
#[must_use = "end the capture with `end()` to get the graph"]
#[derive(Debug)]
pub struct CaptureGuard<'s> {
    stream: &'s Stream,
    ended: bool,
    _not_send: PhantomData<*const ()>,
}

impl CaptureGuard<'_> {
    /// The stream being captured.
    pub fn stream(&self) -> &Stream {
        self.stream
    }

    /// Ends the capture (`cudaStreamEndCapture`) and returns the graph; an invalidated
    /// capture is the error that invalidated it (`cudaErrorStreamCaptureInvalidated`, …).
    #[doc(alias = "cudaStreamEndCapture")]
    pub fn end(mut self) -> Result<Graph> {
        self.ended = true;
        end_capture(self.stream)
    }
}

impl Drop for CaptureGuard<'_> {
    fn drop(&mut self) {
        if !self.ended {
            if let Err(e) = end_capture(self.stream) {
                report_drop_error("stream capture", &e);
            }
        }
    }
}

fn end_capture(stream: &Stream) -> Result<Graph> {
    let _gate = stream.gate_exclusive();
    let mut raw = sys::cudaGraph_t::null();
    // SAFETY: the stream is alive and capturing (begun by the guard).
    let ended = status(unsafe { sys::cudaStreamEndCapture(stream.as_raw(), &mut raw) });
    CAPTURES_ACTIVE.fetch_sub(1, Ordering::SeqCst);
    if raw.is_null() {
        return Err(ended.err().unwrap_or_else(|| Error::from_code(901)));
    }
    let graph = Graph::owning(raw);
    ended?;
    Ok(graph)
}

/// The 13.x `cudaStreamGetCaptureInfo` (12.3+: `cudaStreamGetCaptureInfo_v3`).
type CaptureInfoV3 = unsafe extern "C" fn(
    sys::cudaStream_t,
    *mut sys::cudaStreamCaptureStatus,
    *mut c_ulonglong,
    *mut sys::cudaGraph_t,
    *mut *const sys::cudaGraphNode_t,
    *mut *const c_void,
    *mut usize,
) -> sys::cudaError_t;
/// 12.0-12.2's `cudaStreamGetCaptureInfo_v2` (no edge data).
type CaptureInfoV2 = unsafe extern "C" fn(
    sys::cudaStream_t,
    *mut sys::cudaStreamCaptureStatus,
    *mut c_ulonglong,
    *mut sys::cudaGraph_t,
    *mut *const sys::cudaGraphNode_t,
    *mut usize,
) -> sys::cudaError_t;

/// Whether `stream` is capturing, and into which graph (`cudaStreamGetCaptureInfo`): how the
/// crate finds the graph that captured work goes into, whichever stream of a fork-join
/// capture the work was enqueued on.
pub(crate) fn capture_graph(stream: &Stream) -> Result<Capture> {
    // SAFETY: the C signatures of their releases.
    static V3: crate::loader::LazySymbol<CaptureInfoV3> = unsafe {
        crate::loader::LazySymbol::new(
            if sys::CUDA_MAJOR >= 13 {
                c"cudaStreamGetCaptureInfo"
            } else {
                c"cudaStreamGetCaptureInfo_v3"
            },
            0,
        )
    };
    // SAFETY: as above.
    static V2: crate::loader::LazySymbol<CaptureInfoV2> =
        unsafe { crate::loader::LazySymbol::new(c"cudaStreamGetCaptureInfo_v2", 0) };
    let mut st = sys::cudaStreamCaptureStatus::NONE;
    let mut id: c_ulonglong = 0;
    let mut graph = sys::cudaGraph_t::null();
    let code = match V3.get() {
        // SAFETY: the outputs are valid; the optional ones are NULL.
        Ok(f) => unsafe {
            f(
                stream.as_raw(),
                &mut st,
                &mut id,
                &mut graph,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        },
        Err(e) if sys::CUDA_MAJOR >= 13 => return Err(e),
        // SAFETY: as above.
        Err(_) => unsafe {
            V2.get()?(
                stream.as_raw(),
                &mut st,
                &mut id,
                &mut graph,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        },
    };
    status(Ok(code))?;
    Ok(match st {
        sys::cudaStreamCaptureStatus::NONE => Capture::No,
        sys::cudaStreamCaptureStatus::ACTIVE if !graph.is_null() => Capture::Into(graph, id),
        _ => Capture::Dead,
    })
}

impl Stream {
    /// Begins capturing the work enqueued on this stream into a graph
    /// (`cudaStreamBeginCapture`) until the guard's [`end`](CaptureGuard::end).
    ///
    /// During a capture nothing runs: blocking calls on the stream (a `copy_to_host`,
    /// `synchronize`) fail and invalidate the capture. Copies to and from
    /// [`PinnedBuffer`](crate::PinnedBuffer)s, kernel launches, memsets and
    /// device copies are captured; so are allocations and frees of device buffers on the
    /// stream (`cudaMallocAsync` / `cudaFreeAsync` become graph memory nodes): allocate the
    /// buffers a graph reuses before the capture, and drop them after it.
    #[doc(alias = "cudaStreamBeginCapture")]
    pub fn begin_capture(&self, mode: CaptureMode) -> Result<CaptureGuard<'_>> {
        let _gate = self.gate_exclusive();
        CAPTURES_ACTIVE.fetch_add(1, Ordering::SeqCst);
        // SAFETY: the stream is alive.
        let begun = status(unsafe { sys::cudaStreamBeginCapture(self.as_raw(), mode) });
        if begun.is_err() {
            CAPTURES_ACTIVE.fetch_sub(1, Ordering::SeqCst);
        }
        begun?;
        Ok(CaptureGuard {
            stream: self,
            ended: false,
            _not_send: PhantomData,
        })
    }

    /// Captures what `f` enqueues on this stream into a graph; the capture ends also when
    /// `f` fails (its error is returned).
    #[doc(alias = "cudaStreamBeginCapture")]
    #[doc(alias = "cudaStreamEndCapture")]
    pub fn capture(
        &self,
        mode: CaptureMode,
        f: impl FnOnce(&Stream) -> Result<()>,
    ) -> Result<Graph> {
        let guard = self.begin_capture(mode)?;
        let recorded = f(self);
        let graph = guard.end();
        recorded?;
        graph
    }
}

/// Owns a host node's closure for the graph's user object.
struct HostNodeOwner(#[allow(dead_code)] Box<HostNodeFn>);

unsafe extern "C" fn host_node_trampoline(user: *mut c_void) {
    // SAFETY: `user` is the `HostNodeFn` the graph's user object owns; alive during every
    // launch.
    let f = unsafe { &*user.cast::<HostNodeFn>() };
    crate::loader::callback_scope(|| run_caught("graph host node", f));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphs_are_send_but_not_shared() {
        fn assert_send<T: Send>() {}
        assert_send::<Graph>();
        assert_send::<GraphExec>();
        assert_eq!(
            std::mem::size_of::<GraphNode<'static>>(),
            std::mem::size_of::<sys::cudaGraphNode_t>()
        );
    }

    /// A copy node's sides: the lengths compared, the device side's length the one an error
    /// expects (the destination's when both are device memory), the direction and size taken
    /// from the sides. Pinned sides are host sides here.
    #[test]
    fn copy_nodes_check_lengths_and_take_their_direction_from_the_sides() {
        let stream = Stream::legacy();
        // SAFETY: views of no memory; nothing is copied.
        let device = |len| unsafe {
            Side::Device(DeviceSlice::from_raw_parts(
                crate::DevicePtr::null(),
                len,
                &stream,
            ))
        };
        let data = [0u32; 4];
        let host = |len| Side::Host(data.as_ptr(), len);
        let refusal = |copy: Result<Copy1d<'_, u32>>| copy.err().map(|e| e.to_string());
        for (dst, src, what) in [
            (device(3), device(4), "3 elements expected, 4 given"),
            (device(3), host(4), "3 elements expected, 4 given"),
            (host(4), device(3), "3 elements expected, 4 given"),
        ] {
            assert_eq!(
                refusal(Copy1d::new("node", dst, src)),
                Some(format!("invalid argument: node: lengths differ ({what})"))
            );
        }
        for (dst, src, kind) in [
            (device(4), device(4), sys::cudaMemcpyKind::DEVICE_TO_DEVICE),
            (device(4), host(4), sys::cudaMemcpyKind::HOST_TO_DEVICE),
            (host(4), device(4), sys::cudaMemcpyKind::DEVICE_TO_HOST),
        ] {
            let copy = Copy1d::new("node", dst, src).expect("same lengths");
            assert!(copy.kind() == kind && copy.bytes() == 16);
            assert_eq!(
                copy.src.address() == data.as_ptr().cast_mut().cast(),
                kind == sys::cudaMemcpyKind::HOST_TO_DEVICE
            );
        }
    }
}
