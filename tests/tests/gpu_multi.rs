//! The safe layer on two GPUs (issue 28's multi-GPU suite): work on device 1 while device 0
//! is current, events across devices, peer copies of stream-ordered memory, frees after
//! cross-stream and cross-device use, pinned copies on the other device's stream.
//!
//! Ignored off a machine with two GPUs; `scripts/gpu-run.sh` runs them there with
//! `--include-ignored` (on one GPU each test says so and passes). Under compute-sanitizer
//! (scripts/gpu-run.sh's sanitizer pass) a free that overtook a use would be an error.

use cudart13::sys::{EventFlags, StreamFlags};
use cudart13::{
    Device, DeviceBuffer, Error, Event, LaunchConfig, MemPool, Module, PinnedBuffer, Stream,
};

const NEEDS: &str = "needs two GPUs: run on the GPU machine with --include-ignored";

/// Devices 0 and 1 with device 0 current, or `None` (printed) with fewer than two.
fn two_devices() -> Option<(Device, Device)> {
    let n = Device::count().expect("device count");
    if n < 2 {
        println!("only {n} GPU: nothing to check");
        return None;
    }
    let (d0, d1) = (Device::get(0).unwrap(), Device::get(1).unwrap());
    d0.set_current().unwrap();
    Some((d0, d1))
}

use workspace_tests::kernels::ADD_ONE_PTX;

#[test]
#[ignore = "needs two GPUs: run on the GPU machine with --include-ignored"]
fn a_device1_buffer_is_used_and_dropped_while_device0_is_current() {
    let Some((d0, d1)) = two_devices() else {
        return;
    };
    let s1 = Stream::on_device(d1, StreamFlags::NON_BLOCKING).unwrap();
    assert_eq!(s1.device(), Some(d1));
    assert_eq!(
        Device::current().unwrap(),
        d0,
        "making a stream keeps the current device"
    );
    let data: Vec<u32> = (0..1 << 20).collect();
    let mut b = DeviceBuffer::from_slice(&data, &s1).expect("upload on device 1");
    assert_eq!(b.device(), d1);
    b.memset(0, &s1).expect("memset on device 1");
    assert!(
        b.to_vec().unwrap().iter().all(|v| *v == 0),
        "to_vec with device 0 current"
    );
    b.copy_from_host(&data).unwrap();
    let kernel = Module::from_ptx(ADD_ONE_PTX)
        .unwrap()
        .kernel("add_one")
        .unwrap();
    let n = data.len() as u32;
    // SAFETY: add_one(unsigned*, unsigned) over `n` elements of `b`.
    unsafe {
        kernel
            .launch(&s1, LaunchConfig::for_num_elems(n), (&b, &n))
            .expect("launch on device 1")
    };
    assert_eq!(b.to_vec().unwrap()[12345], 12346);
    drop(b); // freed on device 1's stream
    s1.synchronize().unwrap();
    assert_eq!(
        Device::current().unwrap(),
        d0,
        "every call restored device 0"
    );
    println!("{NEEDS}: checked");
}

#[test]
#[ignore = "needs two GPUs: run on the GPU machine with --include-ignored"]
fn events_belong_to_their_device() {
    let Some((d0, d1)) = two_devices() else {
        return;
    };
    let s0 = Stream::on_device(d0, StreamFlags::NON_BLOCKING).unwrap();
    let s1 = Stream::on_device(d1, StreamFlags::NON_BLOCKING).unwrap();
    let on1 = s1
        .record_event()
        .expect("an event made on the stream's device");
    assert_eq!(on1.device(), Some(d1));
    s0.wait_event(&on1)
        .expect("a stream of device 0 waits on device 1's event");
    let on0 = Event::new().unwrap();
    match on0.record(&s1) {
        Err(Error::InvalidArgument(why)) => assert!(why.contains("device 0"), "{why}"),
        other => panic!("recording device 0's event on device 1's stream: {other:?}"),
    }
    let on1b = Event::on_device(d1, EventFlags::DISABLE_TIMING).unwrap();
    on1b.record(&s1).expect("same device");
    on1b.synchronize().unwrap();
    s0.synchronize().unwrap();
}

#[test]
#[ignore = "needs two GPUs: run on the GPU machine with --include-ignored"]
fn peer_copies_of_pool_memory_and_frees_after_cross_device_use() {
    let Some((d0, d1)) = two_devices() else {
        return;
    };
    if !d0.can_access_peer(d1).unwrap() {
        println!("no peer access between devices 0 and 1: nothing to check");
        return;
    }
    MemPool::device_default(d0)
        .unwrap()
        .set_access(d1, true)
        .expect("pool access for device 1");
    MemPool::device_default(d1)
        .unwrap()
        .set_access(d0, true)
        .expect("pool access for device 0");
    let s0 = Stream::on_device(d0, StreamFlags::NON_BLOCKING).unwrap();
    let s1 = Stream::on_device(d1, StreamFlags::NON_BLOCKING).unwrap();
    let data: Vec<u32> = (0..16 << 20).map(|i| i ^ 0x5a5a).collect();
    for round in 0..8 {
        let src = DeviceBuffer::from_slice(&data, &s0).unwrap();
        let mut dst = DeviceBuffer::<u32>::new(data.len(), &s1).unwrap();
        // Read on device 1's stream, then dropped at once: its free on s0 must wait.
        dst.copy_from_device(&src, &s1).expect("peer copy");
        drop(src);
        // Reuse device 0's pool right away: a free that overtook the copy would hand the
        // same memory out while the copy still reads it.
        let mut scribble = DeviceBuffer::<u32>::new(data.len(), &s0).unwrap();
        scribble.memset(0xff, &s0).unwrap();
        assert_eq!(dst.to_vec().unwrap(), data, "round {round}");
        drop((dst, scribble));
    }
    s0.synchronize().unwrap();
    s1.synchronize().unwrap();
}

#[test]
#[ignore = "needs two GPUs: run on the GPU machine with --include-ignored"]
fn pinned_copies_on_the_other_devices_stream_are_waited_for() {
    let Some((_d0, d1)) = two_devices() else {
        return;
    };
    let s1 = Stream::on_device(d1, StreamFlags::NON_BLOCKING).unwrap();
    let data: Vec<f32> = (0..8 << 20).map(|i| i as f32).collect();
    let d = DeviceBuffer::from_slice(&data, &s1).unwrap();
    let mut host = PinnedBuffer::<f32>::new(data.len()).unwrap();
    for _ in 0..4 {
        d.copy_to_pinned_async(&mut host, &s1)
            .expect("copy on device 1's stream");
        // No synchronisation: the view waits on an event made on device 1.
        assert_eq!(&*host.as_slice().unwrap(), &data[..]);
        host.as_mut_slice().unwrap().fill(-1.0);
    }
    d.copy_to_pinned_async(&mut host, &s1).unwrap();
    drop(host); // waits for the copy before freeing
    s1.synchronize().unwrap();
}

#[test]
#[ignore = "needs two GPUs: run on the GPU machine with --include-ignored"]
fn buffers_on_the_legacy_stream_follow_their_device() {
    let Some((d0, d1)) = two_devices() else {
        return;
    };
    d1.set_current().unwrap();
    let legacy = Stream::legacy();
    let b = DeviceBuffer::from_slice(&[7u32; 4096], &legacy).unwrap();
    assert_eq!(b.device(), d1);
    d0.set_current().unwrap();
    assert_eq!(
        b.to_vec().unwrap(),
        vec![7u32; 4096],
        "read on device 1's legacy stream"
    );
    drop(b); // freed on device 1's legacy stream although device 0 is current
    let per_thread = Stream::per_thread();
    let moved = DeviceBuffer::from_slice(&[9u32; 4096], &per_thread).unwrap();
    std::thread::spawn(move || {
        assert_eq!(moved.to_vec().unwrap(), vec![9u32; 4096]);
        drop(moved); // another thread's per-thread stream: ordered by events
    })
    .join()
    .unwrap();
    Device::synchronize(d0).unwrap();
    Device::synchronize(d1).unwrap();
}

#[test]
#[ignore = "needs two GPUs: run on the GPU machine with --include-ignored"]
fn enabling_peer_access_covers_stream_ordered_buffers() {
    let Some((d0, d1)) = two_devices() else {
        return;
    };
    assert_eq!(
        Device::all().unwrap(),
        (0..Device::count().unwrap())
            .map(Device::from_ordinal)
            .collect::<Vec<_>>()
    );
    if !d0.can_access_peer(d1).unwrap() {
        println!("no peer access between devices 0 and 1: nothing to check");
        return;
    }
    // Nothing but `enable_peer_access`: no `MemPool::set_access` by hand (issue 32).
    d0.enable_peer_access(d1).unwrap();
    d1.enable_peer_access(d0).unwrap();
    assert!(MemPool::device_default(d1).unwrap().access(d0).unwrap());
    assert!(MemPool::device_default(d0).unwrap().access(d1).unwrap());
    let (s0, s1) = (
        d0.stream(StreamFlags::NON_BLOCKING).unwrap(),
        d1.stream(StreamFlags::NON_BLOCKING).unwrap(),
    );
    assert_eq!(Device::current().unwrap(), d0);
    let data: Vec<u32> = (0..64 << 20).map(|i: u32| i.rotate_left(7)).collect();
    let on1 = DeviceBuffer::from_slice(&data, &s1).unwrap();
    let mut on0 = DeviceBuffer::<u32>::new(data.len(), &s0).unwrap();
    // Timed against the same copy through the host (what 34 GB/s looked like in issue 32).
    let (start, end) = (
        Event::on_device(d0, EventFlags::DEFAULT).unwrap(),
        Event::on_device(d0, EventFlags::DEFAULT).unwrap(),
    );
    start.record(&s0).unwrap();
    for _ in 0..10 {
        on0.copy_from_device(&on1, &s0)
            .expect("a peer copy with nothing but peer access");
    }
    end.record(&s0).unwrap();
    end.synchronize().unwrap();
    let gbps =
        (data.len() * 4 * 10) as f64 / (f64::from(end.elapsed_since(&start).unwrap()) / 1e3) / 1e9;
    println!("device 1 -> 0, pool buffers: {gbps:.1} GB/s");
    assert_eq!(on0.to_vec().unwrap(), data);
    // A kernel on device 0 writes device 1's buffer directly.
    let kernel = Module::from_ptx(ADD_ONE_PTX)
        .unwrap()
        .kernel("add_one")
        .unwrap();
    let n = data.len() as u32;
    // SAFETY: add_one(unsigned*, unsigned) over `n` elements of a buffer device 0 may access.
    unsafe {
        kernel
            .launch(&s0, LaunchConfig::for_num_elems(n), (&on1, &n))
            .unwrap()
    };
    s0.synchronize().unwrap();
    assert_eq!(on1.to_vec().unwrap()[12345], data[12345].wrapping_add(1));
    // Created pools are not changed: `set_access` gives them access.
    let own = MemPool::new(d1).unwrap();
    assert!(!own.access(d0).unwrap());
    own.set_access(d0, true).unwrap();
    assert!(own.access(d0).unwrap());
    // Devices' graph memory pools report separately.
    assert!(d1.graph_mem_stats().is_ok());
}

/// Set in the child process of [`ipc_handles_of_device1_in_a_process_that_never_used_device0`].
const FRESH_CHILD: &str = "CUDART_TEST_FRESH_PROCESS";

/// CUDA IPC handles of device 1's memory and event, taken in a process whose current device
/// (0) was never used: the 13.0 runtime with driver 580 crashed in `cudaIpcGet*Handle` until
/// the crate made the owner's device current for the call. Run in a child process, so that
/// no other test has touched device 0 before.
#[test]
#[ignore = "needs two GPUs: run on the GPU machine with --include-ignored"]
fn ipc_handles_of_device1_in_a_process_that_never_used_device0() {
    if std::env::var_os(FRESH_CHILD).is_some() {
        let d1 = Device::get(1).unwrap();
        let stream = d1.stream(StreamFlags::NON_BLOCKING).unwrap();
        let shared = DeviceBuffer::from_slice_shareable(&[5u32; 1024], &stream).unwrap();
        let event = Event::interprocess(d1).unwrap();
        event.record(&stream).unwrap();
        let (memory, recorded) = (shared.ipc_handle().unwrap(), event.ipc_handle().unwrap());
        assert_eq!(memory.size_bytes(), 4096);
        assert_ne!(recorded.to_bytes(), [0u8; 64]);
        assert_eq!(
            Device::current().unwrap().ordinal(),
            0,
            "the current device is restored"
        );
        println!("fresh process: handles of device 1 taken");
        return;
    }
    if two_devices().is_none() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "ipc_handles_of_device1_in_a_process_that_never_used_device0",
            "--exact",
            "--include-ignored",
            "--nocapture",
        ])
        .env(FRESH_CHILD, "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child failed ({}): {text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("fresh process: handles of device 1 taken"),
        "{text}"
    );
}
