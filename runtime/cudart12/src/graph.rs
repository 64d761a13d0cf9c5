// Copied by `cargo xtask codegen` from the generator's codegen/template/src/graph.rs:
// edit the template, not this copy.

//! CUDA graphs: capture of a stream's work ([`Stream::begin_capture`] → [`CaptureGuard`] →
//! [`Graph`]), explicit construction (empty, kernel, memset, memcpy, host-closure, child
//! graph, event record and event wait nodes), instantiation into a [`GraphExec`], upload,
//! launch, whole-graph update and updates of one node's parameters (kernel, copy and event
//! nodes) in an executable graph; the graph memory pool's statistics are
//! [`Device::graph_mem_stats`](crate::Device::graph_mem_stats).
//!
//! Graph allocations: [`CaptureGuard::alloc`] allocates a [`GraphBuffer`] inside the capture
//! (a graph memory node), usable only by work captured into that capture, and freed in it
//! when dropped (a free node); a [`DeviceBuffer`](crate::DeviceBuffer) cannot be allocated on
//! a stream being captured.
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
//! the change have completed, and so is what the graph an executable graph was updated from
//! replaced ([`GraphExec::update`]). This is the gate's **hold** (the crate-private `lifetime` module): one
//! set of holdings per graph rather than CUDA user objects, which made every launch of a
//! graph holding one about 3.4 µs slower on an H100 (5.3 µs instead of 2.0 µs): so a graph
//! handle passed to the typed layer (`api`) cannot be changed there in ways that add work
//! (those functions are `unsafe`).
//!
//! Host memory a graph writes: [`GraphExec::launch`] of a graph holding a
//! [`PinnedBuffer`](crate::PinnedBuffer) and host views of *that* buffer exclude each other:
//! a launch fails while a view is alive, and a view waits for the launches before it (see
//! [`PinnedBuffer`](crate::PinnedBuffer)). The exclusion is per buffer: launches of graphs
//! holding no pinned memory, or other pinned memory, never wait or fail because of a view.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::error::{report_drop_error, status, Error, Result};
use crate::event::Event;
use crate::kernel::Launch;
use crate::lifetime::capture::{capture_begun, capture_ended};
use crate::lifetime::current::{current_ordinal, with_device};
use crate::lifetime::deferred::run_caught;
use crate::lifetime::holdings::{self, Held, Holdings, Launches};
use crate::lifetime::{self, Life};
use crate::memory::{
    AsDeviceSlice, AsDeviceSliceMut, AsPinnedSlice, AsPinnedSliceMut, DeviceCopy, DeviceSlice,
    GraphBuffer, PinnedSlice,
};
use crate::stream::Stream;
use crate::sys;

mod conditional;
mod nodes;

pub use conditional::{BodyGraph, Conditional, ConditionalHandle, ConditionalNode};

pub(crate) use nodes::host_closure;
pub use nodes::{
    GraphEdge, GraphNodeType, GraphUpdateFailure, GraphUpdateResult, NodeId, Programmatic,
};

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
    /// What the graph holds (see the module documentation).
    kept: Arc<Holdings>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Graph").field(&self.raw).finish()
    }
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

/// A copy node's parameters: `src` to `dst`, sides of the same length.
struct Copy1d<'a, T: DeviceCopy> {
    dst: Side<'a, T>,
    src: Side<'a, T>,
}

impl<'a, T: DeviceCopy> Copy1d<'a, T> {
    /// The copy, or [`Error::InvalidArgument`] naming method `what` when the lengths differ
    /// (the device side's length is the one expected; the destination's when both sides are
    /// device memory or neither is).
    fn new(what: &str, dst: Side<'a, T>, src: Side<'a, T>) -> Result<Copy1d<'a, T>> {
        if dst.len() != src.len() {
            let (expected, given) = match (&dst, &src) {
                (Side::Device(_), _) | (_, Side::Host(..) | Side::Pinned(_)) => {
                    (dst.len(), src.len())
                }
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

    /// CUDA's direction, from the sides.
    fn kind(&self) -> sys::cudaMemcpyKind {
        match (&self.dst, &self.src) {
            (Side::Device(_), Side::Device(_)) => sys::cudaMemcpyKind::DEVICE_TO_DEVICE,
            (Side::Device(_), _) => sys::cudaMemcpyKind::HOST_TO_DEVICE,
            (_, Side::Device(_)) => sys::cudaMemcpyKind::DEVICE_TO_HOST,
            _ => sys::cudaMemcpyKind::HOST_TO_HOST,
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
            kept: holdings::of_graph(raw),
        }
    }

    /// Makes the graph hold `item` (for a node that uses it).
    pub(crate) fn keep(&self, item: Held) {
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
        // The graph holds the closure from here on (also when adding fails).
        let params = self.host_params(f);
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
        self.keep(Held::Set(child.kept.clone()));
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
        dst.hold_in(self.raw)?;
        let params = memset_params(dst.as_device_ptr().as_raw(), dst.size_bytes(), value);
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
        self.hold_sides(&copy)?;
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

    /// The graph holds the device sides of `copy` (first: that may fail), then its pinned
    /// sides.
    fn hold_sides<T: DeviceCopy>(&self, copy: &Copy1d<'_, T>) -> Result<()> {
        for side in copy.sides() {
            if let Side::Device(view) = side {
                view.hold_in(self.raw)?;
            }
        }
        for side in copy.sides() {
            if let Side::Pinned(part) = side {
                self.keep(part.life().hold()?);
            }
        }
        Ok(())
    }

    /// A node that copies pinned memory `src` to pinned memory `dst` (same lengths) at each
    /// launch (`cudaGraphAddMemcpyNode1D`, host to host). The graph keeps both alive; while
    /// it holds them, host views of their buffers and the graph's launches exclude each
    /// other (see the module documentation).
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::{Graph, PinnedBuffer, Stream};
    /// let stream = Stream::non_blocking()?;
    /// let src = PinnedBuffer::from_slice(&[1u32, 2, 3])?;
    /// let mut dst = PinnedBuffer::<u32>::new(3)?;
    /// let graph = Graph::new()?;
    /// graph.add_copy_pinned_node(&[], &mut dst, &src)?;
    /// graph.instantiate()?.launch(&stream)?;
    /// assert_eq!(&*dst.as_slice()?, &[1, 2, 3]); // waits for the launch
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphAddMemcpyNode1D")]
    pub fn add_copy_pinned_node<T: DeviceCopy>(
        &self,
        deps: &[GraphNode<'_>],
        dst: &mut impl AsPinnedSliceMut<T>,
        src: &impl AsPinnedSlice<T>,
    ) -> Result<GraphNode<'_>> {
        let dst = dst.as_pinned_slice_mut();
        let copy = Copy1d::new(
            "add_copy_pinned_node",
            Side::Pinned(dst.as_pinned_slice()),
            Side::Pinned(src.as_pinned_slice()),
        )?;
        // SAFETY: pinned memory on both sides, kept alive by the graph; host access and
        // launches exclude each other.
        unsafe { self.add_copy(deps, copy) }
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
        launch.hold_in(self.raw)?;
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
        self.keep(Held::Other(Box::new(event.clone())));
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
        self.keep(Held::Other(Box::new(event.clone())));
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
        self.instantiate_with_flags(InstantiateFlags::empty())
    }

    /// Instantiates with flags (`cudaGraphInstantiateWithFlags`).
    ///
    /// Every flag of [`InstantiateFlags`] is safe by construction:
    /// [`AUTO_FREE_ON_LAUNCH`](InstantiateFlags::AUTO_FREE_ON_LAUNCH) frees, at each launch,
    /// the graph allocations an earlier launch left allocated, and a graph of this crate
    /// leaves none — a [`GraphBuffer`] is freed inside the capture that allocated it, and a
    /// [`DeviceBuffer`](crate::DeviceBuffer) cannot be allocated in a capture — so the flag
    /// frees nothing the crate knows of. Device-side launch
    /// (`cudaGraphInstantiateFlagDeviceLaunch`) is not among them: launches from the device
    /// bypass the launch records that keep what the graph uses alive; it is
    /// [`instantiate_with_raw_flags`](Graph::instantiate_with_raw_flags).
    #[doc(alias = "cudaGraphInstantiateWithFlags")]
    pub fn instantiate_with_flags(&self, flags: InstantiateFlags) -> Result<GraphExec> {
        // SAFETY: every flag of `InstantiateFlags` is safe (see above).
        unsafe { self.instantiate_with_raw_flags(flags.bits()) }
    }

    /// Instantiates with any `cudaGraphInstantiateFlags` bits, device-side launch included.
    ///
    /// # Safety
    /// Graph allocations that a launch frees behind this crate
    /// (`cudaGraphInstantiateFlagAutoFreeOnLaunch` on a graph made outside this crate) are
    /// not used afterwards, and launches this crate does not make
    /// (`cudaGraphInstantiateFlagDeviceLaunch`: `cudaGraphLaunch` from device code) complete
    /// before the executable graph, and what its graph holds, are dropped, and never write
    /// pinned memory a host view of this crate shows.
    #[doc(alias = "cudaGraphInstantiateWithFlags")]
    pub unsafe fn instantiate_with_raw_flags(&self, flags: u64) -> Result<GraphExec> {
        let mut raw = sys::cudaGraphExec_t::null();
        // SAFETY: the graph is alive; one handle is written; the flags are the caller's.
        status(unsafe { sys::cudaGraphInstantiateWithFlags(&mut raw, self.raw, flags as _) })?;
        let exec = GraphExec {
            raw,
            graph: RefCell::new(self.kept.clone()),
            launched: RefCell::new(Launches::default()),
            node_kept: RefCell::new(HashMap::new()),
            guarded: RefCell::new(Vec::new()),
        };
        exec.reguard();
        Ok(exec)
    }

    /// A copy of the graph (`cudaGraphClone`), sharing what the graph keeps alive.
    #[doc(alias = "cudaGraphClone")]
    pub fn try_clone(&self) -> Result<Graph> {
        let mut raw = sys::cudaGraph_t::null();
        // SAFETY: the graph is alive; one handle is written.
        status(unsafe { sys::cudaGraphClone(&mut raw, self.raw) })?;
        let clone = Graph::owning(raw);
        clone.keep(Held::Set(self.kept.clone()));
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
    fn destroy(&self, kept: Arc<Holdings>) -> Result<()> {
        holdings::forget_graph(self.raw, &kept);
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
    /// What the graph it was made (or last updated) from holds.
    graph: RefCell<Arc<Holdings>>,
    /// Where it was launched: what it holds is let go once those streams have passed the
    /// launches.
    launched: RefCell<Launches>,
    /// What the current parameters of each node changed in place use, by node handle.
    node_kept: RefCell<HashMap<usize, Vec<Held>>>,
    /// The host-visible memory it holds (in address order): each launch excludes host views
    /// of these, and of nothing else.
    guarded: RefCell<Vec<Life>>,
}

impl std::fmt::Debug for GraphExec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("GraphExec").field(&self.raw).finish()
    }
}

// SAFETY: an executable graph may be used from any thread, one at a time (`!Sync`).
unsafe impl Send for GraphExec {}

impl GraphExec {
    /// The raw handle; valid as long as this value exists.
    pub fn as_raw(&self) -> sys::cudaGraphExec_t {
        self.raw
    }

    /// Enqueues one run of the graph on `stream` (`cudaGraphLaunch`), with the stream's
    /// device current. While a host view of a pinned buffer this graph holds is alive, the
    /// launch fails without launching (see the module documentation); views of other
    /// buffers do not matter. Launching into a stream being captured is refused.
    #[inline]
    #[doc(alias = "cudaGraphLaunch")]
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        let raw = self.raw;
        let device = match stream.ordinal() {
            Some(d) => d,
            None => current_ordinal()?,
        };
        lifetime::launch_graph(
            &self.guarded.borrow(),
            stream.queue(),
            device,
            &mut self.launched.borrow_mut(),
            || {
                // SAFETY: both handles are alive; what the graph uses is held by it (see the
                // module documentation).
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
    /// topology (`cudaGraphExecUpdate`). On success it holds what `graph` holds from then
    /// on, and what it held before (the previous graph's memory, the parameters set on its
    /// nodes) is let go once the launches made before have completed: what an executable
    /// graph updated many times holds stays bounded. A refused update
    /// (`cudaErrorGraphExecUpdateFailure`) leaves it unchanged, holding what it held, and is
    /// [`Error::GraphUpdate`]: why, and which node CUDA named.
    #[doc(alias = "cudaGraphExecUpdate")]
    pub fn update(&self, graph: &Graph) -> Result<()> {
        let mut info = sys::cudaGraphExecUpdateResultInfo::default();
        // `graph` cannot change meanwhile (`&Graph`, and graphs are not `Sync`), and no
        // launch of this executable graph runs during the call (`!Sync`): holding the new
        // memory once the call returned is in time for every later launch.
        // SAFETY: both handles are alive; one record is written.
        let updated = status(unsafe { sys::cudaGraphExecUpdate(self.raw, graph.raw, &mut info) })
            .map_err(|e| GraphExec::update_error(&info, e));
        match &updated {
            Ok(()) => {
                let previous = self.graph.replace(graph.kept.clone());
                let nodes = std::mem::take(&mut *self.node_kept.borrow_mut());
                let mut items: Vec<Held> = nodes.into_values().flatten().collect();
                items.push(Held::Set(previous));
                self.reguard();
                self.release_after_current_launches(items);
            }
            // CUDA: "the graph update was not performed".
            Err(e) if e.cuda_code() == Some(GRAPH_EXEC_UPDATE_FAILURE) => {}
            // Whether anything changed is unknown: hold the new graph's memory too.
            Err(_) => {
                self.node_kept
                    .borrow_mut()
                    .entry(0)
                    .or_default()
                    .push(Held::Set(graph.kept.clone()));
                self.reguard();
            }
        }
        updated
    }

    /// Recomputes the host-visible memory this executable graph holds.
    fn reguard(&self) {
        let mut all = self.graph.borrow().host_lives();
        for items in self.node_kept.borrow().values() {
            all.extend(holdings::host_lives_of(items));
        }
        all.sort_by_key(Life::addr);
        all.dedup_by_key(|l| l.addr());
        *self.guarded.borrow_mut() = all;
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
        let kept = launch.holdings()?;
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
        let mut kept = Vec::new();
        for side in copy.sides() {
            match side {
                Side::Device(view) => kept.extend(view.holding()?),
                Side::Pinned(part) => kept.push(part.life().hold()?),
                Side::Host(..) => {}
            }
        }
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
        self.set_node(
            node,
            vec![Held::Other(Box::new(event.clone()))],
            || unsafe {
                sys::cudaGraphExecEventRecordNodeSetEvent(self.raw, node.raw, event.as_raw())
            },
        )
    }

    /// Makes event wait node `node` wait for `event` at later launches
    /// (`cudaGraphExecEventWaitNodeSetEvent`); this executable graph keeps the event.
    #[doc(alias = "cudaGraphExecEventWaitNodeSetEvent")]
    pub fn set_event_wait_node(&self, node: GraphNode<'_>, event: &Event) -> Result<()> {
        // SAFETY: as above.
        self.set_node(
            node,
            vec![Held::Other(Box::new(event.clone()))],
            || unsafe {
                sys::cudaGraphExecEventWaitNodeSetEvent(self.raw, node.raw, event.as_raw())
            },
        )
    }

    /// Changes one node's parameters with `set` and keeps `kept` (what they use) in the
    /// node's place; the node's previous items are let go after the launches made so far.
    /// When `set` fails nothing changes (`kept` is dropped: CUDA never saw it).
    fn set_node(
        &self,
        node: GraphNode<'_>,
        kept: Vec<Held>,
        set: impl FnOnce() -> Result<sys::cudaError_t>,
    ) -> Result<()> {
        status(set())?;
        let previous = self
            .node_kept
            .borrow_mut()
            .insert(node.raw.0 as usize, kept);
        self.reguard();
        if let Some(previous) = previous {
            self.release_after_current_launches(previous);
        }
        Ok(())
    }

    /// Lets go of `items` once every launch made so far has completed: launches on
    /// per-thread default streams are waited for on the host now (another thread's stream
    /// cannot be recorded later), the others on the release thread. A failed wait keeps
    /// `items` for good (failing closed).
    fn release_after_current_launches(&self, items: Vec<Held>) {
        match self.launched.borrow_mut().so_far() {
            Some(launches) => holdings::release_after(Box::new(items), launches),
            None => std::mem::forget(items),
        }
    }

    /// Destroys the executable graph now and returns the error, where dropping would
    /// report it to the hook. Launches already enqueued complete; what the graph holds is
    /// let go after them.
    #[doc(alias = "cudaGraphExecDestroy")]
    pub fn close(self) -> Result<()> {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: each field is read out once; `me` is never dropped.
        let (graph, launched, nodes, guarded) = unsafe {
            (
                std::ptr::read(&me.graph),
                std::ptr::read(&me.launched),
                std::ptr::read(&me.node_kept),
                std::ptr::read(&me.guarded),
            )
        };
        drop(guarded);
        // SAFETY: owned handle, destroyed once.
        let result = status(unsafe { sys::cudaGraphExecDestroy(me.raw) });
        holdings::release_after(
            Box::new((graph.into_inner(), nodes.into_inner())),
            launched.into_inner(),
        );
        result
    }
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed once; CUDA frees it after pending launches.
        if let Err(e) = status(unsafe { sys::cudaGraphExecDestroy(self.raw) }) {
            report_drop_error("executable graph", &e);
        }
        let kept = (
            self.graph.get_mut().clone(),
            std::mem::take(self.node_kept.get_mut()),
        );
        holdings::release_after(Box::new(kept), std::mem::take(self.launched.get_mut()));
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
    /// The device whose default stream is captured (`None` for a created stream): a
    /// per-thread default stream names the current device's, so the capture is ended with
    /// this device current whichever is current then.
    device: Option<i32>,
    ended: bool,
    _not_send: PhantomData<*const ()>,
}

impl CaptureGuard<'_> {
    /// The stream being captured.
    pub fn stream(&self) -> &Stream {
        self.stream
    }

    /// `len` elements of device memory of the graph's own (a graph memory node,
    /// `cudaMallocAsync` in the capture): usable only by work captured into this capture
    /// (on the captured stream, or a stream joined to the capture), and freed in it when
    /// dropped (a free node), which the borrow checker places before [`end`](Self::end).
    /// Contents unspecified at each launch. See [`GraphBuffer`].
    #[doc(alias = "cudaMallocAsync")]
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<GraphBuffer<'_, T>> {
        GraphBuffer::new(self.stream, len)
    }

    /// Ends the capture (`cudaStreamEndCapture`) and returns the graph; an invalidated
    /// capture is the error that invalidated it (`cudaErrorStreamCaptureInvalidated`, …).
    #[doc(alias = "cudaStreamEndCapture")]
    pub fn end(mut self) -> Result<Graph> {
        self.ended = true;
        end_capture(self.stream, self.device)
    }
}

impl Drop for CaptureGuard<'_> {
    fn drop(&mut self) {
        if !self.ended {
            if let Err(e) = end_capture(self.stream, self.device) {
                report_drop_error("stream capture", &e);
            }
        }
    }
}

/// Ends the capture of `stream` (with `device` current, for a default stream).
fn end_capture(stream: &Stream, device: Option<i32>) -> Result<Graph> {
    let end = || {
        let _gate = stream.gate_exclusive();
        let mut raw = sys::cudaGraph_t::null();
        // SAFETY: the stream is alive and capturing (begun by the guard).
        let ended = status(unsafe { sys::cudaStreamEndCapture(stream.as_raw(), &mut raw) });
        capture_ended();
        if raw.is_null() {
            return Err(ended.err().unwrap_or_else(|| Error::from_code(901)));
        }
        let graph = Graph::owning(raw);
        ended?;
        Ok(graph)
    };
    match device {
        Some(d) => with_device(d, end),
        None => end(),
    }
}

impl Stream {
    /// Begins capturing the work enqueued on this stream into a graph
    /// (`cudaStreamBeginCapture`) until the guard's [`end`](CaptureGuard::end).
    ///
    /// During a capture nothing runs: blocking calls on the stream (a `copy_to_host`,
    /// `synchronize`) fail and invalidate the capture. Copies to and from
    /// [`PinnedBuffer`](crate::PinnedBuffer)s, kernel launches, memsets and device copies
    /// are captured, and the graph holds the memory they use. A device buffer cannot be
    /// allocated on the stream meanwhile (its memory would exist only while the graph runs);
    /// the graph's own temporary memory is [`CaptureGuard::alloc`]. A capture of a
    /// per-thread default stream is ended with the device that was current when it began.
    #[doc(alias = "cudaStreamBeginCapture")]
    pub fn begin_capture(&self, mode: CaptureMode) -> Result<CaptureGuard<'_>> {
        let device = match self.ordinal() {
            Some(_) => None,
            None => Some(current_ordinal()?),
        };
        let _gate = self.gate_exclusive();
        self.queue().count_capture();
        capture_begun();
        // SAFETY: the stream is alive.
        let begun = status(unsafe { sys::cudaStreamBeginCapture(self.as_raw(), mode) });
        if begun.is_err() {
            capture_ended();
        }
        begun?;
        Ok(CaptureGuard {
            stream: self,
            device,
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

/// `cudaErrorGraphExecUpdateFailure`: the update was not performed.
pub(crate) const GRAPH_EXEC_UPDATE_FAILURE: i32 = 910;

/// Flags of an instantiation (`cudaGraphInstantiateFlags`) that are safe by construction
/// (see [`Graph::instantiate_with_flags`]).
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{Graph, InstantiateFlags};
///
/// let graph = Graph::new()?;
/// let exec = graph.instantiate_with_flags(InstantiateFlags::UPLOAD)?;
/// # let _ = exec;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct InstantiateFlags(u64);

bitflags::bitflags! {
    impl InstantiateFlags: u64 {
        /// Frees, at each launch, graph allocations an earlier launch left allocated
        /// (`cudaGraphInstantiateFlagAutoFreeOnLaunch`); a graph of this crate leaves none.
        #[doc(alias = "cudaGraphInstantiateFlagAutoFreeOnLaunch")]
        const AUTO_FREE_ON_LAUNCH = 1;
        /// Uploads the graph as it is instantiated (`cudaGraphInstantiateFlagUpload`).
        #[doc(alias = "cudaGraphInstantiateFlagUpload")]
        const UPLOAD = 2;
        /// Launches kernel nodes with the priorities of their nodes
        /// (`cudaGraphInstantiateFlagUseNodePriority`).
        #[doc(alias = "cudaGraphInstantiateFlagUseNodePriority")]
        const USE_NODE_PRIORITY = 8;
    }
}

impl std::fmt::Debug for InstantiateFlags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InstantiateFlags(")?;
        bitflags::parser::to_writer(self, &mut *f)?;
        f.write_str(")")
    }
}

/// A memset node's parameters: `bytes` bytes at `dst` set to `value`.
fn memset_params(dst: *mut c_void, bytes: usize, value: u8) -> sys::cudaMemsetParams {
    sys::cudaMemsetParams {
        dst,
        pitch: 0,
        value: u32::from(value),
        elementSize: 1,
        width: bytes,
        height: 1,
    }
}

/// Owns a host node's closure for the graph's holdings.
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
