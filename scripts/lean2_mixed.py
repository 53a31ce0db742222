#!/usr/bin/env python3
"""The lean two-shot's owner and reader rounds in one run, against each kind's own rows: reads an
`arlab calibrate` microbenchmark CSV (common/microbench_schema.h, columns by name) and, for every
configuration (sms, tpb, cluster, size) of the warm `body_round` variant `lean2_mixed_n{N}`, prints its
ns_per_round beside the rows `lean2_owner_n{N}` and `lean2_reader_n{N}` of the same configuration
weighted as the mixed run holds them: of R = 8 warm rounds per cluster the first ceil(8 / N) an owner's,
the rest a reader's (calibrate/bench_body_round.cu). Mixed / weighted < 1 would say an owner's pushes
drain under the reader rounds after it; the last line gives the geometric mean, min and max.

  scripts/lean2_mixed.py MICROBENCH.csv N
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
from csv_rows import read_rows  # noqa: E402  (one-line errors for unreadable files)

WARM_ROUNDS = 8  # calibrate/bench_body_round.cu kRounds: token rounds per cluster of the warm rows


def main(argv):
    if len(argv) != 2 or argv[1] not in ("2", "4", "8"):
        sys.exit(__doc__)
    path, n = argv[0], int(argv[1])
    times = {}
    needed = ("bench", "variant", "sms", "tpb", "cluster", "size", "metric", "value")
    for row in read_rows(path, "lean2_mixed", needed, "a microbenchmark CSV (common/microbench_schema.h)"):
        if row["bench"] != "body_round" or row["metric"] != "ns_per_round":
            continue
        key = (row["variant"], int(row["sms"]), int(row["tpb"]), int(row["cluster"]), int(row["size"]))
        times[key] = float(row["value"])
    owned = (WARM_ROUNDS + n - 1) // n
    ratios = []
    print("sms tpb cluster size  owner  reader  weighted  mixed  mixed/weighted")
    for key in sorted(k for k in times if k[0] == f"lean2_mixed_n{n}"):
        cfg = key[1:]
        owner = times.get((f"lean2_owner_n{n}",) + cfg)
        reader = times.get((f"lean2_reader_n{n}",) + cfg)
        if owner is None or reader is None:
            continue
        weighted = (owned * owner + (WARM_ROUNDS - owned) * reader) / WARM_ROUNDS
        ratio = times[key] / weighted
        ratios.append(ratio)
        print(f"{cfg[0]} {cfg[1]} {cfg[2]} {cfg[3]}  {owner:.0f}  {reader:.0f}  {weighted:.0f}  {times[key]:.0f}  {ratio:.3f}")
    if not ratios:
        sys.exit(f"lean2_mixed: {path} has no lean2_mixed_n{n} row with its owner and reader rows")
    geomean = statistics.geometric_mean(ratios)
    print(f"N {n}: mixed / weighted over {len(ratios)} configurations: geomean {geomean:.3f}, "
          f"min {min(ratios):.3f}, max {max(ratios):.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
