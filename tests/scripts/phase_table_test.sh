#!/usr/bin/env bash
# scripts/phase_table.py on a synthetic probe run (phase.csv and one log) with a stand-in arlab for `predict --csv`:
# the probe's third-version lines (seven values counted from the entry: prologue and exit stamped) and the earlier
# five-value ones (counted from the body's first stamp) read into the same phases, the late rank's stamps taken,
# the outside span against the unstamped terms; --hooks-cost row by row; a line of another length and a missing
# default CSV refused (one line, non-zero exit, no traceback).
# Usage: phase_table_test.sh SOURCE_DIR PYTHON
set -u
src=$1 py=$2
. "$(dirname "$0")/script_test_setup.sh"
cat > "$tmp/arlab" <<'ARLAB'
#!/usr/bin/env bash
# stand-in: `predict ... --csv OUT` writes fixed terms (us), 10 us in all
out=
while [ $# -gt 0 ]; do [ "$1" = --csv ] && out=$2; shift; done
{ echo "predicted_us,term,term_us"
  for t in launch:1 prologue:0.5 push:2 clear:1 first_wait:0 grid:0.5 reduce:4 exit:0.5 drain:0.5; do
    echo "10,${t%%:*},${t#*:}"; done; } > "$out"
ARLAB
chmod +x "$tmp/arlab"
mkdir -p "$tmp/run/logs"
cols="implementation,kernel_variant,algo,nranks,hidden,tokens,dtype,pattern,acc,gpu,tpb,cluster,grid,vecs_per_thread,policy,sm_clock_mhz_start,skewfree_us_median"
{ echo "$cols"
  echo "fused,reference,oneshot,2,2048,64,bf16,ar_res_rms,pairwise,NVIDIA H100 80GB HBM3,256,1,1,1,trtllm,1000,10.0"
  echo "fused,lean,oneshot,2,2048,64,bf16,ar_res_rms,pairwise,NVIDIA H100 80GB HBM3,256,1,1,1,trtllm,1000,10.0"
} > "$tmp/run/phase.csv"
line() {  # BODY RANK CALL T0 STAMPS
  echo "ARLAB_PHASE body=$1 n=2 pattern=1 rank=$2 block=0 tokens=64 hidden=2048 tpb=256 cluster=1 grid=1 vpt=1 call=$3 smid=0 t0=$4 stamps=$5"
}
{
  for call in 251 502 753; do
    # reference: seven values from the entry (1000 MHz: 1000 cycles = 1 us); rank 1 starts last and is read
    line reference1 0 $call 1000 100,200,300,400,500,0,0
    line reference1 1 $call 2000 500,2500,3500,7500,7800,0,0
    # lean: the five values of the earlier versions, from the body's first stamp
    line lean1 0 $call 1000 100,200,300,0,0
    line lean1 1 $call 2000 2000,3000,7000,0,0
  done
} > "$tmp/run/logs/1.log"
out=$("$py" "$src/scripts/phase_table.py" "$tmp/run" "$tmp/arlab" 2>&1) || fail "exit $? ($out)"
echo "$out" | grep -qF "| reference | 256/1/1/1 | 10.00 (10.00) | prologue 0.50 (0.50); push 2.00 (2.00); clear 1.00 (1.00); rounds 4.00 (4.50); exit 0.30 (0.50) | 2.20 (1.50) | 3 x 1 |" ||
  fail "the seven-value line's phases ($out)"
echo "$out" | grep -qF "| lean | 256/1/1/1 | 10.00 (10.00) | push 2.00 (2.00); clear 1.00 (1.00); rounds 4.00 (4.50) | 3.00 (2.50) | 3 x 1 |" ||
  fail "the five-value line's phases ($out)"
# --hooks-cost: the same rows with a default build, 8 us: 1.250x
sed 's/,10.0$/,8.0/' "$tmp/run/phase.csv" > "$tmp/default.csv"
out=$("$py" "$src/scripts/phase_table.py" "$tmp/run" "$tmp/arlab" --hooks-cost "$tmp/default.csv" 2>&1) || fail "hooks-cost exit $? ($out)"
echo "$out" | grep -qF "| reference | oneshot | 1 | 1.250 (1.250 - 1.250) |" || fail "the hooks' cost ($out)"
out=$("$py" "$src/scripts/phase_table.py" "$tmp/run" "$tmp/arlab" --hooks-cost "$tmp/none.csv" 2>&1) && fail "a missing default CSV accepted"
echo "$out" | grep -qF "phase_table: no file $tmp/none.csv" || fail "the missing file is not named ($out)"
cut -d, -f2- "$tmp/default.csv" > "$tmp/noimpl.csv"
out=$("$py" "$src/scripts/phase_table.py" "$tmp/run" "$tmp/arlab" --hooks-cost "$tmp/noimpl.csv" 2>&1) && fail "a CSV without implementation accepted"
echo "$out" | grep -qF "phase_table: $tmp/noimpl.csv is not a measurement CSV (common/measurement_schema.h): no column implementation" ||
  fail "the missing column is not named ($out)"
# a line of six values
line reference1 0 1004 1000 1,2,3,4,5,6 >> "$tmp/run/logs/1.log"
out=$("$py" "$src/scripts/phase_table.py" "$tmp/run" "$tmp/arlab" 2>&1) && fail "a six-value line accepted"
echo "$out" | grep -qF "phase_table: an ARLAB_PHASE line with 6 stamps (5 or 7 expected)" || fail "the bad line is not named ($out)"
echo "$out" | grep -q Traceback && fail "a traceback ($out)"
[ $status -eq 0 ] && echo "phase_table: seven- and five-value lines, the late rank, outside, hooks' cost, refusals: ok"
exit $status
