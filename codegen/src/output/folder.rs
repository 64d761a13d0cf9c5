//! A generated crate folder, written in place: what `cargo xtask codegen` writes into `DIR`.
//!
//! - **It deletes only what it wrote, unchanged.** `DIR/.codegen-manifest` lists every file
//!   the generator wrote there with the SHA-256 of its bytes. A run replaces or removes a path
//!   only when it is a regular file whose bytes are those a manifest (or the journal) records.
//!   Anything else stays where it is: the build's `target/`, the user's files and folders, links
//!   (never followed), a file the user edited. A generated file the user edited, or (with
//!   `--adopt`) any file, folder or link where the new crate writes one, is set aside under a
//!   free name beside it (`PATH.codegen-kept-N`), with a message naming both; without
//!   `--adopt` a path the generator did not write is refused before anything changes. A file
//!   no longer generated that the user edited stays, with a message. Nothing is written or
//!   removed through a link or across a mount point.
//! - **In place, with a journal.** The folder itself never moves, so a shell, an editor or a
//!   watcher working inside it keeps working (rust-analyzer's `ensure_file_contents` is the
//!   model). A run first writes every new file into `DIR/.codegen-staging-*` and appends to
//!   `DIR/.codegen-journal` what the old and the new crate hold (paths and hashes); then it
//!   renames each new file over its path, removes the old crate's files that are not
//!   generated any more, writes the manifest last, and removes the staging folder and the
//!   journal. A run killed or failing part-way leaves generated files partly old and partly
//!   new (`--check` says the crate is stale) and the journal, by which the next run knows every
//!   file it may replace, and finishes. No user file is moved by a run, so every one stays
//!   where the user put it at every instant.
//! - **One run at a time.** Runs writing into the same parent folder hold an exclusive lock
//!   on it (`flock`); a second run waits, saying so.
//!
//! It does not decide what the files hold ([`crate::emit`]) nor compare them with the folder
//! ([`crate::emit::files`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use super::hash::sha256_hex;
use super::{io, OutputError};

/// The manifest's file name in a generated folder.
pub const MANIFEST: &str = ".codegen-manifest";

/// The journal of a run that has not finished, in the generated folder.
pub const JOURNAL: &str = ".codegen-journal";

/// The name every staging folder of a run starts with, in the generated folder.
const STAGING: &str = ".codegen-staging-";

/// The manifest's first lines.
const HEADER: &str = "# The files `cargo xtask codegen` wrote into this folder, each with the SHA-256 of its bytes.\n# A run replaces or removes a file only while its bytes are those; every other file here stays.\n# Written by the generator: do not edit.\n";

/// The first line of a manifest of the generators before hashes (paths only); such a listed
/// file is replaced only where its bytes are already the new ones, never removed.
const HEADER_PATHS_ONLY: &str =
    "# The files `cargo xtask codegen` wrote into this folder, one a line. The next run replaces";

/// The journal's first line.
const JOURNAL_HEADER: &str =
    "# codegen journal: a run writing this folder has not finished; the next run finishes it.\n";

/// The largest manifest or journal read (a real one is a few kilobytes).
const MAX_MANIFEST: u64 = 16 << 20;

/// What a manifest (or the journal) says the generator wrote: each path with the hashes of
/// the bytes it wrote there (none for a line of a manifest before hashes).
pub type Owned = BTreeMap<String, BTreeSet<String>>;

/// The manifest's text for the generated `files` (paths relative to the folder, with their
/// bytes; the manifest itself is left out).
pub fn manifest_text<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let sorted: BTreeMap<&str, String> = files
        .into_iter()
        .filter(|(n, _)| *n != MANIFEST)
        .map(|(n, b)| (n, sha256_hex(b)))
        .collect();
    let mut text = String::from(HEADER);
    for (n, h) in sorted {
        text.push_str(&h);
        text.push(' ');
        text.push_str(n);
        text.push('\n');
    }
    text
}

/// One line of a manifest or journal: `HASH PATH` or (before hashes) `PATH`; `None` when the
/// path is not plain.
fn entry(line: &str) -> Option<(String, Option<String>)> {
    let (hash, path) = match line.split_once(' ') {
        Some((h, p)) if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
            (Some(h.to_ascii_lowercase()), p)
        }
        _ => (None, line),
    };
    is_plain_relative(path).then(|| (path.to_string(), hash))
}

fn add(owned: &mut Owned, path: String, hash: Option<String>) {
    let hashes = owned.entry(path).or_default();
    if let Some(h) = hash {
        hashes.insert(h);
    }
}

/// The paths a manifest's text lists, with their hashes; `None` when it is not a manifest: a
/// line that is not a plain relative path (absolute, with `..`, `.` or an empty part) makes
/// the whole manifest untrusted.
pub fn parse_manifest(text: &str) -> Option<Owned> {
    let first = text.lines().next()?;
    if first != HEADER.lines().next()? && first != HEADER_PATHS_ONLY {
        return None;
    }
    let mut out = Owned::new();
    for line in text.lines() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let (path, hash) = entry(line)?;
        add(&mut out, path, hash);
    }
    Some(out)
}

/// Whether `p` is a `/`-separated relative path of normal parts only.
fn is_plain_relative(p: &str) -> bool {
    !p.is_empty()
        && !p.contains(['\\', '\0', '\n'])
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
    /// A folder this generator wrote: the files its manifest (and journal) list.
    Generated(Owned),
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
    let manifest = read_manifest(dir);
    let journal = read_journal(dir)?;
    if manifest.is_some() || journal.is_some() {
        let mut owned = manifest.unwrap_or_default();
        for (p, hashes) in journal.map(|j| j.owned).unwrap_or_default() {
            owned.entry(p).or_default().extend(hashes);
        }
        return Ok(State::Generated(owned));
    }
    let mut entries = std::fs::read_dir(dir).map_err(io(dir))?;
    Ok(if entries.next().is_none() {
        State::Empty
    } else {
        State::Foreign
    })
}

/// The bytes of the regular file `path`, not through a link, when at most `limit` (`None`
/// for anything else).
fn read_regular(path: &Path, limit: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let f = options.open(path).ok()?;
    let meta = f.metadata().ok()?;
    if !meta.is_file() || meta.len() > limit {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    f.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= limit).then_some(bytes)
}

/// The files `dir`'s manifest lists, with their hashes, when it has a valid one (a regular
/// file, not a link).
pub fn read_manifest(dir: &Path) -> Option<Owned> {
    let bytes = read_regular(&dir.join(MANIFEST), MAX_MANIFEST)?;
    parse_manifest(std::str::from_utf8(&bytes).ok()?)
}

/// What an unfinished run recorded: the files of the old and the new crate, and its staging
/// folders.
#[derive(Debug, Default)]
struct Journal {
    owned: Owned,
    staging: BTreeSet<String>,
}

/// `dir`'s journal, when there is one. A file of that name that is not a journal (not a
/// regular file, or without the journal's first line) is an error: it is the user's, and the
/// generator neither reads it as its own nor removes it.
fn read_journal(dir: &Path) -> Result<Option<Journal>, OutputError> {
    let path = dir.join(JOURNAL);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let text = read_regular(&path, MAX_MANIFEST)
        .and_then(|b| String::from_utf8(b).ok())
        .filter(|t| t.starts_with(JOURNAL_HEADER));
    let Some(text) = text else {
        return Err(foreign(
            dir,
            format!("`{JOURNAL}` is not a journal the generator wrote (the name is the one its journal takes); move it away, nothing was changed"),
        ));
    };
    let mut j = Journal::default();
    // A kill while appending may cut the last line: a line that does not read is skipped
    // (it only ever adds a claim).
    for line in text.lines().skip(1) {
        if let Some(name) = line.strip_prefix("staging ") {
            if name.starts_with(STAGING) && is_plain_relative(name) && !name.contains('/') {
                j.staging.insert(name.to_string());
            }
        } else if let Some((path, hash @ Some(_))) = entry(line) {
            add(&mut j.owned, path, hash);
        }
    }
    Ok(Some(j))
}

/// Whether `dir` holds what an unfinished run left: a journal (which names every staging
/// folder of the run before the folder exists, and goes after them).
pub fn has_leftovers(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(JOURNAL)).is_ok()
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
            format!("holds files that `cargo xtask codegen` did not write (it has no {MANIFEST}); the generator writes only into a new or empty folder or one it wrote; choose another folder, or pass --adopt to make it the generator's (a file of yours where the crate has one is then set aside beside it, every other file stays where it is)"),
        ));
    }
    Ok(st)
}

/// Writes the generated `files` (paths relative to `dir`, with their bytes; the manifest, when
/// among them, should be [`manifest_text`] of the others, and is made so when missing) into the
/// folder `dir`, as the module says: in place, under the lock, replacing or removing only what
/// the generator wrote. Returns the notes for the user: each file set aside or kept, by name.
pub fn replace(
    dir: &Path,
    files: &[(&str, &[u8])],
    adopt: bool,
) -> Result<Vec<String>, OutputError> {
    let dir = std::path::absolute(dir).map_err(io(dir))?;
    let parent = match (dir.parent(), dir.file_name()) {
        (Some(p), Some(_)) => p.to_path_buf(),
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
        // Refused before anything changes, rather than failing part-way.
        if f.split('/').any(|part| part.len() > 255) {
            return Err(io(&dir.join(f))(std::io::Error::other(
                "file name too long (over 255 bytes); nothing was changed",
            )));
        }
    }
    let computed;
    let manifest: &[u8] = match files.iter().find(|(f, _)| *f == MANIFEST) {
        Some((_, bytes)) => bytes,
        None => {
            computed = manifest_text(files.iter().copied());
            computed.as_bytes()
        }
    };
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .copied()
        .filter(|(f, _)| *f != MANIFEST)
        .collect();
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let _lock = Lock::take(&parent, &dir)?;
    let st = check_writable(&dir, adopt)?;
    if st == State::Absent {
        std::fs::create_dir(&dir).map_err(io(&dir))?;
    }
    let owned = match st {
        State::Generated(owned) => owned,
        _ => Owned::new(),
    };
    let plan = Plan::make(&dir, &files, manifest, &owned, adopt)?;
    let mut run = Run {
        dir: &dir,
        staging: None,
        staged: Vec::new(),
        notes: Vec::new(),
        #[cfg(test)]
        stop: STOP_AT.with(|s| s.take()),
        killed: false,
        made_journal: false,
        changed: false,
    };
    let done = run.execute(&plan, &files, manifest, &owned);
    if done.is_err() && !run.killed {
        run.clean_up();
    }
    done.map(|()| run.notes)
}

/// How a path the new crate writes stands.
#[derive(Debug, PartialEq, Eq)]
enum Way {
    /// Nothing there, or the generator's file: written.
    Write,
    /// Already these bytes.
    Same,
}

/// What a run will do, decided before it changes anything.
#[derive(Debug, Default)]
struct Plan {
    /// Indexes into the files, with what stands at their paths.
    ways: Vec<Way>,
    /// Paths set aside (a file the user edited, or what `--adopt` lets go aside), with why.
    aside: BTreeMap<String, &'static str>,
    /// The generator's own unchanged files standing where a folder of the new crate goes.
    remove_first: BTreeSet<String>,
    /// The old crate's files that are not generated any more (removed while unchanged).
    remove: Vec<String>,
    /// Whether the manifest changes.
    manifest_changes: bool,
}

/// The device of `meta` (where the file system can say).
fn device(meta: &std::fs::Metadata) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(meta.dev())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// Whether the regular file at `path` holds bytes a manifest or journal records for `rel`.
fn unchanged(path: &Path, rel: &str, owned: &Owned) -> bool {
    let Some(hashes) = owned.get(rel) else {
        return false;
    };
    !hashes.is_empty()
        && read_regular(path, u64::MAX).is_some_and(|b| hashes.contains(&sha256_hex(&b)))
}

impl Plan {
    fn make(
        dir: &Path,
        files: &[(&str, &[u8])],
        manifest: &[u8],
        owned: &Owned,
        adopt: bool,
    ) -> Result<Plan, OutputError> {
        let root = std::fs::symlink_metadata(dir).map_err(io(dir))?;
        let dev = device(&root);
        let mut plan = Plan::default();
        let mut refused: Vec<String> = Vec::new();
        let mut mounts: Vec<String> = Vec::new();
        let generated: BTreeSet<&str> = files.iter().map(|(f, _)| *f).collect();
        // Decides about something standing at `rel` that is not the generator's.
        let in_the_way = |plan: &mut Plan,
                          refused: &mut Vec<String>,
                          mounts: &mut Vec<String>,
                          rel: &str,
                          meta: &std::fs::Metadata| {
            if meta.is_dir() && dev.is_some() && device(meta) != dev {
                mounts.push(rel.to_string());
            } else if meta.is_file() && owned.contains_key(rel) {
                plan.aside.insert(
                    rel.to_string(),
                    "the generator wrote it, and it has been edited since",
                );
            } else if adopt {
                plan.aside.insert(
                    rel.to_string(),
                    "it is not a file the generator wrote (--adopt)",
                );
            } else {
                refused.push(rel.to_string());
            }
        };
        let mut checked: BTreeSet<String> = BTreeSet::new();
        for (f, bytes) in files {
            let parts: Vec<&str> = f.split('/').collect();
            let mut blocked = false;
            for k in 1..parts.len() {
                let rel = parts[..k].join("/");
                if !checked.insert(rel.clone()) {
                    if plan.aside.contains_key(&rel) || plan.remove_first.contains(&rel) {
                        blocked = true;
                    }
                    continue;
                }
                let Ok(meta) = std::fs::symlink_metadata(dir.join(&rel)) else {
                    blocked = true;
                    break;
                };
                if meta.is_dir() {
                    if dev.is_some() && device(&meta) != dev {
                        mounts.push(rel);
                        blocked = true;
                        break;
                    }
                    continue;
                }
                blocked = true;
                if meta.is_file() && unchanged(&dir.join(&rel), &rel, owned) {
                    plan.remove_first.insert(rel);
                } else {
                    in_the_way(&mut plan, &mut refused, &mut mounts, &rel, &meta);
                }
                break;
            }
            let path = dir.join(f);
            let way = match std::fs::symlink_metadata(&path) {
                Err(_) => Way::Write,
                Ok(_) if blocked => Way::Write,
                Ok(meta) if meta.is_file() => match read_regular(&path, u64::MAX) {
                    Some(cur) if cur == *bytes => Way::Same,
                    Some(cur) if owned.get(*f).is_some_and(|h| h.contains(&sha256_hex(&cur))) => {
                        Way::Write
                    }
                    _ => {
                        in_the_way(&mut plan, &mut refused, &mut mounts, f, &meta);
                        Way::Write
                    }
                },
                Ok(meta) => {
                    in_the_way(&mut plan, &mut refused, &mut mounts, f, &meta);
                    Way::Write
                }
            };
            plan.ways.push(way);
        }
        if !mounts.is_empty() {
            return Err(foreign(
                dir,
                format!("{} is a mount point where the new crate writes files; the generator neither writes nor removes across one; nothing was changed", mounts.join(", ")),
            ));
        }
        if !refused.is_empty() {
            return Err(foreign(
                dir,
                format!("{} {} not written by the generator (its {MANIFEST} does not list {}), and the new crate writes there; move {} away, or pass --adopt to have {} set aside beside {}; nothing was changed",
                    refused.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", "),
                    if refused.len() == 1 { "is" } else { "are" },
                    if refused.len() == 1 { "it" } else { "them" },
                    if refused.len() == 1 { "it" } else { "them" },
                    if refused.len() == 1 { "it" } else { "them" },
                    if refused.len() == 1 { "itself" } else { "themselves" }),
            ));
        }
        for rel in owned.keys() {
            if rel != MANIFEST && !generated.contains(rel.as_str()) {
                plan.remove.push(rel.clone());
            }
        }
        plan.manifest_changes =
            read_regular(&dir.join(MANIFEST), MAX_MANIFEST).as_deref() != Some(manifest);
        Ok(plan)
    }
}

#[cfg(test)]
thread_local! {
    /// Test hook: the next run on this thread stops before its N-th change to the file
    /// system; `true`: as a kill (no clean-up), `false`: as a failing call.
    pub(crate) static STOP_AT: std::cell::Cell<Option<(usize, bool)>> =
        const { std::cell::Cell::new(None) };
}

/// A run under way.
struct Run<'a> {
    dir: &'a Path,
    /// This run's staging folder, once made.
    staging: Option<PathBuf>,
    /// Staged files not moved into place yet.
    staged: Vec<PathBuf>,
    notes: Vec<String>,
    #[cfg(test)]
    stop: Option<(usize, bool)>,
    /// Stopped as by a kill (a test): nothing more happens.
    killed: bool,
    /// This run made the journal (there was none).
    made_journal: bool,
    /// This run has changed something of the crate (past staging).
    changed: bool,
}

impl Run<'_> {
    /// Called before each change to the file system (the tests' stopping point).
    fn step(&mut self) -> Result<(), OutputError> {
        #[cfg(test)]
        if let Some((n, kill)) = self.stop {
            if n == 0 {
                self.killed = kill;
                self.stop = None;
                return Err(io(self.dir)(std::io::Error::other("stopped by the test")));
            }
            self.stop = Some((n - 1, kill));
        }
        Ok(())
    }

    fn execute(
        &mut self,
        plan: &Plan,
        files: &[(&str, &[u8])],
        manifest: &[u8],
        owned: &Owned,
    ) -> Result<(), OutputError> {
        let dir = self.dir;
        self.finish_leftovers()?;
        let any_change = plan.manifest_changes
            || plan.ways.contains(&Way::Write)
            || !plan.remove.is_empty()
            || !plan.aside.is_empty();
        if !any_change {
            return self.remove_journal();
        }
        // 1. Stage every new file and record both crates in the journal.
        self.step()?;
        self.made_journal = std::fs::symlink_metadata(dir.join(JOURNAL)).is_err();
        let staging = self.make_staging()?;
        let mut journal = String::new();
        for (rel, hashes) in owned {
            for h in hashes {
                journal.push_str(&format!("{h} {rel}\n"));
            }
        }
        for (f, bytes) in files {
            journal.push_str(&format!("{} {f}\n", sha256_hex(bytes)));
        }
        self.step()?;
        append_journal(dir, &journal)?;
        for (i, ((_, bytes), way)) in files.iter().zip(&plan.ways).enumerate() {
            if *way == Way::Write {
                self.step()?;
                let p = staging.join(i.to_string());
                self.staged.push(p.clone());
                write_new(&p, bytes).map_err(io(&p))?;
            }
        }
        let staged_manifest = staging.join("manifest");
        if plan.manifest_changes {
            self.step()?;
            self.staged.push(staged_manifest.clone());
            write_new(&staged_manifest, manifest).map_err(io(&staged_manifest))?;
        }
        // 2. Set aside what stands in the way; remove the generator's own files where the
        // new crate needs a folder.
        self.changed = true;
        for (rel, why) in &plan.aside {
            self.step()?;
            let kept = set_aside(&dir.join(rel))?;
            self.notes.push(format!(
                "{rel}: set aside as {} ({why})",
                kept.strip_prefix(dir).unwrap_or(&kept).display()
            ));
        }
        for rel in &plan.remove_first {
            self.step()?;
            remove_if_unchanged(dir, rel, owned)?;
        }
        // 3. Each new file renamed over its path.
        for (i, ((f, _), way)) in files.iter().zip(&plan.ways).enumerate() {
            if *way != Way::Write {
                continue;
            }
            let dest = dir.join(f);
            if let Some(p) = dest.parent() {
                if std::fs::symlink_metadata(p).is_err() {
                    self.step()?;
                    std::fs::create_dir_all(p).map_err(io(p))?;
                }
            }
            self.step()?;
            let from = staging.join(i.to_string());
            std::fs::rename(&from, &dest).map_err(io(&dest))?;
            self.staged.retain(|s| *s != from);
        }
        // 4. The old crate's files that are not generated any more, while unchanged.
        let mut emptied: BTreeSet<String> = BTreeSet::new();
        for rel in &plan.remove {
            self.step()?;
            if remove_if_unchanged(dir, rel, owned)? {
                let mut at = rel.as_str();
                while let Some(i) = at.rfind('/') {
                    at = &at[..i];
                    emptied.insert(at.to_string());
                }
            } else if std::fs::symlink_metadata(dir.join(rel)).is_ok() {
                self.notes.push(format!("{rel}: kept (no longer generated, and not the file the generator wrote: edited, or not a regular file, or listed without a hash)"));
            }
        }
        let needed: BTreeSet<&str> = files
            .iter()
            .flat_map(|(f, _)| {
                let mut v = Vec::new();
                let mut at = *f;
                while let Some(i) = at.rfind('/') {
                    at = &at[..i];
                    v.push(at);
                }
                v
            })
            .collect();
        // Deepest first; only an empty folder goes (it holds nobody's bytes).
        for rel in emptied.iter().rev() {
            if !needed.contains(rel.as_str()) {
                self.step()?;
                let _ = std::fs::remove_dir(dir.join(rel));
            }
        }
        // 5. The manifest last, then the journal goes.
        if plan.manifest_changes {
            self.step()?;
            let dest = dir.join(MANIFEST);
            std::fs::rename(&staged_manifest, &dest).map_err(io(&dest))?;
            self.staged.clear();
        }
        self.step()?;
        std::fs::remove_dir(&staging).map_err(io(&staging))?;
        self.staging = None;
        self.remove_journal()
    }

    /// Makes this run's staging folder, a new one, named in the journal before it exists: a
    /// run never has a staging folder the journal does not name, so that a folder of that
    /// form the journal does not name is never the generator's (a user's stays). A folder
    /// of the chosen name appearing in between is refused, not used.
    fn make_staging(&mut self) -> Result<PathBuf, OutputError> {
        let p = loop {
            let p = self.dir.join(format!(
                "{STAGING}{}-{}",
                std::process::id(),
                super::unique()
            ));
            if std::fs::symlink_metadata(&p).is_err() {
                break p;
            }
        };
        append_journal(self.dir, &format!("staging {}\n", file_name(&p)))?;
        std::fs::create_dir(&p).map_err(io(&p))?;
        self.staging = Some(p.clone());
        Ok(p)
    }

    /// Finishes what an unfinished run left: its staging folders (named in the journal)
    /// emptied of the files it staged and removed. Nothing else is touched.
    fn finish_leftovers(&mut self) -> Result<(), OutputError> {
        let dir = self.dir;
        let journal = read_journal(dir)?.unwrap_or_default();
        for name in &journal.staging {
            let s = dir.join(name);
            let Ok(meta) = std::fs::symlink_metadata(&s) else {
                continue;
            };
            if !meta.is_dir() {
                continue;
            }
            for e in std::fs::read_dir(&s).map_err(io(&s))?.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                let staged_name = n == "manifest" || n.bytes().all(|b| b.is_ascii_digit());
                if staged_name && e.file_type().is_ok_and(|t| t.is_file()) {
                    self.step()?;
                    std::fs::remove_file(e.path()).map_err(io(&e.path()))?;
                }
            }
            self.step()?;
            if std::fs::remove_dir(&s).is_err() {
                self.notes.push(format!(
                    "{name}: kept (a staging folder of an unfinished run, holding files it did not stage)"
                ));
            }
        }
        // A staging folder the journal does not name is not the generator's (it names its
        // own before making it): left alone.
        Ok(())
    }

    fn remove_journal(&mut self) -> Result<(), OutputError> {
        let path = self.dir.join(JOURNAL);
        if std::fs::symlink_metadata(&path).is_ok() {
            self.step()?;
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
        Ok(())
    }

    /// After a failure: the files this run staged and its staging folder go; the journal
    /// stays where the crate has changed, so that the next run knows every file of both
    /// crates (and goes where this run made it and changed nothing else).
    fn clean_up(&mut self) {
        for p in self.staged.drain(..) {
            let _ = std::fs::remove_file(p);
        }
        if let Some(s) = self.staging.take() {
            let _ = std::fs::remove_dir(s);
        }
        if self.made_journal && !self.changed {
            let _ = std::fs::remove_file(self.dir.join(JOURNAL));
        }
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Writes a new file (never an existing one).
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?
        .write_all(bytes)
}

/// Appends `lines` to `dir`'s journal, making it (with its first line) when missing.
fn append_journal(dir: &Path, lines: &str) -> Result<(), OutputError> {
    use std::io::Write;
    let path = dir.join(JOURNAL);
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let mut f = options.open(&path).map_err(io(&path))?;
    let meta = f.metadata().map_err(io(&path))?;
    let text = if meta.len() == 0 {
        format!("{JOURNAL_HEADER}{lines}")
    } else {
        lines.to_string()
    };
    f.write_all(text.as_bytes()).map_err(io(&path))
}

/// Removes `dir/rel` when it is a regular file holding bytes the generator wrote there;
/// `Ok(false)` (and nothing done) otherwise.
fn remove_if_unchanged(dir: &Path, rel: &str, owned: &Owned) -> Result<bool, OutputError> {
    let path = dir.join(rel);
    // The folders on the way must be the crate's own (no link, no other file system).
    let root = std::fs::symlink_metadata(dir).map_err(io(dir))?;
    let mut at = dir.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len() - 1] {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() && device(&m) == device(&root) => {}
            _ => return Ok(false),
        }
    }
    if !unchanged(&path, rel, owned) {
        return Ok(false);
    }
    std::fs::remove_file(&path).map_err(io(&path))?;
    Ok(true)
}

/// Renames `path` (whatever it is) to a free name beside it, `NAME.codegen-kept-N`, never over
/// anything; returns the new path.
fn set_aside(path: &Path) -> Result<PathBuf, OutputError> {
    let name = file_name(path);
    for n in 1.. {
        let to = path.with_file_name(format!("{name}.codegen-kept-{n}"));
        if std::fs::symlink_metadata(&to).is_ok() {
            continue;
        }
        match rename_noreplace(path, &to) {
            Ok(()) => return Ok(to),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(path)(e)),
        }
    }
    unreachable!("a free name exists")
}

/// Renames `from` to `to` where nothing is at `to` (atomically where the file system can).
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            std::ffi::CString::new(p.as_os_str().as_bytes())
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
        };
        let (a, b) = (c(from)?, c(to)?);
        // SAFETY: both paths are NUL-terminated strings that live across the call; renameat2
        // reads them and touches no memory of ours.
        let r = unsafe {
            libc::syscall(
                libc::SYS_renameat2,
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if !matches!(
            e.raw_os_error(),
            Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
        ) {
            return Err(e);
        }
    }
    if std::fs::symlink_metadata(to).is_ok() {
        return Err(std::io::Error::from(std::io::ErrorKind::AlreadyExists));
    }
    std::fs::rename(from, to)
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
#[path = "folder_tests.rs"]
mod tests;
