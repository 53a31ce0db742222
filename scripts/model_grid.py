#!/usr/bin/env python3
"""The model-validation grid: fused-kernel measurements on problems and configurations that no
calibration uses (`arlab calibrate` sets the model's constants from microbenchmarks only), on one
node type per call. Every case is one `arlab run` process measuring several configurations
interleaved (policies first, then explicit configurations), appending to one measurement CSV.

  scripts/model_grid.py --arlab build/cli/arlab --node emulated --csv OUT.csv [--list] [--only GROUP,...]
  scripts/model_grid.py --arlab build/cli/arlab --node mpi --mpirun "mpirun -np 2 ..." --csv OUT.csv

Groups (the `experiment` column):
  grid_seed       bf16 ar_res_rms one-shot TP2, H {4096, 8192} x tokens {1, 8, 32, 64, 128, 256, 512},
                  policies trtllm, legacy, occupancy
  grid_sweep      explicit configurations (cluster 1/2/4/8 x vectors per thread 1/2/4 x 3 grid sizes,
                  every legal one) at six problems, trtllm first
  grid_heldout    H {2048, 5120, 7168, 16384} x tokens {1, 5, 24, 100, 200, 1000}, three policies
  grid_twoshot    two-shot, H {4096, 8192} x tokens {128, 512, 2048}, trtllm and legacy (TP2; the
                  emulated node also TP4)
  grid_patterns   ar, ar_res_rms_fp8, ar_res_rms_fp4 at (128, 8192) and (16, 4096), trtllm and legacy
  grid_latency    the latency regime: TP2 tokens {1, 4} x H {2048, 4096, 5120, 7168, 8192, 16384} (the
                  emulated node also TP8 at 1 token x H {4096, 8192}); FlashInfer at its own configuration
                  first, then the reference and lean bodies at trtllm, at the model's pick (model/auto) and
                  at every cluster size and vectors per thread of one cluster per token (both bodies)
With --with-model CAL the one-shot groups also measure the model policy's own pick (calibration CAL),
interleaved with the others, so its regret is against the best measured configuration of the same group.
Explicit configurations are kept only when `arlab predict` accepts them for the node's SM count.
Exit status: non-zero when any case failed (the others still ran); failures are listed at the end.
"""
import argparse
import shlex
import subprocess
import sys
import time

POLICIES = "trtllm,legacy,occupancy"
SWEEP_PROBLEMS = [(128, 8192), (128, 4096), (32, 8192), (512, 8192), (16, 4096), (256, 5120)]
VEC_BYTES = 16


def legal(arlab, node, tokens, hidden, tpb, cluster, grid, vpt):
    cmd = [arlab, "predict", "-t", str(tokens), "--hidden", str(hidden), "--policy", "explicit", "--tpb", str(tpb),
           "--cluster", str(cluster), "--grid", str(grid), "--vpt", str(vpt), "--no-terms"]
    if node == "emulated":
        cmd.append("--emulated")
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def sweep_configs(arlab, node, tokens, hidden, sms):
    """tpb/cluster/grid/vpt strings: every cluster size and vectors per thread whose block size is
    32..1024 threads, at three cluster counts (all tokens' clusters capped by the SMs, half, an eighth)."""
    vecs = hidden * 2 // VEC_BYTES  # bf16
    out = []
    for cluster in (1, 2, 4, 8):
        for vpt in (1, 2, 4):
            if vecs % (cluster * vpt):
                continue
            tpb = vecs // (cluster * vpt)
            if tpb < 32 or tpb > 1024:
                continue
            full = max(1, min(tokens, sms // cluster))
            for clusters in sorted({full, max(1, full // 2), max(1, full // 8)}, reverse=True):
                grid = clusters * cluster
                if legal(arlab, node, tokens, hidden, tpb, cluster, grid, vpt):
                    out.append(f"{tpb}/{cluster}/{grid}/{vpt}")
    return out


def latency_configs(arlab, node, tokens, hidden, sms):
    """tpb/cluster/grid/vpt strings of one cluster per token: cluster 1/2/4/8 x vectors per thread 1/2/4,
    blocks of 32..1024 threads."""
    vecs = hidden * 2 // VEC_BYTES  # bf16
    out = []
    for cluster in (1, 2, 4, 8):
        for vpt in (1, 2, 4):
            tpb = -(-vecs // (cluster * vpt))
            if tpb < 32 or tpb > 1024 or (vpt > 1 and tpb * cluster * (vpt - 1) >= vecs):
                continue  # vpt > 1 only where the thread really has that many vectors
            grid = tokens * cluster
            if grid <= sms and legal(arlab, node, tokens, hidden, tpb, cluster, grid, vpt):
                out.append(f"{tpb}/{cluster}/{grid}/{vpt}")
    return out


def latency_cases(arlab, node, sms):
    problems = [(2, t, h) for t in (1, 4) for h in (2048, 4096, 5120, 7168, 8192, 16384)]
    if node == "emulated":
        problems += [(8, 1, h) for h in (4096, 8192)]
    out = []
    for n, tokens, hidden in problems:
        rank_sms = sms if node != "emulated" else sms * 2 // n
        args = ["-n", str(n), "-t", str(tokens), "--hidden", str(hidden), "--policy",
                "flashinfer/flashinfer,trtllm,model/auto", "--kernel", "reference,lean"]
        for cfg in latency_configs(arlab, node, tokens, hidden, rank_sms):
            args += ["--config", cfg]
        out.append(("grid_latency", args))
    return out


def cases(arlab, node, sms):
    """(group, extra arlab-run arguments) in measurement order."""
    out = []
    for hidden in (4096, 8192):
        for tokens in (1, 8, 32, 64, 128, 256, 512):
            out.append(("grid_seed", ["-t", str(tokens), "--hidden", str(hidden), "--policy", POLICIES]))
    for tokens, hidden in SWEEP_PROBLEMS:
        args = ["-t", str(tokens), "--hidden", str(hidden), "--policy", "trtllm"]
        for cfg in sweep_configs(arlab, node, tokens, hidden, sms):
            args += ["--config", cfg]
        out.append(("grid_sweep", args))
    for hidden in (2048, 5120, 7168, 16384):
        for tokens in (1, 5, 24, 100, 200, 1000):
            out.append(("grid_heldout", ["-t", str(tokens), "--hidden", str(hidden), "--policy", POLICIES]))
    ranks = (2, 4) if node == "emulated" else (2,)
    for n in ranks:
        for hidden in (4096, 8192):
            for tokens in (128, 512, 2048):
                out.append(("grid_twoshot", ["-n", str(n), "--algo", "twoshot", "-t", str(tokens), "--hidden",
                                             str(hidden), "--policy", "trtllm,legacy"]))
    for pattern in ("ar", "ar_res_rms_fp8", "ar_res_rms_fp4"):
        for tokens, hidden in ((128, 8192), (16, 4096)):
            out.append(("grid_patterns", ["--pattern", pattern, "-t", str(tokens), "--hidden", str(hidden),
                                          "--policy", "trtllm,legacy"]))
    return out + latency_cases(arlab, node, sms)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arlab", required=True, help="the arlab binary")
    ap.add_argument("--node", required=True, choices=["emulated", "mpi"])
    ap.add_argument("--mpirun", default="", help="launcher prefix for --node mpi (e.g. 'mpirun -np 2 ...')")
    ap.add_argument("--csv", required=True, help="measurement CSV to append to")
    ap.add_argument("--ratios-csv", default="", help="ratio CSV to append to")
    ap.add_argument("--sms", type=int, default=0, help="SMs per rank for the sweep (default 64 emulated, 132 mpi)")
    ap.add_argument("--only", default="", help="comma-separated groups to run (default: all)")
    ap.add_argument("--list", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--extra", default="", help="extra arlab run arguments (e.g. '--max-time 1')")
    ap.add_argument("--with-model", default="", metavar="CALIBRATION",
                    help="also measure the model policy's own pick (with this calibration) in every case of the "
                         "one-shot groups, first in the interleaved group")
    a = ap.parse_args()
    if a.node == "mpi" and not a.mpirun:
        ap.error("--node mpi needs --mpirun")
    sms = a.sms or (64 if a.node == "emulated" else 132)
    only = set(filter(None, a.only.split(",")))
    todo = [(g, args) for g, args in cases(a.arlab, a.node, sms) if not only or g in only]
    failures = []
    start = time.time()
    for i, (group, args) in enumerate(todo):
        cmd = shlex.split(a.mpirun) if a.node == "mpi" else []
        if a.with_model and "--algo" not in args and group != "grid_latency":
            i = args.index("--policy") + 1
            args = args[:i] + ["model," + args[i]] + args[i + 1:] + ["--calibration", a.with_model]
        cmd += [a.arlab, "run", *args, "--experiment", group, "--csv", a.csv, *shlex.split(a.extra)]
        if a.ratios_csv:
            cmd += ["--ratios-csv", a.ratios_csv]
        line = " ".join(shlex.quote(c) for c in cmd)
        if a.list:
            print(line)
            continue
        t0 = time.time()
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        el = time.time() - start
        eta = el / (i + 1) * (len(todo) - i - 1)
        print(f"[{i + 1}/{len(todo)}] {group} rc={rc.returncode} {time.time() - t0:.1f} s "
              f"(elapsed {el:.0f} s, eta {eta:.0f} s): {' '.join(args)}", file=sys.stderr, flush=True)
        if rc.returncode != 0:
            failures.append((line, rc.stderr.strip().splitlines()[-3:]))
    for line, err in failures:
        print(f"FAILED: {line}\n  " + "\n  ".join(err), file=sys.stderr)
    if not a.list:
        print(f"{len(todo) - len(failures)}/{len(todo)} cases ok in {time.time() - start:.0f} s", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
