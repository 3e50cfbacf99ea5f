"""Pure-Python rules core: bitboards as Python ints, every even size 4..26.

Square ``i = y * size + x`` (x: column a.., y: row 1..).  ``P`` holds the
discs of the side to move, ``O`` the opponent's, ``holes`` the squares of a shaped
board that are not played (a line of flips stops there: it is neither colour).  This module is the fallback
when the compiled core (``engine._core``) is not built, and the reference the
compiled core is checked against.
"""
from functools import lru_cache

from .notation import DIRECTIONS

NAME = "pure-python"


class _Geometry:
    __slots__ = ("size", "full", "shifts", "rays", "runs")

    def __init__(self, size: int) -> None:
        n = size
        self.size = n
        self.full = (1 << (n * n)) - 1
        col0 = sum(1 << (y * n) for y in range(n))
        colL = col0 << (n - 1)
        self.shifts = []
        for dx, dy in DIRECTIONS:
            keep = self.full
            if dx == 1:
                keep &= ~col0
            elif dx == -1:
                keep &= ~colL
            self.shifts.append((dy * n + dx, keep))
        self.runs = n - 3
        self.rays = []
        for sq in range(n * n):
            x0, y0 = sq % n, sq // n
            rays = []
            for dx, dy in DIRECTIONS:
                mask, x, y = 0, x0 + dx, y0 + dy
                while 0 <= x < n and 0 <= y < n:
                    mask |= 1 << (y * n + x)
                    x += dx
                    y += dy
                if mask & (mask - 1):  # at least two squares: something to flank
                    near = 1 << ((y0 + dy) * n + x0 + dx)
                    rays.append((mask, dy * n + dx > 0, near))
            self.rays.append(tuple(rays))


@lru_cache(maxsize=None)
def geometry(size: int) -> _Geometry:
    return _Geometry(size)


def moves(size: int, P: int, O: int, holes: int = 0) -> int:
    """Mask of the legal moves for the side to move."""
    g = geometry(size)
    found = 0
    runs = g.runs
    for shift, keep in g.shifts:
        ok = O & keep
        if shift > 0:
            t = (P << shift) & ok
            for _ in range(runs):
                t |= (t << shift) & ok
            found |= (t << shift) & keep
        else:
            s = -shift
            t = (P >> s) & ok
            for _ in range(runs):
                t |= (t >> s) & ok
            found |= (t >> s) & keep
    return found & ~(P | O | holes) & g.full


def flips(size: int, P: int, O: int, sq: int) -> int:
    """Mask of the discs that playing on ``sq`` turns over (0: not a legal move)."""
    if (P | O) >> sq & 1:
        return 0
    flipped = 0
    for mask, increasing, near in geometry(size).rays[sq]:
        if not O & near:
            continue
        t = mask & ~O
        if not t:
            continue
        if increasing:
            first = t & -t
            if first & P:
                flipped |= mask & (first - 1)
        else:
            first = 1 << (t.bit_length() - 1)
            if first & P:
                flipped |= mask & -(first << 1)
    return flipped


def perft(size: int, P: int, O: int, depth: int, bulk: bool = False, holes: int = 0) -> int:
    """Leaf positions ``depth`` plies from here; a pass is a ply and a
    finished game is one leaf at every deeper depth."""
    g = geometry(size)
    return _perft(g, P, O, depth, False, bulk, holes)


def _perft(g: _Geometry, P: int, O: int, depth: int, passed: bool, bulk: bool, holes: int) -> int:
    if depth == 0:
        return 1
    m = moves(g.size, P, O, holes)
    if not m:
        if passed:
            return 1
        return _perft(g, O, P, depth - 1, True, bulk, holes)
    if bulk and depth == 1:
        return m.bit_count()
    size = g.size
    nodes = 0
    while m:
        b = m & -m
        m ^= b
        f = flips(size, P, O, b.bit_length() - 1)
        nodes += _perft(g, O ^ f, P | f | b, depth - 1, False, bulk, holes)
    return nodes


_M64 = (1 << 64) - 1


def _mix(z: int) -> int:
    z = (z + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def hash64(size: int, P: int, O: int) -> int:
    """A 64-bit hash of (size, P, O), equal on both cores."""
    h = _mix(size)
    while P or O:
        h = _mix(h ^ (P & _M64))
        h = _mix(h ^ (O & _M64) ^ 0x5555555555555555)
        P >>= 64
        O >>= 64
    return h
