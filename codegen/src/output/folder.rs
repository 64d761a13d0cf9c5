//! A generated crate folder, replaced whole: what `cargo xtask codegen` writes into `DIR`.
//!
//! - **A manifest says what is ours.** `DIR/.codegen-manifest` lists every file the generator
//!   wrote there. A run replaces exactly those; every other file (the build's `target/` and
//!   `Cargo.lock`, the user's notes, links) is moved into the new crate as it is, never
//!   followed, never deleted. A non-empty folder without a manifest is refused unless the
//!   caller adopts it ([`check_writable`]).
//! - **One step.** The new crate is written whole into a hidden sibling
//!   (`.DIR.codegen-new-<pid>-<n>`), then exchanged with `DIR` in one `renameat2(RENAME_EXCHANGE)`
//!   (where the file system cannot, `DIR` is renamed aside and the new one renamed into place),
//!   so at every instant `DIR` is the old crate or the new one, whole. The other files are then
//!   moved across and the old crate deleted.
//! - **Leftovers are finished.** A run killed at any point leaves at most hidden siblings
//!   `.DIR.codegen-*`; the next run recognises them, moves any file that is not the
//!   generator's back into `DIR` (or puts the old crate back where `DIR` is missing), and
//!   removes them.
//! - **One run at a time.** Runs writing into the same parent folder hold an exclusive lock
//!   on it (`flock`); a second run waits, saying so.
//!
//! It does not decide what the files hold ([`crate::emit`]) nor compare them with the folder
//! ([`crate::emit::files`]).

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use super::{io, OutputError};

/// The manifest's file name in a generated folder.
pub const MANIFEST: &str = ".codegen-manifest";

/// The manifest's first lines.
const HEADER: &str = "# The files `cargo xtask codegen` wrote into this folder, one a line. The next run replaces\n# exactly these and leaves every other file here alone. Written by the generator: do not edit.\n";

/// The largest manifest read (a real one is a few kilobytes).
const MAX_MANIFEST: u64 = 16 << 20;

/// The manifest's text for the generated files `names` (paths relative to the folder).
pub fn manifest_text<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let sorted: BTreeSet<&str> = names.into_iter().filter(|n| *n != MANIFEST).collect();
    let mut text = String::from(HEADER);
    for n in sorted {
        text.push_str(n);
        text.push('\n');
    }
    text
}

/// The paths a manifest's text lists; `None` when it is not a manifest: a line that is not a
/// plain relative path (absolute, with `..`, `.` or an empty part) makes the whole manifest
/// untrusted, so that no edited manifest can make a run replace a file outside the folder.
pub fn parse_manifest(text: &str) -> Option<BTreeSet<String>> {
    if !text.starts_with(HEADER.lines().next().unwrap_or("#")) {
        return None;
    }
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if !is_plain_relative(line) {
            return None;
        }
        out.insert(line.to_string());
    }
    Some(out)
}

/// Whether `p` is a `/`-separated relative path of normal parts only.
fn is_plain_relative(p: &str) -> bool {
    !p.is_empty()
        && !p.contains(['\\', '\0'])
        && p.split('/').all(|part| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && Path::new(part).components().count() == 1
                && matches!(
                    Path::new(part).components().next(),
                    Some(Component::Normal(_))
                )
        })
}

/// What an output folder holds before a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// No such folder yet.
    Absent,
    /// A folder with nothing in it.
    Empty,
    /// A folder this generator wrote: the files its manifest lists.
    Generated(BTreeSet<String>),
    /// A folder with files and no (valid) manifest.
    Foreign,
}

/// What `dir` holds. A link, or anything but a folder, at `dir` is an error: the generator
/// never writes through a link.
pub fn state(dir: &Path) -> Result<State, OutputError> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::Absent),
        Err(e) => return Err(io(dir)(e)),
    };
    if meta.file_type().is_symlink() {
        return Err(foreign(
            dir,
            "is a symbolic link; give the folder it names (the generator does not write through links)".into(),
        ));
    }
    if !meta.is_dir() {
        return Err(foreign(
            dir,
            format!(
                "is {}, not a folder",
                crate::load::file_kind(&meta.file_type())
            ),
        ));
    }
    if let Some(listed) = read_manifest(dir) {
        return Ok(State::Generated(listed));
    }
    let mut entries = std::fs::read_dir(dir).map_err(io(dir))?;
    Ok(if entries.next().is_none() {
        State::Empty
    } else {
        State::Foreign
    })
}

/// The files `dir`'s manifest lists, when it has a valid one (a regular file, not a link).
pub fn read_manifest(dir: &Path) -> Option<BTreeSet<String>> {
    let path = dir.join(MANIFEST);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_MANIFEST {
        return None;
    }
    let text = std::fs::read_to_string(&path).ok()?;
    parse_manifest(&text)
}

fn foreign(dir: &Path, why: String) -> OutputError {
    OutputError::Foreign {
        dir: dir.to_path_buf(),
        why,
    }
}

/// Checks that a run may write `dir`: it is missing, empty, or a folder this generator wrote
/// (or `adopt` is set). Called before any work, and again under the lock when writing.
pub fn check_writable(dir: &Path, adopt: bool) -> Result<State, OutputError> {
    let st = state(dir)?;
    if st == State::Foreign && !adopt {
        return Err(foreign(
            dir,
            format!("holds files that `cargo xtask codegen` did not write (it has no {MANIFEST}); the generator writes only into a new or empty folder or one it wrote; choose another folder, or pass --adopt to make it the generator's (the files it generates are then replaced, every other file stays)"),
        ));
    }
    Ok(st)
}

/// Replaces the generated files of the folder `dir` with `files` (paths relative to `dir`,
/// with their bytes; one of them should be the manifest, [`manifest_text`] of all of them),
/// as the module says: whole, in one step, under the lock. A folder without a manifest is
/// refused unless `adopt`.
pub fn replace(dir: &Path, files: &[(&str, &[u8])], adopt: bool) -> Result<(), OutputError> {
    let dir = std::path::absolute(dir).map_err(io(dir))?;
    let (parent, name) = match (dir.parent(), dir.file_name()) {
        (Some(p), Some(n)) => (p.to_path_buf(), n.to_string_lossy().into_owned()),
        _ => {
            return Err(foreign(
                &dir,
                "is not a folder a crate can be written to".into(),
            ))
        }
    };
    for (f, _) in files {
        if !is_plain_relative(f) {
            return Err(foreign(
                &dir,
                format!("a generated file has a path that is not plain: `{f}` (a bug: please report it)"),
            ));
        }
    }
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let _lock = Lock::take(&parent, &dir)?;
    recover(&parent, &name, &dir)?;
    let st = check_writable(&dir, adopt)?;
    let listed = match &st {
        State::Generated(l) => Some(l.clone()),
        State::Absent | State::Empty => Some(BTreeSet::new()),
        State::Foreign => None,
    };
    if let Some(listed) = &listed {
        refuse_overwriting(&dir, files, listed)?;
    }
    let staging = parent.join(format!(
        ".{name}.codegen-new-{}-{}",
        std::process::id(),
        super::unique()
    ));
    let mut guard = Staging(Some(staging.clone()));
    write_tree(&staging, files, &dir)?;
    if st == State::Absent {
        std::fs::rename(&staging, &dir).map_err(io(&dir))?;
        guard.0 = None;
        return Ok(());
    }
    let old = parent.join(format!(
        ".{name}.codegen-old-{}-{}",
        std::process::id(),
        super::unique()
    ));
    let old_at = if exchange(&staging, &dir).map_err(io(&dir))? {
        // The old crate is now at the staging path: named for what it is (a kill before this
        // rename leaves it under the staging name, which the next run handles the same way).
        match std::fs::rename(&staging, &old) {
            Ok(()) => old,
            Err(_) => staging.clone(),
        }
    } else {
        std::fs::rename(&dir, &old).map_err(io(&dir))?;
        if let Err(e) = std::fs::rename(&staging, &dir) {
            let _ = std::fs::rename(&old, &dir);
            return Err(io(&dir)(e));
        }
        old
    };
    guard.0 = None;
    carry(&old_at, &dir, listed.as_ref())?;
    std::fs::remove_dir_all(&old_at).map_err(io(&old_at))?;
    Ok(())
}

/// Refuses to write a generated file where the folder holds a file (or a link, or a file
/// where a folder of the path is) that its manifest does not list: that file is not ours.
fn refuse_overwriting(
    dir: &Path,
    files: &[(&str, &[u8])],
    listed: &BTreeSet<String>,
) -> Result<(), OutputError> {
    let mut checked = BTreeSet::new();
    for (f, _) in files {
        if *f == MANIFEST {
            continue;
        }
        let parts: Vec<&str> = f.split('/').collect();
        for k in 1..=parts.len() {
            let rel = parts[..k].join("/");
            if !checked.insert(rel.clone()) {
                continue;
            }
            let last = k == parts.len();
            let Ok(meta) = std::fs::symlink_metadata(dir.join(&rel)) else {
                break;
            };
            let ours = if last {
                listed.contains(&rel)
            } else {
                meta.is_dir()
            };
            if !ours {
                return Err(foreign(
                    dir,
                    format!("`{rel}` is not a file the generator wrote here (its {MANIFEST} does not list it), and the new crate has a file at {f}; move it away, or pass --adopt to let the generated file replace it"),
                ));
            }
        }
    }
    Ok(())
}

/// Removes a staging folder that was not moved into place (a failed write).
struct Staging(Option<PathBuf>);

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

/// Writes `files` into the new folder `root`, the manifest first (so a folder cut short by a
/// kill lists every file it holds); a failure names the file under `shown`, the folder `root`
/// is made to become.
fn write_tree(root: &Path, files: &[(&str, &[u8])], shown: &Path) -> Result<(), OutputError> {
    std::fs::create_dir(root).map_err(io(shown))?;
    let manifest_first = files
        .iter()
        .filter(|(f, _)| *f == MANIFEST)
        .chain(files.iter().filter(|(f, _)| *f != MANIFEST));
    for (f, bytes) in manifest_first {
        let path = root.join(f);
        let named = shown.join(f);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(io(&named))?;
        }
        use std::io::Write;
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut w| w.write_all(bytes))
            .map_err(io(&named))?;
    }
    Ok(())
}

/// Moves every entry of the folder `from` that its manifest `listed` does not list (`None`:
/// nothing is listed) to the same place under `to`, without following links: a folder holding
/// no listed file moves whole (the build's `target/`), one holding listed files is entered.
/// An entry whose place under `to` is taken by a generated file stays, and goes with `from`:
/// that happens only where the caller adopted a folder (or a leftover of such a run), whose
/// files the generated ones replace.
fn carry(from: &Path, to: &Path, listed: Option<&BTreeSet<String>>) -> Result<(), OutputError> {
    let empty = BTreeSet::new();
    let listed = listed.unwrap_or(&empty);
    let mut listed_dirs: BTreeSet<String> = BTreeSet::new();
    for f in listed {
        let mut at = f.as_str();
        while let Some(i) = at.rfind('/') {
            at = &at[..i];
            listed_dirs.insert(at.to_string());
        }
    }
    carry_in(from, to, "", listed, &listed_dirs)
}

fn carry_in(
    from: &Path,
    to: &Path,
    rel: &str,
    listed: &BTreeSet<String>,
    listed_dirs: &BTreeSet<String>,
) -> Result<(), OutputError> {
    let here = from.join(rel);
    let mut entries: Vec<_> = std::fs::read_dir(&here)
        .map_err(io(&here))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let r = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let Ok(kind) = e.file_type() else { continue };
        if (rel.is_empty() && name == MANIFEST) || listed.contains(&r) {
            continue;
        }
        // The hidden staging files of generators before this one: theirs, not the user's.
        if name.starts_with('.') && name.ends_with(".codegen-new") && kind.is_file() {
            continue;
        }
        let dest = to.join(&r);
        let taken = std::fs::symlink_metadata(&dest);
        if kind.is_dir() && listed_dirs.contains(&r) {
            match taken {
                Ok(m) if m.is_dir() => {}
                Ok(_) => continue,
                Err(_) => std::fs::create_dir(&dest).map_err(io(&dest))?,
            }
            carry_in(from, to, &r, listed, listed_dirs)?;
        } else if taken.is_err() {
            std::fs::rename(e.path(), &dest).map_err(io(&dest))?;
        }
    }
    Ok(())
}

/// Finishes, under the lock, what killed runs left beside `dir` (see [`recover`]); nothing to do
/// (and no lock taken) when there is no leftover.
pub fn finish_leftovers(dir: &Path) -> Result<(), OutputError> {
    let dir = std::path::absolute(dir).map_err(io(dir))?;
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Ok(());
    };
    let prefix = format!(".{}.codegen-", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Ok(());
    };
    let any = entries
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().starts_with(&prefix));
    if !any {
        return Ok(());
    }
    let _lock = Lock::take(parent, &dir)?;
    recover(parent, &name.to_string_lossy(), &dir)
}

/// Finishes what killed runs left beside `dir` (hidden siblings `.NAME.codegen-*`): an old
/// crate is put back where `dir` is missing; otherwise every file in a leftover that is not the
/// generator's goes back into `dir`, and the leftover is removed.
fn recover(parent: &Path, name: &str, dir: &Path) -> Result<(), OutputError> {
    let prefix = format!(".{name}.codegen-");
    let mut leftovers: Vec<(bool, PathBuf)> = std::fs::read_dir(parent)
        .map_err(io(parent))?
        .filter_map(Result::ok)
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            let rest = n.strip_prefix(&prefix)?;
            Some((!rest.starts_with("old-"), e.path()))
        })
        .collect();
    // Old crates first: one of them may have to go back into place.
    leftovers.sort();
    for (_, path) in leftovers {
        let meta = std::fs::symlink_metadata(&path).map_err(io(&path))?;
        if !meta.is_dir() {
            std::fs::remove_file(&path).map_err(io(&path))?;
            continue;
        }
        let is_old = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{prefix}old-")));
        if is_old && std::fs::symlink_metadata(dir).is_err() {
            std::fs::rename(&path, dir).map_err(io(dir))?;
            continue;
        }
        if std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
            carry(&path, dir, read_manifest(&path).as_ref())?;
        }
        std::fs::remove_dir_all(&path).map_err(io(&path))?;
    }
    Ok(())
}

/// Exchanges the folders `a` and `b` in one step; `Ok(false)` where the system or the file
/// system cannot (the caller then renames in two steps).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both paths are NUL-terminated strings that live across the call; renameat2
    // reads them and touches no memory of ours.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Runs of this process take turns without a word (the workspace's crates are written by two
/// threads into one parent folder); the file lock is for other processes.
static IN_PROCESS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// An exclusive lock on the folder that holds the output, held until dropped.
struct Lock {
    _file: std::fs::File,
    _turn: std::sync::MutexGuard<'static, ()>,
}

impl Lock {
    /// Locks `parent` (for writing `dir`), waiting for another run that holds it.
    fn take(parent: &Path, dir: &Path) -> Result<Lock, OutputError> {
        let turn = IN_PROCESS.lock().unwrap_or_else(|e| e.into_inner());
        let file = std::fs::File::open(parent).map_err(io(parent))?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            let fd = file.as_raw_fd();
            // SAFETY: `fd` is an open descriptor owned by `file` for the whole call.
            if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
                    return Err(io(parent)(e));
                }
                // Said on standard error, best-effort (a closed one is no reason to fail).
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "{}: another run is writing a crate in this folder; waiting for it",
                    dir.display()
                );
                loop {
                    // SAFETY: as above.
                    if unsafe { libc::flock(fd, libc::LOCK_EX) } == 0 {
                        break;
                    }
                    let e = std::io::Error::last_os_error();
                    if e.kind() != std::io::ErrorKind::Interrupted {
                        return Err(io(parent)(e));
                    }
                }
            }
        }
        let _ = dir;
        Ok(Lock {
            _file: file,
            _turn: turn,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("codegen-folder-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp folder");
        dir
    }

    fn crate_files(version: &str) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = vec![
            ("Cargo.toml".into(), format!("v{version}").into_bytes()),
            ("src/lib.rs".into(), format!("lib {version}").into_bytes()),
            (format!("src/only_{version}.rs"), b"x".to_vec()),
        ];
        let text = manifest_text(files.iter().map(|(n, _)| n.as_str()));
        files.push((MANIFEST.into(), text.into_bytes()));
        files
    }

    fn write(dir: &Path, files: &[(String, Vec<u8>)], adopt: bool) -> Result<(), OutputError> {
        let refs: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        replace(dir, &refs, adopt)
    }

    /// Every file under `dir` (links as `-> target`), relative, with its contents.
    fn listing(dir: &Path) -> BTreeSet<String> {
        fn walk(root: &Path, at: &Path, out: &mut BTreeSet<String>) {
            for e in std::fs::read_dir(at).expect("dir").flatten() {
                let p = e.path();
                let rel = p
                    .strip_prefix(root)
                    .expect("under")
                    .to_string_lossy()
                    .into_owned();
                let t = e.file_type().expect("type");
                if t.is_symlink() {
                    let target = std::fs::read_link(&p).expect("link");
                    out.insert(format!("{rel} -> {}", target.display()));
                } else if t.is_dir() {
                    walk(root, &p, out);
                } else {
                    let body = std::fs::read(&p).expect("file");
                    out.insert(format!("{rel}: {}", String::from_utf8_lossy(&body)));
                }
            }
        }
        let mut out = BTreeSet::new();
        walk(dir, dir, &mut out);
        out
    }

    #[test]
    fn manifests_list_plain_relative_paths_only() {
        let text = manifest_text(["src/a.rs", "Cargo.toml", MANIFEST]);
        assert_eq!(
            parse_manifest(&text)
                .expect("reads")
                .into_iter()
                .collect::<Vec<_>>(),
            ["Cargo.toml", "src/a.rs"]
        );
        for bad in ["../x", "/etc/passwd", "src//a", "./a", "a/../../b", "a\\b"] {
            let t = format!("{HEADER}{bad}\n");
            assert_eq!(parse_manifest(&t), None, "{bad}");
        }
        assert_eq!(parse_manifest("Cargo.toml\n"), None, "no header");
    }

    #[test]
    fn a_run_replaces_only_what_it_wrote_and_never_follows_a_link() {
        let t = tmp("replace");
        let dir = t.join("crate");
        let outside = t.join("outside");
        std::fs::create_dir_all(&outside).expect("outside");
        std::fs::write(outside.join("thesis.tex"), "keep").expect("thesis");
        write(&dir, &crate_files("1"), false).expect("first run");
        // What building the crate and its user add.
        std::fs::create_dir_all(dir.join("target/debug")).expect("target");
        std::fs::write(dir.join("target/debug/x"), "build").expect("build output");
        std::fs::write(dir.join("notes.txt"), "notes").expect("notes");
        std::fs::write(dir.join("src/mine.rs"), "mine").expect("user file among generated");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, dir.join("linked")).expect("link");
            std::os::unix::fs::symlink(".", dir.join("self")).expect("self link");
        }
        write(&dir, &crate_files("2"), false).expect("second run");
        let got = listing(&dir);
        for want in [
            "Cargo.toml: v2",
            "src/lib.rs: lib 2",
            "src/only_2.rs: x",
            "target/debug/x: build",
            "notes.txt: notes",
            "src/mine.rs: mine",
        ] {
            assert!(got.contains(want), "{want} missing: {got:?}");
        }
        assert!(
            !got.iter().any(|l| l.starts_with("src/only_1.rs")),
            "{got:?}"
        );
        #[cfg(unix)]
        assert!(got.iter().any(|l| l.starts_with("linked -> ")), "{got:?}");
        assert_eq!(
            std::fs::read_to_string(outside.join("thesis.tex")).expect("kept"),
            "keep"
        );
        let siblings: Vec<String> = std::fs::read_dir(&t)
            .expect("t")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(siblings.len(), 2, "no leftovers: {siblings:?}");
        let _ = std::fs::remove_dir_all(&t);
    }

    #[test]
    fn a_folder_it_did_not_write_is_refused_unless_adopted() {
        let t = tmp("foreign");
        let dir = t.join("user");
        std::fs::create_dir_all(dir.join("mydata")).expect("user");
        std::fs::write(dir.join("mydata/important.csv"), "1,2,3").expect("csv");
        std::fs::write(dir.join("Cargo.toml"), "the user's").expect("toml");
        let before = listing(&dir);
        let e = write(&dir, &crate_files("1"), false).expect_err("refused");
        assert!(e.to_string().contains("--adopt"), "{e}");
        assert_eq!(listing(&dir), before);
        write(&dir, &crate_files("1"), true).expect("adopted");
        let got = listing(&dir);
        assert!(got.contains("mydata/important.csv: 1,2,3"), "{got:?}");
        assert!(got.contains("Cargo.toml: v1"), "{got:?}");
        // Now it is the generator's: a file the user adds where the next crate writes one is
        // refused, not replaced.
        std::fs::write(dir.join("src/only_2.rs"), "the user's").expect("user file");
        let e = write(&dir, &crate_files("2"), false).expect_err("refused");
        assert!(e.to_string().contains("src/only_2.rs"), "{e}");
        assert!(std::fs::read_to_string(dir.join(MANIFEST))
            .expect("manifest")
            .contains("src/only_1.rs"));
        let _ = std::fs::remove_dir_all(&t);
    }

    #[test]
    fn a_link_or_a_file_as_the_folder_is_refused() {
        let t = tmp("link");
        let real = t.join("real");
        std::fs::create_dir_all(&real).expect("real");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&real, t.join("link")).expect("link");
            let e = write(&t.join("link"), &crate_files("1"), true).expect_err("link");
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        std::fs::write(t.join("file"), "f").expect("file");
        let e = write(&t.join("file"), &crate_files("1"), true).expect_err("file");
        assert!(e.to_string().contains("not a folder"), "{e}");
        assert_eq!(std::fs::read_dir(&real).expect("real").count(), 0);
        let _ = std::fs::remove_dir_all(&t);
    }

    #[test]
    fn leftovers_of_killed_runs_are_finished_by_the_next_run() {
        let t = tmp("recover");
        let dir = t.join("crate");
        write(&dir, &crate_files("1"), false).expect("first run");
        std::fs::write(dir.join("notes.txt"), "notes").expect("notes");
        // A run killed after the exchange: the old crate, with the user's file, under the
        // staging name; the new one in place without it.
        let old = t.join(".crate.codegen-new-1-0");
        std::fs::rename(&dir, &old).expect("aside");
        write_tree(&dir, &[], &dir).expect("new in place");
        let two = crate_files("2");
        for (n, b) in &two {
            let p = dir.join(n);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("parent");
            std::fs::write(p, b).expect("file");
        }
        // A run killed while writing its staging folder.
        let half = t.join(".crate.codegen-new-2-0");
        write_tree(
            &half,
            &[(MANIFEST, manifest_text(["a.rs"]).as_bytes())],
            &dir,
        )
        .expect("half");
        // A stray file under a leftover name.
        std::fs::write(t.join(".crate.codegen-new-3-0"), "x").expect("stray");
        write(&dir, &crate_files("2"), false).expect("next run");
        let got = listing(&dir);
        assert!(got.contains("notes.txt: notes"), "{got:?}");
        assert!(got.contains("Cargo.toml: v2"), "{got:?}");
        assert_eq!(
            std::fs::read_dir(&t).expect("t").count(),
            1,
            "leftovers removed"
        );
        // A run killed between the two renames of the fallback: `crate` missing.
        std::fs::rename(&dir, t.join(".crate.codegen-old-4-0")).expect("aside");
        write_tree(&t.join(".crate.codegen-new-4-1"), &[], &dir).expect("new");
        write(&dir, &crate_files("3"), false).expect("recovers");
        let got = listing(&dir);
        assert!(
            got.contains("notes.txt: notes") && got.contains("Cargo.toml: v3"),
            "{got:?}"
        );
        assert_eq!(
            std::fs::read_dir(&t).expect("t").count(),
            1,
            "leftovers removed"
        );
        let _ = std::fs::remove_dir_all(&t);
    }
}
