# shellcheck shell=sh
# Sourced by the multi-process ctest drivers (mpi_gate_test.sh, mpi_exp_test.sh) after MPIEXEC is set:
# skips (exit 77: ctest "Skipped") where no GPU is visible, and sets MPI_EXTRA to the flags their
# `mpirun -np 2` needs: Open MPI refuses root unless told, and --oversubscribe lets 2 processes run on
# any core count. Both processes are put on GPU 0, whatever the machine has. MPI_TEST_WHAT: what the
# test is, for the skip message.
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "SKIP: no GPU visible (nvidia-smi -L lists none); ${MPI_TEST_WHAT:-the test} needs one"
  exit 77
fi
MPI_EXTRA=""
if "$MPIEXEC" --version 2>&1 | grep -qiE "open mpi|openrte|open-mpi"; then  # mpiexec says "(OpenRTE)"
  MPI_EXTRA="--oversubscribe"
  if [ "$(id -u)" = 0 ]; then
    MPI_EXTRA="$MPI_EXTRA --allow-run-as-root"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
fi
export CUDA_VISIBLE_DEVICES=0
