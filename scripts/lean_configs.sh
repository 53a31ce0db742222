#!/usr/bin/env bash
# The lean kernel's configuration sweep (issue 13): for each TP2 problem of the speedup goal (bf16
# ar_res_rms, H x tokens), one interleaved group in one process: the reference kernel at trtllm, the
# lean kernel at trtllm, and the lean kernel at every explicit configuration listed for that problem
# in CONFIG_CSV (rows with policy "explicit"; by default the committed sweep
# data/h200/exp/lean_configs_emulated.csv, so a re-run measures the same configurations). Every run is
# checked by the gate and timed (docs/measurement.md); one CSV row per configuration.
# Usage: scripts/lean_configs.sh ARLAB OUT_CSV [CONFIG_CSV] [EXTRA arlab run options...]
# Each group's full output goes to OUT_CSV.hH.tT.log; the script stops at the first failing group.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/lean_configs.sh ARLAB OUT_CSV [CONFIG_CSV] [EXTRA arlab run options...]" >&2
  exit 2
fi
ARLAB=$1
CSV=$2
CONFIGS=${3:-data/h200/exp/lean_configs_emulated.csv}
[ -x "$ARLAB" ] || { echo "lean_configs.sh: $ARLAB is not an executable arlab binary" >&2; exit 2; }
[ $# -ge 3 ] && shift 3 || shift $#
[ -r "$CONFIGS" ] || { echo "lean_configs.sh: cannot read $CONFIGS" >&2; exit 2; }
# hidden tokens tpb/cluster/grid/vpt, one line per explicit configuration (columns found by name).
list=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $col["policy"] == "explicit" { print $col["hidden"], $col["tokens"], $col["tpb"] "/" $col["cluster"] "/" $col["grid"] "/" $col["vecs_per_thread"] }' "$CONFIGS")
[ -n "$list" ] || { echo "lean_configs.sh: no explicit configurations in $CONFIGS" >&2; exit 2; }
for problem in $(echo "$list" | awk '{ print $1 "x" $2 }' | sort -u -t x -k1,1n -k2,2n); do
  h=${problem%x*}
  t=${problem#*x}
  cfgs=$(echo "$list" | awk -v h="$h" -v t="$t" '$1 == h && $2 == t { printf " --config %s", $3 }')
  # shellcheck disable=SC2086
  "$ARLAB" run -n 2 --hidden "$h" -t "$t" --policy trtllm/reference,trtllm/lean --kernel lean $cfgs \
    --csv "$CSV" --experiment lean-configs "$@" > "$CSV.h$h.t$t.log" 2>&1 || { tail -5 "$CSV.h$h.t$t.log"; exit 1; }
  grep -E "SUMMARY|FAIL" "$CSV.h$h.t$t.log" || true
done
