"""SPRT match between two NBoard engines: is engine A stronger than engine B?

    python bench/sprt.py --engine-a "CMD" --engine-b "CMD" [--time 0.5]
    python bench/sprt.py --ai-a mybot.py:Corners --ai-b greedy [--time 0.5] ...
        [--elo0 0] [--elo1 20] [--alpha 0.05] [--beta 0.05]
        [--max-games N] [--max-minutes M] [--min-games 20] [--openings FILE | --plies 8] [--seed S]
        [--ggf-out FILE] [--cwd-a DIR] [--cwd-b DIR]
    python bench/sprt.py --make-openings [--count 200] [--plies 8] [--seed 1]
        [--opening-depth 10] [--max-abs 2] [--openings bench/openings.txt]

The engines run as persistent processes (one each, started with ``sh -c CMD``
in its own process group) and are spoken to over the NBoard protocol, the
part of it that ``python -m engine nboard`` understands: ``nboard 2``,
``set game GGF``, ``move F5`` / ``move PA``, ``ping N`` / ``pong N``, and
``go``, answered by ``=== F5[/eval/time]``.  Each game starts with
``set game`` holding the opening; every move played (by either side, and
each pass, which the harness plays itself) is then sent to both engines
with ``move``.  Before each ``go`` a ``ping`` makes sure the engine has
caught up, so the time of an answer is the time of the search alone.

Every move is checked with our rules (``engine``).  An illegal or
unreadable move, a crash (end of output) or no answer within ``--timeout``
seconds loses the game on the spot: the game is recorded with the forfeit,
reported in its progress line and in the summary, and a crashed or silent
engine is started again for the next game.  ``--time`` is the time per move
the engines were given (put the same ``--time`` in their commands): the
harness records the slowest answer of each engine and counts the answers
slower than ``--time``; only ``--timeout`` (default 2 x time + 1 s)
forfeits.

Openings: each opening is played twice, A with black, then B with black (a
game pair), in the order of the file shuffled by ``--seed``, cycling if the
match is longer than the file.  ``bench/openings.txt`` holds 200 balanced
openings of 8 plies (depth-10 pattern search within 2 discs of even,
distinct under the board's 8 symmetries) made by ``--make-openings``, the
same function every time: results are reproducible.  ``--plies N`` plays
random openings of N plies instead.

SPRT: the log-likelihood ratio of H1 (A is elo1 Elo stronger) against H0
(elo0) from the wins, draws and losses, in the trinomial GSPRT
approximation of fishtest and cutechess (logistic Elo): with the mean
score s and its per-game variance v over N games,
LLR = (s1 - s0) (2 s - s0 - s1) / (2 v / N), s_i = 1 / (1 + 10^(-elo_i/400)).
The test stops when the LLR leaves [log(beta/(1-alpha)), log((1-beta)/alpha)]
(H0 or H1 accepted), but not before ``--min-games`` (default 20: on a
handful of lopsided games the variance estimate is so small that 5 wins
and a draw already pass the bound), or at ``--max-games`` /
``--max-minutes`` (a game still being played at the deadline is dropped,
not counted).  One progress line
per game; the summary ends with the exact command.

Threads: our ``best`` searches on every core the process may run on, so
``taskset -c 1`` in both commands gives each one thread on one shared core
(``--threads 1`` says it too, where the engine has the flag).  Only one game
is played at a time.
"""
import argparse
import math
import os
import queue
import random
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import notation, strategies  # noqa: E402  (the rules, after the path is set)
from engine.game import Game  # noqa: E402
from engine.notation import PASS  # noqa: E402

DEFAULT_OPENINGS = Path(__file__).resolve().parent / "openings.txt"


# -- statistics -------------------------------------------------------------

def score_to_elo(s):
    return -400.0 * math.log10(1.0 / s - 1.0)


def elo_to_score(elo):
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_stats(wins, draws, losses):
    """(games, mean score, per-game variance of the score) for one side."""
    n = wins + draws + losses
    if n == 0:
        return 0, 0.5, 0.0
    w, d, l = wins / n, draws / n, losses / n
    s = w + 0.5 * d
    var = w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * (0 - s) ** 2
    return n, s, var


def llr(wins, draws, losses, elo0, elo1):
    """The trinomial GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0), logistic Elo
    (as fishtest's and cutechess's approximation); 0 without games or without spread.

    >>> round(llr(4307, 8620, 4063, 0, 3), 2)
    2.99
    """
    n, s, var = score_stats(wins, draws, losses)
    if n == 0 or var <= 0:
        return 0.0
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return (s1 - s0) * (2 * s - s0 - s1) / (2 * var / n)


def sprt_bounds(alpha, beta):
    """(lower, upper) LLR bounds: below lower H0 is accepted, above upper H1."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def elo_estimate(wins, draws, losses):
    """(Elo, half-width of its 95% interval) from the score and the trinomial variance."""
    n, s, var = score_stats(wins, draws, losses)
    if n == 0:
        return 0.0, float("inf")
    s = min(max(s, 0.5 / n), 1 - 0.5 / n)
    if var <= 0:  # all wins, all draws or all losses: the variance of a coin with that score
        var = s * (1 - s)
    err = 1.96 * math.sqrt(var / n) * 400 / (math.log(10) * s * (1 - s))
    return score_to_elo(s) + 0.0, err  # + 0.0: no "-0.0"


# -- openings ---------------------------------------------------------------

def _symmetry_maps(n=8):
    maps = [lambda x, y: (x, y), lambda x, y: (n - 1 - x, y), lambda x, y: (x, n - 1 - y),
            lambda x, y: (n - 1 - x, n - 1 - y), lambda x, y: (y, x), lambda x, y: (n - 1 - y, x),
            lambda x, y: (y, n - 1 - x), lambda x, y: (n - 1 - y, n - 1 - x)]
    return [tuple(fy * n + fx for fx, fy in (m(sq % n, sq // n) for sq in range(n * n))) for m in maps]


_MAPS = _symmetry_maps()


def canonical(position):
    """The same key for a position and its 7 images under the board's rotations and reflections."""
    b, w = position.black, position.white
    keys = []
    for sym in _MAPS:
        mb = mw = 0
        for sq in range(64):
            if b >> sq & 1:
                mb |= 1 << sym[sq]
            elif w >> sq & 1:
                mw |= 1 << sym[sq]
        keys.append((mb, mw))
    return min(keys), position.turn


def evaluate_opening(position, depth):
    """The value for black, in discs, of a fixed-depth search with the trained patterns."""
    from engine import patterns, strategies
    if strategies.compiled is None:
        raise SystemExit("--make-openings needs the compiled core (python -m engine info)")
    patterns.install()
    score, _ = strategies.c_search(position, 0.0, depth, "patterns")
    value = strategies._disc_value(score)
    return value if position.turn == 0 else -value


def make_openings(count, plies=8, seed=1, depth=10, max_abs=2.0):
    """``count`` openings ``[(transcript, value for black)]``: random legal starts of ``plies``
    plies (``random.Random(seed)``) whose search value is within ``max_abs`` discs of even, no two
    the same under the board's symmetries.  Deterministic: the same arguments give the same list."""
    from engine.tournament import random_opening
    rng = random.Random(seed)
    seen, out = set(), []
    tries = 0
    while len(out) < count:
        tries += 1
        if tries > 200 * count + 1000:
            raise RuntimeError(f"only {len(out)} openings within {max_abs} discs after {tries} tries")
        text = random_opening(rng, plies)
        pos = Game.from_transcript(text).position
        key = canonical(pos)
        if key in seen:
            continue
        seen.add(key)
        value = evaluate_opening(pos, depth)
        if abs(value) <= max_abs:
            out.append((text, value))
    return out


def write_openings(path, openings, args_text):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Balanced openings for bench/sprt.py, one per line: the moves, then '#' and the\n"
                "# value for black in discs (fixed-depth search with the trained patterns).\n"
                f"# Made by: python bench/sprt.py --make-openings {args_text}\n")
        for text, value in openings:
            f.write(f"{text}  # {value:+.2f}\n")


def read_openings(path):
    """The transcripts of an openings file (``#`` starts a comment); each is checked legal."""
    out = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            g = Game.from_transcript(text)
        except ValueError as e:
            raise ValueError(f"{path}:{i}: not a legal opening: {e}") from None
        if g.position.is_game_over():
            raise ValueError(f"{path}:{i}: the game is over after this opening")
        out.append(g.transcript(passes=True))
    if not out:
        raise ValueError(f"{path}: no openings")
    return out


# -- engines ----------------------------------------------------------------

class EngineError(Exception):
    """``kind``: 'crash' (the process ended or its input closed) or 'timeout'."""

    def __init__(self, kind, text):
        super().__init__(text)
        self.kind = kind


class Engine:
    """One NBoard engine process."""

    def __init__(self, label, command, cwd=None, start_timeout=60.0):
        self.label, self.command, self.cwd = label, command, cwd
        self.start_timeout = start_timeout
        self.proc = None
        self.name = label
        self.pings = 0
        self.starts = 0
        self.stderr_tail = deque(maxlen=20)
        self.status = ""

    def start(self):
        self.stop()
        self.starts += 1
        self.proc = subprocess.Popen(self.command, shell=True, cwd=self.cwd, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     bufsize=1, start_new_session=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, None), daemon=True).start()
        self.send("nboard 2")
        self.sync(self.start_timeout)

    def _pump(self, stream, into):
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

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def ensure_running(self):
        if not self.alive():
            self.start()

    def _died(self, what):
        code = self.proc.poll() if self.proc else None
        tail = " | ".join(list(self.stderr_tail)[-3:])
        return EngineError("crash", f"{what} (exit code {code}){': ' + tail if tail else ''}")

    def send(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise self._died("its input is closed") from None

    def read_until(self, want, timeout, what):
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

    def sync(self, timeout=10.0):
        self.pings += 1
        tag = f"pong {self.pings}"
        self.send(f"ping {self.pings}")
        self.read_until(lambda line: line.strip() == tag, timeout, f"'{tag}'")

    def go(self, timeout):
        """(the move's text, seconds to the answer)."""
        start = time.monotonic()
        self.send("go")
        line = self.read_until(lambda line: line.startswith("==="), timeout, "'=== move' answer")
        took = time.monotonic() - start
        return line[3:].strip().split("/")[0].strip(), took

    def stop(self, graceful=True):
        """``quit`` and up to 3 s to leave (``graceful``), then the engine's process group is killed."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if graceful and proc.poll() is None:
                try:
                    proc.stdin.write("quit\n")
                    proc.stdin.flush()
                    proc.stdin.close()
                except (OSError, ValueError):
                    pass
                try:
                    proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    pass
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the group this engine was started in, no other
            except (ProcessLookupError, PermissionError):
                pass
            proc.wait()


# -- games ------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.moves = 0
        self.slowest = 0.0
        self.slowest_at = None
        self.over = 0


def _tell_both(players, line):
    """Send ``line`` to both engines (black first); an engine that cannot take it forfeits:
    ``(its colour, why)``, or None when both took it."""
    for colour, e in enumerate(players):
        try:
            e.send(line)
        except EngineError as err:
            e.stop(graceful=False)  # started again for the next game
            return colour, f"{err.kind}: {err}"
    return None


def play_game(black, white, opening, time_limit, timeout, clocks, deadline=None):
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
            sq = PASS
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
                forfeit = (pos.turn, f"illegal move {text!r} (legal: {legal})")
                break
        game.play(sq)
        name = "PA" if sq == PASS else notation.square_name(sq, pos.size).upper()
        forfeit = _tell_both(players, f"move {name}")
    if forfeit is not None:
        return {"game": game, "diff": 64 if forfeit[0] == 1 else -64, "forfeit": forfeit, "abandoned": False}
    b, w = game.position.discs()
    return {"game": game, "diff": b - w, "forfeit": None, "abandoned": False}


def ggf_record(result, black_name, white_name):
    d = result["diff"]
    re = f"{d:+d}.000" if d else "0.000"
    if result["forfeit"]:
        re += ":t" if result["forfeit"][1].startswith("timeout") else ":r"
    return result["game"].to_ggf(black_name, white_name, re, place="bench/sprt.py")


# -- the match ----------------------------------------------------------------

class Match:
    def __init__(self, a, b, openings, time_limit, timeout, elo0, elo1, alpha, beta, max_games=None,
                 max_minutes=None, plies=None, seed=1, out=sys.stdout, ggf_out=None, command="", min_games=0):
        self.engines = {"A": a, "B": b}
        self.clocks = {a: Clock(), b: Clock()}
        self.openings, self.plies = openings, plies
        self.time_limit, self.timeout = time_limit, timeout
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.lower, self.upper = sprt_bounds(alpha, beta)
        self.max_games, self.max_minutes, self.min_games = max_games, max_minutes, min_games
        self.rng = random.Random(seed)
        self.out, self.ggf_out, self.command = out, ggf_out, command
        self.seconds = 0.0
        self.wdl = [0, 0, 0]                      # A's wins, draws, losses
        self.by_colour = {0: [0, 0, 0], 1: [0, 0, 0]}  # A with black / with white
        self.forfeits = []
        self.abandoned = 0
        self.decision = None
        self.games = 0
        if self.openings is not None:
            self.order = list(self.openings)
            self.rng.shuffle(self.order)

    def say(self, text):
        self.out.write(text + "\n")
        self.out.flush()

    def opening(self, pair):
        if self.openings is None:
            from engine.tournament import random_opening
            return random_opening(self.rng, self.plies)
        return self.order[pair % len(self.order)]

    def status_line(self):
        w, d, l = self.wdl
        n, s, _ = score_stats(w, d, l)
        e, err = elo_estimate(w, d, l)
        return (f"A {w}-{d}-{l} ({100 * s:.1f}%) Elo {e:+.1f} ± {err:.1f} | "
                f"LLR {llr(w, d, l, self.elo0, self.elo1):+.2f} [{self.lower:+.2f}, {self.upper:+.2f}]")

    def run(self):
        start = time.monotonic()
        deadline = start + 60 * self.max_minutes if self.max_minutes else None
        a, b = self.engines["A"], self.engines["B"]
        for e in (a, b):
            try:
                e.start()
            except EngineError as err:
                a.stop()
                b.stop()
                raise EngineError(err.kind, f"engine {e.label} does not start: {err}") from None
        self.say(f"A: {a.name}: {a.command}" + (f" (in {a.cwd})" if a.cwd else ""))
        self.say(f"B: {b.name}: {b.command}" + (f" (in {b.cwd})" if b.cwd else ""))
        self.say(f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}: "
                 f"LLR bounds [{self.lower:+.3f}, {self.upper:+.3f}]; time {self.time_limit:g} s per move, "
                 f"forfeit after {self.timeout:g} s; "
                 + (f"{len(self.openings)} openings" if self.openings is not None
                    else f"random openings of {self.plies} plies"))
        pair, opening = 0, None
        try:
            while True:
                if self.max_games is not None and self.games >= self.max_games:
                    self.decision = f"stopped at --max-games {self.max_games}"
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    self.decision = f"stopped at --max-minutes {self.max_minutes:g}"
                    break
                a_black = self.games % 2 == 0
                if a_black:
                    opening = self.opening(pair)
                    pair += 1
                black, white = (a, b) if a_black else (b, a)
                try:
                    r = play_game(black, white, opening, self.time_limit, self.timeout, self.clocks, deadline)
                except EngineError as err:
                    self.decision = f"aborted: {err}"
                    break
                if r["abandoned"]:
                    self.abandoned += 1
                    self.decision = f"stopped at --max-minutes {self.max_minutes:g} (a game in play dropped)"
                    break
                self.games += 1
                d = r["diff"] if a_black else -r["diff"]
                k = 0 if d > 0 else 1 if d == 0 else 2
                self.wdl[k] += 1
                self.by_colour[0 if a_black else 1][k] += 1
                note = ""
                if r["forfeit"]:
                    colour, reason = r["forfeit"]
                    who = "A" if (colour == 0) == a_black else "B"
                    self.forfeits.append((self.games, who, reason))
                    note = f" FORFEIT by {who}: {reason}"
                outcome = "A wins" if k == 0 else "draw" if k == 1 else "B wins"
                elapsed = time.monotonic() - start
                self.say(f"[{self.games:4d}] {elapsed / 60:6.1f} min  A {'black' if a_black else 'white'} "
                         f"{opening:<18s} {outcome} {d:+d}{note} | {self.status_line()}")
                if self.ggf_out:
                    names = (f"A:{a.name}", f"B:{b.name}") if a_black else (f"B:{b.name}", f"A:{a.name}")
                    with open(self.ggf_out, "a", encoding="utf-8") as f:
                        f.write(ggf_record(r, *names) + "\n")
                value = llr(*self.wdl, self.elo0, self.elo1)
                if self.games < self.min_games:
                    continue
                if value >= self.upper:
                    self.decision = f"H1 accepted: A is stronger than B (elo1={self.elo1:g} over elo0={self.elo0:g})"
                    break
                if value <= self.lower:
                    self.decision = (f"H0 accepted: A is not elo1={self.elo1:g} stronger than B "
                                     f"(elo0={self.elo0:g} is the likelier)")
                    break
        finally:
            for e in (a, b):
                e.stop()
        self.seconds = time.monotonic() - start
        return self.summary()

    def summary(self):
        w, d, l = self.wdl
        n, s, var = score_stats(w, d, l)
        e, err = elo_estimate(w, d, l)
        value = llr(w, d, l, self.elo0, self.elo1)
        self.say("=== summary")
        self.say(f"result : {self.decision}")
        self.say(f"games  : {n}, A {w}-{d}-{l} (wins-draws-losses), score {100 * s:.1f}%, "
                 f"Elo {e:+.1f} ± {err:.1f} (95%)")
        self.say(f"LLR    : {value:+.3f} in [{self.lower:+.3f}, {self.upper:+.3f}] "
                 f"(elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g})")
        bw, bd, bl = self.by_colour[0]
        ww, wd, wl = self.by_colour[1]
        self.say(f"colours: A with black {bw}-{bd}-{bl}, A with white {ww}-{wd}-{wl}")
        for label, eng in self.engines.items():
            c = self.clocks[eng]
            at = f" (ply {c.slowest_at + 1})" if c.slowest_at is not None else ""
            self.say(f"engine {label}: {eng.name}, {c.moves} moves, slowest answer {c.slowest:.3f} s{at}, "
                     f"{c.over} over --time {self.time_limit:g} s, started {eng.starts} time(s)")
        self.say(f"forfeits: {len(self.forfeits)}" + "".join(
            f"\n  game {g}: {who}: {reason}" for g, who, reason in self.forfeits))
        if self.abandoned:
            self.say(f"dropped: {self.abandoned} game in play at the deadline (not counted)")
        self.say(f"wall time: {self.seconds / 60:.1f} min")
        self.say(f"command: {self.command}")
        return {"games": n, "wins": w, "draws": d, "losses": l, "score": s, "elo": e, "elo_err": err,
                "llr": value, "bounds": (self.lower, self.upper), "decision": self.decision,
                "forfeits": list(self.forfeits), "by_colour": self.by_colour,
                "slowest": {k: self.clocks[v].slowest for k, v in self.engines.items()},
                "over": {k: self.clocks[v].over for k, v in self.engines.items()},
                "names": {k: v.name for k, v in self.engines.items()}}


def _positive(kind):
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not v > 0:
            raise argparse.ArgumentTypeError(f"must be above 0: {text}")
        return v
    return parse


def main(argv=None, out=sys.stdout):
    ap = argparse.ArgumentParser(prog="python bench/sprt.py", description=__doc__.split("\n\n")[0],
                                 epilog="See the module docstring (and docs/benchmarks.md) for the details.")
    ap.add_argument("--engine-a", help="command of engine A (the candidate), an NBoard engine")
    ap.add_argument("--engine-b", help="command of engine B (the reference)")
    ap.add_argument("--ai-a", metavar="NAME", default=None,
                    help="engine A is `python -m engine nboard --ai NAME` (a built-in name, FILE.py:CLASS, ...)")
    ap.add_argument("--ai-b", metavar="NAME", default=None, help="engine B likewise")
    ap.add_argument("--cwd-a", default=None, help="directory engine A starts in")
    ap.add_argument("--cwd-b", default=None, help="directory engine B starts in")
    ap.add_argument("--time", type=_positive(float), default=0.5, help="the engines' seconds per move (default 0.5)")
    ap.add_argument("--timeout", type=_positive(float), default=None,
                    help="seconds after which an unanswered 'go' loses the game (default 2 x time + 1)")
    ap.add_argument("--elo0", type=float, default=0.0)
    ap.add_argument("--elo1", type=float, default=20.0)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--max-games", type=_positive(int), default=None)
    ap.add_argument("--max-minutes", type=_positive(float), default=None)
    ap.add_argument("--min-games", type=_positive(int), default=None,
                    help="no decision before this many games (default 20): the LLR's normal "
                         "approximation is poor on a handful of games (5-1-0 already passes +2.94)")
    ap.add_argument("--openings", default=None, help=f"openings file (default {os.path.relpath(DEFAULT_OPENINGS)})")
    ap.add_argument("--plies", type=_positive(int), default=None,
                    help="random openings of this many plies instead of a file (with --make-openings: "
                         "the openings' length, default 8)")
    ap.add_argument("--seed", type=int, default=1, help="order of the openings (or the random openings)")
    ap.add_argument("--ggf-out", "--pgn-out", dest="ggf_out", default=None,
                    help="append every game to this file, one GGF game a line (Othello's PGN)")
    ap.add_argument("--make-openings", action="store_true", help="write the balanced openings file and stop")
    ap.add_argument("--count", type=int, default=200, help="--make-openings: how many (default 200)")
    ap.add_argument("--opening-depth", type=int, default=10, help="--make-openings: search depth (default 10)")
    ap.add_argument("--max-abs", type=float, default=2.0,
                    help="--make-openings: largest |value| in discs (default 2)")
    args = ap.parse_args(argv)

    if args.make_openings:
        plies = args.plies or 8
        path = args.openings or DEFAULT_OPENINGS
        t = time.monotonic()
        ops = make_openings(args.count, plies, args.seed, args.opening_depth, args.max_abs)
        write_openings(path, ops, f"--count {args.count} --plies {plies} --seed {args.seed} "
                                  f"--opening-depth {args.opening_depth} --max-abs {args.max_abs:g}")
        out.write(f"{len(ops)} openings written to {path} in {time.monotonic() - t:.0f} s\n")
        return 0
    for side in ("a", "b"):
        ai = getattr(args, f"ai_{side}")
        if ai is not None:
            if getattr(args, f"engine_{side}"):
                ap.error(f"--ai-{side} and --engine-{side} name the same engine: give one")
            try:
                strategies.check(ai)
            except ValueError as e:
                ap.error(str(e))
            setattr(args, f"engine_{side}", shlex.join([sys.executable, "-m", "engine", "nboard", "--ai", ai,
                                                        "--time", f"{args.time:g}"]))
    if not args.engine_a or not args.engine_b:
        ap.error("--engine-a and --engine-b (or --ai-a and --ai-b) are required (or --make-openings)")
    if not args.elo0 < args.elo1 or not (0 < args.alpha < 1 and 0 < args.beta < 1):
        ap.error("need elo0 < elo1 and alpha, beta in (0, 1)")
    if args.plies is not None and args.plies > 20:
        ap.error("--plies: openings of at most 20 plies (a longer random one may never be found unfinished)")
    if args.min_games is not None and args.max_games is not None and args.min_games > args.max_games:
        ap.error("--min-games above --max-games: no decision could ever be taken")
    openings = None
    if args.plies is None:
        try:
            openings = read_openings(args.openings or DEFAULT_OPENINGS)
        except (OSError, ValueError) as e:
            ap.error(str(e))
    timeout = args.timeout if args.timeout is not None else 2 * args.time + 1.0
    a = Engine("A", args.engine_a, args.cwd_a)
    b = Engine("B", args.engine_b, args.cwd_b)
    match = Match(a, b, openings, args.time, timeout, args.elo0, args.elo1, args.alpha, args.beta,
                  args.max_games, args.max_minutes, args.plies, args.seed, out, args.ggf_out,
                  "python bench/sprt.py " + shlex.join(sys.argv[1:] if argv is None else argv),
                  min_games=20 if args.min_games is None else args.min_games)
    try:
        match.run()
    except EngineError as e:
        out.write(f"error: {e}\n")
        return 2
    except KeyboardInterrupt:
        out.write("interrupted\n")
        match.seconds = 0.0
        match.decision = "interrupted"
        match.summary()
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
