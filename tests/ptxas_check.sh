#!/usr/bin/env bash
# Compiles every shipped kernel for one target and assembles it with ptxas
# (tk compile fails on a ptxas error or on any spill byte).
set -euo pipefail
tk=$1 target=$2 dir=$3
ptxas=${TK_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
if [[ ! -x $ptxas ]]; then
  echo "FAIL: ptxas not found (install the CUDA toolkit or set TK_PTXAS)"; exit 1
fi
rm -rf "$dir"
TK_PTXAS=$ptxas "$tk" compile --all --target "$target" -o "$dir"
n=$(ls "$dir"/*.ptx | wc -l)
echo "$n kernels assembled for $target with zero spills"
[[ $n -gt 0 ]]
