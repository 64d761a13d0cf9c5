//! Since-marks at the top of every item newer than its major's first release, in all three
//! layers of the committed crates: the raw functions (`sys`), the typed wrappers (`api`) and
//! the safe layer (the template's copies), the safe layer's marks taken from the C functions
//! each public function calls (`codegen::emit::safe_since`). The newer functions are the
//! crate's own table (`src/sys/since.rs`, from the ABI snapshots of every minor).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use codegen::availability::Since;
use codegen::emit::safe_since::{self, Marks};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `src/sys/since.rs`'s table: C name → its mark.
fn newer_functions(krate: &Path) -> BTreeMap<String, Since> {
    let text = std::fs::read_to_string(krate.join("src/sys/since.rs")).unwrap();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("(\"") else {
            continue;
        };
        let (name, rest) = rest.split_once("\", ").unwrap();
        let v: u32 = rest.trim_end_matches("),").trim().parse().unwrap();
        out.insert(
            name.to_string(),
            Since {
                major: v / 1000,
                release: format!("{}.{}", v / 1000, (v % 1000) / 10),
                oldest: false,
                from_first: true,
                removed_in: None,
            },
        );
    }
    assert!(!out.is_empty(), "{}: no newer function", krate.display());
    out
}

/// The first line of each documented function of a file, by name, and the C function a typed
/// wrapper calls (its "The raw function is [`cudaX`]" line).
fn docs_of(text: &str) -> Vec<(String, String, Option<String>)> {
    let file = syn::parse_file(text).unwrap();
    let mut out = Vec::new();
    for item in &file.items {
        let syn::Item::Fn(f) = item else { continue };
        let lines: Vec<String> = f
            .attrs
            .iter()
            .filter_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Some(s.value().trim().to_string()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let raw = lines.iter().find_map(|l| {
            let rest = l.strip_prefix("The raw function is [`")?;
            Some(rest.split('`').next()?.to_string())
        });
        out.push((
            f.sig.ident.to_string(),
            lines.first().cloned().unwrap_or_default(),
            raw,
        ));
    }
    out
}

fn check_crate(name: &str) {
    let krate = root().join("runtime").join(name);
    let newer = newer_functions(&krate);
    let mut missing = Vec::new();
    // Raw layer.
    let sys = std::fs::read_to_string(krate.join("src/sys/functions.rs")).unwrap();
    let mut raw_seen = 0;
    for (fname, first, _) in docs_of(&sys) {
        if let Some(s) = newer.get(&fname) {
            raw_seen += 1;
            let want = format!("Available since CUDA {}.", s.release);
            if !first.starts_with(&want) {
                missing.push(format!("sys::{fname}: first line `{first}`"));
            }
        }
    }
    assert!(raw_seen > 0, "{name}: no newer raw function found");
    // Typed layer.
    let api = std::fs::read_to_string(krate.join("src/api.rs")).unwrap();
    let mut by_wrapper = BTreeMap::new();
    for (fname, first, raw) in docs_of(&api) {
        let Some(raw) = raw else { continue };
        if let Some(s) = newer.get(&raw) {
            let want = format!("Available since CUDA {}.", s.release);
            if !first.starts_with(&want) {
                missing.push(format!("api::{fname} ({raw}): first line `{first}`"));
            }
        }
        by_wrapper.insert(fname, raw);
    }
    // Safe layer: every public function of the template's copies that calls a newer function.
    let marks = Marks {
        by_c_name: &newer,
        by_wrapper: &by_wrapper,
    };
    let mut safe_marked = 0;
    for (path, _) in codegen::template::COPIED {
        if !path.ends_with(".rs") {
            continue;
        }
        let text = std::fs::read_to_string(krate.join(path)).unwrap();
        for (fname, _, mark, marked) in safe_since::needed(&text, &marks).expect("parses") {
            if marked {
                safe_marked += 1;
            } else {
                missing.push(format!("{path}: {fname} lacks `{mark}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{name}: {} item(s) newer than the major's first release without their since-mark \
         at the top (run `cargo xtask codegen`):\n{}",
        missing.len(),
        missing.join("\n")
    );
    eprintln!("{name}: {raw_seen} raw functions, {safe_marked} safe-layer functions marked");
}

#[test]
fn cudart13_marks_every_newer_item_at_the_top_in_every_layer() {
    check_crate("cudart13");
}

#[test]
fn cudart12_marks_every_newer_item_at_the_top_in_every_layer() {
    check_crate("cudart12");
}

/// The mechanism itself: a public method reaching a newer function through a private helper
/// is marked, with the function named; one calling only older functions is not; a mark
/// already there is not doubled.
#[test]
fn safe_marks_follow_calls_through_helpers() {
    let src = r#"
impl Stream {
    /// The device.
    #[must_use]
    pub fn device(&self) -> u32 {
        self.lookup()
    }

    fn lookup(&self) -> u32 {
        unsafe { sys::cudaStreamGetDevice(self.0) }
    }

    /// The device, or the current one on a runtime older than `cudaStreamGetDevice`.
    pub fn device_or_current(&self) -> u32 {
        Self::fallback(self.0)
    }

    /// `cudaStreamGetDevice`, or the current device where the runtime is older than it.
    fn fallback(raw: u32) -> u32 {
        unsafe { sys::cudaStreamGetDevice(raw) }.unwrap_or(0)
    }

    /// Old.
    pub fn sync(&self) {
        unsafe { sys::cudaStreamSynchronize(self.0) };
    }

    /// Typed.
    pub fn ctx(&self) {
        let _ = crate::api::device_get_execution_ctx(0);
    }
}
"#;
    let mut by_c_name = BTreeMap::new();
    let since = |r: &str, oldest: bool| Since {
        major: 13,
        release: r.into(),
        oldest,
        from_first: true,
        removed_in: None,
    };
    by_c_name.insert("cudaStreamGetDevice".to_string(), since("13.1", false));
    by_c_name.insert("cudaStreamSynchronize".to_string(), since("13.0", true));
    by_c_name.insert(
        "cudaDeviceGetExecutionCtx".to_string(),
        since("13.2", false),
    );
    let mut by_wrapper = BTreeMap::new();
    by_wrapper.insert(
        "device_get_execution_ctx".to_string(),
        "cudaDeviceGetExecutionCtx".to_string(),
    );
    let marks = Marks {
        by_c_name: &by_c_name,
        by_wrapper: &by_wrapper,
    };
    let out = safe_since::mark(src, &marks);
    assert!(
        out.contains(
            "    /// Available since CUDA 13.1 (calls `cudaStreamGetDevice`).\n    ///\n    /// The device.\n    #[must_use]\n    pub fn device"
        ),
        "{out}"
    );
    assert!(
        out.contains("    /// Available since CUDA 13.2 (calls `cudaDeviceGetExecutionCtx`).\n    ///\n    /// Typed."),
        "{out}"
    );
    assert!(!out.contains("since CUDA 13.0"), "{out}");
    // A fallback works on older runtimes: neither it nor its callers are marked.
    assert!(
        out.contains("    }\n\n    /// The device, or the current one"),
        "{out}"
    );
    assert_eq!(out.matches("Available since").count(), 2, "{out}");
    // Marked once: a second pass changes nothing.
    assert_eq!(safe_since::mark(&out, &marks), out);
}
