"""The Othello rules engine: positions, notation, perft.

>>> from engine import Position
>>> p = Position.start().play('f5')
>>> p.discs()
(4, 1)

Knows no folder and no screen.  ``python -m engine --help`` lists the commands.
"""


from .backend import core
from .game import Game
from .notation import DIRECTIONS, PASS, parse_square, square_name
from .position import BLACK, WHITE, IllegalMove, Position, check_size, parse_size
from .shape import Shape, ShapeError

__all__ = ["BLACK", "WHITE", "PASS", "DIRECTIONS", "Game", "IllegalMove", "Position", "perft",
           "parse_square", "square_name", "core_name", "check_size", "parse_size", "size_option", "Shape", "ShapeError"]


def perft(position: Position, depth: int, bulk: bool = False) -> int:
    """Leaf positions ``depth`` plies below ``position`` (a pass is a ply; a finished game is one leaf)."""
    return core.perft(position.size, position.player, position.opponent, depth, bulk, holes=position.holes)


def core_name() -> str:
    """``'compiled'`` or ``'pure-python'``: the rules core in use."""
    return core.NAME
