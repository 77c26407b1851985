#!/usr/bin/env bash
# The services' OCI image without a container registry: the runtime stage
# of the Dockerfile, built from Debian's mirror alone.
#   1. mmdebstrap makes a Debian 12 minbase root file system holding the
#      runtime packages of packaging/oci/runtime-packages.txt (the list the
#      Dockerfile installs), cached in .deps/ by the list's hash;
#   2. `cmake --install` of a build tree (default build-host) goes to
#      /opt/p2b inside it, stripped;
#   3. the getting-started commands (docs/getting-started.md) run inside that
#      root file system (chroot): every program finds its libraries there;
#   4. buildah (from scratch, vfs storage, no daemon) commits it as an OCI
#      archive, user 65532, /var/lib/p2b a volume: out/p2b-services-oci.tar;
#      a container made from that archive must run p2b-shuffler as uid 65532.
# Needs root (mmdebstrap's root mode, chroot, buildah) and the mmdebstrap
# and buildah packages; without them it says so and exits 77.
#
#   bash scripts/oci-build.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
build=${1:-build-host}
jobs=${JOBS:-2}
packages=packaging/oci/runtime-packages.txt
image=localhost/p2b-services:$(sed -nE 's/^#define P2B_VERSION_(MAJOR|MINOR|PATCH) +([0-9]+).*/\2/p' \
  c_api/p2b.h | paste -sd.)

fail() {
  echo "oci-build: FAIL: $*" >&2
  exit 1
}
if [ "$(id -u)" != 0 ] || ! command -v mmdebstrap >/dev/null || ! command -v buildah >/dev/null; then
  echo "oci-build: needs root, mmdebstrap and buildah: skipped"
  exit 77
fi

# The image passes through vfs storage (full copies, no overlay) several
# times: 0.8 GB at the peak, measured; 2 GB leaves room. Say so now rather
# than fail inside buildah with "no space left on device".
need_kb=$((2 * 1024 * 1024))
for dir in . "${TMPDIR:-/tmp}" /var/lib/containers; do
  [ -d "$dir" ] || dir=$(dirname "$dir")
  free_kb=$(df -Pk "$dir" | awk 'NR == 2 {print $4}')
  [ "$free_kb" -ge "$need_kb" ] ||
    fail "$dir has $((free_kb / 1024)) MB free; the image build needs 2 GB (build-asan and build-double can go)"
done

# 1. The root file system, from the mirror once per package list.
mkdir -p .deps out
rootfs_tar=.deps/oci-rootfs-$(sha256sum "$packages" | cut -c1-16).tar
if [ ! -f "$rootfs_tar" ]; then
  echo "oci-build: mmdebstrap bookworm minbase + $(paste -sd' ' "$packages")"
  mmdebstrap --quiet --format=tar --variant=minbase --include="$(paste -sd, "$packages")" bookworm \
    "$rootfs_tar.part" http://deb.debian.org/debian
  mv "$rootfs_tar.part" "$rootfs_tar"
fi

work=$(mktemp -d)
ctr=
cleanup() {
  # Under set -e a failing last command here would become the exit status:
  # the container may be gone already (rmi --force takes it along).
  if [ -n "$ctr" ]; then buildah --storage-driver vfs rm "$ctr" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
root=$work/root
mkdir "$root"
tar -xf "$rootfs_tar" -C "$root"

# 2. The install, as the Dockerfile's build stage does it.
cmake --build "$build" -j "$jobs" --target p2b-installable
DESTDIR=$root cmake --install "$build" --prefix /opt/p2b --strip >/dev/null
install -d -o 65532 -g 65532 -m 0700 "$root/var/lib/p2b"

# 3. The page's commands inside the image's file system.
mkdir -p "$root/tmp/getting-started"
{
  echo "trap 'jobs -p | xargs -r kill 2>/dev/null' EXIT"
  awk '/^```sh getting-started$/ {on = 1; next} on && /^```$/ {exit} on {print}' \
    docs/getting-started.md
} >"$root/tmp/getting-started/commands.sh"
if ! chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin PREFIX=/opt/p2b \
  bash -c 'cd /tmp/getting-started && timeout 300 bash -e commands.sh' >"$work/out.txt" 2>&1; then
  cat "$work/out.txt" >&2
  fail "the getting-started commands failed inside the image"
fi
grep -qE '^model version [1-9][0-9]* .* verified and applied$' "$work/out.txt" ||
  fail "no model applied inside the image"
echo "oci-build: getting-started ran inside the image's root file system"
rm -rf "$root/tmp/getting-started"
for b in "$root"/opt/p2b/bin/*; do
  chroot "$root" "/opt/p2b/bin/${b##*/}" --version >/dev/null || fail "${b##*/} does not run"
done

# 4. The OCI image.
export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot
ctr=$(buildah --storage-driver vfs from scratch)
tar -C "$root" -cf "$work/layer.tar" .
rm -rf "$root"
buildah --storage-driver vfs add "$ctr" "$work/layer.tar" / >/dev/null
rm -f "$work/layer.tar"
buildah --storage-driver vfs config --user 65532:65532 --env PATH=/opt/p2b/bin:/usr/bin:/bin \
  --volume /var/lib/p2b --port 8710 --port 8720 --cmd '["p2b-shuffler", "--help"]' \
  --label org.opencontainers.image.source=p2b "$ctr"
buildah --storage-driver vfs commit --quiet "$ctr" "$image" >/dev/null
rm -f out/p2b-services-oci.tar
buildah --storage-driver vfs push --quiet "$image" "oci-archive:$repo/out/p2b-services-oci.tar:$image"
buildah --storage-driver vfs rm "$ctr" >/dev/null
buildah --storage-driver vfs rmi "$image" >/dev/null
# The archive as a runtime would take it: a container of it runs the
# services as uid 65532.
ctr=$(buildah --storage-driver vfs from --quiet "oci-archive:$repo/out/p2b-services-oci.tar")
version=$(buildah --storage-driver vfs run "$ctr" -- p2b-shuffler --version)
[ "$version" = "p2b-shuffler ${image##*:}" ] || fail "the image's p2b-shuffler --version: $version"
uid=$(buildah --storage-driver vfs run "$ctr" -- id -u)
[ "$uid" = 65532 ] || fail "the image runs as uid $uid, not 65532"
buildah --storage-driver vfs rm "$ctr" >/dev/null
ctr=
buildah --storage-driver vfs rmi --force "$image" >/dev/null 2>&1 || true
echo "oci-build: $image -> out/p2b-services-oci.tar ($(du -h out/p2b-services-oci.tar | cut -f1))"
