"""Fitting ProbCut's table (``engine/probcut.txt``, read by ``engine.probcut``) on self-play.

    python -m engine.fit.probcut fit --positions 1800 --depth 10 --seed 1

plays games against itself (random openings, then a depth-4 search on each
side), takes positions of every stage from them, searches each at every
depth up to ``--depth`` without ProbCut, and writes the table (by default the
shipped one).  ``python -m engine.fit.probcut show`` prints the installed table.
"""
import argparse
import math
import random
import sys
from pathlib import Path
from typing import Optional, TextIO, Union

from .. import files, patterns
from ..cliargs import file_name, output_file, whole
from . import jobs
from ..position import Position
from ..probcut import MAX_DEPTH, MIN_DEPTH, STAGES, T, TABLE, load, problem, stage


def sample_positions(count: int, seed: int) -> list[Position]:
    """Positions from self-play, about a third in each stage, none where the side to move passes."""
    from .._core import Searcher
    patterns.install()
    rng = random.Random(seed)
    wanted = [count // STAGES + (i < count % STAGES) for i in range(STAGES)]
    found: list[list[Position]] = [[] for _ in range(STAGES)]
    searcher = Searcher(18, 1)
    searcher.selective = False
    while any(len(found[i]) < wanted[i] for i in range(STAGES)):
        p = Position.start()
        for _ in range(rng.randint(2, 8)):
            p = p.play(rng.choice(p.legal_moves()))
        game = []
        while not p.is_game_over():
            if p.must_pass():
                p = p.play(-1)
                continue
            game.append(p)
            move = searcher.search(8, p.player, p.opponent, 4, 0.0, "patterns")[1]
            p = p.play(move)
        for q in rng.sample(game, min(6, len(game))):
            if q.empties() >= 12 and len(found[stage(q.empties())]) < wanted[stage(q.empties())]:
                found[stage(q.empties())].append(q)
    return [q for group in found for q in group]


def measure(position: Position, max_depth: int) -> Optional[list[int]]:
    """The search value at each depth 0..max_depth (no ProbCut), or None near a proven result."""
    from .._core import Searcher, evaluate
    values = [evaluate(position.player, position.opponent, "patterns")]
    for depth in range(1, max_depth + 1):
        searcher = Searcher(18, 1)
        searcher.selective = False
        value = searcher.search(8, position.player, position.opponent, depth, 0.0, "patterns")[0]
        if abs(value) >= 9000:
            return None
        values.append(value)
    return values


def _measure_job(args: tuple[int, int, int]) -> Optional[list[int]]:
    P, O, max_depth = args
    patterns.install()
    return measure(Position(8, P, O), max_depth)


def fit(count: int = 1800, max_depth: int = 10, seed: int = 1, out: Union[str, Path] = TABLE,
        stream: TextIO = sys.stdout, workers: int = 1, cluster: Optional[str] = None,
        journal: Optional[Union[str, Path]] = None) -> Union[str, Path]:
    """Fit the table on ``count`` positions searched to ``max_depth`` (a job each: ``engine.fit.jobs``
    on ``workers`` local processes or the Dask ``cluster``, kept in ``journal``); write it to ``out``."""
    positions = sample_positions(count, seed)
    diffs: dict[tuple[int, int], list[int]] = {}
    measured = jobs.run(_measure_job, [(p.player, p.opponent, max_depth) for p in positions], cluster=cluster,
                        workers=workers, journal=journal, label=f"probcut depth {max_depth}", progress=stream)
    for p, values in zip(positions, measured):
        if values is not None:
            for d in range(MIN_DEPTH, max_depth + 1):
                diffs.setdefault((stage(p.empties()), d), []).append(values[d] - values[d // 2])
    lines = [f"# ProbCut table: python -m engine.fit.probcut fit --positions {count} --depth {max_depth} "
             f"--seed {seed}",
             "# stage 0: 40+ empties, 1: 25-39, 2: fewer; bias and sigma of (value at depth d) - "
             "(value at d/2), in 1/4 disc; n positions",
             f"t {T}"]
    for (st, d), xs in sorted(diffs.items()):
        mean = sum(xs) / len(xs)
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / max(1, len(xs) - 1))
        lines.append(f"stage {st} depth {d} bias {mean:.1f} sigma {sd:.1f} n {len(xs)}")
    files.write_whole(out, ("\n".join(lines) + "\n").encode("ascii"))
    stream.write(f"wrote {out}\n")
    return out


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine.fit.probcut", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="fit the table on self-play and write it")
    f.add_argument("--positions", type=whole(10 * STAGES, 1_000_000), default=1800,
                   help=f"positions to search, {10 * STAGES}.. (default 1800)")
    f.add_argument("--depth", type=int, default=10, choices=range(MIN_DEPTH, MAX_DEPTH + 1), metavar="D",
                   help=f"deepest depth fitted, {MIN_DEPTH}..{MAX_DEPTH} (default 10)")
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--out", type=output_file, default=str(TABLE), help="where to write the table (default: the shipped one)")
    f.add_argument("--workers", type=whole(1, 256), default=1, help="local processes (default 1)")
    f.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="search on a Dask cluster: tcp://HOST:8786, or local:N (docs/training.md)")
    f.add_argument("--journal", type=file_name, default=None, metavar="DIR",
                   help="keep each position's values here; the same command again resumes")
    sub.add_parser("show", help="print the installed table")
    args = ap.parse_args(argv)
    if args.cmd == "fit":
        out = Path(args.out)
        try:
            jobs.Workers(args.cluster, args.workers).close()    # (checks the address, starts nothing)
            fit(args.positions, args.depth, args.seed, out, workers=args.workers, cluster=args.cluster,
                journal=args.journal)
        except OSError as e:    # (the journal's folder, or the table written)
            where = e.filename if e.filename is not None else out
            print(f"error: cannot write {where}: {e.strerror or e}", file=sys.stderr)
            return 2
        except (ValueError, RuntimeError) as e:     # a journal of another run, a bad --cluster
            print(f"error: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print(f"interrupted{jobs.RESUME if args.journal else ''}", file=sys.stderr)
            return 130
        return 0
    try:
        load(TABLE)
        print(TABLE.read_text(encoding="ascii"), end="")
    except (OSError, ValueError) as e:
        print(f"error: {problem(e, TABLE)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    jobs.run_main(main)
