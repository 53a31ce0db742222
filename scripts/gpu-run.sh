#!/usr/bin/env bash
# scripts/gpu-run.sh OUTDIR [--build-dir DIR] [--skip-tests] [--skip-bench] [--test-timeout S] [--tests REGEX]
#                    [--seed] [--twoshot "N ..."] [--mpi NGPUS] [--probe] [--repeat K] [--hold-ab]
#                    [--sanitize] [--soak CALLS] [--calibrate] [--calibrate-ranks "N ..."] [--exp "NAME ..."] [--exp-nranks "N ..."]
#                    [--exp-timeout S] [--exp-mpi NGPUS] [--mixed] [--peers] [--vpt-rounds]
# scripts/gpu-run.sh --pack BUILD_DIR DEST
#
# On a GPU machine: builds arlab (or reuses a build tree made elsewhere), runs the gpu-labelled
# ctest, runs the issue-4 benchmark (emulated TP2 on one GPU, bf16 ar_res_rms: legacy vs trtllm at
# 128 tokens for H 4096 and 8192, the 1-token time, more policies), writes every log and the CSV to
# OUTDIR, and prints a short summary table last.
#
# --build-dir DIR  use a build tree configured and built elsewhere (e.g. carried to the GPU machine);
#                  the absolute source and build paths recorded in its CMakeCache.txt are linked to
#                  this checkout and DIR when they do not exist here. Without it, the script
#                  configures and builds ./build-gpu-run with every core.
# --test-timeout S  per-test ctest timeout (default 600 s, the suite's budget).
# --tests REGEX     run only the gpu tests whose names match (ctest -R), e.g. 'oneshot|node' for issue 4.
# --seed           also run the main experiment on the GPU: `arlab seed --mode measure` into OUTDIR/seed
#                  (measured.csv, validation.csv) and its plot.
# --twoshot "N.."  also run scripts/twoshot_sweep.sh (one- vs two-shot, emulated TP N) into
#                  OUTDIR/twoshot_crossover.csv.
# --mpi NGPUS      also run scripts/mpi_seed.sh under mpirun with one process per GPU (NGPUS >= 2
#                  GPUs of this host) into OUTDIR/seed_mpi.csv.
# --probe          also run arlab_timer_probe (resolution of %globaltimer, CUPTI records, events).
# --repeat K       also run scripts/repeatability.sh with K processes per point (emulated, and real
#                  TP2 under mpirun when --mpi >= 2) into OUTDIR/repeatability.csv (+ _ratios.csv).
# --hold-ab        also measure, at 1 and 128 tokens, 3 processes each with and without the host
#                  hold (--no-host-hold) into OUTDIR/hold_ab.csv: the start-skew evidence.
# --sanitize       also run compute-sanitizer (memcheck, racecheck, synccheck, initcheck) over a small
#                  matrix of both algorithms, one process per GPU under mpirun (needs 2 GPUs), into
#                  OUTDIR/sanitize.log.
# --fp32-norm      also measure the fp32 norm_out ulps (H 1024/4096/16384 x N 2/8 x one-/two-shot,
#                  512 tokens, unchecked timing off) into OUTDIR/fp32_norm.csv.
# --soak CALLS     also run `arlab soak --calls CALLS` (TP2, H 4096, ar_res_rms and ar) into
#                  OUTDIR/soak.csv.
# --calibrate      also run `arlab calibrate` on the emulated node into OUTDIR/calibrate_emulated/ and, when
#                  2+ GPUs are visible, under `mpirun -np 2` into OUTDIR/calibrate_mpi/ (microbench.csv,
#                  calibration.csv; logs calibrate_*.log).
# --calibrate-ranks "N.."  the emulated node's rank counts of --calibrate (default "2"): `arlab calibrate -n N`
#                  for each, N = 2 into OUTDIR/calibrate_emulated/, any other into OUTDIR/calibrate_emulated_nN/
#                  (the committed calibrations read -n 4 and -n 8 runs beside the -n 2 one:
#                  data/calibration/README.md).
# --exp "NAME.."   also run `arlab exp NAME` for each name (emulated TP2) into OUTDIR/exp/NAME/ (CSV,
#                  ratios CSV, summary files; no figures).
# --exp-nranks "N.." the emulated rank counts of those experiments (default "2").
# --exp-timeout S  wall-clock bound of each experiment (default 500 s); a cut experiment keeps the cases it
#                  finished (its CSV is written case by case; rerun it to resume).
# --exp-mpi NGPUS  run those experiments on the REAL node instead: `mpirun -np NGPUS arlab exp NAME`, one
#                  process per GPU of this host (NGPUS >= 2 GPUs visible), into OUTDIR/exp_mpi/NAME/ (logs
#                  exp_mpi_NAME.log); --exp-nranks does not apply (the node has NGPUS ranks). Each run is
#                  bounded by --exp-timeout and resumes where an earlier cut one stopped (same OUTDIR).
# --peers          also run the peers' gate smoke matrix before everything else: FlashInfer at its own
#                  configuration and at trtllm's (one- and two-shot), vLLM, beside arlab's reference and
#                  best, patterns ar / ar_res_rms / ar_res_rms_fp8 / ar_res_rms_out_fp8, TP 2/4/8, a few
#                  sizes; every run bounded by 90 s, into OUTDIR/peers.csv and peers.log.
# --vpt-rounds     also run scripts/vpt_rounds.sh, both sweeps (the one-shot rounds by vectors per thread, then
#                  by blocks: emulated TP2 and TP8) into OUTDIR/vpt_rounds.csv and OUTDIR/vpt_rounds_few_blocks.csv.
# --mixed          also run groups that mix algorithms: H {5120, 8192, 16384} x tokens {100, 256, 384},
#                  --policy legacy,trtllm,occupancy,model (the model may pick two-shot beside the others'
#                  one-shot) into OUTDIR/mixed.csv, and count the groups whose model pick was two-shot.
# Every step's real exit code is printed; the script exits non-zero when any step failed.
# --pack B DEST    copy from build tree B only what this script needs (CMake/CTest files, the arlab
#                  binary and the gpu test binaries) into DEST, to carry it cheaply.
# The GPU machine may lack fast-cpp-csv-parser: a copy at ./.carry/libfccp/csv.h is used when the
# system has none.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
repo=$PWD

if [ "${1:-}" = "--pack" ]; then
  src=${2:?--pack needs BUILD_DIR}; dest=$(realpath -m "${3:?--pack needs DEST}")
  rm -rf "$dest"; mkdir -p "$dest"
  (cd "$src" && find . \( -name CTestTestfile.cmake -o -name CMakeCache.txt -o -path ./cli/arlab -o -path ./tools/arlab_timer_probe \
      -o -name 'arlab_*gpu_test' \) -type f -print0 | xargs -0 -I{} cp --parents {} "$dest/")
  du -sh "$dest"
  exit 0
fi

out=${1:?usage: scripts/gpu-run.sh OUTDIR [--build-dir DIR] [--skip-tests] [--skip-bench]}; shift
build=""; run_tests=1; run_bench=1; test_timeout=600; tests_regex=""; run_seed=0; twoshot_ranks=""; mpi_gpus=0
run_probe=0; repeat_k=0; hold_ab=0; sanitize=0; soak_calls=0; fp32_norm=0; run_calibrate=0; exp_names=""; mixed=0
exp_nranks="2"; exp_timeout=500; run_peers=0; exp_mpi=0; calibrate_ranks="2"; vpt_rounds=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build=$2; shift 2 ;;
    --test-timeout) test_timeout=$2; shift 2 ;;
    --tests) tests_regex=$2; shift 2 ;;
    --skip-tests) run_tests=0; shift ;;
    --skip-bench) run_bench=0; shift ;;
    --seed) run_seed=1; shift ;;
    --twoshot) twoshot_ranks=$2; shift 2 ;;
    --mpi) mpi_gpus=$2; shift 2 ;;
    --probe) run_probe=1; shift ;;
    --repeat) repeat_k=$2; shift 2 ;;
    --hold-ab) hold_ab=1; shift ;;
    --sanitize) sanitize=1; shift ;;
    --fp32-norm) fp32_norm=1; shift ;;
    --soak) soak_calls=$2; shift 2 ;;
    --calibrate) run_calibrate=1; shift ;;
    --calibrate-ranks) calibrate_ranks=$2; shift 2 ;;
    --exp) exp_names=$2; shift 2 ;;
    --exp-nranks) exp_nranks=$2; shift 2 ;;
    --exp-timeout) exp_timeout=$2; shift 2 ;;
    --exp-mpi) exp_mpi=$2; shift 2 ;;
    --mixed) mixed=1; shift ;;
    --peers) run_peers=1; shift ;;
    --vpt-rounds) vpt_rounds=1; shift ;;
    *) echo "gpu-run: unknown option $1" >&2; exit 2 ;;
  esac
done
case "$exp_mpi" in ''|*[!0-9]*) echo "gpu-run: --exp-mpi needs a GPU count, got '$exp_mpi'" >&2; exit 2 ;; esac
[ -n "$calibrate_ranks" ] || { echo "gpu-run: --calibrate-ranks needs rank counts, got none" >&2; exit 2; }
for n in $calibrate_ranks; do
  case "$n" in ''|*[!0-9]*) echo "gpu-run: --calibrate-ranks needs rank counts, got '$n'" >&2; exit 2 ;; esac
done
if [ "$exp_mpi" -gt 0 ] && [ -z "$exp_names" ]; then
  echo "gpu-run: --exp-mpi $exp_mpi runs the experiments --exp names; none named" >&2; exit 2
fi
mkdir -p "$out"
export CUDA_DEVICE_MAX_CONNECTIONS=32   # docs/nodes.md: one hardware queue per rank stream
status=0

{ nvidia-smi; nvidia-smi -q -d CLOCK; } > "$out/nvidia-smi.txt" 2>&1 || true
echo "gpu-run: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')

# CUPTI (libcupti.so.13) lives in the toolkit's lib64 or extras/CUPTI, or in pip's nvidia-cuda-cupti:
# make sure the loader finds it for binaries built on another machine.
cupti_dir=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64; do
  if [ -e "$d/libcupti.so.13" ]; then cupti_dir=$d; break; fi
done
[ -z "$cupti_dir" ] && cupti_dir=$(dirname "$(find /usr /opt -name 'libcupti.so.13' 2>/dev/null | head -1)" 2>/dev/null)
[ -n "$cupti_dir" ] && export LD_LIBRARY_PATH="$cupti_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# ---- build (or adopt a carried build tree) ----
bin=""
if [ -n "$build" ]; then
  build=$(realpath "$build")
  cache_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
  cache_bld=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$build/CMakeCache.txt")
  for pair in "$cache_src|$repo" "$cache_bld|$build"; do
    want=${pair%%|*}; have=${pair##*|}
    if [ -n "$want" ] && [ "$want" != "$have" ] && [ ! -e "$want" ]; then
      mkdir -p "$(dirname "$want")" && ln -s "$have" "$want" && echo "gpu-run: linked $want -> $have"
    fi
  done
  if "$build/cli/arlab" --version > "$out/arlab-version.txt" 2>&1; then
    bin=$build
    echo "gpu-run: using the carried build tree $build ($(cat "$out/arlab-version.txt"))"
  else
    echo "gpu-run: the carried arlab does not run here ($(tail -1 "$out/arlab-version.txt")); building instead"
  fi
fi
if [ -z "$bin" ]; then
  bin=$repo/build-gpu-run
  fccp=()
  if [ ! -f /usr/include/libfccp/csv.h ] && [ -f "$repo/.carry/libfccp/csv.h" ]; then fccp=(-DFCCP_INCLUDE_DIR="$repo/.carry"); fi
  start=$(date +%s)
  cmake -S "$repo" -B "$bin" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${fccp[@]}" > "$out/configure.log" 2>&1 \
    && cmake --build "$bin" -j"$(nproc)" > "$out/build.log" 2>&1
  rc=$?
  echo "gpu-run: build exit $rc in $(( $(date +%s) - start )) s (log: build.log)"
  if [ $rc -ne 0 ]; then tail -30 "$out/build.log"; exit $rc; fi
fi
arlab=$bin/cli/arlab

# ---- the peers' gate smoke matrix (first: the newest code; each run bounded) ----
if [ $run_peers -eq 1 ]; then
  start=$(date +%s); : > "$out/peers.log"
  peers_run() {  # ARGS...: one `arlab run` into peers.csv, its exit code and the GATE/SUMMARY lines logged
    echo "== arlab run $*" >> "$out/peers.log"
    timeout 90 "$arlab" run "$@" --max-time 0.5 --csv "$out/peers.csv" --experiment peers_smoke >> "$out/peers.log" 2>&1
    local rc=$?
    echo "exit $rc" >> "$out/peers.log"
    [ $rc -ne 0 ] && status=1
  }
  for n in 2 4 8; do
    for th in "1 4096" "16 4096" "128 8192" "1024 7168"; do
      # shellcheck disable=SC2086  # "tokens hidden" split into two words on purpose
      set -- $th
      acc=pairwise; [ "$n" -gt 2 ] && acc=fp32_acc  # vLLM's fp32 sum is the reference's at N > 2 in fp32_acc only
      # vLLM beyond N = 2 only below its two-stage size (256 KiB at N = 8): there its sum is exact.
      vllm=(--baseline vllm); [ "$n" -gt 2 ] && [ $(( $1 * $2 * 2 )) -ge 262144 ] && vllm=()
      peers_run --ranks "$n" -t "$1" --hidden "$2" --acc "$acc" --policy flashinfer/flashinfer,trtllm,model/auto "${vllm[@]}"
    done
  done
  for pat in ar ar_res_rms_fp8 ar_res_rms_out_fp8; do
    peers_run --ranks 2 -t 64 --hidden 4096 --pattern "$pat" --policy flashinfer/flashinfer,trtllm
  done
  for n in 2 4; do
    peers_run --ranks "$n" -t 256 --hidden 8192 --acc fp32_acc --algo twoshot --policy trtllm/flashinfer,trtllm
  done
  echo "gpu-run: peers smoke matrix in $(( $(date +%s) - start )) s: $(grep -c '^exit 0' "$out/peers.log") of $(grep -c '^exit' "$out/peers.log") runs exit 0 (log: peers.log)"
fi

# ---- GPU tests ----
if [ $run_tests -eq 1 ]; then
  start=$(date +%s)
  (cd "$bin" && ctest -L gpu ${tests_regex:+-R "$tests_regex"} -V --timeout "$test_timeout") > "$out/ctest-gpu.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && status=1
  echo "gpu-run: gpu ctest exit $rc in $(( $(date +%s) - start )) s (log: ctest-gpu.log)"
fi

# ---- issue-4 benchmark ----
csv=$out/issue4_oneshot.csv
if [ $run_bench -eq 1 ]; then
  "$arlab" run --registers > "$out/registers.txt" 2>&1 || status=1
  common=(-n 2 -d bf16 --pattern ar_res_rms --graph-calls 64 --graph-reps 20 --csv "$csv"
          --ratios-csv "${csv%.csv}_ratios.csv" --experiment issue4_oneshot)
  runs=(
    "-t 128 --hidden 8192 --policy trtllm,legacy,occupancy"
    "-t 128 --hidden 4096 --policy trtllm,legacy,occupancy"
    "-t 1 --hidden 8192 --policy trtllm,legacy"
    "-t 1 --hidden 4096 --policy trtllm,legacy"
    "-t 128 --hidden 8192 --policy trtllm --pdl"
    "-t 128 --hidden 4096 --policy trtllm --pdl"
  )
  : > "$out/bench.log"
  for r in "${runs[@]}"; do
    # shellcheck disable=SC2086
    echo "\$ arlab run ${common[*]} $r" >> "$out/bench.log"
    # shellcheck disable=SC2086
    "$arlab" run "${common[@]}" $r >> "$out/bench.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then status=1; echo "  (exit $rc)" >> "$out/bench.log"; fi
  done
  echo "gpu-run: benchmark log bench.log, CSV $(basename "$csv")"
fi

# ---- the main experiment (seed), the one- vs two-shot crossover, the real node under mpirun ----
if [ $run_probe -eq 1 ]; then
  "$bin/tools/arlab_timer_probe" > "$out/timer_probe.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && status=1
  echo "gpu-run: timer probe exit $rc (log: timer_probe.log)"
fi
if [ $fp32_norm -eq 1 ]; then
  : > "$out/fp32_norm.log"
  for h in 1024 4096 16384; do
    for n in 2 8; do
      for algo in oneshot twoshot; do
        "$arlab" run -n "$n" -t 512 --hidden "$h" -d fp32 --pattern ar_res_rms --algo "$algo" --policy trtllm \
          --no-timing --csv "$out/fp32_norm.csv" --experiment fp32_norm 2>&1 | grep -E "check|error" >> "$out/fp32_norm.log"
        rc=${PIPESTATUS[0]}; [ "$rc" -ne 0 ] && { status=1; echo "  (exit $rc)" >> "$out/fp32_norm.log"; }
      done
    done
  done
  echo "gpu-run: fp32 norm_out ulps (log: fp32_norm.log)"
fi
if [ "$soak_calls" -gt 0 ]; then
  start=$(date +%s)
  for pattern in ar_res_rms ar; do
    timeout 300 "$arlab" soak -n 2 --hidden 4096 --pattern "$pattern" --calls "$soak_calls" --csv "$out/soak.csv" \
      >> "$out/soak.log" 2>&1
    rc=$?; [ $rc -ne 0 ] && status=1
    echo "gpu-run: soak $pattern exit $rc"
  done
  grep -E "SOAK|fault|error" "$out/soak.log"
  echo "gpu-run: soak in $(( $(date +%s) - start )) s (log: soak.log)"
fi
if [ $run_calibrate -eq 1 ]; then
  # `arlab calibrate` (under 3 minutes on an H200): the emulated node, then one process per GPU.
  for n in $calibrate_ranks; do
    name=calibrate_emulated; [ "$n" != 2 ] && name=calibrate_emulated_n$n
    start=$(date +%s)
    timeout 300 "$arlab" calibrate -n "$n" --out-dir "$out/$name" > "$out/$name.log" 2>&1
    rc=$?; [ $rc -ne 0 ] && status=1
    echo "gpu-run: calibrate (emulated node, $n ranks) exit $rc in $(( $(date +%s) - start )) s (log: $name.log)"
  done
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  if [ "$ngpu" -ge 2 ]; then
    start=$(date +%s)
    mkdir -p "$out/calibrate_mpi"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 \
      mpirun -np 2 --allow-run-as-root --oversubscribe "$arlab" calibrate --out-dir "$out/calibrate_mpi" \
      > "$out/calibrate_mpi.log" 2>&1
    rc=$?; [ $rc -ne 0 ] && status=1
    echo "gpu-run: calibrate (mpirun -np 2) exit $rc in $(( $(date +%s) - start )) s (log: calibrate_mpi.log)"
  else
    echo "gpu-run: calibrate under mpirun needs 2 GPUs; $ngpu visible: skipped"
  fi
  grep -hE "bench |cross-rank|all benches|wrote|error|WARNING" "$out"/calibrate_*.log
fi
if [ $sanitize -eq 1 ]; then
  # One process per GPU under mpirun, checks only (--no-timing): compute-sanitizer makes launches
  # blocking, so the timing loop's host hold (released after the whole batch is queued) waits for
  # the host until its timeout, and on one GPU the emulated node's co-running ranks timed out too
  # (both seen on 2 H200s, commit 51cd276).
  start=$(date +%s)
  : > "$out/sanitize.log"
  san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  if [ "$ngpu" -lt 2 ]; then
    echo "gpu-run: --sanitize needs 2 GPUs (one process per rank under mpirun); $ngpu visible: skipped" | tee -a "$out/sanitize.log"
  else
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
    for tool in memcheck racecheck synccheck initcheck; do
      for algo in oneshot twoshot; do
        for pattern in ar ar_res_rms_fp8 ar_res_rms_out_fp4; do
          args=(run -n 2 -t 37 --hidden 2048 --algo "$algo" --pattern "$pattern" --no-timing --timeout-ms 15000)
          echo "\$ mpirun -np 2 compute-sanitizer --tool $tool arlab ${args[*]}" >> "$out/sanitize.log"
          timeout 60 mpirun -np 2 --allow-run-as-root --oversubscribe "$san" --tool "$tool" --error-exitcode 9 \
            "$arlab" "${args[@]}" >> "$out/sanitize.log" 2>&1
          rc=$?; [ $rc -ne 0 ] && status=1
          echo "sanitize $tool $algo $pattern: exit $rc" | tee -a "$out/sanitize.log"
        done
      done
    done
  fi
  echo "gpu-run: compute-sanitizer in $(( $(date +%s) - start )) s (log: sanitize.log)"
fi
if [ $run_seed -eq 1 ]; then
  start=$(date +%s)
  timeout 420 "$arlab" seed --mode measure --out-dir "$out/seed" > "$out/seed.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && status=1
  echo "gpu-run: seed experiment exit $rc in $(( $(date +%s) - start )) s (log: seed.log)"
  py=$(scripts/find-python.sh 2>/dev/null || echo python3)
  # the measured rows give the CIs and the commit; the calibration as arlab seed printed it
  seed_cal=$(sed -n 's/^  calibration: \(.*\); out: .*/\1/p' "$out/seed.log")
  "$py" plots/plot_seed.py --csv "$out/seed/validation.csv" --out "$out/seed/seed" --measured "$out/seed/measured.csv" \
    --calibration-label "${seed_cal:-as arlab seed used it}" >> "$out/seed.log" 2>&1 || true
fi
if [ -n "$exp_names" ] && [ "$exp_mpi" -eq 0 ]; then
  for name in $exp_names; do
    start=$(date +%s)
    # shellcheck disable=SC2086  # the rank counts are words
    timeout "$exp_timeout" "$arlab" exp "$name" --nranks $exp_nranks --out-dir "$out/exp" --no-plots > "$out/exp_$name.log" 2>&1
    rc=$?; [ $rc -ne 0 ] && status=1
    echo "gpu-run: arlab exp $name exit $rc in $(( $(date +%s) - start )) s (log: exp_$name.log)"
  done
fi
if [ -n "$exp_names" ] && [ "$exp_mpi" -gt 0 ]; then
  # The real node: one process per GPU (docs/nodes.md, "A real node, when one is lent"). Open MPI as
  # root needs the flags below; --bind-to none leaves each process free to run beside its GPU's driver
  # threads; NVLink multicast (NVLS) stays off.
  if [ "$ngpu" -lt "$exp_mpi" ] || [ "$exp_mpi" -lt 2 ]; then
    echo "gpu-run: --exp-mpi $exp_mpi needs 2 or more GPUs and at most the $ngpu visible: experiments skipped"
    status=1
  else
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
    nvidia-smi topo -m > "$out/topo.txt" 2>&1 || true
    for name in $exp_names; do
      start=$(date +%s)
      timeout "$exp_timeout" mpirun -np "$exp_mpi" --allow-run-as-root --bind-to none "$arlab" exp "$name" \
        --out-dir "$out/exp_mpi" --no-plots > "$out/exp_mpi_$name.log" 2>&1
      rc=$?; [ $rc -ne 0 ] && status=1
      echo "gpu-run: mpirun -np $exp_mpi arlab exp $name exit $rc in $(( $(date +%s) - start )) s (log: exp_mpi_$name.log)"
    done
  fi
fi
if [ $mixed -eq 1 ]; then
  start=$(date +%s)
  : > "$out/mixed.log"
  for h in 5120 8192 16384; do
    for t in 100 256 384; do
      "$arlab" run -n 2 -t "$t" --hidden "$h" --policy legacy,trtllm,occupancy,model --graph-calls 0 \
        --csv "$out/mixed.csv" --experiment mixed >> "$out/mixed.log" 2>&1
      rc=$?; [ $rc -ne 0 ] && { status=1; echo "  (exit $rc)" >> "$out/mixed.log"; }
    done
  done
  echo "gpu-run: mixed-algorithm groups in $(( $(date +%s) - start )) s (log: mixed.log)"
fi
if [ $hold_ab -eq 1 ]; then
  start=$(date +%s)
  : > "$out/hold_ab.log"
  for t in 1 128; do
    for mode in hold no-hold; do
      for _ in 1 2 3; do
        extra=(); [ $mode = no-hold ] && extra=(--no-host-hold)
        "$arlab" run -n 2 -t "$t" --hidden 8192 --policy trtllm --graph-calls 0 --csv "$out/hold_ab.csv" \
          --experiment "hold_ab_$mode" "${extra[@]}" 2>&1 | grep -E "SUMMARY|WARNING|error" >> "$out/hold_ab.log"
        rc=${PIPESTATUS[0]}; [ "$rc" -ne 0 ] && { status=1; echo "  (exit $rc)" >> "$out/hold_ab.log"; }
      done
    done
  done
  echo "gpu-run: host-hold A/B in $(( $(date +%s) - start )) s (log: hold_ab.log)"
fi
if [ "$repeat_k" -gt 0 ]; then
  start=$(date +%s)
  timeout 560 scripts/repeatability.sh "$arlab" "$out/repeatability.csv" --k "$repeat_k" --mpi "$mpi_gpus" \
    > "$out/repeatability.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && status=1
  echo "gpu-run: repeatability exit $rc in $(( $(date +%s) - start )) s (log: repeatability.log)"
fi
if [ -n "$twoshot_ranks" ]; then
  start=$(date +%s)
  # shellcheck disable=SC2086
  timeout 300 scripts/twoshot_sweep.sh "$arlab" "$out/twoshot_crossover.csv" $twoshot_ranks > "$out/twoshot.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && status=1
  echo "gpu-run: two-shot sweep (N = $twoshot_ranks) exit $rc in $(( $(date +%s) - start )) s (log: twoshot.log)"
fi
if [ "$vpt_rounds" -eq 1 ]; then
  start=$(date +%s)
  { timeout 200 scripts/vpt_rounds.sh "$arlab" "$out/vpt_rounds.csv" &&
      timeout 200 scripts/vpt_rounds.sh "$arlab" "$out/vpt_rounds_few_blocks.csv" --few-blocks; } > "$out/vpt_rounds.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && status=1
  echo "gpu-run: vectors-per-thread and few-block sweeps exit $rc in $(( $(date +%s) - start )) s (log: vpt_rounds.log)"
fi
if [ "$mpi_gpus" -ge 2 ]; then
  start=$(date +%s)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
  nvidia-smi topo -m > "$out/topo.txt" 2>&1 || true
  MPIRUN_FLAGS="--allow-run-as-root --oversubscribe" timeout 200 scripts/mpi_seed.sh mpirun "$arlab" "$out/seed_mpi.csv" "$mpi_gpus" \
    > "$out/mpi.log" 2>&1
  rc=$?; [ $rc -ne 0 ] && status=1
  echo "gpu-run: mpirun seed case on $mpi_gpus GPUs exit $rc in $(( $(date +%s) - start )) s (log: mpi.log)"
fi

# ---- summary (last) ----
if [ $run_tests -eq 1 ]; then
  echo "== GPU tests =="
  grep -E "tests passed|tests failed|correctness matrix:|Test +#|\*\*\*|FAILED|FAIL\]" "$out/ctest-gpu.log" | tail -20
fi
if [ -f "$csv" ]; then
  echo "== issue-4 benchmark (emulated TP2, bf16 ar_res_rms; kernel = median of max over ranks) =="
  python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{'H':>5} {'tok':>4} {'policy':>9} {'pdl':>3} {'tpb/cs/grid':>12} {'check':>5} {'kernel_us':>9} {'ci_lo':>7} {'ci_hi':>7} {'noise%':>6} {'skewfree':>8} {'graph/call':>10} {'model':>7} {'src':>5}")
t = {}
for r in rows:
    f = lambda k: float(r[k]) if r[k] not in ("", "nan") else float("nan")
    cfg = f"{r['tpb']}/{r['cluster']}/{r['grid']}"
    print(f"{r['hidden']:>5} {r['tokens']:>4} {r['policy']:>9} {r['pdl']:>3} {cfg:>12} {r['check']:>5} {f('kernel_us_median'):9.3f} "
          f"{f('kernel_us_ci_lo'):7.3f} {f('kernel_us_ci_hi'):7.3f} {f('noise_pct'):6.2f} {f('skewfree_us_median'):8.3f} "
          f"{f('graph_us_per_call'):10.2f} {f('predicted_us'):7.2f} {r['timing_source']:>5}")
    if r['tokens'] == '128' and r['pdl'] == '0':
        t[(r['hidden'], r['policy'])] = f('kernel_us_median')
for h in ('8192', '4096'):
    if (h, 'legacy') in t and (h, 'trtllm') in t:
        print(f"H {h}, 128 tokens: legacy {t[(h,'legacy')]:.2f} us / trtllm {t[(h,'trtllm')]:.2f} us = {t[(h,'legacy')]/t[(h,'trtllm')]:.2f}x")
PY
fi
if [ -f "${csv%.csv}_ratios.csv" ]; then
  echo "== in-process ratios (RATIO lines) =="; grep -h "^RATIO" "$out/bench.log"
fi
[ -f "$out/timer_probe.log" ] && { echo "== timer probe =="; cat "$out/timer_probe.log"; }
[ -f "$out/hold_ab.log" ] && { echo "== host hold A/B (1 and 128 tokens, H 8192) =="; sed 's/ | graph.*//; s/SUMMARY oneshot //' "$out/hold_ab.log"; }
if [ -f "$out/repeatability.csv" ]; then
  echo "== repeatability =="
  python3 plots/repeatability_table.py "$out/repeatability.csv" "$out/repeatability_ratios.csv" --goal
fi
if [ -f "$out/seed.log" ]; then
  echo "== seed experiment (arlab seed --mode measure) =="
  grep -E "seed H|MAPE|regret|measured [0-9]+ case|refused|WARNING|FAILED" "$out/seed.log" | tail -16
fi
if [ -f "$out/peers.csv" ]; then
  echo "== peers smoke matrix (gate verdicts) =="
  grep -E "^== arlab run|^exit|GATE|FAIL|error|refus" "$out/peers.log" | tail -60
fi
for name in $exp_names; do
  for log in "$out/exp_$name.log" "$out/exp_mpi_$name.log"; do
    [ -f "$log" ] && { echo "== $(basename "$log" .log) =="; grep -E "^# |speedup|geomean|case\(s\) run|GATE|error" "$log" | tail -24; }
  done
done
if [ -f "$out/mixed.csv" ]; then
  echo "== mixed-algorithm groups =="
  python3 - "$out/mixed.csv" <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
groups = collections.defaultdict(list)
for r in rows: groups[r['group_id']].append(r)
mixed = sum(1 for g in groups.values() if len({r['algo'] for r in g}) > 1)
fails = sum(1 for r in rows if r['check'] != 'pass')
print(f"{len(groups)} groups, {len(rows)} rows, {mixed} groups mixing one- and two-shot, {fails} rows failing the gate")
for g in groups.values():
    m = [r for r in g if r['policy'] == 'model']
    t = [r for r in g if r['policy'] == 'trtllm']
    if m and t:
        print(f"  H {m[0]['hidden']:>5} T {m[0]['tokens']:>3}: model {m[0]['algo']} {m[0]['tpb']}/{m[0]['cluster']}/{m[0]['grid']} "
              f"{float(m[0]['skewfree_us_median']):.2f} us vs trtllm {float(t[0]['skewfree_us_median']):.2f} us")
PY
fi
for f in twoshot mpi; do
  [ -f "$out/$f.log" ] && { echo "== $f =="; grep -E "SUMMARY|FAIL|error" "$out/$f.log" | sed 's/ | graph.*//' | tail -40; }
done
echo "gpu-run: exit $status"
exit $status
