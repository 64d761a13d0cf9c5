//! The safe layer: CUDA C++ compiled at run time. A [`Program`] is a source, its name and the
//! headers it may include by name; [`Program::compile`] runs NVRTC with the options given and
//! returns the [`Compiled`] program (PTX, CUBIN or LTO-IR out, the log, the lowered names of
//! templates) or, when the source does not compile, [`Error::Compile`] with NVRTC's log.
//!
//! A compiled image is loaded with the runtime crate of the same major
//! (`cudart@MAJOR@::Module::from_ptx(&compiled.ptx()?)`, or `Module::from_bytes` for a
//! CUBIN); this crate does not depend on it. Every NVRTC program this module creates is
//! destroyed when its owner is dropped; nothing here panics.

use std::ffi::{c_char, CString};

use crate::error::{Error, Result};
use crate::{api, sys};

/// A header a [`Program`] may `#include` by `name` (`#include "name"`), with its text: NVRTC
/// looks such headers up before the include paths of the options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// The name the source includes it by, exactly (`"params.h"`).
    pub name: &'a str,
    /// The header's text.
    pub source: &'a str,
}

impl<'a> Header<'a> {
    /// A header included by `name` with the text `source`.
    pub fn new(name: &'a str, source: &'a str) -> Header<'a> {
        Header { name, source }
    }
}

/// A CUDA C++ program not yet compiled: created from its source ([`Program::new`],
/// [`Program::with_headers`]), given the name expressions whose lowered names it should
/// report ([`Program::add_name_expression`]), then compiled ([`Program::compile`]), which
/// consumes it. The NVRTC program is destroyed when this (or the [`Compiled`] it becomes) is
/// dropped.
///
/// ```no_run
/// use @CRATE@::Program;
///
/// let source = r#"
///     extern "C" __global__ void scale(float *x, float a, unsigned n) {
///         unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
///         if (i < n) x[i] *= a;
///     }"#;
/// let compiled = Program::new(source, "scale.cu")?.compile(&["--gpu-architecture=compute_80"])?;
/// let ptx: String = compiled.ptx()?; // for cudart@MAJOR@::Module::from_ptx
/// assert!(ptx.contains(".entry scale"));
/// # Ok::<(), @CRATE@::Error>(())
/// ```
#[doc(alias = "nvrtcCreateProgram")]
#[derive(Debug)]
pub struct Program {
    handle: Handle,
    /// The name expressions added, in order, for [`Compiled::lowered_names`].
    expressions: Vec<String>,
}

/// The NVRTC program, destroyed on drop.
#[derive(Debug)]
struct Handle {
    raw: sys::nvrtcProgram,
    /// The program's name, for the compile error.
    name: String,
}

// SAFETY: an NVRTC program may be used from any thread, one at a time: NVRTC is thread-safe
// for calls on different programs, and a `Handle` is only used through `&mut` (Program) or
// from the one thread that holds a `Compiled`, which is not `Sync`.
unsafe impl Send for Handle {}

impl Drop for Handle {
    fn drop(&mut self) {
        if self.raw.is_null() {
            return;
        }
        // SAFETY: the handle was created by nvrtcCreateProgram and is destroyed once, here or
        // in `close` (which leaves it null). A failure (only NVRTC_ERROR_INVALID_PROGRAM,
        // which a live handle never gives) has no one to be reported to; `close` returns it.
        let _ = unsafe { api::destroy_program(&mut self.raw) };
    }
}

impl Handle {
    /// Destroys the program, returning NVRTC's status.
    fn close(mut self) -> Result<()> {
        let mut raw = std::mem::take(&mut self.raw);
        // SAFETY: as in `drop`, which now sees the null (default) handle and does nothing.
        unsafe { api::destroy_program(&mut raw) }
    }
}

/// `text` as a C string, or [`Error::InvalidArgument`] naming `what` when it holds a NUL.
fn c_string(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|e| {
        Error::InvalidArgument(format!(
            "{what} holds a NUL byte at {}: NVRTC takes C strings",
            e.nul_position()
        ))
    })
}

impl Program {
    /// A program of `source`, named `name` (the name the log's messages give as the file;
    /// NVRTC uses `default_program` for an empty one).
    pub fn new(source: &str, name: &str) -> Result<Program> {
        Program::with_headers(source, name, &[])
    }

    /// A program of `source` named `name` that may include `headers` by their names.
    pub fn with_headers(source: &str, name: &str, headers: &[Header<'_>]) -> Result<Program> {
        let c_source = c_string(source, "the program's source")?;
        let c_name = c_string(name, "the program's name")?;
        let mut texts = Vec::with_capacity(headers.len());
        let mut names = Vec::with_capacity(headers.len());
        for h in headers {
            texts.push(c_string(h.source, &format!("header `{}`", h.name))?);
            names.push(c_string(h.name, "a header's name")?);
        }
        let text_ptrs: Vec<*const c_char> = texts.iter().map(|t| t.as_ptr()).collect();
        let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let include_names = if name_ptrs.is_empty() {
            std::ptr::null()
        } else {
            name_ptrs.as_ptr()
        };
        // SAFETY: `text_ptrs` and `name_ptrs` have the same length (the count NVRTC is given
        // is that of `text_ptrs`) and point to NUL-terminated strings that outlive the call;
        // NVRTC copies what it keeps.
        let raw = unsafe { api::create_program(&c_source, &c_name, &text_ptrs, include_names) }?;
        Ok(Program {
            handle: Handle {
                raw,
                name: name.to_string(),
            },
            expressions: Vec::new(),
        })
    }

    /// The program's name.
    pub fn name(&self) -> &str {
        &self.handle.name
    }

    /// The raw NVRTC program, for the typed and raw layers; it stays owned by `self`.
    pub fn as_raw(&self) -> sys::nvrtcProgram {
        self.handle.raw
    }

    /// Asks NVRTC to report the lowered (mangled) name of `expression` after compiling:
    /// the address of a `__global__` function or a `__device__`/`__constant__` variable,
    /// written as in C++ (`"&scale<float>"`, `"my_kernel<32>"`). Read it with
    /// [`Compiled::lowered_name`] and look the kernel up by that name.
    #[doc(alias = "nvrtcAddNameExpression")]
    pub fn add_name_expression(&mut self, expression: &str) -> Result<()> {
        let c_expression = c_string(expression, "the name expression")?;
        // SAFETY: a live program of this object, used through `&mut self`; a C string.
        unsafe { api::add_name_expression(self.handle.raw, &c_expression) }?;
        self.expressions.push(expression.to_string());
        Ok(())
    }

    /// Compiles the program with `options` (NVRTC's compiler options, one per item, such as
    /// `--gpu-architecture=compute_80`, `-DN=4`, `--std=c++17`; [`CompileOptions`] builds
    /// them). On success the log holds the warnings, if any; on failure the error is
    /// [`Error::Compile`] with NVRTC's log, and the program is destroyed.
    ///
    /// Without a `--gpu-architecture` (`-arch`) option the program is compiled for the
    /// current CUDA device, `--gpu-architecture=sm_XX` ([`current_device_arch`]; the newest
    /// architecture this NVRTC supports when it does not know the device's), not for NVRTC's
    /// oldest one; with no device (or no CUDA runtime) NVRTC's default applies.
    #[doc(alias = "nvrtcCompileProgram")]
    pub fn compile<I, S>(self, options: I) -> Result<Compiled>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut options: Vec<CString> = options
            .into_iter()
            .map(|o| c_string(o.as_ref(), "a compile option"))
            .collect::<Result<_>>()?;
        let names_arch = options.iter().any(|o| is_arch_option(o.to_bytes()));
        if !names_arch {
            if let Some(arch) = default_arch() {
                options.push(c_string(
                    &format!("--gpu-architecture=sm_{arch}"),
                    "a compile option",
                )?);
            }
        }
        let pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: a live program of this object, consumed here; the options are C strings that
        // outlive the call.
        let status = unsafe { api::compile_program(self.handle.raw, &pointers) };
        let handle = self.handle;
        let log = read_log(&handle);
        match status {
            Ok(()) => Ok(Compiled {
                handle,
                log: log.unwrap_or_default(),
                expressions: self.expressions,
                _not_sync: std::marker::PhantomData,
            }),
            Err(Error::Nvrtc { code, name }) => Err(Error::Compile {
                program: handle.name.clone(),
                code,
                name,
                log: log.unwrap_or_default(),
            }),
            Err(other) => Err(other),
        }
    }

    /// Destroys the program now, returning NVRTC's status (dropping it ignores the status).
    #[doc(alias = "nvrtcDestroyProgram")]
    pub fn close(self) -> Result<()> {
        self.handle.close()
    }
}

/// The program's log after compiling (`None` when it cannot be read).
fn read_log(handle: &Handle) -> Option<String> {
    // SAFETY: a live program; both calls write within the buffer of the size NVRTC reports.
    let bytes =
        unsafe { output(handle, sys::nvrtcGetProgramLogSize, sys::nvrtcGetProgramLog) }.ok()?;
    Some(String::from_utf8_lossy(until_nul(&bytes)).into_owned())
}

/// `bytes` up to its first NUL.
fn until_nul(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// The raw size and get functions of one of a compiled program's outputs.
type SizeFn = unsafe fn(sys::nvrtcProgram, *mut usize) -> Result<sys::nvrtcResult>;
type GetFn = unsafe fn(sys::nvrtcProgram, *mut c_char) -> Result<sys::nvrtcResult>;

/// One output of `handle`: its size from `size`, then that many bytes from `get`.
///
/// # Safety
/// `size` and `get` must be a matching pair of NVRTC functions (`nvrtcGetPTXSize` and
/// `nvrtcGetPTX`, …): `get` writes at most the number of bytes `size` reports.
unsafe fn output(handle: &Handle, size: SizeFn, get: GetFn) -> Result<Vec<u8>> {
    let mut n: usize = 0;
    // SAFETY: a live program and a pointer to a local.
    unsafe { size(handle.raw, &mut n) }?.result()?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(n)
        .map_err(|_| Error::from_code(sys::nvrtcResult::ERROR_OUT_OF_MEMORY.as_raw() as i32))?;
    bytes.resize(n, 0);
    if n > 0 {
        // SAFETY: a live program and a buffer of the size NVRTC reported (the caller's
        // promise that `get` writes at most that).
        unsafe { get(handle.raw, bytes.as_mut_ptr().cast()) }?.result()?;
    }
    Ok(bytes)
}

/// A compiled program: its outputs, its log and the lowered names of its name expressions.
/// Its NVRTC program is destroyed when it is dropped.
#[derive(Debug)]
pub struct Compiled {
    handle: Handle,
    log: String,
    /// The name expressions the program was given, in order.
    expressions: Vec<String>,
    /// NVRTC calls on one program must not overlap: a `Compiled` is used from one thread at a
    /// time (it is `Send`, not `Sync`).
    _not_sync: std::marker::PhantomData<std::cell::Cell<()>>,
}

impl Compiled {
    /// The program's name.
    pub fn name(&self) -> &str {
        &self.handle.name
    }

    /// The compilation log: warnings and remarks (empty when there were none).
    #[doc(alias = "nvrtcGetProgramLog")]
    pub fn log(&self) -> &str {
        &self.log
    }

    /// The PTX, without its trailing NUL (what `cudart@MAJOR@::Module::from_ptx` takes). A
    /// program compiled with `-dlto` has none: an error.
    #[doc(alias = "nvrtcGetPTX")]
    pub fn ptx(&self) -> Result<String> {
        // SAFETY: the matching pair; a live program of this object.
        let bytes = unsafe { output(&self.handle, sys::nvrtcGetPTXSize, sys::nvrtcGetPTX) }?;
        let text = until_nul(&bytes);
        if text.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "{} has no PTX (compiled with -dlto: read lto_ir)",
                self.handle.name
            )));
        }
        String::from_utf8(text.to_vec()).map_err(|e| {
            Error::InvalidArgument(format!(
                "the PTX of {} is not UTF-8 at byte {}",
                self.handle.name,
                e.utf8_error().valid_up_to()
            ))
        })
    }

    /// The CUBIN, for a program compiled for a real architecture (`--gpu-architecture=sm_80`;
    /// `cudart@MAJOR@::Module::from_bytes` loads it). One compiled for a virtual architecture
    /// (`compute_80`) has none: an error saying so.
    #[doc(alias = "nvrtcGetCUBIN")]
    pub fn cubin(&self) -> Result<Vec<u8>> {
        // SAFETY: the matching pair; a live program of this object.
        let bytes = unsafe { output(&self.handle, sys::nvrtcGetCUBINSize, sys::nvrtcGetCUBIN) }?;
        if bytes.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "{} has no CUBIN: compile it for a real architecture (--gpu-architecture=sm_XX), \
                 not a virtual one (compute_XX)",
                self.handle.name
            )));
        }
        Ok(bytes)
    }

    /// The LTO-IR, for a program compiled with `-dlto` (for nvJitLink); an error otherwise.
    #[doc(alias = "nvrtcGetLTOIR")]
    pub fn lto_ir(&self) -> Result<Vec<u8>> {
        // SAFETY: the matching pair; a live program of this object.
        let bytes = unsafe { output(&self.handle, sys::nvrtcGetLTOIRSize, sys::nvrtcGetLTOIR) }?;
        if bytes.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "{} has no LTO-IR: compile it with -dlto",
                self.handle.name
            )));
        }
        Ok(bytes)
    }

    /// The lowered (mangled) name of a name expression given to
    /// [`Program::add_name_expression`] before compiling: the name to look the kernel or
    /// variable up by in the loaded module.
    #[doc(alias = "nvrtcGetLoweredName")]
    pub fn lowered_name(&self, expression: &str) -> Result<String> {
        let expression = c_string(expression, "the name expression")?;
        // SAFETY: a live program of this object; a C string. The name is copied.
        let name = unsafe { api::get_lowered_name(self.handle.raw, &expression) }?;
        Ok(name.to_string_lossy().into_owned())
    }

    /// Every name expression given to [`Program::add_name_expression`] with its lowered
    /// (mangled) name, in the order they were added: the symbol map to give the loaded module
    /// (`cudart@MAJOR@::Module::with_symbols`) so that kernels are found by their name
    /// expressions (cuda.core's `ObjectCode` symbol mapping).
    ///
    /// ```no_run
    /// # fn main() -> @CRATE@::Result<()> {
    /// use @CRATE@::Program;
    /// let src = "template <typename T> __global__ void fill(T* p, T v) { p[threadIdx.x] = v; }";
    /// let mut program = Program::new(src, "fill.cu")?;
    /// program.add_name_expression("fill<float>")?;
    /// program.add_name_expression("fill<int>")?;
    /// let compiled = program.compile(["--std=c++17"])?;
    /// for (expression, lowered) in compiled.lowered_names()? {
    ///     println!("{expression} is {lowered}"); // fill<float> is _Z4fillIfEvPT_S0_
    /// }
    /// # Ok(()) }
    /// ```
    #[doc(alias = "nvrtcGetLoweredName")]
    pub fn lowered_names(&self) -> Result<Vec<(String, String)>> {
        self.expressions
            .iter()
            .map(|e| Ok((e.clone(), self.lowered_name(e)?)))
            .collect()
    }

    /// The raw NVRTC program, for the typed and raw layers; it stays owned by `self`.
    pub fn as_raw(&self) -> sys::nvrtcProgram {
        self.handle.raw
    }

    /// Destroys the program now, returning NVRTC's status (dropping it ignores the status).
    #[doc(alias = "nvrtcDestroyProgram")]
    pub fn close(self) -> Result<()> {
        self.handle.close()
    }
}

/// Whether a compile option names the target architecture (`--gpu-architecture=…`,
/// `--gpu-architecture …`, `-arch=…`, `-arch …`).
fn is_arch_option(option: &[u8]) -> bool {
    ["--gpu-architecture", "-arch"].iter().any(|name| {
        option
            .strip_prefix(name.as_bytes())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(b"=") || rest.starts_with(b" "))
    })
}

/// The architecture to compile for when the options name none: the current device's when this
/// NVRTC supports it, else the newest supported one older than it; `None` without a device.
fn default_arch() -> Option<i32> {
    let device = current_device_arch()?;
    let supported = supported_architectures().ok()?;
    pick_arch(device, &supported)
}

/// `device` when `supported` has it, else the newest supported architecture below it.
fn pick_arch(device: i32, supported: &[i32]) -> Option<i32> {
    supported.iter().copied().filter(|a| *a <= device).max()
}

/// The current CUDA device's architecture as NVRTC numbers it (`90` for compute capability
/// 9.0), read through the CUDA runtime of this crate's major (`libcudart.so.@MAJOR@`,
/// `CUDART_PATH` first; `cudaGetDevice`, `cudaDeviceGetAttribute`), once per process. `None`
/// without a runtime or a device. This crate does not depend on the runtime crate; this is
/// the one place it opens the runtime library.
///
/// ```no_run
/// if let Some(arch) = @CRATE@::current_device_arch() {
///     println!("compiling for sm_{arch}");
/// }
/// ```
#[doc(alias = "cudaDevAttrComputeCapabilityMajor")]
pub fn current_device_arch() -> Option<i32> {
    static ARCH: std::sync::OnceLock<Option<i32>> = std::sync::OnceLock::new();
    *ARCH.get_or_init(read_device_arch)
}

/// [`current_device_arch`]'s work: open the runtime (found as the runtime crate finds it),
/// ask it.
fn read_device_arch() -> Option<i32> {
    use std::ffi::c_int;
    /// `cudaDevAttrComputeCapabilityMajor` and `…Minor`.
    const CC_MAJOR: c_int = 75;
    const CC_MINOR: c_int = 76;
    type GetDevice = unsafe extern "C" fn(*mut c_int) -> c_int;
    type GetAttribute = unsafe extern "C" fn(*mut c_int, c_int, c_int) -> c_int;
    // The runtime stays loaded for the process (it keeps the process's CUDA state).
    let lib = crate::library::RUNTIME.get().ok()?;
    // SAFETY: the runtime's `cudaError_t cudaGetDevice(int*)` and
    // `cudaError_t cudaDeviceGetAttribute(int*, enum cudaDeviceAttr, int)`; the loader's
    // library is never closed.
    let (get_device, get_attribute) = unsafe {
        (
            lib.symbol::<GetDevice>(c"cudaGetDevice").ok()?,
            lib.symbol::<GetAttribute>(c"cudaDeviceGetAttribute").ok()?,
        )
    };
    let (mut device, mut cc_major, mut cc_minor): (c_int, c_int, c_int) = (0, 0, 0);
    // SAFETY: each call writes one int through a valid pointer.
    let ok = unsafe {
        get_device(&mut device) == 0
            && get_attribute(&mut cc_major, CC_MAJOR, device) == 0
            && get_attribute(&mut cc_minor, CC_MINOR, device) == 0
    };
    (ok && cc_major > 0).then_some(cc_major * 10 + cc_minor)
}

/// NVRTC's compiler options, built one by one; `program.compile(&options)` passes them.
///
/// ```
/// use @CRATE@::CompileOptions;
/// let options = CompileOptions::new().arch("compute_80").define("N", "256").std("c++17");
/// assert_eq!(
///     options.as_slice(),
///     ["--gpu-architecture=compute_80", "-DN=256", "--std=c++17"]
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    options: Vec<String>,
}

impl CompileOptions {
    /// No option: the current device's architecture ([`Program::compile`]) and NVRTC's
    /// other defaults.
    pub fn new() -> CompileOptions {
        CompileOptions::default()
    }

    /// `--gpu-architecture=<arch>`: `compute_80` (PTX for a virtual architecture) or `sm_80`
    /// (a CUBIN for a real one).
    pub fn arch(self, arch: &str) -> CompileOptions {
        self.option(format!("--gpu-architecture={arch}"))
    }

    /// `-D<name>=<value>`: a macro definition.
    pub fn define(self, name: &str, value: &str) -> CompileOptions {
        self.option(format!("-D{name}={value}"))
    }

    /// `--include-path=<dir>`: a folder searched for headers after the program's own.
    pub fn include_path(self, dir: &str) -> CompileOptions {
        self.option(format!("--include-path={dir}"))
    }

    /// `--std=<standard>` (`c++17`, `c++20`).
    pub fn std(self, standard: &str) -> CompileOptions {
        self.option(format!("--std={standard}"))
    }

    /// `--use_fast_math`.
    pub fn fast_math(self) -> CompileOptions {
        self.option("--use_fast_math")
    }

    /// `--dlink-time-opt`: LTO-IR instead of PTX or CUBIN ([`Compiled::lto_ir`]).
    pub fn lto(self) -> CompileOptions {
        self.option("--dlink-time-opt")
    }

    /// `--generate-line-info`: line numbers for profilers and `compute-sanitizer`.
    pub fn line_info(self) -> CompileOptions {
        self.option("--generate-line-info")
    }

    /// Any other option, as NVRTC spells it.
    pub fn option(mut self, option: impl Into<String>) -> CompileOptions {
        self.options.push(option.into());
        self
    }

    /// The options, in order.
    pub fn as_slice(&self) -> &[String] {
        &self.options
    }
}

impl<'a> IntoIterator for &'a CompileOptions {
    type Item = &'a String;
    type IntoIter = std::slice::Iter<'a, String>;

    fn into_iter(self) -> Self::IntoIter {
        self.options.iter()
    }
}

/// The GPU architectures the loaded NVRTC compiles for, ascending (`[75, 80, 86, …]`; a value
/// `N` is `sm_N`/`compute_N`).
#[doc(alias = "nvrtcGetSupportedArchs")]
pub fn supported_architectures() -> Result<Vec<i32>> {
    let n = api::get_num_supported_archs()?;
    let n = usize::try_from(n)
        .map_err(|_| Error::InvalidArgument(format!("nvrtcGetNumSupportedArchs reported {n}")))?;
    let mut archs: Vec<i32> = Vec::new();
    archs
        .try_reserve_exact(n)
        .map_err(|_| Error::from_code(sys::nvrtcResult::ERROR_OUT_OF_MEMORY.as_raw() as i32))?;
    archs.resize(n, 0);
    if n > 0 {
        // SAFETY: `archs` holds the number of ints nvrtcGetNumSupportedArchs reported, which
        // is what nvrtcGetSupportedArchs writes.
        unsafe { sys::nvrtcGetSupportedArchs(archs.as_mut_ptr()) }?.result()?;
    }
    Ok(archs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_options_are_recognised_in_every_spelling() {
        for o in [
            "--gpu-architecture=sm_90",
            "--gpu-architecture compute_80",
            "-arch=sm_80",
            "-arch",
        ] {
            assert!(is_arch_option(o.as_bytes()), "{o}");
        }
        for o in ["-DARCH=1", "--std=c++17", "-architecture-x"] {
            assert!(!is_arch_option(o.as_bytes()), "{o}");
        }
    }

    #[test]
    fn the_default_arch_is_the_device_or_the_newest_older_one() {
        let supported = [75, 80, 86, 89, 90];
        assert_eq!(pick_arch(90, &supported), Some(90));
        assert_eq!(pick_arch(100, &supported), Some(90));
        assert_eq!(pick_arch(87, &supported), Some(86));
        assert_eq!(pick_arch(70, &supported), None);
    }

    #[test]
    fn options_are_spelled_as_nvrtc_spells_them() {
        let o = CompileOptions::new()
            .arch("sm_90")
            .include_path("/x")
            .fast_math()
            .lto()
            .line_info()
            .option("-G");
        assert_eq!(
            o.as_slice(),
            [
                "--gpu-architecture=sm_90",
                "--include-path=/x",
                "--use_fast_math",
                "--dlink-time-opt",
                "--generate-line-info",
                "-G"
            ]
        );
        assert_eq!((&o).into_iter().count(), 6);
    }

    #[test]
    fn strings_with_a_nul_are_refused_before_nvrtc() {
        let e = Program::new("__global__ void k() {}\0", "k.cu").unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert!(
            e.to_string().contains("source holds a NUL byte at 22"),
            "{e}"
        );
        let e = Program::with_headers("", "k.cu", &[Header::new("a\0.h", "")]).unwrap_err();
        assert!(e.to_string().contains("a header's name"), "{e}");
    }

    #[test]
    fn without_the_library_every_call_is_an_error_not_a_panic() {
        // Whatever this host has, the answers are values: a program, or the loader's error.
        match Program::new("__global__ void k() {}", "k.cu") {
            Ok(p) => assert_eq!(p.name(), "k.cu"),
            Err(e) => assert!(
                matches!(
                    e,
                    Error::LibraryNotFound { .. } | Error::SymbolNotFound { .. }
                ),
                "{e}"
            ),
        }
        let _ = crate::runtime_version();
        let _ = supported_architectures();
    }

    #[test]
    fn until_nul_stops_at_the_first_nul() {
        assert_eq!(until_nul(b"ab\0cd"), b"ab");
        assert_eq!(until_nul(b"ab"), b"ab");
        assert_eq!(until_nul(b""), b"");
    }
}
