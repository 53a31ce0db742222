#!/usr/bin/env bash
# scripts/lean2_mixed.py on a synthetic microbenchmark CSV: the mixed run's rounds against the owner's and
# the reader's rows weighted as the run holds them (of 8 rounds, ceil(8 / N) an owner's), a configuration
# without its reader row left out, other benches and metrics ignored, and bad arguments refused (a one-line
# error or the usage, non-zero exit, no traceback).
# Usage: lean2_mixed_test.sh SOURCE_DIR PYTHON
set -u
src=$1 py=$2
. "$(dirname "$0")/script_test_setup.sh"
{
  echo "bench,variant,sms,tpb,cluster,size,metric,value"
  # N = 8, 16 blocks of 128 x 8: owner 3000, reader 1000 -> weighted (1 x 3000 + 7 x 1000) / 8 = 1250; mixed 1375.
  echo "body_round,lean2_owner_n8,16,128,8,8192,ns_per_round,3000"
  echo "body_round,lean2_reader_n8,16,128,8,8192,ns_per_round,1000"
  echo "body_round,lean2_mixed_n8,16,128,8,8192,ns_per_round,1375"
  # N = 8, 64 blocks of 1024 x 1: weighted (1 x 9000 + 7 x 2000) / 8 = 2875; mixed 2300.
  echo "body_round,lean2_owner_n8,64,1024,1,8192,ns_per_round,9000"
  echo "body_round,lean2_reader_n8,64,1024,1,8192,ns_per_round,2000"
  echo "body_round,lean2_mixed_n8,64,1024,1,8192,ns_per_round,2300"
  # no reader row: left out
  echo "body_round,lean2_owner_n8,16,256,4,8192,ns_per_round,4000"
  echo "body_round,lean2_mixed_n8,16,256,4,8192,ns_per_round,1"
  # another metric and another bench with the same names: ignored
  echo "body_round,lean2_reader_n8,16,128,8,8192,gbps,1"
  echo "other,lean2_mixed_n8,16,128,8,8192,ns_per_round,1"
  # N = 2, 16 blocks of 512 x 2: weighted (4 x 3000 + 4 x 1000) / 8 = 2000; mixed 2000.
  echo "body_round,lean2_owner_n2,16,512,2,8192,ns_per_round,3000"
  echo "body_round,lean2_reader_n2,16,512,2,8192,ns_per_round,1000"
  echo "body_round,lean2_mixed_n2,16,512,2,8192,ns_per_round,2000"
} > "$tmp/mb.csv"
out=$("$py" "$src/scripts/lean2_mixed.py" "$tmp/mb.csv" 8 2>&1) || fail "N = 8: exit $? ($out)"
echo "$out" | grep -Eq '^16 128 8 8192  3000  1000  1250  1375  1\.100$' || fail "N = 8, 16 blocks: 1.100 ($out)"
echo "$out" | grep -Eq '^64 1024 1 8192  9000  2000  2875  2300  0\.800$' || fail "N = 8, 64 blocks: 0.800 ($out)"
echo "$out" | grep -q '^16 256 ' && fail "a configuration without its reader row was read ($out)"
echo "$out" | grep -Eq '^N 8: mixed / weighted over 2 configurations: geomean 0\.938, min 0\.800, max 1\.100$' ||
  fail "N = 8 summary: sqrt(1.1 x 0.8) ($out)"
out=$("$py" "$src/scripts/lean2_mixed.py" "$tmp/mb.csv" 2 2>&1) || fail "N = 2: exit $? ($out)"
echo "$out" | grep -Eq '^16 512 2 8192  3000  1000  2000  2000  1\.000$' || fail "N = 2: 4 + 4 rounds ($out)"
# N = 4 has no mixed rows here; N = 3, a missing file: refused in one line, no traceback.
for args in "$tmp/mb.csv 4" "$tmp/mb.csv 3" "$tmp/none.csv 8" "$tmp/mb.csv"; do
  # shellcheck disable=SC2086
  out=$("$py" "$src/scripts/lean2_mixed.py" $args 2>&1) && fail "accepted: $args ($out)"
  echo "$out" | grep -q Traceback && fail "traceback for: $args ($out)"
done
exit $status
