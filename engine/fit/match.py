"""Games between two NBoard engines, as ``bench/sprt.py`` plays them: the engine processes, one
game, and one *game pair* (an opening played twice, each engine with black once) as a job of
``engine.fit.jobs``, so that a match can be spread over local processes or a Dask cluster.

An engine is a command started with ``sh -c`` (a process group of its own) and spoken to over
the NBoard protocol; see bench/sprt.py's docstring for the part of it used and for what loses a
game (an illegal or unreadable move, a crash, no answer within the timeout).
"""
from __future__ import annotations

import queue
import subprocess
import threading
import time
from collections import deque
from typing import IO, Any, Callable, Optional

from .. import notation
from ..game import Game
from ..notation import PASS
from ..procgroup import NEW_GROUP, kill_group


# -- engines ----------------------------------------------------------------

class EngineError(Exception):
    """``kind``: 'crash' (the process ended or its input closed) or 'timeout'."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(text)
        self.kind = kind


class Engine:
    """One NBoard engine process."""

    def __init__(self, label: str, command: str, cwd: Optional[str] = None, start_timeout: float = 60.0) -> None:
        self.label, self.command, self.cwd = label, command, cwd
        self.start_timeout = start_timeout
        self.proc: Optional[subprocess.Popen[str]] = None
        self.name = label
        self.pings = 0
        self.starts = 0
        self.stderr_tail: deque[str] = deque(maxlen=20)
        self.status = ""

    def start(self) -> None:
        self.stop()
        self.starts += 1
        proc = self.proc = subprocess.Popen(self.command, shell=True, cwd=self.cwd, text=True,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            bufsize=1, **NEW_GROUP)
        self.lines: queue.Queue[Optional[str]] = queue.Queue()
        threading.Thread(target=self._pump, args=(proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._pump, args=(proc.stderr, None), daemon=True).start()
        self.send("nboard 2")
        self.sync(self.start_timeout)

    def _pump(self, stream: IO[str], into: "Optional[queue.Queue[Optional[str]]]") -> None:
        try:
            for line in stream:
                if into is None:
                    self.stderr_tail.append(line.rstrip("\n"))
                else:
                    into.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        if into is not None:
            into.put(None)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ensure_running(self) -> None:
        if not self.alive():
            self.start()

    def _died(self, what: str) -> EngineError:
        code = self.proc.poll() if self.proc else None
        tail = " | ".join(list(self.stderr_tail)[-3:])
        return EngineError("crash", f"{what} (exit code {code}){': ' + tail if tail else ''}")

    def send(self, line: str) -> None:
        try:
            if self.proc is None or self.proc.stdin is None:
                raise ValueError("not started")
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise self._died("its input is closed") from None

    def read_until(self, want: Callable[[str], bool], timeout: float, what: str) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(0.0, left))
            except queue.Empty:
                raise EngineError("timeout", f"no {what} within {timeout:.1f} s") from None
            if line is None:
                time.sleep(0.05)  # let the exit code and the last stderr lines arrive
                raise self._died(f"the engine ended while we waited for {what}")
            if line.startswith("set myname "):
                self.name = line[len("set myname "):].strip() or self.label
            elif line.startswith("status ") and line.strip() not in ("status", "status thinking"):
                self.status = line[len("status "):].strip()
            if want(line):
                return line

    def sync(self, timeout: float = 10.0) -> None:
        self.pings += 1
        tag = f"pong {self.pings}"
        self.send(f"ping {self.pings}")
        self.read_until(lambda line: line.strip() == tag, timeout, f"'{tag}'")

    def go(self, timeout: float) -> tuple[str, float]:
        """(the move's text, seconds to the answer)."""
        start = time.monotonic()
        self.send("go")
        line = self.read_until(lambda line: line.startswith("==="), timeout, "'=== move' answer")
        took = time.monotonic() - start
        return line[3:].strip().split("/")[0].strip(), took

    def ask_to_quit(self) -> None:
        """Send ``quit`` and close the engine's input (it may then leave); ``stop`` ends it."""
        if self.proc is not None:
            _ask_to_quit(self.proc)

    def stop(self, graceful: bool = True, until: Optional[float] = None) -> None:
        """``quit`` and up to 3 s to leave (``graceful``; or until the monotonic time ``until``),
        then the engine's process group is killed."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if graceful and proc.poll() is None:
                _ask_to_quit(proc)
                left = (until if until is not None else time.monotonic() + 3) - time.monotonic()
                try:
                    proc.wait(timeout=max(0.0, left))
                except subprocess.TimeoutExpired:
                    pass
        finally:
            kill_group(proc)    # the group this engine was started in, no other
            proc.wait()


def _ask_to_quit(proc: "subprocess.Popen[str]") -> None:
    if proc.poll() is None and proc.stdin is not None and not proc.stdin.closed:
        try:
            proc.stdin.write("quit\n")
            proc.stdin.flush()
            proc.stdin.close()
        except (OSError, ValueError):
            pass


def stop_together(engines: "list[Engine]", grace: float = 3.0) -> None:
    """``quit`` to every engine at once, then ``grace`` seconds for all of them to leave, then
    each group killed: a pair is ended within its grace, not one grace after the other (a pool
    process ending on SIGTERM has 5 s before it is killed, and an engine left running then
    outlives it)."""
    for e in engines:
        e.ask_to_quit()
    until = time.monotonic() + grace
    for e in engines:
        e.stop(until=until)


# -- games ------------------------------------------------------------------

class Clock:
    def __init__(self) -> None:
        self.moves = 0
        self.slowest = 0.0
        self.slowest_at: Optional[int] = None
        self.over = 0
        self.total = 0.0        # seconds of every answer


def _tell_both(players: tuple[Engine, Engine], line: str) -> Optional[tuple[int, str]]:
    """Send ``line`` to both engines (black first); an engine that cannot take it forfeits:
    ``(its colour, why)``, or None when both took it."""
    for colour, e in enumerate(players):
        try:
            e.send(line)
        except EngineError as err:
            e.stop(graceful=False)  # started again for the next game
            return colour, f"{err.kind}: {err}"
    return None


def play_game(black: Engine, white: Engine, opening: str, time_limit: float, timeout: float,
              clocks: dict[Engine, Clock], deadline: Optional[float] = None) -> dict[str, Any]:
    """One game from ``opening``; ``black``/``white`` are Engines, ``clocks`` maps them to a Clock.

    Returns a dict: game (a Game), diff (black minus white discs, or +-64 for a forfeit),
    forfeit (None or (colour 0/1, reason)), abandoned (the deadline passed).
    """
    game = Game.from_transcript(opening)
    players = (black, white)
    ggf = game.to_ggf(place="sprt")
    for e in players:
        e.ensure_running()  # an engine that does not start again raises: the match stops
    forfeit = _tell_both(players, f"set game {ggf}")
    while forfeit is None and not game.position.is_game_over():
        if deadline is not None and time.monotonic() > deadline:
            return {"game": game, "diff": 0, "forfeit": None, "abandoned": True}
        pos = game.position
        if pos.must_pass():
            sq: Optional[int] = PASS
        else:
            e = players[pos.turn]
            try:
                e.sync()
                text, took = e.go(timeout)
            except EngineError as err:
                forfeit = (pos.turn, f"{err.kind}: {err}")
                e.stop(graceful=False)  # started again for the next game
                break
            c = clocks[e]
            c.moves += 1
            c.total += took
            if took > c.slowest:
                c.slowest, c.slowest_at = took, 60 - pos.empties() if pos.size == 8 else None
            if took > time_limit:
                c.over += 1
            try:
                sq = notation.parse_square(text, pos.size)
            except ValueError:
                sq = None
            if sq is None or sq == PASS or not pos.is_legal(sq):
                legal = " ".join(notation.square_name(m).upper() for m in pos.legal_moves())
                shown = text if len(text) <= 40 else text[:40] + "..."    # (an engine may send megabytes)
                forfeit = (pos.turn, f"illegal move {shown!r} (legal: {legal})")
                break
        assert sq is not None
        game.play(sq)
        name = "PA" if sq == PASS else notation.square_name(sq, pos.size).upper()
        forfeit = _tell_both(players, f"move {name}")
    if forfeit is not None:
        return {"game": game, "diff": 64 if forfeit[0] == 1 else -64, "forfeit": forfeit, "abandoned": False}
    b, w = game.position.discs()
    return {"game": game, "diff": b - w, "forfeit": None, "abandoned": False}


def pair_record(result: dict[str, Any], a: Engine, b: Engine, a_black: bool) -> str:
    """``ggf_record`` of a game of engines A and B, each named with its label (``A:name``)."""
    names = (f"A:{a.name}", f"B:{b.name}")
    return ggf_record(result, *(names if a_black else names[::-1]))


def ggf_record(result: dict[str, Any], black_name: str, white_name: str) -> str:
    d = result["diff"]
    re = f"{d:+d}.000" if d else "0.000"
    if result["forfeit"]:
        re += ":t" if result["forfeit"][1].startswith("timeout") else ":r"
    return result["game"].to_ggf(black_name, white_name, re, place="bench/sprt.py")


def play_pair(job: tuple[str, Optional[str], str, Optional[str], str, float, float, Optional[float], int]
              ) -> dict[str, Any]:
    """A job: ``(command A, cwd A, command B, cwd B, opening, time, timeout, deadline, games)`` plays
    the opening ``games`` times (2, or 1 to end a match of an odd number), A with black first,
    each engine started for the pair; ``deadline`` (seconds since the epoch, or None) drops a
    game still in play then.  Returns JSON values: ``games``
    (each with ``a_black``, ``diff`` (black minus white), ``forfeit`` ([colour, reason] or
    None), ``abandoned`` and ``ggf``), ``clocks`` and ``names`` by engine label, and ``error``
    (an engine that does not start: no games then)."""
    cmd_a, cwd_a, cmd_b, cwd_b, opening, time_limit, timeout, deadline_epoch, count = job
    a, b = Engine("A", cmd_a, cwd_a), Engine("B", cmd_b, cwd_b)
    clocks = {a: Clock(), b: Clock()}
    deadline = None if deadline_epoch is None else time.monotonic() + (deadline_epoch - time.time())
    games: list[dict[str, Any]] = []
    error = None
    try:
        for e in (a, b):
            try:
                e.start()
            except EngineError as err:
                error = f"engine {e.label} does not start: {err}"
                break
        for a_black in ((True, False)[:count] if error is None else ()):
            black, white = (a, b) if a_black else (b, a)
            try:
                r = play_game(black, white, opening, time_limit, timeout, clocks, deadline)
            except EngineError as err:
                error = str(err)
                break
            games.append({"a_black": a_black, "opening": opening, "diff": r["diff"], "abandoned": r["abandoned"],
                          "forfeit": list(r["forfeit"]) if r["forfeit"] else None,
                          "ggf": None if r["abandoned"] else pair_record(r, a, b, a_black)})
            if r["abandoned"]:
                break
    finally:
        stop_together([a, b])
    return {"games": games, "error": error, "names": {"A": a.name, "B": b.name},
            "clocks": {e.label: {"moves": c.moves, "slowest": c.slowest, "slowest_at": c.slowest_at,
                                 "over": c.over, "total": c.total, "starts": e.starts} for e, c in clocks.items()}}
