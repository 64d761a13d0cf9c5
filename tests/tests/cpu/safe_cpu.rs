//! The safe layer on a machine without a GPU: against the real `libcudart.so.13` of NVIDIA's
//! wheel (`CUDART_WHEEL_LIB`, set by `cargo xtask test`), where every call that needs a
//! driver fails with a CUDA error; and, in a child process, without any library, where
//! every call fails with the loader's error. Nothing may panic, drops report through the
//! hook, and the documented CuPy mapping lists every CuPy name.

use std::path::PathBuf;
use std::sync::{Mutex, Once};

use cudart13::kernel::KernelArgs;
use cudart13::memory::{HookedAllocator, PoolAllocator, RuntimeAllocator};
use cudart13::sys;
use cudart13::texture::{CudaArray, SurfaceObject, TextureObject};
use cudart13::{
    profiler, set_drop_error_hook, CaptureGuard, Device, DeviceBuffer, DevicePtr, DeviceSlice,
    DeviceSliceMut, Error, Event, Graph, GraphExec, Kernel, LaunchConfig, ManagedBuffer, MemPool,
    Module, PinnedBuffer, PinnedPool, Stream,
};

fn wheel_lib() -> PathBuf {
    match std::env::var_os("CUDART_WHEEL_LIB") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!(
            "CUDART_WHEEL_LIB is not set: run `cargo xtask test`, or run `cargo xtask \
             fetch-wheel` and set CUDART_WHEEL_LIB to the libcudart.so.13 path it prints"
        ),
    }
}

/// Points the global library at the wheel's (unless this is the no-library child).
fn use_wheel() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("CUDART_SAFE_NO_LIBRARY_CHILD").is_none() {
            std::env::set_var("CUDART_PATH", wheel_lib());
        }
    });
}

/// `cudaErrorInsufficientDriver` and `cudaErrorNoDevice`: what a machine without a driver
/// or a GPU answers.
fn is_no_gpu_error(e: &Error) -> bool {
    matches!(e.cuda_code(), Some(35) | Some(100))
}

#[test]
fn device_count_is_the_documented_error_without_a_driver() {
    use_wheel();
    let e = Device::count().expect_err("no GPU here");
    assert!(is_no_gpu_error(&e), "{e}");
    assert!(Device::get(0).is_err());
    assert!(Device::current().is_err());
    assert!(Device::from_ordinal(0).properties().is_err());
    assert!(cudart13::device::runtime_version().expect("the runtime answers") / 1000 == 13);
}

#[test]
fn every_constructor_returns_an_error_not_a_panic() {
    use_wheel();
    let legacy = Stream::legacy();
    let errors: Vec<(&str, Error)> = vec![
        ("Stream::new", Stream::new().err().unwrap()),
        (
            "Stream::non_blocking",
            Stream::non_blocking().err().unwrap(),
        ),
        ("Event::new", Event::new().err().unwrap()),
        (
            "DeviceBuffer::new",
            DeviceBuffer::<f32>::new(1024, &legacy).err().unwrap(),
        ),
        (
            "DeviceBuffer::from_slice",
            DeviceBuffer::from_slice(&[1u8, 2, 3], &legacy)
                .err()
                .unwrap(),
        ),
        (
            "PinnedBuffer::new",
            PinnedBuffer::<u8>::new(64).err().unwrap(),
        ),
        (
            "PinnedPool::alloc",
            PinnedPool::new().alloc::<u32>(16).err().unwrap(),
        ),
        (
            "ManagedBuffer::new",
            ManagedBuffer::<u8>::new(64).err().unwrap(),
        ),
        (
            "MemPool::new",
            MemPool::new(Device::from_ordinal(0)).err().unwrap(),
        ),
        (
            "MemPool::device_default",
            MemPool::device_default(Device::from_ordinal(0))
                .err()
                .unwrap(),
        ),
        (
            "Module::from_ptx",
            Module::from_ptx(".version 7.0").err().unwrap(),
        ),
        ("Graph::new", Graph::new().err().unwrap()),
        ("legacy.synchronize", legacy.synchronize().err().unwrap()),
    ];
    for (what, e) in &errors {
        assert!(e.cuda_code().is_some(), "{what}: {e}");
    }
    // Profiling calls may succeed without a device; they must not panic.
    let _ = profiler::start();
    let _ = profiler::stop();
    // Nothing is allocated for zero elements, so these succeed.
    assert!(DeviceBuffer::<u8>::new(0, &legacy).is_ok());
    assert!(PinnedBuffer::<u8>::new(0).is_ok());
}

static HOOK_CALLS: Mutex<Vec<(&'static str, Option<i32>)>> = Mutex::new(Vec::new());

fn recording_hook(resource: &'static str, error: &Error) {
    HOOK_CALLS
        .lock()
        .unwrap()
        .push((resource, error.cuda_code()));
}

#[test]
fn failed_destroys_in_drop_reach_the_hook_and_close_returns_them() {
    use_wheel();
    let previous = set_drop_error_hook(Some(recording_hook));
    HOOK_CALLS.lock().unwrap().clear();
    // Handles that were never created: destroying them fails (no driver), in `Drop`.
    let fake = 0x1234 as *mut std::ffi::c_void;
    // SAFETY: without a driver the runtime refuses every handle before using it.
    unsafe {
        drop(Event::from_raw(sys::cudaEvent_t(fake.cast())));
        drop(Stream::from_raw(sys::cudaStream_t(fake.cast())));
        drop(Graph::from_raw(sys::cudaGraph_t(fake.cast())));
    }
    // SAFETY: as above.
    let e = unsafe { Event::from_raw(sys::cudaEvent_t(fake.cast())) }
        .close()
        .expect_err("close returns the error");
    assert!(e.cuda_code().is_some(), "{e}");
    let calls = std::mem::take(&mut *HOOK_CALLS.lock().unwrap());
    set_drop_error_hook(previous);
    let resources: Vec<&str> = calls.iter().map(|(r, _)| *r).collect();
    assert_eq!(resources, ["event", "stream", "graph"], "{calls:?}");
    assert!(calls.iter().all(|(_, code)| code.is_some()), "{calls:?}");
}

#[test]
fn launch_arguments_are_packed_in_order_without_launching() {
    use_wheel();
    // SAFETY: never launched.
    let kernel = unsafe { Kernel::from_raw(sys::cudaKernel_t::null()) };
    let stream = Stream::legacy();
    let buf = DeviceBuffer::<u64>::new(0, &stream).unwrap();
    let (n, x, v) = (42u32, -1.5f32, [7i16; 3]);
    let launch = stream
        .launch(&kernel)
        .config(LaunchConfig::for_num_elems(1000))
        .args((&buf, &n, &x, &v));
    let ptrs = launch.arg_pointers().to_vec();
    assert_eq!(ptrs.len(), 4);
    // SAFETY: each pointer is the address of a borrowed argument.
    unsafe {
        assert_eq!(
            *ptrs[0].cast::<*mut u64>(),
            buf.as_device_ptr().as_raw().cast()
        );
        assert_eq!(*ptrs[1].cast::<u32>(), 42);
        assert_eq!(*ptrs[2].cast::<f32>(), -1.5);
        assert_eq!(*ptrs[3].cast::<[i16; 3]>(), [7; 3]);
    }
    assert!(!launch.has_attributes());
    let with_cluster = stream.launch(&kernel).args(()).cluster(2);
    assert!(with_cluster.has_attributes() && with_cluster.arg_pointers().is_empty());
    fn takes_args<'a>(_: impl KernelArgs<'a>) {}
    takes_args((&n,));
}

#[test]
fn public_types_are_send_and_sync_where_cuda_allows() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Device>();
    send_sync::<Stream>();
    send_sync::<Event>();
    send_sync::<DeviceBuffer<f32>>();
    send_sync::<DeviceSlice<'static, u8>>();
    send_sync::<DeviceSliceMut<'static, u8>>();
    send_sync::<DevicePtr>();
    send_sync::<PinnedBuffer<u32>>();
    send_sync::<PinnedPool>();
    send_sync::<ManagedBuffer<f64>>();
    send_sync::<MemPool>();
    send_sync::<Module>();
    send_sync::<Kernel>();
    send_sync::<CudaArray>();
    send_sync::<TextureObject<'static>>();
    send_sync::<SurfaceObject<'static>>();
    send_sync::<HookedAllocator<RuntimeAllocator>>();
    send_sync::<PoolAllocator>();
    // Graphs are used by one thread at a time (CUDA does not lock them).
    send::<Graph>();
    send::<GraphExec>();
    // A capture and a device guard belong to the thread that began them; graphs are not
    // shared between threads. (`<T as NotSend<_>>::check()` is ambiguous, and does not
    // compile, exactly when `T: Send`; likewise for `Sync`.)
    trait NotSend<A> {
        fn check() {}
    }
    impl<T: ?Sized> NotSend<()> for T {}
    impl<T: ?Sized + Send> NotSend<u8> for T {}
    trait NotSync<A> {
        fn check() {}
    }
    impl<T: ?Sized> NotSync<()> for T {}
    impl<T: ?Sized + Sync> NotSync<u8> for T {}
    <CaptureGuard<'static> as NotSend<_>>::check();
    <cudart13::DeviceGuard as NotSend<_>>::check();
    <Graph as NotSync<_>>::check();
    <GraphExec as NotSync<_>>::check();
}

/// Run by `without_the_library_every_call_is_the_loaders_error` with `CUDART_PATH`
/// naming a file that does not exist.
#[test]
#[ignore = "run in a child process by without_the_library_every_call_is_the_loaders_error"]
fn child_without_the_library() {
    assert!(std::env::var_os("CUDART_SAFE_NO_LIBRARY_CHILD").is_some());
    let not_found = |e: Error| matches!(e, Error::LibraryNotFound { .. });
    assert!(not_found(Device::count().unwrap_err()));
    assert!(not_found(Stream::new().unwrap_err()));
    assert!(not_found(
        DeviceBuffer::<u8>::new(8, &Stream::legacy()).unwrap_err()
    ));
    assert!(not_found(PinnedBuffer::<u8>::new(8).unwrap_err()));
    assert!(not_found(Module::from_ptx("x").unwrap_err()));
    assert!(not_found(profiler::start().unwrap_err()));
    // Drops report the loader's error to the hook; the default hook stays silent.
    let previous = set_drop_error_hook(Some(recording_hook));
    // SAFETY: the library is absent: nothing is called.
    drop(unsafe { Event::from_raw(sys::cudaEvent_t::null()) });
    set_drop_error_hook(previous);
    assert_eq!(*HOOK_CALLS.lock().unwrap(), [("event", None)]);
    // SAFETY: as above.
    drop(unsafe { Stream::from_raw(sys::cudaStream_t::null()) });
}

#[test]
fn without_the_library_every_call_is_the_loaders_error() {
    let text = workspace_tests::child::run("safe_cpu::child_without_the_library", |cmd| {
        cmd.env("CUDART_SAFE_NO_LIBRARY_CHILD", "1")
            .env("CUDART_PATH", "/nonexistent/libcudart.so.13");
    });
    assert!(
        !text.contains("releasing a"),
        "the default hook is silent when the library is absent:\n{text}"
    );
}

/// Every name CuPy's "Low-Level CUDA Support" page lists (autosummary entries and C
/// functions), in page order.
fn cupy_names() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let rst = std::fs::read_to_string(root.join("docs-src/cupy/cupy.cuda.low-level.rst"))
        .expect("CuPy RST");
    let mut names = Vec::new();
    let mut in_summary = false;
    for line in rst.lines() {
        let t = line.trim();
        if let Some(sig) = t.strip_prefix(".. c:function::") {
            let before_paren = sig.split('(').next().unwrap_or("");
            let name = before_paren.rsplit([' ', '*']).next().unwrap_or("");
            names.push(name.to_string());
            in_summary = false;
        } else if t.starts_with(".. autosummary::") {
            in_summary = true;
        } else if in_summary {
            if t.is_empty() || t.starts_with(':') {
                continue;
            }
            if line.starts_with("   ") && t.starts_with("cupy.") {
                names.push(t.to_string());
            } else {
                in_summary = false;
            }
        }
    }
    names
}

#[test]
fn the_cupy_mapping_names_every_cupy_item() {
    let names = cupy_names();
    let runtime = names
        .iter()
        .filter(|n| n.starts_with("cupy.cuda.runtime."))
        .count();
    assert_eq!(runtime, 53, "the page lists 53 runtime functions");
    assert_eq!(names.len(), 102, "{names:?}");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/cupy-mapping.md")).expect("mapping doc");
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !doc.contains(&format!("`{n}`")))
        .collect();
    assert!(missing.is_empty(), "docs/cupy-mapping.md lacks {missing:?}");
    // Every row says where the name went or why it did not.
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').collect();
        assert!(
            cells.len() >= 4 && !cells[2].trim().is_empty(),
            "a row without a mapping: {line}"
        );
    }
}
