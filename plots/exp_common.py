"""Shared helpers of the `arlab exp NAME` figures (plots/plot_tokens.py, plot_fusion.py, plot_crossover.py,
plot_config_space.py, plot_model_accuracy_exp.py, plot_speedup.py, plot_peers.py) and of plots/plot_seed.py.

They read the measurement CSV `arlab exp NAME` writes (schema: common/measurement_schema.h; one row per
measured configuration) by column name with the csv module, keep the rows whose `experiment` cell is
"NAME/KEY", and never recompute the model: predicted_us comes from the CSV. Every figure uses one
headline time per row (headline_us: plots/measurement_headline.py) with the 95 % CI of that median
(headline_ci), names its node from the topology / link / gpu / sm_per_rank / nranks columns (node_label),
puts the rows' commits and, where it shows predictions, the calibration label in its caption (caption),
draws its tokens axes with a tick at every measured token count (tokens_axis), a residual panel under
every predicted-vs-measured panel (residual_panel), and is written as PREFIX.png and PREFIX.pdf (save).
"""

import argparse
import csv
import math
import os
import re
import statistics
import sys

import matplotlib

# The headline rule (which time of a row is its headline), shared with scripts that need no matplotlib.
from measurement_headline import MAX_OVER_RANKS, SKEW_FREE, headline_figure, headline_us  # noqa: F401
# Rank correlation, shared with scripts that need no matplotlib (scripts/accuracy_table.py).
from rank_stats import spearman  # noqa: F401

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.text  # noqa: E402
from matplotlib import ticker  # noqa: E402

# Columns every experiment figure reads; scripts add their own. `implementation` and
# `allreduce_us_median` are optional (older CSVs lack them: implementation then follows from policy).
BASE_COLUMNS = ["experiment", "gpu", "topology", "link", "sm_per_rank", "nranks", "dtype", "pattern", "algo",
                "acc", "tokens", "hidden", "policy", "kernel_us_median", "skewfree_us_median", "check"]
BASELINES = ("nccl", "unfused")  # implementation (and policy cell) of the baseline rows
POLICY_ORDER = ["trtllm", "legacy", "occupancy", "model", "explicit"]
POLICY_COLORS = {"legacy": "tab:red", "trtllm": "tab:blue", "occupancy": "tab:green", "model": "tab:purple",
                 "explicit": "tab:gray"}
BASELINE_COLORS = {"nccl": "black", "unfused": "tab:brown"}
ALGO_COLORS = {"oneshot": "tab:blue", "twoshot": "tab:orange"}
ALGO_STYLES = {"oneshot": ("-", "o"), "twoshot": ("--", "s")}  # (line style, marker)
PATTERN_NAMES = {"ar_res_rms": "all-reduce + residual add + RMSNorm"}
TIME_LABEL = "time per call (µs, median)"
TOKENS_LABEL = "tokens per call"
# Extra facet columns: part of a facet's key (and title) only when they vary among the rows of one rank
# count (the emulated node's SMs per rank follow from N; TP2 measured on two nodes does not).
FACET_EXTRAS = ["topology", "link", "sm_per_rank", "dtype", "pattern", "acc"]
ALGO_NAMES = {"oneshot": "one-shot", "twoshot": "two-shot"}
MERGED_POLICIES = ("model",)  # fused policies that pick the algorithm themselves: one line over both algorithms
SAVE = {"formats": ("png", "pdf"), "dpi": 150.0}  # set by parse_args (--formats, --dpi)
# The 95 % CI columns of each headline figure (common/measurement_schema.h): the bounds of that median's CI.
HEADLINE_CI_COLUMNS = {SKEW_FREE: ("skewfree_us_ci_lo", "skewfree_us_ci_hi"),
                       MAX_OVER_RANKS: ("kernel_us_ci_lo", "kernel_us_ci_hi")}
HEADLINE_NAMES = {SKEW_FREE: "skew-free", MAX_OVER_RANKS: "max over ranks"}
# What the rows' predicted_us came from, when the caller does not say (--calibration-label): the
# measurement rows do not record the calibration file.
DEFAULT_CALIBRATION_LABEL = "predicted_us as stored in the CSV"
RESIDUAL_GUIDE_PCT = 10.0  # the residual panels' guides at +-10 %: the band the parity panels draw around identity
CAPTION_FONTSIZE = 7.5


# ---------------------------------------------------------------------------------------------- reading

def base_parser(doc, csv_help):
    """The options of every figure script: --csv PATH --out PREFIX [--formats] [--dpi]."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", required=True, help=csv_help)
    ap.add_argument("--out", required=True, help="output prefix: writes PREFIX.png and PREFIX.pdf")
    ap.add_argument("--formats", default="png,pdf",
                    help="comma-separated file formats to write (default: png,pdf; e.g. png for a README image)")
    ap.add_argument("--dpi", type=float, default=150.0, help="resolution of the PNG (default: 150)")
    return ap


def add_calibration_label(ap):
    """--calibration-label TEXT: which calibration produced the rows' predicted_us, printed in the figure's
    caption (the rows do not record it); --predictions FILE: the current model's predictions, which replace
    the stored ones. Only figures that show predictions take them."""
    ap.add_argument("--calibration-label", default=DEFAULT_CALIBRATION_LABEL, metavar="TEXT",
                    help="which calibration produced predicted_us, for the caption, e.g. "
                         "'data/calibration/h200_emulated.csv' (default: '%(default)s')")
    ap.add_argument("--predictions", metavar="FILE",
                    help="per-row predictions of the current model (`arlab validate CSV --out FILE`, or what "
                         "`arlab exp` writes beside the CSV): they replace the rows' stored predicted_us, joined "
                         "on the CSV line; say which calibration with --calibration-label")


def apply_predictions(rows, path, tool):
    """--predictions FILE (common/validation_schema.h): each row's predicted_us becomes the one of the
    row of FILE with the same CSV line (read_rows keeps it as _line); a row the model did not predict
    there gets none. Exits naming the file when it is not such a file."""
    if not path:
        return rows
    table = read_csv_rows(path)
    if not table or any(c not in table[0] for c in ("line", "predicted_us", "status")):
        sys.exit(f"{tool}: --predictions {path}: not a validation CSV of `arlab validate --out` "
                 "(columns line, predicted_us, status)")
    by_line = {}
    for t in table:
        try:
            by_line[int(t["line"])] = t
        except ValueError:
            sys.exit(f"{tool}: --predictions {path}: line '{t['line']}' is not a line number")
    used = 0
    for r in rows:
        t = by_line.get(r.get("_line"))
        ok = t is not None and t["status"] == "ok" and t["predicted_us"] != ""
        r["predicted_us"] = t["predicted_us"] if ok else "nan"
        used += 1 if ok else 0
    print(f"{tool}: predicted_us of {used} of {len(rows)} row(s) from {path} (the current model)")
    return rows


def finish_args(ap):
    """Parses the arguments and applies --formats / --dpi (SAVE)."""
    a = ap.parse_args()
    formats = tuple(f.strip().lower() for f in a.formats.split(",") if f.strip())
    bad = [f for f in formats if f not in ("png", "pdf", "svg")]
    if not formats or bad:
        ap.error(f"--formats {a.formats}: expected a comma-separated list of png, pdf, svg")
    if not a.dpi > 0:
        ap.error("--dpi must be positive")
    SAVE.update(formats=formats, dpi=a.dpi)
    return a


def parse_args(doc, experiment, extra=None, shows_predictions=False):
    """--csv PATH --out PREFIX [--experiment NAME] [--formats] [--dpi], and --calibration-label TEXT when the
    figure shows predictions; `extra(ap)` may add options."""
    ap = base_parser(doc, f"measurement CSV of `arlab exp {experiment}`")
    ap.add_argument("--experiment", default=experiment,
                    help=f"keep the rows whose experiment cell is NAME/KEY (default: {experiment})")
    if shows_predictions:
        add_calibration_label(ap)
    if extra:
        extra(ap)
    return finish_args(ap)


def num(row, col):
    """The cell as a float; NaN when the column is absent, the cell empty or not a number (a cell already
    parsed, e.g. nranks after read_rows, is taken as it is)."""
    v = row.get(col)
    if isinstance(v, (int, float)):
        return float(v)
    if v is None or not v.strip():
        return math.nan
    try:
        return float(v)
    except ValueError:
        return math.nan


def ival(row, col):
    """The cell as an int, or None."""
    v = num(row, col)
    return int(v) if finite(v) and v == int(v) else None


def finite(v):
    return v is not None and not math.isnan(v) and not math.isinf(v)


def implementation(row):
    """fused, unfused or nccl: the `implementation` cell, else (older CSVs) the baselines' policy cell."""
    impl = (row.get("implementation") or "").strip()
    if impl:
        return impl
    return row["policy"] if row["policy"] in BASELINES else "fused"


def is_fused(row):
    return implementation(row) == "fused"


def read_rows(path, experiment, tool, required=()):
    """Rows of experiment `experiment` (experiment cell "NAME/KEY") with a finite headline time that did
    not fail the correctness check; exits naming the file on a missing file, missing columns or no rows."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in BASE_COLUMNS + list(required) if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"{tool}: {path} lacks column(s) {', '.join(missing)} "
                         "(expected a measurement CSV of `arlab exp`, common/measurement_schema.h)")
            rows = []
            for r in reader:
                r["_line"] = reader.line_num  # its line in the file (header = 1), as `arlab validate` numbers it
                rows.append(r)
    except OSError as e:
        sys.exit(f"{tool}: cannot read {path}: {e.strerror or e}")
    mine = [r for r in rows if (r["experiment"] or "").startswith(experiment + "/")]
    if not mine:
        found = sorted({(r["experiment"] or "").split("/", 1)[0] for r in rows})
        sys.exit(f"{tool}: {path} has no rows of experiment '{experiment}' (experiment cell '{experiment}/KEY'); "
                 f"it has {len(rows)} row(s) of: {', '.join(found) or 'none'}")
    notes = []
    keyed = [r for r in mine if all(ival(r, c) is not None for c in ("nranks", "hidden", "tokens"))]
    if len(keyed) < len(mine):
        notes.append(f"{len(mine) - len(keyed)} row(s) without integer nranks/hidden/tokens")
    mine = keyed
    failed = [r for r in mine if r["check"] == "fail"]
    if failed:
        notes.append(f"{len(failed)} row(s) that failed the correctness check")
    untimed = [r for r in mine if r["check"] != "fail" and not finite(headline_us(r))]
    if untimed:
        notes.append(f"{len(untimed)} row(s) without a finite time")
    for n in notes:
        print(f"{tool}: note: dropped {n}", file=sys.stderr)
    kept = [r for r in mine if r["check"] != "fail" and finite(headline_us(r))]
    if not kept:
        sys.exit(f"{tool}: {path}: no usable rows of experiment '{experiment}'")
    fallback = sum(1 for r in kept if headline_figure(r) == MAX_OVER_RANKS)
    if fallback:
        print(f"{tool}: note: {fallback} of {len(kept)} row(s) have the max over ranks as their headline (no "
              "skew-free figure); their time is kernel_us_median")
    for r in kept:  # the integer keys, parsed once
        for c in ("nranks", "hidden", "tokens"):
            r[c] = ival(r, c)
    return kept


def case_key(row):
    """KEY of the experiment cell "NAME/KEY", e.g. "N=2 H=8192 T=128 bf16 ar_res_rms pairwise oneshot model"."""
    return row["experiment"].split("/", 1)[1]


_PROBLEM_RE = re.compile(r"(N=\d+ H=\d+ T=\d+ \S+ \S+ \S+) (\S+)")


def problem_key(row, with_algo=True):
    """The problem a row measured: its node and its case key without the suffix an experiment adds
    (" model", " explicit", " part 2"), so the groups of one problem compare with each other. Without
    the algorithm (with_algo=False) the problem is (node, N, H, T, dtype, pattern, acc): what the model
    policy, which picks the algorithm itself, solves -- its rows sit in the "... oneshot model" case
    whatever algorithm it picked."""
    key = case_key(row)
    m = _PROBLEM_RE.match(key)
    if m:
        key = m.group(0) if with_algo else m.group(1)
    elif not with_algo:
        key = f"N={row['nranks']} H={row['hidden']} T={row['tokens']} {row['dtype']} {row['pattern']} {row['acc']}"
    return (row["topology"], row["link"], row["gpu"], row["sm_per_rank"], key)


def read_csv_rows(path):
    """Every row of a CSV as a dict by column name, for files a figure reads beside its main input (the
    measurement CSV beside a summary); [] with a note on stderr when it cannot be read."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            return list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        print(f"note: cannot read {path}: {e}", file=sys.stderr)
        return []


def partition_sizes(measurement_csv, experiment):
    """{(topology, link, gpu, nranks): sm_per_rank} of the rows of `experiment` in a measurement CSV, for a
    summary CSV (which lacks the column) to name its node like the others (node_label); a node whose rows
    disagree, or a file without such rows, is left out (node_label then names no partition size)."""
    sizes = {}
    for r in read_csv_rows(measurement_csv):
        if (r.get("experiment") or "").startswith(experiment + "/") and ival(r, "nranks") is not None:
            key = (r.get("topology"), r.get("link"), r.get("gpu"), ival(r, "nranks"))
            sizes.setdefault(key, set()).add((r.get("sm_per_rank") or "").strip())
    return {k: v.pop() for k, v in sizes.items() if len(v) == 1 and next(iter(v))}


def with_partition_sizes(rows, sizes):
    """Sets each summary row's sm_per_rank from partition_sizes (empty where unknown)."""
    for r in rows:
        r["sm_per_rank"] = sizes.get((r.get("topology"), r.get("link"), r.get("gpu"), int(r["nranks"])), "")
    return rows


def summary_path(measurement_csv):
    """Where `arlab exp` writes the summary of measurement CSV X.csv: X_summary.csv beside it."""
    stem, ext = os.path.splitext(measurement_csv)
    return f"{stem}_summary{ext or '.csv'}"


def read_summary(path, experiment, tool, columns, schema, int_columns=()):
    """The rows of an experiment's summary CSV (`schema`: the header defining it, for messages); exits
    naming the file when it is missing, has no rows or lacks one of `columns`, or when a cell of
    `int_columns` is no integer (those cells come back as ints)."""
    if not os.path.exists(path):
        sys.exit(f"{tool}: no {experiment} summary {path} (arlab exp {experiment} writes it after its cases)")
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{tool}: {path} has no rows")
    missing = [c for c in columns if c not in rows[0]]
    if missing:
        sys.exit(f"{tool}: {path} lacks column(s) {', '.join(missing)} ({schema})")
    for r in rows:
        for c in int_columns:
            v = ival(r, c)
            if v is None:
                sys.exit(f"{tool}: {path}: a row has no integer {c} ({r.get(c)!r})")
            r[c] = v
    return rows


def geomean(values):
    """Geometric mean of the finite positive values (NaN when there are none)."""
    vals = [v for v in values if finite(v) and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else math.nan


# ----------------------------------------------------------------------------- confidence intervals

def headline_ci(row):
    """(lo, hi): the 95 % CI of the row's headline median in µs, from the CI columns of its headline figure
    (HEADLINE_CI_COLUMNS: skew-free where defined, else max over ranks); (NaN, NaN) when the file has no
    such columns (the 36-column generation) or the cells are empty or not an interval."""
    lo_col, hi_col = HEADLINE_CI_COLUMNS[headline_figure(row)]
    lo, hi = num(row, lo_col), num(row, hi_col)
    return (lo, hi) if finite(lo) and finite(hi) and 0 < lo <= hi else (math.nan, math.nan)


def point_ci(rows):
    """The 95 % CI of a point drawn from these rows: the row's own, or -- for a point that is the median of
    several rows (a case measured in parts, NCCL in both algorithms' cases) -- the span from the lowest
    lower bound to the highest upper bound; (NaN, NaN) unless every row has a CI."""
    cis = [headline_ci(r) for r in rows]
    if not cis or not all(finite(lo) for lo, _ in cis):
        return (math.nan, math.nan)
    return (min(lo for lo, _ in cis), max(hi for _, hi in cis))


def ci_caption(rows, what="error bars"):
    """One caption line on the rows' CIs: "error bars: 95 % CI of each median (skew-free, 298 of 298 rows;
    half-width median 0.4 %, max 3.1 % of the median)", or why there are none."""
    widths = []
    for r in rows:
        lo, hi = headline_ci(r)
        us = headline_us(r)
        if finite(lo) and finite(us) and us > 0:
            widths.append(50.0 * (hi - lo) / us)  # half the interval, percent of the median
    if not widths:
        return f"{what}: none (the rows have no 95 % CI columns of their headline figure)"
    figures = sorted({HEADLINE_NAMES[headline_figure(r)] for r in rows})
    return (f"{what}: 95 % CI of each median ({'/'.join(figures)}, {len(widths)} of {len(rows)} rows; "
            f"half-width median {statistics.median(widths):.1f} %, max {max(widths):.1f} % of the median)")


DRAWN_CI = {"points": 0}  # points drawn with a CI bar since the last save (printed by save)


def draw_ci(ax, xs, ys, cis, color, zorder=None, horizontal=False):
    """Error bars of 95 % CIs [(lo, hi)] at the points (x, y) -- vertical on y, or horizontal on x when
    horizontal -- in the points' colour; points without a finite CI get none. Returns the number drawn."""
    sel = [(x, y, lo, hi) for x, y, (lo, hi) in zip(xs, ys, cis)
           if finite(x) and finite(y) and finite(lo) and finite(hi)]
    if not sel:
        return 0
    at = [x if horizontal else y for x, y, _, _ in sel]
    err = [[max(0.0, v - lo) for v, (_, _, lo, _) in zip(at, sel)],
           [max(0.0, hi - v) for v, (_, _, _, hi) in zip(at, sel)]]
    bars = {"xerr" if horizontal else "yerr": err}
    ax.errorbar([x for x, _, _, _ in sel], [y for _, y, _, _ in sel], fmt="none", ecolor=color, elinewidth=0.9,
                capsize=2.0, capthick=0.9, zorder=zorder, **bars)
    DRAWN_CI["points"] += len(sel)
    return len(sel)


# ---------------------------------------------------------------------------------------------- caption

def short_sha(sha):
    """A git_sha cell shortened to 7 hex digits, its suffix kept ("903260b1a26d-dirty" -> "903260b-dirty")."""
    sha = (sha or "").strip()
    m = re.match(r"([0-9a-fA-F]{7})[0-9a-fA-F]*(.*)$", sha)
    return m.group(1) + m.group(2) if m else (sha or "unknown")


def commits_text(rows):
    """The rows' commits (git_sha, short, deduplicated): "commit 7d4709b", or with several, each with its row
    count, most rows first: "commits 7d4709b (280 rows), 6b8b2de-dirty (18 rows)"."""
    counts = {}
    for r in rows:
        sha = short_sha(r.get("git_sha"))
        counts[sha] = counts.get(sha, 0) + 1
    if len(counts) == 1:
        return f"commit {next(iter(counts))}"
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return "commits " + ", ".join(f"{sha} ({n} rows)" for sha, n in ordered)


def provenance_caption(rows, calibration_label=None):
    """The caption's first line: "data: <the CSV rows' commits>" and, for a figure that shows predictions
    (calibration_label given), "; predictions: <label>"."""
    text = f"data: {commits_text(rows)}"
    if calibration_label is not None:
        text += f"; predictions: {calibration_label}"
    return text


def caption(fig, lines, tool):
    """The caption: lines in small grey type under the axes, left-aligned (kept in the file by
    bbox_inches="tight"), and printed as "TOOL: caption: LINE" so a log says what the figure states."""
    lines = [l for l in lines if l]
    for line in lines:
        print(f"{tool}: caption: {line}")
    if lines:
        fig.text(0.01, 0.0, "\n".join(lines), ha="left", va="top", fontsize=CAPTION_FONTSIZE, color="0.3")


# --------------------------------------------------------------------------------------------- labels

def short_gpu(gpu):
    return re.sub(r"^NVIDIA\s+", "", gpu.strip()) or "GPU"


def node_label(rows):
    """The node(s) of the rows, named the same way in every figure, e.g. "emulated TP2 (1×H200, green-context
    partitions of 64 SMs)", "emulated TP2/TP4/TP8 (1×H200, green-context partitions of 64/32/16 SMs)" or
    "real TP2 (2×H200, NVLink)"; several nodes are joined with "; ". Reads topology, link, gpu, nranks and
    sm_per_rank; rows without sm_per_rank (the summary CSVs) name the partitions without their size."""
    nodes = {}
    for r in rows:
        key = (r.get("topology") or "", r.get("link") or "", short_gpu(r.get("gpu") or ""))
        sms = str(r.get("sm_per_rank") or "").strip()
        nodes.setdefault(key, {}).setdefault(int(r["nranks"]), set()).update({sms} if sms else set())
    parts = []
    for (topo, link, gpu), by_n in sorted(nodes.items(), key=lambda kv: (kv[0], min(kv[1]))):
        ns = sorted(by_n)
        tp = "/".join(f"TP{n}" for n in ns)
        link_name = "NVLink" if link == "nvlink" else link
        if topo == "emulated":
            parts.append(f"emulated {tp} (1×{gpu}, {partitions_text(by_n)})")
        elif topo in ("mpi", "p2p"):
            gpus = f"{ns[0]}×{gpu}" if len(ns) == 1 else f"one {gpu} per rank"
            parts.append(f"real {tp} ({gpus}, {link_name})")
        elif topo == "mpi-shared-gpu":
            parts.append(f"shared-GPU {tp} (1×{gpu}, one MPI process per rank)")
        else:
            parts.append(f"{topo} {tp} ({gpu}, {link_name})")
    return "; ".join(parts)


def partitions_text(sms_by_n):
    """"green-context partitions of 64/32/16 SMs" from {N: {SMs per rank}}, or without the size when some
    rank count's is unknown."""
    if not all(sms_by_n.values()):
        return "green-context partitions"
    sms = ["/".join(sorted(sms_by_n[n], key=lambda v: int(v) if v.isdigit() else 0)) for n in sorted(sms_by_n)]
    sms = list(dict.fromkeys(sms))  # one value when every N has the same partitions
    return f"green-context partitions of {'/'.join(sms)} SMs"


def short_node_label(row):
    """A row's node without the GPU and partitions, for panel titles: "emulated TP2", "real TP2 (NVLink)"."""
    n = int(row["nranks"])
    topo = row.get("topology") or ""
    if topo == "emulated":
        return f"emulated TP{n}"
    if topo in ("mpi", "p2p"):
        return f"real TP{n} ({'NVLink' if row.get('link') == 'nvlink' else row.get('link')})"
    return f"{topo} TP{n}"


def figure_title(experiment, what, rows):
    """The suptitle: "arlab exp NAME: WHAT, <pattern>, <dtype>" (those two when the rows have one of each)
    over the node (node_label)."""
    extra = []
    for col, names in (("pattern", PATTERN_NAMES), ("dtype", {})):
        vals = {r[col] for r in rows}
        if len(vals) == 1:
            v = vals.pop()
            extra.append(names.get(v, v))
    return f"arlab exp {experiment}: {', '.join([what] + extra)}\n{node_label(rows)}"


def algo_name(algo):
    """"one-shot" / "two-shot" (other values as they are)."""
    return ALGO_NAMES.get(algo, algo)


def baseline_label(impl, algo=""):
    """The legend name of a baseline: "unfused: arlab one-shot all-reduce + separate norm kernel",
    "nccl: ncclAllReduce + separate norm kernel"."""
    if impl == "unfused":
        return f"unfused: arlab {algo_name(algo) + ' ' if algo else ''}all-reduce + separate norm kernel"
    if impl == "nccl":
        return "nccl: ncclAllReduce + separate norm kernel"
    return f"{impl} {algo}".strip()


def series_key(row, fused_prefix=""):
    """Sort key and label of the line a row belongs to: fused "[fused_prefix]POLICY ALGO" -- one line
    "[fused_prefix]POLICY" over both algorithms for the policies that pick the algorithm themselves
    (MERGED_POLICIES: model) --, then the baselines (baseline_label; NCCL over both algorithms' cases)."""
    impl = implementation(row)
    if impl == "fused":
        pol = row["policy"]
        order = POLICY_ORDER.index(pol) if pol in POLICY_ORDER else len(POLICY_ORDER)
        if pol in MERGED_POLICIES:
            return (0, order, pol, ""), f"{fused_prefix}{pol}"
        return (0, order, pol, row["algo"]), f"{fused_prefix}{pol} {row['algo']}"
    if impl == "unfused":
        return (1, 0, impl, row["algo"]), baseline_label(impl, row["algo"])
    if impl == "nccl":
        return (2, 0, impl, ""), baseline_label(impl)
    pol = peer_policy(row)
    if pol:  # a peer's kernel at another rule's configuration (the seed's trtllm/flashinfer, legacy/flashinfer)
        order = POLICY_ORDER.index(pol) if pol in POLICY_ORDER else len(POLICY_ORDER)
        return (3, order, impl, pol, row["algo"]), f"{impl} at {pol} {row['algo']}"
    return (3, 0, impl, row["algo"]), baseline_label(impl, row["algo"])


def peer_policy(row):
    """The policy a peer's row ran at when it is not the peer's own rule (its `policy` cell names the
    peer: `flashinfer`), else ""; "" for arlab's own rows."""
    impl = implementation(row)
    pol = (row.get("policy") or "").strip()
    if impl in ("fused", "unfused", "nccl") or not pol or impl.startswith(pol):
        return ""
    return pol


def style(row):
    """matplotlib keyword arguments of a row's line: colour by policy (baselines: by implementation),
    line style and marker by algorithm (NCCL: dash-dot, triangles; a MERGED_POLICIES line: solid, its
    markers per point by algorithm, see draw_series)."""
    impl = implementation(row)
    ls, marker = ALGO_STYLES.get(row["algo"], ("-", "o"))
    if impl == "fused":
        color = POLICY_COLORS.get(row["policy"], "tab:olive")
        if row["policy"] in MERGED_POLICIES:
            ls = "-"
    elif peer_policy(row):  # a peer at another rule's configuration: that rule's colour, dotted, squares
        color, ls, marker = POLICY_COLORS.get(row["policy"], "tab:pink"), ":", "s"
    else:
        color = BASELINE_COLORS.get(impl, "tab:pink")
        if impl == "nccl":
            ls, marker = "-.", "^"
    return {"color": color, "linestyle": ls, "marker": marker}


def point_algo(algos):
    """The algorithm of a point measured by rows of these algorithms: the one, or "a+b" when mixed."""
    return "+".join(sorted(set(algos))) or "?"


def draw_series(ax, label, st, pts, lw=1.4, ms=4.0, ci=None, **kw):
    """One line of [(x, y, algo)] (non-finite y left out): its markers by the style, or -- when the points'
    algorithms differ (the model policy's own picks) -- per point by algorithm (ALGO_STYLES: o one-shot,
    s two-shot, D mixed), with legend entries "POLICY's pick: one-shot" / "two-shot" for them; ci
    ({x: (lo, hi)}, series_ci) adds the points' 95 % CI error bars. Returns the set of per-point
    algorithms drawn when they differ, else an empty set."""
    pts = [(x, y, a) for x, y, a in pts if finite(y)]
    if not pts:
        return set()
    xs, ys = [x for x, _, _ in pts], [y for _, y, _ in pts]
    if ci:
        draw_ci(ax, xs, ys, [ci.get(x, (math.nan, math.nan)) for x in xs], st.get("color"), zorder=kw.get("zorder"))
    algos = {a for _, _, a in pts}
    if len(algos) <= 1:
        ax.plot(xs, ys, label=label, lw=lw, ms=ms, **st, **kw)
        return set()
    line = {k: v for k, v in st.items() if k != "marker"}
    ax.plot(xs, ys, label=label, lw=lw, **line, **kw)
    name = label.split()[-1] if label else "policy"
    for algo in sorted(algos):
        sel = [(x, y) for x, y, a in pts if a == algo]
        marker = ALGO_STYLES.get(algo, ("-", "D"))[1]
        ax.plot([x for x, _ in sel], [y for _, y in sel], ls="none", marker=marker, ms=ms + 1.0,
                color=st.get("color"), markeredgecolor="black", markeredgewidth=0.5,
                label=f"{name}'s pick: {algo_name(algo)}", **kw)
    return algos


# --------------------------------------------------------------------------------------------- grouping

def median(values):
    vals = [v for v in values if finite(v)]
    return statistics.median(vals) if vals else math.nan


def facets(rows, base=("nranks", "hidden")):
    """[(title, rows)] per (nranks, hidden) and per value of the FACET_EXTRAS columns that vary at one N."""
    varying = [c for c in FACET_EXTRAS
               if any(len({r[c] for r in rows if r["nranks"] == n}) > 1 for n in {r["nranks"] for r in rows})]
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[c] for c in base) + tuple(r[c] for c in varying), []).append(r)
    out = []
    for key in sorted(groups):
        n, h = key[0], key[1]
        title = f"TP{n}, H = {h}" + "".join(f", {c} {v}" for c, v in zip(varying, key[len(base):]))
        out.append((title, groups[key]))
    return out


def series_rows(rows, fused_prefix=""):
    """[(label, style, {tokens: [rows]})] of the lines the rows belong to, ordered by series_key."""
    groups = {}
    for r in rows:
        key, label = series_key(r, fused_prefix)
        g = groups.setdefault((key, label), {"style": style(r), "pts": {}})
        g["pts"].setdefault(r["tokens"], []).append(r)
    return [(label, g["style"], g["pts"]) for (key, label), g in sorted(groups.items())]


def series(rows, fused_prefix=""):
    """{label: (style, [(tokens, median headline us, algo)])} of the rows, ordered by series_key; rows
    measured twice at one tokens value (a case split in parts, NCCL in both algorithms' cases) give their
    median; algo is the point's algorithm (point_algo: the model policy's line changes it per point)."""
    return {label: (st, sorted((t, median([headline_us(r) for r in rs]), point_algo(r["algo"] for r in rs))
                               for t, rs in pts.items()))
            for label, st, pts in series_rows(rows, fused_prefix)}


def series_ci(rows, fused_prefix=""):
    """{label: {tokens: (lo, hi)}}: the 95 % CI of every point of series() (point_ci)."""
    return {label: {t: point_ci(rs) for t, rs in pts.items()} for label, _, pts in series_rows(rows, fused_prefix)}


def first_faster(points):
    """Smallest x of [(x, a, b)] where b < a (both finite), or None."""
    for x, a, b in sorted(points):
        if finite(a) and finite(b) and b < a:
            return x
    return None


def mape_pct(predicted, measured):
    """Mean of |predicted / measured - 1| in percent over the finite pairs (NaN when none)."""
    errs = [abs(p / m - 1.0) for p, m in zip(predicted, measured) if finite(p) and finite(m) and m > 0]
    return 100.0 * statistics.fmean(errs) if errs else math.nan


def config_str(row):
    """The launch configuration as `arlab run --config` takes it: tpb/cluster/grid/vecs_per_thread."""
    return "/".join(row.get(c, "?") for c in ("tpb", "cluster", "grid", "vecs_per_thread"))


# --------------------------------------------------------------------------------------------- figures

def facet_figure(n, ncols=3, panel_rows=(1.0,), panel_w=5.0, panel_h=3.6):
    """A figure with n facets in a grid of at most ncols columns; each facet is a column of len(panel_rows)
    panels (heights in those ratios, the first panel_h inches, sharing x). Returns (fig, [[ax, ...] per facet])."""
    ncols = max(1, min(n, ncols))
    nrows = math.ceil(n / ncols)
    k = len(panel_rows)
    fig = plt.figure(figsize=(panel_w * ncols, panel_h * nrows * sum(panel_rows) / panel_rows[0]))
    gs = fig.add_gridspec(nrows * k, ncols, height_ratios=list(panel_rows) * nrows)
    out = []
    for i in range(n):
        r, c = divmod(i, ncols)
        axs = []
        for j in range(k):
            axs.append(fig.add_subplot(gs[r * k + j, c], sharex=axs[0] if axs else None))
        out.append(axs)
    return fig, out


MAX_TOKEN_LABELS = 7  # labelled ticks on a tokens axis: more crowd a 5-inch panel's 8-point labels


def tokens_axis(ax, tokens, label=True):
    """log2 x axis with a tick at every measured token count; the labels (integers) at most
    MAX_TOKEN_LABELS of them, evenly spread in log2 and always the first and the last (token_labels)."""
    ax.set_xscale("log", base=2)
    ts = sorted({t for t in tokens if t and t > 0})
    if ts:
        shown = token_labels(ts)
        ax.set_xticks(ts)
        ax.set_xticklabels([str(t) if t in shown else "" for t in ts], fontsize=8)
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    if label:
        ax.set_xlabel(TOKENS_LABEL)


def token_labels(ts, most=MAX_TOKEN_LABELS):
    """The token counts of sorted ts to label: all when there are at most `most`; else every k-th from the
    first, k the smallest step that keeps them at most `most` (1, 4, 16, ..., 4096 of the 13 powers of two
    up to 4096), plus the last when that step misses it -- dropping labels that would sit closer to the last
    than 0.6 of the even log2 spacing (where two labels would run into each other)."""
    n = len(ts)
    if n <= most:
        return set(ts)
    k = math.ceil((n - 1) / (most - 1))  # the densest step that labels at most `most` from the first
    if (n - 1) % k == 0:
        return set(ts[::k])
    shown = ts[::k]
    even = (math.log2(ts[-1]) - math.log2(ts[0])) / (most - 1)
    while len(shown) > 1 and math.log2(ts[-1]) - math.log2(shown[-1]) < 0.6 * even:
        shown = shown[:-1]
    return set(shown + [ts[-1]])


def plain_log_ticks(axis):
    """Ticks 1-2-5 per decade written as plain numbers (not 10^x) on a logarithmic axis or colorbar axis."""
    axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


def square_log_axes(ax, lo, hi):
    """Both axes logarithmic over [lo, hi] with plain 1-2-5 ticks and a grid: a predicted-vs-measured panel."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    for axis in (ax.xaxis, ax.yaxis):
        plain_log_ticks(axis)
    ax.grid(True, which="both", alpha=0.3)


def time_axis(ax, values, label=TIME_LABEL):
    """Time y axis: logarithmic (ticks 1-2-5, plain numbers) when the finite positive values span more
    than 10x, else linear."""
    vals = [v for v in values if finite(v) and v > 0]
    if vals and max(vals) / min(vals) > 10.0:
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
    ax.set_ylabel(label)
    ax.grid(True, which="both", alpha=0.3)


def residual_pct(predicted, measured):
    """(predicted - measured) / measured in percent; NaN unless both are finite and measured > 0."""
    if not (finite(predicted) and finite(measured)) or measured <= 0:
        return math.nan
    return 100.0 * (predicted - measured) / measured


def residual_ci(predicted, ci):
    """The residual's range over the measured 95 % CI (lo, hi): (predicted / hi - 1, predicted / lo - 1) in
    percent, (NaN, NaN) without a CI."""
    lo, hi = ci
    if not (finite(lo) and finite(hi) and finite(predicted)) or lo <= 0:
        return (math.nan, math.nan)
    return (residual_pct(predicted, hi), residual_pct(predicted, lo))


def residual_panel(ax, groups, xlabel, log_x=True):
    """The residual panel under a predicted-vs-measured panel: (predicted - measured) / measured in % against
    x (the measured time, or the x of the panel above), a line at 0 and guides at +-RESIDUAL_GUIDE_PCT.
    groups: [(label, plot style, [(x, measured, predicted, (ci_lo, ci_hi))])]; a point's bar is its
    residual's range over the measured 95 % CI (residual_ci). Returns every finite residual drawn."""
    drawn = []
    for label, st, pts in groups:
        sel = [(x, residual_pct(p, m), residual_ci(p, ci)) for x, m, p, ci in pts]
        sel = [(x, r, ci) for x, r, ci in sel if finite(x) and finite(r)]
        if not sel:
            continue
        draw_ci(ax, [x for x, _, _ in sel], [r for _, r, _ in sel], [ci for _, _, ci in sel], st.get("color"))
        ax.plot([x for x, _, _ in sel], [r for _, r, _ in sel], label=label, **st)
        drawn += [r for _, r, _ in sel]
    if not drawn:
        no_data(ax, "no rows with a prediction")
    ax.axhline(0.0, color="black", lw=0.8)
    for guide in (-RESIDUAL_GUIDE_PCT, RESIDUAL_GUIDE_PCT):
        ax.axhline(guide, color="0.4", lw=0.8, ls="--")
    lo, hi = ax.get_ylim()
    ax.set_ylim(min(lo, -1.5 * RESIDUAL_GUIDE_PCT), max(hi, 1.5 * RESIDUAL_GUIDE_PCT))  # the guides always show
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel("residual (%)", fontsize=8)  # short: a taller label would push the panels apart
    ax.tick_params(labelsize=7)
    ax.grid(True, which="both", alpha=0.3)
    return drawn


RESIDUAL_SHARE = 0.3  # of the height of a parity panel and its residual panel together, the residual's
RESIDUAL_GAP_IN = 0.08  # inches between the two: the residual panel's tick labels are the parity panel's x labels


def close_residual_gaps(fig, pairs, share=RESIDUAL_SHARE):
    """For a figure drawn with the constrained layout: runs it once, freezes it and moves each residual
    panel of [(parity ax, residual ax)] up under its parity panel, the residual taking `share` of their
    height. (The layout pads a row that another panel spans as much as the tallest labels of the figure's
    rows, which leaves a wide gap between the two.)"""
    fig.canvas.draw()
    if hasattr(fig, "set_layout_engine"):  # matplotlib >= 3.6
        fig.set_layout_engine("none")
    else:
        fig.set_constrained_layout(False)
    gap = RESIDUAL_GAP_IN / fig.get_figheight()
    for ax, ax_res in pairs:
        top, bottom = ax.get_position(), ax_res.get_position()
        span = top.y1 - bottom.y0 - gap
        ax_res.set_position([bottom.x0, bottom.y0, bottom.width, share * span])
        ax.set_position([top.x0, bottom.y0 + share * span + gap, top.width, (1.0 - share) * span])


RESIDUAL_CAPTION = (f"residual = (predicted − measured) / measured; dashed: ±{RESIDUAL_GUIDE_PCT:g} %; "
                    "its bars: the residual over the measured 95 % CI")


def residual_text(residuals):
    """"median +1.2 %, within ±10 %: 230 of 298" of a list of residuals in percent."""
    vals = [r for r in residuals if finite(r)]
    if not vals:
        return "no rows with a prediction"
    inside = sum(abs(r) <= RESIDUAL_GUIDE_PCT for r in vals)
    return (f"median {statistics.median(vals):+.1f} %, within ±{RESIDUAL_GUIDE_PCT:g} %: {inside} of {len(vals)}")


def mark_x(ax, x, text, xs):
    """A dotted vertical line at x with text beside it at the top of the axes: right of the line, or left
    of it when x lies in the right half of xs (log scale), so that it stays inside the axes."""
    ax.axvline(x, color="black", ls=":", lw=1.2)
    if not text:
        return
    lo, hi = min(xs), max(xs)
    right_half = hi > lo and math.log(x / lo) / math.log(hi / lo) > 0.5
    ax.annotate(text, xy=(x, 0.97), xycoords=ax.get_xaxis_transform(), xytext=(-4 if right_half else 4, 0),
                textcoords="offset points", ha="right" if right_half else "left", va="top", fontsize=7,
                bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1.5})


def no_data(ax, what="no data"):
    ax.text(0.5, 0.5, what, transform=ax.transAxes, ha="center", va="center", color="gray")


def tight_below_title(fig, top_in=0.08):
    """tight_layout below the suptitle (figure_title), which is first moved to top_in inches under the top
    edge: tight_layout reserves the title's height at the very top, but the default place (y = 0.98 of
    the figure) lies lower on a tall figure, and the first row's panel titles then run into it."""
    title = fig._suptitle  # noqa: SLF001 -- the Figure's suptitle Text, None without one
    if title is not None:
        title.set_y(1.0 - top_in / fig.get_figheight())
        title.set_verticalalignment("top")
    fig.tight_layout()


def shared_legend(fig, axes):
    """One legend for the figure, right of the axes (so it covers no data), entries deduplicated by label."""
    seen = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if not lab.startswith("_"):
                seen.setdefault(lab, h)
    if seen:
        fig.legend(list(seen.values()), list(seen.keys()), loc="center left", bbox_to_anchor=(1.0, 0.5),
                   fontsize=8, frameon=False)


def save(fig, prefix, tool):
    """PREFIX.png and PREFIX.pdf (--formats, --dpi of parse_args), the bounding box grown to the legend
    outside the axes. Prints the figure's title (its node: node_label), the number of points drawn with a
    95 % CI error bar, and a note for any text of the figure that writes microseconds as "us"."""
    d = os.path.dirname(prefix)
    if d:
        os.makedirs(d, exist_ok=True)
    title = fig._suptitle  # noqa: SLF001 -- the Figure's suptitle Text, None without one
    if title is not None:
        for line in title.get_text().splitlines():
            print(f"{tool}: title: {line}")
    print(f"{tool}: 95 % CI error bars drawn at {DRAWN_CI['points']} point(s)")
    for text in unit_slips(fig):
        print(f"{tool}: note: figure text writes microseconds as 'us' (µs expected): {text!r}", file=sys.stderr)
    for ext in SAVE["formats"]:
        fig.savefig(f"{prefix}.{ext}", dpi=SAVE["dpi"], bbox_inches="tight")
    plt.close(fig)
    DRAWN_CI["points"] = 0  # the next figure of the script counts its own
    print(f"{tool}: wrote " + " and ".join(f"{prefix}.{ext}" for ext in SAVE["formats"]))


_US_WORD = re.compile(r"(?<![\w_])us(?![\w_])")  # "us" as a word, not inside "_us" column names


def unit_slips(fig):
    """The texts of the figure (titles, labels, legends, annotations, caption) that write "us" for µs."""
    texts = {t.get_text() for t in fig.findobj(matplotlib.text.Text)}
    return sorted(t for t in texts if _US_WORD.search(t))


# ------------------------------------------------------------------------------------------------ text

def fmt(v, digits=2):
    """A number for the tables: '-' when missing or not finite."""
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}" if finite(v) else "-"
    return str(v)


def print_table(title, headers, rows):
    """A plain aligned text table on stdout: the first column left-aligned, the others right-aligned."""
    cells = [[fmt(c) if not isinstance(c, str) else c for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(cols):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cols, widths)))

    print(f"\n{title}")
    print(line(headers))
    for r in cells:
        print(line(r))
