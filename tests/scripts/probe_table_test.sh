#!/usr/bin/env bash
# scripts/peer_probe_table.py on a synthetic probe CSV holding one H x tokens at two rank counts (the
# two-shot probe, scripts/probes/library_twoshot.txt): RANKSxHIDDENxTOKENS picks each, HIDDENxTOKENS
# alone is refused as ambiguous (exit 2, naming the rank counts), a problem the CSV lacks prints "-"; and
# on groups with two trtllm members (reference and lean, scripts/probes/phase_peer.txt) --kernel picks
# one, and without it the CSV is refused.
# Usage: probe_table_test.sh SOURCE_DIR PYTHON
set -u
src=$1 py=$2
. "$(dirname "$0")/script_test_setup.sh"
# Rows: experiment, group_id, date_utc, policy, nranks, hidden, tokens, skewfree_us_median. Library /
# reference: N = 4 -> 90/100 = 0.900, N = 8 -> 120/100 = 1.200; H 8192 x 1 token at N = 4 only: 1.000.
csv=$tmp/probe.csv
{
  echo "experiment,group_id,date_utc,policy,nranks,hidden,tokens,skewfree_us_median"
  echo "switch_v0,g1,2026-12-05T00:00:01Z,trtllm,4,2048,4096,100"
  echo "switch_v0,g1,2026-12-05T00:00:01Z,flashinfer,4,2048,4096,90"
  echo "switch_v0,g2,2026-12-05T00:00:02Z,trtllm,8,2048,4096,100"
  echo "switch_v0,g2,2026-12-05T00:00:02Z,flashinfer,8,2048,4096,120"
  echo "switch_v0,g3,2026-12-05T00:00:03Z,trtllm,4,8192,1,5"
  echo "switch_v0,g3,2026-12-05T00:00:03Z,flashinfer,4,8192,1,5"
} > "$csv"
out=$("$py" "$src/scripts/peer_probe_table.py" "$csv" 4x2048x4096,8x2048x4096,8192x1,16x2048x4096 \
      --label switch_v0=v0 2>&1)
[ "$out" = "| v0 | 1 | 0.900x | 1.200x | 1.000x | - |  |" ] || fail "NxHxT table: $out"
out=$("$py" "$src/scripts/peer_probe_table.py" "$csv" 2048x4096 --label switch_v0=v0 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "an ambiguous HxT exited $rc, expected 2"
case "$out" in *"2048x4096 ran at N = 4, 8: name it as NxHxT"*) ;; *) fail "ambiguous HxT said: $out" ;; esac
out=$("$py" "$src/scripts/peer_probe_table.py" "$csv" 4x2048x4096x2 --label switch_v0=v0 2>&1)
[ $? -eq 2 ] || fail "PROBLEMS 4x2048x4096x2 was not refused: $out"
# Two trtllm members per group: reference 100, lean 80, the library 90 -> 0.900x and 1.125x.
csv2=$tmp/members.csv
{
  echo "experiment,group_id,date_utc,policy,kernel_variant,nranks,hidden,tokens,skewfree_us_median"
  echo "phase_default,g1,2026-12-08T00:00:01Z,trtllm,reference,2,2048,1,100"
  echo "phase_default,g1,2026-12-08T00:00:01Z,trtllm,lean,2,2048,1,80"
  echo "phase_default,g1,2026-12-08T00:00:01Z,flashinfer,flashinfer,2,2048,1,90"
} > "$csv2"
out=$("$py" "$src/scripts/peer_probe_table.py" "$csv2" 2048x1 --kernel reference --label phase_default=ref 2>&1)
[ "$out" = "| ref | 0 | 0.900x |  |" ] || fail "--kernel reference: $out"
out=$("$py" "$src/scripts/peer_probe_table.py" "$csv2" 2048x1 --kernel lean --label phase_default=lean 2>&1)
[ "$out" = "| lean | 0 | 1.125x |  |" ] || fail "--kernel lean: $out"
out=$("$py" "$src/scripts/peer_probe_table.py" "$csv2" 2048x1 --label phase_default=ref 2>&1)
rc=$?
[ $rc -ne 0 ] || fail "two trtllm members without --kernel exited 0"
case "$out" in *"several trtllm members"*"name one with --kernel"*) ;; *) fail "two members said: $out" ;; esac
out=$("$py" "$src/scripts/peer_probe_table.py" "$csv2" 2048x1 --kernel flashinfer --label phase_default=ref 2>&1)
[ $? -eq 2 ] || fail "--kernel flashinfer was not refused: $out"
[ $status -eq 0 ] && echo "PASS: peer_probe_table.py tells rank counts apart, refuses an ambiguous problem, and picks a trtllm member with --kernel"
exit $status
