#!/usr/bin/env bash
# compute-sanitizer's four tools (memcheck, racecheck, synccheck, initcheck)
# over `tk check`: every entry point of tk.h and its variants at small shapes,
# each result compared with the C++ reference, persistent grids sized for two
# SMs so their blocks loop over tiles. Runs on a GPU machine; the tk binary is
# $TK (default: /tmp/tk-bin/tk as scripts/unpack_carry.sh leaves it, else
# build/bin/tk). A tool that reports any error, or a case that is not
# bit-exact under it, fails the script. Logs go to $OUT (default /tmp/tk-out).
#
#   bash scripts/compute_sanitizer.sh [TOOL...]      (default: all four)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/tk-out}
mkdir -p "$out"
tk=${TK:-/tmp/tk-bin/tk}
[[ -x $tk ]] || tk=build/bin/tk
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export TK_PTXAS=${TK_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
# The kernels are compiled once, before the tools run, so that each tool's
# time goes to the kernels (the GPU disk cache serves the later runs).
export TK_CACHE_DIR=${TK_CACHE_DIR:-/tmp/tk-sanitizer-cache}
"$tk" check > "$out/sanitizer_warmup.log" 2>&1 || { echo "tk check failed without a sanitizer:"; tail -5 "$out/sanitizer_warmup.log"; exit 1; }
tools=("$@")
[[ ${#tools[@]} -gt 0 ]] || tools=(memcheck racecheck synccheck initcheck)
# Each tool in a process of its own, side by side (they share the GPU; the
# time goes to the tools' instrumentation, not to the kernels).
run_tool() {
  local tool=$1 extra=() log="$out/sanitizer_$1.log" start=$SECONDS rc
  [[ $tool == memcheck ]] && extra=(--leak-check full)
  "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 99 "$tk" check > "$log" 2>&1
  rc=$?
  printf '%-10s exit %-3s %4ss  %s  %s\n' "$tool" "$rc" "$((SECONDS - start))" \
    "$(grep -E "cases bit-exact" "$log")" "$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$log" | tr '\n' ' ')" \
    > "$log.summary"
  [[ $rc -eq 0 ]] || grep -m 20 -E "^=+ +(Invalid|Race|Barrier|Uninitialized|Error|Warning)|not bit-exact|mismatch" "$log" >> "$log.summary"
  return $rc
}
# The control: a transpose of a freed buffer. memcheck must report its
# reads, or the tools are not seeing tk's kernels.
"$sanitizer" --tool memcheck "$tk" check --out-of-bounds-control > "$out/sanitizer_control.log" 2>&1
if grep -qE "Invalid __global__ read|Address .* is out of bounds" "$out/sanitizer_control.log"; then
  echo "control    memcheck reports the out-of-bounds read: $(grep -m1 "ERROR SUMMARY" "$out/sanitizer_control.log")"
else
  echo "control    memcheck did NOT report the out-of-bounds read: the tools do not see tk's kernels"
  tail -5 "$out/sanitizer_control.log"
  exit 1
fi
pids=()
for tool in "${tools[@]}"; do run_tool "$tool" & pids+=($!); done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
for tool in "${tools[@]}"; do cat "$out/sanitizer_$tool.log.summary"; rm -f "$out/sanitizer_$tool.log.summary"; done
exit $failed
