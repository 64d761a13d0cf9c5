#!/usr/bin/env bash
# Builds here what the GPU machine runs and stages it in device-bin/ (git-ignored):
#   device-bin/gpu, device-bin/gpu_safe,  the GPU test binaries (tests/tests/gpu/: the typed
#   device-bin/gpu_multi                  layer and the peer projects' tests ported to it;
#                                         tests/tests/gpu_safe.rs: the safe layer;
#                                         tests/tests/gpu_multi.rs: the safe layer on two GPUs)
#   device-bin/examples/<name>            the example applications of examples/examples/
#   device-bin/gpu-bench                  the GPU call benchmark (bench/src/bin/gpu-bench.rs,
#                                         release build; scripts/gpu-bench.sh runs it beside C)
#   device-bin/nvrtc-bench                NVRTC compile + load + launch (bench/src/bin/
#                                         nvrtc-bench.rs, release; scripts/nvrtc-bench.sh runs it
#                                         beside C). NVRTC and nvJitLink are not staged (the wheel's
#                                         libnvrtc is 115 MB): the GPU machine's own is used
#   device-bin/libcudart.so.13            the wheel's runtime, when `cargo xtask fetch-wheel` ran
#   device-bin/COMMIT                     the commit the binaries were built from (`-dirty` with
#                                         uncommitted changes), for the benchmark's record
# Binaries are staged without debug information (`strip --strip-debug`, when available), so
# that the folder stays small enough to carry to the GPU machine (a few MiB instead of 150).
# Then prints how to run them there (scripts/gpu-run.sh runs everything).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# `name<TAB>path` of each executable artifact in cargo's JSON messages on stdin.
executables() {
  python3 -c 'import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["target"]["name"] + "\t" + m["executable"])'
}

build() { # cargo arguments...
  if ! cargo "$@" --message-format=json 2>"$log" | executables; then
    cat "$log" >&2
    echo "gpu-test: cargo $* failed" >&2
    exit 1
  fi
}

stage() { # from to
  cp "$1" "$2"
  if command -v strip > /dev/null; then
    strip --strip-debug "$2"
  fi
}

tests="$(build test -p workspace-tests --test gpu --test gpu_safe --test gpu_multi --no-run)"
examples="$(build build -p cudart-examples --examples)"
benches="$(build build --release -p cudart-bench --bin gpu-bench --bin nvrtc-bench)"
rm -rf device-bin
mkdir -p device-bin/examples
{ git rev-parse HEAD 2>/dev/null || echo unknown; } | tr -d '\n' > device-bin/COMMIT
[ -z "$(git status --porcelain 2>/dev/null)" ] || echo -n "-dirty" >> device-bin/COMMIT
staged=()
while IFS=$'\t' read -r name path; do
  [ -n "$name" ] || continue
  stage "$path" "device-bin/$name"
  staged+=("$name")
done <<< "$tests"
while IFS=$'\t' read -r name path; do
  [ -n "$name" ] || continue
  stage "$path" "device-bin/examples/$name"
  staged+=("examples/$name")
done <<< "$examples"
while IFS=$'\t' read -r name path; do
  [ -n "$name" ] || continue
  stage "$path" "device-bin/$name"
  staged+=("$name")
done <<< "$benches"
for want in gpu gpu_safe gpu_multi gpu-bench nvrtc-bench examples/device_query examples/vector_add \
            examples/stream_timing examples/graph_capture examples/pool_stats examples/simple_streams \
            examples/peer_copy examples/ipc_handoff examples/nvrtc_kernel \
            examples/graph_while_loop examples/graph_host_callback examples/graph_update_bounded \
            examples/ipc_pool examples/nvjitlink_lto; do
  if [ ! -x "device-bin/$want" ]; then
    echo "gpu-test: $want was not built" >&2
    exit 1
  fi
done
echo "gpu-test: staged ${staged[*]} in device-bin/"
# The wheel of cudart13's own release (its Cargo.toml's `release = "13.x"`), newer than the GPU
# machine's 13.0: `cargo xtask fetch-wheel` fetches exactly it.
release="$(sed -n 's/^release = "\(13\.[0-9]*\)"$/\1/p' runtime/cudart13/Cargo.toml | head -n 1)"
lib="$(ls target/cuda-wheel-"${release:-none}"/nvidia/cu*/lib/libcudart.so.13 2>/dev/null | head -n 1 || true)"
if [ -z "$release" ]; then
  echo "gpu-test: runtime/cudart13/Cargo.toml states no release" >&2
  exit 1
fi
if [ -n "$lib" ]; then
  cp "$lib" device-bin/
  echo "gpu-test: staged $(basename "$lib") (the wheel's runtime) in device-bin/"
  prefix="CUDART_PATH=device-bin/$(basename "$lib") "
else
  echo "gpu-test: WARNING: no target/cuda-wheel-$release (run cargo xtask fetch-wheel): only the machine's own runtime will be tested" >&2
  prefix=""
fi
# GPU_TEST_NVJITLINK=1: also the nvidia-nvjitlink wheel's libnvJitLink.so.13 (117 MB; `cargo xtask
# fetch-wheel --library nvjitlink` unpacks it), for a GPU machine without its own nvJitLink;
# scripts/gpu-run.sh points NVJITLINK_PATH at it when it is there.
if [ "${GPU_TEST_NVJITLINK:-0}" = 1 ]; then
  jl="$(ls target/nvjitlink-wheel-13.*/nvidia/cu13/lib/libnvJitLink.so.13 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$jl" ]; then
    cp "$jl" device-bin/
    echo "gpu-test: staged $jl in device-bin/"
  else
    echo "gpu-test: GPU_TEST_NVJITLINK=1 but no target/nvjitlink-wheel-13.*/ (cargo xtask fetch-wheel --library nvjitlink)" >&2
    exit 1
  fi
fi
# GPU_TEST_PACK=1: everything staged goes into one gzip archive, device-bin/bundle.tar.gz (about
# a third of the size, for a machine the folder is copied to); unpack it there first with
# `tar xzf device-bin/bundle.tar.gz -C device-bin`.
if [ "${GPU_TEST_PACK:-0}" = 1 ]; then
  tar czf bundle.tar.gz -C device-bin .
  rm -rf device-bin
  mkdir device-bin
  mv bundle.tar.gz device-bin/
  echo "gpu-test: packed into device-bin/bundle.tar.gz ($(du -h device-bin/bundle.tar.gz | cut -f1)); there: tar xzf device-bin/bundle.tar.gz -C device-bin"
fi
echo "run on the GPU machine, from the repository root, everything:"
echo "  bash scripts/gpu-run.sh"
echo "or one part:"
echo "  ${prefix}./device-bin/gpu --include-ignored --test-threads=1"
echo "  ${prefix}./device-bin/gpu_safe --include-ignored --test-threads=1"
echo "  ${prefix}./device-bin/gpu_multi --include-ignored --test-threads=1   # two GPUs"
echo "the GPU suites under compute-sanitizer (memcheck, racecheck, synccheck, initcheck):"
echo "  bash scripts/gpu-sanitize.sh"
echo "  ${prefix}./device-bin/examples/vector_add"
echo "the call benchmark beside C (builds bench/c/gpu_bench.cu with nvcc; result in \$OUT):"
echo "  bash scripts/gpu-bench.sh"
echo "NVRTC (the machine's libnvrtc.so.13): the example, and compile + load + launch beside C:"
echo "  ${prefix}./device-bin/examples/nvrtc_kernel"
echo "nvJitLink (the machine's libnvJitLink.so.13, or NVJITLINK_PATH): NVRTC LTO-IR x2 -> link -> launch, PTX + cubin:"
echo "  ${prefix}./device-bin/examples/nvjitlink_lto"
echo "  bash scripts/nvrtc-bench.sh"
