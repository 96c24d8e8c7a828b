#!/usr/bin/env bash
# Builds tk statically against Debian's MLIR/LLVM archives (the GPU machine
# has no LLVM) and packs the binaries xz-compressed into .carry/ (git-ignored):
# tk.xz, tk_gpu_tests.xz, libtk.so.xz (about 21 MB each; a call carries 64 MiB),
# libtk_rt.so.xz (no LLVM; under 1 MB), which runs bundled kernels (tk bundle), and
# tk_bundle_check.xz, the checks linked with libtk_rt (tests/bundle/check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f build-static/build.ninja ]]; then
  cmake -G Ninja -S . -B build-static -DCMAKE_BUILD_TYPE=Release -DTK_STATIC_LLVM=ON
fi
ninja -C build-static tk_cli tk_gpu_tests tk tk_rt tk_bundle_check
mkdir -p .carry && rm -f .carry/tk.xz .carry/tk_gpu_tests.xz .carry/libtk.so.xz .carry/libtk_rt.so.xz .carry/tk_bundle_check.xz # other .xz (tk_base.xz) stay
# libtk.so links LLVM statically too (no libLLVM on the GPU machine): for the Python package there.
for b in bin/tk tests/tk_gpu_tests kernels/libtk.so kernels/libtk_rt.so tests/tk_bundle_check; do
  strip -o /tmp/$(basename $b) build-static/$b
  xz -6 -T2 -c /tmp/$(basename $b) > .carry/$(basename $b).xz
done
ls -la .carry
