"""The common one-shot format for external move programs.

Request (stdin): the side to move (``1`` black, ``-1`` white), the board size,
then ``size`` rows of ``size`` cells (``0`` empty, ``1`` black, ``-1`` white, ``#`` a
hole of a shaped board: never played, and a line of flips stops there),
whitespace-separated.  Answer (stdout): ``x y``, 0-based column and row.
"""
from .position import BLACK, WHITE, Position, parse_size


def format_request(position: Position) -> str:
    """The request for ``position``, as an external program reads it on stdin."""
    n = position.size
    rows = []
    for y in range(n):
        row = []
        for x in range(n):
            c = position.colour_at(y * n + x)
            row.append("1" if c == BLACK else "-1" if c == WHITE else "#" if position.is_hole(y * n + x) else "0")
        rows.append(" ".join(row))
    side = "1" if position.turn == BLACK else "-1"
    return f"{side}\n{n}\n" + "\n".join(rows) + "\n"


def parse_request(text: str) -> Position:
    """A ``Position`` from a request; ValueError saying what is wrong."""
    words = text.split()
    if len(words) < 2:
        raise ValueError("expected the side to move, the board size, then the rows")
    side, size = words[0], words[1]
    if side not in ("1", "-1"):
        raise ValueError(f"side to move must be 1 (black) or -1 (white), not {side!r}")
    n = parse_size(size)
    cells = words[2:]
    if len(cells) != n * n:
        raise ValueError(f"expected {n * n} cells, got {len(cells)}")
    black = white = holes = 0
    for i, c in enumerate(cells):
        if c == "1":
            black |= 1 << i
        elif c == "-1":
            white |= 1 << i
        elif c == "#":
            holes |= 1 << i
        elif c != "0":
            raise ValueError(f"cell {i} is {c[:10]!r}: use 0, 1, -1 or # (a hole)")
    return Position.from_colours(n, black, white, BLACK if side == "1" else WHITE, holes)


def parse_answer(text: str, size: int) -> int:
    """``'x y'`` -> square index; ValueError for anything else."""
    words = text.split()
    if len(words) != 2 or not all(w.lstrip("-").isdigit() for w in words):
        raise ValueError(f"expected 'x y', got {text.strip()[:60]!r}")
    x, y = int(words[0]), int(words[1])
    if not (0 <= x < size and 0 <= y < size):
        raise ValueError(f"({x}, {y}) is off the {size}x{size} board")
    return y * size + x
