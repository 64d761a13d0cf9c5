//! Query the device; launch a vector-add kernel from PTX on a non-default stream, timed
//! with events; allocate stream-ordered; capture upload + kernel + download into a graph
//! and replay it 10 times; show the error for an invalid device. Nothing is freed by hand.
use cudart13::{CaptureMode, Device, DeviceBuffer, Event, LaunchConfig, Module, PinnedBuffer};
use cudart13::{Result, Stream};

/// `vadd(const float* a, const float* b, float* c, unsigned n)`: `c[i] = a[i] + b[i]`.
const PTX: &str = r"
.version 7.0
.target sm_70
.address_size 64
.visible .entry vadd(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u32 pn)
{
    .reg .pred %p1;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pc];
    ld.param.u32 %r1, [pn];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd4, %r5, 4;
    cvta.to.global.u64 %rd5, %rd1;
    cvta.to.global.u64 %rd6, %rd2;
    cvta.to.global.u64 %rd7, %rd3;
    add.s64 %rd8, %rd5, %rd4;
    add.s64 %rd9, %rd6, %rd4;
    add.s64 %rd10, %rd7, %rd4;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
";

const N: usize = 1 << 20;

fn check(what: &str, got: &[f32], expected: impl Fn(usize) -> f32) {
    match (0..N).find(|&i| got[i] != expected(i)) {
        None => println!("checked {what}: {N} sums correct"),
        Some(i) => {
            eprintln!("{what}: c[{i}] = {} but expected {}", got[i], expected(i));
            std::process::exit(1);
        }
    }
}

fn main() -> Result<()> {
    let device = Device::get(0)?;
    let props = device.properties()?;
    let ((major, minor), sms) = (props.compute_capability(), props.multi_processor_count);
    println!("device 0: {} (sm_{major}{minor}, {sms} SMs)", props.name);
    device.set_current()?;

    let kernel = Module::from_ptx(PTX)?.kernel("vadd")?;
    let stream = Stream::non_blocking()?;
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..N).map(|i| (2 * i) as f32).collect();

    // Stream-ordered allocations (cudaMallocAsync), freed on the stream when dropped.
    let mut d_a = DeviceBuffer::from_slice(&a, &stream)?;
    let mut d_b = DeviceBuffer::from_slice(&b, &stream)?;
    let d_c = DeviceBuffer::<f32>::zeroed(N, &stream)?;
    let (n, config) = (N as u32, LaunchConfig::for_num_elems(N as u32));

    let (start, end) = (Event::new()?, Event::new()?);
    start.record(&stream)?;
    // SAFETY: vadd takes (const float*, const float*, float*, unsigned); each buffer holds n.
    unsafe { kernel.launch(&stream, config, (&d_a, &d_b, &d_c, &n))? };
    end.record(&stream)?;
    let c = d_c.to_vec()?;
    let ms = end.elapsed_since(&start)?;
    println!("kernel on a non-blocking stream: {ms:.3} ms");
    check("the launch", &c, |i| a[i] + b[i]);

    // Upload + kernel + download captured into a graph; pinned host buffers make the
    // asynchronous copies safe (the host waits for them before touching the buffers).
    let mut h_a = PinnedBuffer::from_slice(&a)?;
    let h_b = PinnedBuffer::from_slice(&b)?;
    let mut h_c = PinnedBuffer::<f32>::new(N)?;
    let graph = stream.capture(CaptureMode::GLOBAL, |s| {
        d_a.copy_from_pinned_async(&h_a, s)?;
        d_b.copy_from_pinned_async(&h_b, s)?;
        // SAFETY: as above.
        unsafe { kernel.launch(s, config, (&d_a, &d_b, &d_c, &n))? };
        d_c.copy_to_pinned_async(&mut h_c, s)
    })?;
    let exec = graph.instantiate()?;
    start.record(&stream)?;
    for round in 1..=10 {
        // Writing the input waits for the previous replay's upload.
        for (x, v) in h_a.as_mut_slice()?.iter_mut().zip(&a) {
            *x = v * round as f32;
        }
        exec.launch(&stream)?;
    }
    end.record(&stream)?;
    end.synchronize()?;
    check("10 graph replays", &h_c.as_slice()?, |i| a[i] * 10.0 + b[i]);
    let ms = end.elapsed_since(&start)?;
    println!("10 replays with host updates: {ms:.3} ms");

    // The error for a device that does not exist, from CUDA itself.
    match Device::from_ordinal(Device::count()?).set_current() {
        Err(e) if e.cuda_code() == Some(101) => println!("invalid device: {e}"),
        other => {
            eprintln!("expected cudaErrorInvalidDevice, got {other:?}");
            std::process::exit(1);
        }
    }
    Ok(())
}
