#!/usr/bin/env bash
# `tk bundle --all`: every registered variant's index entry, PTX and ptxas
# cubin for sm_90a and sm_80 in one directory. Then another binary
# (tk_bundle_reader) finds every variant's kernel through that index by its
# program's stable name, without running a DSL program; and a second
# `tk bundle` over the directory finds every cubin already there.
set -euo pipefail
tk=$1 reader=$2 dir=$3
ptxas=${TK_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
if [[ ! -x $ptxas ]]; then
  echo "FAIL: ptxas not found (install the CUDA toolkit or set TK_PTXAS)"; exit 1
fi
export TK_PTXAS=$ptxas
rm -rf "$dir"
summary=$("$tk" bundle "$dir" --all --target sm_90a --target sm_80 | tail -1)
echo "$summary"
[[ $summary == *" 0 failures" ]] || { echo "FAIL: tk bundle reported failures"; exit 1; }
ptx=$(ls "$dir" | grep -c '\.ptx$'); index=$(ls "$dir" | grep -c '\.index$')
sm90=$(ls "$dir" | grep -c '\.sm90\.aot\.cubin$'); sm80=$(ls "$dir" | grep -c '\.sm80\.aot\.cubin$')
echo "PTX $ptx, index $index, cubins sm90 $sm90 sm80 $sm80"
if (( ptx < 100 || sm90 + sm80 != ptx || sm90 == 0 || sm80 == 0 || index < ptx )); then
  echo "FAIL: expected one ptxas cubin per PTX module and an index entry for each"; exit 1
fi
again=$("$tk" bundle "$dir" | tail -1)
echo "$again"
[[ $again == *" 0 cubins assembled by ptxas, $ptx already there; 0 failures" ]] || { echo "FAIL: second run"; exit 1; }
"$reader" "$dir"
