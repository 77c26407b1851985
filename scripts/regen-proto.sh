#!/usr/bin/env bash
# Regenerates the committed nanopb code in proto/generated/ from
# proto/*.proto and their .options, with protoc and protoc-gen-nanopb
# (Debian: protobuf-compiler, nanopb; the generator must match the vendored
# runtime in proto/nanopb/, 0.4.7). Run it after editing a .proto or .options
# file and commit the result.
#
#   bash scripts/regen-proto.sh            rewrite proto/generated/
#   bash scripts/regen-proto.sh --check DIR generate into DIR and fail when it
#                                           differs from proto/generated/ (the
#                                           ctest proto.generated_code_fresh)
#
# Environment: PROTOC, PROTOC_GEN_NANOPB (default: found on PATH).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
committed=$repo/proto/generated
check=0
out=$committed
case "${1:-}" in
  --check)
    [ $# -eq 2 ] || { echo "usage: bash scripts/regen-proto.sh [--check DIR]" >&2; exit 2; }
    check=1
    out=$2
    ;;
  "") ;;
  *) echo "usage: bash scripts/regen-proto.sh [--check DIR]" >&2; exit 2 ;;
esac
protoc=${PROTOC:-$(command -v protoc || true)}
plugin=${PROTOC_GEN_NANOPB:-$(command -v protoc-gen-nanopb || true)}
if [ -z "$protoc" ] || [ -z "$plugin" ]; then
  echo "regen-proto: protoc and protoc-gen-nanopb are needed (Debian: protobuf-compiler nanopb)" >&2
  exit 1
fi

protos=(p2b p2b_state p2b_fclub p2b_pfcb)
mkdir -p "$out"
for proto in "${protos[@]}"; do
  # The -I in --nanopb_opt is what makes the generator read the .options file.
  "$protoc" --plugin=protoc-gen-nanopb="$plugin" --nanopb_out="$out" \
    --nanopb_opt=-I"$repo/proto" -I "$repo/proto" "$repo/proto/$proto.proto"
done

if [ "$check" = 0 ]; then
  echo "regen-proto: wrote the .pb.c and .pb.h of ${protos[*]} in proto/generated/"
  exit 0
fi
stale=0
for proto in "${protos[@]}"; do
  for ext in c h; do
    f=$proto.pb.$ext
    if ! diff -u "$committed/$f" "$out/$f"; then
      stale=1
    fi
  done
done
if [ "$stale" = 1 ]; then
  echo "regen-proto: proto/generated/ is stale: run bash scripts/regen-proto.sh and commit" >&2
  exit 1
fi
echo "regen-proto: proto/generated/ matches proto/*.proto"
