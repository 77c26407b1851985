#!/usr/bin/env bash
# Runs every test the project has: installs what it needs, then
#   1. style: clang-format over all C/C++ sources, the changelog fragments,
#      and the docs' figures against their committed data;
#   2. host Debug build (assertions on) + the whole ctest suite, the Python
#      package's pytest suite (scripts/python-test.sh), then clang-tidy;
#   3. the same suite under AddressSanitizer + UBSan;
#   4. a double-precision build of the core + suite;
#   5. the package: install, then a separate consumer project builds against
#      it (find_package and pkg-config; scripts/consumer-test.sh), and the
#      Swift package built and tested against an installed prefix with
#      SwiftPM and XCTest (scripts/swift-test.sh), the
#      getting-started page run against an installed prefix
#      (scripts/getting-started-test.sh) and inside the services' OCI image
#      (scripts/oci-build.sh);
#   6. aarch64 and armhf cross builds, the whole suite under qemu-user;
#   7. Cortex-M4: the test image under qemu-system-arm (scripts/cortex-m-test.sh)
#      and the footprint budgets (scripts/footprint.sh --check);
#   8. every libFuzzer target for 30 s under ASan + UBSan (scripts/fuzz.sh).
# Set P2B_TEST_SKIP_CROSS=1 to skip steps 6-7 on a machine without the cross
# packages, P2B_TEST_SKIP_SWIFT=1 to skip the Swift package on one without a
# Swift toolchain (scripts/setup.sh does not install it; CI has one). Build dirs are reused, so a second run only rebuilds changes,
# except build-asan and build-double: no later step reads them, so they are
# removed once their suite passes to keep the run's disk use low (a run once
# filled the disk). P2B_TEST_KEEP_BUILDS=1 keeps them.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/llvm.sh
source scripts/lib/llvm.sh
jobs=${JOBS:-2}
t_start=$(date +%s)

# Each step says how much disk is left: a full disk shows up as some tool's
# odd error far from its cause.
step() { printf '\n==== %s (%s free)\n' "$*" "$(df -h --output=avail . | tail -1 | tr -d ' ')"; }

step "setup"
if [ "${P2B_TEST_SKIP_CROSS:-0}" = 1 ]; then
  P2B_SETUP_NO_CROSS=1 bash scripts/setup.sh
else
  bash scripts/setup.sh
fi

step "format check (clang-format)"
bash scripts/format.sh --check

step "changelog fragments (changelog.d/)"
bash scripts/changelog.sh --check

step "figures: docs/img regenerated from committed data (scripts/figures-check.sh)"
bash scripts/figures-check.sh

host_suite() {  # a preset of CMakePresets.json; builds in build-<preset>
  step "build + ctest: $1"
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1" -j "$jobs"
  ctest --preset "$1" --no-tests=error -j "$jobs"
}

host_suite host

step "python package: wheel built, repaired, installed alone into a venv + pytest, mypy (scripts/python-test.sh)"
bash scripts/python-test.sh

step "lint (clang-tidy, warnings are errors)"
mapfile -t tidy_files < <(git ls-files -- 'src/*.cpp' 'c_api/*.cpp' 'ports/posix/*.cpp' 'ports/sodium/*.cpp' \
  'bindings/android/*.cpp' 'server/*.cpp' 'tools/*.cpp' 'bench/*.cpp' 'tests/*.cpp' ':(exclude)tests/fuzz/*')
# In batches on every core; xargs fails if any batch does.
if ! tidy_out=$(printf '%s\0' "${tidy_files[@]}" |
    xargs -0 -P "$jobs" -n 8 "$p2b_clang_tidy" -p build-host --quiet --warnings-as-errors='*' 2>&1); then
  printf '%s\n' "$tidy_out" | grep -vE '^[0-9]+ warnings? generated\.$' >&2
  echo "lint: clang-tidy found problems" >&2
  exit 1
fi
echo "lint: ${#tidy_files[@]} files clean"
# A suite's build dir that no later step reads, removed once it passed.
prune_build() {
  if [ "${P2B_TEST_KEEP_BUILDS:-0}" != 1 ]; then
    echo "removing build-$1 ($(du -sh "build-$1" | cut -f1)); P2B_TEST_KEEP_BUILDS=1 keeps it"
    rm -rf "build-$1"
  fi
}
host_suite asan
prune_build asan
host_suite double
prune_build double

step "package: install + consumer project (find_package, pkg-config)"
bash scripts/consumer-test.sh

if [ "${P2B_TEST_SKIP_SWIFT:-0}" != 1 ]; then
  step "swift package: swift build + swift test against the installed library (scripts/swift-test.sh)"
  JOBS=$jobs bash scripts/swift-test.sh build-host
fi

step "operators: docs/getting-started.md against an installed prefix"
JOBS=$jobs bash scripts/getting-started-test.sh build-host

step "operators: the services' OCI image from Debian's mirror (mmdebstrap + buildah)"
JOBS=$jobs bash scripts/oci-build.sh build-host || [ $? = 77 ]

if [ "${P2B_TEST_SKIP_CROSS:-0}" != 1 ]; then
  for arch in aarch64 armhf; do
    step "cross build + ctest under qemu: $arch"
    JOBS=$jobs bash scripts/cross-test.sh "$arch"
  done
  step "cortex-m4: test image under qemu-system-arm"
  JOBS=$jobs bash scripts/cortex-m-test.sh
  step "footprint budgets (flash and agent RAM)"
  bash scripts/footprint.sh --check
fi

step "fuzzing: every decoder, ${FUZZ_SECONDS:-30} s each, ASan + UBSan"
bash scripts/fuzz.sh

printf '\nall test suites passed in %ss\n' "$(($(date +%s) - t_start))"
