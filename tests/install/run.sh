#!/usr/bin/env bash
# Installs the build into a fresh prefix, then builds and runs the examples
# against it, as projects outside the tree would: examples/c_api through
# find_package(tk CONFIG) and through pkg-config, and examples/rmsnorm_fp8
# (a kernel author's DSL project, tk::dsl) with its tooling commands.
# Usage: run.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2 here=$(cd "$(dirname "$0")" && pwd)
examples=$(cd "$here/../../examples" && pwd)
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for f in include/tk/tk.h include/tk/dsl.hpp include/tk/dsl/KernelBuilder.h lib/libtk.so lib/tk/libtk_author.a \
         bin/tk bin/tk-opt lib/cmake/tk/tkConfig.cmake lib/pkgconfig/tk.pc; do
  [[ -e "$work/prefix/$f" ]] || { echo "install: $f missing"; exit 1; }
done
"$work/prefix/bin/tk" version

# The C API: CMake package and pkg-config.
cmake -S "$examples/c_api" -B "$work/c_api" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/c_api.configure.log" \
  || { cat "$work/c_api.configure.log"; exit 1; }
cmake --build "$work/c_api" > "$work/c_api.build.log"
"$work/c_api/c_api"
PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --exists tk
cc "$examples/c_api/c_api.c" -o "$work/c_api-pc" $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs tk)
"$work/c_api-pc"

# A kernel author's project: the DSL, tk::compile, tk::run, tk::toolMain.
cmake -S "$examples/rmsnorm_fp8" -B "$work/rmsnorm_fp8" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  > "$work/rmsnorm_fp8.configure.log" || { cat "$work/rmsnorm_fp8.configure.log"; exit 1; }
cmake --build "$work/rmsnorm_fp8" > "$work/rmsnorm_fp8.build.log" || { cat "$work/rmsnorm_fp8.build.log"; exit 1; }
author="$work/rmsnorm_fp8/rmsnorm_fp8"
"$author"
"$author" list
"$author" compile --all -o "$work/ptx"
for t in sm_80 sm_90a sm_100a; do
  grep -q "^.entry rmsnorm_fp8\|^\.visible \.entry rmsnorm_fp8" "$work/ptx/rmsnorm_fp8.h7168.$t.ptx" \
    || { echo "install: no rmsnorm_fp8 entry in the $t PTX"; exit 1; }
done
"$author" run
if "$author" compile nosuchkernel -o "$work/ptx" 2> "$work/unknown.err"; then
  echo "install: compiling an unknown kernel succeeded"; exit 1
fi
grep -q "no registered kernel or variant is named 'nosuchkernel'" "$work/unknown.err"
echo "install: every example ran against $work/prefix"
