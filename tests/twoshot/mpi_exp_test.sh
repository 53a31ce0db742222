#!/bin/sh
# ctest driver of `arlab exp` on the multi-process node (issue 26): `mpirun -np 2 arlab exp tokens
# --quick` with both processes on one GPU (CUDA IPC on one device, timings not meaningful) must
#  1. exit 0 and end with the experiment's "case(s) run" line, printed once (process 0 alone prints);
#  2. write OUT/tokens/tokens.csv once per case, not once per process: every row with topology
#     mpi-shared-gpu and nranks 2, every row's check = pass, and no (experiment, policy, member) row twice;
#  3. resume: the same command again runs no case and leaves the CSV as it was.
# The path every real-node experiment takes (docs/nodes.md, "A real node, when one is lent"), so that a
# lent multi-GPU machine's time goes to measuring, not to finding that this path fails. Where no GPU is
# visible it exits 77 (ctest: skipped).
# Usage: mpi_exp_test.sh MPIEXEC ARLAB
set -u
MPIEXEC=$1
ARLAB=$2
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "SKIP: no GPU visible (nvidia-smi -L lists none); the multi-process test of arlab exp needs one"
  exit 77
fi
# shellcheck source=tests/twoshot/mpi_flags.sh
. "$(dirname "$0")/mpi_flags.sh"
export CUDA_VISIBLE_DEVICES=0  # both processes on GPU 0, whatever the machine has
out=$(mktemp -d "${TMPDIR:-/tmp}/arlab_mpi_exp.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT
csv=$out/tokens/tokens.csv
run_exp() {
  # shellcheck disable=SC2086  # MPI_EXTRA is a list of flags
  "$MPIEXEC" -np 2 $MPI_EXTRA "$ARLAB" exp tokens --quick --no-plots --out-dir "$out" -i 3 --graph-calls 0 \
    --warmup-ms 1 2>&1
}
status=0

first=$(run_exp); rc=$?
echo "$first"
if [ $rc -ne 0 ]; then echo "FAIL: mpirun arlab exp exited with $rc"; exit 1; fi
n_done=$(echo "$first" | grep -c "case(s) run")
[ "$n_done" -eq 1 ] || { echo "FAIL: expected one 'case(s) run' line (process 0 prints), got $n_done"; status=1; }
echo "$first" | grep -qE "arlab exp tokens: [1-9][0-9]* case\(s\) run, 0 skipped" ||
  { echo "FAIL: the first run did not run every case"; status=1; }
[ -s "$csv" ] || { echo "FAIL: no CSV at $csv"; exit 1; }

# Columns by name (common/measurement_schema.h): every row on the shared-GPU multi-process node, N = 2,
# passing the gate; no row written twice (both processes writing would double every member).
if ! python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad_topo = sum(r["topology"] != "mpi-shared-gpu" for r in rows)
bad_n = sum(r["nranks"] != "2" for r in rows)
bad_check = sum(r["check"] != "pass" for r in rows)
keys = [(r["experiment"], r["group_id"], r["policy"], r["algo"], r["tpb"], r["cluster"], r["grid"],
         r.get("kernel_variant", "")) for r in rows]
dup = len(keys) - len(set(keys))
print(f"CSV: {len(rows)} rows, {bad_topo} not mpi-shared-gpu, {bad_n} not N = 2, {bad_check} failing the gate, "
      f"{dup} written twice")
sys.exit(1 if not rows or bad_topo or bad_n or bad_check or dup else 0)
PY
then
  echo "FAIL: the CSV rows (above)"; status=1
fi

before=$(wc -l < "$csv")
second=$(run_exp); rc=$?
echo "$second" | tail -5
if [ $rc -ne 0 ]; then echo "FAIL: the resumed run exited with $rc"; status=1; fi
echo "$second" | grep -qE "arlab exp tokens: 0 case\(s\) run, [1-9][0-9]* skipped" ||
  { echo "FAIL: the resumed run ran cases again"; status=1; }
after=$(wc -l < "$csv")
[ "$before" -eq "$after" ] || { echo "FAIL: the resumed run changed the CSV ($before -> $after lines)"; status=1; }
[ $status -eq 0 ] && echo "PASS: arlab exp under mpirun -np 2 (one GPU): rows once per case, gate passed, resume"
exit $status
