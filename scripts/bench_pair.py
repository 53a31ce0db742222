#!/usr/bin/env python3
"""Two variants of one microbenchmark side by side: per point (sms, tpb, cluster, size) of a microbench CSV
(common/microbench_schema.h) where both variants have a row of the metric, A, B and B - A, then the range of
B - A over the points. The docs quote it where one variant is the other with one thing added (e.g. the NVFP4
round beside the ar_res_rms round of the same body, shape and load).

  scripts/bench_pair.py FILE.csv BENCH VARIANT_A VARIANT_B [--metric NAME]

e.g. scripts/bench_pair.py data/calibration/h100_emulated_s57_n2_microbench.csv body_round \\
       reference_n2_allbusy_slowest reference_fp4_n2_allbusy_slowest
"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("bench")
    ap.add_argument("variant_a")
    ap.add_argument("variant_b")
    ap.add_argument("--metric", default="ns_per_round")
    args = ap.parse_args()
    points = {}
    try:
        with open(args.file, newline="") as f:
            reader = csv.DictReader(f)
            for column in ("bench", "variant", "metric", "sms", "tpb", "cluster", "size", "value"):
                if column not in (reader.fieldnames or []):
                    sys.exit(f"bench_pair: {args.file} is not a microbench CSV (common/microbench_schema.h): no column {column}")
            for r in reader:
                if r["bench"] != args.bench or r["metric"] != args.metric or r["variant"] not in (args.variant_a, args.variant_b):
                    continue
                key = (int(r["sms"]), int(r["tpb"]), int(r["cluster"]), int(float(r["size"])))
                points.setdefault(key, {})[r["variant"]] = float(r["value"])
    except (OSError, KeyError) as e:
        sys.exit(f"bench_pair: {args.file}: {e}")
    both = sorted(k for k, v in points.items() if len(v) == 2)
    if not both:
        sys.exit(f"bench_pair: no point of {args.bench} has rows of both {args.variant_a} and {args.variant_b} ({args.metric})")
    print(f"| sms | tpb | cluster | size | {args.variant_a} | {args.variant_b} | B - A |")
    print("|---|---|---|---|---|---|---|")
    diffs = []
    for k in both:
        a, b = points[k][args.variant_a], points[k][args.variant_b]
        diffs.append(b - a)
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {a:.0f} | {b:.0f} | {b - a:+.0f} |")
    print(f"\nB - A over {len(diffs)} points: {min(diffs):+.0f} to {max(diffs):+.0f} {args.metric}")


if __name__ == "__main__":
    main()
