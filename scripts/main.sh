#!/usr/bin/env bash
# README command (a): the main job -- the seed experiment. Installs dependencies, configures and
# builds, then runs the seed experiment where the machine allows the most:
#   * two or more GPUs and mpirun: on the REAL node, one process per GPU (`arlab exp seed` under
#     `mpirun -np 2`, TP2 over the GPUs' link), then `arlab seed --mode predict --data` puts the
#     model (NVLink calibration) beside those measurements;
#   * one GPU: `arlab seed` measures on the emulated node (green-context partitions);
#   * no GPU: `arlab seed` puts the model's predictions beside the committed H200 measurements.
# Then plots it. Outputs in out/seed/: validation.csv (+ measured.csv on one GPU, seed.csv on a real
# node), seed.png and .pdf. Extra arguments go to `arlab seed` (one GPU / none) or `arlab exp` (real node).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset default
cmake --build --preset default --target arlab
gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true); fi
if [ "${gpus:-0}" -ge 2 ] && command -v mpirun >/dev/null 2>&1; then
  as_root=()
  if [ "$(id -u)" = 0 ]; then as_root=(--allow-run-as-root); fi
  echo "main: $gpus GPUs visible: the seed experiment on the real node, mpirun -np 2 (one process per GPU)"
  # A re-run resumes: cases already in out/seed/seed.csv are skipped (delete it to measure afresh).
  mpirun -np 2 "${as_root[@]}" --bind-to none build/cli/arlab exp seed --out-dir out --no-plots "$@"
  seed_log=$(build/cli/arlab seed --mode predict --data out/seed/seed.csv --ratios "" \
    --calibration data/calibration/h200_nvlink.csv --out-dir out/seed | tee >(cat >&2))
  measured=out/seed/seed.csv
else
  # tee into the inherited stderr (>(cat >&2)), not /dev/stderr: reopening that path truncates a log file that
  # stdout and stderr both go to (`scripts/main.sh > log 2>&1` lost the build's lines before the seed's).
  seed_log=$(build/cli/arlab seed --out-dir out/seed "$@" | tee >(cat >&2))
  # the rows `arlab seed` judged: what it measured, else the committed measurements it read
  measured=$(printf '%s\n' "$seed_log" | sed -n 's/^  measuring: .*/out\/seed\/measured.csv/p; s/^  measurements: \([^ ]*\) .*/\1/p')
fi
# The plot takes the rows' CIs and commit from the measurement CSV and names the calibration arlab printed.
calibration=$(printf '%s\n' "$seed_log" | sed -n 's/^  calibration: \(.*\); out: .*/\1/p')
py=$(scripts/find-python.sh)
"$py" plots/plot_seed.py --csv out/seed/validation.csv --out out/seed/seed ${measured:+--measured "$measured"} \
  --calibration-label "${calibration:-as arlab seed used it}"
echo "main: wrote out/seed/validation.csv and out/seed/seed.png / .pdf"
