//! `nvrtc13`'s outputs linked by `nvjitlink13` against the real libraries of NVIDIA's wheels
//! (`NVRTC_WHEEL_LIB`, `NVJITLINK_WHEEL_LIB`; `cargo xtask test` sets both). Both run on the
//! CPU: LTO-IR of two translation units linked with `-lto`, and PTX linked with a relocatable
//! cubin, each into a cubin (an ELF file for the architecture asked for) that defines the
//! kernel; the kernel alone is `Error::Link` naming the missing function. The GPU example
//! `nvjitlink_lto` launches what these link.

use std::path::PathBuf;
use std::sync::Once;

use nvjitlink13::{InputKind, LinkOptions, Linker};
use nvrtc13::{CompileOptions, Program};

const KERNEL: &str = r#"
extern __device__ float scale(float x);
extern "C" __global__ void apply(const float *x, float *y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = scale(x[i]) + y[i];
}
"#;
const HELPER: &str = "__device__ float scale(float x) { return 3.0f * x + 1.0f; }\n";

/// Points `NVJITLINK_PATH` at the wheel's library (and `NVRTC_PATH`, through the NVRTC
/// tests' setup), once; a missing setting fails the test.
fn setup() {
    crate::wheel::setup();
    static SET: Once = Once::new();
    SET.call_once(|| {
        let lib = match std::env::var_os("NVJITLINK_WHEEL_LIB") {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => panic!(
                "NVJITLINK_WHEEL_LIB is not set: run `cargo xtask test`, or run `cargo xtask \
                 fetch-wheel --library nvjitlink` and set NVJITLINK_WHEEL_LIB to the \
                 libnvJitLink.so.13 path it prints"
            ),
        };
        assert!(
            lib.is_file(),
            "NVJITLINK_WHEEL_LIB={} is no file",
            lib.display()
        );
        std::env::set_var(nvjitlink13::loader::PATH_VAR, &lib);
    });
}

fn rdc(arch: &str) -> CompileOptions {
    CompileOptions::new()
        .arch(arch)
        .option("--relocatable-device-code=true")
}

/// Whether `cubin` is an ELF file whose symbol names include `apply`.
fn defines_apply(cubin: &[u8]) -> bool {
    cubin.starts_with(b"\x7fELF") && cubin.windows(6).any(|w| w == b"apply\0")
}

#[test]
fn lto_ir_of_two_units_links_into_a_cubin() {
    setup();
    let lto = rdc("compute_80").lto();
    let kernel = Program::new(KERNEL, "apply.cu")
        .and_then(|p| p.compile(&lto))
        .and_then(|c| c.lto_ir())
        .expect("the kernel compiles to LTO-IR");
    let helper = Program::new(HELPER, "scale.cu")
        .and_then(|p| p.compile(&lto))
        .and_then(|c| c.lto_ir())
        .expect("the helper compiles to LTO-IR");
    let mut linker = Linker::new(&LinkOptions::new("sm_80").lto()).expect("a linker");
    linker
        .add(InputKind::LtoIr, &kernel, "apply.cu")
        .expect("LTO-IR is added");
    linker
        .add(InputKind::LtoIr, &helper, "scale.cu")
        .expect("LTO-IR is added");
    let cubin = linker.complete().and_then(|l| l.cubin()).expect("a cubin");
    assert!(defines_apply(&cubin), "{} bytes, no `apply`", cubin.len());

    // LTO-IR without -lto is refused, with a reason.
    let mut linker = Linker::new(&LinkOptions::new("sm_80")).expect("a linker");
    let refused = linker
        .add(InputKind::LtoIr, &kernel, "apply.cu")
        .and_then(|()| linker.complete().map(drop));
    assert!(
        matches!(refused, Err(nvjitlink13::Error::Link { .. })),
        "{refused:?}"
    );
}

#[test]
fn a_ptx_file_links_with_a_cubin_and_alone_names_what_is_missing() {
    setup();
    let ptx = Program::new(KERNEL, "apply.cu")
        .and_then(|p| p.compile(&rdc("compute_80")))
        .and_then(|c| c.ptx())
        .expect("PTX");
    let helper = Program::new(HELPER, "scale.cu")
        .and_then(|p| p.compile(&rdc("sm_80")))
        .and_then(|c| c.cubin())
        .expect("a relocatable cubin");
    let dir = std::env::temp_dir().join(format!("nvjitlink-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let file = dir.join("apply.ptx");
    std::fs::write(&file, &ptx).expect("the PTX file");

    let mut linker = Linker::new(&LinkOptions::new("sm_80")).expect("a linker");
    linker
        .add_file(InputKind::from_extension(&file), &file)
        .expect("the PTX file is added");
    linker
        .add(InputKind::Cubin, &helper, "scale.cubin")
        .expect("the cubin is added");
    let cubin = linker.complete().and_then(|l| l.cubin()).expect("a cubin");
    assert!(defines_apply(&cubin), "{} bytes, no `apply`", cubin.len());

    let mut linker = Linker::new(&LinkOptions::new("sm_80")).expect("a linker");
    linker
        .add(InputKind::Ptx, ptx.as_bytes(), "apply.ptx")
        .expect("PTX is added");
    match linker.complete() {
        Err(nvjitlink13::Error::Link { step, log, .. }) => {
            assert_eq!(step, "nvJitLinkComplete");
            assert!(log.contains("scale"), "the log names `scale`: {log}");
        }
        other => panic!("the kernel alone linked: {other:?}"),
    }
    // A file that is not there: an error naming it, not a crash.
    let mut linker = Linker::new(&LinkOptions::new("sm_80")).expect("a linker");
    let err = linker
        .add_file(InputKind::Ptx, dir.join("missing.ptx"))
        .expect_err("a missing file is added");
    assert!(err.to_string().contains("missing.ptx"), "{err}");
    std::fs::remove_dir_all(&dir).expect("the temporary folder is removed");
}
