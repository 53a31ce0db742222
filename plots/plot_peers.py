#!/usr/bin/env python3
"""Figure of `arlab exp peers` (issue 23): arlab against the kernels people run -- FlashInfer's fused
all-reduce at its own configuration, vLLM's custom all-reduce, NCCL -- measured interleaved in one group per
problem, from the peers summary CSV the experiment writes beside its measurement CSV (schema:
common/peers_schema.h; X.csv -> X_summary.csv).

Per (node, N) two rows of panels, one column per hidden size H:
  top:    time per call vs tokens, one line per member and FlashInfer's own line (black), each point with
          its 95 % CI as error bars -- the CI columns of its headline in the measurement CSV beside the
          summary (X.csv), found by problem, configuration and time (a point without one gets none);
  bottom: the speedup over FlashInfer (flashinfer_us / member_us; above 1 the member is faster) with the
          paired-round bootstrap 95 % CI as error bars, a dotted line at 1, and each member's geometric
          mean in the title. A member whose gate verdict was `fail` is drawn with a red cross and no line.
One legend for the figure, right of the panels. Nothing is recomputed: every number is a column of the
summary CSV (or, for the time CIs and the emulated node's partition size, of the measurement CSV). The
title names the node, the GPU and FlashInfer's version, the caption the rows' commits and the CIs.

    python3 plots/plot_peers.py --csv results/peers/peers.csv --out results/peers/peers
"""

import math
import os

import exp_common as ec
import matplotlib.pyplot as plt  # after exp_common, which selects the Agg backend

TOOL = "plot_peers"
COLUMNS = ["git_sha", "gpu", "topology", "link", "nranks", "hidden", "tokens", "member", "implementation",
           "member_us", "flashinfer_implementation", "flashinfer_us", "speedup", "speedup_ci_lo", "speedup_ci_hi", "check", "flashinfer_check"]
# One colour, marker and legend name per member label (policy of common/implementations.h); others get the cycle.
MEMBER_STYLE = {
    "trtllm": ("tab:blue", "o", "arlab reference kernel @ trtllm config"),
    "model/auto": ("tab:green", "s", "arlab best (model's pick)"),
    "vllm": ("tab:orange", "^", "vLLM custom all-reduce + norm"),
    "nccl": ("tab:purple", "v", "NCCL all-reduce + norm"),
    "nccl_symmetric": ("tab:brown", "D", "NCCL symmetric + norm"),
}
CYCLE = ["tab:red", "tab:pink", "tab:olive", "tab:cyan", "tab:gray"]
NAN_CI = (math.nan, math.nan)


def style(member, others):
    """(colour, marker, legend name) of a member; members without a MEMBER_STYLE entry get the next colour of
    CYCLE, the same one every time (others: {member: style} so far)."""
    if member in MEMBER_STYLE:
        return MEMBER_STYLE[member]
    if member not in others:
        others[member] = (CYCLE[len(others) % len(CYCLE)], "x", member)
    return others[member]


def flashinfer_label(rows):
    """FlashInfer's legend name: the implementation cell of its rows (flashinfer-VERSION)."""
    impls = sorted({r["flashinfer_implementation"] for r in rows} - {""})
    return impls[0] if impls else "FlashInfer"


# ------------------------------------------------------------------------------------ time CIs (joined)

def problem_config_key(row, config, implementation):
    """The key of a time: its node, problem, what ran (implementation) and tpb/cluster/grid/vpt/algo (the
    first five fields of the summary's config cells; the measurement rows' columns)."""
    return (row.get("topology"), row.get("link"), ec.ival(row, "nranks"), ec.ival(row, "hidden"),
            ec.ival(row, "tokens"), row.get("acc"), implementation, "/".join(config.split("/")[:5]))


def time_ci_index(measurement_csv, experiment):
    """{problem_config_key: [(headline us, its 95 % CI, kernel_variant)]} of the measurement rows of
    `experiment`."""
    index = {}
    for r in ec.read_csv_rows(measurement_csv):
        if not (r.get("experiment") or "").startswith(experiment + "/"):
            continue
        config = "/".join(r.get(c, "") for c in ("tpb", "cluster", "grid", "vecs_per_thread", "algo"))
        try:
            us, ci = ec.headline_us(r), ec.headline_ci(r)
        except ValueError:  # an unknown headline cell: no CI from this row
            continue
        key = problem_config_key(r, config, r.get("implementation") or "")
        index.setdefault(key, []).append((us, ci, r.get("kernel_variant") or ""))
    return index


def member_time_ci(index, row):
    """The 95 % CI of a member's time: the one measurement row of the same problem, implementation, kernel
    body and configuration whose headline is member_us; NAN_CI when there is none or more than one."""
    key = problem_config_key(row, row.get("config") or "", row.get("implementation") or "")
    return matching_ci(index.get(key, []), ec.num(row, "member_us"), row.get("kernel_variant") or "")


def flashinfer_time_ci(index, row):
    """The 95 % CI of FlashInfer's time in a summary row, found as member_time_ci finds a member's."""
    key = problem_config_key(row, row.get("flashinfer_config") or "", row.get("flashinfer_implementation") or "")
    return matching_ci(index.get(key, []), ec.num(row, "flashinfer_us"), None)


def matching_ci(candidates, us, variant):
    """The CI of the one candidate (us, ci, kernel_variant) whose time is us (and body `variant`, unless
    None); NAN_CI when none or several match."""
    found = [ci for h, ci, v in candidates
             if ec.finite(us) and math.isclose(h, us, rel_tol=1e-9) and variant in (None, v)]
    return found[0] if len(found) == 1 else NAN_CI


# ------------------------------------------------------------------------------------------------ panels

def flashinfer_line(ax_t, sel, index):
    """FlashInfer's own line: one time per tokens (the same in every member's row of a group), with its CI.
    Returns (times, number of CIs found, number of points)."""
    fi = {}
    for r in sel:
        if ec.finite(ec.num(r, "flashinfer_us")) and r["tokens"] not in fi:
            fi[r["tokens"]] = (ec.num(r, "flashinfer_us"), flashinfer_time_ci(index, r))
    ts = sorted(fi)
    found = ec.draw_ci(ax_t, ts, [fi[t][0] for t in ts], [fi[t][1] for t in ts], "black")
    ax_t.plot(ts, [fi[t][0] for t in ts], "-", color="black", lw=1.8, marker="*", ms=6, label=flashinfer_label(sel))
    return [v for v, _ in fi.values()], found, len(ts)


def member_lines(ax_t, ax_s, sel, member, st, index):
    """One member's time (with its CI) and speedup (with its bootstrap CI) lines; a failed point a red
    cross at 1. Returns (its passing points [(tokens, row)], number of time CIs found)."""
    color, marker, label = st
    pts = sorted(((r["tokens"], r) for r in sel if r["member"] == member), key=lambda p: p[0])
    ok = [(t, r) for t, r in pts if r["check"] != "fail"]
    ts = [t for t, _ in ok]
    us = [ec.num(r, "member_us") for _, r in ok]
    found = ec.draw_ci(ax_t, ts, us, [member_time_ci(index, r) for _, r in ok], color)
    ax_t.plot(ts, us, "-", color=color, marker=marker, ms=4, lw=1.2, label=label)
    sp = [ec.num(r, "speedup") for _, r in ok]
    ec.draw_ci(ax_s, ts, sp, [(ec.num(r, "speedup_ci_lo"), ec.num(r, "speedup_ci_hi")) for _, r in ok], color)
    ax_s.plot(ts, sp, "-" + marker, color=color, ms=4, lw=1.2, label=label)
    for t, _ in pts:
        if (t, _) not in ok:
            ax_s.plot([t], [1.0], "x", color="red", ms=8, mew=2, label="gate failed (not drawn)")
    return ok, found


def hidden_panels(ax_t, ax_s, sel, index, others, overall, counts):
    """The time and speedup panels of one (node, N, H); returns its table rows."""
    node, h = ec.short_node_label(sel[0]), sel[0]["hidden"]
    tokens = sorted({r["tokens"] for r in sel})
    times, found, n = flashinfer_line(ax_t, sel, index)
    counts["time_ci"] += found
    counts["times"] += n
    table, means = [], []
    for member in sorted({r["member"] for r in sel}):
        ok, found = member_lines(ax_t, ax_s, sel, member, style(member, others), index)
        counts["time_ci"] += found
        counts["times"] += len(ok)
        sp = [ec.num(r, "speedup") for _, r in ok]
        times += [ec.num(r, "member_us") for _, r in ok]
        overall.setdefault((sel[0]["topology"], sel[0]["link"], sel[0]["nranks"], member), []).extend(sp)
        means.append(f"{member} {ec.geomean(sp):.2f}x")
        for t, r in sorted(((r["tokens"], r) for r in sel if r["member"] == member), key=lambda p: p[0]):
            table.append([f"{'emulated' if r['topology'] == 'emulated' else r['link']} N={r['nranks']}", str(h),
                          str(t), member, r["implementation"], ec.num(r, "member_us"), ec.num(r, "flashinfer_us"),
                          ec.num(r, "speedup"), ec.num(r, "speedup_ci_lo"), ec.num(r, "speedup_ci_hi"),
                          r["check"], r["flashinfer_check"]])
    ec.tokens_axis(ax_t, tokens)
    ec.time_axis(ax_t, times)
    ax_t.set_title(f"{node}, H = {h}: time per call", fontsize=8)
    ec.tokens_axis(ax_s, tokens)
    ax_s.axhline(1.0, color="black", ls=":", lw=1.0)
    ax_s.set_ylabel("speedup over FlashInfer (x)")
    ax_s.set_title(f"{node}, H = {h}: vs FlashInfer (95 % CI)\ngeomean: {', '.join(means)}", fontsize=7)
    ax_s.grid(True, alpha=0.3)
    return table


def speedup_ci_caption(rows):
    have = sum(1 for r in rows if r["check"] != "fail" and ec.finite(ec.num(r, "speedup_ci_lo"))
               and ec.finite(ec.num(r, "speedup_ci_hi")))
    drawn = sum(1 for r in rows if r["check"] != "fail")
    return (f"error bars on the speedups: bootstrap 95 % CI over paired rounds (speedup_ci_lo/hi; {have} of "
            f"{drawn} points)")


def time_ci_caption(counts, measurement_csv):
    if not counts["time_ci"]:
        return (f"error bars on the times: none (no measurement row in {os.path.basename(measurement_csv)} "
                "matched a summary time with a 95 % CI)")
    return (f"error bars on the times: 95 % CI of each median, from the measurement rows of "
            f"{os.path.basename(measurement_csv)} ({counts['time_ci']} of {counts['times']} points)")


def main():
    a = ec.parse_args(__doc__, "peers")
    rows = ec.read_summary(ec.summary_path(a.csv), "peers", TOOL, COLUMNS, "common/peers_schema.h",
                           int_columns=("nranks", "hidden", "tokens"))
    ec.with_partition_sizes(rows, ec.partition_sizes(a.csv, a.experiment))
    index = time_ci_index(a.csv, a.experiment)
    nodes = sorted({(r["topology"], r["link"], r["nranks"]) for r in rows})
    hidden_of = {node: sorted({r["hidden"] for r in rows if (r["topology"], r["link"], r["nranks"]) == node})
                 for node in nodes}
    ncols = max(len(h) for h in hidden_of.values())
    fig, axes = plt.subplots(2 * len(nodes), ncols, figsize=(3.6 * ncols, 3.1 * 2 * len(nodes)), squeeze=False)
    table, others, overall, counts = [], {}, {}, {"time_ci": 0, "times": 0}
    for i, node in enumerate(nodes):
        for j in range(ncols):
            ax_t, ax_s = axes[2 * i][j], axes[2 * i + 1][j]
            if j >= len(hidden_of[node]):
                ax_t.set_visible(False)
                ax_s.set_visible(False)
                continue
            sel = [r for r in rows if (r["topology"], r["link"], r["nranks"]) == node and r["hidden"] == hidden_of[node][j]]
            table += hidden_panels(ax_t, ax_s, sel, index, others, overall, counts)
    fig.suptitle(f"arlab exp peers: arlab vs {flashinfer_label(rows)} (and vLLM, NCCL), one interleaved group per "
                 f"problem\n{ec.node_label(rows)}", fontsize=10)
    ec.tight_below_title(fig)
    ec.shared_legend(fig, [ax for row in axes for ax in row])
    ec.caption(fig, [ec.provenance_caption(rows), time_ci_caption(counts, a.csv), speedup_ci_caption(rows)], TOOL)
    ec.save(fig, a.out, TOOL)
    ec.print_table("peers (us; x = flashinfer / member, 95 % CI)",
                   ["node", "H", "tokens", "member", "implementation", "member", "flashinfer", "x", "lo", "hi",
                    "check", "fi check"], table)
    print("geomean speedup over FlashInfer per node and member:")
    for (topo, link, n, member), sp in sorted(overall.items()):
        vals = [v for v in sp if ec.finite(v)]
        print(f"  {topo}/{link} TP{n} {member}: {ec.geomean(vals):.3f}x over {len(vals)} problems, "
              f"min {min(vals) if vals else math.nan:.3f}x")


if __name__ == "__main__":
    main()
