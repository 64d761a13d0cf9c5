// Copied by `cargo xtask codegen` from the generator's codegen/template/src/loader.rs:
// edit the template, not this copy.

//! Finding, opening and querying the nvJitLink library (`libnvJitLink`) at run time.
//!
//! Nothing here is linked at build time: the library is opened with `libloading` the first
//! time it is needed ([`Library::get`]), once per process, thread-safely. Every failure is an
//! [`Error`]; nothing panics or aborts.
//!
//! Search order of [`Library::search`] (and so of [`Library::get`]):
//! 1. `NVJITLINK_PATH` ([`PATH_VAR`]), when set and not empty: a library file, or a folder holding
//!    one. It is authoritative: when it is set, nothing else is tried, so a wrong setting is an
//!    error rather than a silent fallback to another library.
//! 2. The Python environment the user activated: NVIDIA's wheel of the library in
//!    `$VIRTUAL_ENV`'s and `$CONDA_PREFIX`'s `site-packages` (`nvidia/cu12/lib`,
//!    `nvidia/nvjitlink/lib`), then `$CONDA_PREFIX/lib` (see the private `python_env`
//!    module: Python itself is never run).
//! 3. The system loader: `libnvJitLink.so.12`, then `libnvJitLink.so` (Windows: the DLL of the
//!    major); the major is this crate's CUDA release's ([`crate::sys::CUDA_MAJOR`]).
//! 4. NVIDIA's wheel of the library in the other Python environments in reach: `PYTHONPATH`,
//!    `PYTHONHOME`, the user site, the interpreters on `PATH`, pyenv's selected version.
//! 5. The usual install folders: `/usr/local/cuda/lib64`, `$CUDA_PATH/lib64`,
//!    `$CUDA_HOME/lib64`, `/usr/local/cuda-12*/lib64` (newest first),
//!    `/usr/lib/<arch>-linux-gnu` (Windows: `%CUDA_PATH%\bin\x64`, `%CUDA_PATH%\bin` and
//!    `C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12*\bin[\x64]`, any DLL of
//!    the major).
//!
//! On Linux a file given by path is checked first (ELF class, byte order, machine, the
//! loadable segments and the dynamic section; see the private `elf` module), so that a
//! damaged or foreign library is an [`Error`] naming the problem rather than a crash in the
//! system loader; a library the system loader found by name is checked the same way once
//! opened. A C function is then resolved only to a function symbol the library itself defines
//! (never to data of that name, nor to a symbol of one of its dependencies).
//!
//! Every library opened must be the nvJitLink library of this crate's major release: the one
//! function it identifies itself by (the crate-private `library` module names it) is called
//! once, right after opening, and a library of another major is refused with an error naming
//! both (the crate's functions would pass it records of the wrong size); the version is kept
//! ([`Library::runtime_version`]). A function whose first release is newer than that version
//! is [`Error::NotInRuntime`], decided once, when the function is resolved ([`LazySymbol`]):
//! calls after that cost nothing more.
//!
//! Calls made inside a CUDA host callback (host functions, stream callbacks, user-object
//! destructors), where CUDA forbids CUDA calls, return [`Error::InCallback`] without calling
//! C: the safe layer runs its callbacks inside the crate-private `callback_scope`, which every
//! [`LazySymbol`] checks.
//!
//! This module is the same in every crate the generator writes: what differs between the
//! libraries (file names, the variable, how a library identifies itself) is in the
//! crate-private `library` module. It does not cache symbols: [`LazySymbol`] (used by the
//! generated functions) caches one function pointer each.

use std::cell::Cell;
use std::ffi::{c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

use crate::error::{Error, Result};
pub use crate::library::PATH_VAR;

/// The process-wide library, opened on first use; a failure is kept too, so that probing
/// again is cheap and gives the same answer.
static GLOBAL: OnceLock<Result<Library>> = OnceLock::new();

/// An opened nvJitLink library of this crate's major release.
///
/// The global one ([`Library::get`]) lives for the whole process; one opened explicitly
/// ([`Library::open`]) is closed when dropped, and function pointers taken from it must not
/// be called after that.
#[derive(Debug)]
pub struct Library {
    inner: libloading::Library,
    path: String,
    /// The version the library reported when it was opened (`1000 * major + 10 * minor`).
    version: i32,
    /// The symbols the library defines, from its ELF dynamic symbol table (on Linux).
    symbols: Option<crate::elf::Symbols>,
}

thread_local! {
    /// How many CUDA callbacks this thread is running inside (nested scopes count).
    static CALLBACK_DEPTH: Cell<u32> = const { Cell::new(0) };
    /// All ones outside callbacks, zero inside: [`LazySymbol::get`] tests its cached address
    /// against it, so that the check costs no instruction of its own on the call path (a
    /// `test` with a thread-local operand instead of a `test` of a register, on x86-64).
    static CALLS_ALLOWED: Cell<usize> = const { Cell::new(usize::MAX) };
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
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            let depth = CALLBACK_DEPTH.with(|d| {
                d.set(d.get().saturating_sub(1));
                d.get()
            });
            if depth == 0 {
                CALLS_ALLOWED.with(|a| a.set(usize::MAX));
            }
        }
    }
    CALLBACK_DEPTH.with(|d| d.set(d.get().saturating_add(1)));
    CALLS_ALLOWED.with(|a| a.set(0));
    let _leave = Leave;
    f()
}

/// All ones outside [`callback_scope`], zero inside.
#[inline(always)]
fn calls_allowed() -> usize {
    CALLS_ALLOWED.with(Cell::get)
}

/// Whether this thread is inside [`callback_scope`].
#[inline(always)]
pub(crate) fn in_callback() -> bool {
    calls_allowed() == 0
}

impl Library {
    /// The process-wide library: searched and opened on the first call (see the
    /// [module documentation](self) for the search order), then returned from a cache. A
    /// failure is cached too and returned again (as a clone) on every later call.
    pub fn get() -> Result<&'static Library> {
        GLOBAL
            .get_or_init(Library::search)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The process-wide library if [`Library::get`] has already opened it; never opens it.
    // nvJitLink's crates name status codes from the generated table alone and never ask.
    #[allow(dead_code)]
    pub(crate) fn loaded() -> Option<&'static Library> {
        GLOBAL.get().and_then(|r| r.as_ref().ok())
    }

    /// Runs the search without caching anything and returns the first library that opens
    /// and is this crate's library, or [`Error::LibraryNotFound`] listing every candidate
    /// tried.
    pub fn search() -> Result<Library> {
        let mut tried = Vec::new();
        let path_var = std::env::var_os(PATH_VAR).filter(|v| !v.is_empty());
        if let Some(value) = path_var {
            let path = PathBuf::from(value);
            let label = format!("{PATH_VAR}={}", path.display());
            if path.is_dir() {
                if let Some(lib) = try_folder(&path, &mut tried) {
                    return Ok(lib);
                }
                if tried.is_empty() {
                    tried.push((label, format!("folder holds no {}", library_file_kinds())));
                }
            } else {
                match Library::try_open(&path) {
                    Ok(lib) => return Ok(lib),
                    Err(why) => tried.push((label, why)),
                }
            }
            return Err(Error::LibraryNotFound { tried });
        }
        if let Some(lib) = try_places(crate::python_env::active(), &mut tried) {
            return Ok(lib);
        }
        for name in crate::library::system_names() {
            match Library::try_open(Path::new(&name)) {
                Ok(lib) => return Ok(lib),
                Err(why) => tried.push((format!("{name} (system loader)"), why)),
            }
        }
        if let Some(lib) = try_places(crate::python_env::others(), &mut tried) {
            return Ok(lib);
        }
        let installs = install_folders()
            .into_iter()
            .map(|dir| crate::python_env::Place {
                dir,
                why: String::new(),
            });
        if let Some(lib) = try_places(installs.collect(), &mut tried) {
            return Ok(lib);
        }
        Err(Error::LibraryNotFound { tried })
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
        let path = path.as_ref();
        Library::try_open(path).map_err(|why| Error::LibraryNotFound {
            tried: vec![(path.display().to_string(), why)],
        })
    }

    fn try_open(path: &Path) -> std::result::Result<Library, String> {
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
        // SAFETY: loading a shared library runs its initialisers; the candidates are this
        // crate's library by name or by the user's explicit choice (see `open`).
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
        let version = crate::library::version(&lib)?;
        let major = crate::sys::CUDA_MAJOR;
        if i64::from(version) / 1000 != i64::from(major) {
            return Err(format!(
                "it is {}, but {} is built for CUDA {major} ({}): calling it with this crate's prototypes would pass records of the wrong size; point {PATH_VAR} at {}",
                crate::error::render_version(Some(version)),
                env!("CARGO_PKG_NAME"),
                crate::sys::CUDA_RELEASE,
                crate::library::of_major(major),
            ));
        }
        lib.version = version;
        Ok(lib)
    }

    /// The path (or system-loader name) the library was opened from.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The address of the function `name`, or why there is none: where the library's
    /// symbol table was read, `name` must be a function the library itself defines.
    pub(crate) fn raw_symbol(&self, name: &CStr) -> std::result::Result<*mut c_void, String> {
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
    /// [`Error::SymbolNotFound`] naming the symbol, this library and its runtime version.
    ///
    /// Nothing is cached; see [`LazySymbol`] for a cached lookup.
    ///
    /// # Safety
    /// `F` must be an `unsafe extern "C" fn(..) -> ..` type matching the C declaration of
    /// `name` (a pointer-sized type is enforced at compile time; the signature is not), and
    /// the pointer must not be called after this `Library` is dropped.
    pub unsafe fn symbol<F: Copy>(&self, name: &CStr) -> Result<F> {
        self.find(name).ok_or_else(|| self.symbol_not_found(name))
    }

    /// [`Library::symbol`] without building an error (which reads the runtime version), so
    /// that describing an error never recurses into loading.
    ///
    /// # Safety
    /// As for [`Library::symbol`].
    pub(crate) unsafe fn find<F: Copy>(&self, name: &CStr) -> Option<F> {
        const {
            assert!(
                std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>(),
                "Library::symbol: F must be a function pointer type"
            )
        };
        let ptr = self.raw_symbol(name).ok()?;
        // SAFETY: same size (checked above); the type is the caller's promise.
        Some(std::mem::transmute_copy::<*mut c_void, F>(&ptr))
    }

    /// Whether the library exports `name`.
    pub fn has_symbol(&self, name: &CStr) -> bool {
        self.raw_symbol(name).is_ok()
    }

    fn symbol_not_found(&self, name: &CStr) -> Error {
        Error::SymbolNotFound {
            symbol: name.to_string_lossy().into_owned(),
            library: self.path.clone(),
            version: Some(self.version),
        }
    }

    /// The library's version as it reported it when it was opened (the function it identifies
    /// itself by): `1000 * major + 10 * minor` (13.2 is `13020`); its major is this crate's.
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
    let Ok(c_name) = CString::new(name) else {
        return false;
    };
    Library::get().is_ok_and(|lib| {
        !matches!(crate::version::function_since(name), Some(since) if lib.version < since.as_raw())
            && lib.has_symbol(&c_name)
    })
}

/// A function of the global library, resolved on first use and cached (the result, success
/// or error, is kept for the life of the process).
///
/// The generated bindings hold one `static` of this type per C function. A call after the
/// first reads the cached address with one atomic load (a plain load on x86-64) and clones
/// nothing; resolving, and every error, take a separate, out-of-line path.
pub struct LazySymbol<F> {
    name: &'static CStr,
    /// The first runtime version that declares the function (`13040`), or 0 when every
    /// runtime of the major does.
    since: i32,
    /// The resolved address, or null while unresolved (or when resolving failed). Written
    /// once, after `cell` holds `Ok`, with the same address.
    ptr: AtomicPtr<c_void>,
    /// The outcome of the one resolution (library load and symbol lookup), success or error.
    cell: OnceLock<Result<F>>,
}

impl<F: Copy> LazySymbol<F> {
    /// A lazily resolved `name`, which a runtime older than `since` (`1000 * major + 10 *
    /// minor`; 0 for none) does not have: resolving it then is [`Error::NotInRuntime`].
    ///
    /// # Safety
    /// `F` must be the `unsafe extern "C" fn` type of the C declaration of `name`
    /// (see [`Library::symbol`]).
    pub const unsafe fn new(name: &'static CStr, since: i32) -> LazySymbol<F> {
        const {
            assert!(
                std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>(),
                "LazySymbol: F must be a function pointer type"
            )
        };
        LazySymbol {
            name,
            since,
            ptr: AtomicPtr::new(std::ptr::null_mut()),
            cell: OnceLock::new(),
        }
    }

    /// The C name.
    pub fn name(&self) -> &'static CStr {
        self.name
    }

    /// The function pointer, or why there is none (library not loaded, a runtime older than
    /// the function, symbol missing, or [`Error::InCallback`] inside a CUDA host callback).
    #[inline]
    pub fn get(&self) -> Result<F> {
        let ptr = self.ptr.load(Ordering::Acquire);
        // Non-null, and not inside a CUDA callback, in one test.
        if (ptr as usize) & calls_allowed() != 0 {
            // SAFETY: a non-null `ptr` was stored by `resolve` from the `F` in `cell`, which
            // has the size of a pointer (checked in `new`).
            return Ok(unsafe { std::mem::transmute_copy::<*mut c_void, F>(&ptr) });
        }
        self.resolve()
    }

    /// The first call (which loads the library and looks the symbol up, once, however many
    /// threads ask), every call after a failure, and every call inside a CUDA callback.
    #[cold]
    #[inline(never)]
    fn resolve(&self) -> Result<F> {
        if in_callback() {
            return Err(Error::InCallback {
                function: self.name.to_string_lossy().into_owned(),
            });
        }
        let result = self.cell.get_or_init(|| {
            let lib = Library::get()?;
            if lib.version < self.since {
                return Err(Error::NotInRuntime {
                    function: self.name.to_string_lossy().into_owned(),
                    since: crate::version::CudaVersion::from_raw(self.since),
                    loaded: crate::version::CudaVersion::from_raw(lib.version),
                });
            }
            // SAFETY: `F` matches `name`, as promised to `new`; the global library is
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

/// Tries each folder of `places` in order; records each failure (a missing folder, one
/// without a library file, each file that does not open) in `tried`, with why the folder
/// was a candidate.
fn try_places(
    places: Vec<crate::python_env::Place>,
    tried: &mut Vec<(String, String)>,
) -> Option<Library> {
    for place in places {
        let label = if place.why.is_empty() {
            place.dir.display().to_string()
        } else {
            format!("{} ({})", place.dir.display(), place.why)
        };
        if !place.dir.is_dir() {
            tried.push((label, "no such folder".to_string()));
            continue;
        }
        let before = tried.len();
        if let Some(lib) = try_folder(&place.dir, tried) {
            return Some(lib);
        }
        if tried.len() == before {
            tried.push((label, format!("folder holds no {}", library_file_kinds())));
        }
    }
    None
}

/// Tries each library file in `dir`; records each failure in `tried`.
fn try_folder(dir: &Path, tried: &mut Vec<(String, String)>) -> Option<Library> {
    for file in library_files_in(dir) {
        match Library::try_open(&file) {
            Ok(lib) => return Some(lib),
            Err(why) => tried.push((file.display().to_string(), why)),
        }
    }
    None
}

/// What a library file is called here, for messages.
fn library_file_kinds() -> String {
    if cfg!(windows) {
        format!("{}*.dll", crate::library::windows_prefix())
    } else {
        crate::library::system_names().join(" or ")
    }
}

/// The nvJitLink library files present in `dir`, best first.
fn library_files_in(dir: &Path) -> Vec<PathBuf> {
    if cfg!(windows) {
        let prefix = crate::library::windows_prefix();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .map(|n| n.to_ascii_lowercase())
                    .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".dll"))
            })
            .collect();
        files.sort();
        files.reverse();
        files
    } else {
        crate::library::system_names()
            .iter()
            .map(|name| dir.join(name))
            .filter(|p| p.is_file())
            .collect()
    }
}

/// The usual install folders, in search order, without duplicates.
fn install_folders() -> Vec<PathBuf> {
    let env_dir = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let mut dirs = Vec::new();
    if cfg!(windows) {
        for root in [env_dir("CUDA_PATH")].into_iter().flatten() {
            dirs.push(root.join("bin").join("x64"));
            dirs.push(root.join("bin"));
        }
        let toolkits = Path::new(r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA");
        for root in versioned_children(toolkits, &format!("v{}", crate::sys::CUDA_MAJOR)) {
            dirs.push(root.join("bin").join("x64"));
            dirs.push(root.join("bin"));
        }
    } else {
        dirs.push(PathBuf::from("/usr/local/cuda/lib64"));
        for root in [env_dir("CUDA_PATH"), env_dir("CUDA_HOME")]
            .into_iter()
            .flatten()
        {
            dirs.push(root.join("lib64"));
        }
        let prefix = format!("cuda-{}", crate::sys::CUDA_MAJOR);
        for root in versioned_children(Path::new("/usr/local"), &prefix) {
            dirs.push(root.join("lib64"));
        }
        dirs.push(PathBuf::from(format!(
            "/usr/lib/{}-linux-gnu",
            std::env::consts::ARCH
        )));
    }
    let mut unique = Vec::new();
    for d in dirs {
        if !unique.contains(&d) {
            unique.push(d);
        }
    }
    unique
}

/// Children of `parent` whose names start with `prefix` (`cuda-13`, `cuda-13.2`, …), the
/// highest version first.
fn versioned_children(parent: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut found: Vec<(Vec<u32>, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let rest = name.strip_prefix(prefix)?;
            if !(rest.is_empty() || rest.starts_with('.')) {
                return None;
            }
            let key = rest.split('.').filter_map(|p| p.parse().ok()).collect();
            Some((key, e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().rev().map(|(_, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_of_missing_file_names_it() {
        // SAFETY: nothing is there to open.
        let err = unsafe { Library::open("/nonexistent/dir/libcudart.so.13") }.unwrap_err();
        let Error::LibraryNotFound { tried } = &err else {
            panic!("unexpected {err:?}");
        };
        assert_eq!(tried.len(), 1);
        assert_eq!(tried[0].0, "/nonexistent/dir/libcudart.so.13");
        assert_eq!(tried[0].1, "no such file");
        assert!(err.to_string().contains("/nonexistent/dir/libcudart.so.13"));
    }

    #[test]
    fn open_of_a_library_that_is_not_this_crates_is_refused() {
        // The C library is present on every Linux host and exports no CUDA function.
        if cfg!(target_os = "linux") {
            // SAFETY: the C library is already loaded in this process; opening it again runs
            // no initialiser.
            let err = unsafe { Library::open("libc.so.6") }.unwrap_err();
            let expected = format!("not a {} library", crate::library::KIND);
            assert!(err.to_string().contains(&expected), "{err}");
        }
    }

    #[test]
    fn versioned_children_sorts_numerically_newest_first() {
        let dir = std::env::temp_dir().join(format!("cudart-rt-vc-{}", std::process::id()));
        for name in [
            "cuda-13.2",
            "cuda-13.10",
            "cuda-13",
            "cuda-12.9",
            "cuda-130x",
        ] {
            std::fs::create_dir_all(dir.join(name)).unwrap();
        }
        let names: Vec<String> = versioned_children(&dir, "cuda-13")
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(names, ["cuda-13.10", "cuda-13.2", "cuda-13"]);
    }

    #[test]
    fn install_folders_start_with_the_toolkit_and_have_no_duplicates() {
        let dirs = install_folders();
        if cfg!(target_os = "linux") {
            assert_eq!(dirs[0], Path::new("/usr/local/cuda/lib64"));
        }
        for (i, d) in dirs.iter().enumerate() {
            assert!(!dirs[i + 1..].contains(d), "duplicate {}", d.display());
        }
    }
}
