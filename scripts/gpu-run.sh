#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after scripts/gpu-test.sh staged
# device-bin/ here: the three GPU test binaries (typed layer: gpu; safe layer: gpu_safe; the peer
# projects' tests ported to the typed layer: gpu_peer) and
# the five example applications, each against the wheel's libcudart (the release the crate
# was generated for) and against the machine's own CUDA runtime. Logs go to $OUT (or the
# current folder); the exit status is non-zero when anything failed.
set -uo pipefail
out=${OUT:-.}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  ls /usr/local/cuda/lib64/libcudart.so* 2>/dev/null | head -3
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
failed=0
run() { # label log command...
  local label=$1 log=$2
  shift 2
  "$@" > "$log" 2>&1
  local rc=$?
  echo "== $label: exit $rc"
  [ "$rc" -eq 0 ] || failed=1
}
for lib in wheel system; do
  if [ "$lib" = wheel ]; then
    wheel_lib="$(ls device-bin/libcudart.so.* 2>/dev/null | head -n 1)"
    if [ -z "$wheel_lib" ]; then
      echo "== wheel: no device-bin/libcudart.so.* staged; skipped"
      continue
    fi
    envs=(env "CUDART_PATH=$wheel_lib")
  else
    envs=(env -u CUDART_PATH)
  fi
  for t in gpu gpu_safe gpu_peer; do
    log="$out/$t-$lib-cudart.txt"
    run "$t ($lib cudart)" "$log" "${envs[@]}" CUDA_GPU_TESTS=1 "./device-bin/$t" --test-threads=1
    grep -E '^test |test result|panicked' "$log" | head -60
  done
  for ex in device_query vector_add stream_timing graph_capture pool_stats; do
    log="$out/example-$ex-$lib-cudart.txt"
    run "example $ex ($lib cudart)" "$log" "${envs[@]}" "./device-bin/examples/$ex"
    grep -E 'checked|passed|FAILED|expected|Error|error' "$log" | head -20
  done
done
exit $failed
