#!/usr/bin/env python3
"""How much each constant of a calibration moves the timing model's error on measured rows (CPU, seconds).

Two uses, both over `arlab validate` (the MAPE against the headline, per measurement file):

  calibration_swap.py ARLAB BASE.csv --from OTHER.csv FILE.csv [FILE.csv ...] [--top K]
      for every constant whose value differs between the two calibrations, BASE with that one constant
      taken from OTHER: the mean MAPE over the files against BASE's, the constants ranked by the change
      (most negative first: the constants of OTHER that would help most). Which of a new GPU's measured
      constants carry its error, for instance (docs/model.md, "A second GPU: the emulated H100 node").

  calibration_swap.py ARLAB BASE.csv --set NAME=VALUE [--set NAME=VALUE ...] FILE.csv [FILE.csv ...]
      BASE with the named constants set (a NAME ending in '*' sets every constant it starts): each file's MAPE
      with BASE and with the change (a model term switched off by its neutral value, for instance).

The calibrations written for the runs are temporary files; nothing else is written. Exit 2 on bad input.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

MAPE = re.compile(r"against the headline[^\n]*?MAPE ([\d.]+) %")


def die(message):
    print(f"calibration_swap: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die(f"{path}: {e.strerror}")
    if not rows or "name" not in rows[0] or "value" not in rows[0]:
        die(f"{path}: not a calibration CSV (columns name, value, ...)")
    return rows


def mapes(arlab, rows, files, tmp):
    path = os.path.join(tmp, "calibration.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    out = []
    for m in files:
        run = subprocess.run([arlab, "validate", m, "--calibration", path], capture_output=True, text=True)
        found = MAPE.search(run.stdout)
        if run.returncode != 0 or not found:
            die(f"arlab validate {m} failed (exit {run.returncode}): {(run.stderr or run.stdout).strip()[-400:]}")
        out.append(float(found.group(1)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("arlab")
    ap.add_argument("base")
    ap.add_argument("files", nargs="+", help="measurement CSVs (arlab validate's input)")
    ap.add_argument("--from", dest="other", help="the calibration whose constants are swapped in one at a time")
    ap.add_argument("--set", action="append", default=[], help="NAME=VALUE (NAME* for a prefix)")
    ap.add_argument("--top", type=int, default=10, help="constants listed at each end of the ranking")
    a = ap.parse_args()
    if bool(a.other) == bool(a.set):
        die("give either --from OTHER.csv or one or more --set NAME=VALUE")
    base = load(a.base)
    names = [r["name"] for r in base]
    with tempfile.TemporaryDirectory() as tmp:
        before = mapes(a.arlab, base, a.files, tmp)
        fmt = lambda v: " / ".join(f"{x:.2f} %" for x in v)
        if a.set:
            changed = [dict(r) for r in base]
            for item in a.set:
                name, sep, value = item.partition("=")
                try:
                    float(value)
                except ValueError:
                    sep = ""
                hits = [r for r in changed if (r["name"].startswith(name[:-1]) if name.endswith("*") else r["name"] == name)]
                if not sep or not hits:
                    die(f"--set {item}: expected NAME=NUMBER naming a constant of {a.base}")
                for r in hits:
                    r["value"] = value
            after = mapes(a.arlab, changed, a.files, tmp)
            print(f"MAPE with {os.path.basename(a.base)}: {fmt(before)}")
            print(f"MAPE with {', '.join(a.set)}: {fmt(after)}")
            return
        other = {r["name"]: r["value"] for r in load(a.other)}
        missing = [n for n in names if n not in other]
        if missing:
            die(f"{a.other} lacks {', '.join(missing[:5])}")
        whole = [dict(r, value=other[r["name"]]) for r in base]
        print(f"MAPE with {os.path.basename(a.base)}: {fmt(before)} (mean {sum(before) / len(before):.2f} %)")
        every = mapes(a.arlab, whole, a.files, tmp)
        print(f"MAPE with {os.path.basename(a.other)}: {fmt(every)} (mean {sum(every) / len(every):.2f} %)")
        ranked = []
        for i, r in enumerate(base):
            if float(r["value"]) == float(other[r["name"]]):
                continue
            one = [dict(x) for x in base]
            one[i]["value"] = other[r["name"]]
            m = mapes(a.arlab, one, a.files, tmp)
            ranked.append((sum(m) / len(m) - sum(before) / len(before), r["name"], float(r["value"]),
                           float(other[r["name"]]), m))
        ranked.sort()
        print(f"{len(ranked)} constants differ; each taken alone from {os.path.basename(a.other)} "
              "(mean MAPE change, the constant base -> other, MAPE per file):")
        shown = ranked if len(ranked) <= 2 * a.top else ranked[:a.top] + [None] + ranked[-a.top:]
        for x in shown:
            if x is None:
                print("  ...")
                continue
            print(f"  {x[0]:+.2f} {x[1]} {x[2]:.4g} -> {x[3]:.4g} ({fmt(x[4])})")


if __name__ == "__main__":
    main()
