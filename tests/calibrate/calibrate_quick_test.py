#!/usr/bin/env python3
"""GPU test of `arlab calibrate --quick`: exit code 0, and microbench.csv holds rows of every
single-rank bench (calibrate/README.md). Exit code 77 (ctest: skipped) where no CUDA GPU is visible.
usage: calibrate_quick_test.py ARLAB"""
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

SKIP = 77
BENCHES = ["launch", "chase", "bandwidth", "clear", "block_reduce", "cluster_sync", "atomic", "epilogue_math"]
ROUND_VARIANTS = ["bf16_ar_res_rms", "bf16_ar_res_rms_fp4", "bf16_ar", "bf16_ar_res_rms_idle"]
# The push step with 1, 2, 4 and 8 stores (push_step_ns_per_warp_store).
PUSH_VARIANTS = ["push_store_1", "push_store", "push_store_4", "push_store_8"]
# The push step on few blocks (round_load) and the stores' drain at a kernel's end (launch).
FEW_AND_DRAIN = [("round_load", "push_store_few"), ("round_load", "push_store_1_few"), ("launch", "store_1"),
                 ("launch", "store_8")]
# The path from launch to the first store (launch prologue_*, session 58; a record).
FEW_AND_DRAIN += [("launch", v) for v in ("prologue_0", "prologue_2", "prologue_2_wait")]
# The one-shot round of each body at N = 2, 4, 8 (body_round: lean_round_ns_per_extra_rank).
FEW_AND_DRAIN += [("body_round", f"{body}_n{n}_slowest") for body in ("reference", "lean") for n in (2, 4, 8)]
# The same round at the node's N (2 here) alone and with every partition running it (emulated node only).
FEW_AND_DRAIN += [("body_round", f"{body}_n2_{kind}_slowest") for body in ("reference", "lean") for kind in ("solo", "allbusy")]
# The read, store and copy rates over buffers that stay in L2 (bandwidth *_l2, a record), one row each.
L2_VARIANTS = [("bandwidth", "read_l2"), ("bandwidth", "write_l2"), ("bandwidth", "copy_l2")]


def main() -> int:
    arlab = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="arlab_calibrate_quick_") as tmp:
        out = Path(tmp) / "cal"
        # 120 s: --quick took 2.5 s on an H200 (7d4709b); the bound only stops a hang.
        p = subprocess.run([arlab, "calibrate", "--quick", "--out-dir", str(out)], capture_output=True, text=True,
                           timeout=120)
        sys.stdout.write(p.stdout)
        sys.stderr.write(p.stderr)
        if "no CUDA GPU is visible" in p.stderr:
            print("SKIP: no CUDA GPU is visible")
            return SKIP
        csv_path = out / "microbench.csv"
        if not csv_path.is_file():
            print(f"FAIL: {csv_path} was not written (exit code {p.returncode})")
            return 1
        with open(csv_path, newline="") as f:
            rows = list(csv.DictReader(f))
        missing = [b for b in BENCHES if not any(r["bench"] == b for r in rows)]
        if missing:
            print(f"FAIL: no rows of {missing} in {csv_path}")
            return 1
        # The epilogue_round bench measures one round of each of these patterns (nvfp4_round_ns, ar_round_ns)
        # and the half-idle round (round_overhead_idle_warp_fraction).
        missing = [v for v in ROUND_VARIANTS if not any(r["bench"] == "epilogue_round" and r["variant"] == v and
                                                         float(r["value"]) > 0 for r in rows)]
        if missing:
            print(f"FAIL: no positive epilogue_round rows of variant {missing} in {csv_path}")
            return 1
        missing = [v for v in PUSH_VARIANTS if sum(r["bench"] == "round_load" and r["variant"] == v and
                                                   float(r["value"]) > 0 for r in rows) < 2]
        if missing:
            print(f"FAIL: fewer than two positive round_load rows of variant {missing} in {csv_path}")
            return 1
        missing = [f"{b} {v}" for b, v in FEW_AND_DRAIN
                   if sum(r["bench"] == b and r["variant"] == v and float(r["value"]) > 0 for r in rows) < 2]
        if missing:
            print(f"FAIL: fewer than two positive rows of {missing} in {csv_path}")
            return 1
        missing = [f"{b} {v}" for b, v in L2_VARIANTS
                   if not any(r["bench"] == b and r["variant"] == v and float(r["value"]) > 0 for r in rows)]
        if missing:
            print(f"FAIL: no positive rows of {missing} in {csv_path}")
            return 1
        if p.returncode != 0:
            print(f"FAIL: exit code {p.returncode} (microbench.csv has {len(rows)} rows)")
            return 1
        print(f"PASS: {len(rows)} rows, every single-rank bench present")
        return 0


if __name__ == "__main__":
    sys.exit(main())
