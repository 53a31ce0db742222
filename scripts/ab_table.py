#!/usr/bin/env python3
"""The comparison an A/B probe measured (scripts/ab_probe.sh): per problem and configuration, the
reference and lean times of each binary (skew-free medians of one interleaved group) and reference /
lean in each process, then how that in-process ratio moved from the BEFORE binary to the AFTER one.
With --per-body, instead, each body's own time: the mean over the processes of each binary and AFTER /
BEFORE of those means, with its range over every pair of processes (a kernel change A/B across
processes that alternate the binaries).

  scripts/ab_table.py PROBE.csv [--before SHA] [--after SHA] [--per-body]

PROBE.csv holds rows of both binaries (common/measurement_schema.h; columns read by name); the
binaries are told apart by `git_sha`: BEFORE and AFTER default to the first and the second value in
file order. A configuration measured by only one binary, or without both bodies, is left out.
"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--before", help="git_sha of the BEFORE binary (default: the first in the file)")
    ap.add_argument("--after", help="git_sha of the AFTER binary (default: the second in the file)")
    ap.add_argument("--per-body", action="store_true",
                    help="each body's time after / before (means over processes, range over process pairs)")
    a = ap.parse_args()
    try:
        with open(a.csv, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"ab_table: cannot read {a.csv}: {e.strerror}")
    missing = [c for c in ("git_sha", "nranks", "pattern", "hidden", "tokens", "algo", "tpb", "cluster", "grid",
                           "vecs_per_thread", "policy", "kernel_variant", "skewfree_us_median")
               if rows and c not in rows[0]]
    if missing:
        sys.exit(f"ab_table: {a.csv} is not a measurement CSV (no column {', '.join(missing)})")
    shas = list(dict.fromkeys(r["git_sha"] for r in rows))
    before = a.before or (shas[0] if shas else None)
    after = a.after or (shas[1] if len(shas) > 1 else None)
    if before is None or after is None or before == after:
        sys.exit(f"ab_table: {a.csv} needs rows of two binaries (git_sha values: {', '.join(shas) or 'none'})")
    times = {}  # (problem key, sha, body) -> us, one per process in file order
    order = []
    for r in rows:
        key = (r["nranks"], r["pattern"], r["hidden"], r["tokens"], r["algo"],
               f"{r['tpb']}/{r['cluster']}/{r['grid']}/{r['vecs_per_thread']}", r["policy"])
        if key not in order:
            order.append(key)
        times.setdefault((key, r["git_sha"], r["kernel_variant"] or "reference"), []).append(
            float(r["skewfree_us_median"]))
    if a.per_body:
        per_body(a.csv, order, times, before, after)
        return
    print(f"before: {before}, after: {after}; reference / lean in one process (> 1: lean faster)")
    print("| N | H | tokens | algo | configuration (policy) | reference, lean before (us) | ratio before "
          "| reference, lean after (us) | ratio after | after / before |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    shown = 0
    for key in order:
        t = [times.get((key, sha, body)) for sha in (before, after) for body in ("reference", "lean")]
        if any(x is None for x in t):
            continue
        rb, lb, ra, la = (x[-1] for x in t)
        n, _pattern, h, tokens, algo, config, policy = key
        print(f"| {n} | {h} | {tokens} | {algo} | {config} ({policy}) | {rb:.2f}, {lb:.2f} | {rb / lb:.3f}x "
              f"| {ra:.2f}, {la:.2f} | {ra / la:.3f}x | {(ra / la) / (rb / lb):.3f} |")
        shown += 1
    if shown == 0:
        sys.exit(f"ab_table: no configuration of {a.csv} was measured with both bodies by both binaries")


def per_body(path, order, times, before, after):
    print(f"before: {before}, after: {after}; each body's skew-free median, mean over its processes "
          "(< 1: the AFTER binary faster)")
    print("| N | pattern | H | tokens | algo | configuration (policy) | body | before (us) | after (us) "
          "| after / before (range over process pairs) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    shown = 0
    for key in order:
        for body in ("reference", "lean"):
            b, t = times.get((key, before, body)), times.get((key, after, body))
            if not b or not t:
                continue
            n, pattern, h, tokens, algo, config, policy = key
            mb, ma = sum(b) / len(b), sum(t) / len(t)
            print(f"| {n} | {pattern} | {h} | {tokens} | {algo} | {config} ({policy}) | {body} | {mb:.2f} | {ma:.2f} "
                  f"| {ma / mb:.3f} ({min(t) / max(b):.3f}-{max(t) / min(b):.3f}) |")
            shown += 1
    if shown == 0:
        sys.exit(f"ab_table: no configuration of {path} was measured by both binaries")


if __name__ == "__main__":
    main()
