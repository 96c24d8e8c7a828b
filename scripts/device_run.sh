#!/usr/bin/env bash
# Runs on the GPU machine (no LLVM there): the statically linked binaries
# carried in .carry/ (see scripts/pack_for_device.sh). Writes logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/unpack_carry.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
export TK_PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
echo "== GPU tests"; /tmp/tk-bin/tk_gpu_tests 2>&1 | tee "$out/gpu_tests.log" | grep -E "^\[|cases|Failure|mismatch" | tail -25
echo "== tk run"; /tmp/tk-bin/tk run 2>&1 | tee "$out/tk_run.log"
