#!/bin/sh
# The seed case on a real node, one process per GPU (issue 5): 128 tokens, H 4096 and 8192, bf16
# ar_res_rms, legacy vs trtllm, one-shot and two-shot, under `mpirun -np N` (N GPUs of one host).
# Usage: scripts/mpi_seed.sh MPIRUN ARLAB OUT_CSV [N]   (extra mpirun flags in $MPIRUN_FLAGS)
set -eu
MPIRUN=$1
ARLAB=$2
CSV=$3
N=${4:-2}
for h in 4096 8192; do
  for policy in legacy trtllm; do
    for algo in oneshot twoshot; do
      # shellcheck disable=SC2086
      "$MPIRUN" -np "$N" ${MPIRUN_FLAGS:-} "$ARLAB" run -n "$N" --hidden "$h" -t 128 --algo "$algo" \
        --policy "$policy" --graph-calls 32 --graph-reps 5 --csv "$CSV" --experiment seed_mpi |
        grep -E "node:|SUMMARY|FAIL|error"
    done
  done
done
