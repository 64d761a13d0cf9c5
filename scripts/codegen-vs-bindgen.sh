#!/usr/bin/env bash
# Codegen time side by side with bindgen, one run, alternating A B A B … (ROUNDS each,
# default 5), wall-clock of each whole process (/usr/bin/time), medians and their ratio:
#   A: `cargo xtask codegen --check` end to end, release build (target/release/xtask): both
#      workspace crates (cudart13 from the 13.2 documents and ABI, cudart12 from 12.8's), read,
#      joined, emitted, formatted and compared with the committed files;
#   B: bindgen 0.72 alone turning the same release's (13.2) `cuda_runtime_api.h` into FFI
#      (codegen/examples/bindgen_ffi.rs: every `cuda*` item, no doc comments, prettyplease),
#      with the pip libclang 18.1.1 that `cargo xtask abi` installs into target/libclang/.
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
secs() { # command... -> wall seconds
  /usr/bin/time -f %e -o "$tmp/t" "$@" > /dev/null 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  cat "$tmp/t"
}
a=(); b=()
for i in $(seq 1 "$rounds"); do
  x=$(secs target/release/xtask codegen --check)
  y=$(secs env LIBCLANG_PATH=target/libclang/libclang.so \
        target/release/examples/bindgen_ffi "$tmp/ffi.rs" "$inc")
  a+=("$x"); b+=("$y")
  echo "round $i: codegen --check $x s, bindgen $y s"
done
echo "bindgen output: $(wc -l < "$tmp/ffi.rs") lines"
python3 - "${a[*]}" "${b[*]}" <<'PY'
import statistics, sys
a, b = ([float(x) for x in s.split()] for s in sys.argv[1:3])
ma, mb = statistics.median(a), statistics.median(b)
print(f"median of {len(a)}: codegen --check {ma:.3f} s, bindgen {mb:.3f} s, ratio {ma / mb:.2f}")
PY
