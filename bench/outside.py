"""NBoard fronts for engines that do not speak NBoard, so that bench/sprt.py can play them.

    python bench/outside.py zebra --dir DIR [--depth 14] [--exact 16]
    python bench/outside.py oneshot "COMMAND"

``zebra``: Gunnar Andersson's Zebra, the classic engine with a trained
evaluation, built from its public source (``make zebra`` in a copy of
``https://github.com/lk16/zebra``; DIR holds the ``zebra`` program and its
``coeffs2.bin``).  Each ``go`` runs one Zebra process on the game so far
(``-seq``, from the plain start position), without book or randomness,
searching ``--depth`` plies in the midgame and solving exactly from
``--exact`` empties:

    zebra -b 0 -r 0 -slack 0 -quiet -evalone -h 20 -l D E E D E E -seq f5d6...

and answers the move after its last ``-->``.  That build sometimes dies in
its exact solver on a position; it is then asked again solving from two
empties fewer (said on stderr), up to three times.

``oneshot``: a program in the common one-shot format (``engine.oneshot``:
the position on stdin, ``x y`` on stdout), started once for each ``go``
as the players start one (``peer.players.External``; the command is split
into words, not run by a shell); ``python -m engine move --ai best --time
T`` is ours.

Both track the game from ``set game`` and ``move`` as ``python -m engine
nboard`` does, so bench/sprt.py's time of an answer is, for both, the
whole process a move costs: its start-up, reading its evaluation, and its
search.  A program that fails or answers nonsense gets no answer from us,
and the harness forfeits it when its ``--timeout`` passes.
"""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import notation  # noqa: E402  (after the path is set)
from engine import nboard  # noqa: E402
from engine.nboard import NBoardEngine, _move_name  # noqa: E402
from engine.position import Position  # noqa: E402
from peer.players import External  # noqa: E402

ZEBRA_MOVE = re.compile(r"^[a-h][1-8]$")
MAX_OUTPUT = 1 << 16   # characters of a program's answer read at most
ANSWER_LIMIT = 3600.0  # seconds a one-shot program may take (the match's --timeout forfeits it sooner)
RETRIES = 3            # times Zebra is asked again, solving from two empties fewer each time


def run_bounded(argv: list[str], cwd: Path) -> tuple[int, str]:
    """(exit code, the first MAX_OUTPUT characters of stdout) of a program run with no input; one
    that prints more is stopped there (its stderr is not read: it goes where ours goes)."""
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
                            errors="replace")
    assert proc.stdout is not None
    out = proc.stdout.read(MAX_OUTPUT)
    if proc.stdout.read(1):
        proc.kill()
    proc.stdout.close()
    return proc.wait(), out


class Outside(NBoardEngine):
    """An NBoard session whose moves come from another program, one process a move."""

    def __init__(self, name: str) -> None:
        super().__init__(ai="random")
        self.name = name

    def myname(self) -> str:
        return self.name

    def choose(self, pos: Position) -> Optional[int]:
        raise NotImplementedError

    def hint(self, n: int) -> None:
        self.complain(f"{self.name} gives no hints here")

    def go(self) -> None:
        pos = self.game.position
        if pos.is_game_over():
            self.complain("the game is over: no move to play")
            return
        if pos.must_pass():
            self.say("=== PA")
            return
        sq = self.choose(pos)
        if sq is None:
            return      # (said on stderr; the harness's timeout forfeits the game)
        self.say(f"=== {_move_name(sq, pos.size)}")


class Zebra(Outside):
    def __init__(self, folder: Path, depth: int, exact: int) -> None:
        super().__init__(f"Zebra-{depth}/{exact}")
        self.folder, self.depth, self.exact = folder, depth, exact
        self.retries = 0

    def choose(self, pos: Position) -> Optional[int]:
        if self.game.size != 8 or self.game.positions[0] != Position.start(8):
            self.complain("Zebra plays only games from the plain 8x8 start")
            return None
        seq = self.game.transcript()
        exact = self.exact
        for attempt in range(RETRIES + 1):
            d, e = str(self.depth), str(exact)
            code, out = run_bounded(["./zebra", "-b", "0", "-r", "0", "-slack", "0", "-quiet", "-evalone",
                                     "-h", "20", "-l", d, e, e, d, e, e] + (["-seq", seq] if seq else []),
                                    cwd=self.folder)
            lines = [line for line in out.splitlines() if line.startswith("-->")]
            if code == 0 and lines:
                for word in lines[-1].split()[1:]:
                    if ZEBRA_MOVE.match(word):
                        sq = notation.parse_square(word, 8)
                        if pos.is_legal(sq):
                            return sq
                self.complain(f"Zebra's answer has no legal move: {lines[-1]!r}")
                return None
            if exact < 2 or attempt == RETRIES:
                break
            self.retries += 1
            print(f"outside: Zebra failed (exit code {code}) solving from {exact} empties "
                  f"at {seq or 'the start'}; asking again from {exact - 2} ({self.retries} so far)",
                  file=sys.stderr, flush=True)
            exact -= 2
        self.complain(f"Zebra failed (exit code {code}), solving from {exact} empties the last time")
        return None


class OneShot(Outside):
    """The players' own runner of one-shot programs (``peer.players.External``: output capped, exit
    code, answer and legality checked), whose fallback move is not played: a failure is no move."""

    def __init__(self, command: str) -> None:
        super().__init__(f"oneshot[{command if len(command) <= 60 else command[:57] + '...'}]")
        self.program = External(command, time_limit=ANSWER_LIMIT)

    def choose(self, pos: Position) -> Optional[int]:
        move, problem = self.program.choose(pos)
        if problem:
            self.complain(f"the program failed: {problem}")
            return None
        return move


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python bench/outside.py",
                                 description=__doc__.split("\n\n")[0] if __doc__ else None)
    sub = ap.add_subparsers(dest="kind", required=True)
    z = sub.add_parser("zebra", help="Zebra, one process a move")
    z.add_argument("--dir", required=True, type=Path, help="the folder holding zebra and coeffs2.bin")
    z.add_argument("--depth", type=int, default=14, help="midgame search plies (default 14)")
    z.add_argument("--exact", type=int, default=16, help="solve exactly from this many empties (default 16)")
    o = sub.add_parser("oneshot", help="a one-shot move program, one process a move")
    o.add_argument("command", help="its command line (run by the shell)")
    args = ap.parse_args(argv)
    if args.kind == "zebra":
        if not (args.dir / "zebra").is_file() or not (args.dir / "coeffs2.bin").is_file():
            ap.error(f"{args.dir} does not hold zebra and coeffs2.bin (build it there with: make zebra)")
        if not os.access(args.dir / "zebra", os.X_OK):
            ap.error(f"{args.dir / 'zebra'} may not be run (chmod +x it)")
        if not (1 <= args.depth <= 60 and 0 <= args.exact <= 60):
            ap.error("--depth is 1..60 and --exact 0..60")
        engine: Outside = Zebra(args.dir.resolve(), args.depth, args.exact)
    else:
        engine = OneShot(args.command)
    return nboard.run(stdin=sys.stdin, engine=engine)


if __name__ == "__main__":
    sys.exit(main())
