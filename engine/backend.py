"""Which rules core is active: the compiled one when it is built, else pure Python.

Set ``OTHELLO_ENGINE=pure`` to force the pure-Python core (for comparison).
"""
import os
from typing import TYPE_CHECKING, Optional, Protocol, Sequence

from . import _pure

if TYPE_CHECKING:
    from typing_extensions import Buffer

    from . import _core


class Core(Protocol):
    """What both rules cores offer (``engine._core`` and ``engine._pure``), on masks;
    ``holes``: the squares a shaped board lacks (flips need none: a hole is neither colour)."""

    @property
    def NAME(self) -> str: ...
    def moves(self, size: int, P: int, O: int, *, holes: int = 0) -> int: ...
    def flips(self, size: int, P: int, O: int, sq: int) -> int: ...
    def perft(self, size: int, P: int, O: int, depth: int, bulk: bool = False, *, holes: int = 0) -> int: ...
    def hash64(self, size: int, P: int, O: int) -> int: ...


class Compiled(Core, Protocol):
    """The compiled core's searches on top of the rules (``engine/_core.pyi`` has the details)."""

    @property
    def Searcher(self) -> "type[_core.Searcher]": ...
    def moves(self, size: int, P: int, O: int, mailbox: bool = False, holes: int = 0) -> int: ...
    def flips(self, size: int, P: int, O: int, sq: int, mailbox: bool = False) -> int: ...
    def perft(self, size: int, P: int, O: int, depth: int, bulk: bool = False, mailbox: bool = False,
              holes: int = 0) -> int: ...
    def solve(self, size: int, P: int, O: int, seconds: float = 0.0, alpha: int = -64, beta: int = 64,
              threads: int = 1, holes: int = 0) -> tuple[int, int, int, bool]: ...
    def search(self, size: int, P: int, O: int, max_depth: int = 60, seconds: float = 1.0,
               evaluation: str = "full", hash_bits: int = 20, threads: int = 1,
               holes: int = 0) -> tuple[int, int, int, int]: ...
    def evaluate(self, P: int, O: int, evaluation: str = "full", holes: int = 0) -> int: ...
    def set_patterns(self, instances: Sequence[Sequence[int]], offsets: Sequence[int], mobility_offset: int,
                     stage_size: int, stage_of: Sequence[int], divisor: int, weights: "Buffer") -> None: ...
    def set_probcut(self, sigmas: Sequence[Sequence[float]], biases: Sequence[Sequence[float]],
                    t: float) -> None: ...


def _compiled() -> Optional[Compiled]:
    try:
        from . import _core
    except ImportError:  # not built: no C compiler at install time
        return None
    return _core


compiled = _compiled()
core: Core = compiled if compiled is not None and os.environ.get("OTHELLO_ENGINE", "").lower() != "pure" else _pure
pure = _pure

MAX_THREADS = 64   # the compiled search's limit (MAX_THREADS in engine/searcher.pxi)
