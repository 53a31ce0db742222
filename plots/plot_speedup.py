#!/usr/bin/env python3
"""Figure of `arlab exp speedup` (issue 13): how much faster each kernel variant is than the reference kernel
at the trtllm configuration (the peer library's kernel), per problem, from the speedup summary CSV the
experiment writes beside its measurement CSV (schema: common/speedup_schema.h; X.csv -> X_summary.csv).

Left panel per (node, N, variant): the speedup vs tokens, one line per hidden size H -- solid: the variant at
the model's choice (design and configuration, the goal's figure), dashed: at the trtllm configuration (the
design alone); the geometric mean over the panel's problems in the legend, a dotted line at 1 (never
slower). The summary has no CI column for a speedup, so these lines carry none. Right panel: time per call
vs tokens -- the reference kernel and the variant at the model's choice, each with its 95 % CI as error
bars (half-width reference_noise_pct / variant_model_noise_pct, percent of the median) and, on a real node,
the problem's link floor (experiments/speedup_summary.h says how it is computed). Where the group measured
them, arlab's best (model/auto) over the reference is a dotted line in the left panel and FlashInfer's time
(x markers, no CI: the summary has none for it) is in the right one. Nothing is recomputed:
every number is a column of the summary CSV. The node is named from the summary's columns and, for the
emulated node's partition size (which the summary lacks), the rows of the measurement CSV beside it; the
caption names the rows' commits and the CIs' widths. Prints every row and the caption.

    python3 plots/plot_speedup.py --csv results/speedup/speedup.csv --out results/speedup/speedup
"""

import math

import exp_common as ec

TOOL = "plot_speedup"
COLUMNS = ["link", "nranks", "hidden", "tokens", "variant", "reference_us", "variant_trtllm_us", "variant_model_us",
           "speedup_design", "speedup", "floor_kind", "floor_us", "gpu", "topology", "check", "speedup_best",
           "peer_us"]
# One distinct colour per hidden size: issue 24's grid has 7 (tab10 has 10 before it repeats).
H_COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown", "tab:pink", "tab:gray",
            "tab:olive", "tab:cyan"]


def noise_ci(us, noise_pct):
    """(lo, hi) of a median us whose 95 % CI half-width is noise_pct percent of it (NaN when unknown)."""
    if not (ec.finite(us) and ec.finite(noise_pct)):
        return (math.nan, math.nan)
    return (us * (1.0 - noise_pct / 100.0), us * (1.0 + noise_pct / 100.0))


def hidden_lines(ax_s, ax_t, color, h, pts, variant):
    """One hidden size's lines: speedups (no CI) in ax_s, times with their CIs and the floor in ax_t.
    pts: [(tokens, summary row)] sorted by tokens. Returns the times drawn."""
    ts = [t for t, _ in pts]
    sp = [ec.num(r, "speedup") for _, r in pts]
    sd = [ec.num(r, "speedup_design") for _, r in pts]
    ax_s.plot(ts, sp, "-o", color=color, ms=4, lw=1.5, label=f"H {h}: model's choice (geomean {ec.geomean(sp):.2f}x)")
    ax_s.plot(ts, sd, "--", color=color, marker="s", ms=3, lw=1.0, alpha=0.8,
              label=f"H {h}: trtllm configuration (geomean {ec.geomean(sd):.2f}x)")
    sb = [ec.num(r, "speedup_best") for _, r in pts]
    if any(ec.finite(v) for v in sb):  # runs with arlab's best (model/auto) in the group
        ax_s.plot(ts, sb, ":", color=color, marker="^", ms=3, lw=1.0,
                  label=f"H {h}: arlab's best, model/auto (geomean {ec.geomean(sb):.2f}x)")
    ref = [ec.num(r, "reference_us") for _, r in pts]
    var = [ec.num(r, "variant_model_us") for _, r in pts]
    flo = [ec.num(r, "floor_us") for _, r in pts]
    ec.draw_ci(ax_t, ts, ref, [noise_ci(v, ec.num(r, "reference_noise_pct")) for v, (_, r) in zip(ref, pts)], color)
    ec.draw_ci(ax_t, ts, var, [noise_ci(v, ec.num(r, "variant_model_noise_pct")) for v, (_, r) in zip(var, pts)],
               color)
    ax_t.plot(ts, ref, "-o", color=color, ms=4, lw=1.0, alpha=0.6, label=f"H {h}: reference at trtllm")
    ax_t.plot(ts, var, "-s", color=color, ms=4, lw=1.6, label=f"H {h}: {variant} at the model's choice")
    if any(ec.finite(v) for v in flo):  # the emulated node has no link floor (NaN)
        ax_t.plot(ts, flo, ":", color=color, lw=1.2, label=f"H {h}: {pts[0][1]['floor_kind']} floor")
    peer = [ec.num(r, "peer_us") for _, r in pts]
    if any(ec.finite(v) for v in peer):  # runs with FlashInfer in the group (no CI column in the summary)
        ax_t.plot(ts, peer, "x", color=color, ms=5, label=f"H {h}: FlashInfer at its own rule")
    return ref + var + flo + peer


def below_legend(ax):
    """The panel's legend under it (its entries carry the geomeans, so it is per panel), covering no data."""
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)


def panel_pair(ax_s, ax_t, sel, variant, table):
    """The speedup and time panels of one (node, N, variant); appends its rows to table."""
    node = ec.short_node_label(sel[0])
    all_t, all_times = [], []
    for j, h in enumerate(sorted({int(r["hidden"]) for r in sel})):
        pts = sorted(((int(r["tokens"]), r) for r in sel if int(r["hidden"]) == h), key=lambda p: p[0])
        all_t += [t for t, _ in pts]
        all_times += hidden_lines(ax_s, ax_t, H_COLORS[j % len(H_COLORS)], h, pts, variant)
        for t, r in pts:
            table.append([f"{r['link']} N={r['nranks']}", str(h), str(t), variant, ec.num(r, "reference_us"),
                          ec.num(r, "variant_trtllm_us"), ec.num(r, "variant_model_us"),
                          ec.num(r, "speedup_design"), ec.num(r, "speedup"), ec.num(r, "floor_us"), r["check"]])
    ax_s.axhline(1.0, color="black", ls=":", lw=1.0)
    ec.tokens_axis(ax_s, all_t)
    ax_s.set_ylabel("speedup over the reference kernel (x)")
    ax_s.grid(True, alpha=0.3)
    total = ec.geomean([ec.num(r, "speedup") for r in sel])
    ax_s.set_title(f"{variant} vs reference, {node}: geomean {total:.2f}x", fontsize=9)
    below_legend(ax_s)
    ec.tokens_axis(ax_t, all_t)
    ec.time_axis(ax_t, all_times)
    floor = " and the link floor" if any(ec.finite(ec.num(r, "floor_us")) for r in sel) else ""
    ax_t.set_title(f"time per call{floor}, {node}", fontsize=9)
    below_legend(ax_t)


def ci_caption(rows):
    """The caption's line on the times' CIs (from the summary's noise columns) and the speedups' none."""
    widths = [ec.num(r, c) for r in rows for c in ("reference_noise_pct", "variant_model_noise_pct")]
    widths = [w for w in widths if ec.finite(w)]
    times = (f"95 % CI of each median from reference_noise_pct / variant_model_noise_pct ({len(widths)} of "
             f"{2 * len(rows)} times; half-width median {ec.median(widths):.1f} %, max {max(widths):.1f} %)"
             if widths else "none (the summary's noise columns are empty)")
    return [f"error bars on the times: {times}", "speedups: drawn without a CI (the summary has no column for one)"]


def main():
    a = ec.parse_args(__doc__, "speedup")
    rows = ec.read_summary(ec.summary_path(a.csv), "speedup", TOOL, COLUMNS, "common/speedup_schema.h")
    ec.with_partition_sizes(rows, ec.partition_sizes(a.csv, a.experiment))
    panels = sorted({(r["topology"], r["link"], int(r["nranks"]), r["variant"]) for r in rows})
    fig, axes = ec.facet_figure(len(panels) * 2, ncols=2, panel_w=5.2, panel_h=4.6)
    table = []
    for i, (topo, link, n, variant) in enumerate(panels):
        sel = [r for r in rows if (r["topology"], r["link"], int(r["nranks"]), r["variant"]) == (topo, link, n, variant)]
        panel_pair(axes[2 * i][0], axes[2 * i + 1][0], sel, variant, table)
    fig.suptitle("arlab exp speedup: kernel design and configuration vs the reference kernel at trtllm\n" +
                 ec.node_label(rows), fontsize=10)
    ec.tight_below_title(fig)
    ec.caption(fig, [ec.provenance_caption(rows)] + ci_caption(rows), TOOL)
    ec.save(fig, a.out, TOOL)
    ec.print_table("speedup (us; x = reference / variant)",
                   ["node", "H", "tokens", "variant", "ref", "v@trtllm", "v@model", "design", "speedup", "floor",
                    "check"], table)


if __name__ == "__main__":
    main()
