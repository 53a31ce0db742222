#!/usr/bin/env python3
"""Figure of the seed experiment (`arlab seed`): measured kernel time beside the model's prediction.

Reads the validation CSV written by `arlab seed` (schema: common/validation_schema.h; one row per
measured configuration with its prediction) by column name. Its kernel_us_median is the row's headline
time (the skew-free median where defined, else the max over ranks: common/measurement_headline.h).
Panels, each with a residual panel under it -- (predicted - measured) / measured in %, a line at 0 and
guides at +-10 %:
  1, 2: TP2 one-shot bf16 ar_res_rms at H = 4096 and 8192 -- time vs tokens, one colour per policy,
        markers = measured, dashed lines = predicted; the 128-token legacy / trtllm pair (the
        26.8 -> 9.8 µs case) is annotated with its speed-up; residuals vs tokens;
        Where --measured holds rows of the library's own kernel (FlashInfer's one-shot at legacy and
        trtllm: `arlab exp seed`'s flashinfer groups), they are drawn as open squares, measured only
        (the model does not predict the library), with their own 128-token ratio;
  3:    predicted vs measured for every row (policies and the explicit configuration sweep), with
        the rows' MAPE and the identity line; residuals vs the measured time.
The validation CSV holds neither the rows' 95 % CIs nor their commit: --measured names the measurement
CSV its `line` column points into (what `arlab seed` read or measured: data/h200/seed.csv in predict
mode, OUT/measured.csv in measure mode), and each row's CI (error bars) and git_sha (caption) come from
there; a row whose line does not hold the same problem and configuration gets neither. Nor does it hold
the calibration: --calibration-label says in the caption which produced predicted_us. The plot never
recomputes the model: predicted_us comes from the CSV. Prints the residuals per panel and the caption.

    python3 plots/plot_seed.py --csv out/seed/validation.csv --out out/seed/seed \\
        [--measured data/h200/seed.csv] [--calibration-label data/calibration/h200_emulated.csv]
"""

import csv
import math
import sys

import exp_common as ec  # first: selects the Agg backend

import matplotlib.pyplot as plt  # noqa: E402
from csv_rows import read_rows  # noqa: E402  (one-line errors for unreadable files)

TOOL = "plot_seed"
REQUIRED = ["tokens", "hidden", "nranks", "algo", "policy", "kernel_us_median", "predicted_us", "status", "gpu",
            "sm_per_rank", "link"]
SEED_TOKENS = 128
SEED_HIDDEN = (4096, 8192)
# The validation columns that must agree with the measurement row at `line` for the two to be one row.
JOIN_COLUMNS = ("nranks", "tokens", "hidden", "algo", "policy", "tpb", "cluster", "grid", "vecs_per_thread")


def parse_args():
    ap = ec.base_parser(__doc__, "validation CSV written by `arlab seed`")
    ap.add_argument("--measured", metavar="CSV",
                    help="the measurement CSV the validation rows' `line` column points into, for each row's "
                         "95 %% CI and commit (default: none: no error bars, no commit in the caption)")
    ec.add_calibration_label(ap)
    return ec.finish_args(ap)


def measurement_lines(path):
    """{line number: row} of a measurement CSV (header = line 1, as the validation rows count)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.DictReader(f)
            out = {}
            for r in reader:
                out[reader.line_num] = r
            return out
    except OSError as e:
        sys.exit(f"{TOOL}: cannot read --measured {path}: {e}")


def same_row(v, m):
    """Whether validation row v and measurement row m are one row: the problem and configuration agree and
    the validation's time is m's headline."""
    if any((v.get(c) or "").strip() != (m.get(c) or "").strip() for c in JOIN_COLUMNS if c in v):
        return False
    return math.isclose(ec.num(v, "kernel_us_median"), ec.headline_us(m), rel_tol=1e-6)


def attach_measurements(rows, path):
    """Gives each validation row its measurement row's 95 % CI (ci), git_sha and topology (from --measured);
    returns the number of rows joined."""
    lines = measurement_lines(path) if path else {}
    joined = 0
    for v in rows:
        m = lines.get(ec.ival(v, "line")) if "line" in v else None
        if m is not None and same_row(v, m):
            v["ci"], v["git_sha"], v["topology"] = ec.headline_ci(m), m.get("git_sha", ""), m.get("topology", "")
            joined += 1
        else:
            v["ci"] = (math.nan, math.nan)
        if not v.get("topology"):  # the validation CSV names the link only; local is the emulated node's
            v["topology"] = "emulated" if v["link"] == "local" else "mpi"
    if path and joined < len(rows):
        print(f"{TOOL}: note: {len(rows) - joined} of {len(rows)} validation row(s) have no matching row in "
              f"--measured {path} (no CI, no commit for them)", file=sys.stderr)
    return joined


def library_rows(path):
    """{hidden: {policy: [(tokens, headline us, ci)] sorted by tokens}} of the passing rows of the library's
    own kernel (kernel_variant flashinfer) in the measurement CSV `path`: the model does not predict them,
    so they are not in the validation CSV."""
    out = {}
    for m in (measurement_lines(path).values() if path else []):
        if (m.get("kernel_variant") or "").strip() != "flashinfer" or (m.get("check") or "").strip() != "pass":
            continue
        us = ec.headline_us(m)
        if not (ec.finite(us) and us > 0):
            continue
        out.setdefault(ec.ival(m, "hidden"), {}).setdefault(m["policy"].strip(), []).append(
            (ec.ival(m, "tokens"), us, ec.headline_ci(m)))
    for by_policy in out.values():
        for pts in by_policy.values():
            pts.sort(key=lambda x: x[0])
    return out


def library_seed_pair(by_policy):
    """(legacy us, trtllm us) of the library's kernel at the seed token count, or None without that pair."""
    at_seed = {pol: us for pol, pts in by_policy.items() for tk, us, _ in pts if tk == SEED_TOKENS}
    if "legacy" in at_seed and at_seed.get("trtllm", 0) > 0:
        return at_seed["legacy"], at_seed["trtllm"]
    return None


def ok_rows(rows):
    return [r for r in rows if r["status"] == "ok"]


def policy_rows(rows, hidden):
    """{policy: [rows sorted by tokens]} of the non-explicit ok rows at hidden size `hidden`."""
    by_policy = {}
    for r in ok_rows(rows):
        if int(r["hidden"]) == hidden and r["policy"] != "explicit":
            by_policy.setdefault(r["policy"], []).append(r)
    for prs in by_policy.values():
        prs.sort(key=lambda r: int(r["tokens"]))
    return dict(sorted(by_policy.items()))


def policy_panel(ax, ax_res, rows, hidden, library):
    """Time vs tokens per policy at one H (measured markers with their CI, predicted dashed), the library's
    own kernel's measured times where given (`library`: {policy: [(tokens, us, ci)]}), and the residuals
    vs tokens under it; returns the residuals."""
    by_policy = policy_rows(rows, hidden)
    sel = [r for prs in by_policy.values() for r in prs]
    ax.set_title(f"TP{sel[0]['nranks']}, H = {hidden}" if sel else f"H = {hidden}: no rows", fontsize=10)
    groups = []
    for pol, prs in by_policy.items():
        t = [int(r["tokens"]) for r in prs]
        meas = [ec.num(r, "kernel_us_median") for r in prs]
        color = ec.POLICY_COLORS.get(pol, "black")
        ec.draw_ci(ax, t, meas, [r["ci"] for r in prs], color)
        ax.plot(t, meas, "o", color=color, label=f"{pol} measured")
        ax.plot(t, [ec.num(r, "predicted_us") for r in prs], "--", color=color, label=f"{pol} predicted")
        groups.append((pol, {"color": color, "ls": "-", "marker": "o", "ms": 3.5, "lw": 1.0},
                       [(tk, m, ec.num(r, "predicted_us"), r["ci"]) for tk, m, r in zip(t, meas, prs)]))
    seed = {r["policy"]: ec.num(r, "kernel_us_median") for r in sel if int(r["tokens"]) == SEED_TOKENS}
    if "legacy" in seed and "trtllm" in seed and seed["trtllm"] > 0:
        ax.annotate(f"{SEED_TOKENS} tokens: legacy {seed['legacy']:.1f} µs → trtllm {seed['trtllm']:.1f} µs "
                    f"({seed['legacy'] / seed['trtllm']:.2f}x)", xy=(0.02, 0.97), xycoords="axes fraction",
                    ha="left", va="top", fontsize=8)  # top left: the times rise with tokens, that corner is empty
    lib_times = []
    for pol, pts in sorted(library.items()):
        color = ec.POLICY_COLORS.get(pol, "black")
        ec.draw_ci(ax, [p[0] for p in pts], [p[1] for p in pts], [p[2] for p in pts], color)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "s", mfc="none", color=color,
                label=f"FlashInfer's kernel at {pol}, measured")
        lib_times += [p[1] for p in pts]
    pair = library_seed_pair(library)
    if pair:
        ax.annotate(f"FlashInfer's kernel: legacy {pair[0]:.1f} µs → trtllm {pair[1]:.1f} µs "
                    f"({pair[0] / pair[1]:.2f}x)", xy=(0.02, 0.91), xycoords="axes fraction",
                    ha="left", va="top", fontsize=8)
    tokens = [int(r["tokens"]) for r in sel]
    ec.tokens_axis(ax, tokens, label=False)
    ax.tick_params(labelbottom=False)
    ec.time_axis(ax, [ec.num(r, "kernel_us_median") for r in sel] + lib_times, "kernel time per call (µs, median)")
    residuals = ec.residual_panel(ax_res, groups, ec.TOKENS_LABEL, log_x=False)
    ec.tokens_axis(ax_res, tokens)
    return residuals


def parity_panel(ax, ax_res, rows):
    """Predicted vs measured of every ok row with a prediction (the measured CI as horizontal bars) and
    the residuals vs the measured time under it; returns (MAPE %, residuals)."""
    ok = [r for r in ok_rows(rows) if ec.finite(ec.num(r, "predicted_us")) and ec.num(r, "kernel_us_median") > 0]
    if not ok:
        ax.set_title("no predicted rows")
        ec.no_data(ax_res)
        return math.nan, []
    groups = []
    for pol in sorted({r["policy"] for r in ok}):
        prs = [r for r in ok if r["policy"] == pol]
        meas, pred = [ec.num(r, "kernel_us_median") for r in prs], [ec.num(r, "predicted_us") for r in prs]
        color = ec.POLICY_COLORS.get(pol, "black")
        ec.draw_ci(ax, meas, pred, [r["ci"] for r in prs], color, horizontal=True)
        ax.plot(meas, pred, "o", ms=4, alpha=0.7, color=color, label=pol)
        groups.append((pol, {"color": color, "ls": "none", "marker": "o", "ms": 3.5, "alpha": 0.7},
                       [(m, m, p, r["ci"]) for m, p, r in zip(meas, pred, prs)]))
    lo = min(min(ec.num(r, "kernel_us_median"), ec.num(r, "predicted_us")) for r in ok) * 0.8
    hi = max(max(ec.num(r, "kernel_us_median"), ec.num(r, "predicted_us")) for r in ok) * 1.25
    ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
    mape = ec.mape_pct([ec.num(r, "predicted_us") for r in ok], [ec.num(r, "kernel_us_median") for r in ok])
    ec.square_log_axes(ax, lo, hi)
    ax.tick_params(labelbottom=False)
    ax.set_title(f"predicted vs measured: {len(ok)} rows, MAPE {mape:.1f} %", fontsize=10)
    ax.set_ylabel("predicted (µs)")
    ax.legend(fontsize=7, loc="upper left")
    residuals = ec.residual_panel(ax_res, groups, "measured (µs)")
    ax_res.set_xlim(lo, hi)
    ec.plain_log_ticks(ax_res.xaxis)
    return mape, residuals


def provenance(rows, joined, calibration_label):
    """The caption's first line: the rows' commits (from --measured) and the calibration label."""
    if joined:
        return ec.provenance_caption([r for r in rows if r.get("git_sha")], calibration_label)
    return (f"data: commit not recorded in the validation CSV (give --measured); "
            f"predictions: {calibration_label}")


def ci_caption(rows, joined):
    if not joined:
        return "error bars: none (the validation CSV holds no CI; give --measured)"
    widths = [50.0 * (hi - lo) / ec.num(r, "kernel_us_median") for r in ok_rows(rows)
              for lo, hi in [r["ci"]] if ec.finite(lo) and ec.num(r, "kernel_us_median") > 0]
    if not widths:
        return "error bars: none (the --measured rows have no 95 % CI columns of their headline figure)"
    return (f"error bars: 95 % CI of each median ({len(widths)} of {len(ok_rows(rows))} rows; half-width median "
            f"{ec.median(widths):.1f} %, max {max(widths):.1f} % of the median)")


def main():
    args = parse_args()
    rows = read_rows(args.csv, TOOL, REQUIRED, "a validation CSV of `arlab seed` (common/validation_schema.h)")
    if not rows:
        sys.exit(f"{TOOL}: {args.csv} has no rows")
    joined = attach_measurements(rows, args.measured)
    library = library_rows(args.measured)
    fig = plt.figure(figsize=(17, 7.2))
    gs = fig.add_gridspec(2, 3, height_ratios=[1.0 - ec.RESIDUAL_SHARE, ec.RESIDUAL_SHARE])
    lines = []
    for hidden, by_policy in sorted(library.items()):
        pair = library_seed_pair(by_policy)
        ratio = (f"legacy / trtllm at {SEED_TOKENS} tokens = {pair[0] / pair[1]:.2f}x" if pair
                 else f"no legacy and trtllm pair at {SEED_TOKENS} tokens")
        lines.append(f"{TOOL}: the library's kernel at H = {hidden}: {sum(len(p) for p in by_policy.values())} measured "
                     f"point(s), {ratio}")
    for col, hidden in enumerate(SEED_HIDDEN):
        ax = fig.add_subplot(gs[0, col])
        residuals = policy_panel(ax, fig.add_subplot(gs[1, col], sharex=ax), rows, hidden, library.get(hidden, {}))
        lines.append(f"{TOOL}: residual (predicted - measured) / measured, H = {hidden}: {ec.residual_text(residuals)}")
    ax = fig.add_subplot(gs[0, 2])
    mape, residuals = parity_panel(ax, fig.add_subplot(gs[1, 2], sharex=ax), rows)
    lines.append(f"{TOOL}: residual (predicted - measured) / measured, all rows: {ec.residual_text(residuals)}")
    fig.suptitle("arlab seed: Llama-3 decode all-reduce + residual add + RMSNorm, bf16\n" + ec.node_label(rows),
                 fontsize=11)
    ec.tight_below_title(fig)
    ec.shared_legend(fig, fig.axes[:1])  # the policy panels' entries (the parity panel has its own legend)
    ec.caption(fig, [provenance(rows, joined, args.calibration_label), ci_caption(rows, joined),
                     ec.RESIDUAL_CAPTION], TOOL)
    for line in lines:
        print(line)
    ec.save(fig, args.out, TOOL)


if __name__ == "__main__":
    main()
