#!/usr/bin/env bash
# Codegen time side by side with bindgen, one run, alternating A B A B … (ROUNDS each,
# default 5), wall-clock of each whole process (/usr/bin/time), medians and their ratio:
#   A: `cargo xtask codegen --check` end to end, release build (target/release/xtask): both
#      workspace crates (cudart13 from the 13.2 documents and ABI, cudart12 from 12.8's), read,
#      joined, emitted, formatted and compared with the committed files;
#   B: bindgen 0.72 alone turning the same release's (13.2) `cuda_runtime_api.h` into FFI
#      (codegen/examples/bindgen_ffi.rs: every `cuda*` item, no doc comments, prettyplease),
#      with the pip libclang 18.1.1 that `cargo xtask abi` installs into target/libclang/.
# BEFORE_XTASK=PATH adds, in each round, another build of xtask (e.g. an older commit's).
# Wall-clock and CPU (user + system) time are both reported: on a loaded machine the CPU
# time is the steadier figure.
# Needs the 13.2 wheel's headers (`cargo xtask fetch-wheel --release 13.2`) and libclang
# (`cargo xtask abi --check` installs it); both are fetched here when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
cargo build -q --release -p xtask
cargo build -q --release -p codegen --features headers --example bindgen_ffi
inc=target/cuda-wheel-13.2/nvidia/cu13/include
[ -f "$inc/cuda_runtime_api.h" ] || target/release/xtask fetch-wheel --release 13.2 > /dev/null
[ -f target/libclang/libclang.so ] || target/release/xtask abi --release 13.2 --check > /dev/null
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
secs() { # command... -> "wall cpu" seconds
  /usr/bin/time -f '%e %U %S' -o "$tmp/t" "$@" > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$tmp/t"
}
before="${BEFORE_XTASK:-}"
a=(); b=(); c=()
for i in $(seq 1 "$rounds"); do
  x=$(secs target/release/xtask codegen --check)
  y=$(secs env LIBCLANG_PATH=target/libclang/libclang.so \
        target/release/examples/bindgen_ffi "$tmp/ffi.rs" "$inc")
  a+=("$x"); b+=("$y")
  line="round $i (wall cpu): codegen --check $x s, bindgen $y s"
  if [ -n "$before" ]; then
    z=$(secs "$before" codegen --check); c+=("$z"); line="$line, BEFORE_XTASK $z s"
  fi
  echo "$line"
done
echo "bindgen output: $(wc -l < "$tmp/ffi.rs") lines"
join() { local IFS=,; echo "$*"; }
python3 - "$(join "${a[@]}")" "$(join "${b[@]}")" "$(join "${c[@]:-}")" <<'PY'
import statistics, sys
def parse(s):
    pairs = [tuple(float(x) for x in p.split()) for p in s.split(",") if p.strip()]
    return [p[0] for p in pairs], [p[1] for p in pairs]
m = statistics.median
(aw, ac), (bw, bc), (cw, cc) = (parse(x) for x in sys.argv[1:4])
print(f"median of {len(aw)}: codegen --check wall {m(aw):.3f} s (cpu {m(ac):.3f} s), bindgen wall "
      f"{m(bw):.3f} s (cpu {m(bc):.3f} s); ratio wall {m(aw) / m(bw):.2f}, cpu {m(ac) / m(bc):.2f}")
if cw:
    print(f"BEFORE_XTASK: wall {m(cw):.3f} s (cpu {m(cc):.3f} s); ratio to bindgen wall "
          f"{m(cw) / m(bw):.2f}, cpu {m(cc) / m(bc):.2f}")
PY
