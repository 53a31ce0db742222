#!/usr/bin/env bash
# scripts/peer_probe_table.py on a synthetic probe CSV holding one H x tokens at two rank counts (the
# two-shot probe, scripts/probes/library_twoshot.txt): RANKSxHIDDENxTOKENS picks each, HIDDENxTOKENS
# alone is refused as ambiguous (exit 2, naming the rank counts), a problem the CSV lacks prints "-".
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
[ $status -eq 0 ] && echo "PASS: peer_probe_table.py tells rank counts apart and refuses an ambiguous problem"
exit $status
