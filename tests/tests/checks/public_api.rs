//! The public API of each generated crate (`runtime/*`) is the committed list in
//! `tests/public-api/<crate>.txt`: a change to what a crate exports shows up as a diff of that
//! file, reviewed like any other. The list comes from a walk of the crate's source with syn
//! (offline, stable toolchain): every `pub` item reachable through `pub mod`s, its signature,
//! the `pub` fields and variants of its types, the `pub use` re-exports, the methods of its
//! inherent impls, its trait impls, and the item-level macro invocations that define items.
//! `PUBLIC_API_BLESS=1` rewrites the lists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use quote::ToTokens;

/// Tokens as one line of text.
fn text(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

/// Whether `attrs` hold `#[cfg(test)]`.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && text(&a.meta).replace(' ', "") == "cfg(test)")
}

fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

/// The `#[path]` of a `mod` item, if any.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

struct Walk {
    lines: BTreeSet<String>,
}

impl Walk {
    /// Records the items of one module. `path` is its Rust path, `public` whether every module
    /// on it is `pub`, `dir` the folder its child modules' files are in.
    fn module(&mut self, items: &[syn::Item], path: &str, public: bool, dir: &Path) {
        for item in items {
            if let Some(attrs) = item_attrs(item) {
                if is_test_only(attrs) {
                    continue;
                }
            }
            let at = |name: &dyn std::fmt::Display| format!("{path}::{name}");
            match item {
                syn::Item::Mod(m) => {
                    let child_public = public && is_pub(&m.vis);
                    let child_path = at(&m.ident);
                    if child_public {
                        self.lines.insert(format!("mod {child_path}"));
                    }
                    let child_dir = dir.join(m.ident.to_string());
                    if let Some((_, inline)) = &m.content {
                        self.module(inline, &child_path, child_public, &child_dir);
                        continue;
                    }
                    let file = match path_attr(&m.attrs) {
                        Some(p) => dir.join(p),
                        None if dir.join(format!("{}.rs", m.ident)).is_file() => {
                            dir.join(format!("{}.rs", m.ident))
                        }
                        None => child_dir.join("mod.rs"),
                    };
                    let src = std::fs::read_to_string(&file)
                        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                    let parsed =
                        syn::parse_file(&src).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
                    let next_dir = if file.file_name().is_some_and(|n| n == "mod.rs") {
                        file.parent().expect("a folder").to_path_buf()
                    } else {
                        child_dir
                    };
                    self.module(&parsed.items, &child_path, child_public, &next_dir);
                }
                syn::Item::Impl(i) => self.impl_block(i),
                syn::Item::Macro(m) => {
                    // Item macros (`c_enum!(cudaError, i32)`) define methods and impls; the
                    // macro's own path is how the crate reaches it, not part of the API.
                    let name = m
                        .mac
                        .path
                        .segments
                        .last()
                        .map(|s| s.ident.to_string())
                        .unwrap_or_default();
                    // `thread_local!` declares statics, public only when it says `pub`.
                    let tokens = text(&m.mac.tokens);
                    let private_statics = name == "thread_local" && !tokens.contains("pub static");
                    if name != "macro_rules" && !private_statics {
                        self.lines.insert(format!("macro {name}!({tokens})"));
                    }
                }
                _ if !public => {}
                syn::Item::Fn(f) if is_pub(&f.vis) => {
                    self.lines
                        .insert(format!("fn {}: {}", at(&f.sig.ident), text(&f.sig)));
                }
                syn::Item::Struct(s) if is_pub(&s.vis) => {
                    let name = at(&s.ident);
                    self.lines
                        .insert(format!("struct {name}{}", text(&s.generics)));
                    for (i, field) in s.fields.iter().enumerate() {
                        if is_pub(&field.vis) {
                            let f = field
                                .ident
                                .as_ref()
                                .map_or(i.to_string(), |id| id.to_string());
                            self.lines
                                .insert(format!("field {name}.{f}: {}", text(&field.ty)));
                        }
                    }
                }
                syn::Item::Enum(e) if is_pub(&e.vis) => {
                    let name = at(&e.ident);
                    self.lines
                        .insert(format!("enum {name}{}", text(&e.generics)));
                    for v in &e.variants {
                        // The fields without their documentation.
                        let fields: Vec<String> = v
                            .fields
                            .iter()
                            .map(|f| match &f.ident {
                                Some(id) => format!("{id}: {}", text(&f.ty)),
                                None => text(&f.ty),
                            })
                            .collect();
                        self.lines.insert(format!(
                            "variant {name}::{}({})",
                            v.ident,
                            fields.join(", ")
                        ));
                    }
                }
                syn::Item::Union(u) if is_pub(&u.vis) => {
                    self.lines.insert(format!("union {}", at(&u.ident)));
                }
                syn::Item::Const(c) if is_pub(&c.vis) => {
                    self.lines
                        .insert(format!("const {}: {}", at(&c.ident), text(&c.ty)));
                }
                syn::Item::Static(s) if is_pub(&s.vis) => {
                    self.lines
                        .insert(format!("static {}: {}", at(&s.ident), text(&s.ty)));
                }
                syn::Item::Type(t) if is_pub(&t.vis) => {
                    self.lines
                        .insert(format!("type {} = {}", at(&t.ident), text(&t.ty)));
                }
                syn::Item::Trait(t) if is_pub(&t.vis) => {
                    let name = at(&t.ident);
                    self.lines.insert(format!("trait {name}"));
                    for ti in &t.items {
                        if let syn::TraitItem::Fn(f) = ti {
                            self.lines
                                .insert(format!("trait fn {name}::{}", text(&f.sig)));
                        }
                    }
                }
                syn::Item::Use(u) if is_pub(&u.vis) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, String::new(), &mut leaves);
                    for leaf in leaves {
                        self.lines.insert(format!("use {path}: {leaf}"));
                    }
                }
                _ => {}
            }
        }
    }

    fn impl_block(&mut self, i: &syn::ItemImpl) {
        let ty = text(&i.self_ty);
        if let Some((trait_path, _)) = &i.trait_ {
            self.lines.insert(format!(
                "impl{} {} for {ty}",
                text(&i.generics),
                text(trait_path)
            ));
            return;
        }
        for item in &i.items {
            if let syn::ImplItem::Fn(f) = item {
                if is_pub(&f.vis) && !is_test_only(&f.attrs) {
                    self.lines.insert(format!("method {ty}: {}", text(&f.sig)));
                }
            }
            if let syn::ImplItem::Const(c) = item {
                if is_pub(&c.vis) {
                    self.lines
                        .insert(format!("assoc const {ty}::{}: {}", c.ident, text(&c.ty)));
                }
            }
        }
    }
}

fn item_attrs(item: &syn::Item) -> Option<&[syn::Attribute]> {
    Some(match item {
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        _ => return None,
    })
}

/// The leaves of a `use` tree, as `path::to::name` (with ` as alias` when renamed).
fn use_leaves(tree: &syn::UseTree, prefix: String, out: &mut Vec<String>) {
    let join = |s: &dyn std::fmt::Display| {
        if prefix.is_empty() {
            s.to_string()
        } else {
            format!("{prefix}::{s}")
        }
    };
    match tree {
        syn::UseTree::Path(p) => use_leaves(&p.tree, join(&p.ident), out),
        syn::UseTree::Name(n) => out.push(join(&n.ident)),
        syn::UseTree::Rename(r) => out.push(format!("{} as {}", join(&r.ident), r.rename)),
        syn::UseTree::Glob(_) => out.push(join(&"*")),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix.clone(), out);
            }
        }
    }
}

/// The public item list of the crate whose `src/lib.rs` is under `root`.
fn public_api(root: &Path, name: &str) -> String {
    let lib = root.join("src").join("lib.rs");
    let src = std::fs::read_to_string(&lib).unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
    let file = syn::parse_file(&src).unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
    let mut walk = Walk {
        lines: BTreeSet::new(),
    };
    walk.module(&file.items, name, true, &root.join("src"));
    let mut out = String::new();
    for line in walk.lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn generated_crates(workspace: &Path) -> Vec<(String, PathBuf)> {
    let mut crates: Vec<(String, PathBuf)> = std::fs::read_dir(workspace.join("runtime"))
        .expect("runtime/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src/lib.rs").is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    crates.sort();
    crates
}

#[test]
fn generated_crates_keep_their_public_api() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let bless = std::env::var_os("PUBLIC_API_BLESS").is_some();
    let crates = generated_crates(&workspace);
    assert!(!crates.is_empty(), "no crate under runtime/");
    let mut changed = Vec::new();
    for (name, root) in crates {
        let now = public_api(&root, &name);
        assert!(
            now.contains(&format!("fn {name}::")),
            "{name}: no public function found"
        );
        let baseline = workspace
            .join("tests/public-api")
            .join(format!("{name}.txt"));
        if bless {
            std::fs::write(&baseline, &now).expect("writing the baseline");
            continue;
        }
        let before = std::fs::read_to_string(&baseline).unwrap_or_default();
        if before != now {
            let gone: Vec<&str> = before
                .lines()
                .filter(|l| !now.lines().any(|n| n == *l))
                .collect();
            let new: Vec<&str> = now
                .lines()
                .filter(|l| !before.lines().any(|b| b == *l))
                .collect();
            changed.push(format!(
                "{name}: {} removed, {} added\n  - {}\n  + {}",
                gone.len(),
                new.len(),
                gone.iter()
                    .take(20)
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n  - "),
                new.iter()
                    .take(20)
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n  + "),
            ));
        }
    }
    assert!(
        changed.is_empty(),
        "the public API of generated crates changed (PUBLIC_API_BLESS=1 cargo test -p workspace-tests --test checks public_api rewrites tests/public-api/ if intended):\n{}",
        changed.join("\n")
    );
}

#[test]
fn the_walk_sees_pub_items_and_skips_private_and_test_items() {
    let dir = std::env::temp_dir().join(format!("public-api-walk-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src/inner")).unwrap();
    std::fs::write(
        dir.join("src/lib.rs"),
        "pub mod inner; mod hidden { pub fn h() {} }\n#[cfg(test)] pub fn t() {}\npub use inner::{a as b, c};\npub struct S { pub x: u8, y: u8 }\nimpl S { pub fn m(&self) {} fn p() {} }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/inner/mod.rs"),
        "pub fn a() {}\npub fn c() {}\n",
    )
    .unwrap();
    let api = public_api(&dir, "k");
    std::fs::remove_dir_all(&dir).ok();
    let lines: Vec<&str> = api.lines().collect();
    assert_eq!(
        lines,
        [
            "field k::S.x: u8",
            "fn k::inner::a: fn a ()",
            "fn k::inner::c: fn c ()",
            "method S: fn m (& self)",
            "mod k::inner",
            "struct k::S",
            "use k: inner::a as b",
            "use k: inner::c",
        ]
    );
}
