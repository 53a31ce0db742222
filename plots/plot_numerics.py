#!/usr/bin/env python3
"""Figure of `arlab numerics`: error against the fp64 reference vs the number of ranks N.

Reads the numerics CSV (schema: common/numerics_schema.h) by column name and draws, for the
all-reduced sum and norm_out, the relative RMS error (top row) and the share of elements equal to
the correctly rounded fp64 value (bottom row) against N, one line per dtype x accumulation mode (colour =
dtype, solid = pairwise, dashed = fp32_acc). Writes <out>.png and <out>.pdf.

The CSV is appended to by every run; the figure shows one input configuration (seed, distribution,
tokens, hidden, eps) -- by default that of the last row -- and, for each point, the last row written.

    python3 plots/plot_numerics.py --csv out/numerics.csv --out out/numerics
"""

import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

REQUIRED = ["seed", "distribution", "tokens", "hidden", "eps", "nranks", "dtype", "acc", "output",
            "err_rel_rms", "frac_correctly_rounded", "git_sha", "date_utc"]
CONFIG_KEYS = ["seed", "distribution", "tokens", "hidden", "eps"]
PANEL_OUTPUTS = [("sum", "all-reduced sum s"), ("norm_out", "norm_out (after residual + RMSNorm)")]
# (column, axis label, log scale, scale factor)
METRICS = [("err_rel_rms", "relative RMS error vs fp64", True, 1.0),
           ("frac_correctly_rounded", "% correctly rounded (of T)", False, 100.0)]
# Colour = dtype; wider lines and bigger markers for bf16 so that where fp16 lies on top of it
# (e.g. the share of correctly rounded sums) both stay visible.
DTYPE_STYLES = {"bf16": ("tab:blue", 3.5, 9), "fp16": ("tab:orange", 1.5, 5), "fp32": ("tab:green", 1.5, 4)}
ACC_STYLES = {"pairwise": ("-", "o"), "fp32_acc": ("--", "s")}


def read_rows(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"plot_numerics: {path} lacks column(s) {', '.join(missing)}; "
                         "is it a numerics CSV (arlab numerics --out)?")
            rows = list(reader)
    except FileNotFoundError:
        sys.exit(f"plot_numerics: no such file: {path} (run `arlab numerics --out {path}` first)")
    if not rows:
        sys.exit(f"plot_numerics: {path} has a header but no rows")
    return rows


def select(rows, args):
    """Rows of one input configuration, de-duplicated (last row wins) per (N, dtype, acc, output)."""
    wanted = {k: getattr(args, k) for k in CONFIG_KEYS if getattr(args, k) is not None}
    last = rows[-1]
    config = {k: wanted.get(k, last[k]) for k in CONFIG_KEYS}
    chosen = {}
    for r in rows:
        if all(r[k] == config[k] for k in CONFIG_KEYS):
            chosen[(int(r["nranks"]), r["dtype"], r["acc"], r["output"])] = r
    if not chosen:
        sys.exit(f"plot_numerics: no rows match {config}")
    others = {tuple(r[k] for k in CONFIG_KEYS) for r in rows} - {tuple(config[k] for k in CONFIG_KEYS)}
    if others:
        print(f"plot_numerics: the CSV also holds {len(others)} other configuration(s); "
              f"choose with --seed/--distribution/--tokens/--hidden/--eps")
    return config, chosen


def plot(config, chosen, out_prefix):
    series = sorted({(k[1], k[2]) for k in chosen})
    fig, axes = plt.subplots(len(METRICS), len(PANEL_OUTPUTS), figsize=(11, 7.5), sharex=True, squeeze=False)
    for col, (output, title) in enumerate(PANEL_OUTPUTS):
        for row, (metric, ylabel, log_y, factor) in enumerate(METRICS):
            ax = axes[row][col]
            for dtype, acc in series:
                pts = sorted((n, factor * float(r[metric])) for (n, d, a, o), r in chosen.items()
                             if d == dtype and a == acc and o == output)
                if not pts:
                    continue
                style, marker = ACC_STYLES.get(acc, (":", "^"))
                colour, width, size = DTYPE_STYLES.get(dtype, ("black", 1.5, 5))
                ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle=style, marker=marker, color=colour,
                        linewidth=width, markersize=size, alpha=0.85, label=f"{dtype} {acc}")
            ax.set_xscale("log", base=2)
            ns = sorted({k[0] for k in chosen})
            ax.set_xticks(ns)
            ax.set_xticklabels([str(n) for n in ns])
            if log_y:
                ax.set_yscale("log")
                ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
                ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:.0e}"))
                ax.yaxis.set_minor_formatter(ticker.NullFormatter())
            else:
                ax.set_ylim(0, 105)
            ax.grid(True, which="both", alpha=0.3)
            if row == 0:
                ax.set_title(title)
            if row == len(METRICS) - 1:
                ax.set_xlabel("ranks N")
            if col == 0:
                ax.set_ylabel(ylabel)
    axes[-1][0].legend(fontsize=9, loc="lower left")
    any_row = next(iter(chosen.values()))
    fig.suptitle(f"arlab numerics: pairwise vs fp32 accumulation, error against fp64 "
                 f"({config['distribution']} inputs, seed {config['seed']}, {config['tokens']} tokens x "
                 f"H {config['hidden']}, eps {config['eps']}; git {any_row['git_sha']})", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    for ext in ("png", "pdf"):
        fig.savefig(f"{out_prefix}.{ext}", dpi=150)
    print(f"plot_numerics: wrote {out_prefix}.png and {out_prefix}.pdf")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", default="out/numerics.csv", help="numerics CSV (default: %(default)s)")
    ap.add_argument("--out", default="out/numerics", help="output prefix for .png/.pdf (default: %(default)s)")
    for k in CONFIG_KEYS:
        ap.add_argument(f"--{k}", default=None, help=f"plot the rows with this {k} (default: the last row's)")
    args = ap.parse_args()
    config, chosen = select(read_rows(args.csv), args)
    plot(config, chosen, args.out)


if __name__ == "__main__":
    main()
