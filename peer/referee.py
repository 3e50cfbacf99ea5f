"""The league's referee: one process on any machine that reaches the share.  It fixes the league
(the entrants there when it starts, a round robin), makes games due as their entrants are free,
and decides each one from what the share holds: a result from the game's record once both sides
acknowledged its end (a game with a classic program, which acknowledges nothing, by its moves),
or a forfeit, with its reason, for a side that did not come, left, or stopped moving.

It decides on its own clock and writes only the league's files (``peer.leaguefiles``); it never
writes to a table.  Exactly one referee works at a time: it is the member ``referee`` of the
league's board, so a second one is refused while the first is alive (I6), and one started after
the first was killed takes its place and goes on from the files.
"""
import hmac
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import comm
from comm.look import Beats, look
from comm.message import member_mac
from comm.text import visible

from .league import FORFEIT, PLAYED, League, Result, round_robin
from .leaguefiles import LeagueError, LeagueFolder, MAX_ENTRANTS, check_entrant
from .record import CLOSED, ENDED, OVER, PLAYING, Records
from .tables import Tables

log = logging.getLogger("peer")

COLOURS = ("black", "white")


@dataclass
class Limits:
    """How long the referee waits, in seconds: for a side to come to its table once its game is
    due (``start``), for a side that left its game to come back (``gone``), for the side to move
    to move (``move``), for the end to be acknowledged (``ack``); and for the entrants before the
    league is fixed (``entrants``)."""
    start: float = 60.0
    gone: float = 30.0
    move: float = 60.0
    ack: float = 30.0
    entrants: float = 300.0


@dataclass
class Watch:
    """What the referee has seen of one game under way, on its own clock."""
    since: float
    progress: float
    plies: int = -1
    away: list[float | None] = field(default_factory=lambda: [None, None])   # since when each side is not there
    seen: list[bool] = field(default_factory=lambda: [False, False])         # each side was seen at the table
    ended_at: float | None = None
    trouble: float | None = None    # since when its record cannot be used (a read cut short is no news)
    before: str | None = None       # the game found at the table when this one became due: not this one


class Referee:
    """Runs the league ``name`` on ``share``; ``say(text)`` tells the person what happens."""

    def __init__(self, share: Path, name: str, say: Callable[[str], None], *, secret: bytes | None = None,
                 rounds: int = 1, size: int = 8, shape: str = "", time_per_move: float = 0.1,
                 want: int | None = None, limits: Limits | None = None, poll: float = 0.5,
                 take_over: bool = False) -> None:
        self.files = LeagueFolder(share, name, secret)
        self.share = share
        self.say = say
        self.secret = secret
        self.rounds, self.size, self.shape, self.time = rounds, size, shape, time_per_move
        self.want = want
        self.limits = limits or Limits()
        self.poll = poll
        self.take_over = take_over
        self.tables = Tables(share, secret)
        self.beats = Beats()
        self.watches: dict[int, Watch] = {}
        self.unsigned: set[str] = set()         # members told to be without the secret
        self.kinds: dict[str, str] = {}         # each entrant's kind (ai, engine, program)
        self.recovering = False

    # -- who is on the league's board ---------------------------------------------------------
    def present(self, names: Iterable[str] | None = None) -> set[str]:
        """The entrants on the league's board now (with the class's secret, only those whose member
        record is signed with it, A6: an entrant without the secret could not play a signed game);
        ``names``: only those members looked at (else all that the board's listing shows)."""
        seen = look(self.files.folder, names)
        out = set()
        for key, seat in seen.seats.items():
            if key == "referee" or not self.beats.there(key, seat):
                continue
            if self.secret and not hmac.compare_digest(member_mac(self.secret, seat.name, seat.run), seat.mac):
                if key not in self.unsigned:
                    self.unsigned.add(key)
                    self.say(f"{visible(seat.name, 40)} is on the league's board without the class's secret: "
                             "not an entrant.")
                continue
            try:
                out.add(check_entrant(seat.name))
            except LeagueError:
                continue
        return out

    def run(self) -> int:
        try:
            board = self.files.join("referee", "referee", "another referee is at work on this league: it must be "
                                                           "gone before this one takes over", self.take_over)
        except LeagueError as e:
            self.say(f"Cannot referee: {e}")
            return 2
        try:
            league = self.files.settled(self.files.load)
            if league is None:
                league = self.fix()
                if league is None:
                    return 4
            else:
                self.say(f"League {league.name}: going on from the share ({len(league.entrants)} entrants, "
                         f"{len(league.games)} games).")
            return self.referee(league, board)
        except LeagueError as e:
            self.say(f"Cannot referee: {e}")
            return 2
        except OSError as e:        # the league's folder gone, its disk full...: said, never a traceback
            self.say(f"The referee stops: the league's files on {self.files.folder} cannot be written "
                     f"({e.strerror or e}). Start it again when the share is back: it goes on from there.")
            return 5
        finally:
            board.close()

    def fix(self) -> League | None:
        """Wait for the entrants (``want`` of them, or as many as came within the wait), then fix
        the league: its entrants and its schedule."""
        deadline = time.monotonic() + self.limits.entrants
        told: set[str] = set()
        self.say(f"Waiting for {self.want or 'the'} entrants on {self.files.folder} ...")
        while True:
            # the members the board's listing shows, and those whose entry a fresh listing shows
            # (the board's own listing may be a share client's cached one: see LeagueFolder.entered)
            names = set(self.files.root.listdir("box")) | set(self.files.entered())
            here = {e for e in self.present(sorted(names)) if self.files.entry(e) is not None}
            for e in sorted(here - told):
                self.say(f"{e} has entered.")
            told |= here
            if self.want is not None and len(here) >= self.want or time.monotonic() >= deadline:
                break
            time.sleep(self.poll)
        entrants = sorted(here)[:MAX_ENTRANTS]
        if len(entrants) < 2:
            self.say(f"Only {len(entrants)} entrant(s) came: no league.")
            return None
        league = League(self.files.name, entrants, round_robin(self.files.name, entrants, self.rounds),
                        size=self.size, shape=self.shape, time=self.time, rounds=self.rounds)
        self.files.save(league)
        self.say(f"League {league.name}: {len(entrants)} entrants ({', '.join(entrants)}), {len(league.games)} games.")
        return league

    def referee(self, league: League, board: comm.Board) -> int:
        self.kinds = {e: (entry.kind if (entry := self.files.entry(e)) is not None else "") for e in league.entrants}
        try:
            results, due = self.files.settled(lambda: self.files.results(league))
        except LeagueError as problem:      # forged, or written without the secret: set aside, taken again
            aside = self.files.set_aside("results")
            self.say(f"The league's results cannot be used ({problem}): set aside as {aside}; the games are taken "
                     "again from their records, and those without a result are played again.")
            results, due = self.recovered(league), []
            self.files.save_results(results, due)
            self.recovering = True      # (a game found at its table now is taken as the game's)
        now = time.monotonic()
        self.watches = {n: Watch(now, now) for n in due}
        absent_since: dict[str, float] = {}
        first = True
        while True:
            if board.problem == "replaced":
                self.say("Another referee took this league over: this one stops.")
                return 6
            now = time.monotonic()
            present = self.present()
            for name in league.entrants:
                if name in present:
                    absent_since.pop(name, None)
                else:
                    absent_since.setdefault(name, now)
            changed = False
            for n in list(due):
                r = self.decide(league, n, now, absent_since)
                if r is not None:
                    results[n] = r
                    due.remove(n)
                    self.watches.pop(n, None)
                    changed = True
                    self.say(self.told(league, r))
            busy = {x for n in due for x in (league.game(n).black, league.game(n).white)}
            for g in league.games:
                if g.n in results or g.n in due or g.black in busy or g.white in busy:
                    continue
                due.append(g.n)
                busy |= {g.black, g.white}
                found = "" if self.recovering else self.tables.table(g.table).gid
                self.watches[g.n] = Watch(now, now, before=found or None)
                changed = True
            if changed or first:
                first = False
                self.files.save_results(results, due)
                table = self.files.write_standings(league, results, due)
                if len(results) == len(league.games):   # (also a league found over when it started)
                    top = [s.name for s in table if s.points == table[0].points]
                    pts = f"{table[0].points:g} point{'' if table[0].points == 1 else 's'}"
                    self.say(f"League {league.name} is over. " + (f"Winner: {top[0]} ({pts})." if len(top) == 1 else
                             f"Tied first with {pts}: {', '.join(top)}.") + f" Standings: {self.files.folder / 'standings.html'}")
                    return 0
            board.beat("referee")
            time.sleep(self.poll)

    def recovered(self, league: League) -> dict[int, Result]:
        """The results that the games' records give (``decide`` on each table as it is now)."""
        out = {}
        now = time.monotonic()
        for g in league.games:
            self.watches[g.n] = Watch(now, now)
            r = self.decide(league, g.n, now, {})
            if r is not None and r.how == PLAYED:
                out[g.n] = r
        self.watches = {}
        return out

    @staticmethod
    def told(league: League, r: Result) -> str:
        g = league.game(r.n)
        how = r.score if r.how == PLAYED else f"forfeit ({r.reason})"
        return f"Game {r.n}: {g.black} (black) - {g.white} (white): {r.black:g}-{r.white:g}, {how}"

    def decide(self, league: League, n: int, now: float, absent_since: dict[str, float]) -> Result | None:
        """Game ``n``'s result once it can be decided, else None (looked at again later)."""
        g = league.game(n)
        w = self.watches.setdefault(n, Watch(now, now))
        t = self.tables.table(g.table)     # (a missing table reads as empty, no game)
        if w.before is not None and t.gid == w.before:
            t = replace(t, gid="", status="", result="", to_move=None, plies=0)   # not this game's record
        names = (g.black, g.white)
        lim = self.limits
        if t.gid and t.status in ENDED:
            rec = Records(t.folder, self.secret, readonly=True)
            acked = all(rec.acknowledged(t.gid, c) for c in COLOURS)
            try:
                record = rec.load(t.gid) if not acked else None
            except (OSError, ValueError):      # (cut short while being replaced: looked at again)
                return None
            if acked or (record is not None and record.mode == "classic" and record.status == OVER):
                # our players carry the entrant's name (--name): another name there is someone else
                wrong = [c for c in (0, 1) if self.kinds.get(names[c]) in ("ai", "engine")
                         and (t.black, t.white)[c] != names[c]]
                if wrong:
                    c = wrong[0]
                    return Result(n, FORFEIT, 0, 0, gid=t.gid, reason=(
                        f"the record names {visible((t.black, t.white)[c], 40)} as {COLOURS[c]}, not the entrant "
                        f"{names[c]}: someone else played")[:200])
                b, wh = points(t.status, t.result)
                return Result(n, PLAYED, b, wh, score=t.result.replace(" ", "-") or t.status, gid=t.gid)
            if w.ended_at is None:
                w.ended_at = now
            elif now - w.ended_at > lim.ack:
                return Result(n, FORFEIT, 0, 0, gid=t.gid, reason="the end was not acknowledged by both sides")
            return None
        if t.gid and t.status in CLOSED:
            return Result(n, FORFEIT, 0, 0, gid=t.gid, reason=f"the game was {t.status} ({t.result})"[:200])
        if t.problem or t.gid and t.status != PLAYING:
            # a record that cannot be used, or says what no record says: read cut short while it was
            # being replaced (a share's client), or damaged; decided only when it stays so
            if w.trouble is None:
                w.trouble = now
            if now - w.trouble > max(lim.gone, lim.ack):
                why = t.problem or f"its status is '{t.status}'"
                return Result(n, FORFEIT, 0, 0, reason=f"the game's record cannot be used: {why}"[:200])
            return None
        w.trouble = None
        out: list[str | None] = [None, None]
        for c in (0, 1):
            gone_for = now - absent_since[names[c]] if names[c] in absent_since else 0.0
            there = t.there[c] or t.silent[c]     # (a silent side is judged by its moves)
            if there:
                w.away[c] = None
                w.seen[c] = True
            elif w.away[c] is None:
                w.away[c] = now
            if not there and gone_for > lim.gone and now - w.since > min(lim.gone, lim.start):
                out[c] = "absent from the league"
            elif not there and not t.gid and now - w.since > lim.start:
                out[c] = f"did not come to the table within {lim.start:g} s"
            elif not there and t.gid and now - (w.away[c] or now) > lim.gone:
                joined = t.silent[c] or (t.black, t.white)[c] not in ("", COLOURS[c])
                out[c] = f"left the game for over {lim.gone:g} s" if joined or w.seen[c] else \
                    f"did not come to the table within {lim.gone:g} s of the game's start"
        if t.gid and t.to_move is not None:
            if t.plies != w.plies:
                w.plies, w.progress = t.plies, now
            elif now - w.progress > lim.move and out[t.to_move] is None:
                out[t.to_move] = f"made no move for {lim.move:g} s"
        if not t.gid and all(t.there) and now - w.since > 2 * lim.start:
            return Result(n, FORFEIT, 0, 0, reason="the game never started")
        if out[0] is None and out[1] is None:
            return None
        reason = "; ".join(f"{COLOURS[c]} ({names[c]}) {out[c]}" for c in (0, 1) if out[c])
        return Result(n, FORFEIT, 0.0 if out[0] else 1.0, 0.0 if out[1] else 1.0, gid=t.gid,
                      reason=reason)



def points(status: str, result: str) -> tuple[float, float]:
    """Each side's points for a record's end (D1): a resignation loses, else the discs decide."""
    if status == "resigned":
        return (0.0, 1.0) if result.startswith("black") else (1.0, 0.0)
    b, _, wh = result.partition("-")
    try:
        nb, nw = int(b), int(wh)
    except ValueError:
        return 0.5, 0.5
    return (1.0, 0.0) if nb > nw else (0.0, 1.0) if nw > nb else (0.5, 0.5)

