//! Criterion benchmarks of the generator (see BENCHMARKS.md for the figures and commands):
//! `parse_merge_docs_src` reads and merges every default document of `docs-src/`;
//! `codegen_docs_to_files` runs join + emit + formatting from an already-read IR and ABI
//! (the part of `cargo xtask codegen` after reading inputs); `read_abi` parses cudarc's
//! bindings; `codegen_end_to_end` does everything from the files on disk to formatted output.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn bench(c: &mut Criterion) {
    let docs = vec![root().join("docs-src")];
    // Read the files once: the benchmark measures parsing and merging, not the disk.
    let files = codegen::load::list_documents(&docs).expect("docs-src is readable");
    let inputs: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read(p).expect("readable")))
        .collect();
    let bytes: usize = inputs.iter().map(|(_, b)| b.len()).sum();
    eprintln!("docs-src: {} documents, {bytes} bytes", inputs.len());
    c.bench_function("parse_merge_docs_src", |b| {
        b.iter(|| {
            let apis = inputs
                .iter()
                .map(|(name, data)| codegen::parse::parse_document(name, data, None))
                .collect();
            codegen::merge::merge(apis)
        })
    });

    let api = codegen::merge::merge(codegen::load::load_all(&docs, None).expect("loads"));
    let release = codegen::pipeline::release_of(&api).expect("manifest states a release");
    let source = codegen::abi::locate_cudarc_runtime(&codegen::abi::workspace_manifest())
        .expect("cudarc is pinned in Cargo.lock");
    let abi_text = std::fs::read_to_string(&source.path).expect("readable");
    let abi = codegen::abi::read_abi(&abi_text, "mod.rs", &release);
    c.bench_function("read_abi", |b| {
        b.iter(|| codegen::abi::read_abi(&abi_text, "mod.rs", &release))
    });

    let out = std::env::temp_dir().join(format!("codegen-bench-{}", std::process::id()));
    let opts = codegen::pipeline::Options::standalone(docs.clone(), out.clone());
    let mut group = c.benchmark_group("codegen");
    group.sample_size(10);
    group.bench_function("docs_to_files", |b| {
        b.iter(|| {
            codegen::pipeline::run_with(api.clone(), &abi, release.clone(), &opts)
                .expect("generates")
        })
    });
    group.bench_function("end_to_end", |b| {
        b.iter(|| codegen::pipeline::run(&opts).expect("generates"))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(out);
}

criterion_group!(benches, bench);
criterion_main!(benches);
