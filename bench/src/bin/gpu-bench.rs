//! Call overhead and bandwidth on a GPU, through `cudart13`'s typed `api`, its safe layer and
//! cudarc's raw `sys`, in the same measurements as the C baseline (`bench/c/gpu_bench.cu`);
//! `scripts/gpu-bench.sh` runs both in turn on the GPU machine.
//!
//! Each benchmark times a batch of calls (then one synchronisation, where the work is queued)
//! and reports nanoseconds per call (`ns`) or bandwidth (`GB/s`); the benchmarks are run
//! round-robin `GPU_BENCH_REPS` times (default 7) and each prints its median, one line per
//! benchmark: `rust<TAB>name<TAB>value<TAB>unit`. The names match the C baseline's.
//!
//! With two GPUs that can access each other, `peer_copy_pool_256MiB` copies a device-0
//! `DeviceBuffer` into a device-1 one on a device-0 stream with the safe layer's
//! `copy_from_device`, after nothing but `Device::enable_peer_access` both ways (which gives
//! each device access to the other's default pool), beside the C loop that sets the pools'
//! access by hand (issue 32: ≥ 0.95× C's bandwidth).
//!
//! `graph_launch_pinned/safe` launches a graph that copies into a pinned buffer (the safe layer
//! records each launch as a use of that buffer, so that its host views wait for it);
//! `graph_launch_pinned_2threads/safe` does so from two threads at once, each with its own
//! graph, stream and buffer, while a third graph's buffer has a host view alive: the
//! per-launch time of each thread, which stays that of one thread when unrelated launches do
//! not wait for each other (issue 38: exclusion per buffer, never process-wide);
//! `graph_launch_pinned_2threads` is the same through the typed `api` (no bookkeeping), the
//! runtime's own figure for two threads. Run these unpinned (`GPU_BENCH_CPU=none`): two
//! threads on one CPU take turns.
//!
//! Without a CUDA runtime (or a GPU) it says so on standard error and exits with status 2.
use std::ffi::c_void;
use std::hint::black_box;
use std::time::Instant;

use cudart13::sys::{self, cudaMemcpyKind, dim3};
use cudart13::StreamFlags;
use cudart13::{
    api, CaptureMode, Device, DeviceBuffer, Event, Graph, GraphExec, Module, PinnedBuffer, Result,
    Stream,
};

/// An empty kernel, `empty()`, loaded at run time (the C baseline loads the same text).
const PTX: &str = "
.version 7.0
.target sm_70
.address_size 64
.visible .entry empty()
{
    ret;
}
";

const MIB: usize = 1 << 20;
const COPY_BYTES: usize = 256 * MIB;

struct Bench<'a> {
    name: &'static str,
    unit: &'static str,
    run: Box<dyn FnMut() -> Result<f64> + 'a>,
}

/// Nanoseconds per call of `k` calls of `f`, then `finish` (a synchronisation) once.
fn per_call(
    k: u32,
    mut f: impl FnMut() -> Result<()>,
    mut finish: impl FnMut() -> Result<()>,
) -> Result<f64> {
    let t = Instant::now();
    for _ in 0..k {
        f()?;
    }
    finish()?;
    Ok(t.elapsed().as_nanos() as f64 / f64::from(k))
}

/// GB/s (10^9 bytes per second) of `k` transfers of `bytes` each.
fn bandwidth(k: u32, bytes: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    let t = Instant::now();
    for _ in 0..k {
        f()?;
    }
    Ok(bytes as f64 * f64::from(k) / t.elapsed().as_secs_f64() / 1e9)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn nothing() -> Result<()> {
    Ok(())
}

/// cudarc's raw call, caught if cudarc panics (it does when it cannot load the library).
fn cudarc_ok(f: impl FnOnce() -> cudarc::runtime::sys::cudaError_t) -> Result<()> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(cudarc::runtime::sys::cudaError_t::cudaSuccess) => Ok(()),
        Ok(e) => Err(cudart13::Error::from_code(e as i32)),
        Err(_) => Err(cudart13::Error::InvalidArgument(
            "cudarc could not load libcudart".into(),
        )),
    }
}

fn run() -> Result<()> {
    let reps: usize = std::env::var("GPU_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    api::set_device(0)?;
    let attr = sys::cudaDeviceAttr::from_raw(16); // cudaDevAttrMultiProcessorCount
    let stream = Stream::new()?;
    let raw_stream = stream.as_raw();
    let event = Event::new()?;
    let module = Module::from_ptx(PTX)?;
    let kernel = module.kernel("empty")?;
    let func: *const c_void = kernel.as_raw().0.cast();
    let one = dim3 { x: 1, y: 1, z: 1 };
    // SAFETY: `empty` takes no argument.
    let graph = stream.capture(CaptureMode::GLOBAL, |s| unsafe {
        s.launch(&kernel).grid(1).block(1).run()
    })?;
    let exec = graph.instantiate()?;
    let mut host = PinnedBuffer::<u8>::new(COPY_BYTES)?;
    host.as_mut_slice()?.fill(1);
    let mut device_buf = DeviceBuffer::<u8>::zeroed(COPY_BYTES, &stream)?;
    stream.synchronize()?;
    let d_ptr = device_buf.as_device_ptr().as_raw();
    let mut peer = Peer::setup(&stream)?;
    let h_ptr = host.as_ptr() as *mut c_void;
    // Warm up every path once (library load, symbol lookup, lazy module loading).
    api::get_device()?;
    // SAFETY: as in the benchmarks below.
    unsafe { api::launch_kernel(func, one, one, &mut [], 0, raw_stream)? };
    exec.launch(&stream)?;
    stream.synchronize()?;

    let pinned_graphs = PinnedGraphs::new()?;
    let sync = || stream.synchronize();
    let mut benches: Vec<Bench<'_>> = vec![
        Bench {
            name: "get_device",
            unit: "ns",
            run: Box::new(|| {
                per_call(
                    100_000,
                    || {
                        api::get_device().map(|d| {
                            black_box(d);
                        })
                    },
                    nothing,
                )
            }),
        },
        Bench {
            name: "get_device/cudarc_sys",
            unit: "ns",
            run: Box::new(|| {
                per_call(
                    100_000,
                    || {
                        let mut d = 0;
                        // SAFETY: writes one int.
                        cudarc_ok(|| unsafe { cudarc::runtime::sys::cudaGetDevice(&mut d) })
                    },
                    nothing,
                )
            }),
        },
        Bench {
            name: "device_get_attribute",
            unit: "ns",
            run: Box::new(move || {
                per_call(
                    100_000,
                    || {
                        api::device_get_attribute(attr, 0).map(|v| {
                            black_box(v);
                        })
                    },
                    nothing,
                )
            }),
        },
        Bench {
            name: "device_get_attribute/cudarc_sys",
            unit: "ns",
            run: Box::new(|| {
                per_call(
                    100_000,
                    || {
                        let mut v = 0;
                        // SAFETY: writes one int.
                        cudarc_ok(|| unsafe {
                            cudarc::runtime::sys::cudaDeviceGetAttribute(
                                &mut v,
                                cudarc::runtime::sys::cudaDeviceAttr::cudaDevAttrMultiProcessorCount,
                                0,
                            )
                        })
                    },
                    nothing,
                )
            }),
        },
        Bench {
            name: "stream_query",
            unit: "ns",
            // SAFETY: a live stream.
            run: Box::new(|| {
                per_call(
                    100_000,
                    || unsafe { api::stream_query(raw_stream) },
                    nothing,
                )
            }),
        },
        Bench {
            name: "stream_query/safe",
            unit: "ns",
            run: Box::new(|| per_call(100_000, || stream.query().map(drop), nothing)),
        },
        Bench {
            name: "event_record",
            unit: "ns",
            run: Box::new(|| {
                // SAFETY: a live event and stream.
                per_call(
                    10_000,
                    || unsafe { api::event_record(event.as_raw(), raw_stream) },
                    sync,
                )
            }),
        },
        Bench {
            name: "event_record/cudarc_sys",
            unit: "ns",
            run: Box::new(|| {
                per_call(
                    10_000,
                    || {
                        // SAFETY: a live event and stream, passed as the pointers they are.
                        cudarc_ok(|| unsafe {
                            cudarc::runtime::sys::cudaEventRecord(
                                event.as_raw().0.cast(),
                                raw_stream.0.cast(),
                            )
                        })
                    },
                    sync,
                )
            }),
        },
        Bench {
            name: "event_record/safe",
            unit: "ns",
            run: Box::new(|| per_call(10_000, || event.record(&stream), sync)),
        },
        Bench {
            name: "malloc_async+free_async",
            unit: "ns",
            run: Box::new(|| {
                per_call(
                    10_000,
                    || {
                        // SAFETY: a live stream; the pointer is freed on it at once.
                        unsafe {
                            let p = api::malloc_async(MIB, raw_stream)?;
                            api::free_async(p, raw_stream)
                        }
                    },
                    sync,
                )
            }),
        },
        Bench {
            name: "malloc_async+free_async/safe",
            unit: "ns",
            run: Box::new(|| {
                per_call(
                    10_000,
                    || DeviceBuffer::<u8>::new(MIB, &stream).map(drop),
                    sync,
                )
            }),
        },
        Bench {
            name: "malloc+free",
            unit: "ns",
            run: Box::new(|| {
                per_call(
                    1_000,
                    || {
                        let p = api::malloc(MIB)?;
                        // SAFETY: allocated just above, not used.
                        unsafe { api::free(p) }
                    },
                    nothing,
                )
            }),
        },
        Bench {
            name: "graph_launch",
            unit: "ns",
            // SAFETY: a live executable graph and stream.
            run: Box::new(|| {
                per_call(
                    10_000,
                    || unsafe { api::graph_launch(exec.as_raw(), raw_stream) },
                    sync,
                )
            }),
        },
        Bench {
            name: "graph_launch/safe",
            unit: "ns",
            run: Box::new(|| per_call(10_000, || exec.launch(&stream), sync)),
        },
        Bench {
            name: "graph_launch_pinned/safe",
            unit: "ns",
            run: Box::new(|| {
                let lane = pinned_graphs.lanes[0]
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                let (exec, s) = &*lane;
                per_call(10_000, || exec.launch(s), || s.synchronize())
            }),
        },
        Bench {
            name: "graph_launch_pinned_2threads/safe",
            unit: "ns",
            run: Box::new(|| pinned_graphs.two_threads(10_000, true)),
        },
        Bench {
            name: "graph_launch_pinned_2threads",
            unit: "ns",
            run: Box::new(|| pinned_graphs.two_threads(10_000, false)),
        },
        Bench {
            name: "launch_kernel",
            unit: "ns",
            run: Box::new(|| {
                per_call(
                    10_000,
                    // SAFETY: `empty` takes no argument.
                    || unsafe { api::launch_kernel(func, one, one, &mut [], 0, raw_stream) },
                    sync,
                )
            }),
        },
        Bench {
            name: "launch_kernel/safe",
            unit: "ns",
            run: Box::new(|| {
                per_call(
                    10_000,
                    // SAFETY: `empty` takes no argument.
                    || unsafe { stream.launch(&kernel).grid(1).block(1).run() },
                    sync,
                )
            }),
        },
        Bench {
            name: "memcpy_h2d_pinned_256MiB",
            unit: "GB/s",
            run: Box::new(|| {
                bandwidth(5, COPY_BYTES, || unsafe {
                    // SAFETY: both buffers hold COPY_BYTES.
                    api::memcpy(d_ptr, h_ptr, COPY_BYTES, cudaMemcpyKind::HOST_TO_DEVICE)
                })
            }),
        },
        Bench {
            name: "memcpy_d2h_pinned_256MiB",
            unit: "GB/s",
            run: Box::new(|| {
                bandwidth(5, COPY_BYTES, || unsafe {
                    // SAFETY: both buffers hold COPY_BYTES.
                    api::memcpy(h_ptr, d_ptr, COPY_BYTES, cudaMemcpyKind::DEVICE_TO_HOST)
                })
            }),
        },
    ];
    if let Some(p) = peer.as_mut() {
        benches.push(Bench {
            name: "peer_copy_pool_256MiB",
            unit: "GB/s",
            run: Box::new(|| {
                // As the C loop: five copies, then one synchronisation.
                let t = Instant::now();
                for _ in 0..5 {
                    p.dst.copy_from_device(&p.src, &stream)?;
                }
                stream.synchronize()?;
                Ok((COPY_BYTES * 5) as f64 / t.elapsed().as_secs_f64() / 1e9)
            }),
        });
    }
    // The typed copies of the safe layer borrow the buffers mutably: timed here, in the same
    // round-robin, after the others of each round.
    let mut safe_copies: [(&str, Vec<f64>); 2] = [
        ("memcpy_h2d_pinned_256MiB/safe", Vec::new()),
        ("memcpy_d2h_pinned_256MiB/safe", Vec::new()),
    ];
    // GPU_BENCH_ONLY=a,b runs only the benchmarks of these names (to time one call in a
    // process that makes no other).
    let only: Option<Vec<String>> = std::env::var("GPU_BENCH_ONLY")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let wanted = |name: &str| match &only {
        Some(o) => o.iter().any(|w| w == name),
        None => true,
    };
    benches.retain(|b| wanted(b.name));
    let safe_copies_wanted = safe_copies.iter().any(|(name, _)| wanted(name));
    let c = InProcessC::load()?;
    // Per benchmark with a C loop of the same name: that loop's figures, and the ratio of each
    // Rust figure to the C figure taken just before it.
    let mut c_results: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); benches.len()];
    let mut results: Vec<Vec<f64>> = vec![Vec::new(); benches.len()];
    for _ in 0..reps {
        for ((b, r), cr) in benches
            .iter_mut()
            .zip(results.iter_mut())
            .zip(c_results.iter_mut())
        {
            let before = c.as_ref().and_then(|c| c.run(b.name)).filter(|v| *v >= 0.0);
            let v = (b.run)()?;
            if let Some(cv) = before {
                cr.0.push(cv);
                // Bandwidth: higher is better, so the ratio is C's over Rust's.
                cr.1.push(if b.unit == "GB/s" { cv / v } else { v / cv });
            }
            r.push(v);
        }
        if !safe_copies_wanted {
            continue;
        }
        let v = bandwidth(5, COPY_BYTES, || {
            device_buf.copy_from_pinned_async(&host, &stream)?;
            stream.synchronize()
        })?;
        safe_copies[0].1.push(v);
        let v = bandwidth(5, COPY_BYTES, || {
            device_buf.copy_to_pinned_async(&mut host, &stream)?;
            stream.synchronize()
        })?;
        safe_copies[1].1.push(v);
    }
    for (b, r) in benches.iter().zip(results.iter_mut()) {
        println!("rust\t{}\t{:.1}\t{}", b.name, median(r), b.unit);
    }
    for (b, (cv, ratio)) in benches.iter().zip(c_results.iter_mut()) {
        if !cv.is_empty() {
            println!("c-inproc\t{}\t{:.1}\t{}", b.name, median(cv), b.unit);
            println!("ratio-inproc\t{}\t{:.3}\tx", b.name, median(ratio));
        }
    }
    for (name, r) in safe_copies.iter_mut().filter(|(_, r)| !r.is_empty()) {
        println!("rust\t{name}\t{:.2}\tGB/s", median(r));
    }
    Ok(())
}

/// Three graphs that each copy 4 bytes into a pinned buffer of their own, with a stream each;
/// the third one's buffer is viewed on the host while the others are launched.
struct PinnedGraphs {
    /// One per thread (a mutex only to hand each thread its own: executable graphs are not
    /// `Sync`; each is locked once per batch).
    lanes: Vec<std::sync::Mutex<(GraphExec, Stream)>>,
    _buffers: Vec<(DeviceBuffer<u32>, PinnedBuffer<u32>)>,
    viewed: PinnedBuffer<u32>,
    _third: GraphExec,
}

impl PinnedGraphs {
    fn new() -> Result<PinnedGraphs> {
        let mut lanes = Vec::new();
        let mut buffers = Vec::new();
        let mut make = |host: &mut PinnedBuffer<u32>| -> Result<(GraphExec, Stream)> {
            let stream = Stream::non_blocking()?;
            let dev = DeviceBuffer::<u32>::zeroed(1, &stream)?;
            let graph = Graph::new()?;
            graph.add_copy_to_pinned_node(&[], host, &dev)?;
            let exec = graph.instantiate()?;
            buffers.push(dev);
            Ok((exec, stream))
        };
        let mut hosts = vec![PinnedBuffer::<u32>::new(1)?, PinnedBuffer::<u32>::new(1)?];
        for h in &mut hosts {
            lanes.push(std::sync::Mutex::new(make(h)?));
        }
        let mut viewed = PinnedBuffer::<u32>::new(1)?;
        let (third, _) = make(&mut viewed)?;
        let buffers = buffers.into_iter().zip(hosts).collect();
        Ok(PinnedGraphs {
            lanes,
            _buffers: buffers,
            viewed,
            _third: third,
        })
    }

    /// Nanoseconds per launch of each of two threads launching `k` times at once (the mean
    /// of the two), while the third graph's buffer has a host view alive: through the safe
    /// layer, or (`safe` false) the typed `api::graph_launch` of the same executable graphs,
    /// the baseline of what the runtime itself lets two threads do at once.
    fn two_threads(&self, k: u32, safe: bool) -> Result<f64> {
        let view = self.viewed.as_slice()?;
        let times = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .lanes
                .iter()
                .map(|lane| {
                    scope.spawn(move || {
                        let lane = lane.lock().unwrap_or_else(|e| e.into_inner());
                        let (exec, s) = &*lane;
                        if safe {
                            per_call(k, || exec.launch(s), || s.synchronize())
                        } else {
                            // SAFETY: a live executable graph and stream; nothing it uses is
                            // freed or viewed meanwhile.
                            let launch = || unsafe { api::graph_launch(exec.as_raw(), s.as_raw()) };
                            per_call(k, launch, || s.synchronize())
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(Ok(f64::NAN)))
                .collect::<Result<Vec<f64>>>()
        })?;
        drop(view);
        Ok(times.iter().sum::<f64>() / times.len() as f64)
    }
}

/// Pool buffers of devices 0 and 1 for the peer copy, with peer access enabled both ways
/// through the safe layer only; `None` with fewer than two devices that reach each other.
struct Peer {
    src: DeviceBuffer<u8>,
    dst: DeviceBuffer<u8>,
}

impl Peer {
    fn setup(stream: &Stream) -> Result<Option<Peer>> {
        let devices = Device::all()?;
        let [d0, d1, ..] = devices[..] else {
            return Ok(None);
        };
        if !d0.can_access_peer(d1)? || !d1.can_access_peer(d0)? {
            return Ok(None);
        }
        d0.enable_peer_access(d1)?;
        d1.enable_peer_access(d0)?;
        let s1 = d1.stream(StreamFlags::NON_BLOCKING)?;
        let mut dst = DeviceBuffer::<u8>::zeroed(COPY_BYTES, &s1)?;
        let src = DeviceBuffer::<u8>::zeroed(COPY_BYTES, stream)?;
        s1.synchronize()?;
        // Warm up the path once.
        dst.copy_from_device(&src, stream)?;
        stream.synchronize()?;
        Ok(Some(Peer { src, dst }))
    }
}

/// The C baseline's loops built as a shared library (`nvcc -DGPU_BENCH_LIB -shared`, see
/// `bench/c/gpu_bench.cu`) and loaded from `GPU_BENCH_C_LIB`: each Rust benchmark of the same
/// name then runs right after the C loop, in this process, on the same runtime and context.
struct InProcessC {
    run: unsafe extern "C" fn(i32, i32) -> f64,
    /// `(name, which, d2h)` of each C loop.
    names: Vec<(String, i32, i32)>,
    _lib: libloading::Library,
}

impl InProcessC {
    fn load() -> Result<Option<InProcessC>> {
        let Some(path) = std::env::var_os("GPU_BENCH_C_LIB") else {
            return Ok(None);
        };
        let bad = |e: libloading::Error| {
            cudart13::Error::InvalidArgument(format!(
                "GPU_BENCH_C_LIB {}: {e}",
                path.to_string_lossy()
            ))
        };
        // SAFETY: the library is the C baseline built for this; its symbols have these types.
        unsafe {
            let lib = libloading::Library::new(&path).map_err(bad)?;
            let setup: unsafe extern "C" fn() = *lib.get(b"gpu_bench_c_setup\0").map_err(bad)?;
            let name: unsafe extern "C" fn(i32) -> *const std::ffi::c_char =
                *lib.get(b"gpu_bench_c_name\0").map_err(bad)?;
            let run = *lib.get(b"gpu_bench_c_run\0").map_err(bad)?;
            setup();
            let mut names = Vec::new();
            let mut which = 0;
            while let Some(n) = name(which).as_ref() {
                let n = std::ffi::CStr::from_ptr(n).to_string_lossy().into_owned();
                if n.starts_with("memcpy_h2d") {
                    names.push((n.replace("h2d", "d2h"), which, 1));
                }
                names.push((n, which, 0));
                which += 1;
            }
            Ok(Some(InProcessC {
                run,
                names,
                _lib: lib,
            }))
        }
    }

    /// The C loop of this name, run once (`None` when C has none).
    fn run(&self, name: &str) -> Option<f64> {
        let (_, which, d2h) = self.names.iter().find(|(n, _, _)| n == name)?;
        // SAFETY: `which` and `d2h` are values the library listed.
        Some(unsafe { (self.run)(*which, *d2h) })
    }
}

fn main() {
    if let Err(e) = cudart13::Library::get() {
        eprintln!("gpu-bench: no CUDA runtime: {e}");
        std::process::exit(2);
    }
    if let Err(e) = run() {
        eprintln!("gpu-bench: {e}");
        std::process::exit(1);
    }
}
