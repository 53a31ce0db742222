# shellcheck shell=sh
# Sourced by the multi-process ctest drivers (mpi_gate_test.sh, mpi_exp_test.sh, fault_paths_test.sh)
# once MPIEXEC is set: MPI_EXTRA, the flags their `mpirun -np 2` needs. Open MPI refuses root unless
# told, and --oversubscribe lets 2 processes run on any core count.
MPI_EXTRA=""
if "$MPIEXEC" --version 2>&1 | grep -qiE "open mpi|openrte|open-mpi"; then  # mpiexec says "(OpenRTE)"
  MPI_EXTRA="--oversubscribe"
  if [ "$(id -u)" = 0 ]; then
    MPI_EXTRA="$MPI_EXTRA --allow-run-as-root"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
fi
