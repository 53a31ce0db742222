#!/usr/bin/env python3
"""Library / reference at the library's own configuration (the `trtllm` member of `arlab exp peers`), grouped
by the shape of that configuration: ranks, cluster size and whether each cluster has one token round or
several. One markdown row per group with the number of problems, the median and the range of the ratio
(> 1: arlab's reference is the faster). One-shot configurations only (the library's two-shot cases are
left out).

  scripts/peers_by_shape.py SUMMARY.csv [SUMMARY.csv ...]

SUMMARY.csv are `arlab exp peers` summaries (the `_summary.csv` files; columns read by name: nranks, tokens,
member, config, speedup). Several files are pooled (e.g. the TP2 and the TP4 / TP8 summaries of one GPU).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
from csv_rows import read_rows  # noqa: E402  (one-line errors for unreadable files)

NEEDED = ("nranks", "tokens", "member", "config", "speedup")


def load(paths):
    rows = []
    for path in paths:
        rows += [r for r in read_rows(path, "peers_by_shape", NEEDED, "an `arlab exp peers` summary")
                 if r["member"] == "trtllm"]
    return rows


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    groups = {}
    for r in load(argv):
        parts = r["config"].split("/")  # tpb/cluster/grid/pdl/algo
        if len(parts) < 5 or parts[4] != "oneshot":
            continue
        try:
            cluster, grid, tokens = int(parts[1]), int(parts[2]), int(r["tokens"])
            ratio = float(r["speedup"])
        except ValueError:
            continue
        rounds = -(-tokens // max(1, grid // max(1, cluster)))
        key = (int(r["nranks"]), cluster, "one" if rounds == 1 else "several")
        groups.setdefault(key, []).append(ratio)
    if not groups:
        sys.exit("peers_by_shape: no one-shot `trtllm` row in " + ", ".join(argv))
    print("| N | cluster | token rounds per cluster | problems | library / reference, median | range |")
    print("|---|---|---|---|---|---|")
    for (n, cluster, rounds), ratios in sorted(groups.items()):
        print(f"| {n} | {cluster} | {rounds} | {len(ratios)} | {statistics.median(ratios):.3f}x "
              f"| {min(ratios):.3f}-{max(ratios):.3f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
