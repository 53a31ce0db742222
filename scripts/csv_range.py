#!/usr/bin/env python3
"""The range of one column of a CSV over the rows that match every filter (columns read by name):
prints "MIN - MAX (K rows)", or "VALUE (K rows)" when every value is the same. The docs quote committed measurements with it.

  scripts/csv_range.py FILE.csv COLUMN [COL=VALUE ...] [--digits N] [--band LO HI]

  COL=VALUE   keep rows whose COL cell is exactly VALUE (several filters: all must hold)
  --digits N  decimals printed (default 2)
  --band LO HI  also print how many of those values lie in [LO, HI], below LO and above HI
              ("band [LO, HI]: A of K within, B below, C above")

e.g. scripts/csv_range.py data/h200/hold_ab.csv kernel_us_median experiment=hold_ab_hold tokens=1
"""
import csv
import math
import sys


def main(argv):
    digits, args, band = 2, [], None
    i = 0
    while i < len(argv):
        if argv[i] == "--digits" and i + 1 < len(argv):
            digits = int(argv[i + 1])
            i += 2
            continue
        if argv[i] == "--band":
            if i + 2 >= len(argv):
                sys.exit("csv_range: --band takes two numbers, LO HI")
            try:
                band = (float(argv[i + 1]), float(argv[i + 2]))
            except ValueError:
                sys.exit(f"csv_range: --band takes two numbers, got {argv[i + 1]} {argv[i + 2]}")
            if not band[0] <= band[1]:
                sys.exit(f"csv_range: --band LO HI needs LO <= HI, got {argv[i + 1]} {argv[i + 2]}")
            i += 3
            continue
        args.append(argv[i])
        i += 1
    if len(args) < 2:
        sys.exit(__doc__)
    path, column, filters = args[0], args[1], [a.split("=", 1) for a in args[2:]]
    if any(len(f) != 2 for f in filters):
        sys.exit("csv_range: filters are COL=VALUE\n\n" + __doc__)
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        for name in [column] + [c for c, _ in filters]:
            if name not in (reader.fieldnames or []):
                sys.exit(f"csv_range: {path} has no column {name}")
        values = []
        for r in reader:
            if all(r[c] == v for c, v in filters):
                try:
                    x = float(r[column])
                except ValueError:
                    continue
                if math.isfinite(x):
                    values.append(x)
    if not values:
        sys.exit(f"csv_range: no row of {path} matches {' '.join(args[2:])} with a number in {column}")
    if min(values) == max(values):
        print(f"{values[0]:.{digits}f} ({len(values)} row{'s' if len(values) > 1 else ''})")
    else:
        print(f"{min(values):.{digits}f} - {max(values):.{digits}f} ({len(values)} rows)")
    if band is not None:
        lo, hi = band
        within = sum(1 for x in values if lo <= x <= hi)
        below = sum(1 for x in values if x < lo)
        print(f"band [{lo:g}, {hi:g}]: {within} of {len(values)} within, {below} below, {len(values) - within - below} above")


if __name__ == "__main__":
    main(sys.argv[1:])
