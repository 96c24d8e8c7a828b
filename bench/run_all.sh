#!/usr/bin/env bash
# On the GPU machine: tk's benchmark (arguments go to tk bench, e.g. --headline)
# and every available peer in one run, then
# one table (performance.md) and one chart (bench.png) under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/tk-out}
tk=${TK:-/tmp/tk-bin/tk}
mkdir -p "$out"
[[ -d /tmp/site ]] && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
"$tk" bench "$@" --json "$out/tk.json" | tee "$out/tk_bench.log"
PYTHONUNBUFFERED=1 python3 bench/peers/peers.py --tk "$out/tk.json" --json "$out/peers.json" \
  | tee "$out/peers.log"
python3 bench/report.py --tk "$out/tk.json" --peers "$out/peers.json" --md "$out/performance.md" \
  --png "$out/bench.png" --command "bash bench/run_all.sh"
cat "$out/performance.md"
