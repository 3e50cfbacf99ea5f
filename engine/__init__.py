"""The Othello rules engine: positions, notation, perft.

>>> from engine import Position
>>> p = Position.start().play('f5')
>>> p.discs()
(4, 1)

Knows no folder and no screen.  ``python -m engine --help`` lists the commands.
"""
from typing import TYPE_CHECKING, Callable

from .backend import core
from .game import Game
from .notation import DIRECTIONS, PASS, parse_square, square_name
from .position import BLACK, WHITE, IllegalMove, Position, check_size, parse_size

__all__ = ["BLACK", "WHITE", "PASS", "DIRECTIONS", "Game", "IllegalMove", "Position", "perft",
           "parse_square", "square_name", "core_name", "check_size", "parse_size", "size_option"]


def perft(position: Position, depth: int, bulk: bool = False) -> int:
    """Leaf positions ``depth`` plies below ``position`` (a pass is a ply; a finished game is one leaf)."""
    return core.perft(position.size, position.player, position.opponent, depth, bulk)


def core_name() -> str:
    """``'compiled'`` or ``'pure-python'``: the rules core in use."""
    return core.NAME


# ``engine.size_option`` lives in the command-line module ``engine.options``, so that argparse
# is loaded only by command lines; the old import keeps working (for the players' cli), lazily.
# mypy sees the one name, not a __getattr__ that would accept any.
if TYPE_CHECKING:
    from .options import size_option
else:
    def __getattr__(name: str) -> Callable[[str], int]:
        if name == "size_option":
            from .options import size_option
            return size_option
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
