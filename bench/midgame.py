"""The midgame search: nodes and CPU seconds to reach a fixed depth, one thread.

    python bench/midgame.py [--depth 12] [--count 40] [--plies 20 32] [--seed 1]

The positions do not depend on the engine: each of the first ``--count``
balanced openings of bench/openings.txt, played on with random legal moves
(seeded) to each ply of ``--plies``.  Each search has a new one-thread
``Searcher`` (an empty hash table), the trained patterns and ProbCut, as
`best` searches, and no time limit.  Node counts are exact (one thread: the
same tree every run), so two revisions compare by their nodes; CPU seconds
(``time.process_time``) are printed beside them.
"""
import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import PASS, Position, patterns  # noqa: E402
from engine.backend import compiled  # noqa: E402
from engine.cliargs import whole  # noqa: E402

OPENINGS = Path(__file__).with_name("openings.txt")


def positions(count: int, plies: "list[int]", seed: int) -> "list[tuple[str, Position]]":
    """(label, position) for each opening and ply, the same for every revision."""
    out = []
    lines = [ln.split("#")[0].strip() for ln in OPENINGS.read_text(encoding="utf-8").splitlines()]
    lines = [ln for ln in lines if ln][:count]
    for i, moves in enumerate(lines):
        for ply in plies:
            rng = random.Random(f"{seed}/{i}/{ply}")
            p = Position.start()
            for k in range(0, len(moves), 2):
                p = p.play(moves[k:k + 2])
            while 64 - p.empties() - 4 < ply and not p.is_game_over():
                legal = p.legal_moves()
                p = p.play(rng.choice(legal) if legal else PASS)
            if not p.is_game_over() and p.legal_moves():
                out.append((f"{i + 1}/{ply}", p))
    return out


def main(argv: "list[str] | None" = None) -> int:
    ap = argparse.ArgumentParser(prog="python bench/midgame.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=whole(1, 30), default=12, help="depth searched, 1..30 (default 12)")
    ap.add_argument("--count", type=whole(1, 200), default=40, help="openings used, 1..200 (default 40)")
    ap.add_argument("--plies", type=whole(8, 50), nargs="+", default=[20, 32],
                    help="plies played from the start, 8..50 (default 20 32)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-probcut", action="store_true", help="search every move (no ProbCut)")
    ap.add_argument("--verbose", action="store_true", help="a line for each position")
    a = ap.parse_args(argv)
    if compiled is None or not patterns.install():
        print("needs the compiled core and the pattern weights", file=sys.stderr)
        return 2
    total_nodes, total_cpu = 0, 0.0
    by_ply: "dict[str, list[float]]" = {}
    for label, p in positions(a.count, a.plies, a.seed):
        s = compiled.Searcher(20, 1)
        s.selective = not a.no_probcut
        t = time.process_time()
        score, move, nodes, depth = s.search(8, p.player, p.opponent, a.depth, 0.0, "patterns", 0)
        cpu = time.process_time() - t
        total_nodes += nodes
        total_cpu += cpu
        ply = label.split("/")[1]
        by_ply.setdefault(ply, [0, 0.0])
        by_ply[ply][0] += nodes
        by_ply[ply][1] += cpu
        if a.verbose:
            print(f"{label:>7} depth {depth} score {score / 4:+6.2f} move {move:2d} nodes {nodes:>11,} {cpu:6.2f} s")
    for ply, (nodes, cpu) in by_ply.items():
        print(f"ply {ply:>3}: {int(nodes):>14,} nodes {cpu:8.2f} s CPU")
    print(f"all    : {total_nodes:>14,} nodes {total_cpu:8.2f} s CPU "
          f"({total_nodes / max(total_cpu, 1e-9) / 1e6:.2f} M nodes/s), depth {a.depth}, ProbCut "
          f"{'off' if a.no_probcut else 'on'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
