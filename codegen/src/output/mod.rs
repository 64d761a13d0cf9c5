//! Writing the commands' outputs so that a failure or a kill never destroys anything: a
//! single file is written under a temporary name beside its destination and renamed over it
//! ([`write_file`]); a crate folder is replaced whole ([`folder`]); and no output may be one
//! of the run's inputs ([`refuse_inputs`]).
//!
//! It decides where nothing is written from: the commands pass their inputs and outputs.

pub mod folder;
pub mod hash;

use std::path::{Path, PathBuf};

/// A refused or failed output.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The output would replace, or be written inside, one of the run's inputs.
    #[error("{out}: {why} the input {input}; choose another output")]
    IsInput {
        out: PathBuf,
        input: PathBuf,
        why: &'static str,
    },
    /// The output folder holds files this generator did not write.
    #[error("{dir}: {why}")]
    Foreign { dir: PathBuf, why: String },
}

/// An [`OutputError::Io`] for `path`.
pub(crate) fn io(path: &Path) -> impl Fn(std::io::Error) -> OutputError + '_ {
    move |error| OutputError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Writes `bytes` to `path` in one step: into a new temporary file in the same folder, then
/// renamed over `path`, so a reader, a kill or a full disk sees the old file or the new one,
/// whole. The folder is created when missing; the temporary file is removed when writing
/// fails. A link at `path` is neither written through nor replaced (an error); a character
/// device or a FIFO there (`/dev/null`, a pipe) is written to as it is, since renaming over
/// it would destroy the device; any other file that is not a regular one is an error.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        let kind = meta.file_type();
        let refuse = |what: &str| OutputError::Io {
            path: path.to_path_buf(),
            error: std::io::Error::new(std::io::ErrorKind::InvalidInput, what.to_string()),
        };
        if kind.is_symlink() {
            return Err(refuse(
                "a symbolic link: an output is neither written through a link nor replaces one (name its target, or `-` for standard output where the command takes it)",
            ));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if kind.is_char_device() || kind.is_fifo() {
                use std::io::Write;
                return std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
                    .map_err(io(path));
            }
        }
        if !kind.is_file() {
            return Err(refuse("not a regular file: not replaced"));
        }
    }
    let name = path.file_name().ok_or_else(|| OutputError::Io {
        path: path.to_path_buf(),
        error: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"),
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        unique()
    ));
    let written = (|| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.flush()
    })();
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(OutputError::Io {
            path: path.to_path_buf(),
            error: e,
        });
    }
    Ok(())
}

/// Makes a write past the file-size limit (`ulimit -f`) fail with an error (`EFBIG`, "File
/// too large") instead of killing the process with `SIGXFSZ`, so that a run removes what it
/// staged and says what happened. For programs' `main`; it changes the whole process.
pub fn fail_at_file_size_limit() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to "ignore" runs no code of ours in a handler.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// A number not given out before in this process (for temporary names).
pub(crate) fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// `path` made absolute with every link and `..` of its existing part resolved (the part
/// that does not exist yet is appended as written).
pub fn resolved(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut at = abs.as_path();
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return abs,
        }
    }
}

/// Checks that the output `out` is none of `inputs` (files or folders the run reads): it is
/// not the same file (by identity: a hard link or a link to an input is one), not inside an
/// input folder (it would be read as an input next time), and, when `out` is a folder, holds
/// no input.
pub fn refuse_inputs(out: &Path, inputs: &[PathBuf]) -> Result<(), OutputError> {
    let out_real = resolved(out);
    let out_id = std::fs::metadata(out)
        .ok()
        .and_then(|m| crate::load::file_id(&m));
    for input in inputs {
        let input_real = resolved(input);
        let input_id = std::fs::metadata(input)
            .ok()
            .and_then(|m| crate::load::file_id(&m));
        let why = if out_real == input_real || (out_id.is_some() && out_id == input_id) {
            Some("is")
        } else if out_real.starts_with(&input_real) {
            Some("is inside")
        } else if input_real.starts_with(&out_real) {
            Some("holds")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(OutputError::IsInput {
                out: out.to_path_buf(),
                input: input.clone(),
                why,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("codegen-output-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp folder");
        dir
    }

    #[test]
    fn a_file_is_replaced_whole_and_a_link_is_neither_written_through_nor_replaced() {
        let dir = tmp("file");
        let target = dir.join("target.txt");
        std::fs::write(&target, "kept").expect("target");
        let out = dir.join("out.json");
        write_file(&out, b"old").expect("writes");
        write_file(&out, b"new").expect("replaces");
        assert_eq!(std::fs::read_to_string(&out).expect("out"), "new");
        #[cfg(unix)]
        {
            let link = dir.join("link.json");
            std::os::unix::fs::symlink(&target, &link).expect("link");
            let err = write_file(&link, b"new").expect_err("a link is refused");
            assert!(err.to_string().contains("symbolic link"), "{err}");
            assert!(std::fs::symlink_metadata(&link)
                .expect("link")
                .file_type()
                .is_symlink());
            assert_eq!(std::fs::read_to_string(&target).expect("target"), "kept");
            std::fs::remove_file(&link).expect("link removed");
        }
        write_file(&dir.join("sub/deeper/x"), b"x").expect("creates folders");
        let names: Vec<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
        // A destination that cannot be replaced (a folder) leaves no temporary file.
        assert!(write_file(&dir.join("sub"), b"x").is_err());
        assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn a_device_or_a_pipe_is_written_to_and_stays_what_it_is() {
        use std::os::unix::fs::FileTypeExt;
        let null = Path::new("/dev/null");
        write_file(null, b"gone").expect("/dev/null takes it");
        let kind = std::fs::symlink_metadata(null)
            .expect("/dev/null")
            .file_type();
        assert!(kind.is_char_device(), "/dev/null is no longer a device");
        // A FIFO: a reader gets the bytes, and the FIFO stays one.
        let dir = tmp("fifo");
        let fifo = dir.join("pipe");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: a NUL-terminated path and a mode.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).expect("read the FIFO"))
        };
        write_file(&fifo, b"through the pipe").expect("the FIFO takes it");
        assert_eq!(reader.join().expect("reader"), b"through the pipe");
        assert!(std::fs::symlink_metadata(&fifo)
            .expect("fifo")
            .file_type()
            .is_fifo());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_input_is_never_an_output() {
        let dir = tmp("inputs");
        let docs = dir.join("docs");
        std::fs::create_dir_all(&docs).expect("docs");
        let page = docs.join("page.txt");
        std::fs::write(&page, "page").expect("page");
        let link = dir.join("link.txt");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&page, &link).expect("link");
        let hard = dir.join("hard.txt");
        std::fs::hard_link(&page, &hard).expect("hard link");
        let inputs = [page.clone()];
        for (out, why) in [
            (page.clone(), "is"),
            (dir.join("docs/../docs/page.txt"), "is"),
            (link, "is"),
            (hard, "is"),
            (docs.clone(), "holds"),
            (dir.clone(), "holds"),
        ] {
            let e = refuse_inputs(&out, &inputs).expect_err("refused");
            assert!(
                matches!(&e, OutputError::IsInput { why: w, .. } if *w == why),
                "{out:?}: {e}"
            );
        }
        let e = refuse_inputs(&docs.join("new/out.json"), std::slice::from_ref(&docs))
            .expect_err("inside");
        assert!(e.to_string().contains("is inside the input"), "{e}");
        refuse_inputs(&dir.join("out.json"), &inputs).expect("another file");
        refuse_inputs(&dir.join("crate"), &[docs]).expect("a sibling folder");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
