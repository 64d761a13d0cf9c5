//! Streams and events: work on two streams with different priorities, timed with events;
//! one stream waiting on another's event; host callbacks running Rust closures; the
//! per-thread default stream. Checks the data, the timings and that every callback ran.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use cudart13::sys::{EventFlags, StreamFlags};
use cudart13::{Device, DeviceBuffer, Event, Result, Stream};

const N: usize = 64 << 20; // 64 Mi u32 = 256 MiB per buffer

fn fail(what: &str) -> ! {
    eprintln!("FAILED: {what}");
    std::process::exit(1);
}

fn main() -> Result<()> {
    let device = Device::get(0)?;
    device.set_current()?;
    let (least, greatest) = device.stream_priority_range()?;
    let high = Stream::with_priority(StreamFlags::NON_BLOCKING, greatest)?;
    let low = Stream::with_priority(StreamFlags::NON_BLOCKING, least)?;
    println!(
        "streams: priority {} and {}",
        high.priority()?,
        low.priority()?
    );
    if high.priority()? != greatest || low.priority()? != least {
        fail("priorities read back");
    }
    if !high.flags()?.contains(StreamFlags::NON_BLOCKING) {
        fail("flags read back");
    }

    // Fill one buffer on `low`, copy it on `high` after `low`'s event.
    let mut a = DeviceBuffer::<u32>::new(N, &low)?;
    let mut b = DeviceBuffer::<u32>::new(N, &high)?;
    let (start, filled, copied) = (Event::new()?, Event::new()?, Event::new()?);
    start.record(&low)?;
    for byte in 1..=8u8 {
        a.memset(byte, &low)?;
    }
    filled.record(&low)?;
    high.wait_event(&filled)?;
    b.copy_from_device(&a, &high)?;
    copied.record(&high)?;

    // Host callbacks: one after the copy, one with the stream's status.
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = ran.clone();
    high.launch_host_func(move || {
        counter.fetch_add(1, Ordering::SeqCst);
    })?;
    let (tx, rx) = mpsc::channel();
    high.add_callback(move |status| {
        let _ = tx.send(status.is_ok());
    })?;
    let idle_before = high.query()?;
    high.synchronize()?;
    if !high.query()? {
        fail("a synchronised stream is idle");
    }
    println!("stream idle right after enqueueing: {idle_before}; after synchronize: true");

    let fill_ms = filled.elapsed_since(&start)?;
    let copy_ms = Event::elapsed_time(&filled, &copied)?;
    let gib = (N * 4) as f32 / (1u64 << 30) as f32;
    println!("8 memsets of {gib:.2} GiB: {fill_ms:.3} ms; device copy: {copy_ms:.3} ms");
    if !(fill_ms > 0.0 && copy_ms > 0.0) {
        fail("elapsed times are positive");
    }
    let gbps = 2.0 * (N * 4) as f64 / (f64::from(copy_ms) / 1000.0) / 1e9;
    println!("device copy bandwidth (read + write): {gbps:.1} GB/s");
    if ran.load(Ordering::SeqCst) != 1 || rx.recv().ok() != Some(true) {
        fail("both host callbacks ran once, with a success status");
    }
    let back = b.slice(N - 4..)?.to_vec()?;
    if back != vec![0x0808_0808; 4] {
        fail("the copy saw the last memset (the event ordered the streams)");
    }

    // The per-thread default stream and a timing-disabled event.
    let per_thread = Stream::per_thread();
    let marker = Event::with_flags(EventFlags::DISABLE_TIMING)?;
    a.fill_zero(&per_thread)?;
    marker.record(&per_thread)?;
    marker.synchronize()?;
    if !marker.query()? || Event::elapsed_time(&start, &marker).is_ok() {
        fail("a DISABLE_TIMING event completes but has no timing");
    }
    println!("stream_timing: all checks passed");
    Ok(())
}
