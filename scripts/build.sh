#!/usr/bin/env bash
# Configures (once) and builds tk with CMake + Ninja into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TK_BUILD_DIR:-build}
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
ninja -C "$build"
