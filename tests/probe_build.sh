#!/usr/bin/env bash
# The GPU probes in bench/probes compile with the CUDA toolkit's nvcc for sm_90a (they run only on a GPU).
set -euo pipefail
src=$1 out=$2
ptxas=${TK_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
nvcc=$(command -v nvcc || echo "$(dirname "$ptxas")/nvcc")
# NVIDIA's nvcc wheel (scripts/setup.sh's fallback for ptxas) has no CUDA headers: skipped there, visibly.
if [[ ! -x $nvcc || ! -f $(dirname "$nvcc")/../include/cuda_runtime.h ]]; then
  echo "SKIP: no CUDA toolkit nvcc with its headers beside ptxas ($ptxas)"; exit 77
fi
mkdir -p "$(dirname "$out")"
"$nvcc" -O3 -gencode arch=compute_90a,code=sm_90a -o "$out" "$src"
echo "built $out"
