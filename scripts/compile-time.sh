#!/usr/bin/env bash
# Compile time of the `runtime` crate (package cudart-rt) from clean, side by side with cudarc
# built with only its `runtime` feature for the same CUDA release (13.2, dynamic loading).
# Both builds use fresh target folders under target/compile-time/ and the dev profile.
# Usage: scripts/compile-time.sh [dev|release]
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-dev}
flag=""; [ "$profile" = release ] && flag="--release"
out=target/compile-time; rm -rf "$out"; mkdir -p "$out/cudarc-only/src"
cudarc_version=$(grep -A1 'name = "cudarc"' Cargo.lock | sed -n 's/version = "\(.*\)"/\1/p')
cat > "$out/cudarc-only/Cargo.toml" <<TOML
[package]
name = "cudarc-only"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
cudarc = { version = "=$cudarc_version", default-features = false, features = ["runtime", "cuda-13020", "dynamic-loading", "std"] }
[workspace]
TOML
echo 'pub use cudarc::runtime::sys;' > "$out/cudarc-only/src/lib.rs"
cp Cargo.lock "$out/cudarc-only/Cargo.lock"
t0=$(date +%s.%N)
cargo build -q $flag -p cudart-rt --target-dir "$out/runtime"
t1=$(date +%s.%N)
(cd "$out/cudarc-only" && cargo build -q $flag --target-dir ../cudarc)
t2=$(date +%s.%N)
printf 'runtime (cudart-rt) from clean, %s: %.1f s\n' "$profile" "$(python3 -c "print($t1 - $t0)")"
printf 'cudarc %s runtime+cuda-13020 from clean, %s: %.1f s\n' "$cudarc_version" "$profile" "$(python3 -c "print($t2 - $t1)")"
