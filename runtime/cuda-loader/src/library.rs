//! An opened library ([`Library`]): opening one file or name and checking that it is the
//! library of a [`Spec`] and of its major release, and resolving its functions.

use std::ffi::{c_int, c_void, CStr};
use std::path::{Path, PathBuf};

use crate::error::{render_version, Error};
use crate::spec::{Spec, VersionQuery};

/// An opened library of one [`Spec`]'s major release.
///
/// One opened by a [`Loader`](crate::Loader) lives for the whole process; one opened
/// explicitly ([`Library::open`]) is closed when dropped, and function pointers taken from it
/// must not be called after that.
#[derive(Debug)]
pub struct Library {
    inner: libloading::Library,
    path: String,
    /// The version the library reported when it was opened (`1000 * major + 10 * minor`).
    version: i32,
    /// The symbols the library defines, from its ELF dynamic symbol table (on Linux).
    symbols: Option<crate::elf::Symbols>,
}

impl Library {
    /// Opens the library at `path` (a file; a bare file name goes through the system loader),
    /// checks that it is `spec`'s library of `spec`'s major release (read from the function
    /// it identifies itself by), and keeps its version. A failure is
    /// [`Error::LibraryNotFound`] with this one path and the reason.
    ///
    /// # Safety
    ///
    /// Opening runs the library's initialisers, and the crate that uses it calls its symbols
    /// with the C prototypes of its own release. The file must be a genuine library of
    /// `spec`: what this function checks (a well-formed ELF image for this process, a version
    /// function reporting the major) cannot tell a genuine library from code that only claims
    /// to be one.
    pub unsafe fn open(spec: &Spec, path: impl AsRef<Path>) -> Result<Library, Error> {
        let path = path.as_ref();
        Library::try_open(spec, path).map_err(|why| Error::LibraryNotFound {
            tried: vec![(path.display().to_string(), why)],
        })
    }

    /// [`Library::open`] with the reason of a failure as text (the search lists them).
    pub(crate) fn try_open(spec: &Spec, path: &Path) -> Result<Library, String> {
        let has_folder = path.parent().is_some_and(|p| !p.as_os_str().is_empty());
        if has_folder && !path.exists() {
            return Err("no such file".to_string());
        }
        // A file named by path is checked before the loader maps it: a truncated file would
        // kill the process with SIGBUS inside `dlopen`, one for another architecture gets
        // "No such file or directory" from it, and one with a damaged dynamic section crashes
        // it. (The file can still change between this check and `dlopen`; that is the
        // caller's file to keep still.)
        #[cfg(target_os = "linux")]
        let symbols = if has_folder {
            Some(crate::elf::inspect_library(path)?)
        } else {
            None
        };
        #[cfg(not(target_os = "linux"))]
        let symbols = None;
        // SAFETY: loading a shared library runs its initialisers; the candidates are the
        // library by name or by the user's explicit choice (see `open`).
        let inner = unsafe { libloading::Library::new(path) }.map_err(|e| e.to_string())?;
        // A library the system loader found by name is checked once opened (before any of
        // its functions is called): the file it mapped is read the same way.
        #[cfg(target_os = "linux")]
        let (inner, symbols) = match symbols {
            Some(s) => (inner, Some(s)),
            None => {
                let (inner, file) = loaded_file(inner);
                let file = file.ok_or("the system loader does not say which file it opened")?;
                let symbols = crate::elf::inspect_library(&file).map_err(|why| {
                    format!("{} (opened as {}): {why}", file.display(), path.display())
                })?;
                (inner, Some(symbols))
            }
        };
        let mut lib = Library {
            inner,
            path: path.display().to_string(),
            version: 0,
            symbols,
        };
        let version = lib.query_version(spec)?;
        let major = spec.major;
        if i64::from(version) / 1000 != i64::from(major) {
            return Err(format!(
                "it is {}, but {} is built for CUDA {major} ({}): calling it with this crate's prototypes would pass records of the wrong size; point {} at {}",
                render_version(Some(version)),
                spec.crate_name,
                spec.release,
                spec.path_var,
                spec.of_major,
            ));
        }
        lib.version = version;
        Ok(lib)
    }

    /// The version the library reports through `spec.version` (`1000 * major + 10 *
    /// minor`); a library without that function is not `spec`'s.
    fn query_version(&self, spec: &Spec) -> Result<i32, String> {
        let name = spec.version.name();
        let f = self
            .raw_symbol(name)
            .map_err(|why| format!("not a {} library: {why}", spec.kind))?;
        let failed = |code| {
            format!(
                "its {} failed: {}",
                name.to_string_lossy(),
                (spec.describe_status)(code)
            )
        };
        match spec.version {
            VersionQuery::Combined(_) => {
                type Get = unsafe extern "C" fn(*mut c_int) -> c_int;
                // SAFETY: the spec states the prototype `int f(int *)`, and the symbol is a
                // function the library defines.
                let get = unsafe { std::mem::transmute::<*mut c_void, Get>(f) };
                let mut version: c_int = 0;
                // SAFETY: the function writes one int through a valid pointer.
                match unsafe { get(&mut version) } {
                    0 => Ok(version),
                    code => Err(failed(code)),
                }
            }
            VersionQuery::MajorMinor(_) => {
                type Get = unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int;
                // SAFETY: the spec states the prototype `int f(int *major, int *minor)`.
                let get = unsafe { std::mem::transmute::<*mut c_void, Get>(f) };
                let (mut major, mut minor): (c_int, c_int) = (0, 0);
                // SAFETY: the function writes one int through each valid pointer.
                match unsafe { get(&mut major, &mut minor) } {
                    0 if (0..=1000).contains(&major) && (0..=99).contains(&minor) => {
                        Ok(1000 * major + 10 * minor)
                    }
                    0 => Err(format!(
                        "its {} reports {major}.{minor}, not a version",
                        name.to_string_lossy()
                    )),
                    code => Err(failed(code)),
                }
            }
        }
    }

    /// The path (or system-loader name) the library was opened from.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The address of the function `name`, or why there is none: where the library's
    /// symbol table was read, `name` must be a function the library itself defines.
    pub fn raw_symbol(&self, name: &CStr) -> Result<*mut c_void, String> {
        if let Some(symbols) = &self.symbols {
            match symbols.kind(name.to_bytes()) {
                Some(crate::elf::SymbolKind::Function) => {}
                Some(other) => {
                    return Err(format!(
                        "the library's {} is {}, not a function",
                        name.to_string_lossy(),
                        match other {
                            crate::elf::SymbolKind::Data => "data",
                            _ => "a symbol of another kind",
                        }
                    ))
                }
                None => return Err(format!("the library defines no {}", name.to_string_lossy())),
            }
        }
        // SAFETY: reading a symbol's address as a plain pointer value is always sound.
        let sym = unsafe { self.inner.get::<*mut c_void>(name.to_bytes_with_nul()) }
            .map_err(|e| e.to_string())?;
        let ptr = *sym;
        if ptr.is_null() {
            Err("the symbol's address is null".to_string())
        } else {
            Ok(ptr)
        }
    }

    /// Resolves the C function `name` as a function pointer of type `F`, or
    /// [`Error::SymbolNotFound`] naming the symbol, this library and its version.
    ///
    /// # Safety
    /// `F` must be an `unsafe extern "C" fn(..) -> ..` type matching the C declaration of
    /// `name` (a pointer-sized type is enforced at compile time; the signature is not), and
    /// the pointer must not be called after this `Library` is dropped.
    pub unsafe fn symbol<F: Copy>(&self, name: &CStr) -> Result<F, Error> {
        const {
            assert!(
                std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>(),
                "Library::symbol: F must be a function pointer type"
            )
        };
        let ptr = self.raw_symbol(name).map_err(|_| Error::SymbolNotFound {
            symbol: name.to_string_lossy().into_owned(),
            library: self.path.clone(),
            version: Some(self.version),
        })?;
        // SAFETY: same size (checked above); the type is the caller's promise.
        Ok(std::mem::transmute_copy::<*mut c_void, F>(&ptr))
    }

    /// Whether the library defines the function `name`.
    pub fn has_symbol(&self, name: &CStr) -> bool {
        self.raw_symbol(name).is_ok()
    }

    /// The library's version as it reported it when it was opened: `1000 * major + 10 *
    /// minor` (13.2 is `13020`); its major is the spec's.
    pub fn runtime_version(&self) -> i32 {
        self.version
    }
}

/// The file the system loader mapped for `inner` (its link map's name), and `inner` back.
#[cfg(target_os = "linux")]
fn loaded_file(inner: libloading::Library) -> (libloading::Library, Option<PathBuf>) {
    use std::os::unix::ffi::OsStrExt;
    extern "C" {
        fn dlinfo(handle: *mut c_void, request: c_int, info: *mut c_void) -> c_int;
    }
    /// `RTLD_DI_LINKMAP` of glibc and musl.
    const RTLD_DI_LINKMAP: c_int = 2;
    /// The start of `struct link_map`, the same in glibc and musl.
    #[repr(C)]
    struct LinkMap {
        l_addr: usize,
        l_name: *const std::ffi::c_char,
    }
    let raw = libloading::os::unix::Library::from(inner).into_raw();
    let mut map: *const LinkMap = std::ptr::null();
    // SAFETY: `raw` is a handle `dlopen` returned and not closed; the request writes one
    // pointer to the loader's link map of that library.
    let found = unsafe { dlinfo(raw, RTLD_DI_LINKMAP, std::ptr::from_mut(&mut map).cast()) } == 0;
    let file = if found && !map.is_null() {
        // SAFETY: the link map lives as long as the library stays open; `l_name` is null or
        // a NUL-terminated path.
        let name = unsafe { (*map).l_name };
        (!name.is_null())
            .then(|| unsafe { CStr::from_ptr(name) }.to_bytes())
            .filter(|n| !n.is_empty())
            .map(|n| PathBuf::from(std::ffi::OsStr::from_bytes(n)))
    } else {
        None
    };
    // SAFETY: `raw` came from `into_raw` above and is handed back once.
    let inner = unsafe { libloading::os::unix::Library::from_raw(raw) }.into();
    (inner, file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::tests::CUDART13;

    #[test]
    fn open_of_missing_file_names_it() {
        // SAFETY: nothing is there to open.
        let err =
            unsafe { Library::open(&CUDART13, "/nonexistent/dir/libcudart.so.13") }.unwrap_err();
        let Error::LibraryNotFound { tried } = &err else {
            panic!("unexpected {err:?}");
        };
        assert_eq!(tried.len(), 1);
        assert_eq!(tried[0].0, "/nonexistent/dir/libcudart.so.13");
        assert_eq!(tried[0].1, "no such file");
    }

    #[test]
    fn open_of_a_library_that_is_not_the_specs_is_refused() {
        // The C library is present on every Linux host and exports no CUDA function.
        if cfg!(target_os = "linux") {
            // SAFETY: the C library is already loaded in this process; opening it again runs
            // no initialiser.
            let err = unsafe { Library::open(&CUDART13, "libc.so.6") }.unwrap_err();
            let Error::LibraryNotFound { tried } = &err else {
                panic!("unexpected {err:?}");
            };
            assert!(tried[0].1.contains("not a CUDA runtime library"), "{err:?}");
        }
    }
}
