#!/usr/bin/env bash
# scripts/bench_pair.py on a synthetic microbench CSV: per point where both variants have a row of the metric, A, B
# and B - A, the range over the points; a point with one variant left out, rows of another bench or metric ignored;
# variants with no common point and a missing file refused (one line, non-zero exit, no traceback).
# Usage: bench_pair_test.sh SOURCE_DIR PYTHON
set -u
src=$1 py=$2
. "$(dirname "$0")/script_test_setup.sh"
{
  echo "git_sha,date_utc,gpu,topology,link,nranks,sm_per_rank,rank,bench,variant,sms,tpb,cluster,size,size_unit,metric,value,p10,p90,reps"
  echo "x,d,g,t,l,2,64,0,body_round,a_slowest,64,128,4,8192,hidden,ns_per_round,2000,1,1,20"
  echo "x,d,g,t,l,2,64,0,body_round,b_slowest,64,128,4,8192,hidden,ns_per_round,2750,1,1,20"
  echo "x,d,g,t,l,2,64,0,body_round,a_slowest,13,1024,1,8192,hidden,ns_per_round,2500,1,1,20"
  echo "x,d,g,t,l,2,64,0,body_round,b_slowest,13,1024,1,8192,hidden,ns_per_round,4300,1,1,20"
  echo "x,d,g,t,l,2,64,0,body_round,a_slowest,26,512,1,4096,hidden,ns_per_round,1800,1,1,20"
  echo "x,d,g,t,l,2,64,0,epilogue_round,b_slowest,26,512,1,4096,hidden,ns_per_round,9999,1,1,20"
  echo "x,d,g,t,l,2,64,0,body_round,b_slowest,64,128,4,8192,hidden,us_per_round,9999,1,1,20"
} > "$tmp/m.csv"
out=$("$py" "$src/scripts/bench_pair.py" "$tmp/m.csv" body_round a_slowest b_slowest 2>&1) || fail "exit $? ($out)"
echo "$out" | grep -qF "| 13 | 1024 | 1 | 8192 | 2500 | 4300 | +1800 |" || fail "the 1024-thread point ($out)"
echo "$out" | grep -qF "| 64 | 128 | 4 | 8192 | 2000 | 2750 | +750 |" || fail "the 128-thread point ($out)"
echo "$out" | grep -q "| 26 |" && fail "a point with one variant printed ($out)"
echo "$out" | grep -qF "B - A over 2 points: +750 to +1800 ns_per_round" || fail "the range ($out)"
out=$("$py" "$src/scripts/bench_pair.py" "$tmp/m.csv" body_round a_slowest c_slowest 2>&1) && fail "no common point accepted"
echo "$out" | grep -qF "bench_pair: no point of body_round has rows of both a_slowest and c_slowest (ns_per_round)" ||
  fail "no common point is not named ($out)"
cut -d, -f1-8,10- "$tmp/m.csv" > "$tmp/nobench.csv"
out=$("$py" "$src/scripts/bench_pair.py" "$tmp/nobench.csv" body_round a_slowest b_slowest 2>&1) && fail "a CSV without bench accepted"
echo "$out" | grep -qF "bench_pair: $tmp/nobench.csv is not a microbench CSV (common/microbench_schema.h): no column bench" ||
  fail "the missing column is not named ($out)"
out=$("$py" "$src/scripts/bench_pair.py" "$tmp/none.csv" body_round a_slowest b_slowest 2>&1) && fail "a missing file accepted"
echo "$out" | grep -qF "bench_pair: $tmp/none.csv" || fail "the missing file is not named ($out)"
echo "$out" | grep -q Traceback && fail "a traceback ($out)"
[ $status -eq 0 ] && echo "bench_pair: points of both variants, B - A, the range, refusals: ok"
exit $status
