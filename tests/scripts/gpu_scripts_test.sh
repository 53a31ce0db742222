#!/bin/sh
# ctest driver (label cpu): the GPU machine's scripts refuse bad arguments before they touch anything,
# and scripts/switch_probe.sh and scripts/vpt_rounds.sh run their plans, on a machine without a GPU.
#  * scripts/gpu-run.sh: --exp-mpi that is not a count, --exp-mpi without --exp, an unknown option,
#    --calibrate-ranks that are not counts or none: exit
#    2 with a message naming the problem, and the output folder not created;
#  * scripts/switch_probe.sh: NAME=ARLAB malformed, a NAME with other characters, a binary that is not
#    executable, a problems file that cannot be read: exit 2 with its message, no output folder; then,
#    with stand-in binaries that record how they were called, one process per build and problem in the
#    order given and the first build once more, each with its `switch_NAME` experiment and the
#    problem's arguments, and a failing build counted and reported (exit 1);
#  * scripts/phase_probe.sh: a default build as the probe and a probe build as the default refused; the
#    list run with each build in turn (one process per line, its experiment, rows into its CSV).
# Usage: gpu_scripts_test.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/arlab_gpu_scripts.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# refuses CMD... : exit 2, PATTERN in the output, OUT not created
refuses() {
  pattern=$1 out=$2
  shift 2
  text=$("$@" 2>&1)
  rc=$?
  [ "$rc" -eq 2 ] || fail "$* exited $rc, expected 2 ($text)"
  echo "$text" | grep -q -- "$pattern" || fail "$*: no message matching '$pattern' (got: $text)"
  [ ! -e "$out" ] || fail "$*: created $out"
}

refuses "needs a GPU count, got 'two'" "$tmp/g1" "$src/scripts/gpu-run.sh" "$tmp/g1" --exp-mpi two --exp seed
refuses "runs the experiments --exp names; none named" "$tmp/g2" "$src/scripts/gpu-run.sh" "$tmp/g2" --exp-mpi 2
refuses "unknown option --nope" "$tmp/g3" "$src/scripts/gpu-run.sh" "$tmp/g3" --nope
refuses "--calibrate-ranks needs rank counts, got 'four'" "$tmp/g4" "$src/scripts/gpu-run.sh" "$tmp/g4" --calibrate --calibrate-ranks "2 four"
refuses "--calibrate-ranks needs rank counts, got none" "$tmp/g5" "$src/scripts/gpu-run.sh" "$tmp/g5" --calibrate-ranks ""

# stand-in arlab binaries: append "NAME ARGS" to $tmp/calls and succeed (the broken one fails)
for name in base probe broken; do
  cat > "$tmp/$name" <<STUB
#!/bin/sh
[ "\$1" = --version ] && { echo "arlab $name"; exit 0; }
echo "$name \$*" >> "$tmp/calls"
[ "$name" != broken ]
STUB
  chmod +x "$tmp/$name"
done
printf '%s\n' "# two problems" "-n 2 --hidden 2048 -t 1" "" "-n 2 --hidden 8192 -t 64  # a comment" > "$tmp/problems.txt"
touch "$tmp/not_executable"
probe=$src/scripts/switch_probe.sh
refuses "expected NAME=ARLAB, got 'v0'" "$tmp/s1" "$probe" "$tmp/s1" "$tmp/problems.txt" v0
refuses "may hold only a-z, 0-9 and _" "$tmp/s2" "$probe" "$tmp/s2" "$tmp/problems.txt" "V-0=$tmp/base"
refuses "is not an executable" "$tmp/s3" "$probe" "$tmp/s3" "$tmp/problems.txt" "v0=$tmp/not_executable"
refuses "cannot read" "$tmp/s4" "$probe" "$tmp/s4" "$tmp/missing.txt" "v0=$tmp/base"

"$probe" "$tmp/run" "$tmp/problems.txt" "v0=$tmp/base" "plain=$tmp/probe" > "$tmp/run.log" 2>&1 ||
  fail "switch_probe.sh with two working builds exited $? ($(cat "$tmp/run.log"))"
common="run --policy trtllm,flashinfer/flashinfer --kernel reference --max-time 0.4"
expected="base $common --experiment switch_v0 --csv $tmp/run/probe.csv -n 2 --hidden 2048 -t 1
probe $common --experiment switch_plain --csv $tmp/run/probe.csv -n 2 --hidden 2048 -t 1
base $common --experiment switch_v0 --csv $tmp/run/probe.csv -n 2 --hidden 2048 -t 1
base $common --experiment switch_v0 --csv $tmp/run/probe.csv -n 2 --hidden 8192 -t 64
probe $common --experiment switch_plain --csv $tmp/run/probe.csv -n 2 --hidden 8192 -t 64
base $common --experiment switch_v0 --csv $tmp/run/probe.csv -n 2 --hidden 8192 -t 64"
[ "$(cat "$tmp/calls")" = "$expected" ] || fail "switch_probe.sh called: $(cat "$tmp/calls")"
grep -q "2 problem(s) x 3 process(es), 0 failed run(s)" "$tmp/run.log" || fail "no summary line ($(cat "$tmp/run.log"))"

"$probe" "$tmp/run2" "$tmp/problems.txt" "v0=$tmp/base" "bad=$tmp/broken" > "$tmp/run2.log" 2>&1
rc=$?
[ "$rc" -eq 1 ] || fail "switch_probe.sh with a failing build exited $rc, expected 1"
grep -q "2 problem(s) x 3 process(es), 2 failed run(s)" "$tmp/run2.log" || fail "failures not counted ($(cat "$tmp/run2.log"))"

# scripts/vpt_rounds.sh: a binary that is not executable and an unknown third argument refused (exit 2, no CSV);
# with the stand-in, its groups in order: 3 for the sweep by vectors per thread, 15 for the few-block one.
vpt=$src/scripts/vpt_rounds.sh
refuses "usage: scripts/vpt_rounds.sh" "$tmp/v1.csv" "$vpt" "$tmp/not_executable" "$tmp/v1.csv"
refuses "usage: scripts/vpt_rounds.sh" "$tmp/v2.csv" "$vpt" "$tmp/base" "$tmp/v2.csv" --few
: > "$tmp/calls"
"$vpt" "$tmp/base" "$tmp/v.csv" > "$tmp/vpt.log" 2>&1 || fail "vpt_rounds.sh exited $? ($(cat "$tmp/vpt.log"))"
[ "$(wc -l < "$tmp/calls")" -eq 3 ] || fail "vpt_rounds.sh: $(wc -l < "$tmp/calls") groups, expected 3"
head -1 "$tmp/calls" | grep -q -- "^base run -n 2 --hidden 8192 -t 128 --kernel reference,lean --policy trtllm --config 1024/1/16 " ||
  fail "vpt_rounds.sh: first group $(head -1 "$tmp/calls")"
tail -1 "$tmp/calls" | grep -q -- "-n 8 --hidden 8192 -t 128 .*--config 256/1/16 .*--csv $tmp/v.csv --experiment vpt_rounds$" ||
  fail "vpt_rounds.sh: last group $(tail -1 "$tmp/calls")"
: > "$tmp/calls"
"$vpt" "$tmp/base" "$tmp/f.csv" --few-blocks > "$tmp/vpt.log" 2>&1 || fail "vpt_rounds.sh --few-blocks exited $?"
[ "$(wc -l < "$tmp/calls")" -eq 15 ] || fail "vpt_rounds.sh --few-blocks: $(wc -l < "$tmp/calls") groups, expected 15"
head -1 "$tmp/calls" | grep -q -- "-n 2 --hidden 4096 -t 4 .*--config 512/1/2 --config 128/1/2 .*--experiment vpt_rounds_few_blocks$" ||
  fail "vpt_rounds.sh --few-blocks: first group $(head -1 "$tmp/calls")"
tail -1 "$tmp/calls" | grep -q -- "-n 2 --hidden 4096 -t 512 .*--config 512/1/64 --config 128/1/64 " ||
  fail "vpt_rounds.sh --few-blocks: last group $(tail -1 "$tmp/calls")"

# scripts/phase_probe.sh with stand-ins: a default build refused as the probe and a probe build as the default
# (exit 2, no output folder); then the list run with the probe build and again with the default build, each
# line one process with its experiment, rows into phase.csv and default.csv.
for kind in probe default; do
  version="arlab 0123456789ab"
  [ $kind = probe ] && version="arlab 0123456789ab+probe-phase_stamps"
  cat > "$tmp/ph_$kind" <<STUB
#!/bin/sh
if [ "\$1" = --version ]; then echo "$version"; exit 0; fi
echo "$kind \$*" >> "$tmp/ph_calls"
while [ \$# -gt 0 ]; do [ "\$1" = --csv ] && echo "row" >> "\$2"; shift; done
STUB
  chmod +x "$tmp/ph_$kind"
done
printf '%s\n' "# a comment" "-n 2 --hidden 2048 -t 1" "" "-n 4 --hidden 4096 -t 8" > "$tmp/ph_list.txt"
refuses "is not a phase_stamps probe build" "$tmp/ph1" "$src/scripts/phase_probe.sh" "$tmp/ph1" "$tmp/ph_list.txt" "$tmp/ph_default"
refuses "is a probe build; ARLAB_DEFAULT must be a default build" "$tmp/ph2" "$src/scripts/phase_probe.sh" "$tmp/ph2" \
  "$tmp/ph_list.txt" "$tmp/ph_probe" "$tmp/ph_probe"
: > "$tmp/ph_calls"
"$src/scripts/phase_probe.sh" "$tmp/ph3" "$tmp/ph_list.txt" "$tmp/ph_probe" "$tmp/ph_default" > /dev/null 2>&1 ||
  fail "phase_probe.sh with a default build exited $?"
[ "$(wc -l < "$tmp/ph_calls")" -eq 4 ] || fail "phase_probe.sh: $(wc -l < "$tmp/ph_calls") processes, expected 4"
sed -n 1p "$tmp/ph_calls" | grep -q -- "^probe run --experiment phase_probe .*-n 2 --hidden 2048 -t 1" ||
  fail "phase_probe.sh: first process $(sed -n 1p "$tmp/ph_calls")"
sed -n 4p "$tmp/ph_calls" | grep -q -- "^default run --experiment phase_default .*-n 4 --hidden 4096 -t 8" ||
  fail "phase_probe.sh: last process $(sed -n 4p "$tmp/ph_calls")"
[ "$(wc -l < "$tmp/ph3/phase.csv")" -eq 2 ] && [ "$(wc -l < "$tmp/ph3/default.csv")" -eq 2 ] ||
  fail "phase_probe.sh: rows in phase.csv / default.csv"
refuses "already holds a run" "$tmp/none" "$src/scripts/phase_probe.sh" "$tmp/ph3" "$tmp/ph_list.txt" "$tmp/ph_probe"

[ $status -eq 0 ] && echo "PASS: gpu-run.sh, switch_probe.sh and vpt_rounds.sh refuse bad arguments; switch_probe.sh, vpt_rounds.sh and phase_probe.sh run their plans"
exit $status
