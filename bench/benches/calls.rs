//! Instructions per call, counted by callgrind, against a stand-in `libcudart.so.13`
//! (`bench/c/standin.c`, compiled with `cc` into a temporary folder) whose functions return at
//! once: what is counted is the caller's overhead.
//!
//! `cargo bench -p cudart-bench --bench calls` compiles the stand-in, then runs this same
//! binary under `valgrind --tool=callgrind` once per variant with N and with 2N calls; the
//! difference over N is the count per call (loading, start-up and exit cancel out).
//! Variants, each for `cudaGetDevice` and `cudaDeviceGetAttribute`:
//! - `bare`: a function pointer taken once with `libloading`, read from a static, called;
//! - `cudarc_sys`: cudarc 0.19.10's `runtime::sys` (dynamic loading);
//! - `sys`: this crate's `cudart13::sys` (returns `Result<cudaError_t>`);
//! - `api`: this crate's `cudart13::api` (returns `Result<i32>`, the status checked).
//!
//! And the safe layer's hot paths, over the bare C call they make: a builder launch of a
//! kernel of two parameters (a device buffer and a `u32`) checked against the kernel's
//! parameters (`launch/safe`) and not (`launch/safe_unchecked`), beside `cudaLaunchKernel`
//! alone (`launch/bare`); a `DeviceBuffer`'s allocation and free (`alloc_free/safe`) beside
//! `cudaMallocAsync` + `cudaFreeAsync` (`alloc_free/bare`).
//!
//! Nothing is asserted: it prints a table. Without valgrind it says so and exits 0.
use std::ffi::c_int;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicPtr, Ordering};

type GetDevice = unsafe extern "C" fn(*mut c_int) -> c_int;
type GetAttribute = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int;

static BARE_GET_DEVICE: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());
static BARE_GET_ATTRIBUTE: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

const ATTR: c_int = 16; // cudaDevAttrMultiProcessorCount

#[inline(never)]
fn bare_get_device() -> c_int {
    let f = BARE_GET_DEVICE.load(Ordering::Relaxed);
    // SAFETY: set in `main` from the library's `cudaGetDevice`, of this C type.
    let f: GetDevice = unsafe { std::mem::transmute::<*mut (), GetDevice>(f) };
    let mut d = 0;
    // SAFETY: writes one int.
    let status = unsafe { f(&mut d) };
    if status == 0 {
        d
    } else {
        -1
    }
}

#[inline(never)]
fn bare_get_attribute() -> c_int {
    let f = BARE_GET_ATTRIBUTE.load(Ordering::Relaxed);
    // SAFETY: set in `main` from the library's `cudaDeviceGetAttribute`, of this C type.
    let f: GetAttribute = unsafe { std::mem::transmute::<*mut (), GetAttribute>(f) };
    let mut v = 0;
    // SAFETY: writes one int.
    let status = unsafe { f(&mut v, ATTR, 0) };
    if status == 0 {
        v
    } else {
        -1
    }
}

#[inline(never)]
fn cudarc_get_device() -> c_int {
    let mut d = 0;
    // SAFETY: writes one int.
    let status = unsafe { cudarc::runtime::sys::cudaGetDevice(&mut d) };
    if status == cudarc::runtime::sys::cudaError_t::cudaSuccess {
        d
    } else {
        -1
    }
}

#[inline(never)]
fn cudarc_get_attribute() -> c_int {
    let mut v = 0;
    // SAFETY: writes one int.
    let status = unsafe {
        cudarc::runtime::sys::cudaDeviceGetAttribute(
            &mut v,
            cudarc::runtime::sys::cudaDeviceAttr::cudaDevAttrMultiProcessorCount,
            0,
        )
    };
    if status == cudarc::runtime::sys::cudaError_t::cudaSuccess {
        v
    } else {
        -1
    }
}

#[inline(never)]
fn sys_get_device() -> c_int {
    let mut d = 0;
    // SAFETY: writes one int.
    match unsafe { cudart13::sys::cudaGetDevice(&mut d) } {
        Ok(s) if s == cudart13::sys::cudaError_t::SUCCESS => d,
        _ => -1,
    }
}

#[inline(never)]
fn sys_get_attribute() -> c_int {
    let mut v = 0;
    let attr = cudart13::sys::cudaDeviceAttr::from_raw(ATTR as _);
    // SAFETY: writes one int.
    match unsafe { cudart13::sys::cudaDeviceGetAttribute(&mut v, attr, 0) } {
        Ok(s) if s == cudart13::sys::cudaError_t::SUCCESS => v,
        _ => -1,
    }
}

#[inline(never)]
fn api_get_device() -> c_int {
    cudart13::api::get_device().unwrap_or(-1)
}

#[inline(never)]
fn api_get_attribute() -> c_int {
    let attr = cudart13::sys::cudaDeviceAttr::from_raw(ATTR as _);
    cudart13::api::device_get_attribute(attr, 0).unwrap_or(-1)
}

/// The safe layer's objects the launch and allocation variants use, made on first use.
struct Safe {
    kernel: cudart13::Kernel,
    stream: cudart13::Stream,
    buffer: cudart13::DeviceBuffer<u32>,
    n: u32,
}

fn safe() -> &'static Safe {
    static SAFE: std::sync::OnceLock<Safe> = std::sync::OnceLock::new();
    SAFE.get_or_init(|| {
        let kernel = cudart13::Module::from_ptx(".entry k(.param .u64 p, .param .u32 n) { ret; }")
            .and_then(|m| m.kernel("k"))
            .expect("the stand-in's kernel");
        let stream = cudart13::Stream::non_blocking().expect("a stand-in stream");
        let buffer = cudart13::DeviceBuffer::new(16, &stream).expect("stand-in memory");
        Safe {
            kernel,
            stream,
            buffer,
            n: 16,
        }
    })
}

type LaunchKernel = unsafe extern "C" fn(
    *const std::ffi::c_void,
    cudart13::sys::dim3,
    cudart13::sys::dim3,
    *mut *mut std::ffi::c_void,
    usize,
    *mut std::ffi::c_void,
) -> c_int;
type MallocAsync =
    unsafe extern "C" fn(*mut *mut std::ffi::c_void, usize, *mut std::ffi::c_void) -> c_int;
type FreeAsync = unsafe extern "C" fn(*mut std::ffi::c_void, *mut std::ffi::c_void) -> c_int;

static BARE_LAUNCH: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());
static BARE_MALLOC_ASYNC: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());
static BARE_FREE_ASYNC: AtomicPtr<()> = AtomicPtr::new(std::ptr::null_mut());

#[inline(never)]
fn bare_launch() -> c_int {
    let s = safe();
    let f = BARE_LAUNCH.load(Ordering::Relaxed);
    // SAFETY: set in `child` from the library's `cudaLaunchKernel`, of this C type.
    let f: LaunchKernel = unsafe { std::mem::transmute::<*mut (), LaunchKernel>(f) };
    let one = cudart13::sys::dim3 { x: 1, y: 1, z: 1 };
    let mut ptr = s.buffer.as_device_ptr().as_raw();
    let mut args = [
        (&mut ptr as *mut *mut std::ffi::c_void).cast(),
        (&s.n as *const u32).cast_mut().cast(),
    ];
    // SAFETY: the stand-in reads nothing.
    unsafe {
        f(
            s.kernel.as_raw().0.cast_const().cast(),
            one,
            one,
            args.as_mut_ptr(),
            0,
            s.stream.as_raw().0.cast(),
        )
    }
}

#[inline(never)]
fn safe_launch() -> c_int {
    let s = safe();
    // SAFETY: the stand-in's kernel takes (unsigned*, unsigned) and runs nothing.
    let r = unsafe {
        s.stream
            .launch(&s.kernel)
            .grid(1)
            .block(1)
            .arg(&s.buffer)
            .arg(&s.n)
            .run()
    };
    if r.is_ok() {
        0
    } else {
        -1
    }
}

#[inline(never)]
fn safe_launch_unchecked() -> c_int {
    let s = safe();
    // SAFETY: as above.
    let r = unsafe {
        s.stream
            .launch(&s.kernel)
            .grid(1)
            .block(1)
            .arg(&s.buffer)
            .arg(&s.n)
            .run_unchecked()
    };
    if r.is_ok() {
        0
    } else {
        -1
    }
}

#[inline(never)]
fn bare_alloc_free() -> c_int {
    let s = safe();
    // SAFETY: set in `child` from the library's functions, of these C types.
    let (alloc, free): (MallocAsync, FreeAsync) = unsafe {
        (
            std::mem::transmute::<*mut (), MallocAsync>(BARE_MALLOC_ASYNC.load(Ordering::Relaxed)),
            std::mem::transmute::<*mut (), FreeAsync>(BARE_FREE_ASYNC.load(Ordering::Relaxed)),
        )
    };
    let stream = s.stream.as_raw().0.cast();
    let mut p = std::ptr::null_mut();
    // SAFETY: the stand-in writes one pointer and frees nothing.
    unsafe {
        if alloc(&mut p, 1 << 20, stream) != 0 {
            return -1;
        }
        free(p, stream)
    }
}

#[inline(never)]
fn safe_alloc_free() -> c_int {
    let s = safe();
    match cudart13::DeviceBuffer::<u8>::new(1 << 20, &s.stream) {
        Ok(b) => {
            drop(b);
            0
        }
        Err(_) => -1,
    }
}

/// One measured call: its name and the function making it.
type Variant = (&'static str, fn() -> c_int);

const VARIANTS: &[Variant] = &[
    ("get_device/bare", bare_get_device),
    ("get_device/cudarc_sys", cudarc_get_device),
    ("get_device/sys", sys_get_device),
    ("get_device/api", api_get_device),
    ("device_get_attribute/bare", bare_get_attribute),
    ("device_get_attribute/cudarc_sys", cudarc_get_attribute),
    ("device_get_attribute/sys", sys_get_attribute),
    ("device_get_attribute/api", api_get_attribute),
    ("launch/bare", bare_launch),
    ("launch/safe", safe_launch),
    ("launch/safe_unchecked", safe_launch_unchecked),
    ("alloc_free/bare", bare_alloc_free),
    ("alloc_free/safe", safe_alloc_free),
];

/// Child mode: `calls --child VARIANT N LIBRARY`.
fn child(variant: &str, n: u64, library: &Path) {
    // SAFETY: the stand-in library has no initialisers.
    let lib = unsafe { libloading::Library::new(library) }.expect("stand-in library opens");
    // SAFETY: the symbols have these C types in the stand-in.
    unsafe {
        let f = *lib
            .get::<GetDevice>(b"cudaGetDevice\0")
            .expect("cudaGetDevice");
        BARE_GET_DEVICE.store(f as *mut (), Ordering::Relaxed);
        let f = *lib
            .get::<GetAttribute>(b"cudaDeviceGetAttribute\0")
            .expect("cudaDeviceGetAttribute");
        BARE_GET_ATTRIBUTE.store(f as *mut (), Ordering::Relaxed);
        let f = *lib
            .get::<LaunchKernel>(b"cudaLaunchKernel\0")
            .expect("cudaLaunchKernel");
        BARE_LAUNCH.store(f as *mut (), Ordering::Relaxed);
        let f = *lib
            .get::<MallocAsync>(b"cudaMallocAsync\0")
            .expect("cudaMallocAsync");
        BARE_MALLOC_ASYNC.store(f as *mut (), Ordering::Relaxed);
        let f = *lib
            .get::<FreeAsync>(b"cudaFreeAsync\0")
            .expect("cudaFreeAsync");
        BARE_FREE_ASYNC.store(f as *mut (), Ordering::Relaxed);
    }
    let (_, f) = VARIANTS
        .iter()
        .find(|(name, _)| *name == variant)
        .expect("known variant");
    // The first call loads and resolves; it is outside the counted difference.
    assert!(f() >= 0, "{variant}: the first call failed");
    let mut sum = 0i64;
    for _ in 0..n {
        sum += i64::from(black_box(f)());
    }
    black_box(sum);
    std::mem::forget(lib);
}

fn standin(dir: &Path) -> PathBuf {
    // The source is carried in the binary, so that a copy of this harness built elsewhere
    // (`bench/downstream`) compiles the same stand-in.
    let src = dir.join("standin.c");
    std::fs::write(&src, include_str!("../c/standin.c")).expect("writing the stand-in source");
    let lib = dir.join("libcudart.so.13");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let ok = Command::new(&cc)
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "compiling {} with {cc} failed", src.display());
    let _ = std::os::unix::fs::symlink("libcudart.so.13", dir.join("libcudart.so"));
    lib
}

/// Instructions callgrind counts for one run of the child.
fn count(variant: &str, n: u64, lib: &Path) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let out = Command::new("valgrind")
        .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
        .arg(&exe)
        .args(["--child", variant, &n.to_string()])
        .arg(lib)
        .env("CUDART_PATH", lib)
        .env("LD_LIBRARY_PATH", lib.parent()?)
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        eprintln!("{variant}: the child failed:\n{err}");
        return None;
    }
    err.lines()
        .find_map(|l| {
            l.split_once("Collected :")
                .map(|(_, v)| v.trim().parse().ok())
        })
        .flatten()
}

pub fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 5 && args[1] == "--child" {
        let n = args[3].parse().expect("N");
        child(&args[2], n, Path::new(&args[4]));
        return;
    }
    let have_valgrind = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_valgrind {
        println!("calls: valgrind is not installed; nothing measured");
        return;
    }
    let dir = std::env::temp_dir().join(format!("cudart-bench-standin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    let lib = standin(&dir);
    let n: u64 = std::env::var("CALLS_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    println!("instructions per call (callgrind, (I(2N) - I(N)) / N, N = {n}):");
    let mut bare = 0.0;
    for (name, _) in VARIANTS {
        let (Some(one), Some(two)) = (count(name, n, &lib), count(name, 2 * n, &lib)) else {
            println!("{name:34} failed");
            continue;
        };
        let per = (two as f64 - one as f64) / n as f64;
        if name.ends_with("/bare") {
            bare = per;
        }
        println!("{name:34} {per:7.2}   (+{:.2} over bare)", per - bare);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
