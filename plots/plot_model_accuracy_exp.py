#!/usr/bin/env python3
"""Figure of `arlab exp model-accuracy`: the timing model's predictions against the measurements.
Left: predicted_us vs measured time of every fused-kernel row (log-log, identity line, +-10 % band, the
measured 95 % CI as horizontal error bars), coloured by algorithm, with the MAPE and Spearman's rank
correlation of the rows; under it the residual (predicted - measured) / measured in % against the measured
time, with guides at +-10 % (its bars: the residual's range over the measured CI). Right: the regret per
problem (N, H, T) vs tokens. The model policy picks the algorithm too (its rows sit in the case
"... oneshot model" whichever algorithm it picked), so its regret is the time of its pick / the best
measured time of the problem over both algorithms - 1 (the best over all fused rows of the problem:
explicit candidates and policies); the trtllm policy is measured per algorithm and does not pick one, so
its regret is against the best configuration of its algorithm. Statistics of the CSV's columns only: the
model is not recomputed; --calibration-label says in the caption which calibration produced predicted_us
(the rows do not record it), beside the rows' commits. Prints the statistics, the residuals' summary and
largest residual, the per-problem regret table (one row per N, H, T) and the caption.

    python3 plots/plot_model_accuracy_exp.py --csv results/model-accuracy/model-accuracy.csv \\
        --out results/model-accuracy/model-accuracy [--calibration-label TEXT]
"""

import exp_common as ec  # first: selects the Agg backend

import matplotlib.pyplot as plt  # noqa: E402

TOOL = "plot_model_accuracy_exp"
REQUIRED = ["predicted_us", "tpb", "cluster", "grid", "vecs_per_thread"]
REGRET_POLICIES = {"model": ("o", True), "trtllm": ("^", False)}  # marker, filled
NAN = float("nan")


def prediction_points(rows):
    """[(measured us, predicted us, algo, measured 95 % CI, row)] of the rows with a positive prediction."""
    pts = [(ec.headline_us(r), ec.num(r, "predicted_us"), r["algo"], ec.headline_ci(r), r) for r in rows]
    return [p for p in pts if ec.finite(p[1]) and p[0] > 0 and p[1] > 0]


def parity(ax, pts):
    """Predicted vs measured of the points (prediction_points); returns (MAPE %, Spearman)."""
    if not pts:
        ec.no_data(ax, "no rows with predicted_us")
        return NAN, NAN
    lo, hi = parity_range(pts)
    ax.plot([lo, hi], [lo, hi], color="black", lw=1, label="predicted = measured")
    ax.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1], color="gray", alpha=0.15, label="±10 %")
    for algo in sorted({p[2] for p in pts}):
        sel = [p for p in pts if p[2] == algo]
        meas, pred = [p[0] for p in sel], [p[1] for p in sel]
        color = ec.ALGO_COLORS.get(algo, "tab:gray")
        ec.draw_ci(ax, meas, pred, [p[3] for p in sel], color, horizontal=True)
        ax.scatter(meas, pred, s=12, alpha=0.7, color=color,
                   label=f"{algo}: {len(sel)} rows, MAPE {ec.fmt(ec.mape_pct(pred, meas), 1)} %, "
                         f"Spearman {ec.fmt(ec.spearman(meas, pred), 3)}")
    meas, pred = [p[0] for p in pts], [p[1] for p in pts]
    mape, rho = ec.mape_pct(pred, meas), ec.spearman(meas, pred)
    ec.square_log_axes(ax, lo, hi)
    ax.tick_params(labelbottom=False)  # the residual panel under it carries the measured-time axis
    ax.set_ylabel("predicted (µs)")
    ax.set_title(f"{len(pts)} rows: MAPE {ec.fmt(mape, 1)} %, Spearman {ec.fmt(rho, 3)}", fontsize=10)
    ax.legend(loc="upper left", fontsize=7)  # the points lie along the diagonal: its upper left is empty
    return mape, rho


def parity_range(pts):
    """The parity panel's axis range: every measured and predicted time, with a margin."""
    return (min(min(p[0], p[1]) for p in pts) * 0.8, max(max(p[0], p[1]) for p in pts) * 1.25)


def residual_panel(ax, pts):
    """The residuals of the points under the parity panel, against the measured time; returns them."""
    groups = [(algo, {"color": ec.ALGO_COLORS.get(algo, "tab:gray"), "ls": "none", "marker": "o", "ms": 3,
                      "alpha": 0.7},
               [(p[0], p[0], p[1], p[3]) for p in pts if p[2] == algo]) for algo in sorted({p[2] for p in pts})]
    residuals = ec.residual_panel(ax, groups, "measured time per call (µs, median)")
    if pts:
        ax.set_xlim(*parity_range(pts))
        ec.plain_log_ticks(ax.xaxis)
    return residuals


def largest_residual(pts):
    """The point with the largest |residual|, as text: "+23.4 % at TP2 H=8192 T=128 oneshot explicit
    512/1/16/1 (measured 12.34 µs, predicted 15.23 µs)"."""
    if not pts:
        return "none"
    m, p, algo, _, r = max(pts, key=lambda q: abs(ec.residual_pct(q[1], q[0])))
    return (f"{ec.residual_pct(p, m):+.1f} % at TP{r['nranks']} H={r['hidden']} T={r['tokens']} {algo} "
            f"{r['policy']} {ec.config_str(r)} (measured {m:.2f} µs, predicted {p:.2f} µs)")


def pick_str(rows):
    """The algorithm and configuration of a policy's rows, e.g. "twoshot 512/1/64/1" ("-" when none)."""
    if not rows:
        return "-"
    return f"{ec.point_algo(r['algo'] for r in rows)} {ec.config_str(rows[0])}"


def regrets(rows, algos):
    """Per problem (N, H, T, whatever the algorithm: the model policy picks it, and its rows sit in the
    "... oneshot model" case whichever it picked): [problem, rows, best (algo config), best us, model pick,
    model us, model regret % (vs the best of every algorithm), per algorithm the trtllm policy's us and its
    regret % (vs the best configuration of that algorithm: trtllm does not pick the algorithm), spearman].
    Also the points of the regret panel: (policy, first row, regret %, algorithm)."""
    groups = {}
    for r in rows:
        groups.setdefault(ec.problem_key(r, with_algo=False), []).append(r)
    table, points = [], []
    for key, rs in sorted(groups.items(), key=lambda kv: (kv[0][:4], kv[1][0]["nranks"], kv[1][0]["hidden"],
                                                          kv[1][0]["tokens"])):
        r0 = rs[0]
        best = min(rs, key=ec.headline_us)
        best_us = ec.headline_us(best)
        row = [f"TP{r0['nranks']} H={r0['hidden']} T={r0['tokens']}", len(rs), pick_str([best]), best_us]
        model = [r for r in rs if r["policy"] == "model"]
        us = ec.median([ec.headline_us(r) for r in model])
        regret = 100.0 * (us / best_us - 1.0) if ec.finite(us) and best_us > 0 else NAN
        row += [pick_str(model), us, regret]
        if model:
            points.append(("model", r0, regret, ec.point_algo(r["algo"] for r in model)))
        for algo in algos:
            of_algo = [r for r in rs if r["algo"] == algo]
            # trtllm's rule is the reference body's (rows of the other bodies at it are candidates).
            trt = [r for r in of_algo if r["policy"] == "trtllm" and (r.get("kernel_variant") or "reference") == "reference"]
            us = ec.median([ec.headline_us(r) for r in trt])
            best_a = min((ec.headline_us(r) for r in of_algo), default=NAN)
            regret = 100.0 * (us / best_a - 1.0) if ec.finite(us) and best_a > 0 else NAN
            row += [us, regret]
            if trt:
                points.append(("trtllm", r0, regret, algo))
        row.append(ec.spearman([ec.headline_us(r) for r in rs], [ec.num(r, "predicted_us") for r in rs]))
        table.append(row)
    return table, points


def regret_panel(ax, points):
    hiddens = sorted({r["hidden"] for _, r, _, _ in points})
    offsets = {h: 2 ** (0.08 * (i - (len(hiddens) - 1) / 2)) for i, h in enumerate(hiddens)}  # keep H apart
    drawn = []
    labels = {"model": "model policy, picked {}: vs the best of both algorithms",
              "trtllm": "trtllm policy, {}: vs the best {} configuration"}
    for (pol, (marker, filled)) in REGRET_POLICIES.items():
        for algo in sorted({a for p, _, _, a in points if p == pol}):
            sel = [(r["tokens"] * offsets[r["hidden"]], g) for p, r, g, a in points
                   if p == pol and a == algo and ec.finite(g)]
            if not sel:
                continue
            color = ec.ALGO_COLORS.get(algo, "tab:gray")
            ax.scatter([t for t, _ in sel], [g for _, g in sel], marker=marker, s=28, alpha=0.8,
                       facecolors=color if filled else "none", edgecolors=color,
                       label=labels[pol].format(ec.algo_name(algo), ec.algo_name(algo)))
            drawn += [g for _, g in sel]
    if not drawn:
        ec.no_data(ax, "no model or trtllm rows")
    ax.axhline(0.0, color="black", lw=0.8)
    ec.tokens_axis(ax, [r["tokens"] for _, r, _, _ in points])
    ax.set_ylabel("regret (%): pick / best measured - 1")
    ax.set_title("regret per problem" + (f" (H = {', '.join(map(str, hiddens))}: slightly offset in x)"
                                          if len(hiddens) > 1 else ""), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)


def main():
    a = ec.parse_args(__doc__, "model-accuracy", shows_predictions=True)
    rows = [r for r in ec.read_rows(a.csv, a.experiment, TOOL, REQUIRED) if ec.is_fused(r)]
    ec.apply_predictions(rows, a.predictions, TOOL)
    if not rows:
        raise SystemExit(f"{TOOL}: {a.csv}: no fused-kernel rows")
    # constrained layout: tight_layout cannot place a panel spanning rows of unequal height
    fig = plt.figure(figsize=(14, 7.4), constrained_layout=True)
    gs = fig.add_gridspec(2, 2, height_ratios=[1.0 - ec.RESIDUAL_SHARE, ec.RESIDUAL_SHARE])
    ax_p, ax_r = fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[:, 1])
    ax_res = fig.add_subplot(gs[1, 0], sharex=ax_p)
    pts = prediction_points(rows)
    mape, rho = parity(ax_p, pts)
    residuals = residual_panel(ax_res, pts)
    algos = sorted({r["algo"] for r in rows})
    table, points = regrets(rows, algos)
    regret_panel(ax_r, points)
    fig.suptitle(ec.figure_title(a.experiment, "timing model predicted vs measured", rows), fontsize=11)
    ec.close_residual_gaps(fig, [(ax_p, ax_res)])
    ec.caption(fig, [ec.provenance_caption(rows, a.calibration_label),
                     ec.ci_caption(rows, "error bars in predicted vs measured"), ec.RESIDUAL_CAPTION,
                     "regrets: ratios of two medians, drawn without a CI"], TOOL)
    ec.save(fig, a.out, TOOL)
    headers = ["problem", "rows", "best", "best us", "model pick", "model us", "model regret %"]
    for algo in algos:
        headers += [f"trtllm {algo} us", f"trtllm {algo} regret %"]
    ec.print_table("model accuracy: regret per problem (N, H, T), pick / best measured - 1; the model policy "
                   "against the best of every algorithm, the trtllm policy against the best of its algorithm",
                   headers + ["spearman"], table)
    n_pred = sum(1 for r in rows if ec.finite(ec.num(r, "predicted_us")))
    print(f"\nmodel-accuracy: {n_pred} rows with a prediction, MAPE {ec.fmt(mape, 1)} %, Spearman {ec.fmt(rho, 3)}")
    print(f"model-accuracy: residual (predicted - measured) / measured: {ec.residual_text(residuals)}; "
          f"largest {largest_residual(pts)}")
    g = sorted(x for p, _, x, _ in points if p == "model" and ec.finite(x))
    if g:
        print(f"model-accuracy: model policy regret over {len(g)} problems (vs the best of every algorithm): "
              f"median {ec.fmt(ec.median(g), 1)} %, max {ec.fmt(g[-1], 1)} %, "
              f"within 5 % of the best in {sum(x <= 5.0 for x in g)}")
    for algo in algos:
        g = sorted(x for p, _, x, a in points if p == "trtllm" and a == algo and ec.finite(x))
        if g:
            print(f"model-accuracy: trtllm policy {algo} regret over {len(g)} problems (vs the best {algo} "
                  f"configuration): median {ec.fmt(ec.median(g), 1)} %, max {ec.fmt(g[-1], 1)} %, "
                  f"within 5 % of the best in {sum(x <= 5.0 for x in g)}")


if __name__ == "__main__":
    main()
