#!/usr/bin/env bash
# Benchmarks of the CPU model (not tests; they report numbers):
#   1. `arlab predict`: the model policy's search over the full candidate space of one problem
#      (printed by predict as "searched N legal candidates ... in X ms"), for a few problems;
#   2. `arlab validate` on 100,000 model-generated rows (written first by `arlab synthetic`).
# Usage: scripts/bench_model.sh [path/to/arlab] (default: build/cli/arlab)
set -euo pipefail
ARLAB=${1:-build/cli/arlab}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "== predict: model search over the full candidate space"
for args in "-t 128 --hidden 8192 -n 2" "-t 128 --hidden 4096 -n 2" "-t 4096 --hidden 8192 -n 8" \
            "-t 4096 --hidden 16384 -n 2 -d fp32" "-t 1000 --hidden 7168 -n 4 --emulated"; do
  start=$(date +%s%N)
  line=$("$ARLAB" predict $args --no-terms | grep "model: searched")
  end=$(date +%s%N)
  echo "  predict $args:$line; whole command $(( (end - start) / 1000000 )) ms"
done

echo "== validate: 100,000 rows"
"$ARLAB" synthetic --rows 100000 --noise 0.05 --seed 3 --out "$TMP/synthetic.csv" | tail -1
start=$(date +%s%N)
"$ARLAB" validate "$TMP/synthetic.csv" --out "$TMP/validation.csv" | grep -E "rows|time:"
end=$(date +%s%N)
echo "  validate whole command (read + predict + stats + write): $(( (end - start) / 1000000 )) ms"
