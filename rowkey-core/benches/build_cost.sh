#!/usr/bin/env bash
# Build cost of the derive, measured side by side with serde's:
# two crates define the same 40 structs, one with #[derive(RowKey)], the
# other with #[derive(Serialize, Deserialize)]. Their dependencies are built
# first; then each round touches both crates and times a debug build of
# each, alternating which goes first. Prints the median of each and the
# ratio. Usage: bash rowkey-core/benches/build_cost.sh [ROUNDS]
set -euo pipefail
rounds="${1:-7}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Four shapes, ten structs each: the quick-start key, a variable-length key,
# descending fields with an Option, and a six-field fixed key.
shape() { # shape N KIND -> one struct
  local n=$1 kind=$2
  case $((n % 4)) in
    0) [ "$kind" = rowkey ] && printf '#[salt(buckets = 16, by(user_id))]\n'
       printf 'pub struct K%d {\n    pub user_id: u64,\n' "$n"
       [ "$kind" = rowkey ] && printf '    #[desc_ts]\n'
       printf '    pub ts_millis: i64,\n'
       [ "$kind" = rowkey ] && printf '    #[fixed(8)]\n'
       printf '    pub kind: String,\n}\n' ;;
    1) printf 'pub struct K%d {\n    pub tenant: u32,\n    pub shard: u16,\n    pub name: String,\n    pub body: Vec<u8>,\n}\n' "$n" ;;
    2) printf 'pub struct K%d {\n' "$n"
       [ "$kind" = rowkey ] && printf '    #[desc]\n'
       printf '    pub score: i64,\n    pub version: Option<u32>,\n    pub id: String,\n}\n' ;;
    3) printf 'pub struct K%d {\n    pub a: u64,\n    pub b: u64,\n    pub c: u32,\n    pub d: u8,\n    pub e: i16,\n    pub f: bool,\n}\n' "$n" ;;
  esac
}

mkdir -p "$work/keys_rowkey/src" "$work/keys_serde/src"
cat > "$work/Cargo.toml" <<EOF
[workspace]
members = ["keys_rowkey", "keys_serde"]
resolver = "2"
EOF
cat > "$work/keys_rowkey/Cargo.toml" <<EOF
[package]
name = "keys_rowkey"
version = "0.0.0"
edition = "2021"
[dependencies]
rowkey-core = { path = "$root/rowkey-core" }
EOF
cat > "$work/keys_serde/Cargo.toml" <<EOF
[package]
name = "keys_serde"
version = "0.0.0"
edition = "2021"
[dependencies]
serde = { version = "1", features = ["derive"] }
EOF
{
  echo '#![allow(missing_docs)]'
  echo 'use rowkey_core::prelude::*;'
  for n in $(seq 0 39); do echo; echo '#[derive(RowKey)]'; shape "$n" rowkey; done
} > "$work/keys_rowkey/src/lib.rs"
{
  echo '#![allow(missing_docs)]'
  echo 'use serde::{Deserialize, Serialize};'
  for n in $(seq 0 39); do echo; echo '#[derive(Serialize, Deserialize)]'; shape "$n" serde; done
} > "$work/keys_serde/src/lib.rs"

cd "$work"
export CARGO_TARGET_DIR="$work/target" CARGO_TERM_COLOR=never
# The toolchain the repo pins.
cp "$root/rust-toolchain.toml" "$work/"
cargo build --quiet --offline 2>/dev/null || cargo build --quiet

time_build() { # time_build CRATE -> seconds
  touch "$work/$1/src/lib.rs"
  local start end
  start=$(date +%s.%N)
  cargo build --quiet --offline -p "$1"
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

: > rowkey.times
: > serde.times
for i in $(seq 1 "$rounds"); do
  if [ $((i % 2)) = 1 ]; then
    time_build keys_rowkey >> rowkey.times
    time_build keys_serde >> serde.times
  else
    time_build keys_serde >> serde.times
    time_build keys_rowkey >> rowkey.times
  fi
done
r=$(median < rowkey.times)
s=$(median < serde.times)
printf 'debug build of 40 keys, median of %d rounds:\n' "$rounds"
printf '  #[derive(RowKey)]                 %.2f s\n' "$r"
printf '  #[derive(Serialize, Deserialize)] %.2f s\n' "$s"
printf '  ratio rowkey / serde              %.2fx\n' "$(awk -v a="$r" -v b="$s" 'BEGIN { print a / b }')"
