#!/usr/bin/env bash
# Codegen time side by side with bindgen, in one run, A B A B … (ROUNDS each, default 5):
# whole processes timed (wall clock to 0.1 ms, and CPU = user + system), medians and
# the ratios of the medians (and of the fastest rounds: on a shared machine noise only adds
# time), for two like-for-like pairs:
#   one release:  `xtask codegen --check --crate cudart13` (its documents and the ABI snapshots:
#                 read, merged, joined, emitted as a whole crate with its docs, formatted with
#                 prettyplease and compared with the committed files)
#                 against bindgen turning the same release's `cuda_runtime_api.h` (from NVIDIA's
#                 wheel) into FFI;
#   both crates:  `xtask codegen --check --crate cudart13`, then `--crate cudart12` (the two
#                 runtime crates: `codegen --check` alone also checks the NVRTC crates, which
#                 bindgen's pair does not make) against bindgen run on each crate's release
#                 headers, one after the other.
# The releases are the generated crates' own (`CUDA_RELEASE` in runtime/cudart1?/src/sys/mod.rs).
# bindgen is codegen/examples/bindgen_ffi.rs (bindgen 0.72: every `cuda*` item, no doc
# comments, prettyplease) with the pip libclang 18.1.1 that `cargo xtask abi` installs into
# target/libclang/. The xtask binary is the release build (target/release/xtask).
# BEFORE_XTASK=PATH adds, in each round, another build of xtask (an older commit's) on both
# crates, and on one release when it has `--crate`.
# ONE_RELEASE=1 times the one-release pair only (and BEFORE_XTASK on it): quicker rounds, for
# long runs (ROUNDS=101).
# Needs the two releases' wheels (`cargo xtask fetch-wheel --release R`) and libclang
# (`cargo xtask abi --check` installs it); both are fetched here when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
cargo build -q --release -p xtask
cargo build -q --release -p codegen --features headers --example bindgen_ffi
release_of() { sed -n 's/^pub const CUDA_RELEASE: &str = "\(.*\)";$/\1/p' "runtime/$1/src/sys/mod.rs"; }
r13="$(release_of cudart13)"
r12="$(release_of cudart12)"
inc13=(target/cuda-wheel-$r13/nvidia/cu13/include)
inc12=(target/cuda-wheel-$r12/nvidia/cuda_runtime/include target/cuda-wheel-$r12/nvidia/cuda_nvcc/include)
[ -f "${inc13[0]}/cuda_runtime_api.h" ] || target/release/xtask fetch-wheel --release "$r13" > /dev/null
[ -f "${inc12[0]}/cuda_runtime_api.h" ] || target/release/xtask fetch-wheel --release "$r12" > /dev/null
[ -f target/libclang/libclang.so ] || target/release/xtask abi --release "$r13" --check > /dev/null
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
secs() { # command... -> "wall cpu" in seconds: wall from a monotonic clock (to 0.1 ms; the
  # 10 ms ticks of /usr/bin/time are a tenth of a run here), CPU = user + system time of the
  # command and its children
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - t0
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
if p.returncode:
    sys.stderr.write(p.stderr.decode(errors="replace"))
    sys.exit(1)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print(f"{wall:.4f} {cpu:.4f}", end="")
PY
}
ffi=(env LIBCLANG_PATH=target/libclang/libclang.so target/release/examples/bindgen_ffi)
# bindgen on the cudart13 release's headers, then on cudart12's, as one timed command.
both="${ffi[*]} $tmp/ffi13.rs ${inc13[*]} && ${ffi[*]} $tmp/ffi12.rs ${inc12[*]}"
# cudart13, then cudart12, as one timed command.
both_codegen="target/release/xtask codegen --check --crate cudart13 && target/release/xtask codegen --check --crate cudart12"
before="${BEFORE_XTASK:-}"
declare -A runs
one_only="${ONE_RELEASE:-}"
names=(one_codegen one_bindgen)
[ -z "$one_only" ] && names+=(both_codegen both_bindgen)
[ -n "$before" ] && [ -z "$one_only" ] && names+=(both_before)
# An older xtask with `--crate` is timed on one release too.
before_one=""
if [ -n "$before" ] && "$before" codegen --help 2>/dev/null | grep -q -- '--crate'; then
  before_one=yes
  names+=(one_before)
fi
for i in $(seq 1 "$rounds"); do
  runs[one_codegen]+="$(secs target/release/xtask codegen --check --crate cudart13),"
  runs[one_bindgen]+="$(secs "${ffi[@]}" "$tmp/ffi13.rs" "${inc13[@]}"),"
  if [ -z "$one_only" ]; then
    runs[both_codegen]+="$(secs bash -c "$both_codegen"),"
    runs[both_bindgen]+="$(secs bash -c "$both"),"
  fi
  if [ -n "$before" ] && [ -z "$one_only" ]; then
    runs[both_before]+="$(secs "$before" codegen --check),"
  fi
  if [ -n "$before_one" ]; then
    runs[one_before]+="$(secs "$before" codegen --check --crate cudart13),"
  fi
  echo "round $i of $rounds done" >&2
done
if [ -z "$one_only" ]; then
  echo "bindgen output: $(wc -l < "$tmp/ffi13.rs") lines ($r13), $(wc -l < "$tmp/ffi12.rs") lines ($r12)"
else
  echo "bindgen output: $(wc -l < "$tmp/ffi13.rs") lines ($r13)"
fi
args=()
for n in "${names[@]}"; do args+=("$n=${runs[$n]}"); done
R13="$r13" R12="$r12" python3 - "${args[@]}" <<'PY'
import os, statistics, sys
m = statistics.median
runs = {}
for arg in sys.argv[1:]:
    name, _, text = arg.partition("=")
    pairs = [tuple(float(x) for x in p.split()) for p in text.split(",") if p.strip()]
    runs[name] = ([p[0] for p in pairs], [p[1] for p in pairs])
def quarter(xs):  # the mean of the fastest quarter of the rounds (noise only adds time)
    q = sorted(xs)[: max(1, len(xs) // 4)]
    return sum(q) / len(q)
def row(label, a, b):
    (aw, ac), (bw, bc) = runs[a], runs[b]
    print(f"{label}: codegen wall {m(aw):.3f} s, cpu {m(ac):.3f} s; bindgen wall {m(bw):.3f} s, "
          f"cpu {m(bc):.3f} s; ratio wall {m(aw) / m(bw):.2f}, cpu {m(ac) / m(bc):.2f}; "
          f"fastest rounds {min(aw):.3f} s / {min(bw):.3f} s, ratio {min(aw) / min(bw):.2f}; "
          f"fastest quarter {quarter(aw):.3f} s / {quarter(bw):.3f} s, ratio {quarter(aw) / quarter(bw):.2f}  "
          f"(rounds, wall: codegen {[round(x, 3) for x in aw]}, bindgen {[round(x, 3) for x in bw]})")
print(f"medians of {len(runs['one_codegen'][0])} rounds")
row(f"one release ({os.environ['R13']})", "one_codegen", "one_bindgen")
if "both_codegen" in runs:
    row(f"both crates ({os.environ['R13']} + {os.environ['R12']})", "both_codegen", "both_bindgen")
if "one_before" in runs:
    row("BEFORE_XTASK, one release", "one_before", "one_bindgen")
if "both_before" in runs:
    row("BEFORE_XTASK, both crates", "both_before", "both_bindgen")
PY
