#!/usr/bin/env bash
# Builds tk statically against Debian's MLIR/LLVM archives (the GPU machine
# has no LLVM) and packs the binaries xz-compressed into .carry/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f build-static/build.ninja ]]; then
  cmake -G Ninja -S . -B build-static -DCMAKE_BUILD_TYPE=Release -DTK_STATIC_LLVM=ON
fi
ninja -C build-static tk_cli tk_gpu_tests
mkdir -p .carry && rm -f .carry/tk.xz .carry/tk_gpu_tests.xz # other .xz (tk_base.xz) stay
for b in bin/tk tests/tk_gpu_tests; do
  strip -o /tmp/$(basename $b) build-static/$b
  xz -6 -T2 -c /tmp/$(basename $b) > .carry/$(basename $b).xz
done
ls -la .carry
