#!/usr/bin/env bash
# Every entry point from a bundle through libtk_rt (bundle_check.cpp): the
# checker needs libtk_rt and no LLVM or MLIR library; on a GPU machine,
# `tk check` records the small cases' kernels into DIR, `tk bundle` adds
# their ptxas cubins, and tk_bundle_check runs every case from the bundle,
# loading each kernel from its ptxas cubin. Without a CUDA driver: skipped (77), saying so.
set -euo pipefail
tk=$1 checker=$2 dir=$3
fail() { echo "FAIL: $*"; exit 1; }
needed=$(readelf -d "$checker" | grep NEEDED || true)
grep -q libtk_rt <<<"$needed" || fail "tk_bundle_check does not link libtk_rt: $needed"
if grep -Ei "llvm|mlir|libtk\.so" <<<"$needed"; then fail "tk_bundle_check links the compiler"; fi
echo "tk_bundle_check links libtk_rt and no LLVM or MLIR"
if ! ldconfig -p 2>/dev/null | grep -q libcuda.so.1; then
  echo "SKIPPED: no CUDA driver; the bundle's kernels run on the GPU only"; exit 77
fi
rm -rf "$dir"
TK_CACHE_DIR=$dir "$tk" check --sms 2 > "$dir.record.log" || fail "tk check (recording the bundle): see $dir.record.log"
tail -1 "$dir.record.log"
"$tk" bundle "$dir" | tail -1
CUDA_CACHE_DISABLE=1 "$checker" "$dir" --sms 2
