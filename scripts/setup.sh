#!/usr/bin/env bash
# Installs every Debian package the build, the tests and the demo need.
# Idempotent: a second run on a ready machine makes no network call.
set -euo pipefail

host_pkgs=(
  build-essential cmake ninja-build pkg-config git
  libeigen3-dev libsodium-dev
  googletest libgtest-dev libbenchmark-dev
  clang clang-format clang-tidy
  python3-numpy python3-matplotlib
)
cross_pkgs=(
  g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user
  libsodium-dev:arm64 libsodium-dev:armhf
)

want_cross=1
[ "${P2B_SETUP_NO_CROSS:-0}" = 1 ] && want_cross=0

sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)

missing=()
for p in "${host_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "$want_cross" = 1 ]; then
  for arch in arm64 armhf; do
    dpkg --print-foreign-architectures | grep -qx "$arch" || "${sudo_cmd[@]}" dpkg --add-architecture "$arch"
  done
  for p in "${cross_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# A mirror mid-sync makes `apt-get update` fail now and then; retry, then let the
# install itself decide whether the lists we have are good enough.
for attempt in 1 2 3; do
  "${sudo_cmd[@]}" apt-get update -qq && break
  echo "setup: apt-get update failed (attempt $attempt), retrying" >&2
  sleep $((attempt * 5))
done
for attempt in 1 2 3; do
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null && break
  [ "$attempt" = 3 ] && { echo "setup: apt-get install failed" >&2; exit 1; }
  echo "setup: apt-get install failed (attempt $attempt), retrying" >&2
  sleep $((attempt * 5))
  "${sudo_cmd[@]}" apt-get update -qq || true
done
echo "setup: done"
