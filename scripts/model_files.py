#!/usr/bin/env python3
"""The model judged file by file: `arlab validate` over the committed measurement files that model
changes are judged on (docs/model.md: the tables "before / after" of each term), one Markdown row per
file with its MAPE and max APE against the headline time and the regret of the model's lowest
prediction among the measured rows (mean / max). With --calibration CAL every file is predicted with
CAL (a trial calibration); without it, with the measured calibration of the file's node (auto).

  scripts/model_files.py ARLAB [--calibration CAL] [--root DIR]

Columns are read from `arlab validate`'s summary lines; a file it cannot judge stops the script with
its error.
"""
import argparse
import os
import re
import subprocess
import sys

# The files, in the order the docs' tables list them: issue 24's grids, the peers grids, the latency,
# outside-grid and faithful grids, then the held-out model-accuracy grids.
FILES = [
    "exp/speedup_emulated_wide13.csv",
    "exp/speedup_emulated_wide14.csv",
    "exp/speedup_emulated_wide15.csv",
    "exp/peers_emulated_tp2_rerun11.csv",
    "exp/peers_emulated_tp4_rerun2.csv",
    "exp/peers_emulated_tp8_rerun.csv",
    "model_grid_latency_prologue_emulated.csv",
    "peers_outside_grid_prologue_emulated.csv",
    "model_grid_emulated_faithful.csv",
    "exp/seed_emulated.csv",
    "exp/model-accuracy_emulated_grid7.csv",
    "exp/model-accuracy_emulated_grid7_tp4.csv",
    "exp/model-accuracy_emulated_grid8.csv",
    "exp/model-accuracy_emulated_grid8_tp4.csv",
    "exp/model-accuracy_emulated_grid9.csv",
    "exp/model-accuracy_emulated_grid9_tp4.csv",
    "exp/model-accuracy_emulated_grid10_partial.csv",
    "exp/model-accuracy_emulated_grid11.csv",
    "exp/model-accuracy_emulated_grid11_tp4.csv",
    "exp/speedup_emulated_wide19.csv",
    "exp/peers_emulated_tp8_rerun4.csv",
    "exp/model-accuracy_emulated_grid12_tp8_partial.csv",
    "exp/model-accuracy_emulated_grid13.csv",
    "exp/model-accuracy_emulated_grid13_tp4.csv",
    "exp/model-accuracy_emulated_grid13_tp8.csv",
    "exp/peers_emulated_tp4_rerun3.csv",
    "exp/peers_emulated_tp8_rerun5.csv",
    "exp/model-accuracy_emulated_grid14.csv",
    "exp/model-accuracy_emulated_grid14_tp4.csv",
    "exp/model-accuracy_emulated_grid14_tp8.csv",
    "exp/speedup_emulated_wide21.csv",
    "exp/peers_emulated_tp8_rerun6.csv",
    "exp/model-accuracy_emulated_grid15.csv",
    "exp/model-accuracy_emulated_grid15_tp4.csv",
    "exp/model-accuracy_emulated_grid15_tp8.csv",
    "exp/speedup_emulated_wide22.csv",
    "exp/peers_emulated_tp8_rerun7.csv",
    "exp/model-accuracy_emulated_grid16.csv",
    "exp/model-accuracy_emulated_grid16_tp4.csv",
    "exp/model-accuracy_emulated_grid16_tp8.csv",
    "exp/speedup_emulated_wide23.csv",
    "exp/peers_emulated_tp8_rerun8.csv",
    "exp/peers_emulated_tp4_rerun4.csv",
    "exp/model-accuracy_emulated_grid17.csv",
    "exp/model-accuracy_emulated_grid17_tp4.csv",
    "exp/model-accuracy_emulated_grid17_tp8.csv",
    "exp/speedup_emulated_wide24.csv",
    "exp/peers_emulated_tp8_rerun9.csv",
    "exp/speedup_emulated_wide24_p2.csv",
    "exp/peers_emulated_tp4_rerun5.csv",
    "exp/speedup_emulated_wide25.csv",
    "exp/model-accuracy_emulated_grid18.csv",
    "exp/speedup_emulated_wide26.csv",
    "exp/model-accuracy_emulated_grid18_tp4.csv",
    "exp/speedup_emulated_wide27.csv",
    "exp/peers_emulated_tp2_rerun12.csv",
    "exp/peers_emulated_tp4_rerun6.csv",
    "exp/peers_emulated_tp8_rerun10.csv",
    "exp/model-accuracy_emulated_grid19.csv",
    "exp/model-accuracy_emulated_grid19_tp4.csv",
    "exp/model-accuracy_emulated_grid19_tp8.csv",
    "exp/model-accuracy_emulated_grid20.csv",
    "exp/model-accuracy_emulated_grid20_tp4.csv",
    "exp/model-accuracy_emulated_grid20_tp8.csv",
    "exp/model-accuracy_emulated_grid21.csv",
    "exp/model-accuracy_emulated_grid21_tp4.csv",
    "exp/model-accuracy_emulated_grid22.csv",
    "exp/model-accuracy_emulated_grid22_tp4.csv",
    "exp/model-accuracy_emulated_grid22_tp8.csv",
    "exp/model-accuracy_emulated_grid23.csv",
    "exp/model-accuracy_emulated_grid24.csv",
    "exp/model-accuracy_emulated_grid24_tp4.csv",
    "exp/model-accuracy_emulated_grid24_tp8.csv",
    "exp/model-accuracy_emulated_grid25.csv",
    "exp/model-accuracy_emulated_grid25_tp4.csv",
    "exp/model-accuracy_emulated_grid25_tp8.csv",
]

HEADLINE = re.compile(r"against the headline .*?MAPE ([\d.]+) %.*max APE ([\d.]+) %")
LOWEST = re.compile(r"model \(lowest predicted among measured\) +\d+ +\d+ +\d+ +\d+ +(-?[\d.]+)% +-?[\d.]+% +(-?[\d.]+)%")


def judge(arlab, path, calibration):
    cmd = [arlab, "validate", path] + (["--calibration", calibration] if calibration else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"model_files: {' '.join(cmd)} failed:\n{r.stderr}")
    head, low = HEADLINE.search(r.stdout), LOWEST.search(r.stdout)
    if not head or not low:
        sys.exit(f"model_files: no MAPE or regret line in the output of {' '.join(cmd)}")
    return head.group(1), head.group(2), low.group(1), low.group(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("arlab", help="the arlab executable")
    ap.add_argument("--calibration", help="calibration CSV for every file (default: each file's node's, auto)")
    ap.add_argument("--root", default=".", help="source tree holding data/h200 (default: .)")
    args = ap.parse_args()
    if not (os.path.isfile(args.arlab) and os.access(args.arlab, os.X_OK)):
        sys.exit(f"model_files: {args.arlab}: not an executable arlab")
    if not os.path.isdir(os.path.join(args.root, "data", "h200")):
        sys.exit(f"model_files: --root {args.root}: no data/h200 folder")
    if args.calibration and not os.path.isfile(args.calibration):
        sys.exit(f"model_files: --calibration {args.calibration}: no such file")
    print("| file | MAPE | max APE | lowest prediction's regret, mean / max |")
    print("|---|---|---|---|")
    for name in FILES:
        path = os.path.join(args.root, "data", "h200", name)
        mape, max_ape, mean, worst = judge(args.arlab, path, args.calibration)
        print(f"| `{name}` | {mape} % | {max_ape} % | {mean} % / {worst} % |")


if __name__ == "__main__":
    main()
