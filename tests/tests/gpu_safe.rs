//! End-to-end tests of the safe layer (`Device`, `Stream`, `Event`, `DeviceBuffer` and its
//! views, `PinnedBuffer`, `PinnedPool`, `ManagedBuffer`, `MemPool`, allocators and hooks,
//! `Module`/`Kernel`/`Launch`, `Graph`/`GraphExec`/`CaptureGuard`, textures and surfaces,
//! the profiler) on a real GPU.
//!
//! They are ignored off the GPU machine (`#[ignore = "needs a GPU: …"]`): `scripts/gpu-test.sh`
//! builds this binary and `scripts/gpu-run.sh` runs it there with `--include-ignored
//! --test-threads=1`. Every test checks results: data read back,
//! counters, statistics, error codes.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use cudart13::memory::{
    set_allocator, using_allocator, DeviceAllocator, HookedAllocator, MemoryHook, PoolAllocator,
    RuntimeAllocator,
};
use cudart13::sys::{
    self, cudaDeviceAttr, cudaFuncAttribute, cudaLimit, cudaResourceType, cudaTextureAddressMode,
    cudaTextureFilterMode, ArrayFlags, EventFlags, HostAllocFlags, StreamFlags,
};
use cudart13::texture::TextureObject;
use cudart13::texture::{ChannelFormat, CudaArray, ResourceDesc, SurfaceObject, TextureDesc};
use cudart13::{
    profiler, set_drop_error_hook, CaptureMode, Device, DeviceBuffer, DevicePtr, Error, Event,
    Graph, Launch, LaunchConfig, ManagedBuffer, MemPool, Module, PinnedBuffer, PinnedPool, Stream,
};

/// `cudaErrorInvalidDevice`, `cudaErrorMemoryAllocation`, `cudaErrorInvalidResourceHandle`,
/// `cudaErrorSymbolNotFound`.
const INVALID_DEVICE: i32 = 101;
const MEMORY_ALLOCATION: i32 = 2;
const INVALID_RESOURCE_HANDLE: i32 = 400;
const SYMBOL_NOT_FOUND: i32 = 500;

/// Makes device 0 current (the GPU tests are ignored off the GPU machine).
fn gpu() {
    Device::get(0)
        .and_then(|d| d.set_current())
        .expect("device 0");
}

/// Drop errors seen by the hook during a test (the hook is process-wide; tests run one at a
/// time with `--test-threads=1`).
static DROP_ERRORS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn record_drop_error(resource: &'static str, error: &Error) {
    DROP_ERRORS
        .lock()
        .unwrap()
        .push(format!("{resource}: {error}"));
}

fn take_drop_errors() -> Vec<String> {
    std::mem::take(&mut *DROP_ERRORS.lock().unwrap())
}

use workspace_tests::kernels::ADD_ONE_PTX;

/// `tex_read(tex, float* out, w, h)`: `out[y * w + x] = tex2D(tex, x + 0.5, y + 0.5).x`,
/// one block per row.
const TEX_READ_PTX: &str = r"
.version 7.0
.target sm_70
.address_size 64
.visible .entry tex_read(.param .u64 ptex, .param .u64 pout, .param .u32 pw)
{
    .reg .pred %p1;
    .reg .b32 %r<6>;
    .reg .f32 %f<9>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [ptex];
    ld.param.u64 %rd2, [pout];
    ld.param.u32 %r1, [pw];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    cvt.rn.f32.u32 %f1, %r2;
    add.f32 %f2, %f1, 0f3F000000;
    cvt.rn.f32.u32 %f3, %r3;
    add.f32 %f4, %f3, 0f3F000000;
    tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd1, {%f2, %f4}];
    mad.lo.s32 %r4, %r3, %r1, %r2;
    cvta.to.global.u64 %rd3, %rd2;
    mul.wide.u32 %rd4, %r4, 4;
    add.s64 %rd5, %rd3, %rd4;
    st.global.f32 [%rd5], %f5;
DONE:
    ret;
}
";

/// `tex_fetch(tex, float* out, n)`: `out[i] = tex1Dfetch(tex, i).x` over linear memory.
const TEX_FETCH_PTX: &str = r"
.version 7.0
.target sm_70
.address_size 64
.visible .entry tex_fetch(.param .u64 ptex, .param .u64 pout, .param .u32 pn)
{
    .reg .pred %p1;
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [ptex];
    ld.param.u64 %rd2, [pout];
    ld.param.u32 %r1, [pn];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r5}];
    cvta.to.global.u64 %rd3, %rd2;
    mul.wide.u32 %rd4, %r5, 4;
    add.s64 %rd5, %rd3, %rd4;
    st.global.f32 [%rd5], %f1;
DONE:
    ret;
}
";

/// `surf_write(surf, w)`: element (x, y) = `y * 1000 + x`, one block per row.
const SURF_WRITE_PTX: &str = r"
.version 7.0
.target sm_70
.address_size 64
.visible .entry surf_write(.param .u64 psurf, .param .u32 pw)
{
    .reg .pred %p1;
    .reg .b32 %r<6>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [psurf];
    ld.param.u32 %r1, [pw];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    mad.lo.s32 %r4, %r3, 1000, %r2;
    shl.b32 %r5, %r2, 2;
    sust.b.2d.b32.trap [%rd1, {%r5, %r3}], {%r4};
DONE:
    ret;
}
";

/// `sum20(unsigned* out, unsigned a0, …, unsigned a19)`: `*out = a0 + … + a19` (21
/// parameters: more than the launch builder keeps inline).
fn sum20_ptx() -> String {
    let params: Vec<String> = (0..20).map(|i| format!(".param .u32 p{i}")).collect();
    let mut body = String::new();
    for i in 0..20 {
        body.push_str(&format!("    ld.param.u32 %r{i}, [p{i}];\n"));
    }
    body.push_str("    mov.u32 %r20, 0;\n");
    for i in 0..20 {
        body.push_str(&format!("    add.u32 %r20, %r20, %r{i};\n"));
    }
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n\
         .visible .entry sum20(.param .u64 pout, {})\n{{\n\
         \x20   .reg .b32 %r<21>;\n    .reg .b64 %rd<3>;\n{body}\
         \x20   ld.param.u64 %rd1, [pout];\n    cvta.to.global.u64 %rd2, %rd1;\n\
         \x20   st.global.u32 [%rd2], %r20;\n    ret;\n}}\n",
        params.join(", ")
    )
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn device_properties_attributes_guard_and_limits() {
    gpu();
    let count = Device::count().expect("count");
    assert!(count >= 1);
    let d = Device::get(0).expect("device 0");
    let p = d.properties().expect("properties");
    println!(
        "device 0: {} sm_{}{} {} SMs {} MiB",
        p.name,
        p.compute_capability().0,
        p.compute_capability().1,
        p.multi_processor_count,
        p.total_global_mem >> 20
    );
    assert!(!p.name.is_empty());
    assert_eq!(d.name().expect("name"), p.name);
    assert_eq!(d.compute_capability().expect("cc"), p.compute_capability());
    assert_eq!(
        d.attribute(cudaDeviceAttr::MULTI_PROCESSOR_COUNT)
            .expect("attr"),
        p.multi_processor_count
    );
    assert_eq!(p.warp_size, 32);
    assert!(p.max_threads_per_block >= 1024 && p.max_threads_dim[0] >= 1024);
    assert!(p.total_global_mem > 1 << 30);
    let mem = d.mem_info().expect("mem_info");
    assert!(mem.free <= mem.total && mem.total <= p.total_global_mem + (1 << 30));
    let bus = d.pci_bus_id().expect("pci bus id");
    assert_eq!(Device::by_pci_bus_id(&bus).expect("by bus id"), d);
    let runtime = cudart13::device::runtime_version().expect("runtime");
    let driver = cudart13::device::driver_version().expect("driver");
    assert!(
        runtime >= 12000 && driver >= runtime / 1000 * 1000,
        "{runtime} {driver}"
    );
    let (least, greatest) = d.stream_priority_range().expect("priorities");
    assert!(greatest <= least);
    let fifo = d.limit(cudaLimit::PRINTF_FIFO_SIZE).expect("limit");
    d.set_limit(cudaLimit::PRINTF_FIFO_SIZE, fifo * 2)
        .expect("set limit");
    assert_eq!(
        d.limit(cudaLimit::PRINTF_FIFO_SIZE).expect("limit"),
        fifo * 2
    );
    d.set_limit(cudaLimit::PRINTF_FIFO_SIZE, fifo)
        .expect("restore limit");
    let last = Device::get(count - 1).expect("last");
    {
        let guard = last.guard().expect("guard");
        assert_eq!(guard.previous(), d);
        assert_eq!(Device::current().expect("current"), last);
    }
    assert_eq!(Device::current().expect("current"), d);
    d.synchronize().expect("synchronize");
    if count > 1 {
        let peer = Device::get(1).expect("device 1");
        if d.can_access_peer(peer).expect("can access") {
            d.enable_peer_access(peer).expect("enable");
            d.enable_peer_access(peer).expect("enabling twice is fine");
            d.disable_peer_access(peer).expect("disable");
        }
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn an_invalid_device_gives_cuda_error_invalid_device() {
    gpu();
    let count = Device::count().expect("count");
    let e = Device::get(count).expect_err("past the last device");
    assert_eq!(e.cuda_code(), Some(INVALID_DEVICE), "{e}");
    assert!(e.to_string().contains("cudaErrorInvalidDevice"), "{e}");
    let missing = Device::from_ordinal(count);
    for e in [
        missing.set_current().expect_err("set_current"),
        missing.properties().expect_err("properties"),
        missing
            .attribute(cudaDeviceAttr::WARP_SIZE)
            .expect_err("attribute"),
        missing.mem_info().expect_err("mem_info"),
    ] {
        assert_eq!(e.cuda_code(), Some(INVALID_DEVICE), "{e}");
    }
    assert_eq!(Device::current().expect("current"), Device::get(0).unwrap());
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn streams_flags_priorities_events_waits_and_host_callbacks() {
    gpu();
    let previous_hook = set_drop_error_hook(Some(record_drop_error));
    take_drop_errors();
    let (least, greatest) = Device::get(0).unwrap().stream_priority_range().unwrap();
    let blocking = Stream::new().expect("stream");
    let non_blocking = Stream::non_blocking().expect("stream");
    let high = Stream::with_priority(StreamFlags::NON_BLOCKING, greatest).expect("stream");
    assert_eq!(blocking.flags().unwrap(), StreamFlags::DEFAULT);
    assert!(non_blocking
        .flags()
        .unwrap()
        .contains(StreamFlags::NON_BLOCKING));
    assert_eq!(high.priority().unwrap(), greatest);
    assert!((greatest..=least).contains(&blocking.priority().unwrap()));
    assert_ne!(blocking.id().unwrap(), high.id().unwrap());
    let clone = high.clone();
    assert_eq!(clone, high);

    // Work on one stream, a wait on its event from another, timing.
    const N: usize = 32 << 20;
    let mut a = DeviceBuffer::<u32>::new(N, &non_blocking).expect("a");
    let mut b = DeviceBuffer::<u32>::new(N, &high).expect("b");
    let start = non_blocking.record_event().expect("start");
    for v in 1..=4u8 {
        a.memset(v, &non_blocking).expect("memset");
    }
    let filled = non_blocking.record_event().expect("filled");
    high.wait_event(&filled).expect("wait");
    b.copy_from_device(&a, &high).expect("copy");
    let (tx, rx) = mpsc::channel();
    let tx2 = tx.clone();
    high.launch_host_func(move || tx.send("host func").unwrap())
        .expect("host func");
    high.add_callback(move |status| {
        tx2.send(if status.is_ok() {
            "callback ok"
        } else {
            "callback err"
        })
        .unwrap()
    })
    .expect("callback");
    high.synchronize().expect("sync");
    assert!(high.query().unwrap() && filled.query().unwrap());
    let got: Vec<&str> = rx.try_iter().collect();
    assert_eq!(got, ["host func", "callback ok"]);
    let ms = filled.elapsed_since(&start).expect("elapsed");
    assert!(ms > 0.0 && ms < 10_000.0, "{ms} ms");
    assert_eq!(b.slice(N - 1..).unwrap().to_vec().unwrap(), [0x0404_0404]);

    // A panic in a callback is caught and reported, not unwound into CUDA.
    high.launch_host_func(|| panic!("a panicking host function"))
        .expect("host func");
    high.synchronize().expect("sync after a panicking callback");
    let errors = take_drop_errors();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("a panicking host function")),
        "{errors:?}"
    );

    // The default streams and a foreign stream wrapped without ownership.
    a.fill_zero(&Stream::legacy()).expect("legacy");
    a.fill_zero(&Stream::per_thread()).expect("per-thread");
    Stream::per_thread().synchronize().expect("sync");
    Stream::legacy().synchronize().expect("sync");
    let mut raw = sys::cudaStream_t::null();
    // SAFETY: one handle is written.
    let code = unsafe { sys::cudaStreamCreateWithFlags(&mut raw, 1) }.expect("symbol");
    assert_eq!(code.as_raw(), 0);
    {
        // SAFETY: `raw` lives until destroyed below, after the wrapper.
        let foreign = unsafe { Stream::borrowed(raw) };
        assert!(!foreign.is_owned());
        foreign.synchronize().expect("foreign sync");
    }
    // Still alive: the wrapper did not destroy it.
    // SAFETY: `raw` is alive; destroyed once.
    unsafe {
        assert_eq!(sys::cudaStreamSynchronize(raw).unwrap().as_raw(), 0);
        assert_eq!(sys::cudaStreamDestroy(raw).unwrap().as_raw(), 0);
    }

    // Host functions are refused while capturing (a graph could run them twice).
    let capture = non_blocking
        .begin_capture(CaptureMode::RELAXED)
        .expect("capture");
    assert!(non_blocking.is_capturing().unwrap());
    let e = non_blocking.launch_host_func(|| ()).expect_err("refused");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    drop(capture);
    assert!(
        !non_blocking.is_capturing().unwrap(),
        "dropping the guard ends the capture"
    );

    // Events: flags, query, elapsed time errors, close.
    let plain = Event::new().expect("event");
    assert!(plain.query().unwrap(), "an unrecorded event is complete");
    let no_timing = Event::with_flags(EventFlags::DISABLE_TIMING).expect("event");
    no_timing.record(&high).unwrap();
    no_timing.synchronize().unwrap();
    let e = Event::elapsed_time(&start, &no_timing).expect_err("no timing");
    assert_eq!(e.cuda_code(), Some(INVALID_RESOURCE_HANDLE), "{e}");
    plain.close().expect("close");
    drop((a, b));
    blocking.close().expect("close stream");
    high.synchronize().unwrap();
    drop((high, clone, non_blocking));
    Device::get(0).unwrap().synchronize().unwrap();
    assert_eq!(take_drop_errors(), Vec::<String>::new());
    set_drop_error_hook(previous_hook);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn device_buffers_copies_views_memset_and_raw_parts() {
    gpu();
    let stream = Stream::non_blocking().expect("stream");
    let host: Vec<u32> = (0..100_000u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let mut d = DeviceBuffer::from_slice(&host, &stream).expect("from_slice");
    assert_eq!(d.len(), host.len());
    assert_eq!(d.size_bytes(), host.len() * 4);
    assert_eq!(d.to_vec().unwrap(), host);
    let zeros = DeviceBuffer::<u64>::zeroed(1000, &stream).expect("zeroed");
    assert!(zeros.to_vec().unwrap().iter().all(|v| *v == 0));

    // Views: read a range, write a range, split.
    let mid = d.slice(10..20).expect("in range");
    assert_eq!(mid.to_vec().unwrap(), &host[10..20]);
    assert!(d.slice(99_999..100_001).is_err());
    d.slice_mut(0..3)
        .unwrap()
        .copy_from_host(&[7, 8, 9])
        .unwrap();
    let (mut left, right) = d.split_at_mut(50_000).expect("split");
    left.copy_from_device(&right, &stream).expect("copy within");
    stream.synchronize().unwrap();
    let back = d.to_vec().unwrap();
    assert_eq!(&back[..50_000], &host[50_000..]);
    assert_eq!(&back[50_000..], &host[50_000..]);
    let mut tail = d.slice_mut(99_990..).unwrap();
    tail.memset(0xAB, &stream).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(
        d.slice(99_990..).unwrap().to_vec().unwrap(),
        vec![0xABAB_ABAB; 10]
    );

    // Length mismatches are refused before CUDA.
    let e = d.copy_from_host(&[1, 2]).expect_err("mismatch");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    let mut short = [0u32; 5];
    assert!(d.copy_to_host(&mut short).is_err());

    // Clone, asynchronous host copies with an explicit synchronisation.
    let copy = d.try_clone().expect("clone");
    let mut out = vec![0u32; host.len()];
    // SAFETY: `out` is not touched until the stream is synchronised.
    unsafe { copy.copy_to_host_async(&mut out, &stream).unwrap() };
    stream.synchronize().unwrap();
    assert_eq!(out, d.to_vec().unwrap());
    let mut e = DeviceBuffer::<u32>::new(host.len(), &stream).unwrap();
    // SAFETY: `host` outlives the synchronisation below.
    unsafe { e.copy_from_host_async(&host, &stream).unwrap() };
    stream.synchronize().unwrap();
    assert_eq!(e.to_vec().unwrap(), host);

    // Raw parts round trip and an explicit close.
    let (ptr, len) = e.into_raw_parts();
    // SAFETY: `ptr` is the stream-ordered allocation just given up, of `len` elements.
    let e = unsafe { DeviceBuffer::<u32>::from_raw_parts(ptr, len, &stream) }.expect("wrap");
    assert_eq!(e.as_device_ptr(), ptr);
    e.close().expect("close");
    // Foreign memory viewed without ownership.
    // SAFETY: `d` outlives the view.
    let view =
        unsafe { cudart13::DeviceSlice::<u32>::from_raw_parts(d.as_device_ptr(), 3, &stream) };
    assert_eq!(view.to_vec().unwrap(), &host[50_000..50_003]);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn pinned_buffers_async_copies_are_waited_for_and_pools_reuse_blocks() {
    gpu();
    let stream = Stream::non_blocking().expect("stream");
    const N: usize = 8 << 20;
    let src: Vec<f32> = (0..N).map(|i| i as f32 * 0.5).collect();
    let pinned_in = PinnedBuffer::from_slice(&src).expect("pinned");
    let mut pinned_out = PinnedBuffer::<f32>::new(N).expect("pinned");
    assert!(
        pinned_out.as_slice().unwrap().iter().all(|v| *v == 0.0),
        "zeroed"
    );
    let mut d = DeviceBuffer::<f32>::new(N, &stream).expect("device");
    for _ in 0..3 {
        d.copy_from_pinned_async(&pinned_in, &stream)
            .expect("upload");
        d.copy_to_pinned_async(&mut pinned_out, &stream)
            .expect("download");
    }
    // Reading waits for the last download (no explicit synchronisation).
    assert_eq!(&*pinned_out.as_slice().expect("wait"), &src[..]);
    pinned_out.as_mut_slice().unwrap().fill(1.0);
    d.copy_to_pinned_async(&mut pinned_out, &stream).unwrap();
    assert_eq!(
        pinned_out.to_vec().unwrap()[N - 1],
        src[N - 1],
        "to_vec waits too"
    );
    let flagged =
        PinnedBuffer::<u8>::with_flags(4096, HostAllocFlags::PORTABLE | HostAllocFlags::MAPPED)
            .expect("flags");
    assert_eq!(flagged.len(), 4096);
    pinned_out.close().expect("close");

    let pool = PinnedPool::new();
    let a = pool.alloc::<u32>(1 << 20).expect("a");
    let a_ptr = a.as_ptr() as usize;
    drop(a);
    assert_eq!(pool.n_free_blocks(), 1);
    let b = pool.alloc::<u8>(4 << 20).expect("b, the same rounded size");
    assert_eq!(b.as_ptr() as usize, a_ptr, "the block is reused");
    assert_eq!(pool.used_bytes(), 4 << 20);
    let mut db = DeviceBuffer::<u8>::zeroed(4 << 20, &stream).unwrap();
    db.copy_from_pinned_async(&b, &stream).unwrap();
    drop(b); // waits for the upload before returning the block
    assert_eq!(pool.free_bytes(), 4 << 20);
    pool.free_all_blocks().expect("free");
    assert_eq!(pool.total_bytes(), 0);
    assert!(PinnedPool::global().alloc::<u8>(10).is_ok());
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn managed_buffers_are_shared_by_host_and_kernels() {
    gpu();
    let kernel = Module::from_ptx(ADD_ONE_PTX)
        .unwrap()
        .kernel("add_one")
        .unwrap();
    let stream = Stream::non_blocking().unwrap();
    let n = 1u32 << 16;
    let mut m = ManagedBuffer::from_slice(&(0..n).collect::<Vec<u32>>()).expect("managed");
    m.as_mut_slice().unwrap()[0] = 100;
    // SAFETY: add_one(unsigned*, unsigned) over `n` elements; the host waits below.
    unsafe {
        kernel
            .launch(&stream, LaunchConfig::for_num_elems(n), (&m, &n))
            .unwrap()
    };
    stream.synchronize().unwrap();
    let host = m.as_slice().unwrap();
    assert_eq!(host[0], 101);
    assert!((1..n as usize).all(|i| host[i] == i as u32 + 1));
    assert_ne!(m.as_device_ptr(), DevicePtr::null());
    m.close().expect("close");
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn memory_pools_statistics_threshold_trim_and_limit() {
    gpu();
    const MIB: usize = 1 << 20;
    let device = Device::get(0).unwrap();
    let stream = Stream::non_blocking().unwrap();
    let pool = MemPool::new(device).expect("pool");
    pool.set_release_threshold(u64::MAX).unwrap();
    assert_eq!(pool.release_threshold().unwrap(), u64::MAX);
    let bufs: Vec<DeviceBuffer<u8>> = (0..3)
        .map(|_| pool.alloc(32 * MIB, &stream).unwrap())
        .collect();
    stream.synchronize().unwrap();
    let busy = pool.stats().unwrap();
    assert!(busy.used_current >= 96 * MIB as u64, "{busy:?}");
    assert!(busy.reserved_current >= busy.used_current, "{busy:?}");
    drop(bufs);
    stream.synchronize().unwrap();
    let idle = pool.stats().unwrap();
    assert_eq!(idle.used_current, 0, "{idle:?}");
    assert!(idle.used_high >= 96 * MIB as u64, "{idle:?}");
    assert!(idle.reserved_current >= 96 * MIB as u64, "{idle:?}");
    pool.trim_to(0).unwrap();
    assert_eq!(pool.reserved_mem().unwrap(), 0);
    pool.reset_high_watermarks().unwrap();
    assert_eq!(pool.stats().unwrap().used_high, 0);

    let limited = MemPool::with_limit(device, 64 * MIB).expect("limited");
    assert_eq!(limited.limit(), Some(64 * MIB));
    let first = DeviceBuffer::<u8>::new_in(&limited, 48 * MIB, &stream).expect("first");
    let e = DeviceBuffer::<u8>::new_in(&limited, 48 * MIB, &stream).expect_err("over the limit");
    assert_eq!(e.cuda_code(), Some(MEMORY_ALLOCATION), "{e}");
    drop(first);

    let default = MemPool::device_default(device).unwrap();
    let current = MemPool::device_current(device).unwrap();
    assert_eq!(default.as_raw(), current.as_raw());
    pool.make_current().unwrap();
    let on_pool = DeviceBuffer::<u8>::new(8 * MIB, &stream).unwrap();
    stream.synchronize().unwrap();
    assert!(
        pool.used_mem().unwrap() >= 8 * MIB as u64,
        "new() uses the current pool"
    );
    drop(on_pool);
    stream.synchronize().unwrap();
    pool.close()
        .expect("destroy; the default pool is current again");
    assert_eq!(
        MemPool::device_current(device).unwrap().as_raw(),
        default.as_raw()
    );
}

#[derive(Default)]
struct Counts {
    allocs: AtomicUsize,
    frees: AtomicUsize,
}

impl MemoryHook for Counts {
    fn alloc_post(&self, _: usize, _: &Stream, r: &cudart13::Result<DevicePtr>) {
        assert!(r.is_ok());
        self.allocs.fetch_add(1, Ordering::SeqCst);
    }
    fn free_post(&self, _: DevicePtr, _: usize, _: &Stream, r: &cudart13::Result<()>) {
        assert!(r.is_ok());
        self.frees.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn allocators_global_scoped_and_hooked() {
    gpu();
    let stream = Stream::non_blocking().unwrap();
    let counts = Arc::new(Counts::default());
    let hooked: Arc<dyn DeviceAllocator> =
        Arc::new(HookedAllocator::new(RuntimeAllocator).with_hook(counts.clone()));
    let previous = set_allocator(Some(hooked));
    let a = DeviceBuffer::<u16>::from_slice(&[1, 2, 3], &stream).unwrap();
    set_allocator(previous);
    let b = DeviceBuffer::<u16>::zeroed(3, &stream).unwrap(); // the runtime's again
    assert_eq!(a.to_vec().unwrap(), [1, 2, 3]);
    drop((a, b));
    assert_eq!(counts.allocs.load(Ordering::SeqCst), 1);
    assert_eq!(
        counts.frees.load(Ordering::SeqCst),
        1,
        "a buffer frees with its allocator"
    );

    let pool_counts = Arc::new(Counts::default());
    let pool = PoolAllocator::new(MemPool::new(Device::get(0).unwrap()).unwrap());
    let scoped = Arc::new(HookedAllocator::new(pool).with_hook(pool_counts.clone()));
    let pool_raw = scoped.inner().pool().as_raw();
    using_allocator(scoped.clone(), || {
        let x = DeviceBuffer::<f64>::from_slice(&[1.5; 1000], &stream).unwrap();
        stream.synchronize().unwrap();
        let mut used = 0u64;
        // SAFETY: the attribute is a u64; the pool is alive.
        let code = unsafe {
            sys::cudaMemPoolGetAttribute(
                pool_raw,
                sys::cudaMemPoolAttr::ATTR_USED_MEM_CURRENT,
                (&mut used as *mut u64).cast::<c_void>(),
            )
        };
        assert_eq!(code.unwrap().as_raw(), 0);
        assert!(
            used >= 8000,
            "the scoped pool served the buffer ({used} bytes used)"
        );
        assert_eq!(x.to_vec().unwrap(), vec![1.5; 1000]);
    });
    assert!(cudart13::memory::allocator().is_none());
    assert_eq!(pool_counts.allocs.load(Ordering::SeqCst), 1);
    assert_eq!(pool_counts.frees.load(Ordering::SeqCst), 1);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn kernels_from_ptx_bytes_and_files_attributes_occupancy_and_launch_forms() {
    gpu();
    let module = Module::from_ptx(ADD_ONE_PTX).expect("PTX");
    let kernel = module.kernel("add_one").expect("kernel");
    assert_eq!(kernel.name().expect("name"), "add_one");
    let e = module.kernel("no_such_kernel").expect_err("missing kernel");
    assert_eq!(e.cuda_code(), Some(SYMBOL_NOT_FOUND), "{e}");
    // Text that is not PTX is refused: at load, or (with the runtime's lazy loading, the
    // default since CUDA 12) when a kernel is first looked up in it.
    let garbage = Module::from_ptx("this is not PTX").and_then(|m| m.kernel("add_one"));
    assert!(garbage.is_err(), "garbage PTX gave a kernel");
    let from_bytes = Module::from_bytes(ADD_ONE_PTX.as_bytes()).expect("PTX bytes");
    from_bytes.kernel("add_one").expect("kernel from bytes");
    let path = std::env::temp_dir().join(format!("gpu_safe_{}.ptx", std::process::id()));
    std::fs::write(&path, ADD_ONE_PTX).unwrap();
    let from_file = Module::from_file(&path).expect("PTX file");
    std::fs::remove_file(&path).ok();
    let file_kernel = from_file.kernel("add_one").expect("kernel from file");
    from_file
        .close()
        .expect("a module with a live kernel is kept");
    from_bytes.close().expect("unload");

    let attrs = kernel.attributes().expect("attributes");
    println!("add_one: {attrs:?}");
    assert!(attrs.max_threads_per_block >= 256 && attrs.num_regs > 0);
    kernel
        .set_attribute(cudaFuncAttribute::MAX_DYNAMIC_SHARED_MEMORY_SIZE, 64 * 1024)
        .expect("opt in to 64 KiB");
    assert_eq!(
        kernel.attributes().unwrap().max_dynamic_shared_size_bytes,
        64 * 1024
    );
    let blocks = kernel
        .max_active_blocks_per_multiprocessor(256, 0)
        .expect("occupancy");
    assert!(blocks >= 1, "{blocks}");

    let stream = Stream::non_blocking().unwrap();
    let (least, greatest) = Device::get(0).unwrap().stream_priority_range().unwrap();
    let _ = least;
    let n = 1u32 << 16;
    let config = LaunchConfig::for_num_elems(n);
    let data = DeviceBuffer::<u32>::zeroed(n as usize, &stream).unwrap();
    // SAFETY: add_one(unsigned*, unsigned) over `n` elements, five times.
    unsafe {
        kernel.launch(&stream, config, (&data, &n)).unwrap();
        stream
            .launch(&kernel)
            .config(config)
            .arg(&data)
            .arg(&n)
            .run()
            .unwrap();
        stream
            .launch(&file_kernel)
            .config(config)
            .args((&data, &n))
            .cooperative(true)
            .run()
            .unwrap();
        stream
            .launch(&kernel)
            .config(config)
            .args((&data, &n))
            .priority(greatest)
            .run()
            .unwrap();
        Launch::new(&kernel)
            .stream(&stream)
            .grid(config.grid)
            .block(256)
            .args((&data.as_slice(), &n))
            .run()
            .unwrap();
    }
    let mut expected = 5;
    if Device::get(0).unwrap().properties().unwrap().cluster_launch {
        // SAFETY: as above, in clusters of two blocks (the grid is a multiple of two).
        unsafe {
            stream
                .launch(&kernel)
                .config(config)
                .args((&data, &n))
                .cluster(2)
                .run()
                .unwrap()
        };
        expected += 1;
    }
    assert!(data.to_vec().unwrap().iter().all(|v| *v == expected));

    // 21 parameters: the argument list spills past the inline storage.
    let sum = Module::from_ptx(&sum20_ptx())
        .unwrap()
        .kernel("sum20")
        .unwrap();
    let out = DeviceBuffer::<u32>::zeroed(1, &stream).unwrap();
    let values: Vec<u32> = (1..=20).collect();
    let mut launch = stream.launch(&sum).arg(&out);
    for v in &values {
        launch = launch.arg(v);
    }
    assert_eq!(launch.arg_pointers().len(), 21);
    // SAFETY: sum20(unsigned*, 20 × unsigned).
    unsafe { launch.run().unwrap() };
    assert_eq!(out.to_vec().unwrap(), [210]);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn graphs_captured_and_explicit_replayed_updated_and_kept_alive() {
    gpu();
    let add_one = Module::from_ptx(ADD_ONE_PTX)
        .unwrap()
        .kernel("add_one")
        .unwrap();
    let stream = Stream::non_blocking().unwrap();
    let n = 1u32 << 16;
    let config = LaunchConfig::for_num_elems(n);
    let mut data = DeviceBuffer::<u32>::zeroed(n as usize, &stream).unwrap();
    let mut copy = DeviceBuffer::<u32>::zeroed(n as usize, &stream).unwrap();
    let mut input = PinnedBuffer::from_slice(&vec![10u32; n as usize]).unwrap();
    let mut output = PinnedBuffer::<u32>::new(n as usize).unwrap();

    let graph = stream
        .capture(CaptureMode::GLOBAL, |s| {
            data.copy_from_pinned_async(&input, s)?;
            // SAFETY: add_one(unsigned*, unsigned) over `n` elements.
            unsafe { add_one.launch(s, config, (&data, &n))? };
            data.copy_to_pinned_async(&mut output, s)
        })
        .expect("capture");
    // Two copies and the kernel, and an event record node after each pinned copy.
    let nodes = graph.node_count().unwrap();
    println!("captured graph: {nodes} nodes");
    assert!(nodes >= 3, "{nodes} nodes");
    let exec = graph.instantiate().expect("instantiate");
    exec.upload(&stream).expect("upload");
    for round in 0..4u32 {
        input.as_mut_slice().unwrap().fill(round * 100);
        exec.launch(&stream).expect("launch");
    }
    assert!(
        output.as_slice().unwrap().iter().all(|v| *v == 301),
        "the last replay's input + 1"
    );

    // The graph keeps the pinned buffers alive: replays after they are dropped still copy
    // into live memory.
    drop(input);
    drop(output);
    let clone = graph.try_clone().expect("clone");
    drop(graph);
    for _ in 0..3 {
        exec.launch(&stream)
            .expect("launch after the buffers were dropped");
    }
    stream.synchronize().expect("replays into kept memory");
    let exec2 = clone.instantiate().unwrap();
    exec2.launch(&stream).unwrap();
    stream.synchronize().unwrap();
    drop((exec, exec2, clone));

    // A failing step inside a capture ends it and returns the error.
    let e = stream
        .capture(CaptureMode::GLOBAL, |s| s.synchronize())
        .expect_err("synchronising a capturing stream");
    assert!(e.cuda_code().is_some(), "{e}");
    assert!(!stream.is_capturing().unwrap());

    // Explicit construction with every node kind, counting host-node runs.
    let runs = Arc::new(AtomicUsize::new(0));
    let g = Graph::new().unwrap();
    let set = g.add_memset_node(&[], &mut data, 3).unwrap();
    // SAFETY: as above; `data` outlives every launch.
    let k = unsafe {
        g.add_kernel_node(
            &[set],
            stream.launch(&add_one).config(config).args((&data, &n)),
        )
        .unwrap()
    };
    let c = g.add_copy_node(&[k], &mut copy, &data).unwrap();
    let r = runs.clone();
    let h = g
        .add_host_node(&[c], move || {
            r.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    let child = Graph::new().unwrap();
    let r = runs.clone();
    child
        .add_host_node(&[], move || {
            r.fetch_add(100, Ordering::SeqCst);
        })
        .unwrap();
    let j = g.add_empty_node(&[h]).unwrap();
    g.add_child_graph_node(&[j], &child).unwrap();
    let mut host_out = vec![0u32; n as usize];
    // SAFETY: `host_out` is read only after the launches below are synchronised, and the
    // graph is dropped before it.
    unsafe { g.add_copy_to_host_node(&[c], &mut host_out, &copy).unwrap() };
    assert_eq!((g.node_count().unwrap(), g.root_count().unwrap()), (7, 1));
    let e = g
        .add_copy_node(&[], &mut copy.slice_mut(1..).unwrap(), &data)
        .expect_err("length mismatch");
    assert!(matches!(e, Error::InvalidArgument(_)));
    let exec = g.instantiate().unwrap();
    exec.launch(&stream).unwrap();
    exec.launch(&stream).unwrap();
    stream.synchronize().unwrap();
    assert_eq!(
        runs.load(Ordering::SeqCst),
        202,
        "host closures ran once per launch"
    );
    assert!(copy.to_vec().unwrap().iter().all(|v| *v == 0x0303_0304));
    assert!(host_out.iter().all(|v| *v == 0x0303_0304));

    // Update in place from a graph of the same shape with another memset value.
    let u = Graph::new().unwrap();
    let set = u.add_memset_node(&[], &mut data, 5).unwrap();
    // SAFETY: as above.
    let k = unsafe {
        u.add_kernel_node(
            &[set],
            stream.launch(&add_one).config(config).args((&data, &n)),
        )
        .unwrap()
    };
    let c = u.add_copy_node(&[k], &mut copy, &data).unwrap();
    let h = u.add_host_node(&[c], || ()).unwrap();
    let j = u.add_empty_node(&[h]).unwrap();
    u.add_child_graph_node(&[j], &child).unwrap();
    // SAFETY: as above.
    unsafe { u.add_copy_to_host_node(&[c], &mut host_out, &copy).unwrap() };
    exec.update(&u).expect("update");
    drop(u); // the executable graph keeps the new closures
    exec.launch(&stream).unwrap();
    stream.synchronize().unwrap();
    assert!(copy.to_vec().unwrap().iter().all(|v| *v == 0x0505_0506));
    drop((exec, g, child));
    assert!(host_out.iter().all(|v| *v == 0x0505_0506));
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn textures_surfaces_and_their_descriptors() {
    gpu();
    let stream = Stream::non_blocking().unwrap();
    let (w, h) = (64usize, 16usize);
    let texels: Vec<f32> = (0..w * h).map(|i| i as f32 * 0.25).collect();
    let mut array =
        CudaArray::new(ChannelFormat::of::<f32>(), w, h, ArrayFlags::DEFAULT).expect("array");
    array.copy_from_host(&texels).expect("to array");
    let mut back = vec![0f32; w * h];
    array.copy_to_host(&mut back).expect("from array");
    assert_eq!(back, texels);
    let (format, extent, _flags) = array.info().expect("info");
    assert_eq!(format, ChannelFormat::of::<f32>());
    assert_eq!(extent[..2], [w, h]);
    assert!(array.copy_from_host(&texels[1..]).is_err(), "size checked");

    let resource = ResourceDesc::array(&array);
    let desc = TextureDesc::new()
        .address_mode(cudaTextureAddressMode::CLAMP)
        .filter_mode(cudaTextureFilterMode::POINT);
    let tex = TextureObject::new(&resource, &desc).expect("texture object");
    let read_back = tex.resource_desc().expect("resource desc");
    assert_eq!(read_back.resType, cudaResourceType::ARRAY);
    // SAFETY: an array resource: the `array` member is the one CUDA wrote.
    assert_eq!(unsafe { read_back.res.array.array }, array.as_raw());
    assert_eq!(
        tex.texture_desc().unwrap().address_modes()[0],
        cudaTextureAddressMode::CLAMP
    );
    let out = DeviceBuffer::<f32>::zeroed(w * h, &stream).unwrap();
    let tex_read = Module::from_ptx(TEX_READ_PTX)
        .unwrap()
        .kernel("tex_read")
        .unwrap();
    let wu = w as u32;
    // SAFETY: tex_read(texture, float*, unsigned w), h blocks of w threads.
    unsafe {
        stream
            .launch(&tex_read)
            .grid(h as u32)
            .block(wu)
            .args((&tex, &out, &wu))
            .run()
            .unwrap()
    };
    assert_eq!(out.to_vec().unwrap(), texels, "tex2D fetched every texel");

    // A texture over linear device memory (at the device's texture alignment), fetched by
    // index.
    let align = Device::get(0)
        .unwrap()
        .attribute(cudaDeviceAttr::TEXTURE_ALIGNMENT)
        .unwrap() as usize;
    let mut linear = DeviceBuffer::<f32>::zeroed(w * h + align / 4, &stream).unwrap();
    let skip = (align - linear.as_device_ptr().addr() % align) % align / 4;
    linear
        .slice_mut(skip..skip + w * h)
        .unwrap()
        .copy_from_host(&texels)
        .unwrap();
    let view = linear.slice(skip..skip + w * h).unwrap();
    let lin_tex = TextureObject::new(
        &ResourceDesc::linear(&view, ChannelFormat::of::<f32>()),
        &TextureDesc::new(),
    )
    .expect("linear texture");
    let fetch = Module::from_ptx(TEX_FETCH_PTX)
        .unwrap()
        .kernel("tex_fetch")
        .unwrap();
    let total = (w * h) as u32;
    let fetched = DeviceBuffer::<f32>::zeroed(w * h, &stream).unwrap();
    // SAFETY: tex_fetch(texture, float*, unsigned n).
    unsafe {
        fetch
            .launch(
                &stream,
                LaunchConfig::for_num_elems(total),
                (&lin_tex, &fetched, &total),
            )
            .unwrap()
    };
    assert_eq!(
        fetched.to_vec().unwrap(),
        texels,
        "tex1Dfetch over linear memory"
    );

    // A surface written by a kernel, read back through the array.
    let mut target = CudaArray::new(
        ChannelFormat::of::<u32>(),
        w,
        h,
        ArrayFlags::SURFACE_LOAD_STORE,
    )
    .unwrap();
    {
        let surface = SurfaceObject::new(&ResourceDesc::array(&target)).expect("surface");
        assert_eq!(
            surface.resource_desc().unwrap().resType,
            cudaResourceType::ARRAY
        );
        let write = Module::from_ptx(SURF_WRITE_PTX)
            .unwrap()
            .kernel("surf_write")
            .unwrap();
        // SAFETY: surf_write(surface, unsigned w), h blocks of w threads.
        unsafe {
            stream
                .launch(&write)
                .grid(h as u32)
                .block(wu)
                .args((&surface, &wu))
                .run()
                .unwrap()
        };
        stream.synchronize().unwrap();
    }
    let mut written = vec![0u32; w * h];
    target.copy_to_host(&mut written).unwrap();
    assert!((0..w * h).all(|i| written[i] == (i / w * 1000 + i % w) as u32));
    target.copy_from_host(&written).unwrap();
    drop((tex, lin_tex));
    array.close().expect("free array");
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn profiler_start_stop_and_scope() {
    gpu();
    profiler::start().expect("start");
    profiler::stop().expect("stop");
    let scope = profiler::profile().expect("scope");
    scope.stop().expect("stop scope");
    drop(profiler::profile().expect("scope"));
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn dropping_everything_returns_the_memory_and_reports_nothing() {
    gpu();
    let previous_hook = set_drop_error_hook(Some(record_drop_error));
    take_drop_errors();
    let device = Device::get(0).unwrap();
    let default_pool = MemPool::device_default(device).unwrap();
    device.synchronize().unwrap();
    default_pool.trim_to(0).unwrap();
    let baseline = device.mem_info().unwrap().free;
    for _ in 0..3 {
        let stream = Stream::non_blocking().unwrap();
        let _events: Vec<Event> = (0..8).map(|_| stream.record_event().unwrap()).collect();
        let bufs: Vec<DeviceBuffer<u8>> = (0..8)
            .map(|_| DeviceBuffer::zeroed(16 << 20, &stream).unwrap())
            .collect();
        let pool = MemPool::new(device).unwrap();
        let _from_pool = pool.alloc::<u32>(4 << 20, &stream).unwrap();
        let _managed = ManagedBuffer::<u8>::new(8 << 20).unwrap();
        let _pinned = PinnedBuffer::<u8>::new(8 << 20).unwrap();
        let module = Module::from_ptx(ADD_ONE_PTX).unwrap();
        let _kernel = module.kernel("add_one").unwrap();
        let capture = stream.begin_capture(CaptureMode::GLOBAL).unwrap();
        let mut scratch = capture.alloc::<u8>(1 << 20).unwrap();
        scratch.as_slice_mut().fill_zero(capture.stream()).unwrap();
        drop(scratch);
        let graph = capture.end().unwrap();
        let _exec = graph.instantiate().unwrap();
        let array = CudaArray::new(
            ChannelFormat::of::<[f32; 4]>(),
            256,
            256,
            ArrayFlags::DEFAULT,
        )
        .unwrap();
        let _tex = TextureObject::new(&ResourceDesc::array(&array), &TextureDesc::new()).unwrap();
        stream.synchronize().unwrap();
        drop(bufs);
    }
    device.synchronize().unwrap();
    default_pool.trim_to(0).unwrap();
    // Give the graph release thread a moment for what user objects owned.
    std::thread::sleep(Duration::from_millis(200));
    let after = device.mem_info().unwrap().free;
    let lost = baseline.saturating_sub(after);
    println!(
        "free before {baseline}, after {after}: {} MiB not returned",
        lost >> 20
    );
    assert!(lost < 64 << 20, "{} MiB not returned", lost >> 20);
    assert_eq!(take_drop_errors(), Vec::<String>::new(), "no drop failed");
    set_drop_error_hook(previous_hook);
}

// ---- issue 32: the safe layer for real applications ----

/// `count_add(unsigned* data, unsigned n)`: `data[i] += 1` for each element, and the
/// module's `__device__ unsigned calls` counts the threads that did (atomically); the
/// `__constant__ unsigned step[4]` array is added too (`data[i] += step[i % 4]`).
const GLOBALS_PTX: &str = r"
.version 7.0
.target sm_70
.address_size 64
.visible .global .align 4 .u32 calls;
.visible .const .align 4 .b8 step[16];
.visible .entry count_add(.param .u64 pdata, .param .u32 pn)
{
    .reg .pred %p1;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [pdata];
    ld.param.u32 %r1, [pn];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r6, [%rd4];
    and.b32 %r8, %r5, 3;
    mul.wide.u32 %rd5, %r8, 4;
    mov.u64 %rd6, step;
    add.s64 %rd7, %rd6, %rd5;
    ld.const.u32 %r9, [%rd7];
    add.s32 %r7, %r6, 1;
    add.s32 %r7, %r7, %r9;
    st.global.u32 [%rd4], %r7;
    atom.global.add.u32 %r10, [calls], 1;
DONE:
    ret;
}
";

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn pinned_chunks_are_copied_on_several_streams() {
    gpu();
    const N: usize = 4 << 20;
    let streams: Vec<Stream> = (0..4).map(|_| Stream::non_blocking().unwrap()).collect();
    let data: Vec<u32> = (0..N as u32).collect();
    let dev = DeviceBuffer::from_slice(&data, &streams[0]).unwrap();
    let mut host = PinnedBuffer::<u32>::new_uninit(N).unwrap();
    let chunk = N / 4;
    for (i, (mut h, s)) in host.chunks_mut(chunk).unwrap().zip(&streams).enumerate() {
        dev.slice(i * chunk..(i + 1) * chunk)
            .unwrap()
            .copy_to_pinned_async(&mut h, s)
            .unwrap();
    }
    // Each chunk's view waits for its own copy; the whole buffer's for all four.
    assert_eq!(
        host.slice(chunk..2 * chunk).unwrap().to_vec().unwrap(),
        &data[chunk..2 * chunk]
    );
    assert_eq!(&*host.as_slice().unwrap(), &data[..]);
    // Uploads from parts of the buffer, then one part overwritten while another uploads.
    let mut back = DeviceBuffer::<u32>::zeroed(N, &streams[0]).unwrap();
    streams[0].synchronize().unwrap();
    for ((mut d, h), s) in back
        .chunks_mut(chunk)
        .unwrap()
        .zip(host.chunks(chunk).unwrap())
        .zip(&streams)
    {
        d.copy_from_pinned_async(&h, s).unwrap();
    }
    {
        let (mut low, _) = host.split_at_mut(chunk).unwrap();
        low.as_mut_slice().unwrap().fill(7); // waits for the first chunk's upload only
    }
    for s in &streams {
        s.synchronize().unwrap();
    }
    assert_eq!(
        back.to_vec().unwrap(),
        data,
        "every upload read the values before the fill"
    );
    assert!(host
        .slice(..chunk)
        .unwrap()
        .as_slice()
        .unwrap()
        .iter()
        .all(|v| *v == 7));
    assert!(host.chunks_mut(0).is_err());
    let pool = PinnedPool::new();
    let reused = pool.alloc_uninit::<u8>(1 << 20).unwrap();
    drop(reused);
    assert_eq!(pool.n_free_blocks(), 1);
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn launches_are_checked_against_the_kernel_and_occupancy_suggests_a_block() {
    gpu();
    let kernel = Module::from_ptx(ADD_ONE_PTX)
        .unwrap()
        .kernel("add_one")
        .unwrap();
    match kernel.params().expect("params") {
        Some(p) => {
            let sizes: Vec<usize> = p.iter().map(|p| p.size).collect();
            assert_eq!(sizes, [8, 4], "add_one(unsigned*, unsigned)");
        }
        None => println!("this runtime does not describe kernel parameters (before 12.4)"),
    }
    let stream = Stream::non_blocking().unwrap();
    let buf = DeviceBuffer::<u32>::zeroed(1 << 20, &stream).unwrap();
    let n = 1u32 << 20;
    let config = kernel
        .suggested_config(n, 0)
        .expect("suggested configuration");
    let best = kernel.occupancy(0).unwrap();
    println!("add_one: {best:?}, {config:?}");
    assert_eq!(config.block.x, best.block_size);
    assert!(
        best.block_size >= 32
            && best.block_size / 32 * 32 == best.block_size
            && best.min_grid_size > 0
    );
    assert_eq!(config.grid.x, n.div_ceil(best.block_size));
    if kernel.params().unwrap().is_some() {
        let wide = 1u64 << 20;
        // SAFETY: refused before CUDA sees them.
        let missing = unsafe { kernel.launch(&stream, config, (&buf,)) };
        let too_wide = unsafe { kernel.launch(&stream, config, (&buf, &wide)) };
        for refused in [missing, too_wide] {
            assert!(
                matches!(refused, Err(Error::InvalidArgument(_))),
                "{refused:?}"
            );
        }
        assert!(
            buf.to_vec().unwrap().iter().all(|v| *v == 0),
            "nothing was launched"
        );
    }
    // SAFETY: add_one(unsigned*, unsigned) over `n` elements.
    unsafe { kernel.launch(&stream, config, (&buf, &n)).unwrap() };
    // SAFETY: as above.
    unsafe {
        stream
            .launch(&kernel)
            .config(LaunchConfig::new(n / 256, 256).unwrap())
            .args((&buf, &n))
            .run_unchecked()
            .unwrap()
    };
    assert!(buf.to_vec().unwrap().iter().all(|v| *v == 2));
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn module_globals_are_read_written_and_used_by_kernels() {
    gpu();
    let module = Module::from_ptx(GLOBALS_PTX).unwrap();
    let kernel = module.kernel("count_add").unwrap();
    let mut calls = module
        .global::<u32>("calls")
        .expect("the __device__ counter");
    let mut step = module
        .global_array::<u32>("step")
        .expect("the __constant__ table");
    assert_eq!((calls.len(), step.len()), (1, 4));
    assert!(module.global::<u64>("calls").is_err(), "another size");
    assert!(module.global::<u32>("nothing").is_err());
    calls.write(&0).unwrap();
    step.copy_from_host(&[10, 20, 30, 40]).unwrap();
    let stream = Stream::non_blocking().unwrap();
    let data = DeviceBuffer::<u32>::zeroed(1000, &stream).unwrap();
    let n = 1000u32;
    // SAFETY: count_add(unsigned*, unsigned) over `n` elements.
    unsafe {
        kernel
            .launch(&stream, LaunchConfig::for_num_elems(n), (&data, &n))
            .unwrap()
    };
    stream.synchronize().unwrap();
    assert_eq!(calls.read().unwrap(), 1000, "every thread counted");
    let out = data.to_vec().unwrap();
    assert!(out
        .iter()
        .enumerate()
        .all(|(i, v)| *v == 1 + [10, 20, 30, 40][i % 4]));
    // A captured copy into the table keeps the module loaded for the graph.
    let src = DeviceBuffer::from_slice(&[1u32, 1, 1, 1], &stream).unwrap();
    let graph = stream
        .capture(CaptureMode::GLOBAL, |s| {
            step.as_slice_mut().copy_from_device(&src, s)
        })
        .unwrap();
    drop((step, calls, kernel, module));
    graph.instantiate().unwrap().launch(&stream).unwrap();
    stream.synchronize().unwrap();
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn executable_graph_nodes_are_updated_and_event_nodes_recorded() {
    gpu();
    let kernel = Module::from_ptx(ADD_ONE_PTX)
        .unwrap()
        .kernel("add_one")
        .unwrap();
    let stream = Stream::non_blocking().unwrap();
    let n = 4096u32;
    let a = DeviceBuffer::<u32>::zeroed(4096, &stream).unwrap();
    let mut copy_dst = DeviceBuffer::<u32>::zeroed(4096, &stream).unwrap();
    let graph = Graph::new().unwrap();
    // SAFETY: add_one(unsigned*, unsigned) over `n` elements, for every launch.
    let add = unsafe {
        graph
            .add_kernel_node(
                &[],
                Launch::new(&kernel)
                    .config(LaunchConfig::for_num_elems(n))
                    .args((&a, &n)),
            )
            .unwrap()
    };
    let copy = graph.add_copy_node(&[add], &mut copy_dst, &a).unwrap();
    let done = Event::new().unwrap();
    graph.add_event_record_node(&[copy], &done).unwrap();
    let exec = graph.instantiate().unwrap();
    exec.launch(&stream).unwrap();
    done.synchronize().unwrap();
    assert!(copy_dst.to_vec().unwrap().iter().all(|v| *v == 1));

    // The kernel now adds to `b`, the copy reads `b`: both dropped by the test, kept by the
    // executable graph.
    let b = DeviceBuffer::from_slice(&vec![41u32; 4096], &stream).unwrap();
    // SAFETY: as above, over `b`.
    unsafe {
        exec.set_kernel_node_params(
            add,
            Launch::new(&kernel)
                .config(LaunchConfig::for_num_elems(n))
                .args((&b, &n)),
        )
        .unwrap()
    };
    exec.set_copy_node(copy, &mut copy_dst, &b).unwrap();
    drop(b);
    let other = Event::new().unwrap();
    exec.launch(&stream).unwrap();
    stream.synchronize().unwrap();
    assert!(
        copy_dst.to_vec().unwrap().iter().all(|v| *v == 42),
        "the new parameters ran"
    );
    assert!(other.query().unwrap());
    // SAFETY: refused before CUDA sees it.
    let refused = unsafe { exec.set_kernel_node_params(add, Launch::new(&kernel).args((&n,))) };
    assert!(
        matches!(refused, Err(Error::InvalidArgument(_))) || kernel.params().unwrap().is_none()
    );

    // Memory a graph allocates shows in the device's graph memory pool; a device buffer
    // cannot be allocated in a capture, a graph buffer only there.
    let capture = stream.begin_capture(CaptureMode::GLOBAL).unwrap();
    assert!(DeviceBuffer::<u8>::new(16, capture.stream()).is_err());
    let mut scratch = capture.alloc::<u8>(64 << 20).unwrap();
    scratch.as_slice_mut().memset(0, capture.stream()).unwrap();
    drop(scratch);
    let alloc = capture.end().unwrap();
    alloc.instantiate().unwrap().launch(&stream).unwrap();
    stream.synchronize().unwrap();
    let stats = Device::get(0).unwrap().graph_mem_stats().unwrap();
    println!("graph memory pool: {stats:?}");
    assert!(
        stats.used_high >= 64 << 20 && stats.reserved_high >= 64 << 20,
        "{stats:?}"
    );
    Device::get(0).unwrap().graph_mem_trim().unwrap();
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn graph_buffers_auto_free_on_launch_and_exclusion_per_buffer() {
    gpu();
    let add_one = Module::from_ptx(ADD_ONE_PTX)
        .unwrap()
        .kernel("add_one")
        .unwrap();
    let stream = Stream::non_blocking().unwrap();
    let n = 1u32 << 16;
    let input = DeviceBuffer::from_slice(&vec![41u32; n as usize], &stream).unwrap();
    let mut output = DeviceBuffer::<u32>::zeroed(n as usize, &stream).unwrap();
    // A graph of its own memory: allocated, used by a copy and a kernel, copied out, freed.
    let capture = stream.begin_capture(CaptureMode::GLOBAL).unwrap();
    let mut scratch = capture.alloc::<u32>(n as usize).unwrap();
    scratch
        .as_slice_mut()
        .copy_from_device(&input, capture.stream())
        .unwrap();
    // SAFETY: add_one(unsigned*, unsigned) over `n` elements of the graph's buffer.
    unsafe {
        add_one
            .launch(
                capture.stream(),
                LaunchConfig::for_num_elems(n),
                (&scratch, &n),
            )
            .unwrap()
    };
    output.copy_from_device(&scratch, capture.stream()).unwrap();
    let other = Stream::non_blocking().unwrap();
    assert!(
        scratch.as_slice_mut().memset(0, &other).is_err(),
        "outside its capture"
    );
    drop(scratch);
    let graph = capture.end().unwrap();
    let exec = graph
        .instantiate_with_flags(cudart13::InstantiateFlags::AUTO_FREE_ON_LAUNCH)
        .unwrap();
    for _ in 0..3 {
        exec.launch(&stream).unwrap();
    }
    assert!(output.to_vec().unwrap().iter().all(|v| *v == 42));

    // A view of a pinned buffer one graph holds stops that graph's launches, not another's.
    let mut held = PinnedBuffer::<u32>::new(16).unwrap();
    let mut unrelated = PinnedBuffer::<u32>::new(16).unwrap();
    let (a, b) = (Graph::new().unwrap(), Graph::new().unwrap());
    a.add_copy_to_pinned_node(&[], &mut held, &output.slice(..16).unwrap())
        .unwrap();
    b.add_copy_to_pinned_node(&[], &mut unrelated, &output.slice(..16).unwrap())
        .unwrap();
    let (a, b) = (a.instantiate().unwrap(), b.instantiate().unwrap());
    let view = unrelated.as_slice().unwrap();
    a.launch(&stream).unwrap();
    assert!(b.launch(&stream).is_err(), "a view of b's buffer is alive");
    assert!(view.iter().all(|v| *v == 0), "b never ran");
    drop(view);
    assert!(
        held.as_slice().unwrap().iter().all(|v| *v == 42),
        "the view waited for a"
    );
}

/// Set in the child process of [`ipc_hands_a_buffer_and_an_event_to_another_process`].
const IPC_CHILD: &str = "CUDART_TEST_IPC_CHILD";

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn ipc_hands_a_buffer_and_an_event_to_another_process() {
    gpu();
    let stream = Stream::non_blocking().unwrap();
    let shared = DeviceBuffer::from_slice_shareable(&vec![7u32; 1 << 20], &stream).unwrap();
    let pooled = DeviceBuffer::<u32>::new(16, &stream).unwrap();
    assert!(
        pooled.ipc_handle().is_err(),
        "stream-ordered memory is not shareable"
    );
    let event = Event::interprocess(Device::get(0).unwrap()).unwrap();
    event.record(&stream).unwrap();
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let handles = format!(
        "{} {}",
        hex(&shared.ipc_handle().unwrap().to_bytes()),
        hex(&event.ipc_handle().unwrap().to_bytes())
    );
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "ipc_child_opens_the_handles",
            "--exact",
            "--include-ignored",
            "--nocapture",
        ])
        .env(IPC_CHILD, handles)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("child: opened and changed"), "{text}");
    assert!(
        shared.to_vec().unwrap().iter().all(|v| *v == 8),
        "the child's kernel ran"
    );
}

/// The other side of [`ipc_hands_a_buffer_and_an_event_to_another_process`]; does nothing
/// when run on its own.
#[test]
#[ignore = "run by ipc_hands_a_buffer_and_an_event_to_another_process in a child process"]
fn ipc_child_opens_the_handles() {
    let Ok(handles) = std::env::var(IPC_CHILD) else {
        return;
    };
    gpu();
    let bytes = |h: &str| -> Vec<u8> {
        (0..h.len() / 2)
            .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    };
    let mut parts = handles.split(' ');
    let memory: [u8; 72] = bytes(parts.next().unwrap()).try_into().unwrap();
    let event: [u8; 64] = bytes(parts.next().unwrap()).try_into().unwrap();
    let stream = Stream::non_blocking().unwrap();
    // SAFETY: the parent made both handles and keeps the memory and the event alive until
    // this process exits.
    let (shared, recorded): (DeviceBuffer<u32>, Event) = unsafe {
        (
            cudart13::IpcMemHandle::from_bytes(memory)
                .open(&stream)
                .unwrap(),
            cudart13::IpcEventHandle::from_bytes(event)
                .open(Device::get(0).unwrap())
                .unwrap(),
        )
    };
    stream.wait_event(&recorded).unwrap();
    assert!(shared.to_vec().unwrap().iter().all(|v| *v == 7));
    let kernel = Module::from_ptx(ADD_ONE_PTX)
        .unwrap()
        .kernel("add_one")
        .unwrap();
    let n = shared.len() as u32;
    // SAFETY: add_one(unsigned*, unsigned) over the `n` elements of the shared buffer.
    unsafe {
        kernel
            .launch(&stream, LaunchConfig::for_num_elems(n), (&shared, &n))
            .unwrap()
    };
    stream.synchronize().unwrap();
    println!("child: opened and changed {n} elements");
}

/// Issue 43: streams and events key maps (by handle), stream priorities outside the device's
/// range are refused instead of clamped, events report their flags.
#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43_streams_events_hash_priorities_and_flags() {
    use std::collections::{HashMap, HashSet};
    gpu();
    let a = Stream::non_blocking().unwrap();
    let b = Stream::non_blocking().unwrap();
    // A stream's hash is its handle, which never changes (the lint sees its queue's lock).
    #[allow(clippy::mutable_key_type)]
    let mut work: HashMap<Stream, u32> = HashMap::new();
    *work.entry(a.clone()).or_default() += 1;
    *work.entry(a.clone()).or_default() += 1;
    *work.entry(b.clone()).or_default() += 1;
    assert_eq!(work.len(), 2);
    assert_eq!(work[&a], 2);

    let (least, greatest) = Device::get(0).unwrap().stream_priority_range().unwrap();
    println!("priorities {greatest}..={least}");
    let top = Stream::with_priority(StreamFlags::NON_BLOCKING, greatest).unwrap();
    assert_eq!(top.priority().unwrap(), greatest);
    for outside in [greatest - 1, least + 1] {
        let e = Stream::with_priority(StreamFlags::NON_BLOCKING, outside)
            .expect_err("a priority outside the range");
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    }

    let e1 = Event::with_flags(EventFlags::DISABLE_TIMING | EventFlags::BLOCKING_SYNC).unwrap();
    let e2 = Event::new().unwrap();
    let set: HashSet<Event> = [e1.clone(), e1.clone(), e2.clone()].into_iter().collect();
    assert_eq!(set.len(), 2);
    assert_eq!(e1, e1.clone());
    assert_ne!(e1, e2);
    assert_eq!(e1.is_timing_disabled(), Some(true));
    assert_eq!(e1.is_blocking_sync(), Some(true));
    assert_eq!(e2.flags(), Some(EventFlags::DEFAULT));
    let recorded = a.record_event().unwrap();
    assert_eq!(recorded.is_timing_disabled(), Some(false));
    let ipc = Event::interprocess(Device::get(0).unwrap()).unwrap();
    assert_eq!(ipc.is_ipc_enabled(), Some(true));
}

/// Issue 43: an event opened from an IPC handle (in a child process) gives that handle back.
#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43_an_opened_ipc_event_gives_its_handle_back() {
    gpu();
    let event = Event::interprocess(Device::get(0).unwrap()).unwrap();
    let bytes = event.ipc_handle().unwrap().to_bytes();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let out = workspace_tests::child::run("issue43_ipc_event_child", |cmd| {
        cmd.env("ISSUE43_IPC_EVENT", &hex);
    });
    assert!(
        out.contains(&format!("reopened handle {hex}")),
        "the child's event gave back another handle:\n{out}"
    );
}

/// The child of [`issue43_an_opened_ipc_event_gives_its_handle_back`]: opens the handle in
/// `ISSUE43_IPC_EVENT`, waits on it and prints the handle the opened event gives back (run
/// alone, without the variable, it checks that a non-IPC event has no handle).
#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43_ipc_event_child() {
    gpu();
    let Ok(hex) = std::env::var("ISSUE43_IPC_EVENT") else {
        let plain = Event::new().unwrap();
        let e = plain
            .ipc_handle()
            .expect_err("a non-IPC event has no handle");
        assert_eq!(e.cuda_code(), Some(INVALID_RESOURCE_HANDLE), "{e}");
        return;
    };
    let mut bytes = [0u8; 64];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex");
    }
    let handle = cudart13::IpcEventHandle::from_bytes(bytes);
    // SAFETY: the bytes are an event handle the parent exported and keeps alive.
    let opened = unsafe { handle.open(Device::get(0).unwrap()) }.expect("open");
    opened.synchronize().expect("wait on the parent's event");
    assert_eq!(opened.is_ipc_enabled(), Some(true));
    let again = opened
        .ipc_handle()
        .expect("an opened event gives its handle back");
    let hex_again: String = again
        .to_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("reopened handle {hex_again}");
}

/// Issue 43: `DeviceProperties` has every `cudaDeviceProp` field, agreeing with the generated
/// attribute getters; `arch()`, the formatted UUID and `Display`.
#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43_device_properties_attributes_arch_and_uuid() {
    gpu();
    let d = Device::get(0).unwrap();
    let p = d.properties().unwrap();
    let a = d.attributes();
    assert_eq!(a.multi_processor_count().unwrap(), p.multi_processor_count);
    assert_eq!(a.max_threads_per_block().unwrap(), p.max_threads_per_block);
    assert_eq!(a.max_block_dim_x().unwrap(), p.max_threads_dim[0]);
    assert_eq!(a.max_grid_dim_y().unwrap(), p.max_grid_size[1]);
    assert_eq!(a.warp_size().unwrap(), p.warp_size);
    assert_eq!(a.l2_cache_size().unwrap(), p.l2_cache_size);
    assert_eq!(a.pci_bus_id().unwrap(), p.pci_bus_id);
    assert_eq!(a.integrated().unwrap(), p.integrated);
    assert_eq!(
        a.concurrent_managed_access().unwrap(),
        p.concurrent_managed_access
    );
    assert_eq!(a.cluster_launch().unwrap(), p.cluster_launch);
    assert_eq!(
        a.memory_pools_supported().unwrap(),
        p.memory_pools_supported
    );
    assert_eq!(a.compute_capability_major().unwrap(), p.major);
    let (major, minor) = d.compute_capability().unwrap();
    assert_eq!(d.arch().unwrap(), format!("{major}{minor}"));
    assert_eq!(p.arch(), d.arch().unwrap());
    let uuid = d.uuid().unwrap();
    assert_eq!(uuid, p.uuid);
    let text = uuid.to_string();
    println!("{} sm_{} {text}", p.name, p.arch());
    assert!(text.starts_with("GPU-") && text.len() == 40, "{text}");
    assert_eq!(text[4..], uuid.hyphenated());
    let shown = p.to_string();
    assert!(shown.lines().count() > 80, "{shown}");
    assert!(shown.contains(&format!("{:?}", p.name)), "{shown}");
}

/// Issue 43: launch configurations carry and check their attributes; occupancy with a block
/// size limit and shared memory per block size; cluster occupancy; every kernel attribute;
/// `bool` arguments.
#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43_launch_configs_occupancy_clusters_and_bool_arguments() {
    gpu();
    assert!(matches!(
        LaunchConfig::new(0, 256),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        LaunchConfig::new(4, (32, 0)),
        Err(Error::InvalidArgument(_))
    ));
    let module = Module::from_ptx(ADD_ONE_PTX).unwrap();
    let kernel = module.kernel("add_one").unwrap();
    let unlimited = kernel.occupancy(0).unwrap();
    for limit in [32u32, 64, 96, 100, 128, 192, 200, 256, 384, 500, 512, 1000] {
        let best = kernel.occupancy_limited(0, limit).unwrap();
        assert!(
            best.block_size <= limit && best.block_size > 0,
            "{limit}: {best:?}"
        );
        assert!(best.block_size <= unlimited.block_size.max(limit));
    }
    let by_size = kernel
        .occupancy_variable_smem(|block| block as usize * 64, 0)
        .unwrap();
    let fixed = kernel.occupancy(0).unwrap();
    println!("occupancy: {fixed:?}; with 64 B a thread: {by_size:?}");
    assert!(
        by_size.blocks_per_multiprocessor * by_size.block_size
            <= fixed.blocks_per_multiprocessor * fixed.block_size
    );
    let avail = kernel.available_dynamic_shared_memory(2, 256).unwrap();
    assert!(avail > 0, "{avail}");

    let attrs = kernel.attributes().unwrap();
    println!("{attrs}");
    assert!(
        attrs.binary_version > 0 && attrs.ptx_version > 0,
        "{attrs:?}"
    );
    assert_eq!(attrs.required_cluster_width, 0);
    assert!(!attrs.to_string().is_empty());

    let stream = Stream::non_blocking().unwrap();
    let n = 1024u32;
    let data = DeviceBuffer::<u32>::zeroed(n as usize, &stream).unwrap();
    let config = LaunchConfig::new(4, 256).unwrap();
    assert_eq!(
        (config.grid.x, config.block.x, config.cluster),
        (4, 256, None)
    );
    // SAFETY: add_one(unsigned*, unsigned) over `n` elements.
    unsafe { kernel.launch(&stream, config, (&data, &n)).unwrap() };
    let mut expected = 1;
    if Device::get(0).unwrap().properties().unwrap().cluster_launch {
        let clustered = config.with_cluster(2).unwrap();
        assert_eq!(clustered.cluster.map(|c| c.x), Some(2));
        let active = kernel.max_active_clusters(&clustered).unwrap();
        let size = kernel.max_potential_cluster_size(&config).unwrap();
        println!("clusters of 2: {active} at once; potential cluster size {size}");
        assert!(active >= 1 && size >= 2, "{active} {size}");
        // SAFETY: as above, in clusters of two blocks.
        unsafe { kernel.launch(&stream, clustered, (&data, &n)).unwrap() };
        expected += 1;
        let pss = config.with_programmatic_stream_serialization(true);
        assert!(pss.programmatic_stream_serialization);
        // SAFETY: as above.
        unsafe { kernel.launch(&stream, pss, (&data, &n)).unwrap() };
        expected += 1;
    }
    assert!(data.to_vec().unwrap().iter().all(|v| *v == expected));
    // A zero grid set through the public field is refused before CUDA.
    let mut zero = config;
    zero.grid.x = 0;
    // SAFETY: refused before anything is launched.
    let e = unsafe { kernel.launch(&stream, zero, (&data, &n)) }.expect_err("zero grid");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");

    // A `bool` argument, from a kernel NVRTC compiles.
    let src = r#"extern "C" __global__ void pick(unsigned* out, bool b) { *out = b ? 7u : 3u; }"#;
    let compiled = nvrtc13::Program::new(src, "pick.cu")
        .unwrap()
        .compile(Vec::<String>::new())
        .unwrap();
    let pick = Module::from_ptx(&compiled.ptx().unwrap())
        .unwrap()
        .kernel("pick")
        .unwrap();
    let out = DeviceBuffer::<u32>::zeroed(1, &stream).unwrap();
    for (flag, want) in [(true, 7u32), (false, 3)] {
        // SAFETY: pick(unsigned*, bool) writes one element.
        unsafe {
            pick.launch(&stream, LaunchConfig::new(1, 1).unwrap(), (&out, &flag))
                .unwrap()
        };
        assert_eq!(out.to_vec().unwrap(), [want]);
    }
}

/// Issue 43: NVRTC compiles for the current device by default, and a kernel compiled with a
/// name expression is found by that name through the module's symbol map.
#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43_nvrtc_default_arch_and_name_expressions() {
    gpu();
    let device = Device::get(0).unwrap();
    let arch: i32 = device.arch().unwrap().parse().unwrap();
    let supported = nvrtc13::supported_architectures().unwrap();
    let expected = supported.iter().copied().filter(|a| *a <= arch).max();
    assert_eq!(nvrtc13::current_device_arch(), Some(arch));
    let src = "template <typename T> __global__ void fill(T* p, T v, unsigned n) {\n\
               unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v; }";
    let mut program = nvrtc13::Program::new(src, "fill.cu").unwrap();
    program.add_name_expression("fill<float>").unwrap();
    program.add_name_expression("fill<int>").unwrap();
    // No --gpu-architecture: the device's (a CUBIN exists only for a real architecture).
    let compiled = program.compile(["--std=c++17"]).unwrap();
    let cubin = compiled
        .cubin()
        .expect("compiled for the device's sm_XX by default");
    let names = compiled.lowered_names().unwrap();
    println!("default arch sm_{expected:?}; lowered names {names:?}");
    assert_eq!(names.len(), 2);
    assert_eq!(names[0].0, "fill<float>");
    assert!(names[0].1.starts_with("_Z"), "{names:?}");
    let module = Module::from_bytes(&cubin)
        .unwrap()
        .with_symbols(names.clone());
    assert_eq!(module.symbol_for("fill<int>"), Some(names[1].1.as_str()));
    let fill = module
        .kernel("fill<float>")
        .expect("found by its name expression");
    let stream = Stream::non_blocking().unwrap();
    let n = 300u32;
    let data = DeviceBuffer::<f32>::zeroed(n as usize, &stream).unwrap();
    // SAFETY: fill<float>(float*, float, unsigned) over `n` elements.
    unsafe {
        fill.launch(
            &stream,
            LaunchConfig::for_num_elems(n),
            (&data, &2.5f32, &n),
        )
        .unwrap()
    };
    assert!(data.to_vec().unwrap().iter().all(|v| *v == 2.5));
    // The mangled name still works, and an unknown expression is not found.
    module.kernel(&names[1].1).expect("by the lowered name");
    assert!(module.kernel("fill<double>").is_err());
}

// ---- issue 43 (graphs and memory, part b) ----

/// `step(unsigned* state, unsigned long long handle)`: the while node's body of
/// `examples/graph_while_loop.rs`.
const STEP_PTX: &str = include_str!("../../examples/examples/graph_while_loop.ptx");

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43b_conditional_while_if_and_switch_nodes() {
    use cudart13::graph::Conditional;
    gpu();
    let step = Module::from_ptx(STEP_PTX).unwrap().kernel("step").unwrap();
    let stream = Stream::non_blocking().unwrap();
    let mut state = DeviceBuffer::<u32>::zeroed(2, &stream).unwrap();
    let init = DeviceBuffer::from_slice(&[7u32, 0], &stream).unwrap();
    let graph = Graph::new().unwrap();
    let reset = graph.add_copy_node(&[], &mut state, &init).unwrap();
    let handle = graph.conditional_handle(Some(1)).unwrap();
    let cond = graph
        .add_conditional_node(&[reset], handle, Conditional::While)
        .unwrap();
    assert_eq!(cond.bodies().len(), 1);
    assert_eq!(
        cond.node().node_type().unwrap(),
        cudart13::graph::GraphNodeType::CONDITIONAL
    );
    let h = handle.as_raw();
    // SAFETY: step(unsigned*, unsigned long long) on one thread over `state`'s 2 elements.
    unsafe {
        cond.bodies()[0]
            .add_kernel_node(
                &[],
                Launch::new(&step)
                    .config(LaunchConfig::new(1, 1).unwrap())
                    .args((&state, &h)),
            )
            .unwrap()
    };
    // A handle of another graph is refused.
    let other = Graph::new().unwrap();
    let foreign = other.conditional_handle(None).unwrap();
    assert!(matches!(
        graph.add_conditional_node(&[], foreign, Conditional::While),
        Err(Error::InvalidArgument(_))
    ));
    let exec = graph.instantiate().unwrap();
    drop(cond);
    drop(graph);
    drop(init); // the executable graph holds it
    for _ in 0..2 {
        exec.launch(&stream).unwrap();
        assert_eq!(state.to_vec().unwrap(), [0, 7], "seven rounds per launch");
    }
    // An if node with an else body: the default 0 runs the else body only.
    let graph = Graph::new().unwrap();
    let mut flags = DeviceBuffer::<u8>::zeroed(2, &stream).unwrap();
    let handle = graph.conditional_handle(Some(0)).unwrap();
    let cond = graph
        .add_conditional_node(&[], handle, Conditional::If { with_else: true })
        .unwrap();
    assert_eq!(cond.bodies().len(), 2);
    let mut first = flags.slice_mut(0..1).unwrap();
    cond.bodies()[0]
        .add_memset_node(&[], &mut first, 1)
        .unwrap();
    let mut second = flags.slice_mut(1..2).unwrap();
    cond.bodies()[1]
        .add_memset_node(&[], &mut second, 2)
        .unwrap();
    let exec = graph.instantiate().unwrap();
    exec.launch(&stream).unwrap();
    assert_eq!(flags.to_vec().unwrap(), [0, 2], "only the else body ran");
    // A switch node (CUDA 12.8+ on the 12.x line): the default 2 runs body 2 of 3.
    let graph = Graph::new().unwrap();
    let mut cases = DeviceBuffer::<u8>::zeroed(3, &stream).unwrap();
    let handle = graph.conditional_handle(Some(2)).unwrap();
    let cond = graph
        .add_conditional_node(&[], handle, Conditional::Switch { cases: 3 })
        .unwrap();
    for (i, body) in cond.bodies().iter().enumerate() {
        let mut one = cases.slice_mut(i..i + 1).unwrap();
        body.add_memset_node(&[], &mut one, 9).unwrap();
    }
    graph.instantiate().unwrap().launch(&stream).unwrap();
    assert_eq!(cases.to_vec().unwrap(), [0, 0, 9]);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43b_captured_host_callback_runs_once_per_launch() {
    gpu();
    let stream = Stream::non_blocking().unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let seen = runs.clone();
    let mut data = DeviceBuffer::<u32>::zeroed(1024, &stream).unwrap();
    let graph = stream
        .capture(CaptureMode::THREAD_LOCAL, |s| {
            data.memset(1, s)?;
            s.launch_repeatable_host_func(move || {
                seen.fetch_add(1, Ordering::SeqCst);
            })
        })
        .unwrap();
    let types: Vec<_> = graph
        .nodes()
        .unwrap()
        .iter()
        .map(|n| n.node_type().unwrap())
        .collect();
    assert!(
        types.contains(&cudart13::graph::GraphNodeType::HOST),
        "{types:?}"
    );
    let exec = graph.instantiate().unwrap();
    drop(graph);
    for _ in 0..5 {
        exec.launch(&stream).unwrap();
    }
    stream.synchronize().unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 5);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43b_update_1000_times_keeps_holdings_bounded_and_names_refusals() {
    gpu();
    struct Token(Arc<AtomicUsize>);
    impl Drop for Token {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }
    let stream = Stream::non_blocking().unwrap();
    let live = Arc::new(AtomicUsize::new(0));
    let make = || {
        let graph = Graph::new().unwrap();
        let mut buf = DeviceBuffer::<u8>::new(4096, &stream).unwrap();
        let set = graph.add_memset_node(&[], &mut buf, 1).unwrap();
        live.fetch_add(1, Ordering::SeqCst);
        let token = Token(live.clone());
        graph
            .add_host_node(&[set], move || {
                let _ = &token;
            })
            .unwrap();
        graph
    };
    let exec = make().instantiate().unwrap();
    let settle = || {
        stream.synchronize().unwrap();
        for _ in 0..400 {
            if live.load(Ordering::SeqCst) <= 1 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        live.load(Ordering::SeqCst)
    };
    for i in 1..=1000 {
        exec.launch(&stream).unwrap();
        exec.update(&make()).unwrap();
        if i % 100 == 0 {
            let now = settle();
            println!("{i} updates: {now} held closure(s)");
            assert!(now <= 1, "{now} closures held after {i} updates");
        }
    }
    // A refused update: result information names the reason and the node.
    let other = Graph::new().unwrap();
    let a = other.add_empty_node(&[]).unwrap();
    other.add_empty_node(&[a]).unwrap();
    match exec.update(&other) {
        Err(Error::GraphUpdate(why)) => {
            println!("refused: {why}");
            assert_ne!(why.reason, cudart13::graph::GraphUpdateResult::SUCCESS);
        }
        other => panic!("expected a refused update, got {other:?}"),
    }
    exec.launch(&stream).unwrap();
    drop(exec);
    stream.synchronize().unwrap();
    for _ in 0..400 {
        if live.load(Ordering::SeqCst) == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(live.load(Ordering::SeqCst), 0);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43b_nodes_edges_setters_and_removal() {
    gpu();
    let stream = Stream::non_blocking().unwrap();
    let mut a = DeviceBuffer::<u8>::zeroed(256, &stream).unwrap();
    let mut b = DeviceBuffer::<u8>::zeroed(256, &stream).unwrap();
    let src = PinnedBuffer::from_slice(&[3u32; 64]).unwrap();
    let mut dst = PinnedBuffer::<u32>::new(64).unwrap();
    let mut dst2 = PinnedBuffer::<u32>::new(64).unwrap();
    let which = Arc::new(AtomicUsize::new(0));
    let mut graph = Graph::new().unwrap();
    let (set, host, copy, spare) = {
        let set = graph.add_memset_node(&[], &mut a, 1).unwrap();
        let w = which.clone();
        let host = graph
            .add_host_node(&[set], move || w.store(1, Ordering::SeqCst))
            .unwrap();
        let copy = graph.add_copy_pinned_node(&[host], &mut dst, &src).unwrap();
        let spare = graph.add_empty_node(&[copy]).unwrap();
        assert_eq!(graph.nodes().unwrap(), vec![set, host, copy, spare]);
        let edges = graph.edges().unwrap();
        assert_eq!(edges.len(), 3);
        assert!(edges.iter().any(|e| e.from == set && e.to == host));
        assert_eq!(
            copy.node_type().unwrap(),
            cudart13::graph::GraphNodeType::MEMCPY
        );
        (set.id(), host.id(), copy.id(), spare.id())
    };
    graph.remove_node(spare).unwrap();
    assert!(graph.remove_node(spare).is_err());
    assert_eq!(graph.node_count().unwrap(), 3);
    let nodes = graph.nodes().unwrap();
    let find = |id| *nodes.iter().find(|n| n.id() == id).unwrap();
    let (set, host, copy) = (find(set), find(host), find(copy));
    graph.set_memset_node(set, &mut b, 5).unwrap();
    let w = which.clone();
    graph
        .set_host_node(host, move || w.store(2, Ordering::SeqCst))
        .unwrap();
    let exec = graph.instantiate().unwrap();
    exec.launch(&stream).unwrap();
    assert_eq!(dst.to_vec().unwrap(), vec![3; 64]);
    assert_eq!(b.to_vec().unwrap(), vec![5; 256]);
    assert_eq!(a.to_vec().unwrap(), vec![0; 256]);
    assert_eq!(which.load(Ordering::SeqCst), 2);
    // The executable graph's own setters: host, memset, pinned-to-pinned copy.
    let w = which.clone();
    exec.set_host_node(host, move || w.store(3, Ordering::SeqCst))
        .unwrap();
    exec.set_memset_node(set, &mut a, 6).unwrap();
    exec.set_copy_pinned_node(copy, &mut dst2, &src).unwrap();
    exec.launch(&stream).unwrap();
    assert_eq!(dst2.to_vec().unwrap(), vec![3; 64]);
    assert_eq!(a.to_vec().unwrap(), vec![6; 256]);
    assert_eq!(which.load(Ordering::SeqCst), 3);
    // A child-graph node set in place.
    let parent = Graph::new().unwrap();
    let child = Graph::new().unwrap();
    child.add_memset_node(&[], &mut a, 7).unwrap();
    let node = parent.add_child_graph_node(&[], &child).unwrap();
    let pexec = parent.instantiate().unwrap();
    let child2 = Graph::new().unwrap();
    child2.add_memset_node(&[], &mut b, 8).unwrap();
    pexec.set_child_graph_node(node, &child2).unwrap();
    pexec.launch(&stream).unwrap();
    assert_eq!(b.to_vec().unwrap(), vec![8; 256]);
    assert!(take_drop_errors().is_empty());
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43b_pointer_info_registration_and_pinned_copies() {
    use cudart13::memory::{MemoryType, PointerInfo};
    gpu();
    let stream = Stream::non_blocking().unwrap();
    let dev = DeviceBuffer::<u32>::zeroed(16, &stream).unwrap();
    let info = PointerInfo::of(dev.as_device_ptr().as_raw()).unwrap();
    assert_eq!(info.memory_type, MemoryType::DEVICE);
    assert_eq!(info.device, Some(0));
    assert!(info.is_device_accessible() && !info.is_host_accessible());
    let pinned = PinnedBuffer::<u32>::new(16).unwrap();
    let info = PointerInfo::of(pinned.as_ptr().cast()).unwrap();
    assert_eq!(info.memory_type, MemoryType::HOST);
    assert!(info.is_host_accessible());
    let managed = ManagedBuffer::<u32>::new(16).unwrap();
    let info = PointerInfo::of(managed.as_device_ptr().as_raw()).unwrap();
    assert_eq!(info.memory_type, MemoryType::MANAGED);
    assert!(info.is_device_accessible() && info.is_host_accessible());
    let heap = [0u32; 16];
    let info = PointerInfo::of(heap.as_ptr().cast()).unwrap();
    assert_eq!(info.memory_type, MemoryType::UNREGISTERED);
    assert_eq!(info.device, None);
    // Registered host memory: pinned in place, copied to and from, unregistered on drop.
    let data: Vec<u32> = (0..4096).collect();
    let addr = data.as_ptr() as usize;
    let mut registered = PinnedBuffer::register(data).unwrap();
    assert_eq!(registered.as_ptr() as usize, addr, "no copy");
    let info = PointerInfo::of(registered.as_ptr().cast()).unwrap();
    assert_eq!(info.memory_type, MemoryType::HOST);
    let mut back = DeviceBuffer::<u32>::zeroed(4096, &stream).unwrap();
    back.copy_from_pinned_async(&registered, &stream).unwrap();
    let mut copy = PinnedBuffer::<u32>::new(4096).unwrap();
    copy.copy_from_pinned_async(&registered, &stream).unwrap();
    registered.as_mut_slice().unwrap().fill(0); // waits for both copies
    assert_eq!(back.to_vec().unwrap()[4095], 4095);
    assert_eq!(copy.to_vec().unwrap()[4095], 4095);
    back.copy_to_pinned_async(&mut registered, &stream).unwrap();
    drop(registered); // unregistered and freed after the copy
    stream.synchronize().unwrap();
    assert!(take_drop_errors().is_empty());
}

/// Set in the child process of [`issue43b_ipc_pool_shared_with_a_child_process`].
const IPC_POOL_CHILD: &str = "CUDART_TEST_IPC_POOL_CHILD";

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43b_ipc_pool_shared_with_a_child_process() {
    use std::os::fd::AsFd;
    gpu();
    let device = Device::get(0).unwrap();
    let stream = Stream::non_blocking().unwrap();
    let plain = MemPool::new(device).unwrap();
    assert!(plain.export_fd().is_err(), "a pool made without handles");
    let pool = MemPool::new_shareable(device).unwrap();
    let fd = pool.export_fd().unwrap();
    let mut bufs = Vec::new();
    let mut exports = Vec::new();
    for i in 0..3u32 {
        let mut buf = pool.alloc::<u32>(1 << 16, &stream).unwrap();
        buf.copy_from_host(&vec![i + 1; 1 << 16]).unwrap();
        bufs.push(buf);
    }
    stream.synchronize().unwrap();
    for buf in &bufs {
        let bytes = pool.export_pointer(buf).unwrap().to_bytes();
        exports.push(bytes.iter().map(|x| format!("{x:02x}")).collect::<String>());
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "issue43b_ipc_pool_child",
            "--exact",
            "--include-ignored",
            "--nocapture",
        ])
        .env(IPC_POOL_CHILD, exports.join(" "))
        .stdin(std::process::Stdio::from(
            fd.as_fd().try_clone_to_owned().unwrap(),
        ))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("child: imported 3 allocations"), "{text}");
    for (i, buf) in bufs.iter().enumerate() {
        assert!(
            buf.to_vec()
                .unwrap()
                .iter()
                .all(|v| *v == 10 * (i as u32 + 1)),
            "the child's writes to allocation {i}"
        );
    }
    drop(bufs);
    assert!(take_drop_errors().is_empty());
}

/// The other side of [`issue43b_ipc_pool_shared_with_a_child_process`]; does nothing when
/// run on its own.
#[test]
#[ignore = "run by issue43b_ipc_pool_shared_with_a_child_process in a child process"]
fn issue43b_ipc_pool_child() {
    use cudart13::memory::PoolPointerExport;
    use std::os::fd::BorrowedFd;
    let Ok(exports) = std::env::var(IPC_POOL_CHILD) else {
        return;
    };
    let device = Device::get(0).unwrap();
    device.set_current().unwrap();
    let stream = Stream::non_blocking().unwrap();
    // SAFETY: standard input is the pool's descriptor, inherited from the parent.
    let fd = unsafe { BorrowedFd::borrow_raw(0) };
    let pool = MemPool::import_fd(fd, device).unwrap();
    let mut n = 0;
    for (i, hex) in exports.split(' ').enumerate() {
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .map(|k| u8::from_str_radix(&hex[2 * k..2 * k + 2], 16).unwrap())
            .collect();
        let export = PoolPointerExport::from_bytes(bytes.try_into().unwrap());
        // SAFETY: the parent allocated (and synchronised) before exporting, and keeps the
        // allocation until this process has exited.
        let mut shared: DeviceBuffer<u32> =
            unsafe { pool.import_pointer(export, &stream).unwrap() };
        let want = i as u32 + 1;
        assert!(shared.to_vec().unwrap().iter().all(|v| *v == want));
        shared
            .copy_from_host(&vec![10 * want; shared.len()])
            .unwrap();
        drop(shared);
        n += 1;
    }
    stream.synchronize().unwrap();
    println!("child: imported {n} allocations");
}

#[test]
#[ignore = "needs a GPU: run on the GPU machine with --include-ignored (scripts/gpu-run.sh)"]
fn issue43b_dependencies_and_programmatic_edges() {
    use cudart13::graph::Programmatic;
    gpu();
    let stream = Stream::non_blocking().unwrap();
    let add_one = Module::from_ptx(ADD_ONE_PTX)
        .unwrap()
        .kernel("add_one")
        .unwrap();
    let n = 4096u32;
    let config = LaunchConfig::for_num_elems(n);
    let a = DeviceBuffer::<u32>::zeroed(n as usize, &stream).unwrap();
    let b = DeviceBuffer::<u32>::zeroed(n as usize, &stream).unwrap();
    let graph = Graph::new().unwrap();
    let (e1, e2) = (
        graph.add_empty_node(&[]).unwrap(),
        graph.add_empty_node(&[]).unwrap(),
    );
    graph.add_dependency(e1, e2).unwrap();
    assert_eq!(graph.root_nodes().unwrap(), vec![e1]);
    // SAFETY: add_one(unsigned*, unsigned) over `n` elements of buffers that outlive the
    // launches; the two kernels touch different buffers, so overlapping them races on nothing.
    unsafe {
        let k1 = graph
            .add_kernel_node(&[e2], Launch::new(&add_one).config(config).args((&a, &n)))
            .unwrap();
        let k2 = graph
            .add_kernel_node(&[e2], Launch::new(&add_one).config(config).args((&b, &n)))
            .unwrap();
        graph
            .add_programmatic_dependency(k1, k2, Programmatic::Triggered)
            .unwrap();
        assert!(
            graph
                .add_programmatic_dependency(e1, e2, Programmatic::Launched)
                .is_err(),
            "programmatic edges join kernel nodes only"
        );
    }
    let edges = graph.edges().unwrap();
    assert_eq!(edges.len(), 4);
    assert!(
        edges.iter().any(|e| e.data.type_ == 1),
        "one programmatic edge"
    );
    let exec = graph.instantiate().unwrap();
    exec.launch(&stream).unwrap();
    exec.launch(&stream).unwrap();
    assert!(a.to_vec().unwrap().iter().all(|v| *v == 2));
    assert!(b.to_vec().unwrap().iter().all(|v| *v == 2));
    assert!(take_drop_errors().is_empty());
}
