// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/pinned.rs:
// edit the template, not this copy.

//! Pinned (page-locked) host memory: [`PinnedBuffer<T>`], the source or destination of safe
//! asynchronous copies, with host access through views that wait for those copies;
//! [`PinnedPool`], a cache of pinned blocks as CuPy's `PinnedMemoryPool`; the
//! [`HostAllocator`] trait behind both.
//!
//! How asynchronous copies stay safe (the [safety model](super#safety-model)): each buffer
//! records, for every stream a copy of it was enqueued on, an event after its last copy
//! there; a host view ([`PinnedBuffer::as_slice`], [`PinnedBuffer::as_mut_slice`]) first
//! waits for the copies that conflict with it (writes for a read view, all for a write
//! view) and returns the error when a wait fails; dropping the buffer waits for all of them
//! and leaks the block instead of freeing it when a wait fails. A copy captured into a graph
//! makes the graph own the block (a CUDA user object); while any graph owns a pinned block,
//! [`GraphExec::launch`](crate::graph::GraphExec::launch) and host views of graph-owned
//! blocks exclude each other: a launch fails while such a view is alive, and such a view
//! first waits for every launch made before it.

use std::collections::HashMap;
use std::ffi::c_void;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::allocator;
use super::track::{self, Access, Capture, Enqueued, StreamKey, Tracked, Uses};
use super::{bytes_of, DeviceCopy};
use crate::error::{report_drop_error, status, Error, Result};
use crate::stream::Stream;
use crate::sys;

/// Where pinned host memory comes from.
///
/// # Safety
/// `alloc` returns memory valid for reads and writes of `bytes` bytes, aligned to at least
/// 256 bytes (as `cudaMallocHost`), that stays valid until `free` is called with it. For
/// copies to be asynchronous the memory should be page-locked; pageable memory still works
/// (CUDA then copies synchronously).
pub unsafe trait HostAllocator: Send + Sync {
    /// Allocates `bytes` bytes (`bytes > 0`).
    fn alloc(&self, bytes: usize) -> Result<NonNull<u8>>;
    /// Frees memory from [`alloc`](HostAllocator::alloc).
    ///
    /// # Safety
    /// `ptr` came from `alloc` of this allocator with this `bytes`, and is freed once.
    unsafe fn free(&self, ptr: NonNull<u8>, bytes: usize) -> Result<()>;
}

/// The runtime's pinned allocator: `cudaHostAlloc` with these flags (`cudaMallocHost` for
/// the default flags), `cudaFreeHost`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuntimeHostAllocator {
    /// `cudaHostAlloc` flags: `PORTABLE`, `MAPPED`, `WRITE_COMBINED`.
    pub flags: sys::HostAllocFlags,
}

// SAFETY: `cudaHostAlloc` returns page-locked memory of `bytes` bytes, page aligned.
unsafe impl HostAllocator for RuntimeHostAllocator {
    fn alloc(&self, bytes: usize) -> Result<NonNull<u8>> {
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: one pointer is written.
        status(unsafe { sys::cudaHostAlloc(&mut ptr, bytes, self.flags.bits() as _) })?;
        NonNull::new(ptr.cast()).ok_or_else(|| Error::from_code(2))
    }

    unsafe fn free(&self, ptr: NonNull<u8>, _bytes: usize) -> Result<()> {
        // SAFETY: the caller's promise: memory from `cudaHostAlloc`, freed once.
        status(unsafe { sys::cudaFreeHost(ptr.as_ptr().cast()) })
    }
}

/// One pinned allocation, shared by its buffer and by the graphs that use it.
pub(crate) struct PinnedBlock {
    ptr: NonNull<u8>,
    bytes: usize,
    origin: Origin,
    state: Mutex<BlockState>,
    /// How many graph references (user objects) hold the block.
    graph_refs: AtomicUsize,
}

#[derive(Default)]
struct BlockState {
    uses: Uses,
    /// The graph (and capture) the block was last handed to, so that one capture holds it
    /// once.
    kept_in: Option<(usize, u64)>,
}

enum Origin {
    /// Nothing allocated (zero bytes).
    Empty,
    Allocator(Arc<dyn HostAllocator>),
    Pool(Arc<PoolShared>),
}

// SAFETY: the block owns its memory; the state is behind a mutex, the allocator is
// `Send + Sync`.
unsafe impl Send for PinnedBlock {}
// SAFETY: shared access reads the address and synchronises through the mutex and CUDA.
unsafe impl Sync for PinnedBlock {}

/// Pinned blocks held by at least one graph, process-wide: while there are any, graph
/// launches are recorded and host views of such blocks counted (see the module docs).
static BLOCKS_IN_GRAPHS: AtomicUsize = AtomicUsize::new(0);

/// Graph launches and live host views of graph-held pinned blocks.
struct GraphLaunches {
    /// The last launch on each stream (all launches, while pinned blocks are in graphs).
    launches: Uses,
    /// Live host views of graph-held blocks.
    views: usize,
}

static LAUNCHES: Mutex<GraphLaunches> = Mutex::new(GraphLaunches {
    launches: Uses::new(),
    views: 0,
});

fn launches() -> std::sync::MutexGuard<'static, GraphLaunches> {
    LAUNCHES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Launches a graph on `stream` with `launch` (see [`GraphExec::launch`](crate::graph::GraphExec::launch)):
/// refused into a capture; while pinned blocks are held by graphs, refused while a host view
/// of one is alive, and recorded so that later views wait for it. `record` sees every
/// launch that ran outside a capture.
pub(crate) fn graph_launch(
    stream: &Stream,
    record: impl FnOnce(&Enqueued<'_>),
    launch: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let guarded = BLOCKS_IN_GRAPHS.load(Ordering::Acquire) > 0;
    let mut log = if guarded { Some(launches()) } else { None };
    if log.as_ref().is_some_and(|l| l.views > 0) {
        return Err(Error::InvalidArgument(
            "a host view of a pinned buffer that a graph uses is alive: drop it before \
             launching a graph"
                .into(),
        ));
    }
    let _gate = stream.gate_shared();
    let device = match stream.device() {
        Some(d) => d,
        None => crate::device::current_ordinal()?,
    };
    crate::device::with_device(device, || {
        // Under the gate, no capture of the crate's begins or ends until the launch is in.
        if crate::graph::capture_of(stream)? != Capture::No {
            return Err(Error::InvalidArgument(
                "launching an executable graph into a stream being captured".into(),
            ));
        }
        // A failed launch is recorded too: it may have been enqueued all the same.
        let launched = launch();
        let done = Enqueued {
            stream,
            key: StreamKey::of(stream, device),
            device,
            capture: Ok(Capture::No),
        };
        if let Some(l) = log.as_mut() {
            done.record_launch(&mut l.launches);
        }
        record(&done);
        launched
    })
}

impl PinnedBlock {
    fn new(ptr: NonNull<u8>, bytes: usize, origin: Origin) -> PinnedBlock {
        PinnedBlock {
            ptr,
            bytes,
            origin,
            state: Mutex::new(BlockState::default()),
            graph_refs: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BlockState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for the work a host access of this kind conflicts with, and counts the view
    /// when a graph holds the block (see the module documentation).
    fn host_access(&self, access: Access) -> Result<ViewToken> {
        self.lock().uses.wait_host(access)?;
        if self.graph_refs.load(Ordering::Acquire) == 0 {
            return Ok(ViewToken { counted: false });
        }
        let mut log = launches();
        log.launches.wait_host(Access::Write)?;
        log.views += 1;
        Ok(ViewToken { counted: true })
    }

    /// Makes `graph` hold the block (once per graph and capture).
    fn keep_in(
        self: &Arc<Self>,
        kept_in: &mut Option<(usize, u64)>,
        graph: sys::cudaGraph_t,
        id: u64,
    ) -> Result<()> {
        let key = (graph.0 as usize, id);
        if *kept_in == Some(key) {
            return Ok(());
        }
        crate::graph::keep_in_graph(graph, Box::new(GraphRef::new(self.clone())))?;
        *kept_in = Some(key);
        Ok(())
    }

    /// Frees the memory (or returns it to its pool) once; later calls do nothing.
    fn release(&mut self) -> Result<()> {
        match std::mem::replace(&mut self.origin, Origin::Empty) {
            Origin::Empty => Ok(()),
            // SAFETY: the memory came from this allocator with this size; freed once.
            Origin::Allocator(a) => unsafe { a.free(self.ptr, self.bytes) },
            Origin::Pool(pool) => {
                pool.give_back(self.ptr, self.bytes);
                Ok(())
            }
        }
    }
}

/// A graph's reference to a pinned block (what its user object owns).
struct GraphRef(Arc<PinnedBlock>);

impl GraphRef {
    fn new(block: Arc<PinnedBlock>) -> GraphRef {
        if block.graph_refs.fetch_add(1, Ordering::AcqRel) == 0 {
            BLOCKS_IN_GRAPHS.fetch_add(1, Ordering::AcqRel);
        }
        GraphRef(block)
    }
}

impl Drop for GraphRef {
    fn drop(&mut self) {
        if self.0.graph_refs.fetch_sub(1, Ordering::AcqRel) == 1 {
            BLOCKS_IN_GRAPHS.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl Tracked for Arc<PinnedBlock> {
    fn track(&self, done: &Enqueued<'_>, access: Access) {
        let mut st = self.lock();
        let BlockState { uses, kept_in } = &mut *st;
        // Host memory has no home stream: every use is recorded.
        done.track(uses, HOST, access, |graph, id| {
            self.keep_in(kept_in, graph, id)
        });
    }

    fn keep_in(&self, graph: sys::cudaGraph_t) -> Result<()> {
        PinnedBlock::keep_in(self, &mut self.lock().kept_in, graph, 0)
    }
}

/// The "home" of a pinned block: a key no stream has, so that every use is recorded.
const HOST: StreamKey = StreamKey::Handle(usize::MAX);

impl Drop for PinnedBlock {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = state.uses.wait_host(Access::Write) {
            // A copy may still use the block: leak it (failing closed).
            report_drop_error(
                "pinned buffer (its copies could not be waited for; leaked)",
                &e,
            );
            return;
        }
        if let Err(e) = self.release() {
            report_drop_error("pinned buffer", &e);
        }
    }
}

/// A live host view; counted while a graph holds its block.
#[derive(Debug)]
struct ViewToken {
    counted: bool,
}

impl Drop for ViewToken {
    fn drop(&mut self) {
        if self.counted {
            launches().views -= 1;
        }
    }
}

/// A host view of a [`PinnedBuffer`] for reading ([`PinnedBuffer::as_slice`]): no copy
/// writes the memory while it is alive.
#[derive(Debug)]
pub struct PinnedRef<'a, T: DeviceCopy> {
    slice: &'a [T],
    _view: ViewToken,
}

/// A host view of a [`PinnedBuffer`] for writing ([`PinnedBuffer::as_mut_slice`]): no copy
/// reads or writes the memory while it is alive.
#[derive(Debug)]
pub struct PinnedMut<'a, T: DeviceCopy> {
    slice: &'a mut [T],
    _view: ViewToken,
}

impl<T: DeviceCopy> Deref for PinnedRef<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.slice
    }
}

impl<T: DeviceCopy> Deref for PinnedMut<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.slice
    }
}

impl<T: DeviceCopy> DerefMut for PinnedMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.slice
    }
}

/// Page-locked host memory holding `len` values of `T`, freed (or returned to its pool)
/// when dropped.
///
/// Asynchronous copies to and from it
/// ([`DeviceBuffer::copy_from_pinned_async`](super::DeviceBuffer::copy_from_pinned_async),
/// [`copy_to_pinned_async`](super::DeviceBuffer::copy_to_pinned_async)) are safe, on any
/// stream of any device and in captures: the host reaches the memory only through views
/// that wait for the copies first (see the [memory module](crate::memory)). A wait that fails
/// is an error of the view; dropping a buffer whose copies cannot be waited for leaks it.
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::{DeviceBuffer, PinnedBuffer, Stream};
/// let stream = Stream::non_blocking()?;
/// let mut host = PinnedBuffer::<f32>::from_slice(&[1.0, 2.0, 3.0])?;
/// let mut dev = DeviceBuffer::<f32>::new(3, &stream)?;
/// dev.copy_from_pinned_async(&host, &stream)?;
/// dev.copy_to_pinned_async(&mut host, &stream)?;
/// assert_eq!(&*host.as_slice()?, &[1.0, 2.0, 3.0]); // waits for the copy back
/// # Ok(()) }
/// ```
///
/// `Send`/`Sync` when `T` is, like `Vec<T>`.
pub struct PinnedBuffer<T: DeviceCopy> {
    ptr: NonNull<T>,
    len: usize,
    block: Arc<PinnedBlock>,
}

// SAFETY: like `Vec<T>`: the buffer owns its elements.
unsafe impl<T: DeviceCopy + Send> Send for PinnedBuffer<T> {}
// SAFETY: like `Vec<T>`.
unsafe impl<T: DeviceCopy + Sync> Sync for PinnedBuffer<T> {}

impl<T: DeviceCopy> PinnedBuffer<T> {
    /// `len` zeroed elements of pinned memory (`cudaMallocHost`, or the allocator set with
    /// [`set_pinned_allocator`](super::set_pinned_allocator)).
    pub fn new(len: usize) -> Result<PinnedBuffer<T>> {
        let allocator =
            allocator::active_pinned().unwrap_or_else(|| Arc::new(RuntimeHostAllocator::default()));
        Self::with_allocator(allocator, len)
    }

    /// `len` zeroed elements from `cudaHostAlloc` with `flags` (`PORTABLE`, `MAPPED`,
    /// `WRITE_COMBINED`: fast for the device to read, slow for the host to read).
    pub fn with_flags(len: usize, flags: sys::HostAllocFlags) -> Result<PinnedBuffer<T>> {
        Self::with_allocator(Arc::new(RuntimeHostAllocator { flags }), len)
    }

    /// `len` zeroed elements from `allocator`, which also frees them.
    pub fn with_allocator(
        allocator: Arc<dyn HostAllocator>,
        len: usize,
    ) -> Result<PinnedBuffer<T>> {
        let bytes = bytes_of::<T>(len)?;
        if bytes == 0 {
            return Ok(Self::from_block(
                PinnedBlock::new(NonNull::dangling(), 0, Origin::Empty),
                0,
            ));
        }
        let ptr = allocator.alloc(bytes)?;
        let block = PinnedBlock::new(ptr, bytes, Origin::Allocator(allocator));
        Self::checked(block, len)
    }

    /// A pinned copy of `src`.
    pub fn from_slice(src: &[T]) -> Result<PinnedBuffer<T>> {
        let mut b = Self::new(src.len())?;
        b.as_mut_slice()?.copy_from_slice(src);
        Ok(b)
    }

    /// Zeroes the block and wraps it, or gives it back when it is misaligned for `T`.
    fn checked(block: PinnedBlock, len: usize) -> Result<PinnedBuffer<T>> {
        if block.ptr.as_ptr() as usize % std::mem::align_of::<T>() != 0 {
            return Err(Error::InvalidArgument(format!(
                "pinned memory at {:p} is not aligned for a type of alignment {}",
                block.ptr,
                std::mem::align_of::<T>()
            )));
        }
        // SAFETY: the block holds at least `len * size_of::<T>()` writable bytes; zero bits
        // are a valid `T` (`DeviceCopy`).
        unsafe { block.ptr.as_ptr().write_bytes(0, block.bytes) };
        Ok(Self::from_block(block, len))
    }

    fn from_block(block: PinnedBlock, len: usize) -> PinnedBuffer<T> {
        PinnedBuffer {
            ptr: block.ptr.cast(),
            len,
            block: Arc::new(block),
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A view of the elements for reading, once the copies that write them have finished;
    /// the error of a failed wait is returned (and no view).
    pub fn as_slice(&self) -> Result<PinnedRef<'_, T>> {
        let view = self.block.host_access(Access::Read)?;
        Ok(PinnedRef {
            // SAFETY: `len` initialised elements that no copy writes while the view lives
            // (copies that write need `&mut self`; graph launches are refused meanwhile).
            slice: unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) },
            _view: view,
        })
    }

    /// A view of the elements for writing, once every copy that uses them has finished.
    pub fn as_mut_slice(&mut self) -> Result<PinnedMut<'_, T>> {
        let view = self.block.host_access(Access::Write)?;
        Ok(PinnedMut {
            // SAFETY: as above, exclusively borrowed; no copy reads or writes meanwhile.
            slice: unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) },
            _view: view,
        })
    }

    /// The elements copied into a `Vec` (after waiting, as [`as_slice`](Self::as_slice)).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// Copies `src` (same length) in (after waiting, as [`as_mut_slice`](Self::as_mut_slice)).
    pub fn copy_from_slice(&mut self, src: &[T]) -> Result<()> {
        if src.len() != self.len {
            return Err(super::length_mismatch(
                "copy_from_slice",
                self.len,
                src.len(),
            ));
        }
        self.as_mut_slice()?.copy_from_slice(src);
        Ok(())
    }

    /// Makes `graph` hold the buffer's memory (for an explicit graph node).
    pub(crate) fn keep_in(&self, graph: sys::cudaGraph_t) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        Tracked::keep_in(&self.block, graph)
    }

    /// The host address (for a raw call; the buffer does not know what it does with it).
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// Waits for pending asynchronous copies, frees the memory now (or returns it to its
    /// pool) and returns the error, where dropping would report it to the hook. The memory
    /// stays alive while a graph still holds it; when the wait fails, it is leaked.
    pub fn close(self) -> Result<()> {
        let me = std::mem::ManuallyDrop::new(self);
        // SAFETY: read once; `me` is never dropped.
        let block = unsafe { std::ptr::read(&me.block) };
        block.lock().uses.wait_host(Access::Write)?;
        match Arc::try_unwrap(block) {
            Ok(mut block) => block.release(),
            Err(_) => Ok(()),
        }
    }

    /// Enqueues an asynchronous copy with `copy` (given the host address) on `stream`, and
    /// records what it does with the buffer (see the [memory module](crate::memory)).
    pub(crate) fn use_async(
        &self,
        stream: &Stream,
        access: Access,
        device: i32,
        others: &[(&dyn Tracked, Access)],
        copy: impl FnOnce(*mut c_void) -> Result<()>,
    ) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        let host = self.ptr.as_ptr().cast::<c_void>();
        track::enqueue(
            stream,
            device,
            || copy(host),
            |done| {
                self.block.track(done, access);
                for (other, a) in others {
                    other.track(done, *a);
                }
            },
        )
    }
}

impl<T: DeviceCopy> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // Inside a CUDA callback no CUDA call is allowed: the wait and the free happen on
        // the release thread, which takes a reference before this one goes.
        if crate::loader::in_callback() {
            super::release::release_later(Box::new(Arc::clone(&self.block)));
        }
    }
}

impl<T: DeviceCopy + std::fmt::Debug> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

/// A cache of pinned host blocks (CuPy's `PinnedMemoryPool`): a buffer from
/// [`alloc`](PinnedPool::alloc) returns its block to the pool when dropped, and a later
/// allocation of the same rounded size reuses it instead of calling `cudaMallocHost` (which
/// is slow: it locks pages). Sizes are rounded up to 512 bytes. Blocks are freed by
/// [`free_all_blocks`](PinnedPool::free_all_blocks) and when the pool and every buffer
/// from it are gone.
///
/// A clone shares the same pool. `Send` and `Sync`; the cache is behind a mutex.
#[derive(Clone)]
pub struct PinnedPool {
    shared: Arc<PoolShared>,
}

pub(crate) struct PoolShared {
    allocator: Arc<dyn HostAllocator>,
    state: Mutex<PoolState>,
}

#[derive(Default)]
struct PoolState {
    free: HashMap<usize, Vec<NonNull<u8>>>,
    free_bytes: usize,
    used_bytes: usize,
}

// SAFETY: the cached blocks are owned by the pool; access goes through the mutex.
unsafe impl Send for PoolShared {}
// SAFETY: as above.
unsafe impl Sync for PoolShared {}

/// The rounding unit of pool block sizes, as CuPy's.
const POOL_UNIT: usize = 512;

impl PoolShared {
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn give_back(&self, ptr: NonNull<u8>, bytes: usize) {
        let mut s = self.lock();
        s.used_bytes -= bytes;
        s.free_bytes += bytes;
        s.free.entry(bytes).or_default().push(ptr);
    }
}

impl Drop for PoolShared {
    fn drop(&mut self) {
        let state = std::mem::take(&mut *self.lock());
        for (bytes, blocks) in state.free {
            for ptr in blocks {
                // SAFETY: cached blocks came from this allocator with this size.
                if let Err(e) = unsafe { self.allocator.free(ptr, bytes) } {
                    report_drop_error("pinned pool block", &e);
                }
            }
        }
    }
}

impl Default for PinnedPool {
    fn default() -> PinnedPool {
        PinnedPool::new()
    }
}

impl PinnedPool {
    /// An empty pool over `cudaMallocHost`.
    pub fn new() -> PinnedPool {
        PinnedPool::with_allocator(Arc::new(RuntimeHostAllocator::default()))
    }

    /// An empty pool over `allocator`.
    pub fn with_allocator(allocator: Arc<dyn HostAllocator>) -> PinnedPool {
        PinnedPool {
            shared: Arc::new(PoolShared {
                allocator,
                state: Mutex::new(PoolState::default()),
            }),
        }
    }

    /// The process-wide pool (CuPy's `get_default_pinned_memory_pool`), created on first
    /// use.
    pub fn global() -> &'static PinnedPool {
        static GLOBAL: OnceLock<PinnedPool> = OnceLock::new();
        GLOBAL.get_or_init(PinnedPool::new)
    }

    /// `len` zeroed elements, from a cached block of the same rounded size when there is
    /// one.
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        let bytes = bytes_of::<T>(len)?;
        if bytes == 0 {
            return Ok(PinnedBuffer::from_block(
                PinnedBlock::new(NonNull::dangling(), 0, Origin::Empty),
                0,
            ));
        }
        let rounded = bytes
            .checked_next_multiple_of(POOL_UNIT)
            .ok_or_else(|| Error::InvalidArgument(format!("{bytes} bytes overflow")))?;
        let cached = {
            let mut s = self.shared.lock();
            let found = s.free.get_mut(&rounded).and_then(Vec::pop);
            if found.is_some() {
                s.free_bytes -= rounded;
            }
            s.used_bytes += rounded;
            found
        };
        let ptr = match cached {
            Some(p) => p,
            None => match self.shared.allocator.alloc(rounded) {
                Ok(p) => p,
                Err(e) => {
                    self.shared.lock().used_bytes -= rounded;
                    return Err(e);
                }
            },
        };
        let block = PinnedBlock::new(ptr, rounded, Origin::Pool(self.shared.clone()));
        PinnedBuffer::checked(block, len)
    }

    /// Cached blocks not in use.
    pub fn n_free_blocks(&self) -> usize {
        self.shared.lock().free.values().map(Vec::len).sum()
    }

    /// Bytes of cached blocks not in use.
    pub fn free_bytes(&self) -> usize {
        self.shared.lock().free_bytes
    }

    /// Bytes of blocks held by live buffers.
    pub fn used_bytes(&self) -> usize {
        self.shared.lock().used_bytes
    }

    /// Bytes the pool holds, in use or cached.
    pub fn total_bytes(&self) -> usize {
        let s = self.shared.lock();
        s.used_bytes + s.free_bytes
    }

    /// Frees every cached block; blocks in use are not affected. Returns the first error
    /// (every block is still tried).
    pub fn free_all_blocks(&self) -> Result<()> {
        let blocks = {
            let mut s = self.shared.lock();
            s.free_bytes = 0;
            std::mem::take(&mut s.free)
        };
        let mut first = Ok(());
        for (bytes, list) in blocks {
            for ptr in list {
                // SAFETY: cached blocks came from this allocator with this size.
                if let Err(e) = unsafe { self.shared.allocator.free(ptr, bytes) } {
                    if first.is_ok() {
                        first = Err(e);
                    }
                }
            }
        }
        first
    }
}

impl std::fmt::Debug for PinnedPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.shared.lock();
        f.debug_struct("PinnedPool")
            .field("used_bytes", &s.used_bytes)
            .field("free_bytes", &s.free_bytes)
            .finish()
    }
}

#[cfg(test)]
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::alloc::Layout;
    use std::sync::atomic::AtomicUsize;

    /// Host memory from the Rust allocator, counting calls: the pool's bookkeeping without
    /// CUDA.
    #[derive(Default)]
    pub(crate) struct FakeHost {
        pub allocs: AtomicUsize,
        pub frees: AtomicUsize,
    }

    // SAFETY: `std::alloc` memory of `bytes` bytes, 256-byte aligned, freed with the same
    // layout.
    unsafe impl HostAllocator for FakeHost {
        fn alloc(&self, bytes: usize) -> Result<NonNull<u8>> {
            self.allocs.fetch_add(1, Ordering::SeqCst);
            let layout = Layout::from_size_align(bytes, 256).expect("layout");
            // SAFETY: non-zero size.
            NonNull::new(unsafe { std::alloc::alloc(layout) }).ok_or_else(|| Error::from_code(2))
        }

        unsafe fn free(&self, ptr: NonNull<u8>, bytes: usize) -> Result<()> {
            self.frees.fetch_add(1, Ordering::SeqCst);
            let layout = Layout::from_size_align(bytes, 256).expect("layout");
            // SAFETY: allocated above with this layout.
            unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) };
            Ok(())
        }
    }

    #[test]
    fn pool_reuses_blocks_of_the_same_rounded_size() {
        let fake = Arc::new(FakeHost::default());
        let pool = PinnedPool::with_allocator(fake.clone());
        let mut a = pool.alloc::<u32>(100).expect("a"); // 400 bytes -> 512
        assert!(
            a.as_slice().expect("view").iter().all(|v| *v == 0),
            "zeroed"
        );
        a.as_mut_slice().expect("view")[3] = 7;
        assert_eq!(pool.used_bytes(), 512);
        assert_eq!(pool.free_bytes(), 0);
        drop(a);
        assert_eq!(
            (pool.used_bytes(), pool.free_bytes(), pool.n_free_blocks()),
            (0, 512, 1)
        );
        let b = pool.alloc::<u8>(512).expect("b"); // same rounded size: reused
        assert_eq!(fake.allocs.load(Ordering::SeqCst), 1);
        assert!(
            b.as_slice().expect("view").iter().all(|v| *v == 0),
            "a reused block is zeroed again"
        );
        let c = pool.alloc::<u8>(513).expect("c"); // 1024: a new block
        assert_eq!(fake.allocs.load(Ordering::SeqCst), 2);
        assert_eq!(pool.total_bytes(), 1536);
        drop((b, c));
        assert_eq!(pool.n_free_blocks(), 2);
        pool.free_all_blocks().expect("free");
        assert_eq!(fake.frees.load(Ordering::SeqCst), 2);
        assert_eq!((pool.total_bytes(), pool.n_free_blocks()), (0, 0));
        let empty = pool.alloc::<f64>(0).expect("empty");
        assert!(empty.is_empty());
    }

    #[test]
    fn dropping_the_pool_frees_cached_blocks_after_the_last_buffer() {
        let fake = Arc::new(FakeHost::default());
        let pool = PinnedPool::with_allocator(fake.clone());
        let live = pool.alloc::<f32>(10).expect("live");
        let cached = pool.alloc::<f32>(1000).expect("cached");
        drop(cached);
        drop(pool);
        assert_eq!(
            fake.frees.load(Ordering::SeqCst),
            0,
            "a buffer keeps the pool"
        );
        drop(live);
        assert_eq!(fake.frees.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn buffers_from_an_allocator_deref_to_slices() {
        let fake = Arc::new(FakeHost::default());
        let mut b = PinnedBuffer::<u64>::with_allocator(fake.clone(), 4).expect("buffer");
        b.copy_from_slice(&[1, 2, 3, 4]).expect("no copy pending");
        assert_eq!(&*b.as_slice().expect("no copy pending"), &[1, 2, 3, 4]);
        assert_eq!(b.to_vec().expect("view").iter().sum::<u64>(), 10);
        b.close().expect("close");
        assert_eq!(fake.frees.load(Ordering::SeqCst), 1);
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<PinnedBuffer<f32>>();
        assert_send_sync::<PinnedPool>();
    }
}
