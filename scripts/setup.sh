#!/usr/bin/env bash
# Installs every system package tk's build and tests need (Debian 12).
# Idempotent: when everything is present it only checks and returns.
set -euo pipefail

packages=(cmake ninja-build ccache g++ python3 python3-venv libgtest-dev pkg-config
          llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libzstd-dev zlib1g-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# ptxas (CUDA toolkit) assembles every kernel in the tests. Use the toolkit's;
# without one, fall back to NVIDIA's nvcc wheel from PyPI.
if ! command -v ptxas >/dev/null && [[ ! -x /usr/local/cuda/bin/ptxas ]] && [[ -z ${TK_PTXAS:-} ]]; then
  echo "setup: no CUDA toolkit ptxas; installing the nvidia-cuda-nvcc wheel"
  python3 -m pip install -q --user "nvidia-cuda-nvcc>=13.0"
fi
echo "setup: ok (LLVM/MLIR $(/usr/lib/llvm-22/bin/llvm-config --version))"
