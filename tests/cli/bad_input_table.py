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
The issue's 12 reproductions are the cases tagged "issue N".

Usage: bad_input_table.py ARLAB SOURCE_DIR HAVE_CUDA(ON|OFF)
"""
import csv
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

CASE_TIMEOUT_S = 60  # one case; every case here takes well under a second


def digest_tree(root):
    """{relative path: sha256} of every regular file under root (the files a case must not change)."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
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
                                ("link_fiber", "link", "fiber"), ("pdl2", "pdl", "2"), ("regs300", "regs", "300"),
                                ("tokens0", "tokens", "0"), ("tokens_text", "tokens", "12x"),
                                ("dtype_int8", "dtype", "int8"), ("pattern9", "pattern", "9"),
                                ("algo_x", "algo", "threeshot"), ("acc_x", "acc", "fp64_acc"),
                                ("k_nan", "kernel_us_median", "nan"), ("k_neg", "kernel_us_median", "-3"),
                                ("k_empty", "kernel_us_median", ""), ("sm7", "sm_per_rank", "7"),
                                ("sm0", "sm_per_rank", "0"), ("gpu_unknown", "gpu", "Voodoo3"),
                                ("tokens_big", "tokens", "2147483648"), ("skewfree_inf", "skewfree_us_median", "inf")]:
        write_csv(os.path.join(work, name + ".csv"), header, set_cell(data[:5], header, column, value, 2))
    # Rows of another problem under the seed schema: N = 8 two-shot (issue reproduction 10).
    other = [set_cell(set_cell([r], header, "nranks", "8"), header, "algo", "twoshot")[0] for r in data[:5]]
    write_csv(os.path.join(work, "n8_twoshot.csv"), header, other)
    write_csv(os.path.join(work, "dup_column.csv"), header + ["link"], [r + ["local"] for r in data[:5]])
    # The kernel_variant column (issue 13; committed files predate it) with bad cells.
    kv_header = header + ["kernel_variant"] if "kernel_variant" not in header else header
    kv_rows = [r + ["reference"] for r in data[:5]] if "kernel_variant" not in header else data[:5]
    write_csv(os.path.join(work, "kv_bogus.csv"), kv_header, set_cell(kv_rows, kv_header, "kernel_variant", "fast", 2))
    write_csv(os.path.join(work, "kv_twoshot_lean.csv"), kv_header,
              set_cell(set_cell(kv_rows, kv_header, "kernel_variant", "lean", 2), kv_header, "algo", "twoshot", 2))
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


def cells_consistent(path):
    """An appended CSV: every non-blank line has the header's cell count, and the header appears once."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = [r for r in csv.reader(f) if r and any(c.strip() for c in r)]
    return len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows) and rows.count(rows[0]) == 1


def cases(have_cuda):
    """(tag, argv, exit code, message regex, {file changed on purpose: check}, [paths that must not exist
    afterwards]) per case."""
    no_gpu = "no CUDA GPU is visible" if have_cuda else "built without CUDA"
    t = []

    def add(tag, argv, code, pattern, changes=None, absent=None):
        t.append((tag, argv, code, pattern, changes or {}, absent or []))

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
                                (["--iters", "-5"], r"fixed iterations = -5 must be >= 0", 2),
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
                                (["--batch", "0"], r"batch = 0 must be in \[1, ", 2),
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
    add("issue 12: --inject-fault needs a rank of the node", ["run", "--inject-fault", "cuda-error-rank=9"], 2,
        r"is not a rank of this node")

    # --- baselines and `arlab exp` (refused before any device or file is touched) ---------
    add("baseline: --baseline fused", ["run", "--baseline", "fused"], 2, r"--baseline fused: the policies measure")
    add("baseline: --baseline lean (a kernel body)", ["run", "--baseline", "lean"], 2,
        r"--baseline lean: the policies measure the fused kernel bodies")
    add("baseline: --baseline of an unknown kind", ["run", "--baseline", "mpi"], 2,
        r"unknown baseline 'mpi' \(expected unfused, nccl\)")
    add("baseline: --algo nccl takes no --config", ["run", "--algo", "nccl", "--config", "128/1/64"], 2,
        r"--algo nccl measures that baseline alone")

    # --- kernel variants (`--kernel`, issue 13: refused before any device is touched) ----------
    kernel_refusals = [
        (["--kernel", "bogus"], r"--kernel 'bogus' is not a kernel \(expected reference, lean or auto\)"),
        (["--kernel", "auto", "--policy", "trtllm"],
         r"--kernel auto lets the model policy choose the kernel; --policy trtllm takes one kernel body \(reference, "
         r"lean\)"),
        (["--kernel", "lean", "--algo", "twoshot", "--policy", "trtllm"],
         r"--kernel lean with --algo twoshot: the lean kernel is one-shot only, and --policy trtllm keeps the "
         r"problem's algorithm")]
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
        r"--policy legacy takes one kernel body \(reference, lean\) \(--policy: the default policy list\)")
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
    add("measurement: kernel_variant lean with two-shot", ["validate", "kv_twoshot_lean.csv"], 2,
        r"kv_twoshot_lean\.csv:4: column 'kernel_variant': kernel_variant lean with algo twoshot")
    add("measurement: a policy label naming another kernel", ["validate", "kv_label_differs.csv"], 2,
        r"kv_label_differs\.csv:4: column 'policy': policy label 'trtllm/lean' names the lean kernel, the row's "
        r"kernel_variant is reference")
    add("measurement: policy label trtllm/fast", ["validate", "policy_label_x.csv"], 2,
        r"policy_label_x\.csv:4: column 'policy': unknown kernel body 'fast' \(expected reference, lean\)")
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
    constants = ["launch_overhead_us", "cluster_launch_us", "dram_latency_ns", "l2_latency_ns", "peer_visibility_ns",
                 "bytes_in_flight_per_sm", "sm_l2_bytes_per_cycle", "block_reduce_fixed_ns",
                 "block_reduce_ns_per_warp", "cluster_sync_ns", "dsmem_access_ns", "sm_ns_per_vector_op",
                 "rank_skew_us", "arrival_atomic_ns", "hbm_efficiency", "link_efficiency", "launch_per_block_ns",
                 "sys_load_latency_ns", "peer_store_gbps_per_sm", "vector_op_latency_ns", "arrival_fixed_ns",
                 "dram_round_latency_ns", "dram_round_ns_per_warp", "push_step_ns",
                 "round_overhead_ns", "round_overhead_ns_per_warp"]
    for i, c in enumerate(constants):
        add("issue 6: %s 1e308" % c, ["predict", "--no-terms", "--calibration", "cal_1e308_%s.csv" % c], 2,
            r"cal_1e308_%s\.csv:%d: column 'value': %s = 1e\+308 \S+ is outside its physical range \[" % (c, i + 2, c))
    for name, pattern in [("cal_nan", r":5: column 'value': 'nan' is not a finite number"),
                          ("cal_inf", r":5: column 'value': 'inf' is not a finite number"),
                          ("cal_neg", r":4: column 'value': dram_latency_ns = -1 ns is outside"),
                          ("cal_eff2", r":17: column 'value': link_efficiency = 2 fraction is outside .*\[0\.01, 1\]"),
                          ("cal_text", r":5: column 'value': 'fast' is not a number"),
                          ("cal_unit", r":5: column 'unit': unit 'us' of 'l2_latency_ns' differs"),
                          ("cal_unknown", r":28: column 'name': unknown calibration constant 'warp_speed'"),
                          ("cal_twice", r":28: column 'name': constant 'launch_overhead_us' appears twice"),
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
                                (["--calibration", "nothere.csv"], r"File does not exist: nothere\.csv", 105)]:
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
    return t


def main():
    arlab, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    have_cuda = sys.argv[3].upper() in ("ON", "1", "TRUE", "YES")
    table = cases(have_cuda)
    failures = []
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="arlab_bad_input_") as work:
        make_files(work, source, arlab)
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")  # `arlab run` must refuse without touching a GPU
        for tag, argv, want_code, pattern, changes, absent in table:
            before = digest_tree(work)
            try:
                r = subprocess.run([arlab] + argv, cwd=work, env=env, capture_output=True, text=True,
                                   errors="replace", timeout=CASE_TIMEOUT_S)
                code, output = r.returncode, r.stdout + r.stderr
            except subprocess.TimeoutExpired:
                code, output = "timeout", ""
            after = digest_tree(work)
            problems = []
            if code != want_code:
                problems.append("exit code %s, expected %s" % (code, want_code))
            if not re.search(pattern, output):
                problems.append("no match for /%s/" % pattern)
            for path, digest in before.items():
                if path in changes:
                    if not changes[path](os.path.join(work, path)):
                        problems.append("%s: appended content is inconsistent" % path)
                elif after.get(path) != digest:
                    problems.append("%s changed" % path)
            problems += ["%s exists" % p for p in absent if os.path.exists(os.path.join(work, p))]
            leftovers = [p for p in after if ".tmp." in p]
            if leftovers:
                problems.append("temporary files left: %s" % leftovers)
            for path in after:  # outputs a failed case made are removed, so the next case starts clean
                if path not in before:
                    os.remove(os.path.join(work, path))
            shutil.rmtree(os.path.join(work, "seed_out"), ignore_errors=True)
            if problems:
                failures.append("%s\n    arlab %s\n    %s\n    output: %s" % (
                    tag, " ".join(repr(a) if a == "" or " " in a else a for a in argv), "; ".join(problems),
                    output[-600:].replace("\n", "\n            ")))
    elapsed = time.time() - start
    print("bad-input table: %d cases, %d failed, %.1f s" % (len(table), len(failures), elapsed))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
