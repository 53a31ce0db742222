#!/usr/bin/env bash
# scripts/phase_probe.sh OUTDIR PROBLEMS_FILE ARLAB [ARLAB_DEFAULT]
#
# Where a fused call's time goes, phase by phase, on a GPU machine: ARLAB must be a
# phase_stamps probe build (cmake -DARLAB_KERNEL_PROBE=phase_stamps [-DARLAB_KERNEL_DTYPES=bf16_pairwise];
# kernels/phase_stamps.cuh). Each line of PROBLEMS_FILE is the argument list of one `arlab run` (blank
# lines and # comments skipped), run as one process bounded by 120 s; its rows go to OUTDIR/phase.csv
# (experiment `phase_probe`) and its output, with the kernels' ARLAB_PHASE lines, to
# OUTDIR/logs/LINE.log. With ARLAB_DEFAULT (a default build of the same tree) the list then runs again
# with it: OUTDIR/default.csv (experiment `phase_default`), OUTDIR/default_logs/LINE.log, the probe's own
# cost (`scripts/phase_table.py OUTDIR ARLAB_CPU --hooks-cost OUTDIR/default.csv`). `scripts/phase_table.py
# OUTDIR ARLAB_CPU` sets the measured phases beside the model's terms. The lists: scripts/probes/phase_twoshot.txt,
# phase_oneshot.txt (sessions 56 and 57).
set -uo pipefail
# shellcheck source=scripts/problem_lines.sh
. "$(dirname "$0")/problem_lines.sh"
if [ $# -ne 3 ] && [ $# -ne 4 ]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
out=$1 problems=$2 bin=$3 default_bin=${4:-}
[ -x "$bin" ] || { echo "phase_probe: $bin is not an executable" >&2; exit 2; }
[ -r "$problems" ] || { echo "phase_probe: cannot read $problems" >&2; exit 2; }
version=$("$bin" --version 2>&1 | head -1)
case "$version" in
  *probe-*phase_stamps*) ;;
  *) echo "phase_probe: $bin is not a phase_stamps probe build ($version)" >&2; exit 2 ;;
esac
if [ -n "$default_bin" ]; then
  [ -x "$default_bin" ] || { echo "phase_probe: $default_bin is not an executable" >&2; exit 2; }
  case "$("$default_bin" --version 2>&1 | head -1)" in
    *probe-*) echo "phase_probe: $default_bin is a probe build; ARLAB_DEFAULT must be a default build" >&2; exit 2 ;;
  esac
fi
if [ -e "$out/phase.csv" ] || [ -e "$out/logs" ] || [ -e "$out/default.csv" ]; then
  echo "phase_probe: $out already holds a run (phase.csv, logs/ or default.csv); name a new OUTDIR" >&2; exit 2
fi
echo "phase_probe: $version"
export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-32}
failed=0
# run_list BIN EXPERIMENT CSV LOGDIR WHAT: each line of the list as one `BIN run` process, its rows into CSV, its
# output into LOGDIR/LINE.log; a failing line counted in `failed`; `lines` set to the count.
run_list() {
  local bin=$1 experiment=$2 csv=$3 logs=$4 what=$5 line
  lines=0
  mkdir -p "$logs"
  while IFS= read -r line; do
    lines=$((lines + 1))
    # shellcheck disable=SC2086  # the line is an argument list
    if ! timeout 120 "$bin" run --experiment "$experiment" --csv "$csv" $line > "$logs/$lines.log" 2>&1; then
      echo "phase_probe: $what, line $lines failed: $line (log: $logs/$lines.log)" >&2
      failed=$((failed + 1))
    fi
  done < <(problem_lines "$problems")
}
run_list "$bin" phase_probe "$out/phase.csv" "$out/logs" "probe build"
echo "phase_probe: $lines line(s), $failed failed; rows in $out/phase.csv, phases in $out/logs/"
if [ -n "$default_bin" ]; then
  echo "phase_probe: the same list with $("$default_bin" --version 2>&1 | head -1)"
  run_list "$default_bin" phase_default "$out/default.csv" "$out/default_logs" "default build"
  echo "phase_probe: rows of the default build in $out/default.csv"
fi
[ "$failed" -eq 0 ]
