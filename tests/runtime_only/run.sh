#!/usr/bin/env bash
# libtk_rt: links no LLVM or MLIR (its dynamic section and undefined
# symbols), is a few MB, exports the same tk_* entry points as libtk.so, and
# answers C callers as rt_smoke.c expects. Skips the device-tensor check
# where a CUDA driver is installed (there a bundle would be needed).
set -euo pipefail
rt=$1 full=$2 smoke=$3
fail() { echo "FAIL: $*"; exit 1; }
if readelf -d "$rt" | grep NEEDED | grep -Ei "llvm|mlir"; then fail "libtk_rt needs LLVM or MLIR"; fi
if nm -D --undefined-only "$rt" | grep -Ei "llvm|mlir"; then fail "libtk_rt has undefined LLVM or MLIR symbols"; fi
bytes=$(stat -c %s "$rt")
(( bytes < 8 * 1024 * 1024 )) || fail "libtk_rt is $bytes bytes, more than 8 MB"
diff <(nm -D --defined-only "$rt" | awk '$3 ~ /^tk_/ {print $3}' | sort) \
     <(nm -D --defined-only "$full" | awk '$3 ~ /^tk_/ {print $3}' | sort) || fail "entry points differ from libtk.so"
echo "libtk_rt: $bytes bytes, $(nm -D --defined-only "$rt" | grep -c ' T tk_') entry points, no LLVM or MLIR" \
     "(libtk.so: $(stat -c %s "$full") bytes, $(readelf -d "$full" | grep NEEDED | grep -ciE 'llvm|mlir') LLVM/MLIR libraries needed)"
if ldconfig -p 2>/dev/null | grep -q libcuda.so.1; then "$smoke" --gpu; else "$smoke"; fi
