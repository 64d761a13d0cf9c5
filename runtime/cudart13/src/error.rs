// Copied by `cargo xtask codegen` from the generator's codegen/template/src/error.rs:
// edit the template, not this copy.

//! The crate's one error type: loader failures (library not found, symbol missing) and CUDA
//! status codes (`cudaError_t`).
//!
//! This module does not load anything and does not know the list of CUDA error codes: the
//! name and description of a code come from the crate-private `describe`, which asks the
//! generated table (`sys::errors`) first and otherwise the already-loaded global library's
//! own `cudaGetErrorName` / `cudaGetErrorString`. It never panics.
//!
//! It also holds the process-wide hook through which the safe layer reports the errors it
//! cannot return: a failed destroy or free in a `Drop`, a panic caught in a host callback
//! ([`set_drop_error_hook`]).

use std::ffi::{c_char, c_int, CStr};

/// What a fallible function of this crate returns.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong when loading or calling the CUDA runtime.
///
/// No function of this crate panics or aborts on a missing library, a missing symbol or a
/// failing CUDA call: each of those is one of these variants.
///
/// `Debug` prints the same text as `Display`, so that `fn main() -> Result<()>` shows a
/// readable message rather than the variant's fields.
///
/// ```no_run
/// use cudart13::{Device, Error};
/// match Device::count() {
///     Ok(n) => println!("{n} device(s)"),
///     Err(Error::LibraryNotFound { tried }) => println!("no CUDA runtime ({} places tried)", tried.len()),
///     Err(e) if e.cuda_code() == Some(100) => println!("no device"), // cudaErrorNoDevice
///     Err(e) => println!("{e}"),
/// }
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No CUDA runtime library could be opened. `tried` lists every candidate (a path or a
    /// name given to the system loader) with the reason it failed, in search order.
    LibraryNotFound {
        /// `(candidate, why it failed)`, in the order they were tried.
        tried: Vec<(String, String)>,
    },
    /// The library was opened but does not export `symbol` (it is usually an older runtime
    /// than the function needs).
    SymbolNotFound {
        /// The C name that was looked up.
        symbol: String,
        /// The library it was looked up in (path or loader name, as opened).
        library: String,
        /// The loaded runtime's `cudaRuntimeGetVersion` (e.g. `13020`), when it could be read.
        version: Option<i32>,
    },
    /// The function needs a newer CUDA 13 release than the runtime that was loaded: its
    /// first release (from the headers of every minor release) is `since`, the runtime's
    /// `cudaRuntimeGetVersion` said `loaded`. Nothing was called; decided once per function,
    /// when it is first resolved. [`runtime_version`](crate::runtime_version) and
    /// [`function_since`](crate::function_since) tell it beforehand.
    NotInRuntime {
        /// The C function (`cudaFoo`).
        function: String,
        /// The first release that declares it.
        since: crate::version::CudaVersion,
        /// The loaded runtime's version.
        loaded: crate::version::CudaVersion,
    },
    /// An argument the safe layer checks before calling CUDA was refused: a range outside a
    /// buffer, two lengths that must agree, a string with an interior NUL, more launch
    /// attributes than a launch can hold. Nothing was sent to CUDA.
    InvalidArgument(String),
    /// A call through this crate (raw, typed or safe layer) was made from inside a CUDA host
    /// callback — a host function, a stream callback, a user-object destructor — where CUDA
    /// forbids CUDA calls. Nothing was sent to CUDA.
    InCallback {
        /// The C function that was called (`cudaMemcpy`).
        function: String,
    },
    /// A Rust closure run by CUDA (a host function, a stream callback, a graph host node)
    /// panicked; the panic was caught at the C boundary and reported here, through the hook
    /// of [`set_drop_error_hook`].
    CallbackPanicked(String),
    /// Memory was used by work whose completion could not be recorded or waited for (an
    /// event record, a wait or a capture query failed: the error that did is the
    /// [`source`](std::error::Error::source)): failing closed, the memory is never handed
    /// to the host and never freed (it is leaked).
    Unsettled(Box<Error>),
    /// An executable graph refused an update from a graph (`cudaGraphExecUpdate` returned
    /// `cudaErrorGraphExecUpdateFailure`, code 910, which [`Error::cuda_code`] gives): why,
    /// and which node of the graph CUDA named. The executable graph is unchanged.
    GraphUpdate(crate::graph::GraphUpdateFailure),
    /// A CUDA runtime call returned a status other than `cudaSuccess`.
    Cuda {
        /// The raw `cudaError_t` value.
        code: i32,
        /// The C name of the code (`cudaErrorInvalidValue`), when known.
        name: Option<&'static str>,
        /// The documentation's sentence for the code, when known.
        description: Option<&'static str>,
    },
}

// Written out rather than derived (`thiserror`): a derive macro would put `syn` and its
// companions in front of this crate in every build from clean, several seconds on their own.
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
                "symbol `{symbol}` is not exported by the CUDA runtime library {library} ({}); \
                 it needs a newer CUDA runtime (point CUDART_PATH at one) or a fallback",
                cuda_loader::render_version(*version)
            ),
            Error::NotInRuntime {
                function,
                since,
                loaded,
            } => write!(
                f,
                "{function} needs CUDA {since}; the loaded runtime is {loaded}"
            ),
            Error::InvalidArgument(why) => write!(f, "invalid argument: {why}"),
            Error::InCallback { function } => write!(
                f,
                "{function} was called from inside a CUDA host callback, where CUDA forbids CUDA calls"
            ),
            Error::CallbackPanicked(what) => write!(f, "a host callback panicked: {what}"),
            Error::Unsettled(cause) => write!(
                f,
                "this memory was used by work whose completion could not be recorded or \
                 waited for ({cause}): it is never handed to the host and never freed"
            ),
            Error::GraphUpdate(why) => write!(f, "{why}"),
            Error::Cuda {
                code,
                name,
                description,
            } => f.write_str(&render_cuda(*code, *name, *description)),
        }
    }
}

impl std::error::Error for Error {
    /// The error this one wraps: for [`Error::Unsettled`], the failure that left the memory
    /// unsettled; `None` for the others, which wrap nothing.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Unsettled(cause) => Some(&**cause),
            _ => None,
        }
    }
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl Error {
    /// The error for a `cudaError_t` status `code`, with its name and description when known
    /// (from the generated table, else from the already-loaded global library's
    /// `cudaGetErrorName` / `cudaGetErrorString`). The code is kept as is, also when neither
    /// knows it.
    pub fn from_code(code: i32) -> Error {
        let (name, description) = match describe(code) {
            Some((n, d)) => (Some(n), Some(d)),
            None => (None, None),
        };
        Error::Cuda {
            code,
            name,
            description,
        }
    }

    /// [`Error::from_code`] out of line, so that [`check`]'s success path stays a compare and
    /// a branch wherever it is inlined.
    #[cold]
    #[inline(never)]
    fn from_failed(code: i32) -> Error {
        Error::from_code(code)
    }

    /// The raw `cudaError_t` value of a [`Error::Cuda`] (910 for an [`Error::GraphUpdate`]);
    /// `None` for loader errors.
    pub fn cuda_code(&self) -> Option<i32> {
        match self {
            Error::Cuda { code, .. } => Some(*code),
            Error::GraphUpdate(_) => Some(crate::graph::GRAPH_EXEC_UPDATE_FAILURE),
            _ => None,
        }
    }
}

/// Turns a `cudaError_t` status into a `Result`: `0` (`cudaSuccess`) is `Ok(())`, any other
/// value is [`Error::Cuda`].
#[inline]
pub fn check(code: i32) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(Error::from_failed(code))
    }
}

impl crate::sys::cudaError_t {
    /// This status as a `Result`: `Ok(())` for `cudaSuccess`, any other value
    /// [`Error::Cuda`] (what [`check`] makes of it). For the status a raw call returns:
    /// `unsafe { sys::cudaDeviceSynchronize() }?.result()?`.
    #[inline]
    pub fn result(self) -> Result<()> {
        check(self.as_raw() as i32)
    }
}

/// `cudaErrorInvalidValue`, as the typed layer reports an argument it refuses before the call
/// (lists of different lengths for one count, a length the C count type cannot hold).
#[cold]
pub(crate) fn invalid_value() -> Error {
    Error::from_code(crate::sys::cudaError_t::ERROR_INVALID_VALUE.as_raw() as i32)
}

/// `cudaErrorMemoryAllocation`, as the typed layer reports a `Vec` it could not grow.
#[cold]
pub(crate) fn memory_allocation() -> Error {
    Error::from_code(crate::sys::cudaError_t::ERROR_MEMORY_ALLOCATION.as_raw() as i32)
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

/// `Ok(())` for a raw call that returned `cudaSuccess`; the loader's error when the call
/// could not be made; [`Error::Cuda`] for any other status. Used by the safe layer around
/// every [`sys`](crate::sys) call.
#[inline]
pub(crate) fn status(result: Result<crate::sys::cudaError_t>) -> Result<()> {
    check(result?.as_raw() as i32)
}

/// A zeroed buffer of `len` bytes for a C function to write a string into (the typed layer's
/// string outputs): a negative `len` is [`invalid_value`], one that cannot be allocated
/// `cudaErrorMemoryAllocation`, both without calling CUDA.
#[inline]
pub(crate) fn string_buffer<T: TryInto<usize>>(len: T) -> Result<Vec<u8>> {
    let len = len.try_into().map_err(|_| invalid_value())?;
    let mut buffer = Vec::new();
    buffer
        .try_reserve_exact(len)
        .map_err(|_| memory_allocation())?;
    buffer.resize(len, 0);
    Ok(buffer)
}

/// The string a C function wrote into `buffer`: the bytes before the first NUL (all of
/// them when it wrote none).
pub(crate) fn string_until_nul(mut buffer: Vec<u8>) -> std::ffi::CString {
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    buffer.truncate(end);
    // No NUL is left in `buffer`, so this cannot fail; an empty string if it did.
    std::ffi::CString::new(buffer).unwrap_or_default()
}

/// What the drop-error hook is called with: what was being released (`"stream"`,
/// `"device buffer"`, …) and why it failed.
pub type DropErrorHook = fn(resource: &'static str, error: &Error);

static DROP_HOOK: std::sync::RwLock<Option<DropErrorHook>> = std::sync::RwLock::new(None);

/// Sets the process-wide hook that receives the errors the safe layer cannot return: a
/// failed destroy or free in a `Drop` (`cudaStreamDestroy`, `cudaFreeAsync`, …) and a panic
/// caught in a Rust closure that CUDA called. Returns the previous hook; `None` restores
/// the default.
///
/// The default hook writes one line to standard error the first time each kind of failure
/// (resource and error code) is seen, and ignores errors that only say the library is
/// absent (nothing could have been created then) or that the runtime is already unloading
/// at process exit (`cudaErrorCudartUnloading`).
///
/// `Drop` never panics: a hook that panics is caught and ignored. Callers who want the
/// error itself call the type's `close(self) -> Result<()>` instead of dropping it.
pub fn set_drop_error_hook(hook: Option<DropErrorHook>) -> Option<DropErrorHook> {
    let mut slot = DROP_HOOK.write().unwrap_or_else(|e| e.into_inner());
    std::mem::replace(&mut *slot, hook)
}

/// Reports an error that cannot be returned (see [`set_drop_error_hook`]). Never panics.
pub(crate) fn report_drop_error(resource: &'static str, error: &Error) {
    let hook = *DROP_HOOK.read().unwrap_or_else(|e| e.into_inner());
    let hook = hook.unwrap_or(default_drop_hook);
    // A panicking hook must not unwind out of a `Drop` or a C callback.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| hook(resource, error)));
}

/// `cudaErrorCudartUnloading`: the runtime is shutting down (objects dropped at exit).
const CUDART_UNLOADING: i32 = 4;

fn default_drop_hook(resource: &'static str, error: &Error) {
    static SEEN: std::sync::Mutex<Vec<(&'static str, Option<i32>)>> =
        std::sync::Mutex::new(Vec::new());
    let code = match error {
        Error::LibraryNotFound { .. }
        | Error::SymbolNotFound { .. }
        | Error::NotInRuntime { .. } => return,
        Error::Cuda { code, .. } if *code == CUDART_UNLOADING => return,
        other => other.cuda_code(),
    };
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if seen.contains(&(resource, code)) {
        return;
    }
    seen.push((resource, code));
    eprintln!(
        "{}: releasing a {resource} failed: {error} (reported once per kind; \
         see set_drop_error_hook)",
        env!("CARGO_PKG_NAME")
    );
}

/// The panic payload of a caught panic as text, for [`Error::CallbackPanicked`].
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// The name and description of a `cudaError_t` code, or `None` when unknown.
///
/// Order of lookup:
/// 1. the generated table of the documented codes (`sys::errors`);
/// 2. the global library's own `cudaGetErrorName` / `cudaGetErrorString`, only when it is
///    already loaded (this never triggers a load).
pub(crate) fn describe(code: i32) -> Option<(&'static str, &'static str)> {
    crate::sys::errors::error_info(i64::from(code)).or_else(|| from_loaded_library(code))
}

/// Asks the already-loaded global library for the name and description of `code`.
fn from_loaded_library(code: i32) -> Option<(&'static str, &'static str)> {
    type GetString = unsafe extern "C" fn(c_int) -> *const c_char;
    // Inside a CUDA callback no CUDA function may be called, not even these two.
    // (The loader's state is read here directly, not through `crate::loader`, which builds
    // on this module's errors.)
    if crate::library::CALLBACKS.with(cuda_loader::callback::State::in_callback) {
        return None;
    }
    let lib = crate::library::LOADER.loaded()?;
    // SAFETY: both functions have this C signature in every CUDA runtime
    // (`const char* cudaGetErrorName(cudaError_t)`).
    let name: GetString = unsafe { lib.symbol(c"cudaGetErrorName") }.ok()?;
    let text: GetString = unsafe { lib.symbol(c"cudaGetErrorString") }.ok()?;
    // SAFETY: the functions accept any value (an unknown one yields an "unrecognized" string
    // or null); the strings are static data of the library, which the global never unloads.
    let (name, text) = unsafe { (static_str(name(code))?, static_str(text(code))?) };
    // An unknown code comes back as "unrecognized error code": not a name.
    name.starts_with("cuda").then_some((name, text))
}

/// A `'static` view of a C string owned by the never-unloaded global library.
///
/// # Safety
/// `ptr` is null or points to a NUL-terminated string that lives as long as the process.
unsafe fn static_str(ptr: *const c_char) -> Option<&'static str> {
    if ptr.is_null() {
        return None;
    }
    CStr::from_ptr(ptr).to_str().ok()
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

fn render_cuda(code: i32, name: Option<&str>, description: Option<&str>) -> String {
    match (name, description) {
        (Some(n), Some(d)) if !d.is_empty() => format!("CUDA error {code} ({n}): {d}"),
        (Some(n), _) => format!("CUDA error {code} ({n})"),
        _ => format!("CUDA error {code}"),
    }
}

fn render_not_found(tried: &[(String, String)]) -> String {
    let mut s = String::from("the CUDA runtime library (libcudart) could not be loaded");
    if tried.is_empty() {
        s.push_str("; no candidate was tried");
    } else {
        s.push_str("; tried:");
        for (what, why) in tried {
            s.push_str(&format!("\n  - {what}: {why}"));
        }
    }
    s.push_str(
        "\nSet CUDART_PATH to the libcudart file (or the folder holding it), or install the \
         CUDA runtime of this crate's major release (the CUDA Toolkit, or NVIDIA's \
         `nvidia-cuda-runtime` wheel from PyPI).",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_maps_zero_to_ok_and_keeps_other_codes() {
        assert_eq!(check(0), Ok(()));
        let e = check(12345).unwrap_err();
        assert_eq!(e.cuda_code(), Some(12345));
        assert!(e.to_string().contains("12345"), "{e}");
    }

    #[test]
    fn not_found_lists_every_candidate_and_says_what_to_do() {
        let e = Error::LibraryNotFound {
            tried: vec![
                ("/a/libcudart.so.13".into(), "no such file".into()),
                (
                    "libcudart.so".into(),
                    "not found by the system loader".into(),
                ),
            ],
        };
        let text = e.to_string();
        assert!(text.contains("/a/libcudart.so.13: no such file"), "{text}");
        assert!(text.contains("libcudart.so: not found"), "{text}");
        assert!(text.contains("CUDART_PATH"), "{text}");
    }

    #[test]
    fn symbol_not_found_names_symbol_library_and_version() {
        let e = Error::SymbolNotFound {
            symbol: "cudaFoo".into(),
            library: "/x/libcudart.so.13".into(),
            version: Some(13020),
        };
        let text = e.to_string();
        assert!(text.contains("`cudaFoo`"), "{text}");
        assert!(text.contains("/x/libcudart.so.13"), "{text}");
        assert!(text.contains("CUDA 13.2 (13020)"), "{text}");
        let unknown = Error::SymbolNotFound {
            symbol: "cudaFoo".into(),
            library: "x".into(),
            version: None,
        };
        assert!(unknown.to_string().contains("version unknown"));
    }

    #[test]
    fn not_in_runtime_names_the_function_and_both_releases() {
        use crate::version::CudaVersion;
        let e = Error::NotInRuntime {
            function: "cudaFoo".into(),
            since: CudaVersion::new(13, 4),
            loaded: CudaVersion::from_raw(13000),
        };
        assert_eq!(
            e.to_string(),
            "cudaFoo needs CUDA 13.4; the loaded runtime is 13.0"
        );
    }

    #[test]
    fn debug_reads_like_display() {
        let e = Error::LibraryNotFound {
            tried: vec![("libcudart.so".into(), "not found".into())],
        };
        assert_eq!(format!("{e:?}"), e.to_string());
        assert!(!format!("{e:?}").contains("LibraryNotFound {"));
    }

    #[test]
    fn drop_errors_reach_the_hook_and_a_panicking_hook_is_contained() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        fn counting(resource: &'static str, error: &Error) {
            if resource == "test resource" && error.cuda_code() == Some(999) {
                CALLS.fetch_add(1, Ordering::SeqCst);
            }
        }
        fn panicking(_: &'static str, _: &Error) {
            panic!("hook panics");
        }
        let previous = set_drop_error_hook(Some(counting));
        report_drop_error("test resource", &Error::from_code(999));
        report_drop_error("test resource", &Error::from_code(999));
        assert_eq!(CALLS.load(Ordering::SeqCst), 2);
        set_drop_error_hook(Some(panicking));
        report_drop_error("test resource", &Error::from_code(999));
        set_drop_error_hook(previous);
    }

    #[test]
    fn default_hook_ignores_a_missing_library_and_unloading() {
        // Nothing to observe but that these return without panicking.
        default_drop_hook("x", &Error::LibraryNotFound { tried: vec![] });
        default_drop_hook("x", &Error::from_code(CUDART_UNLOADING));
        default_drop_hook("x", &Error::from_code(1));
        default_drop_hook("x", &Error::from_code(1));
    }

    #[test]
    fn panic_messages_are_read_from_str_and_string_payloads() {
        let p = std::panic::catch_unwind(|| panic!("boom {}", 1)).unwrap_err();
        assert_eq!(panic_message(&*p), "boom 1");
        let p = std::panic::catch_unwind(|| panic!("static")).unwrap_err();
        assert_eq!(panic_message(&*p), "static");
        let p = std::panic::catch_unwind(|| std::panic::panic_any(5u8)).unwrap_err();
        assert!(panic_message(&*p).contains("non-string"));
    }

    #[test]
    fn unsettled_memory_names_its_cause_as_the_source() {
        use std::error::Error as _;
        let e = Error::Unsettled(Box::new(Error::from_code(999)));
        let source = e.source().expect("a source");
        assert_eq!(source.to_string(), Error::from_code(999).to_string());
        assert!(e.to_string().contains("never freed"), "{e}");
        assert!(Error::from_code(1).source().is_none());
    }

    #[test]
    fn cuda_error_displays_name_when_known() {
        let e = Error::Cuda {
            code: 1,
            name: Some("cudaErrorInvalidValue"),
            description: Some("invalid argument"),
        };
        assert_eq!(
            e.to_string(),
            "CUDA error 1 (cudaErrorInvalidValue): invalid argument"
        );
    }
}
