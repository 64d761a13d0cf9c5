//! The folder's promises: only the generator's own unchanged files are replaced or removed,
//! whatever stands in the folder and wherever a run stops. The red team's reproducers of
//! 2026-11-29 (`shared/redteam/2026-11-29/`) are the tests named after them.

use super::*;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("codegen-folder-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    dir
}

type Files = Vec<(String, Vec<u8>)>;

fn crate_files(version: &str) -> Files {
    let mut files: Files = vec![
        ("Cargo.toml".into(), format!("v{version}").into_bytes()),
        ("src/lib.rs".into(), format!("lib {version}").into_bytes()),
        (format!("src/only_{version}.rs"), b"x".to_vec()),
    ];
    let text = manifest_text(files.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
    files.push((MANIFEST.into(), text.into_bytes()));
    files
}

/// Crates with folders that come and go between them (as a runtime and an NVRTC crate).
fn shaped(version: usize) -> Files {
    let names: &[&str] = match version % 3 {
        0 => &["Cargo.toml", "src/lib.rs", "src/a/x.rs", "tests/audit/t.rs"],
        1 => &["Cargo.toml", "src/lib.rs", "src/memory/m.rs", "src/b/y.rs"],
        _ => &[
            "Cargo.toml",
            "src/lib.rs",
            "src/a.rs",
            "examples/e.rs",
            "tests/audit/t.rs",
        ],
    };
    names
        .iter()
        .map(|n| {
            (
                n.to_string(),
                format!("{n} of crate {version}").into_bytes(),
            )
        })
        .collect()
}

fn write(dir: &Path, files: &Files, adopt: bool) -> Result<Vec<String>, OutputError> {
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    replace(dir, &refs, adopt)
}

/// Every entry under `dir` (links as `-> target`, other non-files by kind), relative, with
/// its contents.
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
                out.insert(format!("{rel}/"));
                walk(root, &p, out);
            } else if t.is_file() {
                let body = std::fs::read(&p).expect("file");
                out.insert(format!("{rel}: {}", String::from_utf8_lossy(&body)));
            } else {
                out.insert(format!("{rel} (special)"));
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn manifests_list_plain_relative_paths_with_hashes() {
    let text = manifest_text([
        ("src/a.rs", b"a".as_slice()),
        ("Cargo.toml", b"t"),
        (MANIFEST, b""),
    ]);
    let owned = parse_manifest(&text).expect("reads");
    assert_eq!(owned.keys().collect::<Vec<_>>(), ["Cargo.toml", "src/a.rs"]);
    assert!(owned["src/a.rs"].contains(&sha256_hex(b"a")));
    for bad in ["../x", "/etc/passwd", "src//a", "./a", "a/../../b", "a\\b"] {
        let t = format!("{HEADER}{bad}\n");
        assert_eq!(parse_manifest(&t), None, "{bad}");
    }
    assert_eq!(parse_manifest("Cargo.toml\n"), None, "no header");
    // The manifests before hashes still read: paths without hashes.
    let old = format!("{HEADER_PATHS_ONLY}\n# exactly these ...\nCargo.toml\n");
    assert_eq!(parse_manifest(&old).expect("old")["Cargo.toml"].len(), 0);
}

#[test]
fn a_run_replaces_only_what_it_wrote_and_never_follows_a_link() {
    let t = tmp("replace");
    let dir = t.join("crate");
    let outside = t.join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    std::fs::write(outside.join("thesis.tex"), "keep").expect("thesis");
    write(&dir, &crate_files("1"), false).expect("first run");
    std::fs::create_dir_all(dir.join("target/debug")).expect("target");
    std::fs::write(dir.join("target/debug/x"), "build").expect("build output");
    std::fs::write(dir.join("notes.txt"), "notes").expect("notes");
    std::fs::write(dir.join("src/mine.rs"), "mine").expect("user file among generated");
    std::os::unix::fs::symlink(&outside, dir.join("linked")).expect("link");
    std::os::unix::fs::symlink(".", dir.join("self")).expect("self link");
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
    assert!(got.iter().any(|l| l.starts_with("linked -> ")), "{got:?}");
    assert!(
        !got.iter()
            .any(|l| l.contains(".codegen-staging") || l.contains(JOURNAL)),
        "{got:?}"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("thesis.tex")).expect("kept"),
        "keep"
    );
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
    let notes = write(&dir, &crate_files("1"), true).expect("adopted");
    let got = listing(&dir);
    assert!(got.contains("mydata/important.csv: 1,2,3"), "{got:?}");
    assert!(got.contains("Cargo.toml: v1"), "{got:?}");
    // The user's Cargo.toml is set aside, not deleted, and the note names it.
    assert!(
        got.contains("Cargo.toml.codegen-kept-1: the user's"),
        "{got:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("Cargo.toml.codegen-kept-1")),
        "{notes:?}"
    );
    // Now it is the generator's: a file the user adds where the next crate writes one is
    // refused, not replaced.
    std::fs::write(dir.join("src/only_2.rs"), "the user's").expect("user file");
    let e = write(&dir, &crate_files("2"), false).expect_err("refused");
    assert!(e.to_string().contains("src/only_2.rs"), "{e}");
    assert!(read_manifest(&dir)
        .expect("manifest")
        .contains_key("src/only_1.rs"));
    let _ = std::fs::remove_dir_all(&t);
}

#[test]
fn a_link_or_a_file_as_the_folder_is_refused() {
    let t = tmp("link");
    let real = t.join("real");
    std::fs::create_dir_all(&real).expect("real");
    std::os::unix::fs::symlink(&real, t.join("link")).expect("link");
    let e = write(&t.join("link"), &crate_files("1"), true).expect_err("link");
    assert!(e.to_string().contains("symbolic link"), "{e}");
    std::fs::write(t.join("file"), "f").expect("file");
    let e = write(&t.join("file"), &crate_files("1"), true).expect_err("file");
    assert!(e.to_string().contains("not a folder"), "{e}");
    assert_eq!(std::fs::read_dir(&real).expect("real").count(), 0);
    let _ = std::fs::remove_dir_all(&t);
}

/// `adopt-deletes-user-src.sh` (O1): `--adopt` over the user's crate keeps `src/main.rs`,
/// `src/bin/tool.rs`, `tests/my_test.rs`.
#[test]
fn redteam_adopt_keeps_the_users_src_bin_and_tests() {
    let t = tmp("adopt-src");
    let dir = t.join("mycrate");
    let user = [
        ("src/main.rs", "fn main() {}\n"),
        ("src/bin/tool.rs", "fn tool() {}\n"),
        ("tests/my_test.rs", "#[test] fn mine() {}\n"),
        ("data/important.csv", "1,2,3\n"),
        ("notes.txt", "notes\n"),
    ];
    for (p, body) in user {
        std::fs::create_dir_all(dir.join(p).parent().expect("parent")).expect("folder");
        std::fs::write(dir.join(p), body).expect("user file");
    }
    let mut files = shaped(0);
    files.push(("tests/audit/probe.rs".into(), b"probe".to_vec()));
    write(&dir, &files, true).expect("adopted");
    for (p, body) in user {
        assert_eq!(
            std::fs::read_to_string(dir.join(p)).ok().as_deref(),
            Some(body),
            "{p}"
        );
    }
    // And the next run (now a generated folder) keeps them too.
    write(&dir, &shaped(1), false).expect("next run");
    for (p, body) in user {
        assert_eq!(
            std::fs::read_to_string(dir.join(p)).ok().as_deref(),
            Some(body),
            "{p}"
        );
    }
    let _ = std::fs::remove_dir_all(&t);
}

/// `new-folder-deletes-user-files.sh` (O2): a user folder whose name the new crate starts
/// generating keeps the user's files.
#[test]
fn redteam_a_folder_the_new_crate_adds_keeps_the_users_files() {
    let t = tmp("new-folder");
    let dir = t.join("crate");
    write(&dir, &shaped(0), false).expect("nvrtc-like crate");
    std::fs::create_dir_all(dir.join("src/memory")).expect("user folder");
    std::fs::write(dir.join("src/memory/mine.rs"), "mine").expect("user file");
    write(&dir, &shaped(1), false).expect("runtime-like crate (has src/memory/)");
    assert_eq!(
        std::fs::read_to_string(dir.join("src/memory/mine.rs")).expect("kept"),
        "mine"
    );
    assert!(dir.join("src/memory/m.rs").exists());
    // And back: the generated file goes, the user's file and its folder stay.
    write(&dir, &shaped(0), false).expect("back");
    assert!(!dir.join("src/memory/m.rs").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("src/memory/mine.rs")).expect("kept"),
        "mine"
    );
    let _ = std::fs::remove_dir_all(&t);
}

/// `manifest-lists-user-folder.sh` (O3): manifest lines naming a folder, `.git`, `src` or a
/// link remove nothing of them.
#[test]
fn redteam_manifest_lines_naming_folders_or_links_remove_nothing() {
    let t = tmp("manifest-folders");
    let dir = t.join("crate");
    write(&dir, &shaped(0), false).expect("first run");
    for (p, body) in [
        ("data/important.csv", "1,2,3"),
        (".git/HEAD", "ref: main"),
        ("src/mine.rs", "mine"),
        ("notes.txt", "notes"),
    ] {
        std::fs::create_dir_all(dir.join(p).parent().expect("parent")).expect("folder");
        std::fs::write(dir.join(p), body).expect("user file");
    }
    std::os::unix::fs::symlink("data", dir.join("link")).expect("link");
    let mut m = std::fs::read_to_string(dir.join(MANIFEST)).expect("manifest");
    m.push_str("data\n.git\nsrc\nlink\n");
    // Even with a hash: of bytes the folder never held.
    m.push_str(&format!("{} notes.txt\n", sha256_hex(b"other")));
    std::fs::write(dir.join(MANIFEST), m).expect("tampered");
    let notes = write(&dir, &shaped(1), false).expect("next run");
    let got = listing(&dir);
    for want in [
        "data/important.csv: 1,2,3",
        ".git/HEAD: ref: main",
        "src/mine.rs: mine",
        "notes.txt: notes",
        "link -> data",
    ] {
        assert!(got.contains(want), "{want} missing: {got:?}");
    }
    assert!(
        notes.iter().any(|n| n.starts_with("data: kept")),
        "{notes:?}"
    );
    let _ = std::fs::remove_dir_all(&t);
}

/// `readonly-subfolder-stuck.sh`, `mountpoint-in-crate-stuck.sh` (O4): a failure part-way
/// (here at every step in turn, as a failing call and as a kill) leaves every user file where
/// the user put it, every generated file old or new, and the next run finishes.
#[test]
fn redteam_a_failure_or_a_kill_at_any_step_leaves_every_user_file_in_place() {
    let t = tmp("stops");
    let old = shaped(0);
    let new = shaped(1);
    let user = [
        ("vendor/lib/x.c", "int x;"),
        ("src/mine.rs", "mine"),
        ("src/memory/keep.rs", "keep"),
        ("tests/my_test.rs", "test"),
        ("zzz.txt", "last"),
    ];
    for kill in [false, true] {
        let mut n = 0;
        loop {
            let dir = t.join(format!("crate-{kill}-{n}"));
            write(&dir, &old, false).expect("first run");
            for (p, body) in user {
                std::fs::create_dir_all(dir.join(p).parent().expect("parent")).expect("dir");
                std::fs::write(dir.join(p), body).expect("user file");
            }
            std::fs::write(dir.join("src/lib.rs"), "edited by the user").expect("edit");
            STOP_AT.with(|s| s.set(Some((n, kill))));
            let done = write(&dir, &new, false);
            STOP_AT.with(|s| s.set(None));
            let got = listing(&dir);
            for (p, body) in user {
                assert!(
                    got.contains(&format!("{p}: {body}")),
                    "stop {n} {kill}: {p}: {got:?}"
                );
            }
            // The user's edit is never lost: in place or set aside.
            assert!(
                got.contains("src/lib.rs: edited by the user")
                    || got.contains("src/lib.rs.codegen-kept-1: edited by the user"),
                "stop {n}: {got:?}"
            );
            for (p, body) in old.iter().chain(&new) {
                if let Some(line) = got.iter().find(|l| l.starts_with(&format!("{p}: "))) {
                    let now = line.split_once(": ").expect("line").1;
                    let is_gen = old
                        .iter()
                        .chain(&new)
                        .any(|(q, b)| q == p && b == now.as_bytes());
                    assert!(is_gen || *p == "src/lib.rs", "stop {n}: {line}; {body:?}");
                }
            }
            // The next run finishes: exactly the new crate beside the user's files.
            write(&dir, &new, false).expect("next run");
            let got = listing(&dir);
            for (p, body) in &new {
                let want = format!("{p}: {}", String::from_utf8_lossy(body));
                assert!(got.contains(&want), "stop {n}: {want}: {got:?}");
            }
            for (p, _) in &old {
                if !new.iter().any(|(q, _)| q == p) {
                    assert!(!dir.join(p).exists(), "stop {n}: {p} left");
                }
            }
            assert!(
                !got.iter()
                    .any(|l| l.contains(".codegen-staging") || l.contains(JOURNAL)),
                "stop {n}: {got:?}"
            );
            let _ = std::fs::remove_dir_all(&dir);
            if done.is_ok() {
                break;
            }
            n += 1;
        }
        assert!(n > 10, "the run has {n} steps");
        println!(
            "stopped at each of {} steps ({})",
            n + 1,
            if kill { "kill" } else { "failing call" }
        );
    }
    let _ = std::fs::remove_dir_all(&t);
}

/// `cwd-in-crate-writer.py` (O5): a process writing inside the folder during runs loses
/// nothing (the folder is never moved).
#[test]
fn redteam_a_process_working_inside_the_folder_loses_nothing() {
    let t = tmp("cwd-writer");
    let dir = t.join("crate");
    write(&dir, &shaped(0), false).expect("first run");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (dir, stop) = (dir.clone(), stop.clone());
        std::thread::spawn(move || {
            use std::io::Write;
            let mut n = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                n += 1;
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(dir.join("journal.txt"))
                    .expect("the folder is there at every moment");
                writeln!(f, "{n}").expect("append");
            }
            n
        })
    };
    for v in 1..=12 {
        write(&dir, &shaped(v), false).expect("run");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let written = writer.join().expect("writer");
    let kept = std::fs::read_to_string(dir.join("journal.txt"))
        .expect("journal")
        .lines()
        .count();
    assert_eq!(kept, written as usize);
    let _ = std::fs::remove_dir_all(&t);
}

/// `leftover-names.sh` (O6): files named like the generator's leftovers, beside the crate or
/// inside it, are neither deleted nor moved in.
#[test]
fn redteam_files_named_like_leftovers_are_left_alone() {
    let t = tmp("leftover-names");
    let dir = t.join("crate");
    write(&dir, &shaped(0), false).expect("first run");
    std::fs::write(t.join(".crate.codegen-settings"), "my settings").expect("sibling");
    std::fs::create_dir_all(t.join(".crate.codegen-old-1-0")).expect("folder");
    std::fs::write(t.join(".crate.codegen-old-1-0/build.rs"), "fn main() {}").expect("build.rs");
    std::fs::create_dir_all(dir.join(".codegen-staging-1-1")).expect("folder");
    std::fs::write(dir.join(".codegen-staging-1-1/0"), "mine").expect("file");
    write(&dir, &shaped(1), false).expect("run");
    let beside = listing(&t);
    assert!(
        beside.contains(".crate.codegen-settings: my settings"),
        "{beside:?}"
    );
    assert!(
        beside.contains(".crate.codegen-old-1-0/build.rs: fn main() {}"),
        "{beside:?}"
    );
    assert!(
        beside.contains("crate/.codegen-staging-1-1/0: mine"),
        "{beside:?}"
    );
    assert!(!dir.join("build.rs").exists());
    // A user's file named like the journal: the run is refused, the file stays.
    std::fs::write(dir.join(JOURNAL), "my journal").expect("journal-like");
    let e = write(&dir, &shaped(2), false).expect_err("refused");
    assert!(e.to_string().contains(JOURNAL), "{e}");
    assert_eq!(
        std::fs::read_to_string(dir.join(JOURNAL)).expect("kept"),
        "my journal"
    );
    let _ = std::fs::remove_dir_all(&t);
}

/// Edited generated files: set aside (with a note) where the new crate writes, kept where it
/// does not.
#[test]
fn edited_generated_files_are_set_aside_or_kept_never_lost() {
    let t = tmp("edited");
    let dir = t.join("crate");
    write(&dir, &shaped(0), false).expect("first run");
    std::fs::write(dir.join("src/lib.rs"), "my edit").expect("edit");
    std::fs::write(dir.join("src/a/x.rs"), "my other edit").expect("edit");
    let notes = write(&dir, &shaped(1), false).expect("run");
    let got = listing(&dir);
    assert!(
        got.contains("src/lib.rs.codegen-kept-1: my edit"),
        "{got:?}"
    );
    assert!(got.contains("src/a/x.rs: my other edit"), "{got:?}");
    assert!(got.contains("src/lib.rs: src/lib.rs of crate 1"), "{got:?}");
    assert!(
        notes.iter().any(|n| n.contains("src/a/x.rs: kept")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("src/lib.rs: set aside")),
        "{notes:?}"
    );
    let _ = std::fs::remove_dir_all(&t);
}

/// A mount point where the new crate writes is refused before anything changes (needs root
/// and a kernel that lets it mount a tmpfs; elsewhere it checks the refusal of a folder on
/// another device through `/dev/shm` linked in, which is refused as a link).
#[test]
fn redteam_a_mount_point_in_the_crate_is_never_written_across() {
    let t = tmp("mount");
    let dir = t.join("crate");
    write(&dir, &shaped(0), false).expect("first run");
    std::fs::create_dir_all(dir.join("tests")).expect("tests");
    let c = std::ffi::CString::new(dir.join("tests").as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: NUL-terminated strings living across the call.
    let mounted = unsafe {
        libc::mount(
            c"none".as_ptr(),
            c.as_ptr(),
            c"tmpfs".as_ptr(),
            0,
            std::ptr::null(),
        )
    } == 0;
    if mounted {
        std::fs::write(dir.join("tests/outside.rs"), "outside").expect("file on the mount");
        let e = write(&dir, &shaped(2), false).expect_err("refused");
        assert!(e.to_string().contains("mount point"), "{e}");
        assert_eq!(
            std::fs::read_to_string(dir.join("tests/outside.rs")).expect("kept"),
            "outside"
        );
        // SAFETY: as above.
        unsafe { libc::umount(c.as_ptr()) };
    } else {
        std::fs::remove_dir_all(dir.join("tests")).expect("tests");
        std::os::unix::fs::symlink(&t, dir.join("tests")).expect("link");
        std::fs::write(t.join("outside.rs"), "outside").expect("outside");
        let e = write(&dir, &shaped(2), false).expect_err("refused");
        assert!(e.to_string().contains("`tests`"), "{e}");
        assert_eq!(
            std::fs::read_to_string(t.join("outside.rs")).expect("kept"),
            "outside"
        );
    }
    let _ = std::fs::remove_dir_all(&t);
}

/// Every entry under `dir` by its path with any `.codegen-kept-N` (set aside) taken off its
/// parts, each with what it is: its bytes, a link's target, or its kind.
/// `rel` with any `.codegen-kept-N` (set aside) taken off its parts.
fn original(rel: &str) -> String {
    rel.split('/')
        .map(|part| match part.rfind(".codegen-kept-") {
            Some(i) if part[i + 14..].bytes().all(|b| b.is_ascii_digit()) => &part[..i],
            _ => part,
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn by_original_place(dir: &Path) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in listing(dir) {
        let (rel, what) = if let Some((r, w)) = line.split_once(": ") {
            (r.to_string(), format!("file {w}"))
        } else if let Some((r, w)) = line.split_once(" -> ") {
            (r.to_string(), format!("link {w}"))
        } else if let Some(r) = line.strip_suffix(" (special)") {
            (r.to_string(), "special".into())
        } else {
            (line.trim_end_matches('/').to_string(), "folder".into())
        };
        out.entry(original(&rel)).or_default().push(what);
    }
    out
}

mod property {
    use super::*;
    use proptest::prelude::*;

    const DIRS: &[&str] = &[
        "",
        "src",
        "src/a",
        "src/memory",
        "src/b",
        "tests",
        "tests/audit",
        "examples",
        "target",
        "deep/er",
        ".git",
    ];
    const NAMES: &[&str] = &[
        "mine.rs",
        "x.rs",
        "m.rs",
        "lib.rs",
        "Cargo.toml",
        "t.rs",
        "e.rs",
        "a.rs",
        "y.rs",
        "a",
        "memory",
        ".codegen-staging-9-9",
        "lib.rs.codegen-kept-1",
        "notes.txt",
    ];

    /// Places the user's thing of `kind` at `rel` (when the place is free, or, for an
    /// edit, a file); returns what it is, as [`by_original_place`] says it.
    fn place(dir: &Path, outside: &Path, i: usize, kind: u8, rel: &str) -> Option<String> {
        let p = dir.join(rel);
        let parent = p.parent()?;
        if std::fs::symlink_metadata(parent).is_ok_and(|m| !m.is_dir()) {
            return None;
        }
        let exists = std::fs::symlink_metadata(&p).ok();
        if kind == 6 {
            // An edit of what is there, when it is a file.
            if !exists.is_some_and(|m| m.is_file()) {
                return None;
            }
            std::fs::write(&p, format!("user edit {i}")).ok()?;
            return Some(format!("file user edit {i}"));
        }
        if exists.is_some() {
            return None;
        }
        std::fs::create_dir_all(parent).ok()?;
        let body = format!("user item {i}");
        Some(match kind {
            0 => {
                std::fs::write(&p, &body).ok()?;
                format!("file {body}")
            }
            1 => {
                let target = outside.join(format!("target-{i}"));
                std::fs::write(&target, &body).ok()?;
                std::os::unix::fs::symlink(&target, &p).ok()?;
                format!("link {}", target.display())
            }
            2 => {
                let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).ok()?;
                // SAFETY: a NUL-terminated path and a mode.
                (unsafe { libc::mkfifo(c.as_ptr(), 0o600) } == 0).then_some(())?;
                "special".into()
            }
            3 => {
                std::fs::create_dir(&p).ok()?;
                "folder".into()
            }
            4 => {
                let target = outside.join(format!("hard-{i}"));
                std::fs::write(&target, &body).ok()?;
                std::fs::hard_link(&target, &p).ok()?;
                format!("file {body}")
            }
            _ => {
                std::fs::create_dir(&p).ok()?;
                std::fs::write(p.join("inner.rs"), &body).ok()?;
                "folder".into()
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, .. ProptestConfig::default() })]

        /// Random user files of every kind anywhere in a generated crate folder, then runs
        /// switching crates (with and without --adopt), each stopped at a random step by a
        /// kill or a failing call: every user byte stays, in place or set aside beside it.
        #[test]
        fn every_user_byte_survives_runs_kills_and_failures(
            first in 0usize..3,
            items in proptest::collection::vec((0u8..7, 0usize..DIRS.len(), 0usize..NAMES.len()), 1..12),
            runs in proptest::collection::vec((0usize..3, any::<bool>(), proptest::option::of((0usize..40, any::<bool>()))), 1..6),
        ) {
            let t = tmp(&format!("prop-{}", super::super::super::unique()));
            let dir = t.join("crate");
            let outside = t.join("outside");
            std::fs::create_dir_all(&outside).expect("outside");
            write(&dir, &shaped(first), false).expect("first run");
            let mut placed: Vec<(String, String)> = Vec::new();
            for (i, (kind, d, n)) in items.iter().enumerate() {
                let rel = if DIRS[*d].is_empty() { NAMES[*n].to_string() } else { format!("{}/{}", DIRS[*d], NAMES[*n]) };
                if let Some(what) = place(&dir, &outside, i, *kind, &rel) {
                    placed.retain(|(r, _)| *r != rel);
                    placed.push((rel, what));
                }
            }
            let outside_before = listing(&outside);
            for (version, adopt, stop) in runs {
                STOP_AT.with(|s| s.set(stop));
                let _ = write(&dir, &shaped(version), adopt);
                STOP_AT.with(|s| s.set(None));
                let now = by_original_place(&dir);
                for (rel, what) in &placed {
                    prop_assert!(
                        now.get(&original(rel)).is_some_and(|w| w.contains(what)),
                        "{} ({}) gone after a run of crate {} (stop {:?}): {:?}", rel, what, version, stop, now.get(rel)
                    );
                }
                prop_assert_eq!(&listing(&outside), &outside_before);
            }
            let _ = std::fs::remove_dir_all(&t);
        }
    }
}
