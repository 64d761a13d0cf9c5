//! Memory pools: a created pool's statistics as buffers come and go, its release threshold
//! and trimming, a pool with a size limit refusing more, the device's default pool, a
//! scoped allocator with a memory hook, and a pinned host pool reusing blocks.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudart13::memory::{using_allocator, HookedAllocator, MemoryHook, PoolAllocator};
use cudart13::{Device, DeviceBuffer, DevicePtr, MemPool, PinnedPool, Result, Stream};

const MIB: usize = 1 << 20;

fn ensure(ok: bool, what: &str) {
    if ok {
        println!("  checked: {what}");
    } else {
        eprintln!("FAILED: {what}");
        std::process::exit(1);
    }
}

#[derive(Default)]
struct Count {
    allocs: AtomicUsize,
    frees: AtomicUsize,
}

impl MemoryHook for Count {
    fn alloc_post(&self, _: usize, _: &Stream, r: &Result<DevicePtr>) {
        if r.is_ok() {
            self.allocs.fetch_add(1, Ordering::SeqCst);
        }
    }
    fn free_post(&self, _: DevicePtr, _: usize, _: &Stream, r: &Result<()>) {
        if r.is_ok() {
            self.frees.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn main() -> Result<()> {
    let device = Device::get(0)?;
    device.set_current()?;
    let stream = Stream::non_blocking()?;

    let pool = MemPool::new(device)?;
    pool.set_release_threshold(u64::MAX)?;
    ensure(
        pool.release_threshold()? == u64::MAX,
        "release threshold read back",
    );
    let before = pool.stats()?;
    println!("new pool: {before:?}");
    let bufs: Vec<DeviceBuffer<u8>> = (0..4)
        .map(|_| pool.alloc(64 * MIB, &stream))
        .collect::<Result<_>>()?;
    stream.synchronize()?;
    let busy = pool.stats()?;
    println!("4 × 64 MiB in use: {busy:?}");
    ensure(busy.used_current >= 256 * MIB as u64, "used >= 256 MiB");
    ensure(
        busy.reserved_current >= busy.used_current,
        "reserved >= used",
    );
    drop(bufs);
    stream.synchronize()?;
    let idle = pool.stats()?;
    println!("after the drops: {idle:?}");
    ensure(
        idle.used_current == 0,
        "nothing in use after the buffers were dropped",
    );
    ensure(
        idle.used_high >= 256 * MIB as u64,
        "the high-water mark remembers 256 MiB",
    );
    ensure(
        idle.reserved_current >= 256 * MIB as u64,
        "a high threshold keeps the memory",
    );
    pool.trim_to(0)?;
    ensure(
        pool.reserved_mem()? == 0,
        "trim_to(0) releases everything unused",
    );
    pool.reset_high_watermarks()?;
    ensure(pool.stats()?.used_high == 0, "high-water marks reset");

    let limited = MemPool::with_limit(device, 64 * MIB)?;
    ensure(limited.limit() == Some(64 * MIB), "the limit is remembered");
    let first = DeviceBuffer::<u8>::new_in(&limited, 48 * MIB, &stream)?;
    match DeviceBuffer::<u8>::new_in(&limited, 48 * MIB, &stream) {
        Err(e) => {
            println!("second 48 MiB from a 64 MiB pool: {e}");
            ensure(
                e.cuda_code() == Some(2),
                "cudaErrorMemoryAllocation beyond the limit",
            );
        }
        Ok(_) => ensure(false, "the limit refuses a second 48 MiB"),
    }
    drop(first);

    let default = MemPool::device_default(device)?;
    let used = default.used_mem()?;
    let on_default = DeviceBuffer::<f32>::zeroed(MIB, &stream)?;
    stream.synchronize()?;
    ensure(
        default.used_mem()? >= used + 4 * MIB as u64,
        "DeviceBuffer::new uses the default pool",
    );
    drop(on_default);

    let count = Arc::new(Count::default());
    let hooked =
        HookedAllocator::new(PoolAllocator::new(MemPool::new(device)?)).with_hook(count.clone());
    using_allocator(Arc::new(hooked), || -> Result<()> {
        let a = DeviceBuffer::<u64>::from_slice(&[1, 2, 3], &stream)?;
        let b = a.try_clone()?;
        ensure(
            b.to_vec()? == [1, 2, 3],
            "data through the scoped allocator",
        );
        Ok(())
    })?;
    let (allocs, frees) = (
        count.allocs.load(Ordering::SeqCst),
        count.frees.load(Ordering::SeqCst),
    );
    ensure(
        allocs == 2 && frees == 2,
        "the hook saw 2 allocations and 2 frees",
    );

    let pinned = PinnedPool::new();
    let first = pinned.alloc::<f32>(MIB)?;
    drop(first);
    ensure(
        pinned.n_free_blocks() == 1,
        "a dropped pinned buffer returns to the pool",
    );
    let again = pinned.alloc::<f32>(MIB)?;
    ensure(
        pinned.n_free_blocks() == 0 && again.as_slice()?.iter().all(|v| *v == 0.0),
        "the block is reused, zeroed",
    );
    drop(again);
    pinned.free_all_blocks()?;
    ensure(
        pinned.total_bytes() == 0,
        "free_all_blocks empties the pool",
    );
    println!("pool_stats: all checks passed");
    Ok(())
}
