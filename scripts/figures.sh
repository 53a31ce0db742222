#!/usr/bin/env bash
# Regenerates every figure from the committed CSVs (no GPU needed) into out/figures/ (PNG and PDF):
#   seed            the seed experiment: data/h200/seed.csv beside the model (plots/plot_seed.py; its CIs and
#                   commit from data/h200/seed.csv, its calibration as `arlab seed` printed it)
#   model_accuracy  timing model v2 on the held-out model-validation grid of both nodes, with their
#                   measured calibrations (plots/plot_model_accuracy.py)
# and the figures of the `arlab exp NAME` experiments whose CSV exists (the others are skipped with a note):
#   seed            plots/plot_tokens.py --experiment seed  time vs tokens per policy, the seed problems
#   tokens          plots/plot_tokens.py              time vs tokens per policy
#   fusion          plots/plot_fusion.py              fused kernel vs the unfused / NCCL baselines
#   crossover       plots/plot_crossover.py           one-shot vs two-shot vs baselines
#   config-space    plots/plot_config_space.py        measured / predicted time over the configurations
#   model-accuracy  plots/plot_model_accuracy_exp.py  predicted vs measured, regret of the model policy
#   speedup         plots/plot_speedup.py             kernel variants vs the reference kernel (reads X_summary.csv)
#   peers           plots/plot_peers.py               arlab vs FlashInfer, vLLM, NCCL (reads X_summary.csv)
# Each reads DATA_DIR/NAME/NAME.csv (what `arlab exp NAME` writes: figures go next to it, as
# DATA_DIR/NAME/NAME.png/.pdf) and the committed copies DATA_DIR/NAME.csv and DATA_DIR/NAME_<node>.csv
# (e.g. data/h200/exp/fusion_emulated.csv, fusion_nvlink.csv: figures go to
# out/figures/exp/NAME[_<node>].png/.pdf); the printed summary tables go to the same prefix + .txt. Summary
# and ratio CSVs (X_summary.csv, X_ratios.csv) are read through their measurement CSV, not drawn alone.
# Usage: scripts/figures.sh [--data-dir DIR] [--exp-only] [--calibration-label TEXT] [BUILD_DIR]
#   BUILD_DIR       build directory, relative to the repository root (default: build; builds the arlab target
#                   when missing)
#   --data-dir DIR  where the experiment CSVs are (default: results in the repository root)
#   --exp-only      only the experiment figures: no arlab binary needed, nothing is built
#   --calibration-label TEXT
#                   which calibration produced the experiment CSVs' predicted_us, for the captions of the
#                   figures that show predictions (config-space, model-accuracy); default: the scripts' own,
#                   "predicted_us as stored in the CSV" (the rows do not record it)
set -euo pipefail
build=build
data_dir=
exp_only=0
calibration_label=()
while [ $# -gt 0 ]; do
  case $1 in
    --data-dir) [ $# -ge 2 ] || { echo "figures: --data-dir needs a directory" >&2; exit 2; }
                data_dir=$2; shift 2 ;;
    --data-dir=*) data_dir=${1#--data-dir=}; shift ;;
    --exp-only) exp_only=1; shift ;;
    --calibration-label) [ $# -ge 2 ] || { echo "figures: --calibration-label needs a text" >&2; exit 2; }
                         calibration_label=(--calibration-label "$2"); shift 2 ;;
    --calibration-label=*) calibration_label=(--calibration-label "${1#--calibration-label=}"); shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "figures: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
if [ -n "$data_dir" ]; then  # relative to where the script was called from
  [ -d "$data_dir" ] || { echo "figures: --data-dir $data_dir: no such directory" >&2; exit 2; }
  data_dir=$(cd "$data_dir" && pwd)
fi
cd "$(dirname "$0")/.."
data_dir=${data_dir:-$PWD/results}
py=$(scripts/find-python.sh)
out=out/figures
mkdir -p "$out"
written=()

if [ "$exp_only" -eq 0 ]; then
  if [ ! -x "$build/cli/arlab" ]; then
    cmake --preset default
    cmake --build --preset default --target arlab
  fi
  arlab=$build/cli/arlab
  "$arlab" seed --mode predict --out-dir "$out/seed" > "$out/seed.log"
  # its measurements (the default --data) for the CIs and the commit; its calibration as it printed it
  seed_calibration=$(sed -n 's/^  calibration: \(.*\); out: .*/\1/p' "$out/seed.log")
  "$py" plots/plot_seed.py --csv "$out/seed/validation.csv" --out "$out/seed" --measured data/h200/seed.csv \
    --calibration-label "${seed_calibration:-as arlab seed used it (not found in $out/seed.log)}"
  for node in nvlink emulated; do
    "$arlab" validate "data/h200/model_grid_$node.csv" --calibration "data/calibration/h200_$node.csv" \
      --out "$out/val_$node.csv" > "$out/val_$node.log"
  done
  "$py" plots/plot_model_accuracy.py --csv "$out/val_nvlink.csv" "real TP2 (2 x H200, NVLink)" \
    --csv "$out/val_emulated.csv" "emulated TP2 (64-SM partitions)" --out "$out/model_accuracy"
  written+=("$out/seed.png" "$out/model_accuracy.png")
fi

failed=()
# plot SCRIPT CSV PREFIX [ARGS...]: PREFIX.png/.pdf, the printed tables in PREFIX.txt
plot() {
  local script=$1 csv=$2 prefix=$3
  shift 3
  mkdir -p "$(dirname "$prefix")"
  if "$py" "$script" --csv "$csv" --out "$prefix" "$@" > "$prefix.txt"; then
    written+=("$prefix.png")
  else
    echo "figures: $script --csv $csv failed (see above)" >&2
    failed+=("$csv")
  fi
}

for name in seed tokens fusion crossover config-space model-accuracy speedup peers; do
  args=()
  case $name in
    seed) script=plots/plot_tokens.py; args=(--experiment seed) ;;
    model-accuracy) script=plots/plot_model_accuracy_exp.py; args=(${calibration_label[@]+"${calibration_label[@]}"}) ;;
    config-space) script=plots/plot_config_space.py; args=(${calibration_label[@]+"${calibration_label[@]}"}) ;;
    *) script=plots/plot_${name//-/_}.py ;;
  esac
  found=0
  if [ -f "$data_dir/$name/$name.csv" ]; then
    plot "$script" "$data_dir/$name/$name.csv" "$data_dir/$name/$name" ${args[@]+"${args[@]}"}
    found=1
  fi
  for csv in "$data_dir/$name.csv" "$data_dir/${name}"_*.csv; do  # committed copies, per node
    [ -f "$csv" ] || continue
    case $csv in *_summary.csv|*_ratios.csv) continue ;; esac  # read through their measurement CSV
    plot "$script" "$csv" "$out/exp/$(basename "$csv" .csv)" ${args[@]+"${args[@]}"}
    found=1
  done
  if [ "$found" -eq 0 ]; then
    echo "figures: $name: no $data_dir/$name/$name.csv, $data_dir/$name.csv or $data_dir/${name}_<node>.csv" \
      "(run \`arlab exp $name\`); skipped"
  fi
done
if [ ${#written[@]} -eq 0 ]; then
  echo "figures: no figures written"
else
  echo "figures: wrote ${written[*]} (+ .pdf)"
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "figures: failed: ${failed[*]}" >&2
  exit 1
fi
