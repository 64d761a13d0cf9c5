//! The process-wide library of one [`Spec`] ([`Loader`]: searched and opened on first use,
//! once, thread-safely) and the functions resolved from it ([`LazySymbol`]: one cached
//! pointer each).

use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

use crate::error::Error;
use crate::library::Library;
use crate::spec::Spec;

/// The library of one [`Spec`], opened on first use; a failure is kept too, so that probing
/// again is cheap and gives the same answer. A generated crate holds one in a `static`.
#[derive(Debug)]
pub struct Loader {
    spec: &'static Spec,
    global: OnceLock<Result<Library, Error>>,
}

impl Loader {
    /// The loader of `spec`'s library; opens nothing.
    pub const fn new(spec: &'static Spec) -> Loader {
        Loader {
            spec,
            global: OnceLock::new(),
        }
    }

    /// The facts it loads by.
    pub fn spec(&self) -> &'static Spec {
        self.spec
    }

    /// The library: searched ([`crate::search`]) and opened on the first call, then returned
    /// from a cache. A failure is cached too and returned again (as a clone) on every later
    /// call.
    pub fn get(&self) -> Result<&Library, Error> {
        self.global
            .get_or_init(|| crate::search::search(self.spec))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The library if [`Loader::get`] has already opened it; never opens it.
    pub fn loaded(&self) -> Option<&Library> {
        self.global.get().and_then(|r| r.as_ref().ok())
    }

    /// Whether the library loads, is at least `since` (`1000 * major + 10 * minor`, when the
    /// function is newer than the oldest release compared) and defines the function `name`.
    pub fn has_function(&self, name: &str, since: Option<i32>) -> bool {
        let Ok(c_name) = CString::new(name) else {
            return false;
        };
        self.get().is_ok_and(|lib| {
            !matches!(since, Some(since) if lib.runtime_version() < since)
                && lib.has_symbol(&c_name)
        })
    }
}

/// A function of a [`Loader`]'s library, resolved on first use and cached (the result,
/// success or error, is kept for the life of the process).
///
/// The generated bindings hold one `static` of this type per C function. A call after the
/// first reads the cached address with one atomic load (a plain load on x86-64), tests it
/// together with the callback mask, and clones nothing; resolving, and every error, take a
/// separate, out-of-line path.
pub struct LazySymbol<F> {
    name: &'static CStr,
    /// The first version that declares the function (`13040`), or 0 when every release of
    /// the major does.
    since: i32,
    loader: &'static Loader,
    /// The resolved address, or null while unresolved (or when resolving failed). Written
    /// once, after `cell` holds `Ok`, with the same address.
    ptr: AtomicPtr<c_void>,
    /// The outcome of the one resolution (library load and symbol lookup), success or error.
    cell: OnceLock<Result<F, Error>>,
}

impl<F: Copy> LazySymbol<F> {
    /// A lazily resolved `name` of `loader`'s library, which a library older than `since`
    /// (`1000 * major + 10 * minor`; 0 for none) does not have: resolving it then is
    /// [`Error::NotInRuntime`].
    ///
    /// # Safety
    /// `F` must be the `unsafe extern "C" fn` type of the C declaration of `name`
    /// (see [`Library::symbol`]).
    pub const unsafe fn new(name: &'static CStr, since: i32, loader: &'static Loader) -> Self {
        const {
            assert!(
                std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>(),
                "LazySymbol: F must be a function pointer type"
            )
        };
        LazySymbol {
            name,
            since,
            loader,
            ptr: AtomicPtr::new(std::ptr::null_mut()),
            cell: OnceLock::new(),
        }
    }

    /// The C name.
    pub fn name(&self) -> &'static CStr {
        self.name
    }

    /// The function pointer, or why there is none (library not loaded, a library older than
    /// the function, symbol missing, or [`Error::InCallback`] when `calls_allowed`, the
    /// caller's [`callback::State::calls_allowed`](crate::callback::State::calls_allowed), is
    /// zero).
    #[inline(always)]
    pub fn get(&self, calls_allowed: usize) -> Result<F, Error> {
        match self.cached(calls_allowed) {
            Some(f) => Ok(f),
            None => self.resolve(calls_allowed == 0),
        }
    }

    /// The hot path of [`LazySymbol::get`]: the cached pointer when it is resolved and
    /// `calls_allowed` is not zero, in one load and one test; `None` sends the caller to
    /// [`LazySymbol::resolve`]. A caller with its own error type converts only on that path,
    /// so that the pointer never goes through a `Result` of the loader's error.
    #[inline(always)]
    pub fn cached(&self, calls_allowed: usize) -> Option<F> {
        let ptr = self.ptr.load(Ordering::Acquire);
        // Non-null, and not inside a callback, in one test.
        if (ptr as usize) & calls_allowed != 0 {
            // SAFETY: a non-null `ptr` was stored by `resolve` from the `F` in `cell`, which
            // has the size of a pointer (checked in `new`).
            return Some(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&ptr) });
        }
        None
    }

    /// The first call (which loads the library and looks the symbol up, once, however many
    /// threads ask), every call after a failure, and every call inside a callback
    /// (`in_callback`: refused with [`Error::InCallback`]).
    #[cold]
    #[inline(never)]
    pub fn resolve(&self, in_callback: bool) -> Result<F, Error> {
        if in_callback {
            return Err(Error::InCallback {
                function: self.name.to_string_lossy().into_owned(),
            });
        }
        let result = self.cell.get_or_init(|| {
            let lib = self.loader.get()?;
            if lib.runtime_version() < self.since {
                return Err(Error::NotInRuntime {
                    function: self.name.to_string_lossy().into_owned(),
                    since: self.since,
                    loaded: lib.runtime_version(),
                });
            }
            // SAFETY: `F` matches `name`, as promised to `new`; the loader's library is
            // never unloaded.
            unsafe { lib.symbol::<F>(self.name) }
        });
        if let Ok(f) = result {
            // SAFETY: `F` is pointer-sized (checked in `new`): a function pointer.
            let ptr = unsafe { std::mem::transmute_copy::<F, *mut c_void>(f) };
            self.ptr.store(ptr, Ordering::Release);
        }
        result.clone()
    }
}

impl<F> std::fmt::Debug for LazySymbol<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazySymbol")
            .field("name", &self.name)
            .field("resolved", &self.cell.get().map(|r| r.is_ok()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::tests::CUDART13;

    static LOADER: Loader = Loader::new(&CUDART13);

    #[test]
    fn a_call_inside_a_callback_is_refused_before_loading() {
        type F = unsafe extern "C" fn(*mut i32) -> i32;
        // SAFETY: the prototype of `cudaGetDevice`; it is never called here.
        static SYMBOL: LazySymbol<F> = unsafe { LazySymbol::new(c"cudaGetDevice", 0, &LOADER) };
        match SYMBOL.get(0) {
            Err(Error::InCallback { function }) => assert_eq!(function, "cudaGetDevice"),
            other => panic!("expected InCallback, got {other:?}"),
        }
        assert!(LOADER.loaded().is_none());
    }
}
