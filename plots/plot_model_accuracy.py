#!/usr/bin/env python3
"""Figure of the timing model's accuracy on held-out measurements: predicted vs measured, one panel per
node, from the validation CSVs `arlab validate --out` writes (schema: common/validation_schema.h; read by
column name). Points are coloured by algorithm and pattern group; each panel gives the rows' MAPE and
the identity line with +-10 % bands. The plot never recomputes the model: predicted_us comes from the CSV.

    python3 plots/plot_model_accuracy.py --csv out/figures/val_nvlink.csv "real TP2, NVLink" \\
        --csv out/figures/val_emulated.csv "emulated TP2" --out out/figures/model_accuracy
"""

import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

REQUIRED = ["algo", "pattern", "kernel_us_median", "predicted_us", "status"]
GROUPS = [  # (label, colour, test on a row)
    ("one-shot, ar_res_rms", "tab:blue", lambda r: r["algo"] == "oneshot" and r["pattern"] == "ar_res_rms"),
    ("two-shot, ar_res_rms", "tab:orange", lambda r: r["algo"] == "twoshot" and r["pattern"] == "ar_res_rms"),
    ("other patterns", "tab:red", lambda r: r["pattern"] != "ar_res_rms"),
]


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit("%s: missing column(s) %s (expected a validation CSV from `arlab validate --out`)" %
                     (path, ", ".join(missing)))
        rows = [r for r in reader if r["status"] == "ok"]
    if not rows:
        sys.exit("%s: no predicted rows (status ok)" % path)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", nargs=2, action="append", metavar=("FILE", "TITLE"), required=True,
                    help="a validation CSV and its panel title (repeatable)")
    ap.add_argument("--out", required=True, help="output path without extension (.png and .pdf are written)")
    a = ap.parse_args()
    panels = [(read_rows(path), title) for path, title in a.csv]
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 5.6), squeeze=False)
    for ax, (rows, title) in zip(axes[0], panels):
        meas = [float(r["kernel_us_median"]) for r in rows]
        pred = [float(r["predicted_us"]) for r in rows]
        lo, hi = min(meas + pred) * 0.8, max(meas + pred) * 1.25
        ax.plot([lo, hi], [lo, hi], color="black", lw=1, label="predicted = measured")
        ax.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1], color="gray", alpha=0.15,
                        label="+-10 %")
        for label, colour, test in GROUPS:
            sel = [r for r in rows if test(r)]
            if sel:
                ax.scatter([float(r["kernel_us_median"]) for r in sel], [float(r["predicted_us"]) for r in sel],
                           s=12, color=colour, alpha=0.7, label="%s (%d)" % (label, len(sel)))
        mape = 100.0 * sum(abs(p / m - 1) for p, m in zip(pred, meas)) / len(rows)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel("measured kernel time (us, headline)")
        ax.set_ylabel("predicted (us)")
        ax.set_title("%s: %d rows, MAPE %.1f %%" % (title, len(rows), mape))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="upper left", fontsize=8)
    fig.suptitle("arlab timing model v2 with measured calibrations (arlab calibrate) on held-out rows")
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig("%s.%s" % (a.out, ext), dpi=150)
    print("plot_model_accuracy: wrote %s.png and %s.pdf" % (a.out, a.out))


if __name__ == "__main__":
    main()
