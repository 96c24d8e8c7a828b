#!/usr/bin/env bash
# Installs the build into a fresh prefix, then builds and runs
# tests/install/consumer.c against it twice: through find_package(tk CONFIG)
# and through pkg-config. Usage: run.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2 here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for f in include/tk/tk.h lib/libtk.so bin/tk bin/tk-opt lib/cmake/tk/tkConfig.cmake lib/pkgconfig/tk.pc; do
  [[ -e "$work/prefix/$f" ]] || { echo "install: $f missing"; exit 1; }
done
"$work/prefix/bin/tk" version
cmake -S "$here" -B "$work/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/cmake-build" > "$work/build.log"
"$work/cmake-build/consumer"
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --exists tk
cc "$here/consumer.c" -o "$work/consumer-pc" $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs tk)
"$work/consumer-pc"
