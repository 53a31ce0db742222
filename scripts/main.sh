#!/usr/bin/env bash
# README command (a): the main job. Installs dependencies, configures, builds, then runs
# `arlab numerics` (CPU) and plots it. Outputs land in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default --target arlab
mkdir -p out
build/harness/arlab numerics --out out/numerics.csv
py=$(scripts/find-python.sh)
"$py" plots/plot_numerics.py --csv out/numerics.csv --out out/numerics
echo "main: wrote out/numerics.csv, out/numerics.png, out/numerics.pdf"
