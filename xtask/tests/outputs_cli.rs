//! Outputs and inputs under faults and hostile file systems, as the red team of 2026-11-25 ran
//! them (`../shared/redteam/2026-11-25/`): `codegen --out` writes only what it generates and
//! replaces only its own files (a kill at any moment, or two runs at once, leaves every file of
//! the user in place and each generated file the old one or the new one, and the next run
//! finishes), no output is an input, inputs are regular files, folder walks end, and bad
//! arguments fail before any work.
//!
//! `CODEGEN_KILL_TRIES=N` makes the kill test run N kills (default 12, a few seconds); its
//! seed is printed, and `CODEGEN_KILL_SEED=S` replays one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn page() -> PathBuf {
    root().join("docs-src/nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt")
}

fn old_page() -> PathBuf {
    root().join("docs-src/nvidia-cuda-bindings-12.8.0/runtime.txt")
}

/// A fresh folder for one test.
fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("outputs_cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xtask"));
    c.args(args).current_dir(root());
    c
}

/// Runs xtask, killed after 60 s (a hang is a failure, not a stuck test).
fn xtask(args: &[&str]) -> Output {
    let child = command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running xtask");
    finish(child, Duration::from_secs(60), args)
}

fn finish(mut child: Child, limit: Duration, what: &[&str]) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().expect("waiting").is_some() {
            return child.wait_with_output().expect("output");
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "xtask {what:?} still ran after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Asserts exit status 1 with `what` in the output and no panic.
fn assert_fails(out: &Output, what: &str) {
    let all = text(out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(!all.contains("panicked"), "{all}");
    assert!(all.contains(what), "`{what}` not said: {all}");
}

/// `codegen --docs PAGE --out DIR --release R` plus `extra`.
fn codegen_args<'a>(
    page: &'a Path,
    out: &'a Path,
    release: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "codegen",
        "--docs",
        s(page),
        "--out",
        s(out),
        "--release",
        release,
    ];
    args.extend_from_slice(extra);
    args
}

/// Every file under `dir` (not following links; a link as `-> target`), by relative path.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, at: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(rd) = std::fs::read_dir(at) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let t = e.file_type().unwrap();
            if t.is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                out.insert(rel, format!("-> {}", target.display()).into_bytes());
            } else if t.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// What a run of `dir` leaves: hidden siblings (`.NAME.codegen-*`), its journal or staging
/// folders inside.
fn leftovers(dir: &Path) -> Vec<String> {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let beside = std::fs::read_dir(dir.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!(".{name}.codegen-")));
    let inside = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n == ".codegen-journal" || n.starts_with(".codegen-staging-"));
    beside.chain(inside).collect()
}

#[test]
fn codegen_out_never_deletes_files_it_did_not_write() {
    let t = tmp("user-files");
    let user = t.join("user");
    std::fs::create_dir_all(user.join("mydata")).unwrap();
    std::fs::create_dir_all(t.join("outside/precious")).unwrap();
    std::fs::write(user.join("notes.txt"), "notes").unwrap();
    std::fs::write(user.join("mydata/important.csv"), "1,2,3").unwrap();
    std::fs::write(t.join("outside/precious/thesis.tex"), "keep").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(t.join("outside"), user.join("linked")).unwrap();
    let before = files(&user);
    // A folder the generator did not write is refused, untouched.
    let out = xtask(&codegen_args(&page(), &user, "13.2", &[]));
    assert_fails(&out, "--adopt");
    assert_eq!(files(&user), before);
    // Adopted: the crate is written beside the user's files, and a link is never followed.
    let out = xtask(&codegen_args(&page(), &user, "13.2", &["--adopt"]));
    assert!(out.status.success(), "{}", text(&out));
    let after = files(&user);
    for (k, v) in &before {
        assert_eq!(after.get(k), Some(v), "{k} changed");
    }
    assert!(after.contains_key("src/api.rs") && after.contains_key(".codegen-manifest"));
    assert_eq!(
        std::fs::read_to_string(t.join("outside/precious/thesis.tex")).unwrap(),
        "keep"
    );
    // The next release replaces exactly what the generator wrote.
    let out = xtask(&codegen_args(&old_page(), &user, "12.8", &[]));
    assert!(out.status.success(), "{}", text(&out));
    let again = files(&user);
    for (k, v) in &before {
        assert_eq!(again.get(k), Some(v), "{k} changed");
    }
    assert!(String::from_utf8_lossy(&again["Cargo.toml"]).contains("12.8"));
    assert!(leftovers(&user).is_empty(), "{:?}", leftovers(&user));
}

#[test]
fn no_output_is_an_input() {
    let t = tmp("self");
    let own = t.join("self");
    std::fs::create_dir_all(&own).unwrap();
    let doc = own.join("page.txt");
    std::fs::copy(page(), &doc).unwrap();
    std::fs::write(own.join("notes.md"), "notes").unwrap();
    let before = files(&own);
    // The crate folder is the page's folder (the most natural mistake), even adopted.
    let out = xtask(&codegen_args(&doc, &own, "13.2", &["--adopt"]));
    assert_fails(&out, "holds the input");
    let out = xtask(&[
        "codegen",
        "--docs",
        s(&own),
        "--out",
        s(&own.join("crate")),
        "--release",
        "13.2",
    ]);
    assert_fails(&out, "is inside the input");
    // `ir DOC --out DOC`, also through a link.
    let out = xtask(&["ir", s(&doc), "--out", s(&doc)]);
    assert_fails(&out, "is the input");
    #[cfg(unix)]
    {
        let link = t.join("link.json");
        std::os::unix::fs::symlink(&doc, &link).unwrap();
        let out = xtask(&["ir", s(&doc), "--out", s(&link)]);
        assert_fails(&out, "is the input");
    }
    // The bindings model into the crate or onto an input.
    let crate_dir = t.join("crate");
    let out = xtask(&codegen_args(
        &doc,
        &crate_dir,
        "13.2",
        &["--bindings-json", s(&doc)],
    ));
    assert_fails(&out, "is the input");
    assert_eq!(files(&own), before);
    assert!(!crate_dir.exists(), "nothing was written");
}

/// An output that is a device or a link: `/dev/null` is written to and stays a device (an
/// atomic rename over it replaced the device with a regular file); a link is refused and
/// left as it is, its target untouched.
#[cfg(unix)]
#[test]
fn dev_null_stays_a_device_and_a_link_is_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let t = tmp("devices");
    let doc = t.join("page.txt");
    std::fs::copy(page(), &doc).unwrap();
    let out = xtask(&["ir", s(&doc), "--out", "/dev/null"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kind = std::fs::symlink_metadata("/dev/null").unwrap().file_type();
    assert!(kind.is_char_device(), "/dev/null is no longer a device");
    let target = t.join("target.json");
    std::fs::write(&target, "kept").unwrap();
    let link = t.join("out.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = xtask(&["ir", s(&doc), "--out", s(&link)]);
    assert_fails(&out, "symbolic link");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
}

#[test]
fn bad_arguments_fail_before_any_work() {
    let t = tmp("arguments");
    let out_dir = t.join("crate");
    for name in ["a b", "1abc", "x/y", "../../x", "fn", ""] {
        let out = xtask(&codegen_args(&page(), &out_dir, "13.2", &["--name", name]));
        assert_fails(&out, &format!("--name {name:?}"));
        assert!(!out_dir.exists(), "{name}: nothing is written");
    }
    let out = xtask(&codegen_args(
        &page(),
        &out_dir,
        "13.2",
        &["--bindings-json", "/nonexistent/b.json"],
    ));
    assert_fails(&out, "the folder /nonexistent does not exist");
    assert!(!out_dir.exists(), "the crate is not written");
    let out = xtask(&codegen_args(
        &page(),
        &out_dir,
        "13.2",
        &["--name", "my-cudart"],
    ));
    assert!(out.status.success(), "{}", text(&out));
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(st.success());
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_is_an_error_not_a_hang() {
    let t = tmp("fifo");
    let p = t.join("p");
    mkfifo(&p);
    let d = t.join("d");
    std::fs::create_dir_all(&d).unwrap();
    mkfifo(&d.join("q.txt"));
    std::fs::copy(page(), d.join("page.txt")).unwrap();
    let x = t.join("x.json");
    assert_fails(
        &xtask(&["ir", s(&p), "--out", s(&x)]),
        "not a regular file (a FIFO)",
    );
    assert_fails(
        &xtask(&["ir", s(&d), "--out", s(&x)]),
        "q.txt: not a regular file (a FIFO)",
    );
    assert_fails(
        &xtask(&codegen_args(&p, &t.join("c"), "13.2", &[])),
        "not a regular file (a FIFO)",
    );
    assert_fails(
        &xtask(&["ir", "/dev/zero", "--out", s(&x)]),
        "/dev/zero: not a regular file (a device)",
    );
    assert!(!x.exists() && !t.join("c").exists());
}

#[cfg(unix)]
#[test]
fn links_back_up_a_folder_end_the_walk() {
    let t = tmp("loops");
    let docs = t.join("docs");
    let out_dir = t.join("out");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::copy(page(), docs.join("page.txt")).unwrap();
    for (dir, link) in [(&docs, "a"), (&docs, "b"), (&out_dir, "a"), (&out_dir, "b")] {
        std::os::unix::fs::symlink(".", dir.join(link)).unwrap();
    }
    let x = t.join("x.json");
    let out = xtask(&["ir", s(&docs), "--out", s(&x)]);
    assert!(out.status.success(), "{}", text(&out));
    let ir = std::fs::read_to_string(&x).unwrap();
    assert_eq!(
        ir.matches("\"format\": \"bindings-text\"").count(),
        1,
        "the page is read once"
    );
    // An out folder with self-links: written beside them, the links kept as they are.
    let out = xtask(&codegen_args(&page(), &out_dir, "13.2", &["--adopt"]));
    assert!(out.status.success(), "{}", text(&out));
    let got = files(&out_dir);
    assert_eq!(got.get("a").map(Vec::as_slice), Some(b"-> .".as_slice()));
    assert_eq!(got.get("b").map(Vec::as_slice), Some(b"-> .".as_slice()));
    assert!(got.contains_key("src/api.rs"));
}

#[cfg(unix)]
#[test]
fn a_closed_standard_output_keeps_the_exit_status() {
    let t = tmp("closed");
    let garbage = t.join("garbage.txt");
    std::fs::write(&garbage, "garbage\n").unwrap();
    let crate_dir = t.join("crate");
    for (args, code) in [
        (
            vec![
                "ir".to_string(),
                s(&garbage).into(),
                "--out".into(),
                s(&t.join("x.json")).into(),
            ],
            1,
        ),
        (
            codegen_args(&page(), &crate_dir, "13.2", &["--list-unbound"])
                .into_iter()
                .map(String::from)
                .collect(),
            0,
        ),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(&args)
            .current_dir(root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("xtask");
        // The reader goes away before the first line.
        drop(child.stdout.take());
        let out = finish(child, Duration::from_secs(60), &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    assert!(
        crate_dir.join("src/api.rs").exists(),
        "the crate was written"
    );
}

#[cfg(unix)]
#[test]
fn a_file_size_limit_is_an_error_that_leaves_the_old_crate() {
    let t = tmp("ulimit");
    let dir = t.join("uf");
    let out = xtask(&codegen_args(&old_page(), &dir, "12.8", &[]));
    assert!(out.status.success(), "{}", text(&out));
    let before = files(&dir);
    let script = "ulimit -f 500; exec \"$0\" codegen --docs \"$1\" --out \"$2\" --release 13.2";
    let child = Command::new("sh")
        .args([
            "-c",
            script,
            env!("CARGO_BIN_EXE_xtask"),
            s(&page()),
            s(&dir),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh");
    let out = finish(child, Duration::from_secs(60), &["ulimit"]);
    assert_fails(&out, "File too large");
    assert_eq!(files(&dir), before, "the old crate stays whole");
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
}

/// A small deterministic generator (xorshift), for kill moments.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The files of `dir` that the generator wrote (what its user added left out).
fn generated(dir: &Path, user: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let mut f = files(dir);
    f.retain(|k, _| {
        !user
            .iter()
            .any(|u| k == u || k.starts_with(&format!("{u}/")))
    });
    f
}

#[cfg(unix)]
#[test]
fn codegen_killed_at_any_moment_or_run_twice_at_once_leaves_a_whole_crate() {
    let t = tmp("kill");
    let releases = [(old_page(), "12.8"), (page(), "13.2")];
    // The two crates a run may leave, made apart.
    let mut refs = Vec::new();
    let mut took = Duration::ZERO;
    for (k, (p, r)) in releases.iter().enumerate() {
        let dir = t.join(format!("ref{k}"));
        let start = Instant::now();
        let out = xtask(&codegen_args(p, &dir, r, &[]));
        took = took.max(start.elapsed());
        assert!(out.status.success(), "{}", text(&out));
        refs.push(files(&dir));
    }
    assert_ne!(refs[0], refs[1]);
    let w = t.join("w");
    let out = xtask(&codegen_args(&releases[0].0, &w, "12.8", &[]));
    assert!(out.status.success(), "{}", text(&out));
    // What building and using the crate adds: kept through every kill.
    let user = ["notes.txt", "target", "linked"];
    std::fs::write(w.join("notes.txt"), "notes").unwrap();
    std::fs::create_dir_all(w.join("target/debug")).unwrap();
    std::fs::write(w.join("target/debug/x"), "build").unwrap();
    std::os::unix::fs::symlink("..", w.join("linked")).unwrap();
    // After a kill: every user file in place, each generated file the old one or the new one
    // (a run in progress may leave both kinds, and its journal; the next run finishes). Says
    // which crate the folder is when it is one whole.
    let whole = |what: &str| {
        let got = generated(&w, &user);
        for (k, v) in &got {
            if k == ".codegen-journal" || k.starts_with(".codegen-staging-") {
                continue;
            }
            assert!(
                refs.iter().any(|r| r.get(k) == Some(v)),
                "{what}: {k} is neither crate's"
            );
        }
        let user_now = files(&w);
        assert_eq!(
            user_now.get("notes.txt").map(Vec::as_slice),
            Some(b"notes".as_slice()),
            "{what}"
        );
        assert_eq!(
            user_now.get("target/debug/x").map(Vec::as_slice),
            Some(b"build".as_slice()),
            "{what}"
        );
        refs.iter().position(|r| *r == got)
    };
    let tries: u64 = std::env::var("CODEGEN_KILL_TRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let seed: u64 = std::env::var("CODEGEN_KILL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    println!("kill test: {tries} kills, seed {seed}, a run takes {took:?}");
    let mut rng = Rng(seed | 1);
    let span = took.as_micros() as u64 * 5 / 4 + 1;
    let mut old_or_new = [0u32; 3];
    for i in 0..tries {
        let (p, r) = &releases[(i % 2) as usize];
        let child = command(&codegen_args(p, &w, r, &[]))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("xtask");
        // Half the kills anywhere in a run, half in its last third (where it writes).
        let at = if rng.next().is_multiple_of(2) {
            rng.next() % span
        } else {
            span * 2 / 3 + rng.next() % (span / 3 + 1)
        };
        std::thread::sleep(Duration::from_micros(at));
        let signal = if rng.next().is_multiple_of(2) {
            "-KILL"
        } else {
            "-INT"
        };
        let _ = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status();
        let _ = finish(child, Duration::from_secs(60), &["killed"]);
        let which = whole(&format!("kill {i} ({signal} at {at} µs)"));
        old_or_new[which.unwrap_or(2)] += 1;
    }
    println!(
        "kill test: left the 12.8 crate {} times, the 13.2 crate {} times, a run to finish {} times",
        old_or_new[0], old_or_new[1], old_or_new[2]
    );
    // Two runs at once: the second waits for the first; both succeed, the crate is whole.
    for _ in 0..2 {
        let a = command(&codegen_args(&releases[0].0, &w, "12.8", &[]))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let b = command(&codegen_args(&releases[1].0, &w, "13.2", &[]))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (a, b) = (
            finish(a, Duration::from_secs(60), &["a"]),
            finish(b, Duration::from_secs(60), &["b"]),
        );
        assert!(
            a.status.success() && b.status.success(),
            "{}{}",
            text(&a),
            text(&b)
        );
        assert!(whole("two runs at once").is_some(), "two runs at once");
    }
    // The next run finishes whatever a kill left: the user's files are all back.
    let out = xtask(&codegen_args(&releases[1].0, &w, "13.2", &[]));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(whole("the last run"), Some(1));
    let got = files(&w);
    assert_eq!(
        got.get("notes.txt").map(Vec::as_slice),
        Some(b"notes".as_slice())
    );
    assert_eq!(
        got.get("target/debug/x").map(Vec::as_slice),
        Some(b"build".as_slice())
    );
    assert_eq!(
        got.get("linked").map(Vec::as_slice),
        Some(b"-> ..".as_slice())
    );
    assert!(leftovers(&w).is_empty(), "{:?}", leftovers(&w));
}
