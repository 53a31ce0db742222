#!/usr/bin/env python3
"""Seeded CSV fuzz test of the `arlab` readers (issue 11), through the real binary.

Mutants of committed CSVs -- measurements (data/h200/seed.csv, read by `arlab validate` and, for
some, `arlab fit`) and calibrations (data/calibration/*.csv, read by `arlab save-calibration
--calibration`) -- made by a seeded generator: truncations, byte flips and insertions (NUL and
non-UTF-8 bytes too), duplicated / missing / swapped columns, huge cells, NaN / Inf / -0 / 1e308
/ negative numbers, CRLF line ends, a byte-order mark, blank lines, stray and doubled quotes,
repeated header lines, deleted and duplicated rows; one to three per mutant. For every mutant:
  * no crash (exit code 0 or 2, never a signal) and no hang (a per-case timeout);
  * on an error, the message starts "arlab: error:" and names the mutant as file:line;
  * the mutant file is byte-for-byte unchanged, and no output was written next to it.
The same seed gives the same mutants. Usage: csv_fuzz.py ARLAB SOURCE_DIR [MUTANTS] [SEED]
"""
import concurrent.futures
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile
import time

CASE_TIMEOUT_S = 20  # one run takes milliseconds; a hang shows as this timeout
DEFAULT_MUTANTS = 1200
DEFAULT_SEED = 11  # the issue number
FIT_EVERY = 10  # every 10th measurement mutant is also fitted (fit reads the same rows, then solves)
NUMBERS = ["nan", "NaN", "inf", "-inf", "-0", "1e308", "-1e308", "1e-320", "-1", "0", "4294967296",
           "99999999999999999999", "0x10", "1,5", " 7 ", "", "1e", "--1", "2147483648", "-2147483649"]


def split_rows(text):
    return text.split("\n")


def mutate(text, rng):
    """One mutation of the CSV text, chosen by rng."""
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


def run_case(arlab, work, index, kind, text, fit):
    """Writes mutant `index`, runs the reader on it; returns (problems (empty: passed), runs refused, runs)."""
    name = "mutant_%04d_%s.csv" % (index, kind)
    path = os.path.join(work, name)
    data = text.encode("utf-8", "surrogateescape")
    with open(path, "wb") as f:
        f.write(data)
    digest = hashlib.sha256(data).hexdigest()
    out_path = os.path.join(work, "out_%04d.csv" % index)
    if kind == "measurement":
        argvs = [[arlab, "validate", name]]
        if fit:
            argvs.append([arlab, "fit", name, "--out", out_path])
    else:
        argvs = [[arlab, "save-calibration", out_path, "--calibration", name]]
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
            if not re.search(re.escape(name) + r":\d+", err):
                problems.append("%s: message names no %s:LINE: %r" % (argv[1], name, err[:300]))
            if len(err) > 4000:
                problems.append("%s: message of %d characters" % (argv[1], len(err)))
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
        "measurement": [open(os.path.join(source, "data", "h200", "seed.csv"), newline="").read()],
        "calibration": [open(os.path.join(source, "data", "calibration", n), newline="").read()
                        for n in ("default.csv", "h200_nvlink.csv")],
    }
    rng = random.Random(seed)
    plan = []
    for i in range(mutants):
        kind = "measurement" if i % 3 else "calibration"  # two measurement mutants per calibration mutant
        text = rng.choice(bases[kind])
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            text = mutate(text, rng)
        plan.append((i, kind, text, kind == "measurement" and i % FIT_EVERY == 1))
    start = time.time()
    failures, refused, runs = [], 0, 0
    work = tempfile.mkdtemp(prefix="arlab_csv_fuzz_")
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        for failure, case_refused, case_runs in pool.map(lambda p: run_case(arlab, work, *p), plan):
            failures += failure
            refused += case_refused
            runs += case_runs
    elapsed = time.time() - start
    print("csv fuzz: %d mutants (seed %d; %d measurement, %d calibration, %d also fitted), %d runs (%d refused with "
          "file:line, %d accepted), %d failed, %.1f s"
          % (mutants, seed, sum(1 for p in plan if p[1] == "measurement"),
             sum(1 for p in plan if p[1] == "calibration"), sum(1 for p in plan if p[3]), runs, refused,
             runs - refused, len(failures), elapsed))
    for f in failures[:50]:
        print("FAIL " + f)
    if not failures and not os.listdir(work):
        os.rmdir(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
