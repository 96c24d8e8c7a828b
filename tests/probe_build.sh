#!/usr/bin/env bash
# The GPU probes in bench/probes compile with the CUDA toolkit's nvcc for sm_90a (they run only on a GPU).
set -euo pipefail
src=$1 out=$2
ptxas=${TK_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
nvcc=$(command -v nvcc || echo "$(dirname "$ptxas")/nvcc")
if [[ ! -x $nvcc ]]; then
  echo "FAIL: nvcc not found (install the CUDA toolkit or set TK_PTXAS to the toolkit's ptxas)"; exit 1
fi
mkdir -p "$(dirname "$out")"
"$nvcc" -O3 -gencode arch=compute_90a,code=sm_90a -o "$out" "$src"
echo "built $out"
