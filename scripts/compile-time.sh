#!/usr/bin/env bash
# Compile time from clean of a tiny binary using cudart13, side by side with the same binary
# using cudarc with only its runtime bindings for the same CUDA release (13.2, dynamic
# loading). The two are built in turn, A B A B … (ROUNDS each, default 3), each build in a
# fresh target folder under target/compile-time/, offline, and the medians and their ratio
# are printed.
# Usage: scripts/compile-time.sh [dev|release]   (ROUNDS=5 scripts/compile-time.sh for more)
# BEFORE=DIR adds, in each round, the same binary built against another copy of the crate
# (for example `git archive OLD cudart13 | tar -x -C /tmp/old` and BEFORE=/tmp/old/cudart13).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
profile=${1:-dev}
rounds=${ROUNDS:-3}
flag=""; [ "$profile" = release ] && flag="--release"
out="$root/target/compile-time"; rm -rf "$out"; mkdir -p "$out/ours/src" "$out/cudarc/src"
before="${BEFORE:-}"
cudarc_version=$(grep -A1 'name = "cudarc"' Cargo.lock | sed -n 's/version = "\(.*\)"/\1/p')
cat > "$out/ours/Cargo.toml" <<TOML
[package]
name = "uses-cudart13"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
cudart13 = { path = "$root/runtime/cudart13" }
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
if [ -n "$before" ]; then
  mkdir -p "$out/before"
  cp -r "$out/ours/src" "$out/before/"
  sed "s#$root/runtime/cudart13#$before#" "$out/ours/Cargo.toml" > "$out/before/Cargo.toml"
  cp Cargo.lock "$out/before/Cargo.lock"
  (cd "$out/before" && cargo fetch -q)
fi
cp Cargo.lock "$out/ours/Cargo.lock"
cp Cargo.lock "$out/cudarc/Cargo.lock"
# Fetch once, so that no build below downloads anything.
(cd "$out/ours" && cargo fetch -q) && (cd "$out/cudarc" && cargo fetch -q)
build() { # which -> "wall cpu" seconds (cpu: user + system of cargo and every compiler)
  rm -rf "$out/$1/target"
  (cd "$out/$1" && /usr/bin/time -f '%e %U %S' -o "$out/$1.time" cargo build -q --offline $flag)
  awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$out/$1.time"
}
ours=(); theirs=(); olds=()
for i in $(seq 1 "$rounds"); do
  a=$(build ours); b=$(build cudarc)
  ours+=("$a"); theirs+=("$b")
  line="round $i (wall cpu): cudart13 $a s, cudarc $b s"
  if [ -n "$before" ]; then
    c=$(build before); olds+=("$c"); line="$line, cudart13 at BEFORE $c s"
  fi
  echo "$line"
done
join() { local IFS=,; echo "$*"; }
python3 - "$profile" "$(join "${ours[@]}")" "$(join "${theirs[@]}")" "$(join "${olds[@]:-}")" <<'PY'
import statistics, sys
def parse(s):
    pairs = [tuple(float(x) for x in p.split()) for p in s.split(",") if p.strip()]
    return [p[0] for p in pairs], [p[1] for p in pairs]
profile = sys.argv[1]
(aw, ac), (bw, bc), (ow, oc) = parse(sys.argv[2]), parse(sys.argv[3]), parse(sys.argv[4])
m = statistics.median
print(f"{profile}, from clean, median of {len(aw)}: cudart13 wall {m(aw):.2f} s (cpu {m(ac):.2f} s), "
      f"cudarc wall {m(bw):.2f} s (cpu {m(bc):.2f} s); ratio wall {m(aw) / m(bw):.2f}, cpu {m(ac) / m(bc):.2f}")
if ow:
    print(f"cudart13 at BEFORE: wall {m(ow):.2f} s (cpu {m(oc):.2f} s); ratio to cudarc wall "
          f"{m(ow) / m(bw):.2f}, cpu {m(oc) / m(bc):.2f}")
PY
