// Copied by `cargo xtask codegen` from the generator's codegen/template/src/error.rs:
// edit the template, not this copy.

//! The crate's one error type: loader failures (library not found, symbol missing), NVRTC
//! status codes (`nvrtcResult`), and a failed compilation with its log.
//!
//! This module does not load anything and does not know the list of NVRTC status codes: the
//! name of a code comes from the crate-private `describe`, which asks the generated table
//! (`sys::errors`) first and otherwise the already-loaded library's own
//! `nvrtcGetErrorString`. It never panics.

use std::ffi::{c_char, c_int, CStr};

/// What a fallible function of this crate returns.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong when loading or calling NVRTC.
///
/// No function of this crate panics or aborts on a missing library, a missing symbol or a
/// failing NVRTC call: each of those is one of these variants.
///
/// `Debug` prints the same text as `Display`, so that `fn main() -> Result<()>` shows a
/// readable message rather than the variant's fields.
///
/// ```no_run
/// use nvrtc12::{Error, Program};
/// let program = Program::new("__global__ void k() { syntax error }", "k.cu")?;
/// match program.compile(&["--gpu-architecture=compute_80"]) {
///     Ok(compiled) => println!("{} bytes of PTX", compiled.ptx()?.len()),
///     Err(Error::Compile { log, .. }) => eprintln!("the compiler says:\n{log}"),
///     Err(Error::LibraryNotFound { tried }) => eprintln!("no NVRTC ({} places tried)", tried.len()),
///     Err(other) => eprintln!("{other}"),
/// }
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No NVRTC library could be opened. `tried` lists every candidate (a path or a name
    /// given to the system loader) with the reason it failed, in search order.
    LibraryNotFound {
        /// `(candidate, why it failed)`, in the order they were tried.
        tried: Vec<(String, String)>,
    },
    /// The library was opened but does not export `symbol` (it is usually an older NVRTC
    /// than the function needs).
    SymbolNotFound {
        /// The C name that was looked up.
        symbol: String,
        /// The library it was looked up in (path or loader name, as opened).
        library: String,
        /// The loaded library's `nvrtcVersion` as `1000 * major + 10 * minor` (e.g.
        /// `13020`), when it could be read.
        version: Option<i32>,
    },
    /// The function is newer than the loaded NVRTC: its first release (from the headers of
    /// every minor release of the major) is later than the library's `nvrtcVersion`. Nothing
    /// was called.
    NotInRuntime {
        /// The C function (`nvrtcGetTileIR`).
        function: String,
        /// The first release that declares it.
        since: crate::version::CudaVersion,
        /// The loaded NVRTC's version.
        loaded: crate::version::CudaVersion,
    },
    /// An argument this crate checks before calling NVRTC was refused: a string with an
    /// interior NUL, more headers or options than a C `int` counts. Nothing was sent to NVRTC.
    InvalidArgument(String),
    /// A call through this crate was made inside the crate-private callback scope of the
    /// loader this crate shares with the runtime's crates (NVRTC forbids NVRTC calls from its
    /// flow callback). Nothing was sent to NVRTC.
    InCallback {
        /// The C function that was called (`nvrtcCompileProgram`).
        function: String,
    },
    /// An NVRTC call returned a status other than `NVRTC_SUCCESS`.
    Nvrtc {
        /// The raw `nvrtcResult` value.
        code: i32,
        /// The C name of the code (`NVRTC_ERROR_INVALID_INPUT`), when known.
        name: Option<&'static str>,
    },
    /// Compiling a program failed: NVRTC's status and the compilation log, which names each
    /// error with its file and line.
    Compile {
        /// The program's name (what the log's file names refer to).
        program: String,
        /// The raw `nvrtcResult` of `nvrtcCompileProgram` (`NVRTC_ERROR_COMPILATION` for
        /// errors in the source, `NVRTC_ERROR_INVALID_OPTION` for an unknown option).
        code: i32,
        /// The C name of the code, when known.
        name: Option<&'static str>,
        /// The compilation log (empty when NVRTC wrote none, or it could not be read).
        log: String,
    },
}

// Written out rather than derived (`thiserror`): a derive macro would put `syn` and its
// companions in front of this crate in every build from clean.
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::LibraryNotFound { tried } => f.write_str(&render_not_found(tried)),
            Error::SymbolNotFound {
                symbol,
                library,
                version,
            } => write!(
                f,
                "symbol `{symbol}` is not exported by the NVRTC library {library} ({}); it \
                 needs a newer NVRTC (point {} at one) or a fallback",
                render_version(*version),
                crate::library::PATH_VAR,
            ),
            Error::NotInRuntime {
                function,
                since,
                loaded,
            } => write!(
                f,
                "{function} needs NVRTC of CUDA {since}; the loaded NVRTC is {loaded}"
            ),
            Error::InvalidArgument(why) => write!(f, "invalid argument: {why}"),
            Error::InCallback { function } => write!(
                f,
                "{function} was called from inside an NVRTC callback, where NVRTC forbids NVRTC calls"
            ),
            Error::Nvrtc { code, name } => f.write_str(&render_code(*code, *name)),
            Error::Compile {
                program,
                code,
                name,
                log,
            } => {
                write!(f, "compiling {program} failed ({})", render_code(*code, *name))?;
                let log = log.trim_end();
                if log.is_empty() {
                    f.write_str("; NVRTC wrote no log")
                } else {
                    write!(f, ":\n{log}")
                }
            }
        }
    }
}

impl std::error::Error for Error {}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl Error {
    /// The error for an `nvrtcResult` status `code`, with its name when known (from the
    /// generated table, else from the already-loaded library's `nvrtcGetErrorString`). The
    /// code is kept as is, also when neither knows it.
    pub fn from_code(code: i32) -> Error {
        Error::Nvrtc {
            code,
            name: describe(code),
        }
    }

    /// [`Error::from_code`] out of line, so that [`check`]'s success path stays a compare and
    /// a branch wherever it is inlined.
    #[cold]
    #[inline(never)]
    fn from_failed(code: i32) -> Error {
        Error::from_code(code)
    }

    /// The raw `nvrtcResult` of an [`Error::Nvrtc`] or an [`Error::Compile`]; `None` for the
    /// others.
    pub fn nvrtc_code(&self) -> Option<i32> {
        match self {
            Error::Nvrtc { code, .. } | Error::Compile { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The compilation log of an [`Error::Compile`].
    pub fn log(&self) -> Option<&str> {
        match self {
            Error::Compile { log, .. } => Some(log),
            _ => None,
        }
    }
}

/// Turns an `nvrtcResult` status into a `Result`: `0` (`NVRTC_SUCCESS`) is `Ok(())`, any
/// other value is [`Error::Nvrtc`].
#[inline]
pub fn check(code: i32) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(Error::from_failed(code))
    }
}

impl crate::sys::nvrtcResult {
    /// This status as a `Result`: `Ok(())` for `NVRTC_SUCCESS`, any other value
    /// [`Error::Nvrtc`] (what [`check`] makes of it). For the status a raw call returns:
    /// `unsafe { sys::nvrtcGetPTX(prog, buffer) }?.result()?`.
    #[inline]
    pub fn result(self) -> Result<()> {
        check(self.as_raw() as i32)
    }
}

/// `NVRTC_ERROR_INVALID_INPUT`, as the typed layer reports an argument it refuses before the
/// call (lists of different lengths for one count, a length the C count type cannot hold).
#[cold]
pub(crate) fn invalid_value() -> Error {
    Error::from_code(crate::sys::nvrtcResult::ERROR_INVALID_INPUT.as_raw() as i32)
}

/// The one length the lists given for a C count parameter share (`None`: a list left out),
/// as the count's C type; 0 when every list is left out. Lists of different lengths, or a
/// length the type cannot hold, are [`invalid_value`].
#[inline]
pub(crate) fn shared_len<T: TryFrom<usize>>(lens: &[Option<usize>]) -> Result<T> {
    let mut n = None;
    for &len in lens.iter().flatten() {
        match n {
            Some(m) if m != len => return Err(invalid_value()),
            _ => n = Some(len),
        }
    }
    T::try_from(n.unwrap_or(0)).map_err(|_| invalid_value())
}

/// The name of an `nvrtcResult` code, or `None` when unknown.
///
/// Order of lookup:
/// 1. the generated table of the codes the header declares (`sys::errors`);
/// 2. the loaded library's own `nvrtcGetErrorString`, only when it is already loaded (this
///    never triggers a load).
pub(crate) fn describe(code: i32) -> Option<&'static str> {
    crate::sys::errors::error_info(i64::from(code))
        .map(|(name, _)| name)
        .or_else(|| from_loaded_library(code))
}

/// Asks the already-loaded library for the name of `code`.
fn from_loaded_library(code: i32) -> Option<&'static str> {
    type GetString = unsafe extern "C" fn(c_int) -> *const c_char;
    // (The loader's state is read here directly, not through `crate::loader`, which builds
    // on this module's errors.)
    if crate::library::CALLBACKS.with(cuda_loader::callback::State::in_callback) {
        return None;
    }
    let lib = crate::library::LOADER.loaded()?;
    // SAFETY: `const char *nvrtcGetErrorString(nvrtcResult)` in every NVRTC.
    let name: GetString = unsafe { lib.symbol(c"nvrtcGetErrorString") }.ok()?;
    // SAFETY: the function accepts any value (an unknown one yields "NVRTC_ERROR unknown");
    // the string is static data of the library, which is never unloaded.
    let ptr = unsafe { name(code) };
    if ptr.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated string that lives as long as the process.
    let text = unsafe { CStr::from_ptr(ptr) }.to_str().ok()?;
    // An unknown code comes back as "NVRTC_ERROR unknown": not a name.
    (text.starts_with("NVRTC_") && !text.contains(' ')).then_some(text)
}

impl From<cuda_loader::Error> for Error {
    /// The loader's error as this crate's, variant for variant.
    fn from(e: cuda_loader::Error) -> Error {
        match e {
            cuda_loader::Error::LibraryNotFound { tried } => Error::LibraryNotFound { tried },
            cuda_loader::Error::SymbolNotFound {
                symbol,
                library,
                version,
            } => Error::SymbolNotFound {
                symbol,
                library,
                version,
            },
            cuda_loader::Error::NotInRuntime {
                function,
                since,
                loaded,
            } => Error::NotInRuntime {
                function,
                since: crate::version::CudaVersion::from_raw(since),
                loaded: crate::version::CudaVersion::from_raw(loaded),
            },
            cuda_loader::Error::InCallback { function } => Error::InCallback { function },
        }
    }
}

/// `13020` → `NVRTC 13.2 (13020)`.
pub(crate) fn render_version(version: Option<i32>) -> String {
    match version {
        Some(v) => format!("NVRTC {}.{} ({v})", v / 1000, (v % 1000) / 10),
        None => "version unknown".to_string(),
    }
}

fn render_code(code: i32, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("NVRTC error {code} ({n})"),
        None => format!("NVRTC error {code}"),
    }
}

fn render_not_found(tried: &[(String, String)]) -> String {
    let mut s = String::from("the NVRTC library (libnvrtc) could not be loaded");
    if tried.is_empty() {
        s.push_str("; no candidate was tried");
    } else {
        s.push_str("; tried:");
        for (what, why) in tried {
            s.push_str(&format!("\n  - {what}: {why}"));
        }
    }
    s.push_str(&format!(
        "\nSet {} to the libnvrtc file (or the folder holding it), or install NVRTC of this \
         crate's major release (the CUDA Toolkit, or NVIDIA's `nvidia-cuda-nvrtc` wheel from \
         PyPI).",
        crate::library::PATH_VAR
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_maps_zero_to_ok_and_keeps_other_codes() {
        assert_eq!(check(0), Ok(()));
        let e = check(12345).unwrap_err();
        assert_eq!(e.nvrtc_code(), Some(12345));
        assert!(e.to_string().contains("12345"), "{e}");
    }

    #[test]
    fn known_codes_are_named_from_the_header() {
        let e = Error::from_code(3);
        assert_eq!(e.to_string(), "NVRTC error 3 (NVRTC_ERROR_INVALID_INPUT)");
        assert_eq!(invalid_value().nvrtc_code(), Some(3));
    }

    #[test]
    fn not_found_lists_every_candidate_and_says_what_to_do() {
        let e = Error::LibraryNotFound {
            tried: vec![("/a/libnvrtc.so.13".into(), "no such file".into())],
        };
        let text = e.to_string();
        assert!(text.contains("/a/libnvrtc.so.13: no such file"), "{text}");
        assert!(text.contains("NVRTC_PATH"), "{text}");
        assert_eq!(format!("{e:?}"), text);
    }

    #[test]
    fn a_compile_error_shows_its_log() {
        let e = Error::Compile {
            program: "k.cu".into(),
            code: 6,
            name: Some("NVRTC_ERROR_COMPILATION"),
            log: "k.cu(1): error: expected a \";\"\n".into(),
        };
        assert_eq!(
            e.to_string(),
            "compiling k.cu failed (NVRTC error 6 (NVRTC_ERROR_COMPILATION)):\nk.cu(1): error: expected a \";\""
        );
        assert_eq!(e.nvrtc_code(), Some(6));
        assert!(e.log().is_some_and(|l| l.contains("error")));
        let quiet = Error::Compile {
            program: "k.cu".into(),
            code: 5,
            name: None,
            log: String::new(),
        };
        assert!(quiet.to_string().ends_with("NVRTC wrote no log"), "{quiet}");
    }

    #[test]
    fn a_function_newer_than_the_library_names_both_releases() {
        use crate::version::CudaVersion;
        let e = Error::NotInRuntime {
            function: "nvrtcGetTileIR".into(),
            since: CudaVersion::new(13, 1),
            loaded: CudaVersion::from_raw(13000),
        };
        assert_eq!(
            e.to_string(),
            "nvrtcGetTileIR needs NVRTC of CUDA 13.1; the loaded NVRTC is 13.0"
        );
    }

    #[test]
    fn shared_lengths_must_agree_and_fit() {
        assert_eq!(shared_len::<i32>(&[Some(2), None, Some(2)]), Ok(2));
        assert_eq!(shared_len::<i32>(&[None]), Ok(0));
        assert!(shared_len::<i32>(&[Some(1), Some(2)]).is_err());
        assert!(shared_len::<u8>(&[Some(300)]).is_err());
    }
}
