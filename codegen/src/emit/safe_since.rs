//! Since-marks of the safe layer: a public function or method of a template file that calls
//! C functions newer than the major's first release gets, as the first line of its docs,
//! the newest of their marks (`Available since CUDA 13.1 (calls `cudaX`).`), as the raw and
//! typed functions do. The marks come from the calls, never from a hand list: [`mark`] reads
//! the template's source (syn, with line numbers), finds in each function's body the paths
//! that name a C function (`sys::cudaX`, `crate::sys::cudaX`) and the typed wrappers
//! (`api::x`), follows calls to the file's own functions and methods by name (a helper that
//! calls a newer function passes its mark on), and inserts the line above the function's
//! attributes. A file that does not parse is returned as it is (its crate's build says why).
//! It does not mark types or trait methods, and it never edits the template itself.

use std::collections::{BTreeMap, BTreeSet};

use syn::visit::Visit;

use crate::availability::Since;

/// What [`mark`] looks functions up in: the C name → its mark, and the typed wrapper's name
/// (`stream_get_device`) → the C name.
pub struct Marks<'a> {
    pub by_c_name: &'a BTreeMap<String, Since>,
    pub by_wrapper: &'a BTreeMap<String, String>,
}

impl Marks<'_> {
    /// The mark of a C function newer than the major's first release.
    fn newer(&self, c_name: &str) -> Option<&Since> {
        self.by_c_name.get(c_name).filter(|s| s.is_newer())
    }
}

/// One function of the file.
struct Func {
    name: String,
    public: bool,
    /// The first line of the function, its attributes included (1-based).
    first_line: usize,
    /// The newer C functions its body names directly.
    calls: BTreeSet<String>,
    /// The names of the functions and methods it calls.
    local: BTreeSet<String>,
    /// Whether its docs start with a mark already.
    marked: bool,
}

/// The body's calls: C names (under `sys::` or `api::`) and local callees.
struct Calls<'m, 'a> {
    marks: &'m Marks<'a>,
    c: BTreeSet<String>,
    local: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Calls<'_, '_> {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(last) = segs.last() {
            let under = |m: &str| segs.len() >= 2 && segs[segs.len() - 2] == m;
            if under("sys") && self.marks.newer(last).is_some() {
                self.c.insert(last.clone());
            } else if under("api") {
                if let Some(c) = self.marks.by_wrapper.get(last) {
                    if self.marks.newer(c).is_some() {
                        self.c.insert(c.clone());
                    }
                }
            } else if segs.len() == 1 || (segs.len() == 2 && segs[0] == "Self") {
                self.local.insert(last.clone());
            }
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.local.insert(m.method.to_string());
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // Macro bodies are tokens: read the paths in them as expressions where they parse.
        let args = m.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        );
        if let Ok(args) = args {
            for e in &args {
                self.visit_expr(e);
            }
        }
        syn::visit::visit_macro(self, m);
    }
}

fn first_line(attrs: &[syn::Attribute], fallback: proc_macro2::Span) -> usize {
    use syn::spanned::Spanned;
    attrs
        .iter()
        .map(|a| a.span().start().line)
        .chain(std::iter::once(fallback.start().line))
        .min()
        .unwrap_or(1)
}

fn starts_marked(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .find_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim_start().starts_with("Available since CUDA")),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or(false)
}

fn func(
    marks: &Marks<'_>,
    name: &syn::Ident,
    public: bool,
    attrs: &[syn::Attribute],
    span: proc_macro2::Span,
    block: &syn::Block,
) -> Func {
    let mut calls = Calls {
        marks,
        c: BTreeSet::new(),
        local: BTreeSet::new(),
    };
    calls.visit_block(block);
    Func {
        name: name.to_string(),
        public,
        first_line: first_line(attrs, span),
        calls: calls.c,
        local: calls.local,
        marked: starts_marked(attrs),
    }
}

/// Every function of `items`, with impls' methods and inline modules' items.
fn collect(marks: &Marks<'_>, items: &[syn::Item], out: &mut Vec<Func>) {
    use syn::spanned::Spanned;
    for item in items {
        match item {
            syn::Item::Fn(f) => out.push(func(
                marks,
                &f.sig.ident,
                matches!(f.vis, syn::Visibility::Public(_)),
                &f.attrs,
                f.sig.span(),
                &f.block,
            )),
            syn::Item::Impl(i) => {
                // Trait methods are documented by their trait.
                let inherent = i.trait_.is_none();
                for ii in &i.items {
                    if let syn::ImplItem::Fn(f) = ii {
                        out.push(func(
                            marks,
                            &f.sig.ident,
                            inherent && matches!(f.vis, syn::Visibility::Public(_)),
                            &f.attrs,
                            f.sig.span(),
                            &f.block,
                        ));
                    }
                }
            }
            syn::Item::Mod(m) => {
                // Tests are no part of the documented layer.
                let is_test = m.ident == "tests";
                if let (Some((_, inner)), false) = (&m.content, is_test) {
                    collect(marks, inner, out);
                }
            }
            _ => {}
        }
    }
}

/// The newer C functions each function reaches: its own calls and those of the file's
/// functions it calls, by name (to a fixed point; linear passes over a small file).
fn reach(funcs: &[Func]) -> Vec<BTreeSet<String>> {
    let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, f) in funcs.iter().enumerate() {
        by_name.entry(f.name.as_str()).or_default().push(i);
    }
    let mut reached: Vec<BTreeSet<String>> = funcs.iter().map(|f| f.calls.clone()).collect();
    loop {
        let mut changed = false;
        for (i, f) in funcs.iter().enumerate() {
            for callee in &f.local {
                for &j in by_name.get(callee.as_str()).into_iter().flatten() {
                    if j == i {
                        continue;
                    }
                    let add: Vec<String> = reached[j].difference(&reached[i]).cloned().collect();
                    if !add.is_empty() {
                        reached[i].extend(add);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return reached;
        }
    }
}

/// The mark line of a function that reaches the newer C functions `calls`: the newest
/// release among them, and the functions of that release.
pub fn sentence(marks: &Marks<'_>, calls: &BTreeSet<String>) -> Option<String> {
    let newest = calls
        .iter()
        .filter_map(|c| marks.newer(c))
        .max_by(|a, b| release_key(&a.release).cmp(&release_key(&b.release)))?;
    let names: Vec<String> = calls
        .iter()
        .filter(|c| marks.newer(c).is_some_and(|s| s.release == newest.release))
        .map(|c| format!("`{c}`"))
        .collect();
    Some(format!(
        "Available since CUDA {} (calls {}).",
        newest.release,
        names.join(", ")
    ))
}

fn release_key(r: &str) -> Vec<u32> {
    r.split('.').filter_map(|p| p.parse().ok()).collect()
}

/// The public functions of `text` that reach a newer C function: `(name, first line, mark,
/// whether its docs start with a mark already)`; `None` when `text` does not parse.
pub fn needed(text: &str, marks: &Marks<'_>) -> Option<Vec<(String, usize, String, bool)>> {
    let file = syn::parse_file(text).ok()?;
    let mut funcs = Vec::new();
    collect(marks, &file.items, &mut funcs);
    let reached = reach(&funcs);
    Some(
        funcs
            .iter()
            .zip(&reached)
            .filter(|(f, _)| f.public)
            .filter_map(|(f, r)| {
                sentence(marks, r).map(|s| (f.name.clone(), f.first_line, s, f.marked))
            })
            .collect(),
    )
}

/// `text` with the marks inserted (see the module comment).
pub fn mark(text: &str, marks: &Marks<'_>) -> String {
    let Some(mut needed) = needed(text, marks) else {
        return text.to_string();
    };
    needed.retain(|n| !n.3);
    if needed.is_empty() {
        return text.to_string();
    }
    let at: BTreeMap<usize, &str> = needed.iter().map(|n| (n.1, n.2.as_str())).collect();
    let mut out = String::with_capacity(text.len() + 80 * at.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if let Some(mark) = at.get(&(i + 1)) {
            let indent = &line[..line.len() - line.trim_start().len()];
            out.push_str(&format!("{indent}/// {mark}\n{indent}///\n"));
        }
        out.push_str(line);
    }
    out
}
