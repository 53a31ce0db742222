#!/usr/bin/env python3
"""The same problems and group members measured twice (two GPUs, or two machines), side by side (CPU).

  gpu_compare.py A.csv B.csv [--experiment NAME]

A and B are measurement CSVs (common/measurement_schema.h). Rows are matched on the problem (nranks,
hidden, tokens, dtype, pattern, algo) and the member (policy, kernel_variant, implementation, tpb,
cluster, grid); where a member ran in several processes the median of their headlines (the skew-free
median where recorded) is taken. Prints one line per member found in both, its median in each file and
B / A, then the geometric mean and range of B / A over the members, and says which GPU each file's rows
ran on. --experiment keeps the rows of one experiment (e.g. switch_v0 of a probe). Exit 2 on bad input.
"""
import argparse
import csv
import math
import statistics
import sys

PROBLEM = ("nranks", "hidden", "tokens", "dtype", "pattern", "algo")
MEMBER = ("policy", "kernel_variant", "implementation", "tpb", "cluster", "grid")


def die(message):
    print(f"gpu_compare: {message}", file=sys.stderr)
    sys.exit(2)


def headline(row):
    for col in ("skewfree_us_median", "kernel_us_median"):
        v = row.get(col, "")
        try:
            x = float(v)
        except ValueError:
            continue
        if math.isfinite(x) and x > 0:
            return x
    return None


def load(path, experiment):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die(f"{path}: {e.strerror}")
    if not rows or any(c not in rows[0] for c in PROBLEM + ("policy", "gpu")):
        die(f"{path}: not a measurement CSV (it needs {', '.join(PROBLEM)}, policy, gpu)")
    times, gpus = {}, set()
    for r in rows:
        if experiment and r.get("experiment") != experiment:
            continue
        t = headline(r)
        if t is None or r.get("check", "pass") != "pass":
            continue
        key = tuple(r.get(c, "") for c in PROBLEM + MEMBER)
        times.setdefault(key, []).append(t)
        gpus.add(r["gpu"])
    if not times:
        die(f"{path}: no passing rows" + (f" of experiment {experiment}" if experiment else ""))
    return {k: statistics.median(v) for k, v in times.items()}, gpus


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--experiment", default="")
    o = ap.parse_args()
    a, gpus_a = load(o.a, o.experiment)
    b, gpus_b = load(o.b, o.experiment)
    common = sorted(set(a) & set(b), key=lambda k: (int(k[0]), int(k[1]), int(k[2]), k[3:]))
    if not common:
        die("no member of a problem is in both files")
    print(f"A: {o.a} ({', '.join(sorted(gpus_a))}); B: {o.b} ({', '.join(sorted(gpus_b))})")
    print(f"{'N':>2} {'H':>6} {'tokens':>6} {'pattern':<11} {'algo':<8} {'member':<22} {'A us':>9} {'B us':>9} {'B / A':>7}")
    ratios = []
    for k in common:
        n, h, t, _, pattern, algo, policy, variant, impl, tpb, cluster, grid = k
        member = variant if impl in ("", "fused") else impl
        ratio = b[k] / a[k]
        ratios.append(ratio)
        print(f"{n:>2} {h:>6} {t:>6} {pattern:<11} {algo:<8} {member + ' ' + tpb + '/' + cluster + '/' + grid:<22} "
              f"{a[k]:9.2f} {b[k]:9.2f} {ratio:7.3f}")
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"B / A over {len(ratios)} members: geomean {geo:.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}")


if __name__ == "__main__":
    main()
