#!/usr/bin/env bash
# Static SASS of every shipped kernel, without a GPU: compiles them with tk
# (`tk compile --all`), assembles each with ptxas and disassembles it with
# cuobjdump. Prints, per kernel, the instruction count and the order of its
# global loads, cp.async copies, waits, barriers, shuffles and stores
# (consecutive repeats as xN), then the total. A load after a wait or a
# barrier that it could have overlapped is the pattern to look for (e.g. the
# fused per-channel cast's multipliers, 190 -> 137.7 µs once copied with the
# codes).
#
#   bash scripts/sass_stats.sh [TK] [TARGET] [OUTDIR]
#     TK      the tk binary (default build/bin/tk)
#     TARGET  sm_80, sm_90a (default) or sm_100a
#     OUTDIR  where the PTX and cubins go (default /tmp/tk-sass)
#   HIST=REGEX also prints the opcode counts (most frequent first) of the
#   kernels whose name matches: which pipe the instructions load (e.g. the
#   e5m6 cast's byte permutes, the SwiGLU kernels' per-value F2F).
#
# The CUDA toolkit here has ptxas but not cuobjdump/nvdisasm: without them
# on PATH, NVIDIA's nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm wheels are
# downloaded from PyPI into ~/.cache/tk-sass-tools (once).
set -euo pipefail
cd "$(dirname "$0")/.."
tk=${1:-build/bin/tk}
target=${2:-sm_90a}
out=${3:-/tmp/tk-sass}
source scripts/find_ptxas.sh
ptxas=${TK_PTXAS:-ptxas}

if ! command -v cuobjdump >/dev/null || ! command -v nvdisasm >/dev/null; then
  tools=$HOME/.cache/tk-sass-tools
  if [[ ! -x $tools/nvidia/cu13/bin/cuobjdump || ! -x $tools/nvidia/cu13/bin/nvdisasm ]]; then
    echo "sass_stats: fetching cuobjdump and nvdisasm (PyPI wheels) into $tools" >&2
    mkdir -p "$tools/wheels"
    python3 -m pip download -q --no-deps -d "$tools/wheels" "nvidia-cuda-cuobjdump>=13" "nvidia-cuda-nvdisasm>=13"
    for w in "$tools"/wheels/*.whl; do python3 -m zipfile -e "$w" "$tools"; done
    chmod +x "$tools"/nvidia/cu13/bin/*
  fi
  export PATH=$tools/nvidia/cu13/bin:$PATH
fi

rm -rf "$out" && mkdir -p "$out"
# tk compile exits 1 when a kernel fails or spills; say which, and go on
# with the kernels that compiled (a spill is what such a change shows).
if ! "$tk" compile --all --target "$target" -o "$out" > "$out/compile.txt"; then
  echo "sass_stats: tk compile reported failures or spills ($out/compile.txt):" >&2
  awk 'NR > 1 && ($NF != "ok" || $5 != 0)' "$out/compile.txt" >&2
fi
total=0
for ptx in "$out"/*.ptx; do
  cubin=${ptx%.ptx}.cubin
  "$ptxas" -arch="$target" -O3 "$ptx" -o "$cubin"
  sass=$(cuobjdump -sass "$cubin" | grep -E '^\s+/\*[0-9a-f]{4}\*/' || true)
  n=$(grep -c . <<< "$sass" || true)
  order=$(grep -oE '\b(LDGSTS|LDGDEPBAR|LDG|DEPBAR|BAR\.SYNC|SHFL|STG|REDG?|ATOMG?|EXIT)\b' <<< "$sass" |
          grep -v LDGDEPBAR |
          awk '{ if ($1 == p) n++; else { if (p != "") printf "%s%s ", p, (n > 1 ? "x" n : ""); p = $1; n = 1 } }
               END { if (p != "") printf "%s%s", p, (n > 1 ? "x" n : "") }')
  printf '%6d  %-52s %s\n' "$n" "$(basename "$ptx" .ptx)" "$order"
  if [[ -n ${HIST:-} && $(basename "$ptx" .ptx) =~ $HIST ]]; then
    # The opcode is the first upper-case word after the address and any predicate.
    awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[A-Z][A-Z0-9_.]+$/ && $i !~ /^P[0-9T]$/) { split($i, o, "."); print o[1]; break } }' \
      <<< "$sass" | sort | uniq -c | sort -rn |
      awk '{ w = $2 " " $1; if (length(l) + length(w) > 90) { print "        " l; l = "" } l = l (l == "" ? "" : "  ") w }
           END { if (l != "") print "        " l }'
  fi
  total=$((total + n))
done
echo "total $total static SASS instructions ($target)"
