#!/usr/bin/env bash
# On the GPU machine: tk's benchmark (arguments go to tk bench, e.g. --headline)
# and the peers on the same rows (bench/peers/peers.py), then one table
# (performance.md) and one chart (bench.png) under $OUT.
#   PEER_IMPLS=tilekernels,eager,compile (default: all three) picks the peers;
#   PEER_TIME_LIMIT=S: peer rows not started S seconds after this script
#   started are skipped (TileLang compiles each kernel in about 5 s, so all
#   three peers on every row take longer than one 10-minute device call:
#   split them over two calls and join the JSON files with report.py).
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
out=${OUT:-/tmp/tk-out}
tk=${TK:-/tmp/tk-bin/tk}
mkdir -p "$out"
[[ -d /tmp/site ]] && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
"$tk" bench "$@" --json "$out/tk.json" | tee "$out/tk_bench.log"
limit=()
[[ -n "${PEER_TIME_LIMIT:-}" ]] && limit=(--time-limit $((PEER_TIME_LIMIT - (SECONDS - start))))
PYTHONUNBUFFERED=1 python3 bench/peers/peers.py --tk "$out/tk.json" --json "$out/peers.json" \
  --impls "${PEER_IMPLS:-tilekernels,eager,compile}" "${limit[@]}" | tee "$out/peers.log"
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
python3 bench/report.py --tk "$out/tk.json" --peers "$out/peers.json" --md "$out/performance.md" \
  --png "$out/bench.png" --command "bash bench/run_all.sh" ${driver:+--driver "$driver"}
cat "$out/performance.md"
