#!/usr/bin/env bash
# Compile time from clean of a tiny binary using cudart13, side by side with the same binary
# using cudarc with only its runtime bindings for the same CUDA release (13.2, dynamic
# loading). The two are built in turn, A B A B … (ROUNDS each, default 3), each build in a
# fresh target folder under target/compile-time/, offline, and the medians and their ratio
# are printed.
# Usage: scripts/compile-time.sh [dev|release]   (ROUNDS=5 scripts/compile-time.sh for more)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
profile=${1:-dev}
rounds=${ROUNDS:-3}
flag=""; [ "$profile" = release ] && flag="--release"
out="$root/target/compile-time"; rm -rf "$out"; mkdir -p "$out/ours/src" "$out/cudarc/src"
cudarc_version=$(grep -A1 'name = "cudarc"' Cargo.lock | sed -n 's/version = "\(.*\)"/\1/p')
cat > "$out/ours/Cargo.toml" <<TOML
[package]
name = "uses-cudart13"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
cudart13 = { path = "$root/cudart13" }
[workspace]
TOML
cat > "$out/ours/src/main.rs" <<'RS'
fn main() {
    match cudart13::api::get_device() {
        Ok(d) => println!("device {d}"),
        Err(e) => println!("{e}"),
    }
}
RS
cat > "$out/cudarc/Cargo.toml" <<TOML
[package]
name = "uses-cudarc"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
cudarc = { version = "=$cudarc_version", default-features = false, features = ["runtime", "cuda-13020", "dynamic-loading", "std"] }
[workspace]
TOML
cat > "$out/cudarc/src/main.rs" <<'RS'
fn main() {
    let mut d = 0;
    let status = unsafe { cudarc::runtime::sys::cudaGetDevice(&mut d) };
    println!("device {d}: {status:?}");
}
RS
cp Cargo.lock "$out/ours/Cargo.lock"
cp Cargo.lock "$out/cudarc/Cargo.lock"
# Fetch once, so that no build below downloads anything.
(cd "$out/ours" && cargo fetch -q) && (cd "$out/cudarc" && cargo fetch -q)
build() { # which -> seconds
  rm -rf "$out/$1/target"
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$out/$1" && cargo build -q --offline $flag)
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.2f}')"
}
ours=(); theirs=()
for i in $(seq 1 "$rounds"); do
  a=$(build ours); b=$(build cudarc)
  ours+=("$a"); theirs+=("$b")
  echo "round $i: cudart13 $a s, cudarc $b s"
done
python3 - "$profile" "${ours[*]}" "${theirs[*]}" <<'PY'
import statistics, sys
profile, a, b = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
ma, mb = statistics.median(a), statistics.median(b)
print(f"{profile}, from clean, median of {len(a)}: cudart13 {ma:.2f} s, cudarc {mb:.2f} s, ratio {ma / mb:.2f}")
PY
