#!/usr/bin/env python3
"""The numbers quoted in the docs, checked against the commands that print them (CPU, committed data).

Every entry of CHECKS names a documentation file, a command run in the source directory (the built
`arlab` binary, a script of scripts/ or plots/, ...) and what the file must quote from its output:
either (regex, template) pairs -- the regex is searched in the output and the template, filled with
its groups ({1}, {2}, ...), must appear in the file -- or a function of the output that returns the
strings the file must contain. Whitespace is normalised on both sides (the docs wrap lines), so a
quote may span a line break. Each command runs once; a failure names the file, the command, what it
printed and what the file should say.

Structural checks too: the README's length and opening (the intro, then the two commands),
calibrate/README.md names exactly the constants of model/calibration.h, every docs/ page the code
cites exists, every relative link of the docs resolves, and every section cited by name
(`docs/model.md, "The drain"`) is a heading or bold lead of its page.

Entries whose command needs matplotlib (the plots/ scripts) are skipped, and listed as skipped, when
scripts/find-python.sh finds no python3 that imports it.

Usage: doc_numbers.py ARLAB SOURCE_DIR
"""
import collections
import glob
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

ARLAB = SRC = TMP = MPL_PY = None
PY = sys.executable
COMMAND_TIMEOUT_S = 120


def norm(text):
    return re.sub(r"\s+", " ", text).strip()


# ---- helpers for derived quotes ---------------------------------------------------------------------

def table_cells(out):
    """Rows of a Markdown table printed by a command, as lists of stripped cells."""
    rows = []
    for line in out.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def repeatability_rows(out):
    """{(node, H, tokens, policy): (config, 'median (min - max)', spread %, max-over-ranks spread %)}"""
    rows = {}
    for c in table_cells(out):
        if len(c) >= 12 and c[1].isdigit():
            rows[(c[0], c[1], c[2], c[3])] = (c[4], c[6], float(c[7].rstrip(" %")), float(c[9].rstrip(" %")))
    return rows


def repeatability_ratio_ranges(out):
    """{(topology, H, tokens): (range text, largest CI half-width text)}"""
    got = {}
    for m in re.finditer(r"^\s+(\w+) H (\d+) tokens (\d+): legacy/trtllm = ([\d.]+ - [\d.]+) \(K \d+; CI half-width <= "
                         r"([\d.]+) %\)", out, re.M):
        got[(m.group(1), m.group(2), m.group(3))] = (m.group(4), m.group(5))
    return got


def seed_table_rows(out):
    """The seed table of docs/seed.md and docs/results.md, one string per row (128 tokens)."""
    rows, ratios = repeatability_rows(out), repeatability_ratio_ranges(out)
    want = []
    for node, topo, label in (("real TP2 (nvlink)", "mpi", "real TP2, 2 x H200 over NVLink (`mpirun -np 2`)"),
                              ("emulated TP2", "emulated", "emulated TP2, two 64-SM partitions of one H200")):
        for h in ("8192", "4096"):
            lg, tr = rows[(node, h, "128", "legacy")], rows[(node, h, "128", "trtllm")]
            r = ratios[(topo, h, "128")]
            want.append(f"| {label} | {h} | {lg[1]} us, {lg[0]} | {tr[1]} us, {tr[0]} | {r[0]} (CI half-width <= {r[1]} %) |")
    return want


def median_of(cell):
    return cell.split(" (")[0]


def readme_seed(out):
    rows, ratios = repeatability_rows(out), repeatability_ratio_ranges(out)
    want = []
    for h in ("8192", "4096"):
        lg, tr = rows[("real TP2 (nvlink)", h, "128", "legacy")], rows[("real TP2 (nvlink)", h, "128", "trtllm")]
        want.append(f"| seed, 128 tokens, H {h}: legacy / trtllm (median of 5 processes) | real TP2 | "
                    f"{median_of(lg[1])} / {median_of(tr[1])} us, in-process ratio {ratios[('mpi', h, '128')][0]} |")
    return want


def repeatability_spreads(out):
    rows = repeatability_rows(out)

    def worst(node, one_token, col):
        return max(v[col] for k, v in rows.items() if k[0] == node and (k[2] == "1") == one_token)
    emu, real = "emulated TP2", "real TP2 (nvlink)"
    return [f"within {worst(emu, True, 2):.1f} % at 1 token and {worst(emu, False, 2):.1f} % at 16 tokens and above on "
            f"the emulated node, within {worst(real, True, 2):.1f} % and {worst(real, False, 2):.1f} % on the real node",
            f"spreads up to {max(worst(real, True, 3), max(v[3] for k, v in rows.items() if k[0] == real and k[2] == '16')):.1f} % "
            "at 1 and 16 tokens"]


def printed_lines(out, keep=lambda line: True):
    return [line.strip() for line in out.splitlines() if line.strip() and keep(line)]


def seed_terms(out):
    """docs/seed.md: the real-node H 8192 block of `arlab seed --mode predict` (push lines left out) and
    the figures the text takes from it."""
    start = out.index("  seed, real TP2 (2 x H200, NVLink), H 8192")
    block = out[start:].split("\n\n")[0]
    lines = [l.strip() for l in block.splitlines() if not re.match(r"\s+(legacy|trtllm) push:", l)]
    m = re.search(r"legacy \S+ vpt=1 oneshot ([\d.]+) us vs trtllm \S+ vpt=1 oneshot ([\d.]+) us", block)
    total = float(m.group(1)) - float(m.group(2))
    red = re.search(r"^\s*reduce\s+[\d.]+ us\s+[\d.]+ us\s+(\+[\d.]+ us)", block, re.M).group(1)
    # (the real node keeps every push step at one cost: its calibration has no few-block push rows)
    push = re.search(r"legacy push: .*?link ([\d.]+) us.*?chain: (\d+) tokens/cluster x 1 vector\(s\) of push steps, "
                     r"the first (\d+) ns, the later ones \3 ns.*?link: 1 x (\d+) B / (\d+) B/ns", block)
    lr = re.search(r"legacy reduce: .*?= (\d+) ns; (\d+) round", block)
    tr = re.search(r"trtllm reduce: .*?= (\d+) ns; (\d+) round", block)
    rounds = int(lr.group(2))
    return lines + [
        f"link {push.group(1)} us ({push.group(4)} B at {push.group(5)} B/ns)",
        f"({push.group(2)} tokens per cluster, one {push.group(3)} ns push step each",
        f"`reduce` {red} of the {total:.2f} us ({m.group(1)} - {m.group(2)}) between the two totals",
        f"legacy's clusters do {rounds} token rounds one after the other, each {lr.group(1)} ns",
        f"one round each, {tr.group(1)} ns",
        f"removed {rounds - int(tr.group(2))} serial token rounds per cluster",
    ]


def line_matching(pattern):
    return lambda out: [re.search(pattern, out, re.M).group(0).strip()]


def fusion_quotes(out):
    rows = [l.split() for l in out.splitlines() if l[:1].isdigit() and len(l.split()) == 12]
    if len(rows) != 78:
        raise AssertionError(f"expected the 78 problems of the fusion table, found {len(rows)}")
    want = []
    for key in (("2", "8192", "1"), ("2", "8192", "128"), ("2", "8192", "4096"), ("2", "4096", "128"),
                ("4", "8192", "128"), ("8", "8192", "128")):
        r = next(r for r in rows if tuple(r[:3]) == key)
        want.append("| " + " | ".join(r[:6] + [r[8], r[9], r[10] + "x", r[11] + "x"]) + " |")
    t = [float(r[10]) for r in rows]
    m = [float(r[11]) for r in rows]
    want.append(f"unfused / fused trtllm is {min(t):.2f}-{max(t):.2f}x")
    want.append(f"unfused / the model's pick {min(m):.2f}-{max(m):.2f}x")
    if min(t) < 1.0:
        raise AssertionError("a fused kernel is slower than the unfused baseline: the text says it never is")
    if max(float(r[4]) / float(r[3]) - 1 for r in rows if r[0] == "2") > 0:
        raise AssertionError("at TP2 the model's pick is slower than trtllm somewhere: the text says it never is")
    slow = [(float(r[4]) / float(r[3]) - 1, r) for r in rows if r[0] != "2" and float(r[4]) / float(r[3]) - 1 > 0.03]
    worst = max(slow)
    wr = worst[1]
    tokens = sorted(int(r[2]) for _, r in slow)
    want.append(f"more than 3 % slower at {len(slow)} of {sum(1 for r in rows if r[0] != '2')} problems, at "
                f"{tokens[0]}-{tokens[-1]} tokens, up to {100 * worst[0]:.0f} % (TP{wr[0]}, H {wr[1]}, {wr[2]} tokens: "
                f"{wr[4]} against {wr[3]} us)")
    return want


def crossover_rows(out):
    return [f"| emulated {m.group(1)} | {m.group(2)} | {m.group(3)} |"
            for m in re.finditer(r"two-shot crossover: (TP\d), H = (\d+): two-shot faster from T=(\d+)", out)]


def first_value(out):
    return out.split(" (")[0].strip()


def bias_groups(out):
    """scripts/model_bias.py output -> (group key words, rows, MAPE, bias) per printed group."""
    groups = []
    for line in out.splitlines()[1:]:
        c = line.split()  # KEY... ROWS MAPE % BIAS %
        groups.append((c[:-5], c[-5], c[-4], c[-2]))
    return groups


def model_bias_rows(node_label_col):
    def derive(out):
        return [f"{rows} rows, MAPE {mape} %, bias {bias} %" for _, rows, mape, bias in bias_groups(out)]
    return derive


def bias_groups_all(out):
    """Several scripts/model_bias.py outputs in a row -> their groups, each output's header line skipped."""
    return [g for part in re.split(r"^(?=\S.*\brows\s+MAPE\s+bias\s*$)", out, flags=re.M) if part.strip()
            for g in bias_groups(part)]


def candidate_lift_ranges(out):
    """The candidate_lift rows (two CSVs concatenated by `cat`, headers included) -> the uncapped pick's time
    over the capped one's (the group's last member over its first, skew-free medians), min-max per problem:
    'a-bx / c-dx / e-fx' for TP2 H 8192 / 12288 / 16384 and 'a-bx / c-dx' for TP4 H 4096 / 8192."""
    lines = [l for l in out.splitlines() if l.strip()]
    header = lines[0].split(",")
    groups = {}
    for line in lines:
        if line.startswith("experiment,"):
            continue
        r = dict(zip(header, line.split(",")))
        groups.setdefault(r["group_id"], []).append(r)
    ratios = {}
    for rows in groups.values():
        first, last = rows[0], rows[-1]
        if last["policy"] != "explicit":
            continue
        ratios.setdefault((first["nranks"], first["hidden"]), []).append(
            float(last["skewfree_us_median"]) / float(first["skewfree_us_median"]))
    fmt_range = lambda v: f"{min(v):.3f}-{max(v):.3f}x"
    return [" / ".join(fmt_range(ratios[("2", h)]) for h in ("8192", "12288", "16384")),
            " / ".join(fmt_range(ratios[("4", h)]) for h in ("4096", "8192"))]


def bias_of_group(out, key):
    """scripts/model_bias.py output -> the bias cell of the group `key` (its key words)."""
    return next(b for k, _, _, b in bias_groups(out) if k == key)


def bias_by_tokens_row(out, body, tokens):
    """scripts/model_bias.py --by kernel_variant,tokens output -> '| BODY | b1 % | b2 % | ... |' over `tokens`."""
    bias_of = {tuple(key): b for key, _, _, b in bias_groups(out)}
    return "| " + body + " | " + " | ".join(bias_of[(body, t)] + " %" for t in tokens) + " |"


def exchange_grid_rows(out):
    """The exchange all_to_all_grid microbench rows -> '| BLOCKS | us at 128 | 512 | 1024 threads |'."""
    import csv as _csv
    by = {}
    for r in _csv.DictReader(out.splitlines()):
        if r["bench"] == "exchange" and r["variant"] == "all_to_all_grid":
            by[(int(r["sms"]), int(r["tpb"]))] = float(r["value"])
    return [f"| {b} | " + " | ".join(f"{by[(b, t)]:.3f}" for t in (128, 512, 1024)) + " |"
            for b in sorted({b for b, _ in by})]


def bias_table_rows(out):
    """scripts/model_bias.py --by COL,@grid output -> markdown rows '| COL | GROUP | rows | MAPE | bias |'."""
    return [f"| {' | '.join(key)} | {rows} | {mape} % | {bias} % |" for key, rows, mape, bias in bias_groups(out)]


def bias_mape_cells(out):
    """scripts/model_bias.py output -> 'BIAS % / MAPE %' per printed group (a column of a table by node)."""
    return [f"{bias} % / {mape} %" for _, _, mape, bias in bias_groups(out)]


def validate_cells(out):
    m = re.search(r"MAPE ([\d.]+ %)   median", out).group(1)
    mx = re.search(r"max-over-ranks median \(\d+ rows\): MAPE ([\d.]+ %)", out).group(1)
    sp = re.search(r"Spearman rho: all rows ([\d.]+); per problem \((\d+) problems.*?mean ([\d.]+)", out)
    return [f"| {m} | {mx} | {sp.group(1)} / {sp.group(3)} ({sp.group(2)} problems) |"]


def soak_calls(out):
    """'1000000 (2 rows)' -> '2 x 10^6 calls' (the README's form)."""
    value, rows = re.match(r"(\d+) \((\d+) rows?\)", out.strip()).groups()
    total = int(value) * int(rows)
    exp = int(math.floor(math.log10(total)))
    if total % 10 ** exp:
        raise AssertionError(f"soak calls {total} are no longer a multiple of 10^{exp}: rewrite the README's figure")
    mantissa = total // 10 ** exp
    return [f"{mantissa} x 10^{exp} calls" if mantissa != 1 else f"10^{exp} calls"]


def timer_steps(out):
    steps = sorted({int(s) for s in re.findall(r"(\d+)x\d+", out)})
    return ["steps of " + " and ".join(str(s) for s in steps) + " ns"]


def speedup_geomeans(out):
    by_file = dict(re.findall(r"speedup_emulated(\w*)_summary\.csv: lean, \d+ problems: geomean speedup ([\d.]+x)", out))
    order = ["", "_p2", "_p3", "_p4", "_p5"]
    return [", ".join(by_file[k] for k in order) + " (5 processes)"]


# ---- the checks -------------------------------------------------------------------------------------------
# cmd: a list (placeholders {arlab} {py} {mpl} {tmp}) or a string run by bash; "mpl": needs matplotlib.
VAL_NV = ["{arlab}", "validate", "data/h200/model_grid_nvlink.csv", "--calibration", "data/calibration/h200_nvlink.csv"]
VAL_EM = ["{arlab}", "validate", "data/h200/model_grid_emulated.csv", "--calibration", "data/calibration/h200_emulated.csv"]
VAL_MA = ["{arlab}", "validate", "data/h200/exp/model-accuracy_emulated.csv", "--calibration",
          "data/calibration/h200_emulated.csv"]
PEERS = ["{arlab}", "exp", "peers", "--merge", "data/h200/exp/peers_emulated.csv", "--out-dir", "{tmp}/peers_merge",
         "--no-plots"]
PEERS_TP2_RERUN = ["{arlab}", "exp", "peers", "--merge", "data/h200/exp/peers_emulated_tp2_rerun.csv", "--out-dir",
                   "{tmp}/peers_merge_rerun", "--no-plots"]
REP = ["{py}", "plots/repeatability_table.py", "data/h200/repeatability.csv", "data/h200/repeatability_ratios.csv", "--goal"]
SEED = ["{arlab}", "seed", "--mode", "predict", "--out-dir", "{tmp}/seed"]
SEED_EXP = ["{arlab}", "seed", "--mode", "predict", "--data", "data/h200/exp/seed_emulated.csv", "--ratios", "",
            "--out-dir", "{tmp}/seed_exp"]
PICK_NV = ["{py}", "scripts/model_pick_regret.py", "{arlab}", "data/calibration/h200_nvlink.csv",
           "data/h200/model_grid_nvlink.csv", "data/h200/model_picks_nvlink.csv"]
PICK_EM = ["{py}", "scripts/model_pick_regret.py", "{arlab}", "data/calibration/h200_emulated.csv", "--emulated",
           "data/h200/model_grid_emulated.csv", "data/h200/model_picks_emulated.csv"]
PICK_LEAN = ["{py}", "scripts/model_pick_regret.py", "{arlab}", "data/calibration/h200_emulated.csv", "--emulated",
             "--kernel", "lean", "data/h200/exp/lean_configs_final_emulated.csv"]
SPEEDUP = "{py} scripts/kernel_speedup.py summary data/h200/exp/speedup_emulated*_summary.csv"
SPEEDUP_WIDE2 = ["{arlab}", "exp", "speedup", "--merge", "data/h200/exp/speedup_emulated_wide2.csv", "--out-dir",
                 "{tmp}/speedup_merge", "--no-plots"]
SPEEDUP_WIDE3 = ["{arlab}", "exp", "speedup", "--merge", "data/h200/exp/speedup_emulated_wide3.csv", "--out-dir",
                 "{tmp}/speedup_merge3", "--no-plots"]
SPEEDUP_WIDE4 = ["{arlab}", "exp", "speedup", "--merge", "data/h200/exp/speedup_emulated_wide4.csv", "--out-dir",
                 "{tmp}/speedup_merge4", "--no-plots"]
VAL_LAT = ["{arlab}", "validate", "data/h200/model_grid_latency_emulated.csv"]
VAL_G6 = ["{arlab}", "validate", "data/h200/exp/model-accuracy_emulated_grid6.csv", "--calibration",
          "data/calibration/h200_emulated.csv"]
VAL_G6_TP4 = ["{arlab}", "validate", "data/h200/exp/model-accuracy_emulated_grid6_tp4.csv", "--calibration",
              "data/calibration/h200_emulated.csv"]
def validate_of(name):
    """`arlab validate data/h200/exp/NAME.csv` with the committed emulated calibration."""
    return ["{arlab}", "validate", f"data/h200/exp/{name}.csv", "--calibration", "data/calibration/h200_emulated.csv"]


VAL_LAT_PROLOGUE = ["{arlab}", "validate", "data/h200/model_grid_latency_prologue_emulated.csv"]
VAL_LAT_MBARRIER = ["{arlab}", "validate", "data/h200/model_grid_latency_mbarrier_emulated.csv"]
VAL_W12, VAL_W13 = validate_of("speedup_emulated_wide12"), validate_of("speedup_emulated_wide13")
VAL_R9, VAL_R10 = validate_of("peers_emulated_tp2_rerun9"), validate_of("peers_emulated_tp2_rerun10")
VAL_G7 = ["{arlab}", "validate", "data/h200/exp/model-accuracy_emulated_grid7.csv", "--calibration",
          "data/calibration/h200_emulated.csv"]
VAL_G7_TP4 = ["{arlab}", "validate", "data/h200/exp/model-accuracy_emulated_grid7_tp4.csv", "--calibration",
              "data/calibration/h200_emulated.csv"]
VAL_G8, VAL_G8_TP4 = validate_of("model-accuracy_emulated_grid8"), validate_of("model-accuracy_emulated_grid8_tp4")
VAL_G9, VAL_G9_TP4 = validate_of("model-accuracy_emulated_grid9"), validate_of("model-accuracy_emulated_grid9_tp4")
VAL_G10 = validate_of("model-accuracy_emulated_grid10_partial")
VAL_G11 = validate_of("model-accuracy_emulated_grid11")
VAL_G11_TP4 = validate_of("model-accuracy_emulated_grid11_tp4")
VAL_G24 = {n: validate_of("model-accuracy_emulated_grid24" + suffix) for n, suffix in
           (("TP2", ""), ("TP4", "_tp4"), ("TP8", "_tp8"))}
VAL_G25 = {n: validate_of("model-accuracy_emulated_grid25" + suffix) for n, suffix in
           (("TP2", ""), ("TP4", "_tp4"), ("TP8", "_tp8"))}
# The MAPE before the NVFP4 constant and with it shared over the SMs (docs/model.md, "The NVFP4 round's
# further vectors"): fixed figures of models that are not today's.
G24_BEFORE = {"TP2": "7.52 % | 7.30 %", "TP4": "7.71 % | 7.43 %", "TP8": "8.30 % | 7.98 %"}
BIAS_TP8_PEERS = ("{arlab} validate data/h200/exp/peers_emulated_tp8_rerun.csv --calibration data/calibration/h200_emulated.csv "
                  "--out {tmp}/v_tp8_peers.csv > /dev/null && {py} scripts/model_bias.py data/h200/exp/peers_emulated_tp8_rerun.csv "
                  "{tmp}/v_tp8_peers.csv --by kernel_variant,algo,cluster --where pattern=ar_res_rms")
OWN_PICK_SIGNED = r"model \(its own pick, measured\) +\d+ +\d+ +\d+ +\d+ +(-?[\d.]+)% +-?[\d.]+% +(-?[\d.]+)%"
OWN_PICK = r"model \(its own pick, measured\) +\d+ +\d+ +\d+ +\d+ +([\d.]+)% +[\d.]+% +([\d.]+)%"


def peers_tp2_quotes(count, after_reference):
    """The TP2 VS-FLASHINFER lines as results.md quotes them: "FlashInfer G (min M), COUNT" and "the reference at
    trtllm G" followed by `after_reference`."""
    return [(r"^VS-FLASHINFER local N=2 model/auto\s+geomean ([\d.]+x) over 72 problems \(min ([\d.]+x)",
             "FlashInfer {1} (min {2}), " + count),
            (r"^VS-FLASHINFER local N=2 trtllm\s+geomean ([\d.]+x) over 72", "the reference at trtllm {1}" + after_reference)]


def peers_node_quotes(n, before_best, before_reference, skew_template):
    """The VS-FLASHINFER lines of N ranks as results.md quotes them: "BEFORE_BEST G over P problems (min M",
    "BEFORE_REFERENCE G" and the best's median start skews (arlab's {1}, FlashInfer's {2})."""
    best = rf"^VS-FLASHINFER local N={n} model/auto"
    return [(best + r"\s+geomean ([\d.]+x) over (\d+) problems \(min ([\d.]+x)",
             before_best + " {1} over {2} problems (min {3}"),
            (rf"^VS-FLASHINFER local N={n} trtllm" + r"\s+geomean ([\d.]+x)", before_reference + " {1}"),
            (best + r".*median start skew ([\d.]+) us, FlashInfer's ([\d.]+) us", skew_template)]


def speedup_goal_quotes(tp4_min):
    """The GOAL lines of `arlab exp speedup --nranks 2 4 8` as results.md quotes them: "at trtllm A / B / C (min a /
    b / c), over FlashInfer F (min f) / ..." (b, the TP4 minimum, where `tp4_min`)."""
    ref = r"TP{}: over the reference at trtllm geomean ([\d.]+x), min ([\d.]+x)"
    quotes = [(ref.format(2), "at trtllm {1} / "), (ref.format(2), "(min {2} / "), (ref.format(4), " / {1} / ")]
    if tp4_min:
        quotes.append((ref.format(4), " / {2} / "))
    return quotes + [(ref.format(8), " / {1} (min "), (ref.format(8), " / {2}), over"),
                     (r"TP2: .*over FlashInfer at its own configuration geomean ([\d.]+x), min ([\d.]+x)",
                      "FlashInfer {1} (min {2}) / ")]


def round_count_rows(out):
    """The rows of scripts/model_bias.py's `--by @round_count` table as Markdown rows "| R | rows | MAPE | bias |",
    in the docs' order (1, 2-4, 5-16, 17+)."""
    cells = {m.group(1): m.groups() for m in re.finditer(r"^(1|2-4|5-16|17\+)\s+(\d+)\s+([\d.]+ %)\s+([+-][\d.]+ %)",
                                                         out, re.M)}
    if sorted(cells) != sorted(["1", "2-4", "5-16", "17+"]):
        raise AssertionError(f"expected the four round-count groups, got {sorted(cells)}")
    return [f"| {c[0]} | {c[1]} | {c[2]} | {c[3]} |" for c in (cells[k] for k in ("1", "2-4", "5-16", "17+"))]


def ar_first_round_quote(out):
    """The one-round rows of three `--by @round_count` tables (TP2, TP4, TP8): "+a % at TP2, b % at TP4, c % at
    TP8, r2 / r4 / r8 rows"."""
    rows = re.findall(r"^1\s+(\d+)\s+[\d.]+ %\s+([+-][\d.]+) %", out, re.M)
    if len(rows) != 3:
        raise AssertionError(f"expected three one-round rows, got {rows}")
    (n2, b2), (n4, b4), (n8, b8) = rows
    return [f"{b2} % at TP2, {b4} % at TP4, {b8} % at TP8, {n2} / {n4} / {n8} rows"]


def ar_bias_cell(out, body):
    """'MAPE %, bias %' of one kernel_variant row of scripts/model_bias.py's table ("lean  32  11.6 %  +6.9 %")."""
    m = re.search(rf"^{body}\s+\d+\s+([\d.]+) %\s+([+-][\d.]+) %", out, re.M)
    if not m:
        raise AssertionError(f"no {body} row in the model_bias.py table")
    return f"{m.group(1)} %, {m.group(2)} %"


def readme_grid_regret(out):
    """The README's latest-grid regret: "a % / b % / c % slower than ... on average, x % / y % / z % at worst" (TP2, 4, 8)."""
    found = re.findall(r"mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %", out)
    if len(found) != 3:
        raise AssertionError(f"expected three model_regret.py summaries, got {len(found)}")
    means, maxima = " / ".join(m for m, _ in found), " / ".join(x for _, x in found)
    return [f"own pick {means.replace(' / ', ' % / ')} % slower", f"on average, {maxima.replace(' / ', ' % / ')} % at worst"]


def readme_peers_minima(out):
    """The README's peers minima in TP2 / TP4 / TP8 order: "(min a / b / c) over 72 / 72 / 67 problems" for the
    reference at trtllm, "(min a / b / c)" for arlab's best."""
    def per_member(member):
        rows = re.findall(rf"^VS-FLASHINFER local N=(\d) {member}\s+geomean [\d.]+x over (\d+) problems \(min ([\d.]+x)",
                          out, re.M)
        if [n for n, _, _ in rows] != ["2", "4", "8"]:
            raise AssertionError(f"expected the {member} lines at N = 2, 4, 8, got {rows}")
        return rows
    ref, best = per_member("trtllm"), per_member("model/auto")
    return [f"(min {' / '.join(m for _, _, m in ref)}) over {' / '.join(c for _, c, _ in ref)} problems",
            f"(min {' / '.join(m for _, _, m in best)})"]


def best_goals(out):
    """The best's (model/auto) GOAL lines of `arlab exp speedup`: {N: (over the reference geomean, its min, over
    FlashInfer geomean, its min)}, one entry per TP of the output."""
    goals = {n: (a, b, c, d) for n, a, b, c, d in re.findall(
        r"GOAL best \(model/auto\) on local TP(\d): over the reference at trtllm geomean ([\d.]+x), min ([\d.]+x) .*"
        r"geomean ([\d.]+x), min ([\d.]+x)", out)}
    if not goals:
        raise AssertionError("no GOAL best (model/auto) line")
    return goals


def speedup_merges(stems, tag):
    """One command merging each data/h100/exp/STEM.csv of issue 24's speedup grids (its own output folder)."""
    return " && ".join(f"{{arlab}} exp speedup --merge data/h100/exp/{stem}.csv --out-dir {{tmp}}/{tag}{i} --no-plots"
                       for i, stem in enumerate(stems))


# Session 49's grids (63c5795): TP2, then TP4 and TP8; one command for every check that quotes them.
S49_SPEEDUP = speedup_merges(("speedup_emulated_wide32_s49", "speedup_emulated_wide31_s49"), "sm49_")


def readme_speedup_goals(out):
    """The README's line of issue 24's grid: "over the reference A / B / C (min a / b / c); over FlashInfer F / G / H
    (min f / g / h)" from the GOAL lines of TP2 (wide26) and TP4 / TP8 (wide27)."""
    goals = {n: m for n, m in re.findall(
        r"^GOAL best \(model/auto\) on local TP(\d): (over the reference at trtllm geomean [\d.]+x, min [\d.]+x "
        r"\(\d+ problems\); over FlashInfer at its own configuration geomean [\d.]+x, min [\d.]+x)", out, re.M)}
    if sorted(goals) != ["2", "4", "8"]:
        raise AssertionError(f"expected the best's GOAL lines at TP2, TP4 and TP8, got {sorted(goals)}")
    nums = {n: re.findall(r"([\d.]+x)", goals[n]) for n in goals}  # ref geomean, ref min, fi geomean, fi min
    col = lambda k: " / ".join(nums[n][k] for n in ("2", "4", "8"))
    return [f"over the reference {col(0)} (min {col(1)}); over FlashInfer {col(2)} (min {col(3)})"]


def readme_fresh_grid_checks(grid, tp2_cmd, tp4_cmd):
    """The README's line of a fresh model-accuracy grid: "GRID MAPE a % / b % (TP2 / TP4)" and the model's own
    pick "own pick m % / w % and m % / w % (mean / max regret)"."""
    return [dict(doc="docs/history.md", cmd=tp2_cmd, quotes=[(r"MAPE ([\d.]+) %   median", grid + " MAPE {1} % / "),
                                                       (OWN_PICK_SIGNED, "own pick {1} % / {2} % and ")]),
            dict(doc="docs/history.md", cmd=tp4_cmd, quotes=[(r"MAPE ([\d.]+) %   median", " / {1} % (TP2 / TP4)"),
                                                       (OWN_PICK_SIGNED, "and {1} % / {2} % (mean / max regret)")])]


def merged(experiment, name, gpu="h200"):
    """`arlab exp EXPERIMENT --merge data/GPU/exp/NAME.csv` into a scratch folder: its summary lines."""
    return ["{arlab}", "exp", experiment, "--merge", f"data/{gpu}/exp/{name}.csv", "--out-dir",
            f"{{tmp}}/{experiment}_merge_{gpu}_{name}", "--no-plots"]


def h100_peers_row(out):
    """The README's H100 peers row: 'reference G2 / G4 / G8 (min M2 / M4 / M8)' and 'best G2 / G4 / G8 (min ...'."""
    quotes = []
    for member, label in (("trtllm", "reference"), ("model/auto", "best")):
        found = [re.search(rf"^VS-FLASHINFER local N={n} {re.escape(member)}\s+geomean ([\d.]+x) over \d+ problems \(min ([\d.]+x)",
                           out, re.M) for n in (2, 4, 8)]
        if not all(found):
            raise AssertionError(f"no VS-FLASHINFER {member} line at every N")
        quotes.append(f"{label} " + " / ".join(m.group(1) for m in found) + " (min " +
                      " / ".join(m.group(2) for m in found))
    return quotes


def nvfp4_rerun_quotes(out):
    """The second H100's NVFP4 A/B as docs/kernels.md sums it up: the even-block rows' range, trtllm's odd
    385/2/32 reference, and the other odd rows' range."""
    even, odd_trtllm, odd_other = [], None, []
    for m in re.finditer(r"^\| \d+ \| \w+ \| \d+ \| \d+ \| \w+ \| (\d+)/(\S+) \((\w+)\) \| (\w+) \| [\d.]+ \| [\d.]+ "
                         r"\| ([\d.]+) \(", out, re.M):
        tpb, policy, body, ratio = int(m.group(1)), m.group(3), m.group(4), m.group(5)
        if tpb % 2 == 0:
            even.append(ratio)
        elif policy == "trtllm" and body == "reference":
            odd_trtllm = ratio
        else:
            odd_other.append(ratio)
    if not even or odd_trtllm is None or not odd_other:
        raise AssertionError("expected even-block rows, trtllm's odd reference row and other odd rows")
    return [f"every even-block row {min(even, key=float)}-{max(even, key=float)}, the odd 385/2/32 reference {odd_trtllm}, "
            f"the other odd rows {min(odd_other, key=float)}-{max(odd_other, key=float)}"]


def prefetch_quotes(out):
    """docs/kernels.md's summary of the L1-prefetch A/B: per group of rows, the range of after / before."""
    rows = [m.groups() for m in re.finditer(r"^\| (\d+) \| (\w+) \| \d+ \| (\d+) \| (\w+) \| (\S+) \(\w+\) \| (\w+) \| [\d.]+ "
                                            r"\| [\d.]+ \| ([\d.]+) \(", out, re.M)]
    def pct(sel):
        r = [float(x[6]) for x in rows if sel(*x)]
        if not r:
            raise AssertionError("no row for a group of the prefetch summary")
        return r
    ref2 = pct(lambda n, pat, t, algo, cfg, body, r: n == "2" and pat == "ar_res_rms" and body == "reference")
    lean2 = pct(lambda n, pat, t, algo, cfg, body, r: n == "2" and pat == "ar_res_rms" and body == "lean")
    fp4 = pct(lambda n, pat, t, algo, cfg, body, r: pat == "ar_res_rms_fp4" and body == "lean")
    two = pct(lambda n, pat, t, algo, cfg, body, r: algo == "twoshot")
    worst = max(float(x[6]) for x in rows)
    fmt = lambda x: f"{abs(x - 1) * 100:.1f}"
    vpt1 = [x for x in rows if x[0] == "8" and x[3] == "oneshot" and x[4] == "1024/1/16/1" and x[5] == "lean"]
    if len(vpt1) != 1:
        raise AssertionError("expected one lean TP8 1024/1/16/1 row")
    return [f"with one vector per thread, {vpt1[0][6]}, never issues",
            f"the reference took {fmt(min(ref2))}-{fmt(max(ref2))} % longer",
            f"lean within +-{max(fmt(min(lean2)), fmt(max(lean2)), key=float)} %",
            f"NVFP4's lean {fmt(min(fp4))}-{fmt(max(fp4))} % longer",
            f"({worst:.3f})",
            f"within {max(fmt(min(two)), fmt(max(two)), key=float)} % either way"]


def shape_medians(out):
    """scripts/peers_by_shape.py's rows -> docs/kernels.md's summary: the median range per N (at N = 2 without
    clusters of 8), and N = 4's clusters of 1 over several rounds."""
    med = {}
    for m in re.finditer(r"^\| (\d+) \| (\d+) \| (\w+) \| \d+ \| ([\d.]+)x \|", out, re.M):
        med[(int(m.group(1)), int(m.group(2)), m.group(3))] = m.group(4)
    def span(n, skip_cluster=None):
        v = [x for (nn, cl, _), x in med.items() if nn == n and cl != skip_cluster]
        return f"{min(v, key=float)}-{max(v, key=float)}x"
    return [f"the medians lie at {span(2, 8)} outside clusters of 8",
            f"= 4 at {span(4)} and at N = 8 at {span(8)}",
            f"several rounds: {med[(4, 1, 'several')]}x"]


def pooled_bias(grids, tag, args):
    """`arlab validate` of each H200 model-accuracy grid into the scratch folder, then one scripts/model_bias.py over
    all the pairs with ARGS (a shell command)."""
    pairs = [(f"data/h200/exp/model-accuracy_emulated_{g}.csv", f"{{tmp}}/v_{tag}_{g}.csv") for g in grids]
    return (" && ".join(f"{{arlab}} validate {m} --out {v} > /dev/null" for m, v in pairs) +
            " && {py} scripts/model_bias.py " + " ".join(f"{m} {v}" for m, v in pairs) + " " + args)


def shell_and(*cmds):
    """Several argument-list commands as one shell command, each after the one before succeeded."""
    return " && ".join(" ".join(cmd) for cmd in cmds)


def rng(*args):
    return ["{py}", "scripts/csv_range.py"] + list(args)


def bias(node_csv, cal, extra):
    return (f"{{arlab}} validate {node_csv} --calibration {cal} --out {{tmp}}/v_{os.path.basename(node_csv)} > /dev/null && "
            f"{{py}} scripts/model_bias.py {node_csv} {{tmp}}/v_{os.path.basename(node_csv)} {extra}")


LAST_LINE = [(r"^(picks measured .*|problems \d+: mean regret .*)$", "{1}")]

def table_rows(out):
    """Every markdown table row a command prints (scripts/accuracy_table.py), each to be quoted as printed."""
    return [l for l in out.splitlines() if l.startswith("| ") and not l.startswith("|---")]


# docs/model.md, "The drain": the table of the drain and the further vectors, whose last column is today's model on
# each file (scripts/model_files.py); the first columns are the models before, fixed.
DRAIN_TABLE_ROWS = [
    ("`exp/speedup_emulated_wide13.csv` (issue 24's grid) | 5.09 % | 4.29 % |", ["exp/speedup_emulated_wide13.csv"]),
    ("`exp/peers_emulated_tp2_rerun11.csv` | 4.69 % | 4.04 % |", ["exp/peers_emulated_tp2_rerun11.csv"]),
    ("`exp/peers_emulated_tp4_rerun2.csv` | 5.83 % | 5.43 % |", ["exp/peers_emulated_tp4_rerun2.csv"]),
    ("`exp/peers_emulated_tp8_rerun.csv` | 8.92 % | 8.91 % |", ["exp/peers_emulated_tp8_rerun.csv"]),
    ("`model_grid_latency_prologue_emulated.csv` | 4.81 % | 3.67 % |", ["model_grid_latency_prologue_emulated.csv"]),
    ("`peers_outside_grid_prologue_emulated.csv` | 3.71 % | 2.80 % |", ["peers_outside_grid_prologue_emulated.csv"]),
    ("`model_grid_emulated_faithful.csv` | 8.44 % | 8.53 % |", ["model_grid_emulated_faithful.csv"]),
    ("`exp/model-accuracy_emulated_grid7.csv` / `_tp4` | 9.58 % / 10.50 % | 9.57 % / 10.43 % |",
     ["exp/model-accuracy_emulated_grid7.csv", "exp/model-accuracy_emulated_grid7_tp4.csv"]),
    ("`exp/model-accuracy_emulated_grid8.csv` / `_tp4` | 10.51 % / 11.48 % | 10.50 % / 11.43 % |",
     ["exp/model-accuracy_emulated_grid8.csv", "exp/model-accuracy_emulated_grid8_tp4.csv"]),
]

# docs/model.md, "The lean round at four and eight ranks": before (57fbddd's calibration), fixed; after, today's.
LEAN_ROUND_TABLE_ROWS = [
    ("`exp/speedup_emulated_wide15.csv` (issue 24's grid, TP2/4/8) | 4.78 % |", ["exp/speedup_emulated_wide15.csv"]),
    ("`exp/peers_emulated_tp4_rerun2.csv` | 5.01 % |", ["exp/peers_emulated_tp4_rerun2.csv"]),
    ("`exp/peers_emulated_tp8_rerun.csv` | 8.79 % |", ["exp/peers_emulated_tp8_rerun.csv"]),
    ("`model_grid_latency_prologue_emulated.csv` | 3.75 % |", ["model_grid_latency_prologue_emulated.csv"]),
    ("`exp/model-accuracy_emulated_grid7_tp4.csv` | 9.38 % |", ["exp/model-accuracy_emulated_grid7_tp4.csv"]),
    ("`exp/model-accuracy_emulated_grid8_tp4.csv` | 10.63 % |", ["exp/model-accuracy_emulated_grid8_tp4.csv"]),
    ("`exp/model-accuracy_emulated_grid9_tp4.csv` | 9.92 % |", ["exp/model-accuracy_emulated_grid9_tp4.csv"]),
]


def drain_table_rows(out, rows=None):
    mape = {m.group(1): m.group(2) for m in re.finditer(r"^\| `([^`]+)` \| ([\d.]+) % \|", out, re.M)}
    return [f"| {prefix} " + " / ".join(f"{mape[f]} %" for f in files) + " |"
            for prefix, files in (DRAIN_TABLE_ROWS if rows is None else rows)]


# The rows of docs/kernels.md's table of the reference beside FlashInfer ("Where the library's extra time is not").
FAITHFUL_PROBE_LABELS = [
    "probe_v0+probe2_v0=nothing changed (four processes, two per build)",
    "probe_v1=every thread reading the control words (flag, byte counts) with volatile loads, as its own buffer selector",
    "probe2_v1=the same with plain (L1-cached) loads, as the library's are",
    "probe2_v2=the library's cluster reduction: thread 0 loads the block totals one at a time, a second cluster barrier,"
    " a block barrier, no barrier at exit",
    "probe_v2=the same, its loads forced one at a time and the exit barrier kept",
    "probe_v4=block 0 waiting at its end until the next call's flag is published (the library's publication)",
    "probe_v24=plain stores for the push and `ld.volatile` polls (the library's accesses)",
    "probe2_v7=plain control reads + the library's reduction + its publication",
]

def body_round_records(out):
    """scripts/derive_calibrations.sh ARLAB --notes -> the cells of docs/model.md's open-leads table: the
    "record, body_round ..." medians per body and N, signed as the table writes them."""
    def sign(v):
        return f"{int(v):+d}" if int(v) != 0 else "0"
    pattern_round = {}  # (body, kind, N) -> (own median, ar_res_rms median)
    for m in re.finditer(r"record, body_round (reference|lean)_(ar|fp4)_n(\d)_slowest \(no constant reads it\): the "
                         r"\S+ round at N = \d takes (-?\d+) ns per vector beyond the model's \S+ round \(median over \d+ "
                         r"rows\); the ar_res_rms round (-?\d+) ns", out):
        pattern_round[(m.group(1), m.group(2), int(m.group(3)))] = (m.group(4), m.group(5))
    lean2 = {}  # (kind, N) -> (at N, at N = 2)
    for m in re.finditer(r"record, body_round lean2_(owner|reader)_n(\d)_slowest \(no constant reads it\): per vector, "
                         r"(-?\d+) ns beyond the model's lean one-shot round at N = \d and (-?\d+) ns beyond it", out):
        lean2[(m.group(1), int(m.group(2)))] = (m.group(3), m.group(4))
    lean2_beside = dict(((m.group(1), int(m.group(2))), m.group(3)) for m in re.finditer(
        r"record, body_round lean2_(owner|reader)_n(\d)_slowest \(no constant reads it\): [^\n]*?; (-?\d+) ns beyond "
        r"the measured lean_n\d_slowest round of the same run and shape", out))
    epi = dict(re.findall(r"record, body_round reference2_epilogue(_ar)?_n2_slowest \(no constant reads it\): the "
                          r"reference two-shot's \S+ epilogue round takes (-?\d+) ns", out))
    # since session 33 the ar epilogue round sets a constant: its note
    epi.update({"_ar": m for m in re.findall(r"twoshot_ar_further_round_ns_n2 = (-?\d+)", out)})
    # since session 36 the ar_res_rms epilogue round sets one too, per round
    epi.update({"": m for m in re.findall(r"twoshot_further_round_ns_n2 = (-?\d+)", out)})
    ar = lambda body, i: " / ".join(sign(pattern_round[(body, "ar", n)][i]) for n in (4, 8))
    # since session 37 the ar rows at N = 2 set a line over the warps per body: its notes
    line = dict(re.findall(r"^\s*((?:lean_)?ar_round_line_ns(?:_per_warp)?_n2) = (-?[\d.]+)", out, re.M))
    return [
        f"`ar_round_line_ns_n2` {float(line['ar_round_line_ns_n2']):.0f} + "
        f"{float(line['ar_round_line_ns_per_warp_n2']):.1f} ns per warp, lean "
        f"{float(line['lean_ar_round_line_ns_n2']):.0f} + {float(line['lean_ar_round_line_ns_per_warp_n2']):.1f}; at N = 4 "
        f"and 8 beyond the model's `ar` round: {ar('reference', 0)} ns; lean {ar('lean', 0)}, where the `ar_res_rms` "
        f"round is {ar('reference', 1)} and lean {ar('lean', 1)}",
        f"`ar_res_rms` {sign(epi[''])} ns per round beyond the model's epilogue round; `ar` {sign(epi['_ar'])} ns",
        "the owner's round " + " / ".join(sign(lean2[("owner", n)][0]) for n in (2, 4, 8)) + " ns beyond the lean "
        "one-shot round at N; a reader's " + " / ".join(sign(lean2[("reader", n)][1]) for n in (2, 4, 8)) + " beyond "
        "the one at N = 2 (" + " / ".join(sign(lean2[("reader", n)][0]) for n in (4, 8)) + " beyond the one at N = 4 / 8)",
        "the owner's " + " / ".join(sign(lean2_beside[("owner", n)]) for n in (2, 4, 8)) + " ns beyond the one at N, a "
        "reader's " + " / ".join(sign(lean2_beside[("reader", n)]) for n in (2, 4, 8)) + " beyond the one at N = 2",
        f"({sign(pattern_round[('reference', 'fp4', 2)][0])} ns per vector beyond the model's NVFP4 round for the "
        f"reference and {sign(pattern_round[('lean', 'fp4', 2)][0])} for lean, against "
        f"{sign(pattern_round[('reference', 'fp4', 2)][1])} and {sign(pattern_round[('lean', 'fp4', 2)][1])} for `ar_res_rms`)",
    ]


FAITHFUL_SWITCH_LABELS = [
    "switch_v0=nothing changed (two processes)",
    "switch_plainpolls=the library's unbounded polls (`plain_polls`)",
    "switch_rsqrt=the library's `rsqrtf` (`rsqrt_norm`)",
]

# docs/model.md, "A second GPU: the emulated H100 node": grid26 measured on an H100 (session 34).
H100_G26 = [f"data/h100/exp/model-accuracy_emulated_grid26{sfx}.csv" for sfx in ("", "_tp4", "_tp8")]
H200_G26 = [f"data/h200/exp/model-accuracy_emulated_grid26{sfx}.csv" for sfx in ("", "_tp4")]
H100_G26_OWNCAL = [f"data/h100/exp/model-accuracy_emulated_grid26_owncal{sfx}.csv" for sfx in ("", "_tp4")]
POOL_22_26 = ["grid22", "grid22_tp4", "grid22_tp8", "grid23", "grid24", "grid24_tp4", "grid24_tp8", "grid25",
              "grid25_tp4", "grid25_tp8", "grid26", "grid26_tp4"]
OWN_ROWS_GRIDS = [g + sfx for sfx in ("", "_tp4") for g in ("grid22", "grid24", "grid25", "grid26")] + \
    [g + "_tp8" for g in ("grid22", "grid24", "grid25")]
def probe_skew_quotes(out):
    """The library_view probe's skew and noise lines ("EXPERIMENT MEMBER SKEW", then "met K N") -> its quotes."""
    skew = {tuple(l.split()[:2]): l.split()[2] for l in out.splitlines() if not l.startswith("met")}
    met, rows = out.splitlines()[-1].split()[1:]
    return [f"median start skew {skew['switch_v0', 'library']} us for the library's rows and "
            f"{skew['switch_v0', 'reference']} us for the reference's",
            f"{skew['switch_view', 'library']} and {skew['switch_view', 'reference']} us in the switch build's; "
            f"{met} of the {rows} rows"]


# session 41: grid28 on the H100 at TP2 / TP4 / TP8
G28 = ["grid28", "grid28_tp4", "grid28_tp8"]


def g28_bias_cmd(tag, options):
    """grid28's three files validated with the H100's calibration, then scripts/model_bias.py OPTIONS over them."""
    return " && ".join([f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{f}.csv --calibration "
                        f"data/calibration/h100_emulated.csv --out {{tmp}}/{tag}_{f}.csv > /dev/null" for f in G28] +
                       ["{py} scripts/model_bias.py " + " ".join(f"data/h100/exp/model-accuracy_emulated_{f}.csv "
                                                                 f"{{tmp}}/{tag}_{f}.csv" for f in G28) + " " + options])

# session 41: the H100 files of the L2-resident share's before / after table, in its row order
L2_TERM_H100 = ["model-accuracy_emulated_grid27", "model-accuracy_emulated_grid27_tp4", "model-accuracy_emulated_grid27_tp8",
                "model-accuracy_emulated_grid26", "model-accuracy_emulated_grid26_tp4", "model-accuracy_emulated_grid26_tp8",
                "peers_emulated_tp2", "peers_emulated_tp48", "speedup_emulated_wide30", "speedup_emulated_wide31",
                "seed_emulated"]


def swap_mapes(out):
    """calibration_swap.py --set's two lines: the MAPEs with the calibration, then with the change."""
    lines = [l for l in out.splitlines() if l.startswith("MAPE with ")]
    on = re.findall(r"([\d.]+) %", lines[0])
    off = re.findall(r"([\d.]+) %", lines[1])
    return on + off


# session 42: docs/model.md, "The two-shot epilogue's own round": the line off (session 41's constants) against on.
LEAN2_LINES_OFF = ["--set", "lean2_*=0"]
H100_GRIDS_26_29 = [f"grid{g}{s}" for g in (26, 27, 28, 29) for s in ("", "_tp4", "_tp8" if g != 27 else "_tp8_rerun")]
H100_TP8_26_30 = ["grid26_tp8", "grid27_tp8_rerun", "grid28_tp8", "grid29_tp8", "grid30_tp8"]
H100_TP4_26_30 = ["grid26_tp4", "grid27_tp4", "grid28_tp4", "grid29_tp4", "grid30_tp4"]
H100_GRIDS_26_31 = [f"grid{g}{s}" for g in range(26, 32) for s in ("", "_tp4", "_tp8" if g != 27 else "_tp8_rerun")]


def round_cost_leads(out):
    """Five `scripts/model_bias.py --round-cost` last lines (reference and lean medians with their row counts)
    -> the quotes of docs/model.md's session-44 leads."""
    lines = [re.search(r"reference ([\d.]+) / ([\d.]+) us \((\d+) rows\), lean ([\d.]+) / ([\d.]+) us", line).groups()
             for line in out.splitlines() if line.startswith("median per round")]
    one_ar_res_rms, one_ar, one_fp4, two_tp8, two_tp4 = lines
    return ["reference {0} / {1} us, lean {3} / {4} us (measured / predicted, {2} configurations)".format(*one_ar_res_rms),
            "reference {0} / {1} us and lean {3} / {4} us".format(*one_ar),
            "(reference\n{0} / {1} us, {2})".format(*one_fp4),
            "lean two-shot's `ar_res_rms` rows: {0} / {1} us at TP8, {2} / {3} us at TP4".format(
                two_tp8[3], two_tp8[4], two_tp4[3], two_tp4[4])]


TWOSHOT_LINE_OFF = ["--set", "twoshot_round_delta_ns=0", "--set", "twoshot_round_delta_ns_per_warp=0",
                    "--set", "twoshot_further_round_ns_n2=-274.44755402247733"] + LEAN2_LINES_OFF
TWOSHOT_LINE_ROWS = [("grid26 TP2 / TP4 / TP8", ["model-accuracy_emulated_grid26", "model-accuracy_emulated_grid26_tp4",
                                                 "model-accuracy_emulated_grid26_tp8"]),
                     ("grid27 TP2 / TP4 / TP8 (TP8 measured again)", ["model-accuracy_emulated_grid27",
                                                                       "model-accuracy_emulated_grid27_tp4",
                                                                       "model-accuracy_emulated_grid27_tp8_rerun"]),
                     ("grid28 TP2 / TP4 / TP8", ["model-accuracy_emulated_grid28", "model-accuracy_emulated_grid28_tp4",
                                                 "model-accuracy_emulated_grid28_tp8"]),
                     ("TP2 peers", ["peers_emulated_tp2"]), ("TP4 / TP8 peers", ["peers_emulated_tp48"]),
                     ("issue 24's TP2 / TP4 + TP8 grids (wide30, wide31)", ["speedup_emulated_wide30",
                                                                            "speedup_emulated_wide31"]),
                     ("the seed experiment (session 38)", ["seed_emulated"]),
                     ("**grid29 TP2 / TP4 / TP8, held out**", ["model-accuracy_emulated_grid29",
                                                               "model-accuracy_emulated_grid29_tp4",
                                                               "model-accuracy_emulated_grid29_tp8"])]


def twoshot_line_table(out):
    """Two calibration_swap.py runs over TWOSHOT_LINE_ROWS' files, both lines off then the lean lines off: per
    row, session 41's constants, with the reference two-shot's line, with both (today's)."""
    lines = [l for l in out.splitlines() if l.startswith("MAPE with ")]
    today = re.findall(r"([\d.]+) %", lines[0])
    off = re.findall(r"([\d.]+) %", lines[1])
    ref_only = re.findall(r"([\d.]+) %", lines[3])
    rows, i = [], 0
    for label, files in TWOSHOT_LINE_ROWS:
        k = len(files)
        rows.append("| %s | %s %% | %s %% | %s %% |" % (label, " / ".join(off[i:i + k]), " / ".join(ref_only[i:i + k]),
                                                     " / ".join(today[i:i + k])))
        i += k
    return rows


def own_pick_regret(doc, grid, lead):
    """The own pick's regret over an H100 grid at TP2 / TP4 / TP8 (scripts/model_regret.py), as `doc` quotes it:
    "LEAD a / b / c slower than the fastest row on average, d / e / f at worst"."""
    return dict(doc=doc,
                cmd=" && ".join(f"{{py}} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_{grid}{s}.csv | tail -1"
                                for s in ("", "_tp4", "_tp8")),
                derive=lambda out: [lead + " / ".join(m + " %" for m in re.findall(r"mean regret ([\d.]+) %", out)) +
                                    " slower than the fastest row on average, " +
                                    " / ".join(m + " %" for m in re.findall(r", max ([\d.]+) %", out)) + " at worst"])


def grid31_bias_quotes(out):
    """docs/model.md, "grid31, held out": the lean two-shot at TP4 / TP8 (today's model), the `ar` pattern and the
    others, the biases by token count, the reference two-shot's `ar` rows at TP4, the lean two-shot at TP8 by round
    count; from the five scripts/model_bias.py outputs of its check, in order."""
    parts = [p for p in re.split(r"^(?=\S.*\brows\s+MAPE\s+bias\s*$)", out, flags=re.M) if p.strip()]
    body, pattern, tokens, ar, rounds = ({" ".join(k): (mape, bias) for k, _, mape, bias in bias_groups(p)} for p in parts)
    others = sorted(float(m) for k, (m, _) in pattern.items() if k != "ar")
    lean4, lean8 = body["4 lean twoshot"], body["8 lean twoshot"]
    small = [float(tokens[t][1]) for t in ("5", "11", "44")]
    large = [float(tokens[t][1]) for t in ("264", "440")]
    return [f"-> {lean4[0]} % ({lean4[1]} %) at TP4",
            f"-> {lean8[0]} % ({lean8[1]} %) at TP8",
            f"the `ar` pattern {pattern['ar'][0]} % (every other pattern {others[0]:.1f}-{others[-1]:.1f} %; the reference "
            f"two-shot's `ar` rows at TP4 {ar['4 reference twoshot'][0]} %, bias {ar['4 reference twoshot'][1]} %)",
            f"(bias {min(small):+.1f} % to {max(small):+.1f} %)",
            f"short ({max(large):+.1f} % to {min(large):+.1f} %)",
            f"long at 5-16 rounds per cluster ({rounds['5-16'][1]} %) and short at 17 and more ({rounds['17+'][1]} %)"]


def vpt_sweep_quotes(out):
    """docs/model.md, the first vectors-per-thread sweep: the reference's cost of one more round at TP2 H 8192,
    1024 / 512 / 256 threads x 1, measured and predicted; the MAPE; the TP2 bias by vectors per thread."""
    cost = {m.group(1): (m.group(2), m.group(3)) for m in
            re.finditer(r"^\| 128 x 8192, (\d+)/1, \d \| 2 -> 8 \| ([\d.]+) / ([\d.]+) us \|", out, re.M)}
    part = out[out.index("nranks vecs_per_thread"):]  # the last command's table, its header first
    tp2 = [b for k, _, _, b in bias_groups(part) if k[0] == "2"]
    mape = re.search(r"against the headline[^\n]*?MAPE ([\d.]+) %", out).group(1)
    return [" / ".join(cost[t][0] for t in ("1024", "512", "256")) + " us at 1024, 512 and 256 threads x 1",
            "the model gives\n" + " / ".join(cost[t][1] for t in ("1024", "512", "256")) + " us",
            f"MAPE {mape} %, by vectors per thread at TP2 bias {tp2[0]} % / {tp2[1]} % / {tp2[2]} %"]


def few_blocks_quotes(out):
    """docs/model.md, the few-block sweep: the reference's cost of one more round at 4 and at 1 vector per thread
    on 2 / 4 / 8 / 16 / 64 blocks, measured and predicted, and the MAPE."""
    got = {(m.group(1), m.group(2)): (m.group(3), m.group(4)) for m in
           re.finditer(r"^\| (\d+) blocks, H 4096, (\d+)/1, \d \| 2 -> 8 \| ([\d.]+) / ([\d.]+) us \|", out, re.M)}
    blocks = ("2", "4", "8", "16", "64")
    mape = re.search(r"against the headline[^\n]*?MAPE ([\d.]+) %", out).group(1)
    row = lambda tpb, i: " / ".join(got[(g, tpb)][i] for g in blocks)
    return [f"--where policy=explicit`; MAPE {mape} %)",
            f"takes {row('128', 0)} us on 2 / 4 / 8 /\n16 / 64 blocks, the model's {row('128', 1)} us",
            f"at one vector (512 x 1) {row('512', 0)} us against {row('512', 1)} us"]


def l2_term_table(out):
    v = swap_mapes(out)
    n = len(L2_TERM_H100)
    on, off = v[:n], v[n:]
    return ["| %s / %s / %s %% | %s / %s / %s %% |" % (off[0], off[1], off[2], on[0], on[1], on[2]),
            "| %s / %s / %s %% | %s / %s / %s %% |" % (off[3], off[4], off[5], on[3], on[4], on[5]),
            "(`peers_emulated_tp2.csv`) | %s %% | %s %% |" % (off[6], on[6]),
            "(`peers_emulated_tp48.csv`) | %s %% | %s %% |" % (off[7], on[7]),
            "(`speedup_emulated_wide30.csv`) | %s %% | %s %% |" % (off[8], on[8]),
            "(`speedup_emulated_wide31.csv`) | %s %% | %s %% |" % (off[9], on[9]),
            "(`seed_emulated.csv`, session 38) | %s %% | %s %% |" % (off[10], on[10])]


H100_TP2_LONG = ["model-accuracy_emulated_grid27", "peers_emulated_tp2", "speedup_emulated_wide30"]
H100_RERUN_CAL = ("{arlab} save-calibration {tmp}/h100_rerun.csv --gpu h100_sxm "
                  "--from-microbench data/calibration/h100_emulated_microbench_rerun.csv "
                  "--exchange-microbench data/calibration/h100_emulated_n8_microbench.csv "
                  "--skew-microbench data/calibration/h100_emulated_n4_microbench.csv data/calibration/h100_emulated_n8_microbench.csv "
                  "--rows-microbench data/calibration/h100_emulated_n4_microbench.csv data/calibration/h100_emulated_n8_microbench.csv "
                  "> /dev/null")


def h100_mape_row(label):
    """Three `arlab validate` outputs (TP2, TP4, TP8) -> the table row 'LABEL | a % | b % | c % |'."""
    def derive(out):
        found = re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out)
        if len(found) != 3:
            raise AssertionError(f"expected three validate summaries, got {len(found)}")
        return [label + " | " + " | ".join(m + " %" for m in found) + " |"]
    return derive


def h100_validate(cal):
    return " && ".join(f"{{arlab}} validate {f}" + (f" --calibration {cal}" if cal else "") for f in H100_G26)


def h100_rounds_cells(out):
    """model_bias.py --by @rounds for TP2, TP4, TP8 (one calibration) -> its 'MAPE, bias' cells, one row per group."""
    cells = {"one": [], "several": []}
    for key, mape, b in re.findall(r"(?m)^(one|several)\s+\d+\s+([\d.]+) %\s+([+-]?[\d.]+) %$", out):
        cells[key].append(f"{mape} %, {b} %")
    if len(cells["one"]) != 3 or len(cells["several"]) != 3:
        raise AssertionError("expected the one / several groups of three model_bias.py runs")
    return [" | ".join(cells["one"]), " | ".join(cells["several"])]


def h100_regret(out):
    """Three model_regret.py summaries -> 'on average a % / b % / c % slower', 'at worst x % / y % / z %'."""
    found = re.findall(r"mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %", out)
    if len(found) != 3:
        raise AssertionError(f"expected three model_regret.py summaries, got {len(found)}")
    return ["on average " + " / ".join(m + " %" for m, _ in found) + " slower",
            "at worst " + " / ".join(x + " %" for _, x in found)]


def h100_validate_table(doc, rows):
    """A check of a table of H100 files judged with today's H100 calibration: rows is a list of (file stem under
    data/h100/exp, note after its name, the pinned cells before today's MAPE / max APE cell); each table row reads
    "| `exp/FILE.csv`NOTE | PINNED | ... | MAPE %, max APE % |"."""
    return dict(doc=doc,
                cmd=" && ".join(f"{{arlab}} validate data/h100/exp/{f}.csv --calibration data/calibration/h100_emulated.csv | "
                                "grep 'against the headline' | head -1" for f, _, _ in rows),
                derive=lambda out: [f"| `exp/{f}.csv`{note} | {' | '.join(pinned)} | {m} %, {x} % |"
                                    for (f, note, pinned), (m, x) in zip(rows, re.findall(r"MAPE ([\d.]+) %.*?max APE ([\d.]+) %", out))])


def odd_round_line(gpu, template):
    """A check of a calibration's NVFP4 odd-block line (`nvfp4_odd_round_ns`, `_per_warp` of
    data/calibration/GPU_emulated.csv), quoted by template with the two values as floats {0} and {1}."""
    return dict(doc="docs/model.md", cmd=f"grep -E '^nvfp4_odd_round_ns' data/calibration/{gpu}_emulated.csv",
                derive=lambda out: (lambda m: [template.format(float(m.group(1)), float(m.group(2)))])(
                    re.search(r"^nvfp4_odd_round_ns,([\d.]+),(?:.*\n)*nvfp4_odd_round_ns_per_warp,([\d.]+),", out, re.M)))


def lean_rank_costs(out):
    """{block warps: [per-rank costs]} from save-calibration's lean_round_ns_per_extra_rank note: per shape and N,
    ((lean growth - its model's) - (reference growth - its model's)) / ((N - 2) x vpt)."""
    per = {}
    for tpb, vpt, n, lg, lm, rg, rm in re.findall(
            r"\d+x(\d+)/\d+ H \d+(?: vpt (\d+))? N=(\d+): lean (-?\d+) \(model (-?\d+)\), reference (-?\d+) "
            r"\(model (-?\d+)\)", out):
        value = ((int(lg) - int(lm)) - (int(rg) - int(rm))) / ((int(n) - 2) * int(vpt or 1))
        per.setdefault((int(tpb) + 31) // 32, []).append(value)
    return per


def h200_twoshot_trial(grid, calibrations, validate_tail, by, quotes):
    """A check of session 51's H200 two-shot trial (scripts/derive_calibrations.sh --h200-twoshot-trial into
    {tmp}/h200_twoshot.csv): for each calibration in order, `arlab validate` of the H200's model-accuracy GRID (its
    output piped into validate_tail) and the two-shot lines of scripts/model_bias.py --by BY."""
    data = f"data/h200/exp/model-accuracy_emulated_{grid}.csv"
    return dict(doc="docs/model.md", quotes=quotes,
                cmd="scripts/derive_calibrations.sh {arlab} --h200-twoshot-trial {tmp}/h200_twoshot.csv > /dev/null && "
                    f"for c in {' '.join(calibrations)}; do {{arlab}} validate {data} --calibration $c "
                    f"--out {{tmp}}/{grid}_tw.v.csv {validate_tail}; {{py}} scripts/model_bias.py {data} "
                    f"{{tmp}}/{grid}_tw.v.csv --by {by} | grep twoshot; done")


def calibration_line(gpu, name, template):
    """A check of a calibration's line `NAME` + `NAME_per_warp` (data/calibration/GPU_emulated.csv), quoted in
    docs/model.md by template with the two values as floats {0} and {1}."""
    return dict(doc="docs/model.md", cmd=f"grep -E '^{name}(_per_warp)?,' data/calibration/{gpu}_emulated.csv",
                derive=lambda out: (lambda m: [template.format(float(m.group(1)), float(m.group(2)))])(
                    re.search(rf"^{name},([-\d.e]+),(?:.*\n)*{name}_per_warp,([-\d.e]+),", out, re.M)))


# The H100's model-accuracy grids measured with the trimmed kernels (sessions 48-52).
H100_G32_35 = ["grid32", "grid32_tp4", "grid33", "grid33_tp4", "grid34", "grid34_tp4", "grid35", "grid35_tp4",
               "grid35_tp8"]


def h100_grids_bias_cmd(tag, grids, *bias_args):
    """A command that validates the H100's model-accuracy files of `grids` with the calibration of their node into
    {tmp}, then runs scripts/model_bias.py over the file pairs once per entry of bias_args (its arguments after the
    pairs)."""
    pairs = " ".join(f"data/h100/exp/model-accuracy_emulated_{g}.csv {{tmp}}/{tag}_{g}.csv" for g in grids)
    return " && ".join([f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{g}.csv --out {{tmp}}/{tag}_{g}.csv "
                        "> /dev/null" for g in grids] +
                       [f"{{py}} scripts/model_bias.py {pairs} {args}" for args in bias_args])


def g32_35_bias_cmd(tag, *bias_args):
    """h100_grids_bias_cmd over the H100's grids 32-35 (H100_G32_35)."""
    return h100_grids_bias_cmd(tag, H100_G32_35, *bias_args)


# The H100's derivation of its calibration, as scripts/derive_calibrations.sh runs it (its notes on stdout).
H100_DERIVATION = ("{arlab} save-calibration {tmp}/h100_derived.csv --gpu h100_sxm "
                   "--from-microbench data/calibration/h100_emulated_s48_n2_microbench.csv "
                   "--exchange-microbench data/calibration/h100_emulated_s48_n8_microbench.csv "
                   "--skew-microbench data/calibration/h100_emulated_s48_n4_microbench.csv "
                   "data/calibration/h100_emulated_s48_n8_microbench.csv "
                   "--rows-microbench data/calibration/h100_emulated_s48_n4_microbench.csv "
                   "data/calibration/h100_emulated_s48_n8_microbench.csv "
                   "--added-microbench data/calibration/h100_emulated_s48_n4_microbench.csv "
                   "data/calibration/h100_emulated_s48_n8_microbench.csv data/calibration/h100_emulated_s50_odd_microbench.csv "
                   "data/calibration/h100_emulated_s52_n2_microbench.csv data/calibration/h100_emulated_s55_bps_microbench.csv")


def ar_n2_constants_quotes(out):
    """docs/model.md's quotes of the `ar` round's constants at N = 2 from "GPU,NAME,VALUE" lines of the H100's and
    the H200's emulated calibrations."""
    v = {(g, n): float(x) for g, n, x in (line.split(",") for line in out.strip().splitlines())}
    line = lambda g, pre: f"{v[(g, pre + 'ar_round_line_ns_n2')]:.0f} + {v[(g, pre + 'ar_round_line_ns_per_warp_n2')]:.1f}"
    vec = lambda g, pre: f"{v[(g, pre + 'ar_round_ns_per_further_vector_n2')]:.0f}"
    return [f"(on the H100 {line('h100', '')} ns per warp,\nlean {line('h100', 'lean_')}; on the H200 {line('h200', '')}, "
            f"lean {line('h200', 'lean_')})",
            f"{vec('h100', '')} ns on\nthe H100 (lean {vec('h100', 'lean_')}) and {vec('h200', '')} ns on the H200 "
            f"(lean {vec('h200', 'lean_')})"]


def per_row_range(out, name):
    """The lowest and highest of the per-row figures ("N warps vpt V: +X;") in the derivation note of `name`."""
    line = re.search(rf"^  {name} = .*$", out, re.M).group(0)
    values = [int(v) for v in re.findall(r"vpt \d: ([-+]\d+);", line)]
    return min(values), max(values)


def grid_mape_regret(doc, path, template):
    """A check of one model-accuracy file's MAPE (`arlab validate`, the calibration of its node) and its own pick's
    regret (`scripts/model_regret.py`), quoted by template ({1} MAPE, {2} mean regret, {3} max regret)."""
    return dict(doc=doc,
                cmd=f"{{arlab}} validate {path} | grep 'against the headline' | head -1 && "
                    f"{{py}} scripts/model_regret.py {path} | tail -1",
                quotes=[(r"against the headline[^\n]*?MAPE ([\d.]+) %(?:.*\n)*?.*mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %",
                         template)])


# The one-shot bias at 2 and 4 vectors per thread, lean then reference, as scripts/model_bias.py prints it: groups
# {1} lean 2, {2} lean 4, {3} reference 2, {4} reference 4.
VPT_BIAS_2_4 = (r"^lean 2\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^lean 4\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n(?:.*\n)*?"
                r"^reference 2\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^reference 4\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %")


def file_bias(doc, path, by, templates, where=""):
    """A check of one measurement file's bias per group (`arlab validate` with the calibration of its node, then
    `scripts/model_bias.py --by BY [--where WHERE]`), quoted by (regex, template) pairs."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return dict(doc=doc,
                cmd=f"{{arlab}} validate {path} --out {{tmp}}/{stem}.bias.v.csv > /dev/null && {{py}} scripts/model_bias.py "
                    f"{path} {{tmp}}/{stem}.bias.v.csv --by {by}" + (f" --where {where}" if where else ""),
                quotes=templates)


def h100_le16_bias(doc, stem, template):
    """A check of the one-shot bias at most 16 blocks, lean then reference, of an H100 file with today's calibration
    (`scripts/model_bias.py --by kernel_variant,@grid --where algo=oneshot`), quoted by template ({1} lean rows, {2}
    its bias, {3} reference rows, {4} its bias)."""
    return dict(doc=doc,
                cmd=f"{{arlab}} validate data/h100/exp/{stem}.csv --calibration data/calibration/h100_emulated.csv "
                    f"--out {{tmp}}/{stem}.v.csv > /dev/null && {{py}} scripts/model_bias.py data/h100/exp/{stem}.csv "
                    f"{{tmp}}/{stem}.v.csv --by kernel_variant,@grid --where algo=oneshot",
                quotes=[(r"^lean le16\s+(\d+)\s+[\d.]+ %\s+([-+][\d.]+) %\n(?:.*\n)*?reference le16\s+(\d+)\s+[\d.]+ %\s+([-+][\d.]+) %",
                         template)])


def rows_starting(prefixes):
    """The table rows a command prints that start with one of `prefixes`, each to be quoted; a stand-in that
    no page holds where any of them is missing."""
    def derive(out):
        rows = [l for l in out.splitlines() if any(l.startswith(p) for p in prefixes)]
        return rows if len(rows) == len(prefixes) else ["(the command printed %d of the quoted rows)" % len(rows)]
    return derive


# docs/model.md, "Session 56": the rows of scripts/phase_table.py quoted there (N, pattern, H x tokens, [body,] shape).
PHASE_ROWS = ["| 2 | ar_res_rms | 5936 x 200 | reference | 742/1/64/1 |", "| 4 | ar | 5936 x 200 | reference | 742/1/32/1 |",
              "| 4 | ar_res_rms | 11168 x 200 | reference | 698/2/32/1 |", "| 4 | ar_res_rms | 11168 x 200 | lean | 698/2/32/1 |",
              "| 8 | ar_res_rms | 11168 x 200 | reference | 698/2/16/1 |", "| 8 | ar_res_rms | 11168 x 200 | lean | 698/2/16/1 |",
              "| 8 | ar | 11168 x 200 | lean | 698/2/16/1 |"]
BARRIER_ROWS = ["| 2 | ar_res_rms | 5936 x 200 | 742/1/64/1 |", "| 4 | ar | 5936 x 4 | 768/1/4/1 |",
                "| 4 | ar | 5936 x 200 | 742/1/32/1 |", "| 4 | ar_res_rms | 11168 x 200 | 698/2/32/1 |",
                "| 8 | ar_res_rms | 8192 x 32 | 1024/1/16/1 |", "| 8 | ar_res_rms | 11168 x 200 | 698/2/16/1 |"]

# docs/model.md, "Session 57": the one-shot rows of scripts/phase_table.py quoted there.
ONESHOT_PHASE_ROWS = ["| 8 | ar_res_rms | 8192 x 1 | reference | 128/8/8/1 |", "| 8 | ar_res_rms | 8192 x 1 | lean | 128/8/8/1 |",
                      "| 2 | ar_res_rms | 2048 x 64 | reference | 256/1/64/1 |", "| 2 | ar_res_rms | 2048 x 64 | lean | 256/1/64/1 |",
                      "| 2 | ar_res_rms | 8192 x 128 | reference | 1024/1/64/1 |", "| 2 | ar_res_rms | 8192 x 128 | lean | 1024/1/64/1 |",
                      "| 2 | ar_res_rms | 6096 x 512 | reference | 762/1/64/1 |", "| 2 | ar_res_rms | 6096 x 512 | lean | 762/1/64/1 |",
                      "| 2 | ar_res_rms_fp4 | 6096 x 512 | reference | 762/1/64/1 |",
                      "| 2 | ar_res_rms_fp4 | 6096 x 512 | lean | 762/1/64/1 |", "| 4 | ar | 5936 x 200 | lean | 742/1/32/1 |"]
S57 = "data/h100/phase_probe_s57"


def hooks_cost_check(probe, default, template, base=S57):
    """docs/kernels.md, "Phase stamps": a probe run's cost over a default build's (--hooks-cost summary rows) of the
    runs under `base`."""
    row = r"\| {} \| (?:oneshot|twoshot) \| (\d+) \| ([\d.]+) \(([\d.]+) - ([\d.]+)\) \|"
    def derive(out):
        cells = {}
        for body in ("reference", "lean"):
            m = re.search(row.format(body), out)
            if not m:
                return ["(no --hooks-cost row for %s)" % body]
            cells[body] = m.groups()
        return [template.format(**{f"{b[0]}{i}": v for b, g in cells.items() for i, v in enumerate(g)})]
    return dict(doc="docs/kernels.md", cmd=["{py}", "scripts/phase_table.py", f"{base}/{probe}", "{arlab}", "--hooks-cost",
                                            f"{base}/{default}"], derive=derive)


S58 = "data/h100/phase_probe_s58"
PEER_PROBLEMS = "2048x1,2048x8,2048x128,4096x1,4096x16,8192x1,8192x64,16384x1"


def hooks_cost_us_range(label):
    """docs/kernels.md, "Phase stamps": the range of probe minus default microseconds over the rows of a --hooks-cost
    table, labelled."""
    def derive(out):
        d = [float(c[6]) - float(c[7]) for c in table_cells(out) if len(c) == 9 and c[0] in ("reference", "lean")]
        return [f"{label} {min(d):+.2f} to {max(d):+.2f} us"] if d else ["(no --hooks-cost rows)"]
    return derive


def prologue_ranges(out):
    """docs/model.md, "Session 58": the one-shot prologue and exit over the rows of both lists, measured against the
    model's terms."""
    pro, ratio, exit_ = [], [], []
    for line in out.splitlines():
        for a, b in re.findall(r"prologue ([\d.]+) \(([\d.]+)\)", line):
            pro.append(float(a))
            ratio.append(float(a) / float(b))
        exit_ += [float(a) for a in re.findall(r"exit ([\d.]+) \(", line)]
    if not pro or not exit_:
        return ["(no prologue or exit phase printed)"]
    return ["takes %.2f-%.2f us over both lists" % (min(pro), max(pro)), "%.1f-%.1fx the term" % (min(ratio), max(ratio)),
            "The exit (from the closing barrier to the last instruction) is %.2f-%.2f us" % (min(exit_), max(exit_))]


H100_GRIDS = [f"data/h100/exp/model-accuracy_emulated_grid{g}{t}.csv" for g in (35, 36, 37, 38) for t in ("", "_tp4", "_tp8")]
SHARE_COLUMNS = ["pattern", "kernel_variant", "vecs_per_thread", "@round_count", "@threads"]


# The H100's grids 35-38 validated into {tmp} (each file with the measured calibration of its node), and the twelve
# MEASUREMENTS VALIDATION pairs scripts/model_bias.py reads: docs/model.md, "Session 58".
H100_GRIDS_VALIDATED = " && ".join(f"{{arlab}} validate {g} --out {{tmp}}/shares_{os.path.basename(g)} > /dev/null"
                                   for g in H100_GRIDS)
H100_GRID_PAIRS = " ".join(f"{g} {{tmp}}/shares_{os.path.basename(g)}" for g in H100_GRIDS)


def h100_grids_bias(*arguments):
    """A command that validates the H100's grids 35-38, then runs scripts/model_bias.py over their pairs once per
    argument string."""
    return H100_GRIDS_VALIDATED + "".join(f" && {{py}} scripts/model_bias.py {H100_GRID_PAIRS} {a}" for a in arguments)


def error_shares_command():
    """docs/model.md, "Session 58": `scripts/model_bias.py --shares` per algorithm and N over the H100's grids 35-38
    (each block headed by `== ALGO N`)."""
    runs = "; ".join(f"echo '== {a} {n}' && {{py}} scripts/model_bias.py {H100_GRID_PAIRS} --shares "
                     f"{','.join(SHARE_COLUMNS)} --where algo={a} --where nranks={n}"
                     for a in ("oneshot", "twoshot") for n in (2, 4, 8))
    return f"{H100_GRIDS_VALIDATED} && {{ {runs}; }}"


def error_shares_rows(out):
    """The table of docs/model.md, "Session 58", one row per algorithm and N from model_bias.py --shares."""
    rows = []
    for block in out.split("== ")[1:]:
        lines = block.splitlines()
        algo, n = lines[0].split()
        m = re.match(r"(\d+) rows: ln\(predicted / measured\) mean ([-+][\d.]+) %, sd ([\d.]+) %", lines[1])
        if not m:
            return ["(model_bias.py --shares printed no summary for %s N = %s)" % (algo, n)]
        cells = {}
        for line in lines[3:]:
            c = line.split()
            cells[c[0]] = (c[2], c[3].strip("()"), c[-2], c[-1].strip("()"))
        problem = cells["@problem"]
        row = [algo, n, m.group(1), m.group(3) + " %", f"{problem[0]} ({problem[1]})", f"{cells['pattern'][0]}"]
        row += [f"{cells[c][2]} ({cells[c][3]})" for c in SHARE_COLUMNS[1:]]
        rows.append("| " + " | ".join(row) + " |")
    return rows


def barrier1_ranges(out):
    """docs/model.md, "Session 57": the late rank's barrier-1 waits by N, and that no peer ended its copy later."""
    waits, later = collections.defaultdict(list), set()
    for c in table_cells(out):
        if len(c) == 7 and c[0].isdigit():
            m = re.match(r"([\d.]+) \(([\d.]+)\)", c[4])
            waits[int(c[0])].append(float(m.group(1)))
            later.add(m.group(2))
    text = ", ".join(f"{min(w):.2f}-{max(w):.2f} us at TP{n}" for n, w in sorted(waits.items()))
    return [text, "the last peer ending its copy %s us later in every problem" % "/".join(sorted(later))]



CHECKS = [
    dict(doc="docs/model.md", cmd=["{py}", "scripts/accuracy_table.py", "{arlab}"], derive=table_rows),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/phase_table.py", "data/h200/phase_probe_s56", "{arlab}", "--summary"],
         derive=table_rows),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/phase_table.py", "data/h200/phase_probe_s56", "{arlab}"],
         derive=rows_starting(PHASE_ROWS)),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/phase_table.py", "data/h200/phase_probe_s56", "{arlab}", "--barriers"],
         derive=rows_starting(BARRIER_ROWS)),
    # docs/model.md, "Session 57", and docs/kernels.md, "Phase stamps"
    dict(doc="docs/model.md", cmd=["{py}", "scripts/phase_table.py", f"{S57}/probe_v2_twoshot", "{arlab}", "--summary"],
         derive=table_rows),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/phase_table.py", f"{S57}/probe_v2_oneshot", "{arlab}", "--summary"],
         derive=table_rows),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/phase_table.py", f"{S57}/probe_v2_oneshot", "{arlab}"],
         derive=rows_starting(ONESHOT_PHASE_ROWS)),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/phase_table.py", f"{S57}/probe_v2_twoshot", "{arlab}", "--barriers"],
         derive=barrier1_ranges),
    # docs/model.md, "Session 58", and docs/kernels.md, "Phase stamps" and "Beside the peer, phase by phase"
    dict(doc="docs/model.md", cmd=["{py}", "scripts/phase_table.py", f"{S58}/probe_v3_oneshot", "{arlab}", "--summary"],
         derive=table_rows),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/phase_table.py", f"{S58}/probe_v3_peer", "{arlab}"], derive=table_rows),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/phase_table.py", f"{S58}/probe_v3_oneshot", "{arlab}"],
         derive=rows_starting(["| 4 | ar_res_rms_fp4 | 4096 x 32 | reference | 512/1/32/1 |",
                               "| 4 | ar_res_rms_fp4 | 4096 x 32 | lean | 512/1/32/1 |"])),
    dict(doc="docs/model.md", cmd=f"{{py}} scripts/phase_table.py {S58}/probe_v3_oneshot {{arlab}} && "
                                  f"{{py}} scripts/phase_table.py {S58}/probe_v3_peer {{arlab}}", derive=prologue_ranges),
    dict(doc="docs/model.md", cmd=error_shares_command(), derive=error_shares_rows),
    dict(doc="docs/model.md", cmd=h100_grids_bias("--by pattern,@round_count --where algo=oneshot"),
         quotes=[(r"^ar 1 +\d+ +[\d.]+ % +([-+][\d.]+) %\n(?:.*\n)*?^ar_res_rms 1 +\d+ +[\d.]+ % +([-+][\d.]+) %\n(?:.*\n)*?"
                  r"^ar_res_rms_fp4 1 +\d+ +[\d.]+ % +([-+][\d.]+) %\n(?:.*\n)*?^ar_res_rms_fp8 1 +\d+ +[\d.]+ % +([-+][\d.]+) %\n"
                  r"(?:.*\n)*?^ar_res_rms_out_fp4 1 +\d+ +[\d.]+ % +([-+][\d.]+) %\n(?:.*\n)*?"
                  r"^ar_res_rms_out_fp8 1 +\d+ +[\d.]+ % +([-+][\d.]+) %",
                  "predicted {3} % (`ar_res_rms_fp4`) and {5} % (`ar_res_rms_out_fp4`), the FP8 rows {4} % and {6} %, "
                  "`ar_res_rms` {2} % and `ar` {1} %")]),
    dict(doc="docs/model.md", cmd=h100_grids_bias("--by kernel_variant,@round_count --where algo=twoshot --where nranks=4"),
         quotes=[(r"^lean 17\+ +\d+ +[\d.]+ % +([-+][\d.]+) %\n^lean 2-4 +\d+ +[\d.]+ % +([-+][\d.]+) %\n(?:.*\n)*?"
                  r"^reference 17\+ +\d+ +[\d.]+ % +([-+][\d.]+) %\n^reference 2-4 +\d+ +[\d.]+ % +([-+][\d.]+) %",
                  "predicted {2} % long at 2-4 token rounds and {1} % short at 17 or more, the reference {4} % and {3} %")]),
    *[dict(doc="docs/model.md", cmd=h100_grids_bias(*(f"--by {by} --where algo=oneshot --shift-us {d}" for d in shifts)),
           quotes=[(pattern, template)])
      for by, shifts, pattern, template in (
          ("nranks", (0, 0.1, 0.2, 0.3), r"(?m)^2 +\d+ +([\d.]+) %.*\n(?:.*\n)*?^2 +\d+ +([\d.]+) %.*\n(?:.*\n)*?^2 +\d+ +([\d.]+) %"
           r".*\n(?:.*\n)*?^2 +\d+ +([\d.]+) %", "from {1} % to {2} % at +0.1 and +0.2 us and to {4} % at +0.3 us"),
          ("pattern", (0, 0.4), r"(?m)^ar_res_rms_fp4 +\d+ +[\d.]+ % +([-+][\d.]+) %\n(?:.*\n)*?^ar_res_rms_out_fp4 +\d+ +[\d.]+ % +([-+][\d.]+) %"
           r"(?:.*\n)*?^ar_res_rms_fp4 +\d+ +[\d.]+ % +([-+][\d.]+) %\n(?:.*\n)*?^ar_res_rms_out_fp4 +\d+ +[\d.]+ % +([-+][\d.]+) %",
           "bias {1} % and {2} % at +0 us, {3} % and {4} % at +0.4 us"))],
    *[dict(doc="docs/kernels.md", cmd=["{py}", "scripts/phase_table.py", f"{base}/{probe}", "{arlab}", "--hooks-cost",
                                       f"{base}/{default}"], derive=hooks_cost_us_range(label))
      for base, probe, default, label in ((S57, "probe_v2_oneshot", "default_v2/oneshot.csv", "v2"),
                                          (S58, "probe_v3_oneshot", "default_v3/oneshot.csv", "v3"),
                                          (S58, "probe_v3_peer", "default_v3/peer.csv", "it adds"))],
    hooks_cost_check("probe_v3_oneshot", "default_v3/oneshot.csv", "reference {r1}x ({r2}-{r3}x), lean {l1}x ({l2}-{l3}x)",
                     base=S58),
    hooks_cost_check("probe_v3_peer", "default_v3/peer.csv", "reference {r1}x ({r2}-{r3}x), lean {l1}x ({l2}-{l3}x)",
                     base=S58),
    *[dict(doc="docs/kernels.md", cmd=["{py}", "scripts/peer_probe_table.py", f"{S58}/default_v3/peer.csv", PEER_PROBLEMS,
                                       "--kernel", body, "--label", f"phase_default={body}"],
           derive=lambda out: [out.strip()]) for body in ("reference", "lean")],
    hooks_cost_check("probe_v1_oneshot", "default_v1/oneshot.csv",
                     "reference {r1}x ({r2}-{r3}x), lean {l1}x ({l2}-{l3}x), {r0} rows each"),
    hooks_cost_check("probe_v1_twoshot", "default_v1/twoshot.csv",
                     "reference {r1}x ({r2}-{r3}x), lean {l1}x ({l2}-{l3}x), {r0} rows each"),
    hooks_cost_check("probe_v2_oneshot", "default_v2/oneshot.csv", "reference {r1}x ({r2}-{r3}x), lean {l1}x ({l2}-{l3}x)"),
    hooks_cost_check("probe_v2_twoshot", "default_v2/twoshot.csv",
                     "reference {r1}x ({r2}-{r3}x), lean {l1}x ({l2}-{l3}x), {r0} rows each"),
    *[dict(doc="docs/model.md", cmd=["{py}", "scripts/bench_pair.py", "data/calibration/h100_emulated_s57_n2_microbench.csv",
                                     "body_round", f"{body}_n2_{load}_slowest", f"{body}_fp4_n2_{load}_slowest"],
           quotes=[(r"B - A over \d+ points: \+(\d+) to \+(\d+)", template)])
      for body, load, template in (("lean", "allbusy", "+{1} to +{2} ns a round at 4-32 warps"),
                                   ("lean", "solo", "+{1} to +{2} with it idle"),
                                   ("reference", "allbusy", "the reference +{1} to +{2}"),
                                   ("reference", "solo", "and +{1} to +{2})"))],
    *[dict(doc="docs/model.md", cmd=["{arlab}", "predict", "-n", "2", "--hidden", "6096", "-t", "512", "--pattern", pattern,
                                     "--policy", "explicit", "--tpb", "762", "--cluster", "1", "--grid", "64", "--emulated",
                                     "--gpu", "h100_sxm", "--kernel", "lean"],
           quotes=[(r"\n +reduce +([\d.]+) us .*?rounds ([\d.]+) us.*?hbm ([\d.]+) us", template)])
      for pattern, template in (("ar_res_rms", "rounds {2} -> "), ("ar_res_rms_fp4", " -> {2} us with"),
                                ("ar_res_rms", "(hbm {3} us, reduce {1} us)"))],
    *[dict(doc="docs/model.md", cmd=["{arlab}", "predict", "-n", "2", "--hidden", "8192", "-t", "128", "--pattern", pattern,
                                     "--policy", "explicit", "--tpb", "1024", "--cluster", "1", "--grid", "64", "--emulated",
                                     "--gpu", "h100_sxm", "--kernel", "reference"],
           quotes=[(r"\n +reduce +([\d.]+) us .*?rounds ([\d.]+) us.*?hbm ([\d.]+) us", template)])
      for pattern, template in (("ar_res_rms", "(hbm {3} us, reduce {1} us) where the measured rounds take 5.44"),
                                ("ar_res_rms_fp4", "(rounds {2} us; measured 9.02 us)"))],
    dict(doc="docs/model.md", cmd="{py} scripts/model_hbm_share.py {arlab} data/h100/exp/model-accuracy_emulated_grid3[5-8].csv "
                                  "--kernel reference --algo oneshot",
         derive=lambda out: (lambda rows: ["%d of the %d TP2 reference rows below 20 %%" % (
             sum(int(c[3]) for c in rows if c[2] == "0-20 %"), sum(int(c[3]) for c in rows))])(
             [c for c in table_cells(out) if len(c) == 6 and c[0] == "2"])),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_grid{g}{t}.csv --out {{tmp}}/s57_{g}{t}.v.csv "
                         "> /dev/null" for g in (35, 36, 37, 38) for t in ("", "_tp4", "_tp8")) +
             " && {py} scripts/model_bias.py " +
             " ".join(f"data/h100/exp/model-accuracy_emulated_grid{g}{t}.csv {{tmp}}/s57_{g}{t}.v.csv"
                      for g in (35, 36, 37, 38) for t in ("", "_tp4", "_tp8")) +
             " --by kernel_variant,vecs_per_thread,@round_count --where algo=oneshot --where pattern=ar_res_rms_fp4",
         derive=lambda out: (lambda b: [
             "one round is %s %% (lean) and %s %% (reference)" % (b[("lean", "1", "1")], b[("reference", "1", "1")]),
             "with 17 or more rounds %.1f to %.1f %%" % (
                 max(float(b[(k, v, "17+")]) for k in ("lean", "reference") for v in ("2", "4")),
                 min(float(b[(k, v, "17+")]) for k in ("lean", "reference") for v in ("2", "4")))])(
             {tuple(m[:3]): m[3] for m in re.findall(r"^(lean|reference) (\d) (\S+)\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %$", out,
                                                   re.M)})),
    dict(doc="docs/model.md", cmd=["{arlab}", "save-calibration", "{tmp}/s57.csv", "--gpu", "h100_sxm", "--from-microbench",
                                   "data/calibration/h100_emulated_s57_n2_microbench.csv"],
         derive=lambda out: (lambda g: ["give %s ns per warp-vector at N = 4 and %s ns at N = 8 for the" % (g[0][0], g[2][0]),
                                        "rounds, and %s and %s ns for the `ar` rounds" % (g[1][0], g[3][0]),
                                        "(%s and %s ns in that run)" % (g[0][1], g[1][1])])(
             re.findall(r"_bps4 at N = \d \(no constant reads them\): their rows give ([\d.]+) ns per warp-vector \(\d+ "
                        r"rows\) where the model takes \w+ = ([\d.]+) ns", out))),
    dict(doc="docs/results.md", cmd=["{py}", "scripts/ab_table.py", "data/h200/lean_poll_probe_emulated.csv"],
         derive=table_rows),
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/peer_probe_table.py", "data/h200/faithful_probe_emulated.csv",
                                     "2048x1,8192x4,8192x64"] + [a for lab in FAITHFUL_PROBE_LABELS for a in ("--label", lab)],
         derive=table_rows),
    # docs/kernels.md, "By ranks and shape": the library's per-thread view at N = 4 and 8 (session 41)
    *[dict(doc="docs/kernels.md", cmd=["{py}", "scripts/peer_probe_table.py", "data/h100/library_view_probe_emulated.csv",
                                       probs, "--label", "switch_v0=nothing changed (two processes)",
                                       "--label", "switch_view=the library's per-thread view (`library_view`)"],
           derive=table_rows)
      for probs in ("4x8192x32,4x7168x32,4x4096x32,4x4096x128,4x2048x32,4x16384x8,4x4096x8,4x8192x1",
                    "8x16384x8,8x8192x8,8x7168x8,8x5120x32,8x4096x32,8x2048x128,8x4096x1,8x8192x1")],
    dict(doc="docs/kernels.md",
         cmd=["{py}", "-c", "import csv, statistics as st; rows = list(csv.DictReader(open("
              "'data/h100/library_view_probe_emulated.csv'))); "
              "[print(e, m, '%.2f' % st.median(float(r['start_skew_us_median']) for r in rows if r['experiment'] == e "
              "and ('flashinfer' in r['implementation']) == (m == 'library'))) "
              "for e in ('switch_v0', 'switch_view') for m in ('library', 'reference')]; "
              "print('met', sum(r['noise_target_met'] == '1' for r in rows), len(rows))"],
         derive=probe_skew_quotes),
    # docs/kernels.md, "The faithful reference": the kept differences' switch builds (2026-12-05)
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/peer_probe_table.py", "data/h200/faithful_switches_probe_emulated.csv",
                                     "2048x1,8192x4,8192x64"] + [a for lab in FAITHFUL_SWITCH_LABELS for a in ("--label", lab)],
         derive=table_rows),
    # docs/kernels.md, "The reference at one token: issue time" (session 46): the trimmed build against the one before
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/peer_probe_table.py", "data/h100/issue_time_probe_emulated.csv",
                                     "2048x1,2048x128,2048x1024,4096x16,5120x8,8192x1,8192x64,16384x1,16384x32",
                                     "--label", "switch_v0=before (d6ecefd, two processes)",
                                     "--label", "switch_trim=trimmed (a160fc2)"],
         derive=table_rows),
    # docs/model.md, "The grid term's rows by partition" (session 47): the files before the fix (d588222), after it with
    # the calibration of c36b148 (session 47's closing note), and with today's H100 calibration
    h100_validate_table("docs/model.md", [
        ("peers_emulated_tp2_s46", " (the trimmed kernels)", ("9.80 %, 23.02 %", "8.80 %, 18.81 %")),
        ("peers_emulated_tp2", "", ("6.77 %, 22.33 %", "6.46 %, 20.37 %")),
        ("peers_emulated_tp48", "", ("5.12 %, 16.18 %", "4.98 %, 15.82 %")),
        ("speedup_emulated_wide32", "", ("8.83 %, 25.14 %", "8.83 %, 23.30 %"))]),
    h100_le16_bias("docs/model.md", "peers_emulated_tp2_s46", "lean {2} % over {1} rows, reference {4} % over {3})"),
    # docs/model.md, "Session 48: the H100's calibration from the trimmed kernels": the files with the calibration before
    # (367c1b6: session 34's runs with session 42's added) and today's
    h100_validate_table("docs/model.md", [
        ("model-accuracy_emulated_grid32", " (held out, TP2, 1120 rows)", ("8.36 %, 42.99 %",)),
        ("model-accuracy_emulated_grid32_tp4", " (held out, TP4, 1120 rows)", ("8.20 %, 58.61 %",)),
        ("peers_emulated_tp2_s48", " (the trimmed kernels)", ("8.60 %, 21.99 %",)),
        ("peers_emulated_tp2_s46", " (the trimmed kernels, another H100)", ("8.80 %, 18.81 %",))]),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{py}} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_grid32{sfx}.csv | tail -1"
                         for sfx in ("", "_tp4")),
         derive=lambda out: (lambda g: [f"mean\nregret {g[0][0]} % at TP2 (max {g[0][1]} %) and {g[1][0]} % at TP4 (max {g[1][1]} %)"])(
             re.findall(r"mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %", out))),
    h100_le16_bias("docs/model.md", "peers_emulated_tp2_s48",
                   "the lean body {2} % ({1} rows; session 46's file with the old calibration: -14.0 %), the reference {4} % ({3} rows)"),
    # README.md: session 48's rows (grid32 held out; the peers and issue 24's grids with the trimmed kernels)
    dict(doc="README.md",
         cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_grid32{sfx}.csv | grep 'against the headline'"
                         f" | head -1 && {{py}} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_grid32{sfx}.csv | tail -1"
                         for sfx in ("", "_tp4")),
         derive=lambda out: (lambda m, r: [f"grid32 at TP2 / TP4: MAPE {m[0]} % / {m[1]} % with its own calibration, the own pick "
                                           f"{r[0][0]} % / {r[1][0]} % slower than the fastest row on average, {r[0][1]} % / "
                                           f"{r[1][1]} % at worst"])(
             re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out),
             re.findall(r"mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %", out))),
    dict(doc="README.md",
         cmd=" && ".join(" ".join(c) for c in (
             ["{arlab}", "exp", "peers", "--merge", "data/h100/exp/peers_emulated_tp2_s48.csv", "--out-dir", "{tmp}/pm48r", "--no-plots"],
             ["{arlab}", "exp", "speedup", "--merge", "data/h100/exp/speedup_emulated_wide32_s48.csv", "--out-dir", "{tmp}/sm48r", "--no-plots"],
             ["{arlab}", "exp", "speedup", "--merge", "data/h100/exp/speedup_emulated_wide31_s48.csv", "--out-dir", "{tmp}/sm48rb", "--no-plots"])),
         derive=lambda out: (lambda vs, g: [
             f"peers at TP2: reference {vs['trtllm'][0]} (min {vs['trtllm'][1]}), best {vs['model/auto'][0]} (min {vs['model/auto'][1]})",
             "best over the reference " + " / ".join(g[n][0] for n in "248") + " (min " + " / ".join(g[n][1] for n in "248"),
             "over FlashInfer " + " / ".join(g[n][2] for n in "248") + " (min " + " / ".join(g[n][3] for n in "248") + ")"])(
             {m: (a, b) for m, a, b in re.findall(r"VS-FLASHINFER local N=2 (\S+) +geomean ([\d.]+x) over \d+ problems \(min ([\d.]+x)", out)},
             best_goals(out))),
    # docs/kernels.md, "Beside the peer with the trimmed kernels (session 48)"
    dict(doc="docs/kernels.md", cmd=["{arlab}", "exp", "peers", "--merge", "data/h100/exp/peers_emulated_tp2_s48.csv",
                                     "--out-dir", "{tmp}/peers_merge_s48", "--no-plots"],
         quotes=[(r"VS-FLASHINFER local N=2 model/auto +geomean ([\d.]+x) over 72 problems \(min ([\d.]+x)", "| {1} (min {2}) |"),
                 (r"VS-FLASHINFER local N=2 trtllm +geomean ([\d.]+x) over 72 problems \(min ([\d.]+x)", "| {1} (min {2}) |")]),
    dict(doc="docs/kernels.md", cmd=["{arlab}", "exp", "speedup", "--merge", "data/h100/exp/speedup_emulated_wide32_s48.csv",
                                     "--out-dir", "{tmp}/speedup_merge_s48", "--no-plots"],
         quotes=[(r"GOAL best \(model/auto\) on local TP2: over the reference at trtllm geomean ([\d.]+x), min ([\d.]+x) .*"
                  r"FlashInfer at its own configuration geomean ([\d.]+x), min ([\d.]+x)",
                  "| {1} the reference (min {2}); {3} FlashInfer (min {4}) |")]),
    dict(doc="docs/kernels.md", cmd=["{arlab}", "exp", "speedup", "--merge", "data/h100/exp/speedup_emulated_wide31_s48.csv",
                                     "--out-dir", "{tmp}/speedup_merge_s48b", "--no-plots"],
         quotes=[(r"GOAL best \(model/auto\) on local TP4: over the reference at trtllm geomean ([\d.]+x), min ([\d.]+x) .*"
                  r"geomean ([\d.]+x), min ([\d.]+x) .*\n(?:.*\n)*?GOAL best \(model/auto\) on local TP8: over the reference at "
                  r"trtllm geomean ([\d.]+x), min ([\d.]+x) .*geomean ([\d.]+x), min ([\d.]+x)",
                  "| TP4 {1} the reference (min {2}), TP8 {5} (min {6}); FlashInfer {3} / {7} (min {4} / {8}) |")]),
    dict(doc="docs/kernels.md",
         cmd="{arlab} predict --gpu h100_sxm --emulated --hidden 2048 -t 1 --kernel lean --policy explicit --tpb 256 "
             "--cluster 1 --grid 1 --no-terms && {arlab} predict --gpu h100_sxm --emulated --hidden 2048 -t 1 --kernel lean "
             "--policy explicit --tpb 64 --cluster 4 --grid 4 --no-terms",
         quotes=[(r"explicit +oneshot +lean +256/1/1 .* (\d+\.\d+)\n(?:.*\n)*? *explicit +oneshot +lean +64/4/4 .* (\d+\.\d+)$",
                  "predicts 256/1/1 at {1} us (measured 3.52) and 64/4/4 at {2} us (measured 3.81)")]),
    # docs/model.md, "Session 49: one exchange per call, and the reference's relaxed close"
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/exp/model-accuracy_emulated_grid33.csv --out {tmp}/g33.v.csv | "
             "grep -E 'against the headline|Spearman' && {py} scripts/model_regret.py "
             "data/h100/exp/model-accuracy_emulated_grid33.csv | tail -1",
         quotes=[(r"against the headline[^\n]*?MAPE ([\d.]+) %.*max APE ([\d.]+) %\n.*Spearman rho: all rows ([\d.]+);",
                  "MAPE {1} % (max {2} %,\nSpearman {3} over all rows)"),
                 (r"mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %", "mean regret {1} % (max {2} %)")]),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/exp/model-accuracy_emulated_grid33.csv --out {tmp}/g33b.v.csv > /dev/null && "
             "{py} scripts/model_bias.py data/h100/exp/model-accuracy_emulated_grid33.csv {tmp}/g33b.v.csv --by "
             "kernel_variant,cluster --where @rounds=one --where algo=oneshot && {py} scripts/model_bias.py "
             "data/h100/exp/model-accuracy_emulated_grid33.csv {tmp}/g33b.v.csv --by pattern",
         derive=lambda out: (lambda b: [
             f"lean by {-max(b[('lean', c)] for c in '248'):.1f}-{-min(b[('lean', c)] for c in '248'):.1f} %, the reference by "
             f"{-max(b[('reference', c)] for c in '248'):.1f}-{-min(b[('reference', c)] for c in '248'):.1f} %, and\nwithin "
             f"{max(abs(b[('lean', '1')]), abs(b[('reference', '1')])):.1f} % at one block",
             f"(`ar_res_rms_fp4` {b[('ar_res_rms_fp4',)]:+.1f} %, `_out_fp4` {b[('ar_res_rms_out_fp4',)]:+.1f} %)".replace("+-", "-")])(
             {**{(k, c): float(v) for k, c, v in re.findall(r"^(lean|reference) (\d)\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %", out, re.M)},
              **{(k,): float(v) for k, v in re.findall(r"^(ar_res_rms_(?:out_)?fp4)\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %", out, re.M)}})),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/one_token_splits_emulated_s49.csv | grep 'against the headline'",
         quotes=[(r"against the headline[^\n]*?MAPE ([\d.]+) %", "the model is {1} % off")]),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} predict -n 2 -t 1 --hidden 4096 --gpu h100_sxm --emulated --kernel {k} --policy explicit "
                         f"--tpb 512 --cluster 1 --grid 1 --no-terms | grep -E '^  explicit'" for k in ("reference", "lean")),
         quotes=[(r"explicit +oneshot +reference +512/1/1 .* (\d+\.\d+)\n.*explicit +oneshot +lean +512/1/1 .* (\d+\.\d+)",
                  "(reference, {1} us on the one block) and 0.36-0.58 us faster (lean, {2} us)")]),
    dict(doc="docs/model.md", cmd="grep -E '^(bare_cluster_barrier|cluster_lifetime_barrier)' "
                                  "data/calibration/h100_emulated.csv data/calibration/h200_emulated.csv",
         derive=lambda out: (lambda v: [
             f"{v[('h100', 'bare_cluster_barrier_ns')]:.0f} ns + {v[('h100', 'bare_cluster_barrier_ns_per_warp')]:.2f} ns per "
             f"warp and {v[('h100', 'cluster_lifetime_barrier_ns')]:.1f} ns +\n{v[('h100', 'cluster_lifetime_barrier_ns_per_warp')]:.2f}"
             f" ns per warp on the H100, {v[('h200', 'bare_cluster_barrier_ns')]:.0f} ns + "
             f"{v[('h200', 'bare_cluster_barrier_ns_per_warp')]:.2f} ns and {v[('h200', 'cluster_lifetime_barrier_ns')]:.1f} ns + "
             f"{v[('h200', 'cluster_lifetime_barrier_ns_per_warp')]:.2f} ns on the H200"])(
             {(g, n): float(x) for g, n, x in re.findall(r"calibration/(h\d00)_emulated\.csv:(\w+),([-\d.e]+)", out)})),
    grid_mape_regret("README.md", "data/h100/exp/model-accuracy_emulated_grid33.csv",
                     "grid33 at TP2: MAPE {1} %, the own pick {2} % slower than the fastest row on average, {3} % at worst"),
    # docs/model.md, "Session 50: NVFP4 at an odd block size, priced; grid33 on an H200"
    odd_round_line("h200", "a line of {0:.0f} ns + {1:.1f} ns per warp"),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h200/exp/model-accuracy_emulated_grid33.csv | grep -E 'against the headline|Spearman'",
         quotes=[(r"against the headline[^\n]*?MAPE ([\d.]+) %.*\n.*Spearman rho: all rows ([\d.]+);",
                  "the file from MAPE 6.95 to {1} % (Spearman 0.9978 -> {2};")]),
    odd_round_line("h100", "`nvfp4_odd_round_ns` {0:.0f} ns, `_per_warp` {1:.0f}."),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/exp/model-accuracy_emulated_grid33_tp4.csv | grep 'against the headline' && "
             "{py} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_grid33_tp4.csv | tail -1",
         quotes=[(r"against the headline[^\n]*?MAPE ([\d.]+) %", "7.05 to {1} % (its 16 odd rows"),
                 (r"mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %",
                  "is {1} % slower than the fastest row on average and {2} % at worst")]),
    grid_mape_regret("README.md", "data/h100/exp/model-accuracy_emulated_grid33_tp4.csv",
                     "grid33 at TP4 (session 50): MAPE {1} %, the own pick {2} % slower than the fastest row on average, "
                     "{3} % at worst"),
    dict(doc="README.md",
         cmd="{arlab} validate data/h200/exp/model-accuracy_emulated_grid33.csv | grep -E 'against the headline|Spearman' && "
             "{py} scripts/model_regret.py data/h200/exp/model-accuracy_emulated_grid33.csv | tail -1",
         quotes=[(r"against the headline[^\n]*?MAPE ([\d.]+) %.*\n.*Spearman rho: all rows ([\d.]+);(?:.*\n)*?problems (\d+): "
                  r"mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %",
                  "MAPE {1} % over 1120 rows (Spearman {2}); the model's own pick {4} % slower than the fastest row on "
                  "average, {5} % at worst ({3} problems)")]),
    # docs/kernels.md and README.md: issue 24's grids with the model of session 49 (63c5795)
    dict(doc="docs/kernels.md", cmd=S49_SPEEDUP,
         derive=lambda out: (lambda g: [
             f"TP8 {g['8'][0]} the reference (min\n{g['8'][1]}), TP4 {g['4'][0]} (min {g['4'][1]}), TP2 {g['2'][0]} (min {g['2'][1]}) "
             f"and {g['2'][2]} FlashInfer (min {g['2'][3]})"])(best_goals(out))),
    dict(doc="README.md", cmd=S49_SPEEDUP,
         derive=lambda out: (lambda g: [
             "best over the reference " + " / ".join(g[n][0] for n in "248") + " (min " + " / ".join(g[n][1] for n in "248"),
             "over FlashInfer " + " / ".join(g[n][2] for n in "248") + " (min " + " / ".join(g[n][3] for n in "248") + ")"])(
             best_goals(out))),
    # docs/model.md, "Open leads": the body_round records of the calibration (derive_calibrations.sh --notes)
    dict(doc="docs/model.md", cmd=["scripts/derive_calibrations.sh", "{arlab}", "--notes"], derive=body_round_records),
    # docs/kernels.md, "The epilogue alone, profiled" (session 35)
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/epilogue_probe_table.py", "--kernels",
                                     "reference,reference_pow2,reference_gamma_held,lean_twoshot_epilogue,lean_twoshot_epilogue_div",
                                     "--builds", "v0,rsqrt,libnorm"] + sorted(glob.glob(os.path.join(
                                         os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "h200", "epilogue_probe", "*_g*.csv"))),
         derive=table_rows),
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/epilogue_probe_table.py", "--kernels",
                                     "reference_unready,reference,lean_twoshot_epilogue,lean_twoshot_epilogue_div"] + sorted(glob.glob(
                                         os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "h100",
                                                      "epilogue_probe", "ready_h*.csv"))),
         derive=table_rows),
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/peer_probe_table.py", "data/h100/first_vector_ready_probe_emulated.csv",
                                     "4x2048x4096,4x4096x4096,4x8192x1024,4x16384x512,8x2048x1024,8x2048x4096,8x4096x512,"
                                     "8x4096x4096,8x7168x256,8x8192x256",
                                     "--label", "switch_v0=nothing changed (two processes)",
                                     "--label", "switch_ready=the first vector ready (kFirstVectorReady)"],
         derive=table_rows),
    # docs/kernels.md, "The two-shot at large token counts": the library_twoshot probe (2026-12-05)
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/peer_probe_table.py", "data/h200/library_twoshot_probe_emulated.csv",
                                     "4x2048x4096,4x4096x4096,8x2048x4096,8x4096x4096,8x8192x256",
                                     "--label", "switch_v0=nothing changed (two processes)",
                                     "--label", "switch_libtwoshot=the library's accesses (`library_twoshot`)"],
         derive=table_rows),
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/peer_probe_table.py",
                                     "data/h200/library_twoshot_layout_probe_emulated.csv",
                                     "4x2048x4096,8x2048x4096,8x4096x4096",
                                     "--label", "switch_v0=nothing changed (two processes)",
                                     "--label", "switch_layout=the library's layout and loop order (`library_twoshot_layout`)",
                                     "--label", "switch_gamma=gamma held (`twoshot_gamma_held`)"],
         derive=table_rows),
    # README.md
    dict(doc="README.md", cmd=REP, derive=readme_seed),
    dict(doc="README.md", cmd=SEED,
         quotes=[(r"model vs measurement over 173 rows \(19 problems\): MAPE ([\d.]+%), median APE [\d.]+%, Spearman ([\d.]+)",
                  "MAPE {1}, Spearman {2}"),
                 (r"regret model \(its own pick, measured\) mean ([\d.]+%) max ([\d.]+%)",
                  "the model's own pick {1} slower than the best measured on average, {2} at worst")]),
    dict(doc="README.md", cmd=VAL_NV, quotes=[(r"MAPE ([\d.]+ %)   median", "{1} over 351 rows")]),
    dict(doc="docs/history.md", cmd=VAL_EM, quotes=[(r"MAPE ([\d.]+ %)   median", "{1} over 363 rows")]),
    dict(doc="docs/history.md", cmd=SPEEDUP, derive=speedup_geomeans),
    # docs/model.md, "The `ar` round at N = 2 (session 37)", held out on grid27 (H100): today's figures beside
    # those of 9ef8dd8 (fixed text)
    *[dict(doc="docs/model.md",
           cmd=["{arlab}", "validate", f"data/h100/exp/model-accuracy_emulated_grid27{sfx}.csv", "--calibration",
                f"data/calibration/{cal}.csv"],
           quotes=[(r"headline[^\n]*?MAPE ([\d.]+) %", before.replace("X", "{1}"))])
      for sfx, cal, before in (("", "h100_emulated", "8.94 % -> X %"), ("", "h200_emulated", "7.98 % -> X %"),
                               ("_tp4", "h100_emulated", "| X % /"), ("_tp8", "h100_emulated", "/ X %, unchanged |"),
                               ("_tp4", "h200_emulated", "| X % /"), ("_tp8", "h200_emulated", "/ X %, unchanged |"))],
    *[dict(doc="docs/model.md",
           cmd=bias("data/h100/exp/model-accuracy_emulated_grid27.csv", f"data/calibration/{cal}.csv",
                    "--by kernel_variant --where pattern=ar --where algo=oneshot"),
           derive=lambda out, before=before: [f"{b} -> {mape} %, {bias_} %" for b, (_, _, mape, bias_) in
                                              zip(before, bias_groups(out))])
      for cal, before in (("h100_emulated", ("21.2 %, +16.7 %", "17.6 %, +12.0 %")),
                          ("h200_emulated", ("15.3 %, +8.5 %", "13.6 %, +2.8 %")))],
    # docs/kernels.md, "NVFP4's further vectors (session 40)": the A/B across processes on the H100, and the bench's
    # NVFP4 constant of the new build
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/ab_table.py", "data/h100/nvfp4_codes_ab_emulated.csv", "--per-body"],
         quotes=[(r"\| 2 \| ar_res_rms_fp4 \| 8192 \| 64 \| oneshot \| 1024/1/64/1 \(trtllm\) \| reference \| [\d.]+ \| [\d.]+ "
                  r"\| ([\d.]+ \([\d.-]+\)) \|", "| {1} |"),
                 (r"\| 2 \| ar_res_rms_fp4 \| 8192 \| 64 \| oneshot \| 1024/1/64/1 \(trtllm\) \| lean \| [\d.]+ \| [\d.]+ "
                  r"\| ([\d.]+ \([\d.-]+\)) \|", "| {1} |"),
                 (r"\| 2 \| ar_res_rms_fp4 \| 6160 \| 16 \| oneshot \| 385/2/32/1 \(trtllm\) \| reference \| [\d.]+ \| [\d.]+ "
                  r"\| ([\d.]+ \([\d.-]+\)) \|", "; {1} |"),
                 (r"\| 4 \| ar_res_rms_fp4 \| 4096 \| 128 \| twoshot \| 128/1/32/4 \(explicit\) \| lean \| [\d.]+ \| [\d.]+ "
                  r"\| ([\d.]+) \(", "/ {1} |")]),
    dict(doc="docs/kernels.md",
         cmd="{arlab} save-calibration {tmp}/h100_s40.csv --gpu h100_sxm --from-microbench "
             "data/calibration/h100_emulated_s40_n2_microbench.csv",
         quotes=[(r"nvfp4_round_ns_per_extra_vector = ([\d.]+)", "is {1} ns")]),
    dict(doc="docs/kernels.md",
         cmd="{arlab} save-calibration {tmp}/h100_s40_rerun.csv --gpu h100_sxm --from-microbench "
             "data/calibration/h100_emulated_s40_n2_microbench_rerun.csv",
         quotes=[(r"nvfp4_round_ns_per_extra_vector = ([\d.]+)", "({1} and")]),
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/ab_table.py", "data/h100/nvfp4_codes_ab_emulated_rerun.csv", "--per-body"],
         derive=nvfp4_rerun_quotes),
    # docs/kernels.md, "NVFP4's further vectors": grid27 at TP2 on an H100 before and after, the NVFP4 bias
    dict(doc="docs/kernels.md",
         cmd=" && ".join(bias(f, "data/calibration/h100_emulated.csv",
                              "--by pattern,vecs_per_thread --where algo=oneshot --where pattern=ar_res_rms_fp4")
                         for f in ("data/h100/exp/model-accuracy_emulated_grid27.csv",
                                   "data/h100/exp/model-accuracy_emulated_grid27_rerun.csv")),
         derive=lambda out: (lambda g: [f"one vector per thread go from {g[0][3]} % to {g[3][3]} % bias",
                                        f"at two from {g[1][3]} % to {g[4][3]} %",
                                        f"(at four, {g[2][1]} and {g[5][1]} rows)"])(bias_groups_all(out))),
    *[dict(doc="docs/kernels.md", cmd=["{arlab}", "validate", f, "--calibration", "data/calibration/h100_emulated.csv"],
           quotes=[(r"headline[^\n]*?MAPE ([\d.]+) %", tpl)])
      for f, tpl in (("data/h100/exp/model-accuracy_emulated_grid27.csv", "MAPE is {1} %"),
                     ("data/h100/exp/model-accuracy_emulated_grid27_rerun.csv", "and {1} %;"))],
    dict(doc="docs/kernels.md",
         cmd="{arlab} save-calibration {tmp}/h100_s40_rerun2.csv --gpu h100_sxm --from-microbench "
             "data/calibration/h100_emulated_s40_n2_microbench_rerun2.csv",
         quotes=[(r"nvfp4_round_ns_per_extra_vector = ([\d.]+)", "and {1} on two more H100s")]),
    dict(doc="docs/kernels.md",
         cmd=" && ".join(bias(f, "data/calibration/h100_emulated.csv",
                              "--by pattern,vecs_per_thread --where algo=oneshot --where pattern=" + pat)
                         for pat in ("ar_res_rms", "ar_res_rms_fp4")
                         for f in ("data/h100/exp/model-accuracy_emulated_grid27_tp4.csv",
                                   "data/h100/exp/model-accuracy_emulated_grid27_tp4_rerun.csv")),
         derive=lambda out: (lambda g: [f"+{g[0][3].lstrip('+')} / {g[1][3]} / {g[2][3]} % bias at 1 / 2 / 4 vectors per thread, "
                                        f"then +{g[3][3].lstrip('+')} / {g[4][3]} / {g[5][3]} %",
                                        f"`ar_res_rms_fp4` {g[6][3]} % to {g[9][3]} % at one vector, {g[7][3]} % to {g[10][3]} % at two"])
                            (bias_groups_all(out))),
    dict(doc="docs/kernels.md",
         cmd=" && ".join(bias(f, "data/calibration/h100_emulated.csv", "--by algo,pattern --where algo=twoshot --where pattern=ar_res_rms_fp4")
                         for f in ("data/h100/exp/model-accuracy_emulated_grid27_tp4.csv",
                                   "data/h100/exp/model-accuracy_emulated_grid27_tp4_rerun.csv")),
         derive=lambda out: (lambda g: [f"from {g[0][3]} % to {g[1][3]} %"])(bias_groups_all(out))),
    *[dict(doc="docs/kernels.md", cmd=["{arlab}", "validate", f, "--calibration", "data/calibration/h100_emulated.csv"],
           quotes=[(r"headline[^\n]*?MAPE ([\d.]+) %", tpl)])
      for f, tpl in (("data/h100/exp/model-accuracy_emulated_grid27_tp4.csv", "1120 rows {1} %"),
                     ("data/h100/exp/model-accuracy_emulated_grid27_tp4_rerun.csv", "and {1} %."))],
    dict(doc="docs/model.md",
         cmd=pooled_bias(POOL_22_26, "s40", "--by kernel_variant,@threads --where nranks=2 --where algo=oneshot"),
         derive=lambda out: (lambda g: [f"at 16k-64k threads lean {g['lean 16k_64k'][2]} % and\nreference {g['reference 16k_64k'][2]} %"])
                            ({" ".join(k): (rows, mape, b) for k, rows, mape, b in bias_groups(out)})),
    *[dict(doc="docs/model.md", cmd=rng(f"data/calibration/{f}.csv", "value", "bench=bandwidth", f"variant={v}", "sms=64",
                                         "tpb=1024", "--digits", "0"),
           quotes=[(r"^(\d+) \(1 row\)", tpl)])
      for f, v, tpl in (("h100_emulated_microbench", "copy_l2_busy", "at {1} and"),
                        ("h100_emulated_microbench_rerun", "copy_l2_busy", "and {1} GB/s on the H100"),
                        ("h200_emulated_l2_microbench", "copy_l2_busy", "at {1} and\n"),
                        ("h200_emulated_l2_microbench_rerun", "copy_l2_busy", "{1} GB/s on the H200"),
                        ("h100_emulated_microbench", "copy_busy", "at {1} and"),
                        ("h100_emulated_microbench_rerun", "copy_busy", "{1} against"),
                        ("h200_emulated_l2_microbench", "copy_busy", "against {1} and"),
                        ("h200_emulated_l2_microbench_rerun", "copy_busy", "and {1} GB/s. A rate"))],
    # docs/model.md, "Where the H100's calibration prices long": the H100's TP2 rows by threads in flight
    dict(doc="docs/model.md",
         cmd=" && ".join([f"{{arlab}} validate data/h100/exp/{f}.csv --calibration data/calibration/h100_emulated.csv "
                          f"--out {{tmp}}/h100long_{f}.csv > /dev/null" for f in H100_TP2_LONG] +
                         ["{py} scripts/model_bias.py " + " ".join(f"data/h100/exp/{f}.csv {{tmp}}/h100long_{f}.csv"
                                                                   for f in H100_TP2_LONG) +
                          " --by kernel_variant,@threads --where nranks=2 --where algo=oneshot"]),
         derive=lambda out: (lambda g: [f"lean {g['lean 16k_64k'][2]} % ({g['lean 16k_64k'][0]} rows), reference "
                                        f"{g['reference 16k_64k'][2]} % ({g['reference 16k_64k'][0]})",
                                        f"{g['lean ge64k'][2]} % and {g['reference ge64k'][2]} %",
                                        f"at 4k-16k threads {g['lean 4k_16k'][2]} % and {g['reference 4k_16k'][2]} %"])
                            ({" ".join(k): (rows, mape, b) for k, rows, mape, b in bias_groups(out)})),
    *[dict(doc="docs/model.md", cmd=rng(f, col, "nranks=2", "tokens=128", "hidden=8192", "tpb=1024", "grid=64",
                                         "kernel_variant=lean", "--digits", d),
           quotes=[(r"^([\d.]+) \(1 row\)", tpl)])
      for f, col, d, tpl in (("data/h200/exp/speedup_emulated_wide26.csv", "skewfree_us_median", "2", "measured {1} us on the H200"),
                             ("data/h100/exp/speedup_emulated_wide30.csv", "skewfree_us_median", "2", "and {1} us on the H100"),
                             ("data/h100/exp/speedup_emulated_wide30.csv", "predicted_us", "3", "and {1} us with the H100's"))],
    dict(doc="docs/model.md", cmd=["{arlab}", "predict", "-n", "2", "-t", "128", "--hidden", "8192", "--emulated", "--gpu", "h200_sxm",
                                   "--kernel", "lean", "--policy", "explicit", "--tpb", "1024", "--cluster", "1", "--grid", "64",
                                   "--no-terms", "--calibration", "data/calibration/h200_emulated.csv"],
         quotes=[(r"explicit +oneshot +lean +1024/1/64 +\d+ +\d+ +([\d.]+)", "priced it {1} us with the H200's")]),
    # docs/kernels.md, "By ranks and shape": the H100's table, and the H200's medians per N
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/peers_by_shape.py", "data/h100/exp/peers_emulated_tp2_summary.csv",
                                     "data/h100/exp/peers_emulated_tp48_summary.csv"],
         derive=lambda out: table_rows(out) + [
             (lambda v: f"median is {min(v, key=float)}-{max(v, key=float)}x")(
                 re.findall(r"^\| [48] \| \d+ \| \w+ \| \d+ \| ([\d.]+)x", out, re.M)),
             "included ({}x and {}x)".format(*re.findall(r"^\| [48] \| 1 \| several \| \d+ \| ([\d.]+)x", out, re.M))]),
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/peers_by_shape.py", "data/h200/exp/peers_emulated_tp2_rerun12_summary.csv",
                                     "data/h200/exp/peers_emulated_tp4_rerun6_summary.csv",
                                     "data/h200/exp/peers_emulated_tp8_rerun10_summary.csv"],
         derive=shape_medians),
    # docs/kernels.md, "The read-back prefetched into L1": ranges over the A/B's rows
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/ab_table.py", "data/h100/prefetch_l1_ab_emulated.csv", "--per-body"],
         derive=prefetch_quotes),
    # docs/kernels.md, "The lean bodies' mean square, measured": the A/B on the H100 and the speedup pairs
    dict(doc="docs/kernels.md", cmd=["{py}", "scripts/ab_table.py", "data/h100/lean_divide_probe_emulated.csv"],
         derive=table_rows),
    *[dict(doc="docs/kernels.md",
           cmd=["{py}", "scripts/kernel_speedup.py", "summary", f"data/h100/exp/speedup_emulated_{a}_summary.csv",
                f"data/h100/exp/speedup_emulated_{a}_lean_divide_summary.csv"],
           quotes=[(r"geomean speedup ([\d.]+x)[^\n]*\n[^\n]*geomean speedup ([\d.]+x)", "{1} / {2} (default / probe)"
                    if a == "wide28" else "{1} /\n{2}")])
      for a in ("wide28", "wide29")],
    # docs/model.md, "Where clusters land at several blocks per SM": each file's MAPE, max APE and Spearman
    *[dict(doc="docs/model.md", cmd=["{arlab}", "validate", f"data/h200/{name}", "--calibration", "auto"],
           quotes=[(r"MAPE ([\d.]+) %   median APE [\d.]+ %   p90 APE [\d.]+ %   max APE ([\d.]+) %[\s\S]*?Spearman rho: all rows ([\d.]+);",
                    "| {1} % | {2} % | {3} |")])
      for name in ("exp/seed_emulated.csv", "seed.csv", "exp/lean_configs_final_emulated.csv",
                   "exp/config-space_emulated.csv", "exp/speedup_emulated_wide2.csv")],
    # docs/model.md, "The reference two-shot's epilogue rounds": grid24 TP2 by round count, and its longest row
    dict(doc="docs/model.md",
         cmd=bias("data/h200/exp/model-accuracy_emulated_grid24.csv", "data/calibration/h200_emulated.csv",
                  "--by @round_count --where kernel_variant=reference --where algo=twoshot"),
         derive=round_count_rows),
    dict(doc="docs/model.md",
         cmd=["{arlab}", "predict", "-n", "2", "--emulated", "-t", "52", "--hidden", "4032", "--algo", "twoshot",
              "--policy", "explicit", "--tpb", "896", "--cluster", "1", "--grid", "5", "--no-terms"],
         derive=lambda out: ["%.2f us predicted" % float(
             re.search(r"explicit\s+twoshot\s+reference\s+896/1/5\s+\d+\s+\d+\s+([\d.]+)", out).group(1))]),
    dict(doc="docs/model.md",
         cmd=rng("data/h200/exp/model-accuracy_emulated_grid24.csv", "skewfree_us_median", "tokens=52", "hidden=4032",
                 "tpb=896", "grid=5", "algo=twoshot", "kernel_variant=reference", "pattern=ar_res_rms"),
         quotes=[(r"^([\d.]+) \(1 row\)", "predicted, {1} us measured")]),
    # docs/model.md, "Where the `ar` pattern is off by N": grid24's one-shot `ar` rows per body and node
    *[dict(doc="docs/model.md",
           cmd=bias(f"data/h200/exp/model-accuracy_emulated_grid24{sfx}.csv", "data/calibration/h200_emulated.csv",
                    "--by kernel_variant --where pattern=ar --where algo=oneshot"),
           derive=lambda out, node=node: [f"| {node} | {ar_bias_cell(out, 'lean')} | {ar_bias_cell(out, 'reference')} |"])
      for node, sfx in (("TP2", ""), ("TP4", "_tp4"), ("TP8", "_tp8"))],
    # docs/model.md, "The quantizing patterns' rounds": grid24's one-shot bias per pattern and node
    *[dict(doc="docs/model.md",
           cmd=bias(f"data/h200/exp/model-accuracy_emulated_grid24{sfx}.csv", "data/calibration/h200_emulated.csv",
                    "--by pattern --where algo=oneshot"),
           derive=lambda out, node=node: ["| " + node + " | " + " | ".join(
               bias_of_group(out, [p]) + " %" for p in ("ar_res_rms", "ar_res_rms_fp8", "ar_res_rms_out_fp8",
                                                        "ar_res_rms_fp4", "ar_res_rms_out_fp4")) + " |"])
      for node, sfx in (("TP2", ""), ("TP4", "_tp4"), ("TP8", "_tp8"))],
    # docs/results.md, "Known limits": grid25 per node, and its worst TP8 own pick
    *[dict(doc="docs/results.md", cmd=VAL_G25[node], quotes=[(r"MAPE ([\d.]+) %   median", f"{{1}} % ({node})")])
      for node in VAL_G25],
    dict(doc="docs/results.md", cmd=["{py}", "scripts/model_regret.py", "data/h200/exp/model-accuracy_emulated_grid25_tp8.csv"],
         quotes=[(r"mean regret [\d.]+ %, median [\d.]+ %, max ([\d.]+) %", "TP8 was at worst {1} % slower")]),
    dict(doc="docs/model.md",
         cmd=" && ".join(bias(f"data/h200/exp/model-accuracy_emulated_grid24{sfx}.csv", "data/calibration/h200_emulated.csv",
                              "--by @round_count --where pattern=ar --where algo=oneshot") for sfx in ("", "_tp4", "_tp8")),
         derive=ar_first_round_quote),
    # README.md, today's figures: the latest fresh grid (grid25) at TP2 / TP4 / TP8 and its own-pick regret; the
    # latest peers grids (reference and best against FlashInfer); issue 24's grid (speedup wide26 / wide27)
    *[dict(doc="README.md", cmd=VAL_G25[node],
           quotes=[(r"MAPE ([\d.]+) %   median", f"{{1}} %{tail}")]) for node, tail in
      (("TP2", " / "), ("TP4", " / "), ("TP8", " over 1120 / 1120 / 1054 rows"))],
    *[dict(doc="README.md", cmd=VAL_G25[node], quotes=[(r"total [\d.]+ ms \((\d+) rows\)", rows)])
      for node, rows in (("TP2", "over {1} / "), ("TP4", "/ {1} / "), ("TP8", "/ {1} rows"))],
    dict(doc="README.md",
         cmd=" && ".join(f"{{py}} scripts/model_regret.py data/h200/exp/model-accuracy_emulated_grid25{sfx}.csv | tail -1"
                         for sfx in ("", "_tp4", "_tp8")),
         derive=readme_grid_regret),
    *[dict(doc="README.md", cmd=merged("peers", name),
           quotes=[(rf"^VS-FLASHINFER local N={n} trtllm\s+geomean ([\d.]+x) over (\d+) problems \(min ([\d.]+x)",
                    ref_tpl),
                   (rf"^VS-FLASHINFER local N={n} model/auto\s+geomean ([\d.]+x) over \d+ problems \(min ([\d.]+x)",
                    best_tpl)])
      for n, name, ref_tpl, best_tpl in (
          (2, "peers_emulated_tp2_rerun12", "| {1} / ", "| {1} / "),
          (4, "peers_emulated_tp4_rerun6", "/ {1} / ", "/ {1} / "),
          (8, "peers_emulated_tp8_rerun10", "/ {1} (min ", "/ {1} (min "))],
    dict(doc="README.md", cmd=shell_and(merged("peers", "peers_emulated_tp2_rerun12"), merged("peers", "peers_emulated_tp4_rerun6"),
                                        merged("peers", "peers_emulated_tp8_rerun10")), derive=readme_peers_minima),
    dict(doc="README.md", cmd=shell_and(merged("speedup", "speedup_emulated_wide26"), merged("speedup", "speedup_emulated_wide27")),
         derive=readme_speedup_goals),
    # the same grids on an H100 (session 39), and grid27 there with both calibrations and the own pick's regret
    dict(doc="README.md", cmd=shell_and(merged("speedup", "speedup_emulated_wide30", "h100"),
                                        merged("speedup", "speedup_emulated_wide31", "h100")),
         derive=readme_speedup_goals),
    dict(doc="README.md",
         cmd=shell_and(*[["{arlab}", "validate", f"data/h100/exp/model-accuracy_emulated_grid27{sfx}.csv", "--calibration",
                          f"data/calibration/{cal}.csv"] for cal in ("h100_emulated", "h200_emulated")
                         for sfx in ("", "_tp4", "_tp8")]),
         derive=lambda out: [" / ".join(m[:3]) + " with its own, " + " / ".join(m[3:]) + " with the H200's"
                             for m in [[x + " %" for x in re.findall(r"headline[^\n]*?MAPE ([\d.]+) %", out)]]] +
                            [" / ".join(r[:3]) + " slower than the fastest row on average, " + " / ".join(r[3:6]) + " at worst"
                             for r in [[f"{a} %" for a in re.findall(r"model \(its own pick, measured\) +\d+ +\d+ +\d+ +\d+ +([\d.]+)%",
                                                                      out)[:3]] +
                                       [f"{b} %" for b in re.findall(r"model \(its own pick, measured\)[^\n]*?([\d.]+)%\n", out)[:3]]]]),
    # the peers' grid on an H100: TP2 (session 39) and TP4 / TP8 (session 40), the reference and the best
    dict(doc="README.md", cmd=shell_and(merged("peers", "peers_emulated_tp2", "h100"), merged("peers", "peers_emulated_tp48", "h100")),
         derive=h100_peers_row),
    dict(doc="README.md", cmd=rng("data/h200/soak.csv", "calls", "--digits", "0"), derive=soak_calls),
    dict(doc="README.md", cmd=rng("data/h200/soak.csv", "mismatched_calls", "--digits", "0"),
         quotes=[(r"^(\d+) \(", "{1} mismatched")]),
    dict(doc="docs/history.md", cmd=PEERS,
         quotes=[(r"VS-FLASHINFER local N=2 model/auto +geomean ([\d.]+x) over 72 problems \(min ([\d.]+x)",
                  "{1} (min {2})"),
                 (r"VS-FLASHINFER local N=8 model/auto +geomean ([\d.]+x) over 72 problems \(min ([\d.]+x)",
                  "{1} (min {2})")]),
    # docs/results.md
    dict(doc="docs/results.md", cmd=PEERS,
         derive=lambda out: printed_lines(out, lambda line: line.startswith("VS-FLASHINFER"))),
    dict(doc="docs/results.md", cmd=SPEEDUP_WIDE2,
         derive=lambda out: printed_lines(out, lambda line: line.startswith("GOAL"))),
    dict(doc="docs/results.md", cmd=SPEEDUP_WIDE3,
         derive=lambda out: printed_lines(out, lambda line: line.startswith("GOAL"))),
    dict(doc="docs/results.md", cmd=PEERS_TP2_RERUN,
         derive=lambda out: printed_lines(out, lambda line: line.startswith("VS-FLASHINFER"))),
    dict(doc="docs/results.md", cmd=SPEEDUP_WIDE4,
         derive=lambda out: printed_lines(out, lambda line: line.startswith("GOAL"))),
    dict(doc="docs/model.md", cmd=VAL_LAT,
         quotes=[(r"model \(lowest predicted among measured\) +\d+ +\d+ +\d+ +\d+ +([\d.]+)% +[\d.]+% +([\d.]+)%",
                  "is {1} % slower than the best on average ({2} % at worst)")]),
    # docs/model.md, "The mbarrier exchange": the fresh grid7 at TP2 and TP4, and the README's line of it
    dict(doc="docs/model.md", cmd=VAL_G7, quotes=[(r"MAPE ([\d.]+) %   median", "grid7.csv`) | 178 s | {1} % |"),
                                                 (OWN_PICK_SIGNED, "| {1} % / {2} % (32 groups)")]),
    dict(doc="docs/model.md", cmd=VAL_G7_TP4, quotes=[(r"MAPE ([\d.]+) %   median", "grid7_tp4.csv`) | 231 s | {1} % |"),
                                                     (OWN_PICK_SIGNED, "| {1} % / {2} % |")]),
    *readme_fresh_grid_checks("grid7", VAL_G7, VAL_G7_TP4),
    # docs/model.md, "After the lean prologue change": the unchanged model on the new rows, and its bias per token count
    dict(doc="docs/model.md", cmd=VAL_W13, quotes=[(r"MAPE ([\d.]+) %   median", "gives MAPE {1} % on the new rows")]),
    dict(doc="docs/model.md", cmd=VAL_W12, quotes=[(r"MAPE ([\d.]+) %   median", "against {1} % on the rows before")]),
    dict(doc="docs/model.md", cmd=VAL_R10, quotes=[(r"MAPE ([\d.]+) %   median", "and {1} % against")]),
    dict(doc="docs/model.md", cmd=VAL_R9, quotes=[(r"MAPE ([\d.]+) %   median", "against\n{1} % on the TP2 peers grid")]),
    dict(doc="docs/model.md",
         cmd=bias("data/h200/exp/speedup_emulated_wide13.csv", "data/calibration/h200_emulated.csv",
                  "--by kernel_variant,tokens --where nranks=2 --where algo=oneshot"),
         derive=lambda out: [bias_by_tokens_row(out, body, ("1", "4", "16", "32", "64", "128", "512"))
                             for body in ("lean", "reference")]),
    dict(doc="docs/model.md", cmd=VAL_LAT_PROLOGUE,
         quotes=[(r"MAPE ([\d.]+) %   median", "gives MAPE {1} % over the grid"),
                 (OWN_PICK_SIGNED, "own pick is {1} % slower than the best on\naverage, {2} % at worst")]),
    dict(doc="docs/model.md", cmd=VAL_LAT_MBARRIER, quotes=[(r"MAPE ([\d.]+) %   median", "({1} % on\n")]),
    dict(doc="docs/model.md",
         cmd=bias("data/h200/model_grid_latency_prologue_emulated.csv", "data/calibration/h200_emulated.csv",
                  "--by kernel_variant,nranks"),
         derive=lambda out: [f" % to {bias_of_group(out, ['lean', '2'])} % bias, lean at TP8 from",
                             f" % to {bias_of_group(out, ['lean', '8'])} %,"]),
    dict(doc="docs/model.md",
         cmd=bias("data/h200/model_grid_latency_mbarrier_emulated.csv", "data/calibration/h200_emulated.csv",
                  "--by kernel_variant,nranks"),
         derive=lambda out: [f"went from {bias_of_group(out, ['lean', '2'])} % to",
                             f"TP8 from {bias_of_group(out, ['lean', '8'])} % to"]),
    # docs/results.md and the README: the TP4 / TP8 peers grids with the prologue's kernels
    dict(doc="docs/results.md", cmd=merged("peers", "peers_emulated_tp4_rerun2"),
         quotes=peers_node_quotes(4, "best over FlashInfer", "tokens), the reference at trtllm",
                                  "at TP4 {1} us for arlab's pick and {2} us")),
    dict(doc="docs/results.md", cmd=merged("peers", "peers_emulated_tp8_rerun"),
         quotes=peers_node_quotes(8, "at TP8", "1.05x), the reference at trtllm", "at TP8 {1} and {2} us")),
    dict(doc="docs/results.md", cmd=merged("peers", "peers_emulated_tp8_rerun2"),
         quotes=[(r"^(VS-FLASHINFER local N=8 (model/auto|trtllm|vllm) .*)$", "{1}"),
                 (r"^(VS-FLASHINFER local N=8 trtllm .*)$", "{1}"),
                 (r"^(VS-FLASHINFER local N=8 vllm .*)$", "{1}")]),
    dict(doc="docs/history.md", cmd=merged("peers", "peers_emulated_tp4_rerun2"),
         quotes=[(r"^VS-FLASHINFER local N=4 model/auto\s+geomean ([\d.]+x) over 72 problems \(min ([\d.]+x)",
                  "best over FlashInfer {1} (min {2}) / ")]),
    dict(doc="docs/history.md", cmd=merged("peers", "peers_emulated_tp8_rerun"),
         quotes=[(r"^VS-FLASHINFER local N=8 model/auto\s+geomean ([\d.]+x) over (\d+) problems \(min ([\d.]+x)",
                  " / {1} (min {3}; {2} problems")]),
    # docs/model.md, "The fresh grid after the grid term": the cost of one more round, every row as printed
    dict(doc="docs/model.md",
         cmd=bias("data/h200/exp/model-accuracy_emulated_grid8.csv", "data/calibration/h200_emulated.csv",
                  "--round-cost --where pattern=ar_res_rms --where algo=oneshot"),
         derive=table_rows),
    # docs/model.md, "The grid term": the fresh grid8 at TP2 and TP4, and the README's line of it
    dict(doc="docs/model.md", cmd=VAL_G8, quotes=[(r"MAPE ([\d.]+) %   median", "grid8.csv`) | 207 s | {1} % |"),
                                                 (OWN_PICK_SIGNED, "| {1} % / {2} % (32 groups)")]),
    dict(doc="docs/model.md", cmd=VAL_G8_TP4, quotes=[(r"MAPE ([\d.]+) %   median", "the other 10, resumed) | {1} % |"),
                                                     (OWN_PICK_SIGNED, "| {1} % / {2} % (32 groups)")]),
    *readme_fresh_grid_checks("grid8", VAL_G8, VAL_G8_TP4),
    # docs/model.md, "The fresh grid after the drain" and "Further vectors": grid9 with today's model, and the
    # README's line of it; the drain's picks measured (wide15)
    dict(doc="docs/model.md", cmd=VAL_G9, quotes=[(r"MAPE ([\d.]+) %   median", "| 10.50 % | {1} % |"),
                                                 (OWN_PICK_SIGNED, "| {1} % / {2} % (32 groups)"),
                                                 (r"MAPE ([\d.]+) %   median", "TP2 10.56 % -> {1} %")]),
    dict(doc="docs/model.md", cmd=VAL_G9_TP4, quotes=[(r"MAPE ([\d.]+) %   median", "| 11.12 % | {1} % |"),
                                                     (OWN_PICK_SIGNED, "| {1} % / {2} % (32 groups)"),
                                                     (r"MAPE ([\d.]+) %   median", "TP4 11.07 % -> {1} %")]),
    *readme_fresh_grid_checks("grid9", VAL_G9, VAL_G9_TP4),
    # docs/model.md, "The fresh grid after the further vectors" (its ar_res_rms part), and the README's line of it
    dict(doc="docs/model.md", cmd=VAL_G10, quotes=[(r"MAPE ([\d.]+) %   median", "On those rows, `arlab validate`: MAPE {1} %"),
                                                  (OWN_PICK, "groups) {1} % / {2} % mean / worst regret over 12")]),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/model_files.py", "{arlab}"], derive=drain_table_rows),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/model_files.py", "{arlab}"],
         derive=lambda out: drain_table_rows(out, LEAN_ROUND_TABLE_ROWS)),
    # docs/model.md, "The lean round at four and eight ranks": the fresh grid11 (TP4) and the TP8 peers grid's lean
    # one-shot bias with today's model; the README's line of them
    dict(doc="docs/model.md", cmd=VAL_G11_TP4,
         quotes=[(r"MAPE ([\d.]+) %   median", "9.67 % with it per round (the model that ran), {1} % with today's model"),
                 (OWN_PICK_SIGNED, "the model's own pick, measured in the same groups: {1} % / {2} % mean / worst regret")]),
    dict(doc="docs/history.md", cmd=VAL_G11_TP4,
         quotes=[(r"MAPE ([\d.]+) %   median", "at TP4 MAPE {1} % (10.03 % without the term)"),
                 (OWN_PICK_SIGNED, "the model's own pick {1} % / {2} % (mean / max regret); issue 24's grid with its")]),
    *[dict(doc="docs/model.md", cmd=VAL_G24[node],
           quotes=[(r"MAPE ([\d.]+) %   median", f"| {node} | {G24_BEFORE[node]} | {{1}} % |")]) for node in VAL_G24],
    *[dict(doc="docs/model.md",
           cmd=["{py}", "scripts/model_regret.py", f"data/h200/exp/model-accuracy_emulated_grid24{suffix}.csv"],
           quotes=[(r"mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %", "| {1} % / {2} % |")])
      for suffix in ("", "_tp4", "_tp8")],
    dict(doc="docs/history.md", cmd=VAL_G11,
         quotes=[(r"MAPE ([\d.]+) %   median", "at TP2, where it adds nothing, MAPE {1} %"),
                 (OWN_PICK_SIGNED, "and own pick {1} % / {2} %; at TP4")]),
    dict(doc="docs/model.md", cmd=VAL_G11,
         quotes=[(r"MAPE ([\d.]+) %   median", "where the term adds nothing: MAPE {1} %"),
                 (OWN_PICK_SIGNED, "the model's own pick {1} % / {2} %\nmean / worst regret over 32 groups; per body")]),
    dict(doc="docs/model.md", cmd=BIAS_TP8_PEERS,
         derive=lambda out: [f"clusters of 4 and 8 is now at {bias_of_group(out, ['lean', 'oneshot', '4'])} % and "
                             f"{bias_of_group(out, ['lean', 'oneshot', '8'])} %"]),
    dict(doc="docs/history.md", cmd=BIAS_TP8_PEERS,
         derive=lambda out: [f"-5.8 % / -7.7 % -> {bias_of_group(out, ['lean', 'oneshot', '4'])} % / "
                             f"{bias_of_group(out, ['lean', 'oneshot', '8'])} %"]),
    dict(doc="docs/results.md", cmd=VAL_G9, quotes=[(r"MAPE ([\d.]+) %   median", "the same grid predicts at {1} % and")]),
    dict(doc="docs/results.md", cmd=VAL_G9_TP4, quotes=[(r"MAPE ([\d.]+) %   median", "% and {1} %, and a fresh grid's")]),
    dict(doc="docs/results.md", cmd=VAL_G10,
         quotes=[(r"MAPE ([\d.]+) %   median", "model-accuracy_emulated_grid10_partial.csv`) at {1} %, against 8.78 %"),
                 (OWN_PICK, "the model's own pick {1} % slower than the best on average over its 12 groups, {2} %")]),
    dict(doc="docs/history.md", cmd=VAL_G10, quotes=[(r"MAPE ([\d.]+) %   median", "grid10 (ar_res_rms part) MAPE {1} %"),
                                              (OWN_PICK, "own pick {1} % / {2} % over its 12 groups")]),
    dict(doc="docs/results.md", cmd=merged("speedup", "speedup_emulated_wide15"), quotes=speedup_goal_quotes(True)),
    # docs/results.md: the grid term's picks measured (rerun11 / wide14)
    dict(doc="docs/results.md", cmd=merged("peers", "peers_emulated_tp2_rerun11"),
         quotes=peers_tp2_quotes("72 of 72", " (within")),
    dict(doc="docs/results.md", cmd=merged("speedup", "speedup_emulated_wide14"), quotes=speedup_goal_quotes(True)),
    # docs/results.md and the README: the lean prologue's picks measured (rerun10 / wide13)
    dict(doc="docs/results.md", cmd=merged("peers", "peers_emulated_tp2_rerun10"),
         quotes=peers_tp2_quotes("72 of 72", " (within")),
    dict(doc="docs/results.md", cmd=merged("speedup", "speedup_emulated_wide13"), quotes=speedup_goal_quotes(True)),
    dict(doc="docs/history.md", cmd=merged("peers", "peers_emulated_tp2_rerun10"),
         quotes=[(r"^VS-FLASHINFER local N=2 model/auto\s+geomean ([\d.]+x) over 72 problems \(min ([\d.]+x)",
                  "over FlashInfer {1} at TP2 (min {2}, all 72")]),
    dict(doc="docs/history.md", cmd=merged("speedup", "speedup_emulated_wide13"),
         quotes=[(r"TP{}: over the reference at trtllm geomean ([\d.]+x), min ([\d.]+x)".format(n), q)
                 for n, q in ((2, "over the reference {1} / "), (2, "(min {2} / "), (4, " / {1} / "), (4, " / {2} / "),
                              (8, " / {1} (min "), (8, " / {2}); the TP4"))]),
    # docs/results.md: the mbarrier exchange's picks measured (rerun9 / wide12)
    dict(doc="docs/results.md", cmd=merged("peers", "peers_emulated_tp2_rerun9"),
         quotes=peers_tp2_quotes("72 of 72", " (within")),
    dict(doc="docs/results.md", cmd=merged("speedup", "speedup_emulated_wide12"), quotes=speedup_goal_quotes(True)),
    # docs/results.md: the committed model's picks measured (rerun8 / wide11)
    dict(doc="docs/results.md", cmd=merged("peers", "peers_emulated_tp2_rerun8"),
         quotes=peers_tp2_quotes("70 of 72", ", median")),
    dict(doc="docs/results.md", cmd=merged("speedup", "speedup_emulated_wide11"), quotes=speedup_goal_quotes(False)),
    # docs/model.md, "Where clusters land": the fresh grid6 at TP2 and TP4, and the README's line of it
    dict(doc="docs/model.md", cmd=VAL_G6, quotes=[(r"MAPE ([\d.]+) %   median", "{1} % (10.77 % with the model before)"),
                                                 (OWN_PICK, "pick {1} % slower than the best of its group on average and "
                                                            "{2} % at worst (32 groups)")]),
    dict(doc="docs/model.md", cmd=VAL_G6_TP4, quotes=[(r"MAPE ([\d.]+) %   median", "MAPE {1} % (11.26 % with the model before)"),
                                                     (OWN_PICK, "the model's own pick {1} % slower than the best of its "
                                                                "group on average and {2} % at worst")]),
    dict(doc="docs/history.md", cmd=VAL_G6, quotes=[(r"MAPE ([\d.]+) %   median", "MAPE {1} % / "),
                                             (OWN_PICK, "the model's own pick {1} % / ")]),
    dict(doc="docs/history.md", cmd=VAL_G6_TP4, quotes=[(r"MAPE ([\d.]+) %   median", "/ {1} % over 1120 rows each"),
                                                 (OWN_PICK, "/ {1} % slower than the best on average")]),
    # docs/model.md, "Session 51: the lean round's cost per further rank as a line over warps"
    dict(doc="docs/model.md",
         cmd="{arlab} save-calibration {tmp}/h100_s51.csv --gpu h100_sxm --from-microbench "
             "data/calibration/h100_emulated_s48_n2_microbench.csv --rows-microbench "
             "data/calibration/h100_emulated_s48_n4_microbench.csv data/calibration/h100_emulated_s48_n8_microbench.csv "
             "--skew-microbench data/calibration/h100_emulated_s48_n4_microbench.csv "
             "data/calibration/h100_emulated_s48_n8_microbench.csv | grep -E '^ *lean_round_ns_per_extra_rank ='",
         derive=lambda out: (lambda per: [
             "it is {:.0f}-{:.0f} ns at blocks of 4 warps, {:.0f}-{:.0f} at 8, {:.0f}-{:.0f} at 16 and".format(
                 min(per[4]), max(per[4]), min(per[8]), max(per[8]), min(per[16]), max(per[16])),
             "{:.0f}-{:.0f} ns at 32".format(min(per[32]), max(per[32]))])(
             lean_rank_costs(out))),
    calibration_line("h100", "lean_round_ns_per_extra_rank", "H100: {0:.0f} ns + {1:.1f} ns per warp"),
    calibration_line("h200", "lean_round_ns_per_extra_rank", "H200: {0:.0f} ns + {1:.1f} ns per warp."),
    dict(doc="docs/model.md",
         cmd="for k in lean reference; do {arlab} predict -n 8 --hidden 8192 -t 8 --kernel $k --policy explicit --tpb 512 "
             "--cluster 2 --grid 16 --gpu h100_sxm --calibration data/calibration/h100_emulated.csv --emulated | "
             "grep -E '^  explicit'; done",
         quotes=[(r"lean\s+512/2/16\s+1\s+2\s+([\d.]+)\n.*reference\s+512/2/16\s+1\s+2\s+([\d.]+)",
                  "prices the lean body at 512/2/16 at {1} us against the reference's {2} us")]),
    # docs/model.md, "Session 51": grid34's part, the wide rounds' record
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid34_partial.csv",
                     "with the picks of this\nsection's model: MAPE {1} % (Spearman"),
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid34_partial.csv",
                     "(`scripts/model_regret.py`) {2} % slower than the fastest row on average, {3} % at worst: the `ar` and"),
    dict(doc="docs/model.md",
         cmd="{arlab} save-calibration {tmp}/h100_s51_wide.csv --gpu h100_sxm --from-microbench "
             "data/calibration/h100_emulated_s51_n2_microbench.csv | grep -E 'record, epilogue_round'",
         quotes=[(r"bf16_ar_res_rms_vpt2_wide .* 1024/1/2 \(32 warps\): \d+ - \d+ = \+(\d+) ns; 768/1/2 \(24 warps\): \d+ - \d+ = "
                  r"\+(\d+) ns; 512/2/2 \(16 warps\): \d+ - \d+ = \+(\d+) ns",
                  "the RMSNorm round at 2 vectors takes +{3} ns at 16 warps (512/2), +{2} at 24 and +{1} at\n32"),
                 (r"bf16_ar_res_rms_fp4_vpt2_wide .* 1024/1/2 \(32 warps\): \d+ - \d+ = \+(\d+) ns; 768/1/2 \(24 warps\): "
                  r"\d+ - \d+ = \+(\d+) ns; 512/2/2 \(16 warps\): \d+ - \d+ = \+(\d+) ns",
                  "the NVFP4 round +{3}, +{2} and +{1} ns")]),
    dict(doc="docs/model.md",
         cmd="d=data/calibration; {arlab} save-calibration {tmp}/h100_s51_own.csv --gpu h100_sxm --from-microbench "
             "$d/h100_emulated_s51_n2_microbench.csv --exchange-microbench $d/h100_emulated_s51_n8_microbench.csv "
             "--skew-microbench $d/h100_emulated_s51_n4_microbench.csv $d/h100_emulated_s51_n8_microbench.csv "
             "--rows-microbench $d/h100_emulated_s51_n4_microbench.csv $d/h100_emulated_s51_n8_microbench.csv "
             "--added-microbench $d/h100_emulated_s51_n4_microbench.csv $d/h100_emulated_s51_n8_microbench.csv > /dev/null && "
             "for f in grid34_partial grid33; do for c in {tmp}/h100_s51_own.csv $d/h100_emulated.csv; do "
             "{arlab} validate data/h100/exp/model-accuracy_emulated_$f.csv --calibration $c | grep 'against the headline'; "
             "done; done",
         quotes=[(r"MAPE ([\d.]+) %.*\n.*MAPE ([\d.]+) %.*\n.*MAPE ([\d.]+) %.*\n.*MAPE ([\d.]+) %",
                  "(MAPE {1} % against {2} %) and the older H100 files a little worse (grid33 at TP2 {3} % against {4} %")]),
    h200_twoshot_trial("grid33", ("{tmp}/h200_twoshot.csv", "data/calibration/h200_emulated.csv"),
                       "| grep 'against the headline'", "kernel_variant,algo",
         quotes=[(r"MAPE ([\d.]+) %.*\nlean twoshot\s+\d+\s+([\d.]+) %.*\nreference twoshot\s+\d+\s+([\d.]+) %\s+([-+][\d.]+) %\n"
                  r".*MAPE ([\d.]+) %.*\nlean twoshot\s+\d+\s+([\d.]+) %.*\nreference twoshot\s+\d+\s+([\d.]+) %\s+([-+][\d.]+) %",
                  "grid33 on the H200 reads MAPE {1} % against\n{5} %, the reference two-shot {3} % (bias {4} %) and the lean "
                  "two-shot {2} % against {6} %"),
                 (r"(?s)MAPE [\d.]+ %.*MAPE [\d.]+ %.*\nreference twoshot\s+\d+\s+([\d.]+) %\s+([-+][\d.]+) %",
                  "the reference two-shot rows are the H200's worst: MAPE {1} %, bias {2} %")]),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/exp/model-accuracy_emulated_grid33.csv --out {tmp}/h33.v.csv > /dev/null && "
             "{py} scripts/model_bias.py data/h100/exp/model-accuracy_emulated_grid33.csv {tmp}/h33.v.csv "
             "--by kernel_variant,algo | grep 'reference twoshot'",
         quotes=[(r"reference twoshot\s+\d+\s+([\d.]+) %\s+([-+][\d.]+) %",
                  "grid33's reference two-shot at {1} % (bias {2} %)")]),
    h200_twoshot_trial("grid25", ("data/calibration/h200_emulated.csv", "{tmp}/h200_twoshot.csv"), "> /dev/null",
                       "algo",
         quotes=[(r"twoshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n.*twoshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %",
                  "grid25's two-shot bias {1} % -> {2} %")]),
    # docs/kernels.md and README.md: issue 24's TP4 / TP8 grid with the model of session 51
    *[dict(doc=doc, cmd="grep -E '^GOAL best' data/h100/logs/speedup_tp48_wide31_s51_b4ed64d.log",
           quotes=[(r"TP4: over the reference at trtllm geomean ([\d.]+x), min ([\d.]+x) \(10 problems\); over FlashInfer at "
                    r"its own configuration geomean ([\d.]+x), min ([\d.]+x).*\n.*TP8: over the reference at trtllm geomean "
                    r"([\d.]+x), min ([\d.]+x) \(10 problems\); over FlashInfer at its own configuration geomean ([\d.]+x), "
                    r"min ([\d.]+x)", template)])
      for doc, template in (
          ("docs/kernels.md", "TP8 {5} the reference (min {6}), TP4 {1} (min {2}); against FlashInfer {7} and {3} (min {8} and {4})"),
          ("README.md", "best over the reference {1} / {5} (min {2} / {6}: TP8 at H 4096 x 8 and H 8192 x 1 token"),
          ("README.md", "over FlashInfer {3} / {7} (min {4} / {8}); at H 8192 x 8"))],
    dict(doc="docs/kernels.md",
         cmd="{py} -c \"import csv; [print(r['nranks'], r['hidden'], r['tokens'], '%.3fx' % float(r['speedup_best']), "
             "'%.2f' % float(r['best_us']), '%.2f' % float(r['reference_us'])) for r in "
             "csv.DictReader(open('data/h100/exp/speedup_emulated_wide31_s51_summary.csv')) if r['variant'] == 'lean']\"",
         quotes=[(r"^8 8192 8 ([\d.]+x) ([\d.]+) ([\d.]+)$", "pick takes {1}\nthe reference at trtllm's shape (the same kernel and configuration, {2} against {3} us)"),
                 (r"^8 4096 8 [\d.]+x ([\d.]+) ([\d.]+)$(?:.*\n)*^8 8192 1 [\d.]+x ([\d.]+) ([\d.]+)$",
                  "{1}\nagainst {2} us and {3} against {4} us in one group"),
                 (r"^8 4096 1 ([\d.]+x)", "for H 4096 x 1) takes {1}:")]),
    # docs/model.md, "Session 52": the further round's fit, grid34 whole, grid35 held out
    dict(doc="docs/model.md",
         cmd="grep -E '^(lean_)?further_round_ns(_per_warp|_per_extra_vector|_per_extra_vector_per_warp)?_n2,' "
             "data/calibration/h100_emulated.csv",
         derive=lambda out: [" ".join(
             "{} {:.0f} - {:.1f} w + ({:.0f} + {:.1f} w) (v - 1)".format(
                 who, *(float(re.search(rf"^{prefix}further_round_ns{part}_n2,([-\d.e]+),", out, re.M).group(1)) *
                        (-1 if part == "_per_warp" else 1)
                        for part in ("", "_per_warp", "_per_extra_vector", "_per_extra_vector_per_warp")))
             for who, prefix in (("the reference", ""), ("lean", "lean_")))
             .replace(") (v - 1) lean", ") (v - 1) ns, lean")]),
    dict(doc="docs/model.md",
         cmd="{arlab} save-calibration {tmp}/h100_s52.csv --gpu h100_sxm "
             "--from-microbench data/calibration/h100_emulated_s48_n2_microbench.csv "
             "--added-microbench data/calibration/h100_emulated_s52_n2_microbench.csv | grep -E '^  (lean_)?further_round_ns_n2 = '",
         quotes=[(r"^  further_round_ns_n2 = .* 16x512/1 H 8192 vpt 2: (\d+) \(model \d+\); 16x1024/1 H 16384 vpt 2: (\d+) "
                  r"\(model \d+\); 16x512/1 H 16384 vpt 4: (\d+) \(model \d+\);",
                  "the reference's further round at N = 2 takes\n{1}, {2} and {3} ns"),
                 (r"^  lean_further_round_ns_n2 = .* 16x512/1 H 8192 vpt 2: (\d+) \(model \d+\); 16x1024/1 H 16384 vpt 2: (\d+) "
                  r"\(model \d+\); 16x512/1 H 16384 vpt 4: (\d+) \(model \d+\);",
                  "(8-21 % short; lean\n{1}, {2}, {3} against")]),
    *[dict(doc="docs/model.md",
           cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{g}{sfx}.csv | grep -E "
                           f"'against the headline|Spearman rho' && {{py}} scripts/model_regret.py "
                           f"data/h100/exp/model-accuracy_emulated_{g}{sfx}.csv | tail -1" for sfx in ("", "_tp4")),
           quotes=[(r"MAPE ([\d.]+) %.*\n.*Spearman rho: all rows ([\d.]+);.*\n.*mean regret ([\d.]+) %, median [\d.]+ %, "
                    r"max ([\d.]+) %\n.*MAPE ([\d.]+) %.*\n.*Spearman rho: all rows ([\d.]+);.*\n.*mean regret ([\d.]+) %, "
                    r"median [\d.]+ %, max ([\d.]+) %", template)])
      for g, template in (
          ("grid34", "MAPE {1} % at TP2 and {5} % at TP4, the own\npick {3} % / {7} % slower than the fastest row on "
                     "average, {4} % / {8} % at worst"),
          ("grid35", "MAPE {1} % at TP2 and {5} % at TP4 (Spearman {2} and {6}), per body in the accuracy table above; "
                     "the own pick\n{3} % / {7} % slower than the fastest row on average, {4} % / {8} % at worst"))],
    *[dict(doc="README.md",
           cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{g}{sfx}.csv | grep "
                           f"'against the headline' && {{py}} scripts/model_regret.py "
                           f"data/h100/exp/model-accuracy_emulated_{g}{sfx}.csv | tail -1"
                           for g, sfx in (("grid35", ""), ("grid35", "_tp4"), ("grid35", "_tp8"), ("grid34", ""),
                                          ("grid34", "_tp4"))),
           quotes=[(r"MAPE ([\d.]+) %.*\n.*mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %\n"
                    r".*MAPE ([\d.]+) %.*\n.*mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %\n"
                    r".*MAPE ([\d.]+) %.*\n.*mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %\n"
                    r".*MAPE ([\d.]+) %.*\n.*\n.*MAPE ([\d.]+) %",
                    "grid35: MAPE {1} % / {4} % / {7} %, the own pick {2} % / {5} % / {8} % slower than the fastest row on "
                    "average, {3} % / {6} % / {9} % at worst (the `ar` pattern's two-shot picks at 216 tokens); grid34 "
                    "(TP2 / TP4): MAPE {10} % / {11} %")])],
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid35_tp8.csv",
                     "At TP8 (another H100, the binary\nof 166d05b): MAPE {1} % (7.44 % with the model before), the own pick "
                     "{2} % slower on average, {3} % at worst."),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/fp4_rounds_probe_emulated.csv --out {tmp}/fp4r.v.csv > /dev/null && "
             "{py} scripts/pattern_excess.py data/h100/fp4_rounds_probe_emulated.csv {tmp}/fp4r.v.csv",
         quotes=[(r"^lean .*ar_res_rms_fp4 \(linear\)\s+64: meas \+([\d.]+) pred \+([\d.]+);.*per further round meas "
                  r"\+(\d+) ns, pred \+(\d+) ns\n^lean .*ar_res_rms_fp4 \(swizzled_128x4\)\s+64: meas \+([\d.]+) pred "
                  r"\+([\d.]+);.*per further round meas \+(\d+) ns, pred \+(\d+) ns\n(?:.*\n)*?"
                  r"^reference .*ar_res_rms_fp4 \(linear\)\s+64: meas \+([\d.]+) pred \+([\d.]+);.*per further round meas "
                  r"\+(\d+) ns, pred \+(\d+) ns\n^reference .*ar_res_rms_fp4 \(swizzled_128x4\)\s+64: meas \+([\d.]+) pred "
                  r"\+([\d.]+);.*per further round meas \+(\d+) ns, pred \+(\d+) ns",
                  "NVFP4 takes {13}-{5} us beyond `ar_res_rms` where the model gives {14}-{6} us, and each further round\n"
                  "+{15} ns (reference) and +{7} ns (lean) where the model gives +{16} and +{8} ns (swizzled scale factors; "
                  "linear ones\n+{11} and +{3} ns")]),
    file_bias("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid35.csv", "kernel_variant,vecs_per_thread",
              [(VPT_BIAS_2_4, "{1} % and {3} % with this one"), (VPT_BIAS_2_4, "{2} % and {4} % now")], "algo=oneshot"),
    dict(doc="docs/model.md",
         cmd=g32_35_bias_cmd("bps", "--by kernel_variant,@blocks_per_sm,algo"),
         quotes=[(r"^lean 2-4 twoshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %$(?:.*\n)*?^lean gt4 twoshot\s+\d+\s+[\d.]+ %\s+"
                  r"([-+][\d.]+) %$(?:.*\n)*?^lean le1 twoshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %$(?:.*\n)*?"
                  r"^reference 2-4 twoshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %$(?:.*\n)*?^reference gt4 twoshot\s+\d+\s+"
                  r"[\d.]+ %\s+([-+][\d.]+) %$(?:.*\n)*?^reference le1 twoshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %$",
                  "2-4 blocks per SM read a bias of {1} % (lean) and {4} % (reference), beyond 4 blocks {2} % and {5} %, "
                  "where\nthose of at most one block per SM read {3} % and {6} %"),
                 (r"^lean 2-4 oneshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %$", "(lean {1} % at 2-4 blocks per SM)")]),
    file_bias("docs/model.md", "data/h200/exp/model-accuracy_emulated_grid33.csv", "kernel_variant,vecs_per_thread",
              [(VPT_BIAS_2_4, "from -4.3 / -3.4 % to {1} % and {3} %, of 4\nvectors from -7.0 / -7.5 % to {2} % and {4} %")],
              "algo=oneshot"),
    # docs/model.md, "Session 53": the first poll's wait under the later pushes, lean's re-read of x
    dict(doc="docs/model.md",
         cmd=g32_35_bias_cmd("rc", "--by kernel_variant,@round_count --where algo=oneshot",
                             "--by kernel_variant,@grid --where algo=oneshot --where @round_count=17+"),
         quotes=[(r"^lean 1\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^lean 17\+\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n"
                  r"^lean 2-4\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^lean 5-16\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n"
                  r"^reference 1\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^reference 17\+\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n"
                  r"^reference 2-4\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^reference 5-16\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %",
                  "after the change: lean {1} % at one round, {3} % at 2-4, {4} % at 5-16, {2} % beyond; the reference {5} %,\n"
                  "{7} %, {8} %, {6} %."),
                 (r"^lean equal_sms\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^lean above_sms\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %",
                  "(lean {1} %\nnow; beyond the SMs -7.4 -> {2} %)")]),
    dict(doc="docs/model.md",
         cmd=g32_35_bias_cmd("rcost", *(f"--round-cost --where algo=twoshot --where vecs_per_thread=4 --where nranks={n} "
                                        "| tail -1" for n in (2, 4))),
         quotes=[(r"reference ([\d.]+) / ([\d.]+) us \(\d+ rows\), lean ([\d.]+) / ([\d.]+) us.*\n.*"
                  r"reference ([\d.]+) / ([\d.]+) us \(\d+ rows\), lean ([\d.]+) / ([\d.]+) us",
                  "at N = 2 the reference {1} / {2} us and lean {3} / {4} us, at N =\n4 {5} / {6} and {7} / {8} us")]),
    dict(doc="docs/model.md",
         cmd="{arlab} save-calibration {tmp}/h100_s53.csv --gpu h100_sxm "
             "--from-microbench data/calibration/h100_emulated_s48_n2_microbench.csv "
             "--added-microbench data/calibration/h100_emulated_s52_n2_microbench.csv | grep -E '^  twoshot_further_round_ns_n2 = '",
         quotes=[(r"16x128/2 H 8192 vpt 4: (\d+) \(model (\d+)\)", "128 x 2 at H 8192: {1} ns against {2}")]),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/exp/model-accuracy_emulated_grid36.csv | grep -E 'against the headline|Spearman rho' && {py} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_grid36.csv",
         quotes=[(r"MAPE ([\d.]+) %.*\n.*Spearman rho: all rows ([\d.]+);", "MAPE {1} % (6.52 % with e5b58ce's model), Spearman {2}"),
                 (r"^problems \d+: mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %",
                  "the own pick {1} %\nslower than the fastest row on average, {2} % at worst"),
                 (r"ar T    6 H  6224: model (\d+)/(\d+)/(\d+)/2 oneshot\s+([\d.]+) us  best (\d+)/(\d+)/(\d+)/1 oneshot\s+([\d.]+) us",
                  "at H 6224 x 6 tokens {1}/{2}/{3} with 2 vectors, {4} us, against {5}/{6}/{7}, {8} us"),
                 (r"ar_res_rms T  392 H 13440: .* regret\s+([\d.]+) %", "within {1} %")]),
    file_bias("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid36.csv", "kernel_variant,@round_count",
              [(r"^lean 2-4\s+\d+\s+([\d.]+) %\s+([-+][\d.]+) %(?:.*\n)*?^reference 2-4\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %",
                "with this one; the reference +1.9 % -> {3} %"),
               (r"^lean 2-4\s+\d+\s+([\d.]+) %\s+([-+][\d.]+) %", "{2} % (MAPE {1} %) with this one")], "algo=oneshot"),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/first_wait_probe_emulated.csv --calibration data/calibration/h100_emulated.csv "
             "--out {tmp}/fwp.csv > /dev/null && {py} -c \"import csv; m = list(csv.DictReader(open("
             "'data/h100/first_wait_probe_emulated.csv'))); v = {(m[int(r['line']) - 2]['kernel_variant'], m[int(r['line']) - 2]['grid'], "
             "int(m[int(r['line']) - 2]['tokens'])): (float(r['kernel_us_median']), float(r['predicted_us'])) for r in "
             "csv.DictReader(open('{tmp}/fwp.csv'))}; "
             "[print(b, g, '%.2f %.2f' % (v[(b, g, 2 * t)][0] - v[(b, g, t)][0], v[(b, g, 2 * t)][1] - v[(b, g, t)][1]), "
             "'%.2f %.2f' % v[(b, g, 2 * t)]) for b, g, t in (('lean', '32', 16), ('lean', '8', 8), ('reference', '8', 8))]\"",
         quotes=[(r"^lean 32 ([\d.]+) ([\d.]+) .*\n^lean 8 ([\d.]+) ([\d.]+) ",
                  "takes {1} us at 512/2/32 and {3} us at 1024/1/8; e5b58ce's model gave\n2.71 and 3.34 us, this one {2} and {4} us"),
                 (r"^reference 8 [\d.]+ [\d.]+ ([\d.]+) ([\d.]+)$", "{1} us measured at 2 rounds against {2}")]),
    dict(doc="docs/model.md",
         cmd="grep -h -E ',(reference2_epilogue|lean2_reader_n[24])_vpt_(solo|allbusy)_slowest,[0-9]+,128,2,8192,' "
             "data/calibration/h100_emulated_s53_n2_microbench.csv data/calibration/h100_emulated_s53_n4_microbench.csv "
             "| cut -d, -f6,10,11,17",
         quotes=[(r"^2,reference2_epilogue_vpt_solo_slowest,26,(\d+)\n(?:.*\n)*?^2,reference2_epilogue_vpt_allbusy_slowest,26,(\d+)",
                  "takes {1} ns\nalone and {2} ns beside the other partition at N = 2"),
                 (r"^4,reference2_epilogue_vpt_solo_slowest,10,(\d+)\n(?:.*\n)*?^4,reference2_epilogue_vpt_allbusy_slowest,10,(\d+)",
                  "(N = 4, 10 blocks: {1} and {2} ns)"),
                 (r"^2,lean2_reader_n2_vpt_solo_slowest,26,(\d+)\n(?:.*\n)*?^2,lean2_reader_n2_vpt_allbusy_slowest,26,(\d+)",
                  "the lean reader {1} and\n{2} ns")]),
    dict(doc="README.md",
         cmd="{arlab} validate data/h100/exp/model-accuracy_emulated_grid36.csv | grep 'against the headline' && "
             "{py} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_grid36.csv",
         quotes=[(r"MAPE ([\d.]+) %(?:.*\n)*?^problems \d+: mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %",
                  "MAPE {1} % (6.52 % with the model before that change); the own pick {2} % slower than the fastest row on "
                  "average, {3} % at worst"),
                 (r"ar_res_rms T  392 H 13440: .* regret\s+([\d.]+) %", "the norm patterns' picks within {1} %")]),
    # docs/model.md, "Session 54": the `ar` round at N = 2, per round and per further vector
    dict(doc="docs/model.md",
         cmd=h100_grids_bias_cmd("arv", H100_G32_35 + ["grid36"],
                                 "--by vecs_per_thread,kernel_variant --where pattern=ar --where algo=oneshot "
                                 "--where nranks=2"),
         quotes=[(r"^1 lean\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^1 reference\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n"
                  r"^2 lean\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^2 reference\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n"
                  r"^4 lean\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^4 reference\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %",
                  "| 1 | +5.7 % | {1} % | +1.8 % | {2} % |\n| 2 | -9.5 % | {3} % | -15.2 % | {4} % |\n"
                  "| 4 | -18.6 % | {5} % | -20.7 % | {6} % |")]),
    dict(doc="docs/history.md",
         cmd=h100_grids_bias_cmd("arv", H100_G32_35 + ["grid36"],
                                 "--by vecs_per_thread,kernel_variant --where pattern=ar --where algo=oneshot "
                                 "--where nranks=2"),
         quotes=[(r"^2 lean\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^2 reference\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n"
                  r"^4 lean\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^4 reference\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %",
                  "lean -9.5 / -18.6 % -> {1} / {3} %, the reference -15.2 / -20.7 % -> {2} / {4} %")]),
    dict(doc="docs/model.md",
         cmd=h100_grids_bias_cmd("art", H100_G32_35 + ["grid36"], "--by algo --where pattern=ar --where nranks=2"),
         quotes=[(r"^twoshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %", "the two-shot `ar` rows at TP2 read\n{1} %")]),
    dict(doc="docs/model.md",
         cmd="for gpu in h100 h200; do grep -E '^(lean_)?ar_round_(line_ns(_per_warp)?_n2|ns_per_further_vector_n2),' "
             "data/calibration/${gpu}_emulated.csv | sed \"s/^/$gpu,/\" | cut -d, -f1-3; done",
         derive=lambda out: ar_n2_constants_quotes(out)),
    dict(doc="docs/model.md",
         cmd=H100_DERIVATION + " | grep -E '^  (lean_)?ar_round_(line_ns|ns_per_further_vector)_n2 = '",
         derive=lambda out: [
             "(the H100, 16 blocks of 128 x 8 at H 8192: {} ns measured\nagainst {})".format(
                 *re.search(r"16x128/8 H 8192: (\d+) \(model (\d+)\)", out).groups()),
             "4 vectors cost the same on 16 blocks as on 64 ({} and {} ns)".format(
                 re.search(r"16x128/2 H 8192 vpt 4: (\d+)", out).group(1), re.search(r"64x128/2 H 8192 vpt 4: (\d+)", out).group(1)),
             "Each per-row figure lies within {}-{} ns (reference) and {}-{} ns (lean) on the H100".format(
                 *per_row_range(out, "ar_round_ns_per_further_vector_n2"),
                 *per_row_range(out, "lean_ar_round_ns_per_further_vector_n2"))]),
    dict(doc="docs/model.md",
         cmd="grep -h -E ',reference_n2_fewblocks_slowest,(2|16),128,1,4096,' data/calibration/h100_emulated_s53_n2_microbench.csv "
             "| cut -d, -f11,17",
         quotes=[(r"^2,(\d+)\n^16,(\d+)", "the reference at 128 x 1, H 4096, 4 vectors: {1} and {2} ns")]),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{g}.csv | grep -m1 'against the headline'"
                         for g in ("grid36", "grid32", "grid33")),
         quotes=[(r"MAPE ([\d.]+) %.*\n.*MAPE ([\d.]+) %.*\n.*MAPE ([\d.]+) %",
                  "grid36\n(TP2, held out in session 53) 6.26 -> {1} %, grid32 6.60 -> {2} %, grid33 6.02 -> {3} %")]),
    dict(doc="docs/model.md",
         cmd=h100_grids_bias_cmd("bps54", H100_G32_35 + ["grid36", "grid36_tp4", "grid36_tp8", "grid37", "grid37_tp4"],
                                 "--by kernel_variant,@blocks_per_sm,algo"),
         derive=lambda out: (lambda b: [
             f"at 2-4\nblocks per SM lean {b['lean 2-4 oneshot']} % (one-shot) and {b['lean 2-4 twoshot']} % (two-shot), the "
             f"reference {b['reference 2-4 oneshot']} % and {b['reference 2-4 twoshot']} %; at one block per SM or\nfewer "
             f"{b['lean le1 oneshot']} %, {b['lean le1 twoshot']} %, {b['reference le1 oneshot']} % and "
             f"{b['reference le1 twoshot']} %"])(
             {m.group(1): m.group(2) for m in re.finditer(r"^(\w+ \S+ \w+)\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %$", out, re.M)})),
    dict(doc="docs/model.md",
         cmd=h100_grids_bias_cmd("er54", H100_G32_35 + ["grid36", "grid36_tp4", "grid36_tp8", "grid37", "grid37_tp4"],
                                 "--by nranks,@epilogue_rounds --where pattern=ar --where algo=twoshot "
                                 "--where kernel_variant=reference",
                                 "--by nranks,@epilogue_rounds --where pattern=ar_res_rms --where algo=twoshot "
                                 "--where kernel_variant=reference"),
         derive=lambda out: (lambda parts: (lambda ar, norm: [
             f"| 2 | {ar['2 2-4']} % | {ar['2 5-16']} % | {ar['2 17+']} % |\n| 4 | {ar['4 2-4']} % | {ar['4 5-16']} % | "
             f"{ar['4 17+']} % |",
             f"lie within {min(norm.values(), key=float)} to {max(norm.values(), key=float)} % in every such group"])(
             *[{m.group(1): m.group(2) for m in re.finditer(r"^(\d \S+)\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %$", part, re.M)}
               for part in parts]))(out.split("nranks @epilogue_rounds")[1:])),
    # docs/model.md, "Session 54", held out: grid37 at TP2 and TP4, grid36 at TP4 and TP8
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid37.csv",
                     "| grid37, TP2 | 6.42 % | 6.26 % | 6.21 % | {1} % | {2} % / {3} % |"),
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid37_tp4.csv",
                     "| grid37, TP4 | 7.28 % | 7.03 % | 7.03 % | {1} % | {2} % / {3} % |"),
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid36_tp4.csv",
                     "| grid36, TP4 | 7.02 % | 6.80 % | 6.80 % | {1} % | {2} % / {3} % |"),
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid36_tp8.csv",
                     "| grid36, TP8 | 7.54 % | 7.29 % | 7.29 % | {1} % | {2} % / {3} % |"),
    file_bias("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid37.csv", "vecs_per_thread,kernel_variant",
              [(r"^2 lean\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^2 reference\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n"
                r"^4 lean\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^4 reference\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %",
                "with session 53's model, {3} % and {4} % with this one (4 rows each; of 2\nvectors -7.6 / -15.6 % -> {1} / {2} %")],
              "pattern=ar --where algo=oneshot"),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{py}} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_{g}.csv"
                         for g in ("grid36_tp4", "grid36_tp8", "grid37", "grid37_tp4")),
         quotes=[(r"N4 bf16 ar T  168 H  6224: .* regret\s+([\d.]+) %(?:.*\n)*?.*N4 bf16 ar T  168 H 10560: .* regret\s+([\d.]+) %"
                  r"(?:.*\n)*?.*N4 bf16 ar T  184 H 10720: .* regret\s+([\d.]+) %",
                  "five `ar` picks\n({1}-{3} %)"),
                 (r"ar_res_rms_out_fp8 T  184 H  6352: model (\S+)/2 twoshot .* regret\s+([\d.]+) %",
                  "H 6352 x 184: {1} with 2 vectors, {2} %)"),
                 (r"N8 bf16 ar_res_rms T  392 H 13440: .* regret\s+([\d.]+) %", "lose at most {1} % (grid36 TP8")]),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/exp/model-accuracy_emulated_grid37.csv --out {tmp}/g37.v.csv > /dev/null && "
             "{arlab} validate data/h100/exp/model-accuracy_emulated_grid37_tp4.csv --out {tmp}/g37_4.v.csv > /dev/null && "
             "{py} -c \"import csv; [print(tag, r['kernel_variant'], r['algo'], r['tpb'], r['cluster'], r['grid'], "
             "r['vecs_per_thread'], '%.2f %.2f' % (float(v['kernel_us_median']), float(v['predicted_us']))) "
             "for tag, m, vf in (('tp2', 'data/h100/exp/model-accuracy_emulated_grid37.csv', '{tmp}/g37.v.csv'), "
             "('tp4', 'data/h100/exp/model-accuracy_emulated_grid37_tp4.csv', '{tmp}/g37_4.v.csv')) "
             "for rows in [list(csv.DictReader(open(m)))] for v in csv.DictReader(open(vf)) if v['status'] == 'ok' "
             "for r in [rows[int(v['line']) - 2]] if r['pattern'] == 'ar' and r['hidden'] == '10720' and r['tokens'] == '184']\"",
         quotes=[(r"^tp2 lean twoshot 335 2 184 2 ([\d.]+) ([\d.]+)$",
                  "lean 335/2/184 with 2 vectors, {1} us measured, {2} us\npredicted"),
                 (r"^tp2 lean oneshot 670 2 64 1 ([\d.]+) ", "against the lean one-shot at 670/2/64, {1} us"),
                 (r"^tp4 lean twoshot 335 1 92 4 ([\d.]+) [\d.]+$", "lean 335/1/92 with 4 vectors, {1}\nus"),
                 (r"^tp4 reference twoshot 670 2 32 1 ([\d.]+) ([\d.]+)$",
                  "against the reference two-shot at 670/2/32, {1} us, predicted {2}")]),
    grid_mape_regret("README.md", "data/h100/exp/model-accuracy_emulated_grid37.csv",
                     "MAPE {1} % / 7.02 % (6.26 / 7.03 % with session 53's model, 6.42 / 7.28 % with the one before); the own "
                     "pick {2} % / 1.84 % slower than the fastest row on average, {3} % / 27.36 % at worst"),
    grid_mape_regret("README.md", "data/h100/exp/model-accuracy_emulated_grid37_tp4.csv",
                     "MAPE 6.17 % / {1} % (6.26 / 7.03 % with session 53's model, 6.42 / 7.28 % with the one before); the own "
                     "pick 0.83 % / {2} % slower than the fastest row on average, 18.45 % / {3} % at worst"),
    dict(doc="README.md",
         cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_grid36_{t}.csv | grep -m1 'against the headline'"
                         for t in ("tp4", "tp8")),
         quotes=[(r"MAPE ([\d.]+) %.*\n.*MAPE ([\d.]+) %", "TP4 / TP8 (session 54) {1} / {2} % (7.02 / 7.54 % before it)")]),
    # docs/model.md, "Session 55": the body rounds at 1, 2 and 4 blocks per SM (the H100's derivation notes)
    dict(doc="docs/model.md", cmd=["scripts/derive_calibrations.sh", "{arlab}", "--notes-h100"],
         quotes=[(rf"\[{body}: the round grows ([-+][\d.]+) %, the model's ([-+][\d.]+) % \(medians over 15 rows\)\]",
                  f"| {name} | {{1}} % | {{2}} % |")
                 for body, name in (("reference_n2", "reference one-shot, `ar_res_rms`"),
                                    ("lean_n2", "lean one-shot, `ar_res_rms`"),
                                    ("reference2_epilogue_n2", "reference two-shot epilogue"),
                                    ("lean2_owner_n2", "lean two-shot owner"), ("lean2_reader_n2", "lean two-shot reader"),
                                    ("reference_ar_n2", "reference one-shot, `ar`"), ("lean_ar_n2", "lean one-shot, `ar`"))] +
                [(r"\[reference_n2: [^[]*? 128x128/2 H 8192 vpt 4: (\d+) -> (\d+) \(model (\d+) -> (\d+)\)",
                  "128 x 2, H 8192: {1} -> {2} ns\nmeasured, {3} -> {4} ns modelled"),
                 (r"^  shared_sm_round_ns_per_warp_vector = (\d+\.\d)\d*: least-squares slope through 0 over (\d+) rows",
                  "{1} ns per warp-vector on the H100 ({2} rows of five bodies)"),
                 (r"^  shared_sm_ar_round_ns_per_warp_vector = (\d+\.\d)\d*: least-squares slope through 0 over (\d+) rows",
                  "{1} ns for `ar` ({2} rows)")]),
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid38.csv",
                     "| grid38, TP2 (1120 rows) | 6.12 % | {1} % | {2} % / {3} % |"),
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid38_tp4.csv",
                     "| grid38, TP4 (1120) | 6.25 % | {1} % | {2} % / {3} % |"),
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid38_tp8.csv",
                     "| grid38, TP8 (914) | 7.23 % | {1} % | {2} % / {3} % |"),
    grid_mape_regret("docs/model.md", "data/h100/exp/model-accuracy_emulated_grid37_tp8.csv",
                     "| grid37, TP8 (914) | 7.77 % | {1} % | {2} % / {3} % |"),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{g}.csv --out {{tmp}}/{g}.bps.v.csv > /dev/null"
                         for g in ("grid38", "grid38_tp4", "grid38_tp8")) +
             " && {py} scripts/model_bias.py " +
             " ".join(f"data/h100/exp/model-accuracy_emulated_{g}.csv {{tmp}}/{g}.bps.v.csv"
                      for g in ("grid38", "grid38_tp4", "grid38_tp8")) + " --by @blocks_per_sm,algo",
         quotes=[(r"^1-2 oneshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^1-2 twoshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n"
                  r"^2-4 oneshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^2-4 twoshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %",
                  "at 1-2 blocks one-shot -4.5 -> {1} %, two-shot -3.5 -> {2} %; at 2-4 blocks -6.0 -> {3} % and -7.7 -> {4} %"),
                 (r"^le1 oneshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %\n^le1 twoshot\s+\d+\s+[\d.]+ %\s+([-+][\d.]+) %",
                  "grids of one block per SM or fewer {1} % (unchanged) and -1.2 -> {2} %")]),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/exp/model-accuracy_emulated_grid38_tp4.csv --out {tmp}/g38_4.v.csv > /dev/null && "
             "{py} -c \"import csv; rows = list(csv.DictReader(open('data/h100/exp/model-accuracy_emulated_grid38_tp4.csv'))); "
             "sel = [(rows[int(v['line']) - 2], v) for v in csv.DictReader(open('{tmp}/g38_4.v.csv')) if v['status'] == 'ok']; "
             "sel = [(r, v) for r, v in sel if r['pattern'] == 'ar' and r['algo'] == 'twoshot' and r['tokens'] == '200']; "
             "[print('row', r['hidden'], r['kernel_variant'], r['tpb'], r['cluster'], r['grid'], r['policy'], '%.2f' % float(v['kernel_us_median']), "
             "'%+.1f' % (100 * (float(v['predicted_us']) / float(v['kernel_us_median']) - 1))) for r, v in sel]; "
             "e = [100 * (float(v['predicted_us']) / float(v['kernel_us_median']) - 1) for r, v in sel if r['kernel_variant'] == 'reference']; "
             "print('range %.1f %.1f' % (min(e), max(e)))\"",
         quotes=[(r"^row 5936 lean 371 2 80 model ([\d.]+) ", "takes lean 371/2/80\n({1} us)"),
                 (r"^row 5936 reference 742 1 32 trtllm ([\d.]+) \+([\d.]+)$",
                  "742/1/32 takes {1} us and is predicted {2} % long"),
                 (r"^range ([\d.]+) ([\d.]+)$", "H 11168 x 200 read {1}-{2} % long")]),
    # README.md: grid38 held out (session 55), grid37 at TP8
    dict(doc="README.md",
         cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{g}.csv | grep -m1 'against the headline' && "
                         f"{{py}} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_{g}.csv | tail -1"
                         for g in ("grid38", "grid38_tp4", "grid38_tp8", "grid37_tp8")),
         quotes=[(r"MAPE ([\d.]+) %.*\n.*mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %\n"
                  r".*MAPE ([\d.]+) %.*\n.*mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %\n"
                  r".*MAPE ([\d.]+) %.*\n.*mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %\n"
                  r".*MAPE ([\d.]+) %",
                  "MAPE {1} % / {4} % / {7} % (6.12 / 6.25 / 7.23 % with session 54's model); the own pick {2} % / {5} % / {8} % "
                  "slower than the fastest row on average, {3} % / {6} % / {9} % at worst; grid37 at TP8 {10} % (7.77 %)")]),
    # docs/history.md, session 55
    dict(doc="docs/history.md",
         cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{g}.csv | grep -m1 'against the headline'"
                         for g in ("grid38", "grid38_tp4", "grid38_tp8")),
         quotes=[(r"MAPE ([\d.]+) %.*\n.*MAPE ([\d.]+) %.*\n.*MAPE ([\d.]+) %",
                  "MAPE {1} / {2} / {3} % (6.12 / 6.25 / 7.23 % before)")]),
    # docs/operation.md
    dict(doc="docs/operation.md", cmd=rng("data/h200/fp32_norm.csv", "norm_max_ulp", "--digits", "0"),
         quotes=[(r"^(.*)$", "prints `{1}`")]),
    # docs/measurement.md
    dict(doc="docs/measurement.md", cmd=REP,
         derive=lambda out: printed_lines(out) + repeatability_spreads(out)),
    dict(doc="docs/measurement.md", cmd=rng("data/h200/repeatability.csv", "noise_pct"), quotes=[(r"^(.*)$", "`{1}`")]),
    dict(doc="docs/measurement.md", cmd="grep -h increments data/h200/logs/timer_probe_f3d515c.log", derive=timer_steps),
] + [
    dict(doc="docs/measurement.md", cmd=rng("data/h200/hold_ab.csv", col, f"experiment={e}", f"tokens={t}"),
         derive=lambda out: [first_value(out)])
    for e in ("hold_ab_hold", "hold_ab_no-hold") for t in ("1", "128")
    for col in (("kernel_us_median", "kernel_us_p90", "start_skew_us_median") if t == "1"
                else ("kernel_us_median", "start_skew_us_median"))
] + [
    dict(doc="docs/measurement.md", cmd=rng("data/h200/repeatability.csv", col, f"topology={topo}"),
         derive=lambda out, p=prefix: [p + first_value(out) + " us"])
    for col, topo, prefix in (("gate_skew_us_median", "emulated", "= "), ("gate_skew_us_p90", "emulated", "= "),
                              ("start_skew_us_median", "emulated", "= "), ("start_skew_us_median", "mpi", "and "))
] + [
    # docs/model.md
    dict(doc="docs/model.md", cmd="grep -c '^  X(' model/calibration.h", quotes=[(r"^(\d+)$", "({1} constants")]),
    dict(doc="docs/model.md", cmd=VAL_NV, derive=validate_cells),
    dict(doc="docs/model.md", cmd=VAL_EM, derive=validate_cells),
    dict(doc="docs/model.md", cmd=VAL_NV[:3] + ["--calibration", "priors"], quotes=[(r"MAPE ([\d.]+ %)   median", "| {1} | | |")]),
    dict(doc="docs/model.md", cmd=VAL_EM[:3] + ["--calibration", "priors"], quotes=[(r"MAPE ([\d.]+ %)   median", "| {1} | | |")]),
    dict(doc="docs/model.md", cmd=["{arlab}", "fit", "data/h200/model_grid_nvlink.csv", "--calibration",
                                   "data/calibration/h200_nvlink.csv", "--out", "{tmp}/fit.csv"],
         quotes=[(r"MAPE train: (.*?)   held out: (.*)$", "MAPE train: {1}   held out: {2}"),
                 (r"^\s+l2_latency_ns\s+\S+\s+(\S+)$", "")]),
    dict(doc="docs/model.md", cmd=VAL_NV, quotes=[(r"model \(lowest predicted among measured\)\s+(?:\d+\s+){4}([\d.]+)%",
                                                   "regret is {1} % on the real node")]),
    dict(doc="docs/model.md", cmd=VAL_EM, quotes=[(r"model \(lowest predicted among measured\)\s+(?:\d+\s+){4}([\d.]+)%",
                                                   "and {1} % on the emulated")]),
    dict(doc="docs/model.md", cmd=["{arlab}", "calibrate", "--help"],
         quotes=[(r"\(([\d.]+ s on an H200 at \w+)", "{1}, says `arlab calibrate --help`")]),
    dict(doc="docs/model.md", cmd="cat data/calibration/README.md",
         quotes=[(r"(\d+) microbenchmark rows in ([\d.]+ s)", "{2} for {1} rows (real TP2)"),
                 (r"\. (\d+) rows in ([\d.]+ s)", "{2} for {1} rows (emulated)")]),
    dict(doc="docs/model.md", cmd=PICK_NV, quotes=LAST_LINE),
    dict(doc="docs/model.md", cmd=PICK_EM, quotes=LAST_LINE),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/model_regret.py", "data/h200/model_picks_nvlink.csv",
                                   "data/h200/model_grid_nvlink.csv"], quotes=LAST_LINE),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/model_regret.py", "data/h200/model_picks_emulated.csv",
                                   "data/h200/model_grid_emulated.csv"], quotes=LAST_LINE),
    dict(doc="docs/model.md", cmd=bias("data/h200/model_grid_nvlink.csv", "data/calibration/h200_nvlink.csv", "--by pattern"),
         derive=model_bias_rows("nvlink")),
    dict(doc="docs/model.md", cmd=bias("data/h200/model_grid_emulated.csv", "data/calibration/h200_emulated.csv",
                                       "--by pattern"), derive=model_bias_rows("emulated")),
    dict(doc="docs/model.md", cmd=bias("data/h200/model_grid_emulated.csv", "data/calibration/h200_emulated.csv",
                                       "--by algo,nranks --where pattern=ar_res_rms"),
         quotes=[(r"^twoshot 4\s+(\d+)\s+([\d.]+) %\s+(\S+) %$", "prints {1} rows, MAPE {2} %, bias {3} %")]),
    # docs/model.md: the exchange all_to_all_grid rows, blocks x threads (us)
    dict(doc="docs/model.md", cmd="cat data/calibration/h200_emulated_exchange_grid_microbench.csv",
         derive=exchange_grid_rows),
    # docs/model.md "The round grows with the threads that take part": one-round rows by @threads
    dict(doc="docs/model.md", cmd=bias("data/h200/exp/speedup_emulated_wide13.csv", "data/calibration/h200_emulated.csv",
                                       "--by kernel_variant,@threads --where nranks=2 --where algo=oneshot "
                                       "--where @rounds=one --where pattern=ar_res_rms"), derive=bias_table_rows),
    dict(doc="docs/model.md", cmd=bias("data/h200/model_grid_nvlink.csv", "data/calibration/h200_nvlink.csv",
                                       "--by @threads --where algo=oneshot --where @rounds=one --where pattern=ar_res_rms"),
         derive=bias_table_rows),
    # docs/model.md "Where the TP8 one-shot error is": one-shot rows by token rounds per cluster, per node
    *[dict(doc="docs/model.md", cmd=bias(f"data/h200/exp/{grid}.csv", "data/calibration/h200_emulated.csv",
                                         "--by kernel_variant,@round_count --where algo=oneshot"), derive=bias_mape_cells)
      for grid in ("model-accuracy_emulated_grid11", "model-accuracy_emulated_grid11_tp4",
                   "model-accuracy_emulated_grid12_tp8_partial")],
    dict(doc="docs/model.md", cmd=bias("data/h200/exp/model-accuracy_emulated_grid5.csv", "data/calibration/h200_emulated.csv",
                                       "--by kernel_variant,@grid --where pattern=ar_res_rms"), derive=bias_table_rows),
    dict(doc="docs/model.md", cmd=bias("data/h200/exp/model-accuracy_emulated_grid5_tp4.csv",
                                       "data/calibration/h200_emulated.csv",
                                       "--by kernel_variant,@grid --where pattern=ar_res_rms"), derive=bias_table_rows),
    dict(doc="docs/results.md", cmd=merged("peers", "peers_emulated_tp2_rerun5"),
         quotes=[(r"^VS-FLASHINFER local N=2 model/auto\s+(geomean [\d.]+x over 72 problems \(min [\d.]+x, max [\d.]+x\))",
                  "model/auto {1}"),
                 (r"^VS-FLASHINFER local N=2 trtllm\s+geomean ([\d.]+x) over 72", "reference\n  at trtllm {1}")]),
    dict(doc="docs/results.md", cmd=merged("peers", "peers_emulated_tp2_rerun6"),
         quotes=[(r"^VS-FLASHINFER local N=2 model/auto\s+geomean ([\d.]+x) over 72 problems \(min ([\d.]+x), max ([\d.]+x)\)",
                  "model/auto geomean {1} over 72 problems (min {2}, max\n  {3})"),
                 (r"^VS-FLASHINFER local N=2 trtllm\s+geomean ([\d.]+x) over 72", "reference at trtllm {1} (within 3 % at 24")]),
    dict(doc="docs/results.md", cmd=merged("speedup", "speedup_emulated_wide9"),
         quotes=[(r"GOAL best \(model/auto\) on local TP2: over the reference at trtllm geomean ([\d.]+x), min ([\d.]+x).*"
                  r"FlashInfer at its own configuration geomean ([\d.]+x), min ([\d.]+x)",
                  "reference at trtllm {1} /"),
                 (r"GOAL best \(model/auto\) on local TP2: over the reference at trtllm geomean [\d.]+x, min ([\d.]+x).*"
                  r"FlashInfer at its own configuration geomean ([\d.]+x), min ([\d.]+x)",
                  "(min {1} /"),
                 (r"GOAL best \(model/auto\) on local TP2: .*FlashInfer at its own configuration geomean ([\d.]+x), min ([\d.]+x)",
                  "over FlashInfer {1} (min {2}) /")]),
    # docs/seed.md
    dict(doc="docs/seed.md", cmd=REP, derive=seed_table_rows),
    dict(doc="docs/seed.md", cmd=REP, quotes=[(r"\| real TP2 \(nvlink\) \| 8192 \| 128 \| legacy \|[^|]*\| 5 \| ([\d.]+) \(.*?\| "
                                               r"[\d.]+ % \| ([\d.]+) \(", "legacy takes {1} us ({2} us as the max over ranks"),
                                              (r"\| real TP2 \(nvlink\) \| 8192 \| 128 \| trtllm \|[^|]*\| 5 \| ([\d.]+) \(",
                                               "takes {1} us there"),
                                              (r"\| emulated TP2 \| 4096 \| 128 \| legacy \|[^|]*\| 5 \| ([\d.]+) \(", "vs {1} us"),
                                              (r"\| emulated TP2 \| 4096 \| 128 \| trtllm \|[^|]*\| 5 \| ([\d.]+) \(", "vs {1} us")]),
    dict(doc="docs/seed.md", cmd=rng("data/h200/seed.csv", "tokens", "policy=explicit", "--digits", "0"),
         quotes=[(r"^(.*)$", "prints `{1}`"), (r"\((\d+) rows\)", "({1} configurations")]),
    dict(doc="docs/seed.md", cmd=SEED, derive=lambda out: seed_terms(out) + [
        re.search(r"model vs measurement over .*", out).group(0),
        re.search(r"regret model \(its own pick, measured\).*", out).group(0),
        re.search(r"seed H 4096, 128 tokens: (legacy .*? = [\d.]+x)", out).group(1),
        re.search(r"seed H 8192, 128 tokens: (legacy .*? = [\d.]+x)", out).group(1)] + [
        m.group(1) for m in re.finditer(r"the library's kernel \(FlashInfer [\d.]+ one-shot\), (H \d+, 128 tokens: .*)", out)] + [
        m.group(2) for m in re.finditer(r"the library's kernel, (H \d+), 128 tokens, in one process interleaved: "
                                        r"legacy/flashinfer / trtllm/flashinfer = ([\d.]+ \[[\d.]+, [\d.]+\])", out)]),
    dict(doc="docs/seed.md", cmd=SEED_EXP, derive=lambda out: [
        re.search(r"model vs measurement over .*", out).group(0),
        re.search(r"regret model \(its own pick, measured\).*", out).group(0),
        re.search(r"seed H 4096, 128 tokens: (legacy .*? = [\d.]+x)", out).group(1),
        re.search(r"seed H 8192, 128 tokens: (legacy .*? = [\d.]+x)", out).group(1)]),
] + [
    dict(doc=doc, cmd=rng("data/h200/model_grid_nvlink.csv", "skewfree_us_median", "experiment=grid_seed", "hidden=8192",
                          "tokens=128", f"policy={p}"), derive=lambda out: [first_value(out)])
    for doc in ("docs/seed.md",) for p in ("legacy", "trtllm")
] + [
    dict(doc="docs/seed.md", cmd=rng("data/h200/seed_v2_51cd276.csv", "skewfree_us_median", "hidden=4096", "tokens=128",
                                     f"policy={p}"),
         derive=lambda out, p=p: [f"{p} {first_value(out)} vs"]) for p in ("legacy", "trtllm")
] + [
    dict(doc=doc, cmd=rng("data/h200/seed_mpi_tp4_nvlink.csv", "kernel_us_median", f"hidden={h}", "algo=oneshot",
                          f"policy={p}"), derive=lambda out: [first_value(out)])
    for doc in ("docs/seed.md", "docs/results.md") for h in ("8192", "4096") for p in ("legacy", "trtllm")
] + [
    # docs/results.md
    dict(doc="docs/results.md", cmd=REP, derive=seed_table_rows),
    dict(doc="docs/results.md", cmd=["{mpl}", "plots/plot_fusion.py", "--csv", "data/h200/exp/fusion_emulated.csv",
                                     "--out", "{tmp}/fusion"], mpl=True, derive=fusion_quotes),
    dict(doc="docs/results.md", cmd=["{mpl}", "plots/plot_crossover.py", "--csv", "data/h200/exp/crossover_emulated.csv",
                                     "--out", "{tmp}/crossover"], mpl=True, derive=crossover_rows),
    dict(doc="docs/results.md", cmd=VAL_NV, quotes=[(r"MAPE ([\d.]+ %)   median", "MAPE {1} (real TP2)"),
                                                    (r"MAPE ([\d.]+ %)   median", "held-out MAPE {1} (real TP2)")]),
    dict(doc="docs/results.md", cmd=VAL_EM, quotes=[(r"MAPE ([\d.]+ %)   median", "MAPE {1} (emulated TP2)"),
                                                    (r"MAPE ([\d.]+ %)   median", "and {1} (emulated)")]),
    dict(doc="docs/results.md", cmd=VAL_MA, derive=lambda out: printed_lines(
        out, lambda l: re.match(r"\s+(rows|against|Spearman|policy|trtllm|model \(its own)", l) is not None)),
    dict(doc="docs/results.md", cmd=SPEEDUP, derive=printed_lines),
    dict(doc="docs/results.md", cmd=["{py}", "scripts/kernel_speedup.py", "summary", "--table",
                                     "data/h200/exp/speedup_emulated_summary.csv"],
         derive=lambda out: printed_lines(out, lambda l: l.startswith("|"))),
    dict(doc="docs/results.md", cmd=["{py}", "scripts/kernel_speedup.py", "sweep",
                                     "data/h200/exp/lean_configs_final_emulated.csv"],
         quotes=[(r"geomean ([\d.]+x)", "gives {1}; the model's choice"), (r"geomean ([\d.]+x)", "against {1} (pushed)")]),
    dict(doc="docs/results.md", cmd=["{py}", "scripts/kernel_speedup.py", "sweep", "data/h200/exp/lean_configs_emulated.csv"],
         quotes=[(r"geomean ([\d.]+x)", "geomean {1} (barriers)")]),
    dict(doc="docs/results.md", cmd=["{py}", "scripts/kernel_speedup.py", "sweep",
                                     "data/h200/exp/lean_configs_lookahead_emulated.csv"],
         quotes=[(r"geomean ([\d.]+x)", "best-configuration geomean {1})")]),
    dict(doc="docs/results.md", cmd=["{py}", "scripts/kernel_speedup.py", "sweep",
                                     "data/h200/exp/lean_configs_deferclear_emulated.csv"],
         quotes=[(r"geomean ([\d.]+x)", "`lean_configs_deferclear_emulated.csv`; {1})")]),
    dict(doc="docs/results.md", cmd=PICK_LEAN, quotes=LAST_LINE),
    dict(doc="docs/results.md", cmd=rng("data/h200/soak.csv", "calls", "--digits", "0"), quotes=[(r"^(.*)$", "`calls` {1}")]),
    dict(doc="docs/results.md", cmd=rng("data/h200/soak.csv", "mismatched_calls", "--digits", "0"),
         quotes=[(r"^(.*)$", "`mismatched_calls` {1}")]),
    dict(doc="docs/results.md", cmd=rng("data/h200/soak.csv", "timeouts", "--digits", "0"),
         quotes=[(r"^(.*)$", "`timeouts` {1}")]),
    dict(doc="docs/results.md", cmd=rng("data/h200/soak.csv", "seconds", "--digits", "1"),
         quotes=[(r"^(.*)$", "`seconds` (`--digits 1`) {1}")]),
    dict(doc="docs/results.md", cmd="grep -cE 'SUMMARY: [1-9]' data/h200/logs/sanitize_51cd276.log || true",
         quotes=[(r"^(\d+)$", "prints `{1}`")]),
    dict(doc="docs/results.md", cmd="grep -h 'Total Test time' data/h200/logs/ctest-gpu_51cd276.log",
         quotes=[(r"= +([\d.]+ sec)", "= {1}")]),
    dict(doc="docs/results.md", cmd="grep -h 'tests passed out of' data/h200/logs/ctest-gpu_51cd276.log",
         quotes=[(r"out of (\d+)", "{1} of {1} gpu-labelled tests passed")]),
    dict(doc="docs/results.md",
         cmd="awk '/^oneshot</ {n++; if (!lo || $2 < lo) lo = $2; if ($2 > hi) hi = $2; if ($4 > 0) s++} "
             "END {print n, lo, hi, s + 0}' data/h200/issue4_registers.txt",
         quotes=[(r"^(.*)$", "prints `{1}`")]),
    dict(doc="docs/results.md", cmd=bias("data/h200/exp/lean_configs_final_emulated.csv", "data/calibration/h200_emulated.csv",
                                         "--by vecs_per_thread --where kernel_variant=lean"), derive=printed_lines),
    dict(doc="docs/results.md", cmd=PICK_NV, quotes=[(r"picks measured (\d+) of", "measured at {1} (real)")]),
    dict(doc="docs/results.md", cmd=PICK_EM, quotes=[(r"picks measured (\d+) of", "and {1} (emulated)")]),
] + [
    dict(doc="docs/results.md", cmd=rng(f, "kernel_us_median", f"nranks={n}", f"hidden={h}", f"tokens={t}", f"algo={a}",
                                        "policy=trtllm"),
         derive=lambda out, p=pre: [p + first_value(out)])
    for f, n, h, t, a, pre in (
        ("data/h200/twoshot_crossover_emulated.csv", 2, 8192, 512, "oneshot", "one-shot "),
        ("data/h200/twoshot_crossover_emulated.csv", 2, 8192, 512, "twoshot", "two-shot "),
        ("data/h200/twoshot_crossover_emulated.csv", 4, 8192, 128, "oneshot", "("),
        ("data/h200/twoshot_crossover_emulated.csv", 4, 8192, 128, "twoshot", "vs "),
        ("data/h200/twoshot_crossover_emulated.csv", 2, 4096, 2048, "oneshot", "("),
        ("data/h200/twoshot_crossover_emulated.csv", 2, 4096, 2048, "twoshot", "vs "),
        ("data/h200/twoshot_crossover_mpi_tp4.csv", 4, 8192, 512, "oneshot", "("),
        ("data/h200/twoshot_crossover_mpi_tp4.csv", 4, 8192, 512, "twoshot", "vs "),
        ("data/h200/twoshot_crossover_mpi_tp4.csv", 4, 8192, 2048, "oneshot", "2048 tokens "),
        ("data/h200/twoshot_crossover_mpi_tp4.csv", 4, 8192, 2048, "twoshot", "vs "),
        ("data/h200/seed_mpi_tp4_nvlink.csv", 4, 8192, 128, "oneshot", "H 8192: "),
        ("data/h200/seed_mpi_tp4_nvlink.csv", 4, 8192, 128, "twoshot", "vs "))
] + [
    dict(doc="docs/results.md", cmd=rng("data/h200/issue4_oneshot.csv", col, f"hidden={h}", f"tokens={t}", f"policy={p}",
                                        "pdl=0"), derive=lambda out: [first_value(out)])
    for col, h, t, p in (("kernel_us_median", 8192, 128, "legacy"), ("kernel_us_median", 8192, 128, "trtllm"),
                         ("kernel_us_median", 4096, 128, "legacy"), ("kernel_us_median", 4096, 128, "trtllm"),
                         ("kernel_us_median", 8192, 1, "trtllm"), ("skewfree_us_median", 8192, 1, "trtllm"))
] + [
    # docs/data.md
    dict(doc="docs/data.md", cmd=["{mpl}", "plots/plot_model_accuracy_exp.py", "--csv",
                                  "data/h200/exp/model-accuracy_emulated.csv", "--out", "{tmp}/ma"], mpl=True,
         quotes=[(r"^(model-accuracy: \d+ rows with a prediction, MAPE .*)$", "{1}")]),
    # docs/experiments.md: wall times quoted from the data README
    dict(doc="docs/experiments.md", cmd="cat data/h200/README.md", derive=lambda out: [
        w for w in ("30 s", "136 s + 59 s", "100 s + 33 s + 66 s", "43 s", "141 s", "44 s", "150 s", "140 s and 130 s", "167 s", "233 s")
        if w in out or (_ for _ in ()).throw(AssertionError(f"data/h200/README.md no longer says {w!r}"))]),
    # data/h200/README.md
    dict(doc="data/h200/README.md", cmd=VAL_NV, quotes=[(r"MAPE ([\d.]+ %)   median", "MAPE {1} (headline)"),
                                                        (r"all rows ([\d.]+);", "Spearman {1} over all rows")]),
    dict(doc="data/h200/README.md", cmd=VAL_EM, quotes=[(r"MAPE ([\d.]+ %)   median", "emulated {1}"),
                                                        (r"all rows ([\d.]+);", "{1} (the model of these docs")]),
    dict(doc="data/h200/README.md", cmd=VAL_MA, quotes=[(r"MAPE ([\d.]+ %)   median", "MAPE {1}, Spearman"),
                                                        (r"all rows ([\d.]+);", "Spearman {1} over all rows")]),
    dict(doc="data/h200/README.md", cmd=PICK_NV,
         quotes=[(r"picks measured (\d+) of (\d+) problems: mean regret ([\d.]+ %)", "{3} (NVLink, {1} of {2} problems)")]),
    dict(doc="data/h200/README.md", cmd=PICK_EM,
         quotes=[(r"picks measured (\d+) of (\d+) problems: mean regret ([\d.]+ %)", "{3} (emulated, {1} of {2})")]),
    *[dict(doc="docs/results.md", cmd=rng("data/h100/exp/peers_emulated_tp48_summary.csv", "speedup", "member=model/auto",
                                          f"nranks={n}", "--digits", "3", "--band", "0", "1.05"),
           quotes=[(r"band \[0, 1.05\]: (\d+) of (\d+) within", tpl)])
      for n, tpl in ((4, "at {1} of\nthe {2} TP4 problems"), (8, "and {1} of the {2} TP8 ones"))],
    # docs/results.md, "The same kernels on an H100": the two H100 peers problems it names
    *[dict(doc="docs/results.md", cmd=rng("data/h100/exp/peers_emulated_tp48_summary.csv", col, f"member={member}", f"nranks={n}",
                                          f"hidden={h}", f"tokens={t}", "--digits", digits),
           quotes=[(r"^([\d.]+) \(1 row\)", tpl)])
      for col, member, n, h, t, digits, tpl in (
          ("member_us", "model/auto", 4, 8192, 4096, "1", "{1} us, against"),
          ("flashinfer_us", "model/auto", 4, 8192, 4096, "1", "library's {1} us"),
          ("speedup", "model/auto", 4, 8192, 4096, "3", "4096 tokens,\n{1}x: the model"),
          ("member_us", "model/auto", 8, 4096, 16, "2", "{1} us; then predicted"),
          ("member_us", "trtllm", 8, 4096, 16, "2", "512/1/16 ({1} us"),
          ("speedup", "trtllm", 4, 2048, 32, "3", "256/1/32: {1}x"))],
    *[dict(doc="docs/results.md", cmd=["{arlab}", "predict", "-n", "8", "-t", "16", "--hidden", "4096", "--emulated", "--gpu",
                                       "h100_sxm", "--kernel", kernel, "--policy", "explicit", "--tpb", tpb, "--cluster", cl,
                                       "--grid", grid, "--no-terms", "--calibration", "data/calibration/h100_emulated.csv"],
           quotes=[(r"explicit +oneshot +\w+ +\S+ +\d+ +\d+ +([\d.]+)", tpl)])
      for kernel, tpb, cl, grid, tpl in (("lean", "256", "2", "32", "prices the two at {1} and"),
                                         ("reference", "512", "1", "16", "and {1} us (`arlab predict`)"))],
    # docs/results.md, "The same kernels on an H100": the reference within +-3 % of the library on the H100 peers grids
    *[dict(doc="docs/results.md", cmd=rng(f, "speedup", "member=trtllm", f"nranks={n}", "--digits", "3", "--band", "0.97", "1.03"),
           quotes=[(r"band \[0.97, 1.03\]: (\d+) of (\d+) within, (\d+) below, (\d+) above", tpl)])
      for f, n, tpl in (("data/h100/exp/peers_emulated_tp2_summary.csv", 2, "{1} of {2} problems at TP2 ({3} below, {4} above)"),
                        ("data/h100/exp/peers_emulated_tp48_summary.csv", 4, "{1} of {2} at TP4 ({3} below, {4} above)"),
                        ("data/h100/exp/peers_emulated_tp48_summary.csv", 8, "{1} of {2} at TP8 ({3} below, {4} above)"))],
    # docs/results.md, "The same kernels on an H100"
    *[dict(doc="docs/results.md", cmd=["{py}", "scripts/gpu_compare.py", f"data/h200/{probe}", f"data/h100/{probe}"] + extra,
           quotes=[(r"^(B / A over .*)$", "`{1}`")])
      for probe, extra in (("library_epilogue_probe_emulated.csv", ["--experiment", "switch_v0"]),
                           ("row_alignment_probe_emulated.csv", []))],
    # docs/model.md, "A second GPU: the emulated H100 node"
    dict(doc="docs/model.md", cmd=h100_validate(""), derive=h100_mape_row("the default)")),
    *[dict(doc=doc, cmd=h100_validate(cal), derive=lambda out, tail=tail: [" / ".join(
          re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out)).replace(" / ", " % / ") + " %" + tail])
      for doc, cal, tail in (("docs/results.md", "", " at TP2 / TP4 / TP8, the H200's"),
                             ("docs/results.md", "data/calibration/h200_emulated.csv", ": the H100's constants"))],
    dict(doc="docs/model.md", cmd=H100_RERUN_CAL + " && " + h100_validate("{tmp}/h100_rerun.csv"),
         derive=h100_mape_row("run")),
    dict(doc="docs/model.md", cmd=h100_validate("data/calibration/h200_emulated.csv"),
         derive=h100_mape_row("(`h200_emulated.csv`)")),
    dict(doc="docs/model.md", cmd=h100_validate("priors"), derive=h100_mape_row("built-in priors")),
    dict(doc="docs/model.md", cmd=h100_validate(""),
         derive=lambda out: ["Spearman " + " / ".join(re.findall(r"per problem \(\d+ problems with >= 3 configurations\) mean ([\d.]+)", out))]),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{py}} scripts/model_regret.py {f} | tail -1" for f in H100_G26),
         derive=h100_regret),
    # session 35: grid26 on an H200, with its own constants, and the two terms of session 33 switched off
    dict(doc="docs/model.md", cmd=" && ".join(f"{{arlab}} validate {f}" for f in H200_G26),
         derive=lambda out: ["reads MAPE " + " / ".join(
                                 m + " %" for m in re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out)),
                             "within problems " + " / ".join(
                                 re.findall(r"per problem \(\d+ problems with >= 3 configurations\) mean ([\d.]+)", out))]),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{py}} scripts/model_regret.py {f} | tail -1" for f in H200_G26),
         derive=lambda out: ["pick " + " / ".join(m + " %" for m in re.findall(r"mean regret ([\d.]+) %", out)) + " slower",
                             "at worst " + " / ".join(m + " %" for m in re.findall(r", max ([\d.]+) %", out)) + " (the same"]),
    *[dict(doc="docs/model.md",
           cmd=["{py}", "scripts/calibration_swap.py", "{arlab}", "data/calibration/h200_emulated.csv", "--set", setting] + H200_G26,
           derive=lambda out, label=label: [label + " " + re.search(r"MAPE with [^:]*=[^:]*: ([\d.]+ % / [\d.]+ %)", out).group(1)])
      for setting, label in (("hbm_rows_fraction_*=1", "without the rows' alignment"),
                             ("twoshot_ar_further_round_ns_n2=0", "without the reference two-shot's `ar` rounds"))],
    # session 36: the reference two-shot's ar rounds after a call's first, per round
    dict(doc="docs/model.md",
         cmd="grep -h '^twoshot_ar_further_round_ns_n2,' data/calibration/h200_emulated.csv data/calibration/h100_emulated.csv",
         derive=lambda out: ["(%.0f ns on the H200" % float(out.splitlines()[0].split(",")[1]),
                             "%.0f ns on the H100)" % float(out.splitlines()[1].split(",")[1])]),
    dict(doc="docs/model.md",
         cmd=["{arlab}", "predict", "-n", "2", "--hidden", "12672", "-t", "152", "--pattern", "ar", "--algo", "twoshot",
              "--emulated", "--policy", "explicit", "--tpb", "256", "--cluster", "2", "--grid", "18", "--vpt", "4",
              "--regs", "31", "--kernel", "reference"],
         derive=lambda out: ["(%.1f us now" % float(re.search(r"explicit\s+twoshot\s+reference\s+256/2/18\s+4\s+\d+\s+([\d.]+)", out).group(1)),
                             "17 further rounds of %s ns" % re.search(r"the rounds after the first (\d+) ns each", out).group(1)]),
    dict(doc="docs/model.md",
         cmd=f"{{arlab}} validate {H200_G26[0]} --out {{tmp}}/v_g26_ar.csv > /dev/null && {{py}} scripts/model_bias.py "
             f"{H200_G26[0]} {{tmp}}/v_g26_ar.csv --by vecs_per_thread --where pattern=ar --where kernel_variant=reference "
             "--where algo=twoshot",
         derive=lambda out: ["at 2 vectors per thread -19.0 %% -> %s %% bias, at 4 -28.1 %% -> %s %%, at 1 -7.3 %% -> %s %%" % (
             bias_of_group(out, ["2"]), bias_of_group(out, ["4"]), bias_of_group(out, ["1"]))]),
    # session 36: the lean two-shot's second hop, by token rounds per cluster on grid25 (TP2 / TP4 / TP8)
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} validate {f} --out {{tmp}}/v_hop_{i}.csv > /dev/null && {{py}} scripts/model_bias.py "
                         f"{f} {{tmp}}/v_hop_{i}.csv --by @round_count --where kernel_variant=lean --where algo=twoshot"
                         for i, f in enumerate(["data/h200/exp/model-accuracy_emulated_grid25.csv",
                                                "data/h200/exp/model-accuracy_emulated_grid25_tp4.csv",
                                                "data/h200/exp/model-accuracy_emulated_grid25_tp8.csv"])),
         derive=lambda out: [
             "grid25: 2-4 rounds %s %% / %s %% / %s %%, 5-16 rounds %s %% / %s %% / %s %%, 17+ rounds %s %% / %s %% / %s %%, "
             "one round unchanged (%s %% / %s %% / %s %%)" % tuple(
                 b for key in (["2-4"], ["5-16"], ["17+"], ["1"])
                 for b in [g[3] for g in bias_groups_all(out) if g[0] == key])]),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} validate {f}" for f in H200_G26 + H100_G26),
         derive=lambda out: [
             "(with today's model, the norm rounds below included: H200 %s / %s %%, regret %s / %s %%; H100 %s / %s / %s %%)" % (
                 *re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out)[:2],
                 *re.search(r"model \(lowest predicted among measured\)\s+\d+\s+\d+\s+\d+\s+\d+\s+([\d.]+)%\s+[\d.]+%\s+([\d.]+)%", out).groups(),
                 *re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out)[2:5])]),
    # session 36: the lean two-shot's rows by whether every rank owns a token of every cluster, pooled
    dict(doc="docs/model.md",
         cmd=pooled_bias(OWN_ROWS_GRIDS, "own", "--by nranks,@own_rows,@round_count --where kernel_variant=lean --where algo=twoshot"),
         derive=lambda out: [
             "TP4 at 2-4 rounds reads %s %% bias where some rank owns none of a cluster's tokens (%s rows) and %s %% "
             "where every rank owns one (%s rows)" % (
                 bias_of_group(out, ["4", "some_none", "2-4"]),
                 next(n for k, n, _, _ in bias_groups(out) if k == ["4", "some_none", "2-4"]),
                 bias_of_group(out, ["4", "every", "2-4"]),
                 next(n for k, n, _, _ in bias_groups(out) if k == ["4", "every", "2-4"]))]),
    # session 39: the cluster cap A/B on two H100s (uncapped pick over capped, min-max over four processes)
    dict(doc="docs/results.md", cmd="cat data/h100/candidate_lift_emulated.csv data/h100/candidate_lift_emulated_rerun.csv",
         derive=candidate_lift_ranges),
    # session 39: the one-shot bias by pattern and vectors per thread, and by body at N = 8, grids 22-26 pooled
    dict(doc="docs/model.md",
         cmd=pooled_bias(POOL_22_26, "s39", "--by pattern,vecs_per_thread --where algo=oneshot") + " && {py} scripts/model_bias.py " +
             " ".join(f"data/h200/exp/model-accuracy_emulated_{g}.csv {{tmp}}/v_s39_{g}.csv" for g in POOL_22_26) +
             " --by kernel_variant --where algo=oneshot --where nranks=8",
         derive=lambda out: (lambda g: [
             "`ar` at\nfour vectors per thread %s %% (%s rows), `ar_res_rms_fp4` %s %% at two and %s %% at four, against\n"
             "`ar_res_rms` at %s %% at four" % (
                 g[("ar", "4")][2], g[("ar", "4")][0], g[("ar_res_rms_fp4", "2")][2], g[("ar_res_rms_fp4", "4")][2],
                 g[("ar_res_rms", "4")][2]),
             "the reference is priced %s %% where the lean body is %s %%" % (g[("reference",)][2], g[("lean",)][2])])(
             {tuple(k): (n, m, b) for k, n, m, b in bias_groups_all(out)})),
    # session 36: the reference two-shot's norm-pattern rounds after the first, grids 22-26 at TP2 pooled
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} validate data/h200/exp/model-accuracy_emulated_{g}.csv --out {{tmp}}/v_ref2_{g}.csv > /dev/null"
                         for g in ("grid22", "grid24", "grid25", "grid26")) +
             " && {py} scripts/model_bias.py " +
             " ".join(f"data/h200/exp/model-accuracy_emulated_{g}.csv {{tmp}}/v_ref2_{g}.csv"
                      for g in ("grid22", "grid24", "grid25", "grid26")) +
             " --by @round_count --where kernel_variant=reference --where algo=twoshot",
         derive=lambda out: ["2-4 rounds %s %%, 5-16 rounds %s %%, 17+\nrounds %s %%" % (
             bias_of_group(out, ["2-4"]), bias_of_group(out, ["5-16"]), bias_of_group(out, ["17+"]))]),
    dict(doc="docs/model.md",
         cmd="grep -h '^twoshot_further_round_ns_n2,' data/calibration/h200_emulated.csv data/calibration/h100_emulated.csv",
         derive=lambda out: ["%.1f ns on the H200 (%.0f ns on the H100)" % tuple(
             float(line.split(",")[1]) for line in out.splitlines()[:2])]),
    dict(doc="docs/model.md",
         cmd=f"{{arlab}} validate {H200_G26[0]} && {{arlab}} validate {H100_G26[0]}",
         derive=lambda out: ["6.26 -> %s %% on the H200 and 9.10 -> %s %% on the H100 with its own constants" % tuple(
             re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out))]),
    # session 36: the README's row of grid26 on the H200, MAPE per node and per body
    dict(doc="README.md", cmd=" && ".join(f"{{arlab}} validate {f}" for f in H200_G26),
         derive=lambda out: ["MAPE %s %% / %s %% over 1120 / 1120 rows" % tuple(
             re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out))]),
    dict(doc="README.md", cmd=["{py}", "scripts/accuracy_table.py", "{arlab}"],
         derive=lambda out: [", ".join(
             "%s %s / %s" % (body, *[next(c[3] for c in table_cells(out) if len(c) > 6 and c[0] == node and c[1] == body
                                          and "model-accuracy_emulated_grid26" in c[6] and "h100" not in c[6])
                                     for node in ("emulated", "emulated TP4")])
             for body in ("lean, oneshot", "lean, twoshot", "reference, oneshot", "reference, twoshot"))
             .replace("lean, oneshot", "lean one-shot").replace("lean, twoshot", "lean two-shot")
             .replace("reference, oneshot", "reference one-shot").replace("reference, twoshot", "reference two-shot")]),
    # session 35: grid26 again at TP2 / TP4, the picks made with the H100's own constants
    dict(doc="docs/model.md", cmd=" && ".join(f"{{arlab}} validate {f}" for f in H100_G26_OWNCAL),
         derive=lambda out: ["MAPE " + " % / ".join(re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out)) + " % at TP2",
                             "within problems " + " / ".join(
                                 re.findall(r"per problem \(\d+ problems with >= 3 configurations\) mean ([\d.]+)", out))]),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} validate {f} --calibration data/calibration/h200_emulated.csv" for f in H100_G26_OWNCAL),
         derive=lambda out: ["with the H200's " + " % / ".join(re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out)) + " %."]),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{py}} scripts/model_regret.py {f} | tail -1" for f in H100_G26_OWNCAL),
         derive=lambda out: ["on average " + " / ".join(m + " %" for m in re.findall(r"mean regret ([\d.]+) %", out)) + " slower",
                             "at worst " + " / ".join(m + " %" for m in re.findall(r", max ([\d.]+) %", out)) + " ("]),
    dict(doc="docs/model.md",
         cmd=" && ".join(bias(f"data/h200/exp/model-accuracy_emulated_grid25{sfx}.csv", "data/calibration/h200_emulated.csv",
                              "--by @rounds") for sfx in ("", "_tp4", "_tp8")),
         derive=lambda out: ["rows at " + " / ".join(b + " %" for b in re.findall(r"(?m)^one\s+\d+\s+[\d.]+ %\s+([+-]?[\d.]+) %$", out))]),
    *[dict(doc="docs/model.md", cmd=" && ".join(bias(f, cal, "--by @rounds") for f in H100_G26), derive=h100_rounds_cells)
      for cal in ("data/calibration/h100_emulated.csv", "data/calibration/h200_emulated.csv")],
    *[dict(doc="docs/model.md", cmd=bias(H100_G26[i], "data/calibration/h100_emulated.csv",
                                          "--by kernel_variant,vecs_per_thread,@round_count --where algo=twoshot"),
           derive=lambda out, node=node: [
               " and ".join(re.search(rf"(?m)^{body} 1 {rounds}\s+\d+\s+[\d.]+ %\s+([+-][\d.]+) %$", out).group(1) + " %"
                            for rounds in pair) + " at " + node
               for body, pair in (("reference", ("5-16", "17\\+")), ("lean", ("2-4", "5-16")))])
      for i, node in ((0, "TP2"), (2, "TP8"))],
    *[dict(doc="docs/model.md", cmd=bias(f"data/h200/exp/model-accuracy_emulated_grid25{sfx}.csv",
                                          "data/calibration/h200_emulated.csv",
                                          "--by kernel_variant,vecs_per_thread,@round_count --where algo=twoshot"),
           derive=lambda out, node=node: [" and ".join(
               re.search(rf"(?m)^reference 1 {rounds}\s+\d+\s+[\d.]+ %\s+([+-][\d.]+) %$", out).group(1) + " %"
               for rounds in ("5-16", "17\\+")) + " at " + node])
      for sfx, node in (("", "TP2"), ("_tp8", "TP8"))],
    dict(doc="docs/model.md", cmd=["{py}", "scripts/calibration_swap.py", "{arlab}", "data/calibration/h100_emulated.csv",
                                   "--from", "data/calibration/h200_emulated.csv", "--top", "20"] + H100_G26,
         quotes=[(r"\(mean ([\d.]+) %\)", "the three files ({1} % to start)"),
                 (r"([+-][\d.]+) round_overhead_ns_per_warp ([\d.]+) -> ([\d.]+) ", "`round_overhead_ns_per_warp` {2} -> {3} ns now hurts ({1} points)"),
                 (r"([+-][\d.]+) cluster_sync_ns ", "`cluster_sync_ns` too ({1})"),
                 (r"([+-][\d.]+) round_overhead_ns ([\d.]+) -> ([\d.]+) ", "`round_overhead_ns` {2} -> {3} ns hurts ({1})")]),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/calibration_swap.py", "{arlab}", "data/calibration/h200_emulated.csv",
                                   "--set", "hbm_rows_fraction_*=1"] + H100_G26,
         quotes=[(r"with hbm_rows_fraction_\*=1: ([\d.]+) % / ([\d.]+) % / ([\d.]+) %", "read {1} % / {2} % / {3} %")]),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/calibration_swap.py", "{arlab}", "data/calibration/h200_emulated.csv",
                                   "--set", "twoshot_ar_further_round_ns_n2=0"] + H100_G26,
         quotes=[(r"=0: ([\d.]+) % / ([\d.]+) % / ([\d.]+) %", "`--set twoshot_ar_further_round_ns_n2=0`) {1} % / {2} % / {3} %")]),
    # session 41: docs/model.md, "The H100's two-shot rows": grid28's two-shot bias by vectors per thread
    dict(doc="docs/model.md", cmd=g28_bias_cmd("g28", "--by nranks,kernel_variant,vecs_per_thread --where algo=twoshot"),
         derive=lambda out: (lambda g: [" / ".join(g[f"{n} reference 1"] for n in (2, 4, 8)) + " % at one vector per",
                                        " / ".join(g[f"{n} reference 4"] for n in (2, 4, 8)) + " % at four"])
                            ({" ".join(k): b for k, _, _, b in bias_groups(out)})),
    dict(doc="docs/model.md", cmd=g28_bias_cmd("g28b", "--by nranks,algo,kernel_variant"),
         derive=lambda out: (lambda g: ["are off by " + " / ".join(g[f"{n} twoshot reference"] for n in (2, 4, 8)) +
                                        " % at TP2 / TP4 / TP8 (lean two-shot " +
                                        " / ".join(g[f"{n} twoshot lean"] for n in (2, 4, 8)) + " %;"])
                            ({" ".join(k): b for k, _, _, b in bias_groups(out)})),
    # session 41: docs/model.md, "Where the H100's calibration prices long": the example with today's model
    dict(doc="docs/model.md", cmd=["{arlab}", "predict", "-n", "2", "-t", "128", "--hidden", "8192", "--emulated", "--gpu",
                                   "h100_sxm", "--kernel", "lean", "--policy", "explicit", "--tpb", "1024", "--cluster", "1",
                                   "--grid", "64", "--no-terms", "--calibration", "data/calibration/h100_emulated.csv"],
         quotes=[(r"explicit +oneshot +\w+ +\S+ +\d+ +\d+ +([\d.]+)", "1.33x ({1} us since session 41's term)")]),
    # session 41: the README's second-GPU row, grid28 at TP2 / TP4 with the H100's own calibration
    dict(doc="README.md", cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_grid28{s}.csv "
                                          "--calibration data/calibration/h100_emulated.csv" for s in ("", "_tp4", "_tp8")),
         derive=lambda out: ["grid28 at TP2 / TP4 / TP8: MAPE " + " % / ".join(
             re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out)) + " % with its own calibration"]),
    own_pick_regret("README.md", "grid28", "the own pick "),
    # session 42: the README's second-GPU row, grid29 at TP2 / TP4 / TP8 with the H100's own calibration, the line off
    # (session 41's constants) beside it, and the own pick's regret
    dict(doc="README.md", cmd=["{py}", "scripts/calibration_swap.py", "{arlab}", "data/calibration/h100_emulated.csv"]
         + TWOSHOT_LINE_OFF + [f"data/h100/exp/model-accuracy_emulated_grid29{s}.csv" for s in ("", "_tp4", "_tp8")],
         derive=lambda out: ["grid29 at TP2 / TP4 / TP8: MAPE {0} % / {1} % / {2} % with its own calibration ({3} % / {4} % / "
                             "{5} % without session 42's two-shot lines;".format(*swap_mapes(out))]),
    own_pick_regret("README.md", "grid29", "its own pick "),
    dict(doc="README.md", cmd=["{py}", "scripts/calibration_swap.py", "{arlab}", "data/calibration/h100_emulated.csv"]
         + TWOSHOT_LINE_OFF + ["data/h100/exp/model-accuracy_emulated_grid30_tp4.csv"],
         derive=lambda out: ["grid30 at TP4 (defined after the lean two-shot's lines): MAPE {0} % ({1} % with session 41's "
                             "constants)".format(*swap_mapes(out))]),
    # session 45: the README's second-GPU row, grid31 at TP2 / TP4 / TP8 with the H100's own calibration, and the own
    # pick's regret
    dict(doc="README.md", cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_grid31{s}.csv "
                                          "--calibration data/calibration/h100_emulated.csv" for s in ("", "_tp4", "_tp8")),
         derive=lambda out: ["grid31 at TP2 / TP4 / TP8: MAPE " + " % / ".join(
             re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out)) + " % with its own calibration"]),
    own_pick_regret("README.md", "grid31", "the own pick "),
    # session 44: the README's second-GPU row and docs/model.md, "The lean two-shot's second exchange where its hop
    # is": grid30 at TP2 and TP8 (measured in session 44) with today's model and the H100's calibration
    *[dict(doc=doc,
           cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_grid30{s}.csv "
                           "--calibration data/calibration/h100_emulated.csv" for s in ("", "_tp8")),
           derive=lambda out: ["MAPE {0} % / {1} % with today's model".format(
               *re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out))])
      for doc in ("README.md", "docs/model.md")],
    # session 44: docs/model.md, "The lean two-shot's second exchange where its hop is", its leads: the cost of one
    # more token round over the H100's grids 26-30, pooled (each file validated once): the one-shot patterns at
    # TP8, then the lean two-shot at TP8 and TP4
    dict(doc="docs/model.md",
         cmd=" && ".join(
             f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{g}.csv --calibration "
             f"data/calibration/h100_emulated.csv --out {{tmp}}/rc_{g}.csv > /dev/null" for g in H100_TP8_26_30 + H100_TP4_26_30) +
             "".join(" && {py} scripts/model_bias.py " + " ".join(f"data/h100/exp/model-accuracy_emulated_{g}.csv {{tmp}}/rc_{g}.csv"
                                                                for g in grids) +
                     f" --round-cost --where algo={algo} --where pattern={pattern} | tail -1"
                     for grids, algo, pattern in ((H100_TP8_26_30, "oneshot", "ar_res_rms"), (H100_TP8_26_30, "oneshot", "ar"),
                                                  (H100_TP8_26_30, "oneshot", "ar_res_rms_fp4"),
                                                  (H100_TP8_26_30, "twoshot", "ar_res_rms"),
                                                  (H100_TP4_26_30, "twoshot", "ar_res_rms"))),
         derive=round_cost_leads),
    # session 45: docs/model.md, "grid31, held out": grid31 at TP2 / TP4 / TP8 with today's model, the own pick's
    # regret, the lean two-shot by body and N (TP4 and TP8 pooled), where the three files are off, and the mixed
    # rounds of body_round lean2_mixed_n{2,4,8}
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_grid31{s}.csv --calibration "
                         "data/calibration/h100_emulated.csv" for s in ("", "_tp4", "_tp8")),
         derive=lambda out: ["MAPE {0} % / {1} % / {2} % over {3} / {4} / {5} rows (max APE {6} % / {7} % / {8} %; "
                             "Spearman within a problem {9} / {10} / {11} mean)".format(
                                 *re.findall(r"against the headline[^\n]*?MAPE ([\d.]+) %", out),
                                 *re.findall(r"rows (\d+): used", out),
                                 *re.findall(r"against the headline[^\n]*?max APE ([\d.]+) %", out),
                                 *["%.3f" % float(m) for m in re.findall(r"per problem [^\n]*? mean ([\d.]+)", out)])]),
    own_pick_regret("docs/model.md", "grid31", "(`scripts/model_regret.py FILE`) is "),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_grid31{s}.csv --calibration "
                         f"data/calibration/h100_emulated.csv --out {{tmp}}/g31{s}.csv > /dev/null" for s in ("", "_tp4", "_tp8")) +
             " && {py} scripts/model_bias.py " + " ".join(f"data/h100/exp/model-accuracy_emulated_grid31{s}.csv {{tmp}}/g31{s}.csv"
                                                        for s in ("_tp4", "_tp8")) + " --by nranks,kernel_variant,algo"
             " && {py} scripts/model_bias.py " + " ".join(f"data/h100/exp/model-accuracy_emulated_grid31{s}.csv {{tmp}}/g31{s}.csv"
                                                        for s in ("", "_tp4", "_tp8")) + " --by pattern"
             " && {py} scripts/model_bias.py " + " ".join(f"data/h100/exp/model-accuracy_emulated_grid31{s}.csv {{tmp}}/g31{s}.csv"
                                                        for s in ("", "_tp4", "_tp8")) + " --by tokens"
             " && {py} scripts/model_bias.py " + " ".join(f"data/h100/exp/model-accuracy_emulated_grid31{s}.csv {{tmp}}/g31{s}.csv"
                                                        for s in ("", "_tp4", "_tp8")) + " --by nranks,kernel_variant,algo --where pattern=ar"
             " && {py} scripts/model_bias.py data/h100/exp/model-accuracy_emulated_grid31_tp8.csv {tmp}/g31_tp8.csv "
             "--by @round_count --where kernel_variant=lean --where algo=twoshot",
         derive=grid31_bias_quotes),
    *[dict(doc="docs/model.md", cmd=["{py}", "scripts/lean2_mixed.py", f"data/calibration/h100_emulated_s45_n{n}_microbench.csv", str(n)],
           derive=(lambda out: [out.splitlines()[-1]] + [l for l in out.splitlines() if l.startswith("16 128 8 8192 ")]) if n == 8
           else (lambda out: [out.splitlines()[-1]]))
      for n in (2, 4, 8)],
    # session 45: docs/model.md, "grid31, held out", the rounds by vectors per thread and by blocks: the one-shot
    # bias by N and vectors per thread over the eighteen H100 grids 26-31, the two sweeps, and the body_round rows
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{g}.csv --calibration "
                         f"data/calibration/h100_emulated.csv --out {{tmp}}/vb_{g}.csv > /dev/null" for g in H100_GRIDS_26_31) +
             " && {py} scripts/model_bias.py " + " ".join(f"data/h100/exp/model-accuracy_emulated_{g}.csv {{tmp}}/vb_{g}.csv"
                                                        for g in H100_GRIDS_26_31) +
             " --by nranks,vecs_per_thread --where algo=oneshot",
         derive=lambda out: ["TP{0} {1} % / {2} % / {3} %".format(n, *[b for k, _, _, b in bias_groups(out) if k[0] == n])
                             for n in ("2", "4", "8")]),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/vpt_rounds_emulated.csv --out {tmp}/vpt.csv && {py} scripts/model_bias.py "
             "data/h100/vpt_rounds_emulated.csv {tmp}/vpt.csv --round-cost && {py} scripts/model_bias.py "
             "data/h100/vpt_rounds_emulated.csv {tmp}/vpt.csv --by nranks,vecs_per_thread",
         derive=vpt_sweep_quotes),
    dict(doc="docs/model.md",
         cmd="{arlab} validate data/h100/vpt_rounds_few_blocks_emulated.csv --out {tmp}/few.csv && {py} "
             "scripts/model_bias.py data/h100/vpt_rounds_few_blocks_emulated.csv {tmp}/few.csv --round-cost-tokens "
             "--where policy=explicit",
         derive=few_blocks_quotes),
    *[dict(doc="docs/model.md", cmd=rng("data/calibration/h100_emulated_microbench.csv", "value", "bench=body_round",
                                        "variant=reference_n2_slowest", f"sms={sms}", "tpb=128", "cluster=2", "size=8192",
                                        "--digits", "0"),
           quotes=[(r"^(\d+ \(1 row\))", tpl)])
      for sms, tpl in ((16, "`{1}` against"), (64, "against `{1}` ns"))],
    # session 42: docs/model.md, "The lean two-shot's reader and owner rounds": the lean two-shot rows of the twelve
    # H100 grids with today's calibration, by N
    dict(doc="docs/model.md",
         cmd=" && ".join(
             f"{{arlab}} validate data/h100/exp/model-accuracy_emulated_{g}.csv --calibration data/calibration/h100_emulated.csv "
             f"--out {{tmp}}/l2_{g}.csv > /dev/null" for g in H100_GRIDS_26_29) +
             " && {py} scripts/model_bias.py " + " ".join(f"data/h100/exp/model-accuracy_emulated_{g}.csv {{tmp}}/l2_{g}.csv"
                                                        for g in H100_GRIDS_26_29) +
             " --by nranks --where algo=twoshot --where kernel_variant=lean",
         derive=lambda out: ["to " + " / ".join(m[2] for m in bias_groups(out)) + " % MAPE at TP2 / TP4 / TP8"]),
    # session 42: docs/model.md, "The lean two-shot's reader and owner rounds": grid30 at TP4, held out, both lines off,
    # the lean lines off, today's; the own pick's regret
    dict(doc="docs/model.md",
         cmd=" && ".join(" ".join(["{py}", "scripts/calibration_swap.py", "{arlab}", "data/calibration/h100_emulated.csv"]
                                  + [f"'{a}'" if "*" in a else a for a in off]
                                  + ["data/h100/exp/model-accuracy_emulated_grid30_tp4.csv"])
                         for off in (TWOSHOT_LINE_OFF, LEAN2_LINES_OFF)),
         derive=lambda out: ["MAPE {1} % with session 41's constants, {3} % with the reference two-shot's line, {0} % with "
                             "both".format(*[re.search(r"([\d.]+) %", l).group(1) for l in out.splitlines()
                                             if l.startswith("MAPE with ")])]),
    dict(doc="docs/model.md",
         cmd="{py} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_grid30_tp4.csv | tail -1",
         derive=lambda out: ["made with both lines: {0} % slower\nthan the fastest row on average, {1} % at worst".format(
             *re.search(r"mean regret ([\d.]+) %, median [\d.]+ %, max ([\d.]+) %", out).groups())]),
    # session 42: docs/model.md, "The two-shot epilogue's own round": the line off against on, H100 files
    dict(doc="docs/model.md",
         cmd=" && ".join(" ".join(["{py}", "scripts/calibration_swap.py", "{arlab}", "data/calibration/h100_emulated.csv"]
                                  + [f"'{a}'" if "*" in a else a for a in off]
                                  + [f"data/h100/exp/{f}.csv" for _, files in TWOSHOT_LINE_ROWS for f in files])
                         for off in (TWOSHOT_LINE_OFF, LEAN2_LINES_OFF)),
         derive=twoshot_line_table),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{py}} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_grid29{s}.csv | tail -1"
                         for s in ("", "_tp4", "_tp8")),
         derive=lambda out: [" / ".join(re.findall(r"mean regret ([\d.]+) %", out)) + " % slower than the fastest row "
                             "on average, " + " / ".join(re.findall(r", max ([\d.]+) %", out)) + " % at worst"]),
    dict(doc="docs/model.md",
         cmd=" && ".join(bias(f"data/h100/exp/model-accuracy_emulated_grid29{sfx}.csv", "data/calibration/h100_emulated.csv",
                              "--by nranks,algo,kernel_variant") for sfx in ("", "_tp4", "_tp8")),
         derive=lambda out: [" / ".join(re.findall(r"(?m)^\d twoshot reference\s+\d+\s+([\d.]+) %", out)) + " % and " +
                             " / ".join(re.findall(r"(?m)^\d twoshot reference\s+\d+\s+[\d.]+ %\s+([+-][\d.]+) %", out)) +
                             " % with today's"]),
    # session 41: docs/model.md, "The HBM bounds' bytes that stay in L2": the term off against on, H100 files
    dict(doc="docs/model.md", cmd=["{py}", "scripts/calibration_swap.py", "{arlab}", "data/calibration/h100_emulated.csv",
                                   "--set", "l2_store_busy_gbps=0"] + [f"data/h100/exp/{f}.csv" for f in L2_TERM_H100],
         derive=l2_term_table),
    dict(doc="docs/model.md", cmd=["{py}", "scripts/calibration_swap.py", "{arlab}", "data/calibration/h100_emulated.csv",
                                   "--set", "l2_store_busy_gbps=0", "data/h100/exp/model-accuracy_emulated_grid28.csv",
                                   "data/h100/exp/model-accuracy_emulated_grid28_tp4.csv",
                                   "data/h100/exp/model-accuracy_emulated_grid28_tp8.csv"],
         derive=lambda out: ["MAPE {3} -> {0} % at TP2, {4} -> {1} % at TP4 and {5} -> {2} % at TP8".format(*swap_mapes(out))]),
    dict(doc="docs/model.md",
         cmd=" && ".join(f"{{py}} scripts/model_regret.py data/h100/exp/model-accuracy_emulated_grid28{s}.csv | tail -1"
                         for s in ("", "_tp4", "_tp8")),
         derive=lambda out: [" / ".join(m + " %" for m in re.findall(r"mean regret ([\d.]+) %", out)) + "\nslower",
                             "at worst " + " / ".join(m + " %" for m in re.findall(r", max ([\d.]+) %", out))]),
]


# ---- structural checks ------------------------------------------------------------------------------------

# A section cited by name: a docs page (a path ending in docs/PAGE.md, or a bare PAGE.md where that resolves
# from the citing file, as a docs page's links do), an optional ")" and ",", then the name in double quotes.
SECTION_CITE = re.compile(r'(?<![\w.-])((?:[\w.-]+/)*)([a-z_-]+\.md)\)?,? "([^"]{3,120})"')


def section_titles(page):
    """A docs page's headings and bold leads (a paragraph or list item opening with **...**), as written."""
    text = open(page).read()
    titles = [h.strip() for h in re.findall(r"^#+ (.+)$", text, re.M)]
    titles += [b.strip().rstrip(".:") for b in re.findall(r"^(?:[*-] )?\*\*(.+?)\*\*", text, re.M)]
    return titles


def missing_cited_sections():
    """Every `docs/PAGE.md, "Section"` cite in the code, the scripts and the docs names a heading or bold lead
    of PAGE (or the start of one, up to a space, colon, comma, period or parenthesis): a renamed or removed
    section leaves no stale pointer behind."""
    fails, titles = [], {}
    paths = set()
    for pattern in ("**/*.h", "**/*.cpp", "**/*.cu", "**/*.cuh", "**/*.py", "**/*.sh", "**/*.md", "**/*.txt",
                    "**/CMakeLists.txt"):
        paths |= set(glob.glob(os.path.join(SRC, pattern), recursive=True))
    for path in sorted(paths):
        rel = os.path.relpath(path, SRC)
        if rel.startswith(("build", "out", "results", ".")):
            continue
        with open(path, errors="replace") as f:
            # a cite may wrap: join each line to the next, less the next line's comment marker
            text = re.sub(r"[ \t]*\n[ \t]*(?://|#+(?=\s)|\*(?=\s))?[ \t]*", " ", f.read())
        for m in SECTION_CITE.finditer(text):
            page = None
            for cand in (os.path.join(os.path.dirname(rel), m.group(1) + m.group(2)), m.group(1) + m.group(2)):
                cand = os.path.normpath(cand)
                if cand.startswith("docs" + os.sep) and os.path.isfile(os.path.join(SRC, cand)):
                    page = cand
                    break
            if page is None:
                continue
            if page not in titles:
                titles[page] = section_titles(os.path.join(SRC, page))
            name = m.group(3)
            if not any(t == name or (t.startswith(name) and t[len(name)] in " :(,.") for t in titles[page]):
                fails.append(f'{rel} cites {page}, "{name}": no heading or bold lead of {page} starts so')
    return fails


def structural_failures():
    fails = []
    readme = open(os.path.join(SRC, "README.md")).read()
    lines = readme.splitlines()
    if len(lines) > 200:
        fails.append(f"README.md has {len(lines)} lines; the limit is 200 (details belong in docs/)")
    first_block = re.search(r"```bash\n(.*?)```", readme, re.S)
    cmds = [l.split("#")[0].strip() for l in first_block.group(1).splitlines()] if first_block else []
    if cmds != ["scripts/main.sh", "scripts/test.sh"]:
        fails.append("README.md: the first code block must be exactly the two commands scripts/main.sh (a) and "
                     f"scripts/test.sh (b); found {cmds}")
    if first_block and re.search(r"^#+ ", readme[len(lines[0]) + 1:first_block.start()], re.M):
        fails.append("README.md: the two commands must come right after the short intro, before any section")
    # calibrate/README.md names exactly the constants of model/calibration.h
    consts = re.findall(r"^\s+X\((\w+),", open(os.path.join(SRC, "model", "calibration.h")).read(), re.M)
    cal_readme = open(os.path.join(SRC, "calibrate", "README.md")).read()
    named = set()
    for row in table_cells(cal_readme)[1:]:
        named |= set(re.findall(r"`(\w+)`", row[-1]))
    # the backticked names that end like a constant (_us, _ns, _op, ...; variants such as `copy_busy` do not)
    suffixes = {c.rsplit("_", 1)[-1] for c in consts}
    named = {n for n in named if "_" in n and n.rsplit("_", 1)[-1] in suffixes}
    for n in sorted(named - set(consts)):
        fails.append(f"calibrate/README.md names the constant {n}, which model/calibration.h does not define")
    for n in sorted(set(consts) - named):
        fails.append(f"calibrate/README.md does not say which bench sets {n} (model/calibration.h)")
    m = re.search(r"into the (\d+) constants", cal_readme)
    if not m or int(m.group(1)) != len(consts):
        fails.append(f"calibrate/README.md should say 'into the {len(consts)} constants'")
    # every docs/ page the code cites exists
    cited = set()
    for pattern in ("**/*.h", "**/*.cpp", "**/*.cu", "**/*.cuh", "**/*.py", "**/*.sh", "**/CMakeLists.txt"):
        for path in glob.glob(os.path.join(SRC, pattern), recursive=True):
            rel = os.path.relpath(path, SRC)
            if rel.startswith(("build", "out", "results", ".")):
                continue
            with open(path, errors="replace") as f:
                cited |= set(re.findall(r"docs/[a-z_-]+\.md", f.read()))
    for page in sorted(cited):
        if not os.path.exists(os.path.join(SRC, page)):
            fails.append(f"the code cites {page}, which does not exist")
    # relative links of the Markdown docs resolve
    docs = ["README.md", "calibrate/README.md", "data/h200/README.md", "data/calibration/README.md"] + \
        sorted(os.path.relpath(p, SRC) for p in glob.glob(os.path.join(SRC, "docs", "*.md")))
    for doc in docs:
        text = open(os.path.join(SRC, doc)).read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#")[0]
            if not os.path.exists(os.path.normpath(os.path.join(SRC, os.path.dirname(doc), path))):
                fails.append(f"{doc}: the link ({target}) does not resolve")
    fails += missing_cited_sections()
    return fails


# ---- driver ---------------------------------------------------------------------------------------------

def fill(arg):
    return (arg.replace("{arlab}", ARLAB).replace("{py}", PY).replace("{mpl}", MPL_PY or "")
            .replace("{tmp}", TMP))


def run(cmd, cache):
    key = cmd if isinstance(cmd, str) else tuple(cmd)
    if key not in cache:
        if isinstance(cmd, str):
            argv = ["bash", "-c", fill(cmd.replace("{arlab}", shlex.quote(ARLAB)).replace("{py}", shlex.quote(PY)))]
        else:
            argv = [fill(a) for a in cmd]
        p = subprocess.run(argv, cwd=SRC, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S,
                           env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg"))
        if p.returncode != 0:
            cache[key] = (None, f"exit code {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
        else:
            cache[key] = (p.stdout, None)
    return cache[key]


def show(cmd):
    """The command as a user would type it in the source directory."""
    names = {"{arlab}": os.path.relpath(ARLAB, SRC), "{py}": "python3", "{mpl}": "python3", "{tmp}": "OUT"}
    if isinstance(cmd, str):
        text = cmd
    else:
        text = " ".join(shlex.quote(a) if a and "{" not in a else (a or "''") for a in cmd)
    for k, v in names.items():
        text = text.replace(k, v)
    return text


def main(argv):
    global ARLAB, SRC, TMP, MPL_PY
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ARLAB, SRC = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    p = subprocess.run([os.path.join(SRC, "scripts", "find-python.sh")], capture_output=True, text=True)
    MPL_PY = p.stdout.strip() if p.returncode == 0 else None
    docs_text = {}
    failures, skipped, quotes = [], [], 0
    cache = {}
    with tempfile.TemporaryDirectory(prefix="doc_numbers_") as tmp:
        TMP = tmp
        for c in CHECKS:
            if c.get("mpl") and not MPL_PY:
                skipped.append(f"{c['doc']}: {show(c['cmd'])} (no python3 with matplotlib)")
                continue
            doc = c["doc"]
            if doc not in docs_text:
                docs_text[doc] = norm(open(os.path.join(SRC, doc)).read())
            out, err = run(c["cmd"], cache)
            where = f"{doc}: from `{show(c['cmd'])}`"
            if err:
                failures.append(f"{where}: the command failed: {err}")
                continue
            try:
                if "derive" in c:
                    wanted = c["derive"](out)
                else:
                    wanted = []
                    for regex, template in c["quotes"]:
                        m = re.search(regex, out, re.M)
                        if not m:
                            raise AssertionError(f"its output no longer matches /{regex}/:\n{out[-1500:]}")
                        if template:
                            wanted.append(re.sub(r"\{(\d+)\}", lambda g: m.group(int(g.group(1))), template))
                        elif "l2_latency_ns" in regex and float(m.group(1)) > 1.0:
                            raise AssertionError(f"l2_latency_ns is fitted to {m.group(1)}, not about 0 as {doc} says")
            except (AssertionError, AttributeError, KeyError, ValueError, StopIteration, IndexError) as e:
                failures.append(f"{where}: {type(e).__name__}: {e}")
                continue
            for w in wanted:
                quotes += 1
                if norm(w) not in docs_text[doc]:
                    failures.append(f"{where}: the page should quote\n    {norm(w)}\n  (what the command prints today) "
                                    "but does not")
    failures += structural_failures()
    for s in skipped:
        print(f"SKIP {s}")
    for f in failures:
        print(f"FAIL {f}\n")
    print(f"doc numbers: {len(CHECKS) - len(skipped)} commands checked, {quotes} quotes, {len(skipped)} skipped, "
          f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
