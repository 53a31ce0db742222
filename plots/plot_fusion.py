#!/usr/bin/env python3
"""Figure of `arlab exp fusion`: arlab's fused all-reduce + residual + RMSNorm kernel against the
baselines that run the norm as a separate kernel -- unfused (arlab's all-reduce-only kernel + norm kernel)
and nccl (ncclAllReduce + norm kernel).

Per problem (ranks N, hidden size H, tokens T) the experiment measures the case "... oneshot" -- the fused
kernel with the trtllm policy (one-shot) and the baseline -- and the case "... oneshot model" -- the fused
kernel with the model policy, which picks the algorithm itself (its rows' algo is one-shot or two-shot).
The rows are grouped by problem whatever their algorithm. Per (N, H) panel, top: time per call vs tokens,
one line per fused policy (the model's markers show the algorithm it picked: circle one-shot, square
two-shot), the baseline, and dashed the baseline's all-reduce step alone (allreduce_us_median); bottom:
the speed-up of each fused policy, baseline / fused. A dotted vertical line marks the crossover: the
smallest measured token count at which the baseline is faster than the fused kernel. Times carry their
95 % CI as error bars (the headline median's, where the CSV has the CI columns; allreduce_us_median has
none); the speed-ups are ratios of two medians of different groups, drawn without a CI. The caption names
the rows' commits and the CIs' widths. Prints the fusion table (one row per N, H, tokens and baseline), the
crossovers and the caption.

    python3 plots/plot_fusion.py --csv results/fusion/fusion.csv --out results/fusion/fusion
"""

import exp_common as ec

TOOL = "plot_fusion"
BASELINE_MARKERS = {"nccl": "^", "unfused": "v"}
SPEEDUP_LS = {"unfused": "-", "nccl": "-."}  # per baseline implementation, in the speed-up panel
NAN = float("nan")


def points(rows, value):
    """{tokens: (median of value(row), algorithm of the point)} of the rows."""
    pts = {}
    for r in rows:
        pts.setdefault(r["tokens"], []).append((value(r), r["algo"]))
    return {t: (ec.median([v for v, _ in vs]), ec.point_algo(a for _, a in vs)) for t, vs in pts.items()}


def points_ci(rows):
    """{tokens: (lo, hi)}: the 95 % CI of each point of points(rows, headline_us) (exp_common.point_ci)."""
    by_t = {}
    for r in rows:
        by_t.setdefault(r["tokens"], []).append(r)
    return {t: ec.point_ci(rs) for t, rs in by_t.items()}


def split(rows, policies):
    """The rows of one (N, H) facet grouped by problem, ignoring the algorithm:
    ({policy: {T: (us, algo)}}, [(baseline key, {T: us}, {T: AR-only us})], {policy or baseline key:
    {T: 95 % CI}}). A baseline is an implementation (nccl over every case it was measured in; unfused per
    all-reduce algorithm)."""
    fused, cis = {}, {}
    for p in policies:
        prows = [r for r in rows if ec.is_fused(r) and r["policy"] == p]
        pts = points(prows, ec.headline_us)
        if pts:
            fused[p] = pts
            cis[p] = points_ci(prows)
    keys = sorted({(ec.implementation(r), r["algo"] if ec.implementation(r) == "unfused" else "")
                   for r in rows if not ec.is_fused(r)}, key=lambda k: (k[0] != "unfused", k))
    bases = []
    for impl, algo in keys:
        brows = [r for r in rows if ec.implementation(r) == impl and (not algo or r["algo"] == algo)]
        us = {t: v for t, (v, _) in points(brows, ec.headline_us).items()}
        ar = {t: v for t, (v, _) in points(brows, lambda r: ec.num(r, "allreduce_us_median")).items()}
        bases.append(((impl, algo), us, ar))
        cis[(impl, algo)] = points_ci(brows)
    return fused, bases, cis


def facet(ax_t, ax_s, title, rows, policies):
    """Draws one (N, H) facet; returns its fusion-table rows, crossover lines and the fused points whose
    all-reduce algorithm differs from the baseline's [(baseline algorithm, policy, point algorithm)]."""
    tokens = sorted({r["tokens"] for r in rows})
    fused, bases, cis = split(rows, policies)
    unfused_algos = {k[1] for k, _, _ in bases if k[0] == "unfused"}
    table, lines, marks, times, crossings, other_algo = [], [], {}, [], [], []
    for p, pts in fused.items():
        algos = sorted({a for _, a in pts.values()})
        st = ec.style({"policy": p, "algo": algos[0], "implementation": "fused"})
        name = f"fused {p}" + (f" ({ec.algo_name(algos[0])})" if len(algos) == 1 and p not in ec.MERGED_POLICIES
                               else "")
        ec.draw_series(ax_t, name, st, [(t, v, a) for t, (v, a) in sorted(pts.items())], ms=4, ci=cis[p])
        times += [v for v, _ in pts.values()]
    for (impl, algo), base, ar in bases:
        color = ec.BASELINE_COLORS.get(impl, "tab:pink")
        label = ec.baseline_label(impl, algo)
        short = impl + (f" {algo}" if impl == "unfused" and len(unfused_algos) > 1 else "")
        ar_label = (f"{impl}: NCCL all-reduce alone" if impl == "nccl" else
                    f"{impl}: arlab {ec.algo_name(algo) + ' ' if algo else ''}all-reduce alone")
        ec.draw_series(ax_t, label, {"color": color, "linestyle": "-", "marker": BASELINE_MARKERS.get(impl, "^")},
                       [(t, v, "") for t, v in sorted(base.items())], ms=4, ci=cis[(impl, algo)])
        ec.draw_series(ax_t, ar_label + " (allreduce_us_median)",
                       {"color": color, "linestyle": (0, (5, 3)), "marker": "x"},
                       [(t, v, "") for t, v in sorted(ar.items())], lw=1.0, ms=3, alpha=0.75)
        times += list(base.values()) + list(ar.values())
        for p, pts in fused.items():
            sp = [(t, base[t] / v, a) for t, (v, a) in sorted(pts.items()) if t in base and v > 0]
            ec.draw_series(ax_s, f"speed-up: {short} / fused {p}",
                           {"color": ec.POLICY_COLORS.get(p, "tab:olive"),
                            "linestyle": SPEEDUP_LS.get(impl, ":"), "marker": "o"}, sp, lw=1.2, ms=4)
            t_x = ec.first_faster([(t, v, base.get(t, NAN)) for t, (v, _) in pts.items()])
            where = f"fusion crossover: {title}, {short} vs fused {p}"
            common = [t for t in pts if ec.finite(base.get(t, NAN)) and ec.finite(pts[t][0])]
            if t_x is None:
                lines.append(f"{where}: " + (f"none up to T={max(common)} (fused faster at every measured token count)"
                                             if common else "no common token counts"))
            else:
                lines.append(f"{where}: baseline faster from T={t_x}")
                marks.setdefault(t_x, []).append(f"{short} < {p}")
            crossings.append((short, p, t_x, max(common) if common else None))
            if algo:
                other_algo += [(algo, p, a) for t, (_, a) in pts.items() if t in base and a != algo]
    for t in tokens:
        for (impl, algo), base, ar in bases or [(("-", ""), {}, {})]:
            cells = [rows[0]["nranks"], rows[0]["hidden"], t]
            for p in policies:
                v, a = fused.get(p, {}).get(t, (NAN, "-"))
                cells += [v] + ([a] if p in ec.MERGED_POLICIES else [])
            b = base.get(t, NAN)
            cells += [impl + (f" {algo}" if algo else ""), b, ar.get(t, NAN)]
            cells += [b / fused[p][t][0] if p in fused and t in fused[p] and fused[p][t][0] > 0 else NAN
                      for p in policies]
            table.append(cells)
    for t_x, what in sorted(marks.items()):
        ec.mark_x(ax_t, t_x, "", tokens)
        ec.mark_x(ax_s, t_x, f"baseline faster\nfrom T={t_x}:\n" + "\n".join(what), tokens)
    if ax_s.lines:
        ax_s.axhline(1.0, color="black", lw=0.8)
        never = [c for c in crossings if c[2] is None and c[3] is not None]
        if never and len(never) == len(crossings):
            ax_s.set_title(f"baseline faster than fused: none up to T={max(c[3] for c in never)}", fontsize=8)
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
    return table, lines, other_algo


def main():
    a = ec.parse_args(__doc__, "fusion")
    rows = [r for r in ec.read_rows(a.csv, a.experiment, TOOL) if r["policy"] != "explicit"]
    if not rows:
        raise SystemExit(f"{TOOL}: {a.csv}: only explicit-configuration rows; nothing to draw")
    policies = sorted({r["policy"] for r in rows if ec.is_fused(r)},
                      key=lambda p: (ec.POLICY_ORDER.index(p) if p in ec.POLICY_ORDER else 99, p))
    panels = ec.facets(rows)
    fig, axes = ec.facet_figure(len(panels), ncols=min(3, len({r["hidden"] for r in rows})),
                                panel_rows=(1.0, 0.6))
    table, lines, other_algo = [], [], set()
    for (title, frows), (ax_t, ax_s) in zip(panels, axes):
        t, l, o = facet(ax_t, ax_s, title, frows, policies)
        table += t
        lines += l
        other_algo |= set(o)
    headers = ["N", "H", "tokens"]
    for p in policies:
        headers += [f"{p} us"] + ([f"{p} algo"] if p in ec.MERGED_POLICIES else [])
    headers += ["baseline", "baseline us", "AR-only us"] + [f"speedup vs {p}" for p in policies]
    ec.print_table("fusion table: time per call (us); speed-up = baseline / fused; AR-only = the baseline's "
                   "all-reduce step alone", headers, table)
    print()
    for line in lines:
        print(line)
    note = ""  # the caption's last line
    if other_algo:  # e.g. the model's two-shot points against the one-shot unfused baseline
        parts = sorted({f"{p} picked {ec.algo_name(a)} where the baseline's all-reduce is {ec.algo_name(b)}"
                        for b, p, a in other_algo})
        note = ("Note: " + "; ".join(parts) + ": there the speed-up includes the all-reduce algorithm's gain, "
                "not only the fusion's.")
        print(f"\n{note}")
    fig.suptitle(ec.figure_title(a.experiment, "fused kernel vs all-reduce + separate norm kernel", rows),
                 fontsize=11)
    ec.tight_below_title(fig)
    ec.shared_legend(fig, [ax for axs in axes for ax in axs])
    ec.caption(fig, [ec.provenance_caption(rows), ec.ci_caption(rows, "error bars on the times"),
                     "speed-ups: baseline median / fused median, drawn without a CI (this figure reads no ratio CSV)", note], TOOL)
    ec.save(fig, a.out, TOOL)


if __name__ == "__main__":
    main()
