#!/usr/bin/env python3
"""Figure of `arlab exp tokens` and of `arlab exp seed` (--experiment seed): time per call vs tokens, one
panel per (ranks N, hidden size H). One line per (policy, algorithm) -- colour = policy, solid = one-shot,
dashed = two-shot -- except the model policy, which picks the algorithm itself: one line per panel, its
markers showing the algorithm it picked at each token count (circle one-shot, square two-shot).
Baselines (if measured) in black / brown. Explicit-configuration rows are not drawn. Lines drawn earlier
are wider, so that a policy that coincides with another (same configuration) stays visible under it.
Time is the headline (skew-free median, else the max-over-ranks median; plots/exp_common.py), with its 95 %
CI as error bars where the CSV has the CI columns. The caption names the rows' commits and the CIs' widths.
Prints the times per panel (and the model policy's algorithm per token count) and the caption.

    python3 plots/plot_tokens.py --csv results/tokens/tokens.csv --out results/tokens/tokens
    python3 plots/plot_tokens.py --csv results/seed/seed.csv --out results/seed/seed --experiment seed
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
        cis = ec.series_ci(frows)
        n = len(lines)
        for i, (label, (st, pts)) in enumerate(lines.items()):
            # earlier lines wider and under later ones: coinciding policies stay visible
            wide = (n - 1 - i) / max(n - 1, 1)
            ec.draw_series(ax, label, st, pts, lw=1.3 + 1.2 * wide, ms=3.5 + 1.2 * wide, ci=cis[label], zorder=2 + i)
        ec.tokens_axis(ax, [r["tokens"] for r in frows])
        ec.time_axis(ax, [ec.headline_us(r) for r in frows])
        ax.set_title(title, fontsize=10)
        tokens = sorted({r["tokens"] for r in frows})
        headers, table = ["tokens"], [[t] for t in tokens]
        for label, (_, pts) in lines.items():
            by_t = {t: (us, algo) for t, us, algo in pts}
            picks = label.split()[-1] in ec.MERGED_POLICIES  # the algorithm is the policy's pick: print it
            headers += [label] + ([f"{label} algo"] if picks else [])
            for t, cells in zip(tokens, table):
                us, algo = by_t.get(t, (None, "-"))
                cells += [us] + ([algo] if picks else [])
        ec.print_table(f"{a.experiment}: {title}, time per call (us)", headers, table)
    fig.suptitle(ec.figure_title(a.experiment, "time per call vs tokens per policy", rows), fontsize=11)
    ec.tight_below_title(fig)
    ec.shared_legend(fig, [ax for axs in axes for ax in axs])
    ec.caption(fig, [ec.provenance_caption(rows), ec.ci_caption(rows)], TOOL)
    ec.save(fig, a.out, TOOL)


if __name__ == "__main__":
    main()
