#!/usr/bin/env python3
"""Regret of the CURRENT model's own pick on measured data: for every problem (bf16 ar_res_rms, N = 2)
of the given measurement CSVs with at least two measured configurations, the configuration the model
policy picks now (`arlab predict --policy model --kernel KERNEL` with CAL, over one- and two-shot) is
looked up among the measured configurations of that problem; regret = its measured time / the best
measured time - 1 (headline: plots/measurement_headline.py). A configuration is
(algorithm, tpb, cluster, grid, vectors per thread, kernel body); rows written before the
`kernel_variant` column read as the reference body. Only rows of the kernel bodies the model may pick
count (--kernel reference: reference rows; lean: lean rows; auto: both). Picks that were never measured
are listed, never guessed. Rows of several files (processes) are pooled: drift between processes (~2 %)
enters. Rows that failed the correctness gate are left out.

  scripts/model_pick_regret.py ARLAB CAL [--emulated] [--kernel reference|lean|auto] FILE.csv [FILE.csv ...]

e.g. scripts/model_pick_regret.py build/cli/arlab data/calibration/h200_nvlink.csv \\
         data/h200/model_grid_nvlink.csv data/h200/model_picks_nvlink.csv
     scripts/model_pick_regret.py build/cli/arlab data/calibration/h200_emulated.csv --emulated --kernel lean \\
         data/h200/exp/lean_configs_final_emulated.csv
"""
import csv
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plots"))
from measurement_headline import headline_us  # noqa: E402  (the headline rule, shared with plots/)

KERNELS = ("reference", "lean", "auto")


def parse_args(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    arlab, cal, rest = argv[0], argv[1], argv[2:]
    emulated, kernel, files = False, "reference", []
    i = 0
    while i < len(rest):
        a = rest[i]
        if a == "--emulated":
            emulated = True
        elif a == "--kernel":
            if i + 1 >= len(rest) or rest[i + 1] not in KERNELS:
                sys.exit("model_pick_regret: --kernel needs one of " + ", ".join(KERNELS))
            kernel = rest[i + 1]
            i += 1
        elif a.startswith("--"):
            sys.exit("model_pick_regret: unknown option " + a + "\n\n" + __doc__)
        else:
            files.append(a)
        i += 1
    if not files:
        sys.exit("model_pick_regret: no measurement CSV given\n\n" + __doc__)
    return arlab, cal, emulated, kernel, files


def model_pick(out):
    """The model row of `arlab predict`'s summary table, found by its header's column names:
    (algo, tpb, cluster, grid, vpt, kernel). Tables printed before the kernel column read as reference."""
    header = None
    for line in out.splitlines():
        cells = line.split()
        if not cells:
            continue
        if cells[0] == "policy" and "tpb/cluster/grid" in cells:
            header = cells
            continue
        if header and cells[0] == "model" and len(cells) >= len(header):
            row = dict(zip(header, cells))
            tpb, cluster, grid = row["tpb/cluster/grid"].split("/")
            return (row["algo"], tpb, cluster, grid, row["vpt"], row.get("kernel", "reference"))
    raise RuntimeError("model_pick_regret: no model row in the output of arlab predict:\n" + out)


def main(argv):
    arlab, cal, emulated, kernel, files = parse_args(argv)
    bodies = {"reference": {"reference"}, "lean": {"lean"}, "auto": {"reference", "lean"}}[kernel]
    meas, regs = {}, {}
    for path in files:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["check"] != "pass" or r["pattern"] != "ar_res_rms" or r["nranks"] != "2" or r["dtype"] != "bf16":
                    continue
                if r.get("implementation", "fused") not in ("", "fused"):
                    continue  # a baseline (all-reduce + separate norm kernel), not a configuration of the kernel
                body = r.get("kernel_variant") or "reference"
                if body not in bodies:
                    continue
                t = headline_us(r)
                key = (int(r["tokens"]), int(r["hidden"]))
                cfg = (r["algo"], r["tpb"], r["cluster"], r["grid"], r["vecs_per_thread"], body)
                meas.setdefault(key, {}).setdefault(cfg, []).append(t)
                regs.setdefault(key, r["regs"])
    regrets, unmeasured = [], []
    for key in sorted(meas):
        if len(meas[key]) < 2:
            continue
        cmd = [arlab, "predict", "-t", str(key[0]), "--hidden", str(key[1]), "--calibration", cal, "--policy", "model",
               "--kernel", kernel, "--no-terms", "--regs", regs[key]] + (["--emulated"] if emulated else [])
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        pick = model_pick(out)
        best = min(statistics.median(v) for v in meas[key].values())
        if pick not in meas[key]:
            unmeasured.append((key, pick))
            continue
        r = statistics.median(meas[key][pick]) / best - 1
        regrets.append(r)
        print("T %4d H %5d: model %-38s regret %5.1f %%" % (key[0], key[1], " ".join(pick), 100 * r))
    for key, pick in unmeasured:
        print("T %4d H %5d: model %-38s not measured" % (key[0], key[1], " ".join(pick)))
    if not regrets:
        print("picks measured 0 of %d problems" % len(unmeasured))
        return
    print("picks measured %d of %d problems: mean regret %.2f %%, max %.2f %%" %
          (len(regrets), len(regrets) + len(unmeasured), 100 * statistics.mean(regrets), 100 * max(regrets)))


if __name__ == "__main__":
    main(sys.argv[1:])
