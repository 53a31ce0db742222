#!/usr/bin/env bash
# scripts/repeatability.sh ARLAB OUT_CSV [--k K] [--mpi NGPUS] [--tokens "1 16 128 512"] [--hidden "4096 8192"]
#                         [--extra "ARGS"]
#
# The measurement issue's benchmark: K separate `arlab run` processes per point, TP2, bf16
# ar_res_rms one-shot, policies trtllm,legacy measured interleaved in each process (so every row
# pair also shows a configuration under two names where the two policies agree, e.g. 1 token),
# on the emulated node (one GPU) and, with --mpi N (N >= 2 GPUs of this host), on the real node
# under mpirun with one process per GPU. Every row goes to OUT_CSV (common/measurement_schema.h,
# experiment = repeatability, one process per row pair); plots/repeatability_table.py turns it
# into the spread table of docs/measurement.md. --extra passes further options to every `arlab run`
# (e.g. --no-host-hold, to reproduce the host-paced procedure). Exit status: non-zero when any
# run failed (gate failure, error), after running every point.
set -uo pipefail
arlab=${1:?usage: scripts/repeatability.sh ARLAB OUT_CSV [--k K] [--mpi NGPUS]}
csv=${2:?usage: scripts/repeatability.sh ARLAB OUT_CSV [--k K] [--mpi NGPUS]}
shift 2
k=5; mpi=0; tokens="1 16 128 512"; hidden="4096 8192"; extra=""
while [ $# -gt 0 ]; do
  case "$1" in
    --k) k=$2; shift 2 ;;
    --mpi) mpi=$2; shift 2 ;;
    --tokens) tokens=$2; shift 2 ;;
    --hidden) hidden=$2; shift 2 ;;
    --extra) extra=$2; shift 2 ;;
    *) echo "repeatability: unknown option $1" >&2; exit 2 ;;
  esac
done
for v in "$k" "$mpi"; do
  case "$v" in ''|*[!0-9]*) echo "repeatability: --k and --mpi take whole numbers (got '$v')" >&2; exit 2 ;; esac
done
[ "$k" -ge 1 ] || { echo "repeatability: --k $k must be >= 1" >&2; exit 2; }
[ -x "$arlab" ] || { echo "repeatability: $arlab is not an executable arlab binary" >&2; exit 2; }
status=0
common=(-n 2 -d bf16 --pattern ar_res_rms --policy trtllm,legacy --graph-calls 0 --csv "$csv"
        --ratios-csv "${csv%.csv}_ratios.csv"
        --experiment repeatability)
run_point() {  # $1: launcher prefix ("" or mpirun ...), rest: arlab run options
  local prefix=$1; shift
  local rc
  # shellcheck disable=SC2086
  $prefix "$arlab" run "${common[@]}" "$@" $extra 2>&1 | grep -E "SUMMARY|RATIO|WARNING|FAIL|error"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then echo "repeatability: exit $rc: $prefix arlab run $*"; status=1; fi
}
# One pass per node: the emulated node (no launcher), then the real node under mpirun.
nodes=("")
[ "$mpi" -ge 2 ] && nodes+=("mpirun -np 2 --allow-run-as-root --oversubscribe")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
for prefix in "${nodes[@]}"; do
  name="emulated TP2"; [ -n "$prefix" ] && name="real TP2 (mpirun -np 2)"
  for h in $hidden; do
    for t in $tokens; do
      for i in $(seq 1 "$k"); do
        echo "== $name H $h tokens $t process $i/$k"
        run_point "$prefix" -t "$t" --hidden "$h"
      done
    done
  done
done
exit $status
