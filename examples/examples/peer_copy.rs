//! Two GPUs: streams and buffers made on each device without changing the current one, peer
//! access enabled once (it covers the stream-ordered buffers of each device's pool), copies
//! between the devices' buffers at NVLink or PCIe speed, and a kernel on device 1 that reads
//! a buffer of device 0 directly. Checks the data; prints the bandwidth of each direction.
//! With fewer than two devices it says so and succeeds.
use cudart13::{
    Device, DeviceBuffer, Event, EventFlags, LaunchConfig, Module, Result, StreamFlags,
};

/// `add(unsigned* dst, const unsigned* src, unsigned n)`: `dst[i] += src[i]`.
const PTX: &str = r"
.version 7.0
.target sm_70
.address_size 64
.visible .entry add(.param .u64 pdst, .param .u64 psrc, .param .u32 pn)
{
    .reg .pred %p1;
    .reg .b32 %r<9>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [pdst];
    ld.param.u64 %rd2, [psrc];
    ld.param.u32 %r1, [pn];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.u32 %r6, [%rd6];
    ld.global.u32 %r7, [%rd7];
    add.s32 %r8, %r6, %r7;
    st.global.u32 [%rd6], %r8;
DONE:
    ret;
}
";

/// Elements per buffer: 64 Mi `u32`, 256 MiB.
const N: usize = 64 << 20;
const REPS: u32 = 10;

fn fail(what: &str) -> ! {
    eprintln!("FAILED: {what}");
    std::process::exit(1);
}

fn main() -> Result<()> {
    let devices = Device::all()?;
    let [d0, d1, ..] = devices[..] else {
        println!(
            "{} device(s): this example needs two; nothing to check",
            devices.len()
        );
        return Ok(());
    };
    if !d0.can_access_peer(d1)? || !d1.can_access_peer(d0)? {
        println!("devices 0 and 1 cannot access each other: nothing to check");
        return Ok(());
    }
    // Both directions; each also gives access to the other device's memory pools, which
    // every `DeviceBuffer` comes from.
    d0.enable_peer_access(d1)?;
    d1.enable_peer_access(d0)?;
    let (s0, s1) = (
        d0.stream(StreamFlags::NON_BLOCKING)?,
        d1.stream(StreamFlags::NON_BLOCKING)?,
    );
    let data: Vec<u32> = (0..N as u32).collect();
    let on0 = DeviceBuffer::from_slice(&data, &s0)?;
    let mut on1 = DeviceBuffer::<u32>::zeroed(N, &s1)?;
    s1.synchronize()?;
    if on0.device() != d0 || on1.device() != d1 || Device::current()? != d0 {
        fail("buffers live on their streams' devices, and device 0 stays current");
    }

    // Device 0 → device 1 on device 0's stream, timed with events of device 0.
    let (start, end) = (
        Event::on_device(d0, EventFlags::DEFAULT)?,
        Event::on_device(d0, EventFlags::DEFAULT)?,
    );
    start.record(&s0)?;
    for _ in 0..REPS {
        on1.copy_from_device(&on0, &s0)?;
    }
    end.record(&s0)?;
    end.synchronize()?;
    let gbps = |ms: f32| (N * 4) as f64 * f64::from(REPS) / (f64::from(ms) / 1e3) / 1e9;
    let there = gbps(end.elapsed_since(&start)?);
    if on1.to_vec()? != data {
        fail("device 1 holds device 0's data");
    }

    // Device 1 → device 0 on device 1's stream.
    let mut back = DeviceBuffer::<u32>::zeroed(N, &s0)?;
    s0.synchronize()?;
    let (start1, end1) = (
        s1.record_event()?,
        Event::on_device(d1, EventFlags::DEFAULT)?,
    );
    for _ in 0..REPS {
        back.copy_from_device(&on1, &s1)?;
    }
    end1.record(&s1)?;
    end1.synchronize()?;
    let back_gbps = gbps(end1.elapsed_since(&start1)?);
    if back.to_vec()? != data {
        fail("device 0 got device 1's copy back");
    }

    // A kernel on device 1 reads device 0's buffer directly: on1[i] += on0[i].
    let add = Module::from_ptx(PTX)?.kernel("add")?;
    let n = N as u32;
    // SAFETY: add(unsigned*, const unsigned*, unsigned) over `n` elements of both buffers,
    // which device 1 may access (peer access to device 0's pool).
    unsafe { add.launch(&s1, LaunchConfig::for_num_elems(n), (&on1, &on0, &n))? };
    let sums = on1.to_vec()?;
    if let Some(i) = (0..N).find(|&i| sums[i] != data[i].wrapping_mul(2)) {
        fail(&format!("on1[{i}] = {} after the peer read", sums[i]));
    }
    println!(
        "checked {N} elements both ways and a kernel's peer reads: \
         device 0 -> 1 {there:.1} GB/s, 1 -> 0 {back_gbps:.1} GB/s"
    );
    Ok(())
}
