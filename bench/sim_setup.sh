# Sourced by bench/sim_speed.sh and bench/sim_scaling.sh: builds p2b-sim and
# p2b-codebook (Release preset) unless --no-build was given, makes one
# 1024-code codebook (d = 10, seed 1) so that every run shares it, and sets
#   sim   the p2b-sim binary     cb    the codebook
#   work  a scratch directory, removed on exit
# Expects $repo (the checkout) and $build_it (1: build, 0: use build-release as is).
if [ "$build_it" = 1 ]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target p2b-sim p2b-codebook >/dev/null
fi
sim="$repo/build-release/tools/p2b-sim"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cb="$work/cb.p2bc"
"$repo/build-release/tools/codebook/p2b-codebook" --dim 10 --codes 1024 --seed 1 --out "$cb" \
  --quiet >/dev/null
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
