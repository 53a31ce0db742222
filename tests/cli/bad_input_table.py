#!/usr/bin/env python3
"""Bad-input table test of the `arlab` binary (issue 11), run as a user runs it.

Every case runs the real binary in a scratch directory holding copies of committed data
(data/h200/seed.csv, data/calibration/*.csv) and files made from them, and asserts
  * the exit code (2: arlab refused the input; 10x: CLI11 refused an option's text),
  * a fragment of the message (the value, the file:line or the range it names),
  * that every file in the scratch directory before the case is byte-for-byte unchanged after it
    (inputs, and files of other schemas that an output must not replace), and that no temporary
    file of an atomic write is left behind.
A few cases are appends that must succeed; they name their output and a check of its content.
The issue's 12 reproductions are the cases tagged "issue N"; issue 22's (no file damaged, no input
silently reinterpreted, no option silently ignored, every message naming file:line:column or option
and value) are tagged "[damage]", "[reinterpret]", "[ignored]" and "[message]", and every case also
asserts that a refused command (exit code not 0) leaves no new file or folder behind. Cases can run
under a file size limit (a full disk as the writer sees it: RLIMIT_FSIZE, SIGXFSZ ignored), with a
reader on a FIFO, or compare their output with another command's (a file that says the same in
another column order must read the same).

Usage: bad_input_table.py ARLAB SOURCE_DIR HAVE_CUDA(ON|OFF)
"""
import csv
import hashlib
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

CASE_TIMEOUT_S = 60  # one case; every case here takes well under a second


def digest_tree(root):
    """{relative path: what it is} of everything under root: a regular file's sha256, a symbolic link's
    target, a device's numbers, "fifo", "dir" -- so a device or link replaced by a file shows as a change,
    and a folder a refused command made shows as new. FIFOs and devices are never opened."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                out[os.path.relpath(path, root)] = "link:" + os.readlink(path)
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    out[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
            elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                out[os.path.relpath(path, root)] = "dev:%d,%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
            elif stat.S_ISFIFO(st.st_mode):
                out[os.path.relpath(path, root)] = "fifo"
            elif stat.S_ISDIR(st.st_mode):
                out[os.path.relpath(path, root)] = "dir"
            else:
                out[os.path.relpath(path, root)] = "other"
    return out


def set_cell(rows, header, column, value, row_index=0):
    """rows (lists of cells, without header) with one cell replaced in row row_index."""
    out = [list(r) for r in rows]
    out[row_index][header.index(column)] = value
    return out


def write_csv(path, header, rows, newline="\n"):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator=newline)
        w.writerow(header)
        w.writerows(rows)


def make_files(work, source, arlab):
    """The scratch files the cases use, all in `work`."""
    seed = os.path.join(source, "data", "h200", "seed.csv")
    shutil.copy(seed, os.path.join(work, "m.csv"))  # the committed measured rows
    # rows of one experiment (`arlab exp model-accuracy`), for the --merge cases
    shutil.copy(os.path.join(source, "data", "h200", "exp", "model-accuracy_emulated.csv"), os.path.join(work, "exp_ma.csv"))
    shutil.copy(os.path.join(source, "data", "calibration", "default.csv"), os.path.join(work, "cal.csv"))
    shutil.copy(os.path.join(source, "data", "calibration", "h200_nvlink.csv"), os.path.join(work, "fit.csv"))
    with open(seed, newline="") as f:
        rows = list(csv.reader(f))
    header, data = rows[0], rows[1:]
    write_csv(os.path.join(work, "header_only.csv"), header, [])
    write_csv(os.path.join(work, "one_row.csv"), header, data[:1])
    write_csv(os.path.join(work, "same_rows.csv"), header, [data[0]] * 50)
    write_csv(os.path.join(work, "all_failed.csv"), header,
              [set_cell([r], header, "check", "fail")[0] for r in data])
    write_csv(os.path.join(work, "dup_header_line.csv"), header, [header] + data[:3])
    # Measured rows in another (older) schema: the same rows without the group_id column.
    keep = [i for i, h in enumerate(header) if h != "group_id"]
    write_csv(os.path.join(work, "other_schema.csv"), [header[i] for i in keep], [[r[i] for i in keep] for r in data])
    for name, column, value in [("nranks3", "nranks", "3"), ("hidden4097", "hidden", "4097"),
                                ("huge_cell", "gpu", "A" * 1000000), ("k1e308", "kernel_us_median", "1e308"),
                                ("policy_fastest", "policy", "fastest"), ("check_maybe", "check", "maybe"),
                                ("date_yesterday", "date_utc", "yesterday"),
                                ("link_fiber", "link", "fiber"), ("pdl2", "pdl", "2"), ("regs300", "regs", "300"),
                                ("tokens0", "tokens", "0"), ("tokens_text", "tokens", "12x"),
                                ("dtype_int8", "dtype", "int8"), ("pattern9", "pattern", "9"),
                                ("algo_x", "algo", "threeshot"), ("acc_x", "acc", "fp64_acc"),
                                ("k_nan", "kernel_us_median", "nan"), ("k_neg", "kernel_us_median", "-3"),
                                ("k_empty", "kernel_us_median", ""), ("sm7", "sm_per_rank", "7"),
                                ("sm0", "sm_per_rank", "0"), ("gpu_unknown", "gpu", "Voodoo3"),
                                ("tokens_big", "tokens", "2147483648"), ("skewfree_inf", "skewfree_us_median", "inf")]:
        write_csv(os.path.join(work, name + ".csv"), header, set_cell(data[:5], header, column, value, 2))
    # Session 50's provenance columns (sf_layout, input_distribution, input_seed) with a cell that names nothing.
    s50 = header + ["sf_layout", "input_distribution", "input_seed"]
    for name, cells in [("sf_on_rms", ["linear", "normal", "1"]), ("dist_x", ["", "gaussian", "1"]),
                        ("seed_x", ["", "normal", "-1"])]:
        write_csv(os.path.join(work, name + ".csv"), s50, [r + cells for r in data[:5]])
    # Rows of another problem under the seed schema: N = 8 two-shot (issue reproduction 10).
    other = [set_cell(set_cell([r], header, "nranks", "8"), header, "algo", "twoshot")[0] for r in data[:5]]
    write_csv(os.path.join(work, "n8_twoshot.csv"), header, other)
    write_csv(os.path.join(work, "dup_column.csv"), header + ["link"], [r + ["local"] for r in data[:5]])
    # The kernel_variant column (issue 13; committed files predate it) with bad cells.
    kv_header = header + ["kernel_variant"] if "kernel_variant" not in header else header
    kv_rows = [r + ["reference"] for r in data[:5]] if "kernel_variant" not in header else data[:5]
    write_csv(os.path.join(work, "kv_bogus.csv"), kv_header, set_cell(kv_rows, kv_header, "kernel_variant", "fast", 2))
    write_csv(os.path.join(work, "kv_label_differs.csv"), kv_header,
              set_cell(kv_rows, kv_header, "policy", "trtllm/lean", 2))
    write_csv(os.path.join(work, "policy_label_x.csv"), header, set_cell(data[:5], header, "policy", "trtllm/fast", 2))
    write_csv(os.path.join(work, "missing_column.csv"), [h for h in header if h != "hidden"],
              [[c for h, c in zip(header, r) if h != "hidden"] for r in data[:5]])
    write_csv(os.path.join(work, "short_row.csv"), header, data[:2] + [data[2][:10]])
    with open(os.path.join(work, "unclosed_quote.csv"), "w") as f:
        f.write(",".join(header) + "\n" + ",".join(data[0]).replace("local", '"local', 1) + "\n")
    with open(os.path.join(work, "empty.csv"), "w"):
        pass
    with open(os.path.join(work, "blank_first_then_meas.csv"), "w") as f:
        f.write("\n" + open(seed).read())
    # Calibrations with one bad constant (issue reproduction 6) and other defects.
    with open(os.path.join(work, "cal.csv"), newline="") as f:
        cal_rows = list(csv.reader(f))
    cal_header, cal_data = cal_rows[0], cal_rows[1:]
    for i, row in enumerate(cal_data):
        write_csv(os.path.join(work, "cal_1e308_%s.csv" % row[0]), cal_header,
                  [r if r is not row else [r[0], "1e308"] + r[2:] for r in cal_data])
    for name, constant, value in [("cal_hbm0", "hbm_efficiency", "0"), ("cal_bytes0", "bytes_in_flight_per_sm", "0"),
                                  ("cal_nan", "l2_latency_ns", "nan"), ("cal_inf", "l2_latency_ns", "inf"),
                                  ("cal_neg", "dram_latency_ns", "-1"), ("cal_eff2", "link_efficiency", "2"),
                                  ("cal_text", "l2_latency_ns", "fast")]:
        write_csv(os.path.join(work, name + ".csv"), cal_header,
                  [[r[0], value] + r[2:] if r[0] == constant else r for r in cal_data])
    write_csv(os.path.join(work, "cal_unit.csv"), cal_header,
              [[r[0], r[1], "us"] + r[3:] if r[0] == "l2_latency_ns" else r for r in cal_data])
    write_csv(os.path.join(work, "cal_unknown.csv"), cal_header, cal_data + [["warp_speed", "9", "ns", "x", "y"]])
    write_csv(os.path.join(work, "cal_twice.csv"), cal_header, cal_data + [cal_data[0]])
    write_csv(os.path.join(work, "cal_header_only.csv"), cal_header, [])
    write_csv(os.path.join(work, "cal_cr_only.csv"), cal_header, cal_data, newline="\r")
    # A file of the current measurement schema holding measured rows (synthetic must not add to it).
    subprocess.run([arlab, "synthetic", "--rows", "5", "--out", os.path.join(work, "measured_now.csv")],
                   check=True, capture_output=True)
    with open(os.path.join(work, "measured_now.csv"), newline="") as f:
        now = list(csv.reader(f))
    write_csv(os.path.join(work, "measured_now.csv"), now[0],
              [set_cell([r], now[0], "timing_source", "cupti")[0] for r in now[1:]])
    # A validation file and prediction files for the schema checks and the appends.
    subprocess.run([arlab, "validate", "m.csv", "--out", "v.csv"], cwd=work, check=True, capture_output=True)
    subprocess.run([arlab, "predict", "--csv", "p.csv", "--no-terms"], cwd=work, check=True, capture_output=True)
    p = open(os.path.join(work, "p.csv"), "rb").read()
    open(os.path.join(work, "p_no_newline.csv"), "wb").write(p[:-1])
    open(os.path.join(work, "p_crlf.csv"), "wb").write(p.replace(b"\n", b"\r\n"))
    open(os.path.join(work, "p_bom.csv"), "wb").write(b"\xef\xbb\xbf" + p)
    open(os.path.join(work, "p_blank_lines.csv"), "wb").write(b"\n\n" + p + b"\n\n")
    os.link(os.path.join(work, "m.csv"), os.path.join(work, "m_hardlink.csv"))
    os.symlink("m.csv", os.path.join(work, "m_symlink.csv"))
    os.mkdir(os.path.join(work, "adir"))
    make_issue22_files(work, source, arlab, header, data)


def swap_columns(header, rows, a, b):
    """header and rows with columns a and b swapped, names and cells alike (the same data, reordered)."""
    i, j = header.index(a), header.index(b)
    out = []
    for r in [header] + rows:
        r = list(r)
        r[i], r[j] = r[j], r[i]
        out.append(r)
    return out[0], out[1:]


def make_issue22_files(work, source, arlab, header, data):
    """Issue 22's files: outputs that are no regular file, shard CSVs of the seed experiment, a folder of
    earlier seed outputs, mutants of the three CSV kinds (measurement, calibration, microbenchmark)."""
    def path(name):
        return os.path.join(work, name)
    # Outputs that are not regular files: a link to /dev/null (as /dev/stdout is a link), a copy of
    # /dev/null made with mknod where this runs as root, a FIFO, links to a file and to no file yet.
    os.symlink("/dev/null", path("null_link.csv"))
    if os.geteuid() == 0:
        os.mknod(path("devnull"), 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.mkfifo(path("fifo.csv"))
    os.symlink("v.csv", path("v_link.csv"))
    os.symlink("p.csv", path("p_link.csv"))
    os.symlink("dangling_target.csv", path("dangling.csv"))
    with open(path("ws.csv"), "w") as f:
        f.write("   \n \t\n")
    # Shard CSVs of `arlab exp seed` (experiment cells "seed/KEY"): two disjoint halves, one already
    # merged into mergeout/seed/seed.csv; a folder holding a shard; shards with bad content.
    col = header.index("experiment")
    exp_rows = []
    for i, r in enumerate(data):
        r = list(r)
        r[col] = "seed/row %d" % i
        exp_rows.append(r)
    write_csv(path("s1.csv"), header, exp_rows[:10])
    write_csv(path("s2.csv"), header, exp_rows[10:20])
    write_csv(path("s3.csv"), header, exp_rows[20:30])
    os.makedirs(path("mergeout/seed"))
    shutil.copy(path("s2.csv"), path("mergeout/seed/seed.csv"))
    os.mkdir(path("shards"))
    shutil.copy(path("s1.csv"), path("shards/seed.csv"))
    write_csv(path("exp_header_only.csv"), header, [])
    garbage = [list(r) for r in exp_rows[:3]]
    for r in garbage:
        for j, h in enumerate(header):
            if h in ("tokens", "tpb", "kernel_us_median", "skewfree_us_median"):
                r[j] = "garbage"
    write_csv(path("exp_garbage.csv"), header, garbage)
    write_csv(path("exp_tiny.csv"), header, set_cell(exp_rows[:3], header, "kernel_us_median", "1e-300", 1))
    # A folder of an earlier `arlab seed`: validation.csv last written 2020-01-01 00:00:00 UTC, and the
    # copy an earlier run set aside from that same second.
    os.mkdir(path("seedkeep"))
    shutil.copy(path("v.csv"), path("seedkeep/validation.csv"))
    os.utime(path("seedkeep/validation.csv"), (1577836800, 1577836800))
    with open(path("seedkeep/validation.20200101T000000Z.csv"), "w") as f:
        f.write("an earlier run's set-aside copy: must survive\n")
    # A numerics file to append to, and an `arlab exp numerics` folder that holds its whole sweep.
    subprocess.run([arlab, "numerics", "--tokens", "4", "--hidden", "64", "--ranks", "2", "--out", path("n_small.csv")],
                   check=True, capture_output=True)
    subprocess.run([arlab, "exp", "numerics", "--out-dir", path("numout"), "--no-plots"], check=True,
                   capture_output=True)
    # Measurement mutants: the same data in another column order; binary, CR-only, tiny and subnormal cells.
    for name, a, b in [("sw_tpb_grid", "tpb", "grid"), ("sw_regs_ulp", "regs", "norm_max_ulp")]:
        h, rows = swap_columns(header, data, a, b)
        write_csv(path(name + ".csv"), h, rows)
    text = open(path("m.csv"), newline="").read()
    lines = text.split("\n")
    lines[2] = lines[2].replace(",", ",\0", 1)
    open(path("m_nul.csv"), "w", newline="").write("\n".join(lines))
    open(path("m_cr.csv"), "w", newline="").write(text.replace("\r\n", "\n").replace("\n", "\r"))
    write_csv(path("k_subnormal.csv"), header, set_cell(data[:5], header, "kernel_us_median", "1e-320", 2))
    write_csv(path("k_tiny.csv"), header, set_cell(data[:5], header, "kernel_us_median", "1e-300", 2))
    write_csv(path("skew_tiny.csv"), header, set_cell(data[:5], header, "skewfree_us_median", "0.001", 2))
    write_csv(path("tokens_octal.csv"), header, set_cell(data[:5], header, "tokens", "0128", 2))
    # Calibration mutants: another column order (the same constants), and a header line alone.
    with open(path("cal.csv"), newline="") as f:
        cal_rows = list(csv.reader(f))
    h, rows = swap_columns(cal_rows[0], cal_rows[1:], "name", "source")
    write_csv(path("cal_swapped.csv"), h, rows)
    # Microbenchmark rows of `arlab calibrate` (the emulated node's) and their mutants.
    mb_src = os.path.join(source, "data", "calibration", "h200_emulated_microbench.csv")
    shutil.copy(mb_src, path("mb.csv"))
    with open(mb_src, newline="") as f:
        mb = list(csv.reader(f))
    mh, md = mb[0], mb[1:]

    def mb_set(rows, column, value, pred=lambda r: True):
        out = [list(r) for r in rows]
        for r in out:
            if pred(r):
                r[mh.index(column)] = value
        return out
    chase_hbm = lambda r: r[mh.index("bench")] == "chase" and r[mh.index("variant")] == "hbm"
    write_csv(path("mb_garbage_bench.csv"), mh, set_cell(md, mh, "bench", "garbage", 4))
    write_csv(path("mb_link.csv"), mh, set_cell(md, mh, "link", "nvlink", 0))
    write_csv(path("mb_topology.csv"), mh, mb_set(md, "link", "nvlink"))
    write_csv(path("mb_nranks0.csv"), mh, mb_set(md, "nranks", "0"))
    write_csv(path("mb_rank9.csv"), mh, set_cell(md, mh, "rank", "9", 3))
    write_csv(path("mb_tiny.csv"), mh, mb_set(md, "value", "1e-300", chase_hbm))
    write_csv(path("mb_derived.csv"), mh, mb_set(md, "value", "9e5", chase_hbm))
    write_csv(path("mb_no_chase.csv"), mh, [r for r in md if r[mh.index("bench")] != "chase"])
    write_csv(path("mb_header_only.csv"), mh, [])
    write_csv(path("mb_unknown_gpu.csv"), mh, mb_set(md, "gpu", "ACME Z9000"))
    write_csv(path("mb_h100.csv"), mh, mb_set(md, "gpu", "NVIDIA H100 80GB HBM3"))
    # rows of a variant no other file holds: a --replace-microbench file that replaces nothing
    write_csv(path("mb_disjoint.csv"), mh, mb_set([r for r in md if chase_hbm(r)], "variant", "hbm_unheard_of"))
    h, rows = swap_columns(mh, md, "sms", "tpb")
    write_csv(path("mb_swapped.csv"), h, rows)


def cells_consistent(path):
    """An appended CSV: every non-blank line has the header's cell count, and the header appears once."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = [r for r in csv.reader(f) if r and any(c.strip() for c in r)]
    return len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows) and rows.count(rows[0]) == 1


class Case:
    """One hostile command: argv, the exit code and message regex it must give, the files it may change
    ({path: check of the new content}), paths that must not exist afterwards, new files it must make
    ({path: check}), a file size limit to run under, FIFOs to read while it runs ({path: check of what
    was read}), and a command whose output (file names and timings aside) it must repeat."""

    def __init__(self, tag, argv, code, pattern, changes=None, absent=None, made=None, fsize=None, fifo=None,
                 same_as=None):
        self.tag, self.argv, self.code, self.pattern = tag, argv, code, pattern
        self.changes, self.absent, self.made = changes or {}, absent or [], made or {}
        self.fsize, self.fifo, self.same_as = fsize, fifo or {}, same_as


def cases(have_cuda, arlab):
    """The table: a list of Case."""
    no_gpu = "no CUDA GPU is visible" if have_cuda else "built without CUDA"
    t = []

    def add(tag, argv, code, pattern, changes=None, absent=None, **more):
        t.append(Case(tag, argv, code, pattern, changes, absent, **more))

    # --- issue reproductions 1-12 -----------------------------------------------------------
    add("issue 1: synthetic never replaces measured rows", ["synthetic", "--rows", "5", "--out", "m.csv"], 2,
        r"m\.csv holds \d+ rows that are not model-generated|m\.csv has a different header")
    add("issue 1: synthetic never writes into another schema", ["synthetic", "--rows", "5", "--out",
                                                                "other_schema.csv"], 2,
        r"other_schema\.csv has a different header \(column 4 is 'gpu', expected 'group_id'")
    add("issue 1: synthetic never mixes into measured rows", ["synthetic", "--rows", "5", "--out", "measured_now.csv"],
        2, r"holds \d+ rows that are not model-generated")
    add("issue 2: validate --out the input", ["validate", "m.csv", "--out", "m.csv"], 2, r"is the input m\.csv")
    add("issue 2: fit --out the input", ["fit", "m.csv", "--out", "m.csv"], 2, r"is the input m\.csv")
    add("issue 2: save-calibration over measurements", ["save-calibration", "m.csv"], 2, r"holds another schema")
    add("issue 2: validate --out a hard link to the input", ["validate", "m.csv", "--out", "m_hardlink.csv"], 2,
        r"is the input")
    add("issue 2: fit --out a symlink to the input", ["fit", "m.csv", "--out", "m_symlink.csv"], 2, r"is the input")
    add("issue 2: save-calibration over its own --calibration", ["save-calibration", "cal.csv", "--calibration",
                                                                  "cal.csv"], 2, r"is the input cal\.csv")
    add("issue 2: validate --out over a calibration", ["validate", "m.csv", "--out", "cal.csv"], 2,
        r"cal\.csv exists and holds another schema")
    add("issue 2: fit --out over a validation file", ["fit", "m.csv", "--out", "v.csv"], 2, r"another schema")
    add("issue 3: predict --csv appends after a last line without newline", ["predict", "--csv", "p_no_newline.csv",
                                                                            "--no-terms"], 0, r"appended",
        {"p_no_newline.csv": cells_consistent})
    add("issue 3: predict --csv appends to a CRLF file", ["predict", "--csv", "p_crlf.csv", "--no-terms"], 0,
        r"appended", {"p_crlf.csv": cells_consistent})
    add("issue 3: predict --csv appends to a file with a BOM", ["predict", "--csv", "p_bom.csv", "--no-terms"], 0,
        r"appended", {"p_bom.csv": cells_consistent})
    add("issue 3: predict --csv appends around blank lines", ["predict", "--csv", "p_blank_lines.csv", "--no-terms"],
        0, r"appended", {"p_blank_lines.csv": cells_consistent})
    add("issue 3: a blank first line does not skip the header check", ["predict", "--csv", "blank_first_then_meas.csv",
                                                                       "--no-terms"], 2,
        r"column 1 is 'experiment', expected 'gpu'")
    add("issue 3: numerics rows never into predictions", ["numerics", "--out", "p.csv", "--tokens", "4", "--hidden",
                                                          "64", "--ranks", "2"], 2, r"p\.csv has a different header")
    add("issue 4: fit on one row", ["fit", "one_row.csv", "--out", "new_cal.csv"], 2,
        r"one_row\.csv:2: fit: 1 training rows hold 1 distinct")
    add("issue 4: fit on 50 identical rows", ["fit", "same_rows.csv", "--out", "new_cal.csv"], 2,
        r"50 training rows hold 1 distinct")
    for h in ["0", "1", "-3"]:
        add("issue 4: --holdout-every " + h, ["fit", "m.csv", "--out", "new_cal.csv", "--holdout-every", h], 2,
            r"--holdout-every = %s holds out nothing" % re.escape(h))
    for n in ["0", "-1"]:
        add("issue 4: --max-iter " + n, ["fit", "m.csv", "--out", "new_cal.csv", "--max-iter", n], 2,
            r"--max-iter = %s must be >= 1" % re.escape(n))
    add("issue 5: validate a header-only file", ["validate", "header_only.csv"], 2,
        r"header_only\.csv:1: no data rows")
    add("issue 5: validate rows that all failed the gate", ["validate", "all_failed.csv"], 2,
        r"all_failed\.csv:2: no usable rows: of (\d+) rows, \1 failed")
    add("issue 5: seed --mode predict on a header-only file", ["seed", "--mode", "predict", "--data",
                                                               "header_only.csv", "--out-dir", "seed_out"], 2,
        r"no data rows")
    add("issue 5: seed --mode predict on failed rows", ["seed", "--mode", "predict", "--data", "all_failed.csv",
                                                        "--out-dir", "seed_out"], 2, r"no usable rows")
    add("issue 6: hbm_efficiency 0", ["validate", "m.csv", "--calibration", "cal_hbm0.csv"], 2,
        r"cal_hbm0\.csv:\d+: column 'value': hbm_efficiency = 0 fraction is outside its physical range \[0\.01, 1\]")
    add("issue 6: bytes_in_flight_per_sm 0", ["predict", "--calibration", "cal_bytes0.csv"], 2,
        r"bytes_in_flight_per_sm = 0 bytes is outside its physical range \[128, 1048576\]")
    add("issue 7: --noise nan", ["synthetic", "--rows", "5", "--out", "s.csv", "--noise", "nan"], 105,
        r"--noise: nan is outside \[0, 1\]")
    add("issue 7: --noise -1", ["synthetic", "--rows", "5", "--out", "s.csv", "--noise", "-1"], 105,
        r"--noise: -1 is outside")
    add("issue 7: --rows -5", ["synthetic", "--rows", "-5", "--out", "s.csv"], 105, r"--rows: -5 is outside \[1, ")
    add("issue 7: --rows 0", ["synthetic", "--rows", "0", "--out", "s.csv"], 105, r"--rows: 0 is outside")
    add("issue 8: run without a GPU says so after its configuration", ["run"], 2, r"(?s)arlab run: oneshot.*" + no_gpu)
    for argv, pattern, code in [(["--tpb", "0"], r"--tpb: 0 is outside \[1, 1024\]", 105),
                                (["--iters", "-5"], r"fixed iterations \(--iters\) = -5 must be >= 0", 2),
                                (["--warmup-ms", "-1"], r"--warmup-ms: -1 is outside \[0, 1e\+09\]", 105),
                                (["--sets", "1000000000"], r"--sets: 1000000000 is outside \[0, 16\]", 105),
                                (["--distribution", "cauchy"], r"unknown distribution 'cauchy'", 2),
                                (["--calibration", "/nonexistent.csv"], r"/nonexistent\.csv: cannot open", 2),
                                (["--scale", "nan"], r"--scale: nan is outside \(0, ", 105),
                                (["--device", "-1"], r"--device: -1 is outside \[0, ", 105),
                                (["--sms-per-rank", "-5"], r"--sms-per-rank: -5 is outside \[0, ", 105),
                                (["--timeout-ms", "0"], r"--timeout-ms: 0 is outside \(0, 1e\+09\]", 105),
                                (["--timeout-ms", "nan"], r"--timeout-ms: nan is outside", 105),
                                (["--max-noise", "0"], r"--max-noise: 0 is outside \(0, 100\]", 105),
                                (["--max-noise", "100"], r"--max-noise = 100 must be in \(0, 100\) percent", 2),
                                (["--max-noise", "nan"], r"--max-noise: nan is outside", 105),
                                (["--batch", "0"], r"batch \(--batch\) = 0 must be in \[1, ", 2),
                                (["--scale", "2", "--pattern", "ar"], r"--scale: pattern ar does not quantize", 2),
                                (["--max-iters", "2"], r"max iterations \(--max-iters\) = 2 must be >= min iterations "
                                 r"\(--min-iters\) = 64: raise --max-iters or lower --min-iters", 2),
                                (["--batch", "99999999999"], r"--batch: 99999999999 is outside", 105),
                                (["--calibration", "cal_hbm0.csv"], r"hbm_efficiency = 0 fraction is outside", 2),
                                (["--csv", "other_schema.csv"], r"other_schema\.csv has a different header", 2),
                                (["--csv", "cal.csv"], r"is the input cal\.csv|different header", 2),
                                (["--csv", ""], r"--csv: empty path", 105),
                                (["--tpb", "33", "--policy", "explicit", "--grid", "8"],
                                 r"--tpb 33 x --cluster 1 = 33 threads .* tpb x cluster must be >= 128", 2),
                                (["--policy", "trtllm", "--tpb", "256"], r"need --policy explicit", 2),
                                (["--policy", "fastest"], r"unknown policy 'fastest'", 2),
                                (["--config", "256/3"], r"has 2 fields", 2),
                                (["--seed", "-1"], r"--seed: '-1' is not an integer \(decimal digits: it cannot be negative", 105),
                                (["--inject-fault", "bogus"], r"--inject-fault 'bogus' is not a known fault", 2),
                                (["--inject-fault", "skip-kernel-rank=2"], r"is not a rank of this node", 2),
                                (["-n", "3"], r"nranks = 3 is not supported", 2),
                                (["-b", "8"], r"a size sweep needs both -b/--begin-tokens and -e/--end-tokens", 2),
                                (["-b", "8", "-e", "4"], r"-e/--end-tokens = 4 must be >= -b/--begin-tokens = 8", 2),
                                (["-b", "1", "-e", "64", "-f", "1"], r"--step-factor: 1 is outside", 105),
                                (["-b", "0", "-e", "64"], r"--begin-tokens: 0 is outside", 105)]:
        add("issue 8: run " + " ".join(argv), ["run"] + argv, code, pattern)
    for argv, pattern in [(["--calls", "0"], r"--calls: 0 is outside \[1, "),
                          (["--sets", "99"], r"--sets: 99 is outside \[1, 16\]"),
                          (["--seed", "-1"], r"--seed: '-1' is not an integer"),
                          (["--timeout-ms", "nan"], r"--timeout-ms: nan is outside"),
                          (["--csv", ""], r"--csv: empty path")]:
        add("issue 11: soak " + " ".join(argv), ["soak"] + argv, 105, pattern)
    add("issue 11: soak without a GPU says so", ["soak", "--csv", "soak_out.csv"], 2, no_gpu)
    add("issue 9: predict --policy explicit without --tpb", ["predict", "--policy", "explicit"], 2,
        r"--policy explicit needs --tpb")
    add("issue 9: predict --tpb 33 names tpb", ["predict", "--policy", "explicit", "--tpb", "33", "--grid", "8"], 2,
        r"--tpb 33 x --cluster 1 = 33 threads")
    add("issue 9: predict --policy trtllm refuses explicit flags", ["predict", "--policy", "trtllm", "--tpb", "256",
                                                                    "--cluster", "2", "--grid", "128"], 2,
        r"need --policy explicit \(got --policy trtllm\)")
    add("issue 9: predict --regs 0", ["predict", "--regs", "0"], 105, r"--regs: 0 is outside \[1, 255\]")
    add("issue 9: predict --smem -1", ["predict", "--smem", "-1"], 105, r"--smem: -1 is outside \[0, ")
    add("issue 9: predict --smem above the GPU's", ["predict", "--smem", "10000000"], 2,
        r"--smem = 10000000 bytes exceeds the 232448 bytes")
    add("issue 9: synthetic --seed -1", ["synthetic", "--rows", "5", "--out", "s.csv", "--seed", "-1"], 105,
        r"--seed: '-1' is not an integer .*\(expected one in \[0, 18446744073709551615\]\)")
    add("issue 9: numerics --seed -1", ["numerics", "--seed", "-1", "--out", "n.csv"], 105, r"--seed: '-1'")
    add("issue 9: predict explicit illegal grid", ["predict", "--policy", "explicit", "--tpb", "256", "--grid",
                                                   "3", "--cluster", "2"], 2, r"grid = 3 must be a positive multiple")
    add("issue 10: nranks=3 names column nranks", ["validate", "nranks3.csv"], 2,
        r"nranks3\.csv:4: column 'nranks': invalid problem: nranks = 3")
    add("issue 10: hidden=4097 names column hidden", ["validate", "hidden4097.csv"], 2,
        r"hidden4097\.csv:4: column 'hidden': invalid problem: hidden = 4097")
    add("issue 10: a repeated header line", ["validate", "dup_header_line.csv"], 2,
        r"dup_header_line\.csv:2: column 'experiment': this line repeats the header")
    add("issue 10: a duplicated column", ["validate", "dup_column.csv"], 2,
        r"dup_column\.csv:1: column 'link': column appears twice in the header")
    add("issue 10: a 1 MB cell is cut", ["validate", "huge_cell.csv"], 2,
        r"(?s)^(?!.{2000}).*huge_cell\.csv:4: column 'gpu': 'A{80}\.\.\. \(1000000 characters\)'")
    add("issue 10: kernel_us_median 1e308", ["validate", "k1e308.csv"], 2,
        r"k1e308\.csv:4: column 'kernel_us_median': kernel time 1e\+308 us is outside its physical range "
        r"\[0\.032, 1e\+07\] us")
    add("issue 10: policy fastest", ["validate", "policy_fastest.csv"], 2, r"column 'policy': unknown policy 'fastest'")
    add("issue 10: check maybe", ["validate", "check_maybe.csv"], 2, r"column 'check': unknown check 'maybe'")
    add("session 49: a date that is no UTC time (it decides which kernel design ran)", ["validate", "date_yesterday.csv"], 2,
        r"column 'date_utc': 'yesterday' is not a UTC time YYYY-MM-DDTHH:MM:SSZ")
    add("session 50: a scale-factor layout on a pattern without NVFP4", ["validate", "sf_on_rms.csv"], 2,
        r"sf_on_rms\.csv:2: column 'sf_layout': 'linear' on a row of pattern ar_res_rms \(only the NVFP4 patterns")
    add("session 50: an input distribution arlab has not", ["validate", "dist_x.csv"], 2,
        r"column 'input_distribution': 'gaussian' is not an input distribution")
    add("session 50: a negative seed", ["validate", "seed_x.csv"], 2, r"column 'input_seed': '-1' is not a seed")
    add("issue 10: seed --data of another problem", ["seed", "--mode", "predict", "--data", "n8_twoshot.csv",
                                                     "--out-dir", "seed_out"], 2,
        r"n8_twoshot\.csv:2: not a row of the seed problem: nranks = 8")
    add("issue 11: unknown subcommand", ["frobnicate"], 2, r"unknown subcommand 'frobnicate' \(expected one of: ")
    add("issue 11: --tokens 2147483648", ["predict", "--tokens", "2147483648"], 105,
        r"--tokens: 2147483648 is outside \[1, 2147483647\]")
    add("issue 11: --out empty", ["validate", "m.csv", "--out", ""], 105, r"--out: empty path")
    add("issue 11: output directory missing", ["validate", "m.csv", "--out", "nodir/v.csv"], 2,
        r"directory 'nodir' does not exist")
    add("issue 11: unwritable output directory", ["validate", "m.csv", "--out", "/proc/arlab_v.csv"], 2,
        r"cannot write /proc/arlab_v\.csv: cannot create a temporary file in '/proc': \w")
    add("issue 11: output is a directory", ["fit", "m.csv", "--out", "adir"], 2, r"--out adir: is a directory")
    add("issue 11: huge numerics sizes", ["numerics", "--tokens", "100000000", "--hidden", "8192", "--out", "n.csv"],
        2, r"would need about \d+\.\d GiB of host memory, above the 16 GiB")
    add("issue 11: seed with a missing --data makes no folder",
        ["seed", "--mode", "predict", "--data", "missing.csv", "--out-dir", "seed_out"], 2,
        r"missing\.csv: cannot open", absent=["seed_out"])
    add("seed: an explicit --calibration-nvlink must exist, before any output",
        ["seed", "--mode", "predict", "--data", "m.csv", "--calibration-nvlink", "missing_cal.csv", "--out-dir",
         "seed_out"], 2, r"missing_cal\.csv: cannot open", absent=["seed_out"])
    add("seed: --calibration-emulated must be a calibration",
        ["seed", "--mode", "predict", "--data", "m.csv", "--calibration-emulated", "m.csv", "--out-dir", "seed_out"],
        2, r"m\.csv:1: column 'name'", absent=["seed_out"])
    add("save-calibration --from-microbench of another schema",
        ["save-calibration", "new_cal.csv", "--from-microbench", "m.csv"], 2, r"m\.csv:1: column '\w+': header lacks")
    add("save-calibration --rows-microbench without --from-microbench",
        ["save-calibration", "new_cal.csv", "--rows-microbench", "mb.csv"], 2,
        r"--rows-microbench adds rows to --from-microbench's: give both", absent=["new_cal.csv"])
    add("save-calibration --rows-microbench of the same rank count (no rows bench rows at another N)",
        ["save-calibration", "new_cal.csv", "--from-microbench", "mb.csv", "--rows-microbench", "mb.csv"], 2,
        r"mb\.csv: column 'nranks': no bandwidth rows_\* rows at a number of ranks other than --from-microbench's \(2\)",
        absent=["new_cal.csv"])
    add("save-calibration --replace-microbench without --from-microbench",
        ["save-calibration", "new_cal.csv", "--replace-microbench", "mb.csv"], 2,
        r"--replace-microbench replaces rows of --from-microbench's: give both", absent=["new_cal.csv"])
    add("save-calibration --replace-microbench of a file that replaces no rows",
        ["save-calibration", "new_cal.csv", "--from-microbench", "mb.csv", "--replace-microbench", "mb_disjoint.csv"], 2,
        r"mb_disjoint\.csv: column 'variant': replaces no rows: none of its bench and variant pairs is in the other "
        r"input files", absent=["new_cal.csv"])
    add("save-calibration --replace-microbench of another GPU's rows",
        ["save-calibration", "new_cal.csv", "--from-microbench", "mb.csv", "--replace-microbench", "mb_h100.csv"], 2,
        r"mb_h100\.csv:2: column 'link': --replace-microbench rows were measured on 'NVIDIA H100 80GB HBM3'",
        absent=["new_cal.csv"])
    add("issue 12: --inject-fault needs a rank of the node", ["run", "--inject-fault", "cuda-error-rank=9"], 2,
        r"is not a rank of this node")

    # --- baselines and `arlab exp` (refused before any device or file is touched) ---------
    add("baseline: --baseline fused", ["run", "--baseline", "fused"], 2, r"--baseline fused: the policies measure")
    add("baseline: --baseline lean (a kernel body)", ["run", "--baseline", "lean"], 2,
        r"--baseline lean: the policies measure the fused kernel bodies")
    add("baseline: --baseline of an unknown kind", ["run", "--baseline", "mpi"], 2,
        r"unknown baseline 'mpi' \(expected unfused, nccl, nccl_symmetric, vllm\)")
    add("baseline: --algo nccl takes no --config", ["run", "--algo", "nccl", "--config", "128/1/64"], 2,
        r"--algo nccl measures that baseline alone")

    # --- kernel variants (`--kernel`, issue 13: refused before any device is touched) ----------
    kernel_refusals = [
        (["--kernel", "bogus"], r"--kernel 'bogus' is not a kernel \(expected reference, lean, flashinfer or auto\)"),
        (["--kernel", "auto", "--policy", "trtllm"],
         r"--kernel auto lets the model policy choose the kernel; --policy trtllm takes one kernel body \(reference, "
         r"lean, flashinfer\)")]
    for argv, pattern in kernel_refusals:
        add("kernel: run " + " ".join(argv), ["run"] + argv, 2, pattern)
        add("kernel: predict " + " ".join(argv), ["predict", "--no-terms"] + argv, 2, pattern)
    add("kernel: run --kernel lean,lean", ["run", "--kernel", "lean,lean"], 2, r"--kernel lists 'lean' twice")
    add("kernel: run --policy trtllm/bogus", ["run", "--policy", "trtllm/bogus"], 2,
        r"--policy 'trtllm/bogus': --kernel 'bogus' is not a kernel")
    add("kernel: run --kernel auto beside --config", ["run", "--policy", "model", "--kernel", "auto", "--config",
                                                      "512/1/128"], 2,
        r"--kernel auto lets the model policy choose the kernel; an explicit configuration")
    add("kernel: run --algo nccl --kernel lean", ["run", "--algo", "nccl", "--kernel", "lean"], 2,
        r"--algo nccl measures that baseline alone, which runs the reference kernels")
    # A group mixes algorithms: the model's one-shot lean pick beside a two-shot baseline is planned (and
    # stops only where a GPU is needed).
    add("kernel: run --kernel lean --algo twoshot, the model beside a baseline, is planned",
        ["run", "--kernel", "lean", "--algo", "twoshot", "--policy", "model", "--baseline", "unfused"], 2,
        r"(?s)group: model, unfused baseline.*" + no_gpu)
    add("kernel: predict --kernel auto with the default policies", ["predict", "--no-terms", "--kernel", "auto"], 2,
        r"--policy legacy takes one kernel body \(reference, lean, flashinfer\) \(--policy: the default policy list\)")
    add("exp: an unknown experiment lists the known ones", ["exp", "nosuch", "--out-dir", "exp_out"], 2,
        r"nosuch.*seed.*fusion", absent=["exp_out"])
    add("exp: no experiment named", ["exp"], 2, r"name an experiment")
    for shard in ["2/2", "1/0", "a/b", "-1/3"]:
        add("exp: --shard " + shard, ["exp", "fusion", "--shard", shard, "--out-dir", "exp_out"], 2, r"--shard",
            absent=["exp_out"])
    add("exp: --max-configs below 0", ["exp", "config-space", "--max-configs", "-1", "--out-dir", "exp_out"], 105,
        r"--max-configs: -1 is outside \[0, ", absent=["exp_out"])
    add("exp: --merge of a missing shard CSV", ["exp", "fusion", "--merge", "missing_shard.csv", "--out-dir", "exp_out"],
        2, r"missing_shard\.csv")
    add("exp: --merge takes no --shard", ["exp", "fusion", "--merge", "m.csv", "--shard", "0/2", "--out-dir",
                                         "exp_out"], 2,
        r"--shard '0/2': `arlab exp fusion --merge` joins shard CSVs, which does not use this option", absent=["exp_out"])
    add("exp: --merge of another schema", ["exp", "fusion", "--merge", "other_schema.csv", "--out-dir", "exp_out"], 2,
        r"other_schema\.csv")

    # --- measurement CSV cells --------------------------------------------------------------
    for name, pattern in [("link_fiber", r"column 'link': unknown link 'fiber'"),
                          ("pdl2", r"column 'pdl': pdl = '2' \(expected 0 or 1\)"),
                          ("regs300", r"column 'regs': regs = 300 is outside \[0, 255\]"),
                          ("tokens0", r"column 'tokens': invalid problem: tokens = 0"),
                          ("tokens_text", r"column 'tokens': '12x' is not an integer"),
                          ("dtype_int8", r"column 'dtype': unknown dtype 'int8'"),
                          ("pattern9", r"column 'pattern': unknown pattern '9'"),
                          ("algo_x", r"column 'algo': unknown algorithm 'threeshot'"),
                          ("acc_x", r"column 'acc': unknown accumulation 'fp64_acc'"),
                          ("k_nan", r"column 'kernel_us_median': 'nan' is not a finite number"),
                          ("k_neg", r"column 'kernel_us_median': kernel time -3 us is outside"),
                          ("k_empty", r"column 'kernel_us_median': empty cell where a number is required"),
                          ("sm7", r"column 'sm_per_rank': sm_partition: 7 SMs per rank"),
                          ("sm0", r"column 'sm_per_rank': sm_per_rank = 0 must be >= 1"),
                          ("gpu_unknown", r"column 'gpu': gpu 'Voodoo3' matches no GPU preset"),
                          ("tokens_big", r"column 'tokens': integer 2147483648 is outside"),
                          ("skewfree_inf", r"column 'skewfree_us_median': 'inf' is not a finite number")]:
        add("measurement cell " + name, ["validate", name + ".csv"], 2, re.escape(name) + r"\.csv:4: " + pattern)
    add("measurement: kernel_variant fast", ["validate", "kv_bogus.csv"], 2,
        r"kv_bogus\.csv:4: column 'kernel_variant': implementation 'fused' with kernel_variant 'fast' is no "
        r"implementation of this arlab")
    add("measurement: a policy label naming another kernel", ["validate", "kv_label_differs.csv"], 2,
        r"kv_label_differs\.csv:4: column 'policy': policy label 'trtllm/lean' names the lean kernel, the row's "
        r"kernel_variant is reference")
    add("measurement: policy label trtllm/fast", ["validate", "policy_label_x.csv"], 2,
        r"policy_label_x\.csv:4: column 'policy': unknown kernel body 'fast' \(expected reference, lean, flashinfer\)")
    add("measurement: missing column", ["validate", "missing_column.csv"], 2,
        r"missing_column\.csv:1: column 'hidden': header lacks this column|the header has no column 'hidden'")
    add("measurement: short row", ["validate", "short_row.csv"], 2, r"short_row\.csv:4: .*row has 10 cells")
    add("measurement: unclosed quote", ["validate", "unclosed_quote.csv"], 2, r"unclosed_quote\.csv:2: .*not closed")
    add("measurement: empty file", ["validate", "empty.csv"], 2, r"empty\.csv:1: column 'experiment': empty file: no header line")
    add("measurement: a calibration is not a measurement file", ["validate", "cal.csv"], 2,
        r"cal\.csv:1: column 'experiment': header lacks this column")
    add("measurement: missing file", ["validate", "nothere.csv"], 105, r"File does not exist: nothere\.csv")
    add("measurement: a directory", ["validate", "adir"], 105, r"adir")
    add("fit: a measurement cell error", ["fit", "nranks3.csv", "--out", "new_cal.csv"], 2,
        r"nranks3\.csv:4: column 'nranks'")
    add("fit: gpu matches no preset", ["fit", "gpu_unknown.csv", "--out", "new_cal.csv"], 2,
        r"gpu_unknown\.csv:4: column 'gpu'")
    add("fit: unknown parameter", ["fit", "m.csv", "--out", "new_cal.csv", "--params", "warp_speed"], 2,
        r"unknown calibration constant 'warp_speed'")
    add("fit: parameter twice", ["fit", "m.csv", "--out", "new_cal.csv", "--params", "l2_latency_ns,l2_latency_ns"],
        2, r"l2_latency_ns is listed twice")
    add("fit: --holdout-every too large for int", ["fit", "m.csv", "--out", "new_cal.csv", "--holdout-every",
                                                   "99999999999"], 105, r"is outside \[-2147483648, 2147483647\]")
    add("fit: unknown --gpu", ["fit", "m.csv", "--out", "new_cal.csv", "--gpu", "voodoo"], 2,
        r"unknown GPU preset 'voodoo'")
    add("validate: unknown --gpu", ["validate", "m.csv", "--gpu", "voodoo"], 2, r"unknown GPU preset 'voodoo'")

    # --- calibration CSVs ---------------------------------------------------------------------
    # Every constant of the calibration file the damaged copies come from (data/calibration/default.csv,
    # copied to cal.csv by make_files), in its order: one row each after the header, constant i on line
    # i + 2.
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "calibration",
                           "default.csv"), newline="") as f:
        constants = [r[0] for r in list(csv.reader(f))[1:]]
    assert len(constants) >= 31 and constants[0] == "launch_overhead_us", constants
    for i, c in enumerate(constants):
        add("issue 6: %s 1e308" % c, ["predict", "--no-terms", "--calibration", "cal_1e308_%s.csv" % c], 2,
            r"cal_1e308_%s\.csv:%d: column 'value': %s = 1e\+308 \S+ is outside its physical range \[" % (c, i + 2, c))
    for name, pattern in [("cal_nan", r":5: column 'value': 'nan' is not a finite number"),
                          ("cal_inf", r":5: column 'value': 'inf' is not a finite number"),
                          ("cal_neg", r":4: column 'value': dram_latency_ns = -1 ns is outside"),
                          ("cal_eff2", r":30: column 'value': link_efficiency = 2 fraction is outside .*\[0\.01, 1\]"),
                          ("cal_text", r":5: column 'value': 'fast' is not a number"),
                          ("cal_unit", r":5: column 'unit': unit 'us' of 'l2_latency_ns' differs"),
                          ("cal_unknown", r":%d: column 'name': unknown calibration constant 'warp_speed'"
                           % (len(constants) + 2)),
                          ("cal_twice", r":%d: column 'name': constant 'launch_overhead_us' appears twice"
                           % (len(constants) + 2)),
                          ("cal_header_only", r":1: column 'name': no rows: a calibration file names at least one"),
                          ("cal_cr_only", r":1: CR-only line ends")]:
        add("calibration " + name, ["save-calibration", "new_cal.csv", "--calibration", name + ".csv"], 2,
            re.escape(name) + r"\.csv" + pattern)
    add("calibration: a measurement file is no calibration", ["predict", "--calibration", "m.csv"], 2,
        r"m\.csv:1: column 'name': header lacks this column|m\.csv:1: column 'name'")

    # --- options of predict, numerics, seed, synthetic, save-calibration -------------------------
    for argv, pattern, code in [(["--gpu", "voodoo"], r"unknown GPU preset 'voodoo'", 2),
                                (["--link", "fiber"], r"unknown link 'fiber'", 2),
                                (["-d", "int8"], r"unknown dtype 'int8'", 2),
                                (["--pattern", "9"], r"unknown pattern '9'", 2),
                                (["--acc", "fp64"], r"unknown accumulation 'fp64'", 2),
                                (["--algo", "threeshot"], r"unknown algorithm 'threeshot'", 2),
                                (["--sf-layout", "zigzag"], r"unknown scale layout 'zigzag'", 2),
                                (["--hidden", "1030"], r"hidden = 1030 is not a multiple of the vector width 8", 2),
                                (["-n", "3"], r"nranks = 3 is not supported", 2),
                                (["-n", "32"], r"--ranks: 32 is outside \[2, 16\]", 105),
                                (["--tokens", "0"], r"--tokens: 0 is outside \[1, 2147483647\]", 105),
                                (["--tokens", "ten"], r"--tokens: 'ten' is not an integer", 105),
                                (["--eps", "nan"], r"--eps: nan is outside \[0, ", 105),
                                (["--eps", "-1"], r"--eps: -1 is outside", 105),
                                (["--scale", "0"], r"--scale: 0 is outside \(0, ", 105),
                                (["--scale", "inf"], r"--scale: inf is outside", 105),
                                (["-d", "fp32", "--pattern", "ar_res_rms_fp4"], r"needs a 16-bit dtype, got fp32", 2),
                                (["--policy", "fastest"], r"unknown policy 'fastest'", 2),
                                (["--policy", "explicit", "--tpb", "256"], r"--policy explicit needs --grid", 2),
                                (["--policy", "explicit", "--tpb", "256", "--grid", "8", "--cluster", "3"],
                                 r"--cluster = 3 must be 1, 2, 4 or 8", 2),
                                (["--policy", "explicit", "--tpb", "256", "--grid", "8", "--vpt", "3"],
                                 r"--vpt = 3 must be 1, 2 or 4", 2),
                                (["--tpb", "2000"], r"--tpb: 2000 is outside \[1, 1024\]", 105),
                                (["--grid", "70000"], r"--grid: 70000 is outside \[1, 65535\]", 105),
                                (["--csv", ""], r"--csv: empty path", 105),
                                (["--csv", "m.csv"], r"m\.csv has a different header", 2),
                                (["--csv", "adir"], r"--csv adir: is a directory", 2),
                                (["--csv", "cal.csv", "--calibration", "cal.csv"], r"is the input cal\.csv", 2),
                                (["--calibration", ""], r"--calibration: .*empty path", 105),
                                (["--calibration", "nothere.csv"], r"File does not exist: nothere\.csv", 105),
                                (["--scale", "2"], r"--scale: pattern ar_res_rms does not quantize, so it does not use "
                                 r"this option", 2),
                                (["--sf-layout", "linear", "--pattern", "ar_res_rms_fp8"],
                                 r"--sf-layout linear: pattern ar_res_rms_fp8 has no NVFP4 output", 2)]:
        add("predict " + " ".join(argv), ["predict", "--no-terms"] + argv, code, pattern)
    for argv, pattern, code in [(["--ranks", "3"], r"nranks = 3 is not supported", 2),
                                (["--ranks", "2,2"], r"ranks", 2),
                                (["--dtypes", "int8"], r"unknown dtype 'int8'", 2),
                                (["--acc", "fp64"], r"unknown accumulation 'fp64'", 2),
                                (["--distribution", "cauchy"], r"unknown distribution 'cauchy'", 2),
                                (["--tokens", "0"], r"--tokens: 0 is outside \[1, ", 105),
                                (["--hidden", "-8"], r"--hidden: -8 is outside \[1, ", 105),
                                (["--eps", "nan"], r"--eps: nan is outside", 105),
                                (["--out", ""], r"--out: empty path", 105),
                                (["--out", "m.csv"], r"m\.csv has a different header", 2),
                                (["--out", "adir"], r"--out adir: is a directory|adir", 2)]:
        add("numerics " + " ".join(argv), ["numerics", "--tokens", "4", "--hidden", "64"] + argv, code, pattern)
    for argv, pattern, code in [(["--mode", "guess"], r"--mode 'guess' \(expected auto, measure or predict\)", 2),
                                (["--mode", "predict", "--calibration", "cal_hbm0.csv"], r"hbm_efficiency = 0", 2),
                                (["--mode", "predict", "--data", "cal.csv"],
                                 r"cal\.csv:1: column 'experiment': header lacks this column and \d+ other", 2),
                                (["--mode", "predict", "--data", "nranks3.csv"], r"nranks3\.csv:4: column 'nranks'", 2),
                                (["--mode", "predict", "--out-dir", ""], r"--out-dir: empty path", 105),
                                (["--mode", "predict", "--seed", "-1"], r"--seed: '-1'", 105),
                                (["--mode", "predict", "--timeout-ms", "0"], r"--timeout-ms: 0 is outside", 105),
                                (["--mode", "predict", "--device", "-1"], r"--device: -1 is outside", 105)]:
        add("seed " + " ".join(argv), ["seed", "--out-dir", "seed_out"] + argv if "--out-dir" not in argv
            else ["seed"] + argv, code, pattern)
    if not have_cuda:
        add("seed --mode measure without the GPU parts", ["seed", "--mode", "measure", "--out-dir", "seed_out"], 2,
            r"--mode measure needs a GPU")
    for argv, pattern, code in [(["--rows", "5", "--out", ""], r"--out: empty path", 105),
                                (["--rows", "5", "--out", "cal.csv"], r"cal\.csv has a different header", 2),
                                (["--rows", "5", "--out", "s.csv", "--calibration", "cal_hbm0.csv"],
                                 r"hbm_efficiency = 0", 2),
                                (["--rows", "5", "--out", "s.csv", "--gpu", "voodoo"], r"unknown GPU preset", 2),
                                (["--rows", "20000000", "--out", "s.csv"], r"--rows: 20000000 is outside", 105),
                                (["--rows", "5", "--out", "s.csv", "--noise", "inf"], r"--noise: inf is outside", 105),
                                (["--rows", "5", "--out", "nodir/s.csv"], r"directory 'nodir' does not exist", 2),
                                (["--out", "s.csv"], r"--rows is required", 106)]:
        add("synthetic " + " ".join(argv), ["synthetic"] + argv, code, pattern)
    add("save-calibration: empty path", ["save-calibration", ""], 105, r"empty path")
    add("save-calibration: over a validation file", ["save-calibration", "v.csv"], 2, r"v\.csv exists and holds "
                                                                                     r"another schema")
    add("save-calibration: into a missing directory", ["save-calibration", "nodir/c.csv"], 2,
        r"directory 'nodir' does not exist")
    issue22_cases(add, have_cuda, arlab, no_gpu)
    return t


def starts_with(prefix):
    """A check: the file starts with `prefix` (the header of the schema it must hold)."""
    def check(path):
        with open(path, "rb") as f:
            return f.read(len(prefix)) == prefix.encode()
    return check


def csv_rows(path):
    with open(path, newline="", encoding="utf-8-sig") as f:
        return [r for r in csv.reader(f) if r and any(c.strip() for c in r)]


def has_rows(n, experiment_prefix=None):
    """A check: a CSV of one header and n rows (each an experiment cell starting with the prefix)."""
    def check(path):
        rows = csv_rows(path)
        ok = len(rows) == n + 1 and rows.count(rows[0]) == 1
        if ok and experiment_prefix:
            col = rows[0].index("experiment")
            ok = all(r[col].startswith(experiment_prefix) for r in rows[1:])
        return ok
    return check


VALIDATION = "line,problem_id,gpu,"
CALIBRATION = "name,value,unit,source,meaning"
PREDICTION = "gpu,link,sm_per_rank,"
NUMERICS = "experiment,git_sha,date_utc,seed,"


def help_options(arlab, sub):
    """(name, CLI11 type) of every option `arlab SUB --help` lists with a value."""
    out = subprocess.run([arlab, sub, "--help"], capture_output=True, text=True).stdout
    return re.findall(r"^\s+(?:-\w,)?(--[\w-]+) (INT|UINT|FLOAT|TEXT)\b", out, re.M) + \
        [(f, "FLAG") for f in re.findall(r"^\s+(?:-\w,)?(--[\w-]+)(?: {2,}|$)", out, re.M) if f != "--help"]


# The arguments each subcommand needs besides the option a case is about.
REQUIRED_ARGS = {"validate": ["m.csv"], "fit": ["m.csv", "--out", "new_cal.csv"], "save-calibration": ["new_cal.csv"],
                 "synthetic": ["--rows", "5", "--out", "s.csv"], "exp": ["seed", "--out-dir", "exp_out"],
                 "numerics": ["--tokens", "4", "--hidden", "64", "--out", "n.csv"],
                 "seed": ["--mode", "predict", "--out-dir", "seed_out"]}
SUBCOMMANDS = ["run", "seed", "exp", "predict", "validate", "fit", "calibrate", "save-calibration", "numerics",
               "synthetic", "soak"]


def required_args(sub, option):
    args = list(REQUIRED_ARGS.get(sub, []))
    if option in args:  # the option itself is one of them: its text replaces the default
        i = args.index(option)
        del args[i:i + 2]
    return args


def issue22_cases(add, have_cuda, arlab, no_gpu):
    """Issue 22: no file damaged, no input silently reinterpreted, no option silently ignored, and every
    message naming where and what."""
    root = os.geteuid() == 0

    # --- [damage] outputs that are not regular files: written through, never replaced ---------------
    for argv in (["validate", "m.csv", "--out"], ["fit", "m.csv", "--out"], ["save-calibration"]):
        add("[damage] %s into a link to /dev/null" % argv[0], argv + ["null_link.csv"], 0, r"(wrote|to) null_link\.csv")
        if root:  # a copy of /dev/null, as root: replacing it would replace a device node
            add("[damage] %s into a character device (mknod)" % argv[0], argv + ["devnull"], 0, r"(wrote|to) devnull")
        add("[damage] %s into a FIFO" % argv[0], argv + ["fifo.csv"], 0, r"(wrote|to) fifo\.csv",
            fifo={"fifo.csv": lambda data, head=(VALIDATION if argv[0] == "validate" else CALIBRATION):
                  data.startswith(head.encode())})
    add("[damage] save-calibration /dev/stdout (a link to the pipe arlab's output goes to) is written through",
        ["save-calibration", "/dev/stdout"], 0, r"(?m)^" + re.escape(CALIBRATION) + r"\nlaunch_overhead_us,")
    add("[damage] numerics --out /dev/stdout appends its rows to the pipe",
        ["numerics", "--tokens", "4", "--hidden", "64", "--ranks", "2", "--out", "/dev/stdout"], 0,
        r"(?m)^" + re.escape(NUMERICS) + r".*\n(numerics,.*\n){12}")
    add("[damage] predict --csv appends into a link to /dev/null", ["predict", "--no-terms", "--csv", "null_link.csv"],
        0, r"appended null_link\.csv")
    add("[damage] predict --csv appends into a FIFO", ["predict", "--no-terms", "--csv", "fifo.csv"], 0,
        r"appended fifo\.csv", fifo={"fifo.csv": lambda data: data.startswith(PREDICTION.encode())})
    add("[damage] numerics --out into a FIFO", ["numerics", "--tokens", "4", "--hidden", "64", "--ranks", "2", "--out",
                                                "fifo.csv"], 0, r"appended 12 rows",
        fifo={"fifo.csv": lambda data: data.startswith(NUMERICS.encode()) and data.count(b"\n") == 13})
    add("[damage] validate --out a link to a file: the target replaced, the link kept",
        ["validate", "m.csv", "--out", "v_link.csv"], 0, r"wrote v_link\.csv", changes={"v.csv": starts_with(VALIDATION)})
    add("[damage] predict --csv a link to a file: appended through the link",
        ["predict", "--no-terms", "--csv", "p_link.csv"], 0, r"appended", changes={"p.csv": cells_consistent})
    add("[damage] save-calibration into a link to no file yet: the target made, the link kept",
        ["save-calibration", "dangling.csv"], 0, r"wrote", made={"dangling_target.csv": starts_with(CALIBRATION)})

    # --- [damage] merge is a union; a refused merge leaves nothing --------------------------------------
    add("[damage] exp seed --merge keeps the rows already there (a union)",
        ["exp", "seed", "--merge", "s1.csv", "--out-dir", "mergeout", "--no-plots"], 0,
        r"10 row\(s\) kept from mergeout/seed/seed\.csv, 10 added",
        changes={"mergeout/seed/seed.csv": has_rows(20, "seed/")})
    add("[damage] exp seed --merge of rows already there changes nothing",
        ["exp", "seed", "--merge", "s2.csv", "--out-dir", "mergeout", "--no-plots"], 0,
        r"0 added .*nothing new: the file is unchanged")
    add("[damage] exp seed --merge of a folder is refused, no header-only file",
        ["exp", "seed", "--merge", "shards", "--out-dir", "mergenew", "--no-plots"], 2,
        r"merge: input shards is a directory; name its shard CSV files", absent=["mergenew"])
    add("[damage] exp seed --merge of a header alone is refused", ["exp", "seed", "--merge", "exp_header_only.csv",
                                                                 "--out-dir", "mergenew", "--no-plots"], 2,
        r"hold no rows of experiment seed .*nothing to merge", absent=["mergenew"])
    add("[damage] exp tokens --merge refuses the seed experiment's rows",
        ["exp", "tokens", "--merge", "s1.csv", "--out-dir", "mergenew", "--no-plots"], 2,
        r"s1\.csv:2: column 'experiment': 'seed/row 0' is no case of experiment tokens", absent=["mergenew"])
    add("[damage] exp seed --merge refuses a shard of garbage cells",
        ["exp", "seed", "--merge", "exp_garbage.csv", "--out-dir", "mergenew", "--no-plots"], 2,
        r"exp_garbage\.csv:2: column 'tokens': 'garbage' is not an integer", absent=["mergenew"])
    add("[damage] exp seed --merge refuses a kernel time below the timer's step",
        ["exp", "seed", "--merge", "exp_tiny.csv", "--out-dir", "mergenew", "--no-plots"], 2,
        r"exp_tiny\.csv:3: column 'kernel_us_median': kernel time 1e-300 us is outside its physical range",
        absent=["mergenew"])
    add("[damage] exp seed --merge on a full disk leaves the merged file as it was",
        ["exp", "seed", "--merge", "s3.csv", "--out-dir", "mergeout", "--no-plots"], 2, r"File too large",
        fsize=4000)
    add("[damage] exp --out-dir '' is refused (it would write to /NAME/)", ["exp", "numerics", "--out-dir", ""], 105,
        r"--out-dir: empty path")

    # --- [damage] set-aside copies never overwrite; refusals leave nothing ------------------------------
    add("[damage] seed keeps an earlier set-aside copy of the same second",
        ["seed", "--mode", "predict", "--data", "m.csv", "--out-dir", "seedkeep"], 0,
        r"kept the previous seedkeep/validation\.csv as seedkeep/validation\.20200101T000000Z\.1\.csv",
        changes={"seedkeep/validation.csv": starts_with(VALIDATION)},
        made={"seedkeep/validation.20200101T000000Z.1.csv": starts_with(VALIDATION)})
    add("[damage] soak --csv of a whitespace-only file leaves it as it was", ["soak", "--csv", "ws.csv"], 2, no_gpu)
    add("[damage] soak --csv NEW makes no header-only file", ["soak", "--csv", "soak_new.csv"], 2, no_gpu,
        absent=["soak_new.csv"])
    add("[damage] calibrate makes no output folder without a GPU", ["calibrate", "--out-dir", "cal_out"], 2, no_gpu,
        absent=["cal_out"])
    add("[damage] exp seed makes no output folder without a GPU", ["exp", "seed", "--out-dir", "exp_out"], 2, no_gpu,
        absent=["exp_out"])
    add("[damage] seed --mode predict on rows that all failed makes no folder",
        ["seed", "--mode", "predict", "--data", "all_failed.csv", "--out-dir", "seed_new/deeper"], 2,
        r"no usable rows", absent=["seed_new"])
    add("[damage] numerics --out in a new folder: a refusal makes no folder",
        ["numerics", "--tokens", "4", "--hidden", "64", "--ranks", "3", "--out", "num_new/n.csv"], 2,
        r"nranks = 3 is not supported", absent=["num_new"])

    # --- [damage] a full disk (RLIMIT_FSIZE): every writer leaves the old file, or none -----------------
    n_small = 6 * 2  # rows of one numerics run at --ranks 2 (3 outputs x 2 dtypes x 2 accumulations)
    add("[damage] numerics --out appends on a full disk: the file as it was",
        ["numerics", "--tokens", "4", "--hidden", "64", "--ranks", "2", "--out", "n_small.csv"], 2,
        r"write to CSV file n_small\.csv failed: File too large; the file was restored", fsize="n_small.csv+300")
    add("[damage] numerics --out NEW on a full disk: no file", ["numerics", "--tokens", "4", "--hidden", "64", "--ranks",
                                                                "2", "--out", "n_new.csv"], 2,
        r"File too large; the file it had made was removed", fsize=200, absent=["n_new.csv"])
    add("[damage] numerics --out in a new folder on a full disk: no file, no folder",
        ["numerics", "--tokens", "4", "--hidden", "64", "--ranks", "2", "--out", "num_fs2/deeper/n.csv"], 2,
        r"File too large; the file it had made was removed", fsize=200, absent=["num_fs2"])
    add("[damage] exp numerics on a full disk: no file, no folder", ["exp", "numerics", "--out-dir", "num_fs",
                                                                     "--no-plots"], 2, r"File too large",
        fsize=3000, absent=["num_fs"])
    add("[damage] predict --csv on a full disk: the file as it was", ["predict", "--no-terms", "--csv", "p.csv"], 2,
        r"File too large; the file was restored", fsize="p.csv+100")
    add("[damage] validate --out on a full disk: the old file, no temporary file",
        ["validate", "m.csv", "--out", "v.csv"], 2, r"cannot write v\.csv: writing through .*File too large",
        fsize=2000)
    add("[damage] save-calibration NEW on a full disk: no file", ["save-calibration", "cal_fs.csv"], 2,
        r"File too large", fsize=500, absent=["cal_fs.csv"])
    add("[damage] synthetic --out NEW on a full disk: no file", ["synthetic", "--rows", "5", "--out", "syn_fs.csv"], 2,
        r"File too large", fsize=1000, absent=["syn_fs.csv"])
    add("[damage] seed --mode predict on a full disk: no folder",
        ["seed", "--mode", "predict", "--data", "m.csv", "--out-dir", "seed_fs/x"], 2, r"File too large",
        fsize=3000, absent=["seed_fs"])
    del n_small

    # --- [reinterpret] every number option of every subcommand: decimal or refused --------------------
    for sub in SUBCOMMANDS:
        for option, kind in help_options(arlab, sub):
            base = ["--mode", "predict", "--out-dir", "seed_out"] if sub == "seed" else required_args(sub, option)
            if kind in ("INT", "UINT"):
                add("[reinterpret] %s %s 010 (octal?)" % (sub, option), [sub] + base + [option, "010"], 105,
                    re.escape(option) + r": '010' is not an integer: a leading zero is refused \(is it octal\?")
                add("[reinterpret] %s %s 0x10" % (sub, option), [sub] + base + [option, "0x10"], 105,
                    re.escape(option) + r": '0x10' is not an integer")
                add("[reinterpret] %s %s +5" % (sub, option), [sub] + base + [option, "+5"], 105,
                    re.escape(option) + r": '\+5' is not an integer")
            if kind == "UINT":
                add("[reinterpret] %s %s -1 (no wrap-around)" % (sub, option), [sub] + base + [option, "-1"], 105,
                    re.escape(option) + r": '-1' is not an integer \(decimal digits: it cannot be negative")
            if kind == "FLOAT":
                add("[reinterpret] %s %s 0x1p3 (hex float)" % (sub, option), [sub] + base + [option, "0x1p3"], 105,
                    re.escape(option) + r": '0x1p3' is not a number")
                add("[reinterpret] %s %s 1e999" % (sub, option), [sub] + base + [option, "1e999"], 105,
                    re.escape(option) + r": '?1e999'? (is too large for a double|is outside)")
                add("[message] %s %s abc (no 'Could not convert')" % (sub, option), [sub] + base + [option, "abc"],
                    105, re.escape(option) + r": 'abc' is not a number")
    for argv in (["predict", "-t", "010"], ["predict", "-n", "010"], ["predict", "--hidden", "010000"],
                 ["run", "-i", "010"], ["run", "-b", "010", "-e", "64"], ["calibrate", "-n", "02"]):
        add("[reinterpret] %s (the issue's short options)" % " ".join(argv), argv, 105,
            r"'0\d+' is not an integer: a leading zero is refused")
    for option in ("--eps", "--scale"):
        add("[reinterpret] predict %s 1e-50 (a float would hold 0)" % option, ["predict", option, "1e-50"], 105,
            re.escape(option) + r": '1e-50' is too close to 0 for a float")
    add("[reinterpret] predict --eps 1e-320 (subnormal)", ["predict", "--eps", "1e-320"], 105,
        r"--eps: '1e-320' is too close to 0 for a double")

    # --- [reinterpret] a calibration without rows, or with CR-only line ends: never the priors ---------
    for cal, pattern in [("cal_header_only", r"cal_header_only\.csv:1: column 'name': no rows"),
                         ("cal_cr_only", r"cal_cr_only\.csv:1: CR-only line ends")]:
        for argv in (["predict", "--no-terms"], ["validate", "m.csv"], ["synthetic", "--rows", "5", "--out", "s.csv"],
                     ["seed", "--mode", "predict", "--out-dir", "seed_out"], ["save-calibration", "new_cal.csv"],
                     ["fit", "m.csv", "--out", "new_cal.csv"], ["exp", "seed", "--out-dir", "exp_out"], ["run"]):
            add("[reinterpret] %s --calibration %s" % (argv[0], cal), argv + ["--calibration", cal + ".csv"], 2,
                pattern, absent=["seed_out", "exp_out", "new_cal.csv", "s.csv"])
        for option in ("--calibration-nvlink", "--calibration-emulated"):
            add("[reinterpret] seed %s %s" % (option, cal), ["seed", "--mode", "predict", "--out-dir", "seed_out",
                                                             option, cal + ".csv"], 2, pattern, absent=["seed_out"])

    # --- [reinterpret] columns are read by name: another order reads the same --------------------------
    add("[reinterpret] validate: tpb and grid in each other's place read the same",
        ["validate", "sw_tpb_grid.csv"], 0, r"MAPE", same_as=["validate", "m.csv"])
    add("[reinterpret] validate: regs and norm_max_ulp in each other's place read the same",
        ["validate", "sw_regs_ulp.csv"], 0, r"MAPE", same_as=["validate", "m.csv"])
    add("[reinterpret] predict: a calibration with name and source in each other's place reads the same",
        ["predict", "--calibration", "cal_swapped.csv"], 0, r"predicted_us",
        same_as=["predict", "--calibration", "cal.csv"])
    add("[reinterpret] save-calibration --from-microbench: sms and tpb in each other's place read the same",
        ["save-calibration", "new_cal.csv", "--from-microbench", "mb_swapped.csv"], 0, r"wrote new_cal\.csv",
        same_as=["save-calibration", "new_cal.csv", "--from-microbench", "mb.csv"])
    add("[reinterpret] a measurement cell with a leading zero", ["validate", "tokens_octal.csv"], 2,
        r"tokens_octal\.csv:4: column 'tokens': '0128' is not an integer: a leading zero is refused")
    add("[reinterpret] a kernel time of 1e-300 us (a 300-digit MAPE before)", ["validate", "k_tiny.csv"], 2,
        r"k_tiny\.csv:4: column 'kernel_us_median': kernel time 1e-300 us is outside its physical range \[0\.032, "
        r"1e\+07\] us \(one 32 ns step of the GPU timer")
    add("[reinterpret] a skew-free time below the timer's step", ["validate", "skew_tiny.csv"], 2,
        r"skew_tiny\.csv:4: column 'skewfree_us_median': kernel time 0\.001 us is outside its physical range")
    add("[reinterpret] seed --mode predict on a kernel time of 1e-300 us",
        ["seed", "--mode", "predict", "--data", "k_tiny.csv", "--out-dir", "seed_out"], 2,
        r"k_tiny\.csv:4: column 'kernel_us_median'", absent=["seed_out"])
    add("save-calibration --from-microbench of one GPU with --gpu of another",
        ["save-calibration", "new_cal.csv", "--from-microbench", "mb.csv", "--gpu", "h100_sxm"], 2,
        r"--gpu h100_sxm is not the GPU the rows were measured on \('NVIDIA H200', preset h200_sxm\): leave --gpu "
        r"out, or pass h200_sxm", absent=["new_cal.csv"])
    add("save-calibration --from-microbench with an unknown --gpu: the known presets named",
        ["save-calibration", "new_cal.csv", "--from-microbench", "mb.csv", "--gpu", "nonsense"], 2,
        r"unknown GPU preset 'nonsense' \(known: h100_sxm, h200_sxm", absent=["new_cal.csv"])
    add("save-calibration --from-microbench of a GPU with no preset, no --gpu",
        ["save-calibration", "new_cal.csv", "--from-microbench", "mb_unknown_gpu.csv"], 2,
        r"mb_unknown_gpu\.csv:2: column 'gpu': no GPU preset for the rows' GPU 'ACME Z9000'; name the preset whose "
        r"datasheet fits it with --gpu \(h100_sxm, h200_sxm", absent=["new_cal.csv"])
    add("save-calibration --from-microbench of a GPU with no preset, --gpu named: derived against it",
        ["save-calibration", "new_cal.csv", "--from-microbench", "mb_unknown_gpu.csv", "--gpu", "h200_sxm"], 0,
        r"ACME Z9000, emulated, local; --gpu h200_sxm\)", made={"new_cal.csv": starts_with(CALIBRATION)})
    add("save-calibration --from-microbench of an H100, no --gpu: derived against the H100's preset",
        ["save-calibration", "new_cal.csv", "--from-microbench", "mb_h100.csv"], 0,
        r"NVIDIA H100 80GB HBM3, emulated, local; --gpu h100_sxm\)", made={"new_cal.csv": starts_with(CALIBRATION)})
    add("[reinterpret] a microbenchmark row with an unknown bench", ["save-calibration", "new_cal.csv",
                                                                      "--from-microbench", "mb_garbage_bench.csv"], 2,
        r"mb_garbage_bench\.csv:6: column 'bench': unknown bench 'garbage'", absent=["new_cal.csv"])
    add("[reinterpret] a microbenchmark file of a header alone", ["save-calibration", "new_cal.csv",
                                                                   "--from-microbench", "mb_header_only.csv"], 2,
        r"mb_header_only\.csv:1: column 'bench': no microbenchmark rows", absent=["new_cal.csv"])
    add("[reinterpret] a microbenchmark value of 1e-300", ["save-calibration", "new_cal.csv", "--from-microbench",
                                                            "mb_tiny.csv"], 2,
        r"mb_tiny\.csv:\d+: column 'value': value = 1e-300 latency_ns is outside 0 or \[1e-08, 1e\+10\]",
        absent=["new_cal.csv"])

    # --- [ignored] every accepted option is used or refused -----------------------------------------------
    gpu_values = {"INT": "2", "UINT": "5", "FLOAT": "5", "--shard": "0/1", "--distribution": "normal",
                  "--calibration": "cal.csv", "FLAG": None}
    for option, kind in help_options(arlab, "exp"):
        if option in ("--out-dir", "--no-plots", "--list", "--merge"):
            continue
        value = gpu_values.get(option, gpu_values.get(kind))
        argv = [option] + ([value] if value is not None else [])
        add("[ignored] exp numerics %s" % " ".join(argv), ["exp", "numerics", "--out-dir", "exp_out"] + argv, 2,
            re.escape(option) + r".*: `arlab exp numerics` runs on the CPU with its own fixed sweep, which does not "
            r"use this option \(it takes name, --out-dir, --no-plots\); drop it", absent=["exp_out"])
        if option not in ("--shard", "--calibration"):  # --calibration: the merge's summary step uses it
            add("[ignored] exp seed --merge %s" % " ".join(argv),
                ["exp", "seed", "--merge", "s1.csv", "--out-dir", "exp_out"] + argv, 2,
                re.escape(option) + r".*: `arlab exp seed --merge` joins shard CSVs, which does not use this option",
                absent=["exp_out"])
    for argv, pattern in [(["--timeout-ms", "-5"], r"--timeout-ms: -5 is outside \(0, 1e\+09\]"),
                          (["--device", "-1"], r"--device: -1 is outside \[0, "),
                          (["--max-noise", "0"], r"--max-noise: 0 is outside \(0, 100\]"),
                          (["--nranks", "1"], r"--nranks: 1 is outside \[2, 16\]")]:
        add("[ignored] exp numerics %s (refused, not ignored)" % " ".join(argv),
            ["exp", "numerics", "--out-dir", "exp_out"] + argv, 105, pattern, absent=["exp_out"])
    add("[damage] exp --merge with a missing --calibration writes nothing (checked before the merge)",
        ["exp", "model-accuracy", "--merge", "exp_ma.csv", "--out-dir", "exp_out", "--calibration", "missing_cal.csv"], 2,
        r"missing_cal\.csv: cannot open", absent=["exp_out"])
    add("[ignored] exp numerics --calibration /nonexistent.csv", ["exp", "numerics", "--out-dir", "exp_out",
                                                                  "--calibration", "/nonexistent.csv"], 2,
        r"--calibration '/nonexistent\.csv': `arlab exp numerics` runs on the CPU", absent=["exp_out"])
    add("[ignored] exp numerics --merge", ["exp", "numerics", "--merge", "s1.csv", "--out-dir", "exp_out"], 2,
        r"--merge joins the shard CSVs of a measured experiment; `arlab exp numerics` runs whole on the CPU",
        absent=["exp_out"])
    add("[ignored] exp numerics re-run resumes: nothing appended twice", ["exp", "numerics", "--out-dir", "numout",
                                                                         "--no-plots"], 0,
        r"skipped: all 48 rows of the sweep are already in numout/numerics/numerics\.csv \(resume")
    add("[ignored] exp --list with another option", ["exp", "--list", "--nranks", "4"], 2,
        r"--nranks '4': `arlab exp --list` lists the experiments and exits, which does not use this option")
    add("[ignored] exp tokens --max-configs (config-space only)", ["exp", "tokens", "--max-configs", "4", "--out-dir",
                                                                   "exp_out"], 2,
        r"--max-configs '4': `arlab exp tokens` \(a measured experiment\), which does not use this option",
        absent=["exp_out"])
    add("[ignored] seed --ratios given and missing is an error", ["seed", "--mode", "predict", "--data", "m.csv",
                                                                  "--ratios", "/nonexistent.csv", "--out-dir",
                                                                  "seed_out"], 2,
        r"/nonexistent\.csv: cannot open", absent=["seed_out"])
    add("[ignored] seed --calibration-nvlink given as the default path, missing, is an error",
        ["seed", "--mode", "predict", "--data", "m.csv", "--calibration-nvlink", "data/calibration/h200_nvlink.csv",
         "--out-dir", "seed_out"], 2, r"data/calibration/h200_nvlink\.csv: cannot open", absent=["seed_out"])
    seed_modes = {"--mode", "--data", "--out-dir", "--calibration", "--calibration-nvlink", "--calibration-emulated",
                  "--ratios"}
    for option, kind in help_options(arlab, "seed"):
        if option in seed_modes:
            continue
        value = gpu_values.get(option, gpu_values.get(kind))
        argv = [option] + ([value] if value is not None else [])
        add("[ignored] seed --mode predict %s (a measuring option)" % " ".join(argv),
            ["seed", "--mode", "predict", "--out-dir", "seed_out"] + argv, 2,
            re.escape(option) + r".*: `arlab seed` predicts beside measured rows \(--mode predict\), which does not use "
            r"this option", absent=["seed_out"])
    add("[ignored] seed without a GPU: --device", ["seed", "--out-dir", "seed_out", "--device", "0"], 2,
        r"--mode auto: no GPU is visible" if not have_cuda else r"--device", absent=["seed_out"])
    add("[ignored] save-calibration --gpu without --from-microbench", ["save-calibration", "new_cal.csv", "--gpu",
                                                                       "b200"], 2,
        r"--gpu 'b200': save-calibration without --from-microbench copies the calibration in use, which does not use "
        r"this option", absent=["new_cal.csv"])
    add("[ignored] run --registers with a problem", ["run", "--registers", "-t", "5"], 2,
        r"--tokens '5': `arlab run --registers` prints every kernel's registers and exits")
    add("[ignored] run -b/-e with --tokens", ["run", "-b", "1", "-e", "8", "-t", "5"], 2,
        r"--tokens '5': a size sweep \(-b/-e\) runs the tokens it lists in place of --tokens")
    add("[ignored] run --no-timing with a timing option", ["run", "--no-timing", "--batch", "4"], 2,
        r"--batch '4': --no-timing checks the outputs without timing them, which does not use this option")

    # --- [message] where and what ------------------------------------------------------------------------
    add("[message] a NUL byte is binary data at file:line:column", ["validate", "m_nul.csv"], 2,
        r"m_nul\.csv:3: column 'git_sha': a NUL byte \(binary data, byte \d+ of the file\)")
    add("[message] CR-only line ends are said as such (not 'no data rows')", ["validate", "m_cr.csv"], 2,
        r"m_cr\.csv:1: CR-only line ends")
    add("[message] a subnormal cell is finite but too close to 0 (not 'not a finite number')",
        ["validate", "k_subnormal.csv"], 2,
        r"k_subnormal\.csv:4: column 'kernel_us_median': '1e-320' is too close to 0 for a double")
    add("[message] a microbenchmark row of another link names the link cell", ["save-calibration", "new_cal.csv",
                                                                               "--from-microbench", "mb_link.csv"], 2,
        r"mb_link\.csv:2: column 'link': 'nvlink' differs from the 'local' of \d+ other row\(s\)",
        absent=["new_cal.csv"])
    add("[message] a microbenchmark link that does not fit its topology", ["save-calibration", "new_cal.csv",
                                                                           "--from-microbench", "mb_topology.csv"], 2,
        r"mb_topology\.csv:2: column 'link': link 'nvlink' with topology 'emulated'", absent=["new_cal.csv"])
    add("[message] microbenchmark nranks = 0 names file, line and column (not 'sm_partition: nranks = 0')",
        ["save-calibration", "new_cal.csv", "--from-microbench", "mb_nranks0.csv"], 2,
        r"mb_nranks0\.csv:2: column 'nranks': nranks = 0 is outside \[2, 16\]", absent=["new_cal.csv"])
    add("[message] a microbenchmark rank beyond the node", ["save-calibration", "new_cal.csv", "--from-microbench",
                                                             "mb_rank9.csv"], 2,
        r"mb_rank9\.csv:5: column 'rank': rank = 9 is outside \[-1, 1\]", absent=["new_cal.csv"])
    add("[message] a derived constant out of range names the bench's row", ["save-calibration", "new_cal.csv",
                                                                            "--from-microbench", "mb_derived.csv"], 2,
        r"mb_derived\.csv:\d+: column 'value': derive_calibration: dram_latency_ns = 9e\+05 ns is outside its physical "
        r"range .*bench chase, variant hbm, metric latency_ns", absent=["new_cal.csv"])
    add("[message] a bench missing from the file names it", ["save-calibration", "new_cal.csv", "--from-microbench",
                                                              "mb_no_chase.csv"], 2,
        r"mb_no_chase\.csv: no calibration can be derived from these rows: .*bench chase, variant hbm",
        absent=["new_cal.csv"])
    add("[message] microbenchmarks of a GPU with no preset, --gpu of another SM count: sm_per_rank named with the "
        "link", ["save-calibration", "new_cal.csv", "--gpu", "b200", "--from-microbench", "mb_unknown_gpu.csv"],
        2, r"mb_unknown_gpu\.csv:2: column 'sm_per_rank': sm_per_rank = 64 does not fit --gpu b200 .* with link local",
        absent=["new_cal.csv"])


def normalized(output, names):
    """A command's output without what legitimately differs between two runs of it: file names, times,
    the build's sha."""
    for n in names:
        output = output.replace(n, "FILE")
    lines = [l for l in output.splitlines() if not re.search(r"\btime\b|\bms\b|chosen in", l)]
    return "\n".join(lines)


class FifoReader:
    """Reads a FIFO while a command writes it (opened without waiting for a writer, so a command that
    never opens it cannot hang the test); .data holds what was read."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.data = b""
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                chunk = None
            if chunk:
                self.data += chunk
            elif self.done.is_set():
                return
            else:
                time.sleep(0.005)

    def finish(self):
        self.done.set()
        self.thread.join()
        os.close(self.fd)
        return self.data


def file_size_limit(work, fsize):
    """preexec_fn for a file size limit: writes beyond it fail with EFBIG (SIGXFSZ ignored, as a full disk
    fails them with ENOSPC). `fsize` is a byte count, or "FILE+N": N bytes more than FILE holds now."""
    if fsize is None:
        return None
    if isinstance(fsize, str):
        name, extra = fsize.split("+")
        fsize = os.path.getsize(os.path.join(work, name)) + int(extra)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return limit


def main():
    arlab, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    have_cuda = sys.argv[3].upper() in ("ON", "1", "TRUE", "YES")
    table = cases(have_cuda, arlab)
    failures = []
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="arlab_bad_input_") as work:
        make_files(work, source, arlab)
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")  # `arlab run` must refuse without touching a GPU

        def run(argv, case):
            readers = {p: FifoReader(os.path.join(work, p)) for p in case.fifo}
            try:
                r = subprocess.run([arlab] + argv, cwd=work, env=env, capture_output=True, text=True,
                                   errors="replace", timeout=CASE_TIMEOUT_S,
                                   preexec_fn=file_size_limit(work, case.fsize))
                code, output = r.returncode, r.stdout + r.stderr
            except subprocess.TimeoutExpired:
                code, output = "timeout", ""
            return code, output, {p: reader.finish() for p, reader in readers.items()}

        for case in table:
            before = digest_tree(work)
            code, output, read = run(case.argv, case)
            after = digest_tree(work)
            problems = []
            if code != case.code:
                problems.append("exit code %s, expected %s" % (code, case.code))
            if not re.search(case.pattern, output):
                problems.append("no match for /%s/" % case.pattern)
            for path, digest in before.items():
                if path in case.changes:
                    if not case.changes[path](os.path.join(work, path)):
                        problems.append("%s: its new content is wrong" % path)
                elif after.get(path) != digest:
                    problems.append("%s changed" % path)
            problems += ["%s exists" % p for p in case.absent if os.path.exists(os.path.join(work, p))]
            for path, check in case.made.items():
                if path in before or path not in after or not check(os.path.join(work, path)):
                    problems.append("%s was not made as it should be" % path)
            for path, check in case.fifo.items():
                if not check(read[path]):
                    problems.append("%s: read %r" % (path, read[path][:120]))
            new = sorted(p for p in after if p not in before)
            if code != 0 and new:  # a refused command leaves nothing behind
                problems.append("left behind: %s" % new)
            leftovers = [p for p in after if ".tmp." in p]
            if leftovers:
                problems.append("temporary files left: %s" % leftovers)
            if case.same_as:
                files = [a for a in case.argv + case.same_as if a.endswith(".csv")]
                code2, output2, _ = run(case.same_as, Case("", [], 0, ""))
                if code2 != code or normalized(output, files) != normalized(output2, files):
                    problems.append("output differs from `arlab %s`" % " ".join(case.same_as))
            for path in sorted(digest_tree(work), reverse=True):  # outputs a case made are removed
                if path not in before:
                    full = os.path.join(work, path)
                    if os.path.isdir(full) and not os.path.islink(full):
                        shutil.rmtree(full, ignore_errors=True)
                    elif os.path.lexists(full):
                        os.remove(full)
            shutil.rmtree(os.path.join(work, "seed_out"), ignore_errors=True)
            if problems:
                failures.append("%s\n    arlab %s\n    %s\n    output: %s" % (
                    case.tag, " ".join(repr(a) if a == "" or " " in a else a for a in case.argv), "; ".join(problems),
                    output[-600:].replace("\n", "\n            ")))
        if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
            failures.append("/dev/null is no longer a character device")
    elapsed = time.time() - start
    print("bad-input table: %d cases, %d failed, %.1f s" % (len(table), len(failures), elapsed))
    kinds = {}
    for case in table:
        m = re.match(r"\[(\w+)\]", case.tag)
        kinds[m.group(1) if m else "earlier issues"] = kinds.get(m.group(1) if m else "earlier issues", 0) + 1
    print("  cases per class: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
