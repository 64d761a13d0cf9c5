// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/pinned.rs:
// edit the template, not this copy.

//! Pinned (page-locked) host memory: [`PinnedBuffer<T>`], the source or destination of safe
//! asynchronous copies, with host access through views that wait for those copies;
//! [`PinnedPool`], a cache of pinned blocks as CuPy's `PinnedMemoryPool`; both allocate
//! through a [`HostAllocator`] (the trait is in `allocator`), by default
//! [`RuntimeHostAllocator`].
//!
//! How asynchronous copies stay safe (the [safety model](super#safety-model)): each buffer
//! records, for every stream a copy of it was enqueued on, an event after its last copy
//! there; a host view ([`PinnedBuffer::as_slice`], [`PinnedBuffer::as_mut_slice`]) first
//! waits for the copies that conflict with it (writes for a read view, all for a write
//! view) and returns the error when a wait fails; dropping the buffer waits for all of them
//! and leaks the block instead of freeing it when a wait fails. A copy captured into a graph
//! makes the graph hold the block; [`GraphExec::launch`](crate::graph::GraphExec::launch) of a
//! graph holding a block and host views of *that* block exclude each other: the launch fails
//! while a view is alive, and a view first waits for every launch made before it. Each block
//! excludes on its own (the gate's **host** and **use**, the crate-private `lifetime` module): unrelated
//! blocks, graphs and threads never wait for one another.

use std::collections::HashMap;
use std::ffi::c_void;
use std::ops::RangeBounds;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, OnceLock};

use super::allocator::{self, HostAllocator};
use super::pinned_block::{PinnedBlock, PinnedMut, PinnedRef};
use super::pinned_slice::{AsPinnedSlice, AsPinnedSliceMut, PinnedSlice, PinnedSliceMut};
use super::{bytes_of, DeviceCopy};
use crate::error::{report_drop_error, status, Error, Result};
use crate::lifetime::{Access, Kind, Life, Release};
use crate::sys;

/// `cudaHostAlloc` flags (`PORTABLE`, `MAPPED`, `WRITE_COMBINED`).
pub use crate::sys::HostAllocFlags;

/// The runtime's pinned allocator: `cudaHostAlloc` with these flags (`cudaMallocHost` for
/// the default flags), `cudaFreeHost`.
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use std::sync::Arc;
/// use cudart13::memory::RuntimeHostAllocator;
/// use cudart13::{HostAllocFlags, PinnedBuffer};
/// let mapped = Arc::new(RuntimeHostAllocator { flags: HostAllocFlags::MAPPED | HostAllocFlags::PORTABLE });
/// let host = PinnedBuffer::<f32>::with_allocator(mapped, 1 << 20)?;
/// # let _ = host; Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct RuntimeHostAllocator {
    /// `cudaHostAlloc` flags: `PORTABLE`, `MAPPED`, `WRITE_COMBINED`.
    pub flags: HostAllocFlags,
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

    /// The driver's pages: zero-filled by the operating system when new, holding what was
    /// written to them when reused; never memory of Rust's allocator.
    fn initialized(&self) -> bool {
        true
    }
}

/// Where a block goes back to.
enum Origin {
    /// Nothing allocated (zero bytes).
    Empty,
    Allocator(Arc<dyn HostAllocator>),
    Pool(Arc<PoolShared>),
    /// Rust heap memory page-locked with `cudaHostRegister`, allocated with alignment
    /// `align` (a `Box<[T]>`): unregistered, then deallocated.
    Registered {
        align: usize,
    },
}

/// A host address as a value the free can carry to another thread.
#[derive(Clone, Copy)]
struct Addr(usize);

impl Addr {
    fn of(ptr: NonNull<u8>) -> Addr {
        Addr(ptr.as_ptr() as usize)
    }

    fn ptr(self) -> NonNull<u8> {
        NonNull::new(self.0 as *mut u8).unwrap_or(NonNull::dangling())
    }
}

/// The release of a block of `bytes` bytes at `ptr` from `origin`.
fn release_of(ptr: NonNull<u8>, bytes: usize, origin: Origin) -> Option<Release> {
    let at = Addr::of(ptr);
    match origin {
        Origin::Empty => None,
        // SAFETY: the memory came from this allocator with this size; freed once, by the
        // gate, after every use.
        Origin::Allocator(a) => Some(Box::new(move || unsafe { a.free(at.ptr(), bytes) })),
        Origin::Pool(pool) => Some(Box::new(move || {
            pool.give_back(at.ptr(), bytes);
            Ok(())
        })),
        Origin::Registered { align } => Some(Box::new(move || {
            // SAFETY: registered by `PinnedBuffer::register`, unregistered once, by the gate,
            // after every use; a failed unregistration leaves the memory allocated (leaked).
            status(unsafe { sys::cudaHostUnregister(at.ptr().as_ptr().cast()) })?;
            // SAFETY: the `Box<[T]>`'s allocation: `bytes` bytes (non-zero) of alignment
            // `align`, freed once.
            unsafe {
                std::alloc::dealloc(
                    at.ptr().as_ptr(),
                    std::alloc::Layout::from_size_align_unchecked(bytes, align),
                )
            };
            Ok(())
        })),
    }
}

/// A block of `bytes` bytes at `ptr` from `origin`.
fn block(ptr: NonNull<u8>, bytes: usize, origin: Origin) -> PinnedBlock {
    PinnedBlock::new(ptr, bytes, release_of(ptr, bytes, origin))
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
/// Sub-slices and chunks ([`slice`](PinnedBuffer::slice),
/// [`chunks_mut`](PinnedBuffer::chunks_mut), …) are copied to and from with the same
/// guarantees: a chunk's host view waits for the copies of that chunk only.
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
    block: PinnedBlock,
}

// SAFETY: like `Vec<T>`: the buffer owns its elements.
unsafe impl<T: DeviceCopy + Send> Send for PinnedBuffer<T> {}
// SAFETY: like `Vec<T>`.
unsafe impl<T: DeviceCopy + Sync> Sync for PinnedBuffer<T> {}

impl<T: DeviceCopy> PinnedBuffer<T> {
    /// `len` zeroed elements of pinned memory (`cudaMallocHost`, or the allocator set with
    /// [`set_pinned_allocator`](super::set_pinned_allocator)).
    #[doc(alias = "cudaMallocHost")]
    #[doc(alias = "cudaHostAlloc")]
    pub fn new(len: usize) -> Result<PinnedBuffer<T>> {
        Self::with_allocator(active_allocator(), len)
    }

    /// `len` elements of pinned memory as [`new`](Self::new), without zero-filling them
    /// when the allocator's memory is initialised already ([`HostAllocator::initialized`]:
    /// `cudaMallocHost`'s is): the contents are unspecified values of `T` (any bit pattern
    /// is one, see [`DeviceCopy`]). For buffers that a copy or the host fills first, where
    /// zero-filling a large buffer only costs time.
    #[doc(alias = "cudaMallocHost")]
    #[doc(alias = "cudaHostAlloc")]
    pub fn new_uninit(len: usize) -> Result<PinnedBuffer<T>> {
        let allocator = active_allocator();
        let zero = !allocator.initialized();
        Self::allocate(allocator, len, zero)
    }

    /// `len` zeroed elements from `cudaHostAlloc` with `flags` (`PORTABLE`, `MAPPED`,
    /// `WRITE_COMBINED`: fast for the device to read, slow for the host to read).
    #[doc(alias = "cudaHostAlloc")]
    pub fn with_flags(len: usize, flags: HostAllocFlags) -> Result<PinnedBuffer<T>> {
        Self::with_allocator(Arc::new(RuntimeHostAllocator { flags }), len)
    }

    /// `len` zeroed elements from `allocator`, which also frees them.
    pub fn with_allocator(
        allocator: Arc<dyn HostAllocator>,
        len: usize,
    ) -> Result<PinnedBuffer<T>> {
        Self::allocate(allocator, len, true)
    }

    fn allocate(allocator: Arc<dyn HostAllocator>, len: usize, zero: bool) -> Result<Self> {
        let bytes = bytes_of::<T>(len)?;
        if bytes == 0 {
            return Ok(Self::from_block(
                block(NonNull::dangling(), 0, Origin::Empty),
                0,
            ));
        }
        let ptr = allocator.alloc(bytes)?;
        let block = block(ptr, bytes, Origin::Allocator(allocator));
        Self::checked(block, len, zero)
    }

    /// A pinned copy of `src`.
    #[doc(alias = "cudaMallocHost")]
    pub fn from_slice(src: &[T]) -> Result<PinnedBuffer<T>> {
        let mut b = Self::new_uninit(src.len())?;
        b.as_mut_slice()?.copy_from_slice(src);
        Ok(b)
    }

    /// Page-locks `data`'s memory where it is (`cudaHostRegister`, default flags) and owns
    /// it as a pinned buffer: a host registration that cannot end while the device may use
    /// the memory. Copies, graph nodes and host views work as for any pinned buffer; when it
    /// is dropped, after every copy made with it and every launch of a graph holding it, the
    /// memory is unregistered (`cudaHostUnregister`, through the gate's **free**) and then
    /// deallocated (a failed unregistration leaks it). Registering costs far more than
    /// allocating pinned memory: for data that already lives in a `Vec`.
    ///
    /// ```no_run
    /// # fn main() -> cudart13::Result<()> {
    /// use cudart13::{DeviceBuffer, PinnedBuffer, Stream};
    /// let stream = Stream::non_blocking()?;
    /// let host = PinnedBuffer::register(vec![7u32; 1 << 20])?; // no copy: pinned in place
    /// let mut dev = DeviceBuffer::<u32>::new(1 << 20, &stream)?;
    /// dev.copy_from_pinned_async(&host, &stream)?;
    /// drop(host); // unregistered and freed once the copy has run
    /// assert_eq!(dev.to_vec()?[0], 7);
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaHostRegister")]
    #[doc(alias = "cudaHostUnregister")]
    pub fn register(data: Vec<T>) -> Result<PinnedBuffer<T>> {
        let data = data.into_boxed_slice();
        let len = data.len();
        let bytes = bytes_of::<T>(len)?;
        if bytes == 0 {
            return Ok(Self::from_block(
                block(NonNull::dangling(), 0, Origin::Empty),
                0,
            ));
        }
        let raw = Box::into_raw(data);
        let ptr = NonNull::new(raw.cast::<u8>()).unwrap_or(NonNull::dangling());
        // SAFETY: `bytes` bytes of memory this function owns.
        let registered = status(unsafe { sys::cudaHostRegister(ptr.as_ptr().cast(), bytes, 0) });
        if let Err(e) = registered {
            // SAFETY: the box given up above, never registered.
            drop(unsafe { Box::from_raw(raw) });
            return Err(e);
        }
        let origin = Origin::Registered {
            align: std::mem::align_of::<T>(),
        };
        Ok(Self::from_block(block(ptr, bytes, origin), len))
    }

    /// Enqueues a copy of pinned memory `src` (same length) into this buffer on `stream`
    /// (`cudaMemcpyAsync`, host to host, in stream order). Both buffers are used as any
    /// asynchronous copy uses them: host views wait for it, a capture makes its graph hold
    /// both.
    ///
    /// ```no_run
    /// # fn main() -> cudart13::Result<()> {
    /// use cudart13::{PinnedBuffer, Stream};
    /// let stream = Stream::non_blocking()?;
    /// let src = PinnedBuffer::from_slice(&[1u8, 2, 3])?;
    /// let mut dst = PinnedBuffer::<u8>::new(3)?;
    /// dst.copy_from_pinned_async(&src, &stream)?;
    /// assert_eq!(&*dst.as_slice()?, &[1, 2, 3]); // waits for the copy
    /// # Ok(()) }
    /// ```
    #[doc(alias = "cudaMemcpyAsync")]
    pub fn copy_from_pinned_async(
        &mut self,
        src: &impl AsPinnedSlice<T>,
        stream: &crate::Stream,
    ) -> Result<()> {
        let src = src.as_pinned_slice();
        let dst = self.as_pinned_slice_mut();
        if src.len() != dst.len() {
            return Err(super::length_mismatch(
                "copy_from_pinned_async",
                dst.len(),
                src.len(),
            ));
        }
        let device = match stream.ordinal() {
            Some(d) => d,
            None => crate::lifetime::current::current_ordinal()?,
        };
        let (from, bytes) = (
            src.as_ptr().cast::<c_void>(),
            dst.len() * std::mem::size_of::<T>(),
        );
        dst.use_async(
            stream,
            Access::Write,
            device,
            Some(src.part(Access::Read)),
            |to| {
                // SAFETY: both sides are pinned memory of `bytes` bytes kept alive and away from
                // host views until the copy has run (the gate's records; a capture's graph
                // holds them).
                status(unsafe {
                    sys::cudaMemcpyAsync(
                        to,
                        from,
                        bytes,
                        sys::cudaMemcpyKind::HOST_TO_HOST,
                        stream.as_raw(),
                    )
                })
            },
        )
    }

    /// Wraps the block (zeroed first when `zero`), or gives it back when it is misaligned
    /// for `T`.
    fn checked(block: PinnedBlock, len: usize, zero: bool) -> Result<PinnedBuffer<T>> {
        if block.ptr().as_ptr() as usize % std::mem::align_of::<T>() != 0 {
            return Err(Error::InvalidArgument(format!(
                "pinned memory at {:p} is not aligned for a type of alignment {}",
                block.ptr(),
                std::mem::align_of::<T>()
            )));
        }
        if zero {
            // SAFETY: the block holds at least `len * size_of::<T>()` writable bytes; zero
            // bits are a valid `T` (`DeviceCopy`).
            unsafe { block.ptr().as_ptr().write_bytes(0, block.bytes()) };
        }
        Ok(Self::from_block(block, len))
    }

    fn from_block(block: PinnedBlock, len: usize) -> PinnedBuffer<T> {
        PinnedBuffer {
            ptr: block.ptr().cast(),
            len,
            block,
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
    #[doc(alias = "cudaEventSynchronize")]
    pub fn as_slice(&self) -> Result<PinnedRef<'_, T>> {
        self.as_pinned_slice().host_view()
    }

    /// A view of the elements for writing, once every copy that uses them has finished.
    #[doc(alias = "cudaEventSynchronize")]
    pub fn as_mut_slice(&mut self) -> Result<PinnedMut<'_, T>> {
        self.as_pinned_slice_mut().into_host_view_mut()
    }

    /// The elements copied into a `Vec` (after waiting, as [`as_slice`](Self::as_slice)).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// Copies `src` (same length) in (after waiting, as [`as_mut_slice`](Self::as_mut_slice)).
    pub fn copy_from_slice(&mut self, src: &[T]) -> Result<()> {
        self.as_pinned_slice_mut().copy_from_slice(src)
    }

    /// The elements of `range` as a [`PinnedSlice`], a source of asynchronous copies with
    /// the same guarantees as the whole buffer; [`Error::InvalidArgument`] when the range is
    /// out of bounds.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<PinnedSlice<'_, T>> {
        self.as_pinned_slice().sub(range)
    }

    /// The elements of `range` as a [`PinnedSliceMut`], a source or destination of
    /// asynchronous copies; [`Error::InvalidArgument`] when the range is out of bounds.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<PinnedSliceMut<'_, T>> {
        self.as_pinned_slice_mut().into_sub(range)
    }

    /// Two disjoint parts, `[0, mid)` and `[mid, len)`; [`Error::InvalidArgument`] when
    /// `mid > len`.
    pub fn split_at_mut(
        &mut self,
        mid: usize,
    ) -> Result<(PinnedSliceMut<'_, T>, PinnedSliceMut<'_, T>)> {
        self.as_pinned_slice_mut().into_split_at(mid)
    }

    /// The buffer in chunks of `chunk_len` elements (the last one shorter when `chunk_len`
    /// does not divide the length), each a [`PinnedSlice`]; [`Error::InvalidArgument`] for
    /// `chunk_len == 0`.
    pub fn chunks(
        &self,
        chunk_len: usize,
    ) -> Result<impl ExactSizeIterator<Item = PinnedSlice<'_, T>>> {
        self.as_pinned_slice().into_chunks(chunk_len)
    }

    /// The buffer in disjoint chunks of `chunk_len` elements (the last one shorter when
    /// `chunk_len` does not divide the length), each a [`PinnedSliceMut`] that copies on
    /// different streams can fill and drain at once (CUDA's simpleStreams);
    /// [`Error::InvalidArgument`] for `chunk_len == 0`.
    ///
    /// ```no_run
    /// # fn main() -> cudart13::Result<()> {
    /// use cudart13::{DeviceBuffer, PinnedBuffer, Stream};
    /// let streams = [Stream::non_blocking()?, Stream::non_blocking()?];
    /// let mut host = PinnedBuffer::<u32>::new(1 << 20)?;
    /// let mut dev = DeviceBuffer::<u32>::zeroed(1 << 20, &streams[0])?;
    /// streams[0].synchronize()?;
    /// let chunk = host.len() / 2;
    /// let parts = dev.chunks_mut(chunk)?.zip(host.chunks_mut(chunk)?);
    /// for ((mut d, mut h), s) in parts.zip(&streams) {
    ///     d.copy_to_pinned_async(&mut h, s)?; // each half on its own stream
    /// }
    /// assert!(host.as_slice()?.iter().all(|v| *v == 0)); // waits for both copies
    /// # Ok(()) }
    /// ```
    pub fn chunks_mut(
        &mut self,
        chunk_len: usize,
    ) -> Result<impl ExactSizeIterator<Item = PinnedSliceMut<'_, T>>> {
        self.as_pinned_slice_mut().into_chunks_mut(chunk_len)
    }

    /// The host address (for a raw call; the buffer does not know what it does with it).
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// Waits for pending asynchronous copies, frees the memory now (or returns it to its
    /// pool) and returns the error, where dropping would report it to the hook. The memory
    /// stays alive while a graph still holds it; when the wait fails, it is leaked.
    #[doc(alias = "cudaFreeHost")]
    pub fn close(self) -> Result<()> {
        self.block.life.close()
    }
}

/// The pinned allocator in use: the one set with
/// [`set_pinned_allocator`](super::set_pinned_allocator), or `cudaMallocHost`.
fn active_allocator() -> Arc<dyn HostAllocator> {
    allocator::active_pinned().unwrap_or_else(|| Arc::new(RuntimeHostAllocator::default()))
}

impl<T: DeviceCopy> AsPinnedSlice<T> for PinnedBuffer<T> {
    fn as_pinned_slice(&self) -> PinnedSlice<'_, T> {
        // SAFETY: the buffer's elements, shared for the borrow.
        unsafe { PinnedSlice::new(self.ptr, self.len, &self.block, 0) }
    }
}

impl<T: DeviceCopy> AsPinnedSliceMut<T> for PinnedBuffer<T> {
    fn as_pinned_slice_mut(&mut self) -> PinnedSliceMut<'_, T> {
        // SAFETY: the buffer's elements, borrowed exclusively.
        unsafe { PinnedSliceMut::new(self.ptr, self.len, &self.block, 0) }
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
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use cudart13::PinnedPool;
/// let pool = PinnedPool::global();
/// for _ in 0..100 {
///     let staging = pool.alloc_uninit::<u8>(1 << 20)?; // pinned once, reused after
///     drop(staging); // back to the pool once its copies are done
/// }
/// println!("{} bytes cached", pool.free_bytes());
/// # Ok(()) }
/// ```
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
                if let Err(e) = free_cached(&self.allocator, ptr, bytes) {
                    report_drop_error("pinned pool block", &e);
                }
            }
        }
    }
}

/// Frees a block the pool cached (its uses were waited for when it was re-pooled) through the
/// gate's free road.
fn free_cached(allocator: &Arc<dyn HostAllocator>, ptr: NonNull<u8>, bytes: usize) -> Result<()> {
    let (allocator, at) = (allocator.clone(), Addr::of(ptr));
    // SAFETY: a cached block came from this allocator with this size, and is freed once.
    let release: Release = Box::new(move || unsafe { allocator.free(at.ptr(), bytes) });
    Life::new("pinned pool block", Kind::Host, Some(release)).close()
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
    #[doc(alias = "cudaMallocHost")]
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        self.take::<T>(len, true)
    }

    /// `len` elements as [`alloc`](PinnedPool::alloc), without zero-filling: a cached block
    /// holds what its last buffer left there, a new one what the allocator gives (zeroed
    /// first unless [`HostAllocator::initialized`]). The contents are unspecified values of
    /// `T`.
    #[doc(alias = "cudaMallocHost")]
    pub fn alloc_uninit<T: DeviceCopy>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        self.take::<T>(len, false)
    }

    fn take<T: DeviceCopy>(&self, len: usize, zero: bool) -> Result<PinnedBuffer<T>> {
        let bytes = bytes_of::<T>(len)?;
        if bytes == 0 {
            return Ok(PinnedBuffer::from_block(
                block(NonNull::dangling(), 0, Origin::Empty),
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
        let (ptr, fresh) = match cached {
            Some(p) => (p, false),
            None => match self.shared.allocator.alloc(rounded) {
                Ok(p) => (p, true),
                Err(e) => {
                    self.shared.lock().used_bytes -= rounded;
                    return Err(e);
                }
            },
        };
        // A cached block was initialised when it was first handed out (zeroed, or memory
        // the allocator says is initialised).
        let zero = zero || (fresh && !self.shared.allocator.initialized());
        let block = block(ptr, rounded, Origin::Pool(self.shared.clone()));
        PinnedBuffer::checked(block, len, zero)
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
                if let Err(e) = free_cached(&self.shared.allocator, ptr, bytes) {
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
    use std::sync::atomic::{AtomicUsize, Ordering};

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
