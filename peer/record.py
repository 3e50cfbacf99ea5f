"""Game records kept in the board folder: ``records/<id>.game`` and ``records/current``.

Everything in a record may have come from the board (names, ids, results),
so every value is escaped to stay on its one line (docs/PROTOCOL.md D1):
``\\`` -> ``\\\\``, newline -> ``\\n``, CR -> ``\\r``, tab -> ``\\t``, other
control characters (C0, DEL, C1), the bidi controls and the line and
paragraph separators -> ``\\xHH`` / ``\\uHHHH``.  ``Record.parse`` undoes it exactly.
"""
import logging
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from comm import fsops
from comm.text import visible

from .protocol import game_id_problem, parse_size, replay

log = logging.getLogger("peer")

MAGIC = "cardstand-game 1"
KEYS = ("id", "size", "black", "white", "date", "mode", "moves", "status", "result")
ACK_MAGIC = "cardstand-ack 1"

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


def escape(value):
    r"""One record value on one line (see the module docstring).

    >>> escape("Eve\nmoves: a1\x1b[2J C:\\temp")
    'Eve\\nmoves: a1\\x1b[2J C:\\\\temp'
    >>> unescape(escape("Eve\nmoves: a1\x1b[2J C:\\temp")) == "Eve\nmoves: a1\x1b[2J C:\\temp"
    True
    """
    def one(m):
        c = m.group(0)
        return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
    return _ESCAPE_ME.sub(one, str(value))


def unescape(text):
    """The inverse of ``escape``; an unknown escape (``\\q``) is kept as written."""
    def one(m):
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

    def text(self):
        return MAGIC + "\n" + "".join(f"{k}: {escape(getattr(self, k))}\n" for k in KEYS)

    @classmethod
    def parse(cls, text):
        """A record from its text; ValueError for anything that is not a sound record."""
        # a CR before a line's end (edited on Windows) is dropped: a CR in a value is written \r
        first, fields = fsops.parse_record(text)
        if first.strip(" \t\r") != MAGIC:     # ASCII white space only (D1), as interop/js
            raise ValueError("not a cardstand game record")
        f = {k: unescape(v) for k, v in fields.items()}
        if "id" not in f:
            raise ValueError("damaged game record: no id")
        if game_id_problem(f["id"]):
            raise ValueError(f"damaged game record: bad game id {f['id'][:80]!r}")
        size = parse_size(f.get("size", "8"))
        if size is None:
            raise ValueError(f"damaged game record: bad size {f['size'][:20]!r}")
        return cls(id=f["id"], size=size, black=f.get("black", "black"),
                   white=f.get("white", "white"), date=f.get("date", ""), mode=f.get("mode", "full"),
                   moves=f.get("moves", ""), status=f.get("status", "playing"), result=f.get("result", ""))

    def game(self):
        """The moves replayed on a board (``ValueError``, ``IllegalMove``, for a damaged record:
        the moves of D1 are a transcript with every pass written out, H2)."""
        return replay(self.moves, self.size)

    def ggf(self):
        """The game in GGF, the format of the Generic Game Server and most Othello tools."""
        g = self.game()
        return g.to_ggf(_ggf_text(self.black), _ggf_text(self.white), self.ggf_result(g),
                        date=_ggf_text(self.date))

    def ggf_result(self, g):
        if self.status == "over":
            b, w = g.position.discs()
            diff = b - w
            e = g.position.empties()
            diff += e if diff > 0 else -e if diff < 0 else 0
            return f"{diff:+d}.000" if diff else "0.000"
        if self.status == RESIGNED:
            loser_black = self.result.startswith("black")
            return f"{'-' if loser_black else '+'}{n_squares(self.size)}.000:r"
        return ""           # unfinished, abandoned or refused: no result

    def moves_played(self):
        """How many plies the record holds (passes included); 0 for moves that do not replay."""
        try:
            return len(self.game().moves)
        except ValueError:
            return 0


def _ggf_text(s):
    """A GGF property value: ``\\`` and ``]`` escaped, control characters made visible."""
    return visible(s).replace("\\", "\\\\").replace("]", "\\]")


def n_squares(size):
    return size * size


class Records:
    """The records folder of one board.

    Only ``records/<valid id>.game``, ``records/<valid id>.ack-<colour>`` and
    ``records/current`` are ever opened, and
    never through a link: a ``records`` folder that is a symbolic link (or not a
    folder) is not used at all, and a record file that is a link is not read.
    """

    def __init__(self, board_folder):
        self.dir = Path(board_folder) / "records"
        self.root = fsops.Root.for_folder(board_folder)
        self._warned = set()        # problems already logged (a watcher reads ten times a second)

    def path(self, gid):
        """Where the record of ``gid`` is (for people); ValueError for a bad id."""
        return self.root.path(self._rel(gid))

    @staticmethod
    def _rel(gid, suffix="game"):
        if game_id_problem(gid):
            raise ValueError(f"bad game id {str(gid)[:80]!r}")
        return f"records/{gid}.{suffix}"

    def _read(self, rel, whole=False):
        """The text of ``records/current`` or an ack file (its first 4096 bytes, R1), or with
        ``whole`` of a game record (``ValueError`` when it is over ``MAX_RECORD`` bytes: damaged,
        as interop/js judges it, B7 D1); None when missing or not a regular file."""
        try:
            data = self.root.read(rel, MAX_RECORD + 1 if whole else SMALL_READ, strict=True)
        except fsops.NotRegular as e:
            if rel not in self._warned:
                self._warned.add(rel)
                log.warning("%s: not used (%s)", self.root.path(rel), e)
            return None
        if data is not None and whole and len(data) > MAX_RECORD:
            raise ValueError("too big for a game record")
        return None if data is None else data.decode("utf-8", "replace")

    def save(self, record):
        """Write the record and point ``records/current`` at it.  A ``records`` that is a link
        or not a folder is set aside into ``trash/`` and made again (F2), never followed."""
        rel = self._rel(record.id)
        self.root.ensure_dir("records")
        # ``current`` first: a process killed between the two writes leaves ``current`` naming a
        # game not yet written (read as none: the next run starts afresh, D1), never a record
        # that no ``current`` names (a game a restart would not find and leave open for ever)
        if (self._read("records/current") or "").strip() != record.id:
            self.root.replace("records/current", fsops.record(record.id), durable=False)
        self.root.replace(rel, record.text().encode("utf-8"), durable=False)

    def load(self, gid):
        """The record of game ``gid``, or None; ValueError for a bad id or a damaged record."""
        text = self._read(self._rel(gid), whole=True)
        if text is None:
            return None
        rec = Record.parse(text)
        if rec.id != gid:
            raise ValueError(f"damaged game record: it says id {rec.id!r}, its name {gid!r}")
        return rec

    # -- D3: the end acknowledged to one side --------------------------------------------
    # Kept apart from the game record, which both sides write whole (one side's key in it could
    # be written over by the other side's next save): only ``colour``'s side writes its file.
    def acknowledge(self, gid, colour):
        """Note that ``colour``'s side has received the opponent's ``result`` for game ``gid`` (G6)."""
        rel = self._rel(gid, f"ack-{colour}")
        self.root.ensure_dir("records")
        self.root.replace(rel, fsops.record(f"{ACK_MAGIC}\ngame: {gid}"), durable=False)

    def acknowledged(self, gid, colour):
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

    def current(self):
        """The latest game on this board, or None (a damaged record or a bad id counts as none)."""
        gid = self._read("records/current")
        if not gid or not gid.strip():
            return None
        try:
            return self.load(gid.strip())
        except (OSError, ValueError) as e:
            log.info("records/current: %s", e)
            return None


def load_file(path):
    """A record file named by the user (``python -m peer replay FILE``); ``ValueError`` for
    anything but a regular file (a FIFO is not waited on)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ValueError("not a regular file")
        data = f.read(MAX_RECORD + 1)
    if len(data) > MAX_RECORD:
        raise ValueError("too big for a game record")
    return Record.parse(data.decode("utf-8", "replace"))
