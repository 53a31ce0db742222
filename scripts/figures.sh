#!/usr/bin/env bash
# Regenerates every figure from the committed CSVs (no GPU needed) into out/figures/ (PNG and PDF):
#   seed            the seed experiment: data/h200/seed.csv beside the model (plots/plot_seed.py)
#   model_accuracy  timing model v2 on the held-out model-validation grid of both nodes, with their
#                   measured calibrations (plots/plot_model_accuracy.py)
# and the figures of the `arlab exp NAME` experiments whose CSV exists (the others are skipped with a note):
#   tokens          plots/plot_tokens.py              time vs tokens per policy
#   fusion          plots/plot_fusion.py              fused kernel vs the unfused / NCCL baselines
#   crossover       plots/plot_crossover.py           one-shot vs two-shot vs baselines
#   config-space    plots/plot_config_space.py        measured / predicted time over the configurations
#   model-accuracy  plots/plot_model_accuracy_exp.py  predicted vs measured, regret of the model policy
# Each reads DATA_DIR/NAME/NAME.csv (what `arlab exp NAME` writes: figures go next to it, as
# DATA_DIR/NAME/NAME.png/.pdf) or else DATA_DIR/NAME.csv (a committed copy, e.g. data/h200/exp: figures go
# to out/figures/exp/NAME.png/.pdf); the printed summary tables go to the same prefix + .txt.
# Usage: scripts/figures.sh [--data-dir DIR] [--exp-only] [BUILD_DIR]
#   BUILD_DIR       build directory, relative to the repository root (default: build; builds the arlab target
#                   when missing)
#   --data-dir DIR  where the experiment CSVs are (default: results in the repository root)
#   --exp-only      only the experiment figures: no arlab binary needed, nothing is built
set -euo pipefail
build=build
data_dir=
exp_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --data-dir) [ $# -ge 2 ] || { echo "figures: --data-dir needs a directory" >&2; exit 2; }
                data_dir=$2; shift 2 ;;
    --data-dir=*) data_dir=${1#--data-dir=}; shift ;;
    --exp-only) exp_only=1; shift ;;
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
  "$py" plots/plot_seed.py --csv "$out/seed/validation.csv" --out "$out/seed"
  for node in nvlink emulated; do
    "$arlab" validate "data/h200/model_grid_$node.csv" --calibration "data/calibration/h200_$node.csv" \
      --out "$out/val_$node.csv" > "$out/val_$node.log"
  done
  "$py" plots/plot_model_accuracy.py --csv "$out/val_nvlink.csv" "real TP2 (2 x H200, NVLink)" \
    --csv "$out/val_emulated.csv" "emulated TP2 (64-SM partitions)" --out "$out/model_accuracy"
  written+=("$out/seed.png" "$out/model_accuracy.png")
fi

for name in tokens fusion crossover config-space model-accuracy; do
  case $name in
    model-accuracy) script=plots/plot_model_accuracy_exp.py ;;
    *) script=plots/plot_${name//-/_}.py ;;
  esac
  if [ -f "$data_dir/$name/$name.csv" ]; then
    csv=$data_dir/$name/$name.csv
    prefix=$data_dir/$name/$name
  elif [ -f "$data_dir/$name.csv" ]; then
    csv=$data_dir/$name.csv
    prefix=$out/exp/$name
  else
    echo "figures: $name: no $data_dir/$name/$name.csv or $data_dir/$name.csv (run \`arlab exp $name\`); skipped"
    continue
  fi
  mkdir -p "$(dirname "$prefix")"
  "$py" "$script" --csv "$csv" --out "$prefix" > "$prefix.txt"
  written+=("$prefix.png")
done
if [ ${#written[@]} -eq 0 ]; then
  echo "figures: no figures written"
else
  echo "figures: wrote ${written[*]} (+ .pdf)"
fi
