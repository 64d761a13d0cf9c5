//! The `runtime` crate's loader against the real `libcudart.so.13` of NVIDIA's
//! `nvidia-cuda-runtime` wheel (`cargo xtask fetch-wheel`; `cargo xtask test` passes its path
//! in `CUDART_WHEEL_LIB`).
//!
//! Only the test `cudart_path_and_global_probes` changes `CUDART_PATH` or loads the global
//! library (environment variables are process-wide); the others open the wheel's library
//! explicitly. The behaviour of the global probes without any library, and the search of the
//! activated Python environment's wheel and of `$CONDA_PREFIX/lib`, are checked in child
//! processes, so that they cannot see a library this process already loaded.

use std::ffi::{c_char, c_int, CStr};
use std::path::{Path, PathBuf};

use cudart13::{check, Error, LazySymbol, Library};

type GetErrorName = unsafe extern "C" fn(c_int) -> *const c_char;
type GetDeviceCount = unsafe extern "C" fn(*mut c_int) -> c_int;
type GetVersion = unsafe extern "C" fn(*mut c_int) -> c_int;

/// The wheel's library; a missing setting fails the test (it must not pass silently).
fn wheel_lib() -> PathBuf {
    match std::env::var_os("CUDART_WHEEL_LIB") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!(
            "CUDART_WHEEL_LIB is not set: run `cargo xtask test`, or run `cargo xtask \
             fetch-wheel` and set CUDART_WHEEL_LIB to the libcudart.so.13 path it prints"
        ),
    }
}

fn open_wheel() -> Library {
    let path = wheel_lib();
    // SAFETY: NVIDIA's runtime of this crate's release.
    match unsafe { Library::open(&path) } {
        Ok(lib) => lib,
        Err(e) => panic!("opening {}: {e}", path.display()),
    }
}

#[test]
fn wheel_library_is_a_cuda_13_runtime() {
    let lib = open_wheel();
    assert_eq!(Path::new(lib.path()), wheel_lib());
    let version = lib.runtime_version();
    assert_eq!(version / 1000, 13, "cudaRuntimeGetVersion gave {version}");
}

#[test]
fn only_the_librarys_own_functions_resolve() {
    let lib = open_wheel();
    assert!(lib.has_symbol(c"cudaMalloc"));
    // `malloc` is a function of the C library, which libcudart depends on: the system
    // loader's lookup through the library's handle finds it, this crate's does not.
    assert!(!lib.has_symbol(c"malloc"));
    let err = unsafe { lib.symbol::<GetVersion>(c"malloc") }.expect_err("resolved libc's malloc");
    assert!(matches!(err, Error::SymbolNotFound { .. }), "{err:?}");
}

#[test]
fn error_names_come_from_the_library() {
    let lib = open_wheel();
    let name: GetErrorName = unsafe { lib.symbol(c"cudaGetErrorName") }.expect("resolve");
    let name_of = |code| {
        unsafe { CStr::from_ptr(name(code)) }
            .to_str()
            .map(str::to_owned)
    };
    assert_eq!(name_of(0).as_deref(), Ok("cudaSuccess"));
    assert_eq!(name_of(1).as_deref(), Ok("cudaErrorInvalidValue"));
}

#[test]
fn device_count_is_a_cuda_error_without_a_gpu() {
    let lib = open_wheel();
    let count: GetDeviceCount = unsafe { lib.symbol(c"cudaGetDeviceCount") }.expect("resolve");
    let mut n: c_int = -1;
    let result = check(unsafe { count(&mut n) });
    // Without the NVIDIA driver the runtime must answer with an error code, not crash.
    if !Path::new("/dev/nvidiactl").exists() {
        let err = result.expect_err("cudaGetDeviceCount succeeded without a GPU driver");
        let code = err.cuda_code().expect("a CUDA error, not a loader error");
        assert_ne!(code, 0);
        assert!(err.to_string().contains(&code.to_string()), "{err}");
    } else if let Ok(()) = result {
        assert!(n >= 0, "device count {n}");
    }
}

#[test]
fn opening_a_missing_path_names_it() {
    let missing = std::env::temp_dir().join("no-such-folder-cudart-rt/libcudart.so.13");
    // SAFETY: nothing is there to open.
    let err = unsafe { Library::open(&missing) }.expect_err("a missing file opened");
    let shown = missing.display().to_string();
    match &err {
        Error::LibraryNotFound { tried } => {
            assert_eq!(tried.len(), 1);
            assert_eq!(tried[0].0, shown);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains(&shown), "{err}");
}

#[test]
fn a_missing_symbol_names_itself_the_library_and_the_version() {
    let lib = open_wheel();
    assert!(!lib.has_symbol(c"cudaNoSuchFunction"));
    assert!(lib.has_symbol(c"cudaMalloc"));
    let err = unsafe { lib.symbol::<GetVersion>(c"cudaNoSuchFunction") }
        .expect_err("resolved a function that does not exist");
    match &err {
        Error::SymbolNotFound {
            symbol,
            library,
            version,
        } => {
            assert_eq!(symbol, "cudaNoSuchFunction");
            assert_eq!(Path::new(library), wheel_lib());
            assert_eq!(version.map(|v| v / 1000), Some(13), "{version:?}");
        }
        other => panic!("unexpected {other:?}"),
    }
    let text = err.to_string();
    assert!(text.contains("cudaNoSuchFunction"), "{text}");
    assert!(text.contains("CUDA 13."), "{text}");
}

#[test]
fn cudart_path_and_global_probes() {
    let lib_path = wheel_lib();
    let lib_dir = lib_path.parent().expect("the library is in a folder");

    // A missing file: the error names it, and nothing else is tried.
    let missing = std::env::temp_dir().join("no-such-folder-cudart-rt/libcudart.so.13");
    std::env::set_var("CUDART_PATH", &missing);
    let err = Library::search().expect_err("CUDART_PATH to a missing file loaded something");
    let Error::LibraryNotFound { tried } = &err else {
        panic!("unexpected {err:?}");
    };
    assert_eq!(tried.len(), 1, "{tried:?}");
    assert!(
        tried[0].0.contains(&missing.display().to_string()),
        "{tried:?}"
    );
    assert!(err.to_string().contains("CUDART_PATH"), "{err}");

    // A folder without the library.
    let empty = std::env::temp_dir().join(format!("cudart-rt-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("temp folder");
    std::env::set_var("CUDART_PATH", &empty);
    let err = Library::search().expect_err("an empty folder loaded something");
    std::fs::remove_dir_all(&empty).ok();
    assert!(err.to_string().contains("holds no"), "{err}");

    // The wheel's folder, then its file.
    std::env::set_var("CUDART_PATH", lib_dir);
    let found = Library::search().expect("CUDART_PATH to the wheel's folder");
    assert_eq!(Path::new(found.path()), lib_path);
    std::env::set_var("CUDART_PATH", &lib_path);
    let global = Library::get().expect("the global library through CUDART_PATH");
    assert_eq!(Path::new(global.path()), lib_path);

    assert!(cudart13::is_available());
    assert!(cudart13::has_function("cudaMalloc"));
    assert!(!cudart13::has_function("cudaNoSuchFunction"));
    assert!(!cudart13::has_function("cuda\0Malloc"));

    // With the global library loaded, error codes get the library's names.
    let e = Error::from_code(1);
    assert!(e.to_string().contains("cudaErrorInvalidValue"), "{e}");

    static VERSION: LazySymbol<GetVersion> =
        unsafe { LazySymbol::new(c"cudaRuntimeGetVersion", 0) };
    static NOTHING: LazySymbol<GetVersion> = unsafe { LazySymbol::new(c"cudaNoSuchFunction", 0) };
    let get_version = VERSION.get().expect("cached cudaRuntimeGetVersion");
    let mut v = 0;
    check(unsafe { get_version(&mut v) }).expect("cudaRuntimeGetVersion");
    assert_eq!(v, global.runtime_version());
    assert!(matches!(NOTHING.get(), Err(Error::SymbolNotFound { .. })));
    std::env::remove_var("CUDART_PATH");
}

/// Run in a child process by `global_probes_without_a_library_are_errors`.
#[test]
#[ignore = "run in a child process by global_probes_without_a_library_are_errors"]
fn child_global_probes_without_a_library() {
    assert_eq!(
        std::env::var("CUDART_RT_TEST_CHILD").as_deref(),
        Ok("1"),
        "run by global_probes_without_a_library_are_errors only"
    );
    assert!(!cudart13::is_available());
    assert!(!cudart13::has_function("cudaMalloc"));
    let first = Library::get().expect_err("loaded a library from a missing CUDART_PATH");
    assert!(matches!(first, Error::LibraryNotFound { .. }), "{first:?}");
    assert_eq!(Library::get().expect_err("second call"), first);
    static VERSION: LazySymbol<GetVersion> =
        unsafe { LazySymbol::new(c"cudaRuntimeGetVersion", 0) };
    assert_eq!(VERSION.get().expect_err("no library"), first);
    // Without a library a code still becomes an error that keeps its number (its name can
    // only come from the generated table then).
    let e = Error::from_code(1);
    assert_eq!(e.cuda_code(), Some(1));
    assert!(e.to_string().starts_with("CUDA error 1"), "{e}");
    println!("child probes: {first}");
}

#[test]
fn global_probes_without_a_library_are_errors() {
    let missing = std::env::temp_dir().join("no-such-folder-cudart-rt/libcudart.so.13");
    let text = workspace_tests::child::run("wheel::child_global_probes_without_a_library", |cmd| {
        cmd.env("CUDART_RT_TEST_CHILD", "1")
            .env("CUDART_PATH", &missing);
    });
    assert!(text.contains(&missing.display().to_string()), "{text}");
}

/// Run in a child process by `the_active_python_environments_wheel_and_conda_lib_are_found`.
#[test]
#[ignore = "run in a child process by the_active_python_environments_wheel_and_conda_lib_are_found"]
fn child_found_in_the_environment() {
    let expected = std::env::var("CUDART_RT_TEST_EXPECT").expect("run by the parent test");
    let lib = Library::get().expect("the library in the environment");
    assert_eq!(lib.path(), expected);
    println!("child loaded {}", lib.path());
}

#[test]
fn the_active_python_environments_wheel_and_conda_lib_are_found() {
    let lib = wheel_lib();
    let root = std::env::temp_dir().join(format!("cudart-rt-env-{}", std::process::id()));
    // A virtual environment with NVIDIA's wheel installed, and a conda environment whose
    // `lib` holds the runtime (as conda's cuda-cudart package puts it).
    let venv = root.join("venv");
    let wheel_dir = venv.join("lib/python3.12/site-packages/nvidia/cu13/lib");
    let conda = root.join("conda");
    for dir in [&wheel_dir, &conda.join("lib")] {
        std::fs::create_dir_all(dir).expect("temp folders");
    }
    std::fs::copy(&lib, wheel_dir.join("libcudart.so.13")).expect("copy");
    std::fs::copy(&lib, conda.join("lib/libcudart.so.13")).expect("copy");
    let run = |envs: &[(&str, &Path)], expected: &Path| {
        workspace_tests::child::run("wheel::child_found_in_the_environment", |cmd| {
            cmd.env_remove("CUDART_PATH")
                .env_remove("VIRTUAL_ENV")
                .env_remove("CONDA_PREFIX")
                .env("CUDART_RT_TEST_EXPECT", expected)
                .envs(envs.iter().copied());
        });
    };
    // The activated environment comes before the system loader, the wheel before conda's lib.
    run(
        &[("VIRTUAL_ENV", &venv)],
        &wheel_dir.join("libcudart.so.13"),
    );
    run(
        &[("CONDA_PREFIX", &conda)],
        &conda.join("lib/libcudart.so.13"),
    );
    run(
        &[("VIRTUAL_ENV", &venv), ("CONDA_PREFIX", &conda)],
        &wheel_dir.join("libcudart.so.13"),
    );
    std::fs::remove_dir_all(&root).ok();
}
