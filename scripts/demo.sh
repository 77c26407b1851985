#!/usr/bin/env bash
# The project's main job: installs what it needs, builds, and runs the P2B
# demo (cold vs warm-started agents on the paper's synthetic environment),
# then plots the result. Extra arguments go to p2b-local-demo.
set -euo pipefail
cd "$(dirname "$0")/.."

P2B_SETUP_NO_CROSS=1 bash scripts/setup.sh
cmake -S . -B build-demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DP2B_BUILD_TESTS=OFF \
  -DP2B_BUILD_BENCH=OFF >/dev/null
cmake --build build-demo --target p2b-local-demo
out=out/local-demo
./build-demo/tools/p2b-local-demo --out "$out" "$@"
/usr/bin/python3 tools/plot_local_demo.py "$out/results.csv" "$out/results.png"
