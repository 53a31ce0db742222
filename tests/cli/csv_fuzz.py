#!/usr/bin/env python3
"""Seeded CSV fuzz test of the `arlab` readers (issues 11 and 22), through the real binary.

Mutants of the three kinds of committed CSV arlab reads -- measurements (data/h200/seed.csv, read by
`arlab validate` and, for some, `arlab fit`), calibrations (data/calibration/{default,h200_nvlink}.csv,
read by `arlab save-calibration --calibration`) and microbenchmarks
(data/calibration/h200_{emulated,nvlink}_microbench.csv, read by `arlab save-calibration
--from-microbench`) -- made by a seeded generator: truncations, byte flips and insertions (NUL and
non-UTF-8 bytes too), duplicated / missing / swapped columns, huge cells, NaN / Inf / -0 / 1e308 /
subnormal / octal / hex / negative numbers, CRLF line ends, a byte-order mark, blank lines, stray and
doubled quotes, repeated header lines, deleted and duplicated rows; one to three per mutant. For
every mutant:
  * no crash (exit code 0 or 2, never a signal) and no hang (a per-case timeout);
  * on an error, the message starts "arlab: error:" and names the mutant as file:line (a
    microbenchmark file from which no calibration can be derived, a row missing: as the file);
  * the mutant file is byte-for-byte unchanged, and no output was written next to it.
No input silently reinterpreted: a mutant whose one change is a number no cell of its column may
hold (never_a_number: an octal, hex or '+' integer, a hex, infinite, overflowing or subnormal real;
BAD_NUMBER_CELLS_PER_KIND of each kind on purpose, and those the random mutations make) must be
refused; an accepted mutant prints no figure of MAX_PRINTED_DIGITS digits or more; a refusal never
calls a finite number "not a finite number" nor says CLI11's bare "Could not convert"; and the neutral
mutants (NEUTRAL_PER_BASE per committed file: its columns in another order, CRLF line ends, a
byte-order mark, blank lines -- the same data, written otherwise) must be read as the file itself:
exit 0 and the same output, file names and timings aside.
The same seed gives the same mutants. Usage: csv_fuzz.py ARLAB SOURCE_DIR [MUTANTS] [SEED]
"""
import concurrent.futures
import csv
import hashlib
import io
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time

CASE_TIMEOUT_S = 20  # one run takes milliseconds; a hang shows as this timeout
DEFAULT_MUTANTS = 1500
NEUTRAL_PER_BASE = 12  # neutral mutants of each committed file (4 kinds x 3)
BAD_NUMBER_CELLS_PER_KIND = 60  # mutants of each kind with one numeric cell no column may hold
BAD_NUMBERS = ["010", "0128", "-010", "0x10", "+5", " 7", "7 ", "1e3", "1.5", "0x1p3", "1e-320", "4.9e-324",
               "-1e-310", "1e999", "-1e999", "infinity", "inf", "-inf", "nan", "1,5", "--1", "1e", ""]
DEFAULT_SEED = 11  # the issue number
FIT_EVERY = 10  # every 10th measurement mutant is also fitted (fit reads the same rows, then solves)
NUMBERS = ["nan", "NaN", "inf", "-inf", "-0", "1e308", "-1e308", "1e-320", "-1", "0", "4294967296",
           "99999999999999999999", "0x10", "1,5", " 7 ", "", "1e", "--1", "2147483648", "-2147483649",
           "010", "0128", "+5", "0x1p3", "1e-300", "4.9e-324", "-1e-310", "infinity"]


def split_rows(text):
    return text.split("\n")


# The cell the last mutate() set to one of NUMBERS: (column name, text), or None.
LAST_NUMBER_CELL = None


def mutate(text, rng):
    """One mutation of the CSV text, chosen by rng."""
    global LAST_NUMBER_CELL
    LAST_NUMBER_CELL = None
    lines = split_rows(text)
    kind = rng.randrange(14)
    if kind == 0:  # truncation at a random byte
        return text[:rng.randrange(len(text) + 1)]
    if kind == 1:  # byte flips (any value, including NUL and bytes that are not UTF-8)
        data = bytearray(text.encode("utf-8", "surrogateescape"))
        for _ in range(rng.randint(1, 8)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        return data.decode("utf-8", "surrogateescape")
    if kind == 2:  # duplicate a column (header and cells)
        col = rng.randrange(len(lines[0].split(",")))
        return "\n".join(",".join(c + ([c[col]] if col < len(c) else []))
                         for c in (l.split(",") for l in lines))
    if kind == 3:  # delete a column
        col = rng.randrange(len(lines[0].split(",")))
        return "\n".join(",".join(c[:col] + c[col + 1:]) for c in (l.split(",") for l in lines))
    if kind == 4:  # swap two columns
        cells = [l.split(",") for l in lines]
        a, b = rng.randrange(len(cells[0])), rng.randrange(len(cells[0]))
        for c in cells:
            if a < len(c) and b < len(c):
                c[a], c[b] = c[b], c[a]
        return "\n".join(",".join(c) for c in cells)
    if kind in (5, 6):  # a cell replaced: a strange number, or a huge cell
        i = rng.randrange(1, max(2, len(lines)))
        if i >= len(lines) or not lines[i]:
            return text
        cells = lines[i].split(",")
        j = rng.randrange(len(cells))
        cells[j] = rng.choice(NUMBERS) if kind == 5 else rng.choice("ax9.-\"") * rng.choice([100, 10000, 400000])
        header = lines[0].lstrip("\ufeff").rstrip("\r").split(",")
        if kind == 5 and j < len(header) and '"' not in lines[i]:  # cells aligned with the header
            LAST_NUMBER_CELL = (header[j], cells[j])
        lines[i] = ",".join(cells)
        return "\n".join(lines)
    if kind == 7:  # CRLF line ends
        return text.replace("\n", "\r\n")
    if kind == 8:  # a UTF-8 byte-order mark
        return "\ufeff" + text
    if kind == 9:  # blank lines (empty, spaces, a lone CR) anywhere
        for _ in range(rng.randint(1, 4)):
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(["", "  ", "\r", "\t"]))
        return "\n".join(lines)
    if kind == 10:  # quotes: unbalanced, doubled, around a cell
        i = rng.randrange(len(lines))
        pos = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:pos] + rng.choice(['"', '""', '"x,y"', '"\n"']) + lines[i][pos:]
        return "\n".join(lines)
    if kind == 11:  # the header line repeated further down (two files concatenated)
        lines.insert(rng.randrange(1, len(lines) + 1), lines[0])
        return "\n".join(lines)
    if kind == 12:  # rows deleted (possibly the header) or all but the header
        if rng.random() < 0.3:
            return lines[0] + "\n"
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    i = rng.randrange(len(lines))  # kind 13: a row duplicated many times
    lines[i:i] = [lines[i]] * rng.randint(1, 50)
    return "\n".join(lines)


def schema_types(source, header_file):
    """{column: C++ cell type} of a schema's X-macro list (common/*_schema.h)."""
    text = open(os.path.join(source, "common", header_file)).read()
    return dict((name, kind) for kind, name in re.findall(r"X\(([\w:<>]+),\s*(\w+),", text))


INTEGER_TEXT = re.compile(r"-?(0|[1-9][0-9]*)")
REAL_TEXT = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")


def never_a_number(kind, text):
    """True when no cell of C++ type `kind` may hold `text` (common/number_text.h): an integer that is not
    plain decimal (010, 0x10, +5, 1e3, spaces), a real that is not a plain decimal number a double holds
    (hex, '+', spaces, infinity, a subnormal or an overflow), nan outside a DoubleOrNan column."""
    if kind in ("int", "long long", "unsigned long long"):
        return not INTEGER_TEXT.fullmatch(text) or text == "-0" or (kind.startswith("unsigned") and text[:1] == "-")
    if kind in ("double", "DoubleOrNan", "std::optional<double>"):
        if kind == "DoubleOrNan" and text.lower().lstrip("-") == "nan":
            return False
        if kind == "std::optional<double>" and text == "":
            return False
        if not REAL_TEXT.fullmatch(text):
            return True
        v = float(text)
        return math.isinf(v) or (v != 0 and abs(v) < 2.2250738585072014e-308)
    return False


# The most digits a figure arlab prints may have: the longest legitimate ones are 64-bit seeds (20
# digits) and integers of a cell quoted back (cut to 80 characters in messages, not printed on success).
MAX_PRINTED_DIGITS = 25


def message_problems(err):
    """What is unclear in a refusal: a message that calls a finite number "not a finite number" (a
    subnormal such as 1e-320 is finite: too close to 0), or CLI11's bare "Could not convert"."""
    problems = []
    for cell in re.findall(r"'([^']*)' is not a finite number", err):
        try:
            finite = math.isfinite(float(cell))
        except ValueError:
            finite = False
        if finite:
            problems.append("calls the finite %r 'not a finite number'" % cell)
    if "Could not convert" in err:
        problems.append("CLI11's bare 'Could not convert'")
    return problems


def neutral_mutant(text, rng, which):
    """The same data written otherwise: 0 its columns in another order (RFC 4180, quoted cells kept),
    1 CRLF line ends, 2 a byte-order mark, 3 blank lines between rows."""
    if which == 0:
        rows = list(csv.reader(io.StringIO(text, newline="")))
        order = list(range(len(rows[0])))
        while order == sorted(order):
            rng.shuffle(order)
        out = io.StringIO(newline="")
        csv.writer(out, lineterminator="\n").writerows([[r[i] for i in order] for r in rows])
        return out.getvalue()
    if which == 1:
        return text.replace("\n", "\r\n")
    if which == 2:
        return "\ufeff" + text
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        lines.insert(rng.randrange(1, len(lines) + 1), rng.choice(["", "  ", "\t"]))
    return "\n".join(lines)


def argvs_for(arlab, kind, name, out_path, fit):
    """The commands that read a mutant of `kind`."""
    if kind == "measurement":
        return [[arlab, "validate", name]] + ([[arlab, "fit", name, "--out", out_path]] if fit else [])
    if kind == "calibration":
        return [[arlab, "save-calibration", out_path, "--calibration", name]]
    return [[arlab, "save-calibration", out_path, "--from-microbench", name]]


def normalized(text, names):
    """Output without what differs between reading two files of the same data: names, times."""
    for n in sorted(names, key=len, reverse=True):  # a path holding a shorter name first
        text = text.replace(n, "FILE")
    return "\n".join(l for l in text.splitlines() if not re.search(r"\btime\b|\bms\b", l))


def run_outputs(argvs, work, out_path, names):
    """(exit codes, normalized stdout and output file) of the commands."""
    codes, texts = [], []
    for argv in argvs:
        r = subprocess.run(argv, cwd=work, capture_output=True, timeout=CASE_TIMEOUT_S)
        codes.append(r.returncode)
        written = open(out_path, "rb").read().decode("utf-8", "replace") if os.path.exists(out_path) else ""
        texts.append(normalized(r.stdout.decode("utf-8", "replace") + written, names))
        if os.path.exists(out_path):
            os.remove(out_path)
    return codes, texts


def run_neutral(arlab, work, index, kind, base_name, text, expected):
    """A neutral mutant must read as its base: exit 0 and the base's output. Returns problems."""
    name = "neutral_%04d_%s.csv" % (index, kind)
    path = os.path.join(work, name)
    with open(path, "w", newline="") as f:
        f.write(text)
    out_path = os.path.join(work, "neutral_out_%04d.csv" % index)
    codes, texts = run_outputs(argvs_for(arlab, kind, name, out_path, False), work, out_path,
                               [name, base_name, out_path, os.path.join(work, "base_out_" + base_name)])
    if codes == [0] and texts == expected:
        os.remove(path)
        return []
    return ["neutral mutant %d (%s of %s, kept as %s): exit %s, output %s the file's own" % (
        index, kind, base_name, path, codes, "equal to" if texts == expected else "different from")]


def bad_number_mutant(text, types, rng):
    """`text` with one numeric cell (a random row, a random numeric column) set to a text no cell of that
    column may hold; returns (mutant, (column, text))."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    numeric = [j for j, name in enumerate(rows[0]) if types.get(name, "std::string") != "std::string"]
    while True:
        i, j = rng.randrange(1, len(rows)), rng.choice(numeric)
        value = rng.choice(BAD_NUMBERS)
        if never_a_number(types[rows[0][j]], value):
            break
    rows[i][j] = value
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue(), (rows[0][j], value)


def run_case(arlab, work, index, kind, text, fit, bad_number):
    """Writes mutant `index`, runs the reader on it; returns (problems (empty: passed), runs refused, runs)."""
    name = "mutant_%04d_%s.csv" % (index, kind)
    path = os.path.join(work, name)
    data = text.encode("utf-8", "surrogateescape")
    with open(path, "wb") as f:
        f.write(data)
    digest = hashlib.sha256(data).hexdigest()
    out_path = os.path.join(work, "out_%04d.csv" % index)
    argvs = argvs_for(arlab, kind, name, out_path, fit)
    problems = []
    refused = 0
    for argv in argvs:
        try:
            r = subprocess.run(argv, cwd=work, capture_output=True, timeout=CASE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            problems.append("%s: no exit within %d s" % (argv[1], CASE_TIMEOUT_S))
            continue
        err = r.stderr.decode("utf-8", "replace")
        if r.returncode not in (0, 2):
            problems.append("%s: exit code %d (a crash or signal)" % (argv[1], r.returncode))
        if r.returncode == 2:
            refused += 1
            if not err.startswith("arlab: error:"):
                problems.append("%s: message does not start 'arlab: error:': %r" % (argv[1], err[:200]))
            # A microbenchmark file from which no calibration can be derived (a row missing) is named whole.
            whole_file = kind == "microbench" and re.search(re.escape(name) + r": no calibration can be derived", err)
            if not re.search(re.escape(name) + r":\d+", err) and not whole_file:
                problems.append("%s: message names no %s:LINE: %r" % (argv[1], name, err[:300]))
            if len(err) > 4000:
                problems.append("%s: message of %d characters" % (argv[1], len(err)))
            problems += ["%s: %s" % (argv[1], p) for p in message_problems(err)]
        if r.returncode == 0:
            # An accepted mutant is read as numbers a person could have meant: no printed figure of
            # hundreds of digits (a kernel time of 1e-300 us once gave a 300-digit MAPE).
            out = r.stdout.decode("utf-8", "replace")
            huge = re.search(r"\d{%d,}" % MAX_PRINTED_DIGITS, out)
            if huge:
                problems.append("%s: accepted, and printed a figure of %d digits" % (argv[1], len(huge.group(0))))
        if bad_number and r.returncode != 2:
            problems.append("%s: accepted %s = %r, which no cell of that column may hold (read as what?)" % (
                argv[1], bad_number[0], bad_number[1]))
        if r.returncode == 2 and os.path.exists(out_path):
            problems.append("%s: an output was written although the input was refused" % argv[1])
    with open(path, "rb") as f:
        if hashlib.sha256(f.read()).hexdigest() != digest:
            problems.append("the mutant was changed")
    leftovers = [p for p in os.listdir(work) if ".tmp." in p and p.startswith(".out_%04d" % index)]
    if leftovers:
        problems.append("temporary files left: %s" % leftovers)
    if not problems:
        os.remove(path)
        if os.path.exists(out_path):
            os.remove(out_path)
    failure = ["mutant %d (%s, kept as %s): %s" % (index, kind, path, "; ".join(problems))] if problems else []
    return failure, refused, len(argvs)


def main():
    arlab, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    mutants = int(sys.argv[3]) if len(sys.argv) > 3 else DEFAULT_MUTANTS
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else DEFAULT_SEED
    bases = {
        "measurement": ["data/h200/seed.csv"],
        "calibration": ["data/calibration/default.csv", "data/calibration/h200_nvlink.csv"],
        "microbench": ["data/calibration/h200_emulated_microbench.csv", "data/calibration/h200_nvlink_microbench.csv"],
    }
    texts = {k: [open(os.path.join(source, p), newline="").read() for p in v] for k, v in bases.items()}
    types = {"measurement": schema_types(source, "measurement_schema.h"),
             "calibration": schema_types(source, "calibration_schema.h"),
             "microbench": schema_types(source, "microbench_schema.h")}
    rng = random.Random(seed)
    plan = []
    for i in range(mutants):
        # Half measurement mutants, a quarter each of calibration and microbenchmark mutants.
        kind = ("calibration", "measurement", "microbench", "measurement")[i % 4]
        text = rng.choice(texts[kind])
        count = rng.choice([1, 1, 1, 2, 3])
        for _ in range(count):
            text = mutate(text, rng)
        # A single mutation that wrote a number no cell of its column may hold: the run must refuse it.
        cell = LAST_NUMBER_CELL if count == 1 else None
        bad = cell if cell and never_a_number(types[kind].get(cell[0], ""), cell[1]) else None
        plan.append((i, kind, text, kind == "measurement" and i % FIT_EVERY == 1, bad))
    for kind in bases:
        for _ in range(BAD_NUMBER_CELLS_PER_KIND):
            text, bad = bad_number_mutant(rng.choice(texts[kind]), types[kind], rng)
            plan.append((len(plan), kind, text, False, bad))
    start = time.time()
    failures, refused, runs = [], 0, 0
    work = tempfile.mkdtemp(prefix="arlab_csv_fuzz_")
    # The committed files as they are, and what reading them gives (the neutral mutants must give it too).
    neutral_plan = []
    for kind, paths in bases.items():
        for b, text in enumerate(texts[kind]):
            base_name = "base_%s_%d.csv" % (kind, b)
            with open(os.path.join(work, base_name), "w", newline="") as f:
                f.write(text)
            out_path = os.path.join(work, "base_out_" + base_name)
            codes, expected = run_outputs(argvs_for(arlab, kind, base_name, out_path, False), work, out_path,
                                          [base_name, out_path])
            if codes != [0] or len(expected[0]) < 200:  # the committed file reads, and says something
                failures.append("committed file %s: exit %s, output %r" % (paths[b], codes, expected[0][:200]))
            for j in range(NEUTRAL_PER_BASE):
                neutral_plan.append((len(neutral_plan), kind, base_name,
                                     neutral_mutant(text, rng, j % 4), expected))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        for failure, case_refused, case_runs in pool.map(lambda p: run_case(arlab, work, *p), plan):
            failures += failure
            refused += case_refused
            runs += case_runs
        for failure in pool.map(lambda p: run_neutral(arlab, work, *p), neutral_plan):
            failures += failure
    for name in os.listdir(work):
        if name.startswith("base_"):
            os.remove(os.path.join(work, name))
    elapsed = time.time() - start
    print("csv fuzz: %d mutants (seed %d; %d measurement, %d calibration, %d microbenchmark, %d also fitted), %d runs "
          "(%d refused with file:line, %d accepted); %d single cells no column may hold, each refused; %d neutral "
          "mutants read as their file; %d failed, %.1f s"
          % (len(plan), seed, sum(1 for p in plan if p[1] == "measurement"),
             sum(1 for p in plan if p[1] == "calibration"), sum(1 for p in plan if p[1] == "microbench"),
             sum(1 for p in plan if p[3]), runs, refused, runs - refused, sum(1 for p in plan if p[4]),
             len(neutral_plan), len(failures), elapsed))
    for f in failures[:50]:
        print("FAIL " + f)
    if not failures and not os.listdir(work):
        os.rmdir(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
