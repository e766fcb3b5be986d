"""The README's Python examples run verbatim, in order, in one namespace (on the embedded model)."""

import pathlib
import re

import pytest

from .helpers import output_cache

README = pathlib.Path(__file__).parent.parent / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_the_readme_has_python_examples():
    blocks = python_blocks()
    assert len(blocks) >= 2 and "kvlimit.model_folder()" in blocks[0]


@pytest.mark.slow
def test_readme_python_examples_run_verbatim(capsys):
    namespace: dict = {}
    for block in python_blocks():
        exec(compile(block, str(README), "exec"), namespace)  # the README's own code, verbatim
    printed = capsys.readouterr().out
    assert "(" in printed and output_cache(namespace["out"]).cache_limit >= 4
