//! Reads one CUDA release's ABI from its own C headers (NVIDIA's wheels) with bindgen used as
//! a library: the wrapper [`stubs::wrapper`] includes `cuda_runtime_api.h`,
//! `cuda_profiler_api.h` and the GL/EGL/VDPAU interop headers, parsed as C11 for x86_64
//! Linux against in-memory stand-ins for the platform headers ([`stubs`]); bindgen's output
//! (Rust enums, layout tests on) goes through the same reader as cudarc's ([`super::read`]).
//! A second pass with libclang itself ([`clang`]) puts every item at its header and line,
//! and names what the ABI leaves out. `#define` renames come from bindgen's macro callback
//! ([`super::macros`]).
//!
//! Behind the `headers` cargo feature (it compiles bindgen). Fetching wheels and installing
//! libclang are the caller's (`cargo xtask abi`); this module never touches the network and
//! never panics on a missing libclang or header: it returns a [`HeadersError`] saying what to
//! do.

pub mod clang;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use bindgen::callbacks::{ParseCallbacks, Token, TokenKind as BgKind};
use bindgen::{EnumVariation, Formatter, MacroTypeVariation, RustTarget};

use super::macros::{self, MacroDef, MacroToken, TokenKind};
use super::{read_bindgen_output, stubs, Abi};
use crate::diag::{Diagnostic, Severity};
use crate::ir::Release;
use crate::library::Library;

/// The bindgen version this module is built with (checked against Cargo.lock by a test).
pub const BINDGEN_VERSION: &str = "0.72.1";

/// The name diagnostics of the read give bindgen's output (never written to disk).
pub const BINDGEN_OUTPUT: &str = "bindgen-output.rs";

/// Functions bindgen is asked for (the runtime's).
pub const ALLOWLIST_FUNCTIONS: &str = "cuda.*|make_cuda.*";
/// Types bindgen is asked for (and every type they use).
pub const ALLOWLIST_TYPES: &str = "cuda.*|CU.*|CUDA.*|surfaceReference|textureReference|dim3";
/// Variables and macro constants bindgen is asked for.
pub const ALLOWLIST_VARS: &str = "cuda.*|CUDA.*|CU_.*";

/// What bindgen is asked for in `library`'s headers: functions, types, variables and macro
/// constants (regular expressions over C names), and every type they use.
fn allowlists(library: Library) -> [&'static str; 3] {
    match library {
        Library::Cudart => [ALLOWLIST_FUNCTIONS, ALLOWLIST_TYPES, ALLOWLIST_VARS],
        Library::Nvrtc => ["nvrtc.*", "nvrtc.*|_nvrtc.*", "nvrtc.*|NVRTC_.*"],
        Library::Nvjitlink => ["nvJitLink.*", "nvJitLink.*", "nvJitLink.*|NVJITLINK_.*"],
    }
}

/// What to read: the release, the include folders of its unpacked wheels, libclang.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderSpec {
    /// The library whose headers are read.
    pub library: Library,
    /// The release the headers belong to.
    pub release: Release,
    /// Folders holding the headers (`-I`, in this order): together they must hold
    /// `cuda_runtime_api.h`, `crt/host_defines.h`, `cuda_profiler_api.h` and the interop
    /// headers.
    pub include_dirs: Vec<PathBuf>,
    /// The libclang shared library to load (`target/libclang/libclang.so`).
    pub libclang: PathBuf,
    /// The wheels the headers come from, name and exact version, for [`Abi::origin`] and
    /// [`Abi::packages`].
    pub packages: Vec<(String, String)>,
}

/// Why the headers could not be read.
#[derive(Debug, thiserror::Error)]
pub enum HeadersError {
    /// No libclang file where the spec says.
    #[error(
        "libclang is not at {path}: run `cargo xtask abi --release <X>`, which installs PyPI's \
         `libclang` wheel into target/libclang/ when no libclang is found, or set LIBCLANG_PATH \
         to a libclang.so"
    )]
    LibclangMissing { path: PathBuf },
    /// The file is there but does not load.
    #[error(
        "libclang at {path} does not load ({reason}); delete target/libclang/ so that `cargo \
         xtask abi` installs it again, or point LIBCLANG_PATH at a working libclang.so"
    )]
    LibclangLoad { path: PathBuf, reason: String },
    /// A header the wrapper needs is in none of the include folders.
    #[error(
        "none of the include folders [{dirs}] holds {header}; the release's wheels are missing \
         or incomplete: `cargo xtask abi --release {release}` fetches them (the runtime wheel, \
         the crt/ headers and the profiler-API wheel)"
    )]
    HeaderMissing {
        header: String,
        dirs: String,
        release: String,
    },
    /// bindgen refused the input.
    #[error("bindgen could not read the CUDA {release} headers: {message}")]
    Bindgen { release: String, message: String },
    /// bindgen panicked (a bug in bindgen or an input it does not support).
    #[error(
        "bindgen panicked while reading the CUDA {release} headers: {message}; this is a \
         bindgen bug or an unsupported header construct: report it with the release number"
    )]
    Panicked { release: String, message: String },
    /// libclang could not parse the headers for the location pass.
    #[error("libclang could not parse the CUDA {release} headers: {message}")]
    Clang { release: String, message: String },
}

/// The runtime's headers that must be reachable: the wrapper's, and `crt/host_defines.h`,
/// which `cuda_runtime_api.h` includes and which lives in another wheel.
const REQUIRED: [&str; 6] = [
    "cuda_runtime_api.h",
    "crt/host_defines.h",
    "cuda_profiler_api.h",
    "cuda_gl_interop.h",
    "cuda_egl_interop.h",
    "cuda_vdpau_interop.h",
];

/// The headers of `library` that must be reachable before reading.
fn required(library: Library) -> &'static [&'static str] {
    match library {
        Library::Cudart => &REQUIRED,
        Library::Nvrtc | Library::Nvjitlink => library.api_headers(),
    }
}

/// Reads the release's ABI from its headers. The result's items carry their header and line;
/// its diagnostics hold clang's errors, what the read did not understand, what the headers
/// declare that the ABI leaves out, and macros the model does not hold.
pub fn read_headers(spec: &HeaderSpec) -> Result<Abi, HeadersError> {
    check_required(spec)?;
    load_libclang(&spec.libclang)?;
    let libclang_version = clang::libclang_version();

    let seen = Rc::new(Recorder::default());
    let text = bindgen_text(spec, seen.clone())?;
    let mut abi = read_bindgen_output(&text, BINDGEN_OUTPUT, &spec.release);
    abi.library = spec.library;
    let dirs: Vec<&Path> = spec.include_dirs.iter().map(PathBuf::as_path).collect();
    let places = clang::walk(spec.library, &dirs).map_err(|e| HeadersError::Clang {
        release: spec.release.to_string(),
        message: e.0,
    })?;

    let mut diagnostics: Vec<Diagnostic> = places
        .errors
        .iter()
        .map(|e| Diagnostic {
            severity: Severity::Error,
            file: String::new(),
            line: 0,
            path: None,
            unread: 0,
            message: format!("clang: {e}"),
        })
        .collect();
    let moved = relocate(&mut abi, &places, &mut diagnostics);
    for d in std::mem::take(&mut abi.diagnostics) {
        diagnostics.push(remap(d, &moved));
    }
    diagnostics.extend(macros::classify(&mut abi, &macro_defs(&seen, &places)));
    diagnostics.extend(left_out(&abi, &places));
    abi.deprecated = deprecated_items(&abi, &places);

    abi.packages = spec.packages.iter().cloned().collect();
    abi.origin = origin(spec, &libclang_version);
    abi.file = BINDGEN_OUTPUT.to_string();
    abi.diagnostics = diagnostics;
    Ok(abi)
}

/// Fails, naming the folders looked in, when a header the library needs is in none of the
/// include folders.
fn check_required(spec: &HeaderSpec) -> Result<(), HeadersError> {
    for header in required(spec.library) {
        if !spec.include_dirs.iter().any(|d| d.join(header).is_file()) {
            return Err(HeadersError::HeaderMissing {
                header: header.to_string(),
                dirs: spec
                    .include_dirs
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                release: spec.release.to_string(),
            });
        }
    }
    Ok(())
}

/// Bindgen's Rust text for the headers, its callbacks recording the macros into `seen`; a
/// bindgen error or panic is an error naming the release.
fn bindgen_text(spec: &HeaderSpec, seen: Rc<Recorder>) -> Result<String, HeadersError> {
    let release = spec.release.to_string();
    let builder = builder(spec, seen);
    let generated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        builder.generate().map(|b| b.to_string())
    }));
    match generated {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(e)) => Err(HeadersError::Bindgen {
            release,
            message: e.to_string(),
        }),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "(no message)".to_string());
            Err(HeadersError::Panicked { release, message })
        }
    }
}

/// The macros bindgen's callbacks saw, each with where the headers define it.
fn macro_defs(seen: &Recorder, places: &clang::Locations) -> Vec<MacroDef> {
    seen.macros
        .borrow()
        .iter()
        .map(|(name, body)| {
            let loc = places.macros.get(name);
            MacroDef {
                name: name.clone(),
                body: body.clone(),
                header: loc.map(|l| l.header.clone()),
                line: loc.map_or(0, |l| l.line),
            }
        })
        .collect()
}

/// Where the ABI comes from: the packages of the headers, bindgen's and libclang's versions.
fn origin(spec: &HeaderSpec, libclang_version: &str) -> String {
    let packages: Vec<String> = spec
        .packages
        .iter()
        .map(|(n, v)| format!("{n} {v}"))
        .collect();
    format!(
        "headers of {} via bindgen {BINDGEN_VERSION}, libclang {libclang_version}",
        if packages.is_empty() {
            "unnamed packages".to_string()
        } else {
            packages.join(", ")
        }
    )
}

/// Loads libclang on this thread from `path`, unless one is loaded already. clang-sys finds
/// it through `LIBCLANG_PATH` only, so that variable is set for this process when it names
/// another file (callers that run threads reading the environment set it beforehand).
fn load_libclang(path: &Path) -> Result<(), HeadersError> {
    if !path.is_file() {
        return Err(HeadersError::LibclangMissing {
            path: path.to_path_buf(),
        });
    }
    if clang_sys::is_loaded() {
        return Ok(());
    }
    if std::env::var_os("LIBCLANG_PATH").as_deref() != Some(path.as_os_str()) {
        std::env::set_var("LIBCLANG_PATH", path);
    }
    clang_sys::load().map_err(|reason| HeadersError::LibclangLoad {
        path: path.to_path_buf(),
        reason,
    })
}

/// What bindgen's callbacks saw: every object-like macro in effect, name → body tokens (the
/// last definition of a name wins).
#[derive(Debug, Default)]
struct Recorder {
    macros: RefCell<BTreeMap<String, Vec<MacroToken>>>,
}

#[derive(Debug)]
struct Callbacks(Rc<Recorder>);

impl ParseCallbacks for Callbacks {
    fn modify_macro(&self, name: &str, tokens: &mut Vec<Token>) {
        if !macros::in_api_namespace(name) {
            return;
        }
        let body = tokens
            .iter()
            .skip(1)
            .map(|t| MacroToken {
                kind: match t.kind {
                    BgKind::Identifier => TokenKind::Identifier,
                    BgKind::Keyword => TokenKind::Keyword,
                    BgKind::Literal => TokenKind::Literal,
                    BgKind::Punctuation => TokenKind::Punctuation,
                    BgKind::Comment => TokenKind::Comment,
                },
                text: String::from_utf8_lossy(&t.raw).into_owned(),
            })
            .collect();
        self.0.macros.borrow_mut().insert(name.to_string(), body);
    }
}

fn builder(spec: &HeaderSpec, seen: Rc<Recorder>) -> bindgen::Builder {
    let files = stubs::unsaved_files(spec.library);
    let [functions, types, vars] = allowlists(spec.library);
    let mut b = bindgen::Builder::default();
    // The first in-memory file is the main file; bindgen `-include`s the others (the
    // stand-ins), which their include guards make harmless.
    for (path, text) in &files {
        b = b.header_contents(path, text);
    }
    b = b
        .clang_args(stubs::clang_args())
        .clang_args(
            spec.include_dirs
                .iter()
                .map(|d| format!("-I{}", d.display())),
        )
        // Never copy the include paths of a `clang` binary found on the host.
        .detect_include_paths(false)
        .rust_target(RustTarget::stable(80, 0).unwrap_or_default())
        .formatter(Formatter::Prettyplease)
        .generate_inline_functions(spec.library.exports_inline_functions())
        .allowlist_function(functions)
        .allowlist_type(types)
        .allowlist_var(vars)
        .default_enum_style(EnumVariation::Rust {
            non_exhaustive: false,
        })
        .prepend_enum_name(false)
        .default_macro_constant_type(MacroTypeVariation::Unsigned)
        .derive_default(false)
        .derive_debug(false)
        // Copy keeps union fields plain (without it bindgen wraps them in ManuallyDrop).
        .derive_copy(true)
        .layout_tests(true)
        .generate_comments(false)
        .size_t_is_usize(true)
        .use_core()
        .disable_header_comment()
        .merge_extern_blocks(true)
        .parse_callbacks(Box::new(Callbacks(seen)));
    b
}

/// Where items moved: bindgen-output line → header place, for the read's diagnostics.
type Moves = Vec<(u32, clang::Loc)>;

/// Puts every item, field and enumerator at its header and line. An item the walk did not
/// find keeps its bindgen-output line, with a note.
fn relocate(abi: &mut Abi, places: &clang::Locations, diags: &mut Vec<Diagnostic>) -> Moves {
    let mut moves: Moves = Vec::new();
    let mut lost: Vec<String> = Vec::new();
    let mut place = |header: &mut Option<String>, line: &mut u32, loc: Option<&clang::Loc>| {
        if let Some(loc) = loc {
            moves.push((*line, loc.clone()));
            *header = Some(loc.header.clone());
            *line = loc.line;
            true
        } else {
            false
        }
    };
    for f in abi.functions.values_mut() {
        if !place(&mut f.header, &mut f.line, places.functions.get(&f.name)) {
            lost.push(format!("function `{}`", f.name));
        }
    }
    for t in abi.typedefs.values_mut() {
        if !place(&mut t.header, &mut t.line, places.typedefs.get(&t.name)) {
            lost.push(format!("typedef `{}`", t.name));
        }
    }
    for c in abi.constants.values_mut() {
        let loc = places
            .macros
            .get(&c.name)
            .or_else(|| places.variables.get(&c.name))
            .or_else(|| places.enum_values.get(&c.name).map(|(l, _)| l));
        if !place(&mut c.header, &mut c.line, loc) {
            lost.push(format!("constant `{}`", c.name));
        }
    }
    for e in abi.enums.values_mut() {
        let loc = places.enums.get(&e.name).or_else(|| {
            e.values
                .first()
                .and_then(|v| places.enum_values.get(&v.name))
                .map(|(_, enum_loc)| enum_loc)
        });
        if !place(&mut e.header, &mut e.line, loc) {
            lost.push(format!("enum `{}`", e.name));
        }
        let mut no_header = None;
        for v in &mut e.values {
            let vloc = places.enum_values.get(&v.name).map(|(l, _)| l);
            if !place(&mut no_header, &mut v.line, vloc) {
                lost.push(format!("enumerator `{}::{}`", e.name, v.name));
            }
        }
    }
    for r in abi.records.values_mut() {
        let decl = places.records.get(&r.name);
        let rloc = decl.and_then(|d| d.loc.clone());
        if !place(&mut r.header, &mut r.line, rloc.as_ref()) {
            lost.push(format!("record `{}`", r.name));
            continue;
        }
        let Some(decl) = decl else { continue };
        let mut no_header = None;
        for f in &mut r.fields {
            let floc = decl
                .fields
                .iter()
                .find(|(n, _)| n == f.c_name())
                .map(|(_, l)| l)
                .cloned();
            // bindgen's own fields (bitfield units, padding) stand at the record's line.
            let synthetic = f.name.starts_with("_bitfield_") || f.name.starts_with("__bindgen");
            let floc = floc.or_else(|| synthetic.then(|| rloc.clone()).flatten());
            if !place(&mut no_header, &mut f.line, floc.as_ref()) {
                lost.push(format!("field `{}::{}`", r.name, f.name));
            }
        }
    }
    for what in lost {
        diags.push(Diagnostic {
            severity: Severity::Warning,
            file: BINDGEN_OUTPUT.to_string(),
            line: 0,
            path: None,
            unread: 0,
            message: format!(
                "{what}: no declaration found in the headers; its line is bindgen's output's"
            ),
        });
    }
    moves.sort();
    moves
}

/// A diagnostic of the read, moved from bindgen's output to the header place of the item at
/// or before its line.
fn remap(mut d: Diagnostic, moves: &Moves) -> Diagnostic {
    if d.file != BINDGEN_OUTPUT {
        return d;
    }
    let at = moves.partition_point(|(l, _)| *l <= d.line);
    if at > 0 {
        let (_, loc) = &moves[at - 1];
        d.file = loc.header.clone();
        d.line = loc.line;
    }
    d
}

/// The deprecation marks of the items the ABI holds (marks on declarations it leaves out are
/// dropped with them).
fn deprecated_items(
    abi: &Abi,
    places: &clang::Locations,
) -> std::collections::BTreeMap<String, super::Deprecation> {
    let enumerators: std::collections::HashSet<&str> = abi
        .enums
        .values()
        .flat_map(|e| e.values.iter().map(|v| v.name.as_str()))
        .collect();
    let held = |name: &str| {
        abi.functions.contains_key(name)
            || abi.records.contains_key(name)
            || abi.enums.contains_key(name)
            || abi.typedefs.contains_key(name)
            || abi.constants.contains_key(name)
            || enumerators.contains(name)
    };
    places
        .deprecated
        .iter()
        .filter(|(name, _)| held(name))
        .map(|(name, how)| (name.clone(), *how))
        .collect()
}

/// One note per header and reason naming the declarations the ABI leaves out.
fn left_out(abi: &Abi, places: &clang::Locations) -> Vec<Diagnostic> {
    let mut groups: BTreeMap<(String, &'static str), (u32, Vec<String>)> = BTreeMap::new();
    for (kind, name, loc) in &places.declarations {
        // `typedef enum X X;` is one item for bindgen: the name in any table counts.
        let present = abi.functions.contains_key(name)
            || abi.records.contains_key(name)
            || abi.enums.contains_key(name)
            || abi.typedefs.contains_key(name)
            || abi.constants.contains_key(name)
            || abi.renames.contains_key(name)
            || abi.macro_aliases.contains_key(name);
        if present {
            continue;
        }
        let reason = match kind {
            clang::DeclKind::StaticFunction if !abi.library.exports_inline_functions() => {
                "static inline functions (no symbol in the library), left out"
            }
            clang::DeclKind::Function if in_function_allowlist(abi.library, name) => {
                "functions bindgen emitted nothing for, left out"
            }
            _ if in_function_allowlist(abi.library, name)
                || in_type_allowlist(abi.library, name) =>
            {
                "declarations bindgen emitted nothing for, left out"
            }
            _ => "declarations outside the Runtime API's names (allowlist), left out",
        };
        let entry = groups
            .entry((loc.header.clone(), reason))
            .or_insert((loc.line, Vec::new()));
        if !entry.1.contains(name) {
            entry.1.push(name.clone());
        }
    }
    groups
        .into_iter()
        .map(|((header, reason), (line, names))| Diagnostic {
            severity: Severity::Note,
            file: header,
            line,
            path: None,
            unread: 0,
            message: format!("{} {reason}: {}", names.len(), names.join(", ")),
        })
        .collect()
}

/// Whether [`allowlists`] asks for the function `name` (by its prefix).
fn in_function_allowlist(library: Library, name: &str) -> bool {
    match library {
        Library::Cudart => name.starts_with("cuda") || name.starts_with("make_cuda"),
        Library::Nvrtc => name.starts_with("nvrtc"),
        Library::Nvjitlink => name.starts_with("nvJitLink"),
    }
}

/// Whether [`allowlists`] asks for the type `name` (by its prefix).
fn in_type_allowlist(library: Library, name: &str) -> bool {
    match library {
        Library::Cudart => {
            name.starts_with("cuda")
                || name.starts_with("CU")
                || matches!(name, "surfaceReference" | "textureReference" | "dim3")
        }
        Library::Nvrtc => name.starts_with("nvrtc") || name.starts_with("_nvrtc"),
        Library::Nvjitlink => name.starts_with("nvJitLink"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindgen_version_is_the_locked_one() {
        let lock =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"))
                .expect("the workspace's Cargo.lock");
        let entry = format!("name = \"bindgen\"\nversion = \"{BINDGEN_VERSION}\"");
        assert!(lock.contains(&entry), "Cargo.lock has no {entry}");
    }

    #[test]
    fn missing_libclang_and_headers_are_errors_not_panics() {
        let dir = std::env::temp_dir().join(format!("abi-headers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut spec = HeaderSpec {
            library: Library::Cudart,
            release: Release(vec![13, 2]),
            include_dirs: vec![dir.clone()],
            libclang: dir.join("libclang.so"),
            packages: vec![],
        };
        let e = read_headers(&spec).unwrap_err();
        assert!(matches!(e, HeadersError::HeaderMissing { .. }), "{e}");
        assert!(
            e.to_string().contains("cargo xtask abi --release 13.2"),
            "{e}"
        );
        for h in REQUIRED {
            let p = dir.join(h);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let e = read_headers(&spec).unwrap_err();
        assert!(matches!(e, HeadersError::LibclangMissing { .. }), "{e}");
        assert!(e.to_string().contains("LIBCLANG_PATH"), "{e}");
        // (Loading a file that is not a library is not tried here: it would set
        // LIBCLANG_PATH in a process whose other test threads read the environment.)
        spec.include_dirs.clear();
        let e = read_headers(&spec).unwrap_err();
        assert!(matches!(e, HeadersError::HeaderMissing { .. }), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
