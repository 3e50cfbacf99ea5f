"""The exact solver on FFO positions, on 1 and on N threads in the same run.

    python bench/solver.py ../shared/ffo/fforum-40-59.obf --first 5 --threads 1 2

Prints, for each position and thread count, the best move and the score (both
checked against the file), nodes, seconds and nodes per second, then the
totals and the speed-up of each thread count over the first.  Each solve
starts with an empty (cleared) hash table of 2**--hash-bits entries (default
25, 1 GiB: the size both published runs below used).  Beside them: the plain C bitboard
solver compared with (seconds, FFO #40-#44, one core, on the
project's CI machine kind) and the node counts two published engines give
for FFO #40-#59 (see PUBLISHED).
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Position, notation, patterns  # noqa: E402
from engine.backend import compiled  # noqa: E402
from engine.options import threads_option  # noqa: E402

REFERENCE = {40: 0.44, 41: 1.32, 42: 2.51, 43: 2.66, 44: 2.18}   # seconds, plain C
REFERENCE_40_49 = 171.0

# Nodes per position, FFO #40-#59, as published on Egaroucid's benchmark pages (many threads,
# which adds nodes rather than removing them):
# - Egaroucid 7.6.0 (AVX512 edition, Core i9-11900K, -thread 26, -hash 25, no book):
#   https://www.egaroucid.nyanyan.dev/en/technology/benchmarks/7_6_0/
#   files/100_ffo40_59_Core_i9-11900K_AVX512.txt
# - Edax 4.5.5 (x64, Core i9-11900K, -n 16, -h 25):
#   https://www.egaroucid.nyanyan.dev/en/technology/benchmarks/7_8_0/
#   files/112_ffo40_59_Core_i9-11900K_edax_x64.txt
PUBLISHED = {
    "Egaroucid 7.6.0": dict(zip(range(40, 60), [
        10547921, 12853101, 20708764, 23504904, 11286061, 206904897, 38255588, 12839663,
        104611974, 188599206, 550168964, 155365605, 226863453, 1508410122, 1843884612,
        5729728165, 540316452, 1142254950, 734114143, 250859])),
    "Edax 4.5.5": dict(zip(range(40, 60), [
        10614740, 22072985, 28458486, 85805673, 19972604, 272894511, 62314637, 19220138,
        155792580, 386501937, 960436715, 419098962, 651163997, 2839518291, 4021545566,
        11417138668, 1320650707, 1620336000, 1879491102, 958308])),
}


def positions(path, first, number_from):
    """(FFO number, position, exact score, the best moves' names) of each line."""
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()[:first]):
        board, _, rest = line.partition(";")
        scores = {}
        for item in rest.split(";"):
            name, sep, score = item.strip().partition(":")
            if sep:
                scores[name.lower()] = int(score)
        best = max(scores.values())
        yield number_from + i, Position.from_text(board.strip()), best, {n for n, v in scores.items() if v == best}


def _memory():
    """This machine's memory in bytes (0: not known here)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 0


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
    ap.add_argument("--hash-bits", type=int, default=25, choices=range(10, 31), metavar="10..30",
                    help="hash table of 2**N entries of 32 bytes, one for each thread count "
                         "(default 25: 1 GiB each, as the published runs)")
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
    need = len(args.threads) * 32 << args.hash_bits     # one table for each thread count
    have = _memory()
    if have and need > have // 2:
        sys.exit(f"{len(args.threads)} hash table(s) of 2**{args.hash_bits} entries need {need / 2**30:.1f} GiB, "
                 f"over half of this machine's {have / 2**30:.1f} GiB: give a smaller --hash-bits")
    try:
        searchers = {t: compiled.Searcher(args.hash_bits, t) for t in args.threads}
    except MemoryError:
        sys.exit(f"no memory for a hash table of 2**{args.hash_bits} entries: try a smaller --hash-bits")
    totals = {t: 0.0 for t in args.threads}
    nodes_total = {t: 0 for t in args.threads}
    published_total = {name: 0 for name in PUBLISHED}
    print(f"{'#':>3} {'empties':>7} {'exact':>5} " + " ".join(
        f"{'move':>4} {'score':>5} {f'{t} thr nodes':>14} {f'{t} thr s':>9} {'M nodes/s':>9}"
        for t in args.threads) + f" {'plain C':>8} " + " ".join(f"{name:>16}" for name in PUBLISHED))
    bad = 0
    for number, p, best, best_moves in todo:
        row = f"{number:>3} {p.empties():>7} {best:>+5} "
        for t in args.threads:
            times = []
            for _ in range(args.repeat):
                searchers[t].clear()
                start = time.perf_counter()
                score, move, nodes, complete = searchers[t].solve(8, p.player, p.opponent)
                times.append(time.perf_counter() - start)
                name = notation.square_name(move)
                if not complete or score != best or name not in best_moves:
                    bad += 1
                    print(f"#{number}: {t} threads gave {name} {score:+}, expected {best:+} by "
                          f"{' or '.join(sorted(best_moves))}", file=sys.stderr)
            secs = statistics.median(times)
            totals[t] += secs
            nodes_total[t] += nodes
            row += f"{name:>4} {score:>+5} {nodes:>14,} {secs:>9.2f} {nodes / secs / 1e6:>9.1f} "
        ref = REFERENCE.get(number)
        row += f"{ref:>8.2f} " if ref else f"{'':>8} "
        for label, counts in PUBLISHED.items():
            count = counts.get(number)
            published_total[label] += count or 0
            row += f"{count:>16,} " if count else f"{'(none)':>16} "
        print(row.rstrip(), flush=True)
    print("total " + " ".join(f"{t} thread(s): {nodes_total[t]:,} nodes {totals[t]:.2f} s"
                              for t in args.threads))
    print("published for these positions: " + ", ".join(
        f"{label} {count:,} nodes" for label, count in published_total.items()))
    base = args.threads[0]
    for t in args.threads[1:]:
        print(f"speed-up of {t} threads over {base}: {totals[base] / totals[t]:.2f}x")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
