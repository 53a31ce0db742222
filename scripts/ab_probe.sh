#!/usr/bin/env bash
# scripts/ab_probe.sh BEFORE_ARLAB AFTER_ARLAB PROBLEMS_FILE OUTDIR
#
# A/B probe of two arlab binaries on a GPU machine (emulated node): for each line of PROBLEMS_FILE
# (the arguments of one `arlab run`, e.g. `-n 2 --hidden 4096 -t 1 --policy explicit --tpb 512
# --cluster 1 --grid 1 --config 256/1/1`; blank lines and # comments skipped), one process of the
# BEFORE binary, then one of the AFTER binary, each measuring the reference and lean bodies
# interleaved in one group (`--kernel reference,lean --max-time 0.4 --experiment probe`), so that
# reference / lean is an in-process figure and the reference is the yardstick between the two
# processes. Rows go to OUTDIR/probe.csv (both binaries; `git_sha` tells them apart), each run's
# output to OUTDIR/logs/. Every run is bounded by 80 s. `scripts/ab_table.py OUTDIR/probe.csv`
# prints the comparison. The probe list of the lean poll change: scripts/probes/lean_poll.txt.
set -uo pipefail
# shellcheck source=scripts/problem_lines.sh
. "$(dirname "$0")/problem_lines.sh"
if [ $# -ne 4 ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
before=$1 after=$2 problems=$3 out=$4
for bin in "$before" "$after"; do
  [ -x "$bin" ] || { echo "ab_probe: $bin is not an executable" >&2; exit 2; }
done
[ -r "$problems" ] || { echo "ab_probe: cannot read $problems" >&2; exit 2; }
mkdir -p "$out/logs"
export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-32}
failed=0 i=0
while IFS= read -r line; do
  i=$((i + 1))
  for tag in before after; do
    bin=$before; [ $tag = after ] && bin=$after
    # shellcheck disable=SC2086  # the line is an argument list
    if ! timeout 80 "$bin" run --max-time 0.4 --kernel reference,lean --experiment probe --csv "$out/probe.csv" \
         $line > "$out/logs/$i-$tag.log" 2>&1; then
      echo "ab_probe: problem $i ($tag) failed: $line (log: $out/logs/$i-$tag.log)" >&2
      failed=$((failed + 1))
    fi
  done
done < <(problem_lines "$problems")
echo "ab_probe: $i problem(s), $failed failed run(s); rows in $out/probe.csv"
[ $failed -eq 0 ]
