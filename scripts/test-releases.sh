#!/usr/bin/env bash
# The oracle tests (pytest -m "oracle and not slow": identity with stock generate, depth-1, the limit,
# the fuzz, attention, beams, prefill, the release checks) on older transformers releases. Each release
# is installed beside the environment's own (pip --target, without dependencies: the lock's versions
# satisfy every release from 5.18, which `pip install --dry-run transformers==X` confirms) and put
# first on PYTHONPATH. Exits non-zero on any failure.
#   scripts/test-releases.sh [VERSION ...]     default: 5.18.0 5.21.1 5.24.0
#   VENV=DIR                                   the environment to run in (default: .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(5.18.0 5.21.1 5.24.0)
for version in "${versions[@]}"; do
  overlay=.transformers/$version
  if [ ! -d "$overlay/transformers" ]; then
    "$VENV/bin/python" -m pip --disable-pip-version-check -q install --no-deps --target "$overlay" "transformers==$version"
  fi
  echo "== transformers $version: the oracle tests" >&2
  PYTHONPATH="$overlay" "$VENV/bin/python" -m pytest -m "oracle and not slow" -q -p no:cacheprovider
done
