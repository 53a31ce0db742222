#!/usr/bin/env bash
# README command (a): the main job -- the seed experiment. Installs dependencies, configures and
# builds, then runs `arlab seed`: measured on the emulated node when a GPU is visible, otherwise the
# model's predictions beside the committed H200 measurements (data/h200/seed.csv); then plots it.
# Outputs: out/seed/validation.csv (+ measured.csv on a GPU), out/seed/seed.png and .pdf.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default --target arlab
build/cli/arlab seed --out-dir out/seed "$@"
py=$(scripts/find-python.sh)
"$py" plots/plot_seed.py --csv out/seed/validation.csv --out out/seed/seed
echo "main: wrote out/seed/validation.csv and out/seed/seed.png / .pdf"
