"""Game records kept in the board folder: ``records/<id>.game`` and ``records/current``.

Everything in a record may have come from the board (names, ids, results),
so every value is escaped to stay on its one line (docs/PROTOCOL.md D1):
``\\`` -> ``\\\\``, newline -> ``\\n``, CR -> ``\\r``, tab -> ``\\t``, other
control characters (C0, DEL, C1), the bidi controls and the line and
paragraph separators -> ``\\xHH`` / ``\\uHHHH``.  ``Record.parse`` undoes it exactly.
"""
import hashlib
import hmac
import logging
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from comm import fsops
from comm.text import visible

from engine import Game, Shape

from .protocol import game_id_problem, parse_board, parse_size, parse_used, replay
from .reasons import Explained

log = logging.getLogger("peer")

MAGIC = "cardstand-game 1"
KEYS = ("id", "size", "black", "white", "date", "mode", "moves", "status", "result")
SHAPE_KEY = "shape"     # a game on a board that is not plain: its picture's code, after ``size`` (D1)
ACK_MAGIC = "cardstand-ack 1"
CLOCK_MAGIC = "cardstand-clock 1"      # D7: one side's time used in a game
KINDS = ("person", "computer")         # what plays a side, as its greeting and its clock file say
MAC_MAGIC = "cardstand-game-mac 1"     # D4: what a record's MAC is computed over starts so

# D1: the status of a game.  ``playing`` is unfinished (resumed by a restart, H5); ``over`` and
# ``resigned`` ended it (offered again by a side that has not had the opponent's ``result``,
# G6); ``abandoned`` (a new game was started instead) and ``refused`` (H4) closed it for good.
PLAYING, OVER, RESIGNED, ABANDONED, REFUSED = "playing", "over", "resigned", "abandoned", "refused"
ENDED = (OVER, RESIGNED)
CLOSED = (ABANDONED, REFUSED)
MAX_RECORD = 256 * 1024     # a record is a few hundred bytes; more is not a record (B7, D1)
SMALL_READ = 4096           # records/current and the ack files: their first 4096 bytes are read (R1, D1)

_ESCAPE_ME = re.compile("[\\\\\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
_NAMED = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|(.))", re.S)
_UNNAMED = {"\\": "\\", "n": "\n", "r": "\r", "t": "\t"}
_MAC = re.compile("[0-9a-f]{64}")
_RUN = re.compile("[0-9A-Za-z_-]{1,64}")      # a member's run, as a clock file may note it (H6b)


class Unusable(Explained):
    """A record that is not used (its ``reason``: a ``rec_*`` code of ``peer.reasons``); ``board``:
    the board it claims, when it was read that far."""

    board: Shape | None = None
    text: str | None = None     # the record as it was judged (D6: set aside only while it still reads so)


class Untrusted(Unusable):
    """A record that a side with the shared secret cannot trust: no MAC, or a MAC that does not
    match (D4).  Its text is not used at all."""


class Damaged(Unusable):
    """A record that contradicts itself or the rules: moves that do not replay, a status or a
    result that the moves do not give (D1, D5)."""


def escape(value: object) -> str:
    r"""One record value on one line (see the module docstring).

    >>> escape("Eve\nmoves: a1\x1b[2J C:\\temp")
    'Eve\\nmoves: a1\\x1b[2J C:\\\\temp'
    >>> unescape(escape("Eve\nmoves: a1\x1b[2J C:\\temp")) == "Eve\nmoves: a1\x1b[2J C:\\temp"
    True
    """
    def one(m: re.Match[str]) -> str:
        c = m.group(0)
        return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
    return _ESCAPE_ME.sub(one, str(value))


def unescape(text: str) -> str:
    """The inverse of ``escape``; an unknown escape (``\\q``) is kept as written."""
    def one(m: re.Match[str]) -> str:
        if m.group(1):
            return chr(int(m.group(1), 16))
        if m.group(2):
            return chr(int(m.group(2), 16))
        c = m.group(3)
        return _UNNAMED.get(c, "\\" + c)
    return _UNESCAPE.sub(one, text)


@dataclass
class Record:
    id: str
    size: int = 8
    black: str = "black"
    white: str = "white"
    date: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    mode: str = "full"
    moves: str = ""               # with passes written out: "f5d6...pass..."
    status: str = PLAYING         # playing, over, resigned, abandoned, refused (D1)
    result: str = ""              # "36-28", "black resigned", "abandoned by black", "refused: ..."
    shape: str = ""               # the board's picture (``protocol.shape_code``); '' for a plain board
    # as read from the board: each key's value as written (escaped), and the ``mac`` line (D4)
    written: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    mac: str = field(default="", repr=False, compare=False)

    def keys(self) -> tuple[str, ...]:
        """The keys of its lines, in the order of D1: ``shape`` after ``size`` for a shaped board."""
        return _keys(bool(self.shape))

    def lines(self) -> str:
        """The ``key: value`` lines of the record, in the order of D1."""
        return "".join(f"{k}: {escape(getattr(self, k))}\n" for k in self.keys())

    def board(self) -> Shape:
        """The board the game is played on (its ``shape``, else the plain board of its ``size``)."""
        return parse_board(str(self.size), self.shape or None)

    def text(self, secret: bytes | None = None) -> str:
        """The record as written to the board; with ``secret``, signed (a ``mac`` line, D4)."""
        lines = self.lines()
        mac = f"mac: {record_mac(secret, lines)}\n" if secret else ""
        return MAGIC + "\n" + lines + mac

    @classmethod
    def parse(cls, text: str) -> "Record":
        """A record from its text; ValueError for anything that is not a sound record."""
        # a CR before a line's end (edited on Windows) is dropped: a CR in a value is written \r
        first, fields = fsops.parse_record(text)
        if first.strip(" \t\r") != MAGIC:     # ASCII white space only (D1), as interop/js
            raise Damaged("rec_not_record")
        f = {k: unescape(v) for k, v in fields.items()}
        if "id" not in f:
            raise Damaged("rec_no_id")
        if game_id_problem(f["id"]):
            raise Damaged("rec_bad_id", id=f["id"][:80])
        size = parse_size(f.get("size", "8"))
        if size is None:
            raise Damaged("rec_bad_size", size=f["size"][:20])
        try:
            board = parse_board(str(size), f.get(SHAPE_KEY))
        except ValueError as e:
            raise Damaged("rec_bad_shape", reason=str(e)) from None
        return cls(id=f["id"], size=size, black=f.get("black", "black"),
                   white=f.get("white", "white"), date=f.get("date", ""), mode=f.get("mode", "full"),
                   moves=f.get("moves", ""), status=f.get("status", "playing"), result=f.get("result", ""),
                   shape="" if board.is_plain() else board.code(),
                   written={k: fields[k] for k in _keys(True) if k in fields}, mac=fields.get("mac", ""))

    def check_mac(self, secret: bytes) -> None:
        """D4: ``Untrusted`` unless the record read carries the MAC of its nine lines (ten with a
        ``shape`` line) under ``secret`` (every key present, the values exactly as written)."""
        if not self.mac:
            raise Untrusted("rec_unsigned")
        keys = _keys(SHAPE_KEY in self.written)
        missing = [k for k in keys if k not in self.written]
        if missing:
            raise Untrusted("rec_no_line", line=missing[0])
        lines = "".join(f"{k}: {self.written[k]}\n" for k in keys)
        if not _MAC.fullmatch(self.mac) or not hmac.compare_digest(self.mac, record_mac(secret, lines)):
            raise Untrusted("rec_bad_mac")

    def game(self) -> Game:
        """The moves replayed on a board (``ValueError``, ``IllegalMove``, for a damaged record:
        the moves of D1 are a transcript with every pass written out, H2)."""
        return replay(self.moves, self.board())

    def verify(self) -> Game:
        """D5: the game replayed, and ``Damaged`` unless what the record says of its end is what
        its moves give: ``over`` only when neither side can move, with the disc counts as its
        result; ``resigned`` with "black resigned" or "white resigned"."""
        try:
            g = self.game()
        except ValueError as e:
            raise Damaged("rec_no_replay", reason=e) from None
        pos = g.position
        if self.status == OVER:
            if not pos.is_game_over():
                raise Damaged("rec_not_over", n=len(g.moves), colour=("black", "white")[pos.turn])
            b, w = pos.discs()
            if self.result.strip() != f"{b}-{w}":
                raise Damaged("rec_wrong_result", result=self.result[:20], b=b, w=w)
        elif self.status == RESIGNED and self.result not in ("black resigned", "white resigned"):
            raise Damaged("rec_not_resigned", result=self.result[:40])
        return g

    def ggf(self) -> str:
        """The game in GGF, the format of the Generic Game Server and most Othello tools."""
        g = self.verify()
        return g.to_ggf(_ggf_text(self.black), _ggf_text(self.white), self.ggf_result(g),
                        date=_ggf_text(self.date))

    def ggf_result(self, g: Game) -> str:
        if self.status == OVER:
            b, w = g.position.discs()
            diff = b - w
            e = g.position.empties()
            diff += e if diff > 0 else -e if diff < 0 else 0
            return f"{diff:+d}.000" if diff else "0.000"
        if self.status == RESIGNED:
            loser_black = self.result.startswith("black")
            return f"{'-' if loser_black else '+'}{n_squares(self.size)}.000:r"
        return ""           # unfinished, abandoned or refused: no result

    def moves_played(self) -> int:
        """How many plies the record holds (passes included); 0 for moves that do not replay."""
        try:
            return len(self.game().moves)
        except ValueError:
            return 0


def _keys(shaped: bool) -> tuple[str, ...]:
    return KEYS[:2] + (SHAPE_KEY,) + KEYS[2:] if shaped else KEYS


def record_mac(secret: bytes, lines: str) -> str:
    """D4: HMAC-SHA256 under the shared secret of ``cardstand-game-mac 1``, a newline, and the
    record's ``key: value`` lines as written (nine; ten with ``shape``), each ending with a newline."""
    return hmac.new(secret, (MAC_MAGIC + "\n" + lines).encode("utf-8"), hashlib.sha256).hexdigest()


def _ggf_text(s: str) -> str:
    """A GGF property value: ``\\`` and ``]`` escaped, control characters made visible."""
    return visible(s).replace("\\", "\\\\").replace("]", "\\]")


def n_squares(size: int) -> int:
    return size * size


class Records:
    """The records folder of one board.

    Only ``records/<valid id>.game``, ``records/<valid id>.ack-<colour>``,
    ``records/<valid id>.clock-<colour>`` and ``records/current`` are ever opened, and
    never through a link: a ``records`` folder that is a symbolic link (or not a
    folder) is not used at all, and a record file that is a link is not read.
    With ``secret`` (the shared secret, D4) records are signed when saved and a
    record that is not signed with it is not loaded.  ``readonly``: only look (a watcher, a
    lobby): nothing is written, healed or set aside.
    """

    def __init__(self, board_folder: str | os.PathLike[str], secret: bytes | None = None,
                 readonly: bool = False) -> None:
        self.dir = Path(board_folder) / "records"
        self.root = fsops.Root.for_folder(board_folder, readonly=readonly)
        self.secret = secret or None
        self._warned: set[str] = set()        # problems already logged (a watcher reads ten times a second)

    def path(self, gid: str) -> Path:
        """Where the record of ``gid`` is (for people); ValueError for a bad id."""
        return self.root.path(self._rel(gid))

    @staticmethod
    def _rel(gid: str, suffix: str = "game") -> str:
        if game_id_problem(gid):
            raise ValueError(f"bad game id {str(gid)[:80]!r}")
        return f"records/{gid}.{suffix}"

    def _read(self, rel: str, whole: bool = False) -> str | None:
        """The text of ``records/current`` or an ack file (its first 4096 bytes, R1), or with
        ``whole`` of a game record (``Damaged`` when it is over ``MAX_RECORD`` bytes or not a
        regular file, as interop/js judges it, B7 D1); None when missing (or, without ``whole``,
        not a regular file)."""
        try:
            data = self.root.read(rel, MAX_RECORD + 1 if whole else SMALL_READ, strict=True)
        except fsops.NotRegular as e:
            if whole:       # a game record made a folder, a link, a FIFO: damaged, set aside (D6)
                raise Damaged("rec_not_regular", what=e.strerror) from None
            if rel not in self._warned:
                self._warned.add(rel)
                log.warning("%s: not used (%s)", self.root.path(rel), e)
            return None
        if data is not None and whole and len(data) > MAX_RECORD:
            raise Damaged("rec_too_big")
        return None if data is None else data.decode("utf-8", "replace")

    def save(self, record: Record) -> None:
        """Write the record (signed with the secret, D4) and point ``records/current`` at it.  A
        ``records`` that is a link or not a folder is set aside into ``trash/`` and made again
        (F2), never followed."""
        rel = self._rel(record.id)
        self.root.ensure_dir("records")
        # ``current`` first: a process killed between the two writes leaves ``current`` naming a
        # game not yet written (read as none: the next run starts afresh, D1), never a record
        # that no ``current`` names (a game a restart would not find and leave open for ever)
        if (self._read("records/current") or "").strip() != record.id:
            self.root.replace("records/current", fsops.record(record.id), durable=False)
        self.root.replace(rel, record.text(self.secret).encode("utf-8"), durable=False)

    def load(self, gid: str) -> Record | None:
        """The record of game ``gid``, or None when there is none.  ``Untrusted`` when this side
        has a secret and the record is not signed with it (D4), ``Damaged`` when it is not sound
        or its end is not what its moves give (D1, D5), ValueError for a bad id."""
        text = self._read(self._rel(gid), whole=True)
        if text is None:
            return None
        rec = None
        try:
            rec = Record.parse(text)
            return self._trust(rec, gid)
        except Unusable as e:
            # the board it claims: a guess for the game that goes on (D6), never an untrusted one's
            e.board = rec.board() if rec is not None and not isinstance(e, Untrusted) else None
            e.text = text           # what was judged: set aside only while it is still that (D6)
            raise

    def _trust(self, rec: Record, gid: str) -> Record:
        # the signature first (D4): nothing of a record that fails it is used, not even as damaged
        if self.secret:
            rec.check_mac(self.secret)
        if rec.id != gid:
            raise Damaged("rec_other_id", id=rec.id, name=gid)
        rec.verify()
        return rec

    def set_aside(self, gid: str) -> str:
        """D6: move the record of ``gid`` out of the way, to ``records/<gid>.set-aside-<token>``
        (kept for people to look at, never read again); the new name, or '' when it could not
        be moved (it is then left where it is)."""
        dest = f"records/{gid}.set-aside-{fsops.new_token()}"
        try:
            self.root.rename(self._rel(gid), dest)
        except FileNotFoundError:
            return ""
        except (OSError, ValueError) as e:
            log.warning("the record of game %s could not be set aside: %s", gid, e)
            return ""
        return str(self.root.path(dest))

    def gone_aside(self, gid: str) -> bool:
        """Whether the record of ``gid`` is missing and one has been set aside (D6): when
        ``records/current`` names ``gid``, the other side set it aside first."""
        try:
            if self.root.lstat(self._rel(gid)) is not None:
                return False
            names = self.root.listdir("records")
        except (OSError, ValueError):
            return False
        return any(n.startswith(f"{gid}.set-aside-") for n in names)

    def lost(self, gid: str) -> bool:
        """Whether the record of ``gid`` is missing (none set aside) while a side kept a clock of it
        (D7: it played a ply in it): the game was there and its record is gone (D2)."""
        try:
            if self.root.lstat(self._rel(gid)) is not None:
                return False
            return any(self.root.lstat(self._rel(gid, f"clock-{c}")) is not None for c in ("black", "white"))
        except (OSError, ValueError):
            return False

    def games_with_clocks(self, limit: int = 16) -> list[str]:
        """The ids of the games a side kept a clock file of (D7), the latest changed first, at most
        ``limit`` of them."""
        newest: dict[str, float] = {}
        try:
            names = self.root.listdir("records")
        except (OSError, ValueError):
            return []
        for name in names:
            gid, _, kind = name.rpartition(".")
            if kind not in ("clock-black", "clock-white") or game_id_problem(gid):
                continue
            try:
                st = self.root.lstat(f"records/{name}")
            except (OSError, ValueError):
                continue
            if st is not None:
                newest[gid] = max(newest.get(gid, 0.0), st.st_mtime)
        return sorted(newest, key=lambda g: -newest[g])[:limit]

    def unchanged(self, gid: str, judged: str) -> bool:
        """Whether the record of ``gid`` still reads ``judged`` (the other side may have set it
        aside and written its own since it was judged)."""
        try:
            return self._read(self._rel(gid), whole=True) == judged
        except (OSError, ValueError):
            return False

    def current_id(self) -> str | None:
        """The game id ``records/current`` names, or None (missing, or not a game id)."""
        gid = (self._read("records/current") or "").strip()
        return None if not gid or game_id_problem(gid) else gid

    # -- D3: the end acknowledged to one side --------------------------------------------
    # Kept apart from the game record, which both sides write whole (one side's key in it could
    # be written over by the other side's next save): only ``colour``'s side writes its file.
    def acknowledge(self, gid: str, colour: str) -> None:
        """Note that ``colour``'s side has received the opponent's ``result`` for game ``gid`` (G6)."""
        rel = self._rel(gid, f"ack-{colour}")
        self.root.ensure_dir("records")
        self.root.replace(rel, fsops.record(f"{ACK_MAGIC}\ngame: {gid}"), durable=False)

    def acknowledged(self, gid: str, colour: str) -> bool:
        """Whether ``colour``'s side has had the end of game ``gid`` acknowledged (False when the
        file is missing, unreadable, damaged or names another game)."""
        try:
            text = self._read(self._rel(gid, f"ack-{colour}"))
        except (OSError, ValueError) as e:
            log.info("acknowledgement of %s for %s not read: %s", gid, colour, e)
            return False
        lines = (text or "").split("\n")
        ws = " \t\r"     # ASCII white space only (D3), as interop/js
        return lines[0].strip(ws) == ACK_MAGIC and f"game: {gid}" in (line.strip(ws) for line in lines[1:])

    # -- D7: the time one side has used in a game -------------------------------------------
    # Kept apart from the game record for the same reason as the acknowledgement: only
    # ``colour``'s side writes its file.
    def save_clock(self, gid: str, colour: str, ms: int, classic_run: str | None = None, kind: str = "") -> None:
        """Note that ``colour``'s side has used ``ms`` milliseconds in game ``gid`` (D7), and, in a
        classic game, the opponent's run it plays with (H6b); ``kind``: what plays that side
        (``person`` or ``computer``, as its greeting says), for a program that shows the game."""
        rel = self._rel(gid, f"clock-{colour}")
        self.root.ensure_dir("records")
        run = f"\nclassic-run: {classic_run}" if classic_run and _RUN.fullmatch(classic_run) else ""
        kind = f"\nkind: {kind}" if kind in KINDS else ""
        self.root.replace(rel, fsops.record(f"{CLOCK_MAGIC}\ngame: {gid}\nused: {max(0, int(ms))}{run}{kind}"),
                          durable=False)

    def kind(self, gid: str, colour: str) -> str:
        """What plays ``colour``'s side of game ``gid`` as its clock file says (D7: ``person`` or
        ``computer``), '' when it does not say."""
        try:
            first, fields = fsops.parse_record(self._read(self._rel(gid, f"clock-{colour}")) or "")
        except (OSError, ValueError):
            return ""
        ws = " \t\r"
        kind = fields.get("kind", "").strip(ws)
        return kind if first.strip(ws) == CLOCK_MAGIC and fields.get("game", "").strip(ws) == gid and kind in KINDS else ""

    def classic_run(self, gid: str, colour: str) -> str | None:
        """The classic opponent's run that ``colour``'s side last played game ``gid`` with, as its
        clock file notes it (H6b), or None."""
        try:
            text = self._read(self._rel(gid, f"clock-{colour}"))
        except (OSError, ValueError):
            return None
        first, fields = fsops.parse_record(text or "")
        ws = " \t\r"
        run = fields.get("classic-run", "").strip(ws)
        if first.strip(ws) != CLOCK_MAGIC or fields.get("game", "").strip(ws) != gid or not _RUN.fullmatch(run):
            return None
        return run

    def clock(self, gid: str, colour: str) -> int:
        """The milliseconds ``colour``'s side has used in game ``gid`` as its file says (D7); 0 when
        the file is missing, unreadable, not a regular file, names another game or says anything
        odd: it never stops a game."""
        try:
            text = self._read(self._rel(gid, f"clock-{colour}"))
        except (OSError, ValueError) as e:
            log.info("time used by %s in %s not read: %s", colour, gid, e)
            return 0
        first, fields = fsops.parse_record(text or "")
        ws = " \t\r"     # ASCII white space only, as D3
        used = parse_used(fields.get("used", "").strip(ws))
        if first.strip(ws) != CLOCK_MAGIC or fields.get("game", "").strip(ws) != gid or used is None:
            if text:
                log.info("time used by %s in %s: the file is not a clock of that game: counted as 0", colour, gid)
            return 0
        return used

    def current(self) -> Record | None:
        """The latest game on this board, or None (a damaged or untrusted record, a bad id or none
        at all count as none)."""
        rec, problem = self.current_checked()
        if problem is not None:
            log.info("records/current: %s", problem)
        return rec

    def current_checked(self) -> tuple[Record | None, Exception | None]:
        """``(record, None)`` for the latest game on this board, ``(None, why)`` when its record
        cannot be used (damaged, untrusted, unreadable), ``(None, None)`` when there is none."""
        gid = self.current_id()
        if gid is None:
            return None, None
        try:
            return self.load(gid), None
        except (OSError, ValueError) as e:
            return None, e


def load_file(path: str | os.PathLike[str], secret: bytes | None = None) -> Record:
    """A record file named by the user (``python -m peer replay FILE``), checked as ``load`` checks
    a record on the board (D4 with ``secret``, D5); ``ValueError`` for anything but a regular
    file (a FIFO is not waited on) or a record that is not sound."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except IsADirectoryError:
        raise Explained("rec_folder") from None
    except OSError as e:
        if os.name == "nt" and isinstance(e, PermissionError) and os.path.isdir(path):  # (how Windows refuses a folder)
            raise Explained("rec_folder") from None
        raise ValueError(e.strerror or str(e)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                raise Explained("rec_folder")
            raise Explained("rec_not_regular", what="not a regular file")
        with os.fdopen(fd, "rb") as f:
            fd = -1
            data = f.read(MAX_RECORD + 1)
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > MAX_RECORD:
        raise Damaged("rec_too_big")
    rec = Record.parse(data.decode("utf-8", "replace"))
    if secret:
        rec.check_mac(secret)
    rec.verify()
    return rec
