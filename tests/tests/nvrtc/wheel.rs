//! `nvrtc13`'s safe layer against the real `libnvrtc.so.13` of NVIDIA's `nvidia-cuda-nvrtc`
//! wheel (`cargo xtask fetch-wheel --library nvrtc`; `cargo xtask test` passes its path in
//! `NVRTC_WHEEL_LIB`). NVRTC runs on the CPU: every test here compiles for real, no GPU
//! needed.
//!
//! The tests share the process-wide library, found through `NVRTC_PATH`, which the first of
//! them sets (once, before any loads it). What a process without the library sees is in
//! [`crate::no_library`], a process of its own.

use std::path::PathBuf;
use std::sync::Once;

use nvrtc13::{CompileOptions, Error, Header, Program};

/// A kernel every architecture NVRTC 13 supports compiles.
const VADD: &str = r#"
extern "C" __global__ void vadd(const float *a, const float *b, float *c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"#;

/// Points `NVRTC_PATH` at the wheel's library, once; a missing setting fails the test (it
/// must not pass silently).
pub(crate) fn setup() {
    static SET: Once = Once::new();
    SET.call_once(|| {
        let lib = match std::env::var_os("NVRTC_WHEEL_LIB") {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => panic!(
                "NVRTC_WHEEL_LIB is not set: run `cargo xtask test`, or run `cargo xtask \
                 fetch-wheel --library nvrtc` and set NVRTC_WHEEL_LIB to the libnvrtc.so.13 \
                 path it prints"
            ),
        };
        assert!(
            lib.is_file(),
            "NVRTC_WHEEL_LIB={} is no file",
            lib.display()
        );
        std::env::set_var(nvrtc13::loader::PATH_VAR, &lib);
    });
}

#[test]
fn a_kernel_compiles_to_ptx() {
    setup();
    let options = CompileOptions::new().arch("compute_75").std("c++17");
    let compiled = Program::new(VADD, "vadd.cu")
        .and_then(|p| p.compile(&options))
        .expect("vadd compiles");
    let ptx = compiled.ptx().expect("PTX");
    assert!(ptx.contains(".visible .entry vadd("), "{ptx}");
    assert!(ptx.contains(".target sm_75"), "{ptx}");
    assert!(
        !ptx.contains('\0'),
        "the trailing NUL is not part of the text"
    );
    assert_eq!(compiled.name(), "vadd.cu");
    // A virtual architecture gives PTX only.
    let err = compiled.cubin().expect_err("a CUBIN for compute_75");
    assert!(err.to_string().contains("real architecture"), "{err}");
    let err = compiled.lto_ir().expect_err("LTO-IR without -dlto");
    assert!(err.to_string().contains("-dlto"), "{err}");
}

#[test]
fn a_syntax_error_returns_the_log_with_file_and_line() {
    setup();
    let source = "__global__ void broken(int *x) {\n    x[0] = ;\n}\n";
    let err = Program::new(source, "broken.cu")
        .and_then(|p| p.compile(["--gpu-architecture=compute_75"]))
        .expect_err("a syntax error compiled");
    let Error::Compile {
        program,
        code,
        name,
        log,
    } = &err
    else {
        panic!("not a compile error: {err:?}");
    };
    assert_eq!(program, "broken.cu");
    assert_eq!(*code, 6, "NVRTC_ERROR_COMPILATION");
    assert_eq!(*name, Some("NVRTC_ERROR_COMPILATION"));
    // NVRTC names the file and the line of the error.
    assert!(log.contains("broken.cu(2): error"), "{log}");
    let text = err.to_string();
    assert!(
        text.starts_with("compiling broken.cu failed (NVRTC error 6"),
        "{text}"
    );
    assert!(text.contains("broken.cu(2): error"), "{text}");
}

#[test]
fn an_unknown_option_is_a_compile_error_naming_it() {
    setup();
    let err = Program::new(VADD, "vadd.cu")
        .and_then(|p| p.compile(["--no-such-option"]))
        .expect_err("an unknown option was accepted");
    assert_eq!(
        err.nvrtc_code(),
        Some(5),
        "NVRTC_ERROR_INVALID_OPTION: {err}"
    );
    assert!(err.to_string().contains("no-such-option"), "{err}");
}

#[test]
fn headers_by_name_defines_and_warnings() {
    setup();
    let header = Header::new(
        "scale.h",
        "#pragma once\n__device__ inline float scale(float x) { return FACTOR * x; }\n",
    );
    let source = "#include \"scale.h\"\nextern \"C\" __global__ void k(float *x) { int unused; x[threadIdx.x] = scale(x[threadIdx.x]); }\n";
    let options = CompileOptions::new()
        .arch("compute_80")
        .define("FACTOR", "3.0f");
    let compiled = Program::with_headers(source, "k.cu", &[header])
        .and_then(|p| p.compile(&options))
        .expect("compiles with the header");
    let ptx = compiled.ptx().expect("PTX");
    // 3.0f is 0f40400000 in PTX.
    assert!(ptx.contains("0f40400000"), "FACTOR not applied:\n{ptx}");
    // The unused variable is a warning in the log of a successful compilation.
    assert!(
        compiled.log().contains("warning"),
        "log: {}",
        compiled.log()
    );
    // Without the header, the include fails, naming it.
    let err = Program::new(source, "k.cu")
        .and_then(|p| p.compile(&options))
        .expect_err("compiled without its header");
    assert!(err.log().is_some_and(|l| l.contains("scale.h")), "{err}");
}

#[test]
fn template_kernels_are_found_by_their_lowered_names() {
    setup();
    let source = "template <typename T> __global__ void fill(T *x, T v) { x[threadIdx.x] = v; }\n";
    let mut program = Program::new(source, "fill.cu").expect("a program");
    program
        .add_name_expression("fill<float>")
        .expect("a name expression");
    program.add_name_expression("fill<int>").expect("another");
    let compiled = program
        .compile(["--gpu-architecture=compute_80"])
        .expect("compiles");
    let float = compiled.lowered_name("fill<float>").expect("lowered");
    let int = compiled.lowered_name("fill<int>").expect("lowered");
    assert_eq!(float, "_Z4fillIfEvPT_S0_");
    assert_eq!(int, "_Z4fillIiEvPT_S0_");
    let ptx = compiled.ptx().expect("PTX");
    assert!(ptx.contains(&format!(".entry {float}(")), "{ptx}");
    // An expression that was not added is NVRTC's error, not a panic.
    let err = compiled
        .lowered_name("fill<double>")
        .expect_err("not added");
    assert_eq!(
        err.nvrtc_code(),
        Some(10),
        "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID: {err}"
    );
}

#[test]
fn a_real_architecture_gives_a_cubin_and_dlto_gives_lto_ir() {
    setup();
    let cubin = Program::new(VADD, "vadd.cu")
        .and_then(|p| p.compile(["--gpu-architecture=sm_80"]))
        .and_then(|c| c.cubin())
        .expect("a CUBIN");
    assert!(cubin.starts_with(b"\x7fELF"), "a CUBIN is an ELF image");
    let compiled = Program::new(VADD, "vadd.cu")
        .and_then(|p| p.compile(&CompileOptions::new().arch("sm_80").lto()))
        .expect("LTO-IR");
    assert!(!compiled.lto_ir().expect("LTO-IR").is_empty());
    let err = compiled.ptx().expect_err("PTX with -dlto");
    assert!(err.to_string().contains("lto_ir"), "{err}");
}

#[test]
fn the_library_reports_its_version_and_architectures() {
    setup();
    let version = nvrtc13::runtime_version().expect("nvrtcVersion");
    let (major, minor) = (version.major(), version.minor());
    assert_eq!(major, 13, "{version}");
    // The typed layer reads the same.
    assert_eq!(nvrtc13::api::version().expect("typed"), (major, minor));
    let archs = nvrtc13::supported_architectures().expect("architectures");
    assert!(!archs.is_empty());
    assert!(
        archs.windows(2).all(|w| w[0] < w[1]),
        "not ascending: {archs:?}"
    );
    assert!(archs.contains(&80), "{archs:?}");
    let lib = nvrtc13::Library::get().expect("the global library");
    assert_eq!(lib.runtime_version(), 1000 * major + 10 * minor);
    // The typed layer's static error strings.
    let name = nvrtc13::api::get_error_string(nvrtc13::sys::nvrtcResult::ERROR_COMPILATION)
        .expect("a name");
    assert_eq!(name.to_str(), Ok("NVRTC_ERROR_COMPILATION"));
}

#[test]
fn programs_compile_on_several_threads_at_once() {
    setup();
    let threads: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let source = format!("extern \"C\" __global__ void k{i}(int *x) {{ x[0] = {i}; }}");
                let compiled = Program::new(&source, &format!("k{i}.cu"))?
                    .compile(["--gpu-architecture=compute_75"])?;
                compiled.ptx()
            })
        })
        .collect();
    for (i, t) in threads.into_iter().enumerate() {
        let ptx = t.join().expect("no panic").expect("compiles");
        assert!(ptx.contains(&format!(".entry k{i}(")), "{ptx}");
    }
}
