"""An entrant of a league: a process on the entrant's own machine that stays on the league's board
(so the referee sees it there) and, each time one of its games is due, starts its player at that
game's table: a built-in AI, one's own AI file, an external engine (``--engine``), or a program
in another language started as the kit starts a peer, with ``--board TABLE --color C`` added to
its command.  It stops a player whose game the referee has decided, and leaves when the league
is over."""
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import comm
from engine.cliargs import command_words
from engine.procgroup import NEW_GROUP, contain, dies_with_parent, kill_group, release

from .league import FORFEIT, League
from .leaguefiles import Entry, LeagueError, LeagueFolder, Unsettled, check_entrant
from .tables import table_kind

log = logging.getLogger("peer")

RESTARTS = 3            # a player that ends while its game is still due is started again (it resumes) this often
STOP_AFTER = 3.0        # seconds a player may go on after the referee decided its game (a played game was
                        # decided once both sides acknowledged its end: its players are leaving)
FINAL = (0, 2, 3)
UNREADABLE = 120.0      # seconds the league's files may stay unusable before the entrant gives up
LOG_LIMIT = 1 << 20     # bytes of a player's output kept in its game's log (--log)       # a player's exit codes after which its game is not started again (G7)


class Entrant:
    """The entrant ``name`` of the league ``league`` on ``share``, playing ``entry``; ``say(text)``
    tells the person what happens.  ``log_dir``: each game's output kept there (else dropped)."""

    def __init__(self, share: Path, league: str, entry: Entry, say: Callable[[str], None], *,
                 secret: bytes | None = None, secret_file: str | None = None, log_dir: Path | None = None,
                 poll: float = 0.5, patience: float = 60.0) -> None:
        check_entrant(entry.name)
        self.files = LeagueFolder(share, league, secret, readonly=True)
        self.writer = LeagueFolder(share, league, secret)
        self.entry = entry
        self.say = say
        self.secret = secret
        self.secret_file = secret_file
        self.log_dir = log_dir
        self.poll = poll
        self.patience = patience
        self.proc: subprocess.Popen[Any] | None = None
        self.playing: int | None = None          # the game its player plays
        self.starts: dict[int, int] = {}
        self.decided_at: float | None = None
        self._log: IO[Any] | None = None
        self.job: int | None = None             # (Windows: the player's job object)

    def command(self, league: League, n: int) -> list[str]:
        """The command that plays this entrant's side of game ``n`` (started again, it resumes the
        game; a game found at the table before this one became due is not taken for it by the
        referee)."""
        g = league.game(n)
        colour = "black" if g.black == self.entry.name else "white"
        table = str(self.files.table(n))
        if self.entry.kind == "program":
            words = command_words(self.entry.plays)
            return words + ["--board", table, "--color", colour]
        cmd = [sys.executable, "-m", "peer", "play", "--board", table, "--color", colour, "--name", self.entry.name,
               "--plain", "--patience", str(self.patience), "--classic-after", "3", "--lang", "en"]
        cmd += ["--ai", self.entry.plays, "--time", str(league.time)] if self.entry.kind == "ai" else \
            ["--engine", self.entry.plays, "--time", str(max(league.time, 1.0))]
        cmd += ["--shape", league.shape] if league.shape else ["--size", str(league.size)]
        if self.secret_file:
            cmd += ["--secret-file", self.secret_file]
        return cmd

    def run(self) -> int:
        try:
            board = self.writer.join(self.entry.name, "entrant", f"{self.entry.name} has entered this league "
                                                                 "already, and is still there")
        except LeagueError as e:
            self.say(f"Cannot enter: {e}")
            return 2
        try:
            self.writer.enter(self.entry)
            self.say(f"{self.entry.name} entered the league {self.files.name}; waiting for the referee ...")
            return self._loop(board)
        except LeagueError as e:
            self.say(f"Cannot go on in the league: {e}")
            return 2
        except KeyboardInterrupt:
            self.say("Left the league.")
            return 130
        finally:
            self.stop_player()
            board.close()

    def _loop(self, board: comm.Board) -> int:
        told_fixed = False
        gone = 0.0          # since when the league's folder is gone (0: it is there)
        trouble: tuple[float, str] | None = None       # since when the league's files cannot be read, and why
        while True:
            if board.problem == "replaced":
                self.say("Another run took this entrant's name: this one stops.")
                return 6
            if board.is_gone():
                now = time.monotonic()
                gone = gone or now
                if now - gone > UNREADABLE:
                    self.say(f"The league's folder {self.files.folder} has been gone for {UNREADABLE:g} s: leaving.")
                    return 5
                time.sleep(self.poll)
                continue
            gone = 0.0
            try:
                league = self.files.load()
                results, due = self.files.results(league) if league is not None else ({}, [])
                trouble = None
            except LeagueError as e:        # cut short while it is replaced, or forged: read again
                now = time.monotonic()
                if trouble is None:
                    trouble = (now, str(e))
                    if not isinstance(e, Unsettled):
                        self.say(f"The league's files cannot be used just now ({e}); looking again.")
                elif now - trouble[0] > UNREADABLE:
                    raise LeagueError(f"{e} (for {UNREADABLE:g} s)") from None
                board.beat("entrant")
                time.sleep(self.poll)
                continue
            if league is not None:
                if self.entry.name not in league.entrants:
                    self.say(f"The league {league.name} was fixed without {self.entry.name}.")
                    return 3
                if not told_fixed:
                    told_fixed = True
                    mine = sum(self.entry.name in (g.black, g.white) for g in league.games)
                    self.say(f"The league is on: {len(league.entrants)} entrants; {mine} games to play.")
                self.follow(league, results, due)
                mine_left = [g.n for g in league.games if self.entry.name in (g.black, g.white) and g.n not in results]
                if not mine_left and self.proc is None:
                    self.say(f"All my games are decided. Standings: {self.files.folder / 'standings.html'}")
                    return 0
            board.beat("entrant")
            time.sleep(self.poll)

    def follow(self, league: League, results: dict[int, Any], due: list[int]) -> None:
        now = time.monotonic()
        if self.proc is not None and self.proc.poll() is not None:
            code = self.proc.returncode
            self._close_log()
            log.info("game %s: the player ended (%s)", self.playing, code)
            if code != 0 and self.playing not in results:
                self.say(f"Game {self.playing}: the player ended with exit code {code}"
                         + ("" if self.log_dir else " (--log DIR keeps what it printed)"))
            self.proc = None
            if self.playing is not None and code in FINAL:     # (the game ended, or cannot be played)
                self.starts[self.playing] = RESTARTS + 1
            if self.playing in results:
                self.playing = None
        if self.proc is not None and self.playing in results:
            if results[self.playing].how == FORFEIT:
                # a forfeit leaves nothing to play or acknowledge: the player (its opponent absent,
                # or its game given up) is stopped now, not after STOP_AFTER, and the next game
                # starts (a killed entrant's opponents waited those 3 s at each of its games)
                self.stop_player()
            elif self.decided_at is None:
                self.decided_at = now
            elif now - self.decided_at > STOP_AFTER:
                self.stop_player()
        if self.proc is not None:
            return
        for n in due:
            g = league.game(n)
            if self.entry.name not in (g.black, g.white) or self.starts.get(n, 0) > RESTARTS:
                continue
            self.start(league, n)
            return

    def start(self, league: League, n: int) -> None:
        g = league.game(n)
        if table_kind(self.files.share, g.table) not in ("missing", "folder"):
            return      # a link or a file planted where the table belongs: never followed (the referee decides)
        self.starts[n] = self.starts.get(n, 0) + 1
        colour = "black" if g.black == self.entry.name else "white"
        other = g.white if colour == "black" else g.black
        self.say(f"Game {n}: playing {colour} against {other} at {g.table}"
                 + (" (again: it resumes)" if self.starts[n] > 1 else ""))
        out: Any = subprocess.DEVNULL
        if self.log_dir is not None:
            self._log = open(self.log_dir / f"{g.table}-{colour}.log", "ab")
            out = subprocess.PIPE
        try:
            # its own process group (stopped whole, helpers too); ended by the system when this
            # process ends however it ends (Linux; Windows: its job), so that no player outlives
            # its entrant waiting for an opponent that will not come
            self.proc = subprocess.Popen(self.command(league, n), stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=subprocess.STDOUT, preexec_fn=dies_with_parent(),
                                         **NEW_GROUP)
            self.job = contain(self.proc, 0)
            if self._log is not None:
                threading.Thread(target=_keep, args=(self.proc.stdout, self._log), daemon=True).start()
        except OSError as e:
            self._close_log()
            self.say(f"Game {n}: the player cannot be started: {e.strerror or e}")
            self.starts[n] = RESTARTS + 1
            return
        self.playing, self.decided_at = n, None

    def stop_player(self) -> None:
        if self.proc is None:
            return
        kill_group(self.proc)
        release(self.job)
        self.job = None
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.proc = None
        self.playing = None
        self._close_log()

    def _close_log(self) -> None:
        self._log = None        # (closed by its reader at the player's end)


def _keep(stream: IO[bytes], log: IO[bytes]) -> None:
    """Copy what a player prints into its log, up to ``LOG_LIMIT`` bytes; the rest is read and
    counted (a player that prints without end fills no disk)."""
    kept = dropped = 0
    try:
        while True:
            chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            if not chunk:
                break
            room = LOG_LIMIT - kept
            if room > 0:
                log.write(chunk[:room])
                kept += min(room, len(chunk))
            dropped += max(0, len(chunk) - max(room, 0))
        if dropped:
            log.write(f"\n[{dropped} more bytes not kept]\n".encode())
    except (OSError, ValueError):
        pass
    finally:
        log.close()
