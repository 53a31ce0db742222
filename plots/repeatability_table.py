#!/usr/bin/env python3
"""The repeatability table of the measurement issue, from scripts/repeatability.sh's CSVs.

For every (node, H, tokens, policy): the headline figure (plots/measurement_headline.py: the skew-free median where the row's
headline column says so) and
the max-over-ranks figure (kernel_us_median) of K separate processes -- their median over the processes,
min - max and spread max/min - 1 --, the median noise (CI half-width of the headline) and the median start
skew. Then, from RATIOS.csv: for every process in which trtllm and legacy chose the same configuration,
whether the in-process ratio's 95 % CI contains 1; and where they chose different configurations, the range
of the in-process ratio over the processes with the largest CI half-width. Reads columns by name only
(common/measurement_schema.h, common/ratio_schema.h); prints Markdown.

usage: plots/repeatability_table.py RUNS.csv [RATIOS.csv] [--goal]
  --goal  also print whether each row's headline meets the issue's goal (<= 2 % spread at >= 16
          tokens, <= 4 % at 1 token) and exit 1 when one does not
"""
import csv
import statistics
import sys
from collections import defaultdict

from measurement_headline import headline_us


def node_name(row):
    return "emulated TP2" if row["topology"] == "emulated" else f"real TP2 ({row['link']})"


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    goal = "--goal" in argv
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        rows = list(csv.DictReader(open(args[0])))
        ratios = list(csv.DictReader(open(args[1]))) if len(args) > 1 else None
    except OSError as e:
        print(f"repeatability_table: cannot read {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    missing = [c for c in ("topology", "link", "hidden", "tokens", "policy", "check", "skewfree_us_median",
                           "kernel_us_median", "noise_pct", "start_skew_us_median", "tpb", "cluster", "grid")
               if rows and c not in rows[0]]
    if not rows or missing:
        print(f"repeatability_table: {args[0]} has no rows or lacks columns {missing} "
              "(expected a measurement CSV of scripts/repeatability.sh)", file=sys.stderr)
        return 2
    groups = defaultdict(list)
    for r in rows:
        if r["check"] != "pass":
            continue
        groups[(node_name(r), int(r["hidden"]), int(r["tokens"]), r["policy"])].append(r)
    print("| node | H | tokens | policy | tpb/cs/grid | K | headline us median (min - max) | spread | max over ranks "
          "us median (min - max) | spread | median noise | median start skew us |" + (" goal |" if goal else ""))
    print("|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if goal else ""))
    missed = 0
    for key in sorted(groups):
        g = groups[key]
        head = [headline_us(r) for r in g]
        skew = [float(r["kernel_us_median"]) for r in g]
        noise = statistics.median(float(r["noise_pct"]) for r in g)
        start = statistics.median(float(r["start_skew_us_median"]) for r in g)
        cfg = f"{g[0]['tpb']}/{g[0]['cluster']}/{g[0]['grid']}"
        spread_h = max(head) / min(head) - 1
        spread_s = max(skew) / min(skew) - 1
        line = (f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {cfg} | {len(g)} | {statistics.median(head):.3f} "
                f"({min(head):.3f} - {max(head):.3f}) | {100 * spread_h:.1f} % | {statistics.median(skew):.3f} "
                f"({min(skew):.3f} - {max(skew):.3f}) | {100 * spread_s:.1f} % | {noise:.2f} % | {start:.3f} |")
        if goal:
            limit = 0.04 if key[2] == 1 else 0.02
            ok = spread_h <= limit
            missed += 0 if ok else 1
            line += f" {'yes' if ok else 'NO'} (<= {100 * limit:.0f} %) |"
        print(line)
    if ratios is not None:
        same = [r for r in ratios if r["numerator_cfg"] == r["denominator_cfg"]]
        inside = [r for r in same if float(r["ci_lo"]) <= 1.0 <= float(r["ci_hi"])]
        print()
        print(f"Same configuration under two policy names in one process: {len(inside)} of {len(same)} "
              f"in-process ratios have a 95 % CI that contains 1.")
        worst = sorted(same, key=lambda r: abs(float(r["ratio"]) - 1), reverse=True)[:3]
        for r in worst:
            print(f"  {r['topology']} H {r['hidden']} tokens {r['tokens']}: {r['numerator']}/{r['denominator']} "
                  f"= {float(r['ratio']):.4f} [{float(r['ci_lo']):.4f}, {float(r['ci_hi']):.4f}]")
        differ = defaultdict(list)
        for r in ratios:
            if r["numerator_cfg"] != r["denominator_cfg"]:
                differ[(r["topology"], int(r["hidden"]), int(r["tokens"]), r["numerator"], r["denominator"])].append(r)
        if differ:
            print()
            print("Different configurations, in-process ratio over the processes (range; largest 95 % CI half-width):")
            for key in sorted(differ):
                g = differ[key]
                v = [float(r["ratio"]) for r in g]
                half = max((float(r["ci_hi"]) - float(r["ci_lo"])) / 2 / float(r["ratio"]) for r in g)
                print(f"  {key[0]} H {key[1]} tokens {key[2]}: {key[3]}/{key[4]} = {min(v):.3f} - {max(v):.3f} "
                      f"(K {len(g)}; CI half-width <= {100 * half:.1f} %)")
    return 1 if goal and missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
