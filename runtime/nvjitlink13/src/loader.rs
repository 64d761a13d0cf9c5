// Copied by `cargo xtask codegen` from the generator's codegen/template/src/loader.rs:
// edit the template, not this copy.

//! Finding, opening and querying the nvJitLink library (`libnvJitLink`) at run time, through
//! the [`cuda_loader`] crate, which every crate the generator writes shares; this module keeps
//! this crate's names for it.
//!
//! Nothing here is linked at build time: the library is opened with `libloading` the first
//! time it is needed ([`Library::get`]), once per process, thread-safely. Every failure is an
//! [`Error`]; nothing panics or aborts.
//!
//! Search order of [`Library::search`] (and so of [`Library::get`]; see
//! [`cuda_loader::search`]):
//! 1. `NVJITLINK_PATH` ([`PATH_VAR`]), when set and not empty: a library file, or a folder holding
//!    one. When it is set nothing else is tried, so a wrong setting is an error.
//! 2. NVIDIA's wheel of the library in the activated Python environment (`$VIRTUAL_ENV`,
//!    `$CONDA_PREFIX`: `site-packages/nvidia/cu13/lib`, `nvidia/nvjitlink/lib`), then
//!    `$CONDA_PREFIX/lib`.
//! 3. The system loader: `libnvJitLink.so.13`, then `libnvJitLink.so` (Windows: the DLL of the
//!    major).
//! 4. NVIDIA's wheel in the other Python environments in reach (`PYTHONPATH`, `PYTHONHOME`,
//!    the user site, the interpreters on `PATH`, pyenv).
//! 5. The usual install folders (`/usr/local/cuda/lib64`, `$CUDA_PATH/lib64`,
//!    `$CUDA_HOME/lib64`, `/usr/local/cuda-13*/lib64`, `/usr/lib/<arch>-linux-gnu`).
//!
//! On Linux a library file is checked before the system loader maps it ([`cuda_loader::elf`]),
//! and a C function is resolved only to a function symbol the library itself defines. Every
//! library opened must be the nvJitLink library of this crate's major release
//! ([`crate::sys::CUDA_MAJOR`]); its version is kept ([`Library::runtime_version`]). A
//! function whose first release is newer than that version is [`Error::NotInRuntime`],
//! decided once, when the function is resolved ([`LazySymbol`]).
//!
//! Calls made inside a CUDA host callback (host functions, stream callbacks, user-object
//! destructors), where CUDA forbids CUDA calls, return [`Error::InCallback`] without calling
//! C: the safe layer runs its callbacks inside the crate-private `callback_scope`, which every
//! [`LazySymbol`] checks at no cost of its own.

use std::ffi::CStr;
use std::path::Path;

use crate::error::{Error, Result};
pub use crate::library::PATH_VAR;

/// An opened nvJitLink library of this crate's major release.
///
/// The global one ([`Library::get`]) lives for the whole process; one opened explicitly
/// ([`Library::open`]) is closed when dropped, and function pointers taken from it must not
/// be called after that.
#[repr(transparent)]
pub struct Library(cuda_loader::Library);

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Runs `f` as the body of a CUDA host callback (a host function, a stream callback, a
/// user-object destructor): every call through this crate made inside it — raw [`sys`]
/// functions, the typed layer, hence the safe layer — returns [`Error::InCallback`] without
/// calling CUDA, which forbids CUDA calls there. Scopes nest; the scope ends when `f`
/// returns or unwinds.
///
/// [`sys`]: crate::sys
#[allow(dead_code)] // the safe layer's callback trampolines call it
pub(crate) fn callback_scope<R>(f: impl FnOnce() -> R) -> R {
    cuda_loader::callback::scope(&crate::library::CALLBACKS, f)
}

/// Whether this thread is inside [`callback_scope`].
#[inline(always)]
pub(crate) fn in_callback() -> bool {
    crate::library::CALLBACKS.with(cuda_loader::callback::State::in_callback)
}

impl Library {
    /// The view of a library of this crate's loader.
    fn wrap(lib: &cuda_loader::Library) -> &Library {
        // SAFETY: `Library` is a `repr(transparent)` wrapper of `cuda_loader::Library`.
        unsafe { &*(lib as *const cuda_loader::Library).cast::<Library>() }
    }

    /// The process-wide library: searched and opened on the first call (see the
    /// [module documentation](self) for the search order), then returned from a cache. A
    /// failure is cached too and returned again (as a clone) on every later call.
    pub fn get() -> Result<&'static Library> {
        crate::library::LOADER
            .get()
            .map(Library::wrap)
            .map_err(Error::from)
    }

    /// Runs the search without caching anything and returns the first library that opens
    /// and is this crate's library, or [`Error::LibraryNotFound`] listing every candidate
    /// tried.
    pub fn search() -> Result<Library> {
        cuda_loader::search::search(&crate::library::SPEC)
            .map(Library)
            .map_err(Error::from)
    }

    /// Opens the library at `path` (a file; a bare file name goes through the system loader),
    /// checks that it is the nvJitLink library of this crate's major release
    /// ([`crate::sys::CUDA_MAJOR`], read from the function it identifies itself by), and keeps
    /// its version. A failure is [`Error::LibraryNotFound`] with this one path and the reason.
    ///
    /// # Safety
    ///
    /// Opening runs the library's initialisers, and every function of this crate that uses
    /// the library calls its symbols with the C prototypes of this crate's CUDA release. The
    /// file must be a genuine nvJitLink library: what this function checks (a well-formed ELF
    /// image for this process, a version function reporting the crate's major) cannot tell a
    /// genuine library from code that only claims to be one.
    pub unsafe fn open(path: impl AsRef<Path>) -> Result<Library> {
        // SAFETY: the caller's promise, as above.
        unsafe { cuda_loader::Library::open(&crate::library::SPEC, path) }
            .map(Library)
            .map_err(Error::from)
    }

    /// The path (or system-loader name) the library was opened from.
    pub fn path(&self) -> &str {
        self.0.path()
    }

    /// Resolves the C function `name` as a function pointer of type `F`, or
    /// [`Error::SymbolNotFound`] naming the symbol, this library and its runtime version.
    ///
    /// Nothing is cached; see [`LazySymbol`] for a cached lookup.
    ///
    /// # Safety
    /// `F` must be an `unsafe extern "C" fn(..) -> ..` type matching the C declaration of
    /// `name` (a pointer-sized type is enforced at compile time; the signature is not), and
    /// the pointer must not be called after this `Library` is dropped.
    pub unsafe fn symbol<F: Copy>(&self, name: &CStr) -> Result<F> {
        // SAFETY: the caller's promise, as above.
        unsafe { self.0.symbol(name) }.map_err(Error::from)
    }

    /// Whether the library exports `name`.
    pub fn has_symbol(&self, name: &CStr) -> bool {
        self.0.has_symbol(name)
    }

    /// The library's version as it reported it when it was opened (the function it identifies
    /// itself by): `1000 * major + 10 * minor` (13.2 is `13020`); its major is this crate's.
    pub fn runtime_version(&self) -> i32 {
        self.0.runtime_version()
    }
}

/// Whether the nvJitLink library can be loaded (opening it on the first call).
///
/// A `false` here lets a caller choose a CPU fallback; [`Library::get`] says why.
pub fn is_available() -> bool {
    Library::get().is_ok()
}

/// Whether the nvJitLink library loads, is at least the first release that declares the C
/// function `name` (for example `"nvJitLinkGetLinkedLTOIR"`; see [`crate::function_since`]) and exports
/// it, so that a caller can fall back on an older release instead of getting
/// [`Error::NotInRuntime`] or [`Error::SymbolNotFound`].
pub fn has_function(name: &str) -> bool {
    let since = crate::version::function_since(name).map(|v| v.as_raw());
    crate::library::LOADER.has_function(name, since)
}

/// A function of the global library, resolved on first use and cached (the result, success
/// or error, is kept for the life of the process).
///
/// The generated bindings hold one `static` of this type per C function. A call after the
/// first reads the cached address with one atomic load (a plain load on x86-64), tests it
/// together with the callback mask, and clones nothing; resolving, and every error, take a
/// separate, out-of-line path.
pub struct LazySymbol<F>(cuda_loader::LazySymbol<F>);

impl<F: Copy> LazySymbol<F> {
    /// A lazily resolved `name`, which a runtime older than `since` (`1000 * major + 10 *
    /// minor`; 0 for none) does not have: resolving it then is [`Error::NotInRuntime`].
    ///
    /// # Safety
    /// `F` must be the `unsafe extern "C" fn` type of the C declaration of `name`
    /// (see [`Library::symbol`]).
    pub const unsafe fn new(name: &'static CStr, since: i32) -> LazySymbol<F> {
        // SAFETY: the caller's promise, as above.
        LazySymbol(unsafe { cuda_loader::LazySymbol::new(name, since, &crate::library::LOADER) })
    }

    /// The C name.
    pub fn name(&self) -> &'static CStr {
        self.0.name()
    }

    /// The function pointer, or why there is none (library not loaded, a runtime older than
    /// the function, symbol missing, or [`Error::InCallback`] inside a CUDA host callback).
    #[inline(always)]
    pub fn get(&self) -> Result<F> {
        let allowed = crate::library::CALLBACKS.with(cuda_loader::callback::State::calls_allowed);
        match self.0.cached(allowed) {
            Some(f) => Ok(f),
            None => self.resolve(),
        }
    }

    /// The first call, every call after a failure, and every call inside a CUDA callback
    /// (which reads the callback state again here, off the call path).
    #[cold]
    #[inline(never)]
    fn resolve(&self) -> Result<F> {
        self.0.resolve(in_callback()).map_err(Error::from)
    }
}

impl<F> std::fmt::Debug for LazySymbol<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_of_missing_file_names_it() {
        // SAFETY: nothing is there to open.
        let path = "/nonexistent/dir/libnvJitLink.so.13";
        let err = unsafe { Library::open(path) }.unwrap_err();
        let Error::LibraryNotFound { tried } = &err else {
            panic!("unexpected {err:?}");
        };
        assert_eq!(tried.len(), 1);
        assert_eq!(tried[0].1, "no such file");
        assert!(err.to_string().contains(path));
    }

    #[test]
    fn open_of_a_library_that_is_not_this_crates_is_refused() {
        // The C library is present on every Linux host and exports no CUDA function.
        if cfg!(target_os = "linux") {
            // SAFETY: the C library is already loaded in this process; opening it again runs
            // no initialiser.
            let err = unsafe { Library::open("libc.so.6") }.unwrap_err();
            let expected = format!("not a {} library", crate::library::SPEC.kind);
            assert!(err.to_string().contains(&expected), "{err}");
        }
    }
}
