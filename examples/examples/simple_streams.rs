//! CUDA's simpleStreams, with no `unsafe` but the kernel launch: one pinned host buffer cut
//! into chunks, one stream per chunk, each stream uploading its chunk, running a kernel on
//! it and downloading it back into the same chunk, so that copies of one chunk overlap the
//! kernels and copies of the others. Timed against the same work on one stream; the block
//! size comes from the kernel's occupancy. Checks every element.
use cudart13::{Device, DeviceBuffer, Event, Module, PinnedBuffer, Result, Stream, StreamFlags};

/// `scale(unsigned* data, unsigned n, unsigned factor)`: `data[i] = data[i] * factor + i`, a
/// few dozen times over, so that a kernel lasts about as long as its chunk's copies.
const PTX: &str = r"
.version 7.0
.target sm_70
.address_size 64
.visible .entry scale(.param .u64 pdata, .param .u32 pn, .param .u32 pfactor)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [pdata];
    ld.param.u32 %r1, [pn];
    ld.param.u32 %r2, [pfactor];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r6, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r6, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r7, [%rd4];
    mov.u32 %r9, 0;
LOOP:
    mad.lo.s32 %r7, %r7, %r2, %r6;
    add.s32 %r9, %r9, 1;
    setp.lt.u32 %p2, %r9, 32;
    @%p2 bra LOOP;
    st.global.u32 [%rd4], %r7;
DONE:
    ret;
}
";

/// Elements in all (64 Mi `u32`, 256 MiB) and streams (chunks).
const N: usize = 64 << 20;
const STREAMS: usize = 4;
const FACTOR: u32 = 3;

/// What the kernel leaves in element `i` that held `v`.
fn expected(v: u32, i: u32) -> u32 {
    (0..32).fold(v, |x, _| x.wrapping_mul(FACTOR).wrapping_add(i))
}

fn fail(what: &str) -> ! {
    eprintln!("FAILED: {what}");
    std::process::exit(1);
}

fn main() -> Result<()> {
    let device = Device::get(0)?;
    device.set_current()?;
    let props = device.properties()?;
    println!(
        "{}: {} copy engine(s), concurrent kernels: {}",
        props.name, props.async_engine_count, props.concurrent_kernels
    );
    let kernel = Module::from_ptx(PTX)?.kernel("scale")?;
    let streams: Vec<Stream> = (0..STREAMS)
        .map(|_| device.stream(StreamFlags::NON_BLOCKING))
        .collect::<Result<_>>()?;
    let chunk = N / STREAMS;
    let config = kernel.suggested_config(chunk as u32, 0)?;
    println!(
        "kernel: blocks of {} threads (best occupancy), {} blocks a chunk",
        config.block.x, config.grid.x
    );

    // One pinned buffer, filled by the host without zeroing it first.
    let mut host = PinnedBuffer::<u32>::new_uninit(N)?;
    for (i, v) in host.as_mut_slice()?.iter_mut().enumerate() {
        *v = i as u32;
    }
    let mut dev = DeviceBuffer::<u32>::new(N, &streams[0])?;
    streams[0].synchronize()?;

    // The whole buffer on one stream: upload, kernel, download.
    let one = &streams[0];
    let (start, end) = (Event::new()?, Event::new()?);
    start.record(one)?;
    dev.copy_from_pinned_async(&host, one)?;
    let n = N as u32;
    let whole = kernel.suggested_config(n, 0)?;
    // SAFETY: scale(unsigned*, unsigned, unsigned) reads and writes `n` elements of `dev`.
    unsafe { kernel.launch(one, whole, (&dev, &n, &FACTOR))? };
    dev.copy_to_pinned_async(&mut host, one)?;
    end.record(one)?;
    end.synchronize()?;
    let serial_ms = end.elapsed_since(&start)?;
    let first: Vec<u32> = host.as_slice()?.to_vec();
    for (i, v) in first.iter().enumerate().step_by(4099) {
        if *v != expected(i as u32, i as u32) {
            fail(&format!("one stream: element {i} is {v}"));
        }
    }

    // The same work in chunks, one stream each: every chunk's upload, kernel and download
    // are ordered on its stream, and the chunks overlap one another.
    let chunk_n = chunk as u32;
    start.record(&streams[0])?;
    for s in &streams[1..] {
        s.wait_event(&start)?;
    }
    let parts = dev.chunks_mut(chunk)?.zip(host.chunks_mut(chunk)?);
    for ((mut d, mut h), s) in parts.zip(&streams) {
        d.copy_from_pinned_async(&h, s)?;
        // SAFETY: as above, over the `chunk_n` elements of this chunk.
        unsafe { kernel.launch(s, config, (&d, &chunk_n, &FACTOR))? };
        d.copy_to_pinned_async(&mut h, s)?;
    }
    for s in &streams[1..] {
        let done = s.record_event()?;
        streams[0].wait_event(&done)?;
    }
    end.record(&streams[0])?;
    end.synchronize()?;
    let streamed_ms = end.elapsed_since(&start)?;

    // The host view waits for every chunk's download.
    let view = host.as_slice()?;
    for (i, v) in view.iter().enumerate() {
        // Each chunk's kernel numbers its elements from 0.
        let local = (i % chunk) as u32;
        if *v != expected(first[i], local) {
            fail(&format!("{STREAMS} streams: element {i} is {v}"));
        }
    }
    println!(
        "checked {N} elements: one stream {serial_ms:.2} ms, {STREAMS} streams {streamed_ms:.2} ms \
         ({:.2}x)",
        serial_ms / streamed_ms
    );
    Ok(())
}
