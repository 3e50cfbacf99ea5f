"""The position type: one board, two masks (side to move, opponent), who moves."""
from typing import NoReturn, Optional, SupportsIndex, Union

from . import notation
from .backend import core
from .notation import PASS

BLACK, WHITE = 0, 1
COLOUR_NAMES = ("black", "white")
MIN_SIZE, MAX_SIZE = 4, 26

Move = Union[str, SupportsIndex]
"""A move: a square index, ``PASS``, or a name (``'d3'``, ``'pass'``)."""


def check_size(n: object) -> int:
    """``n`` when it is a board size (an even whole number from 4 to 26), else ValueError.

    The one size check of the project: the engine, its command line, ``othellotool``,
    the players' options and every size read from a message or a record use it.

    >>> check_size(8)
    8
    >>> check_size(7)
    Traceback (most recent call last):
    ...
    ValueError: board size must be even, from 4 to 26 (not 7)
    """
    if isinstance(n, bool) or not isinstance(n, int) or n % 2 or not MIN_SIZE <= n <= MAX_SIZE:
        raise ValueError(f"board size must be even, from {MIN_SIZE} to {MAX_SIZE} (not {repr(n)[:20]})")
    return n


def parse_size(text: object) -> int:
    """A board size written in decimal (``"8"``): the number, else ValueError (``"08 "``, ``"٨"``, ``"7"``).

    >>> parse_size("10")
    10
    """
    if not isinstance(text, str) or not text.isascii() or not text.isdigit() or len(text) > 3:
        raise ValueError(f"board size must be even, from {MIN_SIZE} to {MAX_SIZE} (not {str(text)[:20]!r})")
    return check_size(int(text))


class IllegalMove(ValueError):
    """A move that the rules do not allow here; the message says why (in English).

    ``reason`` names the rule for a program or a screen in another language: ``"taken"``,
    ``"flips_nothing"``, ``"must_move"`` (a pass with a legal move), ``"game_over"``,
    ``"off_board"`` or ``"not_a_square"``; ``square`` is the square's index where there is one.

    >>> try:
    ...     Position.start().play("a1")
    ... except IllegalMove as e:
    ...     print(e.reason, e.square, e)
    flips_nothing 0 a1 flips nothing
    """

    def __init__(self, message: str, reason: Optional[str] = None, square: Optional[int] = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.square = square


class Position:
    """An immutable Othello position on an even ``size`` x ``size`` board (4..26).

    ``player`` and ``opponent`` are bit masks (square ``y * size + x``) of the
    side to move and the other side; ``turn`` is ``BLACK`` or ``WHITE``; ``holes`` the
    squares of a shaped board that are not played (``engine.shape``): never a move, never a
    disc, and a line of flips stops there.

    >>> p = Position.start()
    >>> [notation.square_name(m) for m in p.legal_moves()]
    ['d3', 'c4', 'f5', 'e6']
    >>> p.play('f5').discs()
    (4, 1)
    """

    __slots__ = ("size", "player", "opponent", "turn", "holes")

    size: int
    player: int
    opponent: int
    turn: int
    holes: int

    def __init__(self, size: int, player: int, opponent: int, turn: int = BLACK, holes: int = 0) -> None:
        check_size(size)
        full = (1 << (size * size)) - 1
        if player < 0 or opponent < 0 or holes < 0 or (player | opponent | holes) & ~full:
            raise ValueError("disc masks do not fit the board")
        if player & opponent:
            raise ValueError("a square holds two discs")
        if holes & (player | opponent):
            raise ValueError("a disc is on a hole")
        if turn not in (BLACK, WHITE):
            raise ValueError("turn must be BLACK (0) or WHITE (1)")
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "opponent", opponent)
        object.__setattr__(self, "turn", turn)
        object.__setattr__(self, "holes", holes)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("Position is immutable; play() returns a new one")

    # -- construction and text --------------------------------------------
    @classmethod
    def start(cls, size: int = 8) -> "Position":
        """The standard start: white on the two centre squares of the main diagonal (d4, e5 on 8x8)."""
        h = check_size(size) // 2
        white = 1 << ((h - 1) * size + h - 1) | 1 << (h * size + h)
        black = 1 << ((h - 1) * size + h) | 1 << (h * size + h - 1)
        return cls(size, black, white, BLACK)

    @classmethod
    def from_colours(cls, size: int, black: int, white: int, turn: int = BLACK, holes: int = 0) -> "Position":
        """From the masks of each colour (and of the holes) and the side to move."""
        if turn == BLACK:
            return cls(size, black, white, BLACK, holes)
        return cls(size, white, black, WHITE, holes)

    @classmethod
    def from_text(cls, text: str) -> "Position":
        """From the common text form: ``size*size`` cells (``X``, ``O``, ``-``, ``#`` a hole) and
        the side to move."""
        size, black, white, black_to_move, holes = notation.parse_text_holes(text)
        return cls.from_colours(size, black, white, BLACK if black_to_move else WHITE, holes)

    def text(self) -> str:
        """The common text form, e.g. ``'---...XO... X'`` (a hole: ``#``)."""
        return notation.format_text(self.size, self.black, self.white, self.turn == BLACK, self.holes)

    def __repr__(self) -> str:
        return f"Position.from_text({self.text()!r})"

    def __str__(self) -> str:
        return self.render()

    def render(self, marks: int = 0) -> str:
        """A plain-text board with coordinates; squares in the ``marks`` mask show ``*``."""
        n = self.size
        black, white = self.black, self.white
        lines = ["    " + " ".join(chr(ord("a") + x) for x in range(n))]
        for y in range(n):
            row = []
            for x in range(n):
                b = 1 << (y * n + x)
                row.append("X" if black & b else "O" if white & b else "#" if self.holes & b
                           else "*" if marks & b else ".")
            lines.append(f"{y + 1:>3} " + " ".join(row))
        b, w = self.discs()
        lines.append(f"X(black) {b}  O(white) {w}  " + (
            "game over" if self.is_game_over() else f"{COLOUR_NAMES[self.turn]} to move"))
        return "\n".join(lines)

    # -- colours -------------------------------------------------------------
    @property
    def black(self) -> int:
        return self.player if self.turn == BLACK else self.opponent

    @property
    def white(self) -> int:
        return self.opponent if self.turn == BLACK else self.player

    def colour_at(self, sq: Move) -> Optional[int]:
        """``BLACK``, ``WHITE`` or ``None`` for an empty square or a hole."""
        b = 1 << self._square(sq)
        if self.black & b:
            return BLACK
        if self.white & b:
            return WHITE
        return None

    def discs(self) -> tuple[int, int]:
        """``(black, white)`` disc counts."""
        return self.black.bit_count(), self.white.bit_count()

    def empties(self) -> int:
        """Squares that can still take a disc (holes are not counted)."""
        return self.size * self.size - (self.player | self.opponent | self.holes).bit_count()

    def is_hole(self, sq: Move) -> bool:
        """Whether ``sq`` is a hole of a shaped board."""
        s = self._square(sq)
        return s != PASS and bool(self.holes >> s & 1)

    # -- rules -----------------------------------------------------------------
    def legal_moves_mask(self) -> int:
        return core.moves(self.size, self.player, self.opponent, holes=self.holes)

    def legal_moves(self) -> list[int]:
        """Legal squares in index order (a1, b1, ... row by row)."""
        m = self.legal_moves_mask()
        out = []
        while m:
            b = m & -m
            out.append(b.bit_length() - 1)
            m ^= b
        return out

    def is_legal(self, move: Move) -> bool:
        try:
            sq = self._square(move)
        except (IllegalMove, ValueError):
            return False
        if sq == PASS:
            return self.must_pass()
        return bool(self.legal_moves_mask() >> sq & 1)

    def flips(self, move: Move) -> int:
        """Mask of the discs ``move`` would turn over (0 when it is not legal)."""
        sq = self._square(move)
        if sq == PASS:
            return 0
        return core.flips(self.size, self.player, self.opponent, sq)

    def must_pass(self) -> bool:
        """The side to move has no move but the game is not over."""
        return not self.legal_moves_mask() and bool(self._opponent_moves())

    def is_game_over(self) -> bool:
        return not self.legal_moves_mask() and not self._opponent_moves()

    def _opponent_moves(self) -> int:
        return core.moves(self.size, self.opponent, self.player, holes=self.holes)

    def play(self, move: Move) -> "Position":
        """The position after ``move`` (a square index, a name like ``'d3'``, or ``PASS``/``'pass'``).

        Raises ``IllegalMove`` with the reason when the move is not allowed.
        """
        sq = self._square(move)
        if sq == PASS:
            if not self.must_pass():
                over = self.is_game_over()
                raise IllegalMove("cannot pass: " + ("the game is over" if over else "there is a legal move"),
                                  "game_over" if over else "must_move")
            return Position(self.size, self.opponent, self.player, 1 - self.turn, self.holes)
        b = 1 << sq
        if self.holes & b:
            raise IllegalMove(f"{notation.square_name(sq, self.size)} is a hole", "hole", sq)
        if (self.player | self.opponent) & b:
            raise IllegalMove(f"{notation.square_name(sq, self.size)} is already taken", "taken", sq)
        f = core.flips(self.size, self.player, self.opponent, sq)
        if not f:
            raise IllegalMove(f"{notation.square_name(sq, self.size)} flips nothing", "flips_nothing", sq)
        return Position(self.size, self.opponent ^ f, self.player | f | b, 1 - self.turn, self.holes)

    def winner(self) -> Optional[int]:
        """``BLACK``, ``WHITE`` or ``None`` (a draw); only meaningful once the game is over."""
        b, w = self.discs()
        return BLACK if b > w else WHITE if w > b else None

    def final_score(self) -> int:
        """Disc difference for the side to move with empties given to the winner."""
        p, o = self.player.bit_count(), self.opponent.bit_count()
        e = self.empties()
        return p - o + (e if p > o else -e if o > p else 0)

    def hash64(self) -> int:
        """A 64-bit hash of the discs and the side to move, the same on both cores."""
        return (core.hash64(self.size, self.player, self.opponent) ^ (0x5BD1E995 if self.turn else 0)
                ^ (core.hash64(self.size, self.holes, 0) if self.holes else 0))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Position) and self.size == other.size and self.turn == other.turn
                and self.player == other.player and self.opponent == other.opponent and self.holes == other.holes)

    def __hash__(self) -> int:
        return self.hash64()

    def _square(self, move: Move) -> int:
        if isinstance(move, str):
            try:
                return notation.parse_square(move, self.size)
            except ValueError as e:
                off = notation.SQUARE.fullmatch(move.strip().lower()) is not None
                raise IllegalMove(str(e), "off_board" if off else "not_a_square") from None
        sq = int(move)
        if sq != PASS and not 0 <= sq < self.size * self.size:
            raise IllegalMove(f"square {sq} is not on the {self.size}x{self.size} board", "off_board")
        return sq
