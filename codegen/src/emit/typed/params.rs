//! One wrapper parameter per [`Role`]: what it adds to the wrapper's [`Parts`] (its Rust
//! parameter, the C argument, locals before and after the call, outputs and their docs, and
//! what the caller must uphold). One method per role or family of roles; nothing here
//! decides a role.

use proc_macro2::Ident;

use super::{local, named_type, needed, pointee, returned_cstr, Parts, TypedLinks, Types};
use crate::abi::CType;
use crate::bind::naming::param_name;
use crate::bind::{BoundFunction, BoundParam, Role, StrLifetime};
use crate::emit::docs::{self, DocProblems};
use crate::emit::files::comment_stmt;
use crate::emit::fill::fill;
use crate::emit::names::{ident, Names};

/// What every parameter of one function is emitted against.
pub(super) struct ParamContext<'a, 'l> {
    pub(super) f: &'a BoundFunction,
    pub(super) roles: &'a [Role],
    pub(super) names: &'l Names,
    pub(super) links: &'l TypedLinks<'l>,
}

/// `__id: __T`, a parameter of the wrapper.
fn fn_arg(id: &Ident, ty: syn::Type) -> Result<syn::FnArg, syn::Error> {
    fill!(syn::FnArg, { __id: __T }, __id = id.clone(), __T = ty)
}

/// Adds parameter `p`, whose role is `role`, to `parts`.
pub(super) fn param<'a>(
    ctx: &ParamContext<'a, '_>,
    p: &'a BoundParam,
    role: &Role,
    problems: &mut DocProblems,
    parts: &mut Parts,
    types: &mut Types<'a>,
) -> Result<(), syn::Error> {
    let one = Param::new(ctx, p, problems, types)?;
    match role {
        Role::Value | Role::RawPointer | Role::Callback | Role::UserData | Role::Handle => {
            one.passed(role, parts, types)
        }
        Role::Flags { group } => one.flags(group, parts),
        Role::CStr => one.cstr(parts),
        Role::Ref { mutable } => one.reference(*mutable, false, parts),
        Role::OptionalRef { mutable } => one.reference(*mutable, true, parts),
        Role::PointerArray => one.pointer_array(parts),
        Role::InOut => one.in_out(parts),
        Role::Out => one.out(parts),
        Role::OutFlags { group } => one.out_flags(group, parts),
        Role::OutCStr { lifetime } => one.out_cstr(*lifetime, parts),
        Role::Unproven { reason } => one.unproven(reason, parts, types),
        Role::OutString { len } => one.out_string(*len, parts),
        Role::StringCapacity { of } => one.string_capacity(*of, parts, types),
        Role::ByteBuffer { size } => one.byte_buffer(*size, parts),
        Role::ByteBufferSize { of } => one.byte_buffer_size(*of, parts),
        Role::Slice {
            mutable,
            optional,
            count,
            ..
        } => {
            parts.slices = true;
            if matches!(&ctx.roles[*count], Role::CountInOut { query: true, .. }) {
                one.queried_list(*count, parts, types)
            } else {
                one.slice(*mutable, *optional, *count, parts)
            }
        }
        Role::CountInOut { query: true, .. } | Role::BorrowedCount { .. } => {
            one.written_count(parts)
        }
        Role::CountInOut { of, query: false } => one.count_in_out(of, parts),
        Role::BorrowedList { count } => one.borrowed_list(*count, parts, types),
        Role::Count { of } => one.count(of, parts, types),
    }
}

/// One parameter being emitted: its Rust name, its documentation and the type it points to.
struct Param<'a, 'l> {
    f: &'a BoundFunction,
    roles: &'a [Role],
    names: &'l Names,
    p: &'a BoundParam,
    /// The Rust name, as text and as an identifier.
    rn: String,
    id: Ident,
    /// The parameter's documentation, in Markdown with Rust terms.
    doc: String,
    /// The Rust type the C type points to, if it is a pointer.
    pt: Option<syn::Type>,
}

impl<'a, 'l> Param<'a, 'l> {
    /// The parameter `p` of `ctx.f`, its documentation converted (problems into `problems`).
    fn new(
        ctx: &ParamContext<'a, 'l>,
        p: &'a BoundParam,
        problems: &mut DocProblems,
        types: &mut Types<'a>,
    ) -> Result<Self, syn::Error> {
        let ParamContext {
            f,
            roles,
            names,
            links,
        } = *ctx;
        let rn = param_name(&p.c_name);
        let id = ident(&rn);
        let doc = docs::markdown(
            &super::flat(&p.doc),
            links,
            &format!("{}({})", f.name, p.c_name),
            problems,
        );
        let doc = super::rust_terms(&doc, f, roles);
        let pt = types.pointee(&p.ty.c, names)?;
        Ok(Param {
            f,
            roles,
            names,
            p,
            rn,
            id,
            doc,
            pt,
        })
    }

    /// The `# Arguments` line for this parameter, `extra` after its name.
    fn arg_doc(&self, parts: &mut Parts, extra: &str) {
        let (rn, doc) = (&self.rn, &self.doc);
        let sep = if doc.is_empty() { "" } else { " — " };
        parts.arg_docs.push(format!("- `{rn}`{extra}{sep}{doc}"));
    }

    /// The `# Returns` entry for this parameter: `head`, then its documentation.
    fn ret_doc(&self, parts: &mut Parts, head: &str) {
        let doc = &self.doc;
        let sep = if doc.is_empty() { "" } else { ": " };
        parts.ret_docs.push(format!("{head}{sep}{doc}"));
    }

    /// `&mut id`, the address of a local the call writes.
    fn address(&self) -> Result<syn::Expr, syn::Error> {
        fill!(syn::Expr, { &mut __id }, __id = self.id.clone())
    }

    /// The identifier of the function's parameter `i`.
    fn count_of(&self, i: usize) -> Ident {
        ident(&param_name(&self.f.params[i].c_name))
    }

    /// The Rust name of the function's parameter `i`.
    fn name_of(&self, i: usize) -> String {
        param_name(&self.f.params[i].c_name)
    }

    /// `let mut id: T = 0;`, a local the call writes a number into.
    fn zero_local(&self, ty: syn::Type) -> Result<syn::Stmt, syn::Error> {
        fill!(
            syn::Stmt,
            {
                let mut __id: __T = 0;
            },
            __id = self.id.clone(),
            __T = ty
        )
    }

    /// The pointee type, which the role needs.
    fn needed(&self) -> Result<syn::Type, syn::Error> {
        needed(self.pt.clone(), self.p)
    }

    /// A value, raw pointer, callback, user data or handle: passed as is; all but values put
    /// a condition in `# Safety`.
    fn passed(
        self,
        role: &Role,
        parts: &mut Parts,
        types: &mut Types<'a>,
    ) -> Result<(), syn::Error> {
        let id = &self.id;
        parts
            .params
            .push(fn_arg(id, types.of(&self.p.ty.c, self.names)?)?);
        parts.args.push(local(id));
        self.arg_doc(parts, "");
        let rn = &self.rn;
        let callee = self.names.library().callee();
        let why = match role {
            Role::Handle => Some(format!("`{rn}` must be a live handle: created by {callee} and not yet destroyed (or null where the documentation allows it).")),
            Role::RawPointer => Some(format!("`{rn}` is a raw pointer: it must be valid for what the function does with it, as described above.")),
            Role::Callback => Some(format!("`{rn}` is called by {callee}, possibly from another thread, with the user data; it must be sound to call so.")),
            Role::UserData => Some(format!("`{rn}` is handed to the callback and must stay valid until the callback has run.")),
            _ => None,
        };
        parts.safety.extend(why);
        Ok(())
    }

    /// Flags of `group`: the bitflags type, passed as its bits.
    fn flags(self, group: &str, parts: &mut Parts) -> Result<(), syn::Error> {
        let g = ident(group);
        let id = &self.id;
        parts
            .params
            .push(fill!(syn::FnArg, { __id: crate::sys::__G }, __id = id.clone(), __G = g)?);
        parts
            .args
            .push(fill!(syn::Expr, { __id.bits() }, __id = id.clone())?);
        self.arg_doc(parts, &format!(" ([`{group}`](crate::sys::{group}))"));
        Ok(())
    }

    /// A C string the function reads: a `&CStr`.
    fn cstr(self, parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        parts
            .params
            .push(fn_arg(id, fill!(syn::Type, { &::core::ffi::CStr })?)?);
        parts
            .args
            .push(fill!(syn::Expr, { __id.as_ptr() }, __id = id.clone())?);
        self.arg_doc(parts, "");
        Ok(())
    }

    /// A pointer to one value: a reference (`Option` of one when `optional`, `None` passing
    /// NULL).
    fn reference(self, mutable: bool, optional: bool, parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        let pt = self.needed()?;
        let (r, conv, null) = if mutable {
            (
                fill!(syn::Type, { &mut __T }, __T = pt)?,
                fill!(syn::Expr, { ::core::ptr::from_mut })?,
                fill!(syn::Expr, { ::core::ptr::null_mut() })?,
            )
        } else {
            (
                fill!(syn::Type, { &__T }, __T = pt)?,
                fill!(syn::Expr, { ::core::ptr::from_ref })?,
                fill!(syn::Expr, { ::core::ptr::null() })?,
            )
        };
        if optional {
            parts
                .params
                .push(fn_arg(id, fill!(syn::Type, { Option<__T> }, __T = r)?)?);
            parts.args.push(fill!(
                syn::Expr,
                { __id.map_or(__null, __conv) },
                __id = id.clone(),
                __null = null,
                __conv = conv
            )?);
            self.arg_doc(parts, " (optional: `None` passes NULL)");
        } else {
            parts.params.push(fn_arg(id, r)?);
            parts.args.push(fill!(
                syn::Expr,
                { __conv(__id) },
                __id = id.clone(),
                __conv = conv
            )?);
            self.arg_doc(parts, "");
        }
        Ok(())
    }

    /// A kernel's argument pointers: `&mut [*mut c_void]`, its contents a `# Safety` condition.
    fn pointer_array(self, parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        parts
            .params
            .push(fn_arg(id, fill!(syn::Type, { &mut [*mut c_void] })?)?);
        parts
            .args
            .push(fill!(syn::Expr, { __id.as_mut_ptr() }, __id = id.clone())?);
        self.arg_doc(
            parts,
            " (one pointer per kernel argument, each to that argument's value)",
        );
        parts.safety.push(format!(
            "`{}` must hold exactly one valid pointer per parameter of the kernel, each to a value of that parameter's type, alive for the call.",
            self.rn
        ));
        Ok(())
    }

    /// A value read and written back: `&mut T`.
    fn in_out(self, parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        parts.params.push(fn_arg(
            id,
            fill!(syn::Type, { &mut __T }, __T = self.needed()?)?,
        )?);
        parts.args.push(fill!(
            syn::Expr,
            { ::core::ptr::from_mut(__id) },
            __id = id.clone()
        )?);
        self.arg_doc(parts, " (read and written back)");
        Ok(())
    }

    /// An output: a zeroed local the call writes, returned (as the crate's handle type when
    /// it points to a record the crate has one over).
    fn out(self, parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        let pt = self.needed()?;
        parts.pre.push(fill!(
            syn::Stmt,
            {
                let mut __id: __T = unsafe { ::core::mem::zeroed() };
            },
            __id = id.clone(),
            __T = pt.clone()
        )?);
        parts.args.push(self.address()?);
        // A pointer to a record the crate has a handle type over is returned as that
        // handle (`struct cudaGraphicsResource*` → `cudaGraphicsResource_t`).
        let handle = match pointee(&self.p.ty.c) {
            Some(CType::Pointer {
                to,
                is_const: false,
            }) => to
                .base_name()
                .filter(|_| to.pointer_depth() == 0)
                .and_then(|n| self.names.handle_over(n)),
            _ => None,
        };
        match handle {
            Some(h) => {
                let h = ident(h);
                parts.outs.push((
                    fill!(syn::Expr, { __h(__id) }, __h = h.clone(), __id = id.clone())?,
                    named_type(h),
                ));
            }
            None => parts.outs.push((local(id), pt)),
        }
        self.ret_doc(parts, &format!("`{}`", self.rn));
        Ok(())
    }

    /// Output flags of `group`: returned as the bitflags type, unnamed bits kept.
    fn out_flags(self, group: &str, parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        let g = ident(group);
        parts.pre.push(self.zero_local(self.needed()?)?);
        parts.args.push(self.address()?);
        parts.outs.push((
            fill!(
                syn::Expr,
                { crate::sys::__G::from_bits_retain(__id) },
                __G = g.clone(),
                __id = id.clone()
            )?,
            fill!(syn::Type, { crate::sys::__G }, __G = g)?,
        ));
        self.ret_doc(
            parts,
            &format!(
                "`{}` ([`{group}`](crate::sys::{group}); bits it does not name are kept)",
                self.rn
            ),
        );
        Ok(())
    }

    /// A C string the call points an output at: returned as a `CStr` or a copy, as
    /// `lifetime` says.
    fn out_cstr(self, lifetime: StrLifetime, parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        parts.pre.push(fill!(
            syn::Stmt,
            {
                let mut __id: *const c_char = ::core::ptr::null();
            },
            __id = id.clone()
        )?);
        parts.args.push(self.address()?);
        parts.outs.push(returned_cstr(id, lifetime)?);
        let what = match lifetime {
            StrLifetime::Static => "static string",
            StrLifetime::Copied => "a copy of the string the runtime returns",
        };
        self.ret_doc(parts, &format!("`{}` ({what}; empty if NULL)", self.rn));
        Ok(())
    }

    /// A pointer whose storage the generator could not prove: passed raw, its size a
    /// `# Safety` condition.
    fn unproven(
        self,
        reason: &str,
        parts: &mut Parts,
        types: &mut Types<'a>,
    ) -> Result<(), syn::Error> {
        let id = &self.id;
        parts
            .params
            .push(fn_arg(id, types.of(&self.p.ty.c, self.names)?)?);
        parts.args.push(local(id));
        self.arg_doc(parts, " (a raw pointer: see `# Safety`)");
        parts.safety.push(format!(
            "`{}` is a raw pointer because the generator could not prove the storage C accesses through it ({reason}): it must point to storage that large, valid for the call.",
            self.rn
        ));
        Ok(())
    }

    /// A string the function writes into a buffer whose size is parameter `len`: returned
    /// as a `CString` up to its NUL.
    fn out_string(self, len: usize, parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        parts.pre.push(fill!(
            syn::Stmt,
            {
                let mut __id = crate::error::string_buffer(__len)?;
            },
            __id = id.clone(),
            __len = self.count_of(len)
        )?);
        parts.args.push(fill!(
            syn::Expr,
            { __id.as_mut_ptr().cast() },
            __id = id.clone()
        )?);
        parts.outs.push((
            fill!(
                syn::Expr,
                { crate::error::string_until_nul(__id) },
                __id = id.clone()
            )?,
            fill!(syn::Type, { ::std::ffi::CString })?,
        ));
        self.ret_doc(
            parts,
            &format!(
                "`{}`, the string the function writes into a buffer of `{}` bytes, up to its NUL",
                self.rn,
                self.name_of(len)
            ),
        );
        Ok(())
    }

    /// The size of the buffer for the string output `of`: passed as is.
    fn string_capacity(
        self,
        of: usize,
        parts: &mut Parts,
        types: &mut Types<'a>,
    ) -> Result<(), syn::Error> {
        let id = &self.id;
        parts
            .params
            .push(fn_arg(id, types.of(&self.p.ty.c, self.names)?)?);
        parts.args.push(local(id));
        let lib = self.names.library();
        self.arg_doc(
            parts,
            &format!(
                " (the size in bytes of the buffer allocated for the returned `{}`; a negative size is `{}` without calling {})",
                self.name_of(of),
                lib.invalid_value(),
                lib.callee(),
            ),
        );
        Ok(())
    }

    /// A byte buffer whose length goes in parameter `size`: `&mut [u8]`.
    fn byte_buffer(self, size: usize, parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        parts
            .params
            .push(fn_arg(id, fill!(syn::Type, { &mut [u8] })?)?);
        parts.args.push(fill!(
            syn::Expr,
            { __id.as_mut_ptr().cast() },
            __id = id.clone()
        )?);
        self.arg_doc(
            parts,
            &format!(" (a buffer; its length goes in `{}`)", self.name_of(size)),
        );
        Ok(())
    }

    /// The size of byte buffer `of`, written back: starts as its length, returned.
    fn byte_buffer_size(self, of: usize, parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        let pt = self.needed()?;
        parts.pre.push(fill!(
            syn::Stmt,
            {
                let mut __id: __T = crate::error::shared_len(&[Some(__b.len())])?;
            },
            __id = id.clone(),
            __T = pt.clone(),
            __b = self.count_of(of)
        )?);
        parts.args.push(self.address()?);
        parts.outs.push((local(id), pt));
        self.ret_doc(
            parts,
            &format!(
                "`{}`, the number the function writes back (its input is the length of `{}`)",
                self.rn,
                self.name_of(of)
            ),
        );
        Ok(())
    }

    /// The element type of a list (`c_void` when the C type is no pointer).
    fn element(&self) -> Result<syn::Type, syn::Error> {
        match &self.pt {
            Some(t) => Ok(t.clone()),
            None => fill!(syn::Type, { c_void }),
        }
    }

    /// A list sized by a two-call count (parameter `count`): a `Vec` grown after the first
    /// call and returned.
    fn queried_list(
        self,
        count: usize,
        parts: &mut Parts,
        types: &mut Types<'a>,
    ) -> Result<(), syn::Error> {
        let elem = self.element()?;
        let id = self.id.clone();
        let cid = ident(&self.name_of(count));
        let cpt = types.pointee(&self.f.params[count].ty.c, self.names)?;
        parts.pre.push(fill!(
            syn::Stmt,
            {
                let mut __id: ::std::vec::Vec<__T> = ::std::vec::Vec::new();
            },
            __id = id.clone(),
            __T = elem.clone()
        )?);
        parts.args.push(fill!(
            syn::Expr,
            {
                if __id.is_empty() {
                    ::core::ptr::null_mut()
                } else {
                    __id.as_mut_ptr()
                }
            },
            __id = id.clone()
        )?);
        parts.outs.push((
            local(&id),
            fill!(syn::Type, { ::std::vec::Vec<__T> }, __T = elem)?,
        ));
        self.ret_doc(parts, &format!("`{}`, all the entries (the function is called once with NULL for the number, then with room for that many)", self.rn));
        match &mut parts.query {
            Some((_, _, lists)) => lists.push(id),
            None => parts.query = Some((cid, cpt, vec![id])),
        }
        Ok(())
    }

    /// A list whose length gives parameter `count`: a slice (`Option` of one when
    /// `optional`, `None` passing NULL).
    fn slice(
        self,
        mutable: bool,
        optional: bool,
        count: usize,
        parts: &mut Parts,
    ) -> Result<(), syn::Error> {
        let id = &self.id;
        let elem = self.element()?;
        let is_const = self.p.ty.c.is_const_pointer();
        let count_name = self.name_of(count);
        let slice_ty = if mutable {
            fill!(syn::Type, { &mut [__T] }, __T = elem)?
        } else {
            fill!(syn::Type, { &[__T] }, __T = elem)?
        };
        let ptr = if mutable {
            fill!(syn::Expr, { s.as_mut_ptr() })?
        } else if is_const {
            fill!(syn::Expr, { s.as_ptr() })?
        } else {
            fill!(syn::Expr, { s.as_ptr().cast_mut() })?
        };
        if optional {
            let null = if is_const {
                fill!(syn::Expr, { ::core::ptr::null() })?
            } else {
                fill!(syn::Expr, { ::core::ptr::null_mut() })?
            };
            parts.params.push(fn_arg(
                id,
                fill!(syn::Type, { Option<__T> }, __T = slice_ty)?,
            )?);
            parts.args.push(fill!(
                syn::Expr,
                { __id.map_or(__null, |s| __ptr) },
                __id = id.clone(),
                __null = null,
                __ptr = ptr
            )?);
            self.arg_doc(
                parts,
                &format!(" (optional list; its length gives `{count_name}`)"),
            );
        } else {
            parts.params.push(fn_arg(id, slice_ty)?);
            parts.args.push(fill!(
                syn::Expr,
                {
                    {
                        let s = __id;
                        __ptr
                    }
                },
                __id = id.clone(),
                __ptr = ptr
            )?);
            self.arg_doc(parts, &format!(" (list; its length gives `{count_name}`)"));
        }
        Ok(())
    }

    /// A count the call writes (a two-call count, or that of a borrowed list): a zeroed
    /// local, passed by address.
    fn written_count(self, parts: &mut Parts) -> Result<(), syn::Error> {
        parts.pre.push(self.zero_local(self.needed()?)?);
        parts.args.push(self.address()?);
        Ok(())
    }

    /// A count read and written back: starts as the shared length of the lists `of` (0 when
    /// `None`), returned.
    fn count_in_out(self, of: &[usize], parts: &mut Parts) -> Result<(), syn::Error> {
        let id = &self.id;
        let pt = self.needed()?;
        let lens = of
            .iter()
            .map(|&s| {
                fill!(
                    syn::Expr,
                    { __s.as_ref().map(|s| s.len()) },
                    __s = self.count_of(s)
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        parts.pre.push(fill!(
            syn::Stmt,
            {
                let mut __id: __T = crate::error::shared_len(&[__lens])?;
            },
            __id = id.clone(),
            __T = pt.clone(),
            __lens = lens
        )?);
        parts.args.push(self.address()?);
        parts.outs.push((local(id), pt));
        let list: Vec<String> = of
            .iter()
            .map(|&s| format!("`{}`", self.name_of(s)))
            .collect();
        let list = list.join(", ");
        self.ret_doc(
            parts,
            &format!(
                "`{}`, the number of entries (its input is the length of {list}, 0 when `None`)",
                self.rn
            ),
        );
        Ok(())
    }

    /// An array the function owns and points an output at, its length in parameter `count`:
    /// copied into a `Vec` after the call and returned.
    fn borrowed_list(
        self,
        count: usize,
        parts: &mut Parts,
        types: &mut Types<'a>,
    ) -> Result<(), syn::Error> {
        let id = &self.id;
        let inner = match pointee(&self.p.ty.c).and_then(pointee) {
            Some(t) => types.of(t, self.names)?,
            None => fill!(syn::Type, { c_void })?,
        };
        parts.pre.push(fill!(
            syn::Stmt,
            {
                let mut __id: *const __T = ::core::ptr::null();
            },
            __id = id.clone(),
            __T = inner.clone()
        )?);
        parts.args.push(self.address()?);
        let why = comment_stmt(
            "SAFETY: on success the function points this at an array of the returned number \
             of entries that it owns and keeps valid until the next call on the same object; \
             it is copied at once.",
        )?;
        let vec_ty = fill!(syn::Type, { ::std::vec::Vec<__T> }, __T = inner)?;
        parts.post.push(fill!(
            syn::Stmt,
            {
                let __id: __V = match usize::try_from(__cid) {
                    Ok(n) if n > 0 && !__id.is_null() => {
                        __why;
                        unsafe { ::core::slice::from_raw_parts(__id, n) }.to_vec()
                    }
                    _ => ::std::vec::Vec::new(),
                };
            },
            __id = id.clone(),
            __V = vec_ty.clone(),
            __cid = self.count_of(count),
            __why = vec![why]
        )?);
        parts.outs.push((local(id), vec_ty));
        self.ret_doc(parts, &format!("`{}`, copied from the array the function returns (empty when it returns NULL or no entries)", self.rn));
        Ok(())
    }

    /// The count of the lists `of`: not a parameter of the wrapper, computed from their
    /// shared length.
    fn count(
        self,
        of: &[usize],
        parts: &mut Parts,
        types: &mut Types<'a>,
    ) -> Result<(), syn::Error> {
        let lens = of
            .iter()
            .map(|&s| match &self.roles[s] {
                Role::Slice { optional: true, .. } => {
                    fill!(
                        syn::Expr,
                        { __s.as_ref().map(|s| s.len()) },
                        __s = self.count_of(s)
                    )
                }
                _ => fill!(syn::Expr, { Some(__s.len()) }, __s = self.count_of(s)),
            })
            .collect::<Result<Vec<_>, _>>()?;
        parts.pre.push(fill!(
            syn::Stmt,
            {
                let __id: __T = crate::error::shared_len(&[__lens])?;
            },
            __id = self.id.clone(),
            __T = types.of(&self.p.ty.c, self.names)?,
            __lens = lens
        )?);
        parts.args.push(local(&self.id));
        Ok(())
    }
}
