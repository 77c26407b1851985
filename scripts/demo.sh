#!/usr/bin/env bash
# The project's main job: installs what it needs, builds, and runs P2B end to
# end through real processes (p2b-keygen, p2b-shuffler, p2b-analyzer on
# loopback, devices through the C API), then plots the result. Extra
# arguments go to p2b-demo (see p2b-demo --help). Its analyzers run with
# central DP off (P2B's own guarantee only, as in the paper; the demo prints
# the setting), unless --central-epsilon EPS is passed through.
set -euo pipefail
cd "$(dirname "$0")/.."

P2B_SETUP_NO_CROSS=1 bash scripts/setup.sh
cmake -S . -B build-demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DP2B_BUILD_TESTS=OFF \
  -DP2B_BUILD_BENCH=OFF >/dev/null
cmake --build build-demo --target p2b-demo
out=out/demo
./build-demo/tools/p2b-demo --out "$out" "$@"
/usr/bin/python3 tools/plot_demo.py "$out/results.csv" "$out/results.png"
