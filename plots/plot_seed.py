#!/usr/bin/env python3
"""Figure of the seed experiment (`arlab seed`): measured kernel time beside the model's prediction.

Reads the validation CSV written by `arlab seed` (schema: common/validation_schema.h; one row per
measured configuration with its prediction) by column name. Panels:
  1, 2: TP2 one-shot bf16 ar_res_rms at H = 4096 and 8192 -- time vs tokens, one colour per policy,
        markers = measured (median over iterations, max over ranks), dashed lines = predicted; the
        128-token legacy / trtllm pair (the 26.8 -> 9.8 us case) is annotated with its speed-up;
  3:    predicted vs measured for every row (policies and the explicit configuration sweep), with
        the rows' MAPE and the identity line.
The plot never recomputes the model: predicted_us comes from the CSV.

    python3 plots/plot_seed.py --csv out/seed/validation.csv --out out/seed/seed
"""

import argparse
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

REQUIRED = ["tokens", "hidden", "nranks", "algo", "policy", "kernel_us_median", "predicted_us", "status", "gpu",
            "sm_per_rank", "link"]
POLICY_COLORS = {"legacy": "tab:red", "trtllm": "tab:blue", "occupancy": "tab:green", "model": "tab:purple",
                 "explicit": "tab:gray"}
SEED_TOKENS = 128


def read_rows(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"plot_seed: {path} lacks column(s) {', '.join(missing)}")
            return list(reader)
    except OSError as e:
        sys.exit(f"plot_seed: cannot read {path}: {e}")


def num(row, col):
    v = row.get(col, "")
    return float(v) if v not in ("", None) else math.nan


def policy_panel(ax, rows, hidden):
    sel = [r for r in rows if int(r["hidden"]) == hidden and r["policy"] != "explicit" and r["status"] == "ok"]
    ax.set_title(f"TP{sel[0]['nranks']} one-shot, H = {hidden}" if sel else f"H = {hidden}: no rows")
    by_policy = {}
    for r in sel:
        by_policy.setdefault(r["policy"], []).append(r)
    for pol, prs in sorted(by_policy.items()):
        prs.sort(key=lambda r: int(r["tokens"]))
        t = [int(r["tokens"]) for r in prs]
        color = POLICY_COLORS.get(pol, "black")
        ax.plot(t, [num(r, "kernel_us_median") for r in prs], "o", color=color, label=f"{pol} measured")
        ax.plot(t, [num(r, "predicted_us") for r in prs], "--", color=color, label=f"{pol} predicted")
    seed = {r["policy"]: num(r, "kernel_us_median") for r in sel if int(r["tokens"]) == SEED_TOKENS}
    if "legacy" in seed and "trtllm" in seed and seed["trtllm"] > 0:
        ax.annotate(f"{SEED_TOKENS} tokens: legacy {seed['legacy']:.1f} us -> trtllm {seed['trtllm']:.1f} us "
                    f"({seed['legacy'] / seed['trtllm']:.2f}x)", xy=(0.98, 0.03), xycoords="axes fraction",
                    ha="right", va="bottom", fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("tokens")
    ax.set_ylabel("kernel time (us)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", ncol=2)


def parity_panel(ax, rows):
    ok = [r for r in rows if r["status"] == "ok" and not math.isnan(num(r, "predicted_us"))]
    if not ok:
        ax.set_title("no predicted rows")
        return
    for pol in sorted({r["policy"] for r in ok}):
        prs = [r for r in ok if r["policy"] == pol]
        ax.plot([num(r, "kernel_us_median") for r in prs], [num(r, "predicted_us") for r in prs], "o",
                ms=4, alpha=0.7, color=POLICY_COLORS.get(pol, "black"), label=pol)
    lo = min(min(num(r, "kernel_us_median"), num(r, "predicted_us")) for r in ok) * 0.8
    hi = max(max(num(r, "kernel_us_median"), num(r, "predicted_us")) for r in ok) * 1.25
    ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
    mape = sum(abs(num(r, "predicted_us") - num(r, "kernel_us_median")) / num(r, "kernel_us_median")
               for r in ok) / len(ok) * 100.0
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_title(f"predicted vs measured: {len(ok)} rows, MAPE {mape:.1f}%")
    ax.set_xlabel("measured (us)")
    ax.set_ylabel("predicted (us)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True, help="validation CSV written by `arlab seed`")
    ap.add_argument("--out", required=True, help="output prefix: writes PREFIX.png and PREFIX.pdf")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    if not rows:
        sys.exit(f"plot_seed: {args.csv} has no rows")
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    for ax, hidden in zip(axes[:2], (4096, 8192)):
        policy_panel(ax, rows, hidden)
    parity_panel(axes[2], rows)
    r0 = rows[0]
    fig.suptitle(f"arlab seed: Llama-3 decode all-reduce + residual + RMSNorm, bf16 -- {r0['gpu']}, "
                 f"{r0['sm_per_rank']} SMs/rank, link {r0['link']}", fontsize=11)
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(f"{args.out}.{ext}", dpi=130)
    print(f"plot_seed: wrote {args.out}.png and {args.out}.pdf")


if __name__ == "__main__":
    main()
