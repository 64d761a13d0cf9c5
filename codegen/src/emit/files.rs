//! Writing generated files: formatting with prettyplease, the provenance preamble, and the
//! rust-analyzer-style freshness check (`cargo xtask codegen --check`).
//!
//! Generated code is built with `quote!` and formatted with
//! `prettyplease::unparse(&syn::parse2(tokens)?)` ([`format_body`]), or built directly as a
//! syntax tree from parsed `quote!` templates where many items share a few shapes (enums, raw
//! functions, records, audit tables, and the typed layer through [`super::fill`]), then
//! printed the same way ([`print_body`]) — never string templates.

use std::path::Path;

use proc_macro2::TokenStream;

/// A failure to format or write generated code.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("generated code for {file} does not parse as Rust: {message}")]
    Syntax { file: String, message: String },
    #[error("{} generated file(s) are stale: {}; run `cargo xtask codegen`", .0.len(), .0.join(", "))]
    Stale(Vec<String>),
    #[error(transparent)]
    Output(Box<crate::output::OutputError>),
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

/// Formats `tokens` (items of the file `name`, for messages) as Rust text.
pub fn format_body(name: &str, tokens: TokenStream) -> Result<String, EmitError> {
    let file = syn::parse2(tokens).map_err(|e| EmitError::Syntax {
        file: name.to_string(),
        message: e.to_string(),
    })?;
    Ok(print_body(&file))
}

/// `file` as Rust text: prettyplease, then the comment markers expanded.
pub fn print_body(file: &syn::File) -> String {
    comments(&prettyplease::unparse(file))
}

/// The marker emitters write where the output needs a `//` comment (comments inside `quote!`
/// never reach the tokens): `__comment!("text");` as a statement or item.
pub const COMMENT_MARKER: &str = "__comment!";

/// A `//` comment in the formatted output: `__comment!("text");` tokens, which [`print_body`]
/// turns into `// text` lines after formatting.
pub fn comment(text: &str) -> TokenStream {
    quote::quote! { __comment!(#text); }
}

/// [`comment`] as a statement's syntax tree (for code built from templates).
pub fn comment_stmt(text: &str) -> Result<syn::Stmt, syn::Error> {
    syn::parse2(comment(text))
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
            .and_then(|lit| syn::parse_str::<syn::LitStr>(lit.trim()).ok())
            .map(|lit| lit.value());
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

/// What the crate folder holds before a run writes it: the files its manifest lists (see
/// [`crate::output::folder`]), read whole (the folder is small: a few megabytes). Nothing is
/// read through a link, and only regular files are read.
#[derive(Debug, Default)]
pub struct OnDisk {
    /// Listed files (and the manifest), by `/`-separated path relative to the folder, with
    /// their bytes (`None` where a file is listed but could not be read).
    files: foldhash::HashMap<String, Option<Vec<u8>>>,
    /// The paths the folder's manifest lists, sorted (empty without a manifest).
    listed: Vec<String>,
}

impl OnDisk {
    /// Reads the files `dir`'s manifest lists (nothing when `dir` does not exist or has none).
    pub fn read(dir: &Path) -> OnDisk {
        let listed: Vec<String> = crate::output::folder::read_manifest(dir)
            .map(|l| l.into_keys().collect())
            .unwrap_or_default();
        let files = listed
            .iter()
            .map(String::as_str)
            .chain([crate::output::folder::MANIFEST])
            .map(|rel| (rel.to_string(), read_own(&dir.join(rel))))
            .collect();
        OnDisk { files, listed }
    }

    /// The bytes of `rel` (a path relative to the folder) as the folder held them: from what
    /// was read, or from the disk for a path the manifest does not list.
    fn current(&self, dir: &Path, rel: &str) -> Option<std::borrow::Cow<'_, [u8]>> {
        match self.files.get(rel) {
            Some(bytes) => bytes.as_deref().map(std::borrow::Cow::Borrowed),
            None => read_own(&dir.join(rel)).map(std::borrow::Cow::Owned),
        }
    }
}

/// The bytes of the regular file `path`, not through a link (`None` for anything else).
fn read_own(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let mut f = options.open(path).ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    f.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// How [`write_all`] treats the folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Compare only: a difference is [`EmitError::Stale`].
    Check,
    /// Replace the generated files; `adopt`: also a folder without a manifest (see
    /// [`crate::output::folder::check_writable`]).
    Write { adopt: bool },
}

/// Writes `files` into the crate folder `dir`, or in check mode compares them with what is
/// there. Returns the paths written (empty when up to date).
///
/// The generator owns the files it wrote, as the folder's manifest lists them (with their
/// hashes, written with `files`): a listed file that is not in `files` any more is removed
/// while unchanged, or reported as stale in check mode. Check mode also reports every file
/// the manifest does not list (a `build.rs` or `tests/extra.rs` cargo would build), except
/// the build's `target/` and `Cargo.lock`, and what an unfinished run left. Writing goes
/// through [`crate::output::folder::replace`], which replaces or removes only the generator's
/// own unchanged files; its notes (files set aside or kept) go to standard error.
pub fn write_all(
    dir: &Path,
    files: &[GeneratedFile],
    mode: Mode,
) -> Result<Vec<String>, EmitError> {
    use crate::output::folder;
    let on_disk = OnDisk::read(dir);
    let manifest = folder::manifest_text(
        files
            .iter()
            .map(|f| (f.name.as_str(), f.contents.as_bytes())),
    );
    let mut all: Vec<(&str, &[u8])> = files
        .iter()
        .filter(|f| f.name != folder::MANIFEST)
        .map(|f| (f.name.as_str(), f.contents.as_bytes()))
        .collect();
    all.push((folder::MANIFEST, manifest.as_bytes()));
    let mut changed: Vec<String> = all
        .iter()
        .filter(|(name, bytes)| on_disk.current(dir, name).as_deref() != Some(*bytes))
        .map(|(name, _)| name.to_string())
        .collect();
    let generated: foldhash::HashSet<&str> = all.iter().map(|(n, _)| *n).collect();
    changed.extend(
        on_disk
            .listed
            .iter()
            .filter(|rel| !generated.contains(rel.as_str()))
            .map(|rel| format!("{rel} (no longer generated)")),
    );
    let map = |e: crate::output::OutputError| EmitError::Output(Box::new(e));
    match mode {
        Mode::Check => {
            let listed: foldhash::HashSet<&str> =
                on_disk.listed.iter().map(String::as_str).collect();
            changed.extend(
                unexpected(dir)
                    .into_iter()
                    .filter(|rel| {
                        !generated.contains(rel.as_str()) && !listed.contains(rel.as_str())
                    })
                    .map(|rel| format!("{rel} (not generated: a file the manifest does not list)")),
            );
            if changed.is_empty() {
                Ok(changed)
            } else {
                Err(EmitError::Stale(changed))
            }
        }
        Mode::Write { adopt } => {
            if !changed.is_empty() || folder::has_leftovers(dir) {
                let notes = folder::replace(dir, &all, adopt).map_err(map)?;
                use std::io::Write;
                let mut err = std::io::stderr().lock();
                for n in notes {
                    // Best-effort: a closed standard error is no reason to fail.
                    let _ = writeln!(err, "{}: {n}", dir.display());
                }
            }
            Ok(changed)
        }
    }
}

/// Every file under the crate folder `dir` (not through links; a link or any other
/// non-folder counts as a file), relative, except the build's `target/` and `Cargo.lock`.
fn unexpected(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>, budget: &mut usize) {
        let Ok(entries) = std::fs::read_dir(dir.join(rel)) else {
            return;
        };
        for e in entries.flatten() {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let name = e.file_name().to_string_lossy().into_owned();
            let r = if rel.is_empty() {
                if name == "target" || name == "Cargo.lock" {
                    continue;
                }
                name
            } else {
                format!("{rel}/{name}")
            };
            match e.file_type() {
                Ok(t) if t.is_dir() => walk(dir, &r, out, budget),
                _ => out.push(r),
            }
        }
    }
    let mut out = Vec::new();
    // A bound on the walk: a folder of a million files is reported by its first 100,000.
    let mut budget = 100_000;
    walk(dir, "", &mut out, &mut budget);
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    const WRITE: Mode = Mode::Write { adopt: false };

    #[test]
    fn check_mode_detects_stale_and_edited_files() {
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
            write_all(&dir, std::slice::from_ref(&f), WRITE).expect("writes"),
            vec!["a.rs", crate::output::folder::MANIFEST]
        );
        assert!(write_all(&dir, std::slice::from_ref(&f), Mode::Check)
            .expect("fresh")
            .is_empty());
        std::fs::write(dir.join("a.rs"), "edited").expect("edit");
        assert!(
            matches!(write_all(&dir, std::slice::from_ref(&f), Mode::Check), Err(EmitError::Stale(v)) if v == ["a.rs"])
        );
        write_all(&dir, std::slice::from_ref(&f), WRITE).expect("rewrites");
        // A file the generator did not write is reported by the check (cargo may build it)
        // and left alone by a run.
        std::fs::write(dir.join("build.rs"), "fn main() {}").expect("extra");
        let err = write_all(&dir, std::slice::from_ref(&f), Mode::Check).expect_err("build.rs");
        assert!(err.to_string().contains("build.rs (not generated"), "{err}");
        write_all(&dir, std::slice::from_ref(&f), WRITE).expect("writes");
        assert_eq!(
            std::fs::read_to_string(dir.join("build.rs")).expect("kept"),
            "fn main() {}"
        );
        std::fs::remove_file(dir.join("build.rs")).expect("removed by the user");
        // A file it wrote and no longer generates is stale.
        let err = write_all(&dir, &[], Mode::Check).expect_err("a.rs is stale");
        assert!(
            err.to_string().contains("a.rs (no longer generated)")
                && err.to_string().contains("cargo xtask codegen"),
            "{err}"
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
        let text = format!(
            "fn f() {{\n    let x = \"{COMMENT_MARKER}(1);\";\n    {COMMENT_MARKER}(\n        \"known text\"\n    );\n    {COMMENT_MARKER}(999999);\n}}"
        );
        assert_eq!(
            comments(&text),
            format!(
                "fn f() {{\n    let x = \"{COMMENT_MARKER}(1);\";\n    // known text\n    {COMMENT_MARKER}(999999);\n}}\n"
            )
        );
    }

    #[test]
    fn a_crate_folder_is_written_whole_and_other_files_are_left_alone() {
        let dir = std::env::temp_dir().join(format!("codegen-crate-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let file = |name: &str, contents: &str| GeneratedFile {
            name: name.into(),
            contents: contents.into(),
        };
        let files = vec![
            file("Cargo.toml", "[package]\n"),
            file("src/sys/a.rs", "// a\n"),
        ];
        let written = write_all(&dir, &files, WRITE).expect("writes");
        assert_eq!(
            written,
            [
                "Cargo.toml",
                "src/sys/a.rs",
                crate::output::folder::MANIFEST
            ]
        );
        std::fs::create_dir_all(dir.join("target/debug")).expect("target");
        std::fs::write(dir.join("target/debug/x"), "").expect("build output");
        std::fs::write(dir.join("Cargo.lock"), "").expect("lock");
        std::fs::write(dir.join("src/sys/mine.rs"), "").expect("the user's");
        let next = vec![
            file("Cargo.toml", "[package]\n"),
            file("src/sys/b.rs", "// b\n"),
        ];
        let err = write_all(&dir, &next, Mode::Check).expect_err("a.rs is stale");
        assert!(
            err.to_string()
                .contains("src/sys/a.rs (no longer generated)"),
            "{err}"
        );
        assert!(
            !err.to_string().contains("target") && !err.to_string().contains("Cargo.lock"),
            "{err}"
        );
        assert!(
            err.to_string().contains("src/sys/mine.rs (not generated"),
            "{err}"
        );
        let changed = write_all(&dir, &next, WRITE).expect("writes");
        assert_eq!(
            changed,
            [
                "src/sys/b.rs",
                crate::output::folder::MANIFEST,
                "src/sys/a.rs (no longer generated)"
            ]
        );
        assert!(!dir.join("src/sys/a.rs").exists() && dir.join("src/sys/b.rs").exists());
        for kept in ["target/debug/x", "Cargo.lock", "src/sys/mine.rs"] {
            assert!(dir.join(kept).exists(), "{kept}");
        }
        std::fs::remove_file(dir.join("src/sys/mine.rs")).expect("the user's, removed");
        assert!(write_all(&dir, &next, Mode::Check)
            .expect("fresh")
            .is_empty());
        assert!(OnDisk::read(&dir.join("none")).listed.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_write_that_fails_part_way_leaves_the_folder_as_it_was() {
        let dir = std::env::temp_dir().join(format!("codegen-staged-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let file = |name: &str, contents: &str| GeneratedFile {
            name: name.into(),
            contents: contents.into(),
        };
        write_all(&dir, &[file("a.rs", "old a")], WRITE).expect("first run");
        // The second cannot be written: its file name is too long for the file system.
        let long = format!("src/{}.rs", "b".repeat(300));
        let files = vec![file("a.rs", "new a"), file(&long, "b")];
        assert!(write_all(&dir, &files, WRITE).is_err());
        assert_eq!(
            std::fs::read_to_string(dir.join("a.rs")).expect("a"),
            "old a"
        );
        let parent = dir.parent().expect("parent");
        let stem = dir
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let leftovers: Vec<String> = std::fs::read_dir(parent)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&format!(".{stem}.codegen-")))
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
