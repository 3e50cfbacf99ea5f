"""SPRT match between two NBoard engines: is engine A stronger than engine B?

    python bench/sprt.py --engine-a "CMD" --engine-b "CMD" [--time 0.5]
    python bench/sprt.py --ai-a mybot.py:Corners --ai-b greedy [--time 0.5] ...
        [--elo0 0] [--elo1 20] [--alpha 0.05] [--beta 0.05]
        [--max-games N] [--max-minutes M] [--min-games 20] [--openings FILE | --plies 8] [--seed S]
        [--ggf-out FILE] [--cwd-a DIR] [--cwd-b DIR] [--workers N | --cluster ADDRESS] [--journal DIR]
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
(elo0) from the game pairs, in the pentanomial GSPRT approximation of
fishtest, OpenBench and fastchess (logistic Elo): each pair is counted by
the points A scored in it (0, 1/2, 1, 3/2, 2); with the mean score s a game
and the variance v of a pair's mean score over N pairs,
LLR = (s1 - s0) (2 s - s0 - s1) / (2 v / N), s_i = 1 / (1 + 10^(-elo_i/400)).
The two games of an opening are alike (an opening that favours one colour
favours it in both), which the trinomial model (wins, draws, losses as if
each game were independent) ignores: it overstates the variance and needs
more games for the same decision.  A pair not yet complete is not counted.
The test stops when the LLR leaves [log(beta/(1-alpha)), log((1-beta)/alpha)]
(H0 or H1 accepted), but not before ``--min-games`` (default 20: on a
handful of lopsided games the variance estimate is so small that 5 wins
and a draw already pass the bound), or at ``--max-games`` /
``--max-minutes`` (a game still being played at the deadline is dropped,
not counted).  One progress line
per game; the summary ends with the exact command.  ``--ggf-out FILE``
appends each game to FILE, one GGF game a line: a new file, or one that
already holds GGF games (anything else, the openings file, a folder or a
missing folder is refused before the match, as are missing ``--cwd-a`` /
``--cwd-b`` folders).

Threads: our ``best`` searches on every core the process may run on, so
``taskset -c 1`` in both commands gives each one thread on one shared core
(``--threads 1`` says it too, where the engine has the flag).  One game is
played at a time, by two engines kept from game to game, unless:

Journal: ``--journal DIR`` keeps each game pair's result in DIR as it
finishes (``engine.fit.jobs.Journal``), and counts the pairs in their order
(one that finishes early waits for those before it); the same command
again, after a crash, a kill or a Ctrl+C, takes the pairs kept and plays
the rest.  With engines that play the same games again (fixed depths, no
clock), the result is the one a run never stopped would have given; a
journal of another match (other engines, openings or options) is refused.

Spread: ``--workers N`` plays N game pairs at once on this machine, and
``--cluster ADDRESS`` plays them on a Dask cluster (``local:N``, or a
scheduler's ``tcp://HOST:8786``; docs/training.md), each pair a job of
``engine.fit.jobs`` that starts its own two engines (``engine.fit.match``).
Results are counted as pairs finish; once the test decides, the pairs in
play are stopped and not counted.  On a cluster the engine commands run on
the workers: give paths that exist there.  Give each game pair a core of
its own (N at most the cores, each engine with ``--threads 1``) or the
engines' time per move is not what it says.
"""
import signal
import sys

if __name__ == "__main__":   # a Ctrl+C while the modules load ends the run quietly (130), not in a traceback
    signal.signal(signal.SIGINT, lambda signum, frame: sys.exit(130))

import argparse  # noqa: E402
import itertools  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import shlex  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import gzipped, strategies  # noqa: E402  (the rules, after the path is set)
from engine.cliargs import command_words  # noqa: E402
from engine.game import Game  # noqa: E402

DEFAULT_OPENINGS = Path(__file__).resolve().parent / "openings.txt"
MAX_OPENINGS_FILE = 1 << 20     # bytes of an openings file read at most (some 40,000 openings)


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


def pair_stats(penta):
    """(pairs, mean score a game, variance of a pair's mean score) from ``penta``: the game pairs
    in which A scored 0, 1/2, 1, 3/2 and 2 points (LL, LD, WL or DD, WD, WW)."""
    n = sum(penta)
    if n == 0:
        return 0, 0.5, 0.0
    points = (0.0, 0.25, 0.5, 0.75, 1.0)     # a pair's score, a game's worth
    s = sum(c * x for c, x in zip(penta, points)) / n
    var = sum(c * (x - s) ** 2 for c, x in zip(penta, points)) / n
    return n, s, var


def llr_pentanomial(penta, elo0, elo1):
    """The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0), logistic Elo, from game pairs
    (``pair_stats``): the trinomial's formula on the pairs' scores, whose variance counts that the
    two games of an opening are alike, as fishtest, OpenBench and fastchess do; 0 without pairs.
    fastchess's test figures:

    >>> round(llr_pentanomial([223, 9863, 20279 + 1000, 10037, 246], 0.5, 2.5), 2)
    -3.07
    >>> round(llr_pentanomial([871, 26175, 55003 + 980, 26678, 821], 0, 2), 2)
    -4.98
    """
    if not sum(penta):
        return 0.0
    # (an outcome never seen counts as 1/1000 of a pair, as fishtest regularises: a clean sweep
    # has no spread at all, and gave no evidence either way, so a match of losses never ended)
    n, s, var = pair_stats([c if c else 1e-3 for c in penta])
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return (s1 - s0) * (2 * s - s0 - s1) / (2 * var / n)


def sprt_bounds(alpha, beta):
    """(lower, upper) LLR bounds: below lower H0 is accepted, above upper H1."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def elo_estimate_pairs(penta):
    """(Elo, half-width of its 95% interval) from game pairs (``pair_stats``)."""
    n, s, var = pair_stats(penta)
    if n == 0:
        return 0.0, float("inf")
    s = min(max(s, 0.25 / n), 1 - 0.25 / n)
    if var <= 0:
        var = s * (1 - s) / 2
    err = 1.96 * math.sqrt(var / n) * 400 / (math.log(10) * s * (1 - s))
    return score_to_elo(s) + 0.0, err


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
    try:       # (a regular file only, read to a bound: never a pipe's or a device's endless bytes)
        text = gzipped.read_file(path, MAX_OPENINGS_FILE).decode("utf-8-sig")     # (Notepad's BOM too)
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not a text file of openings ({e.reason} at byte {e.start})") from None
    except ValueError as e:
        raise ValueError(f"{path}: not a file of openings: {e}") from None
    for i, line in enumerate(text.splitlines(), 1):
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


from engine.fit.match import (  # noqa: E402  (the engines and their games)
    Clock, Engine, EngineError, pair_record, play_game, play_pair, stop_together)


# -- the match ----------------------------------------------------------------

class Match:
    def __init__(self, a, b, openings, time_limit, timeout, elo0, elo1, alpha, beta, max_games=None,
                 max_minutes=None, plies=None, seed=1, out=sys.stdout, ggf_out=None, command="", min_games=0,
                 workers=1, cluster=None, journal=None):
        self.engines = {"A": a, "B": b}
        self.clocks = {a: Clock(), b: Clock()}
        self.openings, self.plies = openings, plies
        self.time_limit, self.timeout = time_limit, timeout
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.lower, self.upper = sprt_bounds(alpha, beta)
        self.max_games, self.max_minutes, self.min_games = max_games, max_minutes, min_games
        self.rng, self.seed = random.Random(seed), seed
        self.out, self.ggf_out, self.command = out, ggf_out, command
        self.seconds = 0.0
        self.wdl = [0, 0, 0]                      # A's wins, draws, losses
        self.penta = [0, 0, 0, 0, 0]              # game pairs in which A scored 0, 1/2, 1, 3/2, 2 points
        self._half = {}                           # pair -> A's points in its game counted so far
        self.journal, self.kept = journal, 0      # a folder keeping each pair's games; pairs taken from it
        self.by_colour = {0: [0, 0, 0], 1: [0, 0, 0]}  # A with black / with white
        self.forfeits = []
        self.abandoned = 0
        self.decision = None
        self.games = 0
        self.workers, self.cluster = workers, cluster
        self.started = None
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

    def llr(self):
        """The test's LLR: on the game pairs (pentanomial)."""
        return llr_pentanomial(self.penta, self.elo0, self.elo1)

    def status_line(self):
        w, d, l = self.wdl
        n, s, _ = score_stats(w, d, l)
        e, err = elo_estimate_pairs(self.penta)
        return (f"A {w}-{d}-{l} ({100 * s:.1f}%) Elo {e:+.1f} ± {err:.1f} | "
                f"LLR {self.llr():+.2f} [{self.lower:+.2f}, {self.upper:+.2f}]")

    def _announce(self):
        a, b = self.engines["A"], self.engines["B"]
        for e in (a, b):     # (an engine not started here has no name yet)
            name = f"{e.name}: " if e.name != e.label else ""
            self.say(f"{e.label}: {name}{e.command}" + (f" (in {e.cwd})" if e.cwd else ""))
        where = f"; game pairs on {self.cluster or f'{self.workers} local processes'}" \
            if self.cluster or self.workers > 1 else ""
        self.say(f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}: "
                 f"LLR bounds [{self.lower:+.3f}, {self.upper:+.3f}]; time {self.time_limit:g} s per move, "
                 f"forfeit after {self.timeout:g} s; "
                 + (f"{len(self.openings)} openings" if self.openings is not None
                    else f"random openings of {self.plies} plies") + where)

    def _record(self, a_black, opening, diff, forfeit, ggf, start, pair):
        """Count one finished game (``diff``: black minus white) of game pair ``pair``; the decision
        it brings, or None."""
        self.games += 1
        d = diff if a_black else -diff
        k = 0 if d > 0 else 1 if d == 0 else 2
        self.wdl[k] += 1
        self.by_colour[0 if a_black else 1][k] += 1
        points = (2, 1, 0)[k]       # (half points)
        if pair in self._half:
            self.penta[self._half.pop(pair) + points] += 1
        else:
            self._half[pair] = points
        note = ""
        if forfeit:
            colour, reason = forfeit
            who = "A" if (colour == 0) == a_black else "B"
            self.forfeits.append((self.games, who, reason))
            note = f" FORFEIT by {who}: {reason}"
        outcome = "A wins" if k == 0 else "draw" if k == 1 else "B wins"
        elapsed = time.monotonic() - start
        self.say(f"[{self.games:4d}] {elapsed / 60:6.1f} min  A {'black' if a_black else 'white'} "
                 f"{opening:<18s} {outcome} {d:+d}{note} | {self.status_line()}")
        if self.ggf_out and ggf:
            with open(self.ggf_out, "a", encoding="utf-8") as f:
                f.write(ggf + "\n")
        value = self.llr()
        if self.games >= self.min_games and value >= self.upper:
            return f"H1 accepted: A is stronger than B (elo1={self.elo1:g} over elo0={self.elo0:g})"
        if self.games >= self.min_games and value <= self.lower:
            return (f"H0 accepted: A is not elo1={self.elo1:g} stronger than B "
                    f"(elo0={self.elo0:g} is the likelier)")
        if self.max_games is not None and self.games >= self.max_games:
            return f"stopped at --max-games {self.max_games}"
        return None

    def run(self):
        if self.cluster or self.workers > 1 or self.journal is not None:
            return self._run_spread()
        start = self.started = time.monotonic()
        deadline = start + 60 * self.max_minutes if self.max_minutes else None
        a, b = self.engines["A"], self.engines["B"]
        for e in (a, b):
            try:
                e.start()
            except EngineError as err:
                stop_together([a, b])
                raise EngineError(err.kind, f"engine {e.label} does not start: {err}") from None
        self._announce()
        pair, opening = 0, None
        try:
            while self.decision is None:
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
                ggf = pair_record(r, a, b, a_black) if self.ggf_out else None
                self.decision = self._record(a_black, opening, r["diff"], r["forfeit"], ggf, start, pair)
        finally:
            stop_together([a, b])
        self.seconds = time.monotonic() - start
        return self.summary()

    def _run_spread(self):
        """Game pairs as jobs (``engine.fit.match.play_pair``) on local processes or a Dask cluster,
        counted as they finish; each pair starts its own two engines.  With a journal, each pair's
        result is kept as it comes, and the pairs are counted in their order (one that finishes
        early waits for those before it): the same command again takes the pairs kept and plays
        the rest, to the result a run never interrupted would have reached with the same games."""
        from engine.fit import jobs
        start = self.started = time.monotonic()
        deadline = time.time() + 60 * self.max_minutes if self.max_minutes else None
        a, b = self.engines["A"], self.engines["B"]
        book = jobs.Journal(self.journal, self.fingerprint()) if self.journal is not None else None
        kept = book.done() if book is not None else {}
        self._announce()
        pairs = itertools.count() if self.max_games is None else range((self.max_games + 1) // 2)
        # (no pair is started after the deadline)
        last = None if self.max_games is None or self.max_games % 2 == 0 else self.max_games // 2
        order = []      # the pair index of each job started
        openings = []   # (drawn in the pairs' order: the random ones are the same whatever was kept)

        def opening(i):
            while len(openings) <= i:
                openings.append(self.opening(len(openings)))
            return openings[i]

        def made():
            for i in itertools.takewhile(lambda _: deadline is None or time.time() < deadline, pairs):
                if i in kept:
                    continue
                order.append(i)
                yield (a.command, a.cwd, b.command, b.cwd, opening(i), self.time_limit, self.timeout, deadline,
                       1 if i == last else 2)     # (an odd --max-games: its last pair plays one game)

        def counted():
            """(pair, result, kept) in the order to count them: with a journal, the pairs in their
            order (the kept ones taken, the others as they finish); else as they finish."""
            waiting, nxt = {}, 0

            def ready():
                nonlocal nxt
                while nxt in waiting or nxt in kept:
                    old = nxt not in waiting
                    self.kept += old
                    yield nxt, kept[nxt] if old else waiting.pop(nxt), old
                    nxt += 1

            yield from ready()
            for k, r in jobs.stream(play_pair, made(), cluster=self.cluster, workers=self.workers):
                i = order[k]
                if book is None:
                    yield i, r, False
                    continue
                book.put(i, r)
                waiting[i] = r
                yield from ready()

        results = counted()
        try:
            for i, r, old in results:
                if r["error"] and self.games == 0:
                    raise EngineError("crash", r["error"])
                if r["error"]:
                    self.decision = f"aborted: {r['error']}"
                    break
                for label, eng in self.engines.items():
                    c, got = self.clocks[eng], r["clocks"][label]
                    c.moves += got["moves"]
                    c.over += got["over"]
                    c.total += got.get("total", 0.0)    # (a journal kept before answers were summed)
                    eng.starts += got["starts"]
                    if got["slowest"] > c.slowest:
                        c.slowest, c.slowest_at = got["slowest"], got["slowest_at"]
                    eng.name = r["names"][label]
                for g in r["games"]:
                    if g["abandoned"]:
                        self.abandoned += 1
                        self.decision = f"stopped at --max-minutes {self.max_minutes:g} (a game in play dropped)"
                        break
                    self.decision = self._record(g["a_black"], g["opening"], g["diff"], g["forfeit"],
                                                 None if old else g["ggf"], start, i)
                    if self.decision:
                        break
                if self.decision:
                    break
            else:
                if self.decision is None and deadline is not None:
                    self.decision = f"stopped at --max-minutes {self.max_minutes:g}"
        finally:
            results.close()
        self.seconds = time.monotonic() - start
        return self.summary()

    def fingerprint(self):
        """What a journal of this match is kept for: the engines, the openings and every option
        that changes the games or the test."""
        import hashlib
        a, b = self.engines["A"], self.engines["B"]
        what = [a.command, a.cwd, b.command, b.cwd, self.openings, self.plies, self.seed, self.time_limit,
                self.timeout, self.elo0, self.elo1, self.alpha, self.beta, self.max_games, self.min_games,
                _files_named(a.command, a.cwd), _files_named(b.command, b.cwd)]
        return hashlib.sha256(repr(what).encode()).hexdigest()

    def summary(self):
        w, d, l = self.wdl
        n, s, var = score_stats(w, d, l)
        e, err = elo_estimate_pairs(self.penta)
        value = self.llr()
        self.say("=== summary")
        self.say(f"result : {self.decision}")
        self.say(f"games  : {n}, A {w}-{d}-{l} (wins-draws-losses), score {100 * s:.1f}%, "
                 f"Elo {e:+.1f} ± {err:.1f} (95%, from the pairs)")
        self.say(f"pairs  : {sum(self.penta)}, A scored 0-0.5-1-1.5-2 points in "
                 + "-".join(str(c) for c in self.penta) + " of them (pentanomial)"
                 + (f"; {self.kept} taken from the journal" if self.kept else ""))
        self.say(f"LLR    : {value:+.3f} in [{self.lower:+.3f}, {self.upper:+.3f}] "
                 f"(elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g})")
        bw, bd, bl = self.by_colour[0]
        ww, wd, wl = self.by_colour[1]
        self.say(f"colours: A with black {bw}-{bd}-{bl}, A with white {ww}-{wd}-{wl}")
        for label, eng in self.engines.items():
            c = self.clocks[eng]
            at = f" (ply {c.slowest_at + 1})" if c.slowest_at is not None else ""
            mean = f"{c.total / c.moves:.3f}" if c.moves else "-"
            self.say(f"engine {label}: {eng.name}, {c.moves} moves, {mean} s a move, "
                     f"slowest answer {c.slowest:.3f} s{at}, "
                     f"{c.over} over --time {self.time_limit:g} s, started {eng.starts} time(s)")
        self.say(f"forfeits: {len(self.forfeits)}" + "".join(
            f"\n  game {g}: {who}: {reason}" for g, who, reason in self.forfeits))
        if self.abandoned:
            self.say(f"dropped: {self.abandoned} game in play at the deadline (not counted)")
        self.say(f"wall time: {self.seconds / 60:.1f} min")
        self.say(f"command: {self.command}")
        return {"games": n, "wins": w, "draws": d, "losses": l, "score": s, "elo": e, "elo_err": err,
                "pentanomial": list(self.penta), "kept": self.kept,
                "llr": value, "bounds": (self.lower, self.upper), "decision": self.decision,
                "forfeits": list(self.forfeits), "by_colour": self.by_colour,
                "slowest": {k: self.clocks[v].slowest for k, v in self.engines.items()},
                "over": {k: self.clocks[v].over for k, v in self.engines.items()},
                "mean": {k: self.clocks[v].total / max(1, self.clocks[v].moves) for k, v in self.engines.items()},
                "names": {k: v.name for k, v in self.engines.items()}}


def _files_named(command, cwd):
    """The digests of the files an engine's command names (one's own AI, a script): a journal kept
    for an AI that was edited since is another match's."""
    import hashlib
    out = []
    for word in command_words(command):
        path = Path(cwd or ".", word.split(":")[0] if ".py:" in word else word)
        try:
            if path.suffix in (".py", ".sh", ".js", ".jar") and path.is_file():
                out.append(hashlib.sha256(gzipped.read_file(path, 64 << 20)).hexdigest())
        except (OSError, ValueError):
            out.append("unreadable")
    return out


def ggf_out_problem(path, openings):
    """Why the games cannot be appended to ``path`` (checked before the match), or None: it must
    be a plain file in a folder that exists and can be written, not the openings file, and if it
    holds anything, GGF games (an appended text would spoil any other file)."""
    target = Path(path)
    if target.is_dir():
        return "a folder, not a file"
    if not target.parent.is_dir():
        return "its folder does not exist"
    if target.exists():
        if not target.is_file():
            return "not a plain file"
        if target.resolve() == Path(openings).resolve():
            return "the openings file"
        try:
            with open(target, "rb") as f:
                head = f.read(64)
        except OSError as e:
            return e.strerror or str(e)
        if head and not head.lstrip().startswith(b"(;"):
            return "not a file of GGF games (one '(;GM[Othello]...;)' a line): games are appended only to one"
        if not os.access(target, os.W_OK):
            return "cannot be written"
    elif not os.access(target.parent, os.W_OK):
        return "its folder cannot be written"
    return None


def _positive(kind, most=1e6):
    """A ``type=``: a finite number above 0 and at most ``most``."""
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not 0 < v <= most:      # (NaN and inf too)
            raise argparse.ArgumentTypeError(f"must be above 0 and at most {most:g}: {text}")
        return v
    return parse


def _finite(text):
    """A ``type=``: a finite number (an Elo, a probability)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"must be a finite number: {text}")
    return v


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
    ap.add_argument("--time", type=_positive(float, 3600), default=0.5, help="the engines' seconds per move (default 0.5)")
    ap.add_argument("--timeout", type=_positive(float), default=None,
                    help="seconds after which an unanswered 'go' loses the game (default 2 x time + 1)")
    ap.add_argument("--elo0", type=_finite, default=0.0)
    ap.add_argument("--elo1", type=_finite, default=20.0)
    ap.add_argument("--alpha", type=_finite, default=0.05)
    ap.add_argument("--beta", type=_finite, default=0.05)
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
    ap.add_argument("--workers", type=_positive(int, 256), default=1,
                    help="game pairs played at once on this machine, each with its own two engines "
                         "(default 1: one game at a time, the engines kept from game to game)")
    ap.add_argument("--cluster", default=None, metavar="ADDRESS",
                    help="play the game pairs on a Dask cluster: its scheduler (tcp://HOST:8786) or local:N "
                         "(see docs/training.md); the engine commands run on its workers")
    ap.add_argument("--journal", default=None, metavar="DIR",
                    help="keep each game pair's result in DIR as it finishes (pairs are then counted in "
                         "their order, each with its own two engines): the same command again takes "
                         "them and plays the rest (docs/training.md)")
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
            words = [sys.executable, "-m", "engine", "nboard", "--ai", ai, "--time", f"{args.time:g}"]
            # (run by the system's shell: cmd.exe on Windows, which knows no POSIX quotes)
            setattr(args, f"engine_{side}", subprocess.list2cmdline(words) if os.name == "nt" else shlex.join(words))
    if not args.engine_a or not args.engine_b:
        ap.error("--engine-a and --engine-b (or --ai-a and --ai-b) are required (or --make-openings)")
    if not args.elo0 < args.elo1 or not (0 < args.alpha < 1 and 0 < args.beta < 1):
        ap.error("need elo0 < elo1 and alpha, beta in (0, 1)")
    if args.plies is not None and args.plies > 20:
        ap.error("--plies: openings of at most 20 plies (a longer random one may never be found unfinished)")
    if args.journal is not None and not args.journal.strip():
        ap.error("--journal needs a folder's name")
    if args.cluster is not None and not args.cluster.strip():
        ap.error("--cluster needs an address: tcp://HOST:8786 or local:N")
    if args.cluster is not None and args.workers != 1:
        ap.error("--workers is for this machine; a --cluster has its own workers")
    if args.cluster is not None and args.cluster.startswith("local:") and \
            not (args.cluster[6:].isdigit() and 1 <= int(args.cluster[6:]) <= 256):
        ap.error(f"--cluster local:N takes N from 1 to 256 (not {args.cluster[6:]!r})")
    if args.min_games is not None and args.max_games is not None and args.min_games > args.max_games:
        ap.error("--min-games above --max-games: no decision could ever be taken")
    for side, folder in (("a", args.cwd_a), ("b", args.cwd_b)):
        if folder is not None and not Path(folder).is_dir():
            ap.error(f"--cwd-{side} {folder}: no such folder")
    if args.ggf_out is not None:
        problem = ggf_out_problem(args.ggf_out, args.openings or DEFAULT_OPENINGS)
        if problem:
            ap.error(f"--ggf-out {args.ggf_out}: {problem}")
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
                  min_games=20 if args.min_games is None else args.min_games, workers=args.workers,
                  cluster=args.cluster, journal=args.journal)
    try:
        match.run()
    except (EngineError, RuntimeError, ValueError, OSError) as e:   # (a cluster lost; a journal of another
        #                                                              match, or one that cannot be written)
        out.write(f"error: {e}\n")
        return 2
    except KeyboardInterrupt:
        out.write("interrupted" + (": the journal keeps the pairs done, and the same command again resumes\n"
                                   if args.journal else "\n"))
        match.seconds = time.monotonic() - match.started if match.started else 0.0
        match.decision = "interrupted"
        match.summary()
        return 130
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = main()
    except KeyboardInterrupt:   # before the match: reading the openings, starting the engines
        code = 130
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the run is over: a Ctrl+C while Python ends changes nothing
    sys.exit(code)
