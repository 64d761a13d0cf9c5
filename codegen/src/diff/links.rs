//! Links from report items to their rustdoc pages in a generated crate: which C names the
//! crate's raw layer (`src/sys/`) declares, and as what kind of item (`fn`, `struct`, `type`,
//! `constant`), read from the crate's own files, so an item gets a link exactly where the
//! crate has it (`{base}/cudart13/sys/fn.cudaMemAdvise.html`).
//!
//! The generated files are formatted by prettyplease: every public item of the raw layer
//! starts a line with `pub`. Only those lines are read; nothing is compiled or parsed further.

use std::path::Path;

use foldhash::HashMap;

/// The rustdoc pages of one generated crate's raw layer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RustdocLinks {
    /// The crate's name (`cudart13`).
    pub crate_name: String,
    /// Where its rustdoc lives, without a trailing `/` (`../doc`, a URL).
    pub base: String,
    /// Item name → rustdoc page kind (`fn`, `struct`, `union`, `type`, `constant`, `enum`).
    pub items: HashMap<String, &'static str>,
}

impl RustdocLinks {
    /// Reads the public items of `<crate_dir>/src/sys/*.rs`. A crate without that folder has
    /// no items (and so no links); an unreadable file is an error naming it.
    pub fn read(crate_dir: &Path, crate_name: &str, base: &str) -> std::io::Result<RustdocLinks> {
        let mut items = HashMap::default();
        let dir = crate_dir.join("src").join("sys");
        if dir.is_dir() {
            let mut files: Vec<_> = std::fs::read_dir(&dir)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "rs") && p.is_file())
                .collect();
            files.sort();
            for file in files {
                let text = std::fs::read_to_string(&file).map_err(|e| {
                    std::io::Error::new(e.kind(), format!("{}: {e}", file.display()))
                })?;
                for line in text.lines() {
                    if let Some((kind, name)) = public_item(line) {
                        items.entry(name.to_string()).or_insert(kind);
                    }
                }
            }
        }
        Ok(RustdocLinks {
            crate_name: crate_name.to_string(),
            base: base.trim_end_matches('/').to_string(),
            items,
        })
    }

    /// The page of `name`, when the crate has it.
    pub fn link(&self, name: &str) -> Option<String> {
        let kind = self.items.get(name)?;
        Some(format!(
            "{}/{}/sys/{kind}.{name}.html",
            self.base, self.crate_name
        ))
    }
}

/// The rustdoc kind and name of a line that starts a public item: `pub unsafe fn cudaMalloc(`
/// → (`fn`, `cudaMalloc`).
fn public_item(line: &str) -> Option<(&'static str, &str)> {
    let rest = line.strip_prefix("pub ")?;
    let rest = rest.strip_prefix("unsafe ").unwrap_or(rest);
    let (kind, rest) = [
        ("fn ", "fn"),
        ("struct ", "struct"),
        ("union ", "union"),
        ("type ", "type"),
        ("const ", "constant"),
        ("enum ", "enum"),
    ]
    .iter()
    .find_map(|(word, kind)| rest.strip_prefix(word).map(|r| (*kind, r)))?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| (kind, &rest[..end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_items_by_kind() {
        assert_eq!(
            public_item("pub unsafe fn cudaMalloc("),
            Some(("fn", "cudaMalloc"))
        );
        assert_eq!(
            public_item("pub struct cudaDeviceProp {"),
            Some(("struct", "cudaDeviceProp"))
        );
        assert_eq!(
            public_item("pub const cudaHostAllocMapped: u32 = 2;"),
            Some(("constant", "cudaHostAllocMapped"))
        );
        assert_eq!(public_item("    pub const SUCCESS: Self = Self(0);"), None);
        assert_eq!(public_item("pub use functions::*;"), None);
        assert_eq!(public_item("pub mod x;"), None);
    }

    #[test]
    fn links_only_where_the_crate_has_the_item() {
        let dir = std::env::temp_dir().join(format!("rustdoc-links-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src/sys")).unwrap();
        std::fs::write(
            dir.join("src/sys/functions.rs"),
            "pub unsafe fn cudaMalloc(\n    x: u32,\n) {}\n",
        )
        .unwrap();
        let l = RustdocLinks::read(&dir, "cudart13", "../doc/").unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(
            l.link("cudaMalloc").as_deref(),
            Some("../doc/cudart13/sys/fn.cudaMalloc.html")
        );
        assert_eq!(l.link("cudaFree"), None);
    }
}
