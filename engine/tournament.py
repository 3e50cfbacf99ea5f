"""Round-robin tournaments between strategies: ``python -m engine tournament NAMES... --games N``."""
import inspect
import io
import math
import multiprocessing
import random
import sys
import time
from pathlib import Path
from typing import Optional, Sequence, TextIO, TypedDict, Union

from . import loader, strategies
from .game import Game
from .notation import PASS, square_name
from .shape import Shape


MAX_GAMES = 100_000     # games per pair
OPENING_TRIES = 10_000  # random openings tried before giving up
MAX_WORKERS = 256

Job = tuple[str, str, str, float, Shape, int]
"""One game to play: black's name, white's, the opening, seconds per move, the board, seed."""


class GameResult(TypedDict):
    black: str
    white: str
    b: int                  # discs at the end
    w: int
    moves: str
    opening: str
    worst_time: float       # the longest move, as a fraction of the time limit
    slowest: Optional[tuple[str, int]]   # who made it, with how many empties
    fallbacks: dict[str, int]   # one's own AI: moves the greedy player made instead (by name)
    problem: str            # the last such problem


class Row(TypedDict):
    games: int
    wins: int
    draws: int
    losses: int
    discs: int
    vs: dict[str, list[int]]   # opponent -> [wins, draws, losses]
    score: float
    elo: float
    elo_err: float


def max_opening(size: int, shape: Optional[Shape] = None) -> int:
    """The longest random opening on the plain ``size`` board (or on ``shape``): a move on every
    empty square of the start but one."""
    return (shape or Shape.square(size)).start().empties() - 1


def check_opening(plies: int, size: int, shape: Optional[Shape] = None) -> None:
    """ValueError unless ``plies`` random opening moves can be played on the plain ``size``
    board (or on ``shape``)."""
    board = shape or Shape.square(size)
    if not 0 <= plies <= max_opening(size, board):
        raise ValueError(f"--opening must be from 0 to {max_opening(size, board)} plies on a "
                         f"{board.describe()} board (not {plies})")


def random_opening(rng: random.Random, plies: int, size: int = 8, shape: Optional[Shape] = None) -> str:
    """A random legal start of ``plies`` moves (no game ends within it) on the plain board of
    ``size`` or on ``shape``; ValueError when ``check_opening`` refuses ``plies``, or when none
    was found in ``OPENING_TRIES`` tries."""
    board = shape or Shape.square(size)
    check_opening(plies, board.size, board)
    for _ in range(OPENING_TRIES):
        g = Game.on(board)
        for _ in range(plies):
            moves = g.position.legal_moves()
            if not moves:
                break
            g.play(rng.choice(moves))
        else:
            if not g.position.is_game_over():
                return g.transcript(passes=True)
    raise ValueError(f"no random opening of {plies} plies without a pass found in {OPENING_TRIES} tries "
                     f"on {board.describe()}: choose a shorter --opening")


def play_game(job: Job) -> GameResult:
    """One game: (black name, white name, opening, seconds per move, board, seed) -> result dict.
    Each player searches on one thread: the games run side by side in ``workers`` processes."""
    black, white, opening, seconds, shape, seed = job
    players = [strategies.get(black, threads=1), strategies.get(white, threads=1)]
    for i, p in enumerate(players):
        rng = getattr(p, "rng", None)   # the players that draw at random
        if isinstance(rng, random.Random):
            rng.seed(seed * 2 + i)
    g = Game.from_transcript(opening, start=shape.start())
    worst = 0.0
    slowest: Optional[tuple[str, int]] = None
    fallbacks: dict[str, int] = {}
    last_problem = ""
    while not g.position.is_game_over():
        pos = g.position
        if pos.must_pass():
            g.play(PASS)
            continue
        t = time.monotonic()
        move = players[pos.turn].next_move(pos, seconds)
        took = (time.monotonic() - t) / seconds
        if took > worst:
            worst = took
            slowest = (players[pos.turn].name, pos.empties())
        g.play(move)
        problem = getattr(players[pos.turn], "problem", "")
        if problem:
            name = (black, white)[pos.turn]
            fallbacks[name] = fallbacks.get(name, 0) + 1
            last_problem = problem
    for p in players:
        close = getattr(p, "close", None)
        if close is not None:
            close()
    b, w = g.position.discs()
    return {"black": black, "white": white, "b": b, "w": w, "moves": g.transcript(passes=True),
            "opening": opening, "worst_time": worst, "slowest": slowest, "fallbacks": fallbacks,
            "problem": last_problem}


def elo(score: float, n: int) -> tuple[float, float]:
    """Elo difference for a score fraction over n games, with a 95% error bar."""
    s = min(max(score, 0.5 / n), 1 - 0.5 / n)
    e = -400 * math.log10(1 / s - 1)
    se = math.sqrt(s * (1 - s) / n)
    return e, 1.96 * se * 400 / (math.log(10) * s * (1 - s))


def run(names: list[str], games: int, seconds: float, size: int = 8, plies: int = 4, seed: int = 1,
        workers: int = 2, out: Optional[str] = None, stream: Optional[TextIO] = None,
        gauntlet: bool = False, shape: Optional[Shape] = None,
        table: bool = True) -> tuple[dict[str, Row], list[GameResult]]:
    """Every pair plays ``games`` games (half with each colour) from shared random openings,
    on the plain board of ``size`` or on ``shape``.

    ``gauntlet``: only the first name plays, against each of the others; ``table``: the table is
    written to ``stream`` at the end (``play`` returns it instead).
    """
    stream = stream or sys.stdout
    board = shape or Shape.square(size)
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError("a tournament needs two players at least, each named once")
    if not (isinstance(seconds, (int, float)) and 0 < seconds <= 3600):
        raise ValueError(f"the time per move must be above 0 and at most 3600 seconds (not {seconds!r})")
    for n in names:
        strategies.get(n)  # unknown names fail before anything starts
    check_opening(plies, board.size, board)
    if not 1 <= games <= MAX_GAMES or not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"need 1 <= games <= {MAX_GAMES} and 1 <= workers <= {MAX_WORKERS}")
    rng = random.Random(seed)
    jobs: list[Job] = []
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    if gauntlet:
        pairs = [(names[0], b) for b in names[1:]]
    for a, b in pairs:
        for k in range(0, games, 2):
            opening = random_opening(rng, plies, shape=board)
            jobs.append((a, b, opening, seconds, board, len(jobs)))
            if k + 1 < games:
                jobs.append((b, a, opening, seconds, board, len(jobs)))
    results: list[GameResult] = []
    start = time.monotonic()
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for r in pool.imap_unordered(play_game, jobs):
            results.append(r)
            done = len(results)
            eta = (time.monotonic() - start) / done * (len(jobs) - done)
            stream.write(f"\r{done}/{len(jobs)} games, about {eta:.0f} s left   ")
            stream.flush()
    stream.write("\n")
    rows = summarize(names, results)
    if table:
        stream.write(f"board: {board.describe()}\n")
        print_table(rows, results, stream)
    if out:
        text = "".join(to_ggf(r, board) + "\n" for r in results)
        try:
            with open(out, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:   # (checked before the games; the folder can change meanwhile)
            stream.write(f"cannot save the games to {out}: {e.strerror or e}; here they are:\n{text}")
        else:
            stream.write(f"games saved to {out}\n")
    return rows, results


def summarize(names: list[str], results: list[GameResult]) -> dict[str, Row]:
    """Each player's games, results, score and Elo, from the games' results."""
    t: dict[str, Row] = {n: {"games": 0, "wins": 0, "draws": 0, "losses": 0, "discs": 0, "vs": {}, "score": 0.0,
                             "elo": 0.0, "elo_err": 0.0} for n in names}
    for r in results:
        d = r["b"] - r["w"]
        for me, other, diff in ((r["black"], r["white"], d), (r["white"], r["black"], -d)):
            row = t[me]
            row["games"] += 1
            row["discs"] += diff
            if diff > 0:
                row["wins"] += 1
            elif diff < 0:
                row["losses"] += 1
            else:
                row["draws"] += 1
            vs = row["vs"].setdefault(other, [0, 0, 0])
            vs[0 if diff > 0 else 2 if diff < 0 else 1] += 1
    for row in t.values():
        n = max(1, row["games"])
        row["score"] = (row["wins"] + 0.5 * row["draws"]) / n
        row["elo"], row["elo_err"] = elo(row["score"], n)
    return t


def label(name: str) -> str:
    """How a player is shown in the table: one's own ``path/mybot.py:Corners`` as ``Corners``
    (``mybot`` for a file alone), a built-in name as it is."""
    if not loader.is_spec(name):
        return name
    target, _, cls = name.rpartition(":") if not name.lower().endswith(".py") else (name, "", "")
    return cls or Path(target).stem


def print_table(table: dict[str, Row], results: list[GameResult], stream: TextIO) -> None:
    names = sorted(table, key=lambda n: -table[n]["score"])
    shown = {n: label(n) for n in names}
    if len(set(shown.values())) < len(shown):       # two files with a class of one name: say which
        shown = {n: n if list(shown.values()).count(shown[n]) > 1 else shown[n] for n in names}
    w = max([12] + [len(v) + 1 for v in shown.values()])
    stream.write(f"{'player':{w}s} {'games':>5s} {'wins':>5s} {'draws':>5s} {'losses':>6s} "
                 f"{'score':>6s} {'discs/game':>10s} {'Elo':>12s}\n")
    for n in names:
        r = table[n]
        stream.write(f"{shown[n]:{w}s} {r['games']:5d} {r['wins']:5d} {r['draws']:5d} {r['losses']:6d} "
                     f"{100 * r['score']:5.1f}% {r['discs'] / max(1, r['games']):+10.1f} "
                     f"{r['elo']:+6.0f} ±{r['elo_err']:3.0f}\n")
    stream.write("pairs (wins-draws-losses of the row against the column):\n")
    grid = {(a, b): (lambda v: f"{v[0]}-{v[1]}-{v[2]}" if v else "-")(table[a]["vs"].get(b))
            for a in names for b in names}
    cell = max(10, max(len(c) for c in grid.values())) + 1     # (a cell never runs into the next)
    stream.write(" " * w + "".join(f"{shown[n][:cell - 1]:>{cell}s}" for n in names) + "\n")
    for a in names:
        stream.write(f"{shown[a]:{w}s}" + "".join(f"{grid[a, b]:>{cell}s}" for b in names) + "\n")
    instead: dict[str, int] = {}
    said: dict[str, str] = {}
    for game in results:
        for n, k in game["fallbacks"].items():
            instead[n] = instead.get(n, 0) + k
            said[n] = game["problem"]
    for n, k in sorted(instead.items()):
        stream.write(f"{shown.get(n, n)}: {k} move(s) played by the greedy player instead (last: {said[n]})\n")
    worst = max(results, key=lambda r: r["worst_time"], default=None)
    if worst and worst["slowest"]:
        name, empties = worst["slowest"]
        stream.write(f"longest move: {100 * worst['worst_time']:.0f}% of the time limit "
                     f"({name}, {empties} empties)\n")


def to_ggf(r: GameResult, shape: Shape) -> str:
    d = r["b"] - r["w"]
    return Game.from_transcript(r["moves"], start=shape.start()).to_ggf(
        r["black"], r["white"], f"{d:+d}.000" if d else "0.000", place="cardstand tournament")


Entrant = Union[str, type]
"""A player in ``play``: a strategy's name (``"best"``, ``"mybot.py:Corners"``) or a class."""


class Table:
    """What ``play`` returns: ``rows`` (each player's games, wins, score, Elo... by name, as
    ``engine tournament`` prints them) and ``results`` (every game); ``str(table)`` is the table."""

    def __init__(self, rows: dict[str, Row], results: list[GameResult]) -> None:
        self.rows = rows
        self.results = results

    def ranking(self) -> list[str]:
        """The names, best score first."""
        return sorted(self.rows, key=lambda n: -self.rows[n]["score"])

    def __str__(self) -> str:
        out = io.StringIO()
        print_table(self.rows, self.results, out)
        return out.getvalue()


def entrant_name(player: Entrant) -> str:
    """The name ``strategies.get`` knows ``player`` by: a class becomes ``FILE.py:CLASS`` (its
    file is loaded again in each worker process)."""
    if isinstance(player, str):
        return player
    for name, cls in strategies.STRATEGIES.items():
        if player is cls:
            return name
    if not isinstance(player, type):
        raise ValueError(f"a tournament's players are names or classes, not {player!r}")
    try:
        path = inspect.getfile(player)
    except (TypeError, OSError):
        raise ValueError(f"class {player.__name__} has no file: give its name or write it in a .py file") from None
    return f"{path}:{player.__qualname__}"


def play(players: Sequence[Entrant], games: int = 2, seconds: float = 0.1, size: int = 8, plies: int = 4,
         seed: int = 1, workers: int = 2, gauntlet: bool = False,
         progress: Optional[TextIO] = sys.stderr, shape: Union[Shape, str, None] = None) -> Table:
    """Play a round robin (every pair ``games`` games, half with each colour, from shared random
    openings of ``plies`` moves) or a ``gauntlet`` (the first player against each other one) and
    return the table, on the plain board of ``size`` or on ``shape`` (a ``Shape``, a built-in
    name or a picture file).  ``progress``: where the running count of games goes (None: nowhere).

    A script's own classes play as they are (their file is loaded in each worker)::

        from engine import tournament
        from mybot import Corners
        table = tournament.play([Corners, "greedy", "best"], games=4, seconds=0.1)
        print(table)                    # the table ``python -m engine tournament`` prints
        print(table.ranking()[0])       # the winner's name
    """
    names = [entrant_name(p) for p in players]
    if len(set(names)) != len(names) or len(names) < 2:
        raise ValueError("a tournament needs two players at least, each once")
    board = Shape.find(shape) if isinstance(shape, str) else shape
    rows, results = run(names, games, seconds, size=size, plies=plies, seed=seed, workers=workers, shape=board,
                        stream=progress if progress is not None else io.StringIO(), gauntlet=gauntlet,
                        table=False)
    return Table(rows, results)
