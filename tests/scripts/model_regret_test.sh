#!/usr/bin/env bash
# scripts/model_regret.py on a synthetic measurement CSV: the model's pick against the best measured row of
# its problem (rows that failed the gate left out, the headline column honoured), the summary line, and bad
# input refused (the usage, or a one-line error naming the file; non-zero exit, no traceback).
# Usage: model_regret_test.sh SOURCE_DIR PYTHON
set -u
src=$1 py=$2
. "$(dirname "$0")/script_test_setup.sh"
cols="check,policy,topology,nranks,dtype,pattern,tokens,hidden,tpb,cluster,grid,vecs_per_thread,algo,headline,skewfree_us_median,kernel_us_median"
{
  echo "$cols"
  # problem A (T 8, H 4096): model 11.0 against the best 10.0 -> 10.0 %; a faster row that failed the gate is
  # left out.
  echo "pass,model,emulated,2,bf16,ar_res_rms,8,4096,128,4,32,1,oneshot,skew_free,11.0,12.0"
  echo "pass,trtllm,emulated,2,bf16,ar_res_rms,8,4096,256,2,16,1,oneshot,skew_free,10.0,10.5"
  echo "fail,explicit,emulated,2,bf16,ar_res_rms,8,4096,512,1,8,1,oneshot,skew_free,5.0,5.5"
  # problem B (T 64, H 8192): the max-over-ranks headline; the model's pick is the best -> 0 %.
  echo "pass,model,emulated,2,bf16,ar_res_rms,64,8192,1024,1,64,1,oneshot,max_over_ranks,1.0,20.0"
  echo "pass,trtllm,emulated,2,bf16,ar_res_rms,64,8192,512,2,64,1,oneshot,max_over_ranks,30.0,22.0"
  # problem C: no model row, not reported.
  echo "pass,trtllm,emulated,2,bf16,ar_res_rms,1,2048,128,2,2,1,oneshot,skew_free,4.0,4.2"
} > "$tmp/m.csv"
out=$("$py" "$src/scripts/model_regret.py" "$tmp/m.csv" 2>&1) || fail "exit $? ($out)"
echo "$out" | grep -Eq 'T    8 H  4096: model 128/4/32/1 oneshot .* 11\.00 us  best 256/2/16/1 oneshot .* 10\.00 us  regret  10\.0 %$' ||
  fail "problem A: 10 % against the passing best ($out)"
echo "$out" | grep -Eq 'T   64 H  8192: model 1024/1/64/1 oneshot .* 20\.00 us  best 1024/1/64/1 oneshot .* 20\.00 us  regret   0\.0 %$' ||
  fail "problem B: the max-over-ranks headline ($out)"
echo "$out" | grep -q 'H  2048' && fail "problem C has no model row ($out)"
echo "$out" | grep -Eq '^problems 2: mean regret 5\.00 %, median 5\.00 %, max 10\.00 %$' || fail "summary ($out)"
# Bad input: no arguments or --help (the usage); a missing file, a file that is not a CSV, a CSV without the
# measurement columns, an unknown headline cell, no model rows: one line naming the problem.
printf 'name,value\nx,1\n' > "$tmp/cal.csv"
printf '\xd0\xd1\xff\n' > "$tmp/binary.csv"
sed 's/,skew_free,11\.0/,bogus,11.0/' "$tmp/m.csv" > "$tmp/badhead.csv"
grep -v ',model,' "$tmp/m.csv" > "$tmp/nomodel.csv"
for args in "" "--help" "$tmp/none.csv" "$tmp/binary.csv" "$tmp/cal.csv" "$tmp/badhead.csv" "$tmp/nomodel.csv"; do
  # shellcheck disable=SC2086
  out=$("$py" "$src/scripts/model_regret.py" $args 2>&1) && fail "'$args' accepted ($out)"
  echo "$out" | grep -q Traceback && fail "'$args': a traceback ($out)"
  [ -n "$args" ] && [ "$args" != --help ] && { [ "$(echo "$out" | wc -l)" -eq 1 ] || fail "'$args': not one line ($out)"; }
done
exit $status
