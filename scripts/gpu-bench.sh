#!/usr/bin/env bash
# The GPU call benchmark, run ON THE GPU MACHINE from the repository root (x86-64, nvcc, a
# libcudart.so.13 on the system loader path; no Rust toolchain needed):
#   1. builds the C baseline bench/c/gpu_bench.cu with nvcc twice, `-cudart shared` and
#      `-cudart static`;
#   2. runs C-shared, C-static and the Rust binary device-bin/gpu-bench (staged here by
#      scripts/gpu-test.sh) in turn, GPU_BENCH_ROUNDS times (default 5): A B C A B C …;
#      the Rust binary also loads the C loops built as a shared library
#      (`-DGPU_BENCH_LIB -shared`) and runs each right before its own of the same name, in
#      its process: the "same process" columns, where the two share a runtime, a context and
#      a moment (the machine's speed drifts between processes, C's as much as Rust's);
#   3. writes everything to one file, $OUT/gpu-bench.txt (or target/gpu-bench.txt without
#      $OUT): the machine (GPU, driver, runtime), each round's raw lines, and a table of the
#      medians over the rounds with the ratio to C-shared.
# Each process prints per benchmark the median of GPU_BENCH_REPS (default 7) in-process
# repetitions; see bench/src/bin/gpu-bench.rs for what each benchmark times.
# Optional: NVCC_FLAGS (default -O2 -arch=native), GPU_BENCH_RUST (default device-bin/gpu-bench),
# GPU_BENCH_ONLY=a,b (only the benchmarks of these names, in every binary),
# GPU_BENCH_CPU=N (run every process pinned to CPU N with taskset: without it, a process's
# small calls land in a fast or a slow mode, C's as much as Rust's, and the modes differ by up
# to 2x for stream_query and 1.25x for event_record; "none" leaves placement to the system).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${OUT:-$root/target}"
mkdir -p "$out"
result="$out/gpu-bench.txt"
rounds="${GPU_BENCH_ROUNDS:-5}"
rust="${GPU_BENCH_RUST:-device-bin/gpu-bench}"
flags="${NVCC_FLAGS:--O2 -arch=native}"
build="$(mktemp -d)"
raw="$build/raw.tsv"
trap 'rm -rf "$build"' EXIT

if [ ! -x "$rust" ]; then
  echo "gpu-bench: $rust is missing: run scripts/gpu-test.sh on the build machine first" >&2
  exit 1
fi
# shellcheck disable=SC2086
nvcc $flags -cudart shared -o "$build/c_shared" bench/c/gpu_bench.cu
# shellcheck disable=SC2086
nvcc $flags -cudart static -o "$build/c_static" bench/c/gpu_bench.cu
# shellcheck disable=SC2086
nvcc $flags -cudart shared -DGPU_BENCH_LIB -shared -Xcompiler -fPIC -o "$build/libgpu_bench_c.so" bench/c/gpu_bench.cu

{
  echo "# gpu-bench $(date -u +%Y-%m-%dT%H:%M:%SZ), $rounds rounds (C-shared, C-static, Rust in turn)"
  # The commit the binaries were staged from (this copy's git metadata may be older).
  echo "# commit: $(cat device-bin/COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "# nvcc: $(nvcc --version | tail -n 1)"
  echo "# C-shared loads: $(ldd "$build/c_shared" 2>/dev/null | grep -o '/[^ ]*libcudart[^ ]*' || echo '?')"
  echo "# CUDART_PATH for Rust: ${CUDART_PATH:-unset (system loader)}"
  echo "# NVCC_FLAGS: $flags; GPU_BENCH_REPS: ${GPU_BENCH_REPS:-7}"
} > "$result"

cpu="${GPU_BENCH_CPU:-none}"
pin=()
if [ "$cpu" != none ]; then
  pin=(taskset -c "$cpu")
fi
echo "# pinned to CPU: $cpu" >> "$result"
echo "# GPU_BENCH_ONLY: ${GPU_BENCH_ONLY:-all}" >> "$result"
: > "$raw"
for round in $(seq 1 "$rounds"); do
  "${pin[@]}" "$build/c_shared" c-shared >> "$raw"
  "${pin[@]}" "$build/c_static" c-static >> "$raw"
  GPU_BENCH_C_LIB="$build/libgpu_bench_c.so" "${pin[@]}" "$rust" >> "$raw"
  echo "gpu-bench: round $round of $rounds done" >&2
done

{
  echo
  echo "## medians over $rounds rounds (ns per call, or GB/s); ratio = Rust / C-shared of the same name before '/'"
  echo
  sort -t "$(printf '\t')" -k1,1 -k2,2 -k3,3g "$raw" | awk -F '\t' '
    function flush() {
      if (n == 0) return
      m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      med[key] = m; unit[name] = u
      if (!(name in seen)) { seen[name] = 1; names[++nn] = name }
      n = 0
    }
    { k = $1 SUBSEP $2; if (k != key) { flush(); key = k; name = $2 }
      v[++n] = $3; u = $4; impl[$1] = 1 }
    END {
      flush()
      printf "| benchmark | unit | C shared | C static | Rust | Rust / C shared | C in Rust'"'"'s process | Rust / C, same process |\n"
      printf "|---|---|---|---|---|---|---|---|\n"
      for (i = 1; i <= nn; i++) {
        nm = names[i]; base = nm; sub(/\/.*/, "", base)
        cs = (("c-shared" SUBSEP nm) in med) ? med["c-shared" SUBSEP nm] : ""
        ct = (("c-static" SUBSEP nm) in med) ? med["c-static" SUBSEP nm] : ""
        rs = (("rust" SUBSEP nm) in med) ? med["rust" SUBSEP nm] : ""
        ratio = ""
        if (rs != "" && (("c-shared" SUBSEP base) in med) && med["c-shared" SUBSEP base] > 0)
          ratio = sprintf("%.3f", rs / med["c-shared" SUBSEP base])
        ci = (("c-inproc" SUBSEP nm) in med) ? med["c-inproc" SUBSEP nm] : ""
        ri = (("ratio-inproc" SUBSEP nm) in med) ? med["ratio-inproc" SUBSEP nm] : ""
        if (ri != "") ri = sprintf("%.3f", ri)
        printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", nm, unit[nm], cs, ct, rs, ratio, ci, ri
      }
    }'
  echo
  echo "## raw lines (each process's medians), in run order"
  echo
  cat "$raw"
} >> "$result"
cat "$result"
