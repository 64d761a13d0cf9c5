//! Issue 38: every road by which CUDA frees, unloads or unmaps what the safe layer owns passes
//! the gate (`lifetime`). One test per road and per class the issue found; each program is
//! without `unsafe` except a kernel launch whose contract it keeps (said where). Each logged
//! a hazard, crashed or failed its assertion on the safe layer before the gate (how, in
//! `tests/emulator/README.md`).

use super::*;
use cudart13::texture::{ChannelFormat, ResourceDesc, TextureDesc, TextureObject};
use cudart13::{InstantiateFlags, ManagedBuffer};

/// The emulator's kernels with the texture fetch.
fn tex_kernels() -> Result<Module, Box<dyn Error>> {
    const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
        .visible .entry emu_fill_u32(.param .u64 p, .param .u32 n, .param .u32 v) { ret; }\n\
        .visible .entry emu_tex_sum_u32(.param .u64 t, .param .u64 o, .param .u32 n) { ret; }\n";
    Ok(Module::from_ptx(PTX)?)
}

emulated! {
    /// Unload: `Module::close` while a copy out of one of the module's globals is still
    /// queued (the global dropped first) must wait for it, as dropping the module does.
    fn gate_01_module_close_while_a_copy_reads_its_global(emu) {
        slow(emu)?;
        let s = streams(1)?;
        let module = Module::from_ptx(GLOBALS_PTX)?;
        let mut counter = module.global::<u32>("counter")?;
        counter.write(&7)?;
        let mut host = PinnedBuffer::<u32>::new(1)?;
        hold_back(&s, 100)?;
        counter.as_slice().copy_to_pinned_async(&mut host, &s[0])?;
        drop(counter);
        module.close()?;
        assert_eq!(host.as_slice()?[0], 7);
        Ok(())
    }
}

emulated! {
    /// Graph free nodes: memory allocated by a capture may not be named by another graph's
    /// explicit node, nor used by the host or another stream while the capture goes on. A
    /// `DeviceBuffer` is refused on a capturing stream; a `GraphBuffer` is refused everywhere
    /// but in its own capture, and freed there.
    fn gate_02_capture_allocation_named_by_another_graph(_emu) {
        let s = streams(2)?;
        let other = Graph::new()?;
        let capture = s[0].begin_capture(CaptureMode::GLOBAL)?;
        match DeviceBuffer::<u8>::new(256, capture.stream()) {
            Err(_) => {}
            Ok(mut buf) => {
                // A graph allocation named by an explicit node of another graph, then freed
                // by the capture: the other graph touches memory outside its lifetime.
                buf.memset(1, capture.stream())?;
                other.add_memset_node(&[], &mut buf, 2)?;
                drop(buf);
            }
        }
        let mut scratch = capture.alloc::<u8>(256)?;
        assert!(other.add_memset_node(&[], &mut scratch, 3).is_err(), "another graph's node");
        assert!(scratch.as_slice_mut().memset(4, &s[1]).is_err(), "a stream outside the capture");
        assert!(scratch.as_slice().to_vec().is_err(), "the host");
        scratch.as_slice_mut().memset(5, capture.stream())?;
        drop(scratch);
        let graph = capture.end()?;
        let exec = graph.instantiate()?;
        exec.launch(&s[0])?;
        if other.node_count()? > 0 {
            other.instantiate()?.launch(&s[1])?;
        }
        s[0].synchronize()?;
        s[1].synchronize()?;
        Ok(())
    }
}

emulated! {
    /// Auto-free on launch: every typed instantiation flag is safe. A graph of the crate
    /// frees its allocations inside itself, so `AUTO_FREE_ON_LAUNCH` frees nothing the
    /// crate knows of, however many times it is launched.
    fn gate_03_auto_free_on_launch(emu) {
        slow(emu)?;
        let s = streams(1)?;
        let mut out = DeviceBuffer::<u32>::zeroed(64, &s[0])?;
        let capture = s[0].begin_capture(CaptureMode::GLOBAL)?;
        match DeviceBuffer::<u32>::new(64, capture.stream()) {
            Err(_) => {}
            Ok(mut escaped) => {
                escaped.memset(1, capture.stream())?;
                std::mem::forget(capture.end()?);
                // The allocation escapes its graph; auto-free relaunches free it behind the
                // buffer.
                return Err("a device buffer was allocated in a capture".into());
            }
        }
        let mut scratch = capture.alloc::<u32>(64)?;
        scratch.as_slice_mut().memset(1, capture.stream())?;
        out.copy_from_device(&scratch, capture.stream())?;
        drop(scratch);
        let graph = capture.end()?;
        let exec = graph.instantiate_with_flags(InstantiateFlags::AUTO_FREE_ON_LAUNCH)?;
        for _ in 0..3 {
            exec.launch(&s[0])?;
        }
        assert_eq!(out.to_vec()?, vec![0x0101_0101; 64]);
        Ok(())
    }
}

emulated! {
    /// A buffer whose memory exists only once the graph runs: `DeviceBuffer::new` on a
    /// capturing stream is refused, so nothing can use it on another stream before.
    fn gate_04_capture_allocation_used_before_the_graph_runs(_emu) {
        let s = streams(2)?;
        let capture = s[0].begin_capture(CaptureMode::GLOBAL)?;
        let made = DeviceBuffer::<u32>::new(1024, capture.stream());
        if let Ok(mut buf) = made {
            // Used on another stream before any launch allocated it.
            buf.memset(0, &s[1])?;
            s[1].synchronize()?;
            let _ = capture.end();
            return Err("a device buffer was allocated in a capture".into());
        }
        let graph = capture.end()?;
        assert_eq!(graph.node_count()?, 0);
        Ok(())
    }
}

emulated! {
    /// A panic payload whose own `Drop` panics, in a host function: caught inside the
    /// callback, never unwinding into C (an abort).
    fn gate_06_a_payload_that_panics_when_dropped(_emu) {
        struct Bomb;
        impl Drop for Bomb {
            fn drop(&mut self) {
                panic!("the payload's own drop");
            }
        }
        let s = streams(1)?;
        s[0].launch_host_func(|| std::panic::panic_any(Bomb))?;
        s[0].synchronize()?;
        Ok(())
    }
}

emulated! {
    /// The bookkeeping's waits, queries and frees run in relaxed capture mode: while another
    /// thread captures in global mode, a shareable buffer is freed (`cudaFree`), a pinned
    /// view waits, and an executable graph's launches are polled on the release thread
    /// (`cudaEventQuery`), and the capture survives.
    fn gate_07_bookkeeping_under_another_threads_global_capture(emu) {
        slow(emu)?;
        let s = streams(3)?;
        let shared = DeviceBuffer::<u8>::new_shareable(4096, &s[1])?;
        let mut host = PinnedBuffer::<u8>::new(4096)?;
        let dev = DeviceBuffer::<u8>::zeroed(4096, &s[1])?;
        let small = DeviceBuffer::<u8>::zeroed(64, &s[2])?;
        let mut copy = DeviceBuffer::<u8>::new(64, &s[2])?;
        let graph = s[2].capture(CaptureMode::RELAXED, |st| copy.copy_from_device(&small, st))?;
        let exec = graph.instantiate()?;
        exec.launch(&s[2])?;
        let (begun, has_begun) = std::sync::mpsc::channel();
        let (finished, has_finished) = std::sync::mpsc::channel::<()>();
        let capturing = s[0].clone();
        let capturer = std::thread::spawn(move || -> Result<(), String> {
            let mut buf = DeviceBuffer::<u8>::zeroed(64, &capturing).map_err(|e| e.to_string())?;
            capturing.synchronize().map_err(|e| e.to_string())?;
            let capture = capturing.begin_capture(CaptureMode::GLOBAL).map_err(|e| e.to_string())?;
            buf.memset(9, capture.stream()).map_err(|e| e.to_string())?;
            begun.send(()).map_err(|e| e.to_string())?;
            has_finished.recv().map_err(|e| e.to_string())?;
            capture.end().map(drop).map_err(|e| format!("the global capture was spoiled: {e}"))
        });
        has_begun.recv()?;
        dev.copy_to_pinned_async(&mut host, &s[1])?;
        assert_eq!(host.as_slice()?[0], 0);
        drop(shared);
        drop(exec);
        std::thread::sleep(Duration::from_millis(100) * emulator::time_scale());
        finished.send(())?;
        capturer.join().map_err(|_| "capturing thread panicked")??;
        Ok(())
    }
}

emulated! {
    /// A captured launch keeps a managed buffer among its arguments alive for the graph. (The
    /// launch is `unsafe`; its contract holds: `emu_fill_u32` writes `n` elements.)
    fn gate_08_managed_buffer_in_a_captured_launch(_emu) {
        let fill = emu_kernels()?.kernel("emu_fill_u32")?;
        let s = streams(1)?;
        let managed = ManagedBuffer::<u32>::new(1024)?;
        let (n, v) = (1024u32, 6u32);
        let graph = s[0].capture(CaptureMode::GLOBAL, |st| {
            // SAFETY: emu_fill_u32(unsigned*, unsigned, unsigned) over `n` elements.
            unsafe { fill.launch(st, LaunchConfig::for_num_elems(n), (&managed, &n, &v)) }
        })?;
        let exec = graph.instantiate()?;
        drop((graph, managed, fill));
        exec.launch(&s[0])?;
        s[0].synchronize()?;
        Ok(())
    }
}

emulated! {
    /// Texture objects: a launch is a use of the object and of the memory it reads, on
    /// whatever stream: both are freed after it. (The launch is `unsafe`; `emu_tex_sum_u32`
    /// reads `n` texels.)
    fn gate_08_texture_object_launched_on_another_stream(emu) {
        slow(emu)?;
        let sum = tex_kernels()?.kernel("emu_tex_sum_u32")?;
        let s = streams(2)?;
        let data = DeviceBuffer::from_slice(&[3u32; 256], &s[0])?;
        let out = DeviceBuffer::<u32>::zeroed(1, &s[1])?;
        s[1].synchronize()?;
        let n = 256u32;
        let texture = TextureObject::new(
            &ResourceDesc::linear(&data, ChannelFormat::of::<u32>()),
            &TextureDesc::new(),
        )?;
        hold_back(&s[1..], 100)?;
        // SAFETY: emu_tex_sum_u32(cudaTextureObject_t, unsigned*, unsigned) reads n texels.
        unsafe { sum.launch(&s[1], LaunchConfig::new(1, 1)?, (&texture, &out, &n))? };
        drop(texture);
        drop(data);
        assert_eq!(out.to_vec()?, vec![768]);
        Ok(())
    }
}

emulated! {
    /// A capture refuses a texture object (it borrows its memory; a graph would outlive the
    /// borrow and the object). (The launch is `unsafe`; its contract holds.)
    fn gate_08_texture_object_in_a_capture(_emu) {
        let sum = tex_kernels()?.kernel("emu_tex_sum_u32")?;
        let s = streams(1)?;
        let out = DeviceBuffer::<u32>::zeroed(1, &s[0])?;
        let n = 256u32;
        let graph = {
            let data = DeviceBuffer::from_slice(&[3u32; 256], &s[0])?;
            let texture = TextureObject::new(
                &ResourceDesc::linear(&data, ChannelFormat::of::<u32>()),
                &TextureDesc::new(),
            )?;
            s[0].capture(CaptureMode::GLOBAL, |st| {
                // SAFETY: emu_tex_sum_u32 reads n texels of a live texture object.
                unsafe { sum.launch(st, LaunchConfig::new(1, 1)?, (&texture, &out, &n)) }
            })
        };
        if let Ok(graph) = graph {
            // The texture and its memory are gone; the graph still reads through them.
            graph.instantiate()?.launch(&s[0])?;
            s[0].synchronize()?;
            return Err("a texture object was captured".into());
        }
        Ok(())
    }
}

emulated! {
    /// A capture of the per-thread default stream ends on the device it began on, whichever
    /// is current at the end; the stream is no longer capturing afterwards.
    fn gate_09_per_thread_capture_ended_with_another_device_current(_emu) {
        Device::get(0)?.set_current()?;
        let pt = Stream::per_thread();
        let capture = pt.begin_capture(CaptureMode::THREAD_LOCAL)?;
        Device::get(1)?.set_current()?;
        let ended = capture.end();
        Device::get(0)?.set_current()?;
        let graph = ended?;
        assert!(!pt.is_capturing()?, "device 0's per-thread stream still captures");
        drop(graph);
        let buf = DeviceBuffer::<u8>::zeroed(16, &pt)?;
        assert_eq!(buf.to_vec()?, vec![0; 16]);
        Ok(())
    }
}

emulated! {
    /// Ordinary memory dropped during a capture of its home stream that used it: never freed
    /// inside the capture (CUDA refuses a free node of memory no graph allocated), but once
    /// the capture ends and the graph that holds it lets go.
    fn gate_10_ordinary_memory_dropped_in_a_capture(_emu) {
        let s = streams(1)?;
        let mut buf = DeviceBuffer::<u32>::zeroed(256, &s[0])?;
        s[0].synchronize()?;
        let capture = s[0].begin_capture(CaptureMode::GLOBAL)?;
        buf.memset(1, capture.stream())?;
        drop(buf);
        let graph = capture.end()?;
        let exec = graph.instantiate()?;
        drop(graph);
        exec.launch(&s[0])?;
        s[0].synchronize()?;
        Ok(())
    }
}

/// A fatbin of one cubin entry whose ELF's section table (2 entries of 64 bytes at offset 64)
/// runs `short` bytes past the entry and the image.
fn fatbin_with_a_long_cubin(short: usize) -> Vec<u8> {
    let payload = 64 + 128 - short;
    let mut b = vec![0u8; 16 + 16 + payload];
    b[..4].copy_from_slice(&0xBA55_ED50u32.to_le_bytes());
    b[6..8].copy_from_slice(&16u16.to_le_bytes());
    b[8..16].copy_from_slice(&((16 + payload) as u64).to_le_bytes());
    b[16..18].copy_from_slice(&2u16.to_le_bytes());
    b[20..24].copy_from_slice(&16u32.to_le_bytes());
    b[24..32].copy_from_slice(&(payload as u64).to_le_bytes());
    let e = &mut b[32..];
    e[..4].copy_from_slice(b"\x7fELF");
    e[4] = 2;
    e[5] = 1;
    e[40..48].copy_from_slice(&64u64.to_le_bytes());
    e[58..60].copy_from_slice(&64u16.to_le_bytes());
    e[60..62].copy_from_slice(&2u16.to_le_bytes());
    b
}

emulated! {
    /// A cubin nested in a fatbin is read by its own headers: one whose section table runs
    /// past its entry (and the image) is refused before CUDA reads it.
    fn gate_11_fatbin_with_a_cubin_past_its_entry(_emu) {
        assert!(Module::from_bytes(&fatbin_with_a_long_cubin(0)).is_ok());
        let refused = Module::from_bytes(&fatbin_with_a_long_cubin(64));
        assert!(matches!(refused, Err(cudart13::Error::InvalidArgument(_))), "{refused:?}");
        Ok(())
    }
}

emulated! {
    /// Exclusion per buffer: a host view of a pinned buffer another graph holds does not stop
    /// a graph from launching; a view of the buffer the graph holds does.
    fn gate_12_a_view_excludes_only_its_own_buffers_graphs(_emu) {
        let s = streams(2)?;
        let dev = DeviceBuffer::<u32>::zeroed(64, &s[0])?;
        let mut held = PinnedBuffer::<u32>::new(64)?;
        let mut unrelated = PinnedBuffer::<u32>::new(64)?;
        let graph = Graph::new()?;
        graph.add_copy_to_pinned_node(&[], &mut held, &dev)?;
        let exec = graph.instantiate()?;
        let other = Graph::new()?;
        other.add_copy_to_pinned_node(&[], &mut unrelated, &dev)?;
        let other_exec = other.instantiate()?;
        other_exec.launch(&s[1])?;
        let view = unrelated.as_slice()?;
        exec.launch(&s[0])?;
        exec.launch(&s[1])?;
        assert!(other_exec.launch(&s[1]).is_err(), "a view of the other graph's buffer");
        drop(view);
        let mine = held.as_slice()?;
        assert!(exec.launch(&s[0]).is_err(), "a view of the graph's own buffer is alive");
        assert_eq!(mine[0], 0);
        Ok(())
    }
}

/// Errors of frees the gate reported (the child's own count).
static DROP_ERRORS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn count_drop_error(resource: &'static str, error: &cudart13::Error) {
    if let Ok(mut errors) = DROP_ERRORS.lock() {
        errors.push(format!("{resource}: {error}"));
    }
}

emulated! {
    /// Frees on one thread while another begins and ends global-mode captures of the crate's
    /// over and over: a free that skipped relaxing its thread's capture mode (no capture was
    /// active when it began) must not run inside a capture's window, where CUDA refuses a
    /// `cudaFreeAsync` and invalidates the capture. Every capture ends whole and every free
    /// succeeds.
    fn gate_13_frees_race_global_captures_begun_elsewhere(_emu) {
        cudart13::set_drop_error_hook(Some(count_drop_error));
        let s = streams(2)?;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Allocated before any capture runs: an allocation is the application's own call,
        // which a global capture elsewhere refuses (and is spoiled by), as in C.
        let buffers = (0..400)
            .map(|_| DeviceBuffer::<u32>::new(256, &s[1]))
            .collect::<Result<Vec<_>, _>>()?;
        s[1].synchronize()?;
        let capturing = s[0].clone();
        let done = stop.clone();
        let (started, has_started) = std::sync::mpsc::channel();
        let capturer = std::thread::spawn(move || -> Result<usize, String> {
            let mut buf = DeviceBuffer::<u8>::zeroed(64, &capturing).map_err(|e| e.to_string())?;
            capturing.synchronize().map_err(|e| e.to_string())?;
            let mut n = 0;
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                let capture = capturing.begin_capture(CaptureMode::GLOBAL).map_err(|e| e.to_string())?;
                buf.memset(n as u8, capture.stream()).map_err(|e| e.to_string())?;
                capture
                    .end()
                    .map(drop)
                    .map_err(|e| format!("capture {n} was spoiled: {e}"))?;
                if n == 0 {
                    started.send(()).map_err(|e| e.to_string())?;
                }
                n += 1;
            }
            Ok(n)
        });
        has_started.recv()?;
        let freed = buffers.len();
        for buf in buffers {
            drop(buf);
            std::thread::yield_now();
        }
        assert_eq!(freed, 400);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let captures = capturer.join().map_err(|_| "capturing thread panicked")??;
        assert!(captures > 0, "no capture overlapped the frees");
        let errors = DROP_ERRORS.lock().map_or(0, |e| e.len());
        assert_eq!(errors, 0, "frees failed (reported through the drop-error hook)");
        Ok(())
    }
}
