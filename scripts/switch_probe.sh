#!/usr/bin/env bash
# scripts/switch_probe.sh OUTDIR PROBLEMS_FILE NAME=ARLAB [NAME=ARLAB ...]
#
# The reference kernel of several arlab builds beside the library's own kernel, on a GPU machine
# (emulated node): for each line of PROBLEMS_FILE (the arguments of one `arlab run`; blank lines and #
# comments skipped), one process of each build in the order given, then one more of the FIRST build,
# each measuring the reference at trtllm's configuration and FlashInfer at the same one in one group
# (`--policy trtllm,flashinfer/flashinfer --kernel reference --max-time 0.4`), so that library /
# reference is an in-process figure and the first build (the one without switches, NAME v0 by
# convention) bounds the process-to-process noise. Rows go to OUTDIR/probe.csv with experiment
# `switch_NAME` (git_sha names each build: a probe build carries "+probe-SWITCH"), each run's output
# to OUTDIR/logs/. Every run is bounded by 80 s. `scripts/peer_probe_table.py OUTDIR/probe.csv
# PROBLEMS --label switch_v0=... --label switch_NAME=...` prints the table (docs/kernels.md, "The
# faithful reference"). The probe list of the kept differences: scripts/probes/faithful_switches.txt.
set -uo pipefail
# shellcheck source=scripts/problem_lines.sh
. "$(dirname "$0")/problem_lines.sh"
if [ $# -lt 3 ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
out=$1 problems=$2; shift 2
names=() bins=()
for arg in "$@"; do
  name=${arg%%=*} bin=${arg#*=}
  if [ "$name" = "$arg" ] || [ -z "$name" ] || [ -z "$bin" ]; then
    echo "switch_probe: expected NAME=ARLAB, got '$arg'" >&2; exit 2
  fi
  case "$name" in *[!a-z0-9_]*) echo "switch_probe: NAME '$name' may hold only a-z, 0-9 and _" >&2; exit 2 ;; esac
  [ -x "$bin" ] || { echo "switch_probe: $bin is not an executable" >&2; exit 2; }
  names+=("$name"); bins+=("$bin")
done
[ -r "$problems" ] || { echo "switch_probe: cannot read $problems" >&2; exit 2; }
mkdir -p "$out/logs"
for k in "${!bins[@]}"; do echo "switch_probe: ${names[$k]} = $("${bins[$k]}" --version 2>&1 | head -1)"; done
export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-32}
order=("${!bins[@]}" 0)  # every build, then the first again
failed=0 i=0
while IFS= read -r line; do
  i=$((i + 1))
  pass=0
  for k in "${order[@]}"; do
    pass=$((pass + 1))
    # shellcheck disable=SC2086  # the line is an argument list
    if ! timeout 80 "${bins[$k]}" run --policy trtllm,flashinfer/flashinfer --kernel reference --max-time 0.4 \
         --experiment "switch_${names[$k]}" --csv "$out/probe.csv" $line > "$out/logs/$i-$pass-${names[$k]}.log" 2>&1; then
      echo "switch_probe: problem $i (${names[$k]}) failed: $line (log: $out/logs/$i-$pass-${names[$k]}.log)" >&2
      failed=$((failed + 1))
    fi
  done
done < <(problem_lines "$problems")
echo "switch_probe: $i problem(s) x ${#order[@]} process(es), $failed failed run(s); rows in $out/probe.csv"
[ "$failed" -eq 0 ]
