//! The safe layer against the CUDA emulator (`tests/emulator/`, a stand-in `libcudart` whose
//! streams run on worker threads with delays and which logs hazards), each test in a child
//! process under AddressSanitizer (see `workspace_tests::emulator`).
//!
//! Smoke tests check the emulator itself through the crate. The class tests are programs
//! without `unsafe` (but where said) that reached the hazards of issue 28's table, and of the
//! same classes by other roads, on the safe layer before its safety model; each asserts that
//! its child ends clean (exit 0, no signal, no hazard). `tests/emulator/README.md` lists how
//! each failed before the fix.

use std::error::Error;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cudart13::graph::CaptureMode;
use cudart13::{
    sys, Device, DeviceBuffer, Event, Graph, Launch, LaunchConfig, Module, PinnedBuffer, Stream,
};
use workspace_tests::emulator::{self, Emulator, FaultMode, Outcome};

type TestResult = Result<(), Box<dyn Error>>;

/// How long a child may run (it is killed after this; ten times as long under valgrind).
const LIMIT: Duration = Duration::from_secs(60);

/// `cudaErrorUnknown`, the code injected faults return.
const UNKNOWN: i32 = 999;

/// Runs `body` in a child against the emulator; the parent gets the outcome.
fn child(name: &str, body: impl FnOnce(&Emulator) -> TestResult) -> Option<Outcome> {
    emulator::run(name, LIMIT, body)
}

/// Delays long enough that a host step right after a call always comes before the queued
/// work (20 ms a step, 200 ms under valgrind; the emulator sleeps this before each
/// operation).
fn slow(emu: &Emulator) -> TestResult {
    Ok(emu.configure("delay_us", 20_000 * i64::from(emulator::time_scale()))?)
}

/// A test whose child must end clean.
macro_rules! emulated {
    ($(#[doc = $doc:literal])* fn $name:ident($emu:ident) $body:block) => {
        $(#[doc = $doc])*
        #[test]
        fn $name() {
            // The test's path as the harness names it (the crate's name left out), for the
            // child to run it alone.
            let path = concat!(module_path!(), "::", stringify!($name));
            let name = path.split_once("::").map_or(path, |(_, rest)| rest);
            if let Some(outcome) = child(name, |$emu: &Emulator| -> TestResult { $body }) {
                outcome.assert_clean();
            }
        }
    };
}

/// A class test of issue 28 (see [`emulated`]).
macro_rules! class_test {
    ($($test:tt)*) => {
        emulated!($($test)*);
    };
}

// ---- smoke tests of the emulator itself ----

emulated! {
    /// Two devices, with the properties, attributes and versions the crate reads.
    fn smoke_devices_and_versions(_emu) {
        assert_eq!(Device::count()?, 2);
        assert_eq!(cudart13::device::runtime_version()?, 13020);
        assert_eq!(cudart13::device::driver_version()?, 13020);
        let d1 = Device::get(1)?;
        let props = d1.properties()?;
        assert_eq!(props.name, "CUDA emulator device 1");
        assert_eq!(props.compute_capability(), (9, 0));
        assert!(props.concurrent_managed_access);
        assert_eq!(d1.pci_bus_id()?, "0000:01:00.0");
        assert_eq!(Device::by_pci_bus_id("0000:01:00.0")?.ordinal(), 1);
        assert!(Device::get(0)?.can_access_peer(d1)?);
        assert!(Device::get(2).is_err());
        d1.set_current()?;
        assert_eq!(Device::current()?.ordinal(), 1);
        Ok(())
    }
}

emulated! {
    /// Work is asynchronous (the stream is busy right after the call) and runs in stream
    /// order: a memset, then a copy of it, give the memset's bytes.
    fn smoke_stream_order_with_delays(emu) {
        slow(emu)?;
        let s = Stream::non_blocking()?;
        let mut a = DeviceBuffer::<u8>::new(4096, &s)?;
        let mut b = DeviceBuffer::<u8>::new(4096, &s)?;
        a.memset(0x5a, &s)?;
        b.copy_from_device(&a, &s)?;
        assert!(!s.query()?, "the memset is still queued");
        assert_eq!(b.to_vec()?, vec![0x5a; 4096]);
        assert!(s.query()?);
        Ok(())
    }
}

emulated! {
    /// A blocking stream's work is ordered before later work of the legacy stream; a
    /// non-blocking stream's is not (the legacy copy then sees the old bytes, as the memset
    /// waits behind a long host function).
    fn smoke_legacy_stream_implicit_order(emu) {
        slow(emu)?;
        let legacy = Stream::legacy();
        let pause = Duration::from_millis(200) * emulator::time_scale();
        for (blocking, expected) in [(true, 7u8), (false, 0u8)] {
            let s = if blocking { Stream::new()? } else { Stream::non_blocking()? };
            let mut src = DeviceBuffer::<u8>::zeroed(64, &legacy)?;
            legacy.synchronize()?;
            s.launch_host_func(move || std::thread::sleep(pause))?;
            src.memset(7, &s)?;
            let mut dst = DeviceBuffer::<u8>::new(64, &legacy)?;
            dst.copy_from_device(&src, &legacy)?;
            assert_eq!(dst.to_vec()?, vec![expected; 64], "blocking: {blocking}");
            s.synchronize()?;
        }
        Ok(())
    }
}

emulated! {
    /// An event orders a copy on one stream after a memset on another; elapsed time is
    /// measured; an event never recorded is complete.
    fn smoke_events_order_streams(emu) {
        slow(emu)?;
        let (a, b) = (Stream::non_blocking()?, Stream::non_blocking()?);
        let mut src = DeviceBuffer::<u32>::new(256, &a)?;
        let mut dst = DeviceBuffer::<u32>::zeroed(256, &b)?;
        b.synchronize()?;
        let start = a.record_event()?;
        src.memset(0x11, &a)?;
        let done = a.record_event()?;
        assert!(!done.query()?);
        b.wait_event(&done)?;
        dst.copy_from_device(&src, &b)?;
        assert_eq!(dst.to_vec()?, vec![0x1111_1111; 256]);
        assert!(done.query()?);
        let ms = done.elapsed_since(&start)?;
        assert!((15.0..20_000.0).contains(&ms), "{ms} ms");
        assert!(Event::new()?.query()?);
        Ok(())
    }
}

emulated! {
    /// A captured graph (a memset, a device copy and a copy into pinned memory) replayed
    /// twice writes its results each time.
    fn smoke_capture_replayed_twice(_emu) {
        let s = Stream::non_blocking()?;
        let mut src = DeviceBuffer::<u32>::new(64, &s)?;
        let mut dst = DeviceBuffer::<u32>::new(64, &s)?;
        let mut host = PinnedBuffer::<u32>::new(64)?;
        let graph = s.capture(CaptureMode::GLOBAL, |s| {
            src.memset(0x22, s)?;
            dst.copy_from_device(&src, s)?;
            dst.copy_to_pinned_async(&mut host, s)
        })?;
        assert_eq!(graph.node_count()?, 3, "memset, copy, copy");
        let exec = graph.instantiate()?;
        for _ in 0..2 {
            host.as_mut_slice()?.fill(0);
            exec.launch(&s)?;
            s.synchronize()?;
            assert_eq!(&*host.as_slice()?, &[0x2222_2222; 64][..]);
        }
        Ok(())
    }
}

/// Pushes its name to a log when dropped.
struct DropLog(Arc<Mutex<Vec<&'static str>>>);

impl Drop for DropLog {
    fn drop(&mut self) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push("dropped");
    }
}

emulated! {
    /// A host node's closure, owned by a user object, is dropped after the launch that runs
    /// it, even when the graph and the executable graph are dropped right after the launch.
    fn smoke_user_object_outlives_pending_launch(emu) {
        slow(emu)?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let s = Stream::non_blocking()?;
        let graph = Graph::new()?;
        let (ran, owned) = (log.clone(), DropLog(log.clone()));
        graph.add_host_node(&[], move || {
            let _keep = &owned;
            ran.lock().unwrap_or_else(|e| e.into_inner()).push("ran");
        })?;
        let exec = graph.instantiate()?;
        exec.launch(&s)?;
        drop((exec, graph));
        assert!(log.lock().unwrap_or_else(|e| e.into_inner()).is_empty());
        s.synchronize()?;
        assert!(emu.quiesce(Duration::from_secs(10)));
        for _ in 0..200 {
            if log.lock().unwrap_or_else(|e| e.into_inner()).len() == 2 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(*log.lock().unwrap_or_else(|e| e.into_inner()), ["ran", "dropped"]);
        Ok(())
    }
}

emulated! {
    /// An injected fault: refused at once (mode 0), or after the work was done (mode 2).
    fn smoke_fault_injection(emu) {
        let s = Stream::non_blocking()?;
        emu.inject_fault("cudaStreamSynchronize", 1, UNKNOWN, FaultMode::Refuse)?;
        let e = s.synchronize().expect_err("the injected fault");
        assert_eq!(e.cuda_code(), Some(UNKNOWN));
        s.synchronize()?;
        let mut b = DeviceBuffer::<u8>::zeroed(16, &s)?;
        emu.inject_fault("cudaMemsetAsync", 1, UNKNOWN, FaultMode::AfterWork)?;
        assert_eq!(b.memset(3, &s).map_err(|e| e.cuda_code()), Err(Some(UNKNOWN)));
        assert_eq!(b.to_vec()?, vec![3; 16], "the memset was done");
        emu.inject_fault("cudaEventSynchronize", 2, UNKNOWN, FaultMode::FailedWait)?;
        let ev = s.record_event()?;
        ev.synchronize()?;
        assert!(ev.synchronize().is_err(), "the second call fails");
        Ok(())
    }
}

emulated! {
    /// Kernels from PTX: a fill and an add run on the stream with checked memory accesses;
    /// a kernel's name and parameter layout come from the text.
    fn smoke_kernels_from_ptx(_emu) {
        const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
            .visible .entry emu_fill_u32(.param .u64 p, .param .u32 n, .param .u32 v) { ret; }\n\
            .visible .entry emu_add_u32(.param .u64 p, .param .u32 n, .param .u32 v) { ret; }\n\
            .visible .entry other(.param .align 8 .b8 rec[24], .param .u16 h) { ret; }\n";
        let module = Module::from_ptx(PTX)?;
        let (fill, add) = (module.kernel("emu_fill_u32")?, module.kernel("emu_add_u32")?);
        assert_eq!(fill.name()?, "emu_fill_u32");
        assert!(module.kernel("missing").is_err());
        let s = Stream::non_blocking()?;
        let buf = DeviceBuffer::<u32>::new(1000, &s)?;
        let (n, v, w) = (1000u32, 40u32, 2u32);
        // SAFETY: emu_fill_u32 / emu_add_u32 (unsigned*, unsigned, unsigned) touch n elements.
        unsafe {
            fill.launch(&s, LaunchConfig::for_num_elems(n), (&buf, &n, &v))?;
            add.launch(&s, LaunchConfig::for_num_elems(n), (&buf, &n, &w))?;
        }
        assert_eq!(buf.to_vec()?, vec![42; 1000]);
        let other = module.kernel("other")?;
        let (mut off, mut size) = (0usize, 0usize);
        // SAFETY: two values are written through valid pointers.
        let code = unsafe {
            sys::cudaFuncGetParamInfo(other.as_raw().0.cast_const().cast(), 1, &mut off, &mut size)
        }?;
        assert_eq!((code.as_raw(), off, size), (0, 24, 2));
        Ok(())
    }
}

emulated! {
    /// Many allocations, frees and streams stay cheap (no delay): the registry, the pools and
    /// the list of streams do not grow with what was freed or destroyed.
    fn smoke_many_allocations_and_streams(emu) {
        emu.configure("delay_us", 0)?;
        let s = Stream::non_blocking()?;
        let mut kept = Vec::new();
        for i in 0..20_000 {
            let b = DeviceBuffer::<u8>::new(1024, &s)?;
            if i % 10 == 0 {
                kept.push(b);
            }
        }
        s.synchronize()?;
        for _ in 0..300 {
            let t = Stream::non_blocking()?;
            let mut b = DeviceBuffer::<u8>::new(64, &t)?;
            b.memset(1, &t)?;
            assert_eq!(b.to_vec()?, vec![1; 64]);
        }
        drop(kept);
        s.synchronize()?;
        Ok(())
    }
}

emulated! {
    /// Capture rules: a potentially unsafe call in a global capture fails and invalidates it;
    /// a fork that is not joined back fails the end; the capture info names the graph and the
    /// stream's last node.
    fn smoke_capture_rules(_emu) {
        let (a, b) = (Stream::non_blocking()?, Stream::non_blocking()?);
        let refused = a.capture(CaptureMode::GLOBAL, |_| PinnedBuffer::<u8>::new(16).map(drop));
        assert_eq!(refused.map(drop).map_err(|e| e.cuda_code()), Err(Some(900)));
        assert!(!a.is_capturing()?);
        let mut side = DeviceBuffer::<u8>::new(16, &b)?;
        let unjoined = a.capture(CaptureMode::GLOBAL, |a| {
            let fork = a.record_event()?;
            b.wait_event(&fork)?;
            side.memset(0, &b)
        });
        assert_eq!(unjoined.map(drop).map_err(|e| e.cuda_code()), Err(Some(904)));
        let mut buf = DeviceBuffer::<u8>::new(16, &a)?;
        let graph = a.capture(CaptureMode::THREAD_LOCAL, |a| {
            buf.memset(1, a)?;
            let mut status = sys::cudaStreamCaptureStatus::NONE;
            let (mut id, mut graph) = (0u64, sys::cudaGraph_t::null());
            let (mut deps, mut n) = (std::ptr::null(), 0usize);
            // SAFETY: every output points to a local of its type; edge data is not asked for.
            let code = unsafe {
                sys::cudaStreamGetCaptureInfo(a.as_raw(), &mut status, &mut id, &mut graph,
                    &mut deps, std::ptr::null_mut(), &mut n)
            }?;
            assert_eq!(code.as_raw(), 0);
            assert_eq!(status, sys::cudaStreamCaptureStatus::ACTIVE);
            assert!(!graph.is_null() && !deps.is_null());
            assert_eq!(n, 1);
            Ok(())
        })?;
        assert_eq!(graph.node_count()?, 1);
        Ok(())
    }
}

emulated! {
    /// Graphs: an executable takes a same-shaped graph's parameters and refuses another shape;
    /// a child graph node runs its graph; memory nodes captured from an allocation and a drop
    /// make and free the memory at each launch.
    fn smoke_graph_update_child_and_memory_nodes(_emu) {
        let s = Stream::non_blocking()?;
        let mut buf = DeviceBuffer::<u8>::zeroed(64, &s)?;
        let (ones, twos) = (Graph::new()?, Graph::new()?);
        ones.add_memset_node(&[], &mut buf, 1)?;
        twos.add_memset_node(&[], &mut buf, 2)?;
        let exec = ones.instantiate()?;
        exec.update(&twos)?;
        exec.launch(&s)?;
        assert_eq!(buf.to_vec()?, vec![2; 64]);
        let other = Graph::new()?;
        other.add_empty_node(&[])?;
        other.add_empty_node(&[])?;
        assert_eq!(exec.update(&other).map_err(|e| e.cuda_code()), Err(Some(910)));
        let parent = Graph::new()?;
        let first = parent.add_memset_node(&[], &mut buf, 3)?;
        parent.add_child_graph_node(&[first], &twos)?;
        parent.instantiate()?.launch(&s)?;
        assert_eq!(buf.to_vec()?, vec![2; 64]);
        let capture = s.begin_capture(CaptureMode::GLOBAL)?;
        let mut scratch = capture.alloc::<u8>(64)?;
        scratch.as_slice_mut().memset(4, capture.stream())?;
        buf.copy_from_device(&scratch, capture.stream())?;
        drop(scratch);
        let with_memory = capture.end()?;
        assert_eq!(with_memory.node_count()?, 4, "alloc, memset, copy, free");
        let exec = with_memory.instantiate()?;
        for _ in 0..2 {
            exec.launch(&s)?;
            assert_eq!(buf.to_vec()?, vec![4; 64]);
        }
        Ok(())
    }
}

emulated! {
    /// Kernels from a file and from a fatbin; the name `cudaFuncGetName` gives lives in pages of
    /// its own that are quarantined when the library is unloaded.
    fn smoke_library_forms_and_unload(_emu) {
        const PTX: &str = ".version 8.0\n.target sm_90\n.entry emu_sleep(.param .u32 us) { ret; }\n";
        let dir = std::env::temp_dir().join(format!("cuda-emu-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let file = dir.join("k.ptx");
        std::fs::write(&file, PTX)?;
        let from_file = Module::from_file(&file)?;
        std::fs::remove_dir_all(&dir)?;
        assert_eq!(from_file.kernel("emu_sleep")?.name()?, "emu_sleep");
        let mut fatbin = Vec::new();
        fatbin.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
        fatbin.extend_from_slice(&1u16.to_le_bytes());
        fatbin.extend_from_slice(&16u16.to_le_bytes());
        fatbin.extend_from_slice(&(16 + PTX.len() as u64).to_le_bytes());
        // One entry: kind 1 (PTX), a 16-byte entry header, the text.
        fatbin.extend_from_slice(&1u16.to_le_bytes());
        fatbin.extend_from_slice(&0x0101u16.to_le_bytes());
        fatbin.extend_from_slice(&16u32.to_le_bytes());
        fatbin.extend_from_slice(&(PTX.len() as u64).to_le_bytes());
        fatbin.extend_from_slice(PTX.as_bytes());
        let from_fatbin = Module::from_bytes(&fatbin)?;
        let kernel = from_fatbin.kernel("emu_sleep")?;
        // SAFETY: the kernel handle is alive (its module is held below).
        let name = unsafe { cudart13::api::func_get_name(kernel.as_raw().0.cast_const().cast()) }?;
        assert_eq!(name.to_str()?, "emu_sleep");
        let short = fatbin[..fatbin.len() - 1].to_vec();
        assert!(from_fatbin_is_refused(&short, &fatbin));
        Ok(())
    }
}

/// Whether a fatbin whose payload is cut short is refused when read from a file (where the
/// emulator knows its length).
fn from_fatbin_is_refused(short: &[u8], whole: &[u8]) -> bool {
    let dir = std::env::temp_dir().join(format!("cuda-emu-fatbin-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let (cut, full) = (dir.join("cut.fatbin"), dir.join("full.fatbin"));
    let written = std::fs::write(&cut, short).and_then(|()| std::fs::write(&full, whole));
    let refused =
        written.is_ok() && Module::from_file(&cut).is_err() && Module::from_file(&full).is_ok();
    let _ = std::fs::remove_dir_all(&dir);
    refused
}

emulated! {
    /// A kernel's name outlives its library: the typed layer copies the string the runtime
    /// returns (the emulator quarantines the runtime's copy at unload, so reading that one
    /// after the unload would fault).
    fn smoke_kernel_name_outlives_its_library(_emu) {
        const PTX: &str =
            ".version 8.0\n.target sm_90\n.entry emu_sleep(.param .u32 us) { ret; }\n";
        let kernel = Module::from_ptx(PTX)?.kernel("emu_sleep")?;
        // SAFETY: the kernel handle is alive for the call.
        let name = unsafe { cudart13::api::func_get_name(kernel.as_raw().0.cast_const().cast()) }?;
        drop(kernel);
        assert_eq!(name.to_str()?, "emu_sleep");
        Ok(())
    }
}

emulated! {
    /// With concurrent managed access (the default) the host may read managed memory while a
    /// kernel runs; a pool counts what it hands out and trims what it keeps; an array copies
    /// in and out.
    fn smoke_managed_pools_and_arrays(_emu) {
        const PTX: &str = ".version 8.0\n.target sm_90\n.entry emu_sleep(.param .u32 us) { ret; }\n";
        let sleep = Module::from_ptx(PTX)?.kernel("emu_sleep")?;
        let managed = cudart13::ManagedBuffer::from_slice(&[1u32, 2, 3])?;
        let s = Stream::non_blocking()?;
        let us = 20_000u32;
        // SAFETY: emu_sleep(unsigned us) takes one value and touches no memory.
        unsafe { sleep.launch(&s, LaunchConfig::for_num_elems(1), (&us,))? };
        assert_eq!(managed.as_slice()?.iter().sum::<u32>(), 6);
        s.synchronize()?;
        let pool = cudart13::MemPool::new(Device::get(0)?)?;
        let held = pool.alloc::<u8>(1 << 20, &s)?;
        assert_eq!(pool.stats()?.used_current, 1 << 20);
        drop(held);
        s.synchronize()?;
        pool.trim_to(0)?;
        assert_eq!((pool.used_mem()?, pool.reserved_mem()?), (0, 0));
        use cudart13::texture::{ChannelFormat, CudaArray};
        let mut array = CudaArray::new(ChannelFormat::of::<f32>(), 8, 4, sys::ArrayFlags::empty())?;
        let texels: Vec<f32> = (0..32).map(|i| i as f32).collect();
        array.copy_from_host(&texels)?;
        let mut back = vec![0f32; 32];
        array.copy_to_host(&mut back)?;
        assert_eq!(back, texels);
        Ok(())
    }
}

/// A minimal ELF64 cubin: a header, a section-name table, a `.text.emu_sleep` section, and
/// the section header table at the end.
fn tiny_cubin() -> Vec<u8> {
    let names = b"\0.shstrtab\0.text.emu_sleep\0";
    let (names_at, text_at) = (64u64, 64 + names.len() as u64);
    let shoff = (text_at + 16).next_multiple_of(8);
    let mut image = vec![0u8; shoff as usize + 3 * 64];
    image[..8].copy_from_slice(b"\x7fELF\x02\x01\x01\x00");
    image[16..18].copy_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    image[18..20].copy_from_slice(&190u16.to_le_bytes()); // EM_CUDA
    image[20..24].copy_from_slice(&1u32.to_le_bytes());
    image[0x28..0x30].copy_from_slice(&shoff.to_le_bytes());
    image[0x34..0x36].copy_from_slice(&64u16.to_le_bytes());
    image[0x3A..0x3C].copy_from_slice(&64u16.to_le_bytes());
    image[0x3C..0x3E].copy_from_slice(&3u16.to_le_bytes());
    image[0x3E..0x40].copy_from_slice(&1u16.to_le_bytes());
    image[names_at as usize..text_at as usize].copy_from_slice(names);
    let mut section = |i: usize, name: u32, kind: u32, off: u64, size: u64| {
        let h = shoff as usize + 64 * i;
        image[h..h + 4].copy_from_slice(&name.to_le_bytes());
        image[h + 4..h + 8].copy_from_slice(&kind.to_le_bytes());
        image[h + 24..h + 32].copy_from_slice(&off.to_le_bytes());
        image[h + 32..h + 40].copy_from_slice(&size.to_le_bytes());
    };
    section(1, 1, 3, names_at, names.len() as u64); // .shstrtab
    section(2, 11, 1, text_at, 16); // .text.emu_sleep
    image
}

emulated! {
    /// An ELF image loads from its bytes, with its `.text.NAME` sections as kernels.
    fn smoke_kernels_from_an_elf_image(_emu) {
        let module = Module::from_bytes(&tiny_cubin())?;
        assert_eq!(module.kernel("emu_sleep")?.name()?, "emu_sleep");
        Ok(())
    }
}

/// The hazard kinds of an outcome (the text before the first colon of each line).
fn kinds(outcome: &Outcome) -> Vec<&str> {
    outcome
        .hazards
        .iter()
        .map(|h| h.split(':').next().unwrap_or(""))
        .collect()
}

/// Raw calls that are bugs are logged as hazards (and the child still exits 0): a memset of
/// freed memory, a second destroy, a record on a destroyed event. (A CUDA call from a host
/// function cannot be made through the crate any more: it returns `Error::InCallback`.)
#[test]
fn smoke_hazards_are_logged() {
    let Some(outcome) = child("smoke_hazards_are_logged", |_emu| {
        let s = Stream::non_blocking()?;
        let mut p = std::ptr::null_mut();
        // SAFETY: deliberate misuse of the raw layer: the emulator checks every access.
        unsafe {
            sys::cudaMalloc(&mut p, 4096)?.result()?;
            sys::cudaFree(p)?.result()?;
            let _ = sys::cudaMemsetAsync(p, 0, 16, s.as_raw())?;
            let mut ev = sys::cudaEvent_t::null();
            sys::cudaEventCreate(&mut ev)?.result()?;
            sys::cudaEventDestroy(ev)?.result()?;
            let _ = sys::cudaEventDestroy(ev)?;
            let _ = sys::cudaEventRecord(ev, s.as_raw())?;
            // Exported memory freed while an importer still maps it.
            let mut exported = std::ptr::null_mut();
            sys::cudaMalloc(&mut exported, 4096)?.result()?;
            let mut handle = sys::cudaIpcMemHandle_t::default();
            sys::cudaIpcGetMemHandle(&mut handle, exported)?.result()?;
            let mut imported = std::ptr::null_mut();
            sys::cudaIpcOpenMemHandle(&mut imported, handle, sys::cudaIpcMemLazyEnablePeerAccess)?
                .result()?;
            sys::cudaFree(exported)?.result()?;
            sys::cudaIpcCloseMemHandle(imported)?.result()?;
        }
        s.synchronize()?;
        Ok(())
    }) else {
        return;
    };
    assert_eq!(outcome.code, Some(0), "{}", outcome.summary());
    let mut found = kinds(&outcome);
    found.sort_unstable();
    assert_eq!(
        found,
        [
            "double-destroy",
            "exported-free",
            "record-on-destroyed-event",
            "use-after-free"
        ],
        "{:#?}",
        outcome.hazards
    );
}

/// The emulator exports exactly names the crate loads, and every function the safe layer
/// calls.
#[test]
fn emulator_exports_only_what_the_crate_names() {
    let lib = match emulator::build(emulator::Variant::Plain) {
        Ok(lib) => lib,
        Err(why) => return emulator::unavailable("emulator_exports", &why),
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let functions = std::fs::read_to_string(root.join("runtime/cudart13/src/sys/functions.rs"))
        .expect("functions.rs");
    let loaded: std::collections::BTreeSet<String> = functions
        .split("dynamic_call!(")
        .skip(1)
        .filter_map(|rest| rest.trim_start().strip_prefix("c\"")?.split('"').next())
        .map(str::to_string)
        .collect();
    assert!(loaded.len() > 300, "{} names", loaded.len());
    let bytes = std::fs::read(&lib).expect("the emulator");
    let file = object::File::parse(&*bytes).expect("an ELF library");
    use object::{Object, ObjectSymbol};
    let exported: Vec<String> = file
        .dynamic_symbols()
        .filter(|s| s.is_definition() && s.is_global())
        .filter_map(|s| s.name().ok().map(str::to_string))
        .collect();
    let control: Vec<&String> = exported
        .iter()
        .filter(|n| n.starts_with("cudaEmu"))
        .collect();
    assert_eq!(control.len(), 8, "{control:?}");
    let stray: Vec<&String> = exported
        .iter()
        .filter(|n| !n.starts_with("cudaEmu") && !loaded.contains(*n))
        .collect();
    assert!(
        stray.is_empty(),
        "exported but not loaded by the crate: {stray:?}"
    );
    let template = root.join("codegen/template/src");
    let mut missing = Vec::new();
    for file in walk(&template) {
        let text = std::fs::read_to_string(&file).expect("template source");
        for piece in text.split("sys::cuda").skip(1) {
            let name: String = piece
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let called = piece[name.len()..].starts_with('(') && !name.ends_with("_t");
            if called && !exported.contains(&format!("cuda{name}")) {
                missing.push(format!("cuda{name}"));
            }
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "called by the safe layer, not emulated: {missing:?}"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

// ---- the classes of issue 28: programs without `unsafe` that reach undefined behaviour ----

class_test! {
    /// Class 1: `api::device_get_pci_bus_id(len, 0)` gives CUDA a one-byte local for a
    /// buffer of `len` bytes; the emulator writes all `len` bytes (the id, NUL-padded), as the
    /// contract allows.
    fn class_01_pci_bus_id_into_a_one_byte_local(_emu) {
        let id = cudart13::api::device_get_pci_bus_id(16 << 20, 1)?;
        assert_eq!(id.to_str()?, "0000:01:00.0");
        Ok(())
    }
}

class_test! {
    /// Class 2: `api::logs_dump_to_memory` gives CUDA one `c_char` for a buffer of `*size`
    /// bytes; the emulator writes all of them.
    fn class_02_logs_dump_into_one_char(_emu) {
        let mut buffer = vec![0u8; 16 << 20];
        let written = cudart13::api::logs_dump_to_memory(None, &mut buffer, 0)?;
        assert!(written <= buffer.len());
        Ok(())
    }
}

class_test! {
    /// Class 3: a graph captured from `copy_to_pinned_async` is launched while the host
    /// holds `&[T]` of the pinned buffer: the launch writes behind the shared borrow.
    fn class_03_graph_launch_writes_behind_a_pinned_borrow(emu) {
        slow(emu)?;
        let s = Stream::non_blocking()?;
        let dev = DeviceBuffer::from_slice(&[7u32; 256], &s)?;
        let mut pinned = PinnedBuffer::<u32>::new(256)?;
        let graph = s.capture(CaptureMode::GLOBAL, |s| dev.copy_to_pinned_async(&mut pinned, s))?;
        let exec = graph.instantiate()?;
        exec.launch(&s)?;
        {
            // The view waits for the launch; a launch is refused while the view lives.
            let view = pinned.as_slice()?;
            let _borrowed = emu.host_view(&view, false);
            assert!(exec.launch(&s).is_err(), "a launch while a view of graph memory lives");
            assert_eq!(view[0], 7);
        }
        exec.launch(&s)?;
        assert_eq!(pinned.as_slice()?[0], 7);
        s.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 4: a failed wait in `PinnedBuffer`'s `Deref` still hands out the slice while
    /// the copy into it is queued.
    fn class_04_failed_wait_still_derefs_pinned(emu) {
        slow(emu)?;
        let s = Stream::non_blocking()?;
        let dev = DeviceBuffer::from_slice(&[7u32; 256], &s)?;
        let mut pinned = PinnedBuffer::<u32>::new(256)?;
        dev.copy_to_pinned_async(&mut pinned, &s)?;
        emu.inject_fault("cudaEventSynchronize", 1, UNKNOWN, FaultMode::FailedWait)?;
        // The failed wait is an error of the view, returned once the copy cannot run.
        match pinned.as_slice() {
            Ok(view) => {
                let _borrowed = emu.host_view(&view, false);
            }
            Err(e) => assert_eq!(e.cuda_code(), Some(UNKNOWN), "{e}"),
        }
        s.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 4: a failed wait in `PinnedBuffer`'s `Drop` returns the block to its pool while
    /// the copy into it is queued; the next buffer from the pool gets the same block.
    fn class_04_failed_wait_repools_a_busy_block(emu) {
        slow(emu)?;
        let s = Stream::non_blocking()?;
        let pool = cudart13::PinnedPool::new();
        let dev = DeviceBuffer::from_slice(&[7u32; 256], &s)?;
        let mut first = pool.alloc::<u32>(256)?;
        dev.copy_to_pinned_async(&mut first, &s)?;
        emu.inject_fault("cudaEventSynchronize", 1, UNKNOWN, FaultMode::FailedWait)?;
        drop(first);
        let second = pool.alloc::<u32>(256)?;
        let view = second.as_slice()?;
        let _borrowed = emu.host_view(&view, false);
        s.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 5: `copy_to_host` returns `Err` after a failed synchronise while its copy into
    /// the caller's slice is still queued; the caller has the slice back.
    fn class_05_failed_copy_to_host_still_writes(emu) {
        slow(emu)?;
        let s = Stream::non_blocking()?;
        let dev = DeviceBuffer::from_slice(&[9u32; 1024], &s)?;
        let mut host = vec![0u32; 1024];
        emu.inject_fault("cudaStreamSynchronize", 1, UNKNOWN, FaultMode::FailedWait)?;
        assert!(dev.copy_to_host(&mut host).is_err());
        let _borrowed = emu.host_view(&host, false);
        s.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 5: `to_vec` returns `Err` after a failed synchronise and frees its `Vec` while
    /// the copy into it is still queued: the copy writes freed heap memory.
    fn class_05_failed_to_vec_frees_the_destination(emu) {
        slow(emu)?;
        let s = Stream::non_blocking()?;
        let dev = DeviceBuffer::from_slice(&[9u32; 1024], &s)?;
        emu.inject_fault("cudaStreamSynchronize", 1, UNKNOWN, FaultMode::FailedWait)?;
        assert!(dev.to_vec().is_err());
        s.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 6: a pinned buffer whose event was made on device 0 is the target of a copy on
    /// a device-1 stream: the copy is queued, recording the event fails, and the buffer
    /// never waits for the copy.
    fn class_06_pinned_copy_on_another_devices_stream(emu) {
        slow(emu)?;
        Device::get(0)?.set_current()?;
        let s0 = Stream::non_blocking()?;
        let d0 = DeviceBuffer::from_slice(&[1u32; 256], &s0)?;
        let mut pinned = PinnedBuffer::<u32>::new(256)?;
        d0.copy_to_pinned_async(&mut pinned, &s0)?;
        assert_eq!(pinned.as_slice()?[0], 1);
        Device::get(1)?.set_current()?;
        let s1 = Stream::non_blocking()?;
        let d1 = DeviceBuffer::from_slice(&[2u32; 256], &s1)?;
        d1.copy_to_pinned_async(&mut pinned, &s1)?;
        let view = pinned.as_slice()?;
        let _borrowed = emu.host_view(&view, false);
        assert_eq!(view[0], 2);
        s1.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 7: in a fork-join capture the pinned buffer's keep-alive goes to the forked
    /// stream's list, not the graph; a later capture on that stream frees the block while the
    /// first graph's executable still copies into it and records its event.
    fn class_07_fork_join_capture_loses_the_keep_alive(emu) {
        let (a, b) = (Stream::non_blocking()?, Stream::non_blocking()?);
        let dev = DeviceBuffer::from_slice(&[5u32; 256], &a)?;
        let mut pinned = PinnedBuffer::<u32>::new(256)?;
        let graph = a.capture(CaptureMode::GLOBAL, |a| {
            let fork = a.record_event()?;
            b.wait_event(&fork)?;
            dev.copy_to_pinned_async(&mut pinned, &b)?;
            let join = b.record_event()?;
            a.wait_event(&join)
        })?;
        let exec = graph.instantiate()?;
        drop((graph, pinned));
        drop(b.capture(CaptureMode::GLOBAL, |_| Ok(()))?);
        assert!(emu.quiesce(Duration::from_secs(10)));
        std::thread::sleep(Duration::from_millis(300)); // the crate's release thread
        exec.launch(&a)?;
        a.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 8: a buffer read by a copy on stream B is dropped: `cudaFreeAsync` on its own
    /// stream A, which does not wait for B.
    fn class_08_buffer_read_on_another_stream_then_dropped(emu) {
        slow(emu)?;
        let (a, b) = (Stream::non_blocking()?, Stream::non_blocking()?);
        let src = DeviceBuffer::from_slice(&[3u32; 256], &a)?;
        let mut dst = DeviceBuffer::<u32>::new(256, &b)?;
        dst.memset(0, &b)?;
        dst.copy_from_device(&src, &b)?;
        drop(src);
        b.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 9: a buffer on `Stream::per_thread()` dropped on another thread is freed on that
    /// thread's per-thread stream, while work on the first thread's is still queued.
    fn class_09_per_thread_buffer_dropped_on_another_thread(emu) {
        slow(emu)?;
        let s = Stream::per_thread();
        let mut buf = DeviceBuffer::<u32>::zeroed(256, &s)?;
        buf.memset(1, &s)?;
        buf.memset(2, &s)?;
        std::thread::spawn(move || drop(buf)).join().map_err(|_| "the dropping thread panicked")?;
        s.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 9: a buffer on `Stream::legacy()` dropped after `set_current` is freed on the
    /// other device's legacy stream, while work on the first device's is still queued.
    fn class_09_legacy_buffer_dropped_after_set_current(emu) {
        slow(emu)?;
        let legacy = Stream::legacy();
        Device::get(0)?.set_current()?;
        let mut buf = DeviceBuffer::<u32>::new(256, &legacy)?;
        buf.memset(1, &legacy)?;
        buf.memset(2, &legacy)?;
        Device::get(1)?.set_current()?;
        drop(buf);
        Device::get(0)?.set_current()?;
        legacy.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 10: a memset node outlives the buffer it writes: a launch writes freed memory.
    fn class_10_memset_node_outlives_its_buffer(_emu) {
        let s = Stream::non_blocking()?;
        let graph = Graph::new()?;
        let mut buf = DeviceBuffer::<u32>::new(256, &s)?;
        graph.add_memset_node(&[], &mut buf, 0)?;
        let exec = graph.instantiate()?;
        drop(buf);
        s.synchronize()?;
        exec.launch(&s)?;
        s.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Class 10: captured work outlives the buffer it reads: a launch reads freed memory.
    fn class_10_captured_copy_outlives_its_source(_emu) {
        let s = Stream::non_blocking()?;
        let src = DeviceBuffer::from_slice(&[4u32; 256], &s)?;
        let mut dst = DeviceBuffer::<u32>::new(256, &s)?;
        let graph = s.capture(CaptureMode::GLOBAL, |s| dst.copy_from_device(&src, s))?;
        let exec = graph.instantiate()?;
        drop(src);
        s.synchronize()?;
        exec.launch(&s)?;
        s.synchronize()?;
        Ok(())
    }
}

// Class 11 (safe `api::device_reset`, `api::destroy_texture_object`, … invalidating what the
// safe layer owns) cannot be written any more: those functions are `unsafe fn`, which the
// compile-fail doc tests of `tests/src/contracts.rs` prove.

class_test! {
    /// Class 12: `Module::from_bytes` hands CUDA a cubin without its length; given the first
    /// 64 bytes of one, CUDA reads as far as the image's headers say.
    fn class_12_module_from_a_short_cubin_slice(_emu) {
        let short = tiny_cubin()[..64].to_vec();
        let _ = Module::from_bytes(&short);
        Ok(())
    }
}

class_test! {
    /// Also (managed memory): on a device without concurrent managed access the host must not
    /// touch managed memory while a kernel runs. The launch's contract (no host reference to
    /// managed memory *the kernel writes*) is kept: the kernel writes nothing, and reading an
    /// unrelated `ManagedBuffer` through `Deref` faults. The one `unsafe` is the launch.
    fn class_also_managed_memory_read_while_a_kernel_runs(emu) {
        emu.configure("concurrent_managed", 0)?;
        const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
            .visible .entry emu_sleep(.param .u32 us) { ret; }\n";
        let sleep = Module::from_ptx(PTX)?.kernel("emu_sleep")?;
        let managed = cudart13::ManagedBuffer::from_slice(&[1u32, 2, 3])?;
        let s = Stream::non_blocking()?;
        let us = 50_000u32;
        // SAFETY: emu_sleep(unsigned us) takes one value and touches no memory.
        unsafe { sleep.launch(&s, LaunchConfig::for_num_elems(1), (&us,))? };
        assert!(managed.as_slice().is_err(), "no safe host view without concurrent access");
        s.synchronize()?;
        // SAFETY: the device is idle (synchronised above and no other work).
        let sum: u32 = unsafe { managed.as_slice_unchecked() }.iter().sum();
        assert_eq!(sum, 6);
        Ok(())
    }
}

class_test! {
    /// Also (host callbacks): a closure given to `launch_host_func` or a graph host node may
    /// call CUDA, which CUDA forbids.
    fn class_also_host_callbacks_call_cuda(_emu) {
        let s = Stream::non_blocking()?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (a, b, c) = (seen.clone(), seen.clone(), seen.clone());
        let buf = DeviceBuffer::<u32>::zeroed(64, &s)?;
        s.launch_host_func(move || {
            a.lock().unwrap().push(Stream::new().err());
            drop(buf); // released afterwards, on the crate's release thread
        })?;
        s.add_callback(move |_| b.lock().unwrap().push(Event::new().err()))?;
        let graph = Graph::new()?;
        graph.add_host_node(&[], move || c.lock().unwrap().push(Event::new().err()))?;
        graph.instantiate()?.launch(&s)?;
        s.synchronize()?;
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 3);
        for e in seen.iter() {
            assert!(
                matches!(e, Some(cudart13::Error::InCallback { .. })),
                "a call inside a callback: {e:?}"
            );
        }
        Ok(())
    }
}

// ---- the same classes reached by other roads (not in the issue's table) ----

/// The emulator's built-in kernels, as a module.
fn emu_kernels() -> Result<Module, Box<dyn Error>> {
    const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry emu_fill_u32(.param .u64 p, .param .u32 n, .param .u32 v) { ret; }\n\
        .visible .entry emu_copy_u32(.param .u64 d, .param .u64 s, .param .u32 n) { ret; }\n";
    Ok(Module::from_ptx(PTX)?)
}

class_test! {
    /// A kernel on stream B writes a buffer homed on stream A, which is dropped right after
    /// the launch: the free on A must wait for the kernel. (The launch is the `unsafe` step;
    /// its contract says nothing about lifetimes, which the crate keeps.)
    fn other_kernel_on_another_stream_then_dropped(emu) {
        slow(emu)?;
        let fill = emu_kernels()?.kernel("emu_fill_u32")?;
        let (a, b) = (Stream::non_blocking()?, Stream::non_blocking()?);
        let buf = DeviceBuffer::<u32>::new(4096, &a)?;
        a.synchronize()?;
        let (n, v) = (4096u32, 1u32);
        // B is held back, so that the kernel surely runs after a free that does not wait.
        let pause = Duration::from_millis(150) * emulator::time_scale();
        b.launch_host_func(move || std::thread::sleep(pause))?;
        // SAFETY: emu_fill_u32(unsigned*, unsigned, unsigned) writes n elements of `buf`.
        unsafe { fill.launch(&b, LaunchConfig::for_num_elems(n), (&buf, &n, &v))? };
        drop(buf);
        // The freed memory is handed out again on A while the kernel may still run.
        let mut again = DeviceBuffer::<u32>::new(4096, &a)?;
        again.memset(0, &a)?;
        b.synchronize()?;
        a.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// A captured kernel uses a buffer that is dropped before the graph is launched, from a
    /// forked stream of the capture.
    fn other_captured_kernel_on_a_forked_stream_outlives_its_buffer(emu) {
        let fill = emu_kernels()?.kernel("emu_fill_u32")?;
        let (a, b) = (Stream::non_blocking()?, Stream::non_blocking()?);
        let buf = DeviceBuffer::<u32>::new(4096, &a)?;
        let (n, v) = (4096u32, 3u32);
        let graph = a.capture(CaptureMode::GLOBAL, |a| {
            let fork = a.record_event()?;
            b.wait_event(&fork)?;
            // SAFETY: emu_fill_u32 writes n elements of `buf`.
            unsafe { fill.launch(&b, LaunchConfig::for_num_elems(n), (&buf, &n, &v))? };
            let join = b.record_event()?;
            a.wait_event(&join)
        })?;
        let exec = graph.instantiate()?;
        drop((graph, buf, fill));
        a.synchronize()?;
        assert!(emu.quiesce(Duration::from_secs(10)));
        exec.launch(&a)?;
        exec.launch(&b)?;
        a.synchronize()?;
        b.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// An executable graph updated to nodes that write another buffer keeps that buffer
    /// alive after the buffer and the update's graph are dropped.
    fn other_updated_exec_keeps_the_new_buffers(_emu) {
        let s = Stream::non_blocking()?;
        let mut first = DeviceBuffer::<u32>::new(256, &s)?;
        let g1 = Graph::new()?;
        g1.add_memset_node(&[], &mut first, 1)?;
        let exec = g1.instantiate()?;
        let mut second = DeviceBuffer::<u32>::new(256, &s)?;
        let g2 = Graph::new()?;
        g2.add_memset_node(&[], &mut second, 2)?;
        exec.update(&g2)?;
        drop((g2, second));
        s.synchronize()?;
        exec.launch(&s)?;
        s.synchronize()?;
        drop(exec);
        Ok(())
    }
}

class_test! {
    /// A buffer allocated before a capture of its stream and dropped during it: the free
    /// cannot be enqueued there (it would be captured) and must wait for the capture's end,
    /// after the work enqueued before the capture.
    fn other_buffer_dropped_while_its_stream_is_captured(emu) {
        slow(emu)?;
        let s = Stream::non_blocking()?;
        let mut buf = DeviceBuffer::<u32>::new(256, &s)?;
        buf.memset(5, &s)?;
        let graph = s.capture(CaptureMode::GLOBAL, |_| {
            drop(buf);
            Ok(())
        })?;
        drop(graph);
        s.synchronize()?;
        assert!(emu.quiesce(Duration::from_secs(10)));
        std::thread::sleep(Duration::from_millis(100)); // the crate's release thread
        Ok(())
    }
}

class_test! {
    /// A blocking copy on a stream being captured is refused (it would be captured, with
    /// the caller's borrowed memory in the graph), and the capture is not spoiled.
    fn other_blocking_copy_into_a_capture_is_refused(_emu) {
        let s = Stream::non_blocking()?;
        let buf = DeviceBuffer::from_slice(&[6u32; 64], &s)?;
        let mut host = vec![0u32; 64];
        let graph = s.capture(CaptureMode::RELAXED, |s| {
            assert_eq!(buf.stream(), s);
            assert!(buf.copy_to_host(&mut host).is_err(), "refused in a capture");
            assert!(buf.to_vec().is_err(), "refused in a capture");
            Ok(())
        })?;
        let exec = graph.instantiate()?;
        drop(host);
        exec.launch(&s)?;
        s.synchronize()?;
        Ok(())
    }
}

class_test! {
    /// Buffers used on several streams from several threads, dropped on yet another
    /// thread: every free waits for every use.
    fn other_many_threads_and_streams(emu) {
        emu.configure("delay_us", 2_000 * i64::from(emulator::time_scale()))?;
        let streams: Vec<Stream> = (0..4).map(|_| Stream::non_blocking()).collect::<Result<_, _>>()?;
        let bufs: Vec<DeviceBuffer<u32>> = streams
            .iter()
            .map(|s| DeviceBuffer::from_slice(&[1u32; 1024], s))
            .collect::<Result<_, _>>()?;
        for s in &streams {
            s.synchronize()?;
        }
        let bufs = Arc::new(bufs);
        // The readers' streams are held back, so that their copies surely run after frees
        // that do not wait for them.
        let readers: Vec<Stream> = (0..4).map(|_| Stream::non_blocking()).collect::<Result<_, _>>()?;
        let pause = Duration::from_millis(150) * emulator::time_scale();
        for r in &readers {
            r.launch_host_func(move || std::thread::sleep(pause))?;
        }
        let workers: Vec<_> = (0..4)
            .map(|t| {
                let (bufs, readers) = (bufs.clone(), readers.clone());
                std::thread::spawn(move || -> Result<(), cudart13::Error> {
                    let s = &readers[t];
                    let mut out = DeviceBuffer::<u32>::new(1024, s)?;
                    for b in bufs.iter() {
                        out.copy_from_device(b, s)?;
                    }
                    Ok(())
                })
            })
            .collect();
        for w in workers {
            w.join().map_err(|_| "a worker panicked")??;
        }
        let dropper = std::thread::spawn(move || drop(bufs));
        dropper.join().map_err(|_| "the dropping thread panicked")?;
        for s in streams.iter().chain(&readers) {
            s.synchronize()?;
        }
        Ok(())
    }
}

class_test! {
    /// A pinned buffer from a pool is the source of an upload on another device's stream
    /// and dropped at once: it returns to the pool only after the upload.
    fn other_pooled_pinned_upload_on_another_device(emu) {
        slow(emu)?;
        let pool = cudart13::PinnedPool::new();
        let mut first = pool.alloc::<u32>(1024)?;
        first.as_mut_slice()?.fill(8);
        Device::get(1)?.set_current()?;
        let s1 = Stream::non_blocking()?;
        Device::get(0)?.set_current()?;
        let mut dev = DeviceBuffer::<u32>::new(1024, &s1)?;
        dev.copy_from_pinned_async(&first, &s1)?;
        drop(first);
        let mut second = pool.alloc::<u32>(1024)?;
        second.as_mut_slice()?.fill(9);
        assert_eq!(dev.to_vec()?, vec![8; 1024]);
        Ok(())
    }
}

// ---- issue 32: parts of pinned buffers, IPC, node updates, globals, checked launches ----
//
// Each test uses one of the operations issue 32 added and would log a hazard (or fail an
// assertion) if the operation skipped its bookkeeping.

/// `n` non-blocking streams.
fn streams(n: usize) -> Result<Vec<Stream>, cudart13::Error> {
    (0..n).map(|_| Stream::non_blocking()).collect()
}

/// Holds `streams` back with a long host function, so that their later work surely runs
/// after whatever the host does next.
fn hold_back(streams: &[Stream], ms: u64) -> TestResult {
    let pause = Duration::from_millis(ms) * emulator::time_scale();
    for s in streams {
        s.launch_host_func(move || std::thread::sleep(pause))?;
    }
    Ok(())
}

emulated! {
    /// A pinned buffer filled in four chunks, one stream each (simpleStreams): a chunk's view
    /// waits for that chunk's copy only, the whole buffer's view for all of them.
    fn issue32_pinned_chunks_on_several_streams(emu) {
        slow(emu)?;
        let s = streams(4)?;
        let (n, chunk) = (4096usize, 1024usize);
        let mut dev = DeviceBuffer::<u32>::new(n, &s[0])?;
        dev.memset(0x11, &s[0])?;
        s[0].synchronize()?;
        let mut host = PinnedBuffer::<u32>::new_uninit(n)?;
        hold_back(&s[1..], 300)?;
        for ((d, mut h), stream) in dev.chunks_mut(chunk)?.zip(host.chunks_mut(chunk)?).zip(&s) {
            d.copy_to_pinned_async(&mut h, stream)?;
        }
        {
            let first = host.slice(..chunk)?;
            let view = first.as_slice()?;
            let _marked = emu.host_view(&view, false);
            assert!(view.iter().all(|v| *v == 0x1111_1111), "chunk 0 was copied");
            assert!(!s[1].query()?, "chunk 0's view did not wait for the other chunks");
        }
        let all = host.as_slice()?;
        let _marked = emu.host_view(&all, false);
        assert!(all.iter().all(|v| *v == 0x1111_1111), "every chunk was copied");
        Ok(())
    }
}

emulated! {
    /// A pinned buffer whose chunks are copied to and from on three streams is dropped at
    /// once: the free waits for every chunk's copy.
    fn issue32_pinned_buffer_dropped_while_chunks_copy(emu) {
        slow(emu)?;
        let s = streams(3)?;
        let mut dev = DeviceBuffer::from_slice(&[3u32; 3072], &s[0])?;
        let mut host = PinnedBuffer::<u32>::new(3072)?;
        hold_back(&s, 100)?;
        for ((d, mut h), stream) in dev.chunks_mut(1024)?.zip(host.chunks_mut(1024)?).zip(&s) {
            d.copy_to_pinned_async(&mut h, stream)?;
        }
        drop(host);
        let pool = cudart13::PinnedPool::new();
        let mut src = pool.alloc_uninit::<u32>(3072)?;
        src.as_mut_slice()?.fill(4);
        for ((mut d, h), stream) in dev.chunks_mut(1024)?.zip(src.chunks(1024)?).zip(&s) {
            d.copy_from_pinned_async(&h, stream)?;
        }
        drop(src); // back to the pool only after the three uploads
        let mut reused = pool.alloc_uninit::<u32>(3072)?;
        reused.as_mut_slice()?.fill(5);
        for stream in &s {
            stream.synchronize()?;
        }
        assert_eq!(dev.to_vec()?, vec![4; 3072]);
        Ok(())
    }
}

emulated! {
    /// A part read by an upload, then written by the host: the writable view of an
    /// overlapping part waits for the upload; one of a disjoint part does not.
    fn issue32_pinned_write_view_waits_for_reads_of_its_part(emu) {
        slow(emu)?;
        let s = streams(1)?;
        let mut host = PinnedBuffer::from_slice(&[6u32; 2048])?;
        let mut dev = DeviceBuffer::<u32>::new(1024, &s[0])?;
        hold_back(&s, 150)?;
        dev.copy_from_pinned_async(&host.slice(1024..)?, &s[0])?;
        {
            let mut low = host.slice_mut(..1024)?;
            let view = low.as_mut_slice()?;
            assert!(!s[0].query()?, "the upload of the other half is still queued");
            drop(view);
        }
        let mut high = host.slice_mut(1000..1100)?;
        let mut view = high.as_mut_slice()?;
        let _marked = emu.host_view(&view, true);
        view.fill(0);
        drop(_marked);
        drop(view);
        assert_eq!(dev.to_vec()?, vec![6; 1024]);
        Ok(())
    }
}

emulated! {
    /// Twenty chunks through one stream: past sixteen ranges the stream's records merge,
    /// and a view of the first chunk still waits for its copy.
    fn issue32_many_chunks_on_one_stream_still_waited_for(emu) {
        slow(emu)?;
        let s = streams(1)?;
        let dev = DeviceBuffer::from_slice(&[8u32; 2000], &s[0])?;
        let mut host = PinnedBuffer::<u32>::new(2000)?;
        hold_back(&s, 100)?;
        for (i, mut h) in host.chunks_mut(100)?.enumerate() {
            dev.slice(i * 100..(i + 1) * 100)?.copy_to_pinned_async(&mut h, &s[0])?;
        }
        let first = host.slice(..100)?;
        let view = first.as_slice()?;
        let _marked = emu.host_view(&view, false);
        assert_eq!(&view[..], &[8; 100][..]);
        Ok(())
    }
}

emulated! {
    /// A copy into a chunk captured into a graph: the graph keeps the buffer's block after
    /// the buffer is dropped, and its launches and a chunk's view exclude each other.
    fn issue32_captured_chunk_copy_keeps_the_block(emu) {
        slow(emu)?;
        let s = streams(1)?;
        let dev = DeviceBuffer::from_slice(&[9u32; 512], &s[0])?;
        let mut host = PinnedBuffer::<u32>::new(1024)?;
        let graph = {
            let (mut low, _high) = host.split_at_mut(512)?;
            s[0].capture(CaptureMode::GLOBAL, |st| dev.copy_to_pinned_async(&mut low, st))?
        };
        let exec = graph.instantiate()?;
        exec.launch(&s[0])?;
        {
            let view = host.slice(..512)?;
            let view = view.as_slice()?;
            let _marked = emu.host_view(&view, false);
            assert!(exec.launch(&s[0]).is_err(), "a launch while a view of graph memory lives");
            assert_eq!(view[0], 9);
        }
        drop(host);
        exec.launch(&s[0])?;
        s[0].synchronize()?;
        Ok(())
    }
}

emulated! {
    /// IPC of device memory, both sides in this process: the opened buffer shares the
    /// exporter's memory, and dropping it while a copy on another stream reads it closes the
    /// mapping only after the copy. Stream-ordered memory cannot be shared.
    fn issue32_ipc_buffer_closed_after_its_last_use(emu) {
        slow(emu)?;
        let s = streams(2)?;
        let exported = DeviceBuffer::from_slice_shareable(&[5u32; 1024], &s[0])?;
        let handle = cudart13::IpcMemHandle::from_bytes(exported.ipc_handle()?.to_bytes());
        assert_eq!(handle.size_bytes(), 4096);
        // SAFETY: `exported` stays allocated until `imported` is gone.
        let imported: DeviceBuffer<u32> = unsafe { handle.open(&s[0])? };
        assert_eq!(imported.to_vec()?, vec![5; 1024], "the exporter's memory");
        let mut out = DeviceBuffer::<u32>::new(1024, &s[1])?;
        hold_back(&s[1..], 150)?;
        out.copy_from_device(&imported, &s[1])?;
        drop(imported);
        assert_eq!(out.to_vec()?, vec![5; 1024]);
        drop(exported);
        let pooled = DeviceBuffer::<u32>::new(16, &s[0])?;
        assert!(pooled.ipc_handle().is_err(), "stream-ordered memory is not shareable");
        // SAFETY: a handle of no bytes: nothing is mapped.
        let odd = unsafe { cudart13::IpcMemHandle::from_bytes([0; 72]).open::<u32>(&s[0]) };
        assert!(odd.is_ok() && odd.map(|b| b.len()).ok() == Some(0), "an empty handle");
        Ok(())
    }
}

emulated! {
    /// IPC of events: a stream waits on the opened handle of an interprocess event recorded
    /// after a memset, and its copy sees the memset; destroying the opened handle leaves the
    /// exporter's event alive.
    fn issue32_ipc_event_orders_streams(emu) {
        slow(emu)?;
        let s = streams(2)?;
        let d0 = Device::get(0)?;
        let event = Event::interprocess(d0)?;
        assert!(Event::new()?.ipc_handle().is_err(), "only interprocess events");
        let mut buf = DeviceBuffer::<u8>::zeroed(4096, &s[0])?;
        s[0].synchronize()?;
        buf.memset(7, &s[0])?;
        event.record(&s[0])?;
        let bytes = event.ipc_handle()?.to_bytes();
        // SAFETY: the bytes name `event`, alive until the end.
        let remote = unsafe { cudart13::IpcEventHandle::from_bytes(bytes).open(d0)? };
        s[1].wait_event(&remote)?;
        let mut out = DeviceBuffer::<u8>::new(4096, &s[1])?;
        out.copy_from_device(&buf, &s[1])?;
        assert_eq!(out.to_vec()?, vec![7; 4096]);
        remote.close()?;
        event.record(&s[0])?;
        event.synchronize()?;
        Ok(())
    }
}

emulated! {
    /// An executable graph's copy node set to read `b`, launched, then set to read `c`:
    /// `b` may be dropped at once (it is freed after the launch that reads it), `c` too
    /// (the executable graph keeps it).
    fn issue32_copy_node_update_keeps_old_and_new_sources(emu) {
        slow(emu)?;
        let s = streams(2)?;
        let mut dst = DeviceBuffer::<u32>::zeroed(256, &s[0])?;
        let a = DeviceBuffer::from_slice(&[1u32; 256], &s[0])?;
        let b = DeviceBuffer::from_slice(&[2u32; 256], &s[1])?;
        let c = DeviceBuffer::from_slice(&[3u32; 256], &s[1])?;
        let graph = Graph::new()?;
        let node = graph.add_copy_node(&[], &mut dst, &a)?;
        let exec = graph.instantiate()?;
        exec.set_copy_node(node, &mut dst, &b)?;
        hold_back(&s[..1], 100)?;
        exec.launch(&s[0])?;
        exec.set_copy_node(node, &mut dst, &c)?;
        drop((b, c));
        exec.launch(&s[0])?;
        s[0].synchronize()?;
        assert_eq!(dst.to_vec()?, vec![3; 256]);
        let short = DeviceBuffer::<u32>::new(8, &s[0])?;
        assert!(exec.set_copy_node(node, &mut dst, &short).is_err(), "lengths differ");
        Ok(())
    }
}

emulated! {
    /// A kernel node's arguments changed in an executable graph: the new buffer is kept
    /// after it is dropped, and arguments that do not fit the kernel are refused.
    fn issue32_kernel_node_update_keeps_the_new_buffer(emu) {
        slow(emu)?;
        let fill = emu_kernels()?.kernel("emu_fill_u32")?;
        let s = streams(1)?;
        let a = DeviceBuffer::<u32>::zeroed(1024, &s[0])?;
        let (n, v, w) = (1024u32, 4u32, 6u32);
        let graph = Graph::new()?;
        // SAFETY: emu_fill_u32(unsigned*, unsigned, unsigned) over `n` elements.
        let node = unsafe { graph.add_kernel_node(&[], Launch::new(&fill).args((&a, &n, &v)))? };
        let exec = graph.instantiate()?;
        let b = DeviceBuffer::<u32>::zeroed(1024, &s[0])?;
        // SAFETY: as above.
        unsafe { exec.set_kernel_node_params(node, Launch::new(&fill).args((&b, &n, &w)))? };
        drop(b);
        exec.launch(&s[0])?;
        let c = DeviceBuffer::<u32>::zeroed(1024, &s[0])?;
        // SAFETY: as above.
        unsafe { exec.set_kernel_node_params(node, Launch::new(&fill).args((&c, &n, &w)))? };
        exec.launch(&s[0])?;
        assert_eq!(c.to_vec()?, vec![6; 1024]);
        // SAFETY: refused before CUDA sees it.
        let missing = unsafe { exec.set_kernel_node_params(node, Launch::new(&fill).args((&c, &n))) };
        assert!(matches!(missing, Err(cudart13::Error::InvalidArgument(_))), "{missing:?}");
        s[0].synchronize()?;
        Ok(())
    }
}

emulated! {
    /// Event record and wait nodes keep their events: dropped right after the nodes are
    /// made, the events are still recorded and waited on by every launch.
    fn issue32_event_nodes_keep_their_events(emu) {
        slow(emu)?;
        let s = streams(1)?;
        let graph = Graph::new()?;
        let (record, wait) = (Event::new()?, Event::new()?);
        let first = graph.add_event_record_node(&[], &record)?;
        let node = graph.add_event_wait_node(&[first], &wait)?;
        drop((record, wait));
        let exec = graph.instantiate()?;
        exec.launch(&s[0])?;
        let (replacement, other) = (Event::new()?, Event::new()?);
        exec.set_event_record_node(first, &replacement)?;
        exec.set_event_wait_node(node, &other)?;
        let probe = replacement.clone();
        drop((replacement, other));
        exec.launch(&s[0])?;
        s[0].synchronize()?;
        assert!(probe.query()?, "the replaced record node recorded the new event");
        Ok(())
    }
}

/// A module with the emulator's fill kernel and two globals.
const GLOBALS_PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
    .visible .entry emu_fill_u32(.param .u64 p, .param .u32 n, .param .u32 v) { ret; }\n\
    .visible .global .align 4 .u32 counter;\n\
    .visible .const .align 4 .b8 table[64];\n";

emulated! {
    /// Typed globals: written and read through copies, sizes checked; a copy into a global
    /// captured into a graph keeps the module loaded after the global and the module are
    /// dropped.
    fn issue32_captured_global_copy_keeps_its_module(emu) {
        slow(emu)?;
        let module = Module::from_ptx(GLOBALS_PTX)?;
        let mut counter = module.global::<u32>("counter")?;
        counter.write(&5)?;
        assert_eq!(counter.read()?, 5);
        assert!(module.global::<u64>("counter").is_err(), "a global of another size");
        assert!(module.global::<u32>("missing").is_err());
        let mut table = module.global_array::<u32>("table")?;
        assert_eq!(table.len(), 16);
        table.copy_from_host(&[9; 16])?;
        assert_eq!(table.to_vec()?, vec![9; 16]);
        let s = streams(1)?;
        let src = DeviceBuffer::from_slice(&[4u32; 16], &s[0])?;
        let graph = s[0].capture(CaptureMode::GLOBAL, |st| table.as_slice_mut().copy_from_device(&src, st))?;
        drop((table, counter, module));
        let exec = graph.instantiate()?;
        exec.launch(&s[0])?;
        s[0].synchronize()?;
        Ok(())
    }
}

emulated! {
    /// Launches are checked against the kernel's parameters (read once): a missing argument
    /// or one of another size is refused and nothing runs; occupancy suggests a block size.
    fn issue32_launches_are_checked_against_the_parameters(_emu) {
        let fill = Module::from_ptx(GLOBALS_PTX)?.kernel("emu_fill_u32")?;
        let params = fill.params()?.expect("the emulator describes the kernel");
        let sizes: Vec<usize> = params.iter().map(|p| p.size).collect();
        assert_eq!(sizes, [8, 4, 4]);
        let s = streams(1)?;
        let buf = DeviceBuffer::<u32>::zeroed(64, &s[0])?;
        let (n, v, wide) = (64u32, 7u32, 7u64);
        let config = LaunchConfig::new(1, 64)?;
        // SAFETY: refused before CUDA sees the launches.
        let missing = unsafe { fill.launch(&s[0], config, (&buf, &n)) };
        let too_wide = unsafe { fill.launch(&s[0], config, (&buf, &n, &wide)) };
        for refused in [missing, too_wide] {
            assert!(matches!(refused, Err(cudart13::Error::InvalidArgument(_))), "{refused:?}");
        }
        assert_eq!(buf.to_vec()?, vec![0; 64], "nothing was launched");
        let suggested = fill.suggested_config(n, 0)?;
        assert_eq!((suggested.block.x, suggested.grid.x), (1024, 1));
        // SAFETY: emu_fill_u32(unsigned*, unsigned, unsigned) over `n` elements.
        unsafe { fill.launch(&s[0], config, (&buf, &n, &v))? };
        assert_eq!(buf.to_vec()?, vec![7; 64]);
        Ok(())
    }
}

emulated! {
    /// Issue 43: streams and events key maps by handle and events report their flags; a
    /// priority outside the device's range is refused before CUDA clamps it; occupancy obeys a
    /// block-size limit; cluster occupancy is asked with a `LaunchConfig`; the properties are
    /// every field of `cudaDeviceProp`.
    fn issue43_hash_priorities_occupancy_and_properties(_emu) {
        use std::collections::HashSet;
        let s = streams(2)?;
        // A stream's hash is its handle, which never changes (the lint sees its queue's lock).
        #[allow(clippy::mutable_key_type)]
        let keys: HashSet<cudart13::Stream> = [s[0].clone(), s[0].clone(), s[1].clone()].into_iter().collect();
        assert_eq!(keys.len(), 2);
        let (least, greatest) = Device::current()?.stream_priority_range()?;
        let flags = cudart13::StreamFlags::NON_BLOCKING;
        assert_eq!(cudart13::Stream::with_priority(flags, greatest)?.priority()?, greatest);
        let refused = cudart13::Stream::with_priority(flags, greatest.min(least) - 1);
        assert!(matches!(refused, Err(cudart13::Error::InvalidArgument(_))), "{refused:?}");
        let e = s[0].record_event()?;
        let events: HashSet<cudart13::Event> = [e.clone(), e.clone()].into_iter().collect();
        assert_eq!(events.len(), 1);
        assert_eq!(e.is_timing_disabled(), Some(false));
        let fill = Module::from_ptx(GLOBALS_PTX)?.kernel("emu_fill_u32")?;
        assert_eq!(fill.occupancy(0)?.block_size, 1024);
        let limited = fill.occupancy_limited(0, 100)?;
        assert!(limited.block_size <= 100 && limited.block_size > 0, "{limited:?}");
        let by_size = fill.occupancy_variable_smem(|block| block as usize * 512, 0)?;
        assert!(by_size.block_size * by_size.blocks_per_multiprocessor <= 2048, "{by_size:?}");
        assert!(fill.available_dynamic_shared_memory(2, 256)? > 0);
        let config = LaunchConfig::new(8, 128)?.with_cluster(2)?;
        assert_eq!(fill.max_active_clusters(&config)?, 16 * 132 / 2);
        assert_eq!(fill.max_potential_cluster_size(&LaunchConfig::new(8, 128)?)?, 8);
        let props = Device::current()?.properties()?;
        assert_eq!((props.major, props.minor, props.multi_processor_count), (9, 0, 132));
        assert_eq!(props.arch(), "90");
        assert!(props.cluster_launch && props.to_string().lines().count() > 80);
        Ok(())
    }
}

emulated! {
    /// Peer access covers stream-ordered memory: without it a copy from device 1's pool
    /// buffer on device 0's stream is refused; `enable_peer_access` grants the pool's access,
    /// and the copy works.
    fn issue32_peer_access_covers_the_peers_pool(_emu) {
        let devices = Device::all()?;
        assert_eq!(devices.len(), 2);
        assert!(Device::get(-1).is_err() && Device::get(2).is_err());
        let (d0, d1) = (devices[0], devices[1]);
        let (s0, s1) = (d0.stream(cudart13::StreamFlags::NON_BLOCKING)?, d1.stream(cudart13::StreamFlags::NON_BLOCKING)?);
        assert_eq!(Device::current()?, d0, "making a stream keeps the current device");
        let src = DeviceBuffer::from_slice(&[3u32; 512], &s1)?;
        let mut dst = DeviceBuffer::<u32>::new(512, &s0)?;
        assert!(dst.copy_from_device(&src, &s0).is_err(), "no access to device 1's pool yet");
        d0.enable_peer_access(d1)?;
        assert!(cudart13::MemPool::device_default(d1)?.access(d0)?);
        dst.copy_from_device(&src, &s0)?;
        assert_eq!(dst.to_vec()?, vec![3; 512]);
        d0.disable_peer_access(d1)?;
        assert!(!cudart13::MemPool::device_default(d1)?.access(d0)?);
        Ok(())
    }
}

emulated! {
    /// The graph memory pool: a graph that allocates shows in the device's graph memory
    /// statistics, which no `MemPool` reports.
    fn issue32_graph_memory_statistics(_emu) {
        let s = streams(1)?;
        let d0 = Device::get(0)?;
        let capture = s[0].begin_capture(CaptureMode::GLOBAL)?;
        let mut scratch = capture.alloc::<u8>(1 << 20)?;
        scratch.as_slice_mut().memset(1, capture.stream())?;
        drop(scratch);
        let graph = capture.end()?;
        let exec = graph.instantiate()?;
        exec.launch(&s[0])?;
        s[0].synchronize()?;
        let stats = d0.graph_mem_stats()?;
        assert!(stats.used_high >= 1 << 20, "{stats:?}");
        d0.reset_graph_mem_high_watermarks()?;
        assert_eq!(d0.graph_mem_stats()?.used_high, d0.graph_mem_stats()?.used_current);
        d0.graph_mem_trim()?;
        Ok(())
    }
}

// ---- issue 38: the gate ----
#[path = "emulated/gate.rs"]
mod gate;

#[path = "emulated/graph_nodes.rs"]
mod graph_nodes;

#[path = "emulated/host_memory.rs"]
mod host_memory;
