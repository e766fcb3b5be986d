"""kvlimit's test suite (a package: the test modules import their shared pieces from `tests.helpers`)."""
