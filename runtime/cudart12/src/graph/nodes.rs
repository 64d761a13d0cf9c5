// Copied by `cargo xtask codegen` from the generator's codegen/template/src/graph/nodes.rs:
// edit the template, not this copy.

//! A [`Graph`]'s own nodes: listing them and their edges, their types, removing one, and
//! changing the parameters of a graph's kernel, memset, copy and host nodes in place (before
//! instantiation; executable graphs made earlier keep their own copy). What new parameters
//! use is held by the graph through the gate's **hold**, as when the node was added: the
//! graph keeps it (and what the previous parameters used) until it is destroyed.
//!
//! Not here: adding nodes, and the setters of an executable graph ([`GraphExec`]).

use std::ffi::c_void;

use super::{
    Copy1d, Graph, GraphExec, GraphNode, HostNodeFn, HostNodeOwner, Side, GRAPH_EXEC_UPDATE_FAILURE,
};
use crate::error::{status, Error, Result};
use crate::kernel::Launch;
use crate::lifetime::holdings::Held;
use crate::memory::{AsDeviceSlice, AsDeviceSliceMut, AsPinnedSlice, AsPinnedSliceMut, DeviceCopy};
use crate::sys;

/// What a graph node does (`cudaGraphNodeType`: `KERNEL`, `MEMCPY`, `MEMSET`, `HOST`,
/// `GRAPH`, `EMPTY`, `WAIT_EVENT`, `EVENT_RECORD`, `MEM_ALLOC`, `MEM_FREE`, …).
pub type GraphNodeType = sys::cudaGraphNodeType;

/// Why an executable graph refused an update (`cudaGraphExecUpdateResult`).
pub type GraphUpdateResult = sys::cudaGraphExecUpdateResult;

/// A node's identity without a borrow of its graph ([`GraphNode::id`]): compared with
/// other nodes, named by errors ([`GraphUpdateFailure`]), and given to
/// [`Graph::remove_node`]. It cannot reach CUDA by itself.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::Graph;
/// let graph = Graph::new()?;
/// let a = graph.add_empty_node(&[])?;
/// let b = graph.add_empty_node(&[a])?;
/// let edges = graph.edges()?;
/// assert_eq!(edges.len(), 1);
/// assert_eq!((edges[0].from.id(), edges[0].to.id()), (a.id(), b.id()));
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(usize);

impl GraphNode<'_> {
    /// This node's identity, which outlives the borrow of the graph.
    pub fn id(self) -> NodeId {
        NodeId(self.raw.0 as usize)
    }

    /// What the node does (`cudaGraphNodeGetType`).
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::graph::{Graph, GraphNodeType};
    /// let graph = Graph::new()?;
    /// let node = graph.add_empty_node(&[])?;
    /// assert_eq!(node.node_type()?, GraphNodeType::EMPTY);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphNodeGetType")]
    pub fn node_type(self) -> Result<GraphNodeType> {
        let mut t = GraphNodeType::EMPTY;
        // SAFETY: the node is alive while its graph is borrowed (removal takes the graph
        // mutably); one value is written.
        status(unsafe { sys::cudaGraphNodeGetType(self.raw, &mut t) })?;
        Ok(t)
    }
}

/// An edge of a [`Graph`] ([`Graph::edges`]): `to` depends on `from`, as `data` says (the
/// default, full completion, or a programmatic dependency: `cudaGraphEdgeData`).
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::Graph;
/// let graph = Graph::new()?;
/// let a = graph.add_empty_node(&[])?;
/// let b = graph.add_empty_node(&[a])?;
/// let edges = graph.edges()?;
/// assert_eq!(edges.len(), 1);
/// assert_eq!((edges[0].from.id(), edges[0].to.id()), (a.id(), b.id()));
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct GraphEdge<'g> {
    /// The node depended on.
    pub from: GraphNode<'g>,
    /// The dependent node.
    pub to: GraphNode<'g>,
    /// The edge's ports and type (`cudaGraphEdgeData`; all zero for a plain dependency).
    pub data: sys::cudaGraphEdgeData,
}

/// Why `cudaGraphExecUpdate` refused an update, and where (the [`Error::GraphUpdate`] of
/// [`GraphExec::update`]).
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::{Error, Graph};
/// let (a, b) = (Graph::new()?, Graph::new()?);
/// a.add_empty_node(&[])?;
/// let exec = a.instantiate()?;
/// b.add_empty_node(&[])?;
/// b.add_empty_node(&[])?; // one node more: another topology
/// match exec.update(&b) {
///     Err(Error::GraphUpdate(why)) => println!("refused: {why}"),
///     other => other?,
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(alias = "cudaGraphExecUpdateResultInfo")]
pub struct GraphUpdateFailure {
    /// Why (`cudaGraphExecUpdateResult`).
    pub reason: GraphUpdateResult,
    /// The node of the new graph CUDA named (`errorNode`), if any.
    pub node: Option<NodeId>,
    /// The node it depends on whose edge changed (`errorFromNode`), if any.
    pub from_node: Option<NodeId>,
}

impl GraphUpdateFailure {
    pub(crate) fn from_info(info: &sys::cudaGraphExecUpdateResultInfo) -> GraphUpdateFailure {
        let id = |n: sys::cudaGraphNode_t| (!n.is_null()).then_some(NodeId(n.0 as usize));
        GraphUpdateFailure {
            reason: info.result,
            node: id(info.errorNode),
            from_node: id(info.errorFromNode),
        }
    }
}

impl std::fmt::Display for GraphUpdateFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reason = self.reason.name().unwrap_or("unknown reason");
        write!(
            f,
            "the executable graph refused the update (cudaErrorGraphExecUpdateFailure, \
             {reason})"
        )?;
        if let Some(node) = self.node {
            write!(f, " at node {:#x}", node.0)?;
        }
        if let Some(from) = self.from_node {
            write!(f, " (edge from node {:#x})", from.0)?;
        }
        Ok(())
    }
}

/// The 5-argument `cudaGraphGetEdges` of 13.x (12.3+: `cudaGraphGetEdges_v2`).
type GetEdges = unsafe extern "C" fn(
    sys::cudaGraph_t,
    *mut sys::cudaGraphNode_t,
    *mut sys::cudaGraphNode_t,
    *mut sys::cudaGraphEdgeData,
    *mut usize,
) -> sys::cudaError_t;

/// The 5-argument `cudaGraphAddDependencies` of 13.x (12.3+: `cudaGraphAddDependencies_v2`).
type AddDependencies = unsafe extern "C" fn(
    sys::cudaGraph_t,
    *const sys::cudaGraphNode_t,
    *const sys::cudaGraphNode_t,
    *const sys::cudaGraphEdgeData,
    usize,
) -> sys::cudaError_t;

/// When a kernel node that depends programmatically on another may start
/// ([`Graph::add_programmatic_dependency`]).
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::graph::Programmatic;
/// use cudart12::Graph;
/// let graph = Graph::new()?;
/// # let (producer, consumer) = (graph.add_empty_node(&[])?, graph.add_empty_node(&[])?);
/// // SAFETY: the consumer kernel calls `cudaGridDependencySynchronize` before it reads
/// // what the producer kernel writes.
/// unsafe { graph.add_programmatic_dependency(producer, consumer, Programmatic::Triggered)? };
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Programmatic {
    /// Once every block of the kernel it depends on has called
    /// `cudaTriggerProgrammaticLaunchCompletion` or exited
    /// (`cudaGraphKernelNodePortProgrammatic`).
    #[doc(alias = "cudaGraphKernelNodePortProgrammatic")]
    Triggered,
    /// Once every block of the kernel it depends on has started
    /// (`cudaGraphKernelNodePortLaunchCompletion`).
    #[doc(alias = "cudaGraphKernelNodePortLaunchCompletion")]
    Launched,
}

impl Graph {
    /// Makes `to` depend on `from` (`cudaGraphAddDependencies`): `to` runs after `from` has
    /// completed. A duplicate edge or a cycle is CUDA's error. Adding order never makes
    /// work overlap, so this is safe.
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::Graph;
    /// let graph = Graph::new()?;
    /// let (a, b) = (graph.add_empty_node(&[])?, graph.add_empty_node(&[])?);
    /// graph.add_dependency(a, b)?;
    /// assert_eq!(graph.root_nodes()?, vec![a]);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphAddDependencies")]
    pub fn add_dependency(&self, from: GraphNode<'_>, to: GraphNode<'_>) -> Result<()> {
        self.add_edge(from, to, sys::cudaGraphEdgeData::default())
    }

    /// Makes kernel node `to` depend on kernel node `from` programmatically (programmatic
    /// dependent launch: an edge of type `cudaGraphDependencyTypeProgrammatic`, CUDA 12.3
    /// and later): `to` may start before `from` has completed, as `when` says, and overlap
    /// it. CUDA refuses it between nodes that are not kernels.
    ///
    /// # Safety
    /// The kernel of `to` calls `cudaGridDependencySynchronize()` before it touches memory
    /// that the kernel of `from` writes, or reads memory `to` writes (otherwise the two
    /// kernels race on device memory).
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use cudart12::graph::Programmatic;
    /// use cudart12::{Graph, Launch, LaunchConfig, Module};
    /// # let ptx = "";
    /// let module = Module::from_ptx(ptx)?; // `produce` triggers, `consume` synchronises
    /// let (produce, consume) = (module.kernel("produce")?, module.kernel("consume")?);
    /// let graph = Graph::new()?;
    /// let config = LaunchConfig::new(1, 32)?;
    /// // SAFETY: both kernels take no arguments; `consume` calls
    /// // cudaGridDependencySynchronize() before reading what `produce` wrote.
    /// unsafe {
    ///     let a = graph.add_kernel_node(&[], Launch::new(&produce).config(config))?;
    ///     let b = graph.add_kernel_node(&[], Launch::new(&consume).config(config))?;
    ///     graph.add_programmatic_dependency(a, b, Programmatic::Triggered)?;
    /// }
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphAddDependencies")]
    #[doc(alias = "cudaGraphDependencyTypeProgrammatic")]
    pub unsafe fn add_programmatic_dependency(
        &self,
        from: GraphNode<'_>,
        to: GraphNode<'_>,
        when: Programmatic,
    ) -> Result<()> {
        let port = match when {
            Programmatic::Triggered => sys::cudaGraphKernelNodePortProgrammatic,
            Programmatic::Launched => sys::cudaGraphKernelNodePortLaunchCompletion,
        };
        let data = sys::cudaGraphEdgeData {
            from_port: port as u8,
            type_: sys::cudaGraphDependencyType::PROGRAMMATIC.0 as u8,
            ..Default::default()
        };
        self.add_edge(from, to, data)
    }

    /// Adds the edge `from` → `to` with `data`.
    fn add_edge(
        &self,
        from: GraphNode<'_>,
        to: GraphNode<'_>,
        data: sys::cudaGraphEdgeData,
    ) -> Result<()> {
        // SAFETY: the C signature of the function of each major.
        static ADD: crate::loader::LazySymbol<AddDependencies> = unsafe {
            crate::loader::LazySymbol::new(
                if sys::CUDA_MAJOR >= 13 {
                    c"cudaGraphAddDependencies"
                } else {
                    c"cudaGraphAddDependencies_v2"
                },
                if sys::CUDA_MAJOR >= 13 { 0 } else { 12030 },
            )
        };
        let add = ADD.get()?;
        // SAFETY: live nodes of live graphs (CUDA refuses nodes of another graph); one edge.
        status(Ok(unsafe { add(self.raw, &from.raw, &to.raw, &data, 1) }))
    }

    /// Every node of the graph (`cudaGraphGetNodes`).
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::Graph;
    /// let graph = Graph::new()?;
    /// let a = graph.add_empty_node(&[])?;
    /// let b = graph.add_empty_node(&[a])?;
    /// assert_eq!(graph.nodes()?, vec![a, b]);
    /// assert_eq!(graph.root_nodes()?, vec![a]);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphGetNodes")]
    pub fn nodes(&self) -> Result<Vec<GraphNode<'_>>> {
        self.list(|out, n| {
            // SAFETY: `out` is null or has `*n` entries.
            unsafe { sys::cudaGraphGetNodes(self.raw, out, n) }
        })
    }

    /// The nodes without dependencies (`cudaGraphGetRootNodes`).
    #[doc(alias = "cudaGraphGetRootNodes")]
    pub fn root_nodes(&self) -> Result<Vec<GraphNode<'_>>> {
        self.list(|out, n| {
            // SAFETY: `out` is null or has `*n` entries.
            unsafe { sys::cudaGraphGetRootNodes(self.raw, out, n) }
        })
    }

    /// A list CUDA writes: the count first, then the entries (fewer if the graph shrank
    /// meanwhile: it cannot, as it is borrowed, but CUDA's count is the one kept).
    fn list(
        &self,
        mut get: impl FnMut(*mut sys::cudaGraphNode_t, *mut usize) -> Result<sys::cudaError_t>,
    ) -> Result<Vec<GraphNode<'_>>> {
        let mut n = 0usize;
        status(get(std::ptr::null_mut(), &mut n))?;
        let mut raw = vec![sys::cudaGraphNode_t::null(); n];
        let mut got = n;
        status(get(raw.as_mut_ptr(), &mut got))?;
        raw.truncate(got.min(n));
        Ok(raw.into_iter().map(|r| self.node(r)).collect())
    }

    /// Every edge of the graph, with its edge data (`cudaGraphGetEdges`; on 12.x
    /// `cudaGraphGetEdges_v2`, CUDA 12.3 and later).
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::Graph;
    /// let graph = Graph::new()?;
    /// let a = graph.add_empty_node(&[])?;
    /// let b = graph.add_empty_node(&[a])?;
    /// let edges = graph.edges()?;
    /// assert_eq!((edges[0].from, edges[0].to), (a, b));
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphGetEdges")]
    pub fn edges(&self) -> Result<Vec<GraphEdge<'_>>> {
        // SAFETY: the C signature of the function of each major.
        static GET: crate::loader::LazySymbol<GetEdges> = unsafe {
            crate::loader::LazySymbol::new(
                if sys::CUDA_MAJOR >= 13 {
                    c"cudaGraphGetEdges"
                } else {
                    c"cudaGraphGetEdges_v2"
                },
                if sys::CUDA_MAJOR >= 13 { 0 } else { 12030 },
            )
        };
        let get = GET.get()?;
        let mut n = 0usize;
        // SAFETY: with null lists only the count is written.
        status(Ok(unsafe {
            get(
                self.raw,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut n,
            )
        }))?;
        let mut from = vec![sys::cudaGraphNode_t::null(); n];
        let mut to = vec![sys::cudaGraphNode_t::null(); n];
        let mut data = vec![sys::cudaGraphEdgeData::default(); n];
        let mut got = n;
        // SAFETY: three lists of `n` entries.
        status(Ok(unsafe {
            get(
                self.raw,
                from.as_mut_ptr(),
                to.as_mut_ptr(),
                data.as_mut_ptr(),
                &mut got,
            )
        }))?;
        Ok((0..got.min(n))
            .map(|i| GraphEdge {
                from: self.node(from[i]),
                to: self.node(to[i]),
                data: data[i],
            })
            .collect())
    }

    /// Removes node `node` and its edges (`cudaGraphDestroyNode`). Taking the graph mutably
    /// ends every [`GraphNode`] borrowed from it, so no handle of the removed node is left;
    /// an id that is not a node of this graph is refused. What the node used stays held
    /// by the graph until it is destroyed.
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::Graph;
    /// let mut graph = Graph::new()?;
    /// let a = graph.add_empty_node(&[])?.id();
    /// graph.remove_node(a)?;
    /// assert_eq!(graph.node_count()?, 0);
    /// assert!(graph.remove_node(a).is_err()); // gone
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphDestroyNode")]
    pub fn remove_node(&mut self, node: NodeId) -> Result<()> {
        let Some(found) = self.nodes()?.into_iter().find(|n| n.id() == node) else {
            return Err(Error::InvalidArgument(format!(
                "remove_node: {:#x} is not a node of this graph",
                node.0
            )));
        };
        let raw = found.raw;
        // SAFETY: a node of this graph; no other handle of it outlives this call (`&mut`).
        status(unsafe { sys::cudaGraphDestroyNode(raw) })
    }

    /// Makes kernel node `node` launch as `launch` describes (`cudaGraphKernelNodeSetParams`;
    /// its stream is ignored, launch attributes are refused); the graph holds what the new
    /// arguments use and the kernel's module.
    ///
    /// # Safety
    /// As [`Launch::run`], for every launch of executable graphs made from this graph later.
    #[doc(alias = "cudaGraphKernelNodeSetParams")]
    pub unsafe fn set_kernel_node_params(
        &self,
        node: GraphNode<'_>,
        mut launch: Launch<'_>,
    ) -> Result<()> {
        let params = launch.node_params()?;
        launch.hold_in(self.raw)?;
        // SAFETY: a live node; the caller's promise about the arguments; CUDA copies them.
        status(unsafe { sys::cudaGraphKernelNodeSetParams(node.raw, &params) })
    }

    /// Makes memset node `node` set every byte of `dst` to `value`
    /// (`cudaGraphMemsetNodeSetParams`); the graph holds `dst`'s buffer.
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::{DeviceBuffer, Graph, Stream};
    /// let stream = Stream::non_blocking()?;
    /// let (mut a, mut b) = (DeviceBuffer::<u8>::new(64, &stream)?, DeviceBuffer::<u8>::new(64, &stream)?);
    /// let graph = Graph::new()?;
    /// let node = graph.add_memset_node(&[], &mut a, 0)?;
    /// graph.set_memset_node(node, &mut b, 7)?; // instantiations from now on set `b`
    /// graph.instantiate()?.launch(&stream)?;
    /// assert_eq!(b.to_vec()?, vec![7; 64]);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphMemsetNodeSetParams")]
    pub fn set_memset_node<T: DeviceCopy>(
        &self,
        node: GraphNode<'_>,
        dst: &mut impl AsDeviceSliceMut<T>,
        value: u8,
    ) -> Result<()> {
        let dst = dst.as_device_slice_mut();
        dst.hold_in(self.raw)?;
        let params = super::memset_params(dst.as_device_ptr().as_raw(), dst.size_bytes(), value);
        // SAFETY: a live node; the record names `width` bytes of device memory the graph
        // holds.
        status(unsafe { sys::cudaGraphMemsetNodeSetParams(node.raw, &params) })
    }

    /// Makes copy node `node` copy device memory `src` to `dst`, same lengths
    /// (`cudaGraphMemcpyNodeSetParams1D`); the graph holds both.
    #[doc(alias = "cudaGraphMemcpyNodeSetParams1D")]
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
        // SAFETY: device memory on both sides, held by the graph.
        unsafe { self.set_copy(node, copy) }
    }

    /// Makes copy node `node` copy pinned memory `src` to pinned memory `dst`
    /// (`cudaGraphMemcpyNodeSetParams1D`); held and excluded from host views as in
    /// [`Graph::add_copy_pinned_node`].
    #[doc(alias = "cudaGraphMemcpyNodeSetParams1D")]
    pub fn set_copy_pinned_node<T: DeviceCopy>(
        &self,
        node: GraphNode<'_>,
        dst: &mut impl AsPinnedSliceMut<T>,
        src: &impl AsPinnedSlice<T>,
    ) -> Result<()> {
        let dst = dst.as_pinned_slice_mut();
        let copy = Copy1d::new(
            "set_copy_pinned_node",
            Side::Pinned(dst.as_pinned_slice()),
            Side::Pinned(src.as_pinned_slice()),
        )?;
        // SAFETY: pinned memory on both sides, held by the graph.
        unsafe { self.set_copy(node, copy) }
    }

    /// The graph holds `copy`'s sides, then node `node` copies them.
    ///
    /// # Safety
    /// A host side of `copy` is valid during every launch.
    unsafe fn set_copy<T: DeviceCopy>(
        &self,
        node: GraphNode<'_>,
        copy: Copy1d<'_, T>,
    ) -> Result<()> {
        self.hold_sides(&copy)?;
        // SAFETY: a live node; the sides are held by the graph (host ones by the caller).
        status(unsafe {
            sys::cudaGraphMemcpyNodeSetParams1D(
                node.raw,
                copy.dst.address(),
                copy.src.address().cast_const(),
                copy.bytes(),
                copy.kind(),
            )
        })
    }

    /// Makes host node `node` run `f` at each launch (`cudaGraphHostNodeSetParams`); the
    /// graph owns `f` (and keeps the previous closure until it is destroyed).
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::Graph;
    /// let graph = Graph::new()?;
    /// let node = graph.add_host_node(&[], || println!("first"))?;
    /// graph.set_host_node(node, || println!("second"))?;
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphHostNodeSetParams")]
    pub fn set_host_node<F>(&self, node: GraphNode<'_>, f: F) -> Result<()>
    where
        F: Fn() + Send + Sync + 'static,
    {
        let params = self.host_params(f);
        // SAFETY: a live node; the closure lives as long as the graph's holdings.
        status(unsafe { sys::cudaGraphHostNodeSetParams(node.raw, &params) })
    }

    /// A host node's parameters running `f`, which the graph holds from now on.
    pub(super) fn host_params<F>(&self, f: F) -> sys::cudaHostNodeParams
    where
        F: Fn() + Send + Sync + 'static,
    {
        let (held, params) = host_closure(f);
        self.keep(held);
        params
    }
}

/// A closure for a host node: what must hold it, and the parameters that run it (valid as
/// long as the holding lives: the closure's box does not move).
pub(crate) fn host_closure<F>(f: F) -> (Held, sys::cudaHostNodeParams)
where
    F: Fn() + Send + Sync + 'static,
{
    let closure: Box<HostNodeFn> = Box::new(Box::new(f));
    let cell: *const HostNodeFn = &*closure;
    let params = sys::cudaHostNodeParams {
        fn_: Some(super::host_node_trampoline),
        userData: cell.cast_mut().cast::<c_void>(),
    };
    (Held::Other(Box::new(HostNodeOwner(closure))), params)
}

impl GraphExec {
    /// Makes host node `node` run `f` at later launches (`cudaGraphExecHostNodeSetParams`);
    /// this executable graph owns `f`, and lets the previous closure go once the launches
    /// made before have completed.
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::{Graph, Stream};
    /// let stream = Stream::non_blocking()?;
    /// let graph = Graph::new()?;
    /// let node = graph.add_host_node(&[], || println!("first"))?;
    /// let exec = graph.instantiate()?;
    /// exec.set_host_node(node, || println!("second"))?;
    /// exec.launch(&stream)?; // prints "second"
    /// stream.synchronize()?;
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphExecHostNodeSetParams")]
    pub fn set_host_node<F>(&self, node: GraphNode<'_>, f: F) -> Result<()>
    where
        F: Fn() + Send + Sync + 'static,
    {
        let (held, params) = host_closure(f);
        // SAFETY: live handles; the closure is held by this executable graph from now on.
        self.set_node(node, vec![held], || unsafe {
            sys::cudaGraphExecHostNodeSetParams(self.raw, node.raw, &params)
        })
    }

    /// Makes memset node `node` set every byte of `dst` to `value` at later launches
    /// (`cudaGraphExecMemsetNodeSetParams`); this executable graph holds `dst`'s buffer, and
    /// lets what the node set before go once the launches made before have completed.
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::{DeviceBuffer, Graph, Stream};
    /// let stream = Stream::non_blocking()?;
    /// let mut a = DeviceBuffer::<u8>::new(64, &stream)?;
    /// let graph = Graph::new()?;
    /// let node = graph.add_memset_node(&[], &mut a, 0)?;
    /// let exec = graph.instantiate()?;
    /// let mut b = DeviceBuffer::<u8>::new(64, &stream)?;
    /// exec.set_memset_node(node, &mut b, 0xff)?;
    /// exec.launch(&stream)?;
    /// assert_eq!(b.to_vec()?, vec![0xff; 64]);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphExecMemsetNodeSetParams")]
    pub fn set_memset_node<T: DeviceCopy>(
        &self,
        node: GraphNode<'_>,
        dst: &mut impl AsDeviceSliceMut<T>,
        value: u8,
    ) -> Result<()> {
        let dst = dst.as_device_slice_mut();
        let kept: Vec<Held> = dst.as_device_slice().holding()?.into_iter().collect();
        let params = super::memset_params(dst.as_device_ptr().as_raw(), dst.size_bytes(), value);
        // SAFETY: live handles; `dst` is held by this executable graph from now on.
        self.set_node(node, kept, || unsafe {
            sys::cudaGraphExecMemsetNodeSetParams(self.raw, node.raw, &params)
        })
    }

    /// Makes child-graph node `node` run a copy of `child` at later launches
    /// (`cudaGraphExecChildGraphNodeSetParams`; same topology as the node's graph); this
    /// executable graph holds what `child` holds.
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::{DeviceBuffer, Graph, Stream};
    /// let stream = Stream::non_blocking()?;
    /// let mut buf = DeviceBuffer::<u8>::new(64, &stream)?;
    /// let (child, other) = (Graph::new()?, Graph::new()?);
    /// child.add_memset_node(&[], &mut buf, 1)?;
    /// other.add_memset_node(&[], &mut buf, 2)?; // the same topology
    /// let parent = Graph::new()?;
    /// let node = parent.add_child_graph_node(&[], &child)?;
    /// let exec = parent.instantiate()?;
    /// exec.set_child_graph_node(node, &other)?;
    /// exec.launch(&stream)?;
    /// assert_eq!(buf.to_vec()?, vec![2; 64]);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphExecChildGraphNodeSetParams")]
    pub fn set_child_graph_node(&self, node: GraphNode<'_>, child: &Graph) -> Result<()> {
        // SAFETY: live handles; CUDA copies the child's parameters, and what they use is
        // held by this executable graph from now on.
        self.set_node(node, vec![Held::Set(child.kept.clone())], || unsafe {
            sys::cudaGraphExecChildGraphNodeSetParams(self.raw, node.raw, child.raw)
        })
    }

    /// Makes copy node `node` copy pinned memory `src` to pinned memory `dst` at later
    /// launches (`cudaGraphExecMemcpyNodeSetParams1D`); held and excluded from host views as
    /// in [`Graph::add_copy_pinned_node`].
    ///
    /// ```no_run
    /// # fn main() -> cudart12::Result<()> {
    /// use cudart12::{Graph, PinnedBuffer, Stream};
    /// let stream = Stream::non_blocking()?;
    /// let src = PinnedBuffer::from_slice(&[4u16; 8])?;
    /// let (mut a, mut b) = (PinnedBuffer::<u16>::new(8)?, PinnedBuffer::<u16>::new(8)?);
    /// let graph = Graph::new()?;
    /// let node = graph.add_copy_pinned_node(&[], &mut a, &src)?;
    /// let exec = graph.instantiate()?;
    /// exec.set_copy_pinned_node(node, &mut b, &src)?;
    /// exec.launch(&stream)?;
    /// assert_eq!(b.to_vec()?, vec![4; 8]);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphExecMemcpyNodeSetParams1D")]
    pub fn set_copy_pinned_node<T: DeviceCopy>(
        &self,
        node: GraphNode<'_>,
        dst: &mut impl AsPinnedSliceMut<T>,
        src: &impl AsPinnedSlice<T>,
    ) -> Result<()> {
        let dst = dst.as_pinned_slice_mut();
        let copy = Copy1d::new(
            "set_copy_pinned_node",
            Side::Pinned(dst.as_pinned_slice()),
            Side::Pinned(src.as_pinned_slice()),
        )?;
        // SAFETY: pinned memory on both sides, held by this executable graph from now on.
        unsafe { self.set_copy(node, copy) }
    }

    /// The error of a refused update, with CUDA's result information.
    pub(super) fn update_error(info: &sys::cudaGraphExecUpdateResultInfo, e: Error) -> Error {
        if e.cuda_code() == Some(GRAPH_EXEC_UPDATE_FAILURE) {
            Error::GraphUpdate(GraphUpdateFailure::from_info(info))
        } else {
            e
        }
    }
}
