"""ProbCut's table: how far a search at depth d/2 lands from one at depth d, fitted on self-play.

The compiled midgame search (with the trained patterns) skips a node at depth
d, 3 <= d <= 12, when a search at depth d/2 is more than ``t`` standard
deviations outside the window (Buro's ProbCut, with one test a node).  The
table here holds, for each depth and stage of the game (40 or more empty
squares, 25 to 39, fewer), the mean and the standard deviation of
(value at depth d) - (value at depth d/2), in evaluation units (1/4 disc).

    python -m engine.probcut fit --positions 150 --depth 10 --seed 1

plays games against itself (random openings, then a depth-4 search on each
side), takes positions of every stage from them, searches each at every
depth up to ``--depth`` without ProbCut, and writes ``probcut.txt`` beside
this file.  Depths beyond the fitted ones get no cut.
"""
import argparse
import math
import os
import random
import sys
from pathlib import Path

TABLE = Path(__file__).with_name("probcut.txt")
T = 1.5                 # standard deviations that make a cut
STAGES = 3
MAX_DEPTH = 12
MIN_DEPTH = 3


def stage(empties):
    return 0 if empties >= 40 else (1 if empties >= 25 else 2)


def load(path=TABLE):
    """``(t, biases, sigmas)`` from a table file; ValueError on anything malformed."""
    t = None
    biases = [[0] * (MAX_DEPTH + 1) for _ in range(STAGES)]
    sigmas = [[0] * (MAX_DEPTH + 1) for _ in range(STAGES)]
    for number, line in enumerate(Path(path).read_text(encoding="ascii").splitlines(), 1):
        words = line.split("#")[0].split()
        if not words:
            continue
        try:
            if words[0] == "t" and len(words) == 2:
                t = float(words[1])
                if not 0 <= t <= 10:
                    raise ValueError
                continue
            if words[0] != "stage" or len(words) < 8 or words[2] != "depth" or words[4:8:2] != ["bias", "sigma"]:
                raise ValueError
            st, depth = int(words[1]), int(words[3])
            bias, sigma = float(words[5]), float(words[7])
            if not (0 <= st < STAGES and MIN_DEPTH <= depth <= MAX_DEPTH and abs(bias) < 4000
                    and 0 <= sigma < 4000):
                raise ValueError
        except ValueError:
            raise ValueError(f"{path}: line {number} is not a ProbCut entry: {line[:80]!r}") from None
        biases[st][depth] = round(bias)
        sigmas[st][depth] = max(1, round(sigma))
    if t is None:
        raise ValueError(f"{path}: no 't' line")
    return t, biases, sigmas


def install(path=TABLE):
    """Give the table to the compiled search; False (and no cuts) without a core or a usable file."""
    try:
        from . import _core
    except ImportError:
        return False
    try:
        t, biases, sigmas = load(path)
    except (OSError, ValueError):
        _core.set_probcut([[0] * (MAX_DEPTH + 1)] * STAGES, [[0] * (MAX_DEPTH + 1)] * STAGES, 0)
        return False
    _core.set_probcut(sigmas, biases, t)
    return True


def sample_positions(count, seed):
    """Positions from self-play, about a third in each stage, none where the side to move passes."""
    from . import patterns
    from ._core import Searcher
    from .position import Position
    patterns.install()
    rng = random.Random(seed)
    wanted = [count // STAGES + (i < count % STAGES) for i in range(STAGES)]
    found = [[] for _ in range(STAGES)]
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


def measure(position, max_depth):
    """The search value at each depth 0..max_depth (no ProbCut), or None near a proven result."""
    from ._core import Searcher, evaluate
    values = [evaluate(position.player, position.opponent, "patterns")]
    for depth in range(1, max_depth + 1):
        searcher = Searcher(18, 1)
        searcher.selective = False
        value = searcher.search(8, position.player, position.opponent, depth, 0.0, "patterns")[0]
        if abs(value) >= 9000:
            return None
        values.append(value)
    return values


def fit(count=150, max_depth=10, seed=1, out=TABLE, stream=sys.stdout):
    positions = sample_positions(count, seed)
    diffs = {}
    for i, p in enumerate(positions, 1):
        values = measure(p, max_depth)
        if values is not None:
            for d in range(MIN_DEPTH, max_depth + 1):
                diffs.setdefault((stage(p.empties()), d), []).append(values[d] - values[d // 2])
        stream.write(f"\r{i}/{len(positions)} positions searched to depth {max_depth}")
        stream.flush()
    stream.write("\n")
    lines = [f"# ProbCut table: python -m engine.probcut fit --positions {count} --depth {max_depth} "
             f"--seed {seed}",
             "# stage 0: 40+ empties, 1: 25-39, 2: fewer; bias and sigma of (value at depth d) - "
             "(value at d/2), in 1/4 disc; n positions",
             f"t {T}"]
    for (st, d), xs in sorted(diffs.items()):
        mean = sum(xs) / len(xs)
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / max(1, len(xs) - 1))
        lines.append(f"stage {st} depth {d} bias {mean:.1f} sigma {sd:.1f} n {len(xs)}")
    scratch = Path(out).with_name(Path(out).name + ".new")
    scratch.write_text("\n".join(lines) + "\n", encoding="ascii")
    os.replace(scratch, out)
    stream.write(f"wrote {out}\n")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m engine.probcut", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="fit the table on self-play and write it")
    f.add_argument("--positions", type=int, default=150, help="positions to search (default 150)")
    f.add_argument("--depth", type=int, default=10, choices=range(MIN_DEPTH, MAX_DEPTH + 1), metavar="D",
                   help=f"deepest depth fitted, {MIN_DEPTH}..{MAX_DEPTH} (default 10)")
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--out", default=str(TABLE), help="where to write the table (default: the shipped one)")
    sub.add_parser("show", help="print the installed table")
    args = ap.parse_args(argv)
    if args.cmd == "fit":
        out = Path(args.out)
        if args.positions < 10 * STAGES:
            ap.error(f"--positions must be at least {10 * STAGES} (10 for each stage of the game)")
        if out.is_dir() or not out.parent.is_dir() or not os.access(out.parent, os.W_OK):
            ap.error(f"--out: cannot write a file there: {out}")
        try:
            fit(args.positions, args.depth, args.seed, out)
        except OSError as e:
            print(f"error: cannot write {out}: {e}", file=sys.stderr)
            return 2
        return 0
    print(TABLE.read_text(encoding="ascii"), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
