#!/usr/bin/env bash
# The NVRTC benchmark, run ON THE GPU MACHINE from the repository root (a C compiler, the CUDA
# toolkit's headers and libraries under CUDA_HOME, default /usr/local/cuda; no Rust toolchain):
#   1. builds the C baseline bench/c/nvrtc_bench.c against the toolkit's nvrtc.h and
#      cuda_runtime_api.h, linked to its libnvrtc and libcudart;
#   2. runs it and the Rust binary device-bin/nvrtc-bench (staged by scripts/gpu-test.sh) in
#      turn, NVRTC_BENCH_ROUNDS times (default 5): C Rust C Rust …; each process prints the
#      median of NVRTC_BENCH_REPS (default 9) repetitions of compile → load → launch + sync of
#      the same SAXPY source (see bench/src/bin/nvrtc-bench.rs);
#   3. writes everything to one file, $OUT/nvrtc-bench.txt (or target/nvrtc-bench.txt): the
#      machine, each round's raw lines, and a table of the medians over the rounds with the
#      ratio Rust / C.
# The driver's JIT cache is off (CUDA_CACHE_DISABLE=1, unless set): every module load JITs its
# PTX, in both programs alike. The Rust binary loads the same libraries as C's through the
# system loader (LD_LIBRARY_PATH=$CUDA_HOME/lib64); NVRTC_PATH/CUDART_PATH override that.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${OUT:-$root/target}"
mkdir -p "$out"
result="$out/nvrtc-bench.txt"
rounds="${NVRTC_BENCH_ROUNDS:-5}"
rust="${NVRTC_BENCH_RUST:-device-bin/nvrtc-bench}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
build="$(mktemp -d)"
raw="$build/raw.tsv"
trap 'rm -rf "$build"' EXIT
export CUDA_CACHE_DISABLE="${CUDA_CACHE_DISABLE:-1}"
export LD_LIBRARY_PATH="$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

if [ ! -x "$rust" ]; then
  echo "nvrtc-bench: $rust is missing: run scripts/gpu-test.sh on the build machine first" >&2
  exit 1
fi
"${CC:-cc}" -O2 -I"$cuda/include" bench/c/nvrtc_bench.c -L"$cuda/lib64" -lnvrtc -lcudart \
  -o "$build/nvrtc_bench_c"

{
  echo "# nvrtc-bench $(date -u +%Y-%m-%dT%H:%M:%SZ), $rounds rounds (C, Rust in turn)"
  echo "# commit: $(cat device-bin/COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  echo "# C loads: $(ldd "$build/nvrtc_bench_c" 2>/dev/null | grep -oE '/[^ ]*lib(nvrtc|cudart)[^ ]*' | tr '\n' ' ')"
  echo "# Rust: NVRTC_PATH=${NVRTC_PATH:-unset}, CUDART_PATH=${CUDART_PATH:-unset} (else the system loader)"
  echo "# CUDA_CACHE_DISABLE=$CUDA_CACHE_DISABLE; NVRTC_BENCH_REPS: ${NVRTC_BENCH_REPS:-9}; NVRTC_BENCH_ARCH: ${NVRTC_BENCH_ARCH:-that of device 0}"
} > "$result"

: > "$raw"
for round in $(seq 1 "$rounds"); do
  "$build/nvrtc_bench_c" c >> "$raw"
  "$rust" >> "$raw"
  echo "nvrtc-bench: round $round of $rounds done" >&2
done

{
  echo
  echo "## medians over $rounds rounds (ms); ratio = Rust / C"
  echo
  sort -t "$(printf '\t')" -k1,1 -k2,2 -k3,3g "$raw" | awk -F '\t' '
    function flush() {
      if (n == 0) return
      med[key] = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      if (!(name in seen)) { seen[name] = 1; names[++nn] = name }
      n = 0
    }
    { k = $1 SUBSEP $2; if (k != key) { flush(); key = k; name = $2 }; v[++n] = $3 }
    END {
      flush()
      printf "| step | C (ms) | Rust (ms) | Rust / C |\n|---|---|---|---|\n"
      for (i = 1; i <= nn; i++) {
        nm = names[i]
        c = (("c" SUBSEP nm) in med) ? med["c" SUBSEP nm] : ""
        r = (("rust" SUBSEP nm) in med) ? med["rust" SUBSEP nm] : ""
        ratio = (c != "" && r != "" && c > 0) ? sprintf("%.3f", r / c) : ""
        printf "| %s | %s | %s | %s |\n", nm, c, r, ratio
      }
    }'
  echo
  echo "## raw lines (each process's medians), in run order"
  echo
  cat "$raw"
} >> "$result"
cat "$result"
