#!/usr/bin/env python3
"""The timing model's error per group of rows: joins a validation CSV (`arlab validate FILE --out V.csv`,
common/validation_schema.h) with the measurement CSV it judged (by the `line` column) and, per value of
the --by columns (any column of the measurement CSV, e.g. pattern, algo, nranks, kernel_variant,
vecs_per_thread), prints the rows, the MAPE and the bias: the mean of predicted / measured - 1 (negative:
the model under-predicts). Measured = the validation CSV's kernel_us_median (the headline the model was
judged against). Columns are read by name; rows written before a column existed read it as empty
(kernel_variant: reference).

  scripts/model_bias.py MEASUREMENTS.csv VALIDATION.csv --by COL[,COL...] [--where COL=VALUE ...]

e.g. build/cli/arlab validate data/h200/model_grid_nvlink.csv --calibration data/calibration/h200_nvlink.csv \\
         --out /tmp/v.csv && scripts/model_bias.py data/h200/model_grid_nvlink.csv /tmp/v.csv --by pattern
"""
import csv
import sys


def main(argv):
    by, where, files = [], [], []
    i = 0
    while i < len(argv):
        if argv[i] in ("--by", "--where") and i + 1 < len(argv):
            if argv[i] == "--by":
                by += argv[i + 1].split(",")
            else:
                where.append(argv[i + 1].split("=", 1))
            i += 2
            continue
        files.append(argv[i])
        i += 1
    if len(files) != 2 or not by or any(len(w) != 2 for w in where):
        sys.exit(__doc__)
    with open(files[0], newline="") as f:
        meas = {line: r for line, r in enumerate(csv.DictReader(f), start=2)}  # header = line 1
    groups = {}
    with open(files[1], newline="") as f:
        for v in csv.DictReader(f):
            if v["status"] != "ok":
                continue
            m = meas.get(int(v["line"]))
            if m is None:
                sys.exit(f"model_bias: {files[1]} line {v['line']} is not a row of {files[0]}")
            cell = lambda c: m.get(c) or ("reference" if c == "kernel_variant" else "")  # noqa: E731
            if any(cell(c) != val for c, val in where):
                continue
            measured, predicted = float(v["kernel_us_median"]), float(v["predicted_us"])
            groups.setdefault(tuple(cell(c) for c in by), []).append(predicted / measured - 1)
    if not groups:
        sys.exit("model_bias: no predicted row matches")
    width = max(len(" ".join(k)) for k in groups)
    print(f"{' '.join(by):<{width}}  rows    MAPE    bias")
    for key in sorted(groups, key=lambda k: [(0, int(x)) if x.isdigit() else (1, x) for x in k]):
        e = groups[key]
        mape = 100 * sum(abs(x) for x in e) / len(e)
        bias = 100 * sum(e) / len(e)
        print(f"{' '.join(key):<{width}}  {len(e):4d}  {mape:5.1f} %  {bias:+5.1f} %")


if __name__ == "__main__":
    main(sys.argv[1:])
