//! A second look at the same translation unit with libclang itself (through `clang-sys`),
//! for what bindgen's output does not carry: where each declaration is (header and line), the
//! `#define`s' locations, clang's own diagnostics, and every declaration of the CUDA headers,
//! so that those the ABI leaves out can be named.
//!
//! Anonymous records are named as bindgen names them (`cudaResourceDesc__bindgen_ty_1`: the
//! enclosing type's name and the anonymous type's position among its anonymous children;
//! `typedef struct { … } X;` takes the typedef's name); `read_headers` checks each
//! against the fields bindgen gave it. This module only reads; it knows no CUDA names.

use foldhash::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_ulong, CStr, CString};
use std::path::Path;

use clang_sys::*;

use crate::abi::{stubs, Deprecation};
use crate::library::Library;

/// A place in a header: its path relative to its include folder (`cuda_runtime_api.h`,
/// `crt/host_defines.h`, `stand-in/GL/gl.h` for a stand-in) and a 1-based line.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    pub header: String,
    pub line: u32,
}

/// A struct or union as clang declares it.
#[derive(Clone, Debug, Default)]
pub struct RecordDecl {
    pub loc: Option<Loc>,
    /// Fields by the name bindgen gives them (C's name; `__bindgen_anon_N` for an anonymous
    /// member), in order.
    pub fields: Vec<(String, Loc)>,
}

/// What kind of top-level declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DeclKind {
    Function,
    /// A `static` (inline) function: no symbol in any library.
    StaticFunction,
    Record,
    Enum,
    Typedef,
    Variable,
}

/// Everything the walk found.
#[derive(Debug, Default)]
pub struct Locations {
    pub functions: HashMap<String, Loc>,
    pub records: HashMap<String, RecordDecl>,
    pub enums: HashMap<String, Loc>,
    /// Enumerator → (its place, its enum's place).
    pub enum_values: HashMap<String, (Loc, Loc)>,
    pub typedefs: HashMap<String, Loc>,
    pub variables: HashMap<String, Loc>,
    /// Macro definitions (the last one of a name wins, as for the preprocessor).
    pub macros: HashMap<String, Loc>,
    /// Declarations marked deprecated (functions, records, enums, enumerators, typedefs), by
    /// name: clang's availability (`__attribute__((deprecated))`) or a `\deprecated`
    /// paragraph in the declaration's documentation comment.
    pub deprecated: HashMap<String, Deprecation>,
    /// Named top-level declarations of the CUDA headers (not the stand-ins), in order.
    pub declarations: Vec<(DeclKind, String, Loc)>,
    /// clang's errors (and fatal errors), formatted with their location.
    pub errors: Vec<String>,
}

/// Why the translation unit could not be parsed.
#[derive(Debug)]
pub struct ParseFailure(pub String);

/// Parses the wrapper of `library`'s headers with `include_dirs` (as `-I`, in order) and walks
/// it. libclang must be loaded on this thread (`clang_sys::load`).
pub fn walk(library: Library, include_dirs: &[&Path]) -> Result<Locations, ParseFailure> {
    let mut args = stubs::clang_args();
    for d in include_dirs {
        args.push(format!("-I{}", d.display()));
    }
    let c_args: Vec<CString> = args
        .iter()
        .map(|a| CString::new(a.as_str()))
        .collect::<Result<_, _>>()
        .map_err(|e| ParseFailure(format!("an argument holds a NUL byte: {e}")))?;
    let arg_ptrs: Vec<*const c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
    let files = stubs::unsaved_files(library);
    let c_files: Vec<(CString, CString)> = files
        .iter()
        .map(|(p, t)| Ok((CString::new(p.as_str())?, CString::new(t.as_str())?)))
        .collect::<Result<_, std::ffi::NulError>>()
        .map_err(|e| ParseFailure(format!("an in-memory file holds a NUL byte: {e}")))?;
    let mut unsaved: Vec<CXUnsavedFile> = c_files
        .iter()
        .map(|(p, t)| CXUnsavedFile {
            Filename: p.as_ptr(),
            Contents: t.as_ptr(),
            Length: t.as_bytes().len() as c_ulong,
        })
        .collect();
    let main = CString::new(stubs::WRAPPER_PATH).map_err(|e| ParseFailure(e.to_string()))?;
    let mut relativise = Relativiser::new(include_dirs);

    // SAFETY: every pointer handed to libclang points into the vectors above, which outlive
    // the translation unit; the index and the unit are disposed of before returning.
    unsafe {
        let index = clang_createIndex(0, 0);
        let mut tu: CXTranslationUnit = std::ptr::null_mut();
        let code = clang_parseTranslationUnit2(
            index,
            main.as_ptr(),
            arg_ptrs.as_ptr(),
            arg_ptrs.len() as c_int,
            unsaved.as_mut_ptr(),
            unsaved.len() as c_uint,
            CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_SkipFunctionBodies,
            &mut tu,
        );
        if code != CXError_Success || tu.is_null() {
            clang_disposeIndex(index);
            return Err(ParseFailure(format!(
                "libclang could not parse the headers (error code {code})"
            )));
        }
        let mut out = Locations::default();
        for i in 0..clang_getNumDiagnostics(tu) {
            let d = clang_getDiagnostic(tu, i);
            if clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error {
                let text = take(clang_formatDiagnostic(
                    d,
                    clang_defaultDiagnosticDisplayOptions(),
                ));
                out.errors.push(relativise.text(&text));
            }
            clang_disposeDiagnostic(d);
        }
        let mut w = Walker {
            out,
            rel: &mut relativise,
        };
        w.top_level(clang_getTranslationUnitCursor(tu));
        let out = w.out;
        clang_disposeTranslationUnit(tu);
        clang_disposeIndex(index);
        Ok(out)
    }
}

/// The version of the loaded libclang (`18.1.1`), from `clang_getClangVersion`.
pub fn libclang_version() -> String {
    // SAFETY: libclang is loaded on this thread (the caller's contract).
    let text = unsafe { take(clang_getClangVersion()) };
    text.split_whitespace()
        .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))
        .map(str::to_string)
        .unwrap_or(text)
}

/// Turns the paths clang reports into paths relative to the include folder holding them.
struct Relativiser {
    /// Include folders, longest first, each with a trailing `/`.
    dirs: Vec<String>,
    cache: HashMap<String, String>,
}

impl Relativiser {
    fn new(include_dirs: &[&Path]) -> Relativiser {
        let mut dirs: Vec<String> = include_dirs
            .iter()
            .map(|d| format!("{}/", d.display().to_string().trim_end_matches('/')))
            .collect();
        dirs.sort_by_key(|d| std::cmp::Reverse(d.len()));
        Relativiser {
            dirs,
            cache: HashMap::default(),
        }
    }

    /// `<inc>/crt/../driver_types.h` → `driver_types.h`; a stand-in → `stand-in/GL/gl.h`;
    /// anything else → its file name.
    fn path(&mut self, file: &str) -> String {
        if let Some(done) = self.cache.get(file) {
            return done.clone();
        }
        let normal = normalise(file);
        let rel = if let Some(rest) = normal.strip_prefix(&format!("{}/", stubs::VIRTUAL_ROOT)) {
            rest.to_string()
        } else if let Some(rest) = self
            .dirs
            .iter()
            .find_map(|d| normal.strip_prefix(d.as_str()))
        {
            rest.to_string()
        } else {
            normal.rsplit('/').next().unwrap_or(&normal).to_string()
        };
        self.cache.insert(file.to_string(), rel.clone());
        rel
    }

    /// A diagnostic's text with the include folders and the virtual root removed.
    fn text(&self, text: &str) -> String {
        let mut out = text.to_string();
        for d in &self.dirs {
            out = out.replace(d.as_str(), "");
        }
        out.replace(&format!("{}/", stubs::VIRTUAL_ROOT), "")
    }
}

/// Removes `.` and `dir/..` components lexically.
fn normalise(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "." => {}
            ".." if parts.last().is_some_and(|l| !l.is_empty() && *l != "..") => {
                parts.pop();
            }
            _ => parts.push(p),
        }
    }
    parts.join("/")
}

struct Walker<'a> {
    out: Locations,
    rel: &'a mut Relativiser,
}

extern "C" fn collect(c: CXCursor, _parent: CXCursor, data: CXClientData) -> CXChildVisitResult {
    // SAFETY: `data` is the `Vec<CXCursor>` that `children` passes, alive for the call.
    let v = unsafe { &mut *(data as *mut Vec<CXCursor>) };
    v.push(c);
    CXChildVisit_Continue
}

/// The direct children of `c`, in order.
fn children(c: CXCursor) -> Vec<CXCursor> {
    let mut v: Vec<CXCursor> = Vec::new();
    // SAFETY: `collect` only pushes into `v`, which outlives the call.
    unsafe {
        clang_visitChildren(c, collect, &mut v as *mut Vec<CXCursor> as CXClientData);
    }
    v
}

/// Takes a `CXString`'s text and disposes of it.
unsafe fn take(s: CXString) -> String {
    let p = clang_getCString(s);
    let text = if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    };
    clang_disposeString(s);
    text
}

fn spelling(c: CXCursor) -> String {
    // SAFETY: a cursor of a live unit.
    unsafe { take(clang_getCursorSpelling(c)) }
}

fn kind(c: CXCursor) -> CXCursorKind {
    // SAFETY: a cursor of a live unit.
    unsafe { clang_getCursorKind(c) }
}

fn is_anonymous(c: CXCursor) -> bool {
    // SAFETY: a cursor of a live unit.
    unsafe { clang_Cursor_isAnonymous(c) != 0 }
}

/// An anonymous struct/union member (C11 `struct { union { int a; }; }`), which has no field
/// declaration of its own: bindgen names its field `__bindgen_anon_N`.
fn is_anonymous_member(c: CXCursor) -> bool {
    // SAFETY: a cursor of a live unit.
    unsafe { clang_Cursor_isAnonymousRecordDecl(c) != 0 }
}

/// How `c` is marked deprecated, if it is: the attribute first (what a compiler sees), else a
/// `\deprecated` (or `@deprecated`) command in its documentation comment.
fn deprecation(c: CXCursor) -> Option<Deprecation> {
    // SAFETY: a cursor of a live unit.
    if unsafe { clang_getCursorAvailability(c) } == CXAvailability_Deprecated {
        return Some(Deprecation::Attribute);
    }
    // SAFETY: as above; the string is taken and disposed of.
    let comment = unsafe { take(clang_Cursor_getRawCommentText(c)) };
    let marked = comment
        .match_indices("deprecated")
        .any(|(at, _)| at > 0 && matches!(comment.as_bytes()[at - 1], b'\\' | b'@'));
    marked.then_some(Deprecation::Comment)
}

fn is_record(k: CXCursorKind) -> bool {
    k == CXCursor_StructDecl || k == CXCursor_UnionDecl
}

impl Walker<'_> {
    fn loc(&mut self, c: CXCursor) -> Option<Loc> {
        // SAFETY: a cursor of a live unit; out-pointers point to locals.
        let (file, line) = unsafe {
            let mut file: CXFile = std::ptr::null_mut();
            let mut line: c_uint = 0;
            clang_getExpansionLocation(
                clang_getCursorLocation(c),
                &mut file,
                &mut line,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            if file.is_null() {
                return None;
            }
            (take(clang_getFileName(file)), line)
        };
        Some(Loc {
            header: self.rel.path(&file),
            line,
        })
    }

    fn declared(&mut self, kind: DeclKind, name: &str, loc: &Loc) {
        if !loc.header.starts_with("stand-in/") && !loc.header.ends_with("cudart_abi_wrapper.h") {
            self.out
                .declarations
                .push((kind, name.to_string(), loc.clone()));
        }
    }

    /// Records `name` as deprecated when `c` is marked so (the first mark of a name wins).
    fn mark(&mut self, c: CXCursor, name: &str) {
        if let Some(how) = deprecation(c) {
            self.out.deprecated.entry(name.to_string()).or_insert(how);
        }
    }

    fn top_level(&mut self, tu: CXCursor) {
        for c in children(tu) {
            let k = kind(c);
            let Some(loc) = self.loc(c) else { continue };
            let name = spelling(c);
            if k == CXCursor_MacroDefinition {
                self.out.macros.insert(name, loc);
            } else if k == CXCursor_FunctionDecl {
                // SAFETY: a cursor of a live unit.
                let internal = unsafe { clang_getCursorLinkage(c) } == CXLinkage_Internal;
                let dk = if internal {
                    DeclKind::StaticFunction
                } else {
                    DeclKind::Function
                };
                if !self.out.functions.contains_key(&name) {
                    self.declared(dk, &name, &loc);
                    self.mark(c, &name);
                    self.out.functions.insert(name, loc);
                }
            } else if k == CXCursor_VarDecl {
                if !self.out.variables.contains_key(&name) {
                    self.declared(DeclKind::Variable, &name, &loc);
                    self.out.variables.insert(name, loc);
                }
            } else if k == CXCursor_TypedefDecl {
                self.typedef(c, name, loc);
            } else if (is_record(k) || k == CXCursor_EnumDecl) && !is_anonymous(c) {
                self.tag(c, name, loc);
            }
        }
    }

    fn typedef(&mut self, c: CXCursor, name: String, loc: Loc) {
        if self.out.typedefs.contains_key(&name) {
            return;
        }
        self.declared(DeclKind::Typedef, &name, &loc);
        self.mark(c, &name);
        self.out.typedefs.insert(name.clone(), loc.clone());
        // SAFETY: cursors and types of a live unit.
        let mut target = unsafe { clang_getTypeDeclaration(clang_getTypedefDeclUnderlyingType(c)) };
        // `typedef struct X *Y;` declares `struct X` where no other declaration may.
        // SAFETY: as above.
        unsafe {
            let mut ty = clang_getTypedefDeclUnderlyingType(c);
            for _ in 0..8 {
                if clang_Cursor_isNull(target) == 0 && kind(target) != CXCursor_NoDeclFound {
                    break;
                }
                ty = clang_getPointeeType(ty);
                if ty.kind == CXType_Invalid {
                    break;
                }
                target = clang_getTypeDeclaration(ty);
            }
        }
        // SAFETY: as above.
        if unsafe { clang_Cursor_isNull(target) } != 0 {
            return;
        }
        let tk = kind(target);
        if !(is_record(tk) || tk == CXCursor_EnumDecl) {
            return;
        }
        let Some(tloc) = self.loc(target) else { return };
        if is_anonymous(target) {
            // `typedef struct { … } X;`: bindgen names the type `X`.
            self.tag(target, name, tloc);
        } else {
            let tname = spelling(target);
            self.tag(target, tname, tloc);
        }
    }

    /// A named (or typedef-named) struct, union or enum, with its fields or enumerators.
    fn tag(&mut self, c: CXCursor, name: String, loc: Loc) {
        let k = kind(c);
        if k == CXCursor_EnumDecl {
            let is_new = !self.out.enums.contains_key(&name);
            if is_new {
                self.declared(DeclKind::Enum, &name, &loc);
                self.mark(c, &name);
                self.out.enums.insert(name, loc.clone());
            }
            self.enumerators(c, &loc);
        } else {
            let existing = self.out.records.get(&name);
            // A definition replaces a forward declaration seen first.
            let has_body = !children(c).is_empty();
            if existing.is_some_and(|r| !r.fields.is_empty() || !has_body) {
                return;
            }
            if existing.is_none() {
                self.declared(DeclKind::Record, &name, &loc);
            }
            self.mark(c, &name);
            self.record(c, name, loc);
        }
    }

    fn enumerators(&mut self, c: CXCursor, enum_loc: &Loc) {
        for v in children(c) {
            if kind(v) == CXCursor_EnumConstantDecl {
                if let Some(vloc) = self.loc(v) {
                    let name = spelling(v);
                    self.mark(v, &name);
                    self.out
                        .enum_values
                        .entry(name)
                        .or_insert((vloc, enum_loc.clone()));
                }
            }
        }
    }

    /// A record's fields, and its anonymous children named `<name>__bindgen_ty_<n>`.
    fn record(&mut self, c: CXCursor, name: String, loc: Loc) {
        let mut decl = RecordDecl {
            loc: Some(loc),
            fields: Vec::new(),
        };
        let mut anonymous = 0;
        let mut members = 0;
        for child in children(c) {
            let k = kind(child);
            let Some(cloc) = self.loc(child) else {
                continue;
            };
            if k == CXCursor_FieldDecl {
                decl.fields.push((spelling(child), cloc));
            } else if is_record(k) || k == CXCursor_EnumDecl {
                if is_anonymous(child) {
                    anonymous += 1;
                    let inner = format!("{name}__bindgen_ty_{anonymous}");
                    if is_anonymous_member(child) {
                        members += 1;
                        decl.fields
                            .push((format!("__bindgen_anon_{members}"), cloc.clone()));
                    }
                    if k == CXCursor_EnumDecl {
                        self.out.enums.entry(inner).or_insert(cloc.clone());
                        self.enumerators(child, &cloc);
                    } else {
                        self.record(child, inner, cloc);
                    }
                } else {
                    // A named type declared inside a record is a file-scope type in C.
                    let inner = spelling(child);
                    self.tag(child, inner, cloc);
                }
            }
        }
        self.out.records.insert(name, decl);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalised_and_made_relative() {
        assert_eq!(
            normalise("/a/inc/crt/../driver_types.h"),
            "/a/inc/driver_types.h"
        );
        assert_eq!(normalise("/a/./b.h"), "/a/b.h");
        let dirs = [Path::new("/w/t/nvidia/cu13/include")];
        let mut r = Relativiser::new(&dirs);
        assert_eq!(
            r.path("/w/t/nvidia/cu13/include/crt/../cuda_runtime_api.h"),
            "cuda_runtime_api.h"
        );
        assert_eq!(
            r.path("/w/t/nvidia/cu13/include/crt/host_defines.h"),
            "crt/host_defines.h"
        );
        assert_eq!(
            r.path("/cudart-abi-virtual/stand-in/GL/gl.h"),
            "stand-in/GL/gl.h"
        );
        assert_eq!(r.path("/elsewhere/x.h"), "x.h");
        assert_eq!(
            r.text("/w/t/nvidia/cu13/include/a.h:3:1: error: x"),
            "a.h:3:1: error: x"
        );
    }
}
