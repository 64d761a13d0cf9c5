//! Compiling at run time and running what was compiled, through `nvrtc13` and `cudart13`'s
//! safe layers, in the same steps as the C baseline (`bench/c/nvrtc_bench.c`):
//! `nvrtc_compile_ptx` (a `Program` of the SAXPY source compiled to PTX for device 0's
//! architecture, the PTX read out), `module_load` (`Module::from_ptx` and `kernel`),
//! `first_launch+sync` (one launch on 1M elements, then the stream synchronised) and
//! `compile+load+launch` (the three, end to end). Each step's median over
//! `NVRTC_BENCH_REPS` repetitions (default 9) is printed as `rust<TAB>name<TAB>ms<TAB>ms`;
//! `scripts/nvrtc-bench.sh` runs this beside C on the GPU machine. With
//! `NVRTC_BENCH_COMPILE_ONLY=1` only the compile step runs (no GPU needed); the architecture
//! is then `compute_75`, or `NVRTC_BENCH_ARCH`.
//!
//! Without NVRTC or the CUDA runtime it says so on standard error and exits with status 2.
use std::error::Error;
use std::time::Instant;

use cudart13::{Device, DeviceBuffer, LaunchConfig, Module, Stream};
use nvrtc13::Program;

/// The kernel the C baseline compiles, byte for byte.
const SOURCE: &str = "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, unsigned n) {\n    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = a * x[i] + y[i];\n}\n";

const N: usize = 1 << 20;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// CUDA C++ → PTX, as an application does it.
fn compile(arch: &str) -> Result<String, Box<dyn Error>> {
    let compiled = Program::new(SOURCE, "saxpy.cu")?.compile([arch])?;
    Ok(compiled.ptx()?)
}

fn run() -> Result<(), Box<dyn Error>> {
    let reps: usize = std::env::var("NVRTC_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(9)
        .max(1);
    let compile_only = std::env::var("NVRTC_BENCH_COMPILE_ONLY").is_ok_and(|v| v == "1");
    let arch = match std::env::var("NVRTC_BENCH_ARCH") {
        Ok(a) => format!("--gpu-architecture={a}"),
        Err(_) if compile_only => "--gpu-architecture=compute_75".to_string(),
        Err(_) => {
            let (major, minor) = Device::get(0)?.properties()?.compute_capability();
            format!("--gpu-architecture=compute_{major}{minor}")
        }
    };
    let mut gpu = None;
    if !compile_only {
        let device = Device::get(0)?;
        device.set_current()?;
        let stream = Stream::non_blocking()?;
        let x = DeviceBuffer::<f32>::zeroed(N, &stream)?;
        let y = DeviceBuffer::<f32>::zeroed(N, &stream)?;
        stream.synchronize()?;
        gpu = Some((stream, x, y));
    }
    // One untimed round: library loads and first-call costs of both libraries.
    compile(&arch)?;
    let (mut t_compile, mut t_load, mut t_launch, mut t_all) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (a, n) = (2.0f32, N as u32);
    for _ in 0..reps {
        let t0 = Instant::now();
        let ptx = compile(&arch)?;
        t_compile.push(ms(t0));
        let Some((stream, x, y)) = &gpu else {
            continue;
        };
        let t1 = Instant::now();
        let module = Module::from_ptx(&ptx)?;
        let kernel = module.kernel("saxpy")?;
        t_load.push(ms(t1));
        let t2 = Instant::now();
        // SAFETY: saxpy(float, const float*, float*, unsigned): both buffers hold n floats.
        unsafe { kernel.launch(stream, LaunchConfig::for_num_elems(n), (&a, x, y, &n))? };
        stream.synchronize()?;
        t_launch.push(ms(t2));
        t_all.push(ms(t0));
        module.close()?;
    }
    println!("rust\tnvrtc_compile_ptx\t{:.3}\tms", median(&mut t_compile));
    if gpu.is_some() {
        println!("rust\tmodule_load\t{:.3}\tms", median(&mut t_load));
        println!("rust\tfirst_launch+sync\t{:.3}\tms", median(&mut t_launch));
        println!("rust\tcompile+load+launch\t{:.3}\tms", median(&mut t_all));
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("nvrtc-bench: {e}");
        std::process::exit(2);
    }
}
