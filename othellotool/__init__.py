"""The beginner API of the original tutorial, on top of the rules engine.

Boards are lists of rows, ``board[y][x]``: ``-1`` empty, ``0`` black, ``1``
white, ``2`` a hole (a square that is not part of the board: never played,
never a disc, it stops a line of flips).  Rows are numbered from 1 and columns
lettered from ``a``, so ``"d3"`` is ``board[2][3]``.  Any even size from 4 to
26 works; the functions read the size from the board.  ``SetBoard(shape="heart")``
starts one of the variant boards (``engine.shape``), or one's own from a
picture file.

    import othellotool as ot
    board = ot.SetBoard()
    lp = ot.ListLegalPlaces(0, board)      # black's legal squares, [[y, x], ...]
    y, x = ot.MsgToPos("d3")
    if ot.IsLegalPlace(lp, y, x) >= 0:
        dl = ot.GetDirLength(board, y, x, 0)
        board = ot.RevDirLength(board, y, x, 0, dl)
        board[y][x] = 0                    # the caller places the new disc
    ot.BoardDisplay(board, ot.ListLegalPlaces(1, board))
    print(ot.CountingStone(board))         # (4, 1)
    print(ot.move_for_board("table", board, 1))   # a computer player's [y, x] (None: pass)
"""
from engine import BLACK as _ENGINE_BLACK, DIRECTIONS, PASS, WHITE as _ENGINE_WHITE
from typing import Optional, Sequence, Union

from engine import Position, Shape, check_size, strategies

EMPTY, BLACK, WHITE, HOLE = -1, 0, 1, 2

Board = list[list[int]]
"""``board[y][x]``: -1 empty, 0 black, 1 white, 2 a hole."""

__all__ = ["SetBoard", "MsgToPos", "GetSeries", "GetDirLength", "RevDirLength",
           "ListLegalPlaces", "IsLegalPlace", "BoardDisplay", "CountingStone", "move_for_board"]


def _masks(board: Sequence[Sequence[int]]) -> tuple[int, int, int, int]:
    """(size, black mask, white mask, holes mask) of a board, checking its shape and cells."""
    n = len(board)
    try:
        check_size(n)
    except ValueError:
        raise ValueError(f"board must have an even number of rows, 4..26 (it has {n})") from None
    black = white = holes = 0
    for y, row in enumerate(board):
        if len(row) != n:
            raise ValueError(f"board row {y} has {len(row)} cells; every row needs {n}")
        for x, c in enumerate(row):
            if c == BLACK:
                black |= 1 << (y * n + x)
            elif c == WHITE:
                white |= 1 << (y * n + x)
            elif c == HOLE:
                holes |= 1 << (y * n + x)
            elif c != EMPTY:
                raise ValueError(f"board[{y}][{x}] is {c!r}; cells are -1 (empty), 0 (black), 1 (white) "
                                 f"or 2 (a hole)")
    return n, black, white, holes


def _position(n: int, black: int, white: int, c: int, holes: int = 0) -> Position:
    """The engine's position of the board with colour ``c`` to move."""
    return Position.from_colours(n, black, white, _ENGINE_BLACK if c == BLACK else _ENGINE_WHITE, holes)


def _colour(c: object) -> int:
    if c not in (BLACK, WHITE):
        raise ValueError(f"colour must be 0 (black) or 1 (white), not {c!r}")
    return c


def SetBoard(size: Optional[int] = None, shape: Union[str, Shape, None] = None) -> Board:
    """The start board: on 8x8 white on d4 and e5, black on e4 and d5.

    ``size``: an even number 4..26 (default 8).  ``shape``: a variant board instead, by name
    (``"heart"``, any case) or a picture file's path, or an ``engine.Shape``; its holes are ``2``
    and its start is its own (``size``, if given, must be its size).

    >>> [row.count(HOLE) for row in SetBoard(shape="heart")]
    [8, 4, 0, 0, 0, 2, 4, 6]
    """
    if shape is None:
        n = 8 if size is None else size
        p = Position.start(n)
    else:
        board = shape if isinstance(shape, Shape) else Shape.find(shape)
        if size is not None and size != board.size:
            raise ValueError(f"size {size} and the shape {board} ({board.size}x{board.size}) disagree")
        n, p = board.size, board.start()
    cells = {}
    for mask, cell in ((p.black, BLACK), (p.white, WHITE), (p.holes, HOLE)):
        for sq in range(n * n):
            if mask >> sq & 1:
                cells[sq] = cell
    return [[cells.get(y * n + x, EMPTY) for x in range(n)] for y in range(n)]


def MsgToPos(msg: object, size: int = 8) -> tuple[int, int]:
    """``"d3"`` -> ``(2, 3)`` as ``(y, x)``; a part that is not a valid row or column is -1.

    Case and surrounding spaces do not matter: ``MsgToPos(" D3 ") == (2, 3)``,
    ``MsgToPos("z3") == (2, -1)``, ``MsgToPos("??") == (-1, -1)``.
    """
    s = str(msg).strip().lower()
    x = y = -1
    if s and "a" <= s[0] <= "z" and ord(s[0]) - ord("a") < size:
        x = ord(s[0]) - ord("a")
    digits = s[1:]
    if digits.isdigit() and digits.isascii() and 1 <= int(digits) <= size:
        y = int(digits) - 1
    return y, x


def GetSeries(board: Sequence[Sequence[int]], y: int, x: int, dy: int, dx: int, c: int) -> int:
    """How many squares of colour ``c`` run from ``(y, x)`` (itself included) in direction ``(dy, dx)``."""
    n = len(board)
    count = 0
    while 0 <= y < n and 0 <= x < n and board[y][x] == c:
        count += 1
        y += dy
        x += dx
    return count


def GetDirLength(board: Sequence[Sequence[int]], y: int, x: int, c: int) -> list[int]:
    """Discs that placing ``c`` at ``(y, x)`` would flip, per direction.

    A list of 8 counts in the order up, up-right, right, down-right, down,
    down-left, left, up-left; all 0 when the square is taken or off the board.
    """
    n, black, white, holes = _masks(board)
    _colour(c)
    if not (0 <= y < n and 0 <= x < n):
        return [0] * 8
    flipped = _position(n, black, white, c, holes).flips(y * n + x)
    counts = []
    for dx, dy in DIRECTIONS:
        k, yy, xx = 0, y + dy, x + dx
        while 0 <= yy < n and 0 <= xx < n and flipped >> (yy * n + xx) & 1:
            k += 1
            yy += dy
            xx += dx
        counts.append(k)
    return counts


def RevDirLength(board: Board, py: int, px: int, bw: int, dl: Sequence[int]) -> Board:
    """Turn the discs counted in ``dl`` (from ``GetDirLength``) to colour ``bw``; returns the board.

    The disc at ``(py, px)`` itself is not placed: the caller does that.
    """
    _colour(bw)
    if len(dl) != 8:
        raise ValueError("dl must hold 8 counts (from GetDirLength)")
    for (dx, dy), k in zip(DIRECTIONS, dl):
        for i in range(1, k + 1):
            board[py + dy * i][px + dx * i] = bw
    return board


def ListLegalPlaces(bw: int, board: Sequence[Sequence[int]]) -> list[list[int]]:
    """Legal squares for colour ``bw`` as ``[[y, x], ...]`` in row-major order."""
    n, black, white, holes = _masks(board)
    _colour(bw)
    m = _position(n, black, white, bw, holes).legal_moves_mask()
    return [[sq // n, sq % n] for sq in range(n * n) if m >> sq & 1]


def IsLegalPlace(lp: Sequence[Sequence[int]], y: int, x: int) -> int:
    """Index of ``[y, x]`` in the list from ``ListLegalPlaces``, or -1."""
    for i, (ly, lx) in enumerate(lp):
        if ly == y and lx == x:
            return i
    return -1


def BoardDisplay(board: Sequence[Sequence[int]], lp: Sequence[Sequence[int]]) -> None:
    """Print the board with column letters and row numbers; squares in ``lp`` show ``*``.

    ``X`` is black, ``O`` white, ``.`` empty, ``#`` a hole.
    """
    n, black, white, holes = _masks(board)
    marks = 0
    for y, x in lp:
        marks |= 1 << (y * n + x)
    turn_black = Position(n, black, white, holes=holes)
    print("\n".join(turn_black.render(marks).splitlines()[:-1]))


def CountingStone(board: Sequence[Sequence[int]]) -> tuple[int, int]:
    """``(black, white)`` disc counts."""
    _, black, white, _ = _masks(board)
    return black.bit_count(), white.bit_count()


def move_for_board(strategy: Union[str, strategies.Strategy], board: Sequence[Sequence[int]], bw: int,
                   time_limit: Optional[float] = 1.0) -> Optional[list[int]]:
    """The ``[y, x]`` a computer player (a name from ``engine.strategies``, or a strategy) plays for
    colour ``bw`` on ``board``, or None when it must pass.

    >>> move_for_board("greedy", SetBoard(), BLACK, 0.05)
    [2, 3]
    """
    player = strategies.get(strategy) if isinstance(strategy, str) else strategy
    n, black, white, holes = _masks(board)
    _colour(bw)
    m = player.next_move(_position(n, black, white, bw, holes), time_limit)
    return None if m == PASS else [m // n, m % n]
