"""A small opening book with named openings, and symmetry helpers.

Lines are written from black's first move f5; a game that began d3, c4 or e6
is matched through the board's symmetries that keep the start position.
"""
from functools import lru_cache

from .game import Game
from .position import Position

# name, moves (from f5). Names follow the common English / Japanese usage.
OPENINGS = [
    ("Perpendicular", "f5d6"),
    ("Diagonal", "f5f6"),
    ("Parallel", "f5f4"),
    ("Tiger (Tora)", "f5d6c3d3c4"),
    ("Buffalo (Tanaka)", "f5d6c3d3c4f4c5b3c2"),
    ("Cow (Ushi)", "f5d6c5f4e3"),
]


def symmetries(size=8):
    """The 4 maps of squares that keep the start position (identity, half turn, both diagonals)."""
    n = size
    maps = [lambda x, y: (x, y), lambda x, y: (n - 1 - x, n - 1 - y),
            lambda x, y: (y, x), lambda x, y: (n - 1 - y, n - 1 - x)]
    return [tuple(fy * n + fx for fx, fy in (m(sq % n, sq // n) for sq in range(n * n))) for m in maps]


@lru_cache(maxsize=None)
def _table():
    table = {}
    for sym in symmetries(8):
        for name, line in OPENINGS:
            g = Game.from_transcript(line)
            pos = Position.start()
            for i, m in enumerate(g.moves):
                mm = sym[m]
                key = (pos.player, pos.opponent)
                entry = table.setdefault(key, {})
                entry.setdefault(mm, name if i == len(g.moves) - 1 else None)
                if i == len(g.moves) - 1:
                    entry[mm] = name
                pos = pos.play(mm)
    return table


def book_moves(position):
    """Book moves from ``position`` (8x8): ``{square: opening name or None}``."""
    if position.size != 8:
        return {}
    return dict(_table().get((position.player, position.opponent), {}))


def opening_name(game):
    """The name of the longest book opening that ``game`` (a ``Game`` on 8x8) followed, or None."""
    if game.size != 8:
        return None
    best = None
    for sym in symmetries(8):
        for name, line in OPENINGS:
            moves = [sym[m] for m in Game.from_transcript(line).moves]
            if game.moves[:len(moves)] == moves and (best is None or len(moves) > best[0]):
                best = (len(moves), name)
    return best[1] if best else None


__all__ = ["OPENINGS", "book_moves", "opening_name", "symmetries"]
