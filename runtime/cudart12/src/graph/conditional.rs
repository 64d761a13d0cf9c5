// Copied by `cargo xtask codegen` from the generator's codegen/template/src/graph/conditional.rs:
// edit the template, not this copy.

//! Conditional nodes (`cudaGraphConditionalHandleCreate`, `cudaGraphAddNode` with
//! `cudaGraphNodeTypeConditional`): *if*/*else*, *while* and *switch* nodes whose body
//! graphs CUDA creates and owns, run as the value a kernel of the graph set on the node's
//! [`ConditionalHandle`] (`cudaGraphSetConditional`, in device code) says. CUDA 12.3 and
//! later (*switch*: 12.8); an older runtime gives [`Error::NotInRuntime`].
//!
//! What a body graph's nodes use is held by the body's holdings, which the parent graph
//! holds: it lives as long as the parent and every executable graph made from it, as for
//! any node of the parent. A body graph is borrowed from its parent ([`BodyGraph`]) and
//! never destroyed by this crate (CUDA destroys it with its node).
//!
//! Not here: the device code that sets the condition (a kernel the caller writes; its launch
//! is `unsafe` as any kernel launch is).

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::sync::Arc;

use super::{Graph, GraphNode};
use crate::error::{status, Error, Result};
use crate::lifetime::holdings::{forget_graph, Held, Holdings};
use crate::sys;

/// The value a conditional node reads (`cudaGraphConditionalHandle`), made for one graph
/// ([`Graph::conditional_handle`]) and set from device code with
/// `cudaGraphSetConditional(handle, value)`: pass [`as_raw`](Self::as_raw) to the kernel as
/// an `unsigned long long` argument. See [`Graph::add_conditional_node`] for a whole
/// *while* loop.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::Graph;
/// let graph = Graph::new()?;
/// let handle = graph.conditional_handle(Some(0))?; // 0 at the start of every launch
/// let arg: u64 = handle.as_raw(); // a kernel argument
/// # let _ = arg; Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[doc(alias = "cudaGraphConditionalHandle")]
pub struct ConditionalHandle {
    raw: sys::cudaGraphConditionalHandle,
    /// The graph it was made for (a handle is valid only there and in its body graphs).
    graph: usize,
}

impl ConditionalHandle {
    /// The raw handle, for a kernel argument.
    pub fn as_raw(self) -> u64 {
        self.raw
    }
}

/// What a conditional node does with its condition (`cudaGraphConditionalNodeType`).
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::graph::Conditional;
/// use cudart12::Graph;
/// let graph = Graph::new()?;
/// let handle = graph.conditional_handle(Some(1))?; // the condition starts true
/// let node = graph.add_conditional_node(&[], handle, Conditional::While)?;
/// // The body runs while the condition holds: a kernel in it sets it through `handle`.
/// node.bodies()[0].add_empty_node(&[])?;
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Conditional {
    /// Runs body 0 when the condition is non-zero; with `with_else`, body 1 when it is zero
    /// (`cudaGraphCondTypeIf`).
    #[doc(alias = "cudaGraphCondTypeIf")]
    If {
        /// Whether a second (else) body is made.
        with_else: bool,
    },
    /// Runs body 0 again and again while the condition is non-zero, checked before each run
    /// (`cudaGraphCondTypeWhile`): a kernel in the body sets it to end the loop.
    #[doc(alias = "cudaGraphCondTypeWhile")]
    While,
    /// Runs body `n` when the condition is `n`, none when it is `cases` or more
    /// (`cudaGraphCondTypeSwitch`, CUDA 12.8 and later).
    #[doc(alias = "cudaGraphCondTypeSwitch")]
    Switch {
        /// The number of bodies.
        cases: u32,
    },
}

impl Conditional {
    fn raw(self) -> (sys::cudaGraphConditionalNodeType, u32) {
        match self {
            Conditional::If { with_else } => (
                sys::cudaGraphConditionalNodeType::IF,
                if with_else { 2 } else { 1 },
            ),
            Conditional::While => (sys::cudaGraphConditionalNodeType::WHILE, 1),
            Conditional::Switch { cases } => (sys::cudaGraphConditionalNodeType::SWITCH, cases),
        }
    }
}

/// A body graph of a conditional node, borrowed from the graph that holds the node: it
/// dereferences to a [`Graph`] to add nodes to (allowed there: kernel, empty, child-graph,
/// memset, copy and conditional nodes). CUDA destroys it with its node; what its nodes use
/// is held as long as the parent graph, and executable graphs made from it, live.
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::graph::Conditional;
/// use cudart12::Graph;
/// let graph = Graph::new()?;
/// let handle = graph.conditional_handle(Some(1))?; // the condition starts true
/// let node = graph.add_conditional_node(&[], handle, Conditional::While)?;
/// // The body runs while the condition holds: a kernel in it sets it through `handle`.
/// node.bodies()[0].add_empty_node(&[])?;
/// # Ok(()) }
/// ```
pub struct BodyGraph<'g> {
    graph: ManuallyDrop<Graph>,
    _parent: PhantomData<&'g Graph>,
}

impl std::ops::Deref for BodyGraph<'_> {
    type Target = Graph;
    fn deref(&self) -> &Graph {
        &self.graph
    }
}

impl Drop for BodyGraph<'_> {
    fn drop(&mut self) {
        // SAFETY: read once; the graph itself is never destroyed here (CUDA destroys it with
        // its node), only this reference to its holdings is let go.
        drop(unsafe { std::ptr::read(&self.graph.kept) });
    }
}

impl std::fmt::Debug for BodyGraph<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("BodyGraph").field(&self.graph.raw).finish()
    }
}

/// A conditional node and its body graphs ([`Graph::add_conditional_node`]).
///
/// ```no_run
/// # fn main() -> cudart12::Result<()> {
/// use cudart12::graph::Conditional;
/// use cudart12::Graph;
/// let graph = Graph::new()?;
/// let handle = graph.conditional_handle(Some(1))?; // the condition starts true
/// let node = graph.add_conditional_node(&[], handle, Conditional::While)?;
/// // The body runs while the condition holds: a kernel in it sets it through `handle`.
/// node.bodies()[0].add_empty_node(&[])?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct ConditionalNode<'g> {
    node: GraphNode<'g>,
    bodies: Vec<BodyGraph<'g>>,
}

impl<'g> ConditionalNode<'g> {
    /// The node, to depend on.
    pub fn node(&self) -> GraphNode<'g> {
        self.node
    }

    /// The body graphs (one for *if* and *while*, two for *if* with an else, `cases` for
    /// *switch*).
    pub fn bodies(&self) -> &[BodyGraph<'g>] {
        &self.bodies
    }
}

/// Forgets a body graph's entry among the holding sets once its parent's holdings go (the
/// body was destroyed with the parent before that).
struct BodyEntry(sys::cudaGraph_t, Arc<Holdings>);

// SAFETY: the handle is only compared, never used to call CUDA.
unsafe impl Send for BodyEntry {}
// SAFETY: as above.
unsafe impl Sync for BodyEntry {}

impl Drop for BodyEntry {
    fn drop(&mut self) {
        forget_graph(self.0, &self.1);
    }
}

/// The 6-argument `cudaGraphAddNode` of 13.x (12.3+: `cudaGraphAddNode_v2`).
type AddNode = unsafe extern "C" fn(
    *mut sys::cudaGraphNode_t,
    sys::cudaGraph_t,
    *const sys::cudaGraphNode_t,
    *const sys::cudaGraphEdgeData,
    usize,
    *mut sys::cudaGraphNodeParams,
) -> sys::cudaError_t;

impl Graph {
    /// Available since CUDA 12.3 (calls `cudaGraphConditionalHandleCreate`).
    ///
    /// A condition for conditional nodes of this graph (`cudaGraphConditionalHandleCreate`):
    /// with `default` set, each launch starts with that value
    /// (`cudaGraphCondAssignDefault`); without, a kernel of the graph must set it before the
    /// node reads it.
    ///
    /// See [`add_conditional_node`](Graph::add_conditional_node) for an example.
    #[doc(alias = "cudaGraphConditionalHandleCreate")]
    pub fn conditional_handle(&self, default: Option<u32>) -> Result<ConditionalHandle> {
        let mut raw: sys::cudaGraphConditionalHandle = 0;
        let flags = if default.is_some() { 1 } else { 0 };
        // SAFETY: the graph is alive; one handle is written.
        status(unsafe {
            sys::cudaGraphConditionalHandleCreate(&mut raw, self.raw, default.unwrap_or(0), flags)
        })?;
        Ok(ConditionalHandle {
            raw,
            graph: self.raw.0 as usize,
        })
    }

    /// A conditional node reading `handle` (made for this graph) after `deps`
    /// (`cudaGraphAddNode`, `cudaGraphNodeTypeConditional`); fill its body graphs with
    /// nodes. A handle of another graph is refused.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use cudart12::graph::Conditional;
    /// use cudart12::{DeviceBuffer, Graph, Launch, LaunchConfig, Module, Stream};
    /// # let ptx = "";
    /// // `step(unsigned* n, unsigned long long h)`: --*n; cudaGraphSetConditional(h, *n != 0)
    /// let step = Module::from_ptx(ptx)?.kernel("step")?;
    /// let stream = Stream::non_blocking()?;
    /// let counter = DeviceBuffer::from_slice(&[10u32], &stream)?;
    /// let graph = Graph::new()?;
    /// let handle = graph.conditional_handle(Some(1))?;
    /// let cond = graph.add_conditional_node(&[], handle, Conditional::While)?;
    /// let h = handle.as_raw();
    /// // SAFETY: `step` takes (unsigned*, unsigned long long).
    /// let body = &cond.bodies()[0];
    /// // SAFETY: `step` takes (unsigned*, unsigned long long); `counter` outlives the launches.
    /// unsafe { body.add_kernel_node(&[], Launch::new(&step).config(LaunchConfig::new(1, 1)?).args((&counter, &h)))? };
    /// graph.instantiate()?.launch(&stream)?; // runs `step` ten times
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaGraphAddNode")]
    #[doc(alias = "cudaGraphNodeTypeConditional")]
    pub fn add_conditional_node(
        &self,
        deps: &[GraphNode<'_>],
        handle: ConditionalHandle,
        kind: Conditional,
    ) -> Result<ConditionalNode<'_>> {
        if handle.graph != self.raw.0 as usize {
            return Err(Error::InvalidArgument(
                "add_conditional_node: the conditional handle was made for another graph".into(),
            ));
        }
        // SAFETY: the C signature of the function of each major.
        static ADD: crate::loader::LazySymbol<AddNode> = unsafe {
            crate::loader::LazySymbol::new(
                if sys::CUDA_MAJOR >= 13 {
                    c"cudaGraphAddNode"
                } else {
                    c"cudaGraphAddNode_v2"
                },
                if sys::CUDA_MAJOR >= 13 { 0 } else { 12030 },
            )
        };
        let add = ADD.get()?;
        let (kind, size) = kind.raw();
        let cond = sys::cudaConditionalNodeParams {
            handle: handle.raw,
            type_: kind,
            size,
            ..Default::default()
        };
        let mut params = sys::cudaGraphNodeParams {
            type_: sys::cudaGraphNodeType::CONDITIONAL,
            ..Default::default()
        };
        params.set_conditional(cond);
        let mut node = sys::cudaGraphNode_t::null();
        // SAFETY: the graph and dependencies are alive; CUDA writes the node and the body
        // list (a CUDA-owned array of `size` graphs) into `params`.
        status(Ok(unsafe {
            add(
                &mut node,
                self.raw,
                Self::deps(deps),
                std::ptr::null(),
                deps.len(),
                &mut params,
            )
        }))?;
        // SAFETY: written by CUDA for a conditional node.
        let out = unsafe { params.conditional() }.phGraph_out;
        let mut bodies = Vec::with_capacity(size as usize);
        for i in 0..size as usize {
            if out.is_null() {
                break;
            }
            // SAFETY: CUDA's array of `size` body graphs, valid while the node lives.
            let raw = unsafe { *out.add(i) };
            let body = Graph::owning(raw);
            // The parent holds what the body's nodes will use, and forgets the body's entry
            // when it lets go.
            self.keep(Held::Set(body.kept.clone()));
            self.keep(Held::Other(Box::new(BodyEntry(raw, body.kept.clone()))));
            bodies.push(BodyGraph {
                graph: ManuallyDrop::new(body),
                _parent: PhantomData,
            });
        }
        Ok(ConditionalNode {
            node: self.node(node),
            bodies,
        })
    }
}
