"""Square names (``a1`` .. ``z26``), transcripts (``f5d6c3``) and text positions.

Columns are letters from ``a``, rows are numbers from ``1``; square index
``y * size + x``.  Everything is case-insensitive on input and lower-case on
output.
"""
import re

PASS = -1

# The eight directions as (dx, dy), "up" towards row 1: up, up-right, right, down-right,
# down, down-left, left, up-left (the order of the tutorial's beginner API).
DIRECTIONS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))
PASS_WORDS = ("pass", "pa", "ps", "--", "@@")

SQUARE = re.compile(r"([a-z])([0-9]{1,2})")


def square_name(sq: int, size: int = 8) -> str:
    """``square_name(37) == 'f5'``; a pass is ``'pass'``."""
    if sq == PASS:
        return "pass"
    if not 0 <= sq < size * size:
        raise ValueError(f"square {sq} is not on the {size}x{size} board")
    return chr(ord("a") + sq % size) + str(sq // size + 1)


def parse_square(text: object, size: int = 8) -> int:
    """``parse_square('F5') == 37``; ``'pass'`` (or ``PA``, ``--``) gives ``PASS``.

    Raises ValueError with a readable reason for anything else.
    """
    t = str(text).strip().lower()
    if t in PASS_WORDS:
        return PASS
    m = SQUARE.fullmatch(t)
    if not m:
        raise ValueError(f"not a square: {text!r} (expected a column letter and a row number, like d3)")
    x = ord(m.group(1)) - ord("a")
    y = int(m.group(2)) - 1
    if x >= size or not 0 <= y < size:
        last = square_name(size * size - 1, size)
        raise ValueError(f"{text!r} is off the {size}x{size} board (a1..{last})")
    return y * size + x


def split_transcript(text: object) -> list[str]:
    """``'f5d6C3 pass'`` -> ``['f5', 'd6', 'c3', 'pass']`` (no board needed)."""
    t = re.sub(r"[\s,;.]+", "", str(text).lower())
    tokens = re.findall(r"pass|pa|ps|--|@@|[a-z][0-9]{1,2}", t)
    if "".join(tokens) != t:
        raise ValueError(f"not a transcript: {text!r} (expected moves like f5d6c3)")
    return tokens


BLACK_CHARS = "Xx*Bb"
WHITE_CHARS = "OoWw"
EMPTY_CHARS = "-._"
HOLE_CHAR = "#"


def parse_text(text: object) -> tuple[int, int, int, bool]:
    """``'XO-...X'`` (size*size cells, then the side to move) -> (size, black, white, black_to_move).

    Cells: ``X``/``*``/``B`` black, ``O``/``W`` white, ``-``/``.`` empty; white
    space anywhere is ignored.  The side to move defaults to black.  A hole (``#``) is refused:
    ``parse_text_holes`` reads the form of a shaped board.
    """
    size, black, white, black_to_move, holes = parse_text_holes(text)
    if holes:
        raise ValueError(f"bad cell '#' at {square_name((holes & -holes).bit_length() - 1, size)}: use X, O or -")
    return size, black, white, black_to_move


def parse_text_holes(text: object) -> tuple[int, int, int, bool, int]:
    """As ``parse_text``, with ``#`` for a hole of a shaped board: (size, black, white,
    black_to_move, holes)."""
    s = re.sub(r"\s+", "", str(text))
    for n in range(4, 27, 2):
        if len(s) in (n * n, n * n + 1):
            break
    else:
        raise ValueError(f"a position needs size*size cells (16, 36, 64, ... 676) and a side to move; got {len(s)} characters")
    cells, side = s[: n * n], s[n * n:] or "X"
    black = white = holes = 0
    for i, c in enumerate(cells):
        if c in BLACK_CHARS:
            black |= 1 << i
        elif c in WHITE_CHARS:
            white |= 1 << i
        elif c == HOLE_CHAR:
            holes |= 1 << i
        elif c not in EMPTY_CHARS:
            raise ValueError(f"bad cell {c!r} at {square_name(i, n)}: use X, O, - or # (a hole)")
    if side in BLACK_CHARS:
        to_move_black = True
    elif side in WHITE_CHARS:
        to_move_black = False
    else:
        raise ValueError(f"bad side to move {side!r}: use X (black) or O (white)")
    return n, black, white, to_move_black, holes


def format_text(size: int, black: int, white: int, black_to_move: bool, holes: int = 0) -> str:
    """The text form of a position (see ``parse_text_holes``)."""
    cells = "".join("X" if black >> i & 1 else "O" if white >> i & 1 else "#" if holes >> i & 1 else "-"
                    for i in range(size * size))
    return f"{cells} {'X' if black_to_move else 'O'}"
