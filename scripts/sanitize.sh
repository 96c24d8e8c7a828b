#!/usr/bin/env bash
# Sanitizer builds of tk (CPU only; LLVM/MLIR stay uninstrumented):
#
#   bash scripts/sanitize.sh address   AddressSanitizer + UndefinedBehaviorSanitizer (clang, build-asan/):
#                                      the unit tests, the CPU-path kernel tests, tk check on the CPU
#                                      path, and a short run of each fuzz harness (libFuzzer)
#   bash scripts/sanitize.sh thread    ThreadSanitizer (build-tsan/): calls from 8 threads on shared
#                                      and separate contexts (ConcurrentCalls.*), threads compiling side by
#                                      side (ConcurrentCompile.*), and the kernel
#                                      cache's multi-process tests
#
# Any report fails the run (UBSan does not recover; ASan and TSan exit non-zero).
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-address}
bash scripts/setup.sh >/dev/null
source scripts/find_ptxas.sh
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
case $kind in
address)
  build=${TK_BUILD_DIR:-build-asan}
  if [[ ! -f $build/build.ninja ]]; then
    cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
      -DCMAKE_CXX_COMPILER=clang++ -DTK_SANITIZE=address,undefined -DTK_FUZZ=ON
  fi
  ninja -C "$build" tk_unit_tests tk_cpu_kernel_tests tk_cli capi_fuzzer tk_opt_fuzzer tk-opt
  # LLVM's and the driver's static state outlives main: leaks are not checked.
  # LLVM's allocators poison memory from inline code in tk's (instrumented)
  # objects but not inside Debian's (uninstrumented) libMLIR, which then
  # reads it: user poisoning is off, the sanitizer's own checks stay.
  export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0:abort_on_error=1:detect_stack_use_after_return=1
  export UBSAN_OPTIONS=print_stacktrace=1
  # ASan reports a 30 TB allocation instead of throwing std::bad_alloc, which
  # the out-of-memory test asks for (it runs in the plain build).
  "$build"/tests/tk_unit_tests --gtest_brief=1 --gtest_filter=-Hostile.ScratchThatCannotBeAllocatedIsOutOfMemory
  "$build"/tests/tk_cpu_kernel_tests --gtest_brief=1
  "$build"/bin/tk check
  python3 tests/fuzz/make_corpus.py tests/lit "$build"/fuzz-corpus/tk_opt >/dev/null
  # The context's kernel caches hold every kernel the calls compiled: 20000 inputs under ASan peak at 2.3 GB
  # (2026-12-04), past libFuzzer's default 2 GB limit without a leak.
  # libFuzzer writes what it finds (crash-*, slow-unit-*, ...) into the build directory, not the source tree.
  "$build"/tests/capi_fuzzer -runs=${TK_FUZZ_RUNS:-20000} -seed=1 -rss_limit_mb=4096 -artifact_prefix="$build"/ 2>&1 |
    tail -2
  "$build"/tests/tk_opt_fuzzer -runs=${TK_FUZZ_RUNS:-2000} -seed=1 -artifact_prefix="$build"/ \
    "$build"/fuzz-corpus/tk_opt 2>&1 | tail -2
  ;;
thread)
  build=${TK_BUILD_DIR:-build-tsan}
  if [[ ! -f $build/build.ninja ]]; then
    cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
      -DCMAKE_CXX_COMPILER=clang++ -DTK_SANITIZE=thread
  fi
  ninja -C "$build" tk_unit_tests tk_cpu_kernel_tests
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
  "$build"/tests/tk_cpu_kernel_tests --gtest_filter='ConcurrentCalls.*'
  "$build"/tests/tk_unit_tests --gtest_filter='KernelCache.*:ConcurrentCompile.*'
  ;;
*)
  echo "usage: bash scripts/sanitize.sh address|thread" >&2
  exit 2
  ;;
esac
echo "sanitize.sh $kind: clean"
