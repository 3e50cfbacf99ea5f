"""Building the learned opening book: ``python -m engine book build`` (see docs/ai.md).

From the start position the book grows by the deviations a good player might
make: every book position has all its moves valued; a move whose value is
within ``width`` discs of the position's best leads to a candidate, and a
candidate within the first ``plies`` plies becomes a book position in turn.
A move into a position that is not in the book is valued by a compiled
search of ``depth`` plies from there with the trained pattern evaluation; a
move into a book position takes minus that position's best value (the
negamax, backed up before each choice).

The next position is always a function of the book as it stands: of the
candidates, the shallowest, then the one with the smallest loss against its
parent's best, then an order drawn from ``seed``.  The search runs to a
fixed depth (no clock), so the book depends only on the options, and a
build saved at any point (``--positions``, ``--minutes``, Ctrl-C, the
minute's save) and continued with ``--resume`` goes on exactly as one run.

The leaves' searches are jobs of ``engine.fit.jobs`` (``workers`` local processes, or a Dask
``cluster``): the leaves of the next few positions in the order of the moment (as many as the
workers) are searched at once, in batches, wherever the workers are; the positions still join
the book one by one as on one process: the same book either way.  Each batch carries the
digest of the weights it was started with; a worker holding other weights under
``engine/weights.bin.gz`` refuses it.
"""
import heapq
import struct
import time
import zlib
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Union

from .. import book as books, patterns
from . import jobs
from ..backend import compiled, core
from ..book import UNIT, Key, LearnedBook, canonical, child_key
from ..position import Position


def _bits(mask: int) -> Iterator[int]:
    while mask:
        b = mask & -mask
        yield b.bit_length() - 1
        mask ^= b


def leaf_value(P: int, O: int, depth: int, hash_bits: int = 18) -> int:
    """The value of (P, O) for the side to move in 1/4 disc, from a ``depth``-ply compiled search
    with the pattern evaluation (exact at the end of the game)."""
    if compiled is None:
        raise RuntimeError("valuing a leaf needs the compiled core")
    if core.moves(8, P, O):
        score = compiled.search(8, P, O, depth, 1e9, "patterns", hash_bits)[0]
    elif core.moves(8, O, P):
        score = -compiled.search(8, O, P, depth, 1e9, "patterns", hash_bits)[0]
    else:
        return UNIT * Position(8, P, O).final_score()
    if abs(score) >= 9000:  # a proven result: 10000 plus the disc difference
        score = UNIT * (score - 10000 if score > 0 else score + 10000)
    return max(-64 * UNIT, min(64 * UNIT, score))


def _leaf_job(job: tuple[list[tuple[int, int]], int, int, str]) -> list[int]:
    """A job: ``leaf_value`` of each position, with the weights whose digest is given."""
    positions, depth, hash_bits, sha = job
    if not patterns.install():
        raise RuntimeError(f"cannot load the pattern weights here: {patterns.install_error()}")
    if patterns.digest() != sha:
        raise RuntimeError(f"{patterns.WEIGHTS} here holds other weights than the build started with")
    return [leaf_value(P, O, depth, hash_bits) for P, O in positions]


def _ply(key: Key) -> int:
    return (key[0] | key[1]).bit_count() - 4


def backup(book: LearnedBook, child_of: Callable[[Key, int], Key] = lambda key, sq: child_key(*key, sq)
           ) -> dict[Key, int]:
    """Give every move into a book position minus that position's best value (deepest first:
    a move adds one disc, so children are done before their parents)."""
    best: dict[Key, int] = {}
    for key in sorted(book.entries, key=_ply, reverse=True):
        moves = book.entries[key]
        for sq in moves:
            child = best.get(child_of(key, sq))
            if child is not None:
                moves[sq] = -child
        best[key] = max(moves.values())
    return best


# the ranges of the options (inclusive), checked by Builder and by the command line
LIMITS: dict[str, tuple[Any, Any]] = {"plies": (1, 60), "depth": (1, 60), "width": (0, 64), "seed": (0, 2 ** 32 - 1),
          "positions": (0, 10 ** 9), "minutes": (0.01, 10 ** 6)}


class Builder:
    """One build; ``run()`` returns the ``LearnedBook`` (also saved to ``out``)."""

    def __init__(self, out: Union[str, Path], plies: int = 11, depth: int = 10, width: float = 2.0, seed: int = 1,
                 positions: Optional[int] = 1000, minutes: Optional[float] = None, resume: bool = False,
                 log: Callable[[str], None] = print, save_every: float = 60.0, hash_bits: int = 18,
                 workers: int = 1, cluster: Optional[str] = None) -> None:
        if compiled is None:
            raise RuntimeError("building a book needs the compiled core (pip install -e . with a C compiler)")
        if not patterns.install():
            raise RuntimeError("building a book needs the pattern weights (engine/weights.bin.gz)")
        given: dict[str, float] = {"plies": plies, "depth": depth, "width": width, "seed": seed,
                                   "positions": positions or 0, "minutes": minutes or 1}
        for name, (lo, hi) in LIMITS.items():
            if not lo <= given[name] <= hi:     # (NaN too)
                raise ValueError(f"{name} must be from {lo:g} to {hi:g}, not {given[name]}")
        self.out, self.log, self.save_every, self.hash_bits = out, log, save_every, hash_bits
        self.where = jobs.Workers(cluster, workers)     # (closed at the end of run)
        self.chunk = 1  # the next book positions whose leaves are searched at once (see run)
        self.sha = patterns.digest()
        self.plies, self.depth, self.seed = plies, depth, seed
        if width * UNIT != round(width * UNIT):
            raise ValueError(f"width must be a multiple of {1 / UNIT:g} disc (the book's values), not {width:g}")
        self.width = round(width * UNIT)
        self.max_positions = positions
        self.deadline = time.monotonic() + 60 * minutes if minutes else None
        self.cache: dict[Key, int] = {}  # key -> leaf value (1/4 disc, its side to move) of positions not in the book
        self.searches = 0
        self.children: dict[tuple[Key, int], Key] = {}   # (key, square) -> child_key, computed once
        self.orders: dict[Key, int] = {}
        if resume:
            books.check(out)    # (BookError, a ValueError, naming the first problem)
            self.book = books.load(out)
            for name, mine, theirs in (("depth", depth, self.book.depth), ("width", self.width, self.book.width),
                                       ("seed", seed, self.book.seed)):
                if mine != theirs:
                    value = theirs / UNIT if name == "width" else theirs
                    raise ValueError(f"{out} was built with --{name} {value:g}; resume with that {name}")
            if plies < self.book.plies:
                raise ValueError(f"{out} was built with --plies {self.book.plies}; resume with that many or more")
            for key, moves in self.book.entries.items():
                for sq, v in moves.items():
                    child = self.child(key, sq)
                    if child not in self.book.entries:
                        self.cache[child] = -v
        elif Path(out).exists():
            raise ValueError(f"{out} exists: --resume continues it; to build another book, remove it or give "
                             f"another --out")
        else:
            self.book = LearnedBook()
        self.book.plies, self.book.depth, self.book.width, self.book.seed = plies, depth, self.width, seed

    def child(self, key: Key, sq: int) -> Key:
        """``child_key(*key, sq)``, remembered."""
        pair = (key, sq)
        found = self.children.get(pair)
        if found is None:
            found = self.children[pair] = child_key(*key, sq)
        return found

    def _order(self, key: Key) -> int:
        order = self.orders.get(key)
        if order is None:
            order = self.orders[key] = zlib.crc32(struct.pack("<QQI", key[0], key[1], self.seed))
        return order

    def candidates(self) -> dict[Key, int]:
        """``{key: smallest loss}`` of the positions to add: reached from the start through book
        positions by moves within the width, within the first ``plies`` plies, not in the book."""
        start = Position.start()
        root = canonical(start.player, start.opponent)
        entries = self.book.entries
        if root not in entries:
            return {root: 0}
        out: dict[Key, int] = {}
        seen, stack = {root}, [root]
        while stack:
            key = stack.pop()
            if _ply(key) + 1 >= self.plies:
                continue
            moves = entries[key]
            best = max(moves.values())
            for sq, value in moves.items():
                loss = best - value
                if loss > self.width:
                    continue
                child = self.child(key, sq)
                if child in entries:
                    if child not in seen:
                        seen.add(child)
                        stack.append(child)
                elif core.moves(8, *child):
                    out[child] = min(loss, out.get(child, loss))
        return out

    def upcoming(self, count: int) -> list[Key]:
        """The first ``count`` candidates in the order the book takes them if nothing changes (the
        values backed up first): shallowest first, then the smallest loss, then the seed's order."""
        backup(self.book, self.child)
        todo = self.candidates()
        return heapq.nsmallest(count, todo, key=lambda k: (_ply(k), todo[k], self._order(k), k))

    def unsearched(self, key: Key) -> list[Key]:
        """The positions after the moves of ``key`` that are neither in the book nor searched."""
        out: list[Key] = []
        for sq in _bits(core.moves(8, *key)):
            child = self.child(key, sq)
            if child not in self.book.entries and child not in self.cache:
                out.append(child)
        return out

    def prepare(self, keys: list[Key]) -> None:
        """Search the leaves of ``keys`` that are neither in the book nor searched yet, as jobs."""
        leaves: list[Key] = []
        for key in keys:
            for child in self.unsearched(key):
                if child not in leaves:
                    leaves.append(child)
        if not leaves:
            return
        n = max(1, -(-len(leaves) // (4 * self.chunk)))
        batches = [leaves[i:i + n] for i in range(0, len(leaves), n)]
        values = jobs.run(_leaf_job, [([tuple(c) for c in b], self.depth, self.hash_bits, self.sha) for b in batches],
                          on=self.where, progress=None)
        for batch, got in zip(batches, values):
            for child, value in zip(batch, got):
                self.cache[child] = value
                self.searches += 1

    def expand(self, key: Key) -> None:
        """Value every move of the position ``key`` and add it to the book."""
        P, O = key
        values: dict[int, int] = {}
        for sq in _bits(core.moves(8, P, O)):
            child = self.child(key, sq)
            if child in self.book.entries:
                values[sq] = -self.book.value(child)
                continue
            if child not in self.cache:
                self.cache[child] = leaf_value(*child, self.depth, self.hash_bits)
                self.searches += 1
            values[sq] = -self.cache[child]
        self.book.entries[key] = values

    def save(self) -> None:
        """Back the values up and write the book."""
        backup(self.book, self.child)
        books.save(self.book, self.out)

    def _stop(self) -> Optional[str]:
        if self.max_positions is not None and len(self.book) >= self.max_positions:
            return "the --positions limit"
        if self.deadline is not None and time.monotonic() > self.deadline:
            return "the --minutes limit"
        return None

    def run(self) -> LearnedBook:
        """Build until a bound or no candidate is left; save; Ctrl+C saves and re-raises (later
        ones are ignored until the save is done and the workers have ended)."""
        with jobs.one_ctrl_c():
            return self._run()

    def _run(self) -> LearnedBook:
        start = time.monotonic()
        last_save = last_note = start
        self.log(f"building {self.out}: plies {self.plies}, depth {self.depth}, width {self.width / UNIT:g} "
                 f"discs, seed {self.seed}, starting from {len(self.book)} positions")
        why = None
        try:
            # as many as the workers: more keep more of them busy, but the order can change as each
            # joins (on two local processes, 2 at once: 1,914 searches in 12.7 s, 8 at once: 2,084
            # in 13.1 s, for docs/benchmarks.md's book of 300; 32: 2,614 in 18.3 s)
            self.chunk, looked = self.where.threads(), time.monotonic()
            while True:
                if time.monotonic() - looked >= 5:      # (a cluster's workers come and go)
                    self.chunk, looked = self.where.threads(), time.monotonic()
                why = self._stop()
                if why:
                    break
                room = None if self.max_positions is None else self.max_positions - len(self.book)
                order = self.upcoming(self.chunk if room is None else min(self.chunk, room))
                if not order:
                    break
                key = order[0]
                if self.unsearched(key):
                    self.prepare(order)
                self.expand(key)
                now = time.monotonic()
                if now - last_note >= 10:
                    last_note = now
                    self.log(f"ply {_ply(key):2d}: book {len(self.book)}, {self.searches} searches, "
                             f"{now - start:7.1f} s")
                if now - last_save >= self.save_every:
                    self.save()
                    last_save = now
        except KeyboardInterrupt:
            self.save()
            self.log(f"interrupted: {len(self.book)} positions saved in {self.out}; --resume continues")
            raise
        finally:
            self.where.close()
        self.save()
        start_pos = Position.start()
        root = self.book.entries.get(canonical(start_pos.player, start_pos.opponent))
        value = f", start position {max(root.values()) / UNIT:+.2f}" if root else ""
        self.log(f"{'stopped by ' + why if why else 'done'}: {len(self.book)} positions, "
                 f"{sum(map(len, self.book.entries.values()))} moves, {self.searches} searches in "
                 f"{time.monotonic() - start:.1f} s{value}; saved {self.out}")
        return self.book


def build(out: Union[str, Path], **options: Any) -> LearnedBook:
    """Build (or with ``resume=True`` extend) the book in ``out``; see ``Builder``."""
    return Builder(out, **options).run()
