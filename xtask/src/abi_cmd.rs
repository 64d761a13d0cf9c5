//! `cargo xtask abi`: makes (or checks) the committed ABI snapshot of one CUDA release from
//! that release's own headers: fetches NVIDIA's wheels ([`crate::wheel`]), makes sure libclang
//! is there ([`crate::libclang`]), reads the headers with bindgen
//! (`codegen::abi::headers::read_headers`) and writes `abi/<X.Y>.json`
//! (`codegen::abi::snapshot`). `--check` compares with the committed file instead, reading
//! the exact wheel versions the snapshot names. `--cudarc` reads cudarc's bindings instead
//! (the independent cross-check), as JSON under `target/`.
//!
//! The release defaults to the one the default documents state (`docs-src/manifest.toml`).
//! Every step prints what it does; a run with error diagnostics writes nothing.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use codegen::abi::headers::{read_headers, HeaderSpec};
use codegen::abi::{snapshot, Abi};
use codegen::diag::{Counts, Severity};
use codegen::ir::Release;
use codegen::library::Library;

use crate::{libclang, wheel};

#[derive(clap::Args)]
pub struct AbiArgs {
    /// CUDA release, e.g. `13.2` (default: the release docs-src/manifest.toml states).
    #[arg(long)]
    release: Option<String>,
    /// Where to write the JSON (default: abi/<X.Y>.json, or target/abi-cudarc-<X.Y>.json with
    /// --cudarc; `-` for standard output).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Compare with the committed snapshot instead of writing; fail, naming the items, when
    /// they differ.
    #[arg(long, conflicts_with = "out")]
    check: bool,
    /// Read cudarc's bindings for the release instead of the headers (the cross-check).
    #[arg(long, conflicts_with = "check")]
    cudarc: bool,
    /// The library whose headers are read: `cudart` (the runtime, `abi/<X.Y>.json`), `nvrtc`
    /// (`abi/nvrtc/<X.Y>.json`, from the `nvidia-cuda-nvrtc` wheel) or `nvjitlink`
    /// (`abi/nvjitlink/<X.Y>.json`, from the `nvidia-nvjitlink` wheel).
    #[arg(long, default_value = "cudart", value_parser = parse_library)]
    library: Library,
}

/// A `--library` value: a library the generator knows.
pub fn parse_library(name: &str) -> std::result::Result<Library, String> {
    Library::from_name(name).ok_or_else(|| {
        format!(
            "unknown library `{name}` (known: {})",
            Library::known_names()
        )
    })
}

/// Runs the command; `root` is the workspace root.
pub fn run(args: AbiArgs, root: &Path) -> Result<ExitCode> {
    let release = match args.release.as_deref() {
        Some(text) => Release::parse(text)
            .with_context(|| format!("`{text}` is not a release such as 13.2"))?,
        None => wheel::newest_release(&root.join("docs-src"))?,
    };
    if args.cudarc {
        if !args.library.is_cudart() {
            bail!("--cudarc reads cudarc's runtime bindings: it takes no --library");
        }
        return cudarc(&release, args.out, root);
    }
    let library = args.library;
    let committed = snapshot::library_path(root, library, &release);
    let pins: Vec<(String, String)> = if args.check {
        let old = snapshot::load(&committed)?;
        old.packages.into_iter().collect()
    } else {
        Vec::new()
    };

    let start = Instant::now();
    let w = wheel::fetch_library(root, library, &release, &pins)?;
    let fetched = start.elapsed();
    let start = Instant::now();
    let libclang = libclang::ensure(root)?;
    let found = start.elapsed();
    let start = Instant::now();
    let abi = read_with(library, &release, &w, &libclang)?;
    let read = start.elapsed();

    let mut report = summary(&abi);
    report.push_str(&format!(
        "wheels {:.1} s, libclang {:.1} s, bindgen + read {:.2} s\n",
        fetched.as_secs_f64(),
        found.as_secs_f64(),
        read.as_secs_f64()
    ));
    let errors = Counts::of(&abi.diagnostics).errors;
    let json = snapshot::to_json(&abi);

    if args.check {
        out!("{report}")?;
        let old_text = std::fs::read_to_string(&committed)
            .with_context(|| format!("reading {}", committed.display()))?;
        if old_text == json {
            outln!("{} is fresh", committed.display())?;
            return Ok(ExitCode::SUCCESS);
        }
        let old = snapshot::load(&committed)?;
        let diffs = snapshot::differences(&old, &abi, 40);
        errln!(
            "{} is stale: the headers now read differently{}",
            committed.display(),
            if diffs.is_empty() {
                " (formatting only)"
            } else {
                ":"
            }
        );
        for d in diffs {
            errln!("  {d}");
        }
        errln!("run `cargo xtask abi --release {release}` and commit the result");
        return Ok(ExitCode::FAILURE);
    }
    if errors > 0 {
        err!("{report}");
        bail!("{errors} error diagnostic(s): nothing written (the snapshot would be incomplete)");
    }
    let out = args.out.unwrap_or(committed);
    write_out(&out, &json, &report)?;
    Ok(ExitCode::SUCCESS)
}

/// The snapshot of `release` to read: the committed one (`abi/<release>.json`), else the one
/// cached under `target/abi/`, else one made now from the release's wheels (fetched, with
/// libclang) and written to that cache (`cargo xtask codegen --out` or `diff` on a release
/// nobody committed a snapshot of). The repository's `abi/` folder is never written here:
/// committing a snapshot is `cargo xtask abi` and `cargo xtask release`. Returns its path.
pub fn ensure_snapshot(root: &Path, release: &Release) -> Result<PathBuf> {
    ensure_library_snapshot(root, Library::Cudart, release)
}

/// [`ensure_snapshot`] for `library`'s headers (`abi/nvrtc/<release>.json`, else
/// `target/abi/nvrtc/<release>.json`).
pub fn ensure_library_snapshot(
    root: &Path,
    library: Library,
    release: &Release,
) -> Result<PathBuf> {
    let found = snapshot::find_library(root, library, release);
    if found.is_file() {
        return Ok(found);
    }
    let path = snapshot::library_cache_path(root, library, release);
    errln!(
        "no ABI snapshot of {library} for CUDA {release}: making {} from the release's wheels",
        path.display()
    );
    let abi = make_library_snapshot(root, library, release, &[])?;
    write_out(&path, &snapshot::to_json(&abi), &summary(&abi))?;
    Ok(path)
}

/// Reads `library`'s `release` headers from its wheels (fetched at the versions of `pins`,
/// else the newest of the release) with libclang (installed when missing); an error when the
/// read has error diagnostics.
pub fn make_library_snapshot(
    root: &Path,
    library: Library,
    release: &Release,
    pins: &[(String, String)],
) -> Result<Abi> {
    let w = wheel::fetch_library(root, library, release, pins)?;
    let libclang = libclang::ensure(root)?;
    let abi = read_with(library, release, &w, &libclang)?;
    let errors = Counts::of(&abi.diagnostics).errors;
    if errors > 0 {
        err!("{}", summary(&abi));
        bail!("{errors} error diagnostic(s) reading the headers of CUDA {release}: no snapshot written");
    }
    Ok(abi)
}

/// Reads the headers of `library`'s `release` from the unpacked wheels `w` with `libclang`.
pub fn read_with(
    library: Library,
    release: &Release,
    w: &wheel::Wheel,
    libclang: &Path,
) -> Result<Abi> {
    let spec = HeaderSpec {
        library,
        release: release.clone(),
        include_dirs: w.include_dirs.clone(),
        libclang: libclang.to_path_buf(),
        packages: w.versions(),
    };
    Ok(read_headers(&spec)?)
}

/// Counts and the diagnostics worth reading, one screen.
pub fn summary(abi: &Abi) -> String {
    let mut s = String::new();
    let release = abi
        .release
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    s.push_str(&format!(
        "ABI of {} of CUDA {release}: {}\n",
        abi.library.title(),
        abi.origin
    ));
    s.push_str(&format!(
        "{} functions, {} records ({} structs, {} unions; {} with layout), {} enums, {} typedefs, \
         {} constants, {} renames, {} macro aliases\n",
        abi.functions.len(),
        abi.records.len(),
        abi.struct_count(),
        abi.union_count(),
        abi.records.values().filter(|r| r.size.is_some()).count(),
        abi.enums.len(),
        abi.typedefs.len(),
        abi.constants.len(),
        abi.renames.len(),
        abi.macro_aliases.len()
    ));
    for (documented, symbol) in &abi.renames {
        s.push_str(&format!("  rename: {documented} → {symbol}\n"));
    }
    let c = Counts::of(&abi.diagnostics);
    s.push_str(&format!(
        "diagnostics: {} errors, {} warnings, {} notes\n",
        c.errors, c.warnings, c.notes
    ));
    for d in abi
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Note)
        .take(20)
    {
        s.push_str(&format!("  {d}\n"));
    }
    s
}

pub fn write_out(out: &Path, json: &str, report: &str) -> Result<()> {
    if out.as_os_str() == "-" {
        out!("{json}")?;
        err!("{report}");
        return Ok(());
    }
    codegen::output::write_file(out, json.as_bytes())?;
    out!("{report}")?;
    outln!("ABI written to {}", out.display())?;
    Ok(())
}

/// `--cudarc`: cudarc's bindings for `release`, located through `cargo metadata`.
fn cudarc(release: &Release, out: Option<PathBuf>, root: &Path) -> Result<ExitCode> {
    let start = Instant::now();
    let source = codegen::abi::locate_cudarc_runtime(&root.join("Cargo.toml"))?;
    let located = start.elapsed();
    let text = std::fs::read_to_string(&source.path)
        .with_context(|| format!("reading {}", source.path.display()))?;
    let start = Instant::now();
    let mut abi = codegen::abi::read_abi(&text, &source.path.display().to_string(), release);
    let read = start.elapsed();
    abi.origin = codegen::abi::cudarc_origin(&source.cudarc_version, release);

    let mut report = summary(&abi);
    report.push_str(&format!(
        "{} ({} lines): cargo metadata {:.0} ms, parse + read {:.1} ms\n",
        source.path.display(),
        text.lines().count(),
        located.as_secs_f64() * 1e3,
        read.as_secs_f64() * 1e3
    ));
    let out = out.unwrap_or_else(|| {
        root.join(format!(
            "target/abi-cudarc-{}.json",
            snapshot::short_release(release)
        ))
    });
    write_out(&out, &snapshot::to_json(&abi), &report)?;
    Ok(if Counts::of(&abi.diagnostics).errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_cmd::{ABI_CHECKED, ABI_CHECK_VAR as CHECK_VAR, ABI_LIBCLANG_VAR};

    /// The releases checked for freshness are those the workspace's generated crates are
    /// made from (the manifest's `[[crate]]` entries), not releases no crate uses.
    #[test]
    fn freshness_checks_the_crates_releases() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let docs = root.join("docs-src");
        let mut releases: Vec<String> = codegen::load::crates(&docs)
            .unwrap()
            .iter()
            .filter_map(|c| {
                let d: Vec<PathBuf> = c.docs.iter().map(|d| docs.join(d)).collect();
                codegen::load::manifest_release(&d)
            })
            .map(|r| snapshot::short_release(&r))
            .collect();
        releases.sort();
        releases.dedup();
        let mut checked: Vec<String> = ABI_CHECKED.iter().map(|r| r.to_string()).collect();
        checked.sort();
        assert_eq!(checked, releases);
    }

    /// The committed snapshots of [`ABI_CHECKED`], of the runtime and of NVRTC, are what the
    /// headers give now, byte for byte.
    /// Needs the unpacked wheels and libclang (`cargo xtask test` provides both); skipped with
    /// a reason otherwise, unless `CUDART_AUDIT_REQUIRED=1`.
    #[test]
    fn committed_snapshots_are_fresh() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let required = std::env::var("CUDART_AUDIT_REQUIRED").is_ok_and(|v| v == "1");
        if std::env::var(CHECK_VAR).map_or(true, |v| v != "1") {
            assert!(
                !required,
                "{CHECK_VAR} is not set: run `cargo xtask test`, which fetches the wheels and libclang"
            );
            eprintln!("skipped: {CHECK_VAR}=1 is not set (`cargo xtask test` sets it after fetching the wheels of ABI_CHECKED and libclang)");
            return;
        }
        let libclang = std::env::var_os(ABI_LIBCLANG_VAR)
            .map(PathBuf::from)
            .filter(|p| p.is_file())
            .or_else(|| libclang::find(root))
            .expect("no libclang: CUDART_ABI_LIBCLANG and LIBCLANG_PATH unset and target/libclang/ empty (`cargo xtask abi` installs it)");
        let checked = ABI_CHECKED
            .iter()
            .flat_map(|r| Library::ALL.map(|l| (l, *r)));
        for (library, release) in checked {
            let release = Release::parse(release).unwrap();
            let path = snapshot::library_path(root, library, &release);
            let committed = snapshot::load(&path).unwrap_or_else(|e| panic!("{e}"));
            let w =
                wheel::open_library(root, library, &release).unwrap_or_else(|e| panic!("{e:#}"));
            assert_eq!(
                w.versions(),
                committed.packages.clone().into_iter().collect::<Vec<_>>(),
                "the unpacked wheels are not the snapshot's (run `cargo xtask abi --library {library} --release {release} --check`)"
            );
            let start = Instant::now();
            let abi =
                read_with(library, &release, &w, &libclang).unwrap_or_else(|e| panic!("{e:#}"));
            eprintln!(
                "{library} {release}: read in {:.2} s: {} functions, {} records",
                start.elapsed().as_secs_f64(),
                abi.functions.len(),
                abi.records.len()
            );
            let now = snapshot::to_json(&abi);
            let text = std::fs::read_to_string(&path).unwrap();
            if now != text {
                let diffs = snapshot::differences(&committed, &abi, 40);
                panic!(
                    "{} is stale; run `cargo xtask abi --library {library} --release {release}`: {diffs:#?}",
                    path.display()
                );
            }
        }
    }
}
