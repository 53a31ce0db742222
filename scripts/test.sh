#!/usr/bin/env bash
# README command (b): installs dependencies, then configures, builds and tests both configurations:
#   cpu      CPU only (reference, model, CLI, CPU tests): what a machine without nvcc builds;
#   default  the CUDA parts too when nvcc is found (GPU tests report "Skipped" without a GPU).
# The tests labelled `no_build` run no
# binary of the build (scripts on stand-ins or synthetic CSVs): the second configuration leaves them out,
# the first ran them. With ccache installed (install-deps.sh), the second build takes the host objects
# the two configurations share from the first's cache.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
for preset in cpu default; do
  echo "test.sh: configuration '$preset'"
  cmake --preset "$preset"
  cmake --build --preset "$preset"
  if [ "$preset" = cpu ]; then
    ctest --preset "$preset"
  else
    ctest --preset "$preset" --label-exclude no_build
  fi
done
