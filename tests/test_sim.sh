#!/usr/bin/env bash
# p2b-sim end to end at toy size, one case per ctest:
#   bash tests/test_sim.sh CASE P2B_SIM WORK_DIR [YEAST_ARFF]
set -euo pipefail
case_name=$1 sim=$2 work=$3 yeast=${4:-}
rm -rf "$work" && mkdir -p "$work"
# Not: the cases read the printed lines (--quiet prints nothing).
small=(--users 400 --codes 16)

# Columns of a results.csv picked by header name, so that new columns break
# nothing: cols FILE NAME... (header line included).
cols() {
  local file=$1; shift
  awk -F, -v want="$*" 'NR == 1 { n = split(want, w, " ");
      for (i = 1; i <= n; ++i) { for (j = 1; j <= NF; ++j) if ($j == w[i]) idx[i] = j;
        if (!idx[i]) { print "no column " w[i] > "/dev/stderr"; exit 1 } } }
    { line = ""; for (i = 1; i <= n; ++i) line = line (i > 1 ? "," : "") $(idx[i]); print line }' "$file"
}
# Every column but the run's timing and memory, and optionally others.
numbers() {
  local file=$1/results.csv; shift
  local skip=" seconds crypto_floor_seconds peak_rss_mb $* " names=()
  for c in $(head -1 "$file" | tr , ' '); do [[ $skip == *" $c "* ]] || names+=("$c"); done
  cols "$file" "${names[@]}"
}
# One column's value on data row N (1-based): value FILE NAME N
value() { cols "$1" "$2" | sed -n "$(($3 + 1))p"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

case "$case_name" in
  threads)  # the same numbers whatever the thread count
    "$sim" "${small[@]}" --threads 1 --out "$work/t1" >/dev/null
    "$sim" "${small[@]}" --threads 2 --out "$work/t2" --codebook "$work/t1/codebooks/d10-q1-k16-seed1.p2bc" >/dev/null
    diff <(numbers "$work/t1") <(numbers "$work/t2") || fail "thread count changed the results"
    [ "$(wc -l < "$work/t1/results.csv")" = 3 ] || fail "expected a header and two modes" ;;
  crypto_changes_nothing)  # sealing is transport: the tuples, hence the models, are the same
    "$sim" "${small[@]}" --out "$work/sealed" >"$work/sealed.log"
    "$sim" "${small[@]}" --no-crypto --out "$work/plain" \
      --codebook "$work/sealed/codebooks/d10-q1-k16-seed1.p2bc" >"$work/plain.log"
    grep -q -- "--no-crypto (reports NOT sealed" "$work/plain.log" || fail "--no-crypto not reported"
    grep -q "^crypto floor: [0-9.]* s" "$work/sealed.log" || fail "the crypto floor is not printed"
    grep -q "^crypto CPU floor: [0-9.]* CPU-s (reports x cost); the run used [0-9.]* CPU-s, [0-9.]*x the floor$" \
      "$work/sealed.log" || fail "the crypto floor in CPU time is not printed"
    grep -q "^speed: .* users/s per core" "$work/plain.log" || fail "the speed is not printed"
    cols "$work/sealed/results.csv" crypto_floor_seconds reports | tail -n +2 |
      awk -F, '{ if (!($2 > 0 && $1 >= 0)) bad = 1 } END { exit bad }' || fail "crypto floor column"
    # model_bundle_bytes is the signed bundle's size: 0 without crypto.
    diff <(numbers "$work/sealed" crypto model_bundle_bytes) \
      <(numbers "$work/plain" crypto model_bundle_bytes) ||
      fail "sealing changed the results"
    cols "$work/plain/results.csv" crypto | tail -n +2 | grep -qv 0 && fail "crypto column not 0"
    true ;;
  seed_matters)  # a different seed gives different users
    "$sim" "${small[@]}" --mode default --out "$work/s1" >/dev/null
    "$sim" "${small[@]}" --mode default --seed 2 --out "$work/s2" >/dev/null
    ! diff -q <(numbers "$work/s1" seed) <(numbers "$work/s2" seed) >/dev/null ||
      fail "seed had no effect" ;;
  grid_and_plots)  # lists make a grid; --plot draws fig4 and fig5
    "$sim" --users 200,400 --dim 4-5 --actions 3 --codes 8 --plot --out "$work/g" >"$work/g.log"
    [ "$(tail -n +2 "$work/g/results.csv" | wc -l)" = 8 ] || fail "expected 2 d x 2 u x 2 modes"
    [ -s "$work/g/fig4.png" ] && [ -s "$work/g/fig5.png" ] || fail "plots missing"
    grep -q '"warm_private":' "$work/g/results.json" || fail "JSON lacks fields"
    # --interactions LIST is a grid dimension too, and draws fig6 (reward against t).
    "$sim" --users 200 --dim 4 --actions 3 --codes 8 --interactions 5,10,20 --plot \
      --no-crypto --out "$work/t" >"$work/t.log"
    [ "$(cols "$work/t/results.csv" interactions | tail -n +2 | sort -un | tr '\n' ' ')" = "5 10 20 " ] ||
      fail "expected t = 5, 10, 20"
    [ -s "$work/t/fig6.png" ] || fail "fig6 missing" ;;
  weights)  # --weights: W and b from a CSV (|A| rows of d+1 numbers)
    printf '5,0,0,0\n0,5,0,0\n0,0,5,0\n' > "$work/w.csv"
    "$sim" --users 300 --dim 3 --actions 3 --codes 8 --mode default \
      --weights "$work/w.csv" --beta 1 --out "$work/w" >/dev/null
    # A strongly contextual W: warm non-private must beat cold clearly.
    cols "$work/w/results.csv" warm_nonprivate cold | awk -F, 'NR==2 { exit !($1 > $2 + 0.05) }' ||
      fail "warm non-private does not beat cold on a strong signal"
    printf '1,2\n' > "$work/bad.csv"
    if "$sim" --users 300 --dim 3 --actions 3 --codes 8 --weights "$work/bad.csv" --out "$work/bad" \
         >/dev/null 2>"$work/bad.err"; then fail "a malformed weights file was accepted"; fi
    grep -q "bad.csv" "$work/bad.err" || fail "error does not name the file"
    # Provenance: the row names the file and its SHA-256.
    [ "$(cols "$work/w/results.csv" weights weights_sha256 contexts mapping | sed -n 2p)" = \
      "$work/w.csv,$(sha256sum "$work/w.csv" | cut -d' ' -f1),simplex,softmax" ] ||
      fail "weights provenance: $(cols "$work/w/results.csv" weights weights_sha256 | sed -n 2p)" ;;
  weights_layout)  # Keras's kernel is W transposed: detected from the names, same run
    /usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng(3)
W, b = r.uniform(-1, 1, (4, 4)), r.uniform(-0.1, 0.1, 4)   # square: d = |A| = 4
np.savez('$work/ours.npz', W=W, b=b)
np.savez('$work/keras.npz', kernel=W.T, bias=b)
np.save('$work/plain.npy', np.hstack([W, b[:, None]]))
np.save('$work/plain_T.npy', np.hstack([W, b[:, None]]).T)"
    run=(--users 300 --dim 4 --actions 4 --codes 8 --no-crypto --mode default)
    "$sim" "${run[@]}" --weights "$work/ours.npz" --out "$work/o" >"$work/o.log"
    "$sim" "${run[@]}" --weights "$work/keras.npz" --out "$work/k" >"$work/k.log"
    grep -q "read as W (d, |A|), transposed (Keras names)" "$work/k.log" || fail "layout not said"
    diff <(numbers "$work/o" weights weights_sha256) <(numbers "$work/k" weights weights_sha256) ||
      fail "a Keras kernel gave another environment"
    grep -q "^mapping softmax |A|=4 d=4 over 100000 contexts: oracle 0\.[0-9]" "$work/k.log" ||
      fail "the loaded mapping's oracle is not printed"
    # (d + 1, |A|) is not (|A|, d + 1) here: detected from the expected shape.
    "$sim" "${run[@]}" --weights "$work/plain_T.npy" --out "$work/t" >"$work/t.log"
    diff <(numbers "$work/o" weights weights_sha256) <(numbers "$work/t" weights weights_sha256) ||
      fail "a transposed single array gave another environment"
    # A square W without names (d = |A| - 1 makes (|A|, d + 1) square): refused under auto.
    printf '1,2,3\n4,5,6\n7,8,9\n' >"$work/sq.csv"
    rc=0
    "$sim" --users 300 --dim 2 --actions 3 --codes 8 --weights "$work/sq.csv" \
      --out "$work/sq" >/dev/null 2>"$work/sq.err" || rc=$?
    [ "$rc" = 1 ] && grep -q "fits both" "$work/sq.err" || fail "a square file was not refused"
    "$sim" --users 300 --dim 2 --actions 3 --codes 8 --no-crypto --weights "$work/sq.csv" \
      --weights-layout actions-by-dim --out "$work/sq" >/dev/null || fail "the layout flag" ;;
  nothing_released)  # no crowd reaches l: no private model, so private devices run cold
    "$sim" "${small[@]}" --no-crypto --threshold 100000 --out "$work/n" >"$work/n.log"
    [ "$(cols "$work/n/results.csv" codes_released private_model nonprivate_model |
         tail -n +2 | sort -u)" = "0,0,1" ] || fail "expected nothing released, a non-private model"
    cols "$work/n/results.csv" mode warm_private cold warm_private_se cold_se | tail -n +2 |
      awk -F, '{ if ($2 != $3 || $4 != $5) { print "row " $1 ": " $0; bad = 1 } } END { exit bad }' ||
      fail "warm private differs from cold with nothing released"
    grep -q "paper .*u=400 t=10: epsilon 0.6931; nothing released" "$work/n.log" ||
      fail "privacy line per point missing" ;;
  baselines)  # best fixed arm: a ceiling for context-free play, under the oracle
    "$sim" --users 400,800 --codes 16 --no-crypto --out "$work/b" >"$work/b.log"
    cols "$work/b/results.csv" best_fixed_arm oracle best_fixed_arm_index actions | tail -n +2 |
      awk -F, '{ if (!($1 > 0 && $1 <= $2 && $3 < $4)) bad = 1 } END { exit bad }' ||
      fail "best fixed arm out of range"
    [ "$(grep -c "^  .*u=[48]00 t=10: epsilon" "$work/b.log")" = 4 ] || fail "one privacy line per point" ;;
  multilabel)
    [ -f "$yeast" ] || { echo "yeast.arff not found: skipped"; exit 77; }
    "$sim" --env multilabel --data "$yeast" --dim 6 --codes 8 --users 160 \
      --out "$work/m" >"$work/m.log"
    grep -q "14 labels" "$work/m.log" || fail "labels not detected"
    grep -q "disjoint slices" "$work/m.log" || fail "users should get disjoint rows"
    [ "$(tail -n +2 "$work/m/results.csv" | wc -l)" = 2 ] || fail "expected two modes"
    [ "$(cols "$work/m/results.csv" data_sha256 labels mapping | sed -n 2p)" = \
      "$(sha256sum "$yeast" | cut -d' ' -f1),auto," ] || fail "data provenance"
    # The majority label is a fixed arm: never above the best fixed arm in hindsight.
    cols "$work/m/results.csv" majority_label best_fixed_arm | tail -n +2 |
      awk -F, '{ if (!($1 > 0 && $1 <= $2)) bad = 1 } END { exit bad }' || fail "majority label"
    grep -q "majority label 0\.[0-9]" "$work/m.log" || fail "majority label not printed" ;;
  central_dp)  # --central-epsilon: one point per value; 0 is exactly the run without it
    "$sim" "${small[@]}" --mode default --out "$work/off" >/dev/null
    cb="$work/off/codebooks/d10-q1-k16-seed1.p2bc"
    "$sim" "${small[@]}" --mode default --central-epsilon 0,1 --codebook "$cb" \
      --out "$work/on" >"$work/on.log"
    [ "$(tail -n +2 "$work/on/results.csv" | wc -l)" = 2 ] || fail "expected two points"
    diff <(numbers "$work/off") <(numbers "$work/on" | head -2) || fail "epsilon 0 changed the results"
    on=$(numbers "$work/on" | sed -n 3p)
    central=(central_epsilon central_delta central_sigma central_nodes)
    cols "$work/on/results.csv" "${central[@]}" | sed -n 3p |
      awk -F, '{ exit !($1 == 1 && $2 == 1e-06 && $3 > 0 && $4 == 20) }' ||
      fail "central columns: $on"
    unchanged=(cold cold_se warm_nonprivate warm_nonprivate_se)
    [ "$(cols "$work/on/results.csv" "${unchanged[@]}" | sed -n 3p)" = \
      "$(cols "$work/off/results.csv" "${unchanged[@]}" | sed -n 2p)" ] ||
      fail "central DP changed cold or warm non-private"
    [ "$(value "$work/on/results.csv" warm_private 2)" != \
      "$(value "$work/off/results.csv" warm_private 1)" ] || fail "no effect on warm private"
    grep -q "central DP: epsilon 1, delta 1e-06 over 1048576 releases" "$work/on.log" ||
      fail "central DP not reported"
    "$sim" "${small[@]}" --mode default --central-epsilon 1 --codebook "$cb" --threads 1 \
      --out "$work/again" >/dev/null
    [ "$(numbers "$work/again" | sed -n 2p)" = "$on" ] || fail "central noise does not repeat"
    "$sim" "${small[@]}" --mode default --central-epsilon 1 --central-release 1048576 \
      --codebook "$cb" --out "$work/first" >/dev/null
    [ "$(value "$work/first/results.csv" central_nodes 1)" = 1 ] || fail "--central-release"
    if "$sim" "${small[@]}" --central-epsilon -1 --out "$work/x" >/dev/null 2>&1; then
      fail "accepted a negative epsilon"
    fi ;;
  bad_usage)
    for args in "--users 5" "--mode both2" "--dim 1" "--p 1" "--bogus 1" "--env multilabel"; do
      # shellcheck disable=SC2086
      if "$sim" $args --out "$work/x" >/dev/null 2>&1; then fail "accepted: $args"; fi
      # shellcheck disable=SC2086
      "$sim" $args --out "$work/x" >/dev/null 2>&1 || [ $? = 2 ] || fail "exit code for: $args"
    done ;;
  config_and_version)  # --config FILE sets options, the command line wins; --version
    printf 'users = "400"\ncodes = 16\nquiet = true\nno-crypto = true\nmode = "default"\n' \
      > "$work/sim.toml"
    "$sim" --config "$work/sim.toml" --mode paper --out "$work/c" >"$work/c.log"
    [ "$(cols "$work/c/results.csv" mode users codes crypto | tail -n +2)" = "paper,400,16,0" ] ||
      fail "config file or command line not applied"
    "$sim" --version | grep -qE '^p2b-sim [0-9]+\.[0-9]+\.[0-9]+' || fail "--version"
    printf 'users = 5\n' > "$work/bad.toml"
    rc=0
    "$sim" --config "$work/bad.toml" --out "$work/x" >/dev/null 2>"$work/bad.err" || rc=$?
    [ "$rc" = 2 ] || fail "a bad value in the config file: exit $rc, not 2"
    grep -q -- "--users" "$work/bad.err" || fail "error does not name the flag" ;;
  vertical)  # --protocol vertical: federated = central, action for action; partial worse
    # Not --quiet: the summary lines are read from the log (--quiet prints nothing).
    "$sim" --protocol vertical --dim 20 --partition 4,6,10 --rounds 400 --seeds 2 \
      --policies linucb --plot --out "$work/v" >"$work/v.log" 2>"$work/v.err"
    grep -q "federated took central's action in 800 of 800 rounds" "$work/v.log" ||
      fail "federated LinUCB left central's actions"
    [ -s "$work/v/regret.png" ] && [ -s "$work/v/partial.png" ] || fail "plots missing"
    regret() { cols "$work/v/results.csv" series columns regret | awk -F, -v s="$1" -v c="$2" \
      '$1 == s && $2 == c { t += $3; n++ } END { printf "%.6f", t / n }'; }
    [ "$(regret central "")" = "$(regret federated "")" ] || fail "regret differs"
    awk -v p="$(regret partial 4)" -v c="$(regret central "")" 'BEGIN { exit !(p > 2 * c) }' ||
      fail "the active party alone should do far worse"
    [ "$(value "$work/v/results.csv" bytes_per_party 1)" = $((100 + 8 * 10 * 20)) ] ||
      fail "P2BV bytes are not 100 + 8 K d"
    "$sim" --protocol vertical --cost --cost-dims 10 --cost-actions 5 --cost-rounds 2 \
      --cost-parties 3 --quiet --repeats 1 --out "$work/c" >"$work/c.log" 2>"$work/c.err"
    # The old spelling of --seeds still works for one release, and says so.
    grep -q -- "--repeats is deprecated; use --seeds" "$work/c.err" || fail "--repeats not deprecated"
    cols "$work/c/cost.csv" message_bytes formula_bytes | tail -n +2 |
      awk -F, '{ if ($1 != $2 || $1 != 100 + 8 * 5 * 10) bad = 1 } END { exit bad }' ||
      fail "measured message bytes differ from the formula"
    for args in "--partition 5,5" "--dim 1" "--policies ucb" "--env multilabel"; do
      rc=0
      # shellcheck disable=SC2086
      "$sim" --protocol vertical $args --out "$work/x" >/dev/null 2>&1 || rc=$?
      [ "$rc" = 2 ] || fail "exit $rc, not 2, for: $args"
    done ;;
  fclub)  # --protocol fclub: the algorithms run, the ordering holds, bytes follow the wire size
    # Not --quiet: the log's wire sizes are checked below (the bar goes to stderr).
    "$sim" --protocol fclub --rounds 10000 --seeds 2 --every 500 --plot \
      --algorithms linucb-ind,homo-dc,fclub-dc,cdp-fclub-dc --out "$work/f" >"$work/f.log" 2>/dev/null ||
      fail "fclub run failed"
    [ -s "$work/f/regret.png" ] && [ -s "$work/f/communication.png" ] || fail "fclub plots missing"
    mean() { awk -F, -v a="$1" 'NR > 1 && $2 == a { print $6 }' "$work/f/summary.csv"; }
    lt() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x < y) }'; }
    lt "$(mean fclub-dc)" "$(mean linucb-ind)" || fail "FCLUB-DC should beat per-user LinUCB"
    lt "$(mean linucb-ind)" "$(mean homo-dc)" || fail "one cluster for all should be worst"
    awk -F, 'NR > 1 && $2 == "cdp-fclub-dc" { if ($13 <= 0 || $13 > 1 + 1e-9) bad = 1 }
      END { exit bad }' "$work/f/runs.csv" || fail "CDP-FCLUB-DC spent more than epsilon = 1"
    awk -F, 'NR > 1 && $2 == "linucb-ind" { if ($8 + $9 != 0 || $11 != 0) bad = 1 } END { exit bad }' \
      "$work/f/runs.csv" || fail "per-user LinUCB should send nothing"
    up=$(sed -n 's/.*P2BU \([0-9]*\) B.*/\1/p' "$work/f.log")
    down=$(sed -n 's/.*P2BD \([0-9]*\) B.*/\1/p' "$work/f.log")
    [ -n "$up" ] && [ -n "$down" ] || fail "no wire sizes printed"
    awk -F, -v u="$up" -v d="$down" 'NR > 1 && $2 == "fclub-dc" { if ($11 != $8 * u + $9 * d) bad = 1; n++ }
      END { exit bad || !n }' "$work/f/runs.csv" || fail "bytes are not uploads x P2BU + downloads x P2BD"
    "$sim" --protocol fclub --rounds 3000 --seeds 2 --threads 1 --algorithms cdp-fclub-dc \
      --quiet --out "$work/f1" >/dev/null
    "$sim" --protocol fclub --rounds 3000 --seeds 2 --threads 2 --algorithms cdp-fclub-dc \
      --quiet --out "$work/f2" >/dev/null
    cmp -s <(cut -d, -f1-13 "$work/f1/runs.csv") <(cut -d, -f1-13 "$work/f2/runs.csv") ||
      fail "fclub runs differ between 1 and 2 threads"
    for args in "--mode reference --algorithms homo" "--dims 1" "--users 2 --servers 5" \
                "--thetas /nonexistent.npy" "--mode paper"; do
      rc=0
      # shellcheck disable=SC2086
      "$sim" --protocol fclub $args --out "$work/x" >/dev/null 2>&1 || rc=$?
      [ "$rc" = 2 ] || fail "exit $rc, not 2, for: $args"
    done ;;
  pfcb)  # --protocol pfcb at toy size: outputs exist, the numbers are sane, threads change nothing
    p=(--protocol pfcb --producers 6 --agents 3 --rounds 3000 --instances 1
       --window-start 100 --window-stop 2000)
    # Not --quiet: the log's schedule, times and posting size are checked below.
    "$sim" "${p[@]}" --seeds 1 --algorithms nf,fcb,pfcb,pfcb-aligned,pfcb-accept-all --epsilons 1,0.3 \
      --plot --out "$work/p" >"$work/p.log" 2>/dev/null || fail "pfcb run failed"
    for f in runs.csv curves.csv curves_runs.csv summary.csv ratios.csv summary.json regret.png \
             regret_median.png sharing.png; do
      [ -s "$work/p/$f" ] || fail "pfcb: $f missing"
    done
    grep -q "^schedule paper: 11 releases: 100,101,102,103,104,105,106,128,256,512,1024" "$work/p.log" ||
      fail "pfcb: the paper's schedule is not printed"
    grep -q "^time per point" "$work/p.log" || fail "pfcb: no run time per point"
    s="$work/p/summary.csv"
    # 2 distributions x (nf, fcb, 3 P-FCB variants x 2 epsilons) groups.
    [ "$(($(wc -l < "$s") - 1))" = 16 ] || fail "pfcb: expected 16 summary rows"
    field() { cols "$s" dist algorithm epsilon "$1" | awk -F, -v a="$2" -v e="$3" -v d="$4" \
      '$1 == d && $2 == a && $3 == e { print $4 }'; }
    for d in uniform normal; do
      nf=$(field regret_mean nf 0 $d) fcb=$(field regret_mean fcb inf $d)
      awk -v a="$fcb" -v b="$nf" 'BEGIN { exit !(a > 0 && a < b) }' ||
        fail "pfcb $d: FCB ($fcb) should beat non-federated ($nf)"
      [ "$(field postings_sent nf 0 $d)" = 0 ] || fail "pfcb $d: non-federated agents posted"
      [ "$(field postings_sent pfcb 1 $d)" = 11 ] || fail "pfcb $d: expected 11 postings"
      acc=$(field acceptance pfcb 1 $d) all=$(field acceptance pfcb-accept-all 1 $d)
      awk -v a="$acc" -v b="$all" 'BEGIN { exit !(a >= 0 && a < b && b <= 1) }' ||
        fail "pfcb $d: acceptance $acc (accept-all $all) out of range"
      met=$(field constraint_met pfcb 1 $d)
      awk -v m="$met" 'BEGIN { exit !(m > 0.5 && m <= 1) }' || fail "pfcb $d: constraint met $met"
      eps=$(field paper_epsilon pfcb 0.3 $d)
      awk -v e="$eps" 'BEGIN { exit !(e > 0 && e <= 0.3 + 1e-9) }' ||
        fail "pfcb $d: the paper's epsilon ($eps) is above the budget 0.3"
    done
    # Bytes are postings x the posting's wire size.
    size=$(sed -n 's/.*posting \([0-9]*\) B at m=6.*/\1/p' "$work/p.log")
    [ -n "$size" ] || fail "pfcb: no posting size printed"
    cols "$work/p/runs.csv" postings_sent bytes_sent |
      awk -F, -v s="$size" 'NR > 1 { if ($2 != $1 * s) bad = 1 } END { exit bad }' ||
      fail "pfcb: bytes are not postings x $size"
    "$sim" "${p[@]}" --algorithms pfcb --dist normal --threads 1 --seeds 2 --quiet --out "$work/p1"
    "$sim" "${p[@]}" --algorithms pfcb --dist normal --threads 2 --seeds 2 --quiet --out "$work/p2"
    cmp -s <(cut -d, -f1-25 "$work/p1/runs.csv") <(cut -d, -f1-25 "$work/p2/runs.csv") ||
      fail "pfcb runs differ between 1 and 2 threads"
    for args in "--dist gamma" "--producers 65" "--window-start 500 --window-stop 100" \
                "--algorithms pfcb-fancy" "--public-max-capacity 10"; do
      rc=0
      # shellcheck disable=SC2086
      "$sim" --protocol pfcb $args --out "$work/x" >/dev/null 2>&1 || rc=$?
      [ "$rc" = 2 ] || fail "exit $rc, not 2, for: $args"
    done ;;
  compare)  # --protocol compare: the shape of the outputs and orderings that must hold
    # d x |A| = 16 keeps FCLUB's per-item dimension small enough for a Debug build.
    "$sim" --protocol compare --envs synthetic --users 300 --interactions 10 --dim 4 --actions 4 \
      --beta 1 --mapping linear --seeds 2 --servers 2 --participations 0.5,0.9 --epsilons 1 \
      --codes 8 --plot --out "$work/c" >"$work/c.log" 2>"$work/c.err" || fail "compare run failed"
    [ -s "$work/c/reward_vs_eps.png" ] && [ -s "$work/c/reward_vs_bytes.png" ] ||
      fail "compare plots missing"
    s="$work/c/summary.csv"
    # local, pooled, o3m, 2 x p2b, fclub and pfcb at eps 1 and inf: 9 rows and a header
    [ "$(wc -l < "$s")" = 10 ] || fail "summary.csv should have 9 rows, has $(($(wc -l < "$s") - 1))"
    [ "$(wc -l < "$work/c/runs.csv")" = 19 ] || fail "runs.csv should have 18 runs (9 x 2 seeds)"
    row() { cols "$s" protocol knob "$1" | awk -F, -v p="$2" -v k="$3" '$1 == p && $2 == k { print $3 }'; }
    [ "$(row bytes_total local 0)" = 0 ] && [ "$(row msgs_up local 0)" = 0 ] ||
      fail "local-only must send nothing"
    [ "$(row epsilon local 0)" = 0 ] || fail "local-only's epsilon must be 0"
    [ "$(row epsilon pooled 0)" = inf ] && [ "$(row epsilon fclub inf)" = inf ] &&
      [ "$(row epsilon o3m 0)" = inf ] &&
      [ "$(row epsilon pfcb inf)" = inf ] || fail "non-private rows must state epsilon inf"
    ge() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x >= y) }'; }
    ge "$(row reward_all pooled 0)" "$(row reward_all local 0)" ||
      fail "pooled LinUCB should earn at least local-only"
    ge "$(row detail local 0)" "$(row reward_all pooled 0)" || fail "nothing beats the oracle"
    # P2B's epsilon is ln(p(2-p)/(1-p) + 1 - p) per report: 0.693147 at p = 0.5
    awk -v e="$(row epsilon p2b 0.5)" 'BEGIN { exit !((e - log(2)) ^ 2 < 1e-18) }' ||
      fail "P2B's epsilon at p = 0.5 is not ln 2"
    ge "$(row epsilon p2b 0.9)" "$(row epsilon p2b 0.5)" || fail "P2B's epsilon should grow with p"
    awk -v e="$(row epsilon fclub 1)" 'BEGIN { exit !(e > 0 && e <= 1 + 1e-9) }' ||
      fail "FCLUB spent more than its epsilon = 1"
    # Wire sizes: P2B's envelope is 208 B; P-FCB-style's posting is printed.
    awk -v b="$(row bytes_up p2b 0.5)" -v m="$(row msgs_up p2b 0.5)" \
      'BEGIN { exit !(m > 0 && (b / m / 208 - 1) ^ 2 < 1e-8) }' || fail "P2B bytes are not reports x 208"
    post=$(sed -n 's/^P-FCB-style posting.*: \([0-9]*\) B$/\1/p' "$work/c.log")
    [ -n "$post" ] || fail "no posting size printed"
    awk -v b="$(row bytes_up pfcb 1)" -v m="$(row msgs_up pfcb 1)" -v p="$post" \
      'BEGIN { exit !(m > 0 && (b / m / p - 1) ^ 2 < 1e-8) }' || fail "P-FCB bytes are not postings x size"
    gap=$(sed -n 's/.*local-only.s late users: largest gap \([0-9.e+-]*\)$/\1/p' "$work/c.log")
    [ -n "$gap" ] && awk -v g="$gap" 'BEGIN { exit !(g < 1e-12) }' ||
      fail "P2B's cold late users left local-only's (common random numbers broken)"
    for args in "--envs multilabel" "--dim 10 --actions 10" "--users 5" "--protocols nope"; do
      rc=0
      # shellcheck disable=SC2086
      "$sim" --protocol compare $args --out "$work/x" >/dev/null 2>&1 || rc=$?
      [ "$rc" = 2 ] || fail "exit $rc, not 2, for: $args"
    done ;;
  *) echo "unknown case $case_name" >&2; exit 2 ;;
esac
echo "ok: $case_name"
