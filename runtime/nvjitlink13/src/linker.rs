// Copied by `cargo xtask codegen` from the generator's codegen/template/src/linker.rs:
// edit the template, not this copy.

//! The safe layer: device code linked at run time. A [`Linker`] is created with its options
//! ([`LinkOptions`]: the target architecture, LTO, optimisation, …), given inputs of every kind
//! nvJitLink reads ([`InputKind`]: PTX, cubins, fatbins, host objects and libraries holding
//! device code, LTO-IR), and completed into a [`Linked`] image (a cubin, or PTX with
//! [`LinkOptions::ptx`]) with nvJitLink's info log; a step that fails is [`Error::Link`] with
//! nvJitLink's error log.
//!
//! The linked cubin is loaded with the runtime crate of the same major
//! (`cudart13::Module::from_bytes(&linked.cubin()?)`): this crate does not depend on the
//! runtime, so linking needs no GPU and no runtime library, and the runtime crate does not
//! depend on this one. Every nvJitLink handle this module creates is destroyed when its owner
//! is dropped; nothing here panics.

use std::ffi::{c_char, CString};
use std::path::Path;

use crate::error::{Error, Result};
use crate::sys;

/// The kind of an input of a [`Linker`] (`nvJitLinkInputType`).
#[doc(alias = "nvJitLinkInputType")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputKind {
    /// A CUDA binary for one real architecture (`.cubin`).
    Cubin,
    /// PTX text (`.ptx`), compiled by the linker for its architecture.
    Ptx,
    /// LTO-IR (NVRTC's `-dlto` output, `nvcc -dlto`); needs [`LinkOptions::lto`].
    LtoIr,
    /// A fat binary (`.fatbin`): the linker takes the entry for its architecture.
    Fatbin,
    /// A host object file holding device code (`nvcc -dc` output, `.o`).
    Object,
    /// A host library (archive) of such objects (`.a`).
    Library,
    /// An index file (`.index`): a list of the inputs to take from libraries.
    Index,
    /// nvJitLink looks at the data and chooses one of the kinds above.
    Any,
}

impl InputKind {
    /// The C value.
    pub fn as_raw(self) -> sys::nvJitLinkInputType {
        match self {
            InputKind::Cubin => sys::nvJitLinkInputType::CUBIN,
            InputKind::Ptx => sys::nvJitLinkInputType::PTX,
            InputKind::LtoIr => sys::nvJitLinkInputType::LTOIR,
            InputKind::Fatbin => sys::nvJitLinkInputType::FATBIN,
            InputKind::Object => sys::nvJitLinkInputType::OBJECT,
            InputKind::Library => sys::nvJitLinkInputType::LIBRARY,
            InputKind::Index => sys::nvJitLinkInputType::INDEX,
            InputKind::Any => sys::nvJitLinkInputType::ANY,
        }
    }

    /// The kind a file's extension names, as `nvcc` names its outputs: `cubin`, `ptx`,
    /// `ltoir`, `fatbin`, `o`/`obj`, `a`/`lib`, `index`; any other (or none) is [`Any`]
    /// (nvJitLink looks at the data).
    ///
    /// [`Any`]: InputKind::Any
    pub fn from_extension(path: &Path) -> InputKind {
        match path.extension().and_then(|e| e.to_str()) {
            Some("cubin") => InputKind::Cubin,
            Some("ptx") => InputKind::Ptx,
            Some("ltoir") => InputKind::LtoIr,
            Some("fatbin") => InputKind::Fatbin,
            Some("o" | "obj") => InputKind::Object,
            Some("a" | "lib") => InputKind::Library,
            Some("index") => InputKind::Index,
            _ => InputKind::Any,
        }
    }
}

/// nvJitLink's link options, built one by one; [`Linker::new`] takes them. The architecture
/// is required (`sm_80` for a cubin; `compute_80` with [`LinkOptions::ptx`] for PTX).
///
/// ```
/// use nvjitlink13::LinkOptions;
/// let options = LinkOptions::new("sm_90").lto().opt_level(3).kernels_used("vadd");
/// assert_eq!(
///     options.as_slice(),
///     ["-arch=sm_90", "-lto", "-O3", "-kernels-used=vadd"]
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkOptions {
    options: Vec<String>,
}

impl LinkOptions {
    /// `-arch=<arch>`: `sm_80` (a cubin for a real architecture), or `compute_80` when only
    /// PTX is made ([`LinkOptions::ptx`]).
    pub fn new(arch: &str) -> LinkOptions {
        LinkOptions {
            options: vec![format!("-arch={arch}")],
        }
    }

    /// `-lto`: link-time optimisation (needed to link [`InputKind::LtoIr`] inputs).
    pub fn lto(self) -> LinkOptions {
        self.option("-lto")
    }

    /// `-ptx`: PTX out instead of a cubin ([`Linked::ptx`]); only with [`LinkOptions::lto`].
    pub fn ptx(self) -> LinkOptions {
        self.option("-ptx")
    }

    /// `-O<level>`: the optimisation level (nvJitLink accepts 0 and 3).
    pub fn opt_level(self, level: u8) -> LinkOptions {
        self.option(format!("-O{level}"))
    }

    /// `-maxrregcount=<n>`: at most `n` registers per thread.
    pub fn max_registers(self, n: u32) -> LinkOptions {
        self.option(format!("-maxrregcount={n}"))
    }

    /// `-g`: debug information.
    pub fn debug(self) -> LinkOptions {
        self.option("-g")
    }

    /// `-lineinfo`: line information for profilers and `compute-sanitizer`.
    pub fn line_info(self) -> LinkOptions {
        self.option("-lineinfo")
    }

    /// `-ftz=<0|1>`: flush denormals to zero.
    pub fn ftz(self, on: bool) -> LinkOptions {
        self.option(format!("-ftz={}", u8::from(on)))
    }

    /// `-prec-div=<0|1>`: IEEE-precise division.
    pub fn prec_div(self, on: bool) -> LinkOptions {
        self.option(format!("-prec-div={}", u8::from(on)))
    }

    /// `-prec-sqrt=<0|1>`: IEEE-precise square root.
    pub fn prec_sqrt(self, on: bool) -> LinkOptions {
        self.option(format!("-prec-sqrt={}", u8::from(on)))
    }

    /// `-fma=<0|1>`: contract multiplies and adds into fused multiply-adds.
    pub fn fma(self, on: bool) -> LinkOptions {
        self.option(format!("-fma={}", u8::from(on)))
    }

    /// `-kernels-used=<name>`: a kernel that is used (those never named may be removed);
    /// repeatable.
    pub fn kernels_used(self, name: &str) -> LinkOptions {
        self.option(format!("-kernels-used={name}"))
    }

    /// `-variables-used=<name>`: a variable that is used; repeatable.
    pub fn variables_used(self, name: &str) -> LinkOptions {
        self.option(format!("-variables-used={name}"))
    }

    /// `-optimize-unused-variables`: variables device code does not reference may be removed.
    pub fn optimize_unused_variables(self) -> LinkOptions {
        self.option("-optimize-unused-variables")
    }

    /// `-Xptxas=<option>`: an option passed to ptxas; repeatable.
    pub fn ptxas(self, option: &str) -> LinkOptions {
        self.option(format!("-Xptxas={option}"))
    }

    /// `-split-compile=<threads>`: compile with up to `threads` threads (0: every processor).
    pub fn split_compile(self, threads: u32) -> LinkOptions {
        self.option(format!("-split-compile={threads}"))
    }

    /// `-time`: timing information in the info log.
    pub fn time(self) -> LinkOptions {
        self.option("-time")
    }

    /// `-verbose`: verbose messages in the info log.
    pub fn verbose(self) -> LinkOptions {
        self.option("-verbose")
    }

    /// Any other option, as nvJitLink spells it (`-no-cache`).
    pub fn option(mut self, option: impl Into<String>) -> LinkOptions {
        self.options.push(option.into());
        self
    }

    /// The options, in order.
    pub fn as_slice(&self) -> &[String] {
        &self.options
    }
}

impl<'a> IntoIterator for &'a LinkOptions {
    type Item = &'a String;
    type IntoIter = std::slice::Iter<'a, String>;

    fn into_iter(self) -> Self::IntoIter {
        self.options.iter()
    }
}

/// A link in progress: created with its options ([`Linker::new`]), given inputs
/// ([`Linker::add`], [`Linker::add_file`]), then completed ([`Linker::complete`]), which
/// consumes it. The nvJitLink handle is destroyed when this (or the [`Linked`] it becomes) is
/// dropped.
///
/// The linker keeps its own copy of every input until it is destroyed, so nothing given to it
/// needs to outlive the call.
///
/// ```no_run
/// use nvjitlink13::{InputKind, LinkOptions, Linker};
///
/// let ptx = std::fs::read("kernel.ptx").expect("PTX");
/// let cubin = std::fs::read("helpers.cubin").expect("a cubin");
/// let mut linker = Linker::new(&LinkOptions::new("sm_80"))?;
/// linker.add(InputKind::Ptx, &ptx, "kernel.ptx")?;
/// linker.add(InputKind::Cubin, &cubin, "helpers.cubin")?;
/// let image = linker.complete()?.cubin()?; // for cudart13::Module::from_bytes
/// # Ok::<(), nvjitlink13::Error>(())
/// ```
#[doc(alias = "nvJitLinkHandle")]
#[doc(alias = "nvJitLinkCreate")]
#[derive(Debug)]
pub struct Linker {
    handle: Handle,
}

/// The nvJitLink handle, destroyed on drop, and the copies of the inputs it was given.
#[derive(Debug)]
struct Handle {
    raw: sys::nvJitLinkHandle,
    /// The inputs' bytes and names, kept for as long as the handle lives.
    inputs: Vec<(Vec<u8>, CString)>,
    /// nvJitLink calls on one handle must not overlap: the handle is used from one thread at
    /// a time (`Send`, not `Sync`).
    _not_sync: std::marker::PhantomData<std::cell::Cell<()>>,
}

// SAFETY: an nvJitLink handle is not tied to the thread that created it; `Handle` is not
// `Sync` (the marker above), so no two threads call nvJitLink on it at once.
unsafe impl Send for Handle {}

impl Handle {
    /// Destroys the handle, returning nvJitLink's status (the drop that follows finds it
    /// null and does nothing).
    fn close(mut self) -> Result<()> {
        self.destroy()
    }

    fn destroy(&mut self) -> Result<()> {
        if self.raw.is_null() {
            return Ok(());
        }
        // SAFETY: a live handle this object owns; nvJitLink sets it to null.
        let result = unsafe { sys::nvJitLinkDestroy(&mut self.raw) }.and_then(|s| s.result());
        self.raw = sys::nvJitLinkHandle::null();
        self.inputs.clear();
        result
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // A failure to destroy cannot be reported from a drop.
        let _ = self.destroy();
    }
}

impl Linker {
    /// A linker with `options` (a [`LinkOptions`], or nvJitLink's options as strings, one per
    /// item: `["-arch=sm_80", "-lto"]`). Options nvJitLink does not know, or a missing
    /// architecture, are [`Error::Link`].
    #[doc(alias = "nvJitLinkCreate")]
    pub fn new<I, S>(options: I) -> Result<Linker>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let options: Vec<CString> = options
            .into_iter()
            .map(|o| c_string(o.as_ref(), "a link option"))
            .collect::<Result<_>>()?;
        let mut pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let count = u32::try_from(pointers.len())
            .map_err(|_| Error::InvalidArgument("more link options than a u32 counts".into()))?;
        let mut raw = sys::nvJitLinkHandle::null();
        // SAFETY: a pointer to a local handle, and `count` C strings that outlive the call
        // (nvJitLink reads them; the C type is not const-qualified, nothing is written).
        let status = unsafe { sys::nvJitLinkCreate(&mut raw, count, pointers.as_mut_ptr()) }?;
        match status.result() {
            Ok(()) if !raw.is_null() => Ok(Linker {
                handle: Handle {
                    raw,
                    inputs: Vec::new(),
                    _not_sync: std::marker::PhantomData,
                },
            }),
            // Success with no handle: nvJitLink broke its contract; nothing to destroy.
            Ok(()) => Err(Error::from_code(
                sys::nvJitLinkResult::ERROR_INTERNAL.as_raw() as i32,
            )),
            // A handle written by a failed create is not documented to be usable: it is left
            // alone (leaked, never destroyed twice), and the error has no log.
            Err(e) => Err(link_error("nvJitLinkCreate".into(), e, String::new())),
        }
    }

    /// Adds `data` of `kind` to the link, under `name` (what the logs call it). The linker
    /// keeps a copy; PTX gets the NUL terminator nvJitLink expects when it has none. A kind
    /// the data is not, or data nvJitLink cannot read, is [`Error::Link`] with the error log.
    #[doc(alias = "nvJitLinkAddData")]
    pub fn add(&mut self, kind: InputKind, data: &[u8], name: &str) -> Result<()> {
        let name = c_string(name, "the input's name")?;
        let mut copy = Vec::new();
        copy.try_reserve_exact(data.len() + 1)
            .map_err(|_| Error::InvalidArgument("no memory for a copy of the input".into()))?;
        copy.extend_from_slice(data);
        if kind == InputKind::Ptx && copy.last() != Some(&0) {
            copy.push(0);
        }
        // SAFETY: a live handle of this object, used through `&mut self`; the data and the
        // name are owned by the handle from here on (moved below without moving their heap
        // storage), so they outlive every use nvJitLink may make of them.
        let status = unsafe {
            sys::nvJitLinkAddData(
                self.handle.raw,
                kind.as_raw(),
                copy.as_ptr().cast(),
                copy.len(),
                name.as_ptr(),
            )
        };
        let step = format!("nvJitLinkAddData of {}", name.to_string_lossy());
        self.handle.inputs.push((copy, name));
        self.checked(step, status)
    }

    /// Adds the file at `path` of `kind` (see [`InputKind::from_extension`]); nvJitLink reads
    /// it. A file it cannot read is [`Error::Link`] with the error log.
    #[doc(alias = "nvJitLinkAddFile")]
    pub fn add_file(&mut self, kind: InputKind, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let text = path.to_str().ok_or_else(|| {
            Error::InvalidArgument(format!("the path {} is not UTF-8", path.display()))
        })?;
        let file = c_string(text, "the file name")?;
        // SAFETY: a live handle of this object, used through `&mut self`; a C string that
        // outlives the call (nvJitLink reads the file during it).
        let status =
            unsafe { sys::nvJitLinkAddFile(self.handle.raw, kind.as_raw(), file.as_ptr()) };
        self.checked(format!("nvJitLinkAddFile of {text}"), status)
    }

    /// Links the inputs. On success the [`Linked`] image holds the result and the info log;
    /// on failure the error is [`Error::Link`] with nvJitLink's error log, and the handle is
    /// destroyed.
    #[doc(alias = "nvJitLinkComplete")]
    pub fn complete(self) -> Result<Linked> {
        // SAFETY: a live handle of this object, consumed here.
        let status = unsafe { sys::nvJitLinkComplete(self.handle.raw) };
        let handle = self.handle;
        match status.and_then(|s| s.result()) {
            Ok(()) => {
                let info_log = read_log(&handle, LogKind::Info).unwrap_or_default();
                Ok(Linked { handle, info_log })
            }
            Err(e) => {
                let log = read_log(&handle, LogKind::Error).unwrap_or_default();
                Err(link_error("nvJitLinkComplete".into(), e, log))
            }
        }
    }

    /// The info log so far (options' remarks, `-verbose` and `-time` output).
    #[doc(alias = "nvJitLinkGetInfoLog")]
    pub fn info_log(&self) -> Result<String> {
        read_log(&self.handle, LogKind::Info)
    }

    /// The error log so far.
    #[doc(alias = "nvJitLinkGetErrorLog")]
    pub fn error_log(&self) -> Result<String> {
        read_log(&self.handle, LogKind::Error)
    }

    /// The nvJitLink handle, for the raw and typed layers; it stays owned by this linker.
    pub fn as_raw(&self) -> sys::nvJitLinkHandle {
        self.handle.raw
    }

    /// Destroys the handle now, returning nvJitLink's status (dropping it ignores the status).
    #[doc(alias = "nvJitLinkDestroy")]
    pub fn close(self) -> Result<()> {
        self.handle.close()
    }

    /// `status` of `step` as a `Result`, a failure with the error log.
    fn checked(&self, step: String, status: Result<sys::nvJitLinkResult>) -> Result<()> {
        match status.and_then(|s| s.result()) {
            Ok(()) => Ok(()),
            Err(e) => {
                let log = read_log(&self.handle, LogKind::Error).unwrap_or_default();
                Err(link_error(step, e, log))
            }
        }
    }
}

/// A completed link: the image and the info log. Its handle is destroyed when it is dropped.
#[derive(Debug)]
pub struct Linked {
    handle: Handle,
    info_log: String,
}

impl Linked {
    /// The linked cubin, for `cudart13::Module::from_bytes`.
    #[doc(alias = "nvJitLinkGetLinkedCubin")]
    pub fn cubin(&self) -> Result<Vec<u8>> {
        let raw = self.handle.raw;
        // SAFETY: a live handle; the size and get functions of one output, the second writing
        // at most the bytes the first reports.
        unsafe {
            output(
                |n| sys::nvJitLinkGetLinkedCubinSize(raw, n),
                |p| sys::nvJitLinkGetLinkedCubin(raw, p.cast()),
            )
        }
    }

    /// The linked PTX (with [`LinkOptions::ptx`]), without its NUL terminator.
    #[doc(alias = "nvJitLinkGetLinkedPtx")]
    pub fn ptx(&self) -> Result<String> {
        let raw = self.handle.raw;
        // SAFETY: as in `cubin`.
        let bytes = unsafe {
            output(
                |n| sys::nvJitLinkGetLinkedPtxSize(raw, n),
                |p| sys::nvJitLinkGetLinkedPtx(raw, p.cast()),
            )
        }?;
        Ok(String::from_utf8_lossy(until_nul(&bytes)).into_owned())
    }

    /// The info log of the link (empty when nvJitLink wrote none).
    #[doc(alias = "nvJitLinkGetInfoLog")]
    pub fn info_log(&self) -> &str {
        &self.info_log
    }

    /// The nvJitLink handle, for the raw and typed layers; it stays owned by this object.
    pub fn as_raw(&self) -> sys::nvJitLinkHandle {
        self.handle.raw
    }

    /// Destroys the handle now, returning nvJitLink's status (dropping it ignores the status).
    #[doc(alias = "nvJitLinkDestroy")]
    pub fn close(self) -> Result<()> {
        self.handle.close()
    }
}

/// The error of a failed `step`: [`Error::Link`] with `log` for an nvJitLink status, any other
/// error (the library or a symbol missing) as it is.
fn link_error(step: String, e: Error, log: String) -> Error {
    match e {
        Error::NvJitLink { code, name } => Error::Link {
            step,
            code,
            name,
            log,
        },
        other => other,
    }
}

#[derive(Clone, Copy)]
enum LogKind {
    Info,
    Error,
}

/// One of the handle's logs.
fn read_log(handle: &Handle, kind: LogKind) -> Result<String> {
    let raw = handle.raw;
    // SAFETY: a live handle; the size and get functions of one log.
    let bytes = unsafe {
        match kind {
            LogKind::Info => output(
                |n| sys::nvJitLinkGetInfoLogSize(raw, n),
                |p| sys::nvJitLinkGetInfoLog(raw, p),
            ),
            LogKind::Error => output(
                |n| sys::nvJitLinkGetErrorLogSize(raw, n),
                |p| sys::nvJitLinkGetErrorLog(raw, p),
            ),
        }
    }?;
    Ok(String::from_utf8_lossy(until_nul(&bytes)).into_owned())
}

/// One output: its size from `size`, then that many bytes from `get`.
///
/// # Safety
/// `size` and `get` must be a matching pair of nvJitLink calls on a live handle
/// (`nvJitLinkGetLinkedCubinSize` and `nvJitLinkGetLinkedCubin`, …): `get` writes at most the
/// number of bytes `size` reports.
unsafe fn output(
    size: impl FnOnce(*mut usize) -> Result<sys::nvJitLinkResult>,
    get: impl FnOnce(*mut c_char) -> Result<sys::nvJitLinkResult>,
) -> Result<Vec<u8>> {
    let mut n: usize = 0;
    size(&mut n)?.result()?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(n)
        .map_err(|_| Error::InvalidArgument(format!("no memory for an output of {n} bytes")))?;
    bytes.resize(n, 0);
    if n > 0 {
        get(bytes.as_mut_ptr().cast())?.result()?;
    }
    Ok(bytes)
}

/// `bytes` up to its first NUL.
fn until_nul(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// `text` as a C string; a NUL inside is [`Error::InvalidArgument`].
fn c_string(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|_| Error::InvalidArgument(format!("{what} holds a NUL byte")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_spelled_as_nvjitlink_spells_them() {
        let o = LinkOptions::new("sm_80")
            .lto()
            .ptx()
            .max_registers(64)
            .ftz(true)
            .prec_div(false)
            .ptxas("-v")
            .split_compile(0)
            .option("-no-cache");
        assert_eq!(
            o.as_slice(),
            [
                "-arch=sm_80",
                "-lto",
                "-ptx",
                "-maxrregcount=64",
                "-ftz=1",
                "-prec-div=0",
                "-Xptxas=-v",
                "-split-compile=0",
                "-no-cache"
            ]
        );
    }

    #[test]
    fn kinds_follow_nvccs_extensions() {
        for (file, kind) in [
            ("a.cubin", InputKind::Cubin),
            ("a.ptx", InputKind::Ptx),
            ("a.ltoir", InputKind::LtoIr),
            ("a.fatbin", InputKind::Fatbin),
            ("a.o", InputKind::Object),
            ("liba.a", InputKind::Library),
            ("a.index", InputKind::Index),
            ("a.bin", InputKind::Any),
            ("noext", InputKind::Any),
        ] {
            assert_eq!(InputKind::from_extension(Path::new(file)), kind, "{file}");
        }
        assert_eq!(InputKind::Ptx.as_raw(), sys::nvJitLinkInputType::PTX);
    }

    #[test]
    fn a_nul_in_an_option_is_refused_before_calling_nvjitlink() {
        let err = Linker::new(["-arch=sm_80\0"]).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    }
}
