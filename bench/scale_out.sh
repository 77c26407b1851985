#!/usr/bin/env bash
# Builds the services and the scale-out benchmark (Release, in build-bench)
# and runs it from the repository root; arguments go to scale_out (--help).
# Stores, the sealed pool and the results go to scale-out/ on the same disk
# as the checkout: keep it off tmpfs, or durable commits cost nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench --target scale_out
exec build-bench/bench/scale_out "$@"  # --out defaults to scale-out
