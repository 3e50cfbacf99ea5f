"""Tables on a share: each table a board folder directly below one shared folder (a class's
share), listed for a lobby and chosen by a player started with ``--share``.

A table is an ordinary board: any peer plays at it by being given its folder, and nothing in
the protocol changes.  What a table is doing is read from the board without writing anything
(``comm.look`` for who is there, the records for the game): a lobby or a player looking for a
table never changes one.

Seating (``Seating``): a player with ``--share`` and no table named sits at the oldest table
waiting for its colour (the other colour there alone), else at the oldest free one (empty, then
one whose last game was closed, then one whose last game ended), else makes a new one (``table-0001``...: made with one ``mkdir``, so two players never make the same one).  Black then stays where it
sits; white, while nobody has joined it, moves to the oldest table waiting for white whenever
one appears.  So a black and a white waiting alone at two tables always end up at one, and
players started all at once pair up.
"""
import os
import re
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import comm
from comm import fsops
from comm.look import Beats, Look, Seat, look
from comm.text import visible
from engine import Shape

from .reasons import Explained
from .record import CLOSED, PLAYING, Record, Records

__all__ = ["Table", "Tables", "Seating", "ShareError", "check_share", "new_table", "table_folder", "usable_table",
           "table_kind", "is_league", "league_of",
           "EMPTY", "WAITING", "PLAYING", "LEFT", "ENDED", "CLOSED_STATE", "UNUSABLE"]

MAX_TABLES = 500            # folders of a share looked at (a class has a few dozen tables)
PREFIX = "table-"
LEAGUE_MARKER = "cardstand.league"      # a league's board (``peer.leaguefiles``) is no table
_NUMBERED = re.compile(r"table-([0-9]{1,9})")
COLOURS = ("black", "white")

# what a table is doing (``Table.state``)
EMPTY = "empty"             # nobody there, no game yet (or the last one closed): free to sit at
WAITING = "waiting"         # one side there, waiting for ``Table.waiting_for``
LEFT = "left"               # a game unfinished, nobody there: its players went away
ENDED = "ended"             # the last game ended (``result``), nobody there: free to sit at
CLOSED_STATE = "closed"     # the last game was abandoned or refused, nobody there: free
UNUSABLE = "unusable"       # the record cannot be used (damaged, not signed with the secret)


class ShareError(Explained):
    """A share that cannot hold tables, or a table name that cannot be one."""


@dataclass(frozen=True)
class Table:
    """One table as it was seen: its ``name`` and ``folder``; ``state`` (above); who is there
    (``there``: black, white); the game of its record: ``black`` and ``white`` (names), ``plies``,
    ``board`` (its shape), ``used`` (ms each side used, D7), ``status`` and ``result`` (D1);
    ``problem``: why the record is unusable."""
    name: str
    folder: Path
    state: str
    there: tuple[bool, bool] = (False, False)
    waiting_for: str | None = None
    black: str = ""
    white: str = ""
    plies: int = 0
    board: Shape | None = None
    used: tuple[int, int] = (0, 0)
    status: str = ""
    result: str = ""
    gid: str = ""
    problem: str = ""
    to_move: int | None = None      # the colour to move in an unfinished game (0 black, 1 white)
    # a side that joined but keeps no heartbeat (a minimal peer, or one that left cleanly from
    # another machine): whether it is there cannot be told
    silent: tuple[bool, bool] = (False, False)
    kinds: tuple[str, str] = ("", "")   # what plays each side (person, computer), when its clock file says (D7)
    league: str = ""                    # the league whose game this table is for (``league_of``)

    @property
    def free(self) -> bool:
        """Whether a new game may start here: nobody there, and no game left unfinished."""
        return self.state in (EMPTY, ENDED, CLOSED_STATE)


def check_share(share: "str | os.PathLike[str]") -> Path:
    """``share`` as a folder that can hold tables; ``ShareError`` saying why not (missing, not a
    folder, or a board itself: then it is a table, named with ``--board``)."""
    path = Path(share)
    shown = visible(os.fspath(share), 200)
    if not os.fspath(share):
        raise ShareError("share_empty")
    try:
        st = os.stat(path)
    except OSError as e:
        raise ShareError("share_unreachable", share=shown, reason=e.strerror or str(e)) from None
    if not stat.S_ISDIR(st.st_mode):
        raise ShareError("share_not_folder", share=shown)
    if os.path.lexists(path / fsops.Root.MARKER):
        raise ShareError("share_is_board", share=shown)
    return path


def table_folder(share: Path, name: str) -> Path:
    """The folder of the table ``name`` on ``share``; ``ShareError`` for a name that cannot be a
    table's (the rules of a member name, N1: it is one folder, never a path)."""
    try:
        comm.check_name(name, "table name")
    except comm.InvalidArgument:
        raise ShareError("table_name", name=visible(name, 40)) from None
    return share / name


def table_kind(share: Path, name: str) -> str:
    """What is at the table ``name`` of ``share``, by its own name (a link is not followed):
    "missing", "folder", or what else it is ("a link", "a file"...)."""
    st = fsops.Root.for_folder(share, readonly=True).lstat(name)
    if st is None:
        return "missing"
    if _is_dir(st):
        return "folder"
    return "a link" if stat.S_ISLNK(st.st_mode) else "not a folder"


def usable_table(share: Path, name: str) -> Path:
    """The folder of the table ``name`` on ``share`` when a player may sit there: missing (it is
    made) or a real folder; ``ShareError`` for a bad name, a link or a file in its place (a
    player never follows a link out of the share), a league's board or a league's table (its
    games are played by the league's entrants)."""
    folder = table_folder(share, name)
    kind = table_kind(share, name)
    if kind not in ("missing", "folder"):
        raise ShareError("table_not_folder", name=visible(name, 40))
    if is_league(share, name):
        raise ShareError("table_is_league", name=visible(name, 40))
    league = league_of(share, name)
    if league:
        raise ShareError("table_of_league", name=visible(name, 40), league=league)
    return folder


_LEAGUE_TABLE = re.compile(r"(.{1,16})-g[0-9]{3,}")


def is_league(share: Path, name: str) -> bool:
    """Whether ``name`` on ``share`` is a league's board (its marker, ``peer.leaguefiles``)."""
    return fsops.Root.for_folder(share, readonly=True).lstat(f"{name}/{LEAGUE_MARKER}") is not None


def league_of(share: Path, name: str) -> str:
    """The league whose game is played at the table ``name`` (``<league>-gNNN`` while that league's
    board is on the share), or ''."""
    m = _LEAGUE_TABLE.fullmatch(name)
    return m.group(1) if m and is_league(share, m.group(1)) else ""


def _order(name: str) -> tuple[int, int, str]:
    """Tables oldest first: the numbered ones by number, then the others by name."""
    m = _NUMBERED.fullmatch(name)
    return (0, int(m.group(1)), name) if m else (1, 0, name.lower())


def table_names(share: Path) -> list[str]:
    """The names of the tables on ``share`` (folders holding a board's marker, not a league's board;
    links are not followed), oldest first; at most ``MAX_TABLES`` of them."""
    return _tables(share)[0]


def _tables(share: Path) -> tuple[list[str], bool]:
    """(``table_names``, whether there are more tables than ``MAX_TABLES``)."""
    root = fsops.Root.for_folder(share, readonly=True)
    names: list[str] = []
    with root.batch():
        listed = sorted(root.listdir(""), key=_order)
        for name in listed:
            if len(names) >= MAX_TABLES:
                return names, True
            try:
                comm.check_name(name)
            except comm.InvalidArgument:
                continue
            st = root.lstat(name)
            if st is None or not _is_dir(st):
                continue
            mst = root.lstat(f"{name}/{fsops.Root.MARKER}")
            if mst is not None and root.lstat(f"{name}/{LEAGUE_MARKER}") is None:
                names.append(name)
    return names, False


def _is_dir(st: os.stat_result) -> bool:
    return stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode)


def new_table(share: Path) -> Path:
    """Make a new table folder on ``share``: ``table-NNNN``, the next number free, made with one
    ``mkdir`` (two players never make the same one); the players' ``Init`` makes it a board."""
    root = fsops.make_root(share)
    taken = [int(m.group(1)) for m in map(_NUMBERED.fullmatch, root.listdir("")) if m]
    n = max(taken, default=0) + 1
    for _ in range(1000):
        name = f"{PREFIX}{n:04d}"
        try:
            root.mkdir(name)
            fsops.make_group_writable(share / name)
            return share / name
        except FileExistsError:
            n += 1
        except OSError as e:
            raise ShareError("share_no_table", share=visible(str(share), 200), reason=e.strerror or str(e)) from None
    raise ShareError("share_no_table", share=visible(str(share), 200), reason="every name tried was taken")


def judge(name: str, folder: Path, there: tuple[bool, bool], rec: Record | None, problem: str = "",
          used: tuple[int, int] = (0, 0)) -> Table:
    """What a table is doing, from who is there and its current record (no I/O)."""
    waiting = None
    if there[0] != there[1]:
        state, waiting = WAITING, COLOURS[0 if not there[0] else 1]
    elif there[0]:
        state = PLAYING
    elif problem:
        state = UNUSABLE
    elif rec is None:
        state = EMPTY
    elif rec.status == PLAYING:
        state = LEFT
    elif rec.status in CLOSED:
        state = CLOSED_STATE
    else:
        state = ENDED
    if rec is None:
        return Table(name, folder, state, there, waiting, problem=problem)
    try:
        game = rec.game()
    except ValueError:
        game = None
    to_move = game.position.turn if game is not None and rec.status == PLAYING else None
    return Table(name, folder, state, there, waiting, black=rec.black, white=rec.white,
                 plies=len(game.moves) if game is not None else 0, board=rec.board(), used=used, status=rec.status,
                 result=rec.result, gid=rec.id, problem=problem, to_move=to_move)


class Tables:
    """The tables of one share, looked at again and again (a lobby, a seating player): who is
    there is judged on this process's clock (``comm.look.Beats``).  Writes nothing."""

    def __init__(self, share: Path, secret: bytes | None = None, gone_after: float = 6.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.share = share
        self.secret = secret
        self.beats = Beats(gone_after, clock)
        self._records: dict[str, Records] = {}
        self.more = False

    def look(self) -> list[Table]:
        """Every table on the share now, oldest first (``more``: there were more than ``MAX_TABLES``)."""
        names, self.more = _tables(self.share)
        listed = set(names)
        self.beats.forget(lambda key: isinstance(key, tuple) and key[0] in listed)
        for gone in [n for n in self._records if n not in listed]:
            del self._records[gone]
        return [self.table(name) for name in names]

    def table(self, name: str) -> Table:
        """The table ``name`` now (a link or a file in its place: unusable, never followed)."""
        folder = self.share / name
        kind = table_kind(self.share, name)
        if kind != "folder":
            return Table(name, folder, UNUSABLE if kind != "missing" else EMPTY,
                         problem="" if kind == "missing" else f"{kind} where the table's folder belongs")
        seen = look(folder, COLOURS)
        there = (self.there(name, seen, 0), self.there(name, seen, 1))
        seats = [seen.seats.get(c) for c in COLOURS]
        silent = tuple(bool(seat is not None and not seat.beat and not seat.ended) for seat in seats)
        records = self._records.get(name)
        if records is None:
            records = self._records[name] = Records(folder, self.secret, readonly=True)
        rec, problem = records.current_checked()
        why = "" if problem is None else str(problem) or type(problem).__name__
        used = (records.clock(rec.id, "black"), records.clock(rec.id, "white")) if rec else (0, 0)
        kinds = (records.kind(rec.id, "black"), records.kind(rec.id, "white")) if rec else ("", "")
        return replace(judge(name, folder, there, rec, why[:200], used), silent=(silent[0], silent[1]), kinds=kinds,
                       league=league_of(self.share, name))

    def there(self, name: str, seen: Look, colour: int) -> bool:
        seat: Seat | None = seen.seats.get(COLOURS[colour]) if seen.board else None
        return self.beats.there((name, colour), seat)

    def beating(self, name: str, colour: int) -> bool:
        """Whether ``colour``'s side at ``name`` has been seen to beat (not a record left by a run
        that died: see ``comm.look.Beats.beating``)."""
        return self.beats.beating((name, colour))


class Seating:
    """Where a player started with ``--share`` sits, and when it moves (see the module's
    docstring).  ``first()`` chooses its first table; the session asks ``alone()`` while nobody has
    joined it (True: leave for ``next()``), and ``busy()`` when its colour was taken at the table
    it chose."""

    def __init__(self, share: Path, colour: int, secret: bytes | None = None, confirm: float = 3.0) -> None:
        self.share = share
        self.colour = colour
        self.tables = Tables(share, secret)
        self.confirm = confirm      # seconds a waiting opponent's beat is watched before sitting down
        self.at: str | None = None
        self._refused: set[str] = set()     # tables where our colour was taken: not tried again at once
        self._next_look = 0.0
        self._moving_to: str | None = None

    def _waiting_for_me(self, tables: list[Table]) -> list[Table]:
        me = COLOURS[self.colour]
        return [t for t in tables if t.state == WAITING and t.waiting_for == me and t.name != self.at
                and t.name not in self._refused and not t.league]

    def first(self) -> Path:
        """The table to sit at: the oldest one waiting for this colour whose opponent is seen
        beating (watched up to ``confirm`` seconds: not a record left by a run that died), else a
        new one."""
        end = time.monotonic() + self.confirm
        while True:
            tables = self.tables.look()
            candidates = self._waiting_for_me(tables)
            for t in candidates:
                if self.tables.beating(t.name, 1 - self.colour):
                    return self._sit(t.name)
            if not candidates or time.monotonic() >= end:
                break
            time.sleep(0.25)
        free = [t for t in tables if t.free and not t.league and t.name != self.at and t.name not in self._refused]
        for t in sorted(free, key=lambda t: (t.state != EMPTY, t.state != CLOSED_STATE)):   # empty first
            return self._sit(t.name)
        self._refused.clear()
        return self._sit(new_table(self.share).name)

    def _sit(self, name: str) -> Path:
        self.at = name
        return self.share / name

    def alone(self) -> bool:
        """Asked while nobody has joined this side's table: True when white should move to a
        table where black waits (looked at once a second); black never moves."""
        if self.colour == 0:
            return False
        now = time.monotonic()
        if now < self._next_look:
            return False
        self._next_look = now + 1.0
        for t in self._waiting_for_me(self.tables.look()):
            if self.tables.beating(t.name, 1 - self.colour):
                self.at = None
                self._moving_to = t.name
                return True
        return False

    def busy(self) -> None:
        """This colour was taken at the table chosen: it is not chosen again for a while."""
        if self.at is not None:
            self._refused.add(self.at)
        self.at = None

    def next(self) -> Path:
        """The table to sit at after leaving one (``alone``) or finding it taken (``busy``)."""
        target, self._moving_to = self._moving_to, None
        if target is not None and target not in self._refused:
            return self._sit(target)
        return self.first()

