"""Computer players: ``get(name).next_move(position, time_limit)`` returns a square (or ``PASS``).

>>> from engine import Position, strategies
>>> ai = strategies.get("greedy")
>>> ai.next_move(Position.start())
19

Write your own by subclassing ``Strategy`` and implementing ``next_move``.
"""
import random
import time
from functools import lru_cache

from .backend import core
from .notation import PASS


def _bits(mask):
    while mask:
        b = mask & -mask
        yield b.bit_length() - 1
        mask ^= b


class Strategy:
    """A way of choosing moves.  ``next_move`` must return a legal square, or ``PASS`` when forced."""

    name = "strategy"

    def next_move(self, position, time_limit=None):
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}>"


class RandomPlayer(Strategy):
    """Any legal move, at random."""

    name = "random"

    def __init__(self, seed=None):
        self.rng = random.Random(seed)

    def next_move(self, position, time_limit=None):
        moves = position.legal_moves()
        return self.rng.choice(moves) if moves else PASS


class Greedy(Strategy):
    """The move that flips the most discs (the first such square on ties)."""

    name = "greedy"
    sign = 1

    def next_move(self, position, time_limit=None):
        moves = position.legal_moves()
        if not moves:
            return PASS
        return max(moves, key=lambda m: self.sign * position.flips(m).bit_count())


class Unselfish(Greedy):
    """The move that flips the fewest discs."""

    name = "unselfish"
    sign = -1


@lru_cache(maxsize=None)
def square_weights(size):
    """Classic square values generalised to any size: corners good, their neighbours bad, edges fair."""
    n = size
    w = []
    for sq in range(n * n):
        x, y = sq % n, sq // n
        ex, ey = min(x, n - 1 - x), min(y, n - 1 - y)
        if ex == 0 and ey == 0:
            v = 100
        elif ex <= 1 and ey <= 1:
            v = -40 if ex == 1 and ey == 1 else -20
        elif ex == 0 or ey == 0:
            v = 10 if min(ex, ey) == 0 and max(ex, ey) >= 2 else 5
        elif ex == 1 or ey == 1:
            v = -5
        else:
            v = 1
        w.append(v)
    return tuple(w)


class Table(Strategy):
    """The move to the square of highest weight (``weights``: one value per square)."""

    name = "table"

    def __init__(self, weights=None):
        self.weights = weights

    def next_move(self, position, time_limit=None):
        moves = position.legal_moves()
        if not moves:
            return PASS
        w = self.weights or square_weights(position.size)
        return max(moves, key=lambda m: w[m])


class _Timeout(Exception):
    pass


class AlphaBeta(Strategy):
    """Iterative-deepening negamax with alpha-beta: square weights plus mobility, exact near the end.

    ``depth`` caps the search; ``time_limit`` (seconds per move) stops it.
    """

    name = "alphabeta"

    def __init__(self, depth=6, exact_empties=10, default_time=1.0):
        self.max_depth = depth
        self.exact_empties = exact_empties
        self.default_time = default_time

    def next_move(self, position, time_limit=None):
        moves = position.legal_moves()
        if not moves:
            return PASS
        if len(moves) == 1:
            return moves[0]
        limit = self.default_time if time_limit is None else time_limit
        self.deadline = time.monotonic() + max(0.01, limit * 0.8)
        self.size = position.size
        self.w = square_weights(position.size)
        self.nodes = 0
        P, O = position.player, position.opponent
        best = moves[0]
        empties = position.empties()
        exact = empties <= self.exact_empties
        depths = [empties] if exact else range(1, self.max_depth + 1)
        order = moves
        for depth in depths:
            try:
                scored = []
                alpha = -10 ** 9
                for m in order:
                    f = core.flips(self.size, P, O, m)
                    v = -self._search(O ^ f, P | f | (1 << m), depth - 1, -10 ** 9, -alpha, False, exact)
                    scored.append((v, m))
                    alpha = max(alpha, v)
                scored.sort(key=lambda t: -t[0])
                best = scored[0][1]
                order = [m for _, m in scored]
            except _Timeout:
                break
            if exact and depth == empties:
                break
        return best

    def _eval(self, P, O):
        w = self.w
        s = sum(w[i] for i in _bits(P)) - sum(w[i] for i in _bits(O))
        mp = core.moves(self.size, P, O).bit_count()
        mo = core.moves(self.size, O, P).bit_count()
        return s + 8 * (mp - mo)

    def _search(self, P, O, depth, alpha, beta, passed, exact):
        self.nodes += 1
        if self.nodes & 255 == 0 and time.monotonic() > self.deadline:
            raise _Timeout
        m = core.moves(self.size, P, O)
        if not m:
            if passed or not core.moves(self.size, O, P):
                d = P.bit_count() - O.bit_count()
                return (d * 1000) if not exact else d
            return -self._search(O, P, depth, -beta, -alpha, True, exact)
        if depth <= 0 and not exact:
            return self._eval(P, O)
        moves = list(_bits(m))
        if not exact:
            moves.sort(key=lambda s: -self.w[s])
        for sq in moves:
            f = core.flips(self.size, P, O, sq)
            v = -self._search(O ^ f, P | f | (1 << sq), depth - 1, -beta, -alpha, False, exact)
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
        return alpha


STRATEGIES = {
    "random": RandomPlayer,
    "greedy": Greedy,
    "unselfish": Unselfish,
    "table": Table,
    "alphabeta": AlphaBeta,
}


def get(name, **options):
    """A strategy by name (see ``names()``); ``options`` go to its constructor."""
    try:
        cls = STRATEGIES[name.lower()]
    except KeyError:
        raise ValueError(f"unknown AI {name!r}; choose from {', '.join(names())}") from None
    return cls(**options)


def names():
    return sorted(STRATEGIES)
