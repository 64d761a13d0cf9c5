// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/pinned.rs:
// edit the template, not this copy.

//! Pinned (page-locked) host memory: [`PinnedBuffer<T>`], which dereferences to `[T]` and
//! can be the source or destination of safe asynchronous copies; [`PinnedPool`], a cache of
//! pinned blocks as CuPy's `PinnedMemoryPool`; the [`HostAllocator`] trait behind both.
//!
//! How asynchronous copies stay safe: each buffer has an event (created at its first
//! asynchronous use). A copy to or from the buffer records the event after the copy; the
//! host waits on it before reading or writing the buffer (`Deref`, [`PinnedBuffer::as_slice`])
//! and before freeing it. A copy captured into a graph records the event as an external
//! event node (replayed by every launch), so the host always waits for the latest launch;
//! the graph then keeps the memory alive (a CUDA user object), so a graph launched after
//! the buffer was dropped still copies into live memory.

use std::collections::HashMap;
use std::ffi::c_void;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::allocator;
use super::{bytes_of, DeviceCopy};
use crate::error::{report_drop_error, status, Error, Result};
use crate::event::Event;
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

const RECORDED: u64 = 1;
const CAPTURED: u64 = 2;
/// The state's low bits are flags; the rest counts records, so that clearing `RECORDED`
/// after a wait cannot drop a record made meanwhile.
const GENERATION: u64 = 4;

/// One pinned allocation, shared by its buffer and by graphs that captured copies of it.
pub(crate) struct PinnedBlock {
    ptr: NonNull<u8>,
    bytes: usize,
    origin: Origin,
    event: OnceLock<Event>,
    state: AtomicU64,
}

enum Origin {
    /// Nothing allocated (zero bytes).
    Empty,
    Allocator(Arc<dyn HostAllocator>),
    Pool(Arc<PoolShared>),
}

// SAFETY: the block owns its memory; the event and allocator are `Send + Sync`.
unsafe impl Send for PinnedBlock {}
// SAFETY: shared access only reads the address and synchronises through atomics and CUDA.
unsafe impl Sync for PinnedBlock {}

impl PinnedBlock {
    /// Waits for the last asynchronous copy that recorded the event.
    fn wait(&self) -> Result<()> {
        let state = self.state.load(Ordering::Acquire);
        if state & RECORDED == 0 {
            return Ok(());
        }
        if let Some(event) = self.event.get() {
            event.synchronize()?;
        }
        if state & CAPTURED == 0 {
            // A graph may record the event again at any launch: only buffers never
            // captured may stop waiting.
            let _ = self.state.compare_exchange(
                state,
                state & !RECORDED,
                Ordering::AcqRel,
                Ordering::Relaxed,
            );
        }
        Ok(())
    }

    fn event(&self) -> Result<&Event> {
        if let Some(e) = self.event.get() {
            return Ok(e);
        }
        let created = Event::with_flags(sys::EventFlags::DISABLE_TIMING)?;
        // A racing thread may have set one first; then ours is dropped.
        Ok(self.event.get_or_init(move || created))
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

impl Drop for PinnedBlock {
    fn drop(&mut self) {
        if let Err(e) = self.wait() {
            report_drop_error("pinned buffer (waiting for its copies)", &e);
        }
        if let Err(e) = self.release() {
            report_drop_error("pinned buffer", &e);
        }
    }
}

/// Page-locked host memory holding `len` values of `T`, freed (or returned to its pool)
/// when dropped; dereferences to `[T]`.
///
/// Asynchronous copies to and from it
/// ([`DeviceBuffer::copy_from_pinned_async`](super::DeviceBuffer::copy_from_pinned_async),
/// [`copy_to_pinned_async`](super::DeviceBuffer::copy_to_pinned_async)) are safe: the
/// buffer has an event (created at its first asynchronous use) that each such copy records
/// after itself, and the host waits on it before reading or writing the buffer and before
/// freeing it. A copy captured into a graph records the event as an external event node,
/// replayed by every launch, so the host always waits for the latest launch; the graph then
/// keeps the memory alive (a CUDA user object), so a graph launched after the buffer was
/// dropped still copies into live memory.
///
/// Dereferencing therefore may block; when that wait fails (a device error) the error goes
/// to the hook of [`set_drop_error_hook`](crate::error::set_drop_error_hook) —
/// [`as_slice`](Self::as_slice) returns it instead. The event belongs to the device that
/// was current at the first asynchronous copy: use a buffer with one device's streams.
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

    /// The elements, after waiting for pending asynchronous copies; the wait's error is
    /// returned.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.block.wait()?;
        // SAFETY: `len` initialised elements, no copy pending.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) })
    }

    /// The elements, mutably, after waiting for pending asynchronous copies.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.block.wait()?;
        // SAFETY: `len` initialised elements, exclusively borrowed, no copy pending.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) })
    }

    /// The host address (for a raw call; the buffer does not know what it does with it).
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// Waits for pending asynchronous copies, frees the memory now (or returns it to its
    /// pool) and returns the error, where dropping would report it to the hook. The memory
    /// stays alive while a graph still holds it.
    pub fn close(self) -> Result<()> {
        self.block.wait()?;
        match Arc::try_unwrap(self.block) {
            Ok(mut block) => block.release(),
            Err(_) => Ok(()),
        }
    }

    /// Runs `copy` with the host address to enqueue an asynchronous copy on `stream`, and
    /// records the buffer's event after it (see the [module documentation](self)).
    pub(crate) fn use_async(
        &self,
        stream: &Stream,
        copy: impl FnOnce(*mut c_void) -> Result<()>,
    ) -> Result<()> {
        if self.len == 0 {
            return Ok(());
        }
        let block = &*self.block;
        let capturing = stream.capture_status()? != sys::cudaStreamCaptureStatus::NONE;
        let event = if capturing && block.event.get().is_none() {
            // Creating an event is not captured work; relaxed mode makes sure a global
            // capture does not count it as a potentially unsafe call.
            relaxed_capture_mode(|| block.event())?
        } else {
            block.event()?
        };
        if !capturing && block.state.load(Ordering::Acquire) & RECORDED != 0 {
            // Order this copy after the earlier ones, so that one event covers them all.
            stream.wait_event(event)?;
        }
        copy(self.ptr.as_ptr().cast())?;
        if capturing {
            stream.keep_alive(self.block.clone());
            // SAFETY: both handles are alive; `cudaEventRecordExternal` makes the record a
            // node of the captured graph, and is a plain record outside a capture.
            status(unsafe {
                sys::cudaEventRecordWithFlags(
                    event.as_raw(),
                    stream.as_raw(),
                    sys::EventRecordFlags::EXTERNAL.bits() as _,
                )
            })?;
        } else {
            event.record(stream)?;
        }
        block.state.fetch_add(GENERATION, Ordering::AcqRel);
        let flags = if capturing {
            RECORDED | CAPTURED
        } else {
            RECORDED
        };
        block.state.fetch_or(flags, Ordering::AcqRel);
        Ok(())
    }
}

/// Runs `f` with this thread's capture interaction mode relaxed
/// (`cudaThreadExchangeStreamCaptureMode`), restoring the previous mode afterwards.
fn relaxed_capture_mode<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    let mut mode = sys::cudaStreamCaptureMode::RELAXED;
    // SAFETY: one mode value is read and written.
    status(unsafe { sys::cudaThreadExchangeStreamCaptureMode(&mut mode) })?;
    let result = f();
    // SAFETY: as above; restores the previous mode.
    let restored = status(unsafe { sys::cudaThreadExchangeStreamCaptureMode(&mut mode) });
    let value = result?;
    restored.map(|()| value)
}

impl PinnedBlock {
    fn new(ptr: NonNull<u8>, bytes: usize, origin: Origin) -> PinnedBlock {
        PinnedBlock {
            ptr,
            bytes,
            origin,
            event: OnceLock::new(),
            state: AtomicU64::new(0),
        }
    }
}

impl<T: DeviceCopy> Deref for PinnedBuffer<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        if let Err(e) = self.block.wait() {
            report_drop_error("pinned buffer (waiting for its copies)", &e);
        }
        // SAFETY: `len` initialised elements; pending copies were waited for.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: DeviceCopy> DerefMut for PinnedBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        if let Err(e) = self.block.wait() {
            report_drop_error("pinned buffer (waiting for its copies)", &e);
        }
        // SAFETY: as for `deref`, and exclusively borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
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
        assert!(a.iter().all(|v| *v == 0), "zeroed");
        a[3] = 7;
        assert_eq!(pool.used_bytes(), 512);
        assert_eq!(pool.free_bytes(), 0);
        drop(a);
        assert_eq!(
            (pool.used_bytes(), pool.free_bytes(), pool.n_free_blocks()),
            (0, 512, 1)
        );
        let b = pool.alloc::<u8>(512).expect("b"); // same rounded size: reused
        assert_eq!(fake.allocs.load(Ordering::SeqCst), 1);
        assert!(b.iter().all(|v| *v == 0), "a reused block is zeroed again");
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
        b.copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(b.as_slice().expect("no copy pending"), &[1, 2, 3, 4]);
        assert_eq!(b.iter().sum::<u64>(), 10);
        b.close().expect("close");
        assert_eq!(fake.frees.load(Ordering::SeqCst), 1);
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<PinnedBuffer<f32>>();
        assert_send_sync::<PinnedPool>();
    }
}
