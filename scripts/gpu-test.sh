#!/usr/bin/env bash
# Builds the GPU integration tests (tests/tests/gpu.rs) here and stages what a GPU machine
# needs in device-bin/ (git-ignored): the test binary and, when the wheel has been fetched
# (`cargo xtask fetch-wheel`), its libcudart.so.13. Prints the command to run there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bin="$(cargo test -p workspace-tests --test gpu --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "gpu" and m.get("executable"):
        print(m["executable"])')"
if [ -z "$bin" ]; then
  echo "gpu-test: no test binary was built (run: cargo test -p workspace-tests --test gpu --no-run)" >&2
  exit 1
fi
rm -rf device-bin
mkdir -p device-bin
cp "$bin" device-bin/gpu
lib="$(ls target/cuda-wheel-*/nvidia/cu*/lib/libcudart.so.* 2>/dev/null | sort | tail -n 1 || true)"
if [ -n "$lib" ]; then
  cp "$lib" device-bin/
  echo "gpu-test: staged $(basename "$bin") and $(basename "$lib") in device-bin/"
  echo "run on the GPU machine, from the repository root:"
  echo "  CUDART_PATH=device-bin/$(basename "$lib") CUDA_GPU_TESTS=1 ./device-bin/gpu --test-threads=1"
else
  echo "gpu-test: staged $(basename "$bin") in device-bin/ (no wheel libcudart found; the machine's own is used)"
  echo "run on the GPU machine, from the repository root:"
  echo "  CUDA_GPU_TESTS=1 ./device-bin/gpu --test-threads=1"
fi
