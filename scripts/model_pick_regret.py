#!/usr/bin/env python3
"""Regret of the CURRENT model's own pick on measured data: for every problem (bf16 ar_res_rms, N = 2)
of the given measurement CSVs with at least two measured configurations, the configuration the model
policy picks now (`arlab predict --policy model` with CAL, over one- and two-shot) is looked up among the
measured configurations of that problem; regret = its measured time / the best measured time - 1
(headline: plots/measurement_headline.py). Picks that were never measured are listed,
never guessed. Rows of several files (processes) are pooled: drift between processes (~2 %) enters.

  scripts/model_pick_regret.py ARLAB CAL [--emulated] FILE.csv [FILE.csv ...]
"""
import csv
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
from measurement_headline import headline_us  # noqa: E402  (the headline rule, shared with plots/)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    arlab, cal, rest = argv[0], argv[1], argv[2:]
    emulated = "--emulated" in rest
    files = [f for f in rest if f != "--emulated"]
    meas, regs = {}, {}
    for path in files:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["check"] != "pass" or r["pattern"] != "ar_res_rms" or r["nranks"] != "2" or r["dtype"] != "bf16":
                    continue
                t = headline_us(r)
                key = (int(r["tokens"]), int(r["hidden"]))
                cfg = (r["algo"], r["tpb"], r["cluster"], r["grid"], r["vecs_per_thread"])
                meas.setdefault(key, {}).setdefault(cfg, []).append(t)
                regs.setdefault(key, r["regs"])
    regrets, unmeasured = [], []
    for key in sorted(meas):
        if len(meas[key]) < 2:
            continue
        cmd = [arlab, "predict", "-t", str(key[0]), "--hidden", str(key[1]), "--calibration", cal, "--policy", "model",
               "--no-terms", "--regs", regs[key]] + (["--emulated"] if emulated else [])
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        m = re.search(r"^\s+model\s+(\w+)\s+(\d+)/(\d+)/(\d+)\s+(\d)", out, re.M)
        pick = m.groups()
        best = min(statistics.median(v) for v in meas[key].values())
        if pick not in meas[key]:
            unmeasured.append((key, pick))
            continue
        r = statistics.median(meas[key][pick]) / best - 1
        regrets.append(r)
        print("T %4d H %5d: model %-28s regret %5.1f %%" % (key[0], key[1], " ".join(pick), 100 * r))
    for key, pick in unmeasured:
        print("T %4d H %5d: model %-28s not measured" % (key[0], key[1], " ".join(pick)))
    print("picks measured %d of %d problems: mean regret %.2f %%, max %.2f %%" %
          (len(regrets), len(regrets) + len(unmeasured), 100 * statistics.mean(regrets), 100 * max(regrets)))


if __name__ == "__main__":
    main(sys.argv[1:])
