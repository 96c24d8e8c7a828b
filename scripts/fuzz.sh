#!/usr/bin/env bash
# Long fuzzing runs with libFuzzer, in the AddressSanitizer + UBSan build of
# scripts/sanitize.sh (build-asan/, clang):
#
#   bash scripts/fuzz.sh capi|tk_opt [SECONDS] [WORKERS]
#
# The corpus grows in fuzz-corpus/<harness>/ (git-ignored; tk_opt's is seeded
# from the lit tests); a crash leaves its input in fuzz-findings/, which
# becomes a regression test (replay: build-asan/tests/<harness>_fuzzer FILE).
# Prints libFuzzer's execution counts.
set -euo pipefail
cd "$(dirname "$0")/.."
harness=${1:?usage: bash scripts/fuzz.sh capi|tk_opt [SECONDS] [WORKERS]}
seconds=${2:-600}
workers=${3:-1}
build=${TK_BUILD_DIR:-build-asan}
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_CXX_COMPILER=clang++ -DTK_SANITIZE=address,undefined -DTK_FUZZ=ON
fi
ninja -C "$build" "${harness}_fuzzer"
source scripts/find_ptxas.sh
export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0:abort_on_error=1  # as scripts/sanitize.sh
corpus=fuzz-corpus/$harness
mkdir -p "$corpus" fuzz-findings
[[ $harness == tk_opt ]] && python3 tests/fuzz/make_corpus.py tests/lit "$corpus" >/dev/null
# Each input runs under a 60 s limit and 4 GB of memory: slower or larger is a finding.
args=(-max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -max_len=4096 -artifact_prefix=fuzz-findings/
      -print_final_stats=1)
if ((workers > 1)); then
  "$build/tests/${harness}_fuzzer" "${args[@]}" -jobs="$workers" -workers="$workers" "$corpus"
  grep -h "stat::number_of_executed_units" fuzz-*.log 2>/dev/null | awk '{s += $2} END {print "executions:", s}'
else
  "$build/tests/${harness}_fuzzer" "${args[@]}" "$corpus" 2>&1 | tail -12
fi
