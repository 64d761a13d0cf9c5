//! The pages of other Sphinx themes that the theme tests read (`codegen/tests/themes.rs`):
//! NVIDIA's 13.4.4 and 12.8.0 `cuda.bindings.runtime` pages rebuilt by Sphinx in the NVIDIA
//! theme, `sphinx_rtd_theme`, furo and alabaster, as HTML and rendered to text, by
//! `codegen/tests/themes/build.py` from the page's recovered source.
//!
//! Sphinx and the themes are installed from PyPI, at the versions of
//! `codegen/tests/themes/requirements.txt`, into a virtual environment under
//! `target/sphinx-themes/venv/` (the interpreter that makes it is `PYTHON`, else `python3`).
//! Three sets are built into `target/sphinx-themes/pages/`: `full/` (the whole 13.4.4 page),
//! `small/` (the committed pages' selection, for their freshness check) and `12.8.0/`. Both are kept while
//! the script, its requirements and the page are the bytes they were built from (copies of
//! them lie in `target/sphinx-themes/built-from/`), so a second run needs no network.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// The variable the theme tests read: the folder holding `full/` and `small/`.
pub const PAGES_VAR: &str = "CUDART_THEME_PAGES";

/// The real pages rebuilt, relative to the workspace: the newest, and the oldest (whose
/// forms differ most: multi-line enum headers, `List[…]`).
const PAGE: &str = "docs-src/nvidia-cuda-bindings-13.4.4/runtime.html";
const OLDEST_PAGE: &str = "docs-src/nvidia-cuda-bindings-12.8.0/runtime.html";
/// The script and its pinned requirements, relative to the workspace.
const SCRIPT: &str = "codegen/tests/themes/build.py";
const REQUIREMENTS: &str = "codegen/tests/themes/requirements.txt";
/// Objects of each shape the committed pages keep (`build.py --objects`).
const SMALL_OBJECTS: &str = "2";

/// The sets built: folder, page, `build.py` options.
const SETS: [(&str, &str, &[&str]); 3] = [
    ("full", PAGE, &[]),
    ("small", PAGE, &["--objects", SMALL_OBJECTS]),
    ("12.8.0", OLDEST_PAGE, &[]),
];

/// Builds the theme pages when they are missing or stale; returns the folder for
/// [`PAGES_VAR`].
pub fn ensure(root: &Path) -> Result<PathBuf> {
    let dir = root.join("target").join("sphinx-themes");
    let pages = dir.join("pages");
    let stamps = dir.join("built-from");
    let inputs = [PAGE, OLDEST_PAGE, SCRIPT, REQUIREMENTS];
    // Each input's copy, named for its whole path.
    let stamp = |rel: &str| stamps.join(rel.replace('/', "_"));
    let fresh =
        inputs.iter().all(
            |rel| match (std::fs::read(root.join(rel)), std::fs::read(stamp(rel))) {
                (Ok(now), Ok(then)) => now == then,
                _ => false,
            },
        );
    if fresh && SETS.iter().all(|(set, ..)| pages.join(set).is_dir()) {
        errln!("  theme pages: {} (built before)", pages.display());
        return Ok(pages);
    }
    let python = venv(root, &dir)?;
    // What the last build was made from goes first: a build killed halfway is redone.
    let _ = std::fs::remove_dir_all(&stamps);
    for (set, page, extra) in SETS {
        let out = pages.join(set);
        errln!("  building the {set} theme pages into {}", out.display());
        let status = Command::new(&python)
            .arg(root.join(SCRIPT))
            .arg("build")
            .arg(root.join(page))
            .arg(&out)
            .args(extra)
            .status()
            .with_context(|| format!("could not run {}", python.display()))?;
        if !status.success() {
            bail!("`{SCRIPT} build` failed ({status})");
        }
    }
    std::fs::create_dir_all(&stamps)?;
    for rel in inputs {
        std::fs::copy(root.join(rel), stamp(rel)).with_context(|| format!("recording {rel}"))?;
    }
    Ok(pages)
}

/// The interpreter of `target/sphinx-themes/venv/`, made and given the pinned requirements
/// when it lacks them (their copy in the environment says which it has).
fn venv(root: &Path, dir: &Path) -> Result<PathBuf> {
    let env = dir.join("venv");
    let python = env.join("bin").join("python");
    let installed = env.join("requirements.txt");
    let wanted = std::fs::read(root.join(REQUIREMENTS))
        .with_context(|| format!("reading {REQUIREMENTS}"))?;
    if python.is_file() && std::fs::read(&installed).is_ok_and(|have| have == wanted) {
        return Ok(python);
    }
    let _ = std::fs::remove_dir_all(&env);
    let maker = crate::wheel::python();
    errln!("  $ {maker} -m venv {}", env.display());
    let status = Command::new(&maker)
        .args(["-m", "venv"])
        .arg(&env)
        .status()
        .with_context(|| format!("running `{maker} -m venv` (is Python 3 installed?)"))?;
    if !status.success() {
        bail!("`{maker} -m venv {}` failed ({status})", env.display());
    }
    errln!("  $ pip install -r {REQUIREMENTS}");
    let status = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
        ])
        .arg(root.join(REQUIREMENTS))
        .status()
        .context("running pip in the themes' virtual environment")?;
    if !status.success() {
        bail!("`pip install -r {REQUIREMENTS}` failed ({status}); it needs network access to PyPI");
    }
    std::fs::write(&installed, &wanted)?;
    Ok(python)
}
