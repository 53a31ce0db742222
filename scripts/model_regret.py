#!/usr/bin/env python3
"""Regret of the model policy's own pick: for every problem (tokens, H, N, dtype, pattern, node) that has
a measured row of policy `model`, time(model's pick) / time(best measured configuration of that problem)
- 1, over every row of the given measurement CSVs (common/measurement_schema.h, read by column name; the
headline figure: plots/measurement_headline.py). Rows of both
algorithms count: the model may pick two-shot for a one-shot sweep.

  scripts/model_regret.py data/h200/model_picks_nvlink.csv [data/h200/model_grid_nvlink.csv ...]

Prints one line per problem and the mean, median and max regret; rows that failed the correctness gate
are left out.
"""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
from measurement_headline import headline_us  # noqa: E402  (the headline rule, shared with plots/)
from csv_rows import read_rows  # noqa: E402  (one-line errors for unreadable files)


def headline(row, path):
    """The row's headline time (plots/measurement_headline.py), or None when it has none."""
    try:
        v = headline_us(row)
    except ValueError as e:
        sys.exit(f"model_regret: {path}: {e}")
    return v if math.isfinite(v) and v > 0 else None


NEEDED = ("check", "policy", "topology", "nranks", "dtype", "pattern", "tokens", "hidden", "tpb", "cluster", "grid",
          "vecs_per_thread", "algo")


def main(paths):
    if not paths or any(p in ("-h", "--help") for p in paths):
        sys.exit(__doc__)
    best, picks = {}, {}
    for path in paths:
        for row in read_rows(path, "model_regret", NEEDED):
            if row.get("check") != "pass":
                continue
            t = headline(row, path)
            if t is None:
                continue
            key = (row["topology"], row["nranks"], row["dtype"], row["pattern"], int(row["tokens"]),
                   int(row["hidden"]))
            cfg = "%s/%s/%s/%s %s" % (row["tpb"], row["cluster"], row["grid"], row["vecs_per_thread"], row["algo"])
            if key not in best or t < best[key][0]:
                best[key] = (t, cfg, path)
            if row["policy"] == "model":
                picks.setdefault(key, []).append((t, cfg, path))
    regrets = []
    for key in sorted(picks):
        t = statistics.median(p[0] for p in picks[key])
        b = best[key]
        r = t / b[0] - 1
        regrets.append(r)
        print("%-8s N%s %s %s T %4d H %5d: model %-22s %8.2f us  best %-22s %8.2f us  regret %5.1f %%" %
              (key[0], key[1], key[2], key[3], key[4], key[5], picks[key][0][1], t, b[1], b[0], 100 * r))
    if not regrets:
        sys.exit("model_regret: no rows of policy model in " + ", ".join(paths))
    print("problems %d: mean regret %.2f %%, median %.2f %%, max %.2f %%" %
          (len(regrets), 100 * statistics.mean(regrets), 100 * statistics.median(regrets), 100 * max(regrets)))


if __name__ == "__main__":
    main(sys.argv[1:])
