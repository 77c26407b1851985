# shellcheck shell=bash
# Sourced by the scripts that build for a sysroot without Eigen (cortex-m4)
# and by scripts/export-tree.sh.
# eigen_include_dir: prints the directory holding Eigen/Core: $P2B_EIGEN_DIR
# if set, else the one pkg-config's eigen3 names (Debian's libeigen3-dev:
# /usr/include/eigen3). Fails with a message when there is none.
eigen_include_dir() {
  local dir=${P2B_EIGEN_DIR:-}
  if [ -z "$dir" ] && command -v pkg-config >/dev/null 2>&1; then
    dir=$(pkg-config --cflags-only-I eigen3 2>/dev/null | sed 's/^ *-I//; s/ .*//')
  fi
  if [ -z "$dir" ] || [ ! -f "$dir/Eigen/Core" ]; then
    echo "no Eigen found: install libeigen3-dev or set P2B_EIGEN_DIR to a dir holding Eigen/Core" >&2
    return 1
  fi
  echo "$dir"
}
