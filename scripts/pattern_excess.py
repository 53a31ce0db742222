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
import math
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
from measurement_headline import headline_us  # noqa: E402  (the headline rule, shared with plots/)
from csv_rows import read_rows  # noqa: E402  (reading by column name with one-line errors, shared with plots/)

MEASUREMENT_COLUMNS = ["check", "kernel_variant", "pattern", "algo", "tokens", "tpb", "cluster", "grid",
                       "vecs_per_thread", "kernel_us_median"]
VALIDATION_COLUMNS = ["line", "predicted_us"]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("measurements")
    ap.add_argument("validation")
    ap.add_argument("--base", default="ar_res_rms", help="the pattern subtracted (default ar_res_rms)")
    a = ap.parse_args(argv)
    predicted = {}
    for r in read_rows(a.validation, "pattern_excess", VALIDATION_COLUMNS, "a validation CSV (common/validation_schema.h)"):
        try:
            value = float(r["predicted_us"])
        except ValueError:
            continue  # a row the model could not predict
        if math.isfinite(value):
            predicted[r["line"]] = value
    rows = read_rows(a.measurements, "pattern_excess", MEASUREMENT_COLUMNS)
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
        measured = headline_us(r)
        if not math.isfinite(measured):
            continue
        times[key][t][0].append(measured)
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
