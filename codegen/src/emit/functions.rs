//! One raw `unsafe` function per bound C function. Each resolves its symbol lazily through
//! the crate's loader (cached after the first call; the crate's `dynamic_call!` macro) and
//! returns the C result, or the loader's error when the library or the symbol is missing —
//! never a panic.

use proc_macro2::Literal;
use quote::quote;

use super::docs::{self, DocProblems};
use super::names::{ident, Names, TypeCache};
use crate::bind::{BoundFunction, Typed};
use crate::ir::Direction;
use crate::rustdoc::Links;

/// The `functions.rs` items.
///
/// Every raw function has the same shape, so each is a clone of one parsed template with its
/// name, documentation, parameters and result put in, and each distinct parameter type is
/// parsed once: syn parsing every function back from tokens was most of this file's cost.
/// prettyplease prints the same text either way.
pub fn emit(
    functions: &[BoundFunction],
    names: &Names,
    problems: &mut DocProblems,
) -> Result<Vec<syn::Item>, syn::Error> {
    let template: syn::ItemFn = syn::parse2(quote! {
        #[inline]
        pub unsafe fn name() -> crate::Result<()> {
            dynamic_call!(c"", 0, fn() -> ())
        }
    })?;
    let mut types = TypeCache::default();
    functions
        .iter()
        .map(|f| function(f, names, problems, &template, &mut types).map(syn::Item::Fn))
        .collect()
}

/// `text` up to its first blank line (leading blank lines skipped).
fn first_paragraph(text: &str) -> &str {
    let mut started = false;
    let mut end = text.len();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            if started {
                end = at;
                break;
            }
        } else {
            started = true;
        }
        at += line.len();
    }
    &text[..end]
}

/// The rustdoc of a raw function. One with a typed wrapper gets the documentation's first
/// paragraph and a link to the wrapper, which carries NVIDIA's full text (one copy of the
/// prose per crate: it is most of what the compiler reads); the others get it all:
/// description, arguments, errors, see also. Every one ends with its safety section.
pub fn raw_docs(f: &BoundFunction, names: &Names, problems: &mut DocProblems) -> String {
    if let (true, Typed::Wrapper { rust_name, .. }) = (f.documented, &f.typed) {
        // Only the first paragraph is shown here (the wrapper converts and checks the whole
        // text): convert just that, up to the first blank line.
        let md = docs::markdown(first_paragraph(&f.doc), names, &f.name, problems);
        let summary = md.split("\n\n").next().unwrap_or("").trim();
        let mut short = if summary.is_empty() {
            format!("The C function `{}`.", f.name)
        } else {
            summary.to_string()
        };
        short.push_str(&format!(
            "\n\nThe raw call: NVIDIA's documentation of it (arguments, results, see also) is \
             on the typed wrapper [`api::{rust_name}`](crate::api::{rust_name}). This returns \
             the C status as it is; `Err` only when the {} or this function cannot be loaded.",
            names.library().what()
        ));
        if f.symbol != f.name {
            short.push_str(&format!(
                "\n\nThe release's header renames it: this binding calls the library's `{}`.",
                f.symbol
            ));
        }
        let mut short = docs::with_since(&short, f.since.as_ref());
        short.push_str(SAFETY);
        return short;
    }
    let mut md = docs::markdown(&f.doc, names, &f.name, problems);
    if !f.documented {
        md = format!(
            "The C function `{}`: the documents these bindings were generated from do not \
             document it; its declaration comes from the ABI (the release's headers).",
            f.name
        );
    } else if md.trim().is_empty() {
        md = format!("The C function `{}`.", f.name);
    }
    let mut args = Vec::new();
    for p in &f.params {
        let role = match p.direction {
            Some(Direction::Out) => " (output)",
            Some(Direction::In | Direction::Unstated) | None => "",
        };
        let doc = if p.doc.trim().is_empty() {
            match &p.doc_name {
                Some(_) => String::new(),
                None if !f.documented => String::new(),
                None => "not described by the documentation".to_string(),
            }
        } else {
            docs::markdown(
                &p.doc.split_whitespace().collect::<Vec<_>>().join(" "),
                names,
                &format!("{}({})", f.name, p.c_name),
                problems,
            )
        };
        let sep = if doc.is_empty() { "" } else { " — " };
        args.push(format!(
            "- `{}`: `{}`{role}{sep}{doc}",
            p.c_name, p.ty.c_text
        ));
    }
    if !args.is_empty() {
        md.push_str("\n\n# Arguments\n\n");
        md.push_str(&args.join("\n"));
    }
    if !f.errors.is_empty() {
        let errs: Vec<String> = f
            .errors
            .iter()
            .map(|e| match names.resolve(e) {
                Some(p) => format!("[`{e}`]({p})"),
                None => format!("`{e}`"),
            })
            .collect();
        md.push_str("\n\n# Errors\n\nThe documentation lists these results: ");
        md.push_str(&errs.join(", "));
        md.push_str(&format!(
            ". `Err` is returned only when the {} or this function cannot be loaded.",
            names.library().what()
        ));
    }
    if f.symbol != f.name {
        md.push_str(&format!(
            "\n\nThe release's header renames it: this binding calls the library's `{}`, the \
             function C code compiled against that header calls.",
            f.symbol
        ));
    }
    let see = docs::see_also(&f.see_also, names);
    if !see.is_empty() {
        md.push_str("\n\n");
        md.push_str(&see);
    }
    let mut md = docs::with_since(&md, f.since.as_ref());
    md.push_str(SAFETY);
    md
}

/// The safety section every raw function ends with.
const SAFETY: &str = "\n\n# Safety\n\nA direct call of the C function: every pointer argument must be valid for what the CUDA documentation says the function does with it.";

fn function<'a>(
    f: &'a BoundFunction,
    names: &Names,
    problems: &mut DocProblems,
    template: &syn::ItemFn,
    types: &mut TypeCache<'a>,
) -> Result<syn::ItemFn, syn::Error> {
    let mut item = template.clone();
    item.attrs
        .splice(0..0, docs::attr_syntax(&raw_docs(f, names, problems)));
    item.sig.ident = ident(&f.name);
    let mut params = Vec::new();
    for p in &f.params {
        let id = ident(&p.c_name);
        let (tokens, ty) = types.get(&p.ty.c, names)?;
        params.push(quote! { #id: #tokens });
        item.sig.inputs.push(syn::FnArg::Typed(syn::PatType {
            attrs: Vec::new(),
            pat: Box::new(syn::Pat::Ident(syn::PatIdent {
                attrs: Vec::new(),
                by_ref: None,
                mutability: None,
                ident: id,
                subpat: None,
            })),
            colon_token: Default::default(),
            ty: Box::new(ty.clone()),
        }));
    }
    let (ret, ret_ty) = types.get(&f.ret.c, names)?;
    // `crate::Result<()>` of the template: its one type argument becomes the C result.
    if let syn::ReturnType::Type(_, ty) = &mut item.sig.output {
        if let syn::Type::Path(path) = &mut **ty {
            if let Some(syn::PathArguments::AngleBracketed(args)) =
                path.path.segments.last_mut().map(|s| &mut s.arguments)
            {
                if let Some(syn::GenericArgument::Type(arg)) = args.args.first_mut() {
                    *arg = ret_ty.clone();
                }
            }
        }
    }
    let symbol = Literal::c_string(&std::ffi::CString::new(f.symbol.as_str()).unwrap_or_default());
    let since = Literal::i32_unsuffixed(f.since.as_ref().map_or(0, |s| s.runtime_version()));
    let call = quote! { #symbol, #since, fn(#(#params),*) -> #ret };
    match item.block.stmts.first_mut() {
        Some(syn::Stmt::Macro(m)) => m.mac.tokens = call,
        Some(syn::Stmt::Expr(syn::Expr::Macro(m), _)) => m.mac.tokens = call,
        _ => {}
    }
    Ok(item)
}
