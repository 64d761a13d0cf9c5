//! Compile CUDA C++ at run time with NVRTC (`nvrtc13`) and run it with the runtime
//! (`cudart13`): a SAXPY kernel compiled to PTX for the device's architecture, loaded with
//! `Module::from_ptx` and launched; a template kernel found by its lowered name and loaded
//! from a CUBIN with `Module::from_bytes`; and the compiler's log for a kernel with an error.
//! Each result is checked on the host; the times of compiling, loading and the first launch
//! are printed. Needs a GPU and both libraries (`CUDART_PATH`, `NVRTC_PATH` or the system's).
use std::error::Error;
use std::time::Instant;

use cudart13::{Device, DeviceBuffer, LaunchConfig, Module, Stream};
use nvrtc13::{CompileOptions, Program};

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

const FILL: &str = r#"
template <typename T> __global__ void fill(T *out, T value, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value * (T)i;
}
"#;

const N: usize = 1 << 20;

fn fail(what: &str) -> ! {
    eprintln!("{what}");
    std::process::exit(1);
}

fn main() -> Result<(), Box<dyn Error>> {
    let device = Device::get(0)?;
    let (major, minor) = device.properties()?.compute_capability();
    let device_arch = major * 10 + minor;
    // The newest architecture NVRTC knows that the device runs (a newer GPU runs PTX of an
    // older one).
    let arch = nvrtc13::supported_architectures()?
        .into_iter()
        .filter(|a| *a <= device_arch)
        .max()
        .ok_or("NVRTC supports no architecture this device runs")?;
    let nvrtc = nvrtc13::runtime_version()?;
    println!("device 0: sm_{device_arch}; NVRTC {nvrtc} compiles for compute_{arch}");
    device.set_current()?;
    let stream = Stream::non_blocking()?;

    // SAXPY: CUDA C++ → PTX → module → launch.
    let t = Instant::now();
    let options = CompileOptions::new()
        .arch(&format!("compute_{arch}"))
        .std("c++17");
    let compiled = Program::new(SAXPY, "saxpy.cu")?.compile(&options)?;
    let ptx = compiled.ptx()?;
    let compile_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let saxpy = Module::from_ptx(&ptx)?.kernel("saxpy")?;
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let x: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..N).map(|i| (N - i) as f32).collect();
    let d_x = DeviceBuffer::from_slice(&x, &stream)?;
    let d_y = DeviceBuffer::from_slice(&y, &stream)?;
    stream.synchronize()?;
    let (a, n) = (2.0f32, N as u32);
    let t = Instant::now();
    // SAFETY: saxpy(float, const float*, float*, unsigned): both buffers hold n floats.
    unsafe {
        saxpy.launch(
            &stream,
            LaunchConfig::for_num_elems(n),
            (&a, &d_x, &d_y, &n),
        )?
    };
    stream.synchronize()?;
    let launch_ms = t.elapsed().as_secs_f64() * 1e3;
    let out = d_y.to_vec()?;
    if let Some(i) = (0..N).find(|&i| out[i] != a * x[i] + y[i]) {
        fail(&format!(
            "saxpy: y[{i}] = {} but expected {}",
            out[i],
            a * x[i] + y[i]
        ));
    }
    println!(
        "saxpy: compiled in {compile_ms:.1} ms ({} bytes of PTX), loaded in {load_ms:.2} ms, \
         first launch + sync {launch_ms:.3} ms; {N} results correct",
        ptx.len()
    );

    // A template kernel: its lowered name, a CUBIN for the device's own architecture.
    let mut program = Program::new(FILL, "fill.cu")?;
    program.add_name_expression("fill<float>")?;
    let compiled = program.compile(&CompileOptions::new().arch(&format!("sm_{arch}")))?;
    let name = compiled.lowered_name("fill<float>")?;
    let fill = Module::from_bytes(&compiled.cubin()?)?.kernel(&name)?;
    let d_out = DeviceBuffer::<f32>::zeroed(N, &stream)?;
    let value = 0.5f32;
    // SAFETY: fill<float>(float*, float, unsigned): the buffer holds n floats.
    unsafe {
        fill.launch(
            &stream,
            LaunchConfig::for_num_elems(n),
            (&d_out, &value, &n),
        )?
    };
    let out = d_out.to_vec()?;
    if let Some(i) = (0..N).find(|&i| out[i] != value * i as f32) {
        fail(&format!("fill<float>: out[{i}] = {}", out[i]));
    }
    println!("fill<float> as {name} from a CUBIN (sm_{arch}): {N} values correct");

    // The same template with no architecture option (NVRTC compiles for the current device),
    // typed options generated from nvrtc.h, and the kernels found by their name expressions
    // through the module's symbol map.
    let mut program = Program::new(FILL, "fill.cu")?;
    program.add_name_expression("fill<int>")?;
    program.add_name_expression("fill<double>")?;
    let typed = CompileOptions::new()
        .relocatable_device_code(false)
        .maxrregcount("64")
        .std("c++17");
    let compiled = program.compile(&typed)?;
    let symbols = compiled.lowered_names()?;
    let module = Module::from_bytes(&compiled.cubin()?)?.with_symbols(symbols.clone());
    let fill_int = module.kernel("fill<int>")?;
    let best = fill_int.occupancy_limited(0, 128)?;
    if best.block_size == 0 || best.block_size > 128 {
        fail(&format!("occupancy above the 128-thread limit: {best:?}"));
    }
    let d_int = DeviceBuffer::<i32>::zeroed(N, &stream)?;
    let three = 3i32;
    let config = LaunchConfig::new(n.div_ceil(best.block_size), best.block_size)?;
    // SAFETY: fill<int>(int*, int, unsigned): the buffer holds n ints.
    unsafe { fill_int.launch(&stream, config, (&d_int, &three, &n))? };
    let out = d_int.to_vec()?;
    if let Some(i) = (0..N).find(|&i| out[i] != 3 * i as i32) {
        fail(&format!("fill<int>: out[{i}] = {}", out[i]));
    }
    println!(
        "fill<int> by its name expression ({}) for the device's sm_{} by default, \
         blocks of {} (limit 128): {N} values correct",
        module.symbol_for("fill<int>").unwrap_or("?"),
        nvrtc13::current_device_arch().unwrap_or(0),
        best.block_size
    );

    // A kernel with an error: the compiler's log, with file and line.
    let broken = "__global__ void broken(float *x) {\n    x[0] = undefined_name;\n}\n";
    match Program::new(broken, "broken.cu")?.compile(&options) {
        Err(nvrtc13::Error::Compile { log, .. }) if log.contains("broken.cu(2): error") => {
            println!(
                "a kernel with an error: {}",
                log.lines().next().unwrap_or("")
            );
        }
        other => fail(&format!(
            "expected the compile log of broken.cu, got {other:?}"
        )),
    }
    Ok(())
}
