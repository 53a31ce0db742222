#!/bin/sh
# One-shot vs two-shot on the emulated node (issue 5 performance report): bf16 ar_res_rms, trtllm
# configuration, tokens {128, 512, 2048} x H {4096, 8192} x N (default 2 4 8), every run checked
# (docs/operation.md gate) and timed (docs/measurement.md), one CSV row per run.
# Usage: scripts/twoshot_sweep.sh ARLAB OUT_CSV [N ...]
set -eu
ARLAB=$1
CSV=$2
shift 2
RANKS=${*:-2 4 8}
for n in $RANKS; do
  for h in 4096 8192; do
    for t in 128 512 2048; do
      for algo in oneshot twoshot; do
        "$ARLAB" run -n "$n" --hidden "$h" -t "$t" --algo "$algo" --policy trtllm \
          --graph-calls 32 --graph-reps 5 --csv "$CSV" --experiment twoshot_crossover | grep -E "SUMMARY|FAIL|error"
      done
    done
  done
done
