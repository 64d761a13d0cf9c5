#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after scripts/gpu-test.sh staged
# device-bin/ here: the GPU suite against the wheel's libcudart (the release the crate was
# generated for) and against the machine's own CUDA runtime. Output goes to $OUT (or stdout).
set -uo pipefail
out=${OUT:-.}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  ls /usr/local/cuda/lib64/libcudart.so* 2>/dev/null | head -3
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
for lib in device-bin/libcudart.so.13 system; do
  if [ "$lib" = system ]; then
    log="$out/gpu-system-cudart.txt"
    env -u CUDART_PATH CUDA_GPU_TESTS=1 ./device-bin/gpu --test-threads=1 > "$log" 2>&1
  else
    log="$out/gpu-wheel-cudart.txt"
    CUDART_PATH="$lib" CUDA_GPU_TESTS=1 ./device-bin/gpu --test-threads=1 > "$log" 2>&1
  fi
  echo "== $lib: exit $?"
  grep -E '^test |test result|panicked' "$log" | head -40
done
