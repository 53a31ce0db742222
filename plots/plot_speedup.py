#!/usr/bin/env python3
"""Figure of `arlab exp speedup` (issue 13): how much faster each kernel variant is than the reference kernel
at the trtllm configuration (the peer library's kernel), per problem, from the speedup summary CSV the
experiment writes beside its measurement CSV (schema: common/speedup_schema.h; X.csv -> X_summary.csv).

Left panel per (link, N): the speedup vs tokens, one line per hidden size H -- solid: the variant at the
model's choice (design and configuration, the goal's figure), dashed: at the trtllm configuration (the design
alone); the geometric mean over the panel's problems in the legend, a dotted line at 1 (never slower).
Right panel: time per call vs tokens -- the reference kernel, the variant at the model's choice and, on a
real node, the problem's link floor (experiments/speedup_summary.h says how it is computed). Nothing is recomputed:
every number is a column of the summary CSV.

    python3 plots/plot_speedup.py --csv results/speedup/speedup.csv --out results/speedup/speedup
"""

import csv
import math
import os
import sys

import exp_common as ec

TOOL = "plot_speedup"
COLUMNS = ["link", "nranks", "hidden", "tokens", "variant", "reference_us", "variant_trtllm_us", "variant_model_us",
           "speedup_design", "speedup", "floor_kind", "floor_us", "gpu", "topology", "check"]
H_COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]


def summary_path(measurement_csv):
    stem, ext = os.path.splitext(measurement_csv)
    return f"{stem}_summary{ext or '.csv'}"


def read_summary(path):
    if not os.path.exists(path):
        sys.exit(f"{TOOL}: no speedup summary {path} (arlab exp speedup writes it after its cases)")
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if rows:
        missing = [c for c in COLUMNS if c not in rows[0]]
        if missing:
            sys.exit(f"{TOOL}: {path} lacks column(s) {', '.join(missing)} (common/speedup_schema.h)")
    return rows


def geomean(values):
    vals = [v for v in values if ec.finite(v) and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else math.nan


def main():
    a = ec.parse_args(__doc__, "speedup")
    rows = read_summary(summary_path(a.csv))
    if not rows:
        sys.exit(f"{TOOL}: {summary_path(a.csv)} has no rows")
    panels = sorted({(r["link"], int(r["nranks"]), r["variant"]) for r in rows})
    fig, axes = ec.facet_figure(len(panels) * 2, ncols=2, panel_w=5.2, panel_h=3.8)
    table = []
    for i, (link, n, variant) in enumerate(panels):
        sel = [r for r in rows if r["link"] == link and int(r["nranks"]) == n and r["variant"] == variant]
        ax_s, ax_t = axes[2 * i][0], axes[2 * i + 1][0]
        hidden = sorted({int(r["hidden"]) for r in sel})
        all_t, all_times = [], []
        for j, h in enumerate(hidden):
            pts = sorted((int(r["tokens"]), r) for r in sel if int(r["hidden"]) == h)
            ts = [t for t, _ in pts]
            all_t += ts
            color = H_COLORS[j % len(H_COLORS)]
            sp = [ec.num(r, "speedup") for _, r in pts]
            sd = [ec.num(r, "speedup_design") for _, r in pts]
            ax_s.plot(ts, sp, "-o", color=color, ms=4, lw=1.5, label=f"H {h}: model's choice (geomean {geomean(sp):.2f}x)")
            ax_s.plot(ts, sd, "--", color=color, marker="s", ms=3, lw=1.0, alpha=0.8,
                      label=f"H {h}: trtllm configuration (geomean {geomean(sd):.2f}x)")
            ref = [ec.num(r, "reference_us") for _, r in pts]
            var = [ec.num(r, "variant_model_us") for _, r in pts]
            flo = [ec.num(r, "floor_us") for _, r in pts]
            all_times += ref + var + flo
            ax_t.plot(ts, ref, "-o", color=color, ms=4, lw=1.0, alpha=0.6, label=f"H {h}: reference at trtllm")
            ax_t.plot(ts, var, "-s", color=color, ms=4, lw=1.6, label=f"H {h}: {variant} at the model's choice")
            if any(ec.finite(v) for v in flo):  # the emulated node has no link floor (NaN)
                ax_t.plot(ts, flo, ":", color=color, lw=1.2, label=f"H {h}: {sel[0]['floor_kind']} floor")
            for t, r in pts:
                table.append([f"{link} N={n}", str(h), str(t), variant, ec.num(r, "reference_us"),
                              ec.num(r, "variant_trtllm_us"), ec.num(r, "variant_model_us"),
                              ec.num(r, "speedup_design"), ec.num(r, "speedup"), ec.num(r, "floor_us"), r["check"]])
        ax_s.axhline(1.0, color="black", ls=":", lw=1.0)
        ec.tokens_axis(ax_s, all_t)
        ax_s.set_ylabel(f"speedup over the reference kernel (x)")
        ax_s.grid(True, alpha=0.3)
        total = geomean([ec.num(r, "speedup") for r in sel])
        ax_s.set_title(f"{variant} vs reference, {link}, TP{n}: geomean {total:.2f}x", fontsize=9)
        ax_s.legend(fontsize=7)
        ec.tokens_axis(ax_t, all_t)
        ec.time_axis(ax_t, all_times)
        ax_t.set_title(f"time per call{' and the link floor' if link == 'nvlink' else ''}, {link}, TP{n}", fontsize=9)
        ax_t.legend(fontsize=6)
    gpu = ec.short_gpu(rows[0]["gpu"])
    fig.suptitle(f"arlab exp speedup on {gpu} ({rows[0]['topology']}): kernel design and configuration vs the "
                 f"reference kernel at trtllm", fontsize=10)
    ec.tight_below_title(fig)
    ec.save(fig, a.out, TOOL)
    ec.print_table("speedup (us; x = reference / variant)",
                   ["node", "H", "tokens", "variant", "ref", "v@trtllm", "v@model", "design", "speedup", "floor",
                    "check"], table)


if __name__ == "__main__":
    main()
