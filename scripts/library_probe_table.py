#!/usr/bin/env python3
"""scripts/library_probe_table.py PROBE.csv RATIOS.csv

Prints a Markdown table of a probe of arlab's reference kernel beside the library's own kernel
(FlashInfer's one-shot) at several launch configurations of the same problem, each problem one
process: `arlab run --kernel reference,flashinfer --policy trtllm --config ...` (the lists
scripts/probes/library_model_configs.txt and library_cluster_shapes.txt). Every ratio comes from
RATIOS.csv (the in-process ratios against the group's first member, the reference at trtllm's
configuration), so each figure is measured in one process:

  library / reference  FlashInfer's time over the reference's at the same configuration (> 1: the
                       reference is faster)
  vs trtllm            each kernel's time at the configuration over its own at trtllm's (< 1: the
                       configuration is faster than trtllm's for that kernel)

Times are skew-free medians (us) from PROBE.csv. Used for docs/seed.md ("The library's own kernel")
and docs/kernels.md ("The faithful reference").
"""
import collections
import csv
import sys

LIBRARY = "flashinfer"
PROBE_COLUMNS = ("group_id", "date_utc", "check", "kernel_variant", "policy", "tpb", "cluster", "grid", "hidden",
                 "tokens", "skewfree_us_median")
RATIO_COLUMNS = ("group_id", "numerator", "numerator_cfg", "ratio")


def config_of(row):
    return f"{row['tpb']}/{row['cluster']}/{row['grid']}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[0])
    probe, ratios_path = sys.argv[1], sys.argv[2]
    try:
        with open(probe, newline="") as f:
            rows = list(csv.DictReader(f))
        with open(ratios_path, newline="") as f:
            ratio_rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"library_probe_table: {e}")
    for path, have, need in ((probe, rows, PROBE_COLUMNS), (ratios_path, ratio_rows, RATIO_COLUMNS)):
        missing = [c for c in need if not have or c not in have[0]]
        if missing:
            sys.exit(f"library_probe_table: {path} has no rows or lacks column(s) {', '.join(missing)} "
                     f"(expected an `arlab run` {'measurement' if need is PROBE_COLUMNS else 'ratio'} CSV)")
    try:
        print_table(probe, rows, ratio_rows)
    except ValueError as e:
        sys.exit(f"library_probe_table: a cell is not a number: {e}")


def print_table(probe, rows, ratio_rows):
    # group -> {(kernel, config): row}; a group's first member is the reference at trtllm
    groups = collections.defaultdict(dict)
    for r in rows:
        if r["check"] != "pass":
            sys.exit(f"library_probe_table: {probe}: group {r['group_id']} has a row that failed the gate")
        groups[r["group_id"]][(r["kernel_variant"], config_of(r), r["policy"])] = r
    # group -> {(kernel, config): in-process ratio against the group's first member}
    ratio = collections.defaultdict(dict)
    for r in ratio_rows:
        cfg = r["numerator_cfg"].split("/")
        kernel = LIBRARY if r["numerator"].endswith("/" + LIBRARY) else "reference"
        ratio[r["group_id"]][(kernel, "/".join(cfg[:3]))] = float(r["ratio"])
    print("| problem | configuration | reference (us) | library (us) | library / reference | reference vs trtllm "
          "| library vs trtllm |")
    print("|---|---|---|---|---|---|---|")
    for gid in sorted(groups, key=lambda g: min(r["date_utc"] for r in groups[g].values())):
        g = groups[gid]
        trtllm = next((config_of(r) for (k, c, p), r in g.items() if k == "reference" and p == "trtllm"), None)
        if trtllm is None:
            sys.exit(f"library_probe_table: group {gid} has no reference row at trtllm")
        rg = ratio[gid]
        rg[("reference", trtllm)] = 1.0
        any_row = next(iter(g.values()))
        for cfg in dict.fromkeys(c for (_, c, _) in g):
            ref = next((r for (k, c, _), r in g.items() if k == "reference" and c == cfg), None)
            lib = next((r for (k, c, _), r in g.items() if k == LIBRARY and c == cfg), None)
            if ref is None or lib is None or ("reference", cfg) not in rg or (LIBRARY, cfg) not in rg:
                continue
            label = "trtllm " + cfg if cfg == trtllm else cfg
            lib_vs_ref = rg[(LIBRARY, cfg)] / rg[("reference", cfg)]
            ref_vs_trtllm = rg[("reference", cfg)]
            lib_vs_trtllm = rg[(LIBRARY, cfg)] / rg[(LIBRARY, trtllm)]
            print(f"| H {any_row['hidden']} x {any_row['tokens']} | {label} | {float(ref['skewfree_us_median']):.2f} "
                  f"| {float(lib['skewfree_us_median']):.2f} | {lib_vs_ref:.3f}x | {ref_vs_trtllm:.3f}x "
                  f"| {lib_vs_trtllm:.3f}x |")


if __name__ == "__main__":
    main()
