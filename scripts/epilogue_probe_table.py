#!/usr/bin/env python3
"""The epilogue alone, as a table: library / kernel for each build and kernel of arlab_epilogue_probe's CSVs
(tools/epilogue_probe.cu; columns read by name), one Markdown row per (build, kernel), one column per problem.

  scripts/epilogue_probe_table.py [--kernels K1,K2,...] [--builds B1,B2,...] BUILD=CSV[,CSV...] ...
  scripts/epilogue_probe_table.py data/h200/epilogue_probe/v0_h*.csv ...

Each CSV is one process of one build at one problem (H, grid, tokens per block). The build is the argument's
BUILD= prefix or, without one, the file name up to its first "_h" (v0_h2048_t128_g0.csv: v0). A cell is the
ratio of the medians over the process's repetitions, library time / the kernel's time (> 1: the kernel is
faster than FlashInfer's FusedOp), with the spread of the kernel's repetitions, (max - min) / median, in
parentheses. The problems are ordered by H, then grid, then tokens per block.
"""
import argparse
import csv
import os
import re
import statistics
import sys


def build_of(path):
    m = re.match(r"(.+?)_h\d+", os.path.basename(path))
    if not m:
        sys.exit(f"epilogue_probe_table: {path}: no BUILD= given and the name has no _h<H> to take the build from")
    return m.group(1)


def read(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"epilogue_probe_table: {path}: {e.strerror}")
    need = {"kernel", "hidden", "grid", "tokens_per_block", "us_per_launch"}
    if not rows or not need <= set(rows[0]):
        sys.exit(f"epilogue_probe_table: {path}: not an arlab_epilogue_probe CSV (columns {sorted(need)})")
    return rows


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernels", help="the kernels to show, in this order (default: every one, as first seen)")
    ap.add_argument("--builds", help="the builds to show, in this order (default: every one, as first seen)")
    ap.add_argument("files", nargs="+", metavar="[BUILD=]CSV")
    a = ap.parse_args(argv[1:])
    times = {}  # (build, kernel, problem) -> [us]
    builds, kernels, problems = [], [], set()
    for arg in a.files:
        build, path = arg.split("=", 1) if "=" in arg else (build_of(arg), arg)
        for r in read(path):
            problem = (int(r["hidden"]), int(r["grid"]), int(r["tokens_per_block"]))
            problems.add(problem)
            times.setdefault((build, r["kernel"], problem), []).append(float(r["us_per_launch"]))
            if build not in builds:
                builds.append(build)
            if r["kernel"] not in kernels:
                kernels.append(r["kernel"])
    if a.builds:
        builds = a.builds.split(",")
    if a.kernels:
        kernels = a.kernels.split(",")
    problems = sorted(problems)
    print("| build | kernel | " + " | ".join(f"H {h}, grid {g}, {t} tokens per block" for h, g, t in problems) + " |")
    print("|---|---|" + "---|" * len(problems))
    for b in builds:
        for k in kernels:
            cells = []
            for pr in problems:
                mine, lib = times.get((b, k, pr)), times.get((b, "library", pr))
                if not mine or not lib:
                    cells.append("")
                    continue
                m = statistics.median(mine)
                cells.append(f"{statistics.median(lib) / m:.3f} ({100 * (max(mine) - min(mine)) / m:.1f} %)")
            if any(cells):
                print(f"| {b} | {k} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
