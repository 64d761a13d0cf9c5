//! Reads the items of a bindgen module into an [`Abi`] for one CUDA release: cudarc's
//! `runtime/sys/mod.rs` ([`read_abi`], `#[cfg(feature = "cuda-XXXXX")]`s evaluated for the
//! release) or bindgen's output for the headers themselves ([`read_bindgen_output`]).
//!
//! Each top-level item whose `#[cfg]`s hold becomes a function, record, enum, typedef or
//! constant; bindgen's compile-time layout tests (`const _: () = { ["Size of X"][…]; … };`)
//! give records their size, alignment and field offsets. An item of a kind the reader does
//! not model (a macro, a trait, a helper function that wraps no C function) is a diagnostic,
//! never a silent drop. Linking items to each other is done afterwards by [`super::link`].
//! This module knows bindgen's shapes, not CUDA's names.

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, Expr, Fields, Item, Lit, Meta, Pat, Type, UnOp, UseTree};

use super::cfg::CfgEval;
use super::ctype::{read_return, read_type, rust_text};
use super::{
    cudarc_feature, link, Abi, AbiType, Constant, Enum, EnumValue, Field, Function, Param, Record,
    RecordKind, Typedef, TypedefKind,
};
use crate::diag::Diagnostics;
use crate::ir::Release;

/// Reads `text` (the contents of `file`, cudarc's bindgen module) for `release`, whose
/// cudarc feature must be one the file mentions. Never fails: a file `syn` cannot parse gives
/// an empty model with an error diagnostic. [`Abi::origin`] names the file and the feature.
pub fn read_abi(text: &str, file: &str, release: &Release) -> Abi {
    let mut abi = read(text, file, release, true);
    abi.origin = format!("{file} (feature `{}`)", cudarc_feature(release));
    abi
}

/// Reads `text`, bindgen's output for one release's headers (no `#[cfg]`s expected), named
/// `file` in diagnostics. Never fails, like [`read_abi`]; [`Abi::origin`] is left for the caller.
pub fn read_bindgen_output(text: &str, file: &str, release: &Release) -> Abi {
    read(text, file, release, false)
}

fn read(text: &str, file: &str, release: &Release, cudarc: bool) -> Abi {
    let mut reader = Reader {
        abi: Abi {
            release: Some(release.clone()),
            file: file.to_string(),
            ..Abi::default()
        },
        cfg: CfgEval::for_release(release),
        diags: Diagnostics::new(file),
        impls: Vec::new(),
        layouts: Vec::new(),
        first_line: BTreeMap::new(),
    };
    match syn::parse_file(text) {
        Ok(parsed) => {
            for item in &parsed.items {
                reader.item(item);
            }
            let impls = std::mem::take(&mut reader.impls);
            for imp in &impls {
                reader.impl_consts(imp);
            }
            let layouts = std::mem::take(&mut reader.layouts);
            for (fact, at) in layouts {
                reader.apply_layout(fact, at);
            }
        }
        Err(e) => reader.diags.error(
            line(e.span()),
            format!("not a Rust file `syn` can parse: {e}"),
        ),
    }
    let Reader {
        mut abi,
        cfg,
        mut diags,
        ..
    } = reader;
    abi.known_features = cfg.seen_cuda.into_iter().collect();
    let feature = cudarc_feature(release);
    if cudarc && !abi.known_features.contains(&feature) {
        diags.error(
            1,
            format!(
                "the file never mentions feature `{feature}`: release {release} is not one it \
                 describes (it knows {})",
                abi.known_features.join(", ")
            ),
        );
    }
    link::link(&mut abi, &mut diags);
    abi.diagnostics = diags.into_vec();
    abi
}

struct Reader {
    abi: Abi,
    cfg: CfgEval,
    diags: Diagnostics,
    /// `impl` blocks, read after every enum is known.
    impls: Vec<syn::ItemImpl>,
    /// Facts of bindgen's layout tests with their lines, applied once every record is known.
    layouts: Vec<(LayoutFact, u32)>,
    /// Line of the first declaration of each name, to report duplicates.
    first_line: BTreeMap<String, u32>,
}

/// The 1-based line a span starts on.
fn line(span: Span) -> u32 {
    u32::try_from(span.start().line).unwrap_or(u32::MAX)
}

impl Reader {
    fn holds(&mut self, attrs: &[Attribute], at: u32) -> bool {
        self.cfg.attrs_hold(attrs, &mut self.diags, at)
    }

    /// Whether `name` is new; a second declaration for the same release is reported.
    fn first(&mut self, name: &str, at: u32) -> bool {
        if let Some(first) = self.first_line.get(name) {
            self.diags.warning(
                at,
                format!("`{name}` is declared again for this release (first at line {first}); kept the first"),
            );
            return false;
        }
        self.first_line.insert(name.to_string(), at);
        true
    }

    fn item(&mut self, item: &Item) {
        let at = line(item.span());
        match item {
            Item::Const(c) => {
                let at = line(c.ident.span());
                if self.holds(&c.attrs, at) {
                    if c.ident == "_" {
                        self.layout_test(c, at);
                    } else {
                        self.constant(c, at);
                    }
                }
            }
            Item::Enum(e) => {
                let at = line(e.ident.span());
                if self.holds(&e.attrs, at) {
                    self.enumeration(e, at);
                }
            }
            Item::Struct(s) => {
                let at = line(s.ident.span());
                if self.holds(&s.attrs, at) {
                    self.structure(s, at);
                }
            }
            Item::Union(u) => {
                let at = line(u.ident.span());
                if self.holds(&u.attrs, at) {
                    let name = u.ident.to_string();
                    let fields = self.fields(u.fields.named.iter());
                    self.record(name, RecordKind::Union, &u.attrs, fields, false, at);
                }
            }
            Item::Type(t) => {
                let at = line(t.ident.span());
                if self.holds(&t.attrs, at) {
                    if !t.generics.params.is_empty() {
                        self.diags
                            .error(at, format!("generic type alias `{}` skipped", t.ident));
                        return;
                    }
                    let ty = read_type(&t.ty, &mut self.diags, at);
                    self.typedef(t.ident.to_string(), ty, false, at);
                }
            }
            Item::Use(u) => {
                if self.holds(&u.attrs, at) {
                    self.use_item(u, at);
                }
            }
            Item::Fn(f) => {
                let at = line(f.sig.ident.span());
                if self.holds(&f.attrs, at) {
                    self.wrapper_fn(f, at);
                }
            }
            Item::ForeignMod(m) => {
                if self.holds(&m.attrs, at) {
                    self.foreign_mod(m);
                }
            }
            Item::Impl(i) => {
                if self.holds(&i.attrs, at) {
                    self.impls.push(i.clone());
                }
            }
            Item::ExternCrate(e) => {
                if self.holds(&e.attrs, at) {
                    self.diags.note(
                        at,
                        format!("`extern crate {}` ignored: not part of the C ABI", e.ident),
                    );
                }
            }
            other => {
                let attrs: &[Attribute] = match other {
                    Item::Macro(m) => &m.attrs,
                    Item::Mod(m) => &m.attrs,
                    Item::Static(s) => &s.attrs,
                    Item::Trait(t) => &t.attrs,
                    _ => &[],
                };
                if self.holds(attrs, at) {
                    let text = rust_text(other);
                    let short: String = text.chars().take(60).collect();
                    self.diags
                        .error(at, format!("item not understood, skipped: `{short}`"));
                }
            }
        }
    }

    fn constant(&mut self, c: &syn::ItemConst, at: u32) {
        let name = c.ident.to_string();
        let ty = read_type(&c.ty, &mut self.diags, at);
        match int_value(&c.expr) {
            Some(value) => {
                if self.first(&name, at) {
                    self.abi.constants.insert(
                        name.clone(),
                        Constant {
                            name,
                            ty,
                            value,
                            header: None,
                            line: at,
                        },
                    );
                }
            }
            None => self.diags.error(
                at,
                format!(
                    "constant `{name}` has a value that is not an integer literal: `{}`",
                    rust_text(&c.expr)
                ),
            ),
        }
    }

    fn enumeration(&mut self, e: &syn::ItemEnum, at: u32) {
        let name = e.ident.to_string();
        let repr = repr_args(&e.attrs)
            .into_iter()
            .find(|r| r != "C")
            .unwrap_or_else(|| {
                self.diags.warning(
                    at,
                    format!("enum `{name}` has no integer #[repr]; assumed u32"),
                );
                "u32".to_string()
            });
        let mut values = Vec::new();
        let mut next = 0i128;
        for v in &e.variants {
            let vat = line(v.ident.span());
            if !self.holds(&v.attrs, vat) {
                continue;
            }
            if !matches!(v.fields, Fields::Unit) {
                self.diags.error(
                    vat,
                    format!("enum variant `{}::{}` carries data; skipped", name, v.ident),
                );
                continue;
            }
            let value = match &v.discriminant {
                None => Some(next),
                Some((_, expr)) => int_value(expr),
            };
            match value {
                Some(value) => {
                    next = value + 1;
                    values.push(EnumValue {
                        name: v.ident.to_string(),
                        value,
                        alias_of: None,
                        line: vat,
                    });
                }
                None => self.diags.error(
                    vat,
                    format!(
                        "value of `{}::{}` is not an integer literal; skipped",
                        name, v.ident
                    ),
                ),
            }
        }
        if self.first(&name, at) {
            self.abi.enums.insert(
                name.clone(),
                Enum {
                    name,
                    repr,
                    newtype: false,
                    values,
                    aliases: Vec::new(),
                    header: None,
                    line: at,
                },
            );
        }
    }

    fn structure(&mut self, s: &syn::ItemStruct, at: u32) {
        let name = s.ident.to_string();
        match &s.fields {
            Fields::Named(named) => {
                let opaque = named.named.is_empty() || is_unused_marker(&named.named);
                let fields = if opaque {
                    Vec::new()
                } else {
                    self.fields(named.named.iter())
                };
                self.record(name, RecordKind::Struct, &s.attrs, fields, opaque, at);
            }
            Fields::Unit => self.record(name, RecordKind::Struct, &s.attrs, Vec::new(), true, at),
            Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                // bindgen's "newtype enum": `pub struct X(pub c_uint);` plus `impl X { consts }`.
                let repr = unnamed
                    .unnamed
                    .first()
                    .map(|f| rust_text(&f.ty))
                    .unwrap_or_default();
                if self.first(&name, at) {
                    self.abi.enums.insert(
                        name.clone(),
                        Enum {
                            name,
                            repr,
                            newtype: true,
                            values: Vec::new(),
                            aliases: Vec::new(),
                            header: None,
                            line: at,
                        },
                    );
                }
            }
            Fields::Unnamed(_) => self.diags.error(
                at,
                format!("tuple struct `{name}` with several fields not understood; skipped"),
            ),
        }
    }

    fn fields<'a>(&mut self, fields: impl Iterator<Item = &'a syn::Field>) -> Vec<Field> {
        let mut out = Vec::new();
        for f in fields {
            let at = line(f.span());
            if !self.holds(&f.attrs, at) {
                continue;
            }
            let name = f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
            let bitfield_unit = name.starts_with("_bitfield_");
            let ty = if bitfield_unit {
                self.diags.warning(
                    at,
                    format!("bitfield unit `{name}`: its C bitfields are not split"),
                );
                match bitfield_storage(&f.ty) {
                    Some(storage) => {
                        let mut t = read_type(storage, &mut self.diags, at);
                        t.rust = rust_text(&f.ty);
                        t
                    }
                    None => read_type(&f.ty, &mut self.diags, at),
                }
            } else {
                read_type(&f.ty, &mut self.diags, at)
            };
            out.push(Field {
                name,
                ty,
                bitfield_unit,
                offset: None,
                line: at,
            });
        }
        out
    }

    fn record(
        &mut self,
        name: String,
        kind: RecordKind,
        attrs: &[Attribute],
        fields: Vec<Field>,
        opaque: bool,
        at: u32,
    ) {
        let repr = repr_args(attrs);
        if !repr.iter().any(|r| r == "C") {
            self.diags.warning(
                at,
                format!("`{name}` is not #[repr(C)]; its layout is not C's"),
            );
        }
        if self.first(&name, at) {
            self.abi.records.insert(
                name.clone(),
                Record {
                    name,
                    kind,
                    repr,
                    fields,
                    opaque,
                    parent: None,
                    nested: Vec::new(),
                    aliases: Vec::new(),
                    size: None,
                    align: None,
                    header: None,
                    line: at,
                },
            );
        }
    }

    fn typedef(&mut self, name: String, ty: AbiType, via_use: bool, at: u32) {
        if self.first(&name, at) {
            // The kind is settled by `link` once every record is known.
            self.abi.typedefs.insert(
                name.clone(),
                Typedef {
                    name,
                    ty,
                    kind: TypedefKind::Alias,
                    via_use,
                    header: None,
                    line: at,
                },
            );
        }
    }

    fn use_item(&mut self, u: &syn::ItemUse, at: u32) {
        let public = matches!(u.vis, syn::Visibility::Public(_));
        match (&u.tree, public) {
            (UseTree::Path(p), true) if p.ident == "self" => match &*p.tree {
                UseTree::Rename(r) => {
                    let target = r.ident.to_string();
                    let ty = AbiType::new(target.clone(), super::CType::Named { name: target });
                    self.typedef(r.rename.to_string(), ty, true, at);
                }
                UseTree::Name(_) => {}
                other => self.diags.error(
                    at,
                    format!(
                        "`pub use self::{}` not understood; skipped",
                        rust_text(other)
                    ),
                ),
            },
            (_, true) => self.diags.error(
                at,
                format!("`pub use {}` not understood; skipped", rust_text(&u.tree)),
            ),
            (_, false) => self.diags.note(
                at,
                format!(
                    "`use {}` ignored: not part of the C ABI",
                    rust_text(&u.tree)
                ),
            ),
        }
    }

    fn wrapper_fn(&mut self, f: &syn::ItemFn, at: u32) {
        let name = f.sig.ident.to_string();
        let mut finder = FindForeign {
            name: &name,
            found: None,
        };
        finder.visit_block(&f.block);
        match finder.found {
            Some(sig) => self.function(&sig, at),
            None if f.sig.abi.is_some() => self.function(&f.sig, at),
            None => self.diags.note(
                at,
                format!(
                    "function `{name}` declares no C function (no `extern \"C\"` inside); skipped"
                ),
            ),
        }
    }

    fn foreign_mod(&mut self, m: &syn::ItemForeignMod) {
        for fi in &m.items {
            let at = line(fi.span());
            match fi {
                syn::ForeignItem::Fn(f) => {
                    if self.holds(&f.attrs, at) {
                        self.function(&f.sig, line(f.sig.ident.span()));
                    }
                }
                other => self.diags.error(
                    at,
                    format!(
                        "foreign item not understood, skipped: `{}`",
                        rust_text(other)
                    ),
                ),
            }
        }
    }

    fn function(&mut self, sig: &syn::Signature, at: u32) {
        let name = sig.ident.to_string();
        if sig.variadic.is_some() {
            self.diags.error(
                at,
                format!("`{name}` is variadic; the `...` part is not modelled"),
            );
        }
        let mut params = Vec::new();
        for (i, arg) in sig.inputs.iter().enumerate() {
            match arg {
                syn::FnArg::Typed(pt) => {
                    let pname = match &*pt.pat {
                        Pat::Ident(id) => id.ident.to_string(),
                        Pat::Wild(_) => format!("arg{}", i + 1),
                        other => {
                            self.diags.warning(
                                at,
                                format!(
                                    "parameter {} of `{name}` has pattern `{}`; named by position",
                                    i + 1,
                                    rust_text(other)
                                ),
                            );
                            format!("arg{}", i + 1)
                        }
                    };
                    params.push(Param {
                        name: pname,
                        ty: read_type(&pt.ty, &mut self.diags, at),
                    });
                }
                syn::FnArg::Receiver(_) => self
                    .diags
                    .error(at, format!("`{name}` takes `self`; not a C function")),
            }
        }
        let ret = read_return(&sig.output, &mut self.diags, at);
        if self.first(&name, at) {
            self.abi.functions.insert(
                name.clone(),
                Function {
                    name,
                    params,
                    ret,
                    header: None,
                    line: at,
                },
            );
        }
    }

    /// bindgen's compile-time layout test of one record:
    /// `const _: () = { ["Size of X"][size_of::<X>() - 24usize]; ["Alignment of X"][…];
    /// ["Offset of field: X::f"][… - 8usize]; };`. Each check becomes a [`LayoutFact`], applied by [`Reader::apply_layout`] once every record
    /// is read; a statement of another shape is reported.
    fn layout_test(&mut self, c: &syn::ItemConst, at: u32) {
        let Expr::Block(block) = &*c.expr else {
            self.diags.error(
                at,
                format!(
                    "`const _` that is not a layout-test block, skipped: `{}`",
                    rust_text(&c.expr)
                ),
            );
            return;
        };
        for stmt in &block.block.stmts {
            let sat = line(stmt.span());
            let fact = match stmt {
                syn::Stmt::Expr(Expr::Index(ix), _) => layout_fact(ix),
                _ => None,
            };
            match fact {
                Some(fact) => self.layouts.push((fact, sat)),
                None => {
                    let text: String = rust_text(stmt).chars().take(80).collect();
                    self.diags.error(
                        sat,
                        format!("layout-test statement not understood, skipped: `{text}`"),
                    );
                }
            }
        }
    }

    fn apply_layout(&mut self, fact: LayoutFact, at: u32) {
        let name = match &fact {
            LayoutFact::Size(n, _) | LayoutFact::Align(n, _) | LayoutFact::Offset(n, _, _) => {
                n.clone()
            }
        };
        let Some(record) = self.abi.records.get_mut(&name) else {
            self.diags.warning(
                at,
                format!("layout test of `{name}`, which is not a struct or union here; ignored"),
            );
            return;
        };
        match fact {
            LayoutFact::Size(_, v) => record.size = Some(v),
            LayoutFact::Align(_, v) => record.align = Some(v),
            LayoutFact::Offset(_, field, v) => {
                match record.fields.iter_mut().find(|f| f.name == field) {
                    Some(f) => f.offset = Some(v),
                    None => self.diags.warning(
                        at,
                        format!("layout test of `{name}::{field}`, a field `{name}` does not have; ignored"),
                    ),
                }
            }
        }
    }

    /// `impl X { pub const A: X = X::B; }` (enum aliases) and `pub const A: X = X(3);`
    /// (newtype enum values).
    fn impl_consts(&mut self, imp: &syn::ItemImpl) {
        let at = line(imp.span());
        let self_name = match &*imp.self_ty {
            Type::Path(p) if p.path.segments.len() == 1 => p.path.segments[0].ident.to_string(),
            other => {
                self.diags.error(
                    at,
                    format!("`impl {}` not understood; skipped", rust_text(other)),
                );
                return;
            }
        };
        if imp.trait_.is_some() {
            self.diags.note(
                at,
                format!("trait impl for `{self_name}` ignored: not part of the C ABI"),
            );
            return;
        }
        for ii in &imp.items {
            let iat = line(ii.span());
            let syn::ImplItem::Const(c) = ii else {
                self.diags.error(
                    iat,
                    format!("item in `impl {self_name}` not understood; skipped"),
                );
                continue;
            };
            if !self.holds(&c.attrs, iat) {
                continue;
            }
            let cname = c.ident.to_string();
            let Some(en) = self.abi.enums.get(&self_name) else {
                self.diags.error(iat, format!("`{self_name}::{cname}`: `{self_name}` is not an enum of this release; skipped"));
                continue;
            };
            let value = match &c.expr {
                Expr::Path(p)
                    if p.path.segments.len() == 2 && p.path.segments[0].ident == self_name =>
                {
                    let target = p.path.segments[1].ident.to_string();
                    en.value(&target).map(|v| (v, Some(target)))
                }
                Expr::Call(call) if call.args.len() == 1 => {
                    call.args.first().and_then(int_value).map(|v| (v, None))
                }
                other => int_value(other).map(|v| (v, None)),
            };
            match value {
                Some((value, alias_of)) => {
                    if let Some(en) = self.abi.enums.get_mut(&self_name) {
                        en.values.push(EnumValue {
                            name: cname,
                            value,
                            alias_of,
                            line: iat,
                        });
                    }
                }
                None => self.diags.error(
                    iat,
                    format!(
                        "value of `{self_name}::{cname}` not understood: `{}`; skipped",
                        rust_text(&c.expr)
                    ),
                ),
            }
        }
    }
}

/// One check of a bindgen layout test: record name (and field), bytes.
#[derive(Debug)]
enum LayoutFact {
    Size(String, u64),
    Align(String, u64),
    Offset(String, String, u64),
}

/// `["Size of X"][::core::mem::size_of::<X>() - 24usize]` → `Size("X", 24)`; likewise
/// `Alignment of X` and `Offset of field: X::f`. `None` for any other shape.
fn layout_fact(ix: &syn::ExprIndex) -> Option<LayoutFact> {
    let Expr::Array(label) = &*ix.expr else {
        return None;
    };
    let Some(Expr::Lit(syn::ExprLit {
        lit: Lit::Str(label),
        ..
    })) = label.elems.first()
    else {
        return None;
    };
    let Expr::Binary(bin) = &*ix.index else {
        return None;
    };
    if !matches!(bin.op, syn::BinOp::Sub(_)) {
        return None;
    }
    let value = u64::try_from(int_value(&bin.right)?).ok()?;
    let label = label.value();
    if let Some(name) = label.strip_prefix("Size of ") {
        Some(LayoutFact::Size(name.to_string(), value))
    } else if let Some(name) = label.strip_prefix("Alignment of ") {
        Some(LayoutFact::Align(name.to_string(), value))
    } else {
        let rest = label.strip_prefix("Offset of field: ")?;
        let (record, field) = rest.split_once("::")?;
        Some(LayoutFact::Offset(
            record.to_string(),
            field.to_string(),
            value,
        ))
    }
}

/// Finds the `extern "C" { fn NAME(...); }` declaration inside a wrapper's body.
struct FindForeign<'a> {
    name: &'a str,
    found: Option<syn::Signature>,
}

impl<'ast> Visit<'ast> for FindForeign<'_> {
    fn visit_foreign_item_fn(&mut self, f: &'ast syn::ForeignItemFn) {
        if self.found.is_none() && f.sig.ident == self.name {
            self.found = Some(f.sig.clone());
        }
    }
}

/// The arguments of `#[repr(...)]`, as text (`C`, `u32`, `align(8)`).
fn repr_args(attrs: &[Attribute]) -> Vec<String> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        if let Ok(list) = attr
            .parse_args_with(syn::punctuated::Punctuated::<Meta, syn::Token![,]>::parse_terminated)
        {
            out.extend(list.iter().map(rust_text));
        }
    }
    out
}

/// bindgen's marker for a struct C declares without a body: one `_unused: [u8; 0]` field.
fn is_unused_marker(fields: &syn::punctuated::Punctuated<syn::Field, syn::Token![,]>) -> bool {
    fields.len() == 1
        && fields.iter().all(|f| {
            f.ident.as_ref().is_some_and(|i| i == "_unused")
                && matches!(&f.ty, Type::Array(a) if int_value(&a.len) == Some(0))
        })
}

/// The storage array of `__BindgenBitfieldUnit<[u8; N]>`.
fn bitfield_storage(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

/// An integer literal, possibly negated or parenthesised (`3`, `-1`, `0x10`, `256usize`).
fn int_value(expr: &Expr) -> Option<i128> {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => int_value(&u.expr).map(|v| -v),
        Expr::Paren(p) => int_value(&p.expr),
        Expr::Group(g) => int_value(&g.expr),
        _ => None,
    }
}
