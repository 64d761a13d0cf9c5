// Copied by `cargo xtask codegen` from the generator's codegen/template/src/memory/allocator.rs:
// edit the template, not this copy.

//! Pluggable allocation, as CuPy's `set_allocator`, `using_allocator`,
//! `set_pinned_memory_allocator` and memory hooks: the [`DeviceAllocator`] trait with the
//! runtime's stream-ordered allocator ([`RuntimeAllocator`]) and a pool's
//! ([`PoolAllocator`]); a process-wide allocator ([`set_allocator`]) and a scoped one for
//! the calling thread ([`using_allocator`]); [`MemoryHook`]s run around every allocation
//! and free of a [`HookedAllocator`] ([`DebugPrintHook`] prints them); the [`HostAllocator`]
//! trait of pinned memory and the process-wide one ([`set_pinned_allocator`]).
//!
//! When no allocator is set, [`DeviceBuffer::new`](super::DeviceBuffer::new) calls
//! `cudaMallocAsync` directly: checking costs one relaxed atomic load, with no lock and no
//! allocation.

use std::cell::RefCell;
use std::ffi::c_void;
use std::io::Write;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use super::pool::MemPool;
use super::DevicePtr;
use crate::error::{status, Result};
use crate::stream::Stream;
use crate::sys;

/// Where device memory comes from.
///
/// # Safety
/// `alloc` returns device-accessible memory of at least `bytes` bytes, aligned to at least
/// 256 bytes, usable in stream order on `stream` and valid until `free` is called with it
/// (the crate copies to and from it with the device-side `cudaMemcpyKind`s).
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use cudart13::memory::{DeviceAllocator, RuntimeAllocator};
/// use cudart13::{DevicePtr, Stream};
/// /// The runtime's allocator, counting the bytes it hands out.
/// #[derive(Default)]
/// struct Counting(AtomicUsize);
/// // SAFETY: allocation and free are `RuntimeAllocator`'s.
/// unsafe impl DeviceAllocator for Counting {
///     fn alloc(&self, bytes: usize, stream: &Stream) -> cudart13::Result<DevicePtr> {
///         self.0.fetch_add(bytes, Ordering::Relaxed);
///         RuntimeAllocator.alloc(bytes, stream)
///     }
///     unsafe fn free(&self, ptr: DevicePtr, bytes: usize, stream: &Stream) -> cudart13::Result<()> {
///         // SAFETY: the caller's promise, passed on.
///         unsafe { RuntimeAllocator.free(ptr, bytes, stream) }
///     }
/// }
/// cudart13::memory::set_allocator(Some(std::sync::Arc::new(Counting::default())));
/// # Ok(()) }
/// ```
pub unsafe trait DeviceAllocator: Send + Sync {
    /// Allocates `bytes` bytes (`bytes > 0`) in stream order on `stream`.
    fn alloc(&self, bytes: usize, stream: &Stream) -> Result<DevicePtr>;
    /// Frees memory from [`alloc`](DeviceAllocator::alloc) in stream order on `stream`.
    ///
    /// # Safety
    /// `ptr` came from `alloc` of this allocator with this `bytes`, and is freed once;
    /// work using it was enqueued on `stream` or ordered before it.
    unsafe fn free(&self, ptr: DevicePtr, bytes: usize, stream: &Stream) -> Result<()>;
}

/// Where pinned host memory comes from.
///
/// # Safety
/// `alloc` returns memory valid for reads and writes of `bytes` bytes, aligned to at least
/// 256 bytes (as `cudaMallocHost`), that stays valid until `free` is called with it. For
/// copies to be asynchronous the memory should be page-locked; pageable memory still works
/// (CUDA then copies synchronously). [`initialized`](HostAllocator::initialized) returns
/// `true` only when every byte `alloc` returns holds a definite value for Rust: memory the
/// operating system or a driver mapped (zero-filled pages, or pages earlier contents were
/// written to), never memory from Rust's own allocator that nothing wrote.
///
/// ```no_run
/// use std::ptr::NonNull;
/// use cudart13::memory::{HostAllocator, RuntimeHostAllocator};
/// /// `cudaMallocHost` memory, logged.
/// struct Logged(RuntimeHostAllocator);
/// // SAFETY: allocation and free are `RuntimeHostAllocator`'s, and so is its memory's state.
/// unsafe impl HostAllocator for Logged {
///     fn alloc(&self, bytes: usize) -> cudart13::Result<NonNull<u8>> {
///         println!("pinning {bytes} bytes");
///         self.0.alloc(bytes)
///     }
///     unsafe fn free(&self, ptr: NonNull<u8>, bytes: usize) -> cudart13::Result<()> {
///         // SAFETY: the caller's promise, passed on.
///         unsafe { self.0.free(ptr, bytes) }
///     }
///     fn initialized(&self) -> bool {
///         self.0.initialized()
///     }
/// }
/// cudart13::memory::set_pinned_allocator(Some(std::sync::Arc::new(Logged(RuntimeHostAllocator::default()))));
/// ```
pub unsafe trait HostAllocator: Send + Sync {
    /// Allocates `bytes` bytes (`bytes > 0`).
    fn alloc(&self, bytes: usize) -> Result<NonNull<u8>>;
    /// Whether the memory [`alloc`](HostAllocator::alloc) returns is initialised (see the
    /// trait's safety contract): then
    /// [`PinnedBuffer::new_uninit`](super::PinnedBuffer::new_uninit) and
    /// [`PinnedPool::alloc_uninit`](super::PinnedPool::alloc_uninit) skip zero-filling it.
    /// `false` unless overridden.
    fn initialized(&self) -> bool {
        false
    }
    /// Frees memory from [`alloc`](HostAllocator::alloc).
    ///
    /// # Safety
    /// `ptr` came from `alloc` of this allocator with this `bytes`, and is freed once.
    unsafe fn free(&self, ptr: NonNull<u8>, bytes: usize) -> Result<()>;
}

// SAFETY: delegates to the shared allocator.
unsafe impl<A: DeviceAllocator + ?Sized> DeviceAllocator for Arc<A> {
    fn alloc(&self, bytes: usize, stream: &Stream) -> Result<DevicePtr> {
        (**self).alloc(bytes, stream)
    }

    unsafe fn free(&self, ptr: DevicePtr, bytes: usize, stream: &Stream) -> Result<()> {
        // SAFETY: the caller's promise, passed on.
        unsafe { (**self).free(ptr, bytes, stream) }
    }
}

/// The runtime's stream-ordered allocator: `cudaMallocAsync` / `cudaFreeAsync` (the
/// device's current pool).
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use std::sync::Arc;
/// use cudart13::memory::RuntimeAllocator;
/// use cudart13::{DeviceBuffer, Stream};
/// // `DeviceBuffer::new` with no allocator set does the same.
/// let buf = DeviceBuffer::<u8>::with_allocator(Arc::new(RuntimeAllocator), 1024, &Stream::legacy())?;
/// # let _ = buf; Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct RuntimeAllocator;

// SAFETY: `cudaMallocAsync` returns device memory of `bytes` bytes, 256-byte aligned,
// usable in stream order.
unsafe impl DeviceAllocator for RuntimeAllocator {
    fn alloc(&self, bytes: usize, stream: &Stream) -> Result<DevicePtr> {
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: one pointer is written; the stream is alive.
        status(unsafe { sys::cudaMallocAsync(&mut ptr, bytes, stream.as_raw()) })?;
        Ok(DevicePtr::from_raw(ptr))
    }

    unsafe fn free(&self, ptr: DevicePtr, _bytes: usize, stream: &Stream) -> Result<()> {
        // SAFETY: the caller's promise.
        status(unsafe { sys::cudaFreeAsync(ptr.as_raw(), stream.as_raw()) })
    }
}

/// Allocation from one [`MemPool`] (`cudaMallocFromPoolAsync` / `cudaFreeAsync`).
///
/// ```no_run
/// # fn main() -> cudart13::Result<()> {
/// use std::sync::Arc;
/// use cudart13::memory::{using_allocator, PoolAllocator};
/// use cudart13::{Device, DeviceBuffer, MemPool, Stream};
/// let pool = MemPool::new(Device::get(0)?)?;
/// let stream = Stream::non_blocking()?;
/// let buf = using_allocator(Arc::new(PoolAllocator::new(pool)), || {
///     DeviceBuffer::<f32>::new(4096, &stream) // from the pool
/// })?;
/// # let _ = buf; Ok(()) }
/// ```
#[derive(Debug)]
pub struct PoolAllocator {
    pool: MemPool,
}

impl PoolAllocator {
    /// An allocator over `pool`, which it keeps.
    pub fn new(pool: MemPool) -> PoolAllocator {
        PoolAllocator { pool }
    }

    /// The pool.
    pub fn pool(&self) -> &MemPool {
        &self.pool
    }
}

// SAFETY: `cudaMallocFromPoolAsync` returns device memory of `bytes` bytes, usable in
// stream order; the pool lives as long as the allocator.
unsafe impl DeviceAllocator for PoolAllocator {
    fn alloc(&self, bytes: usize, stream: &Stream) -> Result<DevicePtr> {
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: one pointer is written; stream and pool are alive.
        status(unsafe {
            sys::cudaMallocFromPoolAsync(&mut ptr, bytes, self.pool.as_raw(), stream.as_raw())
        })?;
        Ok(DevicePtr::from_raw(ptr))
    }

    unsafe fn free(&self, ptr: DevicePtr, _bytes: usize, stream: &Stream) -> Result<()> {
        // SAFETY: the caller's promise.
        status(unsafe { sys::cudaFreeAsync(ptr.as_raw(), stream.as_raw()) })
    }
}

/// Callbacks around allocations and frees (CuPy's `MemoryHook`); every method does nothing
/// by default. Hooks run on the allocating or freeing thread, inside `Drop` for frees: they
/// should not panic (a panic there is not caught).
///
/// ```no_run
/// use std::sync::Arc;
/// use cudart13::memory::{HookedAllocator, MemoryHook, RuntimeAllocator};
/// use cudart13::{DevicePtr, Stream};
/// struct Log;
/// impl MemoryHook for Log {
///     fn alloc_post(&self, bytes: usize, _: &Stream, result: &cudart13::Result<DevicePtr>) {
///         println!("{bytes} bytes: {result:?}");
///     }
/// }
/// let logged = HookedAllocator::new(RuntimeAllocator).with_hook(Arc::new(Log));
/// cudart13::memory::set_allocator(Some(Arc::new(logged)));
/// ```
pub trait MemoryHook: Send + Sync {
    /// Before `bytes` bytes are allocated on `stream`.
    fn alloc_pre(&self, bytes: usize, stream: &Stream) {
        let _ = (bytes, stream);
    }
    /// After an allocation, with its result.
    fn alloc_post(&self, bytes: usize, stream: &Stream, result: &Result<DevicePtr>) {
        let _ = (bytes, stream, result);
    }
    /// Before `ptr` (`bytes` bytes) is freed on `stream`.
    fn free_pre(&self, ptr: DevicePtr, bytes: usize, stream: &Stream) {
        let _ = (ptr, bytes, stream);
    }
    /// After a free, with its result.
    fn free_post(&self, ptr: DevicePtr, bytes: usize, stream: &Stream, result: &Result<()>) {
        let _ = (ptr, bytes, stream, result);
    }
}

/// An allocator that runs hooks around another's allocations and frees (CuPy's `with
/// hook:`; here the hooks are part of the allocator set with [`set_allocator`] or
/// [`using_allocator`]).
///
/// ```no_run
/// use std::sync::Arc;
/// use cudart13::memory::{DebugPrintHook, HookedAllocator, RuntimeAllocator};
/// let hooked = HookedAllocator::new(RuntimeAllocator).with_hook(Arc::new(DebugPrintHook::default()));
/// cudart13::memory::set_allocator(Some(Arc::new(hooked)));
/// ```
pub struct HookedAllocator<A: DeviceAllocator> {
    inner: A,
    hooks: Vec<Arc<dyn MemoryHook>>,
}

impl<A: DeviceAllocator> HookedAllocator<A> {
    /// `inner` with no hooks yet.
    pub fn new(inner: A) -> HookedAllocator<A> {
        HookedAllocator {
            inner,
            hooks: Vec::new(),
        }
    }

    /// Adds a hook (hooks run in the order added).
    pub fn with_hook(mut self, hook: Arc<dyn MemoryHook>) -> HookedAllocator<A> {
        self.hooks.push(hook);
        self
    }

    /// The wrapped allocator.
    pub fn inner(&self) -> &A {
        &self.inner
    }
}

// SAFETY: allocation and free are the inner allocator's.
unsafe impl<A: DeviceAllocator> DeviceAllocator for HookedAllocator<A> {
    fn alloc(&self, bytes: usize, stream: &Stream) -> Result<DevicePtr> {
        for h in &self.hooks {
            h.alloc_pre(bytes, stream);
        }
        let result = self.inner.alloc(bytes, stream);
        for h in &self.hooks {
            h.alloc_post(bytes, stream, &result);
        }
        result
    }

    unsafe fn free(&self, ptr: DevicePtr, bytes: usize, stream: &Stream) -> Result<()> {
        for h in &self.hooks {
            h.free_pre(ptr, bytes, stream);
        }
        // SAFETY: the caller's promise, passed on.
        let result = unsafe { self.inner.free(ptr, bytes, stream) };
        for h in &self.hooks {
            h.free_post(ptr, bytes, stream, &result);
        }
        result
    }
}

/// A hook that writes one JSON line per allocation and free (CuPy's `DebugPrintHook`):
/// `{"hook":"alloc","bytes":1024,"ptr":"0x7f…","stream":"0x…"}`. To standard error by
/// default.
///
/// ```no_run
/// use std::sync::Arc;
/// use cudart13::memory::{DebugPrintHook, HookedAllocator, RuntimeAllocator};
/// let to_file = std::fs::File::create("allocations.jsonl").expect("a log file");
/// let hook = DebugPrintHook::new(Box::new(to_file));
/// let hooked = HookedAllocator::new(RuntimeAllocator).with_hook(Arc::new(hook));
/// cudart13::memory::set_allocator(Some(Arc::new(hooked)));
/// ```
pub struct DebugPrintHook {
    out: Mutex<Box<dyn Write + Send>>,
}

impl Default for DebugPrintHook {
    fn default() -> DebugPrintHook {
        DebugPrintHook::new(Box::new(std::io::stderr()))
    }
}

impl DebugPrintHook {
    /// A hook writing to `out`.
    pub fn new(out: Box<dyn Write + Send>) -> DebugPrintHook {
        DebugPrintHook {
            out: Mutex::new(out),
        }
    }

    fn line(&self, hook: &str, bytes: usize, ptr: Option<DevicePtr>, stream: &Stream, ok: bool) {
        let ptr = ptr.map_or_else(|| "null".to_string(), |p| format!("\"{:p}\"", p.as_raw()));
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(
            out,
            "{{\"hook\":\"{hook}\",\"bytes\":{bytes},\"ptr\":{ptr},\"stream\":\"{:p}\",\"ok\":{ok}}}",
            stream.as_raw().as_ptr()
        );
    }
}

impl MemoryHook for DebugPrintHook {
    fn alloc_post(&self, bytes: usize, stream: &Stream, result: &Result<DevicePtr>) {
        self.line(
            "alloc",
            bytes,
            result.as_ref().ok().copied(),
            stream,
            result.is_ok(),
        );
    }

    fn free_post(&self, ptr: DevicePtr, bytes: usize, stream: &Stream, result: &Result<()>) {
        self.line("free", bytes, Some(ptr), stream, result.is_ok());
    }
}

/// How many allocators are set: the global one (0 or 1) plus the scopes of
/// [`using_allocator`] open on any thread. Zero means "call the runtime directly".
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static GLOBAL: RwLock<Option<Arc<dyn DeviceAllocator>>> = RwLock::new(None);

thread_local! {
    static SCOPED: RefCell<Vec<Arc<dyn DeviceAllocator>>> = const { RefCell::new(Vec::new()) };
}

/// Sets the process-wide allocator that [`DeviceBuffer::new`](super::DeviceBuffer::new)
/// uses (CuPy's `set_allocator`); `None` goes back to `cudaMallocAsync`. Returns the
/// previous one. Buffers keep the allocator they came from.
pub fn set_allocator(
    allocator: Option<Arc<dyn DeviceAllocator>>,
) -> Option<Arc<dyn DeviceAllocator>> {
    let mut slot = GLOBAL.write().unwrap_or_else(|e| e.into_inner());
    let setting = allocator.is_some();
    let previous = std::mem::replace(&mut *slot, allocator);
    match (previous.is_some(), setting) {
        (false, true) => {
            ACTIVE.fetch_add(1, Ordering::SeqCst);
        }
        (true, false) => {
            ACTIVE.fetch_sub(1, Ordering::SeqCst);
        }
        _ => {}
    }
    previous
}

/// The allocator [`DeviceBuffer::new`](super::DeviceBuffer::new) uses on this thread now:
/// the innermost [`using_allocator`] scope's, else the process-wide one, else `None` (the
/// runtime's `cudaMallocAsync`). CuPy's `get_allocator`.
pub fn allocator() -> Option<Arc<dyn DeviceAllocator>> {
    if let Some(a) = SCOPED.with(|s| s.borrow().last().cloned()) {
        return Some(a);
    }
    GLOBAL.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Runs `f` with `allocator` as this thread's allocator (CuPy's `using_allocator`); the
/// previous one is restored afterwards, also when `f` panics.
pub fn using_allocator<R>(allocator: Arc<dyn DeviceAllocator>, f: impl FnOnce() -> R) -> R {
    struct Scope;
    impl Drop for Scope {
        fn drop(&mut self) {
            SCOPED.with(|s| s.borrow_mut().pop());
            ACTIVE.fetch_sub(1, Ordering::SeqCst);
        }
    }
    SCOPED.with(|s| s.borrow_mut().push(allocator));
    ACTIVE.fetch_add(1, Ordering::SeqCst);
    let _scope = Scope;
    f()
}

/// The allocator to use, or `None` for the runtime's: one relaxed load when none is set.
#[inline]
pub(crate) fn active() -> Option<Arc<dyn DeviceAllocator>> {
    if ACTIVE.load(Ordering::Relaxed) == 0 {
        None
    } else {
        allocator()
    }
}

static PINNED: RwLock<Option<Arc<dyn HostAllocator>>> = RwLock::new(None);

/// Sets the allocator [`PinnedBuffer::new`](super::PinnedBuffer::new) uses (CuPy's
/// `set_pinned_memory_allocator`); `None` goes back to `cudaMallocHost`. Returns the
/// previous one. (A [`PinnedPool`](super::PinnedPool) has its own allocator.)
pub fn set_pinned_allocator(
    allocator: Option<Arc<dyn HostAllocator>>,
) -> Option<Arc<dyn HostAllocator>> {
    let mut slot = PINNED.write().unwrap_or_else(|e| e.into_inner());
    std::mem::replace(&mut *slot, allocator)
}

pub(crate) fn active_pinned() -> Option<Arc<dyn HostAllocator>> {
    PINNED.read().unwrap_or_else(|e| e.into_inner()).clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::DeviceBuffer;
    use std::sync::atomic::AtomicU64;

    /// Hands out made-up addresses and never touches them: the bookkeeping of allocators
    /// and hooks without a GPU (the buffers below are never copied to or from).
    #[derive(Default)]
    struct FakeDevice {
        next: AtomicU64,
        live: AtomicU64,
    }

    // SAFETY: test-only; the addresses are never dereferenced or passed to CUDA.
    unsafe impl DeviceAllocator for FakeDevice {
        fn alloc(&self, bytes: usize, _stream: &Stream) -> Result<DevicePtr> {
            let at = 0x1000_0000 + self.next.fetch_add(bytes as u64, Ordering::SeqCst);
            self.live.fetch_add(1, Ordering::SeqCst);
            Ok(DevicePtr::from_raw(at as usize as *mut c_void))
        }

        unsafe fn free(&self, _ptr: DevicePtr, _bytes: usize, _stream: &Stream) -> Result<()> {
            self.live.fetch_sub(1, Ordering::SeqCst);
            Ok(())
        }
    }

    #[derive(Default)]
    struct Counting {
        events: Mutex<Vec<String>>,
    }

    impl MemoryHook for Counting {
        fn alloc_pre(&self, bytes: usize, _: &Stream) {
            self.events
                .lock()
                .unwrap()
                .push(format!("alloc_pre {bytes}"));
        }
        fn alloc_post(&self, bytes: usize, _: &Stream, r: &Result<DevicePtr>) {
            self.events
                .lock()
                .unwrap()
                .push(format!("alloc_post {bytes} {}", r.is_ok()));
        }
        fn free_pre(&self, _: DevicePtr, bytes: usize, _: &Stream) {
            self.events
                .lock()
                .unwrap()
                .push(format!("free_pre {bytes}"));
        }
        fn free_post(&self, _: DevicePtr, bytes: usize, _: &Stream, r: &Result<()>) {
            self.events
                .lock()
                .unwrap()
                .push(format!("free_post {bytes} {}", r.is_ok()));
        }
    }

    #[test]
    fn a_scoped_allocator_with_hooks_serves_buffers_and_frees_them_on_drop() {
        let fake = Arc::new(FakeDevice::default());
        let counting = Arc::new(Counting::default());
        let hooked: Arc<dyn DeviceAllocator> =
            Arc::new(HookedAllocator::new(fake.clone()).with_hook(counting.clone()));
        let stream = Stream::legacy();
        using_allocator(hooked, || {
            assert!(allocator().is_some());
            let a = DeviceBuffer::<f32>::new(256, &stream).expect("fake allocation");
            assert_eq!(a.as_device_ptr().addr(), 0x1000_0000);
            assert_eq!(fake.live.load(Ordering::SeqCst), 1);
            drop(a);
        });
        assert_eq!(fake.live.load(Ordering::SeqCst), 0);
        assert_eq!(
            *counting.events.lock().unwrap(),
            [
                "alloc_pre 1024",
                "alloc_post 1024 true",
                "free_pre 1024",
                "free_post 1024 true"
            ]
        );
    }

    #[test]
    fn debug_print_hook_writes_json_lines() {
        #[derive(Clone, Default)]
        struct Sink(Arc<Mutex<Vec<u8>>>);
        impl Write for Sink {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let sink = Sink::default();
        let hook = DebugPrintHook::new(Box::new(sink.clone()));
        let stream = Stream::legacy();
        hook.alloc_post(64, &stream, &Ok(DevicePtr::from_raw(0x40 as *mut c_void)));
        hook.free_post(
            DevicePtr::from_raw(0x40 as *mut c_void),
            64,
            &stream,
            &Ok(()),
        );
        let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            "{\"hook\":\"alloc\",\"bytes\":64,\"ptr\":\"0x40\",\"stream\":\"0x1\",\"ok\":true}\n\
             {\"hook\":\"free\",\"bytes\":64,\"ptr\":\"0x40\",\"stream\":\"0x1\",\"ok\":true}\n"
        );
    }
}
