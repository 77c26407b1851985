#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang, ASan + UBSan) in build-fuzz
# and runs each for FUZZ_SECONDS (default 30), two at a time, on a copy of its
# seed corpus. Fails, naming the input, if any target crashes, leaks or hangs.
#
#   bash scripts/fuzz.sh                  build + run every target
#   bash scripts/fuzz.sh fuzz_state ...   build + run only these
#   bash scripts/fuzz.sh --regen-corpus   rewrite tests/fuzz/corpus/*/seed-*
#                                         (after a format change), then exit
#
# Environment: FUZZ_SECONDS, FUZZ_JOBS (targets at once, default 2).
# New inputs libFuzzer finds stay in build-fuzz/fuzz-run; the repository's
# corpus changes only through --regen-corpus or by hand (docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/llvm.sh
source scripts/lib/llvm.sh
seconds=${FUZZ_SECONDS:-30}
jobs=${FUZZ_JOBS:-2}
build="build-fuzz"
corpus=tests/fuzz/corpus
all_targets=(fuzz_outer_open fuzz_inner_open fuzz_model_bundle fuzz_codebook fuzz_state
  fuzz_arff fuzz_weights_file fuzz_batch fuzz_batch_ack fuzz_key_list fuzz_mask_bundle
  fuzz_masked_message fuzz_masked_request fuzz_shared_state fuzz_shared_model_bundle
  fuzz_vfl_files fuzz_fclub_upload fuzz_fclub_download fuzz_fclub_requests fuzz_cmab_share
  fuzz_cmab_state fuzz_pfcb_relay_requests fuzz_pfcb_posting fuzz_pfcb_checkpoint)

# Largest input worth trying per target: a little above its biggest valid
# input, so length checks are crossed both ways without wasting executions.
max_len() {
  case "$1" in
    fuzz_outer_open) echo 320 ;;   # mode byte + 208-byte envelope
    fuzz_inner_open) echo 192 ;;   # mode byte + 112-byte inner layer
    fuzz_model_bundle) echo 1024 ;;  # d=4, K=3 bundle: ~580 bytes
    fuzz_codebook) echo 2048 ;;    # largest seed (k=3, d=64) is ~820 bytes
    fuzz_state) echo 1536 ;;       # ~1000 bytes plain, ~1050 encrypted
    fuzz_arff) echo 6144 ;;        # yeast header + 2 rows is ~4.9 KB
    fuzz_weights_file) echo 1024 ;;  # largest seed (stored .npz) is 539 bytes
    fuzz_batch) echo 1024 ;;       # mode byte + a 6-record batch (~840 bytes)
    fuzz_batch_ack) echo 192 ;;    # mode byte + 176-byte ack
    fuzz_key_list) echo 320 ;;     # mode byte + 248-byte key list
    fuzz_mask_bundle) echo 512 ;;  # mode byte + d=6, {2,4} sealed bundle (380 bytes)
    fuzz_masked_message) echo 384 ;;  # mode byte + K'=3, d=6 message (244 bytes)
    fuzz_masked_request) echo 256 ;;  # mode byte + 3-item request (84 bytes)
    fuzz_shared_state) echo 768 ;;    # d = 3, P = 4 state: 396 bytes with its MAC
    fuzz_shared_model_bundle) echo 512 ;;  # d = 3, one arm: 236 bytes
    fuzz_vfl_files) echo 512 ;;       # a few feature rows, or the 3-line state file
    fuzz_fclub_upload) echo 512 ;;    # mode byte + d=3 sealed upload (307 bytes)
    fuzz_fclub_requests) echo 1024 ;;  # a JSON body with a few 5-number rows
    fuzz_fclub_download) echo 512 ;;  # mode byte + d=3 sealed download (300 bytes)
    fuzz_cmab_share) echo 128 ;;      # sender byte + m=4 share (69 bytes)
    fuzz_cmab_state) echo 1024 ;;     # mode byte + m=4, P=2 state (528 bytes with its MAC)
    fuzz_pfcb_relay_requests) echo 384 ;;  # mode byte + m=4 posting (229 bytes) or a query
    fuzz_pfcb_posting) echo 384 ;;  # mode byte + m=4 posting (229 bytes)
    fuzz_pfcb_checkpoint) echo 2048 ;;  # mode byte + a 528-byte state and two postings (~1.1 KB)
    *) echo "unknown fuzz target: $1" >&2; return 1 ;;
  esac
}

regen=0
targets=()
for arg in "$@"; do
  case "$arg" in
    --regen-corpus) regen=1 ;;
    fuzz_*) max_len "$arg" >/dev/null && targets+=("$arg") ;;
    *) echo "usage: $0 [--regen-corpus] [fuzz_target...]" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

# -O1 instead of Debug's -O0 for speed; Debug keeps assertions (and Eigen's
# checks) on, which fuzzing wants.
echo "==== configure + build ($build)"
CC=$p2b_clang CXX=$p2b_clangxx cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DP2B_FUZZ=ON \
  -DP2B_BUILD_TESTS=OFF -DP2B_BUILD_BENCH=OFF -DP2B_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target p2b_fuzz_targets make_corpus

if [ "$regen" = 1 ]; then
  # Crash reproducers (crash-*) are kept: they are regression seeds.
  find "$corpus" -type f -name 'seed-*' -delete 2>/dev/null || true
  "$build/tests/fuzz/make_corpus" "$corpus"
  exit 0
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run_root="$build/fuzz-run"

run_one() {  # target -> $run_root/<target>/{corpus,artifacts,log,rc}
  local t=$1 dir="$run_root/$1" rc=0
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp "$corpus/$t"/* "$dir/corpus/"
  "$build/tests/fuzz/$t" "$dir/corpus" -max_total_time="$seconds" -max_len="$(max_len "$t")" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/artifacts/" \
    >"$dir/log" 2>&1 || rc=$?
  echo "$rc" >"$dir/rc"
}

echo "==== fuzzing ${#targets[@]} targets, ${seconds}s each, $jobs at a time"
t_start=$(date +%s)
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
wait

failed=0
printf '%-18s %12s %9s %8s %8s  %s\n' target execs exec/s cov ft result
for t in "${targets[@]}"; do
  rc=$(cat "$run_root/$t/rc")
  log="$run_root/$t/log"
  # A run that crashes early prints no stats: those fields show as "?".
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' "$log" | tail -1)
  mapfile -t found < <(find "$run_root/$t/artifacts" -type f 2>/dev/null)
  if [ "$rc" -ne 0 ] || [ ${#found[@]} -gt 0 ]; then
    failed=1
    printf '%-18s %12s %9s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
      "FAILED (exit $rc, log $log)"
    grep -m1 -E 'invariant violated|runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)' \
      "$log" | sed 's/^/    /' || true
    for f in "${found[@]}"; do echo "    reproducer: $f"; done
  else
    printf '%-18s %12s %9s %8s %8s  %s\n' "$t" "$execs" "$rate" "$cov" "$ft" ok
  fi
done
echo "fuzzing took $(($(date +%s) - t_start))s"
if [ "$failed" = 1 ]; then
  echo "fuzz: a target failed; reproduce with build-fuzz/tests/fuzz/<target> <reproducer>" >&2
  exit 1
fi
