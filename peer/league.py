"""A league of programs on a share, as values: its schedule (a round robin, both colours), what
the referee decides of each game, and the standings (points, Elo with error bars, a crosstable).
No I/O: the league's files are ``peer.leaguefiles``, the referee ``peer.referee``, an entrant's
process ``peer.entrant``."""
import math
import re
from dataclasses import dataclass, field

__all__ = ["Game", "Result", "Standing", "League", "round_robin", "standings", "elo", "LEAGUE_NAME",
           "PLAYED", "FORFEIT", "RESERVED"]

LEAGUE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,15}")    # a league's name: short, its tables' prefix
RESERVED = frozenset({"referee"})       # member names of the league board that are not entrants
PLAYED, FORFEIT = "played", "forfeit"


@dataclass(frozen=True)
class Game:
    """Game ``n`` of the schedule: ``black`` against ``white`` in ``round``, at ``table``."""
    n: int
    round: int
    black: str
    white: str
    table: str


@dataclass(frozen=True)
class Result:
    """What the referee decided of game ``n``: ``how`` (played, forfeit), each side's points
    (``black``, ``white``: 1, 0.5 or 0; a double forfeit gives both 0), ``score`` (the discs,
    "36-28", or how it ended), ``gid`` (the game record's id, for a played game) and ``reason``
    (a forfeit's, in English)."""
    n: int
    how: str
    black: float
    white: float
    score: str = ""
    gid: str = ""
    reason: str = ""


@dataclass
class League:
    """A league's settings and schedule, as its first referee fixed them."""
    name: str
    entrants: list[str]
    games: list[Game]
    size: int = 8
    shape: str = ""         # a shaped board's code (``peer.protocol.shape_code``), '' for plain
    time: float = 0.1       # thinking time a move for the built-in players
    rounds: int = 1

    def game(self, n: int) -> Game:
        return self.games[n - 1]


def round_robin(name: str, entrants: list[str], rounds: int = 1) -> list[Game]:
    """Every entrant against every other, once with each colour, ``rounds`` times; ordered so that
    games that can run at once (no entrant twice) come together (the circle method).  Tables are
    named ``<name>-g<n>``."""
    players = sorted(entrants)
    if len(players) % 2:
        players.append("")          # a bye
    m = len(players)
    slots: list[list[tuple[str, str]]] = []
    for r in range(m - 1):
        pairs = []
        for i in range(m // 2):
            a, b = players[i], players[m - 1 - i]
            if a and b:
                pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        slots.append(pairs)
        players = [players[0]] + [players[-1]] + players[1:-1]
    games: list[Game] = []
    for rnd in range(1, rounds + 1):
        for swap in (False, True):
            for pairs in slots:
                for a, b in pairs:
                    black, white = (b, a) if swap else (a, b)
                    n = len(games) + 1
                    games.append(Game(n, rnd, black, white, f"{name}-g{n:03d}"))
    return games


@dataclass
class Standing:
    """One entrant's line of the standings."""
    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0       # games it lost by forfeit (counted in ``losses`` too)
    points: float = 0.0
    elo: float = 0.0
    error: float = 0.0      # the 95% interval's half width of ``elo`` (inf: no played game)
    rank: int = 0
    against: dict[str, list[float]] = field(default_factory=dict)   # points against each opponent


def standings(league: League, results: dict[int, Result]) -> list[Standing]:
    """The standings after ``results``, best first (points, then Elo, then name); Elo from the
    played games only (a forfeit says nothing of strength), anchored at 0 for the field's mean."""
    table = {name: Standing(name) for name in league.entrants}
    played: list[tuple[str, str, float]] = []
    for n, r in sorted(results.items()):
        g = league.game(n)
        for me, them, pts, other in ((g.black, g.white, r.black, r.white), (g.white, g.black, r.white, r.black)):
            s = table[me]
            s.games += 1
            s.points += pts
            s.against.setdefault(them, []).append(pts)
            if pts > other:
                s.wins += 1
            elif pts == other and r.how == PLAYED:
                s.draws += 1
            else:
                s.losses += 1
                if r.how == FORFEIT and pts == 0:
                    s.forfeits += 1
        if r.how == PLAYED:
            played.append((g.black, g.white, r.black))
    ratings, errors = elo(league.entrants, played)
    for name, s in table.items():
        s.elo, s.error = ratings[name], errors[name]
    out = sorted(table.values(), key=lambda s: (-s.points, -s.elo, s.name))
    for i, s in enumerate(out, 1):
        s.rank = i
    return out


PRIOR = 1.0     # virtual draws of each entrant against an opponent of the mean: no rating runs off to infinity


def elo(names: list[str], games: list[tuple[str, str, float]]) -> tuple[dict[str, float], dict[str, float]]:
    """Elo ratings (mean 0) that make ``games`` (a, b, a's score) most likely (Bradley-Terry, a
    draw half a win, with ``PRIOR`` virtual draws each against the mean), and each rating's 95%
    error (1.96 standard errors from the likelihood's curvature; inf for an entrant without a
    played game)."""
    k = math.log(10) / 400
    idx = {n: i for i, n in enumerate(names)}
    m = len(names)
    r = [0.0] * m
    seen = [0] * m
    for a, b, _ in games:
        seen[idx[a]] += 1
        seen[idx[b]] += 1
    hessian = [[0.0] * m for _ in range(m)]
    for _ in range(100):
        grad = [0.0] * m
        hessian = [[0.0] * m for _ in range(m)]
        for i in range(m):              # the prior: PRIOR draws against a player rated 0
            e = 1 / (1 + math.exp(-k * r[i]))
            grad[i] += PRIOR * (0.5 - e) * k
            hessian[i][i] += PRIOR * e * (1 - e) * k * k
        for a, b, s in games:
            i, j = idx[a], idx[b]
            e = 1 / (1 + math.exp(-k * (r[i] - r[j])))
            grad[i] += (s - e) * k
            grad[j] -= (s - e) * k
            w = e * (1 - e) * k * k
            hessian[i][i] += w
            hessian[j][j] += w
            hessian[i][j] -= w
            hessian[j][i] -= w
        step = _solve(hessian, grad)
        r = [x + d for x, d in zip(r, step)]
        if max((abs(d) for d in step), default=0.0) < 1e-6:
            break
    mean = sum(r) / m if m else 0.0
    cov = _inverse(hessian)
    ratings = {n: r[i] - mean for n, i in idx.items()}
    errors = {n: 1.96 * math.sqrt(max(cov[i][i], 0.0)) if seen[i] else math.inf for n, i in idx.items()}
    return ratings, errors


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a x = b (Gaussian elimination with partial pivoting; a is positive definite here)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(m[i][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-300:
            continue
        for i in range(c + 1, n):
            f = m[i][c] / m[c][c]
            for j in range(c, n + 1):
                m[i][j] -= f * m[c][j]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        s = m[i][n] - sum(m[i][j] * x[j] for j in range(i + 1, n))
        x[i] = s / m[i][i] if abs(m[i][i]) > 1e-300 else 0.0
    return x


def _inverse(a: list[list[float]]) -> list[list[float]]:
    n = len(a)
    cols = [_solve(a, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]
