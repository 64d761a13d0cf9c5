//! Benchmark: each front end on 1×, 2× and 4× its real input, to show that reading time grows
//! linearly (each doubling of the input should cost at most about 2.3× the time).
//!
//! Text and RST documents are concatenated whole (every item then repeats, so the duplicate
//! checks work too). The HTML page keeps one head and one article: the article's content is
//! repeated inside it, so the 2× and 4× pages are still pages the HTML front end reads whole.
//! Each input goes through `parse_document` with format detection, as `cargo xtask ir` reads
//! it. Times are the CPU time of the benchmark's thread ([`codegen::clock`]), so that other
//! work on a shared machine does not bend the factors. BENCHMARKS.md has the table.

use std::time::Duration;

use codegen::clock::Stopwatch;
use codegen::parse::parse_document;
use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// CPU time of the benchmark thread, in nanoseconds.
struct CpuTime;

impl Measurement for CpuTime {
    type Intermediate = Stopwatch;
    type Value = Duration;

    fn start(&self) -> Stopwatch {
        Stopwatch::start()
    }

    fn end(&self, started: Stopwatch) -> Duration {
        started.elapsed()
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &Nanoseconds
    }
}

/// Shows nanosecond values in the unit that suits them, and bytes per second in MiB/s.
struct Nanoseconds;

impl ValueFormatter for Nanoseconds {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = match typical {
            t if t < 1e3 => (1.0, "ns"),
            t if t < 1e6 => (1e-3, "µs"),
            t if t < 1e9 => (1e-6, "ms"),
            _ => (1e-9, "s"),
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let amount = match *throughput {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Elements(n) => {
                n as f64
            }
        };
        values
            .iter_mut()
            .for_each(|v| *v = amount * (1e9 / *v) / (1024.0 * 1024.0));
        "MiB/s"
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

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

fn scaling(c: &mut Criterion<CpuTime>) {
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

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = scaling
}
criterion_main!(benches);
