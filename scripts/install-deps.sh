#!/usr/bin/env bash
# Installs arlab's build and plot dependencies from Debian/Ubuntu packages (idempotent: a package
# already present is left alone; it says what it installs). The CUDA toolkit is not installed here:
# without nvcc, arlab builds its CPU parts only.
set -euo pipefail

packages=(
  cmake make g++ git          # build
  ccache                      # the second preset's host objects from the first's (CMakeLists.txt)
  libeigen3-dev               # Eigen 3.4: the CPU reference and least-squares fits
  catch2                      # Catch2 v2 (Debian 12) or v3 (Ubuntu 24.04): tests
  libfccp-dev                 # fast-cpp-csv-parser: CSV readers
  libcli11-dev                # CLI11: the arlab CLI
  libopenmpi-dev openmpi-bin  # MPI: the multi-process (mpirun/srun) runtime
  python3 python3-matplotlib  # plots/
  python3-pip unzip           # the FlashInfer headers of the peer implementations (below)
  libspdlog-dev               # FlashInfer's logging.h includes spdlog
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
else
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
  echo "install-deps: done"
fi

# The FlashInfer headers (peers/flashinfer.pin): the pinned flashinfer-python wheel, fetched from PyPI
# without its dependencies, checked against its sha256, and only its flashinfer/data/include tree
# unpacked into ${ARLAB_CACHE:-~/.cache/arlab}/flashinfer-VERSION/include, where CMake finds it. Without
# network or pip the peer implementations are skipped (configure says so); nothing else depends on it.
"$(dirname "$0")/fetch-flashinfer.sh" || echo "install-deps: FlashInfer headers not fetched: the flashinfer and vllm peers will be skipped"
