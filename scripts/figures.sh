#!/usr/bin/env bash
# Regenerates every figure from the committed CSVs (no GPU needed) into out/figures/ (PNG and PDF):
#   seed            the seed experiment: data/h200/seed.csv beside the model (plots/plot_seed.py)
#   model_accuracy  timing model v2 on the held-out model-validation grid of both nodes, with their
#                   measured calibrations (plots/plot_model_accuracy.py)
# Usage: scripts/figures.sh [BUILD_DIR]   (default: build; builds the arlab target when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
if [ ! -x "$build/cli/arlab" ]; then
  cmake --preset default
  cmake --build --preset default --target arlab
fi
arlab=$build/cli/arlab
py=$(scripts/find-python.sh)
out=out/figures
mkdir -p "$out"
"$arlab" seed --mode predict --out-dir "$out/seed" > "$out/seed.log"
"$py" plots/plot_seed.py --csv "$out/seed/validation.csv" --out "$out/seed"
for node in nvlink emulated; do
  "$arlab" validate "data/h200/model_grid_$node.csv" --calibration "data/calibration/h200_$node.csv" \
    --out "$out/val_$node.csv" > "$out/val_$node.log"
done
"$py" plots/plot_model_accuracy.py --csv "$out/val_nvlink.csv" "real TP2 (2 x H200, NVLink)" \
  --csv "$out/val_emulated.csv" "emulated TP2 (64-SM partitions)" --out "$out/model_accuracy"
echo "figures: wrote $out/seed.png, $out/model_accuracy.png (+ .pdf)"
