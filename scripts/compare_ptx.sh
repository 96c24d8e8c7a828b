#!/usr/bin/env bash
# The guard of refactors: compiles every shipped kernel (`tk compile --all`)
# with two tk binaries for sm_80, sm_90a and sm_100a and says whether the PTX
# is byte-identical. Exit 0 when every file matches, 1 otherwise.
#
#   cp build/bin/tk /tmp/tk-before      # before the change
#   ... change, rebuild ...
#   bash scripts/compare_ptx.sh /tmp/tk-before build/bin/tk
#
# A git ref works in place of the first binary: it is built in a worktree
# under ${TMPDIR:-/tmp} (a full build, several minutes on 2 cores).
# OLD_FLAGS / NEW_FLAGS add `tk compile` flags to either side, e.g.
# NEW_FLAGS=--no-table compares the heuristic's schedules with a binary that
# predates the tuning table.
set -euo pipefail
old=${1:?usage: compare_ptx.sh OLD_TK_OR_GIT_REF [NEW_TK]} new=${2:-}
[[ -x $old ]] && old=$(realpath "$old")
[[ -n $new ]] && new=$(realpath "$new")
cd "$(dirname "$0")/.."
new=${new:-$PWD/build/bin/tk}
work=$(mktemp -d "${TMPDIR:-/tmp}/tk-ptx.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [[ ! -x $old ]]; then
  git worktree add --detach "$work/tree" "$old" >/dev/null
  trap 'git worktree remove --force "$work/tree"; rm -rf "$work"' EXIT
  ln -sfn "$PWD/../shared" "$work/shared" 2>/dev/null || true
  TK_BUILD_DIR="$work/build" bash "$work/tree/scripts/build.sh" >/dev/null
  old="$work/build/bin/tk"
fi
status=0
for target in sm_80 sm_90a sm_100a; do
  for side in old new; do
    mkdir -p "$work/$side/$target"
    tk=${!side}
    flags=${OLD_FLAGS:-}
    [[ $side == new ]] && flags=${NEW_FLAGS:-}
    # ptxas is not needed for the comparison; an absent one only skips its check.
    if ! "$tk" compile --all $flags --target "$target" -o "$work/$side/$target" >"$work/$side/$target.log" 2>&1; then
      echo "$side tk failed to compile for $target:"; tail -5 "$work/$side/$target.log"; status=1
    fi
  done
  n=$(ls "$work/old/$target" | wc -l)
  if diff -rq "$work/old/$target" "$work/new/$target" >"$work/diff.txt"; then
    echo "$target: $n kernels, PTX byte-identical"
  else
    echo "$target: PTX differs in $(wc -l < "$work/diff.txt") of $n kernels:"; head -10 "$work/diff.txt" | sed 's/^/  /'
    status=1
  fi
done
exit $status
