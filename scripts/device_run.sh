#!/usr/bin/env bash
# Runs on the GPU machine (no LLVM there): the statically linked binaries
# carried in .carry/ (see scripts/pack_for_device.sh). Writes logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/tk-out}
mkdir -p "$out" /tmp/tk-bin
for f in .carry/*.xz; do xz -dc "$f" > /tmp/tk-bin/$(basename "$f" .xz); done
chmod +x /tmp/tk-bin/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
export TK_PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
echo "== GPU tests"; /tmp/tk-bin/tk_gpu_tests 2>&1 | tee "$out/gpu_tests.log" | grep -E "^\[|cases|Failure|mismatch" | tail -25
echo "== tk run"; /tmp/tk-bin/tk run 2>&1 | tee "$out/tk_run.log"
