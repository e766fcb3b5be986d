#!/usr/bin/env bash
# From a fresh clone: set up kvlimit with the music extras, then train, generate and write everything.
# Arguments go to music.py (e.g. --train-minutes 1 --out /tmp/music).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh --music
.venv/bin/python examples/music/music.py "$@"
