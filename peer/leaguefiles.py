"""A league's folder on the share: ``SHARE/<league>/``, a board (the referee and the entrants join
it as members, so each sees who is there) holding the league's own files::

    league              the settings and the schedule, written once by the first referee
    results             each game decided so far, and the games under way ("due")
    entries/<name>      what an entrant plays (for the standings), written by that entrant
    entries/.listed     empty, rewritten by a referee waiting for entrants (its listing made fresh)
    standings.txt       the standings, as text
    standings.html      the standings page: the table, the crosstable, every game with its record

Only the referee writes ``league`` and ``results``; with the class's secret it signs them (an
HMAC-SHA256 ``mac`` line) and every reader refuses them unsigned or changed.  Everything read
here comes from the share and is checked: names by the rules of member names, counts bounded,
table names made from the league's name and the game's number (never read from a file).
"""
import hashlib
import hmac
import html
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

import comm
from comm import fsops
from comm.message import is_device_name
from comm.text import visible

from .league import FORFEIT, LEAGUE_NAME, PLAYED, RESERVED, Game, League, Result, Standing, standings
from .protocol import game_id_problem, parse_board
from .record import escape, unescape
from .tables import LEAGUE_MARKER, table_kind

__all__ = ["LeagueError", "Entry", "LeagueFolder", "check_league_name", "MAX_ENTRANTS", "MAX_ROUNDS"]

MAGIC = "cardstand-league 1"
RESULTS_MAGIC = "cardstand-league-results 1"
ENTRY_MAGIC = "cardstand-entry 1"
MAC_MAGIC = "cardstand-league-mac 1"
MAX_ENTRANTS = 64
MAX_ROUNDS = 10
MAX_FILE = 1 << 20
KINDS = ("ai", "engine", "program")
T = TypeVar("T")


class LeagueError(ValueError):
    """A league that cannot be used (its files damaged, forged or unsigned; a bad name), in a sentence."""


class Unsettled(LeagueError):
    """A league file read while it was being replaced (cut short): read it again."""


def check_league_name(name: str) -> str:
    if not isinstance(name, str) or not LEAGUE_NAME.fullmatch(name) or is_device_name(name):
        raise LeagueError(f"'{visible(str(name), 40)}' cannot be a league's name: use 1-16 letters, digits, "
                          "'-' or '_', starting with a letter or digit, and not a name Windows keeps for a "
                          "device (con, nul, com1...)")
    return name


def check_entrant(name: str) -> str:
    try:
        comm.check_name(name, "entrant name")
    except comm.InvalidArgument as e:
        raise LeagueError(str(e)) from None
    if name.lower() in RESERVED:
        raise LeagueError(f"'{name}' is the referee's name on the league's board: choose another name")
    return name


@dataclass(frozen=True)
class Entry:
    """What an entrant plays: ``kind`` (ai, engine, program) and ``plays`` (its AI, command...)."""
    name: str
    kind: str
    plays: str


def _mac(secret: bytes, text: str) -> str:
    return hmac.new(secret, (MAC_MAGIC + "\n" + text).encode("utf-8"), hashlib.sha256).hexdigest()


def _signed(text: str, secret: bytes | None) -> str:
    """``text`` with its ``digest`` line (a reader can tell a file cut short: a share's client may
    read a replaced file at its old size) and, with the secret, its ``mac`` line."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return text + f"digest: {digest}\n" + (f"mac: {_mac(secret, text)}\n" if secret else "")


def _checked(text: str, secret: bytes | None, what: str) -> list[str]:
    """The lines of a league file: ``Unsettled`` when it is cut short (read again later), and with
    a secret ``LeagueError`` unless its signature is right."""
    body, sep, rest = text.rpartition("digest: ")
    digest, _, mac = rest.partition("\n")
    if not sep or (body and not body.endswith("\n")) or \
            not hmac.compare_digest(digest.strip(), hashlib.sha256(body.encode("utf-8")).hexdigest()):
        raise Unsettled(f"the league's {what} file is incomplete (being written, or damaged)")
    if secret:
        key, _, value = mac.partition(": ")
        if key != "mac" or not hmac.compare_digest(value.strip(), _mac(secret, body)):
            raise LeagueError(f"the league's {what} file is not signed with the class's secret (forged, "
                              "changed, or written without it): it is not used")
    return body.split("\n")


class LeagueFolder:
    """The files of the league ``name`` on ``share``; ``readonly``: only look (an entrant, a
    viewer); the referee writes."""

    def __init__(self, share: Path, name: str, secret: bytes | None = None, readonly: bool = False) -> None:
        self.share = share
        self.name = check_league_name(name)
        self.folder = share / name
        self.secret = secret
        self.root = fsops.Root.for_folder(self.folder, readonly=readonly)

    def settled(self, read: "Callable[[], T]", wait: float = 15.0) -> "T":
        """``read()``, read again while the file is cut short (``Unsettled``), for up to ``wait`` s."""
        deadline = time.monotonic() + wait
        while True:
            try:
                return read()
            except Unsettled:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def join(self, member: str, state: str, busy: str, take_over: bool = False) -> comm.Board:
        """The league's board joined as ``member``, beating ``state``, marked as a league's;
        ``LeagueError`` saying ``busy`` (with who holds the name) when another live run is that
        member, or why the board cannot be joined."""
        kind = table_kind(self.share, self.name)
        if kind not in ("missing", "folder"):
            raise LeagueError(f"{self.folder} is not a folder of the share (a link, or a file): it is not used")
        played = any(os.path.lexists(self.folder / rel) for rel in ("box/black", "box/white", "records"))
        if kind == "folder" and played and not os.path.lexists(self.folder / LEAGUE_MARKER):
            raise LeagueError(f"{self.folder} is a table of the share, not a league's folder: give the league "
                              "another name")
        board = comm.Board(self.folder, member, secret=self.secret, take_over=take_over)
        try:
            board.join()
        except comm.MemberBusy as e:
            raise LeagueError(f"{busy} (pid {e.pid or '?'} on {e.host or '?'}; {e.how})") from None
        except comm.BoardError as e:
            raise LeagueError(str(e)) from None
        board.beat(state)
        self.mark()
        return board

    def set_aside(self, rel: str) -> str:
        """Move the league's file ``rel`` out of the way (kept as ``<rel>.set-aside-<token>`` for
        people to look at); its new name."""
        dest = f"{rel}.set-aside-{fsops.new_token()}"
        try:
            self.root.rename(rel, dest)
        except OSError:
            self.root.remove(rel)
            return "(removed)"
        return dest

    def mark(self) -> None:
        """Note in the league's board that it is a league's, not a table (the lobby leaves it out)."""
        if self.root.lstat(LEAGUE_MARKER) is None:
            self.root.replace(LEAGUE_MARKER, f"{MAGIC}\nname: {self.name}\n".encode("utf-8"))

    def table(self, n: int) -> Path:
        return self.share / f"{self.name}-g{n:03d}"

    def _text(self, rel: str) -> str | None:
        try:
            data = self.root.read(rel, MAX_FILE + 1, strict=True)
        except OSError as e:
            raise LeagueError(f"the league's {rel} cannot be read: {e.strerror or e}") from None
        if data is None:
            return None
        if len(data) > MAX_FILE:
            raise LeagueError(f"the league's {rel} is too big to be one")
        return data.decode("utf-8", "replace")

    # -- the settings and the schedule ------------------------------------------------------
    def load(self) -> League | None:
        """The league, or None before its first referee fixed it; ``LeagueError`` when its file
        cannot be used."""
        text = self._text("league")
        if text is None:
            return None
        lines = _checked(text, self.secret, "league")
        if lines[0].strip() != MAGIC:
            raise LeagueError("the league's file is not a league")
        settings: dict[str, str] = {}
        entrants: list[str] = []
        pairs: list[tuple[int, int, str, str]] = []
        for line in lines[1:]:
            key, sep, value = line.partition(": ")
            if not sep:
                continue
            if key == "entrant":
                entrants.append(check_entrant(value.strip()))
            elif key == "game":
                words = value.split()
                if len(words) != 4 or not all(w.isdigit() for w in words[:2]):
                    raise LeagueError(f"a damaged game line in the league's file: {visible(line, 80)}")
                pairs.append((int(words[0]), int(words[1]), words[2], words[3]))
            else:
                settings.setdefault(key, value.strip())
        if settings.get("name") != self.name:
            raise LeagueError("the league's file names another league")
        if len(entrants) > MAX_ENTRANTS or len(set(entrants)) != len(entrants):
            raise LeagueError("the league's file lists too many entrants, or one twice")
        games = []
        for i, (n, rnd, black, white) in enumerate(pairs, 1):
            if n != i or black not in entrants or white not in entrants or black == white or not 1 <= rnd <= MAX_ROUNDS:
                raise LeagueError(f"a damaged game line in the league's file (game {i})")
            games.append(Game(n, rnd, black, white, self.table(n).name))
        try:
            size = int(settings.get("size", "8"))
            shape = settings.get("shape", "")
            parse_board(str(size), shape or None)
            pace = float(settings.get("time", "0.1"))
            rounds = int(settings.get("rounds", "1"))
        except ValueError as e:
            raise LeagueError(f"the league's settings cannot be used: {visible(str(e), 120)}") from None
        if not (0 < pace <= 3600) or not 1 <= rounds <= MAX_ROUNDS:
            raise LeagueError("the league's settings cannot be used")
        return League(self.name, entrants, games, size=size, shape=shape, time=pace, rounds=rounds)

    def save(self, league: League) -> None:
        text = (f"{MAGIC}\nname: {league.name}\nsize: {league.size}\nshape: {league.shape}\ntime: {league.time}\n"
                f"rounds: {league.rounds}\n" + "".join(f"entrant: {e}\n" for e in league.entrants)
                + "".join(f"game: {g.n} {g.round} {g.black} {g.white}\n" for g in league.games))
        self.root.replace("league", _signed(text, self.secret).encode("utf-8"))

    # -- results ----------------------------------------------------------------------------
    def results(self, league: League) -> tuple[dict[int, Result], list[int]]:
        """(the games decided, by number; the games under way)."""
        text = self._text("results")
        if text is None:
            return {}, []
        lines = _checked(text, self.secret, "results")
        if lines[0].strip() != RESULTS_MAGIC:
            raise LeagueError("the league's results file is not one")
        decided: dict[int, Result] = {}
        due: list[int] = []
        for line in lines[1:]:
            key, sep, value = line.partition(": ")
            if not sep:
                continue
            if key == "due" and value.strip().isdigit():
                n = int(value)
                if 1 <= n <= len(league.games) and n not in due:
                    due.append(n)
            elif key == "result":
                r = _parse_result(value, len(league.games))
                decided.setdefault(r.n, r)
        return decided, [n for n in due if n not in decided]

    def save_results(self, results: dict[int, Result], due: list[int]) -> None:
        text = RESULTS_MAGIC + "\n" + "".join(f"due: {n}\n" for n in due) + "".join(
            f"result: {r.n} {r.how} {_points(r.black)} {_points(r.white)} {r.score or '-'} {r.gid or '-'} "
            f"{escape(r.reason)}\n" for _, r in sorted(results.items()))
        self.root.replace("results", _signed(text, self.secret).encode("utf-8"))

    # -- entries ----------------------------------------------------------------------------
    def enter(self, entry: Entry) -> None:
        self.root.ensure_dir("entries")
        self.root.replace(f"entries/{entry.name.lower()}", fsops.record(
            f"{ENTRY_MAGIC}\nname: {entry.name}\nkind: {entry.kind}\nplays: {escape(entry.plays)[:150]}"))

    def entered(self) -> list[str]:
        """The names (lower case) of the entries on the share now.  A share's client may answer a
        listing from its cache (sshfs for 20 s, NFS up to a minute): a referee on sshfs saw an
        entrant that wrote its entry through another client just after the referee's first look
        only 20 s later, and the league waited that long.  A change made to the folder through
        this client drops its cached listing, so one is made first: ``entries/.listed``, which no
        entrant's name can be (a name starts with a letter or a digit)."""
        try:
            self.root.ensure_dir("entries")
            self.root.replace("entries/.listed", b"", durable=False)
        except OSError:
            pass        # (then as the client lists it)
        return [n for n in self.root.listdir("entries") if not n.startswith(".")]

    def entry(self, name: str) -> Entry | None:
        try:
            fields = fsops.record_fields(self.root.read_text(f"entries/{name.lower()}", strict=True))
        except (OSError, ValueError):
            return None
        if fields.get("name") != name or fields.get("kind") not in KINDS:
            return None
        return Entry(name, fields["kind"], unescape(fields.get("plays", ""))[:150])

    # -- standings ----------------------------------------------------------------------------
    def write_standings(self, league: League, results: dict[int, Result], due: list[int]) -> list[Standing]:
        table = standings(league, results)
        entries = {e: self.entry(e) for e in league.entrants}
        self.root.replace("standings.txt", standings_text(league, table, results, due).encode("utf-8"),
                          durable=False)
        self.root.replace("standings.html", standings_html(league, table, results, due, entries).encode("utf-8"),
                          durable=False)
        return table


def _points(x: float) -> str:
    return "1" if x == 1 else "0.5" if x == 0.5 else "0"


def _parse_result(value: str, games: int) -> Result:
    words = value.split(" ", 6)
    if len(words) < 6 or not words[0].isdigit() or not 1 <= int(words[0]) <= games \
            or words[1] not in (PLAYED, FORFEIT) or words[2] not in ("0", "0.5", "1") or words[3] not in ("0", "0.5", "1"):
        raise LeagueError(f"a damaged result line in the league's results: {visible(value, 80)}")
    gid = "" if words[5] == "-" else words[5]
    if gid and game_id_problem(gid):
        raise LeagueError("a damaged result line in the league's results (game id)")
    return Result(int(words[0]), words[1], float(words[2]), float(words[3]),
                  "" if words[4] == "-" else visible(words[4], 40), gid, unescape(words[6] if len(words) > 6 else "")[:300])


def elo_text(s: Standing) -> str:
    """``+80 ± 403``: the rating and its 95% interval; ``-`` without a played game."""
    return f"{round(s.elo) or 0:+d} ± {round(s.error)}" if math.isfinite(s.error) else "-"


def standings_text(league: League, table: list[Standing], results: dict[int, Result], due: list[int]) -> str:
    out = [f"League {league.name}: {len(results)} of {len(league.games)} games decided"
           + (f", {len(due)} under way" if due else "") + (" (over)" if len(results) == len(league.games) else ""),
           "", f"{'#':>2} {'entrant':<32} {'games':>5} {'W':>3} {'D':>3} {'L':>3} {'forfeits':>8} {'points':>6}  Elo"]
    for s in table:
        out.append(f"{s.rank:>2} {s.name:<32} {s.games:>5} {s.wins:>3} {s.draws:>3} {s.losses:>3} {s.forfeits:>8} "
                   f"{s.points:>6g}  {elo_text(s)}")
    out.append("")
    for n, r in sorted(results.items()):
        g = league.game(n)
        what = r.score if r.how == PLAYED else f"forfeit: {r.reason}"
        out.append(f"game {n:>3}: {g.black} (black) - {g.white} (white)  {_points(r.black)}-{_points(r.white)}  "
                   f"{visible(what, 200)}")
    return "\n".join(out) + "\n"


STYLE = """body{font-family:sans-serif;margin:1.5em;color:#111;background:#fff}
table{border-collapse:collapse;margin:0.5em 0 1.5em}
th,td{border:1px solid #888;padding:0.25em 0.6em;text-align:right;white-space:nowrap}
th{background:#2e7d32;color:#fff}
td.name,th.name{text-align:left}
tr.forfeit td{color:#b71c1c}
caption{text-align:left;font-weight:bold;padding:0.3em 0}"""


def standings_html(league: League, table: list[Standing], results: dict[int, Result], due: list[int],
                   entries: dict[str, Entry | None]) -> str:
    """The standings page: a static HTML page a browser opens from the share, every value escaped."""
    def e(x: object) -> str:
        return html.escape(visible(str(x), 200), quote=True)
    names = [s.name for s in table]
    over = len(results) == len(league.games)
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>League {e(league.name)}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>League {e(league.name)}</h1>",
             f"<p id=\"progress\">{len(results)} of {len(league.games)} games decided"
             + (f", {len(due)} under way" if due else "") + (" &mdash; the league is over" if over else "")
             + f". Written {e(time.strftime('%Y-%m-%d %H:%M:%S'))}.</p>",
             "<table id=\"standings\"><caption>Standings</caption><tr><th>#</th><th class=\"name\">entrant</th>"
             "<th class=\"name\">plays</th>"
             "<th>games</th><th>W</th><th>D</th><th>L</th><th>forfeits</th><th>points</th><th>Elo (95%)</th></tr>"]
    for s in table:
        entry = entries.get(s.name)
        plays = f"{entry.kind}: {entry.plays}" if entry else ""
        parts.append(f"<tr><td>{s.rank}</td><td class=\"name\">{e(s.name)}</td><td class=\"name\">{e(plays)}</td>"
                     f"<td>{s.games}</td><td>{s.wins}</td><td>{s.draws}</td><td>{s.losses}</td><td>{s.forfeits}</td>"
                     f"<td>{s.points:g}</td><td>{e(elo_text(s))}</td></tr>")
    parts.append("</table><table id=\"crosstable\"><caption>Crosstable (points of the row against the column)"
                 "</caption><tr><th></th>" + "".join(f"<th>{e(n)}</th>" for n in names) + "</tr>")
    by = {s.name: s for s in table}
    for a in names:
        cells = "".join("<td>&mdash;</td>" if a == b else
                        f"<td>{' '.join(_points(x) for x in by[a].against.get(b, []))}</td>" for b in names)
        parts.append(f"<tr><th>{e(a)}</th>{cells}</tr>")
    parts.append("</table><table id=\"games\"><caption>Games</caption><tr><th>game</th><th>round</th>"
                 "<th class=\"name\">black</th><th class=\"name\">white</th><th>points</th><th class=\"name\">how</th>"
                 "<th class=\"name\">record</th></tr>")
    for g in league.games:
        r = results.get(g.n)
        if r is None:
            state = "under way" if g.n in due else "to play"
            parts.append(f"<tr><td>{g.n}</td><td>{g.round}</td><td class=\"name\">{e(g.black)}</td>"
                         f"<td class=\"name\">{e(g.white)}</td><td></td><td class=\"name\">{state}</td><td></td></tr>")
            continue
        how = e(r.score) if r.how == PLAYED else "forfeit: " + e(r.reason)
        link = (f"<a href=\"../{html.escape(g.table)}/records/{html.escape(r.gid)}.game\">{html.escape(r.gid)}</a>"
                if r.gid else "")
        parts.append(f"<tr class=\"{r.how}\"><td>{g.n}</td><td>{g.round}</td><td class=\"name\">{e(g.black)}</td>"
                     f"<td class=\"name\">{e(g.white)}</td><td>{_points(r.black)}-{_points(r.white)}</td>"
                     f"<td class=\"name\">{how}</td><td class=\"name\">{link}</td></tr>")
    parts.append("</table></body></html>\n")
    return "\n".join(parts)

