//! Edits of `docs-src/manifest.toml` that `cargo xtask release` makes: a `[[document]]` entry
//! for a release's documentation headers, and the documents of a `[[crate]]`. Comments,
//! order and formatting of everything else are kept (`toml_edit`); the file is written only
//! when it changes, through a temporary file renamed over it. Reading the manifest is
//! `codegen::load`'s; this module only writes.

use std::path::Path;

use anyhow::{bail, Context, Result};
use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, Value};

/// The manifest, parsed for editing.
pub struct Manifest {
    path: std::path::PathBuf,
    original: String,
    doc: DocumentMut,
}

impl Manifest {
    /// Reads `docs_src/manifest.toml`.
    pub fn open(docs_src: &Path) -> Result<Manifest> {
        let path = docs_src.join("manifest.toml");
        let original = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let doc: DocumentMut = original
            .parse()
            .with_context(|| format!("{} is not valid TOML", path.display()))?;
        Ok(Manifest {
            path,
            original,
            doc,
        })
    }

    /// Adds a `[[document]]` entry for `file` unless one names it: `fields` are its keys
    /// after `file`, in order. Returns whether it was added.
    pub fn ensure_document(&mut self, file: &str, fields: &[(&str, Value)]) -> Result<bool> {
        let docs = self.array_of_tables("document")?;
        if docs
            .iter()
            .any(|t| t.get("file").and_then(Item::as_str) == Some(file))
        {
            return Ok(false);
        }
        let mut t = Table::new();
        t.insert("file", toml_edit::value(file));
        for (k, v) in fields {
            t.insert(k, Item::Value(v.clone()));
        }
        docs.push(t);
        Ok(true)
    }

    /// The documents of the `[[crate]]` named `name`.
    pub fn crate_docs(&mut self, name: &str) -> Result<Vec<String>> {
        let t = self.crate_table(name)?;
        Ok(t.get("docs")
            .and_then(Item::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Sets the documents of the `[[crate]]` named `name`, one per line. Returns whether they
    /// changed.
    pub fn set_crate_docs(&mut self, name: &str, docs: &[String]) -> Result<bool> {
        if self.crate_docs(name)? == docs {
            return Ok(false);
        }
        let mut array = Array::new();
        for d in docs {
            let mut v = Value::from(d.as_str());
            v.decor_mut().set_prefix("\n    ");
            array.push_formatted(v);
        }
        array.set_trailing("\n");
        array.set_trailing_comma(true);
        self.crate_table(name)?
            .insert("docs", toml_edit::value(array));
        Ok(true)
    }

    /// Writes the manifest when an edit changed it (a temporary file renamed over it).
    /// Returns whether it wrote.
    pub fn save(&self) -> Result<bool> {
        let text = self.doc.to_string();
        if text == self.original {
            return Ok(false);
        }
        let tmp = self.path.with_extension("toml.partial");
        std::fs::write(&tmp, &text).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &self.path)
            .with_context(|| format!("replacing {}", self.path.display()))?;
        Ok(true)
    }

    fn array_of_tables(&mut self, key: &str) -> Result<&mut ArrayOfTables> {
        let path = self.path.display().to_string();
        let item = self
            .doc
            .entry(key)
            .or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
        match item.as_array_of_tables_mut() {
            Some(a) => Ok(a),
            None => bail!("{path}: `{key}` is not an array of tables ([[{key}]])"),
        }
    }

    fn crate_table(&mut self, name: &str) -> Result<&mut Table> {
        let path = self.path.display().to_string();
        let crates = self.array_of_tables("crate")?;
        match crates
            .iter_mut()
            .find(|t| t.get("name").and_then(Item::as_str) == Some(name))
        {
            Some(t) => Ok(t),
            None => bail!("{path}: no [[crate]] named {name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# a comment that stays\n\n[[crate]]\nname = \"c13\"\ndir = \"runtime/c13\"\ndocs = [\n    \"page.txt\",\n    \"headers-13.4\",\n]\n\n# about the page\n[[document]]\nfile = \"page.txt\"\nrelease = \"13.4\"\n";

    /// The lines of `new` not in the longest common subsequence with `old`, and those of
    /// `old` not in it: what a line diff shows.
    fn line_diff(old: &str, new: &str) -> (Vec<String>, Vec<String>) {
        let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
        let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i][j] = if a[i] == b[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        let (mut removed, mut added) = (Vec::new(), Vec::new());
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                i += 1;
                j += 1;
            } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
                added.push(b[j].to_string());
                j += 1;
            } else {
                removed.push(a[i].to_string());
                i += 1;
            }
        }
        (removed, added)
    }

    /// Release day's edits of the workspace's own manifest (a new headers entry, a crate
    /// pointed at it) change only the lines they concern: a reviewer reads a few lines.
    #[test]
    fn release_day_edits_of_the_real_manifest_are_a_minimal_diff() {
        let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs-src/manifest.toml");
        let original = std::fs::read_to_string(real).unwrap();
        let dir = std::env::temp_dir().join(format!("xtask-manifest-real-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("manifest.toml"), &original).unwrap();
        let mut m = Manifest::open(&dir).unwrap();
        m.ensure_document(
            "nvidia-cuda-headers-13.6",
            &[
                ("publisher", Value::from("NVIDIA")),
                ("module", Value::from("cuda_runtime_api.h")),
                ("release", Value::from("13.6")),
                ("format", Value::from("doxygen-header")),
                ("default", Value::from(false)),
            ],
        )
        .unwrap();
        let docs: Vec<String> = m
            .crate_docs("cudart13")
            .unwrap()
            .into_iter()
            .map(|d| d.replace("nvidia-cuda-headers-13.5", "nvidia-cuda-headers-13.6"))
            .collect();
        assert!(m.set_crate_docs("cudart13", &docs).unwrap());
        assert!(m.save().unwrap());
        let text = std::fs::read_to_string(dir.join("manifest.toml")).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        let (removed, added) = line_diff(&original, &text);
        assert_eq!(removed, ["    \"nvidia-cuda-headers-13.5\","], "{text}");
        assert!(added.contains(&"    \"nvidia-cuda-headers-13.6\",".to_string()));
        assert!(added.contains(&"file = \"nvidia-cuda-headers-13.6\"".to_string()));
        // The new entry's lines (header, five keys, a blank line) and the crate's one line.
        assert!(added.len() <= 9, "{added:#?}");
    }

    #[test]
    fn edits_keep_everything_else_and_write_only_changes() {
        let dir = std::env::temp_dir().join(format!("xtask-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("manifest.toml"), TEXT).unwrap();
        let mut m = Manifest::open(&dir).unwrap();
        assert!(!m.save().unwrap(), "nothing changed");
        let fields = [
            ("release", Value::from("13.5")),
            ("default", Value::from(false)),
        ];
        assert!(m.ensure_document("headers-13.5", &fields).unwrap());
        assert!(!m.ensure_document("headers-13.5", &fields).unwrap());
        assert_eq!(m.crate_docs("c13").unwrap(), ["page.txt", "headers-13.4"]);
        let docs = vec!["page.txt".to_string(), "headers-13.5".to_string()];
        assert!(m.set_crate_docs("c13", &docs).unwrap());
        assert!(!m.set_crate_docs("c13", &docs).unwrap());
        assert!(m.set_crate_docs("nope", &docs).is_err());
        assert!(m.save().unwrap());
        let text = std::fs::read_to_string(dir.join("manifest.toml")).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert!(text.starts_with("# a comment that stays\n"), "{text}");
        assert!(text.contains("# about the page\n[[document]]"), "{text}");
        assert!(
            text.contains("docs = [\n    \"page.txt\",\n    \"headers-13.5\",\n]"),
            "{text}"
        );
        assert!(
            text.contains(
                "[[document]]\nfile = \"headers-13.5\"\nrelease = \"13.5\"\ndefault = false\n"
            ),
            "{text}"
        );
        let back: toml::Value = toml::from_str(&text).unwrap();
        assert_eq!(back["document"].as_array().unwrap().len(), 2);
    }
}
