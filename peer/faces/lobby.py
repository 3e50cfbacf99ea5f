"""The lobby at a terminal: the tables of a share (``peer.tables``), live, and from there a game
watched (the watch face) or replayed.  Looking writes nothing to any table; clearing a table
(its folder removed, asked first) is the one thing that does, and only at a table nobody is at."""
import shlex
import shutil
import time
from pathlib import Path

from comm import fsops
from comm.text import visible
from engine import Shape
from engine.shape import builtin

from .. import installed
from ..players import Lines, LineInput
from ..protocol import named_board
from ..record import OVER, RESIGNED, Records
from ..tables import CLOSED_STATE, ENDED, LEFT, PLAYING, UNUSABLE, WAITING, Table, Tables
from . import texts
from .plain import Screen, cwidth
from .records import follow, replay_lines

REFRESH = 1.0       # seconds between two looks at the share
STATE_W = 19        # columns of the state


def clock(ms: int) -> str:
    """``m:ss`` of a side's time used."""
    s = max(0, ms) // 1000
    return f"{s // 60}:{s % 60:02d}"


def state_text(screen: Screen, t: Table) -> str:
    """What ``t`` is doing, in the screen's language."""
    if t.state == WAITING:
        return screen.t("lobby_waiting", colour=screen.t(t.waiting_for or "black"))
    if t.state == PLAYING:
        return screen.t("lobby_playing", n=t.plies + 1) if t.gid else screen.t("lobby_starting")
    if t.state == LEFT:
        return screen.t("lobby_left", n=t.plies + 1)
    if t.state == ENDED:
        return screen.result(t.result) if t.status in (OVER, RESIGNED) else visible(t.status, 20)
    if t.state == CLOSED_STATE:
        return screen.t("lobby_closed")
    if t.state == UNUSABLE:
        return screen.t("lobby_unusable")
    return screen.t("lobby_free")


def board_label(screen: Screen, board: Shape | None) -> str:
    """A board in a few columns: ``6x6``, a built-in board's name, ``own 8x8``."""
    if board is None:
        return ""
    n = board.size
    if board.is_plain():
        return f"{n}x{n}"
    board = named_board(board)
    if board.name in builtin():
        return texts.SHAPE_NAMES_JA.get(board.name, board.name) if screen.lang == "ja" else board.name
    return screen.t("lobby_own_board", size=n)


def fit(text: str, width: int) -> str:
    """``text`` cut or padded to ``width`` terminal columns."""
    out, used = "", 0
    for c in text:
        w = cwidth(c)
        if used + w > width:
            break
        out, used = out + c, used + w
    return out + " " * (width - used)


def player(name: str, there: bool, kind: str = "") -> str:
    """A side's cell: ``*`` when it is there, its name, ``[AI]`` when a computer plays it."""
    return ("*" if there else " ") + visible(name or "-", 40) + (" [AI]" if kind == "computer" else "")


def rows(screen: Screen, tables: list[Table], width: int = 80) -> list[str]:
    """The lines of the table list: a heading, then one line per table (``*``: there now), each
    within ``width - 1`` columns.  The board column is shown only when a table is not on the plain
    8x8 board; the clocks only for a game under way."""
    name_w = max(10, min(16, max((len(t.name) for t in tables), default=0)))
    boards = any(t.board is not None and (t.board.size != 8 or not t.board.is_plain()) for t in tables)
    board_w = 9 if boards else 0
    clocks_w = 11           # " 10:00/0:05"
    fixed = 4 + name_w + 1 + STATE_W + 1 + (board_w + 1 if boards else 0) + 3 + clocks_w
    who_w = max(6, (width - 1 - fixed) // 2)

    def board_cell(t: Table) -> str:
        if not boards:
            return ""
        return fit(board_label(screen, t.board), board_w) + " "
    head = (" " * 4 + fit(screen.t("lobby_table"), name_w) + " " + fit(screen.t("lobby_state"), STATE_W) + " "
            + (fit(screen.t("lobby_board"), board_w) + " " if boards else "") + fit(" " + screen.t("black"), who_w)
            + " - " + " " + screen.t("white"))
    out = [fit(head, width - 1).rstrip()]
    for i, t in enumerate(tables, 1):
        line = (f"{i:>3} " + fit(t.name, name_w) + " " + fit(state_text(screen, t), STATE_W) + " " + board_cell(t)
                + fit(player(t.black, t.there[0], t.kinds[0]), who_w) + " - "
                + fit(player(t.white, t.there[1], t.kinds[1]), who_w))
        if t.gid and t.state in (PLAYING, LEFT):
            line += f" {clock(t.used[0])}/{clock(t.used[1])}"
        out.append(fit(line, width - 1).rstrip())
    return out


class Lobby:
    """``lobby`` at a terminal: the list redrawn when it changes (at a terminal the screen is
    cleared first; else the new list follows), and commands typed: a number watches that table,
    ``r N`` replays its game, ``c N`` clears it, ``q`` quits."""

    def __init__(self, share: Path, screen: Screen, secret: bytes | None = None, lines: Lines | None = None,
                 clear_screen: bool | None = None) -> None:
        self.share = share
        self.screen = screen
        self.secret = secret
        self.tables = Tables(share, secret)
        self.lines = lines
        self.clear_screen = screen.stream.isatty() if clear_screen is None else clear_screen
        self.shown: list[Table] = []
        self.key: object = None

    def size(self) -> tuple[int, int]:
        try:
            cols, lines = shutil.get_terminal_size((80, 24))
        except (ValueError, OSError):
            cols, lines = 80, 24
        return max(40, cols), max(10, lines)

    def draw(self, tables: list[Table], force: bool = False, keys: bool = True) -> None:
        cols, lines = self.size()
        key = (tuple(tables), cols, lines)
        if key == self.key and not force:
            return
        self.key = key
        self.shown = tables
        s = self.screen
        if self.clear_screen:
            s.stream.write("\x1b[H\x1b[2J")
        n = f"{len(tables)}+" if self.tables.more else len(tables)      # (more than are looked at)
        s.line(fit(s.t("lobby_title", share=visible(str(self.share), 200), n=n), cols - 1).rstrip())
        body = rows(s, tables, cols)
        room = lines - 4 if self.clear_screen else len(body)
        if len(body) > room:
            body = body[:room - 1] + [s.t("lobby_more", n=len(body) - room + 1)]
        for line in body:
            s.line(line)
        if not tables:
            s.line(s.t("lobby_none") if self.share.is_dir() else s.t("lobby_gone", share=visible(str(self.share), 200)))
        if keys:
            s.line(fit(s.t("lobby_keys"), cols - 1).rstrip())

    def run(self, once: bool = False) -> int:
        lines = self.lines
        if lines is None and not once:
            lines = self.lines = LineInput()
        next_look = 0.0
        try:
            while True:
                now = time.monotonic()
                if now >= next_look:
                    next_look = now + REFRESH
                    self.draw(self.tables.look(), keys=not once)
                    if once:
                        return 0
                assert lines is not None
                line = lines.get(0.1)
                if line is None:
                    continue
                if not isinstance(line, str):       # the end of input
                    return 0
                if self.command(line.strip()) == "quit":
                    return 0
        except KeyboardInterrupt:
            return 0

    def pick(self, word: str) -> Table | None:
        if word.isdigit() and 1 <= int(word) <= len(self.shown):
            return self.shown[int(word) - 1]
        for t in self.shown:
            if t.name == word:
                return t
        self.screen.say("lobby_no_such", table=visible(word, 40))
        return None

    def command(self, text: str) -> str:
        """Carry out one typed command; "quit" to leave."""
        s = self.screen
        word, _, rest = text.partition(" ")
        word = word.lower()
        if word in ("q", "quit", "終了"):
            return "quit"
        if not word:
            self.draw(self.tables.look(), force=True)
            return ""
        if word in ("r", "replay", "再生") and rest.strip():
            t = self.pick(rest.strip())
            if t is not None:
                self.replay(t)
            return ""
        if word in ("c", "clear", "片付け") and rest.strip():
            t = self.pick(rest.strip())
            if t is not None:
                self.clear(t)
            return ""
        if word in ("w", "watch", "観戦") and rest.strip():
            word = rest.strip()
        t = self.pick(word) if word.isdigit() or any(word == x.name for x in self.shown) else None
        if t is None:
            if not (word.isdigit() or any(word == x.name for x in self.shown)):
                s.say("lobby_keys")
            return ""
        self.watch(t)
        return ""

    def watch(self, t: Table) -> None:
        s = self.screen
        if self.clear_screen:
            s.stream.write("\x1b[H\x1b[2J")
        follow(t.folder, s, until_over=True, secret=self.secret, stop=self._typed)
        s.say("lobby_back")
        self.key = None

    def _typed(self) -> bool:
        """While watching: a line typed (Enter) goes back to the lobby."""
        return self.lines is not None and self.lines.get() is not None

    def replay(self, t: Table) -> None:
        s = self.screen
        rec = Records(t.folder, self.secret, readonly=True).current() if t.gid else None
        if rec is None:
            s.say("lobby_no_record", table=t.name)
            return
        replay_lines(s, rec, moves_only=True)
        path = str(Records(t.folder, readonly=True).path(rec.id))
        s.say("lobby_replay_more", command=shlex.join([*installed.peer_command().split(), "replay", path]))
        self.key = None if not self.clear_screen else self.key
        self.wait_enter()

    def wait_enter(self) -> None:
        if self.clear_screen and self.lines is not None:
            self.screen.say("lobby_enter")
            while self.lines.get(0.2) is None:
                pass
            self.key = None

    def clear(self, t: Table) -> None:
        s = self.screen
        now = self.tables.table(t.name)
        if any(now.there) or now.state in (WAITING, PLAYING):
            s.say("lobby_cannot_clear", table=t.name)
            return
        s.say("lobby_clear_ask", table=t.name)
        answer = self.lines.get(600) if self.lines is not None else None
        if not isinstance(answer, str) or answer.strip().lower() not in ("y", "yes", "はい"):
            s.say("lobby_not_cleared", table=t.name)
            return
        now = self.tables.table(t.name)      # (again: someone may have sat down while it asked)
        if any(now.there) or now.state in (WAITING, PLAYING):
            s.say("lobby_cannot_clear", table=t.name)
            return
        clear_table(self.share, t.name)
        s.say("lobby_cleared", table=t.name)
        self.key = None


def clear_table(share: Path, name: str) -> None:
    """Remove the table ``name``'s folder from ``share`` (links inside are removed, never
    followed: nothing outside the table is touched)."""
    fsops.make_root(share).remove_tree(name)


def lobby(share: Path, screen: Screen, secret: bytes | None = None, once: bool = False,
          lines: Lines | None = None) -> int:
    """``lobby`` at a terminal (``once``: print the list once and stop)."""
    return Lobby(share, screen, secret, lines=lines).run(once=once)

