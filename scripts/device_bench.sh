#!/usr/bin/env bash
# On the GPU machine: unpack the carried binaries (and the TileKernels peer,
# .carry/site.txz from scripts/pack_peer_site.sh, when carried), run the
# benchmark with its peers (bench/run_all.sh; PEER_IMPLS and PEER_TIME_LIMIT
# pass through), then profile per_token_cast once with ncu.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/unpack_carry.sh
if [[ -f .carry/site.txz ]]; then
  tar -C /tmp -xJf .carry/site.txz
  [[ -d /usr/local/cuda ]] && export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
fi
TK=/tmp/tk-bin/tk bash bench/run_all.sh
if command -v ncu >/dev/null; then
  timeout 180 ncu --clock-control none -k regex:per_token_cast -c 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section LaunchStats \
    /tmp/tk-bin/tk run --quick > "$out/ncu.txt" 2>&1
  grep -E 'Throughput|Duration|Achieved Occupancy|Registers|Stall|Warp Cycles|Eligible|Theoretical Occ|Block Limit' \
    "$out/ncu.txt" | head -40
fi
