#!/usr/bin/env bash
# Fetches the headers of the pinned FlashInfer release (peers/flashinfer.pin) into the cache:
# ${ARLAB_CACHE:-$HOME/.cache/arlab}/flashinfer-VERSION/include. Idempotent: does nothing when they
# are there. The wheel is downloaded without dependencies, its sha256 checked, and only
# flashinfer/data/include is unpacked; the wheel is then deleted. Exits non-zero (saying why) when
# it cannot: no pip, no network, a checksum mismatch.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pin=$root/peers/flashinfer.pin
version=$(awk '$1 == "version" {print $2}' "$pin")
sha=$(awk '$1 == "sha256" {print $2}' "$pin")
cache=${ARLAB_CACHE:-$HOME/.cache/arlab}
dest=$cache/flashinfer-$version
if [ -f "$dest/include/flashinfer/comm/trtllm_allreduce_fusion.cuh" ]; then
  echo "fetch-flashinfer: FlashInfer $version headers already in $dest/include"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python=$(command -v python3 || true)
if [ -z "$python" ] || ! "$python" -m pip --version > /dev/null 2>&1; then
  echo "fetch-flashinfer: no python3 with pip to download flashinfer-python==$version" >&2
  exit 1
fi
echo "fetch-flashinfer: downloading flashinfer-python==$version (no dependencies)"
"$python" -m pip download --quiet --no-deps --only-binary=:all: "flashinfer-python==$version" -d "$tmp" > "$tmp/pip.log" 2>&1 || {
  tail -3 "$tmp/pip.log" >&2
  echo "fetch-flashinfer: pip could not download flashinfer-python==$version" >&2
  exit 1
}
wheel=$(ls "$tmp"/flashinfer_python-"$version"-*.whl)
got=$(sha256sum "$wheel" | awk '{print $1}')
if [ "$got" != "$sha" ]; then
  echo "fetch-flashinfer: $wheel has sha256 $got, expected $sha (peers/flashinfer.pin)" >&2
  exit 1
fi
mkdir -p "$tmp/unpacked"
unzip -q "$wheel" 'flashinfer/data/include/*' -d "$tmp/unpacked"
mkdir -p "$dest"
rm -rf "$dest/include"
mv "$tmp/unpacked/flashinfer/data/include" "$dest/include"
echo "fetch-flashinfer: FlashInfer $version headers in $dest/include"
