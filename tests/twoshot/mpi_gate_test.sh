#!/bin/sh
# ctest driver of the multi-process node (issue 5): `mpirun -np 2 arlab run` with both processes on
# one GPU (two processes, CUDA IPC handles on one device), for one-shot and two-shot, must pass the
# correctness gate and say that its timings are not meaningful (time-slicing without MPS). Where
# no GPU is visible it exits 77 (ctest: skipped).
# Usage: mpi_gate_test.sh MPIEXEC ARLAB
set -u
MPIEXEC=$1
ARLAB=$2
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "SKIP: no GPU visible (nvidia-smi -L lists none); the multi-process test needs one"
  exit 77
fi
# shellcheck source=tests/twoshot/mpi_flags.sh
. "$(dirname "$0")/mpi_flags.sh"
export CUDA_VISIBLE_DEVICES=0  # both processes on GPU 0, whatever the machine has
status=0
for algo in oneshot twoshot; do
  # shellcheck disable=SC2086  # MPI_EXTRA is a list of flags
  out=$("$MPIEXEC" -np 2 $MPI_EXTRA "$ARLAB" run -n 2 --algo "$algo" -t 128 --hidden 4096 \
        --pattern ar_res_rms_out_fp4 --warmup-ms 1 -i 3 --graph-calls 2 --graph-reps 1 2>&1)
  rc=$?
  echo "$out"
  if [ $rc -ne 0 ]; then echo "FAIL: $algo: mpirun exited with $rc"; status=1; continue; fi
  echo "$out" | grep -qE "check( [a-z]+)?: (PASS|pass)" || { echo "FAIL: $algo: no passing check line"; status=1; }
  echo "$out" | grep -q "mpi-shared-gpu" || { echo "FAIL: $algo: topology not reported as mpi-shared-gpu"; status=1; }
  echo "$out" | grep -q "NOT meaningful" ||
    { echo "FAIL: $algo: no warning that timings are not meaningful"; status=1; }
done
exit $status
