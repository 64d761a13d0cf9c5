//! Link device code at run time with nvJitLink (`nvjitlink13`) and run it with the runtime
//! (`cudart13`):
//!
//! 1. two translation units compiled by NVRTC (`nvrtc13`) to LTO-IR (`--dlink-time-opt`), a
//!    kernel calling a `__device__` function the other defines, linked with link-time
//!    optimisation into a cubin, loaded with `Module::from_bytes` and launched;
//! 2. a PTX file (NVRTC's PTX of the kernel) linked with a cubin of the helper (`-rdc`
//!    relocatable device code compiled for the device's own architecture), loaded and
//!    launched;
//! 3. the kernel alone: the unresolved call is `Error::Link` with nvJitLink's error log.
//!
//! Every result is checked on the host; the times of compiling, linking and loading are
//! printed. Needs a GPU and the three libraries (`CUDART_PATH`, `NVRTC_PATH`,
//! `NVJITLINK_PATH`, or the system's).
use std::error::Error;
use std::time::Instant;

use cudart13::{Device, DeviceBuffer, LaunchConfig, Module, Stream};
use nvjitlink13::{InputKind, LinkOptions, Linker};
use nvrtc13::{CompileOptions, Program};

/// The kernel: `y[i] = scale(x[i]) + y[i]`, `scale` defined in the other unit.
const KERNEL: &str = r#"
extern __device__ float scale(float x);
extern "C" __global__ void apply(const float *x, float *y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = scale(x[i]) + y[i];
}
"#;

/// The other unit.
const HELPER: &str = r#"
__device__ float scale(float x) { return 3.0f * x + 1.0f; }
"#;

const N: usize = 1 << 20;

fn fail(what: &str) -> ! {
    eprintln!("{what}");
    std::process::exit(1);
}

/// Launches `apply` of `module` on `x`, `y` and checks `y[i] = 3 x[i] + 1 + y[i]`.
fn run_and_check(module: &Module, what: &str, stream: &Stream) -> Result<(), Box<dyn Error>> {
    let apply = module.kernel("apply")?;
    let x: Vec<f32> = (0..N).map(|i| (i % 1000) as f32).collect();
    let y: Vec<f32> = (0..N).map(|i| (i % 7) as f32).collect();
    let d_x = DeviceBuffer::from_slice(&x, stream)?;
    let d_y = DeviceBuffer::from_slice(&y, stream)?;
    let n = N as u32;
    // SAFETY: apply(const float*, float*, unsigned): both buffers hold n floats.
    unsafe { apply.launch(stream, LaunchConfig::for_num_elems(n), (&d_x, &d_y, &n))? };
    let out = d_y.to_vec()?;
    if let Some(i) = (0..N).find(|&i| out[i] != 3.0 * x[i] + 1.0 + y[i]) {
        fail(&format!(
            "{what}: y[{i}] = {} but expected {}",
            out[i],
            3.0 * x[i] + 1.0 + y[i]
        ));
    }
    println!("{what}: {N} results correct");
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let device = Device::get(0)?;
    let (major, minor) = device.properties()?.compute_capability();
    let device_arch = major * 10 + minor;
    let arch = nvrtc13::supported_architectures()?
        .into_iter()
        .filter(|a| *a <= device_arch)
        .max()
        .ok_or("NVRTC supports no architecture this device runs")?;
    println!(
        "device 0: sm_{device_arch}; NVRTC {}, nvJitLink {}; linking for sm_{arch}",
        nvrtc13::runtime_version()?,
        nvjitlink13::runtime_version()?
    );
    device.set_current()?;
    let stream = Stream::non_blocking()?;

    // 1. NVRTC → LTO-IR of two translation units → nvJitLink (-lto) → cubin → launch.
    let t = Instant::now();
    let lto = CompileOptions::new()
        .arch(&format!("compute_{arch}"))
        .option("--relocatable-device-code=true")
        .lto();
    let kernel_ir = Program::new(KERNEL, "apply.cu")?.compile(&lto)?.lto_ir()?;
    let helper_ir = Program::new(HELPER, "scale.cu")?.compile(&lto)?.lto_ir()?;
    let compile_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let mut linker = Linker::new(&LinkOptions::new(&format!("sm_{arch}")).lto())?;
    linker.add(InputKind::LtoIr, &kernel_ir, "apply.cu")?;
    linker.add(InputKind::LtoIr, &helper_ir, "scale.cu")?;
    let cubin = linker.complete()?.cubin()?;
    let link_ms = t.elapsed().as_secs_f64() * 1e3;
    let module = Module::from_bytes(&cubin)?;
    println!(
        "LTO: {} + {} bytes of LTO-IR compiled in {compile_ms:.1} ms, linked in {link_ms:.1} ms \
         into {} bytes of cubin",
        kernel_ir.len(),
        helper_ir.len(),
        cubin.len()
    );
    run_and_check(&module, "LTO-IR x2 -> cubin", &stream)?;

    // 2. A PTX file linked with a cubin.
    let rdc = |a: String| {
        CompileOptions::new()
            .arch(&a)
            .option("--relocatable-device-code=true")
    };
    let ptx = Program::new(KERNEL, "apply.cu")?
        .compile(&rdc(format!("compute_{arch}")))?
        .ptx()?;
    let dir = std::env::temp_dir().join(format!("nvjitlink-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let ptx_file = dir.join("apply.ptx");
    std::fs::write(&ptx_file, &ptx)?;
    let helper_cubin = Program::new(HELPER, "scale.cu")?
        .compile(&rdc(format!("sm_{arch}")))?
        .cubin()?;
    let t = Instant::now();
    let mut linker = Linker::new(&LinkOptions::new(&format!("sm_{arch}")))?;
    linker.add_file(InputKind::from_extension(&ptx_file), &ptx_file)?;
    linker.add(InputKind::Cubin, &helper_cubin, "scale.cubin")?;
    let linked = linker.complete()?;
    let link_ms = t.elapsed().as_secs_f64() * 1e3;
    let cubin = linked.cubin()?;
    std::fs::remove_dir_all(&dir)?;
    println!(
        "PTX file ({} bytes) + cubin ({} bytes) linked in {link_ms:.1} ms into {} bytes",
        ptx.len(),
        helper_cubin.len(),
        cubin.len()
    );
    run_and_check(
        &Module::from_bytes(&cubin)?,
        "PTX file + cubin -> cubin",
        &stream,
    )?;

    // 3. The kernel alone: `scale` is unresolved.
    let mut linker = Linker::new(&LinkOptions::new(&format!("sm_{arch}")))?;
    linker.add(InputKind::Ptx, ptx.as_bytes(), "apply.ptx")?;
    match linker.complete() {
        Err(nvjitlink13::Error::Link { log, .. }) if log.contains("scale") => {
            println!(
                "the kernel alone: Error::Link, {}",
                log.lines().next().unwrap_or("")
            );
        }
        other => fail(&format!(
            "the kernel alone: expected Error::Link naming `scale`, got {other:?}"
        )),
    }
    Ok(())
}
