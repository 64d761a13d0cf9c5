//! Peak heap memory of reading and merging `docs-src/` (or the paths given), measured with a
//! counting global allocator. `cargo run --release -p codegen --example parse_memory`;
//! the figure is recorded in BENCHMARKS.md (target: under 10× the input size).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn main() {
    let args: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let paths = if args.is_empty() {
        vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs-src")]
    } else {
        args
    };
    let files = match codegen::load::list_documents(&paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let inputs: Vec<(String, Vec<u8>)> = files
        .iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read(p).ok()?)))
        .collect();
    let input_bytes: usize = inputs.iter().map(|(_, b)| b.len()).sum();
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let apis = inputs
        .iter()
        .map(|(n, b)| codegen::parse::parse_document(n, b, None))
        .collect();
    let api = codegen::merge::merge(apis);
    let peak = PEAK.load(Ordering::Relaxed) - base;
    let kept = CURRENT.load(Ordering::Relaxed) - base;
    println!(
        "input {input_bytes} bytes in {} documents; peak heap while parsing and merging {peak} bytes ({:.2}× input); IR kept {kept} bytes; {} functions",
        inputs.len(),
        peak as f64 / input_bytes as f64,
        api.functions.len()
    );
}
