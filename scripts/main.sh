#!/usr/bin/env bash
# The main job: set up, build, then compile every shipped kernel and run it on
# the GPU (checked against the reference, timed) or, without a GPU, print the
# compiled table (compile time, registers, spills, shared memory from ptxas).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
source scripts/find_ptxas.sh
exec build/bin/tk run "$@"
