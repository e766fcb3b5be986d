"""What the test modules share, in one package: tiny models of every family (`families`), tiny
tokenizer/model folders and GGUF files (`tinymodels`), reference computations (`oracles`) and
inputs, caches and counters (`inputs`), the buffers inductor's code allocates (`inductor_code`). Test modules import from here: `from .helpers import ...`."""

from .families import *  # noqa: F403
from .families import __all__ as _families
from .inductor_code import *  # noqa: F403
from .inductor_code import __all__ as _inductor_code
from .inputs import *  # noqa: F403
from .inputs import __all__ as _inputs
from .oracles import *  # noqa: F403
from .oracles import __all__ as _oracles
from .tinymodels import *  # noqa: F403
from .tinymodels import __all__ as _tinymodels

__all__ = [*_families, *_inductor_code, *_inputs, *_oracles, *_tinymodels]
