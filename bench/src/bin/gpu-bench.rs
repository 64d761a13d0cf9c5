//! Call overhead and bandwidth on a GPU, through `cudart13`'s typed `api`, its safe layer and
//! cudarc's raw `sys`, in the same measurements as the C baseline (`bench/c/gpu_bench.cu`);
//! `scripts/gpu-bench.sh` runs both in turn on the GPU machine.
//!
//! Each benchmark times a batch of calls (then one synchronisation, where the work is queued)
//! and reports nanoseconds per call (`ns`) or bandwidth (`GB/s`); the benchmarks are run
//! round-robin `GPU_BENCH_REPS` times (default 7) and each prints its median, one line per
//! benchmark: `rust<TAB>name<TAB>value<TAB>unit`. The names match the C baseline's.
//!
//! Without a CUDA runtime (or a GPU) it says so on standard error and exits with status 2.
use std::ffi::c_void;
use std::hint::black_box;
use std::time::Instant;

use cudart13::sys::{self, cudaMemcpyKind, dim3};
use cudart13::{api, CaptureMode, DeviceBuffer, Event, Module, PinnedBuffer, Result, Stream};

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
    let h_ptr = host.as_ptr() as *mut c_void;
    // Warm up every path once (library load, symbol lookup, lazy module loading).
    api::get_device()?;
    // SAFETY: as in the benchmarks below.
    unsafe { api::launch_kernel(func, one, one, &mut [], 0, raw_stream)? };
    exec.launch(&stream)?;
    stream.synchronize()?;

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
    // The typed copies of the safe layer borrow the buffers mutably: timed here, in the same
    // round-robin, after the others of each round.
    let mut safe_copies: [(&str, Vec<f64>); 2] = [
        ("memcpy_h2d_pinned_256MiB/safe", Vec::new()),
        ("memcpy_d2h_pinned_256MiB/safe", Vec::new()),
    ];
    let mut results: Vec<Vec<f64>> = vec![Vec::new(); benches.len()];
    for _ in 0..reps {
        for (b, r) in benches.iter_mut().zip(results.iter_mut()) {
            r.push((b.run)()?);
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
    for (name, r) in safe_copies.iter_mut() {
        println!("rust\t{name}\t{:.2}\tGB/s", median(r));
    }
    Ok(())
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
