"""A learner's view of a position, for one's first AI: moves by name and by (x, y), how many
discs each turns, the board as rows of letters.

>>> from engine import Position
>>> board = Board(Position.start())
>>> board.turn
'black'
>>> [(m.name, m.x, m.y, m.flips) for m in board.moves]
[('d3', 3, 2, 1), ('c4', 2, 3, 1), ('f5', 5, 4, 1), ('e6', 4, 5, 1)]
>>> board.rows[3]
'...OX...'
>>> board.at(3, 3), board.at(0, 0)
('O', '.')
>>> board.after(board.moves[0]).discs
{'black': 4, 'white': 1}

``x`` counts columns from 0 (column a) to the right, ``y`` rows from 0 (row 1) down, as the
board is drawn; ``X`` is a black disc, ``O`` a white one, ``.`` an empty square, ``#`` a hole of a
shaped board.  A first AI subclasses ``SimpleAI`` and writes ``choose``::

    class Corners(SimpleAI):
        def choose(self, board):
            corners = [m for m in board.moves if m.is_corner]
            return max(corners or board.moves, key=lambda m: m.flips)

``choose`` is asked only when there is a move to play (a pass is played for it) and may return a
``Move``, a name (``"d3"``), an ``(x, y)`` pair or a square number.  The fast core underneath is
``board.position`` (``engine.Position``, squares numbered ``y * size + x``), for when a strategy
outgrows this view (docs/ai.md).
"""
import operator
from dataclasses import dataclass
from typing import Optional, Union

from .loader import brief
from .notation import PASS, parse_square, square_name
from .position import BLACK, Position
from .strategies import Strategy

SIGNS = {BLACK: "X", 1 - BLACK: "O"}


@dataclass(frozen=True)
class Move:
    """A legal move: its ``name`` (``d3``), its column ``x`` and row ``y`` (from 0), its ``square``
    number for the fast core, and ``flips``, how many of the opponent's discs it turns."""

    name: str
    x: int
    y: int
    square: int
    flips: int
    size: int = 8

    @property
    def is_corner(self) -> bool:
        last = self.size - 1
        return self.x in (0, last) and self.y in (0, last)

    @property
    def is_edge(self) -> bool:
        """On the board's outer ring (corners included)."""
        last = self.size - 1
        return self.x in (0, last) or self.y in (0, last)


class Board:
    """A position as a learner reads it (see the module's docstring); made from a ``Position``."""

    def __init__(self, position: Position) -> None:
        self.position = position
        self.size = n = position.size
        self.turn = "black" if position.turn == BLACK else "white"
        self.rows = ["".join(self._sign(y * n + x) for x in range(n)) for y in range(n)]
        self.moves = [Move(square_name(sq, n), sq % n, sq // n, sq, bin(position.flips(sq)).count("1"), n)
                      for sq in position.legal_moves() if sq != PASS]
        b, w = position.discs()
        self.discs = {"black": b, "white": w}

    def _sign(self, sq: int) -> str:
        if self.position.is_hole(sq):
            return "#"
        colour = self.position.colour_at(sq)
        return "." if colour is None else SIGNS[colour]

    def at(self, x: int, y: int) -> str:
        """``X``, ``O``, ``.`` or ``#`` at column ``x``, row ``y`` (ValueError off the board: -1 is
        not the last column here)."""
        n = self.size
        if not (_whole(x) and _whole(y) and 0 <= x < n and 0 <= y < n):
            raise ValueError(f"({brief(x)}, {brief(y)}) is off the {n}x{n} board: x and y go from 0 to {n - 1}")
        return self.rows[y][x]

    def after(self, move: "Move | str | tuple[int, int] | int") -> "Board":
        """The board once ``move`` is played (then the other side is to move)."""
        return Board(self.position.play(self.square(move)))

    def square(self, move: "Move | str | tuple[int, int] | int") -> int:
        """The square number of ``move`` (a ``Move``, a name, an ``(x, y)`` pair or a number);
        ValueError when it is none of them or off the board."""
        n = self.size
        if isinstance(move, Move):
            return move.square
        if isinstance(move, str):
            return parse_square(move, n)
        if isinstance(move, tuple) and len(move) == 2 and all(_whole(v) for v in move):
            x, y = (operator.index(v) for v in move)
            if not (0 <= x < n and 0 <= y < n):
                raise ValueError(f"({brief(x)}, {brief(y)}) is off the {n}x{n} board: x and y go from 0 to {n - 1}")
            return y * n + x
        if _whole(move):
            square = operator.index(move)       # type: ignore[arg-type]
            if square != PASS and not 0 <= square < n * n:
                raise ValueError(f"square {brief(square)} is off the {n}x{n} board (0 to {n * n - 1})")
            return square
        raise ValueError(f"{brief(move)} is not a move: give a Move, a name like 'd3', (x, y) or a square number")

    def __str__(self) -> str:
        return "\n".join(self.rows)


def _whole(value: object) -> bool:
    """A whole number (numpy's too), never a bool."""
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)       # type: ignore[arg-type]
    except TypeError:
        return False
    return True


class SimpleAI(Strategy):
    """A strategy written against ``Board``: subclass it and write ``choose(board)``; a pass is
    played for it when there is no move."""

    name = "strategy"

    def choose(self, board: Board) -> Union[Move, str, "tuple[int, int]", int]:
        raise NotImplementedError("write choose(self, board): return one of board.moves")

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        board = Board(position)
        if not board.moves:
            return PASS
        return board.square(self.choose(board))
