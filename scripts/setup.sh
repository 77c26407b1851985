#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the demo need, and,
# for the Cortex-M build, fetches libsodium's source package into .deps/.
# (nanopb is vendored in proto/nanopb/; the nanopb and protobuf-compiler
# packages only serve scripts/regen-proto.sh and its freshness ctest;
# libpq-dev is the PostgreSQL backend's client library and postgresql the
# server the tests start as throwaway clusters, docs/testing.md; help2man
# makes the man pages from each program's --help, libclang-rt-14-dev holds
# libFuzzer's and the sanitizers' runtimes for clang-14 (only recommended by
# clang-14, so --no-install-recommends leaves it out), systemd gives
# systemd-analyze, which checks the units, and mmdebstrap and buildah build
# the services' OCI image without a registry, docs/operations.md; prometheus
# gives promtool, which checks packaging/monitoring's alert rules (python3-yaml
# reads them for the metric-name check). The python3-* packages build and
# test the Python package, docs/python.md; its pinned build requirements and
# wheel tools (pyproject.toml) come from PyPI as wheels into a wheelhouse,
# ~/.cache/p2b-wheelhouse, so the builds themselves run offline.)
# Idempotent: a second run on a ready machine makes no network call.
# P2B_SETUP_NO_CROSS=1 skips the ARM cross toolchains, bare-metal Cortex-M
# included (the demo does not need them).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

host_pkgs=(
  build-essential cmake ninja-build pkg-config git dpkg-dev
  libeigen3-dev libsodium-dev nanopb protobuf-compiler libcpp-httplib-dev libsqlite3-dev libbrotli-dev
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev doxygen help2man systemd mmdebstrap buildah
  googletest libgtest-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev clang-format-14 clang-tidy-14
  python3-numpy python3-matplotlib zlib1g-dev default-jdk-headless
  python3-dev python3-venv python3-pandas python3-pytest mypy
  postgresql libpq-dev prometheus python3-yaml
)
cross_pkgs=(
  g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user
  libsodium-dev:arm64 libsodium-dev:armhf
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm
)

want_cross=1
[ "${P2B_SETUP_NO_CROSS:-0}" = 1 ] && want_cross=0

sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# A mirror mid-sync makes `apt-get update` fail now and then; retry, then let
# the next step decide whether the lists we have are good enough.
apt_update() {
  for attempt in 1 2 3; do
    "${sudo_cmd[@]}" apt-get update -qq && return 0
    echo "setup: apt-get update failed (attempt $attempt), retrying" >&2
    sleep $((attempt * 5))
  done
  return 0
}

missing=()
for p in "${host_pkgs[@]}"; do installed "$p" || missing+=("$p"); done
if [ "$want_cross" = 1 ]; then
  for arch in arm64 armhf; do
    dpkg --print-foreign-architectures | grep -qx "$arch" ||
      "${sudo_cmd[@]}" dpkg --add-architecture "$arch"
  done
  for p in "${cross_pkgs[@]}"; do installed "$p" || missing+=("$p"); done
fi

# The Cortex-M port compiles a libsodium subset from Debian's source package
# (ports/cortex-m/libsodium.cmake): there is no arm-none-eabi libsodium. It
# lands in .deps/ (ignored by git), never in the repository.
have_sodium_src() {
  [ "$want_cross" = 0 ] ||
    compgen -G "$repo/.deps/libsodium-*/src/libsodium/crypto_box/crypto_box_seal.c" >/dev/null
}
src_list=/etc/apt/sources.list.d/p2b-deb-src.sources
updated=0
if ! have_sodium_src && [ ! -f "$src_list" ]; then
  "${sudo_cmd[@]}" tee "$src_list" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt_update
  updated=1
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  [ "$updated" = 1 ] || apt_update
  updated=1
  for attempt in 1 2 3; do
    "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null &&
      break
    [ "$attempt" = 3 ] && { echo "setup: apt-get install failed" >&2; exit 1; }
    echo "setup: apt-get install failed (attempt $attempt), retrying" >&2
    sleep $((attempt * 5))
    apt_update
  done
fi

# fetch_source PKG: Debian's source package PKG into .deps/, retrying once
# after an apt update (the lists may predate the deb-src entry).
fetch_source() {
  updated=1
  echo "setup: fetching Debian's $1 source package into .deps/"
  mkdir -p "$repo/.deps"
  if ! (cd "$repo/.deps" && apt-get source -qq "$1" >/dev/null 2>&1); then
    apt_update
    (cd "$repo/.deps" && apt-get source -qq "$1" >/dev/null) || {
      echo "setup: apt-get source $1 failed" >&2
      exit 1
    }
  fi
}
have_sodium_src || fetch_source libsodium

# The Python package's pinned build requirements and wheel tools, as wheels
# (scripts/lib/python_pins.sh reads them from pyproject.toml). pins.txt
# records what the wheelhouse holds, so a second run makes no network call.
# shellcheck source=lib/python_pins.sh
source "$repo/scripts/lib/python_pins.sh"
python_pins=$(p2b_python_pins build && p2b_python_pins wheel-tools)
if [ "$(cat "$p2b_wheelhouse/pins.txt" 2>/dev/null)" != "$python_pins" ]; then
  echo "setup: downloading the Python build requirements into $p2b_wheelhouse"
  mapfile -t pins <<<"$python_pins"
  for attempt in 1 2 3; do
    /usr/bin/python3 -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
      -d "$p2b_wheelhouse" "${pins[@]}" && break
    [ "$attempt" = 3 ] && { echo "setup: pip download failed" >&2; exit 1; }
    echo "setup: pip download failed (attempt $attempt), retrying" >&2
    sleep $((attempt * 5))
  done
  printf '%s\n' "$python_pins" >"$p2b_wheelhouse/pins.txt"
  updated=1
fi

if [ ${#missing[@]} -eq 0 ] && [ "$updated" = 0 ]; then
  echo "setup: all packages present"
else
  echo "setup: done"
fi
