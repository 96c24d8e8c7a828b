#!/usr/bin/env bash
# The Python package (python/) in CI: a venv with NumPy and ml_dtypes from
# PyPI (kept in the build tree between runs), `pip install ./python`, its
# unit tests on the CPU path against the build's libtk.so, then
# examples/python/quickstart.py with the installed package against an
# installed prefix (libtk.so found beside the prefix's `tk` on PATH).
# Usage: run.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$(cd "$1" && pwd) work=$2 repo=$(cd "$(dirname "$0")/../.." && pwd)
venv="$build/python-venv"
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import numpy, ml_dtypes, wheel" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install -q numpy ml_dtypes wheel; then
    echo "SKIPPED: numpy, ml_dtypes and wheel could not be installed from PyPI (no network?)"
    rm -rf "$venv"
    exit 77
  fi
fi
# The venv's setuptools and wheel build the pure-Python package (no download).
"$venv/bin/pip" install -q --force-reinstall --no-deps --no-build-isolation "$repo/python"
rm -rf "$work" && mkdir -p "$work"
# The tests import the installed package (not python/ beside them).
(cd "$work" && TK_LIBRARY="$build/kernels/libtk.so" "$venv/bin/python" -m unittest discover -s "$repo/python/tests" -t "$repo/python/tests" 2>&1) | tail -n 25
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cp "$repo/examples/python/quickstart.py" "$work/quickstart.py"
(cd "$work" && env -u TK_LIBRARY PATH="$work/prefix/bin:$PATH" "$venv/bin/python" quickstart.py)
