#!/usr/bin/env python3
"""Figure of `arlab exp crossover`: the fused kernel's one-shot and two-shot algorithms (trtllm policy)
against the baselines (unfused: arlab's all-reduce kernel + norm kernel; nccl: NCCL all-reduce + norm
kernel), time per call vs tokens, one panel per (ranks N, hidden size H). A dotted vertical line marks
where two-shot overtakes one-shot (the smallest measured token count at which two-shot is faster).
Prints, per panel, that crossover and the smallest token count at which a baseline beats the better
fused algorithm. Times are the headline medians with their 95 % CI as error bars (where the CSV has the CI
columns); the caption names the rows' commits and the CIs' widths.

    python3 plots/plot_crossover.py --csv results/crossover/crossover.csv --out results/crossover/crossover
"""

import sys

import exp_common as ec

TOOL = "plot_crossover"
POLICY = "trtllm"
FUSED = "fused "  # label prefix of the fused kernel's lines
NAN = float("nan")


def pointwise_min(series):
    """{tokens: smallest finite time} over a list of {tokens: time}."""
    out = {}
    for pts in series:
        for t, v in pts.items():
            if ec.finite(v) and (t not in out or v < out[t]):
                out[t] = v
    return out


def panel(ax, title, rows):
    """Draws one panel; returns its summary row and crossover line."""
    lines = ec.series(rows, FUSED)
    cis = ec.series_ci(rows, FUSED)
    for label, (st, pts) in lines.items():
        ec.draw_series(ax, label, st, pts, ms=4, ci=cis[label])
    lines = {label: (st, [(t, v) for t, v, _ in pts]) for label, (st, pts) in lines.items()}
    one = dict(lines.get(f"{FUSED}{POLICY} oneshot", (None, []))[1])
    two = dict(lines.get(f"{FUSED}{POLICY} twoshot", (None, []))[1])
    t_x = ec.first_faster([(t, v, two.get(t, NAN)) for t, v in one.items()])
    if t_x is not None:
        ec.mark_x(ax, t_x, f"two-shot faster\nfrom T={t_x}", [r["tokens"] for r in rows])
    bases = [dict(pts) for label, (st, pts) in lines.items() if not label.startswith(FUSED)]
    best, base_best = pointwise_min([one, two]), pointwise_min(bases)
    t_b = ec.first_faster([(t, v, base_best.get(t, NAN)) for t, v in best.items()])
    ec.tokens_axis(ax, [r["tokens"] for r in rows])
    ec.time_axis(ax, [ec.headline_us(r) for r in rows])
    ax.set_title(title, fontsize=10)
    missing = [name for name, pts in (("one-shot", one), ("two-shot", two)) if not pts]
    if missing:
        ax.text(0.02, 0.02, f"no {POLICY} {' or '.join(missing)} rows", transform=ax.transAxes, fontsize=7,
                color="gray")
    if t_x is None:
        line = f"two-shot crossover: {title}: " + ("one-shot faster at every measured token count" if one and two
                                                   else "not measurable (one algorithm missing)")
    else:
        line = f"two-shot crossover: {title}: two-shot faster from T={t_x}"
        back = [t for t, v in sorted(one.items()) if t > t_x and ec.finite(two.get(t, NAN)) and two[t] >= v]
        if back:
            line += f" (but not at T={', '.join(map(str, back))})"
    if t_b is None:
        common = [t for t in best if ec.finite(base_best.get(t, NAN))]
        t_b = f"none up to T={max(common)}" if common else "no baseline"
    summary = [title, t_x, one.get(t_x, NAN), two.get(t_x, NAN), t_b]
    return summary, line


def main():
    a = ec.parse_args(__doc__, "crossover")
    rows = ec.read_rows(a.csv, a.experiment, TOOL)
    other = [r for r in rows if ec.is_fused(r) and r["policy"] != POLICY]
    if other:
        print(f"{TOOL}: note: not drawn: {len(other)} fused row(s) of policies other than {POLICY}", file=sys.stderr)
    rows = [r for r in rows if not ec.is_fused(r) or r["policy"] == POLICY]
    if not rows:
        sys.exit(f"{TOOL}: {a.csv}: no {POLICY} or baseline rows")
    panels = ec.facets(rows)
    fig, axes = ec.facet_figure(len(panels), ncols=min(3, len({r["hidden"] for r in rows})))
    table, lines = [], []
    for (title, frows), (ax,) in zip(panels, axes):
        summary, line = panel(ax, title, frows)
        table.append(summary)
        lines.append(line)
    ec.print_table("crossover: where two-shot overtakes one-shot (trtllm policy), times at that token count (us)",
                   ["panel", "two-shot from T", "one-shot us", "two-shot us", "baseline beats fused from T"], table)
    print()
    for line in lines:
        print(line)
    fig.suptitle(ec.figure_title(a.experiment, "one-shot vs two-shot (trtllm) vs unfused baselines", rows),
                 fontsize=11)
    ec.tight_below_title(fig)
    ec.shared_legend(fig, [ax for axs in axes for ax in axs])
    ec.caption(fig, [ec.provenance_caption(rows), ec.ci_caption(rows)], TOOL)
    ec.save(fig, a.out, TOOL)


if __name__ == "__main__":
    main()
