#!/usr/bin/env python3
"""Figure of `arlab exp fusion`: arlab's fused all-reduce + residual + RMSNorm kernel (policies trtllm and
model) against the baselines that run the norm as a separate kernel -- unfused (arlab's all-reduce-only
kernel + norm kernel) and nccl (NCCL all-reduce + norm kernel). Per (ranks N, hidden size H) panel:
top, time per call vs tokens, with the baselines' all-reduce step alone (allreduce_us_median) dashed;
bottom, the fused kernel's speed-up baseline / fused. A dotted vertical line marks the crossover: the
smallest measured token count at which the baseline is faster than the fused kernel. Prints the fusion
table (tokens, H, fused times, baseline, all-reduce-only, speed-up) and the crossovers.

    python3 plots/plot_fusion.py --csv results/fusion/fusion.csv --out results/fusion/fusion
"""

import exp_common as ec

TOOL = "plot_fusion"
BASELINE_LS = {"nccl": "-", "unfused": "--"}
BASELINE_MARKERS = {"nccl": "^", "unfused": "v"}
NAN = float("nan")


def medians(rows, value):
    """{tokens: median of value(row)} of the rows."""
    pts = {}
    for r in rows:
        pts.setdefault(r["tokens"], []).append(value(r))
    return {t: ec.median(v) for t, v in pts.items()}


def plot_pts(ax, pts, **kw):
    xy = sorted((t, v) for t, v in pts.items() if ec.finite(v))
    if xy:
        ax.plot([t for t, _ in xy], [v for _, v in xy], **kw)


def split(rows, algo, policies):
    """The rows of one algorithm as ({policy: {T: us}}, {baseline: {T: us}}, {baseline: {T: AR-only us}}).
    Baselines are measured in the case of their algorithm; NCCL rows of another algorithm's case count
    when this algorithm has none."""
    fused = {p: medians([r for r in rows if ec.is_fused(r) and r["policy"] == p and r["algo"] == algo],
                        ec.headline_us) for p in policies}
    base_rows = [r for r in rows if not ec.is_fused(r)]
    base_rows = [r for r in base_rows if r["algo"] == algo] or base_rows
    impls = sorted({ec.implementation(r) for r in base_rows})
    base = {i: medians([r for r in base_rows if ec.implementation(r) == i], ec.headline_us) for i in impls}
    ar = {i: medians([r for r in base_rows if ec.implementation(r) == i],
                     lambda r: ec.num(r, "allreduce_us_median")) for i in impls}
    return {p: v for p, v in fused.items() if v}, base, ar


def facet(ax_t, ax_s, title, rows, policies):
    """Draws one (N, H) facet; returns its fusion-table rows and crossover lines."""
    algos = sorted({r["algo"] for r in rows if ec.is_fused(r)}) or sorted({r["algo"] for r in rows})
    tokens = sorted({r["tokens"] for r in rows})
    table, lines, marks, times = [], [], {}, []
    for algo in algos:
        tag = f" {algo}" if len(algos) > 1 else ""
        fused, base, ar = split(rows, algo, policies)
        for p, pts in fused.items():
            plot_pts(ax_t, pts, label=f"fused {p}{tag}", ms=4, lw=1.4,
                     **ec.style({"policy": p, "algo": algo, "implementation": "fused"}))
            times += pts.values()
        for i in base:
            color = ec.BASELINE_COLORS.get(i, "tab:pink")
            name = "NCCL" if i == "nccl" else f"arlab {algo}"
            plot_pts(ax_t, base[i], label=f"{i}: {name} AR + norm kernel" + tag, color=color, lw=1.4, ms=4,
                     ls=BASELINE_LS.get(i, "-"), marker=BASELINE_MARKERS.get(i, "^"))
            plot_pts(ax_t, ar[i], label=f"{i}: {name} AR alone" + tag, color=color, lw=1.0, ls=(0, (5, 3)),
                     alpha=0.7, marker="x", ms=3)
            times += list(base[i].values()) + list(ar[i].values())
            for p, pts in fused.items():
                sp = {t: base[i].get(t, NAN) / v for t, v in pts.items() if v > 0}
                plot_pts(ax_s, sp, label=f"speed-up: {i} / fused {p}{tag}", ms=4, lw=1.2,
                         color=ec.POLICY_COLORS.get(p, "tab:olive"), ls=BASELINE_LS.get(i, "-"),
                         marker=BASELINE_MARKERS.get(i, "^"))
                t_x = ec.first_faster([(t, v, base[i].get(t, NAN)) for t, v in pts.items()])
                where = f"fusion crossover: {title}, {algo}, {i} vs fused {p}"
                if t_x is None:
                    common = [t for t in pts if ec.finite(base[i].get(t, NAN))]
                    lines.append(f"{where}: fused faster at every measured token count" +
                                 (f" (up to T={max(common)})" if common else " (no common token counts)"))
                else:
                    lines.append(f"{where}: baseline faster from T={t_x}")
                    marks.setdefault(t_x, []).append(f"{i} < {p}{tag}")
        for t in sorted(set().union(*fused.values(), *base.values())):
            f_us = [fused.get(p, {}).get(t, NAN) for p in policies]
            for i in list(base) or ["-"]:
                b = base.get(i, {}).get(t, NAN)
                table.append([rows[0]["nranks"], rows[0]["hidden"], algo, t] + f_us +
                             [i, b, ar.get(i, {}).get(t, NAN)] + [b / f if f > 0 else NAN for f in f_us])
    for t_x, what in sorted(marks.items()):
        ec.mark_x(ax_t, t_x, "", tokens)
        ec.mark_x(ax_s, t_x, f"baseline faster\nfrom T={t_x}:\n" + "\n".join(what), tokens)
    if ax_s.lines:
        ax_s.axhline(1.0, color="black", lw=0.8)
    else:
        ec.no_data(ax_s, "no fused and baseline rows at common token counts")
    ax_t.set_title(title, fontsize=10)
    if not times:
        ec.no_data(ax_t)
    ec.tokens_axis(ax_t, tokens, label=False)
    ec.tokens_axis(ax_s, tokens)
    ec.time_axis(ax_t, times)
    ax_s.set_ylabel("speed-up of fused\n(baseline / fused)")
    ax_s.grid(True, which="both", alpha=0.3)
    return table, lines


def main():
    a = ec.parse_args(__doc__, "fusion")
    rows = [r for r in ec.read_rows(a.csv, a.experiment, TOOL) if r["policy"] != "explicit"]
    policies = sorted({r["policy"] for r in rows if ec.is_fused(r)},
                      key=lambda p: (ec.POLICY_ORDER.index(p) if p in ec.POLICY_ORDER else 99, p))
    panels = ec.facets(rows)
    fig, axes = ec.facet_figure(len(panels), ncols=min(3, len({r["hidden"] for r in rows})),
                                panel_rows=(1.0, 0.6))
    table, lines = [], []
    for (title, frows), (ax_t, ax_s) in zip(panels, axes):
        t, l = facet(ax_t, ax_s, title, frows, policies)
        table += t
        lines += l
    ec.print_table("fusion table: time per call (us), speed-up = baseline / fused",
                   ["N", "H", "algo", "tokens"] + [f"fused {p} us" for p in policies] +
                   ["baseline", "baseline us", "AR-only us"] + [f"speedup vs {p}" for p in policies], table)
    print()
    for line in lines:
        print(line)
    fig.suptitle(ec.figure_title(a.experiment, "fused kernel vs all-reduce + separate norm kernel", rows),
                 fontsize=11)
    fig.tight_layout()
    ec.shared_legend(fig, [ax for axs in axes for ax in axs])
    ec.save(fig, a.out, TOOL)


if __name__ == "__main__":
    main()
