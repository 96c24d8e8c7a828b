#!/usr/bin/env bash
# Packs the TileKernels peer (the wheels in .whl-a/ and .whl-b/, downloaded
# with `pip download --no-deps --python-version 3.12 --platform
# manylinux2014_x86_64 --platform manylinux_2_28_x86_64 --only-binary=:all:
# tile-kernels==1.0.0 tilelang==0.1.11 apache-tvm-ffi==0.1.11
# torch-c-dlpack-ext==0.1.5 z3-solver==4.15.4`) into one xz archive small
# enough to carry beside tk.xz in a single device call: .carry/site.txz
# (about 34 MB), unpacked there with `tar -C /tmp -xJf .carry/site.txz` and
# used with PYTHONPATH=/tmp/site. Unzipping a wheel is what pip does for
# these (no build step, no entry points needed). Left out: TileLang's
# bundled Composable Kernel headers (AMD GPUs only; TileLang warns that they
# are missing) and z3's command-line binary (the Python binding loads
# libz3.so). tilelang/rocm stays: tilelang imports it unconditionally.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s nullglob
wheels=(.whl-a/*.whl .whl-b/*.whl)
(( ${#wheels[@]} )) || { echo "no wheels in .whl-a/ or .whl-b/ (see the comment above)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/site" .carry
for w in "${wheels[@]}"; do unzip -qo "$w" -d "$work/site"; done
rm -rf "$work/site/tilelang/3rdparty/composable_kernel" "$work/site"/z3_solver-*.data
tar -C "$work" -cf - site | xz -T2 -9 > .carry/site.txz
ls -la .carry/site.txz
