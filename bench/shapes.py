"""Speed of the compiled core on the shaped boards beside the plain 8x8 one, in one run.

    python bench/shapes.py [--shapes Square-8 Heart ...] [--repeat 3] [--seconds 1]

For each board: perft from its start (every leaf made, at the first depth that takes
``--perft-time`` seconds or more; the bitboard, then the mailbox board at the same depth, once),
a one-thread midgame search of ``--seconds`` with the pattern evaluation from a position 10
random plies in (nodes/s, depth reached), and an exact solve from a position of the same game
with at most 20 empties (nodes/s).  Medians of ``--repeat`` runs; one core.
"""
import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import PASS, Position, Shape, backend, patterns  # noqa: E402
from engine.shape import names  # noqa: E402


def _median_time(f: Callable[[], object], repeat: int) -> tuple[object, float]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return out, statistics.median(times)


def _position(shape: Shape, plies: int, empties: int, seed: int) -> tuple[Position, Position]:
    """From one random game on ``shape`` (seeded): the position ``plies`` in, and the first
    with at most ``empties`` empties (both with a move to play)."""
    rng = random.Random(seed)
    p, mid, end = shape.start(), None, None
    ply = 0
    while not p.is_game_over():
        if mid is None and ply >= plies and p.legal_moves():
            mid = p
        if p.empties() <= empties and p.legal_moves():
            end = p
            break
        moves = p.legal_moves()
        p = p.play(rng.choice(moves) if moves else PASS)
        ply += 1
    if mid is None or end is None:
        return _position(shape, plies // 2, empties, seed + 1)
    return mid, end


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="*", default=names())
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0, help="midgame search time (default 1)")
    ap.add_argument("--perft-time", type=float, default=0.3)
    args = ap.parse_args()
    core = backend.compiled
    if core is None:
        print("the compiled core is not built")
        return 1
    patterns.install()
    print("| board | holes | perft depth | leaves | bitboard leaves/s | mailbox leaves/s "
          "| search nodes/s (depth) | solve empties | solve nodes/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.shapes:
        shape = Shape.named(name)
        s = shape.start()
        h = shape.holes
        depth, spent, leaves = 0, 0.0, 1
        while spent < args.perft_time and depth < 30:
            depth += 1
            t = time.perf_counter()
            leaves = core.perft(8, s.player, s.opponent, depth, holes=h)
            spent = time.perf_counter() - t
        _, bit = _median_time(lambda: core.perft(8, s.player, s.opponent, depth, holes=h), args.repeat)
        _, mail = _median_time(lambda: core.perft(8, s.player, s.opponent, depth, mailbox=True, holes=h), 1)
        mid, end = _position(shape, 10, 20, 1)
        rates, depths = [], []
        for _ in range(args.repeat):
            searcher = core.Searcher(20, 1)
            t = time.perf_counter()
            _, _, nodes, reached = searcher.search(8, mid.player, mid.opponent, 60, args.seconds, "patterns", h)
            rates.append(nodes / (time.perf_counter() - t))
            depths.append(reached)
        solve_rates = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            _, _, nodes, _ = core.solve(8, end.player, end.opponent, holes=h)
            solve_rates.append(nodes / max(1e-9, time.perf_counter() - t))
        print(f"| {name} | {h.bit_count()} | {depth} | {leaves:,} | {leaves / bit / 1e6:.1f} M "
              f"| {leaves / mail / 1e6:.1f} M | {statistics.median(rates) / 1e6:.2f} M "
              f"({statistics.median(depths)}) | {end.empties()} | {statistics.median(solve_rates) / 1e6:.1f} M |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
