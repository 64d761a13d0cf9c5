//! Benchmark: the 13.3.0 Sphinx HTML page (2.2 MB) to IR, with html5ever's bare tree cost and
//! the text rendering of the same page through the text front end for comparison.

use codegen::parse::html;
use criterion::{criterion_group, criterion_main, Criterion};

fn read(name: &str) -> String {
    let path = format!(
        "{}/../docs-src/nvidia-cuda-bindings-13.3.0/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).expect("13.3.0 sample present")
}

fn html_page(c: &mut Criterion) {
    let page = read("runtime.html");
    let text = read("runtime.txt");
    c.bench_function("html runtime.html to IR", |b| {
        b.iter(|| html::parse("runtime.html", std::hint::black_box(&page)))
    });
    c.bench_function("html5ever tree of runtime.html only", |b| {
        b.iter(|| scraper::Html::parse_document(std::hint::black_box(&page)))
    });
    c.bench_function("text runtime.txt to IR (same page)", |b| {
        b.iter(|| codegen::parse::sphinx_text::parse("runtime.txt", std::hint::black_box(&text)))
    });
}

criterion_group!(benches, html_page);
criterion_main!(benches);
