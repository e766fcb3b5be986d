"""The supported range of transformers releases, checked before anything else of transformers is imported.

Contract: importing this module raises `ImportError` for a transformers release below
`MIN_TRANSFORMERS`, naming the installed release and the command that installs a supported one (an
older release lacks internals kvlimit relies on, and before 5.14 its mask builders would silently
let a prompt chunk attend to later tokens of its own chunk); releases from 6 on, which kvlimit has
not been tested with, are logged. `check_release` is the rule itself.
"""

from __future__ import annotations

import logging

import transformers
from packaging.version import Version

logger = logging.getLogger(__name__)

#: The oldest transformers release kvlimit supports (and tests); pyproject.toml says the same.
MIN_TRANSFORMERS = "5.18.0"
#: The first major release kvlimit has not been tested with.
NEXT_MAJOR = "6"


def check_release(version: str) -> None:
    """Raise `ImportError` for a release below `MIN_TRANSFORMERS`; log one from `NEXT_MAJOR` on."""
    release = Version(Version(version).base_version)
    if release < Version(MIN_TRANSFORMERS):
        raise ImportError(
            f"kvlimit needs transformers >= {MIN_TRANSFORMERS} (and < {NEXT_MAJOR}); this environment has "
            f"{version}: pip install 'transformers>={MIN_TRANSFORMERS},<{NEXT_MAJOR}'"
        )
    if release >= Version(NEXT_MAJOR):
        logger.warning("kvlimit is tested with transformers >= %s and < %s; this is %s", MIN_TRANSFORMERS,
                       NEXT_MAJOR, version)  # fmt: skip


TRANSFORMERS_VERSION = Version(transformers.__version__)
check_release(transformers.__version__)
