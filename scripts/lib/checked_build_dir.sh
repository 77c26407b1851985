# Sourced by the cross-build scripts.
# checked_build_dir WHO DIR TOOLCHAIN: creates DIR and prints its absolute
# path; fails, naming WHO, when DIR was configured with another toolchain
# (reusing e.g. the host build dir would silently build for the wrong target).
checked_build_dir() {
  local who=$1 dir=$2 toolchain=$3 cached
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ -f "$dir/CMakeCache.txt" ]; then
    cached=$(sed -n 's/^CMAKE_TOOLCHAIN_FILE:[A-Z]*=//p' "$dir/CMakeCache.txt")
    if [ "$cached" != "$toolchain" ]; then
      echo "$who: $dir is configured with toolchain '${cached:-<none>}', not $toolchain;" \
           "use another build dir or remove it" >&2
      return 1
    fi
  fi
  echo "$dir"
}
