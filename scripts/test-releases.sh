#!/usr/bin/env bash
# The oracle tests (pytest -m "oracle and not slow": identity with stock generate, depth-1, the limit,
# the fuzz, attention, beams, prefill, the release checks) on older transformers releases. Each release
# is installed beside the environment's own (pip --target, without dependencies: the lock's versions
# satisfy every release from 5.18, which `pip install --dry-run transformers==X` confirms) and put
# first on PYTHONPATH. Exits non-zero on any failure.
#
# Each release's test files are split in two halves (alternate files), and JOBS halves run at once
# (default: the cores, at most 2), each with cores / JOBS torch threads: the tiny test models leave a
# pytest process mostly in Python, so two one-thread processes on two cores do nearly twice the work
# of one two-thread process (measured: 165 s against 155 s for twice the tests). Each half's output
# is printed when it ends.
#   scripts/test-releases.sh [VERSION ...]     default: 5.18.0 5.21.1 5.24.0
#   VENV=DIR                                   the environment to run in (default: .venv)
#   JOBS=N                                     halves at once (JOBS=1: one at a time, every core)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(5.18.0 5.21.1 5.24.0)
cores=$(nproc)
JOBS=${JOBS:-$((cores < 2 ? 1 : 2))}
threads=$((cores / JOBS > 0 ? cores / JOBS : 1))
for version in "${versions[@]}"; do
  overlay=.transformers/$version
  if [ ! -d "$overlay/transformers" ]; then
    "$VENV/bin/python" -m pip --disable-pip-version-check -q install --no-deps --target "$overlay" "transformers==$version"
  fi
done
files=(tests/test_*.py)
halves=("" "")
for i in "${!files[@]}"; do halves[$((i % 2))]+=" ${files[$i]}"; done
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

run_half() {  # version half: one half's oracle tests, output to its log, status to its .rc
  local log="$logs/$1-$2"
  set +e
  # shellcheck disable=SC2086  # the half's file list splits on spaces
  PYTHONPATH=".transformers/$1" KVLIMIT_TEST_THREADS=$threads OMP_NUM_THREADS=$threads \
    "$VENV/bin/python" -m pytest -m "oracle and not slow" -q -p no:cacheprovider ${halves[$2]} > "$log" 2>&1
  echo $? > "$log.rc"
}

report() {  # print every finished half's log once
  for rc in "$logs"/*.rc; do
    [ -e "$rc" ] || continue
    local log=${rc%.rc} name=${rc##*/}
    name=${name%.rc}
    echo "== transformers ${name%-*} (half ${name##*-} of the test files): the oracle tests, exit $(cat "$rc")" >&2
    cat "$log" >&2
    mv "$rc" "$rc.done"
  done
}

running=0
for version in "${versions[@]}"; do
  for half in 0 1; do
    if [ "$running" -ge "$JOBS" ]; then
      wait -n || true
      running=$((running - 1))
      report
    fi
    run_half "$version" "$half" &
    running=$((running + 1))
  done
done
wait
report
failed=0
for rc in "$logs"/*.rc.done; do
  name=${rc##*/}
  name=${name%.rc.done}
  [ "$(cat "$rc")" = 0 ] || { failed=1; echo "FAILED: transformers ${name%-*}, half ${name##*-}" >&2; }
done
exit $failed
