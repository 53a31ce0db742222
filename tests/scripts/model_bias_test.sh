#!/usr/bin/env bash
# scripts/model_bias.py on synthetic measurement and validation CSVs: two file pairs are pooled into one
# table (rows of both files in one group), @own_rows tells two-shot configurations where every rank owns a
# token of every cluster from those where a rank only reads some cluster's tokens, failing rows are left
# out, and an odd number of files and a missing file are refused (a one-line error, no traceback).
# Usage: model_bias_test.sh SOURCE_DIR PYTHON
set -u
src=$1 py=$2
. "$(dirname "$0")/script_test_setup.sh"
header="nranks,dtype,pattern,algo,tokens,hidden,tpb,cluster,grid,vecs_per_thread,sm_per_rank,kernel_variant"
vheader="line,kernel_us_median,predicted_us,status"
# File A: N = 4, two-shot, 16 tokens on 2 clusters (ranges of 4 tokens: every rank owns a token of both
# clusters) predicted +10 %, and 6 tokens on 2 clusters (ranges of 2, the last rank's empty) -20 %; a
# failing row that would move the bias if it were read.
{
  echo "$header"
  echo "4,bf16,ar_res_rms,twoshot,16,4096,512,1,2,1,32,lean"
  echo "4,bf16,ar_res_rms,twoshot,6,4096,512,1,2,1,32,lean"
  echo "4,bf16,ar_res_rms,twoshot,16,4096,512,1,2,1,32,lean"
} > "$tmp/a.csv"
{
  echo "$vheader"
  echo "2,10,11,ok"
  echo "3,10,8,ok"
  echo "4,10,100,fail"
} > "$tmp/va.csv"
# File B: the same N = 4 configuration of 16 tokens at +30 %, and a one-shot row ("-").
{
  echo "$header"
  echo "4,bf16,ar_res_rms,twoshot,16,4096,512,1,2,1,32,lean"
  echo "4,bf16,ar_res_rms,oneshot,16,4096,512,1,2,1,32,lean"
} > "$tmp/b.csv"
{
  echo "$vheader"
  echo "2,10,13,ok"
  echo "3,10,10,ok"
} > "$tmp/vb.csv"
out=$("$py" "$src/scripts/model_bias.py" "$tmp/a.csv" "$tmp/va.csv" "$tmp/b.csv" "$tmp/vb.csv" --by algo,@own_rows 2>&1) ||
  fail "two pairs: exit $? ($out)"
echo "$out" | grep -Eq '^twoshot every +2 +20\.0 % +\+20\.0 %$' ||
  fail "the 16-token rows of both files, pooled: 2 rows, MAPE 20 %, bias +20 % ($out)"
echo "$out" | grep -Eq '^twoshot some_none +1 +20\.0 % +-20\.0 %$' || fail "the 6-token row: some_none ($out)"
echo "$out" | grep -Eq '^oneshot - +1 +0\.0 % +\+0\.0 %$' || fail "one-shot rows: - ($out)"
# @blocks_per_sm: the grid of 2 over 32 SMs is le1; the same rows at 80 blocks over 32 SMs (2.5 per SM) are 2-4.
out=$("$py" "$src/scripts/model_bias.py" "$tmp/a.csv" "$tmp/va.csv" --by @blocks_per_sm 2>&1) || fail "@blocks_per_sm: exit $?"
echo "$out" | grep -Eq '^le1 +2 ' || fail "@blocks_per_sm: 2 blocks over 32 SMs are le1 ($out)"
sed 's/,512,1,2,1,32,lean/,512,1,80,1,32,lean/' "$tmp/a.csv" > "$tmp/a80.csv"
out=$("$py" "$src/scripts/model_bias.py" "$tmp/a80.csv" "$tmp/va.csv" --by @blocks_per_sm 2>&1) || fail "@blocks_per_sm 80: exit $?"
echo "$out" | grep -Eq '^2-4 +2 ' || fail "@blocks_per_sm: 80 blocks over 32 SMs are 2-4 ($out)"
# @epilogue_rounds: 16 tokens at N = 4 on 2 clusters (ranges of 4) give cluster 0 eight epilogue rounds (5-16), 6
# tokens (ranges of 2, three of them filled) three (2-4); one-shot rows "-".
out=$("$py" "$src/scripts/model_bias.py" "$tmp/a.csv" "$tmp/va.csv" "$tmp/b.csv" "$tmp/vb.csv" --by @epilogue_rounds 2>&1) ||
  fail "@epilogue_rounds: exit $?"
echo "$out" | grep -Eq '^5-16 +2 +20\.0 % +\+20\.0 %$' || fail "@epilogue_rounds: the 16-token rows are 5-16 ($out)"
echo "$out" | grep -Eq '^2-4 +1 +20\.0 % +-20\.0 %$' || fail "@epilogue_rounds: the 6-token row is 2-4 ($out)"
echo "$out" | grep -Eq '^- +1 ' || fail "@epilogue_rounds: one-shot rows are - ($out)"
# A derived grouping over a file without a column it needs: one line naming both, non-zero exit, no traceback.
cut -d, -f1-4,7- "$tmp/a.csv" > "$tmp/notokens.csv"
out=$("$py" "$src/scripts/model_bias.py" "$tmp/notokens.csv" "$tmp/va.csv" --by @epilogue_rounds 2>&1) &&
  fail "a file without tokens accepted for @epilogue_rounds"
echo "$out" | grep -q "model_bias: @epilogue_rounds needs column 'tokens'" || fail "the missing column is not named ($out)"
echo "$out" | grep -q Traceback && fail "a traceback for a missing column ($out)"
# One pair still works; an odd number of files is refused (the usage, non-zero exit).
"$py" "$src/scripts/model_bias.py" "$tmp/a.csv" "$tmp/va.csv" --by @own_rows > /dev/null 2>&1 || fail "one pair"
if "$py" "$src/scripts/model_bias.py" "$tmp/a.csv" "$tmp/va.csv" "$tmp/b.csv" --by algo > /dev/null 2>&1; then
  fail "three files accepted"
fi
# A file that is not there: one line naming it, non-zero exit, no traceback.
out=$("$py" "$src/scripts/model_bias.py" "$tmp/a.csv" "$tmp/va.csv" "$tmp/none.csv" "$tmp/vb.csv" --by algo 2>&1) &&
  fail "a missing file accepted"
echo "$out" | grep -q "model_bias: cannot read '$tmp/none.csv'" || fail "the missing file is not named ($out)"
echo "$out" | grep -q Traceback && fail "a traceback for a missing file ($out)"
# --round-cost over two pairs: one configuration (16 tokens, one-shot, lean) at grids 2 and 8 (R = 8 and 2)
# in each file; each file's pair stays its own row (2 and 3 us per round measured, 2 predicted), and the
# last line takes the medians over both.
{
  echo "$header"
  echo "2,bf16,ar_res_rms,oneshot,16,4096,512,1,2,1,64,lean"
  echo "2,bf16,ar_res_rms,oneshot,16,4096,512,1,8,1,64,lean"
} > "$tmp/r.csv"
{ echo "$vheader"; echo "2,20,22,ok"; echo "3,8,10,ok"; } > "$tmp/vr1.csv"
{ echo "$vheader"; echo "2,26,22,ok"; echo "3,8,10,ok"; } > "$tmp/vr2.csv"
out=$("$py" "$src/scripts/model_bias.py" "$tmp/r.csv" "$tmp/vr1.csv" "$tmp/r.csv" "$tmp/vr2.csv" --round-cost 2>&1) ||
  fail "--round-cost over two pairs: exit $? ($out)"
[ "$(echo "$out" | grep -c '^| 16 x 4096, 512/1, 1 | 2 -> 8 | - |')" -eq 2 ] || fail "--round-cost: one row per file ($out)"
echo "$out" | grep -q '| 2.00 / 2.00 us |$' || fail "--round-cost: the first file's row ($out)"
echo "$out" | grep -q '| 3.00 / 2.00 us |$' || fail "--round-cost: the second file's row ($out)"
echo "$out" | grep -q 'reference - (0 rows), lean 2.50 / 2.00 us (2 rows)$' || fail "--round-cost: the medians ($out)"
# --round-cost-tokens: one configuration (grid 4, reference) at 8 and 32 tokens (R = 2 and 8): 3 us per round
# measured, 2 predicted; the grid pairs of r.csv (one token count) give none; both modes at once are refused.
{
  echo "$header"
  echo "2,bf16,ar_res_rms,oneshot,8,4096,128,1,4,4,64,reference"
  echo "2,bf16,ar_res_rms,oneshot,32,4096,128,1,4,4,64,reference"
} > "$tmp/t.csv"
{ echo "$vheader"; echo "2,10,12,ok"; echo "3,28,24,ok"; } > "$tmp/vt.csv"
out=$("$py" "$src/scripts/model_bias.py" "$tmp/t.csv" "$tmp/vt.csv" --round-cost-tokens 2>&1) ||
  fail "--round-cost-tokens: exit $? ($out)"
echo "$out" | grep -q '^| 4 blocks, H 4096, 128/1, 4 | 2 -> 8 | 3.00 / 2.00 us | - |$' ||
  fail "--round-cost-tokens: the row ($out)"
"$py" "$src/scripts/model_bias.py" "$tmp/t.csv" "$tmp/vt.csv" --round-cost > /dev/null 2>&1 &&
  fail "--round-cost: rows at one grid each (no pair) accepted"
"$py" "$src/scripts/model_bias.py" "$tmp/r.csv" "$tmp/vr1.csv" --round-cost-tokens > /dev/null 2>&1 &&
  fail "--round-cost-tokens: rows at one token count (no pair) accepted"
"$py" "$src/scripts/model_bias.py" "$tmp/t.csv" "$tmp/vt.csv" --round-cost --round-cost-tokens > /dev/null 2>&1 &&
  fail "both round-cost modes accepted"
# --shares: two problems (1 and 8 tokens) at two configurations each (128/1 and 256/2). First the error is the
# problem's alone (+10 % and -10 % at both configurations): @problem takes all of it, the cluster nothing. Then it
# is the configuration's alone (cluster 1 +10 %, cluster 2 -10 %, in both problems): the cluster takes all of it,
# within the problems too, and @problem nothing.
{
  echo "$header"
  echo "2,bf16,ar_res_rms,oneshot,1,4096,128,1,64,1,64,lean"
  echo "2,bf16,ar_res_rms,oneshot,1,4096,256,2,64,1,64,lean"
  echo "2,bf16,ar_res_rms,oneshot,8,4096,128,1,64,1,64,lean"
  echo "2,bf16,ar_res_rms,oneshot,8,4096,256,2,64,1,64,lean"
} > "$tmp/s.csv"
{ echo "$vheader"; echo "2,10,11,ok"; echo "3,10,11,ok"; echo "4,10,9,ok"; echo "5,10,9,ok"; } > "$tmp/vs1.csv"
{ echo "$vheader"; echo "2,10,11,ok"; echo "3,10,9,ok"; echo "4,10,11,ok"; echo "5,10,9,ok"; } > "$tmp/vs2.csv"
out=$("$py" "$src/scripts/model_bias.py" "$tmp/s.csv" "$tmp/vs1.csv" --shares cluster 2>&1) || fail "--shares: exit $? ($out)"
echo "$out" | grep -Eq '^@problem +2 +1\.00 \(0\.33\) +0\.0 % +-$' || fail "--shares: per-problem error ($out)"
echo "$out" | grep -Eq '^cluster +2 +0\.00 \(0\.33\) +10\.0 % +0\.00 \(1\.00\)$' || fail "--shares: cluster, none ($out)"
out=$("$py" "$src/scripts/model_bias.py" "$tmp/s.csv" "$tmp/vs2.csv" --shares cluster 2>&1) || fail "--shares 2: exit $? ($out)"
echo "$out" | grep -Eq '^@problem +2 +0\.00 \(0\.33\) +10\.0 % +-$' || fail "--shares: no per-problem error ($out)"
echo "$out" | grep -Eq '^cluster +2 +1\.00 \(0\.33\) +0\.0 % +1\.00 \(1\.00\)$' || fail "--shares: the cluster's error ($out)"
"$py" "$src/scripts/model_bias.py" "$tmp/s.csv" "$tmp/vs1.csv" --shares cluster --by pattern > /dev/null 2>&1 &&
  fail "--shares with --by accepted"
# --shift-us 1: file A's two rows (10 -> 11 and 10 -> 8 us) predicted 12 and 9 us: +20 % and -10 %; a shift that is
# not a number is refused.
out=$("$py" "$src/scripts/model_bias.py" "$tmp/a.csv" "$tmp/va.csv" --by algo --shift-us 1 2>&1) || fail "--shift-us: exit $?"
echo "$out" | grep -Eq '^twoshot +2 +15\.0 % +\+5\.0 %$' || fail "--shift-us 1: MAPE 15 %, bias +5 % ($out)"
out=$("$py" "$src/scripts/model_bias.py" "$tmp/a.csv" "$tmp/va.csv" --by algo --shift-us x 2>&1) && fail "--shift-us x accepted"
echo "$out" | grep -q "model_bias: --shift-us takes microseconds (a finite number), got 'x'" || fail "--shift-us x: $out"
out=$("$py" "$src/scripts/model_bias.py" "$tmp/a.csv" "$tmp/va.csv" --by algo --shift-us inf 2>&1) && fail "--shift-us inf accepted"
# A grouping or --where column the measurement file lacks: one line naming it (was: every row in one empty group).
for args in "--by nosuch" "--shares nosuch" "--by algo --where nosuch=1"; do
  # shellcheck disable=SC2086  # the arguments are a list
  out=$("$py" "$src/scripts/model_bias.py" "$tmp/a.csv" "$tmp/va.csv" $args 2>&1) && fail "$args accepted"
  echo "$out" | grep -q "model_bias: $tmp/a.csv has no column 'nosuch'" || fail "$args: $out"
done
[ $status -eq 0 ] && echo "model_bias: pooled pairs, @own_rows, @blocks_per_sm, @epilogue_rounds, refusals, --round-cost over pairs, --round-cost-tokens, --shares, --shift-us, unknown columns: ok"
exit $status
