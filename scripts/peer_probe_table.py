#!/usr/bin/env python3
"""scripts/peer_probe_table.py CSV PROBLEMS [--kernel BODY] [--label EXPERIMENTS=TEXT ...]

Prints a Markdown table of a probe of the reference beside a peer: each process of CSV (arlab rows,
one `arlab run --policy trtllm,flashinfer/flashinfer --kernel reference` group per process) gives
peer / reference for its problem (> 1: the reference is faster). One row per --label: EXPERIMENTS is
one or more `experiment` values joined by '+', TEXT the row's first cell. Columns: how many problems
are within +-3 % (a range over the processes when a problem ran several times, as with a probe's
no-switch runs), the ratio at each of PROBLEMS (comma-separated HIDDENxTOKENS, or RANKSxHIDDENxTOKENS
where the CSV holds that H x tokens at more than one N; a range likewise),
and the shift: the reference's own time against the experiments `PREFIX_v0` of the same build
(PREFIX: the text before the first '_'), mean (range) over the problems, first process of each.
With --kernel BODY the trtllm member of that body is the one set beside the peer, for groups that hold
several (`--kernel reference,lean`, scripts/probes/phase_peer.txt); a group of several trtllm members
without --kernel is refused. Rows written before the kernel_variant column read as the reference.
Used for docs/kernels.md, "The faithful reference" (data/h200/faithful_probe_emulated.csv).
"""
import collections
import csv
import statistics
import sys


def load(path, kernel):
    groups = collections.defaultdict(dict)  # group -> member ("trtllm/BODY" or the policy) -> row
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            member = r["policy"]
            if member == "trtllm":
                member += "/" + (r.get("kernel_variant") or "reference")
            groups[r["group_id"]][member] = r
    runs = collections.defaultdict(lambda: collections.defaultdict(list))  # experiment -> problem -> [(ratio, ref_us)]
    for gid in sorted(groups, key=lambda g: min(r["date_utc"] for r in groups[g].values())):
        g = groups[gid]
        trtllm = sorted(m for m in g if m.startswith("trtllm/"))
        if kernel is None and len(trtllm) > 1:
            raise SystemExit(f"peer_probe_table: group {gid} holds several trtllm members ({', '.join(trtllm)}): "
                             f"name one with --kernel")
        want = f"trtllm/{kernel}" if kernel is not None else (trtllm[0] if trtllm else "trtllm")
        if want not in g or "flashinfer" not in g:
            raise SystemExit(f"peer_probe_table: group {gid} lacks the {want} or the flashinfer row")
        ref, peer = g[want], g["flashinfer"]
        ref_us, peer_us = float(ref["skewfree_us_median"]), float(peer["skewfree_us_median"])
        key = (int(ref["nranks"]), int(ref["hidden"]), int(ref["tokens"]))
        runs[ref["experiment"]][key].append((peer_us / ref_us, ref_us))
    return runs


def resolve(problem, keys):
    """A PROBLEMS item, (H, T) or (N, H, T), as the (N, H, T) key of the CSV; None where it has none."""
    if len(problem) == 3:
        return problem if problem in keys else None
    found = sorted({k for k in keys if k[1:] == problem})
    if len(found) > 1:
        raise ValueError(f"{problem[0]}x{problem[1]} ran at N = {', '.join(str(k[0]) for k in found)}: "
                         f"name it as NxHxT")
    return found[0] if found else None


def span(values, fmt):
    lo, hi = min(values), max(values)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else fmt.format(lo) + "-" + fmt.format(hi)


def main(argv):
    if len(argv) < 3 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    kernel = None
    rest = argv[3:]
    if rest[:1] == ["--kernel"]:
        if len(rest) < 2 or rest[1] not in ("reference", "lean"):
            print(f"peer_probe_table: --kernel takes reference or lean, got {' '.join(rest[1:2]) or 'nothing'}",
                  file=sys.stderr)
            return 2
        kernel, rest = rest[1], rest[2:]
    try:
        runs = load(argv[1], kernel)
    except (OSError, KeyError, ValueError) as e:
        print(f"peer_probe_table: cannot read {argv[1]} as arlab rows: {e}", file=sys.stderr)
        return 2
    form = f"peer_probe_table: PROBLEMS must be [RANKSx]HIDDENxTOKENS[,...], got '{argv[2]}'"
    try:
        problems = [tuple(int(v) for v in p.split("x")) for p in argv[2].split(",")]
    except ValueError:
        print(form, file=sys.stderr)
        return 2
    if any(len(p) not in (2, 3) for p in problems):
        print(form, file=sys.stderr)
        return 2
    keys = {k for experiment in runs.values() for k in experiment}
    try:
        problems = [resolve(p, keys) for p in problems]
    except ValueError as e:
        print(f"peer_probe_table: {e}", file=sys.stderr)
        return 2
    labels = []
    while rest:
        if rest[0] != "--label" or len(rest) < 2 or "=" not in rest[1]:
            print(f"peer_probe_table: expected --label EXPERIMENTS=TEXT, got {' '.join(rest)}", file=sys.stderr)
            return 2
        names, text = rest[1].split("=", 1)
        labels.append((names.split("+"), text))
        rest = rest[2:]
    for names, text in labels:
        missing = [n for n in names if n not in runs]
        if missing:
            print(f"peer_probe_table: no experiment {', '.join(missing)} in {argv[1]}", file=sys.stderr)
            return 2
        processes = []  # each: problem -> (ratio, ref_us)
        for n in names:
            depth = max(len(v) for v in runs[n].values())
            for i in range(depth):
                processes.append({p: v[i] for p, v in runs[n].items() if i < len(v)})
        within = [sum(abs(r - 1.0) <= 0.03 for r, _ in proc.values()) for proc in processes]
        cells = [span(within, "{}")]
        for p in problems:
            ratios = [proc[p][0] for proc in processes if p in proc] if p else []
            cells.append(span(ratios, "{:.3f}") + "x" if ratios else "-")
        shift = ""
        if len(names) == 1 and not names[0].endswith("_v0"):
            base = runs.get(names[0].split("_")[0] + "_v0")
            if base:
                d = [v[0][1] - base[p][0][1] for p, v in runs[names[0]].items() if p in base]
                shift = f"{statistics.mean(d):+.2f} ({min(d):+.2f} to {max(d):+.2f}) µs"
        print("| " + " | ".join([text] + cells + [shift]) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
