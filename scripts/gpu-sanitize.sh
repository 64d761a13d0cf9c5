#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after scripts/gpu-test.sh staged
# device-bin/ here: the GPU test suites of the safe and typed layers (gpu_safe, gpu_multi,
# gpu, which holds the peer projects' tests too) and the examples under NVIDIA's compute-sanitizer, once per tool (memcheck, racecheck,
# synccheck, initcheck), against the machine's own runtime. (`SANITIZE_LEAKS=1` adds
# memcheck's leak check, which also lists what is still allocated at exit: process-wide
# pools, and memory a graph's release thread had not let go yet when the process ended.)
# `--report-api-errors no`: the tests make CUDA calls that fail on purpose (an invalid
# device, a symbol that is not there), which are not memory errors. Everything goes to
# $OUT/gpu-sanitize.log (or ./gpu-sanitize.log), with one summary line per run:
#   == <tool> <binary>: exit N, errors E, T s
# The exit status is non-zero when any run failed or reported an error.
# Optional: SANITIZE_TOOLS="memcheck racecheck" (default all four), SANITIZE_BINS="gpu_safe".
set -uo pipefail
out=${OUT:-.}
logfile="$out/gpu-sanitize.log"
tools=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
bins=${SANITIZE_BINS:-gpu_safe gpu_multi gpu examples/vector_add examples/graph_capture examples/stream_timing examples/pool_stats examples/simple_streams examples/peer_copy examples/ipc_handoff examples/nvrtc_kernel examples/graph_while_loop examples/graph_host_callback examples/graph_update_bounded examples/ipc_pool examples/nvjitlink_lto}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  compute-sanitizer --version | tail -n 1
} > "$logfile" 2>&1
failed=0
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for tool in $tools; do
  extra=()
  [ "$tool" = memcheck ] && [ "${SANITIZE_LEAKS:-0}" = 1 ] && extra=(--leak-check full)
  # initcheck cannot see what another process wrote into memory shared with CUDA IPC: the
  # IPC test's child reads what its parent wrote, which initcheck would report as
  # uninitialised. Under initcheck only the test process itself is checked; the other tools
  # follow the child too.
  [ "$tool" = initcheck ] && extra=(--target-processes application-only)
  for bin in $bins; do
    args=()
    case "$bin" in examples/*) ;; *) args=(--include-ignored --test-threads=1) ;; esac
    started=$(date +%s)
    compute-sanitizer --tool "$tool" "${extra[@]}" --report-api-errors no \
      --error-exitcode 97 "./device-bin/$bin" "${args[@]}" > "$log" 2>&1
    rc=$?
    # memcheck, synccheck and initcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK
    # SUMMARY: N hazards displayed (E errors, W warnings)".
    errors=$(grep -Eo 'ERROR SUMMARY: [0-9]+|\([0-9]+ errors' "$log" | tail -n 1 | grep -Eo '[0-9]+' || echo "?")
    line="== $tool $bin: exit $rc, errors ${errors:-?}, $(( $(date +%s) - started )) s"
    echo "$line"
    { echo "$line"; cat "$log"; } >> "$logfile"
    if [ "$rc" -ne 0 ] || [ "${errors:-?}" != 0 ]; then failed=1; fi
  done
done
exit $failed
