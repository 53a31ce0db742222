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
                             [--calibration CAL.csv] [--by-alignment]

--calibration predicts with that calibration file instead (a trial: e.g. a copy of the measured one with
one constant changed). --by-alignment groups by the row's alignment instead of the pattern: the largest
of 4096, 2048, 1024, 512, 256 and 128 bytes that divides a token's row (H x the dtype's size), and by HBM
share below or from 40 % of the prediction.

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
    arlab, files, kernel, algo, calibration, by_alignment = argv[1], [], "reference", "oneshot", "auto", False
    i = 2
    while i < len(argv):
        if argv[i] == "--by-alignment":
            by_alignment = True
            i += 1
        elif argv[i] in ("--kernel", "--algo", "--calibration"):
            if i + 1 >= len(argv):
                usage(argv[i] + " needs a value")
            if argv[i] == "--kernel":
                kernel = argv[i + 1]
            elif argv[i] == "--algo":
                algo = argv[i + 1]
            else:
                calibration = argv[i + 1]
            i += 2
        else:
            files.append(argv[i])
            i += 1
    if not os.access(arlab, os.X_OK):
        usage(arlab + " is not an executable")
    if not files:
        usage("no measurement CSV")
    for path in files:
        if not os.path.isfile(path) or not os.access(path, os.R_OK):
            usage("cannot read " + path)
    if kernel not in ("reference", "lean") or algo not in ("oneshot", "twoshot"):
        usage("--kernel is reference or lean, --algo oneshot or twoshot")
    if calibration != "auto" and not os.path.isfile(calibration):
        usage("no calibration file " + calibration)
    return arlab, files, kernel, algo, calibration, by_alignment


DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
REQUIRED_COLUMNS = ("check", "algo", "nranks", "hidden", "tokens", "dtype", "pattern", "acc", "tpb", "cluster",
                    "grid", "vecs_per_thread", "regs", "topology", "headline", "skewfree_us_median",
                    "kernel_us_median")


def row_alignment(row):
    """The largest of 4096 ... 128 bytes dividing a token's row of the measurement row (0: none)."""
    row_bytes = int(row["hidden"]) * DTYPE_BYTES[row["dtype"]]
    return next((a for a in (4096, 2048, 1024, 512, 256, 128) if row_bytes % a == 0), 0)


def measured_us(row):
    column = "skewfree_us_median" if row.get("headline") == "skew_free" else "kernel_us_median"
    return float(row[column])


def hbm_share(arlab, row, tmp, calibration):
    """(predicted_us, HBM share) of one measurement row's design, from `arlab predict --csv`."""
    if os.path.exists(tmp):
        os.remove(tmp)
    cmd = [arlab, "predict", "-n", row["nranks"], "--hidden", row["hidden"], "-t", row["tokens"],
           "--dtype", row["dtype"], "--pattern", row["pattern"], "--acc", row["acc"], "--algo", row["algo"],
           "--policy", "explicit", "--tpb", row["tpb"], "--cluster", row["cluster"], "--grid", row["grid"],
           "--vpt", row["vecs_per_thread"], "--regs", row["regs"],
           "--kernel", row.get("kernel_variant") or "reference", "--calibration", calibration, "--csv", tmp,
           "--no-terms"]
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
    arlab, files, kernel, algo, calibration, by_alignment = parse(argv)
    groups = collections.defaultdict(list)
    skipped = 0
    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "terms.csv")
        for path in files:
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
                if missing:
                    sys.exit("model_hbm_share: %s has no column(s) %s (common/measurement_schema.h)" %
                             (path, ", ".join(missing)))
                for row in reader:
                    if row.get("check") != "pass" or row["algo"] != algo:
                        continue
                    if (row.get("kernel_variant") or "reference") != kernel:
                        continue
                    if int(row["regs"] or 0) <= 0 or int(row["vecs_per_thread"] or 0) <= 0:
                        skipped += 1  # not a design of arlab's that the model predicts (a peer's row)
                        continue
                    predicted, share = hbm_share(arlab, row, tmp, calibration)
                    error = predicted / measured_us(row) - 1.0
                    if by_alignment:
                        groups[(int(row["nranks"]), share >= 0.4, row_alignment(row))].append(error)
                        continue
                    pattern = "ar_res_rms" if row["pattern"] == "ar_res_rms" else "other"
                    low = min(int(share * 5), 4) * 20
                    groups[(int(row["nranks"]), pattern, low)].append(error)
    print("%s %s, %d file(s), calibration %s: bias by the HBM-bound share of the prediction" %
          (kernel, algo, len(files), calibration))
    if skipped:
        print("(%d row(s) without registers or vectors per thread left out: not designs the model predicts)" % skipped)
    if by_alignment:
        print("| N | HBM share | row alignment | rows | mean | median |")
        print("|---|---|---|---|---|---|")
        for (n, high, alignment), errors in sorted(groups.items()):
            print("| %d | %s | %d B | %d | %+.1f %% | %+.1f %% |" % (
                n, ">= 40 %" if high else "< 40 %", alignment, len(errors), 100 * statistics.mean(errors),
                100 * statistics.median(errors)))
        return
    print("| N | patterns | HBM share | rows | mean | median |")
    print("|---|---|---|---|---|---|")
    for (n, pattern, low), errors in sorted(groups.items()):
        print("| %d | %s | %d-%d %% | %d | %+.1f %% | %+.1f %% |" % (
            n, pattern, low, low + 20, len(errors), 100 * statistics.mean(errors), 100 * statistics.median(errors)))


if __name__ == "__main__":
    main(sys.argv)
