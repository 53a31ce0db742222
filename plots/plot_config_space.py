#!/usr/bin/env python3
"""Figure of `arlab exp config-space`: the launch-configuration space of each problem (ranks N, hidden
size H, tokens T, algorithm). One row of panels per problem: heatmaps of the measured time over threads
per block (x) and grid size (y), one per cluster size (and per vecs_per_thread when that varies), then
the matching heatmaps of predicted_us on the same colour scale, then predicted vs measured over the
problem's configurations with Spearman's rank correlation (the measured 95 % CI as horizontal error bars)
and under it the residual (predicted - measured) / measured in % against the measured time, with guides
at +-10 % (its bars: the residual's range over the measured CI). The candidates are the rows of policy
"explicit"; the policies' rows (trtllm, model, ...) are cells too. Marked: the trtllm policy's pick
(star), the model policy's pick (diamond) and the best measured configuration (red ring). Grey cells
were not measured (illegal or not in the sweep). When the candidates are a thinned sample (less than
SPARSE of the heatmaps' cells measured for some problem), the heatmaps would be mostly grey: each problem
then gets two scatter panels instead, threads per block (x) by grid size (y) coloured by the measured and
the predicted time, the marker's shape showing the cluster size and its size vecs_per_thread. Prints per
problem the best configuration (by the median of its rows), the best of the explicit candidates alone,
the picks and their regret (pick / best - 1).

    python3 plots/plot_config_space.py --csv results/config-space/config-space.csv \\
        --out results/config-space/config-space [--split] [--calibration-label TEXT]
"""

import math

import exp_common as ec  # first: selects the Agg backend

import matplotlib  # noqa: E402
import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402

TOOL = "plot_config_space"
REQUIRED = ["tpb", "cluster", "grid", "vecs_per_thread", "predicted_us"]
PICKS = {"trtllm": ("*", "white", "trtllm policy's pick"), "model": ("D", "magenta", "model policy's pick")}
CMAP = matplotlib.colormaps["viridis"].copy()
CMAP.set_bad("0.88")  # configurations without a row
NAN = float("nan")
SPARSE = 0.4  # below this fraction of measured heatmap cells: scatter panels instead of heatmaps
CLUSTER_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "h"]  # per cluster size, in increasing order


class Problem:
    """The fused rows of one problem, as cells {(cluster, vpt, tpb, grid): (measured, predicted)}."""

    def __init__(self, rows, title):
        self.rows, self.title = rows, title
        groups = {}
        for r in rows:
            key = self.config(r)
            if key is not None:
                groups.setdefault(key, []).append(r)
        self.cells = {k: (ec.median([ec.headline_us(r) for r in rs]),
                          ec.median([ec.num(r, "predicted_us") for r in rs])) for k, rs in groups.items()}
        self.cis = {k: ec.point_ci(rs) for k, rs in groups.items()}  # the measured time's 95 % CI per cell
        self.picks = {}  # policy -> (config, its own measured time)
        for pol in {r["policy"] for r in rows} - {"explicit"}:
            prs = [r for r in rows if r["policy"] == pol and self.config(r) is not None]
            if prs:
                self.picks[pol] = (self.config(prs[0]), ec.median([ec.headline_us(r) for r in prs]))
        # the fastest configuration, by the median of its rows like the picks' times (a pick that is the
        # best then has regret 0, not the spread between its repeated rows)
        timed = [(m, k) for k, (m, _) in self.cells.items() if ec.finite(m)]
        self.best_us, self.best = min(timed) if timed else (NAN, None)
        self.panels = sorted({k[:2] for k in self.cells})
        self.tpbs = sorted({k[2] for k in self.cells})
        self.grids = sorted({k[3] for k in self.cells})
        values = [v for pair in self.cells.values() for v in pair if ec.finite(v) and v > 0]
        self.norm = mcolors.LogNorm(min(values), max(values)) if values else None
        # fraction of the heatmaps' cells (panel x tpb x grid) that were measured
        self.fill = len(self.cells) / max(1, len(self.panels) * len(self.tpbs) * len(self.grids))

    @staticmethod
    def config(r):
        key = tuple(ec.ival(r, c) for c in ("cluster", "vecs_per_thread", "tpb", "grid"))
        return None if None in key else key


def config_str(key):
    """(cluster, vpt, tpb, grid) as `arlab run --config` writes it: tpb/cluster/grid/vpt."""
    return f"{key[2]}/{key[0]}/{key[3]}/{key[1]}" if key else "-"


def problems(rows):
    groups = {}
    for r in rows:
        groups.setdefault(ec.problem_key(r), []).append(r)
    several_nodes = len({k[:4] for k in groups}) > 1
    out = []
    for key, rs in sorted(groups.items(), key=lambda kv: (kv[0][:4], kv[1][0]["nranks"], kv[1][0]["hidden"],
                                                          kv[1][0]["tokens"], kv[1][0]["algo"])):
        r = rs[0]
        title = f"TP{r['nranks']}, H = {r['hidden']}, T = {r['tokens']}, {r['algo']}"
        if several_nodes:
            title += f"\n{r['topology']}, {r['link']}, {r['sm_per_rank']} SMs/rank"
        out.append(Problem(rs, title))
    return out


def heatmap(ax, prob, panel, which, vpt_varies, first):
    """Measured (which = 0) or predicted (1) time over (tpb, grid) for one (cluster, vpt); the first panel of
    a row carries the grid tick labels and the problem's name."""
    data = [[prob.cells.get(panel + (t, g), (NAN, NAN))[which] for t in prob.tpbs] for g in prob.grids]
    im = ax.imshow(data, origin="lower", aspect="auto", cmap=CMAP, norm=prob.norm, interpolation="nearest")
    ax.set_xticks(range(len(prob.tpbs)))
    ax.set_xticklabels([str(t) for t in prob.tpbs], fontsize=7, rotation=45 if len(prob.tpbs) > 3 else 0)
    step = max(1, math.ceil(len(prob.grids) / 10))
    ax.set_yticks(range(0, len(prob.grids), step))
    ax.set_yticklabels([str(g) for g in prob.grids[::step]], fontsize=7)
    ax.set_xlabel("threads per block", fontsize=8)
    if first:
        ax.set_ylabel(f"{prob.title}\ngrid (blocks)", fontsize=8)
    else:
        ax.tick_params(labelleft=False)
    ax.set_title(f"{('measured', 'predicted')[which]}, cluster {panel[0]}" +
                 (f", vpt {panel[1]}" if vpt_varies else ""), fontsize=8)
    if len(prob.tpbs) * len(prob.grids) <= 30 and prob.norm is not None:
        for y, row in enumerate(data):
            for x, v in enumerate(row):
                if ec.finite(v):
                    ax.text(x, y, f"{v:.1f}", ha="center", va="center", fontsize=5.5,
                            color="white" if prob.norm(v) < 0.5 else "black")
    for pol, (key, _) in sorted(prob.picks.items()):
        if pol in PICKS and key[:2] == panel:
            marker, face, label = PICKS[pol]
            ax.scatter([prob.tpbs.index(key[2])], [prob.grids.index(key[3])], marker=marker, s=90, c=face,
                       edgecolors="black", linewidths=0.8, label=label, zorder=3)
    if prob.best is not None and prob.best[:2] == panel:
        ax.scatter([prob.tpbs.index(prob.best[2])], [prob.grids.index(prob.best[3])], marker="o", s=260,
                   facecolors="none", edgecolors="red", linewidths=1.6, label="best measured", zorder=4)
    return im


def log2_axis(axis, values):
    """A log2 axis with ticks at the powers of two spanning values, written as plain integers."""
    lo, hi = min(values), max(values)
    ticks = [2 ** k for k in range(int(math.floor(math.log2(lo))), int(math.ceil(math.log2(hi))) + 1)]
    axis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
    axis.set_major_formatter(matplotlib.ticker.FixedFormatter([str(t) for t in ticks]))
    axis.set_minor_locator(matplotlib.ticker.NullLocator())


def scatter_space(ax, prob, which, clusters, vpts, first):
    """Measured (which = 0) or predicted (1) time of the problem's configurations as points over threads per
    block (x) and grid size (y): colour = time, marker = cluster size, marker size = vecs_per_thread."""
    im = None
    for cl in clusters:
        for vpt in vpts:
            sel = [(k[2], k[3], v[which]) for k, v in prob.cells.items()
                   if k[0] == cl and k[1] == vpt and ec.finite(v[which])]
            if sel:
                im = ax.scatter([t for t, _, _ in sel], [g for _, g, _ in sel], c=[v for _, _, v in sel], cmap=CMAP,
                                norm=prob.norm, marker=CLUSTER_MARKERS[clusters.index(cl) % len(CLUSTER_MARKERS)],
                                s=22 * (1 + vpts.index(vpt)), edgecolors="black", linewidths=0.3, zorder=2)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    log2_axis(ax.xaxis, prob.tpbs)
    log2_axis(ax.yaxis, prob.grids)
    ax.tick_params(labelsize=7)
    ax.set_xlabel("threads per block", fontsize=8)
    ax.set_ylabel((f"{prob.title}\n" if first else "") + "grid (blocks)", fontsize=8)
    ax.grid(True, alpha=0.3)
    n = sum(1 for v in prob.cells.values() if ec.finite(v[which]))
    ax.set_title(f"{('measured', 'predicted')[which]} ({n} configurations)", fontsize=8)
    for pol, (key, _) in sorted(prob.picks.items()):
        if pol in PICKS:
            marker, face, label = PICKS[pol]
            ax.scatter([key[2]], [key[3]], marker=marker, s=150, c=face, edgecolors="black", linewidths=0.9,
                       label=label, zorder=3)
    if prob.best is not None:
        ax.scatter([prob.best[2]], [prob.best[3]], marker="o", s=320, facecolors="none", edgecolors="red",
                   linewidths=1.6, label="best measured", zorder=4)
    return im


def scatter_legend(ax, clusters, vpts):
    """Legend entries (grey proxies) of the scatter panels' marker shapes and sizes."""
    for i, cl in enumerate(clusters):
        ax.scatter([], [], marker=CLUSTER_MARKERS[i % len(CLUSTER_MARKERS)], s=30, c="0.6", edgecolors="black",
                   linewidths=0.3, label=f"cluster {cl}")
    for i, vpt in enumerate(vpts):
        ax.scatter([], [], marker="o", s=22 * (1 + i), c="0.6", edgecolors="black", linewidths=0.3,
                   label=f"vecs_per_thread {vpt}")


def parity(ax, ax_res, prob):
    """Predicted vs measured of the problem's configurations (the measured 95 % CI as horizontal bars) and,
    in ax_res under it, their residuals against the measured time; returns (Spearman's rho, residuals
    {config: %})."""
    pairs = [(m, p, k) for k, (m, p) in prob.cells.items() if ec.finite(m) and ec.finite(p)]
    if not pairs:
        ec.no_data(ax, "no predicted_us")
        ec.no_data(ax_res, "no predicted_us")
        return NAN, {}
    ec.draw_ci(ax, [m for m, _, _ in pairs], [p for _, p, _ in pairs], [prob.cis[k] for _, _, k in pairs],
               "tab:gray", horizontal=True)
    ax.scatter([m for m, _, _ in pairs], [p for _, p, _ in pairs], s=10, color="tab:gray", alpha=0.7,
               label="configuration")
    cell = dict(((k, (m, p)) for m, p, k in pairs))
    for pol, (key, _) in sorted(prob.picks.items()):
        if pol in PICKS and key in cell:
            marker, face, label = PICKS[pol]
            ax.scatter([cell[key][0]], [cell[key][1]], marker=marker, s=90, c=face, edgecolors="black",
                       linewidths=0.8, label=label, zorder=3)
    if prob.best in cell:
        ax.scatter([cell[prob.best][0]], [cell[prob.best][1]], marker="o", s=200, facecolors="none",
                   edgecolors="red", linewidths=1.6, label="best measured", zorder=4)
    lo = min(min(m, p) for m, p, _ in pairs) * 0.9
    hi = max(max(m, p) for m, p, _ in pairs) * 1.1
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8, label="predicted = measured")
    ec.square_log_axes(ax, lo, hi)
    ax.tick_params(labelsize=7, labelbottom=False)
    ax.set_ylabel("predicted (µs)", fontsize=8)
    rho = ec.spearman([m for m, _, _ in pairs], [p for _, p, _ in pairs])
    ax.set_title(f"Spearman ρ = {ec.fmt(rho)} ({len(pairs)} configs)", fontsize=8)
    ec.residual_panel(ax_res, [("configuration", {"color": "tab:gray", "ls": "none", "marker": "o", "ms": 3,
                                                  "alpha": 0.7},
                                [(m, m, p, prob.cis[k]) for m, p, k in pairs])], "measured (µs)")
    ax_res.set_xlim(lo, hi)
    ec.plain_log_ticks(ax_res.xaxis)
    return rho, {k: ec.residual_pct(p, m) for m, p, k in pairs}


def parity_axes(fig, spec):
    """The predicted-vs-measured panel and the residual panel under it, in one cell of the figure's grid
    (their final heights are set by exp_common.close_residual_gaps once the layout is done)."""
    sub = spec.subgridspec(2, 1, height_ratios=[1.0 - ec.RESIDUAL_SHARE, ec.RESIDUAL_SHARE])
    ax = fig.add_subplot(sub[0])
    return ax, fig.add_subplot(sub[1], sharex=ax)


def draw(probs, rows, experiment, calibration_label):
    """One figure: a row of panels per problem -- heatmaps, or scatter panels when the candidates are
    sparse (SPARSE) -- and the caption. Returns (fig, {problem title: (rho, residuals {config: %})})."""
    if min(p.fill for p in probs) < SPARSE:
        fig, fits = draw_sparse(probs, rows, experiment)
    else:
        fig, fits = draw_heatmaps(probs, rows, experiment)
    ec.caption(fig, caption_lines(rows, calibration_label), TOOL)
    return fig, fits


def caption_lines(rows, calibration_label):
    """The caption: the rows' commits and predictions' calibration, the CIs, what carries no CI."""
    return [ec.provenance_caption(rows, calibration_label),
            ec.ci_caption(rows, "error bars in predicted vs measured"),
            ec.RESIDUAL_CAPTION, "heatmap and scatter colours: medians, without a CI"]


def draw_heatmaps(probs, rows, experiment):
    """Per problem: measured and predicted heatmaps, a colour bar, predicted vs measured and its residuals."""
    kmax = max(len(p.panels) for p in probs)
    vpt_varies = len({k[1] for p in probs for k in p.cells}) > 1
    # constrained layout: the margins follow each column's labels (tight_layout would give every gap the
    # width the row names need)
    fig = plt.figure(figsize=(2.2 * 2 * kmax + 4.0, 3.4 * len(probs) + 1.0), constrained_layout=True)
    gs = fig.add_gridspec(len(probs), 2 * kmax + 2, width_ratios=[1] * (2 * kmax) + [0.07, 1.3])
    fits, axes, pairs = {}, [], []
    for i, prob in enumerate(probs):
        im = None
        for j, panel in enumerate(prob.panels):
            for which in (0, 1):
                ax = fig.add_subplot(gs[i, j + which * kmax])
                im = heatmap(ax, prob, panel, which, vpt_varies, first=(j == 0 and which == 0))
                axes.append(ax)
        colorbar(fig, gs[i, 2 * kmax], im, prob)
        ax, ax_res = parity_axes(fig, gs[i, 2 * kmax + 1])
        fits[prob.title] = parity(ax, ax_res, prob)
        axes.append(ax)
        pairs.append((ax, ax_res))
    fig.suptitle(ec.figure_title(experiment, "measured and predicted time over the launch configurations", rows),
                 fontsize=11)
    ec.close_residual_gaps(fig, pairs)
    ec.shared_legend(fig, axes)
    return fig, fits


def colorbar(fig, spec, im, prob):
    if im is not None and prob.norm is not None:
        cb = fig.colorbar(im, cax=fig.add_subplot(spec))
        cb.set_label("time (µs)", fontsize=8)
        ec.plain_log_ticks(cb.ax.yaxis)
        cb.ax.tick_params(labelsize=7)


def draw_sparse(probs, rows, experiment):
    """The figure for thinned candidates: per problem, measured and predicted scatter panels over
    (threads per block, grid), a colour bar and predicted vs measured."""
    print(f"{TOOL}: note: {min(p.fill for p in probs):.0%} of the heatmap cells of a problem measured (a thinned "
          "sample): scatter panels over (threads per block, grid) instead of heatmaps")
    clusters = sorted({k[0] for p in probs for k in p.cells})
    vpts = sorted({k[1] for p in probs for k in p.cells})
    fig = plt.figure(figsize=(14.0, 3.3 * len(probs) + 1.0), constrained_layout=True)
    gs = fig.add_gridspec(len(probs), 4, width_ratios=[1.25, 1.25, 0.06, 1.0])
    fits, axes, pairs = {}, [], []
    for i, prob in enumerate(probs):
        im = None
        for which in (0, 1):
            ax = fig.add_subplot(gs[i, which])
            im = scatter_space(ax, prob, which, clusters, vpts, first=(which == 0)) or im
            axes.append(ax)
        colorbar(fig, gs[i, 2], im, prob)
        ax, ax_res = parity_axes(fig, gs[i, 3])
        fits[prob.title] = parity(ax, ax_res, prob)
        axes.append(ax)
        pairs.append((ax, ax_res))
    scatter_legend(axes[0], clusters, vpts)
    fig.suptitle(ec.figure_title(experiment, "measured and predicted time over the launch configurations "
                                 "(a thinned sample of them)", rows), fontsize=11)
    ec.close_residual_gaps(fig, pairs)
    ec.shared_legend(fig, axes)
    return fig, fits


def largest_residual_text(residuals):
    """"; largest +23.4 % at 512/1/16/1" of {config: residual %} ("" when none)."""
    finite = [(abs(v), v, k) for k, v in residuals.items() if ec.finite(v)]
    if not finite:
        return ""
    _, v, k = max(finite)
    return f"; largest {v:+.1f} % at {config_str(k)}"


def main():
    a = ec.parse_args(__doc__, "config-space", shows_predictions=True, extra=lambda ap: ap.add_argument(
        "--split", action="store_true", help="also write PREFIX_<problem>.png/.pdf, one pair per problem"))
    rows = [r for r in ec.read_rows(a.csv, a.experiment, TOOL, REQUIRED) if ec.is_fused(r)]
    ec.apply_predictions(rows, a.predictions, TOOL)
    if not rows:
        raise SystemExit(f"{TOOL}: {a.csv}: no fused-kernel rows")
    probs = problems(rows)
    fig, fits = draw(probs, rows, a.experiment, a.calibration_label)
    ec.save(fig, a.out, TOOL)
    if a.split:
        for prob in probs:
            r = prob.rows[0]
            slug = f"N{r['nranks']}_H{r['hidden']}_T{r['tokens']}_{r['algo']}"
            ec.save(draw([prob], prob.rows, a.experiment, a.calibration_label)[0], f"{a.out}_{slug}", TOOL)
    table = []
    policies = [pol for pol in ("trtllm", "model") if any(pol in prob.picks for prob in probs)]
    for prob in probs:
        # the best of the candidates alone (policy "explicit"): how far the sweep's best is from the picks
        cands = {Problem.config(r) for r in prob.rows if r["policy"] == "explicit"} - {None}
        cand_us, cand = min(((prob.cells[k][0], k) for k in cands if ec.finite(prob.cells[k][0])),
                            default=(NAN, None))
        row = [prob.title.replace("\n", " "), len(prob.cells), config_str(prob.best), prob.best_us,
               config_str(cand), cand_us]
        for pol in policies:
            key, us = prob.picks.get(pol, (None, NAN))
            row += [config_str(key), us,
                    100.0 * (us / prob.best_us - 1.0) if ec.finite(us) and ec.finite(prob.best_us) else NAN]
        rho, residuals = fits[prob.title]
        res = [v for v in residuals.values() if ec.finite(v)]
        table.append(row + [rho, ec.median(res), max((abs(v) for v in res), default=NAN)])
    ec.print_table("config space: best configuration (tpb/cluster/grid/vpt) and the policies' picks; "
                   "regret = pick / best - 1; residual = (predicted - measured) / measured",
                   ["problem", "configs", "best", "best us", "best candidate", "candidate us"] +
                   [f"{pol} {c}" for pol in policies for c in ("pick", "us", "regret %")] +
                   ["spearman", "resid median %", "resid max |%|"], table)
    print()
    for prob in probs:
        residuals = fits[prob.title][1]
        print(f"config-space residual: {prob.title.replace(chr(10), ' ')}: {ec.residual_text(residuals.values())}"
              + largest_residual_text(residuals))


if __name__ == "__main__":
    main()
