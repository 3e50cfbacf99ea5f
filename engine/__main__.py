"""Command line: ``python -m engine {info,perft,bench,move,solve,tournament,nboard,book}``."""
import argparse
import os
import sys
import time
from typing import Callable, Iterator, Optional

STARTED = time.monotonic()   # move: its --time counts from here, the start-up and imports included

from . import backend
from .backend import Core
from .cliargs import number, output_file, program, reader_gone, seconds, whole
from .options import shape_option, size_option, threads_option
from .position import Position
from .shape import Shape

PUBLISHED = [1, 4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284,
             212258800, 1939886636]


MAX_DEPTH = 999          # perft: deeper than any game on the largest board is long
MAX_REQUEST = 1 << 20    # move: bytes of the request read from stdin at most


def cmd_info(args: argparse.Namespace) -> None:
    import platform
    print(f"rules core : {backend.core.NAME}")
    if backend.compiled is None:
        print("compiled   : not built (no C compiler at install time?); "
              "reinstall with a compiler for the fast path")
    else:
        from . import _core
        print(f"compiled   : built ({_core.__file__})")
        if backend.core is backend.pure:
            print("             not in use: OTHELLO_ENGINE=pure is set")
    from . import book
    learned = book.learned()
    print("book       : " + (f"{len(learned):,} positions ({book.BOOK.name})" if learned is not None
                             else f"none, the named openings only ({book.learned_error()})"))
    from . import patterns
    try:
        use = ("the evaluation of best" if backend.compiled is not None and backend.core is backend.compiled
               else "not used by best without the compiled core")
        print(f"weights    : {patterns.stages(patterns.load())} stages of patterns ({patterns.WEIGHTS.name}), {use}")
    except (OSError, ValueError) as e:
        problem = e if isinstance(e, ValueError) else f"{patterns.WEIGHTS}: {e.strerror or e}"
        print(f"weights    : not in use ({problem}); best plays with the hand-written evaluation")
    from . import probcut
    try:
        probcut.load(probcut.TABLE)
        print(f"probcut    : {probcut.TABLE.name}, the selective search of best")
    except (OSError, ValueError) as e:
        print(f"probcut    : not in use ({probcut.problem(e, probcut.TABLE)}); best searches without its cuts")
    print(f"python     : {platform.python_implementation()} {platform.python_version()}")
    print(f"machine    : {platform.machine()} {platform.system()}")


def _core_for(args: argparse.Namespace) -> Core:
    if args.pure:
        return backend.pure
    return backend.core


def _board(args: argparse.Namespace) -> Shape:
    """The board of ``--shape``, else the plain one of ``--size``."""
    return args.shape or Shape.square(args.size or 8)


def cmd_perft(args: argparse.Namespace) -> int:
    core = _core_for(args)
    board = _board(args)
    start = board.start()
    n2 = board.size
    print(f"perft on {board.describe()}, {core.NAME} core"
          f"{', bulk counting' if args.bulk else ''}")
    total = 0.0
    for d in range(1, args.depth + 1) if args.all else [args.depth]:
        t = time.perf_counter()
        n = core.perft(n2, start.player, start.opponent, d, args.bulk, holes=start.holes)
        dt = time.perf_counter() - t
        total += dt
        check = ""
        if n2 == 8 and board.is_plain() and d < len(PUBLISHED):
            check = "  ok" if n == PUBLISHED[d] else f"  MISMATCH: published {PUBLISHED[d]}"
        rate = f"{n / dt:,.0f} leaves/s" if dt > 0 else "-"
        print(f"depth {d:2d}: {n:>14,}  {dt:8.3f} s  {rate}{check}")
        if check.startswith("  MIS"):
            return 1
    return 0


def _rate(core: Core, depth: int, bulk: bool, repeat: int) -> tuple[int, float, float]:
    import statistics
    p = Position.start(8)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        n = core.perft(8, p.player, p.opponent, depth, bulk)
        times.append(time.perf_counter() - t)
    if n != PUBLISHED[depth]:
        raise SystemExit(f"perft {depth} gave {n}, published {PUBLISHED[depth]}")
    med = statistics.median(times)
    return n, med, n / med


def cmd_bench(args: argparse.Namespace) -> None:
    """Perft speed on 8x8: compiled without and with bulk counting, and pure Python, in one run."""
    import platform
    print(f"engine bench: {platform.machine()}, {platform.python_implementation()} "
          f"{platform.python_version()}, median of {args.repeat} runs each")
    rows: list[tuple[str, Core, int, bool]] = []
    if backend.compiled is not None:
        rows.append(("compiled, every leaf made", backend.compiled, args.depth, False))
        rows.append(("compiled, bulk counting", backend.compiled, args.depth, True))
    else:
        print("(compiled core not built: pure-Python figures only)")
    rows.append(("pure Python, every leaf made", backend.pure, args.pure_depth, False))
    rows.append(("pure Python, bulk counting", backend.pure, args.pure_depth, True))
    for label, core, depth, bulk in rows:
        n, secs, rate = _rate(core, depth, bulk, args.repeat)
        print(f"{label:30s} depth {depth:2d} {n:>12,} leaves {secs:8.3f} s "
              f"{rate / 1e6:10.3f} M leaves/s")
        sys.stdout.flush()


def _threads_for(ai: str, threads: Optional[int]) -> None:
    from . import strategies
    if threads and not strategies.uses_threads(ai):
        raise ValueError(f"--threads is for --ai best, not {ai}")


def cmd_move(args: argparse.Namespace) -> int:
    """One-shot: read a position on stdin, print the AI's move as ``x y``."""
    from . import oneshot, strategies
    from .notation import PASS
    try:
        _threads_for(args.ai, args.threads)
        if sys.stdin is None:
            raise ValueError("no standard input to read the position from (it is closed)")
        request = sys.stdin.read(MAX_REQUEST + 1)
        if len(request) > MAX_REQUEST:
            raise ValueError(f"the request on stdin is longer than {MAX_REQUEST} characters")
        position = oneshot.parse_request(request)
        # (one's own AI loads within the move's time: a slow one's move is the greedy player's)
        table = {"hash_bits": strategies.one_shot_hash_bits(args.time)} if args.ai.lower() == "best" else {}
        ai = strategies.get(args.ai, threads=args.threads,
                            load_limit=max(0.01, args.time - (time.monotonic() - STARTED)), **table)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    move = ai.next_move(position, max(0.01, args.time - (time.monotonic() - STARTED)))
    problem = getattr(ai, "problem", "")
    if problem:         # one's own AI that failed: the greedy player's move, and why
        print(f"warning: {problem}; the greedy player's move instead", file=sys.stderr)
    if move == PASS:
        print("error: no legal move (the side to move must pass)", file=sys.stderr)
        return 3
    try:
        if sys.stdout is None:
            raise OSError("standard output is closed")
        print(f"{move % position.size} {move // position.size}", flush=True)
    except OSError as e:        # (a full disk, a closed output)
        if reader_gone(e):
            raise
        print(f"error: the move cannot be written: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


MAX_OBF = 4 * 1024 * 1024     # bytes: the FFO files are 5 KB a hundred positions


def _obf_lines(source: str) -> Iterator[tuple[str, str, dict[str, int]]]:
    """(label, position text, expected {move: score}) from an .obf file or one position string."""
    from pathlib import Path
    if not source.strip():
        raise ValueError("no position: give a position string or an .obf file")
    p = Path(source)
    if p.suffix == ".obf" or (p.exists() and not source.strip().startswith(("-", "X", "O"))):
        if not p.exists():
            raise ValueError(f"cannot read {source}: no such file")
        if not p.is_file():         # a folder, a device (/dev/zero), a FIFO: never opened
            raise ValueError(f"cannot read {source}: not a regular file")
        try:
            with open(p, "rb") as f:
                data = f.read(MAX_OBF + 1)
        except OSError as e:
            raise ValueError(f"cannot read {source}: {e.strerror or e}") from None
        if len(data) > MAX_OBF:
            raise ValueError(f"{source} is longer than {MAX_OBF // 1024 // 1024} MB: not an .obf file")
        lines = data.decode("utf-8", "replace").splitlines()
        label = p.name
    else:
        lines, label = [source], "position"
    for i, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("%") or (line.startswith("#") and not _is_board(line)):
            continue
        board, _, rest = line.partition(";")
        expected = {}
        for item in rest.split(";"):
            mv, sep, sc = item.strip().partition(":")
            if sep:
                try:
                    expected[mv.strip().lower()] = int(sc)
                except ValueError:
                    pass
        yield f"{label}:{i}", board.strip(), expected


def _is_board(line: str) -> bool:
    """Whether a line starting with '#' is a position (a hole in a1), not a comment."""
    words = line.split(";")[0].split()
    from .notation import BLACK_CHARS, EMPTY_CHARS, HOLE_CHAR, WHITE_CHARS
    cells = words[0] if words else ""
    return (len(cells) in {n * n for n in range(4, 27, 2)}
            and set(cells) <= set(BLACK_CHARS) | set(WHITE_CHARS) | set(EMPTY_CHARS) | {HOLE_CHAR})


def cmd_solve(args: argparse.Namespace) -> int:
    """Exact scores of .obf positions (or one position string)."""
    import json
    from .notation import square_name
    from .strategies import default_threads, solve, solve_within
    if backend.compiled is None:
        print("note: the compiled core is not built; solving on the pure-Python path is very slow",
              file=sys.stderr)
    bad = 0
    total_nodes, total_time = 0, 0.0
    try:
        items = list(_obf_lines(args.source))[:args.first]
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for label, board, expected in items:
        try:
            p = Position.from_text(board)
        except ValueError as e:
            print(f"{label}: not a position: {e}", file=sys.stderr)
            bad += 1
            continue
        t = time.perf_counter()
        if args.time:
            score, move, nodes, complete = solve_within(p, args.time, args.threads or default_threads())
        else:
            score, move, nodes, complete = solve(p, 0.0, args.threads or default_threads())
        dt = time.perf_counter() - t
        total_nodes += nodes
        total_time += dt
        name = square_name(move, p.size) if move is not None and move >= 0 else "pass"
        check = ""
        if expected and score is not None and complete:
            best = max(expected.values())
            ok = score == best and expected.get(name, best) == best
            check = "ok" if ok else f"MISMATCH (expected {best})"
            bad += not ok
        if not complete:
            check = "estimate: not solved in time"
        if args.json:
            print(json.dumps({"position": label, "score": score, "move": name, "nodes": nodes,
                              "seconds": round(dt, 4), "complete": complete, "exact": complete}))
        else:
            shown = f"{score:+d}" if complete else f"~{score:+d}"
            print(f"{label:24s} score {shown:>4} move {name:4s} "
                  f"{nodes:>12,} nodes {dt:8.3f} s {nodes / dt / 1e6 if dt else 0:6.1f} M nodes/s  {check}")
    if not args.json and len(items) > 1:
        print(f"total: {total_nodes:,} nodes in {total_time:.2f} s "
              f"({total_nodes / total_time / 1e6 if total_time else 0:.1f} M nodes/s)")
    return 1 if bad else 0


def cmd_tournament(args: argparse.Namespace) -> int:
    from . import tournament
    try:
        tournament.run(args.names, args.games, args.time, plies=args.opening, seed=args.seed,
                       workers=args.workers, out=args.out, gauntlet=args.gauntlet, shape=_board(args))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def cmd_nboard(args: argparse.Namespace) -> int:
    from . import nboard, strategies
    try:
        strategies.get(args.ai)
        _threads_for(args.ai, args.threads)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return nboard.run(args.ai, args.time, threads=args.threads)


def cmd_book(args: argparse.Namespace) -> int:
    """The learned opening book: build, show, check."""
    from . import book
    from .position import IllegalMove
    if args.book_cmd == "build":
        from .fit import book as bookbuild
        if args.cluster is not None and args.workers != 1:
            print("error: --workers is for this machine; a --cluster has its own workers", file=sys.stderr)
            return 2
        try:
            bookbuild.build(args.out, plies=args.plies, depth=args.depth, width=args.width, seed=args.seed,
                            positions=args.positions or None, minutes=args.minutes, resume=args.resume,
                            log=lambda line: print(line, flush=True), workers=args.workers, cluster=args.cluster)
        except (ValueError, RuntimeError) as e:  # BookError is a ValueError
            print(f"error: {e}", file=sys.stderr)
            return 2
        except OSError as e:
            print(f"error: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            _leaving()
            return 130
        return 0
    if args.book_cmd == "show":
        try:
            lines = book.show(book.load(args.file), args.moves)
        except (ValueError, IllegalMove) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print("\n".join(lines))
        return 0
    try:
        s = book.check(args.file)
    except book.BookError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{args.file}: good: {s['positions']:,} positions, {s['moves']:,} moves, positions up to ply "
          f"{s['deepest']}, {s['bytes']:,} bytes (built with --plies {s['plies']} --depth {s['depth']} "
          f"--width {s['width']:g} --seed {s['seed']})"
          + ("" if s["root"] is None else f"; start position {s['root']:+.2f}"))
    return 0


def _board_options(p: argparse.ArgumentParser) -> None:
    board = p.add_mutually_exclusive_group()
    # default None, not 8: argparse takes "--size 8" for the default and lets --shape by
    board.add_argument("--size", type=size_option, default=None, help="even board size 4..26 (default 8)")
    board.add_argument("--shape", type=shape_option, default=None, metavar="NAME|FILE",
                       help="a shaped board: a built-in name (Heart, X, Torus, ...; any case when only one "
                            "name matches) or a picture file ('#' hole, 'X' black, 'O' white, '.' empty)")


def _info_options(p: argparse.ArgumentParser) -> None:
    """``info`` takes no options."""


def _perft_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("depth", type=whole(0, MAX_DEPTH), help=f"plies to search, 0..{MAX_DEPTH} (a pass counts as a ply)")
    _board_options(p)
    p.add_argument("--bulk", action="store_true", help="count the last ply without making its moves")
    p.add_argument("--pure", action="store_true", help="use the pure-Python core")
    p.add_argument("--all", action="store_true", help="print every depth from 1")


def _bench_options(b: argparse.ArgumentParser) -> None:
    b.add_argument("--depth", type=whole(0, len(PUBLISHED) - 1), default=10,
                   help=f"depth for the compiled core, 0..{len(PUBLISHED) - 1} (default 10)")
    b.add_argument("--pure-depth", type=whole(0, len(PUBLISHED) - 1), default=7,
                   help=f"depth for the pure-Python core, 0..{len(PUBLISHED) - 1} (default 7)")
    b.add_argument("--repeat", type=whole(1, 1000), default=3,
                   help="runs per figure, 1..1000; the median is shown (default 3)")


def _move_options(mv: argparse.ArgumentParser) -> None:
    mv.description = ("stdin: side to move (1 black, -1 white), board size, then the rows of cells (0 empty, "
                      "1 black, -1 white, # a hole of a shaped board). stdout: 'x y', 0-based column and row.")
    mv.add_argument("--ai", default="alphabeta", help="strategy name (default alphabeta)")
    mv.add_argument("--time", type=seconds, default=1.0,
                    help="seconds for the answer, this command's start-up included (default 1)")
    mv.add_argument("--threads", type=threads_option, default=None, metavar="N",
                    help="search threads for --ai best (default: every core)")


def _solve_options(so: argparse.ArgumentParser) -> None:
    so.description = ("Each line of an .obf file: 64 cells (X black, O white, - empty, # a hole of a shaped "
                      "board), a space, the side to move, then optionally ';' and known 'move:score' pairs, "
                      "which are checked.")
    so.add_argument("source", help="FILE.obf, or a position like '--XXXXX--...OO-- X'")
    so.add_argument("--json", action="store_true", help="one JSON object per position")
    so.add_argument("--time", type=seconds, default=None,
                    help="seconds per position: when the exact solve does not finish, the best estimate "
                         "so far (midgame search) is printed as ~SCORE, marked 'estimate'")
    so.add_argument("--threads", type=threads_option, default=None, metavar="N",
                    help="search threads (default: every core)")
    so.add_argument("--first", type=whole(1, 10 ** 9), default=None, metavar="N",
                    help="only the first N positions of the file")


def _tournament_options(t: argparse.ArgumentParser) -> None:
    from . import tournament
    t.add_argument("names", nargs="+", help="strategy names (python -m engine tournament random greedy best)")
    t.add_argument("--games", type=whole(1, tournament.MAX_GAMES), default=10,
                   help=f"games per pair, 1..{tournament.MAX_GAMES}, colours alternating (default 10)")
    t.add_argument("--time", type=seconds, default=0.5, help="seconds per move (default 0.5)")
    _board_options(t)
    t.add_argument("--opening", type=whole(0, tournament.max_opening(26)), default=4,
                   help="random plies before the players start, at most the board's squares - 5 "
                        "(59 on 8x8; default 4)")
    t.add_argument("--seed", type=whole(0, 2 ** 64 - 1), default=1, help="seed of the random openings (default 1)")
    t.add_argument("--workers", type=whole(1, tournament.MAX_WORKERS), default=2,
                   help=f"processes playing at once, 1..{tournament.MAX_WORKERS} (default 2)")
    t.add_argument("--out", type=output_file, default=None,
                   help="save the games (GGF, one per line) to this file (checked before the games start)")
    t.add_argument("--gauntlet", action="store_true", help="the first name plays each of the others (no round robin)")


def _nboard_options(nb: argparse.ArgumentParser) -> None:
    nb.description = ("Give this command to an NBoard-compatible GUI as the engine "
                      "(e.g. 'python -m engine nboard --ai best --time 5').")
    nb.add_argument("--ai", default="best", help="strategy name (default best)")
    nb.add_argument("--time", type=seconds, default=2.0, help="seconds per move and per hint (default 2)")
    nb.add_argument("--threads", type=threads_option, default=None, metavar="N",
                    help="search threads for --ai best (default: every core)")


def _book_options(bk: argparse.ArgumentParser) -> None:
    from .book import BOOK
    from .fit import book as bookbuild
    bk.description = ("The learned opening book (engine/book.bin.gz) that 'best' plays from: positions under "
                      "the board's symmetries, every move valued in discs by a deep search and the book's "
                      "negamax. See docs/ai.md.")
    bsub = bk.add_subparsers(dest="book_cmd", required=True)
    bb = bsub.add_parser("build", help="build (or --resume) a book by searching deviations from the start",
                         description="From the start position, every book position within the first --plies "
                                     "plies has all its moves searched; moves within --width discs of the best "
                                     "lead to new book positions; the rest are valued by a --depth search; the "
                                     "values are backed up by negamax. Deterministic for the same options; "
                                     "saved every minute and when interrupted.")
    bb.add_argument("--out", type=output_file, default=str(BOOK),
                    help="the book file, new unless --resume (default: the shipped engine/book.bin.gz)")
    bb.add_argument("--plies", type=whole(*bookbuild.LIMITS["plies"]), default=11,
                    help="book positions within the first N plies, 1..60 (default 11)")
    bb.add_argument("--depth", type=whole(*bookbuild.LIMITS["depth"]), default=10,
                    help="search depth of the leaves, 1..60 (default 10)")
    bb.add_argument("--width", type=number(*bookbuild.LIMITS["width"]), default=2.0,
                    help="expand moves within W discs of the best, 0..64 in quarter discs (default 2)")
    bb.add_argument("--seed", type=whole(*bookbuild.LIMITS["seed"]), default=1,
                    help="orders equally good candidates, 0..2**32-1 (default 1)")
    bb.add_argument("--positions", type=whole(*bookbuild.LIMITS["positions"]), default=1000,
                    help="stop at this many book positions (default 1000; 0: no limit)")
    bb.add_argument("--minutes", type=number(*bookbuild.LIMITS["minutes"]), default=None,
                    help="stop after this many minutes")
    bb.add_argument("--resume", action="store_true",
                    help="continue from the book in --out (same --depth, --width, --seed; without it --out "
                         "must not exist)")
    bb.add_argument("--workers", type=whole(1, 256), default=1,
                    help="search the leaves on N local processes (default 1: in this one); the same book")
    bb.add_argument("--cluster", default=None, metavar="ADDRESS",
                    help="search the leaves on a Dask cluster: tcp://HOST:8786 or local:N (docs/training.md)")
    bs = bsub.add_parser("show", help="the book moves of a position, best first, values in discs")
    bs.add_argument("moves", nargs="?", default="", help="the moves from the start, e.g. f5d6c3 (default: none)")
    bs.add_argument("--file", default=str(BOOK), help="the book file (default: the shipped one)")
    bc = bsub.add_parser("check", help="verify a book file (exit 1 on the first problem)")
    bc.add_argument("file", nargs="?", default=str(BOOK), help="the book file (default: the shipped one)")


Command = tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], Optional[int]]]
COMMANDS: dict[str, Command] = {   # name: (help line, its options, what it runs)
    "info": ("which rules core is active (compiled or pure Python)", _info_options, cmd_info),
    "perft": ("count leaf positions from the start position", _perft_options, cmd_perft),
    "bench": ("perft speed: compiled vs pure Python, with and without bulk counting", _bench_options, cmd_bench),
    "move": ("one-shot: read a position on stdin, print the move as 'x y'", _move_options, cmd_move),
    "solve": ("exact scores of positions: an .obf file or one position string", _solve_options, cmd_solve),
    "tournament": ("round robin between strategies, on both cores", _tournament_options, cmd_tournament),
    "nboard": ("speak the NBoard protocol on stdin/stdout (for Othello GUIs)", _nboard_options, cmd_nboard),
    "book": ("the learned opening book of best: build, show, check", _book_options, cmd_book),
}


def parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The parser of ``python -m engine`` and its subcommands.  With ``command`` (one of
    ``COMMANDS``) only that subcommand gets its options, so that a one-shot ``move`` imports
    neither the tournament nor the book builder; the others are still listed."""
    ap = argparse.ArgumentParser(prog=program("cardstand-engine", "python -m engine"), description="The Othello engine: rules, search, "
                                 "solver and tools (no board folder, no game between processes).",
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="examples:\n  python -m engine info\n"
                                        "  python -m engine perft 9\n"
                                        "  python -m engine perft 6 --size 6 --all\n"
                                        "  python -m engine perft 6 --shape Heart --all\n"
                                        "  python -m engine bench\n"
                                        "  python -m engine solve tests/data/fforum-1-19.obf\n"
                                        "  python -m engine tournament random greedy best --games 4\n"
                                        "  python -m engine nboard --ai best --time 5\n"
                                        "  python -m engine book show f5d6c3\n"
                                        "  python -m engine book check")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name, (help_line, options, _) in COMMANDS.items():
        p = sub.add_parser(name, help=help_line)
        if command not in COMMANDS or command == name:
            options(p)
    return ap


def _leaving() -> None:
    """After a Ctrl+C ended a command: later ones are ignored while the program exits (a pool's
    worker threads are joined then, and a Ctrl+C there printed a traceback)."""
    import signal
    import threading
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _exit_on_signals() -> None:
    """SIGTERM and SIGHUP end a command as an exit does (its clean-up runs: one's own strategy's
    process is stopped with what it started); Python's default ended it where it stood."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        return

    def leave(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            try:
                signal.signal(sig, leave)
            except (ValueError, OSError):
                pass


def main(argv: Optional[list[str]] = None) -> int:
    """Run one command of ``python -m engine``; returns the exit code (a one-shot ``move`` of the
    process's own command line ends the process once its answer is out)."""
    whole_process = argv is None
    if argv is None:
        argv = sys.argv[1:]
    ap = parser(argv[0] if argv else None)
    args = ap.parse_args(argv)
    _exit_on_signals()
    if args.cmd == "tournament":
        from .tournament import check_opening
        try:
            check_opening(args.opening, _board(args).size, _board(args))
        except ValueError as e:
            ap.error(str(e))
    try:
        code = COMMANDS[args.cmd][2](args) or 0
        if whole_process and args.cmd == "move":
            _leave_now(code)
        return code
    except KeyboardInterrupt:
        _leaving()
        print("interrupted", file=sys.stderr)
        return 130
    except OSError as e:
        if not reader_gone(e):
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())    # ``| head``: nothing more to say
        return 1


def _leave_now(code: int) -> None:
    """End a one-shot move once its answer is out, without the interpreter's tidying up (the
    modules, the hash table, the book: some 6 ms of every move's process, measured 2026-11-28)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:      # (None: the process was started with it closed)
                stream.flush()
        except (OSError, ValueError):
            code = code or 1
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
