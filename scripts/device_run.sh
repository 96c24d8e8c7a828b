#!/usr/bin/env bash
# Runs on the GPU machine (no LLVM there): the statically linked binaries
# carried in .carry/ (see scripts/pack_for_device.sh). Writes logs to $OUT.
# The GPU tests run side by side, one process each: their time goes to JIT
# compiles and the C++ references on the host (16 cores), and one process for
# all of them took longer than a 600-second device call.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/unpack_carry.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
export TK_PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
tests=/tmp/tk-bin/tk_gpu_tests
limit=${TK_GPU_TEST_SECONDS:-330}
jobs=${TK_GPU_TEST_JOBS:-12}
echo "== GPU tests (one process per test, $jobs at a time, at most $limit s each)"
# Large tables' grids are several tests (TableGridPart2, ...), so each process stays short.
"$tests" --gtest_list_tests | awk '/^[^ ]/ {suite=$1} /^  / {print suite $1}' |
  xargs -P "$jobs" -I{} sh -c 'timeout '"$limit"' "$0" --gtest_filter="$1" > "$2/gpu_$1.log" 2>&1; echo "exit $?" >> "$2/gpu_$1.log"' \
    "$tests" {} "$out"
grep -hE "cases|FAILED  \]|SKIPPED \]|Failure|exit [1-9]" "$out"/gpu_*.log | head -60
echo "== tk run"; /tmp/tk-bin/tk run 2>&1 | tee "$out/tk_run.log"
