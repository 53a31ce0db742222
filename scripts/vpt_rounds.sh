#!/usr/bin/env bash
# The one-shot bodies' token rounds by vectors per thread, on the emulated node: for each (N, H) one
# interleaved group of explicit configurations of 128 tokens that differ only in the grid (so in the
# rounds per cluster R = tokens / (grid / cluster)) at 1, 2 and 4 vectors per thread, both bodies
# (reference, lean), every row through the gate (docs/operation.md) and timed (docs/measurement.md).
# `scripts/model_bias.py OUT.csv V.csv --round-cost` (V.csv from `arlab validate OUT.csv --out V.csv`)
# then gives the measured and predicted cost of one more round per configuration, and `--by
# vecs_per_thread` the model's bias by vectors per thread (docs/model.md, "grid31, held out").
#   TP2, H 8192: tpb x cluster 1024 x 1, 512 x 2 (1 vector), 512 x 1, 256 x 2 (2), 256 x 1, 128 x 2 (4);
#                grids of 16, 32, 64 blocks (clusters of 1) and 32, 64, 128 (clusters of 2): R = 8, 4, 2
#   TP2, H 4096: 512, 256, 128 threads x 1 (1, 2, 4 vectors), grids of 16, 32, 64
#   TP8, H 8192: 1024, 512, 256 threads x 1 (1, 2, 4 vectors), grids of 4, 8, 16 (16 SMs per rank): R = 32, 16, 8
# and, with --few-blocks, how the cost of one more round at 1 and 4 vectors per thread depends on the blocks:
#   TP2, H 4096: 512 and 128 threads x 1 on grids of G = 2, 4, 8, 16, 64 blocks, tokens 2G, 4G, 8G (R = 2, 4, 8
#                at every G), one group per (G, tokens)
# Usage: scripts/vpt_rounds.sh ARLAB OUT_CSV [--few-blocks]
set -eu
if [ $# -lt 2 ] || [ $# -gt 3 ] || [ ! -x "$1" ] || { [ $# -eq 3 ] && [ "$3" != --few-blocks ]; }; then
  echo "usage: scripts/vpt_rounds.sh ARLAB OUT_CSV [--few-blocks] (ARLAB: an executable arlab built with CUDA)" >&2
  exit 2
fi
arlab=$1 csv=$2
group() {  # N H TOKENS EXPERIMENT CONFIG...
  local n=$1 h=$2 t=$3 experiment=$4
  shift 4
  local args=()
  for c in "$@"; do args+=(--config "$c"); done
  "$arlab" run -n "$n" --hidden "$h" -t "$t" --kernel reference,lean --policy trtllm "${args[@]}" --max-time 0.5 \
    --graph-calls 0 --csv "$csv" --experiment "$experiment"
}
if [ $# -eq 3 ]; then
  for g in 2 4 8 16 64; do
    for r in 2 4 8; do group 2 4096 $((g * r)) vpt_rounds_few_blocks "512/1/$g" "128/1/$g"; done
  done
  exit 0
fi
group 2 8192 128 vpt_rounds 1024/1/16 1024/1/32 1024/1/64 512/2/32 512/2/64 512/2/128 \
  512/1/16 512/1/32 512/1/64 256/2/32 256/2/64 256/2/128 \
  256/1/16 256/1/32 256/1/64 128/2/32 128/2/64 128/2/128
group 2 4096 128 vpt_rounds 512/1/16 512/1/32 512/1/64 256/1/16 256/1/32 256/1/64 128/1/16 128/1/32 128/1/64
group 8 8192 128 vpt_rounds 1024/1/4 1024/1/8 1024/1/16 512/1/4 512/1/8 512/1/16 256/1/4 256/1/8 256/1/16
