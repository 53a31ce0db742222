#!/usr/bin/env bash
# scripts/pattern_excess.py on synthetic measurement and validation CSVs: each pattern's time beyond the base
# pattern at the same body, configuration and tokens, measured (the headline rule: the skew-free median where
# the row has one) and predicted, the cost per further token round, failing rows left out, a file without a
# needed column and a base pattern the file lacks refused (one line, non-zero exit, no traceback).
# Usage: pattern_excess_test.sh SOURCE_DIR PYTHON
set -u
src=$1 py=$2
. "$(dirname "$0")/script_test_setup.sh"
header="check,kernel_variant,pattern,sf_layout,algo,tokens,tpb,cluster,grid,vecs_per_thread,headline,skewfree_us_median,kernel_us_median"
# 64 clusters: 64 tokens one round, 256 tokens four. ar_res_rms 5 / 17 us, NVFP4 6.5 / 21.5 us (the kernel
# median, 99, is not the headline), and a failing NVFP4 row that would move it if it were read.
{
  echo "$header"
  echo "pass,lean,ar_res_rms,,oneshot,64,762,1,64,1,skew_free,5.0,9.0"
  echo "pass,lean,ar_res_rms,,oneshot,256,762,1,64,1,skew_free,17.0,20.0"
  echo "pass,lean,ar_res_rms_fp4,linear,oneshot,64,762,1,64,1,skew_free,6.5,99"
  echo "pass,lean,ar_res_rms_fp4,linear,oneshot,256,762,1,64,1,skew_free,21.5,99"
  echo "fail,lean,ar_res_rms_fp4,linear,oneshot,256,762,1,64,1,skew_free,500,500"
} > "$tmp/m.csv"
{
  echo "line,predicted_us"
  echo "2,5.5"
  echo "3,18.0"
  echo "4,6.0"
  echo "5,20.0"
  echo "6,1.0"
} > "$tmp/v.csv"
out=$("$py" "$src/scripts/pattern_excess.py" "$tmp/m.csv" "$tmp/v.csv" 2>&1) || fail "exit $? ($out)"
# measured +1.5 / +4.5 us, predicted +0.5 / +2.0 us; 3 further rounds: +1000 and +500 ns each
echo "$out" | grep -q "ar_res_rms_fp4 (linear)  *64: meas +1.50 pred +0.50; 256: meas +4.50 pred +2.00; per further round meas +1000 ns, pred +500 ns" ||
  fail "the NVFP4 excess ($out)"
[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "one line expected ($out)"
# A base pattern the file lacks; a measurement file without a needed column; a missing file.
out=$("$py" "$src/scripts/pattern_excess.py" "$tmp/m.csv" "$tmp/v.csv" --base ar 2>&1) && fail "an absent base accepted"
echo "$out" | grep -q "pattern_excess: no rows in ar and another pattern" || fail "the absent base is not named ($out)"
cut -d, -f2- "$tmp/m.csv" > "$tmp/nocheck.csv"
out=$("$py" "$src/scripts/pattern_excess.py" "$tmp/nocheck.csv" "$tmp/v.csv" 2>&1) && fail "no check column accepted"
echo "$out" | grep -q "pattern_excess: $tmp/nocheck.csv is not a measurement CSV (common/measurement_schema.h) (no column check)" || fail "the missing column is not named ($out)"
out=$("$py" "$src/scripts/pattern_excess.py" "$tmp/none.csv" "$tmp/v.csv" 2>&1) && fail "a missing file accepted"
echo "$out" | grep -q "pattern_excess: cannot read $tmp/none.csv" || fail "the missing file is not named ($out)"
echo "$out" | grep -q Traceback && fail "a traceback ($out)"
[ $status -eq 0 ] && echo "pattern_excess: excess per pattern, headline rule, failing rows out, refusals: ok"
exit $status
