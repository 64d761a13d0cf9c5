//! The command line on bad input, as the red team ran it: an unreadable side of `diff` or
//! `coverage --docs` is an error exit that prints its diagnostics (it once exited 0 reporting
//! every function "added" or "0 documented"), an input that reads as nothing is refused, and
//! a reader that closes standard output early (`| head -c 100`) ends the command quietly.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn garbage() -> PathBuf {
    root().join("codegen/tests/redteam/diff-coverage-garbage.txt")
}

fn seed() -> PathBuf {
    root().join("docs-src/nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt")
}

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("running xtask")
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("robust_cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Asserts a failing exit that prints the garbage file's diagnostic and no panic.
fn assert_refused(out: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert!(
        stderr.contains("1 error diagnostic(s) while reading it")
            && stderr.contains(
                "diff-coverage-garbage.txt:1: error: could not recognise the documentation format"
            ),
        "{what}: {stderr}"
    );
}

#[test]
fn diff_refuses_an_unreadable_side_either_way() {
    let (g, s) = (garbage(), seed());
    let (g, s) = (g.to_str().unwrap(), s.to_str().unwrap());
    let out = tmp("never-written.md");
    let _ = std::fs::remove_file(&out);
    for (old, new) in [(g, s), (s, g)] {
        let result = xtask(&["diff", old, new, "--out", out.to_str().unwrap()]);
        assert_refused(&result, "diff");
        assert!(!out.exists(), "no report is written for a refused input");
    }
}

#[test]
fn coverage_refuses_unreadable_documents_before_any_library() {
    let g = garbage();
    // No `--lib`: the documents are read, and refused, before any library is looked for.
    let result = xtask(&["coverage", "--docs", g.to_str().unwrap()]);
    assert_refused(&result, "coverage");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(!stderr.contains("exported symbols"), "{stderr}");
}

#[test]
fn a_side_that_reads_as_nothing_is_refused() {
    let empty = tmp("empty.json");
    let nothing = serde_json::to_string(&codegen::ir::Api::default()).unwrap();
    std::fs::write(&empty, nothing).unwrap();
    let s = seed();
    let result = xtask(&[
        "diff",
        empty.to_str().unwrap(),
        s.to_str().unwrap(),
        "--out",
        "-",
    ]);
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no API item was read"), "{stderr}");
    assert!(result.stdout.is_empty(), "no report is printed");
}

#[test]
fn a_closed_standard_output_ends_the_command_quietly() {
    let s = seed();
    let mut child = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["ir", s.to_str().unwrap(), "--out", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running xtask ir");
    let mut first = [0u8; 100];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("100 bytes of IR JSON");
    // The reader is gone now (`| head -c 100`).
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("stderr");
    let status = child.wait().expect("xtask ends");
    assert!(
        first.starts_with(b"{"),
        "{:?}",
        String::from_utf8_lossy(&first)
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        // Success, or killed by SIGPIPE (13), as `head` users expect; never a failure exit.
        assert!(
            status.success() || status.signal() == Some(13),
            "{status}: {stderr}"
        );
    }
    #[cfg(not(unix))]
    assert!(status.success(), "{status}: {stderr}");
}

#[test]
fn cr_only_line_endings_are_read() {
    let text = std::fs::read(root().join("docs-src/cupy/cupy.cuda.low-level.rst")).unwrap();
    let cr: Vec<u8> = text
        .iter()
        .map(|&b| if b == b'\n' { b'\r' } else { b })
        .collect();
    let file = tmp("cupy-cr-only.rst");
    std::fs::write(&file, cr).unwrap();
    let out = tmp("cupy-cr-only.json");
    let result = xtask(&["ir", file.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(
        result.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&result.stderr)
    );
    assert!(stdout.contains("0 error(s)"), "{stdout}");
    let json = std::fs::read_to_string(&out).unwrap();
    assert!(
        json.contains("line endings converted to LF"),
        "the note is in the IR"
    );
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn coverage_names_a_truncated_or_foreign_library() {
    let library =
        crate::mapped_library::mapped_shared_library().expect("a shared library is mapped");
    let mut bytes = std::fs::read(library).expect("library");
    let cut = tmp("cut-libcudart.so.13");
    std::fs::write(&cut, &bytes[..4096]).unwrap();
    bytes[18..20].copy_from_slice(&183u16.to_le_bytes()); // EM_AARCH64
    let arm = tmp("arm-libcudart.so.13");
    std::fs::write(&arm, &bytes).unwrap();
    for (lib, what) in [
        (&cut, "the file is truncated: segment"),
        (&arm, "built for AArch64, this process is x86-64"),
    ] {
        let result = xtask(&["coverage", "--lib", lib.to_str().unwrap(), "--out", "-"]);
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(1), "{stderr}");
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("error: "))
            .collect();
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(errors[0].contains(what), "{stderr}");
        assert!(!stderr.contains("No such file"), "{stderr}");
    }
}

#[test]
fn codegen_crate_names_one_workspace_crate_or_lists_them() {
    let out = xtask(&["codegen", "--check", "--crate", "no-such-crate"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--crate no-such-crate: docs-src/manifest.toml has no such crate")
            && stderr.contains("cudart13")
            && stderr.contains("cudart12"),
        "{stderr}"
    );
    let out = xtask(&["codegen", "--check", "--crate", "cudart12"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("cudart12: CUDA 12."), "{stdout}");
    assert!(
        !stdout.contains("cudart13:"),
        "only the crate named is made: {stdout}"
    );
}

/// `--library` names the library a crate of its own binds: NVRTC's header with `--library
/// nvrtc` is a complete crate; the same header bound as the runtime (or the runtime's headers
/// as NVRTC) is an error naming the mismatch, with nothing written; an unknown library is a
/// usage error listing the known ones.
#[test]
fn codegen_library_names_the_abi_the_documents_must_match() {
    let out_dir = tmp("nvrtc12-of-its-own");
    let _ = std::fs::remove_dir_all(&out_dir);
    let dir = out_dir.to_string_lossy().into_owned();
    let header = "docs-src/nvidia-nvrtc-headers-12.9";
    let out = xtask(&[
        "codegen",
        "--docs",
        header,
        "--out",
        &dir,
        "--library",
        "nvrtc",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("nvrtc12: CUDA 12.9"), "{stdout}");
    let manifest = std::fs::read_to_string(out_dir.join("Cargo.toml")).expect("Cargo.toml");
    assert!(manifest.contains("name = \"nvrtc12\""), "{manifest}");
    assert!(manifest.contains("library = \"nvrtc\""), "{manifest}");
    assert!(out_dir.join("src/program.rs").is_file());

    let wrong = tmp("nvrtc-as-cudart");
    let _ = std::fs::remove_dir_all(&wrong);
    let out = xtask(&[
        "codegen",
        "--docs",
        header,
        "--out",
        &wrong.to_string_lossy(),
    ]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("documented functions is one the ABI of cudart declares"),
        "{text}"
    );
    assert!(
        !wrong.exists(),
        "a crate was written for mismatched documents"
    );

    let out = xtask(&["abi", "--library", "cublas"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("unknown library `cublas` (known: cudart, nvrtc, nvjitlink)"),
        "{stderr}"
    );
}

/// Runs xtask with `args` and returns whether it exited 0 and its peak resident memory in
/// KiB (the `ru_maxrss` that `wait4` gives for that one process).
#[allow(
    clippy::zombie_processes,
    reason = "reaped by wait4, which returns its rusage"
)]
fn peak_kib(args: &[&str]) -> (bool, i64) {
    let child = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("running xtask");
    let mut status = 0;
    // SAFETY: a plain C struct, written by the kernel for this child, which is reaped here.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4");
    (
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        usage.ru_maxrss,
    )
}

/// The red team's `codegen-backtick-memory.py`: a doc line of N MB of backquotes in
/// `cuda_runtime_api.h` cost `codegen` about 80 bytes per input byte (the Markdown check
/// parsed each comment whole, a tree node per escaped backquote). Now each MB added costs at
/// most 50 MB (issue 29's bound; about 16 MB in a release build), measured between 1 and 4 MB.
#[test]
fn a_megabyte_line_of_backquotes_costs_codegen_linear_memory() {
    let header = std::fs::read_to_string(
        root().join("docs-src/nvidia-cuda-headers-13.5/cuda_runtime_api.h"),
    )
    .expect("the 13.5 header");
    let at = header
        .find(" * \\brief Wait for compute device to finish")
        .expect("cudaDeviceSynchronize's comment");
    let run = |mb: usize| {
        let doc = tmp(&format!("backquotes-{mb}.h"));
        let text = format!(
            "{} * {}\n{}",
            &header[..at],
            "`".repeat(mb << 20),
            &header[at..]
        );
        std::fs::write(&doc, text).unwrap();
        let out = tmp(&format!("backquotes-{mb}-crate"));
        let _ = std::fs::remove_dir_all(&out);
        let (ok, kib) = peak_kib(&[
            "codegen",
            "--docs",
            &doc.to_string_lossy(),
            "--out",
            &out.to_string_lossy(),
            "--release",
            "13.5",
        ]);
        assert!(ok, "codegen of {mb} MB of backquotes failed");
        let _ = std::fs::remove_dir_all(&out);
        let _ = std::fs::remove_file(&doc);
        kib
    };
    let (one, four) = (run(1), run(4));
    let per_mb = (four - one) as f64 / 3.0 / 1024.0;
    println!("peak {one} KiB with 1 MB, {four} KiB with 4 MB: {per_mb:.1} MB per MB");
    assert!(
        per_mb <= 50.0,
        "{per_mb:.1} MB per MB of input (at most 50)"
    );
}
