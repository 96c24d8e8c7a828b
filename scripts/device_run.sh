#!/usr/bin/env bash
# Runs on the GPU machine (no LLVM there): the statically linked binaries
# carried in .carry/ (see scripts/pack_for_device.sh). Writes logs to $OUT.
# The GPU test suites run side by side, one process each: their time goes to
# JIT compiles and the C++ references on the host (16 cores), and one process
# for all of them took longer than a 600-second device call.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/unpack_carry.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
export TK_PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
tests=/tmp/tk-bin/tk_gpu_tests
limit=${TK_GPU_TEST_SECONDS:-330}
echo "== GPU tests (one process per suite, at most $limit s each)"
for suite in $("$tests" --gtest_list_tests | grep -v '^ ' | grep '\.$' | tr -d '.'); do
  # The per-token and per-channel suites are the largest: their tests run as processes of their own.
  if [[ $suite == PerTokenCastGpu || $suite == PerChannelCastGpu ]]; then
    for t in $("$tests" --gtest_list_tests --gtest_filter="$suite.*" | grep '^ ' | tr -d ' '); do
      (timeout "$limit" "$tests" --gtest_filter="$suite.$t" > "$out/gpu_$suite.$t.log" 2>&1
       echo "exit $?" >> "$out/gpu_$suite.$t.log") &
    done
  else
    (timeout "$limit" "$tests" --gtest_filter="$suite.*" > "$out/gpu_$suite.log" 2>&1
     echo "exit $?" >> "$out/gpu_$suite.log") &
  fi
done
wait
grep -hE "cases|FAILED  \]|SKIPPED \]|Failure|exit [1-9]" "$out"/gpu_*.log | head -60
echo "== tk run"; /tmp/tk-bin/tk run 2>&1 | tee "$out/tk_run.log"
