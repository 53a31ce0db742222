#!/bin/sh
# ctest driver of the failure paths (issue 11): `arlab run --inject-fault` on the emulated node and,
# when MPIEXEC is given, under `mpirun -np 2` with both processes on one GPU and, on a host with two
# GPUs, one process per GPU. Each run must exit
# non-zero with the message of its fault, and end promptly: a hang, or a failure path that waits
# for the GPU or for the other process, shows as a run longer than LIMIT_S (the device waits
# time out after 500 ms here; the 2 processes start in a few seconds). Where no GPU is visible it
# exits 77 (ctest: skipped).
# Usage: fault_paths_test.sh ARLAB [MPIEXEC]
set -u
ARLAB=$1
MPIEXEC=${2:-}
LIMIT_S=20
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "SKIP: no GPU visible (nvidia-smi -L lists none); the failure-path test needs one"
  exit 77
fi
export CUDA_VISIBLE_DEVICES=0
status=0

# expect NAME PATTERN COMMAND...: the command fails within LIMIT_S with PATTERN in its output.
expect() {
  name=$1
  pattern=$2
  shift 2
  start=$(date +%s.%N)
  out=$("$@" 2>&1)
  rc=$?
  elapsed=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  echo "$out"
  echo "== $name: exit $rc after $elapsed s"
  if [ $rc -eq 0 ]; then echo "FAIL: $name: exit 0, expected a failure"; status=1; fi
  echo "$out" | grep -qE "$pattern" || { echo "FAIL: $name: no line matching /$pattern/"; status=1; }
  awk -v e="$elapsed" -v l="$LIMIT_S" 'BEGIN { exit !(e < l) }' ||
    { echo "FAIL: $name: took $elapsed s (limit $LIMIT_S s)"; status=1; }
}

RUN="run -n 2 -t 128 --hidden 4096 --timeout-ms 500 --warmup-ms 1 -i 3"
# Mid-batch: the fault starts with rank 1's 40th call, inside a warm-up or timed batch queued
# behind the host hold (the correctness check is call 0; batches hold 16 calls).
MID="run -n 2 -t 128 --hidden 4096 --timeout-ms 500 --warmup-ms 1 -i 64 --graph-calls 0"
for algo in oneshot twoshot; do
  expect "emulated $algo mid-batch skip-kernel-rank=1@call=40" "did not run its part of the call" \
    "$ARLAB" $MID --algo "$algo" --inject-fault skip-kernel-rank=1@call=40
  expect "emulated $algo mid-batch cuda-error-rank=1@call=40" "rank 1: injected CUDA error" \
    "$ARLAB" $MID --algo "$algo" --inject-fault cuda-error-rank=1@call=40
done
for algo in oneshot twoshot; do
  expect "emulated $algo skip-kernel-rank=1" "did not run its part of the call.*re-initialized" \
    "$ARLAB" $RUN --algo "$algo" --inject-fault skip-kernel-rank=1
  expect "emulated $algo cuda-error-rank=1" "rank 1: injected CUDA error" \
    "$ARLAB" $RUN --algo "$algo" --inject-fault cuda-error-rank=1
done

if [ -n "$MPIEXEC" ]; then
  # shellcheck source=tests/twoshot/mpi_flags.sh
  . "$(dirname "$0")/mpi_flags.sh"
  # Both processes on GPU 0 (mpi-shared-gpu), and, when this host has two GPUs, one process per GPU
  # (the real node: peer memory over NVLink or PCIe).
  gpus="0"
  [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')" -ge 2 ] && gpus="0 0,1"
  for visible in $gpus; do
    export CUDA_VISIBLE_DEVICES=$visible
    for algo in oneshot twoshot; do
      expect "mpirun GPUs $visible $algo skip-kernel-rank=1" \
        "error on MPI rank [01] of 2: .*under MPI a fault ends the job" \
        "$MPIEXEC" -np 2 $MPI_EXTRA "$ARLAB" $RUN --algo "$algo" --inject-fault skip-kernel-rank=1
      expect "mpirun GPUs $visible $algo cuda-error-rank=1" "error on MPI rank 1 of 2: rank 1: injected CUDA error" \
        "$MPIEXEC" -np 2 $MPI_EXTRA "$ARLAB" $RUN --algo "$algo" --inject-fault cuda-error-rank=1
      expect "mpirun GPUs $visible $algo mid-batch skip-kernel-rank=1@call=40" \
        "error on MPI rank [01] of 2: .*under MPI a fault ends the job" \
        "$MPIEXEC" -np 2 $MPI_EXTRA "$ARLAB" $MID --algo "$algo" --inject-fault skip-kernel-rank=1@call=40
      expect "mpirun GPUs $visible $algo mid-batch cuda-error-rank=1@call=40" \
        "error on MPI rank 1 of 2: rank 1: injected CUDA error" \
        "$MPIEXEC" -np 2 $MPI_EXTRA "$ARLAB" $MID --algo "$algo" --inject-fault cuda-error-rank=1@call=40
    done
  done
fi
exit $status
