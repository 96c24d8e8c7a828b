#!/usr/bin/env bash
# Set up, build and run every test (unit, lit, ptxas; GPU tests skip visibly
# without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
source scripts/find_ptxas.sh
cd "${TK_BUILD_DIR:-build}"
ctest --output-on-failure "$@"
