#!/usr/bin/env python3
"""Figure of `arlab exp tokens`: time per call vs tokens, one line per (policy, algorithm) -- colour =
policy, solid = one-shot, dashed = two-shot; baselines (if measured) in black / brown -- one panel per
(ranks N, hidden size H). Explicit-configuration rows are not drawn. Time is the headline (skew-free
median, else the max-over-ranks median; plots/exp_common.py). Prints the times per panel.

    python3 plots/plot_tokens.py --csv results/tokens/tokens.csv --out results/tokens/tokens
"""

import exp_common as ec

TOOL = "plot_tokens"


def main():
    a = ec.parse_args(__doc__, "tokens")
    rows = [r for r in ec.read_rows(a.csv, a.experiment, TOOL) if r["policy"] != "explicit"]
    if not rows:
        raise SystemExit(f"{TOOL}: {a.csv}: only explicit-configuration rows; nothing to draw")
    panels = ec.facets(rows)
    ncols = min(4, len({r["hidden"] for r in rows}))
    fig, axes = ec.facet_figure(len(panels), ncols=max(ncols, 1))
    for (title, frows), (ax,) in zip(panels, axes):
        lines = ec.series(frows)
        for label, (st, pts) in lines.items():
            pts = [(t, v) for t, v in pts if ec.finite(v)]
            ax.plot([t for t, _ in pts], [v for _, v in pts], label=label, ms=4, lw=1.4, **st)
        ec.tokens_axis(ax, [r["tokens"] for r in frows])
        ec.time_axis(ax, [ec.headline_us(r) for r in frows])
        ax.set_title(title, fontsize=10)
        tokens = sorted({r["tokens"] for r in frows})
        table = [[t] + [dict(pts).get(t) for _, pts in lines.values()] for t in tokens]
        ec.print_table(f"tokens: {title}, time per call (us)", ["tokens"] + list(lines), table)
    fig.suptitle(ec.figure_title(a.experiment, "time per call vs tokens per policy", rows), fontsize=11)
    fig.tight_layout()
    ec.shared_legend(fig, [ax for axs in axes for ax in axs])
    ec.save(fig, a.out, TOOL)


if __name__ == "__main__":
    main()
