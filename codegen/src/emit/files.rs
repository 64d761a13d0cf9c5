//! Writing generated files: formatting with prettyplease, the provenance preamble, and the
//! rust-analyzer-style freshness check (`cargo xtask codegen --check`).
//!
//! Generated code is built with `quote!` and formatted with
//! `prettyplease::unparse(&syn::parse2(tokens)?)` ([`format_body`]), or built directly as a
//! syntax tree from parsed `quote!` templates where many items share a few shapes (enums, raw
//! functions, records, audit tables, and the typed layer through [`super::fill`]), then
//! printed the same way ([`print_body`]) — never string templates.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;

/// A failure to format or write generated code.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("generated code for {file} does not parse as Rust: {message}")]
    Syntax { file: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} generated file(s) are stale: {}; run `cargo xtask codegen`", .0.len(), .0.join(", "))]
    Stale(Vec<String>),
}

/// One file to write under the generated folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Path relative to the generated folder (`enums.rs`).
    pub name: String,
    /// Full contents, preamble included.
    pub contents: String,
}

/// Formats `tokens` as a Rust file with `preamble` (lines of `//` comments) on top.
pub fn io(path: &Path) -> impl Fn(std::io::Error) -> EmitError + '_ {
    move |source| EmitError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Formats `tokens` as a Rust file with `preamble` (lines of `//` comments) on top.
pub fn format_file(
    name: &str,
    preamble: &str,
    tokens: TokenStream,
) -> Result<GeneratedFile, EmitError> {
    let body = format_body(name, tokens)?;
    Ok(GeneratedFile {
        name: name.to_string(),
        contents: format!("{preamble}\n{body}"),
    })
}

/// Formats `tokens` (items of the file `name`, for messages) as Rust text: prettyplease, then
/// the documentation and comment markers expanded.
pub fn format_body(name: &str, tokens: TokenStream) -> Result<String, EmitError> {
    print_body(name, &parse_body(name, tokens)?)
}

/// `tokens` (items of the file `name`, for messages) parsed as a file's syntax tree.
pub fn parse_body(name: &str, tokens: TokenStream) -> Result<syn::File, EmitError> {
    syn::parse2(tokens).map_err(|e| EmitError::Syntax {
        file: name.to_string(),
        message: e.to_string(),
    })
}

/// `file` (the syntax of the file `name`, for messages) as Rust text: prettyplease, then the
/// documentation and comment markers expanded.
pub fn print_body(name: &str, file: &syn::File) -> Result<String, EmitError> {
    let body = super::docs::expand_markers(&prettyplease::unparse(file)).ok_or_else(|| {
        EmitError::Syntax {
            file: name.to_string(),
            message: "a documentation marker has no text (a bug: please report it)".into(),
        }
    })?;
    Ok(comments(&body))
}

/// The marker emitters write where the output needs a `//` comment (comments inside `quote!`
/// never reach the tokens): `__comment!(N);` as a statement or item, `N` the number of its
/// text in [`COMMENTS`] (a string literal would be escaped into the tokens and parsed back out
/// for nothing).
pub const COMMENT_MARKER: &str = "__comment!";

/// The texts of comment markers, each once (the emitters use a few fixed texts, many times).
static COMMENTS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// A `//` comment in the formatted output: `__comment!(N);` tokens, which [`format_file`]
/// turns into `// text` lines after formatting.
pub fn comment(text: &str) -> TokenStream {
    let id = comment_id(text);
    quote::quote! { __comment!(#id); }
}

/// [`comment`] as a statement's syntax tree (for code built from templates).
pub fn comment_stmt(text: &str) -> Result<syn::Stmt, syn::Error> {
    let mut stmt = super::fill::fill!(syn::Stmt, {
        __comment!(0);
    })?;
    if let syn::Stmt::Macro(m) = &mut stmt {
        let id = comment_id(text);
        m.mac.tokens = quote::quote! { #id };
    }
    Ok(stmt)
}

/// The number of `text` in [`COMMENTS`] (added the first time), as a literal.
fn comment_id(text: &str) -> proc_macro2::Literal {
    let id = {
        let mut table = COMMENTS.lock().unwrap_or_else(|e| e.into_inner());
        match table.iter().position(|t| t == text) {
            Some(i) => i,
            None => {
                table.push(text.to_string());
                table.len() - 1
            }
        }
    };
    proc_macro2::Literal::usize_unsuffixed(id)
}

/// The text of comment marker `id`.
fn comment_text(id: usize) -> Option<String> {
    let table = COMMENTS.lock().unwrap_or_else(|e| e.into_inner());
    table.get(id).cloned()
}

/// `text` with every [`COMMENT_MARKER`] statement (on one line, or over several as
/// prettyplease breaks a long one) turned into `//` comment lines at its indentation, the
/// text wrapped to 100 columns.
fn comments(text: &str) -> String {
    // memchr's searches: the text is a whole file.
    let marker = memchr::memmem::Finder::new(COMMENT_MARKER);
    if marker.find(text.as_bytes()).is_none() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    // From marker to marker: the text between them is copied at once.
    let mut rest = text;
    while let Some(at) = marker.find(rest.as_bytes()) {
        let line_start = memchr::memrchr(b'\n', &rest.as_bytes()[..at]).map_or(0, |i| i + 1);
        let indent = &rest[line_start..at];
        let line_end = |from: usize| {
            memchr::memchr(b'\n', &rest.as_bytes()[from..]).map_or(rest.len(), |i| from + i)
        };
        if !indent.chars().all(char::is_whitespace) {
            // Not the first thing on its line: not a marker statement.
            let end = (line_end(at) + 1).min(rest.len());
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        out.push_str(&rest[..line_start]);
        // The statement, up to its closing `);`, over as many lines as prettyplease broke
        // it into.
        let mut end = line_end(at);
        let mut statement = rest[at + COMMENT_MARKER.len()..end].trim().to_string();
        while !statement.ends_with(");") && end < rest.len() {
            let next = line_end(end + 1);
            statement.push_str(rest[end + 1..next].trim());
            end = next;
        }
        let kept = statement
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(");"))
            .and_then(|n| n.trim().parse::<usize>().ok())
            .and_then(comment_text);
        match kept {
            Some(kept) => {
                let width = 100usize.saturating_sub(indent.len() + 3).max(40);
                for l in crate::text::lines(&kept) {
                    for wrapped in wrap(l, width) {
                        out.push_str(indent);
                        out.push_str("// ");
                        out.push_str(&wrapped);
                        out.push('\n');
                    }
                }
            }
            // Left as it is, the marker fails the build and the freshness test.
            None => {
                out.push_str(&rest[line_start..end]);
                out.push('\n');
            }
        }
        rest = &rest[(end + 1).min(rest.len())..];
    }
    out.push_str(rest);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// `line` broken at spaces into lines of at most `width` characters (a longer word stays
/// whole on its own line).
fn wrap(line: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    // `current`'s length in characters.
    let mut chars = 0;
    for word in line.split_whitespace() {
        let n = word.chars().count();
        if !current.is_empty() && chars + 1 + n > width {
            out.push(std::mem::take(&mut current));
            chars = 0;
        }
        if !current.is_empty() {
            current.push(' ');
            chars += 1;
        }
        current.push_str(word);
        chars += n;
    }
    out.push(current);
    out
}

/// The comment block every generated file starts with.
pub fn preamble(inputs: &[String], abi: &str) -> String {
    let mut s = String::from("// @generated by `cargo xtask codegen`. Do not edit by hand: change the generator\n// (codegen/) or its inputs and run `cargo xtask codegen` again.\n//\n// Documentation inputs:\n");
    for i in inputs {
        s.push_str("//   ");
        s.push_str(i);
        s.push('\n');
    }
    s.push_str("// ABI source: ");
    s.push_str(abi);
    s.push('\n');
    s
}

/// What the crate folder holds before a run writes it: every file the generator owns (see
/// [`write_all`]), read whole. A run reads it on a spare thread while it binds (the folder
/// is small: a few megabytes), so that comparing the new files with the old at the end is
/// only comparing bytes.
#[derive(Debug, Default)]
pub struct OnDisk {
    /// Owned files, by `/`-separated path relative to the folder, with their bytes (`None`
    /// where a file is listed but could not be read).
    files: foldhash::HashMap<String, Option<Vec<u8>>>,
    /// The owned paths, in the order the folder listed them.
    owned: Vec<String>,
}

impl OnDisk {
    /// Reads every file under `dir` the generator owns (nothing when `dir` does not exist).
    pub fn read(dir: &Path) -> OnDisk {
        let mut owned = Vec::new();
        owned_files(dir, dir, &mut owned);
        let files = owned
            .iter()
            .map(|rel| (rel.clone(), std::fs::read(dir.join(rel)).ok()))
            .collect();
        OnDisk { files, owned }
    }

    /// The bytes of `rel` (a path relative to the folder) as the folder held them: from what
    /// was read, or from the disk for a path the generator does not own.
    fn current(&self, dir: &Path, rel: &str) -> Option<std::borrow::Cow<'_, [u8]>> {
        match self.files.get(rel) {
            Some(bytes) => bytes.as_deref().map(std::borrow::Cow::Borrowed),
            None => std::fs::read(dir.join(rel))
                .ok()
                .map(std::borrow::Cow::Owned),
        }
    }
}

/// Writes `files` into the crate folder `dir`, or in `check` mode compares them with what is
/// there. Returns the paths written (empty when up to date).
///
/// The generator owns the folder: a file under it that is not in `files` (left over from an
/// older generator) is removed, or reported as stale in check mode. `target/`, `Cargo.lock`
/// and hidden files (what building the crate leaves) are not the generator's and stay.
///
/// Writing is staged: every changed file is first written beside its destination under a
/// temporary name, and only when all of them are written are they renamed into place, so a
/// failure part-way (a full disk, a read-only file) leaves the crate as it was.
pub fn write_all(
    dir: &Path,
    files: &[GeneratedFile],
    check: bool,
) -> Result<Vec<String>, EmitError> {
    write_all_over(dir, &OnDisk::read(dir), files, check)
}

/// [`write_all`] with the folder's files already read ([`OnDisk::read`]).
pub fn write_all_over(
    dir: &Path,
    on_disk: &OnDisk,
    files: &[GeneratedFile],
    check: bool,
) -> Result<Vec<String>, EmitError> {
    let mut changed = Vec::new();
    let mut writes: Vec<(&GeneratedFile, PathBuf)> = Vec::new();
    for f in files {
        let current = on_disk.current(dir, &f.name);
        if current.as_deref() != Some(f.contents.as_bytes()) {
            changed.push(f.name.clone());
            writes.push((f, dir.join(&f.name)));
        }
    }
    let mut stale = on_disk.owned.clone();
    stale.retain(|rel| !files.iter().any(|f| &f.name == rel));
    stale.sort();
    changed.extend(
        stale
            .iter()
            .map(|rel| format!("{rel} (no longer generated)")),
    );
    if check {
        return if changed.is_empty() {
            Ok(changed)
        } else {
            Err(EmitError::Stale(changed))
        };
    }
    let staged: Vec<(PathBuf, &PathBuf)> = writes
        .iter()
        .map(|(f, path)| {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            let tmp = path.with_file_name(format!(
                ".{}.codegen-new",
                path.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            ));
            std::fs::write(&tmp, &f.contents).map_err(io(&tmp))?;
            Ok((tmp, path))
        })
        .collect::<Result<_, EmitError>>()
        .inspect_err(|_| remove_staged(&writes))?;
    for (tmp, path) in &staged {
        std::fs::rename(tmp, path).map_err(io(path))?;
    }
    for rel in &stale {
        let path = dir.join(rel);
        std::fs::remove_file(&path).map_err(io(&path))?;
    }
    Ok(changed)
}

/// Removes the temporary files of a staged write that failed.
fn remove_staged(writes: &[(&GeneratedFile, PathBuf)]) {
    for (_, path) in writes {
        if let Some(name) = path.file_name() {
            let tmp = path.with_file_name(format!(".{}.codegen-new", name.to_string_lossy()));
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// The files under `dir` the generator owns, as `/`-separated paths relative to `root`.
fn owned_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in rd.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || (dir == root && (name == "target" || name == "Cargo.lock")) {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            owned_files(root, &path, out);
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn check_mode_detects_stale_and_extra_files() {
        let dir = std::env::temp_dir().join(format!("codegen-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let f = format_file(
            "a.rs",
            &preamble(&["docs-src/x.txt (CUDA 13.2)".into()], "cudarc 0.19.10"),
            quote! { pub struct A; },
        )
        .expect("formats");
        assert!(f.contents.starts_with("// @generated"));
        assert!(f.contents.contains("pub struct A;"));
        assert_eq!(
            write_all(&dir, std::slice::from_ref(&f), false).expect("writes"),
            vec!["a.rs"]
        );
        assert!(write_all(&dir, std::slice::from_ref(&f), true)
            .expect("fresh")
            .is_empty());
        std::fs::write(dir.join("a.rs"), "edited").expect("edit");
        assert!(
            matches!(write_all(&dir, std::slice::from_ref(&f), true), Err(EmitError::Stale(v)) if v == ["a.rs"])
        );
        write_all(&dir, std::slice::from_ref(&f), false).expect("rewrites");
        std::fs::write(dir.join("old.rs"), "").expect("extra");
        let err = write_all(&dir, std::slice::from_ref(&f), true).expect_err("extra file is stale");
        assert!(
            err.to_string().contains("old.rs") && err.to_string().contains("cargo xtask codegen")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn comment_markers_become_comments_at_their_indentation() {
        let c = comment("SAFETY: a \"quoted\" reason");
        let f = format_file("c.rs", "", quote! { fn f() -> u8 { #c unsafe { g() } } })
            .expect("formats");
        assert!(
            f.contents
                .contains("    // SAFETY: a \"quoted\" reason\n    unsafe { g() }"),
            "{}",
            f.contents
        );
        assert!(!f.contents.contains(COMMENT_MARKER));
    }

    #[test]
    fn marker_statements_over_several_lines_and_unknown_markers() {
        let id = comment_id("known text");
        let text = format!(
            "fn f() {{\n    let x = \"{COMMENT_MARKER}(1);\";\n    {COMMENT_MARKER}(\n        {id}\n    );\n    {COMMENT_MARKER}(999999);\n}}"
        );
        assert_eq!(
            comments(&text),
            format!(
                "fn f() {{\n    let x = \"{COMMENT_MARKER}(1);\";\n    // known text\n    {COMMENT_MARKER}(999999);\n}}\n"
            )
        );
    }

    #[test]
    fn a_crate_folder_is_written_whole_and_build_output_is_left_alone() {
        let dir = std::env::temp_dir().join(format!("codegen-crate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let files = vec![
            GeneratedFile {
                name: "Cargo.toml".into(),
                contents: "[package]\n".into(),
            },
            GeneratedFile {
                name: "src/sys/a.rs".into(),
                contents: "// a\n".into(),
            },
        ];
        let written = write_all(&dir, &files, false).expect("writes");
        assert_eq!(written, ["Cargo.toml", "src/sys/a.rs"]);
        std::fs::create_dir_all(dir.join("target/debug")).expect("target");
        std::fs::write(dir.join("target/debug/x"), "").expect("build output");
        std::fs::write(dir.join("Cargo.lock"), "").expect("lock");
        std::fs::write(dir.join("src/sys/old.rs"), "").expect("stale");
        let err = write_all(&dir, &files, true).expect_err("old.rs is stale");
        assert!(
            err.to_string()
                .contains("src/sys/old.rs (no longer generated)"),
            "{err}"
        );
        assert!(!err.to_string().contains("target"), "{err}");
        write_all(&dir, &files, false).expect("removes the stale file");
        assert!(!dir.join("src/sys/old.rs").exists());
        assert!(dir.join("target/debug/x").exists() && dir.join("Cargo.lock").exists());
        assert!(write_all(&dir, &files, true).expect("fresh").is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_folder_read_beforehand_is_what_new_files_are_compared_with() {
        let dir = std::env::temp_dir().join(format!("codegen-ondisk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).expect("dir");
        std::fs::write(dir.join("src/a.rs"), "a").expect("a");
        std::fs::write(dir.join("old.rs"), "old").expect("old");
        std::fs::write(dir.join("Cargo.lock"), "lock").expect("lock");
        let on_disk = OnDisk::read(&dir);
        let mut owned = on_disk.owned.clone();
        owned.sort();
        assert_eq!(owned, ["old.rs", "src/a.rs"]);
        let files = vec![GeneratedFile {
            name: "src/a.rs".into(),
            contents: "a".into(),
        }];
        let err = write_all_over(&dir, &on_disk, &files, true).expect_err("old.rs is stale");
        assert_eq!(
            err.to_string(),
            EmitError::Stale(vec!["old.rs (no longer generated)".into()]).to_string()
        );
        let changed = write_all_over(&dir, &on_disk, &files, false).expect("writes");
        assert_eq!(changed, ["old.rs (no longer generated)"]);
        assert!(!dir.join("old.rs").exists() && dir.join("Cargo.lock").exists());
        let missing = OnDisk::read(&dir.join("none"));
        assert!(missing.owned.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_write_that_fails_part_way_leaves_the_folder_as_it_was() {
        let dir = std::env::temp_dir().join(format!("codegen-staged-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("a.rs"), "old a").expect("a");
        // `b` cannot be written: a folder stands where its parent folder should be.
        std::fs::write(dir.join("blocked"), "a file, not a folder").expect("blocker");
        let files = vec![
            GeneratedFile {
                name: "a.rs".into(),
                contents: "new a".into(),
            },
            GeneratedFile {
                name: "blocked/b.rs".into(),
                contents: "b".into(),
            },
        ];
        assert!(write_all(&dir, &files, false).is_err());
        assert_eq!(
            std::fs::read_to_string(dir.join("a.rs")).expect("a"),
            "old a"
        );
        let leftovers: Vec<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".codegen-new"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unparsable_tokens_are_an_error_not_a_panic() {
        let bad: TokenStream = "fn (".parse().unwrap_or_default();
        assert!(
            format_file("b.rs", "", bad).is_err()
                || format_file("b.rs", "", quote! { fn }).is_err()
        );
    }
}
