"""The exact solver on FFO positions, on 1 and on N threads in the same run.

    python bench/solver.py ../shared/ffo/fforum-40-59.obf --first 5 --threads 1 2

Prints, for each position and thread count, the score (checked against the
file), nodes and seconds, then the totals and the speed-up of each thread
count over the first.  Each solve starts with an empty (cleared) hash table.  The
reference column is the plain C bitboard solver the issue compares with
(FFO #40-#44, one core, on the project's CI machine kind).
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Position, patterns  # noqa: E402
from engine.backend import compiled  # noqa: E402
from engine.options import threads_option  # noqa: E402

REFERENCE = {40: 0.44, 41: 1.32, 42: 2.51, 43: 2.66, 44: 2.18}   # seconds, plain C
REFERENCE_40_49 = 171.0


def positions(path, first, number_from):
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()[:first]):
        board, _, rest = line.partition(";")
        best = max(int(item.split(":")[1]) for item in rest.split(";") if ":" in item)
        yield number_from + i, Position.from_text(board.strip()), best


def _at_least_one(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {v}")
    return v


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", help="an .obf file (FFO #40-#59: fforum-40-59.obf)")
    ap.add_argument("--first", type=_at_least_one, default=5, help="the first N positions (default 5)")
    ap.add_argument("--number-from", type=int, default=40, help="the first position's FFO number (default 40)")
    ap.add_argument("--threads", type=threads_option, nargs="+", default=[1, 2], help="thread counts (default 1 2)")
    ap.add_argument("--repeat", type=_at_least_one, default=1, help="solves of each; the median time is shown")
    args = ap.parse_args(argv)
    if compiled is None:
        sys.exit("the compiled core is not built")
    try:
        todo = list(positions(args.file, args.first, args.number_from))
    except (OSError, UnicodeDecodeError, ValueError, IndexError) as e:
        sys.exit(f"cannot read the positions of {args.file}: {e}")
    if not todo:
        sys.exit(f"no positions in {args.file}")
    patterns.install()
    # One searcher per thread count, its table cleared before each solve: the cleared pages are
    # already mapped, so no solve pays for the first touch of a new table (page faults, which
    # threads of one process take one at a time).
    searchers = {t: compiled.Searcher(20, t) for t in args.threads}
    totals = {t: 0.0 for t in args.threads}
    nodes_total = {t: 0 for t in args.threads}
    print(f"{'#':>3} {'empties':>7} {'score':>5} " + " ".join(
        f"{f'{t} thr nodes':>14} {f'{t} thr s':>9}" for t in args.threads) + f" {'plain C':>8}")
    bad = 0
    for number, p, best in todo:
        row = f"{number:>3} {p.empties():>7} {best:>+5} "
        for t in args.threads:
            times = []
            for _ in range(args.repeat):
                searchers[t].clear()
                start = time.perf_counter()
                score, move, nodes, complete = searchers[t].solve(8, p.player, p.opponent)
                times.append(time.perf_counter() - start)
                if not complete or score != best:
                    bad += 1
                    print(f"#{number}: {t} threads gave {score}, expected {best}", file=sys.stderr)
            secs = statistics.median(times)
            totals[t] += secs
            nodes_total[t] += nodes
            row += f"{nodes:>14,} {secs:>9.2f} "
        ref = REFERENCE.get(number)
        print(row + (f"{ref:>8.2f}" if ref else f"{'':>8}"), flush=True)
    print("total " + " ".join(f"{t} thread(s): {nodes_total[t]:,} nodes {totals[t]:.2f} s"
                              for t in args.threads))
    base = args.threads[0]
    for t in args.threads[1:]:
        print(f"speed-up of {t} threads over {base}: {totals[base] / totals[t]:.2f}x")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
