#!/usr/bin/env bash
# README command (b): installs dependencies, configures, builds and runs every test.
# CPU tests run everywhere; GPU tests run where a GPU is visible and are reported as skipped elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default
ctest --preset default
