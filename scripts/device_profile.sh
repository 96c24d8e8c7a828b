#!/usr/bin/env bash
# Runs on the GPU machine: schedule sweeps (tk bench under each TK_SCHEDULE
# value; `tk tune` searches the declared spaces, this times values of your
# own) and an Nsight Compute profile of one launch of each slow operator.
# Arguments: the operators to profile (tk bench --only names); SWEEP and
# SWEEP_OPS (comma-separated) choose the sweep. Each SWEEP entry is a
# TK_SCHEDULE value without spaces (e.g. per_channel_cast:rows=128,cols=32,
# threads=128,stages=3,tiles=8).
# NCU_MATCH=TEXT profiles only the rows whose text contains it (tk bench
# --match), NCU_SECONDS bounds each profile.
# SWEEP_FLAGS adds tk bench flags (e.g. --headline) to every sweep run.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/unpack_carry.sh
tk=/tmp/tk-bin/tk
export TK_PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
for entry in ${SWEEP:-}; do
  echo "== TK_SCHEDULE=$entry"
  TK_SCHEDULE="$entry" "$tk" bench ${SWEEP_FLAGS:-} --only "$SWEEP_OPS" --json "$out/sweep_${entry//[=,:;]/_}.json" 2>&1 |
    grep -E "^(${SWEEP_OPS//,/|}|tk:)"
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
for op in "$@"; do
  echo "== ncu $op"
  # One launch per kernel and launch configuration, after the check's launch.
  timeout "${NCU_SECONDS:-60}" "$ncu" --filter-mode per-launch-config --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats --csv --page details \
    "$tk" bench --only "$op" ${NCU_MATCH:+--match "$NCU_MATCH"} > "$out/ncu_$op.csv" 2> "$out/ncu_$op.err"
  echo "exit $? ($(wc -l < "$out/ncu_$op.csv") lines)"
done
# A device call returns at most eight files: everything in one archive.
(cd "$out" && tar czf profile.tgz sweep_*.json ncu_*.csv ncu_*.err 2>/dev/null && rm -f sweep_*.json ncu_*.csv ncu_*.err)
