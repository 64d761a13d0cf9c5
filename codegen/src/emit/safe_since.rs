//! Since-marks of the safe layer: a public function or method of a template file that calls
//! C functions newer than the major's first release gets, as the first line of its docs,
//! the newest of their marks (`Available since CUDA 13.1 (calls `cudaX`).`), as the raw and
//! typed functions do. The marks come from the calls, never from a hand list: [`mark`] reads
//! the template's source (syn, with line numbers), finds in each function's body the paths
//! that name a C function (`sys::cudaX`, `crate::sys::cudaX`) and the typed wrappers
//! (`api::x`), follows calls to the file's own functions (`helper(…)`, `Self::helper(…)`) and
//! methods (`self.helper(…)`) by name (a helper that calls a newer function passes its mark
//! on), and inserts the line above the function's attributes. Calls on other values are not
//! followed (their type is not known here). A function whose docs say what it does on a
//! runtime "older than" the function it calls works there too: it is not marked and passes
//! no mark on (the template's fallbacks, such as `Kernel::params`, say so). A file that does not parse is returned as it is (its crate's build says why).
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
    /// The type of the `impl` it is a method of (`None`: a free function).
    owner: Option<String>,
    name: String,
    public: bool,
    /// The first line of the function, its attributes included (1-based).
    first_line: usize,
    /// The newer C functions its body names directly.
    calls: BTreeSet<String>,
    /// The file's functions and methods it calls: (type or `None` for a free function, name).
    local: BTreeSet<(Option<String>, String)>,
    /// Whether its docs start with a mark already.
    marked: bool,
    /// Whether its docs say what it does on an older runtime ("older than"): it works there
    /// too, so it is not marked and passes no mark on.
    fallback: bool,
}

/// The body's calls: C names (under `sys::` or `api::`) and local callees.
struct Calls<'m, 'a> {
    marks: &'m Marks<'a>,
    /// The type of the `impl` being read (what `Self` and `self` are).
    owner: Option<String>,
    c: BTreeSet<String>,
    local: BTreeSet<(Option<String>, String)>,
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
            }
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        // `helper(…)`, `Self::helper(…)` and `Type::helper(…)`: the file's own functions (a
        // variable of the same name as a function is no call).
        if let syn::Expr::Path(p) = &*c.func {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let name = segs[segs.len() - 1].clone();
            if segs.len() == 1 {
                self.local.insert((None, name));
            } else if segs.len() == 2 && segs[0] == "Self" {
                self.local.insert((self.owner.clone(), name));
            } else if segs.len() == 2 && segs[0].starts_with(|c: char| c.is_ascii_uppercase()) {
                self.local.insert((Some(segs[0].clone()), name));
            }
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        // `self.helper(…)`: a method of the same type (calls on other values are not
        // followed: their type is unknown here).
        if matches!(&*m.receiver, syn::Expr::Path(p) if p.path.is_ident("self")) {
            self.local
                .insert((self.owner.clone(), m.method.to_string()));
        }
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

/// The lines of the doc attributes.
fn doc_lines(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn func(
    marks: &Marks<'_>,
    owner: Option<String>,
    name: &syn::Ident,
    public: bool,
    attrs: &[syn::Attribute],
    span: proc_macro2::Span,
    block: &syn::Block,
) -> Func {
    let mut calls = Calls {
        marks,
        owner: owner.clone(),
        c: BTreeSet::new(),
        local: BTreeSet::new(),
    };
    calls.visit_block(block);
    let docs = doc_lines(attrs);
    let text = docs.join(" ");
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Func {
        owner,
        name: name.to_string(),
        public,
        first_line: first_line(attrs, span),
        calls: calls.c,
        local: calls.local,
        marked: docs
            .first()
            .is_some_and(|l| l.trim_start().starts_with("Available since CUDA")),
        fallback: text.contains("older than"),
    }
}

/// Every function of `items`, with impls' methods and inline modules' items.
fn collect(marks: &Marks<'_>, items: &[syn::Item], out: &mut Vec<Func>) {
    use syn::spanned::Spanned;
    for item in items {
        match item {
            syn::Item::Fn(f) => out.push(func(
                marks,
                None,
                &f.sig.ident,
                matches!(f.vis, syn::Visibility::Public(_)),
                &f.attrs,
                f.sig.span(),
                &f.block,
            )),
            syn::Item::Impl(i) => {
                // Trait methods are documented by their trait.
                let inherent = i.trait_.is_none();
                let owner = match &*i.self_ty {
                    syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                };
                for ii in &i.items {
                    if let syn::ImplItem::Fn(f) = ii {
                        out.push(func(
                            marks,
                            owner.clone(),
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
    let mut by_name: BTreeMap<(Option<&str>, &str), Vec<usize>> = BTreeMap::new();
    for (i, f) in funcs.iter().enumerate() {
        by_name
            .entry((f.owner.as_deref(), f.name.as_str()))
            .or_default()
            .push(i);
    }
    let mut reached: Vec<BTreeSet<String>> = funcs
        .iter()
        .map(|f| {
            if f.fallback {
                BTreeSet::new()
            } else {
                f.calls.clone()
            }
        })
        .collect();
    loop {
        let mut changed = false;
        for (i, f) in funcs.iter().enumerate() {
            if f.fallback {
                continue;
            }
            for callee in &f.local {
                let key = (callee.0.as_deref(), callee.1.as_str());
                for &j in by_name.get(&key).into_iter().flatten() {
                    if j == i || funcs[j].fallback {
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
