"""Who chooses this side's moves: a person at the terminal, a built-in AI, or an external program."""
import io
import os
import queue
import subprocess
import sys
import threading
import time

from typing import BinaryIO, Literal, Optional, TextIO, Tuple, Union, cast

from engine import PASS, Position, loader, notation, oneshot, strategies
from engine.cliargs import command_words

from .commands import Command
from .reasons import Explained


class EndOfInput:
    """What ``Lines`` gives at the end of input (``EOF_LINE``, the one instance)."""


EOF_LINE = EndOfInput()
Line = Union[str, EndOfInput, Command]     # a line typed (with its newline), the end of input, or a face's command


class Lines:
    """Lines a person typed, queued for the game, which never blocks on them."""

    def __init__(self) -> None:
        self.q: queue.Queue[Line] = queue.Queue()

    def put(self, line: Line) -> None:
        self.q.put(line)

    def get(self, timeout: float = 0.0) -> Line | None:
        """The next line (with its newline), ``EOF_LINE`` at the end of input, or None if none
        came within ``timeout`` seconds."""
        try:
            return self.q.get(timeout=timeout) if timeout else self.q.get_nowait()
        except queue.Empty:
            return None


class LineInput(Lines):
    """Lines typed at the terminal (plain mode), read by a background thread."""

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__()
        self.stream = stream or sys.stdin
        threading.Thread(target=self._read, name="stdin", daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                line = self.stream.readline()
            except (OSError, ValueError, UnicodeDecodeError):
                line = ""
            if not line:
                self.q.put(EOF_LINE)
                return
            self.q.put(line)


def live_terminal(plain: bool = False) -> bool:
    """Whether to draw the live screen (``peer.faces.live``): a terminal both ways, and not ``--plain``
    (nor ``NO_COLOR``, which scripts and tests set for plain output)."""
    if plain or "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


class Player:
    """What the session asks of whoever plays its side: a person, a built-in AI, an external
    program.  ``kind`` is ``"human"`` when the moves are typed (read from ``lines``), else
    ``"computer"`` (``choose`` gives them).  ``lines``: what is typed at this side's terminal
    (None: nothing is read); ``clock``: a computer's thinking time, when it has one.
    ``default_name``: its name in the game when none is given (English, as on the wire): a
    built-in AI's strategy, else what it is (``person``, ``computer``)."""

    kind = "computer"
    default_name = "computer"
    lines: Optional[Lines] = None
    clock: Optional["Clock"] = None

    def choose(self, position: Position) -> Tuple[int, str]:
        """(move, problem): the move for ``position``, and why it is a fallback ('' when not)."""
        raise TypeError(f"a {self.kind} side's moves are typed, not chosen")

    def rest(self) -> None:
        """Stop any thinking in the background (the opponent left: it may not come back soon)."""


class Human(Player):
    kind = "human"
    default_name = "person"

    def __init__(self, lines: Lines | Literal[False] | None = None) -> None:
        """``lines``: ``Lines`` (default: a ``LineInput`` on stdin;
        ``False``: none yet, given later)."""
        self.lines = LineInput() if lines is None else lines or None


class Clock:
    """Thinking time: a fixed limit per move, or a budget for the whole game shared out over the moves."""

    def __init__(self, per_move: float = 1.0, per_game: float | None = None) -> None:
        self.per_move = per_move
        self.per_game = per_game
        self.left = per_game

    def for_move(self, position: Position) -> float:
        if self.left is None:
            return self.per_move
        my_moves_left = max(1, (position.empties() + 1) // 2)
        return max(0.01, min(self.left / my_moves_left * 1.5, self.left * 0.5))

    def used(self, seconds: float) -> None:
        """This side has used ``seconds`` in the game so far (the session's count, which goes on
        after a restart: docs/PROTOCOL.md D7); a budget for the whole game is what is left of it."""
        if self.per_game is not None:
            self.left = max(0.0, self.per_game - seconds)


class Computer(Player):
    """A built-in AI (``engine.strategies``) or one's own (``--ai FILE.py:CLASS``: a move that goes
    wrong is the greedy player's, and the problem is said); at a terminal its ``lines`` are obeyed
    for say, board and quit."""

    clock: Clock

    def __init__(self, name: str, time_limit: float = 1.0, pace: float = 0.0, seed: int | None = None,
                 game_time: float | None = None, threads: int | None = None, ponder: bool = False) -> None:
        self.clock = Clock(time_limit, game_time)
        opts: dict[str, int] = {"seed": seed} if name.lower() in ("random", "best") and seed is not None else {}
        if name.lower() == "best":      # (the table for the time of a first move)
            opts["hash_bits"] = strategies.kept_hash_bits(self.clock.for_move(Position.start()) or 1.0)
        self.strategy = strategies.get(name, **opts, threads=threads)
        if (threads or ponder) and not strategies.uses_threads(name):
            raise Explained("threads_not_best", name=name)
        own = isinstance(self.strategy, loader.Own)
        self.name = self.default_name = self.strategy.name if own else name.lower()
        self.pace = pace
        self.ponder = ponder

    def choose(self, position: Position) -> Tuple[int, str]:
        """The move for ``position``; with ``ponder``, the strategy then thinks on in the
        background about the position after it, until it is asked for its next move."""
        t = time.monotonic()
        move = self.strategy.next_move(position, self.clock.for_move(position))
        rest = self.pace - (time.monotonic() - t)
        if rest > 0:
            time.sleep(rest)
        if self.ponder:
            self.strategy.ponder(position.play(move))
        return move, getattr(self.strategy, "problem", "")

    def rest(self) -> None:
        """Stop thinking in the background (the opponent left: it may not come back soon)."""
        self.strategy.stop_pondering()


MAX_ANSWER = 4096   # bytes an external engine may print on stdout for one move ('x y' is a few)
MAX_ERROR = 4096    # bytes of its stderr kept (the last ones: the last line says why it failed)


class CappedReader:
    """Reads a pipe of ``proc`` in a thread, keeping at most ``cap`` bytes: past the cap it
    stops ``proc`` at once (``overflow``), or with ``tail`` keeps only the last ``cap`` bytes.
    Once ``proc`` has ended, at most ``cap`` more bytes are read (from a program it left running)."""

    def __init__(self, proc: subprocess.Popen[bytes], pipe: io.BufferedReader, cap: int, tail: bool = False) -> None:
        self.proc, self.pipe, self.cap, self.tail = proc, pipe, cap, tail
        self.data = bytearray()
        self.overflow = False
        self.thread = threading.Thread(target=self._read, name="engine-output", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        after_end = 0
        try:
            while True:
                chunk = self.pipe.read1(65536)
                if not chunk:
                    return
                if self.proc.poll() is not None:
                    after_end += len(chunk)
                    if after_end > self.cap:
                        return
                self.data += chunk
                if len(self.data) > self.cap:
                    if self.tail:
                        del self.data[:-self.cap]
                    else:
                        self.overflow = True
                        _stop(self.proc)
                        return
        except (OSError, ValueError):
            return
        finally:
            try:
                self.pipe.close()
            except OSError:
                pass

    def join(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the end of the output (a program the engine left
        running may hold the pipe open)."""
        self.thread.join(timeout)

    def text(self) -> str:
        """What was read so far, as text."""
        return bytes(self.data).decode("utf-8", "replace")


def _feed(pipe: BinaryIO, data: bytes) -> None:
    """Write ``data`` to ``pipe`` and close it; an engine that does not read it is no error."""
    try:
        pipe.write(data)
        pipe.close()
    except (OSError, ValueError):
        pass


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill ``proc`` and reap it."""
    try:
        proc.kill()
        proc.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        pass


class External(Player):
    """A program run once per move in the one-shot format (see ``engine.oneshot``)."""

    clock: Clock

    def __init__(self, command: str, time_limit: float = 10.0, fallback: str = "greedy",
                 game_time: float | None = None) -> None:
        self.command = command
        try:
            self.argv = command_words(command)
        except ValueError:
            raise Explained("engine_unquoted", command=command) from None
        if not self.argv:
            raise Explained("no_engine_command")
        self.clock = Clock(time_limit, game_time)
        self.fallback = strategies.get(fallback)

    def choose(self, position: Position) -> Tuple[int, str]:
        """(move, problem): on a time-out, crash or bad answer, a fallback move and the reason."""
        return self._ask(position, self.clock.for_move(position))

    def _ask(self, position: Position, limit: float) -> Tuple[int, str]:
        deadline = time.monotonic() + limit
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE)
        except (OSError, ValueError) as e:
            return self._fallback(position, f"cannot run {self.command!r}: {e}")
        # (pipes, buffered: read1 gives what has come so far)
        out = CappedReader(proc, cast(io.BufferedReader, proc.stdout), MAX_ANSWER)
        err = CappedReader(proc, cast(io.BufferedReader, proc.stderr), MAX_ERROR, tail=True)
        threading.Thread(target=_feed, args=(proc.stdin, oneshot.format_request(position).encode()),
                         name="engine-stdin", daemon=True).start()
        try:
            proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            _stop(proc)
            return self._fallback(position, f"no answer within {limit:g} s")
        out.join(max(0.1, deadline - time.monotonic()))
        err.join(0.1)
        if out.overflow:
            return self._fallback(position, f"more than {MAX_ANSWER} bytes of output: the engine was stopped")
        if proc.returncode != 0:
            lines = err.text().strip().splitlines()
            return self._fallback(position, f"exit code {proc.returncode}"
                                  + (f": {lines[-1][:120]}" if lines else ""))
        try:
            sq = oneshot.parse_answer(out.text(), position.size)
        except ValueError as e:
            return self._fallback(position, str(e))
        if not position.is_legal(sq):
            return self._fallback(position, f"{notation.square_name(sq, position.size)} is not a legal move")
        return sq, ""

    def _fallback(self, position: Position, reason: str) -> Tuple[int, str]:
        move = self.fallback.next_move(position)
        return move, reason

