//! Syntax trees from parsed templates, for generated code whose pieces vary but whose shapes
//! repeat (the typed layer's statements, arguments and signatures).
//!
//! A template is a `quote!` snippet with placeholders: identifiers that start with `__`
//! (`__id`, `__T`, `__args`). [`make`] parses it once per thread (the first time that snippet
//! is asked for), then hands out clones with the placeholders filled in: an identifier, a
//! type, an expression, a list of expressions (the arguments of a call or the elements of an
//! array, where the placeholder is one of them) or a list of statements (where the
//! placeholder is a statement `__x;` of a block). Cloning and filling a small tree costs a
//! fraction of parsing its tokens, which is most of what building these items with `quote!`
//! and parsing them back with syn cost; prettyplease prints the same text either way.
//! Use it through the [`fill!`] macro.

use foldhash::HashMap;
use std::any::{Any, TypeId};
use std::cell::RefCell;

use proc_macro2::{Ident, TokenStream};
use syn::punctuated::Punctuated;
use syn::visit_mut::{self, VisitMut};

/// What a placeholder is replaced with.
#[derive(Clone)]
pub enum Fill {
    Ident(Ident),
    Type(syn::Type),
    Expr(syn::Expr),
    /// Spliced in place of the placeholder among a call's arguments or an array's elements.
    Exprs(Vec<syn::Expr>),
    /// Spliced in place of the placeholder statement `__x;` in a block.
    Stmts(Vec<syn::Stmt>),
}

impl From<Ident> for Fill {
    fn from(i: Ident) -> Fill {
        Fill::Ident(i)
    }
}

impl From<syn::Type> for Fill {
    fn from(t: syn::Type) -> Fill {
        Fill::Type(t)
    }
}

impl From<syn::Expr> for Fill {
    fn from(e: syn::Expr) -> Fill {
        Fill::Expr(e)
    }
}

impl From<Vec<syn::Expr>> for Fill {
    fn from(e: Vec<syn::Expr>) -> Fill {
        Fill::Exprs(e)
    }
}

impl From<Vec<syn::Stmt>> for Fill {
    fn from(s: Vec<syn::Stmt>) -> Fill {
        Fill::Stmts(s)
    }
}

/// A parsed template and how many times each placeholder occurs in it.
struct Template<T> {
    tree: T,
    /// Placeholder name → occurrences (identifier tokens of the template).
    uses: Vec<(String, usize)>,
}

thread_local! {
    /// Parsed templates of this thread, by the type of the closure that writes them (each
    /// closure literal has a type of its own). Syntax trees hold spans that must stay on the
    /// thread that made them, so each thread parses its own.
    static TEMPLATES: RefCell<HashMap<TypeId, Box<dyn Any>>> = RefCell::new(HashMap::default());
}

/// The placeholders of `tokens` (identifiers starting with `__`) with their occurrences.
fn placeholder_uses(tokens: &TokenStream, uses: &mut Vec<(String, usize)>) {
    for t in tokens.clone() {
        match t {
            proc_macro2::TokenTree::Ident(i) => {
                let name = i.to_string();
                if name.starts_with("__") {
                    match uses.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, k)) => *k += 1,
                        None => uses.push((name, 1)),
                    }
                }
            }
            proc_macro2::TokenTree::Group(g) => placeholder_uses(&g.stream(), uses),
            _ => {}
        }
    }
}

/// The template `tokens` writes, parsed as a `T` (once per thread), with `fills` put in.
/// Prefer the [`fill!`] macro, which names the placeholders.
///
/// A fill is moved into the tree where its placeholder occurs once, and cloned only for the
/// occurrences before the last where it occurs several times.
pub fn make<T, F>(tokens: F, fills: Vec<(&str, Fill)>) -> Result<T, syn::Error>
where
    T: syn::parse::Parse + Clone + Any + Fillable,
    F: Fn() -> TokenStream + 'static,
{
    let key = TypeId::of::<F>();
    let cached = TEMPLATES.with(|t| {
        t.borrow()
            .get(&key)
            .and_then(|b| b.downcast_ref::<Template<T>>())
            .map(|t| {
                (
                    t.tree.clone(),
                    fills
                        .iter()
                        .map(|(n, _)| uses_of(&t.uses, n))
                        .collect::<Vec<usize>>(),
                )
            })
    });
    let (mut tree, uses) = match cached {
        Some(cached) => cached,
        None => {
            let tokens = tokens();
            let mut uses = Vec::new();
            placeholder_uses(&tokens, &mut uses);
            let tree: T = syn::parse2(tokens)?;
            let counts = fills.iter().map(|(n, _)| uses_of(&uses, n)).collect();
            let template = Template {
                tree: tree.clone(),
                uses,
            };
            TEMPLATES.with(|t| t.borrow_mut().insert(key, Box::new(template)));
            (tree, counts)
        }
    };
    if !fills.is_empty() {
        let slots = fills
            .into_iter()
            .zip(uses)
            .filter(|((name, _), _)| name.starts_with("__"))
            .map(|((name, fill), left)| Slot {
                name,
                fill: Some(fill),
                left,
            })
            .collect();
        tree.fill_with(&mut Filler { slots });
    }
    Ok(tree)
}

/// How many times the placeholder `name` occurs, from a template's counts.
fn uses_of(uses: &[(String, usize)], name: &str) -> usize {
    uses.iter().find(|(n, _)| n == name).map_or(0, |(_, k)| *k)
}

/// A syntax tree [`make`] can fill: the node types templates are parsed as.
pub trait Fillable {
    fn fill_with(&mut self, f: &mut Filler<'_>);
}

macro_rules! fillable {
    ($($ty:ty => $visit:ident),* $(,)?) => {
        $(impl Fillable for $ty {
            fn fill_with(&mut self, f: &mut Filler<'_>) {
                f.$visit(self);
            }
        })*
    };
}

fillable! {
    syn::Expr => visit_expr_mut,
    syn::Stmt => visit_stmt_mut,
    syn::Type => visit_type_mut,
    syn::FnArg => visit_fn_arg_mut,
    syn::ItemFn => visit_item_fn_mut,
    syn::Block => visit_block_mut,
    syn::ItemConst => visit_item_const_mut,
    syn::ItemStruct => visit_item_struct_mut,
    syn::ItemImpl => visit_item_impl_mut,
    syn::ItemType => visit_item_type_mut,
    syn::ItemUnion => visit_item_union_mut,
}

/// One fill of a [`Filler`]: its placeholder, the fill (taken at the placeholder's last
/// occurrence), and the occurrences not yet filled.
struct Slot<'a> {
    name: &'a str,
    fill: Option<Fill>,
    left: usize,
}

/// Puts the fills in place of their placeholders (see [`make`]).
pub struct Filler<'a> {
    slots: Vec<Slot<'a>>,
}

impl Filler<'_> {
    /// The fill for the identifier `id`, if it is a placeholder.
    fn get(&self, id: &Ident) -> Option<&Fill> {
        self.slots
            .iter()
            .find(|s| *id == s.name)
            .and_then(|s| s.fill.as_ref())
    }

    /// The fill for `id` to put in its place: moved out at the placeholder's last occurrence,
    /// a clone before.
    fn take(&mut self, id: &Ident) -> Option<Fill> {
        let slot = self.slots.iter_mut().find(|s| *id == s.name)?;
        if slot.left > 1 {
            slot.left -= 1;
            slot.fill.clone()
        } else {
            slot.left = 0;
            slot.fill.take()
        }
    }

    /// The placeholder a bare single-identifier path names, if it is one.
    fn placeholder<'p>(&self, path: &'p syn::Path) -> Option<&'p Ident> {
        let seg = match (path.leading_colon, path.segments.len()) {
            (None, 1) => path.segments.first()?,
            _ => return None,
        };
        match seg.arguments {
            syn::PathArguments::None if self.get(&seg.ident).is_some() => Some(&seg.ident),
            _ => None,
        }
    }

    /// The placeholder of an expression list fill that the element `e` names.
    fn exprs_for(&self, e: &syn::Expr) -> Option<Ident> {
        let syn::Expr::Path(p) = e else { return None };
        if p.qself.is_some() {
            return None;
        }
        let id = self.placeholder(&p.path)?;
        match self.get(id) {
            Some(Fill::Exprs(_)) => Some(id.clone()),
            _ => None,
        }
    }

    /// `list` with each placeholder element replaced by its expressions; the other elements
    /// are filled in turn (what a fill brings in is never searched for placeholders).
    fn splice<P: Default>(&mut self, list: &mut Punctuated<syn::Expr, P>) {
        let old = std::mem::take(list);
        for mut e in old {
            match self.exprs_for(&e).and_then(|id| self.take(&id)) {
                Some(Fill::Exprs(fill)) => list.extend(fill),
                _ => {
                    self.visit_expr_mut(&mut e);
                    list.push(e);
                }
            }
        }
    }
}

impl VisitMut for Filler<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Path(p) = e {
            if p.qself.is_none() {
                let id = self
                    .placeholder(&p.path)
                    .filter(|id| matches!(self.get(id), Some(Fill::Expr(_) | Fill::Ident(_))))
                    .cloned();
                match id.and_then(|id| self.take(&id)) {
                    Some(Fill::Expr(x)) => {
                        *e = x;
                        return;
                    }
                    Some(Fill::Ident(i)) => {
                        *e = syn::Expr::Path(syn::ExprPath {
                            attrs: Vec::new(),
                            qself: None,
                            path: syn::Path::from(i),
                        });
                        return;
                    }
                    _ => {}
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if let syn::Type::Path(p) = t {
            if p.qself.is_none() {
                let id = self
                    .placeholder(&p.path)
                    .filter(|id| matches!(self.get(id), Some(Fill::Type(_))))
                    .cloned();
                if let Some(Fill::Type(x)) = id.and_then(|id| self.take(&id)) {
                    *t = x;
                    return;
                }
            }
        }
        visit_mut::visit_type_mut(self, t);
    }

    fn visit_ident_mut(&mut self, i: &mut Ident) {
        if matches!(self.get(i), Some(Fill::Ident(_))) {
            if let Some(Fill::Ident(x)) = self.take(&i.clone()) {
                *i = x;
            }
        }
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let old = std::mem::take(&mut b.stmts);
        for mut s in old {
            let id = match &s {
                syn::Stmt::Expr(syn::Expr::Path(p), Some(_)) if p.qself.is_none() => self
                    .placeholder(&p.path)
                    .filter(|id| matches!(self.get(id), Some(Fill::Stmts(_))))
                    .cloned(),
                _ => None,
            };
            match id.and_then(|id| self.take(&id)) {
                Some(Fill::Stmts(list)) => b.stmts.extend(list),
                _ => {
                    self.visit_stmt_mut(&mut s);
                    b.stmts.push(s);
                }
            }
        }
    }

    fn visit_expr_call_mut(&mut self, c: &mut syn::ExprCall) {
        self.visit_expr_mut(&mut c.func);
        self.splice(&mut c.args);
    }

    fn visit_expr_method_call_mut(&mut self, c: &mut syn::ExprMethodCall) {
        self.visit_expr_mut(&mut c.receiver);
        self.visit_ident_mut(&mut c.method);
        if let Some(t) = &mut c.turbofish {
            self.visit_angle_bracketed_generic_arguments_mut(t);
        }
        self.splice(&mut c.args);
    }

    fn visit_expr_array_mut(&mut self, a: &mut syn::ExprArray) {
        self.splice(&mut a.elems);
    }
}

/// A syntax tree of type `$ty` from a template, its placeholders filled:
/// `fill!(syn::Stmt, { let mut __id: __T = 0; }, __id = id, __T = ty)`. The template is
/// parsed once per thread; each fill is anything [`Fill`] converts from.
macro_rules! fill {
    ($ty:ty, { $($t:tt)* } $(, $name:ident = $value:expr)* $(,)?) => {
        $crate::emit::fill::make::<$ty, _>(
            || ::quote::quote! { $($t)* },
            ::std::vec![$((stringify!($name), $crate::emit::fill::Fill::from($value))),*],
        )
    };
}
pub(crate) use fill;

#[cfg(test)]
mod tests {
    use quote::{format_ident, quote, ToTokens};

    fn text(t: impl ToTokens) -> String {
        t.to_token_stream().to_string()
    }

    #[test]
    fn placeholders_are_filled_and_the_template_is_reused() {
        for n in ["a", "b"] {
            let id = format_ident!("{n}");
            let ty: syn::Type = syn::parse2(quote! { *mut c_int }).unwrap();
            let stmt = super::fill!(
                syn::Stmt,
                {
                    let mut __id: __T = 0;
                },
                __id = id,
                __T = ty
            )
            .unwrap();
            assert_eq!(text(stmt), format!("let mut {n} : * mut c_int = 0 ;"));
        }
    }

    #[test]
    fn lists_are_spliced_into_calls_arrays_and_blocks() {
        let args: Vec<syn::Expr> = vec![
            syn::parse2(quote! { x }).unwrap(),
            syn::parse2(quote! { &mut y }).unwrap(),
        ];
        let stmts: Vec<syn::Stmt> = vec![
            syn::parse2(quote! { a(); }).unwrap(),
            syn::parse2(quote! { b(); }).unwrap(),
        ];
        let e = super::fill!(
            syn::Expr,
            {
                {
                    f(__args);
                    g(1, __args, 2);
                    [__args];
                    __body;
                }
            },
            __args = args,
            __body = stmts,
        )
        .unwrap();
        assert_eq!(
            text(e),
            "{ f (x , & mut y) ; g (1 , x , & mut y , 2) ; [x , & mut y] ; a () ; b () ; }"
        );
    }

    #[test]
    fn a_fill_used_several_times_is_put_at_each_place() {
        let id = format_ident!("n");
        let ty: syn::Type = syn::parse2(quote! { u32 }).unwrap();
        let value: syn::Expr = syn::parse2(quote! { f(1) }).unwrap();
        let block = super::fill!(
            syn::Block,
            {
                {
                    let __id: __T = __v;
                    let m: __T = __v + __id;
                    __id.g(__v, __id);
                }
            },
            __id = id,
            __T = ty,
            __v = value,
        )
        .unwrap();
        assert_eq!(
            text(block),
            "{ let n : u32 = f (1) ; let m : u32 = f (1) + n ; n . g (f (1) , n) ; }"
        );
    }

    #[test]
    fn names_that_are_not_placeholders_are_kept() {
        let id = format_ident!("z");
        let e = super::fill!(syn::Expr, { __x + x + crate::__x::y }, __x = id).unwrap();
        assert_eq!(text(e), "z + x + crate :: z :: y");
    }
}
