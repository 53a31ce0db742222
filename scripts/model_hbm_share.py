#!/usr/bin/env python3
"""The timing model's bias against the share of its prediction that HBM bandwidth bounds.

For every passing row of the measurement CSVs given (common/measurement_schema.h; by default the
reference one-shot body's), predicts the row's design with `ARLAB predict --policy explicit ... --csv`
(the measured calibration of its node, as `arlab validate --calibration auto` does) and reads the
prediction's terms by column name: the HBM share is the part of predicted_us in terms whose explanation
says they are hbm-bound. Prints, per node size N, pattern group (ar_res_rms, or every other pattern) and
HBM share (0-20 %, 20-40 %, ... of the prediction), the rows, the mean and the median of predicted /
measured - 1 (negative: the model under-predicts). Measured = the row's headline (skewfree_us_median
where the headline is skew_free, else kernel_us_median), as `arlab validate` judges it.

  scripts/model_hbm_share.py ARLAB FILE.csv [FILE.csv ...] [--kernel reference|lean] [--algo oneshot|twoshot]

e.g. scripts/model_hbm_share.py build-cpu/cli/arlab data/h200/exp/model-accuracy_emulated_grid2{2,4,5}_tp8.csv
(docs/model.md, "HBM-bound phases at TP4 and TP8").
"""
import collections
import csv
import os
import statistics
import subprocess
import sys
import tempfile


def usage(msg):
    sys.stderr.write("model_hbm_share: " + msg + "\n" + __doc__.split("\n\n")[2] + "\n")
    sys.exit(2)


def parse(argv):
    if len(argv) < 3:
        usage("expected ARLAB and at least one measurement CSV")
    arlab, files, kernel, algo = argv[1], [], "reference", "oneshot"
    i = 2
    while i < len(argv):
        if argv[i] in ("--kernel", "--algo"):
            if i + 1 >= len(argv):
                usage(argv[i] + " needs a value")
            if argv[i] == "--kernel":
                kernel = argv[i + 1]
            else:
                algo = argv[i + 1]
            i += 2
        else:
            files.append(argv[i])
            i += 1
    if not os.access(arlab, os.X_OK):
        usage(arlab + " is not an executable")
    if not files:
        usage("no measurement CSV")
    if kernel not in ("reference", "lean") or algo not in ("oneshot", "twoshot"):
        usage("--kernel is reference or lean, --algo oneshot or twoshot")
    return arlab, files, kernel, algo


def measured_us(row):
    column = "skewfree_us_median" if row.get("headline") == "skew_free" else "kernel_us_median"
    return float(row[column])


def hbm_share(arlab, row, tmp):
    """(predicted_us, HBM share) of one measurement row's design, from `arlab predict --csv`."""
    if os.path.exists(tmp):
        os.remove(tmp)
    cmd = [arlab, "predict", "-n", row["nranks"], "--hidden", row["hidden"], "-t", row["tokens"],
           "--dtype", row["dtype"], "--pattern", row["pattern"], "--acc", row["acc"], "--algo", row["algo"],
           "--policy", "explicit", "--tpb", row["tpb"], "--cluster", row["cluster"], "--grid", row["grid"],
           "--vpt", row["vecs_per_thread"], "--regs", row["regs"],
           "--kernel", row.get("kernel_variant") or "reference", "--csv", tmp, "--no-terms"]
    if row["topology"] == "emulated":
        cmd.append("--emulated")
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("model_hbm_share: `%s` failed: %s" % (" ".join(cmd), done.stderr.strip()))
    with open(tmp, newline="") as f:
        terms = list(csv.DictReader(f))
    predicted = float(terms[0]["predicted_us"])
    hbm = sum(float(t["term_us"]) for t in terms if "hbm-bound" in t["explanation"])
    return predicted, hbm / predicted


def main(argv):
    arlab, files, kernel, algo = parse(argv)
    groups = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "terms.csv")
        for path in files:
            with open(path, newline="") as f:
                for row in csv.DictReader(f):
                    if row.get("check") != "pass" or row["algo"] != algo:
                        continue
                    if (row.get("kernel_variant") or "reference") != kernel:
                        continue
                    predicted, share = hbm_share(arlab, row, tmp)
                    pattern = "ar_res_rms" if row["pattern"] == "ar_res_rms" else "other"
                    low = min(int(share * 5), 4) * 20
                    groups[(int(row["nranks"]), pattern, low)].append(predicted / measured_us(row) - 1.0)
    print("%s %s, %d file(s): bias by the HBM-bound share of the prediction" % (kernel, algo, len(files)))
    print("| N | patterns | HBM share | rows | mean | median |")
    print("|---|---|---|---|---|---|")
    for (n, pattern, low), errors in sorted(groups.items()):
        print("| %d | %s | %d-%d %% | %d | %+.1f %% | %+.1f %% |" % (
            n, pattern, low, low + 20, len(errors), 100 * statistics.mean(errors), 100 * statistics.median(errors)))


if __name__ == "__main__":
    main(sys.argv)
