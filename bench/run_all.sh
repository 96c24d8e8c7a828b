#!/usr/bin/env bash
# On the GPU machine: tk's benchmark (arguments go to tk bench, e.g. --headline)
# and the peers on the same rows (bench/peers/peers.py), then one table
# (performance.md) and one chart (bench.png) under $OUT.
#   PEER_IMPLS=tilekernels,eager,compile (default: all three) picks the peers;
#   PEER_TIME_LIMIT=S: peer rows not started S seconds after this script
#   started are skipped. TileLang compiles each kernel in 3-20 s, so all three
#   peers on every row can take longer than one 10-minute device call: so
#   TileKernels runs first on every row (the comparison the issues ask for),
#   with up to 70% of the time a limit leaves, then the torch peers;
#   what a call did not reach, a second call can add (join the JSON files
#   with report.py's repeated --peers).
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
out=${OUT:-/tmp/tk-out}
tk=${TK:-/tmp/tk-bin/tk}
mkdir -p "$out"
[[ -d /tmp/site ]] && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
"$tk" bench "$@" --json "$out/tk.json" | tee "$out/tk_bench.log"

impls=${PEER_IMPLS:-tilekernels,eager,compile}
torch_impls=$(tr ',' '\n' <<< "$impls" | grep -v '^tilekernels$' | paste -sd, -)
peer_files=() # --peers FILE for each pass, in order
# peer_pass NAME IMPLS SHARE: peers.py over every row, with SHARE % of the time left under PEER_TIME_LIMIT.
peer_pass() {
  local limit=()
  if [[ -n "${PEER_TIME_LIMIT:-}" ]]; then
    local left=$(((PEER_TIME_LIMIT - (SECONDS - start)) * $3 / 100))
    limit=(--time-limit $((left > 1 ? left : 1))) # 0 would mean no limit
  fi
  PYTHONUNBUFFERED=1 python3 bench/peers/peers.py --tk "$out/tk.json" --json "$out/$1.json" --impls "$2" \
    "${limit[@]}" | tee "$out/$1.log"
  peer_files+=(--peers "$out/$1.json")
}
if [[ ,$impls, == *,tilekernels,* && -n $torch_impls ]]; then
  peer_pass peers tilekernels 70
  peer_pass peers_torch "$torch_impls" 100
else
  peer_pass peers "$impls" 100
fi
python3 bench/report.py --tk "$out/tk.json" "${peer_files[@]}" --md "$out/performance.md" \
  --png "$out/bench.png" --command "bash bench/run_all.sh"
cat "$out/performance.md"
