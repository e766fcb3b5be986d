"""The `kvlimit` subcommands that are not the front end of a library module: `generate` and `info`.

(`kvlimit ppl` lives in `kvlimit.eval.command`, `kvlimit bench` in `kvlimit.bench.command`.)
"""
