"""Which rules core is active: the compiled one when it is built, else pure Python.

Set ``OTHELLO_ENGINE=pure`` to force the pure-Python core (for comparison).
"""
import os

from . import _pure

try:
    from . import _core as compiled
except ImportError:  # not built: no C compiler at install time
    compiled = None

if compiled is not None and os.environ.get("OTHELLO_ENGINE", "").lower() != "pure":
    core = compiled
else:
    core = _pure

pure = _pure

MAX_THREADS = 64   # the compiled search's limit (MAX_THREADS in engine/searcher.pxi)
