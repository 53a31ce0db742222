#!/usr/bin/env python3
"""What each pattern takes beyond a base pattern, measured and as the model prices it: for every kernel body,
launch configuration and token count that a measurement CSV holds in the base pattern and in others, the
difference (pattern - base) of the headline times and of the predictions (`arlab validate FILE --out V.csv`,
common/validation_schema.h; joined by the `line` column). Reads columns by name (common/measurement_schema.h).

  scripts/pattern_excess.py MEASUREMENTS.csv V.csv [--base ar_res_rms]

Prints one line per (body, configuration, pattern, NVFP4 scale-factor layout): per token count `meas +X pred +Y`
in us, then the mean of both per extra token round beyond the smallest token count (the rounds per cluster from
tokens, grid and cluster). Rows that failed the correctness gate are left out.
"""
import argparse
import csv
import sys
from collections import defaultdict


def headline(row):
    v = row.get("skewfree_us_median") or ""
    return float(v) if v not in ("", "nan") else float(row["kernel_us_median"])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("measurements")
    ap.add_argument("validation")
    ap.add_argument("--base", default="ar_res_rms", help="the pattern subtracted (default ar_res_rms)")
    a = ap.parse_args(argv)
    try:
        predicted = {r["line"]: float(r["predicted_us"]) for r in csv.DictReader(open(a.validation))
                     if r.get("predicted_us") not in (None, "", "nan")}
        rows = list(csv.DictReader(open(a.measurements)))
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"pattern_excess: {e}")
    # (body, config, pattern label) -> tokens -> [measured], [predicted]
    times = defaultdict(lambda: defaultdict(lambda: ([], [])))
    rounds_of = {}
    for i, r in enumerate(rows):
        line = str(i + 2)  # the validation CSV's line numbers count the header as line 1
        if r.get("check") != "pass" or line not in predicted:
            continue
        config = f"{r['tpb']}/{r['cluster']}/{r['grid']}/{r['vecs_per_thread']} {r['algo']}"
        label = r["pattern"] + (f" ({r['sf_layout']})" if r.get("sf_layout") else "")
        key = (r["kernel_variant"], config, label)
        t = int(r["tokens"])
        times[key][t][0].append(headline(r))
        times[key][t][1].append(predicted[line])
        clusters = max(1, int(r["grid"]) // max(1, int(r["cluster"])))
        rounds_of[t] = -(-t // clusters)
    mean = lambda v: sum(v) / len(v)
    printed = 0
    for (body, config, label), by_tokens in sorted(times.items()):
        if label == a.base:
            continue
        base = times.get((body, config, a.base))
        if not base:
            continue
        cells, excess = [], []
        for t in sorted(by_tokens):
            if t not in base:
                continue
            m = mean(by_tokens[t][0]) - mean(base[t][0])
            p = mean(by_tokens[t][1]) - mean(base[t][1])
            cells.append(f"{t}: meas {m:+.2f} pred {p:+.2f}")
            excess.append((t, m, p))
        if not excess:
            continue
        line = f"{body:<9} {config:<22} {label:<32} " + "; ".join(cells)
        if len(excess) > 1:
            (t0, m0, p0), (t1, m1, p1) = excess[0], excess[-1]
            extra = rounds_of[t1] - rounds_of[t0]
            if extra > 0:
                line += f"; per further round meas {(m1 - m0) / extra * 1e3:+.0f} ns, pred {(p1 - p0) / extra * 1e3:+.0f} ns"
        print(line)
        printed += 1
    if printed == 0:
        sys.exit(f"pattern_excess: no rows in {a.base} and another pattern at the same body, configuration and tokens")


if __name__ == "__main__":
    main(sys.argv[1:])
