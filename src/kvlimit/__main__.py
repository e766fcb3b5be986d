"""`python -m kvlimit`: the same command line as the `kvlimit` console script (see kvlimit.cli)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
