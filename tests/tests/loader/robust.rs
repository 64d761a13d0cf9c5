//! The generated crates' loader (`cudart13`) on bad libraries: a copy of a real library cut at
//! 4,096 bytes (once a `SIGBUS` inside `dlopen`), one whose ELF machine says AArch64 (once "No
//! such file or directory" for a file that exists), same-size copies with one damaged program
//! header or dynamic entry (once a `SIGSEGV` or an `ld.so` assertion in any program of the
//! crate), and the red-team's stand-in libraries (`codegen/tests/redteam/stub1-3.c` and
//! `loader-stub.c`, compiled here with `cc`): one whose `cudaRuntimeGetVersion` is data (once a
//! `SIGSEGV`), one of another CUDA major (once a 144-byte record written into a 64-byte one),
//! and one answering like a runtime, through the typed layer (once CUDA wrote 64 bytes into a
//! 1-byte local); also from 64 threads at once.
//!
//! The damaged copies are made from a shared library this process has mapped (the C library),
//! and from the wheel's `libcudart.so.13` when `CUDART_WHEEL_LIB` is set. Tests that change
//! `CUDART_PATH` or load the global library run in child processes, one each.

use std::path::{Path, PathBuf};
use std::process::Command;

use cudart13::{Error, Library};
use workspace_tests::mapped_library::mapped_shared_library;

fn libraries() -> Vec<PathBuf> {
    let mut out = vec![mapped_shared_library().expect("a shared library is mapped")];
    if let Some(p) = std::env::var_os("CUDART_WHEEL_LIB").filter(|p| !p.is_empty()) {
        out.push(PathBuf::from(p));
    }
    out
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("loader-robust")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// `Library::open`, for the files of these tests.
fn open(path: &Path) -> cudart13::Result<Library> {
    // SAFETY: the files are copies of shared libraries this process already maps, or the
    // stand-ins compiled here, which define the C functions they export with the C
    // prototypes this crate calls them with (or are refused before they are called).
    unsafe { Library::open(path) }
}

/// The one reason `Library::open` gave.
fn reason(err: &Error) -> &str {
    match err {
        Error::LibraryNotFound { tried } if tried.len() == 1 => &tried[0].1,
        other => panic!("unexpected {other:?}"),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_truncated_library_is_named_not_a_sigbus() {
    for lib in libraries() {
        let bytes = std::fs::read(&lib).expect("library");
        let dir = scratch("truncated");
        let cut = dir.join("libcudart.so.13");
        std::fs::write(&cut, &bytes[..4096]).expect("copy");
        let err = open(&cut).expect_err("a truncated library opened");
        let why = reason(&err);
        assert!(
            why.contains("truncated") && why.contains("but the file has 4,096 bytes"),
            "{}: {why}",
            lib.display()
        );
        assert!(
            err.to_string().contains(&cut.display().to_string()),
            "{err}"
        );
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn a_library_for_another_architecture_says_so() {
    for lib in libraries() {
        let mut bytes = std::fs::read(&lib).expect("library");
        bytes[18..20].copy_from_slice(&183u16.to_le_bytes()); // EM_AARCH64
        let dir = scratch("foreign");
        let arm = dir.join("libcudart.so.13");
        std::fs::write(&arm, &bytes).expect("copy");
        let err = open(&arm).expect_err("an AArch64 library opened");
        assert_eq!(reason(&err), "built for AArch64, this process is x86-64");
        assert!(!err.to_string().contains("No such file"), "{err}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn files_that_are_not_libraries_are_named() {
    let dir = scratch("not-libraries");
    let text = dir.join("libcudart.so.13");
    std::fs::write(&text, "GNU ld script\n").expect("file");
    let err = open(&text).expect_err("a text file opened");
    assert!(reason(&err).contains("not an ELF shared library"), "{err}");
    let err = open(&dir).expect_err("a folder opened");
    assert_eq!(reason(&err), "not a regular file");
}

/// Compiles `codegen/tests/redteam/NAME.c` into `DIR/libcudart.so.13` (a folder of the calling
/// test's own, `purpose`); `None` without a C compiler.
fn stub(name: &str, purpose: &str) -> Option<PathBuf> {
    stub_with(name, purpose, &[])
}

/// The stand-in `loader-stub.c` answering every function it has (each variant adds its own).
const ANSWERS: &[&str] = &[
    "-DVERSION_RC=0",
    "-DDEVICE=0",
    "-DATTR=7",
    "-DPCI_FILL=0x41",
    "-DPCI_NUL=1",
    "-DPROPS_FILL=0x41",
    "-DPROPS_SIZE=1008",
    "-DERR_NAME=NULL",
    "-DERR_STRING=NULL",
];

/// [`stub`] with C preprocessor definitions.
fn stub_with(name: &str, purpose: &str, defines: &[&str]) -> Option<PathBuf> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../codegen/tests/redteam")
        .join(format!("{name}.c"));
    let dir = scratch(&format!("{purpose}-{name}"));
    let lib = dir.join("libcudart.so.13");
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-shared", "-fPIC"])
        .args(defines)
        .arg("-o")
        .arg(&lib)
        .arg(&source)
        .status();
    match status {
        Ok(s) if s.success() => Some(lib),
        other => {
            println!("skipped: cannot compile {} ({other:?})", source.display());
            None
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn stand_in_libraries_are_handled_without_panics() {
    type GetDeviceCount = unsafe extern "C" fn(*mut std::ffi::c_int) -> std::ffi::c_int;
    // stub1: no cudaRuntimeGetVersion, so it is not taken for a CUDA runtime.
    if let Some(lib) = stub("stub1", "open") {
        let err = open(&lib).expect_err("stub1 has no version symbol");
        assert!(reason(&err).contains("not a CUDA runtime"), "{err}");
    }
    // stub2: opens; an unknown status code keeps its number.
    if let Some(lib) = stub("stub2", "open") {
        let opened = open(&lib).expect("stub2 opens");
        assert_eq!(opened.runtime_version(), 13020);
        let count: GetDeviceCount =
            unsafe { opened.symbol(c"cudaGetDeviceCount") }.expect("resolves");
        let mut n = 0;
        let err = cudart13::check(unsafe { count(&mut n) }).expect_err("12345 is an error");
        assert_eq!(err.cuda_code(), Some(12345));
        assert!(err.to_string().contains("12345"), "{err}");
        assert!(matches!(
            unsafe { opened.symbol::<GetDeviceCount>(c"cudaMalloc") },
            Err(Error::SymbolNotFound { .. })
        ));
    }
    // stub3: its version call fails: no version, no runtime.
    if let Some(lib) = stub("stub3", "open") {
        let err = open(&lib).expect_err("stub3 says no version");
        assert!(
            reason(&err).starts_with("its cudaRuntimeGetVersion failed: CUDA error 35"),
            "{err}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_version_symbol_that_is_data_is_never_called() {
    // The red team's `-DDATA_VERSION -DPARTIAL`: `int cudaRuntimeGetVersion = 13020;`.
    let Some(lib) = stub_with("loader-stub", "data", &["-DDATA_VERSION", "-DPARTIAL"]) else {
        return;
    };
    let err = open(&lib).expect_err("a data symbol was taken for the version function");
    assert_eq!(
        reason(&err),
        "not a CUDA runtime library: the library's cudaRuntimeGetVersion is data, not a function"
    );
    let text = in_child("child_refused_global", &lib);
    assert!(text.contains("is data, not a function"), "{text}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_runtime_of_another_major_is_refused_naming_both() {
    let mut defines = ANSWERS.to_vec();
    defines.push("-DVERSION=12080");
    let Some(lib) = stub_with("loader-stub", "major", &defines) else {
        return;
    };
    let err = open(&lib).expect_err("a CUDA 12 runtime was opened by cudart13");
    let why = reason(&err);
    assert!(
        why.starts_with(&format!(
            "it is CUDA 12.8 (12080), but cudart13 is built for CUDA 13 ({})",
            cudart13::CUDA_RELEASE
        )),
        "{why}"
    );
    // Through the search, under the unversioned name too (a development link to another
    // release): refused, and nothing else is taken for it.
    let unversioned = scratch("major-unversioned");
    std::fs::copy(&lib, unversioned.join("libcudart.so")).expect("copy");
    for place in [lib.as_path(), unversioned.as_path()] {
        let text = in_child("child_refused_global", place);
        assert!(text.contains("CUDA 12.8 (12080)"), "{text}");
        assert!(text.contains("CUDA 13"), "{text}");
    }
}

/// Same-size copies of `lib`: the second loadable segment moved to 1 TiB (`vaddr`), and
/// `DT_RELAENT` set to 1 (`relaent`, when the library has one), as the red team's
/// `loader-damaged-lib.py` makes them. ELF64 little-endian only.
fn damaged_copies(lib: &Path, dir: &Path) -> Vec<(PathBuf, &'static str)> {
    let data = std::fs::read(lib).expect("library");
    let u16_at = |b: &[u8], at: usize| u16::from_le_bytes([b[at], b[at + 1]]) as usize;
    let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let phoff = u64_at(&data, 32) as usize;
    let phnum = u16_at(&data, 56);
    let headers: Vec<usize> = (0..phnum).map(|i| phoff + 56 * i).collect();
    let mut out = Vec::new();
    let loads: Vec<usize> = headers
        .iter()
        .copied()
        .filter(|&h| u32_at(&data, h) == 1)
        .collect();
    let mut vaddr = data.clone();
    vaddr[loads[1] + 16..loads[1] + 24].copy_from_slice(&(1u64 << 40).to_le_bytes());
    std::fs::write(dir.join("vaddr.so"), &vaddr).expect("write");
    out.push((dir.join("vaddr.so"), "loadable segment"));
    let dynamic = headers
        .iter()
        .copied()
        .find(|&h| u32_at(&data, h) == 2)
        .expect("a dynamic section");
    let (offset, size) = (
        u64_at(&data, dynamic + 8) as usize,
        u64_at(&data, dynamic + 32) as usize,
    );
    let mut relaent = data.clone();
    let entry = (offset..offset + size)
        .step_by(16)
        .find(|&at| u64_at(&data, at) == 9);
    if let Some(at) = entry {
        relaent[at + 8..at + 16].copy_from_slice(&1u64.to_le_bytes());
        std::fs::write(dir.join("relaent.so"), &relaent).expect("write");
        out.push((
            dir.join("relaent.so"),
            "its DT_RELAENT is 1, where entries of this class are 24 bytes",
        ));
    }
    out
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn same_size_damaged_libraries_are_refused_before_the_loader_maps_them() {
    for (n, lib) in libraries().iter().enumerate() {
        let dir = scratch(&format!("damaged-{n}"));
        let copies = damaged_copies(lib, &dir);
        assert!(!copies.is_empty());
        for (copy, expected) in copies {
            let err = open(&copy).expect_err("a damaged library opened");
            let why = reason(&err);
            assert!(
                why.starts_with("the file is damaged") && why.contains(expected),
                "{}: {why}",
                copy.display()
            );
            // Any program of the crate: the global library through `CUDART_PATH`.
            let text = in_child("child_refused_global", &copy);
            assert!(text.contains("the file is damaged"), "{text}");
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_stand_in_runtime_through_the_typed_layer() {
    let Some(lib) = stub_with("loader-stub", "typed", ANSWERS) else {
        return;
    };
    let text = in_child("child_typed_stand_in", &lib);
    assert!(text.contains("pci bus id: 63 bytes"), "{text}");
}

#[test]
#[ignore = "run in a child process by the tests of refused libraries"]
fn child_refused_global() {
    assert_child();
    // Any program: the safe layer, the typed layer and the probes all see the refusal.
    let err = cudart13::Device::count().expect_err("a refused library was used");
    assert!(matches!(err, Error::LibraryNotFound { .. }), "{err:?}");
    assert!(!cudart13::is_available());
    let typed = cudart13::api::get_device_count().expect_err("a refused library was used");
    assert_eq!(typed, err);
    println!("refused: {err}");
}

#[test]
#[ignore = "run in a child process by a_stand_in_runtime_through_the_typed_layer"]
fn child_typed_stand_in() {
    assert_child();
    assert_eq!(cudart13::api::get_device_count(), Ok(1));
    // The stand-in writes `len - 1` bytes of 'A' and a NUL, as CUDA writes up to `len`.
    let id = cudart13::api::device_get_pci_bus_id(64, 0).expect("the stand-in answers");
    assert_eq!(id.as_bytes(), [b'A'; 63]);
    let id = cudart13::api::device_get_pci_bus_id(1, 0).expect("the stand-in answers");
    assert!(id.as_bytes().is_empty());
    let err = cudart13::api::device_get_pci_bus_id(-1, 0).expect_err("a negative length");
    assert_eq!(err.cuda_code(), Some(1), "{err}");
    println!("pci bus id: {} bytes", 63);
}

/// Runs test `name` of this file in a child process with `CUDART_PATH=lib`.
fn in_child(name: &str, lib: &Path) -> String {
    let text = workspace_tests::child::run(&format!("robust::{name}"), |cmd| {
        cmd.env("CUDART_RT_TEST_CHILD", "1").env("CUDART_PATH", lib);
    });
    assert!(!text.contains("panicked"), "{text}");
    text
}

fn assert_child() {
    assert_eq!(
        std::env::var("CUDART_RT_TEST_CHILD").as_deref(),
        Ok("1"),
        "run in a child process by the test that names it"
    );
}

#[test]
#[ignore = "run in a child process by stand_in_libraries_through_the_global_loader"]
fn child_stub4_global() {
    assert_child();
    // The typed layer through the global library: errors, never panics, whatever the names.
    let err = cudart13::api::get_device_count().expect_err("stub4 answers -1");
    assert_eq!(err.cuda_code(), Some(-1));
    let err = cudart13::api::malloc(16).expect_err("stub4 answers 2");
    assert_eq!(err.cuda_code(), Some(2));
    assert!(
        err.to_string().contains("cudaErrorMemoryAllocation"),
        "{err}"
    );
    // An unknown code: the library's non-UTF-8 name is not trusted, the number stays.
    let e = Error::from_code(999_999);
    assert!(e.to_string().contains("999999"), "{e}");
    println!("stub4 global: {e}");
}

#[test]
#[ignore = "run in a child process by stand_in_libraries_through_the_global_loader"]
fn child_64_threads_on_first_use() {
    assert_child();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(64));
    let handles: Vec<_> = (0..64)
        .map(|_| {
            let barrier = std::sync::Arc::clone(&barrier);
            std::thread::spawn(move || {
                barrier.wait();
                let lib = Library::get().expect("the stand-in loads");
                (lib as *const Library as usize, lib.runtime_version())
            })
        })
        .collect();
    let results: Vec<_> = handles
        .into_iter()
        .map(|h| h.join().expect("no thread panicked"))
        .collect();
    assert!(results.iter().all(|r| *r == results[0]), "{results:?}");
    assert_eq!(results[0].1, 13020);
    println!("64 threads: one library at {:#x}", results[0].0);
}

#[test]
#[ignore = "run in a child process by a_truncated_library_through_cudart_path"]
fn child_truncated_global() {
    assert_child();
    assert!(!cudart13::is_available());
    let err = Library::get().expect_err("a truncated library loaded");
    assert!(err.to_string().contains("the file is truncated"), "{err}");
    assert_eq!(Library::get().expect_err("asked again"), err);
}

#[cfg(target_os = "linux")]
#[test]
fn stand_in_libraries_through_the_global_loader() {
    if let Some(lib) = stub("stub4", "global") {
        in_child("child_stub4_global", &lib);
    }
    if let Some(lib) = stub("stub2", "global") {
        let text = in_child("child_64_threads_on_first_use", &lib);
        assert!(text.contains("64 threads: one library"), "{text}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_truncated_library_through_cudart_path() {
    let library = mapped_shared_library().expect("a shared library is mapped");
    let bytes = std::fs::read(library).expect("library");
    let dir = scratch("truncated-global");
    let cut = dir.join("libcudart.so.13");
    std::fs::write(&cut, &bytes[..4096]).expect("copy");
    in_child("child_truncated_global", &cut);
    // A folder holding it: the same answer.
    in_child("child_truncated_global", &dir);
}
