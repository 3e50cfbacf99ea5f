"""The NBoard protocol: our computer players inside Othello GUIs (NBoard and others that speak it).

    python -m engine nboard [--ai best] [--time 2]

The GUI starts this program and talks to it one line at a time on stdin and
stdout.  Understood (everything else is ignored, as the protocol asks):

    nboard 2            start; we answer ``set myname ...``
    set depth N         the midgame search depth (1..60); we answer ``set myname``
    set game GGF        the game so far; later commands are about its last position
    set contempt N      accepted and ignored
    move F5[/eval/time] a move was played (``PA`` for a pass)
    hint N              evaluations of the N best moves: ``search F5 +2.00 0 12`` lines
    go                  the move we would play: ``=== F5/+2.00/1.23`` (the board does
                        not change until the GUI sends ``move``)
    ping N              ``pong N`` once everything before it is done
    learn               ``learned``
    quit                stop (end of input also stops)

Evaluations are in discs for the side to move (exact in solved endgames).
Shaped boards: the protocol and the GUIs know no holes, so there is no
``--shape`` here; the board is the GGF's.  A GGF written by ``Game.to_ggf``
for a shaped game carries its holes in our own ``HO`` tag, and is played
with them.
A command that does not fit the game (an illegal move, a broken GGF) leaves
the position unchanged and is reported on stderr and in a ``status`` line.
"""
import sys
import time
from typing import Optional, TextIO

from . import loader, notation, strategies
from .game import Game
from .notation import PASS
from .position import IllegalMove

NAME = "cardstand"


def _move_name(sq: int, size: int) -> str:
    return "PA" if sq == PASS else notation.square_name(sq, size).upper()


class NBoardEngine:
    """One NBoard session: feed it lines with ``handle``; it writes answers to ``out``."""

    def __init__(self, ai: str = "best", seconds: float = 2.0, out: TextIO = sys.stdout, err: TextIO = sys.stderr,
                 threads: Optional[int] = None) -> None:
        self.ai_name = ai
        table = {"hash_bits": strategies.kept_hash_bits(seconds)} if ai.lower() == "best" else {}
        self.strategy = strategies.get(ai, threads=threads, **table)
        self.seconds = seconds
        self.depth = 60
        self.game = Game()
        self.out, self.err = out, err

    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def complain(self, text: str) -> None:
        self.err.write(f"nboard: {text}\n")
        self.err.flush()
        self.say(f"status {text}")

    def handle(self, line: str) -> bool:
        """One command line; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        cmd, rest = words[0], line.strip()[len(words[0]):].strip()
        if cmd == "quit":
            return False
        if cmd == "nboard":
            self.say(f"set myname {self.myname()}")
        elif cmd == "ping":
            self.say(f"pong {rest}".rstrip())
        elif cmd == "learn":
            self.say("learned")
        elif cmd == "set" and len(words) >= 2:
            self.set(words[1], rest[len(words[1]):].strip())
        elif cmd == "move":
            self.move(rest)
        elif cmd == "go":
            self.go()
        elif cmd == "hint":
            try:
                n = int(words[1]) if len(words) > 1 else 1
            except ValueError:
                self.complain(f"hint needs a number: {line.strip()!r}")
                return True
            self.hint(max(1, n))
        elif len(words) == 1 and len(cmd) in (2, 3) and cmd[0].isalpha() and cmd[1:].isdigit() or cmd.upper() == "PA":
            self.move(cmd)  # NBoard 1.1 sent bare moves
        return True

    def myname(self) -> str:
        name = "".join(self.strategy.name.split()) if loader.is_spec(self.ai_name) else self.ai_name
        return f"{NAME}-{name}" + (f"-{self.depth}" if self.depth < 60 and loader.is_spec(self.ai_name)
                                   else f"{self.depth}" if self.depth < 60 else "")

    def set(self, what: str, value: str) -> None:
        if what == "depth":
            try:
                depth = int(value.split()[0])
            except (ValueError, IndexError):
                self.complain(f"set depth needs a number: {value!r}")
                return
            self.depth = max(1, min(60, depth))
            if hasattr(self.strategy, "depth"):   # the searches with a depth limit
                setattr(self.strategy, "depth", self.depth)
            self.say(f"set myname {self.myname()}")
        elif what == "game":
            try:
                self.game = Game.from_ggf(value)
            except ValueError as e:  # IllegalMove is a ValueError
                self.complain(f"game not changed: {e}")

    def move(self, text: str) -> None:
        token = text.split("/")[0].strip()
        try:
            sq = notation.parse_square(token, self.game.size)
            if sq != PASS and self.game.position.must_pass():
                self.game.play(PASS)
            self.game.play(sq)
        except (ValueError, IllegalMove) as e:
            self.complain(f"move {text!r} not played: {e}")

    def hint(self, n: int) -> None:
        self.say("status thinking")
        start = time.monotonic()
        for value, m, depth in strategies.analyse(self.game.position, self.seconds, self.depth)[:n]:
            self.say(f"search {_move_name(m, self.game.size)} {value:+.2f} 0 {depth}")
        self.say(f"nodestats 0 {time.monotonic() - start:.2f}")
        self.say("status")

    def go(self) -> None:
        pos = self.game.position
        if pos.is_game_over():
            self.complain("the game is over: no move to play")
            return
        self.say("status thinking")
        start = time.monotonic()
        m = self.strategy.next_move(pos, self.seconds)
        spent = time.monotonic() - start
        problem = getattr(self.strategy, "problem", "")     # one's own AI that failed: greedy moved
        if problem:
            self.complain(f"{problem}; the greedy player's move instead")
        self.say(f"=== {_move_name(m, pos.size)}")
        self.say(f"nodestats {self.strategy.nodes} {spent:.2f}")
        self.say("status")


MAX_LINE = 1 << 20   # characters of one command line at most (a whole game in GGF is a few KB)


def run(ai: str = "best", seconds: float = 2.0, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout,
        threads: Optional[int] = None, engine: Optional[NBoardEngine] = None) -> int:
    """Speak NBoard on ``stdin``/``stdout`` until ``quit`` or the end of the input; returns the exit code.
    ``engine``: the session to speak for (it has its own output), instead of one of ``ai``."""
    if engine is None:
        engine = NBoardEngine(ai, seconds, stdout, threads=threads)
    while True:
        line = stdin.readline(MAX_LINE + 1)
        if not line:
            break
        if len(line) > MAX_LINE:
            while line and not line.endswith("\n"):     # the rest of it, a piece at a time
                line = stdin.readline(MAX_LINE)
            print(f"nboard: a line longer than {MAX_LINE} characters was ignored", file=sys.stderr)
            continue
        if not engine.handle(line):
            break
    return 0
