//! Benchmark: the 13.3.0 Sphinx HTML page (2.2 MB) to IR.

use criterion::{criterion_group, criterion_main, Criterion};

fn html_page(c: &mut Criterion) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs-src/nvidia-cuda-bindings-13.3.0/runtime.html"
    );
    let text = std::fs::read_to_string(path).expect("13.3.0 page present");
    c.bench_function("html runtime.html to IR", |b| {
        b.iter(|| codegen::parse::html::parse("runtime.html", std::hint::black_box(&text)))
    });
}

criterion_group!(benches, html_page);
criterion_main!(benches);
