#!/usr/bin/env bash
# Issue #30's goals in one table: runs each benchmark at the issue's goal
# points (Release), keeps every raw output, and prints one Markdown table of
# goal | p2b measured | beside it (peer or floor, same run) | ratio | met,
# with where the time goes for each miss (bench/speed_goals.py parses the
# outputs). docs/benchmarks.md, "Goals of issue #30".
#
#   bash bench/speed_goals.sh [--quick] [--only ROW[,ROW...]] [--no-build] [--out DIR]
#
# ROW: decide (decide+reward, the plain C LinUCB, the FMA floor, the Python
# peers), ingest (shuffler CPU per envelope per backend beside the X25519
# opening, envelopes/s for 1..nproc ingest processes on PostgreSQL), vfl,
# sim (p2b-sim at u = 10^6 and its speed-up from 1 to nproc threads), apply
# (model apply), oracle (P-FCB's cmab_select against the docs' figures).
# --quick: a smoke run of a minute or two; its figures are not the goals'.
# --no-build: use the binaries already in the build directory, which is
# $P2B_BUILD_DIR (default build-release, the release preset's): that is how
# a relocated bundle runs on another machine. Raw outputs go to DIR (default
# <build>/speed-goals); the table also goes to DIR/table.md.
# Every step is bounded by `timeout`; a step that fails or is absent prints
# "not measured" with its reason in the table instead of stopping the run.
# The Python peers need the venv of bench/peers/decide_peers.sh
# --install-peers (build-peers/venv); without it they print "absent".
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
quick=0 build_it=1 only="decide,ingest,vfl,sim,apply,oracle" out=""
usage() { sed -n '8,9p' "$0" | sed 's/^# *//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
    --no-build) build_it=0; shift ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    *) usage ;;
  esac
done
for row in ${only//,/ }; do
  case "$row" in decide | ingest | vfl | sim | apply | oracle) ;; *) echo "unknown ROW: $row" >&2; usage ;; esac
done
build=${P2B_BUILD_DIR:-$repo/build-release}
build=$(cd "$repo" && mkdir -p "$build" && cd "$build" && pwd)
out=${out:-$build/speed-goals}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/*.failed "$out"/build.failed "$out"/*.load "$out"/*.log "$out"/*.json "$out"/*.raw "$out"/*.time "$out"/table.md
wants() { [[ ",$only," == *",$1,"* ]]; }
cores=$(nproc)

# Runs "$@" with a time limit; on failure leaves NAME.failed with the reason,
# which the summariser prints in place of the figure.
step() {
  local name=$1 limit=$2
  shift 2
  echo "[$(date -u +%H:%M:%S)] $name: $*" >&2
  # Other work on the machine slows wall-clock figures: its load, for the record.
  cut -d' ' -f1 /proc/loadavg >"$out/$name.load"
  timeout --kill-after=10 "$limit" "$@" >"$out/$name.log" 2>"$out/$name.err"
  local rc=$?
  if [ $rc -ne 0 ]; then
    local why="exit $rc"
    [ $rc -eq 124 ] && why="over its ${limit} s limit"
    printf '%s: %s\n' "$why" "$(tail -n 3 "$out/$name.err" | tr '\n' ' ' | cut -c1-300)" >"$out/$name.failed"
  fi
  return $rc
}

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "commit: $(git -C "$repo" describe --always --dirty 2>/dev/null || echo 'unknown (not a git checkout)')"
  echo "cores: $cores"
  echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
  echo "memory: $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "load_start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "quick: $quick"
} >"$out/machine.txt"

targets=()
wants decide && targets+=(peer_decide p2b_bench)
wants ingest && targets+=(scale_out p2b_wire_bench)
wants vfl && targets+=(p2b-keygen p2b-vfl-pmg p2b-vfl-party p2b-vfl-ap vfl_round)
wants sim && targets+=(p2b-sim p2b-codebook)
wants apply && targets+=(p2b_wire_bench)
wants oracle && targets+=(bench_cmab_oracle)
if [ "$build_it" = 1 ]; then
  # Other builds may share this checkout: the lock keeps them apart.
  lock=(flock /tmp/p2b-build.lock)
  command -v flock >/dev/null || lock=()
  echo "[$(date -u +%H:%M:%S)] building ${targets[*]} in $build" >&2
  if [ "$build" = "$repo/build-release" ]; then
    (cd "$repo" && "${lock[@]}" cmake --preset release >/dev/null)
  else
    "${lock[@]}" cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  # -k 0: build what builds. A target that does not keeps its earlier binary
  # (the header names it) or, with none, its rows print "not measured".
  "${lock[@]}" nice cmake --build "$build" --target "${targets[@]}" -- -k 0 >"$out/build.log" 2>&1 ||
    echo "some targets did not build; see $out/build.log" >&2
  # The table's header names them: their rows run binaries of an earlier build.
  sed -n 's/^FAILED: //p' "$out/build.log" >"$out/build.failed"
fi
# A missing binary fails its step with a reason, not the run.
bin() { [ -x "$build/$1" ] && echo "$build/$1" || echo "missing-binary:$1"; }

if wants decide; then
  rounds=5 steps=200000 peer_steps=1000 min_time=0.3
  [ "$quick" = 1 ] && rounds=1 steps=20000 peer_steps=100 min_time=0.05
  venv=$repo/build-peers/venv/bin/python
  mkdir -p "$out/decide-data"
  step decide-data 120 "$(bin bench/peer_decide)" --write-data "$out/decide-data"
  # Interleaved rounds, as bench/peers/decide_peers.sh runs them: p2b, the
  # plain LinUCB and the peers see the same load.
  for r in $(seq "$rounds"); do
    step "decide-round$r" 600 "$(bin bench/peer_decide)" --steps "$steps"
    if [ -x "$venv" ]; then
      step "peers-round$r" 600 "$venv" "$repo/bench/peers/decide_peers.py" "$out/decide-data" \
        --vw --mabwiser --steps "$peer_steps"
    fi
  done
  cat "$out"/decide-round*.log "$out"/peers-round*.log >"$out/decide.raw" 2>/dev/null
  [ -x "$venv" ] || echo "no venv at build-peers/venv (bash bench/peers/decide_peers.sh --install-peers)" \
    >"$out/peers.absent"
  # Where the pair's time goes: decide alone and reward alone at both points.
  step kernel 600 "$(bin bench/p2b_bench)" \
    --benchmark_filter='(BM_DecideLinUCB|BM_DecideRewardPair|BM_Reward)/d:(10/K:10|20/K:50)/k:1024$' \
    --benchmark_min_time="$min_time" --benchmark_out="$out/kernel.json" --benchmark_out_format=json
fi

if wants ingest; then
  seconds=10 warmup=2 clients=16
  [ "$quick" = 1 ] && seconds=2 warmup=1 clients=8
  counts=1 n=2
  while [ "$n" -le "$cores" ] && [ "$n" -le 16 ]; do counts+=",$n"; n=$((n * 2)); done
  [[ ",$counts," == *",$cores,"* ]] || [ "$cores" -gt 16 ] || counts+=",$cores"
  # Enough sealed envelopes for the fastest point (about 20k/s per core).
  pool=$((cores * 10000 * (seconds + warmup)))
  [ "$pool" -lt 300000 ] && pool=300000
  pool_dir=$out/scale-out  # the sealed pool is kept there and reused
  [ "$quick" = 1 ] && pool=60000 pool_dir=$out/scale-out-quick
  step open-floor 300 "$(bin bench/p2b_wire_bench)" --benchmark_filter='BM_OpenOuter' \
    --benchmark_min_time=0.3 --benchmark_out="$out/open_floor.json" --benchmark_out_format=json
  # The stores stay beside the pool, on the build's disk (not tmpfs).
  step ingest 1200 "$(bin bench/scale_out)" --ingest-only --backends sqlite,postgresql \
    --ingest "$counts" --clients "$clients" --per-request 50 --seconds "$seconds" \
    --warmup "$warmup" --pool "$pool" --out "$pool_dir"
  cp "$pool_dir/scale_out_ingest.json" "$out/ingest.json" 2>/dev/null
fi

if wants vfl; then
  vfl_rounds=500
  [ "$quick" = 1 ] && vfl_rounds=50
  step vfl 600 bash "$repo/scripts/vfl-bench.sh" --build "$build" --dim 100 --items 10 --parties 5 \
    --rounds "$vfl_rounds"
fi

if wants sim; then
  users=1000000
  [ "$quick" = 1 ] && users=50000
  echo "users: $users" >"$out/sim.settings"
  step codebook 300 "$(bin tools/codebook/p2b-codebook)" --dim 10 --codes 1024 --seed 1 \
    --out "$out/cb.p2bc" --force --quiet
  # name actions threads sealing: the goals' points, then the speed-up's ends.
  two=2
  [ "$cores" -lt 2 ] && two=$cores
  runs=("a10 10 $two off" "a50 50 $two off" "sealed 10 $two on" "t1 10 1 off")
  [ "$cores" -ne "$two" ] && runs+=("tall 10 $cores off")
  for r in "${runs[@]}"; do
    read -r name actions threads crypto <<<"$r"
    args=(--users "$users" --actions "$actions" --mode default --codebook "$out/cb.p2bc"
      --threads "$threads" --out "$out/sim-run")  # not --quiet: the log's speed line is read
    [ "$crypto" = off ] && args+=(--no-crypto)
    echo "actions: $actions threads: $threads sealing: $crypto" >"$out/sim_$name.settings"
    step "sim_$name" 900 /usr/bin/time -f '%e %M' -o "$out/sim_$name.time" \
      "$(bin tools/p2b-sim)" "${args[@]}"
  done
  rm -rf "$out/sim-run"
fi

if wants apply; then
  min_time=0.5
  [ "$quick" = 1 ] && min_time=0.05
  step apply 300 "$(bin bench/p2b_wire_bench)" --benchmark_filter='BM_ApplyModel|BM_VerifyModelBundle' \
    --benchmark_min_time="$min_time" --benchmark_out="$out/apply.json" --benchmark_out_format=json
fi

if wants oracle; then
  min_time=0.3
  [ "$quick" = 1 ] && min_time=0.05
  step oracle 300 "$(bin bench/bench_cmab_oracle)" --benchmark_filter='BM_Select|BM_ScanFloor|BM_SortFloor' \
    --benchmark_min_time="$min_time" --benchmark_out="$out/oracle.json" --benchmark_out_format=json
fi

echo "load_end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
/usr/bin/python3 "$repo/bench/speed_goals.py" "$out" --only "$only" --docs "$repo/docs/benchmarks.md" |
  tee "$out/table.md"
