#!/usr/bin/env python3
"""The timing model's error per group of rows: joins a validation CSV (`arlab validate FILE --out V.csv`,
common/validation_schema.h) with the measurement CSV it judged (by the `line` column) and, per value of
the --by columns (any column of the measurement CSV, e.g. pattern, algo, nranks, kernel_variant,
vecs_per_thread), prints the rows, the MAPE and the bias: the mean of predicted / measured - 1 (negative:
the model under-predicts). Measured = the validation CSV's kernel_us_median (the headline the model was
judged against). Columns are read by name; rows written before a column existed read it as empty
(kernel_variant: reference). Derived groupings may stand beside the columns in --by:
  @occupancy  full (every thread of a cluster holds vecs_per_thread vectors: tpb x cluster x
              vecs_per_thread <= H / (16 B / dtype size)), partial (some threads hold fewer or none),
              idle_blocks (a cluster holds whole blocks with no vector)
  @grid       the grid against the rank's SMs (sm_per_rank): le16 (at most 16 blocks), below_sms,
              equal_sms or above_sms
  @rounds     one (every token has a cluster of its own: tokens <= grid / cluster) or several
  @round_count  the token rounds per cluster R = ceil(tokens / (grid / cluster)): 1, 2-4, 5-16 or 17+
  @threads    the threads that hold a vector in the clusters of the first round (min(tokens, grid /
              cluster) x min(tpb x cluster, the token's vectors / vecs_per_thread)): lt1k, 1k_4k,
              4k_16k, 16k_64k or ge64k
  @own_rows   two-shot: every (every rank owns a token of every cluster: each rank's range of
              ceil(tokens / N) tokens, the last one shorter, is at least the clusters wide) or some_none (a
              rank has a cluster whose tokens it only reads); one-shot rows: "-"
  @blocks_per_sm  the grid over the rank's SMs (grid / sm_per_rank): le1 (at most one block per SM),
              1-2, 2-4 or gt4 (several blocks share an SM)
  @epilogue_rounds  two-shot: the busiest cluster's epilogue token rounds over every rank's range (as
              model/twoshot_model.cpp counts them): 1, 2-4, 5-16 or 17+; one-shot rows: "-"
Several MEASUREMENTS.csv VALIDATION.csv pairs may follow one another: their rows are pooled.

  scripts/model_bias.py MEASUREMENTS.csv VALIDATION.csv [MEASUREMENTS.csv VALIDATION.csv ...] --by COL[,COL...]
                        [--where COL=VALUE ...]
  scripts/model_bias.py MEASUREMENTS.csv VALIDATION.csv [MEASUREMENTS.csv VALIDATION.csv ...] --round-cost
                        [--where COL=VALUE ...]
  scripts/model_bias.py MEASUREMENTS.csv VALIDATION.csv [MEASUREMENTS.csv VALIDATION.csv ...] --round-cost-tokens
                        [--where COL=VALUE ...]
  scripts/model_bias.py MEASUREMENTS.csv VALIDATION.csv [MEASUREMENTS.csv VALIDATION.csv ...] --shares COL[,COL...]
                        [--where COL=VALUE ...]

--shift-us D (with --by or --shares) adds D microseconds to every prediction first: what a constant term of that
size would do to the groups.

--shares prints, instead, where the model's error lives: over the selected rows, e = ln(predicted / measured),
and for each grouping (@problem first: the rows of one problem, N, algorithm, pattern, dtype, H and tokens,
whatever their launch configuration; then each COL, columns or derived groupings as for --by) the groups, the
share of e's variance between the groups' means (eta squared) and the standard deviation left within them
(x 100, about %), and the share of the variance within @problem that the grouping takes inside each
problem (its groups split by problem). A share near 1 is error that a term of that grouping could remove; what
stays within @problem is the launch configurations' error, which no per-problem term reaches. A grouping of k
groups over n rows takes about (k - 1) / (n - 1) by chance alone, and inside the problems (K groups of problem
and grouping, P problems) about (K - P) / (n - P): each printed in brackets beside its share.

--round-cost prints, instead, the cost of one more token round per cluster, measured and predicted:
for rows that differ only in the grid (the same problem, tpb, cluster and vectors per thread, so only
R = ceil(tokens / (grid / cluster)) changes), (t(R2) - t(R1)) / (R2 - R1) between the smallest and the
largest R, one markdown table row per such configuration with the reference and lean side by side
(rows of one R averaged; "-" where a body has no such pair). Each file pair's configurations stay its own
(a configuration measured in two files is two rows); a last line gives, per body, the median of the
measured and of the predicted cost over the rows whose largest R is at least twice the smallest (a step of
one round in ten is mostly noise). --round-cost-tokens does the same for rows that differ only in the
token count (the same grid, H, N, pattern, tpb, cluster and vectors per thread: R changes with the tokens
while the blocks stay; scripts/vpt_rounds.sh --few-blocks), a table row per grid ("G blocks, H ...").

e.g. build/cli/arlab validate data/h200/model_grid_nvlink.csv --calibration data/calibration/h200_nvlink.csv \\
         --out /tmp/v.csv && scripts/model_bias.py data/h200/model_grid_nvlink.csv /tmp/v.csv --by pattern
"""
import csv
import math
import os
import statistics
import sys

DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}


def token_vectors(m, grouping):
    """The 16-byte vectors of one token of row m (H / (16 B / dtype size)); `grouping` names the caller."""
    if m.get("dtype") not in DTYPE_BYTES:
        sys.exit(f"model_bias: {grouping} needs a dtype of {', '.join(DTYPE_BYTES)}, a row has {m.get('dtype')!r}")
    return int(m["hidden"]) // (16 // DTYPE_BYTES[m["dtype"]])


def occupancy(m):
    vecs = token_vectors(m, "@occupancy")
    tpb, cluster, vpt = int(m["tpb"]), int(m["cluster"]), int(m["vecs_per_thread"] or 1)
    if tpb * cluster * vpt <= vecs:
        return "full"
    return "idle_blocks" if math.ceil(vecs / (tpb * vpt)) < cluster else "partial"


def grid_class(m):
    grid, sms = int(m["grid"]), int(m["sm_per_rank"])
    return "le16" if grid <= 16 else "below_sms" if grid < sms else "equal_sms" if grid == sms else "above_sms"


def rounds_class(m):
    return "one" if int(m["tokens"]) <= int(m["grid"]) // int(m["cluster"]) else "several"


def round_count_class(m):
    r = rounds_of(m)
    return "1" if r == 1 else "2-4" if r <= 4 else "5-16" if r <= 16 else "17+"


def threads_class(m):
    vecs = token_vectors(m, "@threads")
    tpb, cluster, vpt = int(m["tpb"]), int(m["cluster"]), int(m["vecs_per_thread"] or 1)
    clusters = min(int(m["tokens"]), int(m["grid"]) // cluster)
    threads = clusters * min(tpb * cluster, math.ceil(vecs / vpt))
    for limit, name in ((1024, "lt1k"), (4096, "1k_4k"), (16384, "4k_16k"), (65536, "16k_64k")):
        if threads < limit:
            return name
    return "ge64k"


def own_rows_class(m):
    if m.get("algo") != "twoshot":
        return "-"
    tokens, n = int(m["tokens"]), int(m["nranks"])
    chunk = math.ceil(tokens / n)  # each rank's range (kernels/twoshot_lean_kernel.cuh: owner = token / chunk)
    clusters = int(m["grid"]) // int(m["cluster"])
    # every range (the last is the shortest) at least as wide as the clusters: each holds every cluster's tokens
    return "every" if tokens - (n - 1) * chunk >= clusters else "some_none"


def epilogue_rounds_class(m):
    if m.get("algo") != "twoshot":
        return "-"
    tokens, n = int(m["tokens"]), int(m["nranks"])
    chunk = math.ceil(tokens / n)
    clusters = int(m["grid"]) // int(m["cluster"])
    # cluster 0's epilogue rounds over every rank's range, as model/twoshot_model.cpp counts them (rounds_all):
    # local index l = 0, C, 2C, ... < chunk, one round per range that holds token r x chunk + l
    rounds = sum(min(n, math.ceil((tokens - l) / chunk)) for l in range(0, chunk, clusters))
    return "1" if rounds == 1 else "2-4" if rounds <= 4 else "5-16" if rounds <= 16 else "17+"


def blocks_per_sm_class(m):
    per_sm = int(m["grid"]) / int(m["sm_per_rank"])
    return "le1" if per_sm <= 1 else "1-2" if per_sm <= 2 else "2-4" if per_sm <= 4 else "gt4"


def problem_key(m):
    return " ".join(m[c] for c in ("nranks", "algo", "pattern", "dtype", "hidden", "tokens"))


DERIVED = {"@problem": problem_key, "@occupancy": occupancy, "@grid": grid_class, "@rounds": rounds_class, "@round_count": round_count_class,
           "@threads": threads_class, "@own_rows": own_rows_class, "@blocks_per_sm": blocks_per_sm_class,
           "@epilogue_rounds": epilogue_rounds_class}


def rounds_of(m):
    return math.ceil(int(m["tokens"]) / (int(m["grid"]) // int(m["cluster"])))


def print_round_cost(points, by_tokens=False):
    """points: {(configuration key, body): {R: [(measured, predicted)]}} -> markdown rows (the key's first
    element the tokens, or with by_tokens the grid)."""
    def per_round(by_r):
        if len(by_r) < 2:
            return None
        lo, hi = min(by_r), max(by_r)
        mean = lambda rows, i: sum(r[i] for r in rows) / len(rows)
        return lo, hi, [(mean(by_r[hi], i) - mean(by_r[lo], i)) / (hi - lo) for i in (0, 1)]
    keys = sorted({k for k, _ in points}, key=lambda k: (k[0], k[1], k[2], k[3], k[4], k[-1]))
    printed = 0
    costs = {"reference": [], "lean": []}
    for key in keys:
        cost = {body: per_round(points.get((key, body), {})) for body in ("reference", "lean")}
        got = [c for c in cost.values() if c]
        if not got:
            continue
        lo, hi = got[0][0], got[0][1]
        cells = [f"{c[2][0]:.2f} / {c[2][1]:.2f} us" if c else "-" for c in (cost["reference"], cost["lean"])]
        first, hidden, tpb, cluster, vpt = key[:5]
        shape = f"{first} blocks, H {hidden}" if by_tokens else f"{first} x {hidden}"
        print(f"| {shape}, {tpb}/{cluster}, {vpt} | {lo} -> {hi} | {cells[0]} | {cells[1]} |")
        for body, c in cost.items():
            if c and c[1] >= 2 * c[0]:
                costs[body].append(c[2])
        printed += 1
    if not printed:
        sys.exit("model_bias: no configuration was measured at two " + ("token counts" if by_tokens else "grids"))
    print("median per round where R at least doubles, measured / predicted: " + ", ".join(
        f"{body} {statistics.median(c[0] for c in got):.2f} / {statistics.median(c[1] for c in got):.2f} us ({len(got)} rows)"
        if got else f"{body} - (0 rows)" for body, got in costs.items()))


def print_shares(rows, columns):
    """rows: [({grouping: value}, e)] -> one line per grouping: groups, eta squared, the sd within the groups, and
    the share of the within-@problem variance that the grouping takes inside each problem."""
    def within_ss(key):
        by_group = {}
        for cells, e in rows:
            by_group.setdefault(key(cells), []).append(e)
        means = {k: statistics.fmean(v) for k, v in by_group.items()}
        return sum((e - means[key(cells)]) ** 2 for cells, e in rows), len(by_group)
    errors = [e for _, e in rows]
    n = len(rows)
    total, _ = within_ss(lambda cells: None)
    in_problem, problems = within_ss(lambda cells: cells["@problem"])
    print(f"{len(rows)} rows: ln(predicted / measured) mean {100 * statistics.fmean(errors):+.1f} %, sd "
          f"{100 * statistics.pstdev(errors):.1f} %")
    print("grouping                 groups  share (chance)  sd within  share within @problem (chance)")
    for c in columns:
        ss, groups = within_ss(lambda cells: cells[c])
        share = 1 - ss / total if total > 0 else 0.0
        inner = "-"
        if c != "@problem":
            ss_both, both = within_ss(lambda cells: (cells["@problem"], cells[c]))
            inner = (f"{1 - ss_both / in_problem if in_problem > 0 else 0.0:.2f} "
                     f"({(both - problems) / max(1, n - problems):.2f})")
        print(f"{c:<24} {groups:6d}  {share:5.2f} ({(groups - 1) / max(1, n - 1):.2f})  {100 * math.sqrt(ss / n):6.1f} %"
              f"  {inner}")


def main(argv):
    by, where, files = [], [], []
    shares = []
    shift_us = 0.0
    round_cost = False  # False, "grid" or "tokens": what the rows of one configuration differ in
    i = 0
    while i < len(argv):
        if argv[i] in ("--round-cost", "--round-cost-tokens"):
            if round_cost:
                sys.exit(__doc__)
            round_cost = "tokens" if argv[i] == "--round-cost-tokens" else "grid"
            i += 1
            continue
        if argv[i] == "--shift-us" and i + 1 < len(argv):
            try:
                shift_us = float(argv[i + 1])
            except ValueError:
                shift_us = math.nan
            if not math.isfinite(shift_us):
                sys.exit(f"model_bias: --shift-us takes microseconds (a finite number), got {argv[i + 1]!r}")
            i += 2
            continue
        if argv[i] in ("--by", "--where", "--shares") and i + 1 < len(argv):
            if argv[i] == "--shares":
                shares += ["@problem"] + [c for c in argv[i + 1].split(",") if c != "@problem"]
            elif argv[i] == "--by":
                by += argv[i + 1].split(",")
            else:
                where.append(argv[i + 1].split("=", 1))
            i += 2
            continue
        files.append(argv[i])
        i += 1
    if len(files) < 2 or len(files) % 2 or [bool(by), bool(round_cost), bool(shares)].count(True) != 1 or any(
            len(w) != 2 for w in where) or (shift_us and round_cost):
        sys.exit(__doc__)
    unknown = [c for c in by + shares + [w[0] for w in where] if c.startswith("@") and c not in DERIVED]
    if unknown:
        sys.exit(f"model_bias: unknown derived grouping {unknown[0]!r} (derived: {', '.join(DERIVED)})")
    for path in files:
        if not os.path.isfile(path):
            sys.exit(f"model_bias: cannot read {path!r} (not a file)")
    groups, points = {}, {}
    for pair, (measurements, validation) in enumerate(zip(files[::2], files[1::2])):
        read_pair(measurements, validation, by or shares, where, round_cost, groups, points, pair,
                  log_error=bool(shares), shift_us=shift_us)
    if shares:
        rows = [(dict(zip(shares, key)), e) for key, errors in groups.items() for e in errors]
        if len(rows) < 2:
            sys.exit("model_bias: --shares needs at least two predicted rows")
        return print_shares(rows, shares)
    if round_cost:
        if not points:
            sys.exit("model_bias: no predicted row matches")
        return print_round_cost(points, by_tokens=round_cost == "tokens")
    if not groups:
        sys.exit("model_bias: no predicted row matches")
    width = max(len(" ".join(k)) for k in groups)
    print(f"{' '.join(by):<{width}}  rows    MAPE    bias")
    order = {"le16": 0, "below_sms": 1, "equal_sms": 2, "above_sms": 3,
             "lt1k": 0, "1k_4k": 1, "4k_16k": 2, "16k_64k": 3, "ge64k": 4}
    for key in sorted(groups, key=lambda k: [(0, int(x)) if x.isdigit() else (0, order[x]) if x in order else (1, x)
                                             for x in k]):
        e = groups[key]
        mape = 100 * sum(abs(x) for x in e) / len(e)
        bias = 100 * sum(e) / len(e)
        print(f"{' '.join(key):<{width}}  {len(e):4d}  {mape:5.1f} %  {bias:+5.1f} %")


def read_pair(measurements, validation, by, where, round_cost, groups, points, pair=0, log_error=False, shift_us=0.0):
    """The predicted rows of one measurement CSV and its validation CSV, into `groups` (or `points`, whose
    configuration keys end with `pair`, the pair's index, so that two files' configurations stay apart); each
    row's error predicted / measured - 1, or with log_error ln(predicted / measured); shift_us added to each
    prediction first."""
    with open(measurements, newline="") as f:
        reader = csv.DictReader(f)
        meas = {line: r for line, r in enumerate(reader, start=2)}  # header = line 1
        # A grouping or --where column the file lacks would put every row in one empty group: refused. Rows written
        # before kernel_variant existed read it as the reference.
        missing = [c for c in list(by) + [w[0] for w in where]
                   if c not in DERIVED and c != "kernel_variant" and c not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"model_bias: {measurements} has no column {missing[0]!r}")
    with open(validation, newline="") as f:
        for v in csv.DictReader(f):
            if v["status"] != "ok":
                continue
            m = meas.get(int(v["line"]))
            if m is None:
                sys.exit(f"model_bias: {validation} line {v['line']} is not a row of {measurements}")
            def cell(c, m=m):
                if c in DERIVED:
                    try:
                        return DERIVED[c](m)
                    except KeyError as e:
                        sys.exit(f"model_bias: {c} needs column {e.args[0]!r}, which {measurements} does not have")
                    except ValueError as e:
                        sys.exit(f"model_bias: {c}: {measurements} line {v['line']}: {e}")
                return m.get(c) or ("reference" if c == "kernel_variant" else "")
            if any(cell(c) != val for c, val in where):
                continue
            measured, predicted = float(v["kernel_us_median"]), float(v["predicted_us"]) + shift_us
            if round_cost:
                key = (int(m["grid"] if round_cost == "tokens" else m["tokens"]), int(m["hidden"]), int(m["tpb"]),
                       int(m["cluster"]),
                       int(m["vecs_per_thread"] or 1), m["nranks"], m["algo"], m["pattern"], m["dtype"], pair)
                by_r = points.setdefault((key, cell("kernel_variant")), {})
                by_r.setdefault(rounds_of(m), []).append((measured, predicted))
                continue
            error = math.log(predicted / measured) if log_error else predicted / measured - 1
            groups.setdefault(tuple(cell(c) for c in by), []).append(error)


if __name__ == "__main__":
    main(sys.argv[1:])
