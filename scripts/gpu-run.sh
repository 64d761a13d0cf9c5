#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after scripts/gpu-test.sh staged
# device-bin/ here: the three GPU test binaries (typed layer and the peer projects' tests
# ported to it: gpu; safe layer: gpu_safe; the safe layer on two GPUs: gpu_multi, whose tests
# say so and pass on one GPU) and
# the example applications, each against the wheel's libcudart (the release the crate
# was generated for) and against the machine's own CUDA runtime (nvrtc_kernel and
# nvjitlink_lto use the machine's own libnvrtc.so.13 and libnvJitLink.so.13 in both, unless
# NVRTC_PATH / NVJITLINK_PATH say otherwise: the wheels' are too big to stage). Everything goes to one file,
# $OUT/gpu-run.log (or ./gpu-run.log): the machine, then each run's whole output under a
# `== label: exit N` line; the exit status is non-zero when anything failed.
# Optional: GPU_EXPECT_WHEEL_RUNTIME=13.2 GPU_EXPECT_SYSTEM_RUNTIME=13.0, the releases the two
# runtimes must report (then `a_function_newer_than_the_runtime_is_refused_or_works` proves
# NotInRuntime on the older one and the call on the newer one).
set -uo pipefail
out=${OUT:-.}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  ls /usr/local/cuda/lib64/libcudart.so* 2>/dev/null | head -3
} > "$out/gpu-run.log" 2>&1
cat "$out/gpu-run.log"
failed=0
# nvJitLink staged by GPU_TEST_NVJITLINK=1 (else the machine's own, through the loader's search).
if [ -f device-bin/libnvJitLink.so.13 ] && [ -z "${NVJITLINK_PATH:-}" ]; then
  export NVJITLINK_PATH=device-bin/libnvJitLink.so.13
fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
run() { # label command...
  local label=$1
  shift
  "$@" > "$log" 2>&1
  local rc=$?
  echo "== $label: exit $rc"
  { echo "== $label: exit $rc"; cat "$log"; } >> "$out/gpu-run.log"
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
    expect=${GPU_EXPECT_WHEEL_RUNTIME:-}
  else
    envs=(env -u CUDART_PATH -u VIRTUAL_ENV -u CONDA_PREFIX)  # the loader looks in activated Python environments first
    expect=${GPU_EXPECT_SYSTEM_RUNTIME:-}
  fi
  # The release the loaded runtime must report (tests/tests/gpu/typed.rs checks it, then that a
  # function newer than it is NotInRuntime, or works when the runtime has it).
  [ -n "$expect" ] && envs+=("CUDA_EXPECT_RUNTIME=$expect")
  for t in gpu gpu_safe gpu_multi; do
    run "$t ($lib cudart)" "${envs[@]}" "./device-bin/$t" --include-ignored --test-threads=1
    grep -E 'test result|FAILED|panicked' "$log" | head -20
  done
  for ex in device_query vector_add stream_timing graph_capture pool_stats simple_streams peer_copy ipc_handoff \
            nvrtc_kernel nvjitlink_lto graph_while_loop graph_host_callback graph_update_bounded ipc_pool; do
    run "example $ex ($lib cudart)" "${envs[@]}" "./device-bin/examples/$ex"
    grep -E 'checked|passed|FAILED|expected|Error|error' "$log" | head -20
  done
done
exit $failed
