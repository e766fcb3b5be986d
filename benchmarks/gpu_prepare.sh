#!/usr/bin/env bash
# Prepare `.whl` for benchmarks/gpu_session.sh (run here, on the CPU machine, before asking the device
# tool for a GPU): the wheels the GPU machine lacks or has too old (it runs Python 3.12, torch 2.11 and
# transformers 5.17, below kvlimit's floor), the embedded model's tokenizer and config (its weights do
# not fit the transfer: the session builds a model of its shape with random weights), and the cleaned
# corpus. `.whl` is ignored by git (.git/info/exclude) and travels with `carry: [".whl"]`.
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
rm -rf .whl && mkdir -p .whl/smollm2 .whl/corpus
# the closure of transformers 5.25.0 + kernels + gguf for Python 3.12 (pip --dry-run --report), less what
# the GPU image already holds at a version that serves (its package list: the device tool's KINDS.md)
.venv/bin/python -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
    transformers==5.25.0 kernels==0.19.1 huggingface_hub==2.4.0 hf-xet==1.8.0 httpx2==2.17.0 httpcore2==2.17.0 \
    gguf==0.19.0 truststore==0.10.5 tomlkit==0.15.3 pydantic==2.14.4 pydantic_core==2.50.5 \
    typing-inspection==0.4.5 annotated-types==0.8.0 tokenizers==0.23.3
.venv/bin/python - <<'PY'
import pathlib, shutil
import kvlimit
folder = pathlib.Path(kvlimit.model_folder())
for name in folder.iterdir():
    if name.suffix in (".json", ".txt", ".jinja") or name.name.startswith("tokenizer"):
        shutil.copy(name, ".whl/smollm2/")
from kvlimit.eval.corpus import ensure_corpus
shutil.copy(ensure_corpus(), ".whl/corpus/botchan.txt")
PY
du -sh .whl
