#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) each, from the committed
# corpus in fuzz/corpus/TARGET, and prints each target's executions.
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and nightly features: the
# nightly toolchain where one is installed, else the pinned stable one with
# RUSTC_BOOTSTRAP=1 (no toolchain can be downloaded on the project's
# machines).
# Crashes are written to fuzz/artifacts/TARGET and fail the run, and so
# does an input that takes over 5 s (-timeout): work must stay bounded.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz)
  echo "fuzzing with the nightly toolchain"
else
  export RUSTC_BOOTSTRAP=1
  fuzz=(cargo fuzz)
  echo "fuzzing with $(rustc --version) and RUSTC_BOOTSTRAP=1 (no nightly toolchain installed)"
fi
for target in decode roundtrip_order hbase_text ordered_code dyn_layout layout_json wire_filter native_response; do
  mkdir -p "corpus/$target"
  log="$(mktemp)"
  # -max_total_time bounds each run; new inputs go to a scratch directory
  # so that the committed corpus stays small (merge them by hand with
  # `cargo +nightly fuzz cmin` when they are worth keeping).
  scratch="$(mktemp -d)"
  # DynLayout::parse leaks its descriptor by design (a `&'static Layout`,
  # see its docs): LeakSanitizer would report every layout parsed.
  leaks=1
  if [ "$target" = dyn_layout ] || [ "$target" = layout_json ]; then leaks=0; fi
  if ! ASAN_OPTIONS="detect_leaks=$leaks" "${fuzz[@]}" run "$target" "$scratch" "corpus/$target" -- \
      -max_total_time="$seconds" -timeout=5 -print_final_stats=1 -detect_leaks="$leaks" >"$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz target $target failed" >&2
    exit 1
  fi
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
  echo "$target: $execs executions in ${seconds}s, no failure"
  rm -rf "$scratch" "$log"
done
