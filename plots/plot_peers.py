#!/usr/bin/env python3
"""Figure of `arlab exp peers` (issue 23): arlab against the kernels people run -- FlashInfer's fused
all-reduce at its own configuration, vLLM's custom all-reduce, NCCL -- measured interleaved in one group per
problem, from the peers summary CSV the experiment writes beside its measurement CSV (schema:
common/peers_schema.h; X.csv -> X_summary.csv).

Per (node, N) two rows of panels, one column per hidden size H:
  top:    time per call vs tokens, one line per member and FlashInfer's own line (black);
  bottom: the speedup over FlashInfer (flashinfer_us / member_us; above 1 the member is faster) with the
          paired-round bootstrap 95 % CI as error bars, a dotted line at 1, and the member's geometric mean
          in the legend. A member whose gate verdict was `fail` is drawn with a red cross and no line.
Nothing is recomputed: every number is a column of the summary CSV. The caption names the node, the GPU,
the commit and FlashInfer's version.

    python3 plots/plot_peers.py --csv results/peers/peers.csv --out results/peers/peers
"""

import csv
import math
import os
import sys

import exp_common as ec
import matplotlib.pyplot as plt  # after exp_common, which selects the Agg backend

TOOL = "plot_peers"
COLUMNS = ["git_sha", "gpu", "topology", "link", "nranks", "hidden", "tokens", "member", "implementation",
           "member_us", "flashinfer_implementation", "flashinfer_us", "speedup", "speedup_ci_lo", "speedup_ci_hi", "check", "flashinfer_check"]
# One colour and marker per member label (policy of common/implementations.h); others get the cycle.
MEMBER_STYLE = {
    "trtllm": ("tab:blue", "o", "arlab reference kernel @ trtllm config"),
    "model/auto": ("tab:green", "s", "arlab best (model's pick)"),
    "vllm": ("tab:orange", "^", "vLLM custom all-reduce + norm"),
    "nccl": ("tab:purple", "v", "NCCL all-reduce + norm"),
    "nccl_symmetric": ("tab:brown", "D", "NCCL symmetric + norm"),
}
CYCLE = ["tab:red", "tab:pink", "tab:olive", "tab:cyan", "tab:gray"]


def summary_path(measurement_csv):
    stem, ext = os.path.splitext(measurement_csv)
    return f"{stem}_summary{ext or '.csv'}"


def read_summary(path):
    if not os.path.exists(path):
        sys.exit(f"{TOOL}: no peers summary {path} (arlab exp peers writes it after its cases)")
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{TOOL}: {path} has no rows")
    missing = [c for c in COLUMNS if c not in rows[0]]
    if missing:
        sys.exit(f"{TOOL}: {path} lacks column(s) {', '.join(missing)} (common/peers_schema.h)")
    for r in rows:
        for c in ("nranks", "hidden", "tokens"):
            v = ec.ival(r, c)
            if v is None:
                sys.exit(f"{TOOL}: {path}: a row has no integer {c} ({r.get(c)!r})")
            r[c] = v
    return rows


def geomean(values):
    vals = [v for v in values if ec.finite(v) and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else math.nan


def style(member, seen):
    if member in MEMBER_STYLE:
        return MEMBER_STYLE[member]
    color = CYCLE[len(seen) % len(CYCLE)]
    seen.add(member)
    return color, "x", member


def flashinfer_label(rows):
    """FlashInfer's legend name: the implementation cell of its rows (flashinfer-VERSION)."""
    impls = sorted({r["flashinfer_implementation"] for r in rows} - {""})
    return impls[0] if impls else "FlashInfer"


def node_text(rows):
    """"emulated TP2/TP4 (1×H200, one green-context partition per rank)" or "real TP2 (NVLink)"; several
    nodes joined with "; "."""
    parts = []
    for topo, link in sorted({(r["topology"], r["link"]) for r in rows}):
        ns = sorted({r["nranks"] for r in rows if (r["topology"], r["link"]) == (topo, link)})
        tp = "/".join(f"TP{n}" for n in ns)
        gpu = ec.short_gpu(rows[0]["gpu"])
        if topo == "emulated":
            parts.append(f"emulated {tp} (1×{gpu}, one green-context partition per rank)")
        else:
            parts.append(f"real {tp} ({gpu}, {'NVLink' if link == 'nvlink' else link})")
    return "; ".join(parts)


def main():
    a = ec.parse_args(__doc__, "peers")
    rows = read_summary(summary_path(a.csv))
    nodes = sorted({(r["topology"], r["link"], r["nranks"]) for r in rows})
    hidden_of = {node: sorted({r["hidden"] for r in rows if (r["topology"], r["link"], r["nranks"]) == node})
                 for node in nodes}
    ncols = max(len(h) for h in hidden_of.values())
    fig, axes = plt.subplots(2 * len(nodes), ncols, figsize=(3.6 * ncols, 3.0 * 2 * len(nodes)), squeeze=False)
    table, seen = [], set()
    overall = {}
    for i, node in enumerate(nodes):
        topo, link, n = node
        for j in range(ncols):
            ax_t, ax_s = axes[2 * i][j], axes[2 * i + 1][j]
            if j >= len(hidden_of[node]):
                ax_t.set_visible(False)
                ax_s.set_visible(False)
                continue
            h = hidden_of[node][j]
            sel = [r for r in rows if (r["topology"], r["link"], r["nranks"]) == node and r["hidden"] == h]
            tokens = sorted({r["tokens"] for r in sel})
            # FlashInfer's own line: one time per tokens (the same in every member's row of a group).
            fi = {}
            for r in sel:
                v = ec.num(r, "flashinfer_us")
                if ec.finite(v):
                    fi.setdefault(r["tokens"], v)
            ft = sorted(fi)
            times = list(fi.values())
            ax_t.plot(ft, [fi[t] for t in ft], "-", color="black", lw=1.8, marker="*", ms=6,
                      label=flashinfer_label(sel))
            for member in sorted({r["member"] for r in sel}):
                color, marker, label = style(member, seen)
                pts = sorted(((r["tokens"], r) for r in sel if r["member"] == member), key=lambda p: p[0])
                ok = [(t, r) for t, r in pts if r["check"] != "fail"]
                bad = [(t, r) for t, r in pts if r["check"] == "fail"]
                ts = [t for t, _ in ok]
                us = [ec.num(r, "member_us") for _, r in ok]
                sp = [ec.num(r, "speedup") for _, r in ok]
                lo = [ec.num(r, "speedup_ci_lo") for _, r in ok]
                hi = [ec.num(r, "speedup_ci_hi") for _, r in ok]
                times += us
                ax_t.plot(ts, us, "-", color=color, marker=marker, ms=4, lw=1.2, label=label)
                err = [[max(0.0, s - l) if ec.finite(l) and ec.finite(s) else 0.0 for s, l in zip(sp, lo)],
                       [max(0.0, u - s) if ec.finite(u) and ec.finite(s) else 0.0 for s, u in zip(sp, hi)]]
                g = geomean(sp)
                overall.setdefault((topo, link, n, member), []).extend(sp)
                ax_s.errorbar(ts, sp, yerr=err, fmt="-" + marker, color=color, ms=4, lw=1.2, capsize=2,
                              label=f"{member}: geomean {g:.2f}x")
                for t, r in bad:
                    ax_s.plot([t], [1.0], "x", color="red", ms=8, mew=2)
                for t, r in pts:
                    table.append([f"{'emulated' if topo == 'emulated' else link} N={n}", str(h), str(t), member,
                                  r["implementation"], ec.num(r, "member_us"), ec.num(r, "flashinfer_us"),
                                  ec.num(r, "speedup"), ec.num(r, "speedup_ci_lo"), ec.num(r, "speedup_ci_hi"),
                                  r["check"], r["flashinfer_check"]])
            ec.tokens_axis(ax_t, tokens)
            ec.time_axis(ax_t, times)
            ax_t.set_title(f"TP{n} {topo}/{link}, H {h}: time per call", fontsize=8)
            ax_t.grid(True, alpha=0.3)
            ec.tokens_axis(ax_s, tokens)
            ax_s.axhline(1.0, color="black", ls=":", lw=1.0)
            ax_s.set_ylabel("speedup over FlashInfer (x)")
            ax_s.set_title(f"TP{n}, H {h}: vs FlashInfer (95 % CI)", fontsize=8)
            ax_s.grid(True, alpha=0.3)
            ax_s.legend(fontsize=6)
            if j == 0:
                ax_t.legend(fontsize=6)
    sha = sorted({r["git_sha"] for r in rows})
    fig.suptitle(f"arlab exp peers: arlab vs {flashinfer_label(rows)} (and vLLM, NCCL), one interleaved group per "
                 f"problem\n{node_text(rows)}; commit {', '.join(sha)}", fontsize=9)
    ec.tight_below_title(fig)
    ec.save(fig, a.out, TOOL)
    ec.print_table("peers (us; x = flashinfer / member, 95 % CI)",
                   ["node", "H", "tokens", "member", "implementation", "member", "flashinfer", "x", "lo", "hi",
                    "check", "fi check"], table)
    print("geomean speedup over FlashInfer per node and member:")
    for (topo, link, n, member), sp in sorted(overall.items()):
        vals = [v for v in sp if ec.finite(v)]
        print(f"  {topo}/{link} TP{n} {member}: {geomean(vals):.3f}x over {len(vals)} problems, "
              f"min {min(vals) if vals else math.nan:.3f}x")


if __name__ == "__main__":
    main()
