#!/usr/bin/env python3
"""Geometric-mean speedups of a kernel variant over the reference kernel, from committed CSVs (read by
column name; no GPU, no arlab binary).

  scripts/kernel_speedup.py summary [--table] X_summary.csv [...]
      `arlab exp speedup`'s summary (common/speedup_schema.h): per file and variant, the geometric mean
      over its problems of `speedup` (reference at trtllm / variant at the model's choice) and of
      `speedup_design` (reference at trtllm / variant at trtllm), with the smallest and largest speedup;
      --table also prints one Markdown row per problem.

  scripts/kernel_speedup.py sweep SWEEP.csv [...]
      a configuration sweep in the measurement schema (scripts/lean_configs.sh): per problem (hidden,
      tokens), the reference kernel at trtllm over the fastest row of the variant (any policy or
      explicit configuration) in the same file; the geometric mean over the problems.

Times are the headline (skew-free median, else the max-over-ranks median); rows that failed the
correctness gate are left out.
"""
import csv
import math
import sys


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def headline(row):
    for col in ("skewfree_us_median", "kernel_us_median"):
        try:
            v = float(row[col])
        except (KeyError, ValueError):
            continue
        if math.isfinite(v) and v > 0:
            return v
    return None


def summary(paths):
    table = "--table" in paths
    paths = [p for p in paths if p != "--table"]
    for path in paths:
        by_variant = {}
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["check"] != "pass":
                    continue
                by_variant.setdefault(r["variant"], []).append(r)
        if not by_variant:
            sys.exit(f"kernel_speedup: {path}: no rows that passed the gate")
        for variant, rows in sorted(by_variant.items()):
            sp = [float(r["speedup"]) for r in rows]
            design = [float(r["speedup_design"]) for r in rows]
            lo = min(rows, key=lambda r: float(r["speedup"]))
            hi = max(rows, key=lambda r: float(r["speedup"]))
            print(f"{path}: {variant}, {len(rows)} problems: geomean speedup {geomean(sp):.4f}x "
                  f"(design alone {geomean(design):.4f}x), min {float(lo['speedup']):.3f}x "
                  f"(H {lo['hidden']}, {lo['tokens']} tokens), max {float(hi['speedup']):.3f}x "
                  f"(H {hi['hidden']}, {hi['tokens']} tokens)")
            if table:
                print("| H | tokens | reference at trtllm (us) | variant at trtllm (us) | variant at the model's choice "
                      "(us), configuration | design alone | speedup |")
                print("|---|---|---|---|---|---|---|")
                for r in sorted(rows, key=lambda r: (int(r["hidden"]), int(r["tokens"]))):
                    print(f"| {r['hidden']} | {r['tokens']} | {float(r['reference_us']):.2f} | "
                          f"{float(r['variant_trtllm_us']):.2f} | {float(r['variant_model_us']):.2f}, "
                          f"{r['variant_model_config']} | {float(r['speedup_design']):.3f}x | {float(r['speedup']):.3f}x |")


def sweep(paths):
    for path in paths:
        ref, best = {}, {}
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                t = headline(r)
                if r["check"] != "pass" or t is None:
                    continue
                key = (int(r["hidden"]), int(r["tokens"]))
                body = r.get("kernel_variant") or "reference"
                if body == "reference":
                    if r["policy"] == "trtllm":
                        ref[key] = t
                elif key not in best or t < best[key][0]:
                    best[key] = (t, body)
        keys = sorted(set(ref) & set(best))
        if not keys:
            sys.exit(f"kernel_speedup: {path}: no problem with a reference trtllm row and a variant row")
        ratios = [ref[k] / best[k][0] for k in keys]
        variants = ", ".join(sorted({best[k][1] for k in keys}))
        print(f"{path}: {variants}, {len(keys)} problems: reference at trtllm / best measured variant "
              f"configuration: geomean {geomean(ratios):.4f}x, min {min(ratios):.3f}x, max {max(ratios):.3f}x")


def main(argv):
    if len(argv) < 2 or argv[0] not in ("summary", "sweep"):
        sys.exit(__doc__)
    (summary if argv[0] == "summary" else sweep)(argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
