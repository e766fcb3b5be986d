"""What the test modules share, in one package: tiny models of every family (`families`), tiny
tokenizer/model folders and GGUF files (`tinymodels`), reference computations (`oracles`) and
inputs, caches and counters (`inputs`). Test modules import from here: `from .helpers import ...`."""

from .families import *  # noqa: F403
from .families import __all__ as _families
from .inputs import *  # noqa: F403
from .inputs import __all__ as _inputs
from .oracles import *  # noqa: F403
from .oracles import __all__ as _oracles
from .tinymodels import *  # noqa: F403
from .tinymodels import __all__ as _tinymodels

__all__ = [*_families, *_inputs, *_oracles, *_tinymodels]
