#!/usr/bin/env python3
"""Every test labelled `gpu` holds the ctest resource lock `gpu`, so that `ctest -j N` never runs two GPU
tests side by side: they split the GPU into partitions and time
kernels. Reads the build's test list (`ctest --show-only=json-v1`); tests/CMakeLists.txt's
arlab_gpu_test_properties is what gives a GPU test its label and lock together.

Usage: gpu_lock_test.py CTEST BUILD_DIR
"""
import json
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    ctest, build_dir = sys.argv[1:]
    out = subprocess.run([ctest, "--show-only=json-v1"], cwd=build_dir, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    gpu, unlocked = 0, []
    for test in json.loads(out)["tests"]:
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        if "gpu" not in props.get("LABELS", []):
            continue
        gpu += 1
        if "gpu" not in props.get("RESOURCE_LOCK", []):
            unlocked.append(test["name"])
    if gpu == 0:
        print("FAIL: no test labelled gpu in this build (the test is registered for CUDA builds only)")
        return 1
    if unlocked:
        print(f"FAIL: {len(unlocked)} of {gpu} gpu test(s) without RESOURCE_LOCK gpu "
              "(use arlab_gpu_test_properties): " + ", ".join(unlocked))
        return 1
    print(f"ok: all {gpu} gpu tests hold the lock gpu")
    return 0


if __name__ == "__main__":
    sys.exit(main())
