#!/usr/bin/env bash
# README command (b): installs dependencies, then configures, builds and tests both configurations:
#   cpu      CPU only (reference, model, CLI, CPU tests): what a machine without nvcc builds;
#   default  the CUDA parts too when nvcc is found (GPU tests report "Skipped" without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
for preset in cpu default; do
  echo "test.sh: configuration '$preset'"
  cmake --preset "$preset"
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
