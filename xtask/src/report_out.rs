//! Writing a report file (`diff`, `coverage`, `timeline`): refused when it would replace one
//! of the command's inputs or lie inside an input folder, and written to a temporary file
//! beside its destination then renamed over it, so a kill or a full disk leaves the old
//! report or the new one, whole, and a link at the destination is replaced, not written
//! through. The smallest version of the workspace's output helper, for these commands only.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// `path` absolute, with the links and `..` of its existing part resolved.
fn resolved(path: &Path) -> PathBuf {
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

/// Fails when `out` is one of `inputs`, lies inside an input folder, or holds an input.
pub fn refuse_inputs(out: &Path, inputs: &[PathBuf]) -> Result<()> {
    let out_real = resolved(out);
    for input in inputs.iter().filter(|i| i.exists()) {
        let input_real = resolved(input);
        let why = if out_real == input_real {
            "is"
        } else if out_real.starts_with(&input_real) {
            "is inside"
        } else if input_real.starts_with(&out_real) {
            "holds"
        } else {
            continue;
        };
        bail!(
            "--out {}: {why} the input {}; choose another output",
            out.display(),
            input.display()
        );
    }
    Ok(())
}

/// Writes `text` to `out` in one step (see the module comment).
pub fn write(out: &Path, text: &str) -> Result<()> {
    let name = out
        .file_name()
        .with_context(|| format!("--out {}: not a file name", out.display()))?;
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = (|| {
        use std::io::Write;
        let _ = std::fs::remove_file(&tmp);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.flush()
    })();
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, out)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("writing {}", out.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_is_never_an_output() {
        let dir = std::env::temp_dir().join(format!("report-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("doc.txt");
        std::fs::write(&input, "x").unwrap();
        assert!(refuse_inputs(&input, std::slice::from_ref(&input)).is_err());
        assert!(refuse_inputs(&dir.join("sub/r.md"), std::slice::from_ref(&dir)).is_err());
        assert!(refuse_inputs(&dir, std::slice::from_ref(&input)).is_err());
        let out = std::env::temp_dir().join(format!("report-out-{}.md", std::process::id()));
        refuse_inputs(&out, std::slice::from_ref(&input)).unwrap();
        write(&out, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
        std::fs::remove_file(&out).ok();
        std::fs::remove_dir_all(&dir).ok();
    }
}
