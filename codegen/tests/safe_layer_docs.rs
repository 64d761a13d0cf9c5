//! The safe layer's documentation promises, checked over the template's sources (the
//! hand-written files every emitted crate copies):
//!
//! - every public method or function that calls a CUDA function directly (`sys::cudaXxx`)
//!   names it in a `#[doc(alias = "cudaXxx")]`, so that searching the C name in rustdoc
//!   finds the safe method (the methods that macros define included);
//! - every alias names something the CUDA release's bindings or documentation know (no typo);
//! - every public type and trait has an example in its documentation (a code block).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::visit::Visit;

/// The template files of the safe layer (not the loader, the ELF check or the macros).
fn safe_layer_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("template/src");
    let mut files = Vec::new();
    // Every folder of the template (`memory/`, `graph/`, `lifetime/`, …).
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("template folder").flatten() {
            let path = entry.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && !matches!(name, "loader.rs" | "elf.rs" | "macros.rs")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 10, "the template's safe layer was not found");
    files
}

/// The C functions of the raw layer (`pub unsafe fn cudaXxx(` in the emitted `sys`).
fn c_functions() -> BTreeSet<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/cudart13/src/sys/functions.rs");
    let text = std::fs::read_to_string(&path).expect("the emitted raw layer");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("pub unsafe fn "))
        .filter_map(|l| l.split('(').next())
        .map(str::to_string)
        .collect()
}

/// The `sys::cuda*` functions a body names.
struct SysCalls<'f> {
    functions: &'f BTreeSet<String>,
    found: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for SysCalls<'_> {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if let [.., sys, name] = segs.as_slice() {
            if sys == "sys" && self.functions.contains(name) {
                self.found.insert(name.clone());
            }
        }
        syn::visit::visit_path(self, p);
    }
}

/// The names of `#[doc(alias = "…")]` and `#[doc(alias("…", …))]` attributes.
fn aliases(attrs: &[syn::Attribute]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if !matches!(attr.meta, syn::Meta::List(_)) {
            continue; // `#[doc = "…"]`
        }
        attr.parse_nested_meta(|meta| {
            if !meta.path.is_ident("alias") {
                return Err(meta.error("not an alias"));
            }
            if meta.input.peek(syn::Token![=]) {
                let name: syn::LitStr = meta.value()?.parse()?;
                out.insert(name.value());
            } else {
                let content;
                syn::parenthesized!(content in meta.input);
                let names = content
                    .parse_terminated(<syn::LitStr as syn::parse::Parse>::parse, syn::Token![,])?;
                out.extend(names.iter().map(syn::LitStr::value));
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("a doc attribute this test does not read: {e}"));
    }
    out
}

fn docs(attrs: &[syn::Attribute]) -> String {
    let mut text = String::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                text.push_str(&s.value());
                text.push('\n');
            }
        }
    }
    text
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

/// What the checks found wrong, one line each.
#[derive(Default)]
struct Findings {
    functions: BTreeSet<String>,
    missing_alias: Vec<String>,
    aliases: BTreeSet<String>,
    no_example: Vec<String>,
}

impl Findings {
    fn function(&mut self, file: &str, name: &str, attrs: &[syn::Attribute], body: &syn::Block) {
        let mut calls = SysCalls {
            functions: &self.functions,
            found: BTreeSet::new(),
        };
        calls.visit_block(body);
        let found = calls.found;
        let named = aliases(attrs);
        self.aliases.extend(named.iter().cloned());
        let missing: Vec<&String> = found.iter().filter(|c| !named.contains(*c)).collect();
        if !missing.is_empty() {
            self.missing_alias.push(format!(
                "{file}: fn {name} calls {missing:?} without #[doc(alias)]"
            ));
        }
    }

    fn impl_items(&mut self, file: &str, items: &[syn::ImplItem], in_trait_impl: bool) {
        for item in items {
            if let syn::ImplItem::Fn(f) = item {
                if in_trait_impl || is_pub(&f.vis) {
                    self.function(file, &f.sig.ident.to_string(), &f.attrs, &f.block);
                }
            }
        }
    }

    fn typ(&mut self, file: &str, kind: &str, name: &syn::Ident, attrs: &[syn::Attribute]) {
        let hidden = attrs.iter().any(|a| {
            a.path().is_ident("doc") && a.meta.to_token_stream().to_string().contains("hidden")
        });
        if !hidden && !docs(attrs).contains("```") {
            self.no_example
                .push(format!("{file}: {kind} {name} has no example"));
        }
    }

    fn items(&mut self, file: &str, items: &[syn::Item]) {
        for item in items {
            match item {
                syn::Item::Fn(f) if is_pub(&f.vis) => {
                    self.function(file, &f.sig.ident.to_string(), &f.attrs, &f.block)
                }
                // Trait methods of a public trait are public; inherent ones only when `pub`.
                syn::Item::Impl(i) => self.impl_items(file, &i.items, false),
                syn::Item::Struct(s) if is_pub(&s.vis) => {
                    self.typ(file, "struct", &s.ident, &s.attrs)
                }
                syn::Item::Enum(e) if is_pub(&e.vis) => self.typ(file, "enum", &e.ident, &e.attrs),
                syn::Item::Trait(t) if is_pub(&t.vis) => {
                    self.typ(file, "trait", &t.ident, &t.attrs)
                }
                syn::Item::Mod(m) => {
                    let inner = m.content.as_ref().map(|(_, items)| items.as_slice());
                    if m.ident != "tests" {
                        self.items(file, inner.unwrap_or(&[]));
                    }
                }
                syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                    self.macro_methods(file, &m.mac.tokens);
                }
                _ => {}
            }
        }
    }

    /// Methods a `macro_rules!` without parameters defines (`read_methods!`, …): its body
    /// parsed as the items of an `impl` block.
    fn macro_methods(&mut self, file: &str, tokens: &proc_macro2::TokenStream) {
        let mut groups = tokens.clone().into_iter().filter_map(|t| match t {
            proc_macro2::TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace => {
                Some(g.stream())
            }
            _ => None,
        });
        if let Some(body) = groups.next() {
            let wrapped: proc_macro2::TokenStream = quote::quote!(impl __Macro { #body });
            if let Ok(block) = syn::parse2::<syn::ItemImpl>(wrapped) {
                self.impl_items(file, &block.items, false);
            }
        }
    }
}

fn findings() -> Findings {
    let mut f = Findings {
        functions: c_functions(),
        ..Findings::default()
    };
    for path in safe_layer_files() {
        let text = std::fs::read_to_string(&path).expect("template file");
        let file = syn::parse_file(&text)
            .unwrap_or_else(|e| panic!("{}: does not parse: {e}", path.display()));
        let name = path
            .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")))
            .unwrap_or(&path)
            .display()
            .to_string();
        f.items(&name, &file.items);
    }
    f
}

#[test]
fn every_safe_method_that_calls_cuda_names_it_in_a_doc_alias() {
    let f = findings();
    assert!(
        f.missing_alias.is_empty(),
        "{} public functions call CUDA without naming the C function:\n{}",
        f.missing_alias.len(),
        f.missing_alias.join("\n")
    );
    assert!(
        f.aliases.len() > 100,
        "only {} aliases found",
        f.aliases.len()
    );
}

#[test]
fn every_doc_alias_names_something_cuda_declares() {
    let f = findings();
    let crate_src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/cudart13/src");
    let mut known = String::new();
    for rel in [
        "sys/functions.rs",
        "sys/constants.rs",
        "sys/enums.rs",
        "sys/flags.rs",
        "api.rs",
    ] {
        known.push_str(&std::fs::read_to_string(crate_src.join(rel)).unwrap_or_default());
    }
    let unknown: Vec<&String> = f
        .aliases
        .iter()
        .filter(|a| {
            !known.match_indices(a.as_str()).any(|(i, _)| {
                !known[i + a.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
        })
        .collect();
    assert!(
        unknown.is_empty(),
        "aliases that name nothing in cudart13: {unknown:?}"
    );
}

#[test]
fn every_public_type_of_the_safe_layer_has_an_example() {
    let f = findings();
    assert!(
        f.no_example.is_empty(),
        "{} public types without an example:\n{}",
        f.no_example.len(),
        f.no_example.join("\n")
    );
}

/// The Rust items `docs/cupy-mapping.md` and `docs/cuda-core-mapping.md` name, checked against
/// the template and the emitted typed layer, so that a renamed method or type cannot leave
/// the pages stale: every `` `Type::method` `` names a public type of the safe layer (or of
/// NVRTC's `Program`) and a
/// function of that name in it, every `` `api::name` `` a typed function of `cudart13`.
#[test]
fn the_mapping_pages_name_items_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut types = BTreeSet::new();
    let mut fns = BTreeSet::new();
    let loader = root.join("template/src/loader.rs");
    // NVRTC's safe layer (`nvrtc13::Program`, `Compiled`, `CompileOptions`), which the pages
    // name for runtime compilation.
    let nvrtc = root.join("template/nvrtc/src/program.rs");
    // nvJitLink's safe layer (`nvjitlink13::Linker`), which the pages name for linking.
    let linker = root.join("template/nvjitlink/src/linker.rs");
    // The safe layer's generated files: the records (`DeviceProperties`, `KernelAttributes`,
    // `DeviceAttributes`) and NVRTC's typed options.
    let generated = [
        root.join("../runtime/cudart13/src/records.rs"),
        root.join("../runtime/nvrtc13/src/options.rs"),
    ];
    for path in safe_layer_files()
        .into_iter()
        .chain([loader, nvrtc, linker])
        .chain(generated)
    {
        let text = std::fs::read_to_string(&path).expect("template file");
        for line in text.lines().map(str::trim) {
            for kind in [
                "pub struct ",
                "pub enum ",
                "pub trait ",
                "pub unsafe trait ",
                "pub type ",
            ] {
                if let Some(rest) = line.strip_prefix(kind) {
                    types.insert(
                        rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                            .next()
                            .unwrap_or("")
                            .to_string(),
                    );
                }
            }
            if let Some(alias) = line.strip_prefix("pub use crate::sys::") {
                if let Some((_, name)) = alias.trim_end_matches(';').split_once(" as ") {
                    types.insert(name.to_string());
                }
            }
            // A public field is named as `Type::field` too (`LaunchConfig::grid`).
            if let Some(rest) = line.strip_prefix("pub ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if rest[name.len()..].starts_with(':') && !rest[name.len()..].starts_with("::") {
                    fns.insert(name);
                }
            }
            if let Some(i) = line.find("fn ") {
                let name: String = line[i + 3..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                fns.insert(name);
            }
        }
    }
    let api =
        std::fs::read_to_string(root.join("../runtime/cudart13/src/api.rs")).expect("typed layer");
    let mut stale = Vec::new();
    for page in ["../docs/cupy-mapping.md", "../docs/cuda-core-mapping.md"] {
        let text = std::fs::read_to_string(root.join(page)).expect("mapping page");
        for span in text.split('`').skip(1).step_by(2) {
            let path: String = span
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let parts: Vec<&str> = path.split("::").collect();
            match parts.as_slice() {
                // Other crates' items (the NCCL rows name cudarc's), and placeholders.
                ["std" | "cudarc", ..] | ["api", ""] => {}
                ["api", name]
                    if !api.contains(&format!("fn {name}("))
                        && !api.contains(&format!("fn {name}<")) =>
                {
                    stale.push(format!("{page}: `{span}`"));
                }
                ["api", _] => {}
                [.., ty, method]
                    if ty.starts_with(|c: char| c.is_ascii_uppercase())
                        && method.starts_with(|c: char| c.is_ascii_lowercase()) =>
                {
                    let known_type = types.contains(*ty) || ["Device", "Error"].contains(ty);
                    if !known_type || !fns.contains(*method) {
                        stale.push(format!("{page}: `{span}`"));
                    }
                }
                _ => {}
            }
        }
    }
    assert!(
        stale.is_empty(),
        "items the mapping pages name that do not exist:\n{}",
        stale.join("\n")
    );
}
