#!/usr/bin/env bash
# The committed calibrations, derived on the CPU from the committed microbenchmark files
# (data/calibration/README.md): default.csv (the built-in priors), h200_nvlink.csv (the real TP2 node),
# h200_emulated.csv (the emulated node: its main run plus the rows of later runs, each file named
# below with the option that reads it) and h100_emulated.csv (the emulated node of an H100: one
# `arlab calibrate -n 2` run, with the rows of `-n 4` and `-n 8` runs that depend on N, and the benches
# later runs added: session 50's odd-tpb NVFP4 rounds, session 52's body_round _wide rows, session 55's body_round
# rows at 1, 2 and 4 blocks per SM).
#
#   scripts/derive_calibrations.sh ARLAB            rewrite the four files in data/calibration/
#   scripts/derive_calibrations.sh ARLAB --check    derive them into a temporary directory and compare:
#                                                   exit 1 naming each file that differs (a model or
#                                                   derivation change whose calibrations were not
#                                                   regenerated), 0 when all four are as committed
#   scripts/derive_calibrations.sh ARLAB --notes    derive them into a temporary directory and print the
#                                                   emulated node's derivation: every constant with the rows
#                                                   it came from, and the "record, ..." notes
#   scripts/derive_calibrations.sh ARLAB --notes-h100
#                                                   the same for the H100's emulated node
#   scripts/derive_calibrations.sh ARLAB --h200-twoshot-trial OUT
#                                                   a trial, not committed (session 51): the H200's emulated
#                                                   calibration with its two-shot body_round rows (reference2_*,
#                                                   lean2_*, from runs before the trim of a160fc2) replaced by
#                                                   those of session 50's run of today's kernels
#                                                   (h200_emulated_s50_twoshot_microbench.csv), written to OUT
#
# Run from anywhere; the input paths are given relative to the repository root, as the committed files'
# `source` column records them.
set -euo pipefail
usage() { echo "usage: $0 ARLAB [--check | --notes | --notes-h100 | --h200-twoshot-trial OUT]" >&2; exit 2; }
if [ $# -lt 1 ] || [ $# -gt 3 ]; then usage; fi
arlab=$1
check=0 notes=0 trial=
if [ $# -eq 2 ]; then
  case $2 in --check) check=1 ;; --notes) notes=1 ;; --notes-h100) notes=2 ;; *) usage ;; esac
fi
if [ $# -eq 3 ]; then
  [ "$2" = --h200-twoshot-trial ] || usage
  trial=$3
  case $trial in /*) ;; *) trial=$PWD/$trial ;; esac
fi
case $arlab in /*) ;; *) arlab=$PWD/$arlab ;; esac
[ -x "$arlab" ] || { echo "derive_calibrations: '$1' is not an executable arlab" >&2; exit 2; }
cd "$(dirname "$0")/.."
d=data/calibration
out=$d
if [ $check -eq 1 ] || [ $notes -ne 0 ] || [ -n "$trial" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi

# The H200's emulated calibration into $1, with any further save-calibration options after it.
h200_emulated() {
"$arlab" save-calibration "$1" --from-microbench $d/h200_emulated_microbench.csv \
  --exchange-microbench $d/h200_emulated_n8_exchange_microbench.csv \
                        $d/h200_emulated_exchange_grid_microbench.csv \
                        $d/h200_emulated_exchange_grid_microbench_rerun.csv \
  --pushed-microbench $d/h200_emulated_pushed_microbench.csv \
  --added-microbench $d/h200_emulated_drain_microbench.csv \
                     $d/h200_emulated_drain_microbench_rerun.csv \
                     $d/h200_emulated_vpt_microbench.csv \
                     $d/h200_emulated_vpt_microbench_rerun.csv \
                     $d/h200_emulated_ar_vpt_microbench.csv \
                     $d/h200_emulated_ar_vpt_microbench_rerun.csv \
                     $d/h200_emulated_fp4_vpt_microbench.csv \
                     $d/h200_emulated_fp4_vpt_microbench_rerun.csv \
                     $d/h200_emulated_body_round_microbench.csv \
                     $d/h200_emulated_body_round_microbench_rerun.csv \
                     $d/h200_emulated_body_round_vpt_microbench.csv \
                     $d/h200_emulated_body_round_vpt_microbench_rerun.csv \
                     $d/h200_emulated_body_round_cold_microbench.csv \
                     $d/h200_emulated_body_round_cold_microbench_rerun.csv \
                     $d/h200_emulated_body_round_fp8_microbench.csv \
                     $d/h200_emulated_body_round_fp8_microbench_rerun.csv \
                     $d/h200_emulated_body_round_v2_microbench.csv \
                     $d/h200_emulated_body_round_v2_microbench_rerun.csv \
                     $d/h200_emulated_body_round_v3_microbench.csv \
                     $d/h200_emulated_body_round_v3_microbench_rerun.csv \
                     $d/h200_emulated_s29_microbench.csv \
                     $d/h200_emulated_s29_microbench_rerun.csv \
                     $d/h200_emulated_n2_rows_microbench.csv \
                     $d/h200_emulated_n4_rows_microbench.csv \
                     $d/h200_emulated_n4_rows_microbench_rerun.csv \
                     $d/h200_emulated_n8_rows_microbench.csv \
                     $d/h200_emulated_n8_rows_microbench_rerun.csv \
                     $d/h200_emulated_s50_odd_microbench.csv \
  --skew-microbench $d/h200_emulated_n4_drain_microbench.csv \
                    $d/h200_emulated_n8_drain_microbench.csv \
                    $d/h200_emulated_n4_skew_microbench_rerun.csv \
                    $d/h200_emulated_n8_skew_microbench_rerun.csv "${@:2}"
}
if [ -n "$trial" ]; then
  h200_emulated "$trial" --replace-microbench $d/h200_emulated_s50_twoshot_microbench.csv
  exit 0
fi

"$arlab" save-calibration "$out/default.csv" > "$out/default.log"
"$arlab" save-calibration "$out/h200_nvlink.csv" --from-microbench $d/h200_nvlink_microbench.csv > "$out/h200_nvlink.log"
h200_emulated "$out/h200_emulated.csv" > "$out/h200_emulated.log"
"$arlab" save-calibration "$out/h100_emulated.csv" --gpu h100_sxm --from-microbench $d/h100_emulated_s48_n2_microbench.csv \
  --exchange-microbench $d/h100_emulated_s48_n8_microbench.csv \
  --skew-microbench $d/h100_emulated_s48_n4_microbench.csv $d/h100_emulated_s48_n8_microbench.csv \
  --rows-microbench $d/h100_emulated_s48_n4_microbench.csv $d/h100_emulated_s48_n8_microbench.csv \
  --added-microbench $d/h100_emulated_s48_n4_microbench.csv $d/h100_emulated_s48_n8_microbench.csv \
                     $d/h100_emulated_s50_odd_microbench.csv $d/h100_emulated_s52_n2_microbench.csv \
                     $d/h100_emulated_s55_bps_microbench.csv \
                     > "$out/h100_emulated.log"

if [ $notes -eq 1 ]; then
  cat "$out/h200_emulated.log"
  exit 0
fi
if [ $notes -eq 2 ]; then
  cat "$out/h100_emulated.log"
  exit 0
fi
if [ $check -eq 0 ]; then
  rm -f "$out"/default.log "$out"/h200_nvlink.log "$out"/h200_emulated.log "$out"/h100_emulated.log
  echo "derive_calibrations: wrote $d/default.csv, $d/h200_nvlink.csv, $d/h200_emulated.csv, $d/h100_emulated.csv"
  exit 0
fi
stale=0
for f in default h200_nvlink h200_emulated h100_emulated; do
  if ! cmp -s "$out/$f.csv" "$d/$f.csv"; then
    stale=1
    echo "derive_calibrations: $d/$f.csv is not what this arlab derives from the committed microbenchmarks;" \
         "the constants that differ (committed, then derived):" >&2
    diff <(cut -d, -f1,2 "$d/$f.csv") <(cut -d, -f1,2 "$out/$f.csv") | grep '^[<>]' | head -20 >&2 || true
    cmp -s <(cut -d, -f1,2 "$d/$f.csv") <(cut -d, -f1,2 "$out/$f.csv") &&
      echo "  (the values agree; a unit, source or meaning differs)" >&2
  fi
done
if [ $stale -eq 1 ]; then
  echo "derive_calibrations: regenerate them with $0 ARLAB and commit the result" >&2
  exit 1
fi
echo "derive_calibrations: default.csv, h200_nvlink.csv, h200_emulated.csv and h100_emulated.csv are as this arlab derives them"
