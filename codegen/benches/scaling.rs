//! Benchmark: each front end on 1×, 2× and 4× its real input, to show that reading time grows
//! linearly (each doubling of the input should cost at most about 2.3× the time).
//!
//! Text and RST documents are concatenated whole (every item then repeats, so the duplicate
//! checks work too). The HTML page keeps one head and one article: the article's content is
//! repeated inside it, so the 2× and 4× pages are still pages the HTML front end reads whole.
//! Each input goes through `parse_document` with format detection, as `cargo xtask ir` reads
//! it. BENCHMARKS.md has the table.

use codegen::parse::parse_document;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn read(rel: &str) -> Vec<u8> {
    let path = format!("{}/../docs-src/{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `doc` concatenated `times` times.
fn repeated(doc: &[u8], times: usize) -> Vec<u8> {
    doc.repeat(times)
}

/// The page with its article's content repeated `times` times inside the one article.
fn repeated_article(page: &[u8], times: usize) -> Vec<u8> {
    let text = String::from_utf8_lossy(page);
    let open = text.find("<article").expect("the page has an article");
    let body_start = open + text[open..].find('>').expect("the article tag ends") + 1;
    let body_end = text.rfind("</article>").expect("the article ends");
    let body = &text[body_start..body_end];
    let mut out = String::with_capacity(text.len() + body.len() * times);
    out.push_str(&text[..body_start]);
    for _ in 0..times {
        out.push_str(body);
    }
    out.push_str(&text[body_end..]);
    out.into_bytes()
}

/// How an input is made `times` times larger.
type Grow = fn(&[u8], usize) -> Vec<u8>;

fn scaling(c: &mut Criterion) {
    let inputs: [(&str, &str, Grow); 5] = [
        (
            "bindings text 13.2",
            "nvidia-cuda-bindings-13.2/cuda.bindings.runtime.txt",
            repeated,
        ),
        (
            "autodoc RST 12",
            "nvidia-cuda-python-12/cuda.cudart.autodoc.rst",
            repeated,
        ),
        (
            "cudart text 12",
            "nvidia-cuda-python-12/cuda.cudart.txt",
            repeated,
        ),
        ("CuPy RST", "cupy/cupy.cuda.low-level.rst", repeated),
        (
            "HTML 13.3.0",
            "nvidia-cuda-bindings-13.3.0/runtime.html",
            repeated_article,
        ),
    ];
    for (name, rel, grow) in inputs {
        let doc = read(rel);
        let mut group = c.benchmark_group(format!("scaling/{name}"));
        for times in [1usize, 2, 4] {
            let input = grow(&doc, times);
            group.throughput(Throughput::Bytes(input.len() as u64));
            group.bench_with_input(
                BenchmarkId::from_parameter(format!("{times}x")),
                &input,
                |b, input| b.iter(|| parse_document(rel, std::hint::black_box(input), None)),
            );
        }
        group.finish();
    }
}

criterion_group!(benches, scaling);
criterion_main!(benches);
