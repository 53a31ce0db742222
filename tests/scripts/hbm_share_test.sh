#!/usr/bin/env bash
# scripts/model_hbm_share.py with a stand-in arlab whose `predict --csv` writes two terms, one of them
# hbm-bound: the rows land in the share bins and pattern groups their terms say, the error is predicted /
# the headline (skew-free where the row says so) - 1, failing and other-body rows are left out, and bad
# arguments are refused (exit 2).
# Usage: hbm_share_test.sh SOURCE_DIR PYTHON
set -u
src=$1 py=$2
. "$(dirname "$0")/script_test_setup.sh"
# The stand-in: predicted 10 us, of which the hbm-bound term is (tokens) us; --tokens is the share x 10.
arlab=$tmp/arlab
cat > "$arlab" <<'STANDIN'
#!/usr/bin/env bash
out="" tokens=0
while [ $# -gt 0 ]; do
  case "$1" in --csv) out=$2; shift ;; -t) tokens=$2; shift ;; esac
  shift
done
[ -n "$out" ] || exit 3
{
  echo "predicted_us,term,term_us,explanation"
  echo "10,push,$tokens,\"1 wave(s) x max(...): hbm-bound [HBM: ...]\""
  echo "10,reduce,$((10 - tokens)),\"rounds-bound [round = ...]\""
} > "$out"
STANDIN
chmod +x "$arlab"
csv=$tmp/m.csv
{
  echo "check,algo,kernel_variant,nranks,hidden,tokens,dtype,pattern,acc,tpb,cluster,grid,vecs_per_thread,regs,topology,headline,skewfree_us_median,kernel_us_median"
  # N = 8, share 10 %: measured 10 (skew-free) -> 0 %; share 50 %: measured 12.5 -> -20 %, and 8 -> +25 %
  echo "pass,oneshot,reference,8,4096,1,bf16,ar_res_rms,pairwise,512,1,16,1,48,emulated,skew_free,10,99"
  echo "pass,oneshot,reference,8,4096,5,bf16,ar,pairwise,512,1,16,1,48,emulated,skew_free,12.5,99"
  echo "pass,oneshot,reference,8,4096,5,bf16,ar_res_rms_fp8,pairwise,512,1,16,1,48,emulated,kernel,99,8"
  # left out: a failing row, a lean row, a two-shot row
  echo "fail,oneshot,reference,8,4096,5,bf16,ar,pairwise,512,1,16,1,48,emulated,skew_free,1,1"
  echo "pass,oneshot,lean,8,4096,5,bf16,ar,pairwise,512,1,16,1,48,emulated,skew_free,1,1"
  echo "pass,twoshot,reference,8,4096,5,bf16,ar,pairwise,512,1,16,1,48,emulated,skew_free,1,1"
} > "$csv"
out=$("$py" "$src/scripts/model_hbm_share.py" "$arlab" "$csv" 2>&1) || fail "exit $?: $out"
case "$out" in *"| 8 | ar_res_rms | 0-20 % | 1 | +0.0 % | +0.0 % |"*) ;; *) fail "share 10 % row: $out" ;; esac
case "$out" in *"| 8 | other | 40-60 % | 2 | +2.5 % | +2.5 % |"*) ;; *) fail "share 50 % rows: $out" ;; esac
[ "$(printf '%s\n' "$out" | grep -c '^| 8 ')" -eq 2 ] || fail "expected two groups: $out"
"$py" "$src/scripts/model_hbm_share.py" "$arlab" > /dev/null 2>&1
[ $? -eq 2 ] || fail "no measurement CSV was not refused"
"$py" "$src/scripts/model_hbm_share.py" "$arlab" "$tmp/none.csv" > /dev/null 2>&1
[ $? -eq 2 ] || fail "a missing measurement CSV was not refused"
printf 'a,b\n1,2\n' > "$tmp/bad.csv"
out=$("$py" "$src/scripts/model_hbm_share.py" "$arlab" "$tmp/bad.csv" 2>&1)
[ $? -ne 0 ] || fail "a CSV without the measurement columns was not refused"
case "$out" in *"has no column(s) check, algo"*) ;; *) fail "missing columns said: $out" ;; esac
"$py" "$src/scripts/model_hbm_share.py" "$arlab" "$csv" --kernel bogus > /dev/null 2>&1
[ $? -eq 2 ] || fail "--kernel bogus was not refused"
"$py" "$src/scripts/model_hbm_share.py" "$arlab" "$csv" --calibration "$tmp/none.csv" > /dev/null 2>&1
[ $? -eq 2 ] || fail "a missing --calibration file was not refused"
[ $status -eq 0 ] && echo "PASS: model_hbm_share.py bins rows by the hbm-bound share of their terms"
exit $status
