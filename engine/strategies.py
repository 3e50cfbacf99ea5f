"""Computer players: ``get(name).next_move(position, time_limit)`` returns a square (or ``PASS``).

>>> from engine import Position, strategies
>>> ai = strategies.get("greedy")
>>> ai.next_move(Position.start())
19

The ladder, weakest first: random, greedy, unselfish, slowstarter, table,
montecarlo, mcts, minmax, negamax, alphabeta, pvs, iterative, book,
endgame, switch, best.  Write your own by subclassing ``Strategy``::

    class Corners(Strategy):
        name = "corners"
        def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
            moves = position.legal_moves()
            if not moves:
                return PASS
            n = position.size
            corners = [m for m in moves if m in (0, n - 1, n * n - n, n * n - 1)]
            return (corners or moves)[0]
"""
import inspect
import math
import os
import random
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Sequence, Union, cast

from . import book, notation, patterns
from . import book as _books  # Best's parameter `book` hides the module
from .backend import MAX_THREADS, core
from .backend import compiled as _compiled
from .notation import PASS
from .position import Position

if TYPE_CHECKING:
    from ._core import Searcher

compiled = _compiled if core is _compiled else None  # the C search, unless OTHELLO_ENGINE=pure


def default_threads() -> int:
    """Threads for the compiled search when none are asked for: every core this process may
    run on (``taskset`` and container limits count), at most 64."""
    counts = getattr(os, "process_cpu_count", None)  # Python 3.13
    if counts is not None:
        n = counts()
    elif hasattr(os, "sched_getaffinity"):
        n = len(os.sched_getaffinity(0))
    else:
        n = os.cpu_count()
    return max(1, min(MAX_THREADS, n or 1))


def _bits(mask: int) -> Iterator[int]:
    while mask:
        b = mask & -mask
        yield b.bit_length() - 1
        mask ^= b


def _after(size: int, P: int, O: int, sq: int) -> tuple[int, int]:
    """(player, opponent) masks after the side to move plays ``sq``: the mover becomes the opponent."""
    f = core.flips(size, P, O, sq)
    return O ^ f, P | f | (1 << sq)


class Strategy:
    """A way of choosing moves.  ``next_move`` returns a legal square, or ``PASS`` when forced.

    ``time_limit`` is in seconds per move (None: the strategy's default).
    """

    name = "strategy"
    nodes = 0       # positions searched for the last move, where the strategy counts them (best)

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        raise NotImplementedError

    def ponder(self, position: Position) -> None:
        """Think about ``position`` (the opponent to move) until ``stop_pondering``; returns at
        once.  The default does nothing; ``best`` searches in the background."""

    def stop_pondering(self) -> None:
        """End what ``ponder`` started (waits for the background search to stop)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class RandomPlayer(Strategy):
    """Any legal move, at random."""

    name = "random"

    def __init__(self, seed: Optional[int] = None) -> None:
        self.rng = random.Random(seed)

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()
        return self.rng.choice(moves) if moves else PASS


class Greedy(Strategy):
    """The move that flips the most discs (the first such square on ties)."""

    name = "greedy"
    sign = 1

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()
        if not moves:
            return PASS
        return max(moves, key=lambda m: self.sign * position.flips(m).bit_count())


class Unselfish(Greedy):
    """The move that flips the fewest discs."""

    name = "unselfish"
    sign = -1


class SlowStarter(Strategy):
    """Unselfish while the board is less than ``switch`` full, greedy after."""

    name = "slowstarter"

    def __init__(self, switch: float = 0.6) -> None:
        self.switch = switch
        self.early, self.late = Unselfish(), Greedy()

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        full = 1 - position.empties() / (position.size ** 2)
        return (self.early if full < self.switch else self.late).next_move(position, time_limit)


@lru_cache(maxsize=None)
def square_weights(size: int) -> tuple[int, ...]:
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
            v = 10 if max(ex, ey) >= 2 else 5
        elif ex == 1 or ey == 1:
            v = -5
        else:
            v = 1
        w.append(v)
    return tuple(w)


class Table(Strategy):
    """The move to the square of highest weight (``weights``: one value per square)."""

    name = "table"

    def __init__(self, weights: Optional[Sequence[int]] = None) -> None:
        self.weights = weights

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()
        if not moves:
            return PASS
        w = self.weights or square_weights(position.size)
        return max(moves, key=lambda m: w[m])


def _playout(size: int, P: int, O: int, rng: random.Random, holes: int) -> int:
    """Random game to the end from (P, O); the final disc difference for P's side."""
    sign, passed = 1, False
    while True:
        m = core.moves(size, P, O, holes=holes)
        if not m:
            if passed:
                d = P.bit_count() - O.bit_count()
                return sign * d
            P, O, sign, passed = O, P, -sign, True
            continue
        passed = False
        sqs = list(_bits(m))
        sq = sqs[rng.randrange(len(sqs))]
        P, O = _after(size, P, O, sq)
        sign = -sign


class MonteCarlo(Strategy):
    """Random playouts from each move, round-robin until the time is up; best average result wins."""

    name = "montecarlo"

    def __init__(self, seed: Optional[int] = None, default_time: float = 0.5, max_playouts: int = 20000) -> None:
        self.rng = random.Random(seed)
        self.default_time = default_time
        self.max_playouts = max_playouts

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()
        if len(moves) <= 1:
            return moves[0] if moves else PASS
        deadline = time.monotonic() + 0.9 * (time_limit or self.default_time)
        n = position.size
        children = [(m, *_after(n, position.player, position.opponent, m)) for m in moves]
        total = {m: 0 for m in moves}
        count = {m: 0 for m in moves}
        k = 0
        while k < self.max_playouts and (k < len(moves) or time.monotonic() < deadline):
            m, P, O = children[k % len(children)]
            total[m] -= _playout(n, P, O, self.rng, position.holes)
            count[m] += 1
            k += 1
        return max(moves, key=lambda m: total[m] / max(1, count[m]))


class _Node:
    """A node of the MCTS tree: (P, O) with the side to move first, its visits, its wins (for the
    side that moved into it), its children by move, and the moves not tried yet (None: not listed)."""

    __slots__ = ("P", "O", "visits", "wins", "children", "untried")

    def __init__(self, P: int, O: int) -> None:
        self.P, self.O = P, O
        self.visits = 0
        self.wins = 0.0
        self.children: dict[int, _Node] = {}
        self.untried: Optional[list[int]] = None


class MCTS(Strategy):
    """Monte Carlo tree search (UCT) with random playouts."""

    name = "mcts"

    def __init__(self, seed: Optional[int] = None, default_time: float = 0.5, c: float = 1.4,
                 max_iterations: int = 50000) -> None:
        self.rng = random.Random(seed)
        self.default_time = default_time
        self.c = c
        self.max_iterations = max_iterations

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()
        if len(moves) <= 1:
            return moves[0] if moves else PASS
        deadline = time.monotonic() + 0.9 * (time_limit or self.default_time)
        n = position.size
        root = _Node(position.player, position.opponent)
        it = 0
        while it < self.max_iterations and (it < len(moves) or time.monotonic() < deadline):
            it += 1
            path = [root]
            node = root
            while True:
                P, O = node.P, node.O
                if node.untried is None:
                    m = core.moves(n, P, O, holes=position.holes)
                    node.untried = list(_bits(m)) if m else ([PASS] if core.moves(n, O, P, holes=position.holes)
                                                             else [])
                if node.untried:
                    mv = node.untried.pop(self.rng.randrange(len(node.untried)))
                    child = _Node(O, P) if mv == PASS else _Node(*_after(n, P, O, mv))
                    node.children[mv] = child
                    path.append(child)
                    break
                if not node.children:
                    break  # game over
                logn = math.log(node.visits + 1)
                node = max(node.children.values(),
                           key=lambda ch: ch.wins / (ch.visits + 1e-9) + self.c * math.sqrt(logn / (ch.visits + 1e-9)))
                path.append(node)
            leaf = path[-1]
            result = _playout(n, leaf.P, leaf.O, self.rng, position.holes)  # for the side to move at the leaf
            for node in reversed(path):
                node.visits += 1
                # a node's wins count for the player who moved into it (the leaf's opponent first)
                node.wins += 1.0 if result < 0 else 0.5 if result == 0 else 0.0
                result = -result
        return max(root.children.items(), key=lambda kv: kv[1].visits)[0]


def _evaluate(size: int, P: int, O: int, holes: int) -> int:
    """A simple evaluation for the Python searches: square weights and mobility."""
    if size == 8 and compiled is not None:
        return compiled.evaluate(P, O, holes=holes)
    w = square_weights(size)
    s = sum(w[i] for i in _bits(P)) - sum(w[i] for i in _bits(O))
    return s + 8 * (core.moves(size, P, O, holes=holes).bit_count() - core.moves(size, O, P, holes=holes).bit_count())


def _final(P: int, O: int, size: int) -> int:
    """A finished game's value for the Python searches: a win beats every evaluation."""
    d = P.bit_count() - O.bit_count()
    return 10000 + d if d > 0 else -10000 + d if d < 0 else 0


class _Timeout(Exception):
    pass


class _TimedSearch(Strategy):
    """The Python searches' common parts: a deadline checked as nodes are counted, children."""

    depth: int

    def _start(self, position: Position, time_limit: Optional[float], default: float = 1.0) -> None:
        self.size = position.size
        self.holes = position.holes
        self.deadline = time.monotonic() + 0.9 * (time_limit or default)
        self.nodes = 0

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes & 63 == 0 and time.monotonic() > self.deadline:
            raise _Timeout

    def _child(self, P: int, O: int, sq: int) -> tuple[int, int]:
        return _after(self.size, P, O, sq)

    def _deepen(self, position: Position, time_limit: Optional[float],
                score: Callable[[int, int, int], int]) -> int:
        """The root move of highest ``score(P, O, depth)`` of its child, deepening 1..``self.depth``
        so that running out of time still leaves an answer."""
        moves = position.legal_moves()
        if not moves:
            return PASS
        self._start(position, time_limit)
        P, O = position.player, position.opponent
        result = moves[0]
        for depth in range(1, self.depth + 1):
            try:
                result = max(moves, key=lambda m: score(*self._child(P, O, m), depth - 1))
            except _Timeout:
                break
        return result


class MinMax(_TimedSearch):
    """Plain minimax to a fixed ``depth`` (no pruning): the textbook algorithm."""

    name = "minmax"

    def __init__(self, depth: int = 2) -> None:
        self.depth = depth

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        return self._deepen(position, time_limit, lambda P, O, d: self._value(P, O, d, False))

    def _value(self, P: int, O: int, depth: int, maximising: bool) -> int:
        """Value for the root player; (P, O) has the side to move first."""
        self._tick()
        n = self.size
        m = core.moves(n, P, O, holes=self.holes)
        if not m:
            if not core.moves(n, O, P, holes=self.holes):
                return _final(P, O, n) * (1 if maximising else -1)
            return self._value(O, P, depth, not maximising)
        if depth == 0:
            return _evaluate(n, P, O, self.holes) * (1 if maximising else -1)
        values = [self._value(*self._child(P, O, sq), depth - 1, not maximising) for sq in _bits(m)]
        return max(values) if maximising else min(values)


class NegaMax(_TimedSearch):
    """Negamax to a fixed ``depth``: minimax written once for both sides."""

    name = "negamax"

    def __init__(self, depth: int = 3) -> None:
        self.depth = depth

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        return self._deepen(position, time_limit, lambda P, O, d: -self._negamax(P, O, d))

    def _negamax(self, P: int, O: int, depth: int) -> int:
        self._tick()
        n = self.size
        m = core.moves(n, P, O, holes=self.holes)
        if not m:
            if not core.moves(n, O, P, holes=self.holes):
                return _final(P, O, n)
            return -self._negamax(O, P, depth)
        if depth == 0:
            return _evaluate(n, P, O, self.holes)
        return max(-self._negamax(*self._child(P, O, sq), depth - 1) for sq in _bits(m))


class AlphaBeta(_TimedSearch):
    """Negamax with alpha-beta pruning in Python, iterative deepening to ``depth`` within the time limit."""

    name = "alphabeta"

    def __init__(self, depth: int = 4, default_time: float = 1.0) -> None:
        self.max_depth = depth
        self.default_time = default_time

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()
        if len(moves) <= 1:
            return moves[0] if moves else PASS
        self._start(position, time_limit, self.default_time)
        P, O = position.player, position.opponent
        w = square_weights(self.size)
        order = sorted(moves, key=lambda s: -w[s])
        best = order[0]
        for depth in range(1, self.max_depth + 1):
            try:
                scored = []
                alpha = -10 ** 9
                for m in order:
                    v = -self._search(*self._child(P, O, m), depth - 1, -10 ** 9, -alpha, False)
                    scored.append((v, m))
                    alpha = max(alpha, v)
            except _Timeout:
                break
            scored.sort(key=lambda t: -t[0])
            best = scored[0][1]
            order = [m for _, m in scored]
        return best

    def _search(self, P: int, O: int, depth: int, alpha: int, beta: int, passed: bool) -> int:
        self._tick()
        n = self.size
        m = core.moves(n, P, O, holes=self.holes)
        if not m:
            if passed:
                return _final(P, O, n)
            return -self._search(O, P, depth, -beta, -alpha, True)
        if depth <= 0:
            return _evaluate(n, P, O, self.holes)
        for sq in _bits(m):
            v = -self._search(*self._child(P, O, sq), depth - 1, -beta, -alpha, False)
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
        return alpha


def _patterns_for(position: Position) -> bool:
    """Whether the trained patterns can evaluate ``position``: installed, and its board the plain
    8x8 they were trained on (a board with holes is searched with the hand-written evaluation)."""
    return position.size == 8 and not position.holes and patterns.install()


def c_search(position: Position, seconds: float, depth: int = 60, evaluation: str = "full",
             searcher: Optional["Searcher"] = None) -> tuple[Optional[int], int]:
    """(score, move) from the compiled iterative PVS; the Python alpha-beta when not compiled.

    ``evaluation``: "full" (hand-written), "simple" (square weights and
    mobility) or "patterns" (trained on the plain 8x8 board; "full" on a board
    with holes or when no weights are installed).
    ``searcher``: a ``compiled.Searcher`` (its threads and hash table); a new
    one-thread search without it.
    """
    if compiled is not None:
        if evaluation == "patterns" and not _patterns_for(position):
            evaluation = "full"
        searcher = searcher or compiled.Searcher(20, 1)
        score, move, _, _ = searcher.search(position.size, position.player, position.opponent, depth,
                                            seconds, evaluation, position.holes)
        return score, move
    return None, AlphaBeta(depth=min(depth, 6)).next_move(position, seconds)


class PVS(Strategy):
    """Principal variation search (NegaScout) with a hash table, to ``depth``.

    ``full_eval=False`` (the default) evaluates with square weights and
    mobility; ``True`` adds corners, X/C-squares, potential mobility, stable
    edges and parity (what ``best`` uses).
    """

    name = "pvs"

    def __init__(self, depth: int = 6, default_time: float = 1.0, full_eval: bool = False) -> None:
        self.depth = depth
        self.default_time = default_time
        self.full_eval = full_eval

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()
        if len(moves) <= 1:
            return moves[0] if moves else PASS
        return c_search(position, 0.9 * (time_limit or self.default_time), self.depth,
                        "full" if self.full_eval else "simple")[1]


class Iterative(PVS):
    """PVS deepened one ply at a time until the time limit (no depth cap)."""

    name = "iterative"

    def __init__(self, default_time: float = 1.0, full_eval: bool = False) -> None:
        super().__init__(depth=60, default_time=default_time, full_eval=full_eval)


class Endgame(Strategy):
    """Exact solving when at most ``empties`` squares are empty; ``fallback`` before that."""

    name = "endgame"

    def __init__(self, empties: int = 14, fallback: Optional[Strategy] = None, default_time: float = 1.0) -> None:
        self.empties = empties
        self.fallback = fallback or Iterative(default_time)
        self.default_time = default_time

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = position.legal_moves()
        if len(moves) <= 1:
            return moves[0] if moves else PASS
        limit = time_limit or self.default_time
        if position.empties() <= self.empties:
            move = solve_move(position, 0.9 * limit)
            if move is not None:
                return move
        return self.fallback.next_move(position, limit)


def solve(position: Position, seconds: float = 0.0, threads: int = 1,
          searcher: Optional["Searcher"] = None) -> tuple[int, int, int, bool]:
    """Exact solve: ``(score, move, nodes, complete)`` (see ``engine._core.Searcher.solve``).

    Uses the compiled solver on ``threads`` threads (or ``searcher``), or a
    plain alpha-beta in Python without it.
    """
    if compiled is not None:
        patterns.install()  # the solver orders its moves with them
        searcher = searcher or compiled.Searcher(20, threads)
        return searcher.solve(position.size, position.player, position.opponent, seconds, holes=position.holes)
    nodes = 0
    deadline = time.monotonic() + seconds if seconds else None
    n = position.size

    def negamax(P: int, O: int, alpha: int, beta: int, passed: bool) -> tuple[int, int]:
        nonlocal nodes
        nodes += 1
        if deadline and nodes & 255 == 0 and time.monotonic() > deadline:
            raise _Timeout
        m = core.moves(n, P, O, holes=position.holes)
        if not m:
            if passed:
                return Position(n, P, O, holes=position.holes).final_score(), -1
            return -negamax(O, P, -beta, -alpha, True)[0], -1
        best, best_move = -999, -1
        for sq in _bits(m):
            v = -negamax(*_after(n, P, O, sq), -beta, -alpha, False)[0]
            if v > best:
                best, best_move = v, sq
                alpha = max(alpha, v)
                if alpha >= beta:
                    break
        return best, best_move

    try:
        score, move = negamax(position.player, position.opponent, -n * n, n * n, False)
        return score, move, nodes, True
    except _Timeout:
        return 0, -1, nodes, False


def solve_within(position: Position, seconds: float, threads: int = 1,
                 searcher: Optional["Searcher"] = None) -> tuple[int, int, int, bool]:
    """An exact solve if it finishes within ``seconds``, else the best estimate so far:
    ``(score, move, nodes, exact)``.

    The first fifth of the time goes to the midgame search (with the trained
    patterns), whose score, in whole discs, is the estimate; the rest to the
    exact solve.
    """
    if compiled is None or position.size != 8 or not position.legal_moves_mask() or seconds <= 0:
        score, move, nodes, complete = solve(position, seconds, threads, searcher)
        return score, move, nodes, complete
    searcher = searcher or compiled.Searcher(20, threads)
    start = time.monotonic()
    evaluation = "patterns" if _patterns_for(position) else "full"
    guess, guess_move, guess_nodes, _ = searcher.search(8, position.player, position.opponent, 60,
                                                        0.2 * seconds, evaluation, position.holes)
    left = max(0.001, seconds - (time.monotonic() - start))
    score, move, nodes, complete = searcher.solve(8, position.player, position.opponent, left,
                                                  holes=position.holes)
    if complete:
        return score, move, nodes + guess_nodes, True
    return round(_disc_value(guess)), guess_move, nodes + guess_nodes, False


def solve_move(position: Position, seconds: float, searcher: Optional["Searcher"] = None) -> Optional[int]:
    """The best move by exact solving, or None if it did not finish in ``seconds``."""
    score, move, _, complete = solve(position, seconds, searcher=searcher)
    return move if complete and move >= 0 else None


class Book(Strategy):
    """Named openings (8x8) from ``engine.book`` while the game follows one; ``fallback`` after."""

    name = "book"

    def __init__(self, fallback: Optional[Strategy] = None, seed: Optional[int] = None) -> None:
        self.fallback = fallback or Iterative()
        self.rng = random.Random(seed)

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        moves = book.book_moves(position)
        if moves:
            return self.rng.choice(sorted(moves))
        return self.fallback.next_move(position, time_limit)


class Switch(Strategy):
    """A different strategy by move number: ``Switch([(0, a), (20, b), (44, c)])``.

    Move numbers are counted from the discs on the board (a new game's first move is 1).
    """

    name = "switch"

    def __init__(self, plan: Optional[list[tuple[int, Strategy]]] = None) -> None:
        self.plan = plan or [(0, Book(fallback=Table())), (20, Iterative()), (46, Endgame(empties=14))]

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        number = (position.size ** 2 - position.empties()) - 3
        current = self.plan[0][1]
        for start, strategy in self.plan:
            if number >= start:
                current = strategy
        return current.next_move(position, time_limit)


PONDER_SECONDS = 60.0   # at most this long on the opponent's time (an opponent may be gone)

# A solve's median seconds from a new hash table on one thread, at 16 empties, and its growth per
# empty more: exact (score) and win/draw/loss.  Measured 2026-11-28 on the CI machine kind
# (docs/benchmarks.md) on positions of games of best from bench/openings.txt, 14 to 24 empties.
SOLVE_SECONDS = {"exact": (0.0175, 1.73), "wld": (0.003, 1.85)}


def solve_seconds(kind: str, empties: int) -> float:
    """The median seconds of a solve (``kind`` "exact" or "wld") at ``empties`` (SOLVE_SECONDS)."""
    at16, growth = SOLVE_SECONDS[kind]
    return at16 * growth ** (empties - 16)


def one_shot_hash_bits(seconds: float) -> int:
    """The hash table for a search of ``seconds`` in a process of its own: one that a search so
    short fills, no larger (a 32 MB table costs a 0.1 s search from a new process a quarter of
    its nodes in page faults and cache misses, measured 2026-11-28)."""
    return 16 if seconds <= 0.25 else 18 if seconds <= 1.0 else 20


def kept_hash_bits(seconds: float) -> int:
    """The hash table for ``best`` in a process that keeps it from move to move, searching up to
    ``seconds`` a move: 2**22 entries (128 MiB) from a second a move up, where the search's
    positions outgrow 2**20 (measured 2026-11-29 along games against Zebra, one thread: depth 20
    took 0.5 s a position, with 19% fewer nodes and 13% less time than with 2**20; depth 16, 0.07 s,
    as many nodes with either), else 2**20 (32 MiB).  The NBoard engine and the players size their table so."""
    return 22 if seconds >= 1.0 else 20


class Best(Strategy):
    """The strongest default: learned book, iterative PVS with the trained pattern evaluation, exact endgame.

    In a position of the learned opening book (``engine/book.bin.gz``, under
    any symmetry) it plays a book move whose value is within ``book_margin``
    discs of the best, drawn at random (``seed``) with weights that halve
    every half disc below the best, so games differ; ``book=False`` turns the
    book off, ``book=PATH`` (or a ``book.LearnedBook``) uses another one.
    Without a usable learned book it follows the named openings instead.

    With ``time_limit`` T per move: at most ``exact_empties`` empties it
    first tries an exact solve within half of T; up to ``solve_empties`` a
    win/draw/loss solve within half of T, and plays a proven win (or
    draw); a solve whose median time (``solve_seconds``) is above a third
    of T is not tried, as it would seldom finish.  Otherwise, and when a
    solve does not finish, the PVS move (at most ``depth`` plies deep).  ``evaluation="full"`` uses the
    hand-written evaluation instead of the patterns (which are also
    replaced by it where no weights are installed).  The search runs on
    ``threads`` threads (default: every core) and keeps its hash table
    (2**``hash_bits`` entries of 32 bytes) from one move to the next;
    ``ponder`` uses it on the opponent's time.
    """

    name = "best"

    def __init__(self, solve_empties: int = 24, exact_empties: int = 20, default_time: float = 1.0,
                 seed: Optional[int] = None, depth: int = 60, evaluation: str = "patterns",
                 threads: Optional[int] = None, hash_bits: int = 20,
                 book: Union[bool, None, str, Path, "_books.LearnedBook"] = True, book_margin: float = 1.0) -> None:
        self.depth = depth
        self.evaluation = evaluation
        if evaluation == "patterns":
            patterns.install()  # now, not inside the first timed move
        self.solve_empties = solve_empties
        self.exact_empties = exact_empties
        self.default_time = default_time
        self.threads = threads or default_threads()
        self.searcher = compiled.Searcher(hash_bits, self.threads) if compiled is not None else None
        self._pondering: Optional[threading.Thread] = None
        self.rng = random.Random(seed)
        self.book_margin = book_margin
        self.use_book = isinstance(book, _books.LearnedBook) or bool(book)  # False or None: no book
        self.learned: Optional[_books.LearnedBook] = None
        if isinstance(book, _books.LearnedBook):
            self.learned = book
        elif book is True:
            self.learned = _books.learned()  # None when missing or damaged: then the named openings
        elif isinstance(book, (str, Path)) and book:
            self.learned = _books.learned(book)

    def book_move(self, position: Position) -> Optional[int]:
        """A move from the book for ``position``, or None when it is not in the book."""
        if not self.use_book:
            return None
        if self.learned is None:
            named = book.book_moves(position)
            return self.rng.choice(sorted(named)) if named else None
        values = self.learned.moves(position)
        if not values:
            return None
        top = max(values.values())
        near = sorted((m, v) for m, v in values.items() if v >= top - self.book_margin)
        return self.rng.choices([m for m, _ in near], [0.25 ** (top - v) for _, v in near])[0]

    def next_move(self, position: Position, time_limit: Optional[float] = None) -> int:
        self.stop_pondering()
        self.nodes = 0
        moves = position.legal_moves()
        if len(moves) <= 1:
            return moves[0] if moves else PASS
        limit = time_limit or self.default_time
        start = time.monotonic()
        move = self.book_move(position)
        if move is not None:
            return move
        empties = position.empties()
        if self.searcher is not None and position.size == 8:
            window = self.solve_window(empties, limit)
            if window is not None:
                score, move, self.nodes, complete = self.searcher.solve(8, position.player, position.opponent,
                                                                        0.5 * limit, *window, position.holes)
                if complete and move >= 0 and (score >= 0 or window[0] == -64):
                    return move
        elif empties <= min(self.exact_empties, 14):
            move = solve_move(position, 0.8 * limit, self.searcher)
            if move is not None:
                return move
        left = 0.9 * limit - (time.monotonic() - start)
        move = c_search(position, max(0.01, left), self.depth, self.evaluation, self.searcher)[1]
        if self.searcher is not None:
            self.nodes += sum(self.searcher.thread_nodes)
        return move

    def solve_window(self, empties: int, seconds: float) -> Optional[tuple[int, int]]:
        """The solve to try first at ``empties`` with ``seconds`` for the move: exact ``(-64, 64)``,
        win/draw/loss ``(-1, 1)``, or None (see the class's docstring)."""
        if empties <= self.exact_empties and solve_seconds("exact", empties) <= seconds / 3:
            return (-64, 64)
        if empties <= self.solve_empties and solve_seconds("wld", empties) <= seconds / 3:
            return (-1, 1)
        return None

    def ponder(self, position: Position) -> None:
        """Search ``position`` (the opponent to move) on a background thread until
        ``stop_pondering`` or ``next_move`` (at most ``PONDER_SECONDS``): the hash table then
        holds the answers to the opponent's likely moves."""
        self.stop_pondering()
        if self.searcher is None or position.size != 8 or position.is_game_over():
            return
        P, O = position.player, position.opponent
        if not position.legal_moves_mask():
            P, O = O, P
        evaluation = self.evaluation if _patterns_for(position) else "full"
        worker = threading.Thread(target=self.searcher.search,
                                  args=(8, P, O, self.depth, PONDER_SECONDS, evaluation, position.holes),
                                  name="ponder",
                                  daemon=True)
        self._pondering = worker
        worker.start()

    def stop_pondering(self) -> None:
        worker, self._pondering = self._pondering, None
        if worker is not None and self.searcher is not None:
            self.searcher.stop()
            worker.join()
            self.searcher.clear_stop()


STRATEGIES: dict[str, type[Strategy]] = {
    "random": RandomPlayer,
    "greedy": Greedy,
    "unselfish": Unselfish,
    "slowstarter": SlowStarter,
    "table": Table,
    "montecarlo": MonteCarlo,
    "mcts": MCTS,
    "minmax": MinMax,
    "negamax": NegaMax,
    "alphabeta": AlphaBeta,
    "pvs": PVS,
    "iterative": Iterative,
    "book": Book,
    "endgame": Endgame,
    "switch": Switch,
    "best": Best,
}
LADDER = ["random", "greedy", "table", "alphabeta", "iterative", "best"]


def get(name: str, **options: Any) -> Strategy:
    """A strategy by name (see ``names()``), or one's own (``FILE.py:CLASS``, ``package.module:CLASS``
    or a name an installed package announces: ``engine.loader``); ``options`` go to its constructor.
    ``threads`` goes only to strategies that search on several threads (``best``): the others
    search on one.  ``ValueError`` (``loader.StrategyError`` for one's own) says why not."""
    load_limit = options.pop("load_limit", None)     # (one's own: seconds its file may take to load here)
    cls = STRATEGIES.get(name.lower()) if isinstance(name, str) else None
    if cls is None:
        from . import loader   # only for one's own: it costs a one-shot move's start-up some 10 ms
        if not isinstance(name, str):
            raise ValueError(f"unknown AI {name!r}; choose from {', '.join(names())}")
        if not loader.is_spec(name) and name.lower() not in {ep.name.lower() for ep in loader.announced()}:
            raise loader.StrategyError(f"unknown AI {name!r}; choose from {', '.join(names())}, or FILE.py:CLASS")
        options.pop("threads", None)
        return cast(Strategy, loader.Own(name, Greedy(), options, load_limit=load_limit))
    if "threads" in options and (options["threads"] is None or not uses_threads(name)):
        del options["threads"]
    return cls(**options)


def check(name: str) -> str:
    """``name`` when ``get`` can make it (one's own class is loaded and made, in its own process,
    to see), else ValueError."""
    if not isinstance(name, str) or name.lower() not in STRATEGIES:
        from . import loader
        own = get(name)
        if isinstance(own, loader.Own):
            own.close()
    return name


def uses_threads(name: object) -> bool:
    """Whether the strategy ``name`` searches on several threads (takes ``threads``; ``best``),
    and so can ponder; False for an unknown name and one's own."""
    cls = STRATEGIES.get(name.lower()) if isinstance(name, str) else None
    return cls is not None and "threads" in inspect.signature(cls).parameters


def names() -> list[str]:
    """The built-in strategies' names, sorted, then those installed packages announce."""
    from . import loader
    extra = sorted({ep.name for ep in loader.announced()} - set(STRATEGIES))
    return sorted(STRATEGIES) + extra


def _disc_value(score: int) -> float:
    """A compiled midgame search score in discs for the side to move."""
    if abs(score) >= 9000:  # a proven result inside the midgame search
        return float(score - 10000 if score > 0 else score + 10000)
    return score / patterns.EVAL_UNIT if patterns.install() else score / 10.0


def analyse(position: Position, seconds: float = 1.0, depth: int = 60) -> list[tuple[float, int, int]]:
    """``[(value, move, depth)]`` for every legal move of ``position``, best first: ``value`` in
    discs for the side to move, exact when ``depth`` reaches the end (``position.empties()``: solved;
    a midgame estimate reports less), ``seconds`` shared out
    over the moves.  Without the compiled core the values come from a one-ply evaluation.

    >>> [(round(v), notation.square_name(m)) for v, m, d in analyse(Position.start(), 0.2)][0][1] in ('d3', 'c4', 'f5', 'e6')
    True
    """
    size = position.size
    moves = position.legal_moves()
    if not moves:
        return [(0.0, PASS, 0)]
    out: list[tuple[float, int, int]] = []
    share = seconds / len(moves)
    exact = position.empties() - 1 <= 14
    for m in moves:
        child = position.play(m)
        if compiled is None:
            out.append((-_evaluate(size, child.player, child.opponent, child.holes) / 10.0, m,
                        min(1, position.empties() - 1)))
            continue
        if exact:
            score, _, _, done = compiled.solve(size, child.player, child.opponent, share, holes=child.holes)
            if done:
                out.append((-float(score), m, position.empties()))
                continue
        evaluation = "patterns" if size == 8 and patterns.install() else "full"
        if child.legal_moves_mask():
            score, _, _, reached = compiled.search(size, child.player, child.opponent,
                                                   max(1, depth - 1), share, evaluation, holes=child.holes)
        else:  # the opponent must pass: search from our side again
            score, _, _, reached = compiled.search(size, child.opponent, child.player,
                                                   max(1, depth - 1), share, evaluation, holes=child.holes)
            score = -score
        # (never the end: a midgame search that reached it is still an estimate, with ProbCut)
        out.append((-_disc_value(score), m, min(reached + 1, position.empties() - 1)))
    out.sort(key=lambda t: -t[0])
    return out
