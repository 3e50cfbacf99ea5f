"""Board shapes: a size, the squares that are holes, and the discs a game starts from.

A hole is never playable, holds no disc and stops a line of flips.  The plain board of a
size is ``Shape.square(size)``; the 22 boards of the best-known Python Othello library are
built in by the names it gives them (``Shape.named("heart")``); one's own comes from a
picture, in a file or a string::

    ..####..        '#' a hole, 'X' black, 'O' white, '.' an empty square,
    ...##...        a1 at the top left, one row per line (a '/' also ends a
    ##....##        row: the one-line form); blank lines and lines that start
                    with '# ' (a comment) are skipped.
    ###OX###
    ...

>>> s = Shape.named("x")
>>> s.name, s.size, bin(s.holes).count("1")
('x', 8, 24)
>>> Shape.parse(s.code()) == s.renamed("")
True
>>> Shape.parse("....\\n.OX.\\n.XO.\\n...")
Traceback (most recent call last):
...
engine.shape.ShapeError: the picture is not a rectangle: row 4 has 3 squares, row 1 has 4
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from . import notation
from .position import MAX_SIZE, MIN_SIZE, Position, check_size

if TYPE_CHECKING:
    from .position import Move

HOLE, BLACK_DISC, WHITE_DISC, EMPTY = "#", "X", "O", "."
ROW_SEPARATOR = "/"     # between the rows of the one-line form (``code``)
MAX_FILE = 64 * 1024    # a shape file bigger than this is not a picture of at most 26x26 squares


class ShapeError(ValueError):
    """A picture, name or file that is not a board shape; the message says why (in English)."""


@dataclass(frozen=True)
class Shape:
    """An even ``size`` x ``size`` board (4..26) with ``holes`` (a mask, square ``y * size + x``)
    and the discs a game starts from (``black``, ``white``: masks); black moves first.

    ``name`` is the built-in name (``"Heart"``), a file's name for one's own, or ``""``;
    ``same_board`` compares what is played, names aside.
    """

    size: int
    holes: int
    black: int
    white: int
    name: str = ""

    def __post_init__(self) -> None:
        try:
            check_size(self.size)
        except ValueError as e:
            raise ShapeError(str(e)) from None
        full = (1 << (self.size * self.size)) - 1
        for what, mask in (("a hole", self.holes), ("a black disc", self.black), ("a white disc", self.white)):
            if not isinstance(mask, int) or mask < 0 or mask & ~full:
                raise ShapeError(f"{what} is off the {self.size}x{self.size} board")
        both = (self.holes & (self.black | self.white)) | (self.black & self.white)
        if both:
            sq = (both & -both).bit_length() - 1
            raise ShapeError(f"{notation.square_name(sq, self.size)} cannot be both a hole and a disc, "
                             f"or both colours")
        if not self.black or not self.white:
            raise ShapeError(f"the start has no {'black' if not self.black else 'white'} disc")
        if self.start().is_game_over():
            raise ShapeError("neither side can move from the start")

    # -- making one ---------------------------------------------------------------------
    @classmethod
    def square(cls, size: int = 8) -> Shape:
        """The plain board of ``size``: no holes, the four discs in the middle."""
        p = Position.start(size)
        return cls(size, 0, p.black, p.white)

    @classmethod
    def named(cls, name: str) -> Shape:
        """A built-in shape by its name: the exact spelling first, else any case when only one
        name matches (``"X"`` and ``"x"`` are two boards; ``"heart"`` is ``"Heart"``)."""
        shapes = builtin()
        if name in shapes:
            return shapes[name]
        matches = [n for n in shapes if n.lower() == str(name).lower()]
        if len(matches) == 1:
            return shapes[matches[0]]
        shown = notation_visible(name)
        raise ShapeError(f"no shape is named {shown}: the names are {', '.join(shapes)}")

    @classmethod
    def parse(cls, picture: str, name: str = "") -> Shape:
        """A shape from its picture (see the module's docstring) or its one-line form (``code``)."""
        if not isinstance(picture, str):
            raise ShapeError("a shape's picture is text")
        lines = picture.replace(ROW_SEPARATOR, "\n").splitlines()
        rows = [r.strip() for r in lines if r.strip() and not r.startswith("# ")]
        if not rows:
            raise ShapeError("the picture has no rows")
        if len(rows) > MAX_SIZE or any(len(r) > MAX_SIZE for r in rows):
            raise ShapeError(f"the picture is bigger than {MAX_SIZE}x{MAX_SIZE} squares")
        width = len(rows[0])
        for y, r in enumerate(rows):
            if len(r) != width:
                raise ShapeError(f"the picture is not a rectangle: row {y + 1} has {len(r)} squares, "
                                 f"row 1 has {width}")
        if len(rows) != width:
            raise ShapeError(f"the picture is {width} squares wide and {len(rows)} high: a board is square")
        if width % 2 or not MIN_SIZE <= width <= MAX_SIZE:
            raise ShapeError(f"the picture is {width}x{width}: a board is even, from {MIN_SIZE} to {MAX_SIZE}")
        masks = {HOLE: 0, BLACK_DISC: 0, WHITE_DISC: 0, EMPTY: 0}
        for y, r in enumerate(rows):
            for x, c in enumerate(r):
                if c not in masks:
                    raise ShapeError(f"{notation.square_name(y * width + x, width)} is {notation_visible(c)}: "
                                     f"use '#' (a hole), 'X' (black), 'O' (white) or '.' (empty)")
                masks[c] |= 1 << (y * width + x)
        return cls(width, masks[HOLE], masks[BLACK_DISC], masks[WHITE_DISC], name)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Shape:
        """One's own shape from a picture file (UTF-8, at most 64 KB); its name is the file's
        name without ``.txt``.  ``ShapeError`` names the file and what is wrong."""
        p = Path(path)
        try:
            if not p.is_file():
                raise ShapeError(f"{p}: {'no such file' if not p.exists() else 'not a file'}")
            with p.open("rb") as f:
                data = f.read(MAX_FILE + 1)
        except OSError as e:
            raise ShapeError(f"{p}: {e.strerror or e}") from None
        if len(data) > MAX_FILE:
            raise ShapeError(f"{p}: too big for a shape picture (over {MAX_FILE // 1024} KB)")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ShapeError(f"{p}: not UTF-8 text") from None
        try:
            return cls.parse(text, p.stem if p.suffix.lower() == ".txt" else p.name)
        except ShapeError as e:
            raise ShapeError(f"{p}: {e}") from None

    @classmethod
    def find(cls, spec: str) -> Shape:
        """``--shape``'s value: a built-in name, else a picture file's path."""
        if not isinstance(spec, str):
            raise ShapeError(f"a shape is a built-in name (e.g. Heart) or a picture file's path, not {type(spec).__name__} {str(spec)[:20]}")
        if not spec.strip():
            raise ShapeError("the shape's name is empty: a built-in name (e.g. Heart) or a picture file")
        try:
            return cls.named(spec)
        except ShapeError as named_error:
            if not any(c in spec for c in "/\\.") and not Path(spec).exists():
                raise named_error from None
        return cls.load(spec)

    # -- using one ------------------------------------------------------------------------
    def start(self) -> Position:
        """The position a game on this board starts from (black to move)."""
        return Position.from_colours(self.size, self.black, self.white, holes=self.holes)

    def is_plain(self) -> bool:
        """Whether this is the plain board of its size (no holes, the usual four discs)."""
        return self.same_board(Shape.square(self.size))

    def same_board(self, other: Shape) -> bool:
        """Whether both play the same game (names aside)."""
        return (self.size, self.holes, self.black, self.white) == (other.size, other.holes, other.black, other.white)

    def renamed(self, name: str) -> Shape:
        return replace(self, name=name)

    def rows(self) -> list[str]:
        """The picture, one string per row."""
        n = self.size
        out = []
        for y in range(n):
            row = []
            for x in range(n):
                b = 1 << (y * n + x)
                row.append(HOLE if self.holes & b else BLACK_DISC if self.black & b
                           else WHITE_DISC if self.white & b else EMPTY)
            out.append("".join(row))
        return out

    def picture(self) -> str:
        """The picture, a row per line (what ``parse`` and ``load`` read)."""
        return "\n".join(self.rows()) + "\n"

    def code(self) -> str:
        """The one-line form, rows joined by ``/`` (``..####../...##.../...``): what a greeting
        and a record carry; ``parse`` reads it back."""
        return ROW_SEPARATOR.join(self.rows())

    def is_hole(self, move: Move) -> bool:
        sq = notation.parse_square(move, self.size) if isinstance(move, str) else int(move)
        return bool(self.holes >> sq & 1) if sq >= 0 else False

    def squares(self) -> int:
        """How many squares can hold a disc."""
        return self.size * self.size - self.holes.bit_count()

    def describe(self) -> str:
        """``"8x8"`` for a plain board, else ``"Heart (8x8, 24 holes)"``: what a table heads."""
        n = self.size
        if self.is_plain():
            return f"{n}x{n}"
        return f"{self.name or 'a shape'} ({n}x{n}, {self.holes.bit_count()} holes)"

    def __str__(self) -> str:
        if self.name:
            return self.name
        return f"{self.size}x{self.size}" if self.is_plain() else self.code()


def notation_visible(text: object) -> str:
    """``text`` quoted and cut for an error message (control characters escaped)."""
    s = repr(str(text))
    return s if len(s) <= 40 else s[:37] + "...'"


@lru_cache(maxsize=1)
def builtin() -> dict[str, Shape]:
    """The built-in shapes by name, in the order of ``engine/shapes.txt``."""
    text = Path(__file__).with_name("shapes.txt").read_text(encoding="utf-8")
    shapes: dict[str, Shape] = {}
    blocks = [b for b in "\n".join(line for line in text.splitlines() if not line.startswith("# ")).split("\n\n")
              if b.strip()]
    for block in blocks:
        name, _, picture = block.strip().partition("\n")
        shapes[name.strip()] = Shape.parse(picture, name.strip())
    return shapes


def names() -> list[str]:
    """The built-in shapes' names."""
    return list(builtin())
