#!/usr/bin/env python3
"""The fused bodies' measured phases beside the model's terms (docs/model.md, "Session 56").

Usage: phase_table.py OUTDIR ARLAB [--calibration FILE]

OUTDIR is what scripts/phase_probe.sh wrote with a phase_stamps probe build: OUTDIR/phase.csv (one row per
measured configuration) and OUTDIR/logs/*.log (or *.log.gz), whose ARLAB_PHASE lines (kernels/phase_stamps.cuh) hold, per
sampled call and block, thread 0's cycle counts from the block's first stamp to each later one. ARLAB is an
arlab binary (a CPU build will do) whose `predict --csv` gives the model's terms of each row's configuration
on the row's GPU (emulated node; --calibration: the file predict takes, default its own `auto`).

Per configuration, block index and sampled call (a block index's sampled calls are the same calls on every
rank), the rank whose block started last (%globaltimer at the first stamp, `t0`): the headline time runs from
the last rank's start, and an earlier rank's first wait holds its lead. Per block index, the median over its
sampled calls (at least --min-samples) of that rank's stamps; the block whose last stamp is then latest is the
call's slowest block, and its phases are printed in microseconds at the row's SM clock (sm_clock_mhz_start),
beside the terms that price them (--typical: the median over every rank and block of each stamp instead):
  reference two-shot: copy | barrier_1 | reduce_scatter | barrier_2 | epilogue, each against the term of
    that name;
  lean two-shot: push (thread 0's pushes issued) against `push`; the owned rows (stage 2) and the other
    rows (stage 3) together against first_wait + grid + rounds + second_wait;
  both one-shot bodies: push (thread 0's pushes issued) against `push`, its clear pass (the lean body's only
    after a reference call) against `clear`, the token rounds against first_wait + grid + reduce.
Lines of the probe's third version (session 57) also hold the entry and the exit (kernels/phase_stamps.cuh):
`prologue` (the kernel's first instruction to the body's first stamp) against the term `prologue`, and `exit`
(the body's last stamp to thread 0's last instruction, after the closing cluster barrier) against `exit`.
`outside` is the measured kernel time (skew-free median) less the stamped span, against the terms not
stamped (launch, ranks, drain; exit and prologue where the line has no entry and exit).

--barriers: the reference two-shot's rows only: the late rank's wait at each barrier beside how much later than
its own the last peer's block ended the phase before it (%globaltimer at entry + the cycles to that stamp),
medians over the sampled calls of every block index: a wait that the peers' lateness does not explain is the
barrier's own.

--hooks-cost DEFAULT_CSV: what the probe costs a call: each fused row of OUTDIR/phase.csv beside the same row
(body, algorithm, problem, configuration, policy) of DEFAULT_CSV, the same list run with a default build on
the same GPU, skew-free medians (ARLAB is not run).

--summary: instead of the rows, per body, algorithm and N the geometric mean over the rows of measured / model for the
whole call and for each phase (a phase the model prices at 0 is left out).
"""
import argparse
import collections
import csv
import glob
import gzip
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

PATTERNS = ["ar", "ar_res_rms", "ar_res_rms_fp8", "ar_res_rms_fp4", "ar_res_rms_out_fp8", "ar_res_rms_out_fp4"]
# body name in the ARLAB_PHASE line -> (kernel_variant, algo, [(phase, first stamp, last stamp, model terms)])
BODIES = {
    "reference2": ("reference", "twoshot", [("copy", 0, 1, ["copy"]), ("barrier_1", 1, 2, ["barrier_1"]),
                                            ("reduce_scatter", 2, 3, ["reduce_scatter"]),
                                            ("barrier_2", 3, 4, ["barrier_2"]), ("epilogue", 4, 5, ["epilogue"])]),
    "lean2": ("lean", "twoshot", [("push", 0, 1, ["push"]),
                                  ("rounds", 1, 3, ["first_wait", "grid", "rounds", "second_wait"])]),
    "reference1": ("reference", "oneshot", [("push", 0, 1, ["push"]), ("clear", 1, 2, ["clear"]),
                                            ("rounds", 2, 3, ["first_wait", "grid", "reduce"])]),
    "lean1": ("lean", "oneshot", [("push", 0, 1, ["push"]), ("clear", 1, 2, ["clear"]),
                                  ("rounds", 2, 3, ["first_wait", "grid", "reduce"])]),
}
LINE = re.compile(r"ARLAB_PHASE body=(\w+) n=(\d+) pattern=(\d+) rank=(\d+) block=(\d+) tokens=(\d+) hidden=(\d+) "
                  r"tpb=(\d+) cluster=(\d+) grid=(\d+) vpt=(\d+) call=(\d+) smid=(\d+) t0=(\d+) stamps=([-\d,]+)")


NO_STAMP = float("nan")  # the prologue and exit of lines from before the entry and exit stamps
BODY_SLOTS = 6  # the body's stamps a normalized record holds (the reference two-shot's six), then prologue and exit


def normalized(body, values):
    """A line's stamps as [the body's stamps from its first (6, 0 past its last), prologue, exit] in cycles: lines of
    five values count from the body's first stamp and have no entry or exit; lines of seven count from the entry
    (kernels/phase_stamps.cuh), the exit in the slot after the body's last stamp."""
    if body not in BODIES:
        sys.exit(f"phase_table: an ARLAB_PHASE line of an unknown body '{body}' (known: {', '.join(BODIES)})")
    if len(values) == BODY_SLOTS - 1:
        return [0] + values + [NO_STAMP, NO_STAMP]
    if len(values) != BODY_SLOTS + 1:
        sys.exit(f"phase_table: an ARLAB_PHASE line with {len(values)} stamps (5 or 7 expected)")
    last = BODIES[body][2][-1][2]  # the body's last stamp index
    at = [0] + values  # from the entry
    body_stamps = [at[1 + i] - at[1] for i in range(last + 1)] + [0] * (BODY_SLOTS - 1 - last)
    return body_stamps + [at[1], at[last + 2] - at[last + 1]]


def read_phases(outdir):
    """{(body, n, pattern, tokens, hidden, tpb, cluster, grid, vpt): {(block, call): {rank: (t0, normalized stamps)}}}"""
    got = collections.defaultdict(lambda: collections.defaultdict(dict))
    logs = sorted(glob.glob(os.path.join(outdir, "logs", "*.log")) + glob.glob(os.path.join(outdir, "logs", "*.log.gz")))
    for log in logs:
        with (gzip.open(log, "rt", errors="replace") if log.endswith(".gz") else open(log, errors="replace")) as f:
            for line in f:
                m = LINE.search(line)
                if not m:
                    continue
                g = m.groups()
                key = (g[0], int(g[1]), PATTERNS[int(g[2])], int(g[5]), int(g[6]), int(g[7]), int(g[8]), int(g[9]),
                       int(g[10]))
                got[key][(int(g[4]), int(g[11]))][int(g[3])] = (int(g[13]),
                                                                normalized(g[0], [int(v) for v in g[14].split(",")]))
    return got


def slowest_block_of_late_rank(calls, last, min_samples):
    """Per block index, the median over its calls of the late rank's stamps; the block whose last is latest."""
    per_block = collections.defaultdict(list)
    for (block, _), ranks in calls.items():
        per_block[block].append(max(ranks.values(), key=lambda v: v[0])[1])
    kept = {b: v for b, v in per_block.items() if len(v) >= min_samples}
    if not kept:
        return None, 0, 0
    medians = {b: [statistics.median(s[i] for s in v) for i in range(BODY_SLOTS + 2)] for b, v in kept.items()}
    block = max(medians, key=lambda b: medians[b][last])
    return medians[block], min(len(v) for v in kept.values()), len(kept)


def typical_block(calls):
    every = [v[1] for ranks in calls.values() for v in ranks.values()]
    return [statistics.median(s[i] for s in every) for i in range(BODY_SLOTS + 2)], len(every), len(calls)


def print_barriers(phases, outdir):
    with open(os.path.join(outdir, "phase.csv")) as f:
        mhz = {(r["nranks"], r["pattern"], r["tokens"], r["hidden"], r["tpb"], r["cluster"], r["grid"], r["vecs_per_thread"]):
               float(r["sm_clock_mhz_start"]) for r in csv.DictReader(f) if r["kernel_variant"] == "reference"}
    print("| N | pattern | H x tokens | tpb/cluster/grid/vpt | barrier 1: wait us (the last peer later by) | "
          "barrier 2: wait us (the last peer later by) | calls x blocks |")
    print("|---|---|---|---|---|---|---|")
    for key, calls in sorted(phases.items(), key=lambda kv: kv[0][1:]):
        if key[0] != "reference2":
            continue
        clock = mhz[tuple(str(v) for v in key[1:])] / 1000.0  # cycles per ns
        cols = {1: ([], []), 2: ([], [])}
        for ranks in calls.values():
            if len(ranks) < key[1]:
                continue
            late = max(ranks, key=lambda r: ranks[r][0])
            for barrier, before, after in ((1, 1, 2), (2, 3, 4)):
                ended = {r: t0 + stamps[before] / clock for r, (t0, stamps) in ranks.items()}
                waits, later = cols[barrier]
                waits.append((ranks[late][1][after] - ranks[late][1][before]) / clock / 1000.0)
                later.append((max(ended.values()) - ended[late]) / 1000.0)
        if not cols[1][0]:
            continue
        cells = [f"{statistics.median(w):.2f} ({statistics.median(l):.2f})" for w, l in (cols[1], cols[2])]
        print(f"| {key[1]} | {key[2]} | {key[4]} x {key[3]} | {key[5]}/{key[6]}/{key[7]}/{key[8]} | {cells[0]} | {cells[1]} | "
              f"{len(cols[1][0])} |")


ROW_KEY = ["kernel_variant", "algo", "nranks", "pattern", "hidden", "tokens", "tpb", "cluster", "grid", "vecs_per_thread",
           "policy"]


def fused_rows(path):
    if not os.path.isfile(path):
        sys.exit(f"phase_table: no file {path}")
    with open(path) as f:
        reader = csv.DictReader(f)
        missing = [c for c in ROW_KEY + ["implementation", "skewfree_us_median"] if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"phase_table: {path} is not a measurement CSV (common/measurement_schema.h): no column {missing[0]}")
        return {tuple(r[c] for c in ROW_KEY): float(r["skewfree_us_median"]) for r in reader
                if r["implementation"] == "fused" and r["kernel_variant"] in ("reference", "lean")}


def print_hooks_cost(probe_csv, default_csv):
    """Each row's skew-free median with the probe build over the same row with a default build (> 1: the hooks cost)."""
    probe, default = fused_rows(probe_csv), fused_rows(default_csv)
    both = [k for k in probe if k in default]
    if not both:
        sys.exit(f"phase_table: no fused row of {probe_csv} is also in {default_csv}")
    print("| body | algorithm | N | pattern | H x tokens | tpb/cluster/grid/vpt (policy) | probe us | default us | probe / default |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = collections.defaultdict(list)
    for k in both:
        variant, algo, n, pattern, hidden, tokens, tpb, cluster, grid, vpt, policy = k
        ratio = probe[k] / default[k]
        ratios[(variant, algo)].append(ratio)
        print(f"| {variant} | {algo} | {n} | {pattern} | {hidden} x {tokens} | {tpb}/{cluster}/{grid}/{vpt} ({policy}) | "
              f"{probe[k]:.2f} | {default[k]:.2f} | {ratio:.3f} |")
    print()
    print("| body | algorithm | rows | probe / default: geometric mean (min - max) |")
    print("|---|---|---|---|")
    for (variant, algo), v in sorted(ratios.items()):
        print(f"| {variant} | {algo} | {len(v)} | {statistics.geometric_mean(v):.3f} ({min(v):.3f} - {max(v):.3f}) |")


def gpu_preset(name):
    for tag, preset in (("H100", "h100_sxm"), ("H200", "h200_sxm"), ("B200", "b200"), ("A100", "a100_sxm")):
        if tag in name:
            return preset
    sys.exit(f"phase_table: no GPU preset for '{name}'")


def model_terms(arlab, row, calibration):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "p.csv")
        cmd = [arlab, "predict", "-n", row["nranks"], "--hidden", row["hidden"], "-t", row["tokens"], "-d", row["dtype"],
               "--pattern", row["pattern"], "--acc", row["acc"], "--algo", row["algo"], "--gpu", gpu_preset(row["gpu"]),
               "--emulated", "--kernel", row["kernel_variant"], "--policy", "explicit", "--tpb", row["tpb"], "--cluster",
               row["cluster"], "--grid", row["grid"], "--vpt", row["vecs_per_thread"], "--csv", out, "--no-terms"]
        if calibration:
            cmd += ["--calibration", calibration]
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            sys.exit(f"phase_table: `{' '.join(cmd)}` failed (exit {done.returncode}): {done.stderr.strip()}")
        with open(out) as f:
            rows = list(csv.DictReader(f))
    return float(rows[0]["predicted_us"]), {r["term"]: float(r["term_us"]) for r in rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("arlab")
    ap.add_argument("--calibration", default=None)
    ap.add_argument("--min-samples", type=int, default=3, help="sampled calls a block index needs to count (default 3)")
    ap.add_argument("--typical", action="store_true", help="the median block's phases, not the slowest block's")
    ap.add_argument("--barriers", action="store_true", help="the reference two-shot's barrier waits against the peers' lateness")
    ap.add_argument("--summary", action="store_true", help="per body, algorithm and N, geometric means of measured / model")
    ap.add_argument("--hooks-cost", metavar="DEFAULT_CSV", default=None,
                    help="the probe's own cost: each fused row of OUTDIR/phase.csv beside the same row of DEFAULT_CSV "
                         "(the same problem list run with a default build, `arlab run --csv`), skew-free medians")
    args = ap.parse_args()
    if args.min_samples < 1:
        ap.error(f"--min-samples must be at least 1, got {args.min_samples}")
    if not (os.path.isfile(args.arlab) and os.access(args.arlab, os.X_OK)):
        ap.error(f"ARLAB {args.arlab} is not an executable (an arlab binary; a CPU build will do)")
    if args.hooks_cost:
        print_hooks_cost(os.path.join(args.outdir, "phase.csv"), args.hooks_cost)
        return
    phases = read_phases(args.outdir)
    if not phases:
        sys.exit(f"phase_table: no ARLAB_PHASE lines in {args.outdir}/logs (not a phase_stamps probe build?)")
    if args.barriers:
        print_barriers(phases, args.outdir)
        return
    with open(os.path.join(args.outdir, "phase.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["implementation"] == "fused" and r["kernel_variant"] in ("reference", "lean")]
    if not args.summary:
        print("| N | pattern | H x tokens | body | tpb/cluster/grid/vpt | measured us (model) | " +
              "phases, measured (model) us | outside | samples |")
        print("|---|---|---|---|---|---|---|---|---|")
    seen = set()
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))  # (body, algo, N) -> phase -> [meas. / model]
    for row in rows:
        body = next(b for b, (variant, algo, _) in BODIES.items() if (variant, algo) == (row["kernel_variant"], row["algo"]))
        key = (body, int(row["nranks"]), row["pattern"], int(row["tokens"]), int(row["hidden"]), int(row["tpb"]),
               int(row["cluster"]), int(row["grid"]), int(row["vecs_per_thread"]))
        if key in seen or key not in phases:
            continue
        seen.add(key)
        _, _, spec = BODIES[body]
        last = spec[-1][2]
        if args.typical:
            stamps, samples, groups = typical_block(phases[key])
        else:
            stamps, samples, groups = slowest_block_of_late_rank(phases[key], last, args.min_samples)
        if stamps is None:
            continue
        mhz = float(row["sm_clock_mhz_start"])
        us = [c / mhz for c in stamps]  # cycles / MHz = us
        total_model, terms = model_terms(args.arlab, row, args.calibration)
        measured = float(row["skewfree_us_median"])
        # (phase, measured us, model terms): the prologue and the exit where the line has them (entry and exit stamps)
        measured_phases = [(name, us[b] - us[a], names) for name, a, b, names in spec]
        stamped_span = us[last]
        if not math.isnan(us[6]):
            measured_phases = [("prologue", us[6], ["prologue"])] + measured_phases + [("exit", us[7], ["exit"])]
            stamped_span += us[6] + us[7]
        cells, stamped_terms = [], set()
        for name, took, names in measured_phases:
            stamped_terms.update(names)
            cells.append(f"{name} {took:.2f} ({sum(terms.get(t, 0.0) for t in names):.2f})")
        outside_model = sum(v for t, v in terms.items() if t not in stamped_terms)
        group = ratios[(row["kernel_variant"], row["algo"], key[1])]
        group["call"].append(measured / total_model)
        for name, took, names in measured_phases:
            priced = sum(terms.get(t, 0.0) for t in names)
            if priced > 0:
                group[name].append(took / priced)
        if args.summary:
            continue
        print(f"| {key[1]} | {key[2]} | {key[4]} x {key[3]} | {row['kernel_variant']} | {key[5]}/{key[6]}/{key[7]}/{key[8]} | "
              f"{measured:.2f} ({total_model:.2f}) | {'; '.join(cells)} | {measured - stamped_span:.2f} ({outside_model:.2f}) | "
              f"{samples} x {groups} |")
    if args.summary:
        print("| body | algorithm | N | rows | measured / model, geometric mean: the call; each phase |")
        print("|---|---|---|---|---|")
        for (variant, algo, n), group in sorted(ratios.items()):
            phases_text = "; ".join(f"{name} {statistics.geometric_mean(v):.2f}" for name, v in group.items() if name != "call")
            print(f"| {variant} | {algo} | {n} | {len(group['call'])} | call {statistics.geometric_mean(group['call']):.2f}; "
                  f"{phases_text} |")


if __name__ == "__main__":
    main()
