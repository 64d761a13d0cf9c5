//! Parameter roles: what each C parameter of a bound function is for, decided from the joined
//! model (C type, documented direction and documented type), for the typed layer.
//!
//! The rules read structure only: pointer depth and constness, the documented direction
//! (`:returns:` entries are outputs), `list[T]` and `Optional[T]` documented types, the kind of
//! the named C type (enum, handle, callback, record), and the flag groups whose constants the
//! documentation names. A slice's count parameter is found by structure: an integer parameter
//! passed by value that is either undocumented or documented as a count ("number of", "count",
//! "size of", "length"); when several are candidates, the one whose documentation names the
//! list wins, and otherwise the role stays unresolved. Every unresolved parameter is a
//! diagnostic, and its function gets no typed wrapper. This module does not emit code
//! ([`crate::emit::typed`] does).

use foldhash::HashMap;

use serde::{Deserialize, Serialize};

use super::directions::{self, documented_as_count};
use super::flags::FlagGroup;
use super::naming::snake_case;
use super::storage;
use super::strings::StrLifetime;
use super::unsafe_rules::UnsafeRuling;
use super::{Bindings, BoundFunction, BoundParam};
use crate::abi::{CType, TypedefKind};
use crate::diag::{Diagnostic, Severity};
use crate::doctype::TypeExpr;
use crate::ir::Direction;

/// The role of one C parameter in the typed wrapper.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Role {
    /// A scalar, enum or plain record passed by value.
    Value,
    /// A handle passed by value (`cudaStream_t`): the caller must keep it alive.
    Handle,
    /// An integer of flags, typed as the `bitflags` group `group` (`EventFlags`).
    Flags { group: String },
    /// A `const char*` input: `&CStr`.
    CStr,
    /// A pointer to one record or scalar read by the function: `&T` (`&mut T` when the C
    /// pointer is not const).
    Ref { mutable: bool },
    /// Like [`Role::Ref`] but documented `Optional[...]`: `Option<&T>` (NULL for `None`).
    OptionalRef { mutable: bool },
    /// A pointer to a scalar the function reads and writes back (an input documented by
    /// value whose C type is a non-const pointer): `&mut T`.
    InOut,
    /// Written by the function and returned.
    Out,
    /// An integer of flags written by the function: returned as the `bitflags` group
    /// `group` (unknown bits kept).
    OutFlags { group: String },
    /// A string the runtime hands back (`const char**` output): `&'static CStr` when a rule
    /// of [`super::strings`] says it lives for the process, else copied into a `CString`
    /// right after the call.
    OutCStr { lifetime: StrLifetime },
    /// A `char*` buffer the function writes a string into, whose length the parameter at
    /// `len` (an integer passed by value) gives: the wrapper allocates that many bytes, passes
    /// the length, and returns the string up to its NUL as a `CString`
    /// ([`super::storage::length_of`] finds `len`).
    OutString { len: usize },
    /// The length (by value) of the string buffer at `of`: a parameter of the wrapper (the
    /// caller says how long a string it accepts), also the size of the buffer allocated.
    StringCapacity { of: usize },
    /// A `char*` buffer whose size the pointer parameter at `size` carries in and out:
    /// `&mut [u8]`, its length passed in `*size`; the number the call writes back is
    /// returned.
    ByteBuffer { size: usize },
    /// The in/out size of the byte buffer at `of` (a local holding the buffer's length; its
    /// value after the call is returned).
    ByteBufferSize { of: usize },
    /// A list: `&[T]`, `&mut [T]` when the function writes it; `count` is the index of the
    /// C parameter carrying its length; `how` says how that pair was found.
    Slice {
        count: usize,
        mutable: bool,
        optional: bool,
        how: String,
    },
    /// The length of the slices at these parameter indices (not a parameter of the wrapper).
    Count { of: Vec<usize> },
    /// A pointer to the length of the output lists at `of`: the caller's capacity going in,
    /// the number written coming back. With `query`, the documentation says the call reports
    /// the number when the lists are NULL: the wrapper calls twice (number, then entries)
    /// and returns the lists as `Vec`s; otherwise the lists are optional slices (`None` asks
    /// for the number only) and the number is returned.
    CountInOut { of: Vec<usize>, query: bool },
    /// An output list the function hands back as a pointer to its own array (`const T**`),
    /// with the length in the output at `count`: copied into a `Vec` right after the call.
    BorrowedList { count: usize },
    /// The output length of the borrowed lists at `of` (not returned: it is their length).
    BorrowedCount { of: Vec<usize> },
    /// A raw pointer (device or host memory, `void*`): passed as is, makes the call unsafe.
    RawPointer,
    /// A pointer the storage check ([`super::storage`]) could not prove as large as C may
    /// access: passed as a raw pointer, which makes the call unsafe; `reason` goes into its
    /// `# Safety` section.
    Unproven { reason: String },
    /// A `void**` array of pointers the caller builds (a kernel's arguments, one pointer per
    /// argument): `&mut [*mut c_void]`. Its length is not passed to C (the callee knows it).
    PointerArray,
    /// A C function pointer.
    Callback,
    /// The `void*` handed back to the callback.
    UserData,
}

/// What the typed layer makes of a bound function: a wrapper with one role per C parameter,
/// or no wrapper and the reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "typed", rename_all = "snake_case")]
pub enum Typed {
    /// A typed wrapper named `rust_name`.
    Wrapper {
        /// The wrapper's name (`stream_create_with_flags`).
        rust_name: String,
        /// One role per C parameter, in C order.
        roles: Vec<Role>,
        /// Records passed in whose fields hold pointers or handles (they make the call unsafe),
        /// each once; an element type of a list is written `type@list`.
        unsafe_records: Vec<String>,
        /// The rule of [`super::unsafe_rules`] that makes the function `unsafe` whatever its
        /// parameters (it destroys, frees or invalidates what the safe layer may own, or
        /// changes what a stream's later work is ordered after).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unsafe_rule: Option<UnsafeRuling>,
        /// When the C function returns a `const char*`: how long that string lives (the rules
        /// of [`super::strings`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ret_string: Option<StrLifetime>,
    },
    /// No typed wrapper; the raw function is still there.
    Skipped { reason: String },
}

impl Role {
    /// Whether a caller could cause undefined behaviour through this parameter (a raw
    /// pointer, a handle that may be dead, a callback or its user data, a pointer whose
    /// storage the check could not prove).
    pub fn is_unsafe(&self) -> bool {
        matches!(
            self,
            Role::Handle
                | Role::RawPointer
                | Role::PointerArray
                | Role::Callback
                | Role::UserData
                | Role::Unproven { .. }
        )
    }
}

impl Typed {
    /// Whether the wrapper is an `unsafe fn`: a parameter's role is unsafe, a record passed
    /// in holds pointers or handles, or a rule of [`super::unsafe_rules`] applies. `false`
    /// without a wrapper.
    pub fn is_unsafe(&self) -> bool {
        match self {
            Typed::Wrapper {
                roles,
                unsafe_records,
                unsafe_rule,
                ..
            } => {
                unsafe_rule.is_some()
                    || !unsafe_records.is_empty()
                    || roles.iter().any(Role::is_unsafe)
            }
            Typed::Skipped { .. } => false,
        }
    }
}

impl Default for Typed {
    fn default() -> Self {
        Typed::Skipped {
            reason: "roles not resolved".into(),
        }
    }
}

/// Decides the typed wrapper of every bound function of `b` (setting each one's
/// [`BoundFunction::typed`]), with a note for each function left without one. Parameters
/// whose direction the documentation does not state are decided first by the rules of
/// [`directions`] (each application recorded in [`Bindings::direction_rulings`]).
pub fn resolve_all(b: &mut Bindings) {
    let kinds = TypeKinds::new(b);
    let flag_groups = &b.flag_groups;
    // Rust names must not collide: each is given in order, to the first function that
    // takes it.
    let mut taken: HashMap<String, String> = HashMap::default();
    let mut all_rulings = Vec::new();
    // The library's prefix is dropped from Rust names (`nvrtcCreateProgram` →
    // `create_program`; `snake_case` drops the runtime's `cuda` itself).
    let prefix = b.library.c_prefix();
    for f in &mut b.functions {
        let mut unsafe_records = Vec::new();
        let result = if f.documented {
            unstated(f, &mut all_rulings).and_then(|(presets, lists)| {
                let roles = resolve_inner(f, &kinds, flag_groups, &mut unsafe_records, &presets)?;
                agree(f, &roles, &lists)?;
                prove(f, roles)
            })
        } else {
            Err("no document describes it (only the ABI declares it)".to_string())
        };
        let typed = match result {
            Err(reason) => Typed::Skipped { reason },
            Ok(roles) => {
                let rust_name = snake_case(f.name.strip_prefix(prefix).unwrap_or(&f.name));
                match taken.insert(rust_name.clone(), f.name.clone()) {
                    Some(other) => Typed::Skipped {
                        reason: format!("its Rust name `{rust_name}` is taken by `{other}`"),
                    },
                    None => Typed::Wrapper {
                        rust_name,
                        roles,
                        unsafe_records,
                        unsafe_rule: super::unsafe_rules::ruling(&f.name),
                        ret_string: is_c_string(&f.ret.c).then(|| super::strings::lifetime(f)),
                    },
                }
            }
        };
        if let Typed::Skipped { reason } = &typed {
            b.diagnostics.push(Diagnostic::at(
                Severity::Note,
                &f.source,
                format!("{}: no typed wrapper: {reason}", f.name),
            ));
        }
        f.typed = typed;
    }
    b.direction_rulings = all_rulings;
}

/// `roles` with every pointer that the storage check ([`storage::check`]) cannot prove
/// passed as a raw pointer ([`Role::Unproven`], with the reason); a list or buffer it cannot
/// prove is the reason the function gets no wrapper.
fn prove(f: &BoundFunction, mut roles: Vec<Role>) -> Result<Vec<Role>, String> {
    for u in storage::check(f, &roles) {
        match roles[u.param] {
            Role::Ref { .. }
            | Role::OptionalRef { .. }
            | Role::InOut
            | Role::Out
            | Role::OutFlags { .. }
            | Role::OutCStr { .. }
            | Role::CStr => roles[u.param] = Role::Unproven { reason: u.reason },
            _ => return Err(format!("storage not proven: {}", u.reason)),
        }
    }
    Ok(roles)
}

/// `const char*`: a string the runtime returns or reads.
fn is_c_string(c: &CType) -> bool {
    matches!(c, CType::Pointer { to, is_const: true } if is_char(to))
}

/// `char*`: a buffer the function writes a string into.
fn is_char_buffer(c: &CType) -> bool {
    matches!(c, CType::Pointer { to, is_const: false } if is_char(to))
}

/// A list found by a direction rule, and the count parameter the rule paired it with.
type RuledList = (usize, usize);

/// Decides every parameter of `f` whose direction is not stated: writes the decided
/// direction into the model and returns the roles some rules fix outright, and the lists they
/// found with their counts. An undecided parameter is the reason `f` gets no wrapper.
fn unstated(
    f: &mut BoundFunction,
    rulings: &mut Vec<directions::Ruling>,
) -> Result<(Vec<Option<Role>>, Vec<RuledList>), String> {
    let mut presets = vec![None; f.params.len()];
    let mut lists = Vec::new();
    for (i, preset) in presets.iter_mut().enumerate() {
        if f.params[i].direction != Some(Direction::Unstated) {
            continue;
        }
        let (decision, rule) = directions::decide(f, i)?;
        let decided = match decision {
            directions::Decision::Direction(d) => {
                f.params[i].direction = Some(d);
                d.word()
            }
            directions::Decision::PointerArray => {
                f.params[i].direction = Some(Direction::In);
                *preset = Some(Role::PointerArray);
                "pointer array"
            }
            directions::Decision::List { direction, count } => {
                // A list for the pairing below: its documented type becomes `list[T]`.
                let p = &mut f.params[i];
                p.direction = Some(direction);
                let elem = match &p.ty.c {
                    CType::Pointer { to, .. } => to.c_text(),
                    other => other.c_text(),
                };
                p.doc_type = Some(crate::doctype::TypeRef::parse(&format!("list[{elem}]")));
                lists.push((i, count));
                if direction == Direction::Out {
                    "output list"
                } else {
                    "input list"
                }
            }
        };
        rulings.push(directions::Ruling {
            function: f.name.clone(),
            param: f.params[i].c_name.clone(),
            rule: rule.to_string(),
            decided: decided.to_string(),
            source: f.source.clone(),
        });
    }
    Ok((presets, lists))
}

/// Whether the list pairing agrees with the counts the direction rules named.
fn agree(f: &BoundFunction, roles: &[Role], lists: &[RuledList]) -> Result<(), String> {
    for &(list, count) in lists {
        match roles.get(list) {
            Some(Role::Slice { count: c, .. }) if *c == count => {}
            _ => {
                return Err(format!(
                    "the list `{}` has the count `{}` by its documentation, but the list pairing disagrees",
                    f.params[list].c_name, f.params[count].c_name
                ))
            }
        }
    }
    Ok(())
}

/// What kind of item each C type name is.
#[derive(Debug, Default)]
pub struct TypeKinds {
    kinds: HashMap<String, Kind>,
    /// Record name → field types.
    fields: HashMap<String, Vec<CType>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Enum,
    Record,
    Handle,
    Callback,
    Pointer,
    Alias,
}

impl TypeKinds {
    /// Reads the kinds of every enum, record and typedef of `b`.
    pub fn new(b: &Bindings) -> TypeKinds {
        let mut t = TypeKinds::default();
        for e in &b.enums {
            t.kinds.insert(e.abi.name.clone(), Kind::Enum);
            t.kinds.insert(e.name.clone(), Kind::Enum);
            for a in &e.aliases {
                t.kinds.insert(a.clone(), Kind::Enum);
            }
        }
        for r in &b.records {
            let fields: Vec<CType> = r.abi.fields.iter().map(|f| f.ty.c.clone()).collect();
            for n in std::iter::once(&r.name).chain(&r.abi.aliases) {
                t.kinds.insert(n.clone(), Kind::Record);
                t.fields.insert(n.clone(), fields.clone());
            }
        }
        for td in &b.typedefs {
            let k = match td.abi.kind {
                TypedefKind::Handle => Kind::Handle,
                TypedefKind::Callback => Kind::Callback,
                TypedefKind::Pointer => Kind::Pointer,
                TypedefKind::Alias => match td.abi.ty.c.base_name().and_then(|n| t.kinds.get(n)) {
                    Some(k) if td.abi.ty.c.pointer_depth() == 0 => *k,
                    _ if td.abi.ty.c.pointer_depth() > 0 => Kind::Pointer,
                    _ => Kind::Alias,
                },
            };
            t.kinds.entry(td.name.clone()).or_insert(k);
            if k == Kind::Alias {
                if let Some(base) = td.abi.ty.c.base_name() {
                    if let Some(f) = t.fields.get(base).cloned() {
                        t.kinds.insert(td.name.clone(), Kind::Record);
                        t.fields.insert(td.name.clone(), f);
                    }
                }
            }
        }
        t
    }

    fn kind(&self, name: &str) -> Option<Kind> {
        self.kinds.get(name).copied()
    }

    /// Whether values of `c` hold no pointer or handle (so passing one is always sound).
    pub fn is_plain(&self, c: &CType) -> bool {
        self.plain_at(c, 0)
    }

    fn plain_at(&self, c: &CType, depth: usize) -> bool {
        if depth > 16 {
            return false;
        }
        match c {
            CType::Primitive { .. } => true,
            CType::Array { of, .. } => self.plain_at(of, depth + 1),
            CType::Named { name } => match self.kind(name) {
                Some(Kind::Enum | Kind::Alias) => true,
                Some(Kind::Record) => self
                    .fields
                    .get(name)
                    .is_some_and(|fs| fs.iter().all(|f| self.plain_at(f, depth + 1))),
                _ => false,
            },
            CType::Pointer { .. } | CType::FnPtr { .. } | CType::Unknown { .. } => false,
        }
    }
}

fn is_integer(c: &CType) -> bool {
    matches!(c, CType::Primitive { name } if matches!(name.as_str(),
        "int" | "unsigned int" | "long" | "unsigned long" | "long long" | "unsigned long long"
        | "size_t" | "uint32_t" | "int32_t" | "uint64_t" | "int64_t" | "short" | "unsigned short"))
}

fn is_char(c: &CType) -> bool {
    matches!(c, CType::Primitive { name } if name == "char")
}

/// The documented type with `Optional[...]` removed, and whether it was optional.
fn unwrap_optional(t: &TypeExpr) -> (&TypeExpr, bool) {
    match t {
        TypeExpr::Optional { of } => (unwrap_optional(of).0, true),
        other => (other, false),
    }
}

fn is_list(t: &TypeExpr) -> bool {
    match t {
        TypeExpr::List { .. } | TypeExpr::Tuple { .. } => true,
        TypeExpr::Union { options } => options.iter().any(is_list),
        TypeExpr::Optional { of } => is_list(of),
        _ => false,
    }
}

/// The roles of `f`'s parameters (those in `presets` given), the records holding pointers
/// added to `unsafe_records`; an error names the parameter no role fits.
fn resolve_inner(
    f: &BoundFunction,
    kinds: &TypeKinds,
    groups: &[FlagGroup],
    unsafe_records: &mut Vec<String>,
    presets: &[Option<Role>],
) -> Result<Vec<Role>, String> {
    let mut roles: Vec<Option<Role>> = vec![None; f.params.len()];
    for (r, p) in roles.iter_mut().zip(presets) {
        r.clone_from(p);
    }
    let mut r = Resolver {
        f,
        kinds,
        groups,
        said: said_optional(&f.doc),
        has_callback: f.params.iter().any(|p| is_callback(&p.ty.c, kinds)),
        unsafe_records,
        roles,
        slices: Vec::new(),
        buffers: Vec::new(),
    };
    for i in 0..f.params.len() {
        if r.roles[i].is_none() {
            r.param(i)?;
        }
    }
    r.pair_lists()?;
    r.set_buffer_lengths()?;
    r.finish()
}

/// The state of resolving one function's roles.
struct Resolver<'a> {
    f: &'a BoundFunction,
    kinds: &'a TypeKinds,
    groups: &'a [FlagGroup],
    /// The sentences of the description that call a parameter optional.
    said: Vec<&'a str>,
    /// Whether a parameter is a callback (then a `void*` is its user data).
    has_callback: bool,
    unsafe_records: &'a mut Vec<String>,
    /// Each parameter's role, once known.
    roles: Vec<Option<Role>>,
    /// The lists, paired with their counts once every other role is known.
    slices: Vec<usize>,
    /// String buffers' length parameters and their roles, set once every role is known.
    buffers: Vec<(usize, Role)>,
}

impl Resolver<'_> {
    /// Decides parameter `i`'s role from its C type, direction and documented type, or
    /// records it as a list; an undocumented one is left for the counts.
    fn param(&mut self, i: usize) -> Result<(), String> {
        let (f, kinds) = (self.f, self.kinds);
        let p = &f.params[i];
        let dt = p.doc_type.as_ref().map(|t| &t.expr);
        if is_callback(&p.ty.c, kinds) {
            self.roles[i] = Some(Role::Callback);
            return Ok(());
        }
        if p.doc_name.is_none() {
            // Undocumented: only a count (decided below) can be resolved without the docs.
            return Ok(());
        }
        let (inner, optional) = dt.map_or((&TypeExpr::Any, false), unwrap_optional);
        let optional = optional || documented_optional(p, &self.said);
        // A list by its documented type, or a pointer that a count parameter's text names
        // ("Number of resources to map" for `resources`): never one value.
        let list = dt.is_some_and(is_list)
            || (matches!(&p.ty.c, CType::Pointer { to, .. }
                    if !matches!(**to, CType::Primitive { ref name } if name == "void"))
                && directions::count_of(f, i).is_some());
        if is_char_buffer(&p.ty.c) && !list {
            self.roles[i] = Some(self.string_buffer(i));
            return Ok(());
        }
        let role = match (&p.ty.c, p.direction) {
            (CType::Pointer { .. }, _) if list => {
                self.slices.push(i);
                return Ok(());
            }
            (CType::Pointer { to, .. }, Some(Direction::Out)) => self.output(p, to)?,
            (CType::Pointer { to, is_const }, _) => self.pointer(to, *is_const, inner, optional),
            (CType::Named { name }, _) => self.named(p, name)?,
            (CType::Primitive { .. }, _) => match flag_group(f, p, self.groups) {
                Some(g) => Role::Flags { group: g },
                None => Role::Value,
            },
            (CType::Array { .. } | CType::FnPtr { .. } | CType::Unknown { .. }, _) => {
                return Err(format!("`{}` has C type `{}`", p.c_name, p.ty.c_text))
            }
        };
        self.roles[i] = Some(role);
        Ok(())
    }

    /// A string buffer (parameter `i`): as long as its length parameter says, or unproven.
    fn string_buffer(&mut self, i: usize) -> Role {
        let f = self.f;
        match storage::length_of(f, i) {
            Some(len) if f.params[len].ty.c.pointer_depth() > 0 => {
                self.buffers.push((len, Role::ByteBufferSize { of: i }));
                Role::ByteBuffer { size: len }
            }
            Some(len) => {
                self.buffers.push((len, Role::StringCapacity { of: i }));
                Role::OutString { len }
            }
            None => Role::Unproven {
                reason: format!(
                    "C writes a string through `{}`, and no parameter is documented as its length",
                    f.params[i].c_name
                ),
            },
        }
    }

    /// A pointer the function writes through, to `to`: a returned value, string or flags,
    /// or a raw pointer for `void*`.
    fn output(&self, p: &BoundParam, to: &CType) -> Result<Role, String> {
        Ok(
            if to.pointer_depth() == 1 && is_char(to.base()) && to.is_const_pointer() {
                Role::OutCStr {
                    lifetime: super::strings::lifetime(self.f),
                }
            } else if matches!(*to, CType::Primitive { ref name } if name == "void") {
                // `void*` written by the function: a caller buffer of unstated size.
                Role::RawPointer
            } else if matches!(*to, CType::FnPtr { .. }) || is_callback(to, self.kinds) {
                return Err(format!("`{}` returns a function pointer", p.c_name));
            } else if to.pointer_depth() == 0 {
                match flag_group(self.f, p, self.groups) {
                    Some(group) => Role::OutFlags { group },
                    None => Role::Out,
                }
            } else if to.pointer_depth() <= 1 {
                Role::Out
            } else {
                return Err(format!(
                    "`{}` is an output of pointer depth {} that is not a list",
                    p.c_name,
                    p.ty.c.pointer_depth()
                ));
            },
        )
    }

    /// A pointer to `to` the function reads (or reads and writes): a C string, user data, a
    /// raw pointer, or a reference (`inner` is the documented type without `Optional`).
    fn pointer(&mut self, to: &CType, is_const: bool, inner: &TypeExpr, optional: bool) -> Role {
        let kinds = self.kinds;
        if *to
            == (CType::Primitive {
                name: "char".into(),
            })
            && is_const
        {
            Role::CStr
        } else if matches!(*to, CType::Primitive { ref name } if name == "void") {
            if self.has_callback {
                Role::UserData
            } else {
                Role::RawPointer
            }
        } else if to.pointer_depth() > 0 || (matches!(inner, TypeExpr::Any) && !kinds.is_plain(to))
        {
            Role::RawPointer
        } else {
            if !kinds.is_plain(to) {
                if let Some(n) = to.base_name() {
                    self.unsafe_records.push(n.to_string());
                }
            }
            let scalar = matches!(*to, CType::Primitive { .. })
                || matches!(*to, CType::Named { ref name } if kinds.kind(name) != Some(Kind::Record));
            if scalar && !is_const && !optional {
                Role::InOut
            } else if optional {
                Role::OptionalRef { mutable: !is_const }
            } else {
                Role::Ref { mutable: !is_const }
            }
        }
    }

    /// A value of the named type `name`: a handle, callback or plain value; an error when
    /// the type is not emitted.
    fn named(&mut self, p: &BoundParam, name: &str) -> Result<Role, String> {
        Ok(match self.kinds.kind(name) {
            Some(Kind::Handle | Kind::Pointer) => Role::Handle,
            Some(Kind::Record) => {
                if !self.kinds.is_plain(&p.ty.c) {
                    self.unsafe_records.push(name.to_string());
                }
                Role::Value
            }
            Some(Kind::Enum | Kind::Alias) => Role::Value,
            Some(Kind::Callback) => Role::Callback,
            None => {
                return Err(format!(
                    "`{}` has type `{name}`, which is not emitted",
                    p.c_name
                ))
            }
        })
    }

    /// Pairs every list with its count: a borrowed list with the count the function writes,
    /// others with the count found for them; then gives the counts their roles.
    fn pair_lists(&mut self) -> Result<(), String> {
        let f = self.f;
        let mut counts: HashMap<usize, Vec<usize>> = HashMap::default();
        let mut in_out_counts: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut borrowed: Vec<(usize, Vec<usize>)> = Vec::new();
        let slices = std::mem::take(&mut self.slices);
        for &s in &slices {
            if let Some(c) = borrowed_count(f, s, &self.roles) {
                group_under(&mut borrowed, c, s);
                self.roles[s] = Some(Role::BorrowedList { count: c });
                continue;
            }
            let (c, how) = find_count(f, s, &self.roles, &slices)?;
            let in_out = self.roles[c] == Some(Role::InOut);
            if in_out {
                group_under(&mut in_out_counts, c, s);
            }
            self.roles[s] = Some(self.slice(s, c, how, in_out));
            if !in_out {
                counts.entry(c).or_default().push(s);
            }
        }
        for (c, of) in in_out_counts {
            let query = of.iter().any(|&l| null_queries(f, l));
            self.roles[c] = Some(Role::CountInOut { of, query });
        }
        for (c, of) in borrowed {
            self.roles[c] = Some(Role::BorrowedCount { of });
        }
        for (c, of) in counts {
            self.roles[c] = Some(Role::Count { of });
        }
        Ok(())
    }

    /// The role of list `s` counted by `c` (found `how`); optional when documented so or
    /// when its count is read and written back.
    fn slice(&mut self, s: usize, c: usize, how: String, in_out: bool) -> Role {
        let p = &self.f.params[s];
        let optional = in_out
            || documented_optional(p, &self.said)
            || p.doc_type
                .as_ref()
                .is_some_and(|t| matches!(t.expr, TypeExpr::Optional { .. }));
        let mutable = p.direction == Some(Direction::Out);
        if let CType::Pointer { to, .. } = &p.ty.c {
            if !self.kinds.is_plain(to) {
                // The element type and the list holding it (`void*@jitOptionsValues`).
                self.unsafe_records
                    .push(format!("{}@{}", to.c_text(), p.c_name));
            }
        }
        Role::Slice {
            count: c,
            mutable,
            optional,
            how,
        }
    }

    /// Gives string buffers' length parameters their roles; an error when one is also a
    /// list's count.
    fn set_buffer_lengths(&mut self) -> Result<(), String> {
        for (len, role) in std::mem::take(&mut self.buffers) {
            if matches!(
                self.roles[len],
                Some(Role::Count { .. } | Role::CountInOut { .. })
            ) {
                return Err(format!(
                    "`{}` is the length of a string buffer and of a list",
                    self.f.params[len].c_name
                ));
            }
            self.roles[len] = Some(role);
        }
        Ok(())
    }

    /// The roles, once every parameter has one and at most one is user data; the unsafe
    /// records without repeats.
    fn finish(self) -> Result<Vec<Role>, String> {
        if let Some(first) = self.roles.iter().position(Option::is_none) {
            let p = &self.f.params[first];
            return Err(if p.doc_name.is_none() {
                format!("`{}` is not documented", p.c_name)
            } else {
                format!("no role for `{}` ({})", p.c_name, p.ty.c_text)
            });
        }
        let roles: Vec<Role> = self.roles.into_iter().flatten().collect();
        let mut seen = foldhash::HashSet::default();
        self.unsafe_records.retain(|r| seen.insert(r.clone()));
        if roles.iter().filter(|r| **r == Role::UserData).count() > 1 {
            return Err(
                "several `void*` parameters beside a callback: which is the user data is not stated"
                    .into(),
            );
        }
        Ok(roles)
    }
}

/// Adds `item` to the group keyed `key` in `groups`, kept in first-seen order.
fn group_under(groups: &mut Vec<(usize, Vec<usize>)>, key: usize, item: usize) {
    match groups.iter_mut().find(|(k, _)| *k == key) {
        Some((_, of)) => of.push(item),
        None => groups.push((key, vec![item])),
    }
}

fn is_callback(c: &CType, kinds: &TypeKinds) -> bool {
    match c {
        CType::FnPtr { .. } => true,
        CType::Named { name } => kinds.kind(name) == Some(Kind::Callback),
        _ => false,
    }
}

/// Whether the documentation says the parameter may be left out: its text starts with
/// "Optional" or says it may be NULL ("may be NULL", "can be NULL", "If NULL"), or a sentence
/// of the description naming it calls it optional (`said` is [`said_optional`] of the
/// function's description).
fn documented_optional(p: &BoundParam, said: &[&str]) -> bool {
    let d = p.doc.trim().to_ascii_lowercase();
    if d.starts_with("optional")
        || ["may be null", "can be null", "if null", "or null"]
            .iter()
            .any(|w| d.contains(w))
    {
        return true;
    }
    let name = p.doc_name.as_deref().unwrap_or(&p.c_name);
    said.contains(&name)
}

/// The names that `doc` calls optional: "`name` is optional" or "`name` is an optional …",
/// the words after the name counted within its paragraph, however the lines break. One pass
/// over the text for all the parameters (each backtick paired with the next one: every
/// "`name`" of a name without a backtick), reading a few words after each.
fn said_optional(doc: &str) -> Vec<&str> {
    let ticks: Vec<usize> = memchr::memchr_iter(b'`', doc.as_bytes()).collect();
    let mut said = Vec::new();
    for pair in ticks.windows(2) {
        let (open, close) = (pair[0], pair[1]);
        let rest = &doc[close + 1..];
        // No parameter has an empty name (the closing pair of ``x``).
        if close == open + 1 || !rest.starts_with(char::is_whitespace) {
            continue;
        }
        let mut words = crate::text::paragraph_words(rest);
        let optional = match (words.next(), words.next(), words.next()) {
            (Some("is"), Some("an"), Some(w)) if w.starts_with("optional") => true,
            (Some("is"), Some(w), _) => w.starts_with("optional"),
            _ => false,
        };
        if optional {
            said.push(&doc[open + 1..close]);
        }
    }
    said
}

/// For an output list of pointer depth 2 (`const T**`: the function hands back its own
/// array), the output integer parameter that receives its length, when exactly one is an
/// output integer pointer documented as a count or naming the list.
fn borrowed_count(f: &BoundFunction, slice: usize, roles: &[Option<Role>]) -> Option<usize> {
    let list = &f.params[slice];
    if list.direction != Some(Direction::Out) || list.ty.c.pointer_depth() != 2 {
        return None;
    }
    let found: Vec<usize> = f
        .params
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            roles[*i] == Some(Role::Out)
                && matches!(&p.ty.c, CType::Pointer { to, .. } if is_integer(to))
                && (documented_as_count(&p.doc) || p.doc.contains(list.c_name.as_str()))
        })
        .map(|(i, _)| i)
        .collect();
    match found.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// Whether the documentation says the list at `list` may be NULL to ask for the number of
/// entries only (its own text, or a sentence of the description naming it, says "NULL" and
/// "number").
fn null_queries(f: &BoundFunction, list: usize) -> bool {
    let p = &f.params[list];
    let name = p.doc_name.as_deref().unwrap_or(&p.c_name);
    let says = |s: &str| {
        let l = s.to_ascii_lowercase();
        l.contains("null") && (l.contains("number") || l.contains("count") || l.contains("query"))
    };
    if says(&p.doc) {
        return true;
    }
    let code = format!("`{name}`");
    f.doc
        .split("\n\n")
        .flat_map(|para| para.split(". "))
        .any(|sentence| sentence.contains(&code) && says(sentence))
}

/// The count parameter of the list at `slice`, and how it was found.
fn find_count(
    f: &BoundFunction,
    slice: usize,
    roles: &[Option<Role>],
    slices: &[usize],
) -> Result<(usize, String), String> {
    let list = &f.params[slice];
    let by_value = |i: usize, p: &BoundParam| {
        is_integer(&p.ty.c)
            && (p.doc_name.is_none() || documented_as_count(&p.doc))
            && !matches!(roles[i], Some(Role::Flags { .. }))
    };
    // An output list may take its length through an integer pointer passed in (capacity in,
    // count out): `cudaGraphGetNodes(graph, nodes, numNodes)`.
    let in_out = |i: usize, p: &BoundParam| {
        list.direction == Some(Direction::Out)
            && roles[i] == Some(Role::InOut)
            && matches!(&p.ty.c, CType::Pointer { to, .. } if is_integer(to))
    };
    let candidates: Vec<usize> = f
        .params
        .iter()
        .enumerate()
        .filter(|(i, p)| !slices.contains(i) && (by_value(*i, p) || in_out(*i, p)))
        .map(|(i, _)| i)
        .collect();
    match candidates.as_slice() {
        [] => Err(format!("no count parameter for the list `{}`", list.c_name)),
        [one] => Ok((
            *one,
            format!(
                "the only integer parameter {} (`{}`)",
                if f.params[*one].doc_name.is_none() {
                    "not documented"
                } else {
                    "documented as a count"
                },
                f.params[*one].c_name
            ),
        )),
        many => {
            let naming: Vec<usize> = many
                .iter()
                .copied()
                .filter(|&i| {
                    let doc = &f.params[i].doc;
                    doc.contains(&format!("`{}`", list.c_name))
                        || doc
                            .split(|c: char| !c.is_alphanumeric() && c != '_')
                            .any(|w| w == list.c_name)
                })
                .collect();
            // C order: a count follows its lists, with only lists between them.
            let following = many
                .iter()
                .copied()
                .find(|&c| c > slice && (slice + 1..c).all(|j| slices.contains(&j)));
            match (naming.as_slice(), following) {
                ([one], _) => Ok((
                    *one,
                    format!(
                        "the count parameter whose documentation names `{}` (`{}`)",
                        list.c_name, f.params[*one].c_name
                    ),
                )),
                ([], Some(c)) => Ok((
                    c,
                    format!(
                        "the first count parameter after the list, with only lists between (`{}`)",
                        f.params[c].c_name
                    ),
                )),
                _ => {
                    Err(format!(
                    "the list `{}` has several candidate counts ({}) and no documentation names it",
                    list.c_name,
                    many.iter().map(|&i| f.params[i].c_name.as_str()).collect::<Vec<_>>().join(", ")
                ))
                }
            }
        }
    }
}

/// The flag group for an integer parameter named like flags, from the constants its own
/// documentation names, else the function's. `None` when no group (or several) is named.
fn flag_group(f: &BoundFunction, p: &BoundParam, groups: &[FlagGroup]) -> Option<String> {
    if !p.c_name.to_ascii_lowercase().contains("flags") {
        return None;
    }
    let value = match &p.ty.c {
        CType::Pointer {
            to,
            is_const: false,
        } if p.direction == Some(Direction::Out) => &**to,
        other => other,
    };
    let rust_bits = match value {
        CType::Primitive { name } => match name.as_str() {
            "unsigned int" | "uint32_t" => "u32",
            "unsigned long long" | "uint64_t" => "u64",
            "int" | "int32_t" => "i32",
            _ => return None,
        },
        _ => return None,
    };
    let mentioned = |text: &str| -> Vec<&FlagGroup> {
        groups
            .iter()
            .filter(|g| g.bits == rust_bits)
            // Every member starts with the group's prefix: a text without the prefix names
            // none of them (one search instead of one per member).
            .filter(|g| {
                text.contains(g.prefix.as_str())
                    || !g.members.iter().all(|(c, _, _)| c.starts_with(&g.prefix))
            })
            .filter(|g| {
                g.members.iter().map(|(c, _, _)| c).any(|m| {
                    text.match_indices(m.as_str()).any(|(at, _)| {
                        !text[at + m.len()..]
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_alphanumeric() || c == '_')
                    })
                })
            })
            .collect()
    };
    for text in [p.doc.as_str(), f.doc.as_str()] {
        let m = mentioned(text);
        match m.as_slice() {
            [one] => return Some(one.name.clone()),
            [] => continue,
            // Several groups named: the one whose prefix is the function's own name
            // (`cudaHostAlloc*` for `cudaHostAlloc`), else none.
            many => {
                return many
                    .iter()
                    .find(|g| g.prefix == f.name)
                    .map(|g| g.name.clone())
            }
        }
    }
    // Flags a getter returns with no constant named: the group of the object the function
    // is named after (`cudaArrayGet…` returns `cudaArray*` flags), the longest such prefix.
    if p.direction == Some(Direction::Out) {
        return groups
            .iter()
            .filter(|g| g.bits == rust_bits)
            .filter(|g| {
                f.name
                    .strip_prefix(g.prefix.as_str())
                    .is_some_and(|rest| rest.starts_with("Get"))
            })
            .max_by_key(|g| g.prefix.len())
            .map(|g| g.name.clone());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::AbiType;
    use crate::doctype::TypeRef;
    use crate::ir::Source;

    use crate::bind::test_types::{prim, ptr};

    fn p(name: &str, c: CType, dir: Option<Direction>, ty: &str, doc: &str) -> BoundParam {
        BoundParam {
            c_name: name.into(),
            ty: AbiType::new(String::new(), c),
            doc_name: dir.map(|_| name.to_string()),
            direction: dir,
            doc_type: dir.map(|_| TypeRef::parse(ty)),
            doc: doc.into(),
        }
    }

    fn f(params: Vec<BoundParam>, doc: &str) -> BoundFunction {
        BoundFunction {
            name: "cudaTest".into(),
            section: None,
            doc: doc.into(),
            see_also: vec![],
            errors: vec![],
            params,
            ret: AbiType::void(),
            source: Source::new("t.txt", 7),
            symbol: "cudaTest".into(),
            documented: true,
            typed: Typed::default(),
            since: None,
        }
    }

    fn resolve(f: &BoundFunction, groups: &[FlagGroup]) -> Result<Vec<Role>, String> {
        resolve_inner(
            f,
            &TypeKinds::default(),
            groups,
            &mut Vec::new(),
            &vec![None; f.params.len()],
        )
    }

    const IN: Option<Direction> = Some(Direction::In);
    const OUT: Option<Direction> = Some(Direction::Out);

    #[test]
    fn names_called_optional_in_a_description() {
        let doc = "Sets `a`. `a` is optional. `b` is an optional\nstream, `c` is\nan   optionally set value.\n\
                   `d` is\n\noptional. `e` is required; ``f`` is optional; `g`is optional.";
        assert_eq!(said_optional(doc), ["a", "b", "c"]);
        assert!(said_optional("").is_empty());
        assert!(said_optional("`a` is").is_empty());
        assert!(said_optional("`").is_empty());
    }

    #[test]
    fn outputs_strings_flags_and_lists_with_their_counts() {
        let groups = vec![FlagGroup {
            name: "EventFlags".into(),
            prefix: "cudaEvent".into(),
            bits: "u32".into(),
            members: vec![
                ("cudaEventDefault".into(), "DEFAULT".into(), 0),
                ("cudaEventBlockingSync".into(), "BLOCKING_SYNC".into(), 1),
            ],
        }];
        let func = f(
            vec![
                p("out", ptr(prim("int"), false), OUT, "int", "Returned value"),
                p("name", ptr(prim("char"), true), IN, "bytes", "Name"),
                p("flags", prim("unsigned int"), IN, "unsigned int", "Flags"),
                p("a", ptr(prim("int"), true), IN, "list[int]", "First list"),
                p(
                    "b",
                    ptr(prim("float"), true),
                    IN,
                    "list[float]",
                    "Second list",
                ),
                p("numItems", prim("size_t"), IN, "size_t", "Number of items"),
            ],
            "Use :py:obj:`~.cudaEventBlockingSync` here.",
        );
        let roles = resolve(&func, &groups).expect("resolved");
        assert_eq!(roles[0], Role::Out);
        assert_eq!(roles[1], Role::CStr);
        assert_eq!(
            roles[2],
            Role::Flags {
                group: "EventFlags".into()
            }
        );
        assert!(matches!(
            &roles[3],
            Role::Slice {
                count: 5,
                mutable: false,
                ..
            }
        ));
        assert!(matches!(&roles[4], Role::Slice { count: 5, .. }));
        assert_eq!(roles[5], Role::Count { of: vec![3, 4] });
    }

    #[test]
    fn ambiguous_counts_follow_c_order_and_undocumented_params_stay_unresolved() {
        let func = f(
            vec![
                p("opts", ptr(prim("int"), false), IN, "list[int]", "Options"),
                p(
                    "numOpts",
                    prim("unsigned int"),
                    IN,
                    "unsigned int",
                    "Number of options",
                ),
                p("more", ptr(prim("int"), false), IN, "list[int]", "More"),
                p(
                    "numMore",
                    prim("unsigned int"),
                    IN,
                    "unsigned int",
                    "Number of more",
                ),
            ],
            "",
        );
        let roles = resolve(&func, &[]).expect("resolved");
        assert!(
            matches!(&roles[0], Role::Slice { count: 1, how, .. } if how.contains("after the list"))
        );
        assert!(matches!(&roles[2], Role::Slice { count: 3, .. }));

        let func = f(
            vec![
                p("x", prim("int"), IN, "int", "x"),
                p("hidden", ptr(prim("int"), false), None, "", ""),
            ],
            "",
        );
        let err = resolve(&func, &[]).expect_err("guessed");
        assert!(err.contains("`hidden` is not documented"), "{err}");
    }

    #[test]
    fn an_output_list_with_an_in_out_count_is_optional() {
        let func = f(
            vec![
                p("nodes", ptr(prim("int"), false), OUT, "list[int]", "Nodes"),
                p(
                    "numNodes",
                    ptr(prim("size_t"), false),
                    IN,
                    "int",
                    "See description",
                ),
            ],
            "",
        );
        let roles = resolve(&func, &[]).expect("resolved");
        assert!(matches!(
            &roles[0],
            Role::Slice {
                count: 1,
                mutable: true,
                optional: true,
                ..
            }
        ));
        assert_eq!(
            roles[1],
            Role::CountInOut {
                of: vec![0],
                query: false
            }
        );
    }

    #[test]
    fn lists_sharing_an_in_out_count_that_null_queries_use_the_two_call_pattern() {
        let mut func = f(
            vec![
                p(
                    "from",
                    ptr(prim("int"), false),
                    OUT,
                    "list[int]",
                    "Location to return edge endpoints",
                ),
                p(
                    "to",
                    ptr(prim("int"), false),
                    OUT,
                    "list[int]",
                    "Location to return edge endpoints",
                ),
                p(
                    "numEdges",
                    ptr(prim("size_t"), false),
                    IN,
                    "int",
                    "See description",
                ),
            ],
            "",
        );
        let roles = resolve(&func, &[]).expect("resolved");
        assert_eq!(
            roles[2],
            Role::CountInOut {
                of: vec![0, 1],
                query: false
            }
        );
        func.doc = "`from` and `to` may both be NULL, in which case this function only returns the number of edges in `numEdges`.".into();
        let roles = resolve(&func, &[]).expect("resolved");
        assert_eq!(
            roles[2],
            Role::CountInOut {
                of: vec![0, 1],
                query: true
            }
        );
    }

    #[test]
    fn an_array_the_function_owns_is_a_borrowed_list_and_optional_words_make_options() {
        let func = f(
            vec![
                p(
                    "deps_out",
                    ptr(ptr(prim("int"), true), false),
                    OUT,
                    "list[int]",
                    "Location to return the array",
                ),
                p(
                    "numDeps_out",
                    ptr(prim("size_t"), false),
                    OUT,
                    "int",
                    "Location to return the number of entries",
                ),
                p(
                    "view",
                    ptr(
                        CType::Named {
                            name: "cudaView".into(),
                        },
                        true,
                    ),
                    IN,
                    "cudaView",
                    "Optional view",
                ),
            ],
            "",
        );
        let roles = resolve(&func, &[]).expect("resolved");
        assert_eq!(roles[0], Role::BorrowedList { count: 1 });
        assert_eq!(roles[1], Role::BorrowedCount { of: vec![0] });
        assert_eq!(roles[2], Role::OptionalRef { mutable: false });
    }

    #[test]
    fn string_buffers_take_their_length_parameter_or_stay_raw() {
        // `char*` written by the function, its length by value: a buffer of that length.
        let func = f(
            vec![
                p(
                    "name",
                    ptr(prim("char"), false),
                    OUT,
                    "bytes",
                    "Returned name",
                ),
                p(
                    "len",
                    prim("int"),
                    IN,
                    "int",
                    "Maximum length of the string",
                ),
            ],
            "",
        );
        let roles = prove(&func, resolve(&func, &[]).expect("resolved")).expect("proven");
        assert_eq!(
            roles,
            [Role::OutString { len: 1 }, Role::StringCapacity { of: 0 }]
        );
        // Its size in and out through a pointer: a byte slice.
        let func = f(
            vec![
                p(
                    "buffer",
                    ptr(prim("char"), false),
                    IN,
                    "bytes",
                    "Pointer to dump logs",
                ),
                p(
                    "size",
                    ptr(prim("size_t"), false),
                    IN,
                    "size_t",
                    "See description",
                ),
            ],
            "Dumps logs into `buffer` up to the size specified in `*size`.",
        );
        let roles = prove(&func, resolve(&func, &[]).expect("resolved")).expect("proven");
        assert_eq!(
            roles,
            [Role::ByteBuffer { size: 1 }, Role::ByteBufferSize { of: 0 }]
        );
        // No length: a raw pointer, the reason kept (the wrapper is unsafe).
        let func = f(
            vec![p(
                "name",
                ptr(prim("char"), false),
                OUT,
                "bytes",
                "Returned name",
            )],
            "",
        );
        let roles = prove(&func, resolve(&func, &[]).expect("resolved")).expect("proven");
        assert!(
            matches!(&roles[0], Role::Unproven { reason } if reason.contains("no parameter is documented as its length")),
            "{roles:?}"
        );
        assert!(roles[0].is_unsafe());
    }

    #[test]
    fn a_pointer_a_count_names_is_a_list_and_an_unsized_output_list_gets_no_wrapper() {
        let func = f(
            vec![
                p(
                    "count",
                    prim("int"),
                    IN,
                    "int",
                    "Number of resources to map",
                ),
                p(
                    "resources",
                    ptr(prim("int"), false),
                    IN,
                    "int",
                    "Resources to map",
                ),
            ],
            "",
        );
        let roles = prove(&func, resolve(&func, &[]).expect("resolved")).expect("proven");
        assert!(
            matches!(roles[1], Role::Slice { count: 0, .. }),
            "{roles:?}"
        );
        assert_eq!(roles[0], Role::Count { of: vec![1] });
        // An output documented as a list with nothing giving its length: no wrapper.
        let func = f(
            vec![p(
                "values",
                ptr(prim("int"), false),
                OUT,
                "list[int]",
                "Returned values",
            )],
            "",
        );
        let err = resolve(&func, &[]).expect_err("a list without a count");
        assert!(err.contains("no count parameter"), "{err}");
        // Were it passed as one value, the storage check would leave it a raw pointer.
        let roles = prove(&func, vec![Role::Out]).expect("demoted");
        assert!(
            matches!(&roles[0], Role::Unproven { reason } if reason.contains("documented as a list")),
            "{roles:?}"
        );
        // A list sized by the wrong count is no wrapper at all.
        let func = f(
            vec![
                p(
                    "values",
                    ptr(prim("int"), false),
                    OUT,
                    "list[int]",
                    "Values",
                ),
                p("n", prim("int"), IN, "int", "Number of `values`"),
                p("m", prim("int"), IN, "int", "Something else"),
            ],
            "",
        );
        let wrong = vec![
            Role::Slice {
                count: 2,
                mutable: true,
                optional: false,
                how: String::new(),
            },
            Role::Value,
            Role::Count { of: vec![0] },
        ];
        let err = prove(&func, wrong).expect_err("the wrong count");
        assert!(err.starts_with("storage not proven"), "{err}");
    }
}
